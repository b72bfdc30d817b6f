//! Writing dataclass instances as maps of their fields.

use std::cell::RefCell;
use std::sync::Arc;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

use crate::decode::IdMap;
use crate::error_path::PathStep;
use crate::pytypes;

use super::failure::{EncodeResult, Fail};
use super::{MemoEntry, State};

/// What writing the instances of one dataclass type needs, found once per
/// type.
pub(super) struct DataclassFields {
    /// The field names (interned), in order, with their text.
    names: Vec<(Py<PyString>, Box<str>)>,
    /// Whether a field's value may be read from the instance's `__dict__`:
    /// the type reads attributes the generic way (no `__getattribute__` or
    /// `__getattr__` of its own), its instances have a `__dict__`, and no
    /// class of its MRO holds a data descriptor (a property, a slot) under
    /// a field's name, which would take precedence over `__dict__`. Then
    /// the value in `__dict__`, if there, is what `getattr` gives.
    from_dict: bool,
    /// The type's version tag when `from_dict` was found: a class changed
    /// since (a property added, say) has another, and is looked at again.
    version: u32,
}

impl<'py> State<'py, '_> {
    pub(super) fn tracked_dataclass(
        &mut self,
        ob: &Bound<'py, PyAny>,
        parent_refs: isize,
        fields: &DataclassFields,
    ) -> EncodeResult {
        let o = ob.as_ptr();
        // SAFETY: `o` is alive through `ob`.
        let shared = unsafe { ffi::Py_REFCNT(o) } > parent_refs;
        let key = o as usize;
        // SAFETY: `o` is alive through `ob`.
        if shared && unsafe { self.open_shared(o) }? {
            return Ok(());
        }
        self.enter()?;
        self.enc.begin_map()?;
        let dict = if fields.from_dict {
            // SAFETY: `o` is a live object whose type has a `__dict__`
            // (checked with `from_dict`); a new reference or NULL with an
            // exception set.
            let d = unsafe { ffi::PyObject_GenericGetDict(o, std::ptr::null_mut()) };
            // SAFETY: as above.
            unsafe { Bound::from_owned_ptr_or_opt(self.py, d) }
                .and_then(|d| d.cast_into::<pyo3::types::PyDict>().ok())
        } else {
            None
        };
        if dict.is_none() && fields.from_dict {
            // SAFETY: clearing the error of a failed `__dict__` read (the
            // fields are then read with `getattr`).
            unsafe { ffi::PyErr_Clear() };
        }
        // The position of the next entry of `dict`, while its entries are
        // the fields in order (as the generated `__init__` sets them).
        let mut next: Option<ffi::Py_ssize_t> = Some(0);
        for (name, text) in &fields.names {
            let name = name.bind(self.py);
            let found = match &dict {
                // SAFETY: `d` is a live dict; entries read by position are
                // borrowed, and taken as new references at once.
                Some(d) => unsafe { dict_field(d, name, &mut next) },
                None => None,
            };
            let v = match found {
                Some(v) => v,
                None => match ob.getattr(name) {
                    Ok(v) => v,
                    // A field `__init__` does not set (`init=False` without
                    // a default) may be unset: left out, as msgspec does.
                    Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(self.py) => {
                        continue
                    }
                    Err(e) => {
                        let mut f: Box<Fail> = e.into();
                        f.path
                            .push(PathStep::Object(name.clone().into_any().unbind()));
                        return Err(f);
                    }
                },
            };
            self.enc.key(text)?;
            if let Err(mut f) = self.owned(v, 2) {
                f.path
                    .push(PathStep::Object(name.clone().into_any().unbind()));
                return Err(f);
            }
        }
        let mark = self.enc.end_map()?;
        self.depth -= 1;
        if shared {
            self.tables.memo.insert(key, MemoEntry::Done(mark));
        }
        Ok(())
    }
}

/// The value of field `name` in the instance dict `d` (a new reference),
/// or `None` if `d` lacks it. While `next` is `Some`, the entry at that
/// position is tried first, and `next` moves past it when it is `name`;
/// once an entry is not the field asked for, `next` is `None` and names
/// are looked up.
///
/// # Safety
/// `d` must be a live dict.
unsafe fn dict_field<'py>(
    d: &Bound<'py, pyo3::types::PyDict>,
    name: &Bound<'py, PyString>,
    next: &mut Option<ffi::Py_ssize_t>,
) -> Option<Bound<'py, PyAny>> {
    let py = d.py();
    if let Some(pos) = next {
        let mut at = *pos;
        let (mut k, mut v) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: `d` is a live dict (caller); `k` and `v` are borrowed.
        if unsafe { ffi::PyDict_Next(d.as_ptr(), &mut at, &mut k, &mut v) } != 0
            && (k == name.as_ptr()
                // SAFETY: `k` is a live key of `d`.
                || unsafe { Bound::from_borrowed_ptr(py, k) }
                    .cast::<PyString>()
                    .is_ok_and(|k| k.to_str().ok() == name.to_str().ok()))
        {
            *pos = at;
            // SAFETY: `v` is a live value of `d`: a new reference to it.
            return Some(unsafe { Bound::from_borrowed_ptr(py, v) });
        }
        *next = None;
    }
    // Borrowed, then a new reference at once (an `__eq__` of a key may run
    // Python code, which cannot run between the two).
    match d.get_item(name) {
        Ok(v) => v,
        Err(e) => {
            // A key whose `__eq__` raised: the field is read with getattr.
            drop(e);
            None
        }
    }
}

/// The fields of a dataclass type (`None` if not one), cached per type.
pub(super) fn dataclass_fields(t: &Bound<'_, PyType>) -> PyResult<Option<Arc<DataclassFields>>> {
    type Cache = IdMap<usize, (Py<PyType>, Option<Arc<DataclassFields>>)>;
    thread_local! {
        static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
    }
    let key = t.as_ptr() as usize;
    if let Some(v) = CACHE.with(|c| c.borrow().get(&key).map(|(_, v)| v.clone())) {
        match &v {
            Some(f) if f.from_dict && version_tag(t) != f.version => {}
            _ => return Ok(v),
        }
    }
    let v = fields_of(t)?.map(Arc::new);
    // The type is held, so its address stays its own. An entry replaced
    // (its class changed) is dropped after the borrow ends.
    let old = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() < 4096 || c.contains_key(&key) {
            c.insert(key, (t.clone().unbind(), v.clone()))
        } else {
            None
        }
    });
    drop(old);
    Ok(v)
}

/// [`DataclassFields`] of `t`, if it is a dataclass type (not an enum:
/// an enum that is also a dataclass is written as its members' values).
fn fields_of(t: &Bound<'_, PyType>) -> PyResult<Option<DataclassFields>> {
    let py = t.py();
    if t.is_subclass(pytypes::types(py)?.enum_.bind(py))? {
        return Ok(None);
    }
    let Some(names) = pytypes::dataclass_field_names(t)? else {
        return Ok(None);
    };
    let tp = t.as_ptr() as *mut ffi::PyTypeObject;
    // SAFETY: `t` is a live type object: reading two of its slots.
    let (getattro, dictoffset) = unsafe { ((*tp).tp_getattro, (*tp).tp_dictoffset) };
    let generic = getattro.is_some_and(|g| {
        std::ptr::fn_addr_eq(g, ffi::PyObject_GenericGetAttr as ffi::getattrofunc)
    });
    let mut from_dict = generic && dictoffset != 0;
    // Looking `__mro__` up gives the type a valid version tag.
    t.getattr(pyo3::intern!(py, "__mro__"))?;
    let version = version_tag(t);
    if from_dict {
        for name in &names {
            if data_descriptor(t, name)? {
                from_dict = false;
                break;
            }
        }
    }
    // No valid tag, or the class changed while it was looked at: `getattr`.
    from_dict &= version != 0 && version_tag(t) == version;
    let names = names
        .into_iter()
        .map(|n| {
            let text: Box<str> = n.to_str()?.into();
            Ok((n.unbind(), text))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Some(DataclassFields {
        names,
        from_dict,
        version,
    }))
}

/// The version tag of type `t` (CPython gives a type a new one whenever
/// it or a base class changes), or 0 if it has no valid one.
fn version_tag(t: &Bound<'_, PyType>) -> u32 {
    let tp = t.as_ptr() as *mut ffi::PyTypeObject;
    // SAFETY: `t` is a live type object: reading two of its fields.
    let (flags, tag) = unsafe { ((*tp).tp_flags, (*tp).tp_version_tag) };
    if flags & ffi::Py_TPFLAGS_VALID_VERSION_TAG != 0 {
        tag
    } else {
        0
    }
}

/// Whether the first class of `t`'s MRO whose `__dict__` has `name` holds
/// a data descriptor there (its type has `__set__` or `__delete__`), as
/// `inspect.getattr_static` finds it.
fn data_descriptor(t: &Bound<'_, PyType>, name: &Bound<'_, PyString>) -> PyResult<bool> {
    let py = t.py();
    let mro = t.getattr(pyo3::intern!(py, "__mro__"))?;
    for cls in mro.try_iter()? {
        let ns = cls?.getattr(pyo3::intern!(py, "__dict__"))?;
        if ns.contains(name)? {
            let kind = ns.get_item(name)?.get_type();
            return Ok(kind.hasattr(pyo3::intern!(py, "__set__"))?
                || kind.hasattr(pyo3::intern!(py, "__delete__"))?);
        }
    }
    Ok(false)
}
