//! Decoding maps as dataclasses and `TypedDict`s.

use std::sync::Arc;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use roving::Map;

use crate::error_path::PathStep;

use super::decode::TypedDecoder;
use super::failure::{decode_fail, fail_msg, user_fail, with_step, DecodeResult, Fail, FailKind};
use super::plan::{DataclassPlan, FieldDefault, KeyIndexRef, Plan};

/// The order in which a union tries its members on map `m` when two or
/// more are dataclasses (or `TypedDict`s), as indexes into `members`: the
/// dataclasses, in the places they hold among the members, sorted by how
/// many keys of `m` are not their fields (then in the order written);
/// the other members keep their places. Since unknown keys are ignored,
/// trying them in the order written gave a map to the first dataclass
/// whose required fields it had, whichever it was written as. `None`:
/// the order written.
pub(super) fn dataclass_order(members: &[Plan], m: &Map<'_>) -> Option<Vec<usize>> {
    let is_dc = |i: &usize| matches!(members[*i], Plan::Dataclass(_));
    // Counted first: unions of one dataclass (`Item | None`, the common
    // case) allocate nothing per map.
    (0..members.len()).filter(is_dc).nth(1)?;
    let places: Vec<usize> = (0..members.len()).filter(is_dc).collect();
    let slots = m.slots();
    let unknown = |i: usize| match &members[i] {
        Plan::Dataclass(dc) => match dc.fields.get() {
            Some(fields) => (0..slots.len())
                .filter(|&k| dc.field_of(slots.key(k).unwrap_or(""), fields) == u32::MAX)
                .count(),
            None => usize::MAX,
        },
        _ => usize::MAX,
    };
    let mut ranked: Vec<(usize, usize)> = places.iter().map(|&i| (unknown(i), i)).collect();
    ranked.sort_unstable();
    let mut order: Vec<usize> = (0..members.len()).collect();
    for (&place, &(_, i)) in places.iter().zip(&ranked) {
        order[place] = i;
    }
    Some(order)
}

/// `cls.__new__(cls)`: object's own `tp_new` called directly when the
/// class does not override `__new__` (no method lookup, no argument tuple
/// built per instance).
fn new_instance<'py>(cls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    let tp = cls.as_ptr() as *mut ffi::PyTypeObject;
    // SAFETY: `cls` is a live type object (a dataclass, checked when the
    // plan was made); reading its `tp_new` slot and object's is plain
    // field access on live static or heap type objects.
    let (own, base) = unsafe {
        (
            (*tp).tp_new,
            (*std::ptr::addr_of!(ffi::PyBaseObject_Type)).tp_new,
        )
    };
    match (own, base) {
        (Some(new), Some(base)) if std::ptr::fn_addr_eq(new, base) => {
            let args = pyo3::types::PyTuple::empty(py);
            // SAFETY: object.__new__ with an empty argument tuple and no
            // keywords, as `object.__new__(cls)` does; it returns a new
            // reference or NULL with an exception set.
            unsafe {
                Bound::from_owned_ptr_or_err(py, new(tp, args.as_ptr(), std::ptr::null_mut()))
            }
        }
        _ => cls.call_method1(pyo3::intern!(py, "__new__"), (cls,)),
    }
}

/// Field values of one dataclass instance (inline for up to
/// `FIELD_VALUES_INLINE` fields: no allocation per instance).
enum FieldValues<'py> {
    /// Up to `FIELD_VALUES_INLINE` fields, the first `len` of `values` used.
    Inline {
        values: [Option<Bound<'py, PyAny>>; FIELD_VALUES_INLINE],
        len: usize,
    },
    /// More fields than that.
    Heap(Vec<Option<Bound<'py, PyAny>>>),
}

pub(super) const FIELD_VALUES_INLINE: usize = 16;

impl<'py> FieldValues<'py> {
    pub(super) fn new(n: usize) -> FieldValues<'py> {
        if n <= FIELD_VALUES_INLINE {
            FieldValues::Inline {
                values: std::array::from_fn(|_| None),
                len: n,
            }
        } else {
            let mut v = Vec::new();
            v.resize_with(n, || None);
            FieldValues::Heap(v)
        }
    }

    fn slice(&mut self) -> &mut [Option<Bound<'py, PyAny>>] {
        match self {
            FieldValues::Inline { values, len } => &mut values[..*len],
            FieldValues::Heap(v) => v,
        }
    }
}

impl<'py, 'a, 'p> TypedDecoder<'py, 'a, 'p> {
    pub(super) fn dataclass(
        &mut self,
        dc: &'p Arc<DataclassPlan>,
        m: Map<'a>,
    ) -> DecodeResult<'py> {
        let py = self.py();
        let fields = match dc.fields.get() {
            Some(f) => f,
            None => return Err(fail_msg(format!("dataclass {} is not ready", dc.name))),
        };
        let m = m.slots();
        let n = m.len();
        self.enter(n)?;
        let key = (
            m.shape_offset().unwrap_or(usize::MAX),
            Arc::as_ptr(dc) as usize,
        );
        // A key list already checked in this document, or a candidate (the
        // last one seen for this dataclass) whose keys are compared while
        // the values are read.
        let known = match &self.last_shape {
            Some((s, d, ki)) if (*s, *d) == key => Some(ki.clone()),
            _ if self.shapes.is_empty() => None,
            _ => self.shapes.get(&key).cloned(),
        };
        // A map of a known shape has that shape's key count, unless the
        // bytes are not a valid document (opened trusted, or changed
        // after validation): then its keys are matched one by one.
        let known = known.filter(|k| k.idx.len() == n);
        let checked = known.is_some();
        let cand = known.or_else(|| dc.last_keys().map(KeyIndexRef::Plan));
        let mut vals = FieldValues::new(fields.len());
        let mut same = cand.as_ref().is_some_and(|c| c.idx.len() == n);
        for i in 0..n {
            let j = match &cand {
                Some(c) if checked => c.idx[i],
                Some(c) if same && m.key_record_is(i, &c.recs[i]) => c.idx[i],
                _ => {
                    same = false;
                    dc.field_of(m.key(i).unwrap_or(""), fields)
                }
            };
            if j == u32::MAX {
                continue;
            }
            let Some(v) = m.value(i) else { break };
            let f = &fields[j as usize];
            let o = self
                .field(&f.plan, v)
                .map_err(|e| with_step(e, PathStep::Key(f.name_str.clone())))?;
            vals.slice()[j as usize] = Some(o);
        }
        if !checked {
            let ki = match cand {
                Some(c) if same => c,
                _ => dc.field_index(&m, fields),
            };
            // The previous entry moves to the map (a document of one
            // shape, e.g. a store record, allocates none).
            if let Some((s, d, prev)) = self.last_shape.replace((key.0, key.1, ki)) {
                if self.shapes.len() < 4096 {
                    self.shapes.insert((s, d), prev);
                }
            }
        }
        self.decoder.leave();
        let vals = vals.slice();
        // Defaults and missing fields.
        for (j, f) in fields.iter().enumerate() {
            if vals[j].is_some() {
                continue;
            }
            vals[j] = Some(match &f.default {
                FieldDefault::Value(d) => d.bind(py).clone(),
                FieldDefault::Factory(fac) => fac
                    .bind(py)
                    .call0()
                    .map_err(|e| Fail::boxed(FailKind::User(e)))?,
                // An `init=False` field without a default is left unset,
                // as `__init__` leaves it (`__post_init__` may set it).
                FieldDefault::Required if !f.init => continue,
                FieldDefault::Omit => continue,
                FieldDefault::Required => {
                    return Err(fail_msg(format!("missing required field '{}'", f.name_str)));
                }
            });
        }
        if dc.as_dict {
            let out = PyDict::new(py);
            for (f, v) in fields.iter().zip(vals.iter()) {
                if let Some(v) = v {
                    out.set_item(f.name.bind(py), v).map_err(decode_fail)?;
                }
            }
            return Ok(out.into_any());
        }
        let cls = dc.cls.bind(py);
        let user = |e: PyErr| user_fail(py, e);
        if *dc.call_init.get().unwrap_or(&false) {
            let kw = PyDict::new(py);
            for (f, v) in fields.iter().zip(vals.iter_mut()) {
                if f.init {
                    kw.set_item(f.name.bind(py), v.take().expect("filled above"))
                        .map_err(user)?;
                }
            }
            return cls.call((), Some(&kw)).map_err(user);
        }
        // object.__new__(cls), then the fields set like the generated
        // __init__ does (bypassing a frozen class's __setattr__).
        let obj = new_instance(cls).map_err(user)?;
        if let Some(init) = dc.fast_init.get().and_then(Option::as_ref) {
            // Every field is an `init` field (checked when the plan was
            // made), in the order of `__init__`'s parameters.
            let mut args = [std::ptr::null_mut::<ffi::PyObject>(); FIELD_VALUES_INLINE + 1];
            args[0] = obj.as_ptr();
            for (a, v) in args[1..].iter_mut().zip(vals.iter()) {
                match v {
                    Some(v) => *a = v.as_ptr(),
                    None => return Err(fail_msg("missing field value".to_owned())),
                }
            }
            // SAFETY: `init` is a live function; `args` holds `1 + fields`
            // live borrowed references (the callee takes its own); it
            // returns a new reference or NULL with an exception set.
            let r = unsafe {
                ffi::PyObject_Vectorcall(
                    init.as_ptr(),
                    args.as_ptr(),
                    vals.len() + 1,
                    std::ptr::null_mut(),
                )
            };
            // SAFETY: as above.
            unsafe { Bound::from_owned_ptr_or_err(py, r) }.map_err(user)?;
            return Ok(obj);
        }
        for (f, v) in fields.iter().zip(vals.iter()) {
            let Some(v) = v else {
                if !f.init {
                    continue;
                }
                return Err(fail_msg(format!("missing required field '{}'", f.name_str)));
            };
            // SAFETY: live objects; PyObject_GenericSetAttr takes its own references.
            let rc =
                unsafe { ffi::PyObject_GenericSetAttr(obj.as_ptr(), f.name.as_ptr(), v.as_ptr()) };
            if rc < 0 {
                return Err(user(PyErr::fetch(py)));
            }
        }
        if *dc.post_init.get().unwrap_or(&false) {
            obj.call_method0(pyo3::intern!(py, "__post_init__"))
                .map_err(user)?;
        }
        Ok(obj)
    }
}
