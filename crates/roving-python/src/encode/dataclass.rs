//! Writing dataclass instances as maps of their fields.

use std::cell::RefCell;
use std::sync::Arc;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

use crate::decode::IdMap;
use crate::error_path::PathStep;
use crate::instattr::InlineFields;
use crate::pytypes;

use super::failure::{EncodeResult, Fail};
use super::{MemoEntry, State};

/// What writing the instances of one dataclass type needs, found once per
/// type.
pub(super) struct DataclassFields {
    /// The field names (interned), in order, with their text. (Values
    /// are read inline or with `getattr`: reading `__dict__` instead would
    /// make CPython 3.11 build a dict for each instance written, kept for
    /// good, which makes instances larger and their attributes slower to
    /// read.)
    names: Vec<(Py<PyString>, Box<str>)>,
    /// Where the instances keep the fields, read without `getattr` where
    /// the interpreter allows it ([`InlineFields`]).
    inline: Option<InlineFields>,
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
        let py = self.py;
        let inline = match &fields.inline {
            Some(f) if f.ready(ob, |i| fields.names[i].0.bind(py).clone())? => Some(f),
            _ => None,
        };
        for (i, (name, text)) in fields.names.iter().enumerate() {
            let name = name.bind(self.py);
            // SAFETY: `o` is a live instance of exactly the type `fields`
            // was found for (the cache is by type), `name` its field `i`.
            let direct = inline.and_then(|f| unsafe { f.get(o, i, name.as_ptr()) });
            let got = match direct {
                // SAFETY: a live value the instance holds; a new reference.
                Some(p) => Ok(unsafe { Bound::from_borrowed_ptr(self.py, p) }),
                None => ob.getattr(name),
            };
            let v = match got {
                Ok(v) => v,
                // A field `__init__` does not set (`init=False` without a
                // default) may be unset: left out, as msgspec does.
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(self.py) => {
                    continue
                }
                Err(e) => {
                    let mut f: Box<Fail> = e.into();
                    f.path
                        .push(PathStep::Object(name.clone().into_any().unbind()));
                    return Err(f);
                }
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

/// The fields of a dataclass type (`None` if not one), cached per type.
pub(super) fn dataclass_fields(t: &Bound<'_, PyType>) -> PyResult<Option<Arc<DataclassFields>>> {
    type Cache = IdMap<usize, (Py<PyType>, Option<Arc<DataclassFields>>)>;
    thread_local! {
        static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
    }
    let key = t.as_ptr() as usize;
    if let Some(v) = CACHE.with(|c| c.borrow().get(&key).map(|(_, v)| v.clone())) {
        return Ok(v);
    }
    let v = fields_of(t)?.map(Arc::new);
    // The type is held, so its address stays its own.
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() < 4096 {
            c.insert(key, (t.clone().unbind(), v.clone()));
        }
    });
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
    let inline = InlineFields::of(t, &names)?;
    let names = names
        .into_iter()
        .map(|n| {
            let text: Box<str> = n.to_str()?.into();
            Ok((n.unbind(), text))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Some(DataclassFields { names, inline }))
}
