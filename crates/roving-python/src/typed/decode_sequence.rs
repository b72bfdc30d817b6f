//! Decoding arrays: lists, sets, tuples, `NamedTuple`s and ndarrays.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyFrozenSet, PySet, PyTuple};

use roving::read::Scalar;
use roving::{Array, Value};

use crate::error_path::PathStep;
use crate::pytypes;

use super::decode::TypedDecoder;
use super::failure::{
    decode_fail, fail_msg, mismatch, user_fail, with_step, DecodeResult, Fail, FailKind,
};
use super::plan::{NamedTuplePlan, Plan};

impl<'py, 'a, 'p> TypedDecoder<'py, 'a, 'p> {
    /// A fixed-length tuple (`tuple[int, str]`) from an array: filled in
    /// place, each item through [`field`](Self::field).
    pub(super) fn tuple(&mut self, items: &'p [Plan], a: Array<'a>) -> DecodeResult<'py> {
        let py = self.py();
        let elems = a.slots();
        let n = elems.len();
        if items.len() != n {
            return Err(fail_msg(format!(
                "expected tuple of length {}, got list of length {n}",
                items.len()
            )));
        }
        self.enter(n)?;
        // SAFETY: PyTuple_New returns a new tuple of `n` NULL items or NULL
        // with an exception set; a partly filled one (after an error) is
        // valid to free, as NULL items are skipped.
        let out =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(n as ffi::Py_ssize_t)) }
                .map_err(decode_fail)?;
        for (i, p) in items.iter().enumerate() {
            let item = elems.value(i).unwrap_or(Value::Null);
            let o = self
                .field(p, item)
                .map_err(|f| with_step(f, PathStep::Index(i)))?;
            // SAFETY: i < n, each item is set once; the tuple steals the
            // reference.
            unsafe { ffi::PyTuple_SET_ITEM(out.as_ptr(), i as ffi::Py_ssize_t, o.into_ptr()) };
        }
        self.decoder.leave();
        Ok(out)
    }

    /// A `NamedTuple` from an array: `cls(*items)`, missing trailing
    /// items from the defaults.
    pub(super) fn namedtuple(&mut self, nt: &'p NamedTuplePlan, a: Array<'a>) -> DecodeResult<'py> {
        let py = self.py();
        let elems = a.slots();
        let n = elems.len();
        let total = nt.items.len();
        if n < nt.required || n > total {
            let want = if nt.required == total {
                format!("{total} items")
            } else {
                format!("{} to {total} items", nt.required)
            };
            return Err(fail_msg(format!(
                "expected {} ({want}), got list of length {n}",
                nt.name
            )));
        }
        self.enter(n)?;
        let mut out = Vec::with_capacity(total);
        for (i, p) in nt.items.iter().enumerate() {
            if i < n {
                let item = elems.value(i).unwrap_or(Value::Null);
                out.push(
                    self.field(p, item)
                        .map_err(|f| with_step(f, PathStep::Index(i)))?,
                );
            } else if let Some(d) = &nt.defaults[i] {
                out.push(d.bind(py).clone());
            }
        }
        self.decoder.leave();
        let args = PyTuple::new(py, out).map_err(decode_fail)?;
        nt.cls.bind(py).call1(args).map_err(|e| user_fail(py, e))
    }

    pub(super) fn sequence(&mut self, plan: &'p Plan, v: Value<'a>) -> DecodeResult<'py> {
        let py = self.py();
        match v {
            Value::Array(a) => self.memoized(plan, a.offset(), |s| {
                // A list of ints stored as a number array: made in one loop,
                // as `loads` makes it (no plan dispatch per element).
                if let (Plan::List { item }, Some(nums)) = (plan, a.numbers()) {
                    if matches!(**item, Plan::Int) && !nums.elem().is_float() {
                        return s.decoder.numbers(None, nums).map_err(decode_fail);
                    }
                }
                let mut elems = Elements::of(a);
                let n = elems.len();
                if let Plan::Tuple { items } = plan {
                    if items.len() != n {
                        return Err(fail_msg(format!(
                            "expected tuple of length {}, got list of length {n}",
                            items.len()
                        )));
                    }
                }
                s.enter(n)?;
                if !matches!(plan, Plan::Set { .. }) {
                    // Lists and tuples are filled in place.
                    let list = matches!(plan, Plan::List { .. });
                    let len = n as ffi::Py_ssize_t;
                    // SAFETY: PyList_New / PyTuple_New return a new
                    // container of `n` NULL items or NULL with an exception
                    // set; a partly filled one (after an error) is valid to
                    // free, as NULL items are skipped.
                    let out = unsafe {
                        let p = if list {
                            ffi::PyList_New(len)
                        } else {
                            ffi::PyTuple_New(len)
                        };
                        Bound::from_owned_ptr_or_err(py, p).map_err(decode_fail)?
                    };
                    for i in 0..n {
                        let item = elems.next().unwrap_or(Value::Null);
                        let p = match plan {
                            Plan::List { item: p } | Plan::HomogeneousTuple { item: p } => &**p,
                            Plan::Tuple { items } => &items[i],
                            _ => unreachable!("list and tuple plans only"),
                        };
                        let o = s
                            .field(p, item)
                            .map_err(|f| with_step(f, PathStep::Index(i)))?;
                        let i = i as ffi::Py_ssize_t;
                        // SAFETY: i < n, each item is set once; the
                        // container steals the reference.
                        unsafe {
                            if list {
                                ffi::PyList_SET_ITEM(out.as_ptr(), i, o.into_ptr());
                            } else {
                                ffi::PyTuple_SET_ITEM(out.as_ptr(), i, o.into_ptr());
                            }
                        }
                    }
                    s.decoder.leave();
                    return Ok(out);
                }
                let mut out: Vec<Bound<'py, PyAny>> = Vec::with_capacity(n);
                for i in 0..n {
                    let item = elems.next().unwrap_or(Value::Null);
                    let p = match plan {
                        Plan::List { item: p }
                        | Plan::Set { item: p, .. }
                        | Plan::HomogeneousTuple { item: p } => &**p,
                        Plan::Tuple { items } => &items[i],
                        _ => unreachable!("sequence plans only"),
                    };
                    let o = s
                        .value(p, item)
                        .map_err(|f| with_step(f, PathStep::Index(i)))?;
                    out.push(o);
                }
                s.decoder.leave();
                s.collect(plan, out)
            }),
            Value::Vector(vec) if vec.ndim() > 1 && !matches!(plan, Plan::Tuple { .. }) => {
                self.shaped_rows(plan, vec, &vec.shape(), 0)
            }
            Value::Vector(vec) if !matches!(plan, Plan::Tuple { .. }) => {
                let n = vec.len();
                self.enter(n)?;
                let p = match plan {
                    Plan::List { item: p }
                    | Plan::Set { item: p, .. }
                    | Plan::HomogeneousTuple { item: p } => &**p,
                    _ => unreachable!("sequence plans only"),
                };
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let item = match vec.get(i) {
                        Some(Scalar::Int(x)) => Value::Int(x),
                        Some(Scalar::UInt(x)) => Value::UInt(x),
                        Some(Scalar::Float(x)) => Value::Float(x),
                        None => Value::Null,
                    };
                    let o = self
                        .value(p, item)
                        .map_err(|f| with_step(f, PathStep::Index(i)))?;
                    out.push(o);
                }
                self.decoder.leave();
                let _ = py;
                self.collect(plan, out)
            }
            _ => Err(mismatch(plan, &v)),
        }
    }

    /// The part of a shaped vector of dimensions `dims` (a suffix of its
    /// shape) from element `first`, read with the sequence plan `plan`
    /// (`list[list[float]]`, ...): its rows with the item plan, down to the
    /// elements; a row read as `numpy.ndarray` or `Any` is the ndarray of
    /// that row (a copy), as untyped `loads` gives the whole one.
    fn shaped_rows(
        &mut self,
        plan: &'p Plan,
        vec: roving::Vector<'a>,
        dims: &[usize],
        first: usize,
    ) -> DecodeResult<'py> {
        let py = self.py();
        let p = match plan {
            Plan::List { item: p }
            | Plan::Set { item: p, .. }
            | Plan::HomogeneousTuple { item: p } => &**p,
            _ => return Err(mismatch(plan, &Value::Vector(vec))),
        };
        let [n, rest @ ..] = dims else {
            return Err(mismatch(plan, &Value::Vector(vec)));
        };
        // Saturating: a product that overflows has a 0 further on.
        let stride = rest.iter().fold(1usize, |a, &d| a.saturating_mul(d));
        self.enter(*n)?;
        let mut out = Vec::with_capacity(*n);
        for i in 0..*n {
            let at = first.saturating_add(i.saturating_mul(stride));
            let o = if rest.is_empty() {
                let item = match vec.get(at) {
                    Some(Scalar::Int(x)) => Value::Int(x),
                    Some(Scalar::UInt(x)) => Value::UInt(x),
                    Some(Scalar::Float(x)) => Value::Float(x),
                    None => Value::Null,
                };
                self.value(p, item)
            } else {
                match p {
                    Plan::List { .. } | Plan::Set { .. } | Plan::HomogeneousTuple { .. } => {
                        self.shaped_rows(p, vec, rest, at)
                    }
                    Plan::NdArray | Plan::Any => {
                        let size = vec.elem_type().size();
                        let bytes = vec
                            .raw()
                            .get(at * size..(at + stride) * size)
                            .unwrap_or_default();
                        pytypes::vector_to_py(py, vec.elem_type(), bytes)
                            .and_then(|a| pytypes::reshape(py, &a, rest))
                            .map_err(decode_fail)
                    }
                    _ => Err(mismatch(p, &Value::Vector(vec))),
                }
            };
            out.push(o.map_err(|f| with_step(f, PathStep::Index(i)))?);
        }
        self.decoder.leave();
        self.collect(plan, out)
    }

    pub(super) fn collect(
        &mut self,
        plan: &'p Plan,
        items: Vec<Bound<'py, PyAny>>,
    ) -> DecodeResult<'py> {
        let py = self.py();
        let r = match plan {
            Plan::List { .. } => pyo3::types::PyList::new(py, items).map(|l| l.into_any()),
            Plan::HomogeneousTuple { .. } | Plan::Tuple { .. } => {
                PyTuple::new(py, items).map(|t| t.into_any())
            }
            Plan::Set { frozen: false, .. } => PySet::new(py, &items).map(|s| s.into_any()),
            Plan::Set { frozen: true, .. } => PyFrozenSet::new(py, &items).map(|s| s.into_any()),
            _ => unreachable!("sequence plans only"),
        };
        r.map_err(|e| Fail::boxed(FailKind::User(e)))
    }

    /// An ndarray from an array of rows (`plan` is [`Plan::NdArray`]):
    /// each row read as an ndarray, then stacked, when they all have one
    /// shape and one dtype (as `dumps` writes them).
    pub(super) fn ndarray_rows(&mut self, plan: &'p Plan, a: Array<'a>) -> DecodeResult<'py> {
        let py = self.py();
        let Some(np) = pytypes::numpy_import(py) else {
            return Err(fail_msg("numpy is not installed".into()));
        };
        let n = a.len();
        if n == 0 {
            return Err(fail_msg(
                "expected ndarray, got an empty array (no dtype or shape to give it)".into(),
            ));
        }
        self.enter(n)?;
        let mut rows = Vec::with_capacity(n);
        let mut first: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = None;
        for (i, v) in a.iter().enumerate() {
            let at = |f| with_step(f, PathStep::Index(i));
            let row = self.value(plan, v).map_err(at)?;
            let shape = row
                .getattr(pyo3::intern!(py, "shape"))
                .map_err(decode_fail)?;
            let dtype = row
                .getattr(pyo3::intern!(py, "dtype"))
                .map_err(decode_fail)?;
            if let Some((s0, d0)) = &first {
                let same =
                    s0.eq(&shape).map_err(decode_fail)? && d0.eq(&dtype).map_err(decode_fail)?;
                if !same {
                    let show =
                        |o: &Bound<'py, PyAny>| o.str().map(|s| s.to_string()).unwrap_or_default();
                    return Err(at(fail_msg(format!(
                        "expected ndarray rows of one shape and dtype, got {} {} after {} {}",
                        show(&shape),
                        show(&dtype),
                        show(s0),
                        show(d0)
                    ))));
                }
            } else {
                first = Some((shape, dtype));
            }
            rows.push(row);
        }
        self.decoder.leave();
        let rows = pyo3::types::PyList::new(py, rows).map_err(decode_fail)?;
        np.stack.bind(py).call1((rows,)).map_err(decode_fail)
    }
}

/// The elements of an array in order: through its slots, or for a string
/// array (format version 2) read sequentially ([`Array::strings`]; boxed,
/// so that the frames of nested sequences stay as small as with slots).
enum Elements<'a> {
    Slots(roving::read::ArrayIter<'a>),
    Strings(Box<roving::read::ArrayStrings<'a>>),
}

impl<'a> Elements<'a> {
    fn of(a: Array<'a>) -> Elements<'a> {
        match a.strings() {
            Some(strings) => Elements::Strings(Box::new(strings)),
            None => Elements::Slots(a.iter()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Elements::Slots(e) => e.len(),
            Elements::Strings(e) => e.len(),
        }
    }

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        match self {
            Elements::Slots(e) => e.next(),
            // A malformed string (a document not validated) reads as null,
            // as `Array::get` reads it.
            Elements::Strings(e) => Some(e.next()?.map_or(Value::Null, Value::Str)),
        }
    }
}
