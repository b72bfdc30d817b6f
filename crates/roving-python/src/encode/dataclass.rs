//! Writing dataclass instances as maps of their fields.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};

use crate::error_path::PathStep;
use crate::pytypes;

use super::failure::{EncodeResult, Fail};
use super::{MemoEntry, State};

impl<'py> State<'py, '_> {
    pub(super) fn tracked_dataclass(
        &mut self,
        ob: &Bound<'py, PyAny>,
        parent_refs: isize,
        fields: Bound<'py, pyo3::types::PyTuple>,
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
        for name in fields.iter() {
            let name = name.cast_into::<PyString>().map_err(PyErr::from)?;
            let v = match ob.getattr(&name) {
                Ok(v) => v,
                // A field `__init__` does not set (`init=False` without a
                // default) may be unset: left out, as msgspec does.
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(self.py) => {
                    continue
                }
                Err(e) => {
                    let mut f: Box<Fail> = e.into();
                    f.path.push(PathStep::Object(name.into_any().unbind()));
                    return Err(f);
                }
            };
            self.enc.key(name.to_str()?)?;
            if let Err(mut f) = self.owned(v, 2) {
                f.path.push(PathStep::Object(name.into_any().unbind()));
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

/// Cached names of the fields of a dataclass type (`None` if not one).
pub(super) fn dataclass_fields<'py>(
    t: &Bound<'py, PyType>,
) -> PyResult<Option<Bound<'py, pyo3::types::PyTuple>>> {
    use pyo3::sync::PyOnceLock;
    static CACHE: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    let py = t.py();
    let cache = CACHE.get_or_init(py, || PyDict::new(py).unbind()).bind(py);
    if let Some(v) = cache.get_item(t)? {
        return Ok(v.cast_into::<pyo3::types::PyTuple>().ok());
    }
    // An enum that is also a dataclass is written as its members' values.
    let is_enum = t.is_subclass(pytypes::types(py)?.enum_.bind(py))?;
    let v = match pytypes::dataclass_field_names(t)? {
        Some(names) if !is_enum => pyo3::types::PyTuple::new(py, names)?.into_any(),
        _ => py.None().into_bound(py),
    };
    if cache.len() < 4096 {
        cache.set_item(t, &v)?;
    }
    Ok(v.cast_into::<pyo3::types::PyTuple>().ok())
}
