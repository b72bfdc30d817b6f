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
    names: Vec<(Py<PyString>, FieldKey)>,
    /// Where the instances keep the fields, read without `getattr` where
    /// the interpreter allows it ([`InlineFields`]).
    inline: Option<InlineFields>,
}

/// The text of a field name, as a key is written.
enum FieldKey {
    /// Kept for good (the type's fields are cached for good): written by
    /// address ([`roving::Encoder::key_static`]), without comparing bytes.
    Static(&'static str),
    /// The type's fields are not cached: a key like any other.
    Owned(Box<str>),
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
            match text {
                FieldKey::Static(t) => self.enc.key_static(t)?,
                FieldKey::Owned(t) => self.enc.key(t)?,
            }
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
    let (hit, room) = CACHE.with(|c| {
        let c = c.borrow();
        (c.get(&key).map(|(_, v)| v.clone()), c.len() < CACHED_TYPES)
    });
    if let Some(v) = hit {
        return Ok(v);
    }
    let v = fields_of(t, room)?.map(Arc::new);
    if room {
        // The type is held, so its address stays its own.
        CACHE.with(|c| c.borrow_mut().insert(key, (t.clone().unbind(), v.clone())));
    }
    Ok(v)
}

/// Most dataclass types whose fields are cached (for good) per thread.
const CACHED_TYPES: usize = 4096;

/// [`DataclassFields`] of `t`, if it is a dataclass type (not an enum:
/// an enum that is also a dataclass is written as its members' values).
/// `cached`: they are kept for good, so their key texts are too
/// ([`FieldKey::Static`]: at most [`CACHED_TYPES`] types' per thread).
fn fields_of(t: &Bound<'_, PyType>, cached: bool) -> PyResult<Option<DataclassFields>> {
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
            let text = n.to_str()?;
            let text = match cached.then(|| static_text(text)).flatten() {
                Some(t) => FieldKey::Static(t),
                None => FieldKey::Owned(text.into()),
            };
            Ok((n.unbind(), text))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Some(DataclassFields { names, inline }))
}

/// Most distinct field names kept for good ([`static_text`]).
const STATIC_TEXTS: usize = 1 << 16;

/// `text` kept for the rest of the process: one copy per distinct text,
/// shared by every thread and type (a thread's cache of types is rebuilt
/// by each new thread), at most [`STATIC_TEXTS`] of them (then `None`).
fn static_text(text: &str) -> Option<&'static str> {
    static TEXTS: std::sync::Mutex<Option<hashbrown::HashSet<&'static str>>> =
        std::sync::Mutex::new(None);
    let mut texts = TEXTS.lock().unwrap_or_else(|e| e.into_inner());
    let texts = texts.get_or_insert_with(Default::default);
    if let Some(&t) = texts.get(text) {
        return Some(t);
    }
    if texts.len() >= STATIC_TEXTS {
        return None;
    }
    let t: &'static str = Box::leak(text.into());
    texts.insert(t);
    Some(t)
}
