//! Reading a dataclass instance's fields straight from the values that
//! CPython 3.11 keeps inside each instance, instead of a `getattr` each.
//!
//! An instance of a class without `__slots__` keeps its attributes in a
//! values array (its `__dict__` is made only when something asks for it),
//! whose entry `i` goes with entry `i` of the keys its class shares among
//! its instances. `getattr` looks the name up in the class and its bases,
//! then hashes it into those keys: some 200 instructions a field, a fifth
//! of `dumps` of a small dataclass. Here the index of each field is found
//! once per class ([`InlineFields::of`]), and each read checks that entry
//! `i` of the keys still holds the field's name.
//!
//! The layout is CPython 3.11's private one (`Include/internal/
//! pycore_object.h`: the values pointer four words before the object,
//! null once its `__dict__` was made): used only on 3.11, once a
//! self-test at import agrees with `getattr` ([`init`]). A field that a
//! data descriptor (a property, a slot) of the class handles is always
//! read with `getattr`, and so is every field once the class (or a base)
//! has changed since its indexes were found: its version tag, which any
//! change resets, must be the one seen then.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple, PyType};

use crate::dictiter::shared_key_at;

/// Whether instance values may be read directly ([`init`]).
static INLINE: AtomicBool = AtomicBool::new(false);

/// A field index meaning "read with `getattr`".
const NONE: u32 = u32::MAX;

/// Where the fields of one class's instances are in their values arrays.
pub(crate) struct InlineFields {
    /// The class's version tag when the fields were last found readable
    /// inline ([`Self::ready`]); 0 once they are not.
    version: AtomicU32,
    /// Times the class was found changed and checked again.
    checks: AtomicU32,
    /// Index of each field in the class's shared keys, or [`NONE`].
    ix: Box<[u32]>,
}

/// A class found changed more often than this is read with `getattr` for
/// good: one that changes all the time (a counter kept on the class, say)
/// would otherwise be checked in Python at every `dumps`.
const MAX_CHECKS: u32 = 16;

/// The values array of `obj`, an instance of a class that
/// [`inline_class`] accepts (null if its `__dict__` was made).
///
/// # Safety
/// CPython 3.11 ([`INLINE`] set), and `obj` is a live instance of such a
/// class.
#[inline(always)]
unsafe fn values_of(obj: *mut ffi::PyObject) -> *mut *mut ffi::PyObject {
    // SAFETY: on 3.11 an instance of a garbage-collected class with a
    // managed dict has its values pointer four words before the object
    // (before the dict pointer and the collector's two-word header;
    // caller's contract); the pointer is read, not the array.
    unsafe { *obj.cast::<*mut *mut ffi::PyObject>().sub(4) }
}

/// The shared keys of the instances of `tp`, a heap class.
///
/// # Safety
/// `tp` is a live heap type.
#[inline(always)]
unsafe fn cached_keys(tp: *mut ffi::PyTypeObject) -> *mut std::ffi::c_void {
    // SAFETY: a heap type is a `PyHeapTypeObject` (caller's contract).
    unsafe { (*tp.cast::<ffi::PyHeapTypeObject>()).ht_cached_keys }
}

/// Whether instances of `tp` (a heap class, tracked by the garbage
/// collector) keep their attributes inline and read them with the generic
/// `getattr` (no `__getattribute__` or `__getattr__`).
///
/// # Safety
/// `tp` is a live type.
#[inline(always)]
unsafe fn inline_class(tp: *mut ffi::PyTypeObject) -> bool {
    // SAFETY: `tp` is a live type (caller's contract).
    unsafe {
        let flags = (*tp).tp_flags;
        // (A managed dict's pointers sit before the garbage collector's
        // header, which only these types have: `values_of` counts on it.)
        flags & ffi::Py_TPFLAGS_MANAGED_DICT != 0
            && flags & ffi::Py_TPFLAGS_HAVE_GC != 0
            && flags & ffi::Py_TPFLAGS_HEAPTYPE != 0
            && (*tp).tp_getattro.is_some_and(|f| {
                // (A function of libpython: one address in the process.)
                std::ptr::fn_addr_eq(f, ffi::PyObject_GenericGetAttr as ffi::getattrofunc)
            })
    }
}

impl InlineFields {
    /// The indexes of the fields `names` (interned strs) in the instances
    /// of `t`, found in its shared keys as an instance made them; `None`
    /// where instances cannot be read directly (another interpreter, a
    /// class with `__slots__` or its own `__getattribute__`, no field
    /// found).
    pub(crate) fn of(
        t: &Bound<'_, PyType>,
        names: &[Bound<'_, PyString>],
    ) -> PyResult<Option<InlineFields>> {
        let tp = t.as_type_ptr();
        // SAFETY: `tp` is a live type (held by `t`).
        if !INLINE.load(Ordering::Relaxed) || !unsafe { inline_class(tp) } {
            return Ok(None);
        }
        // Looking an attribute up in the class (not one that the metaclass
        // has as a data descriptor, such as `__mro__`) gives it a version
        // tag.
        t.getattr_opt(pyo3::intern!(t.py(), "__init__"))?;
        // SAFETY: as above; a heap type (checked by `inline_class`).
        let (version, keys) = unsafe { ((*tp).tp_version_tag, cached_keys(tp)) };
        if version == 0 || keys.is_null() {
            return Ok(None);
        }
        let mut ix = Vec::with_capacity(names.len());
        for name in names {
            let i = if has_data_descriptor(t, name)? {
                NONE
            } else {
                // SAFETY: `keys` is the live class's shared keys, and
                // DIRECT-mode reads stop at its entry count.
                (0..)
                    .map_while(|i| unsafe { shared_key_at(keys, i) }.map(|k| (i, k)))
                    .find(|&(_, k)| k == name.as_ptr())
                    .and_then(|(i, _)| u32::try_from(i).ok())
                    .unwrap_or(NONE)
            };
            ix.push(i);
        }
        if ix.iter().all(|&i| i == NONE) {
            return Ok(None);
        }
        Ok(Some(InlineFields {
            version: AtomicU32::new(version),
            checks: AtomicU32::new(0),
            ix: ix.into_boxed_slice(),
        }))
    }

    /// Whether the fields of `obj` (an instance of exactly the class these
    /// fields were found for, whose field `i` is named `name(i)`) may be
    /// read with [`Self::get`]: yes if the class has not changed since they
    /// were found (or last checked here). A class changes when anything
    /// sets an attribute on it (a cache a library keeps there, say): then
    /// this checks again, in Python, that no field read inline has a data
    /// descriptor now, and goes on with the class's new version tag (at
    /// most [`MAX_CHECKS`] times: then it reads with `getattr` for good).
    pub(crate) fn ready<'py>(
        &self,
        obj: &Bound<'py, PyAny>,
        name: impl Fn(usize) -> Bound<'py, PyString>,
    ) -> PyResult<bool> {
        let seen = self.version.load(Ordering::Relaxed);
        // SAFETY: `obj` is live, so is its type.
        let now = unsafe { (*ffi::Py_TYPE(obj.as_ptr())).tp_version_tag };
        if now == seen || seen == 0 {
            return Ok(seen != 0);
        }
        let t = obj.get_type();
        let checks = self.checks.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `t` is a live type.
        let mut ok = checks < MAX_CHECKS && unsafe { inline_class(t.as_type_ptr()) };
        // Gives the class a version tag again, if it has none.
        t.getattr_opt(pyo3::intern!(t.py(), "__init__"))?;
        for (i, &ix) in self.ix.iter().enumerate() {
            if ok && ix != NONE && has_data_descriptor(&t, &name(i))? {
                ok = false;
            }
        }
        // SAFETY: as above.
        let now = unsafe { (*t.as_type_ptr()).tp_version_tag };
        self.version
            .store(if ok { now } else { 0 }, Ordering::Relaxed);
        Ok(ok && now != 0)
    }

    /// The value of field `i` (named `name`) of `obj` (borrowed), or
    /// `None`: then read it with `getattr` (the field is unset, the
    /// instance's `__dict__` was made, the class changed since
    /// [`Self::ready`], or the field is not read directly).
    ///
    /// # Safety
    /// `obj` is a live instance of exactly the class these fields were
    /// found for, and `name` is field `i`'s name as given to [`Self::of`].
    #[inline(always)]
    pub(crate) unsafe fn get(
        &self,
        obj: *mut ffi::PyObject,
        i: usize,
        name: *mut ffi::PyObject,
    ) -> Option<*mut ffi::PyObject> {
        let ix = *self.ix.get(i)?;
        if ix == NONE {
            return None;
        }
        // SAFETY: `obj` is a live instance of the class (caller's
        // contract), which kept its version tag, so it is still a heap
        // class with inline values and the generic `getattr` (found by
        // `of`, which needs INLINE: CPython 3.11). A values array is made
        // as long as its class's shared keys can ever be (their entries
        // and their free room: 3.11 never grows shared keys in place), and
        // `ix` is below their entry count (entry `ix`'s key was read); a
        // null entry is an unset attribute.
        unsafe {
            let tp = ffi::Py_TYPE(obj);
            let seen = self.version.load(Ordering::Relaxed);
            if (*tp).tp_version_tag != seen || seen == 0 {
                return None;
            }
            let values = values_of(obj);
            if values.is_null() || shared_key_at(cached_keys(tp), ix as usize)? != name {
                return None;
            }
            let v = *values.add(ix as usize);
            (!v.is_null()).then_some(v)
        }
    }
}

/// Whether the first class of `t`'s MRO that defines `name` holds a data
/// descriptor there (a property, a member of `__slots__`): `getattr` then
/// returns what it gives, not the instance's value.
fn has_data_descriptor(t: &Bound<'_, PyType>, name: &Bound<'_, PyString>) -> PyResult<bool> {
    let py = t.py();
    let mro = t
        .getattr(pyo3::intern!(py, "__mro__"))?
        .cast_into::<PyTuple>()?;
    for klass in mro.iter() {
        let d = klass.getattr(pyo3::intern!(py, "__dict__"))?;
        if d.contains(name)? {
            let at = d.get_item(name)?.get_type();
            return Ok(at.hasattr(pyo3::intern!(py, "__set__"))?
                || at.hasattr(pyo3::intern!(py, "__delete__"))?);
        }
    }
    Ok(false)
}

/// Enables direct reading on CPython 3.11 (with dicts read directly,
/// [`crate::dictiter::init`] first) if it reads the attributes of a few
/// instances exactly as `getattr` does: set ones, a deleted one, and none
/// once an instance's `__dict__` was made.
pub(crate) fn init(py: Python<'_>) -> PyResult<()> {
    if !crate::dictiter::_dict_direct() {
        return Ok(());
    }
    let ns = pyo3::types::PyDict::new(py);
    py.run(
        c"class Probe:\n    def __init__(self, i):\n        self.a = i\n        self.b = [i]\n        self.c = str(i)\n",
        None,
        Some(&ns),
    )?;
    let Some(class) = ns.get_item("Probe")? else {
        return Ok(());
    };
    let class = class.cast_into::<PyType>()?;
    let names: Vec<Bound<'_, PyString>> = ["a", "b", "c"].map(|n| PyString::intern(py, n)).into();
    let objs: Vec<Bound<'_, PyAny>> = (0..3).map(|i| class.call1((i,))).collect::<PyResult<_>>()?;
    objs[1].delattr("b")?;
    objs[2].getattr("__dict__")?;
    INLINE.store(true, Ordering::Relaxed);
    let agree = (|| -> PyResult<bool> {
        let Some(fields) = InlineFields::of(&class, &names)? else {
            return Ok(false);
        };
        // A change to the class that leaves the fields readable inline.
        class.setattr("cache", 1)?;
        if !fields.ready(&objs[0], |i| names[i].clone())? {
            return Ok(false);
        }
        for (o, obj) in objs.iter().enumerate() {
            for (i, name) in names.iter().enumerate() {
                // SAFETY: `obj` is a live instance of `class`, `name` its
                // field `i` as given to `of`.
                let got = unsafe { fields.get(obj.as_ptr(), i, name.as_ptr()) };
                let expected = match (o, i) {
                    (1, 1) | (2, _) => None,
                    _ => Some(obj.getattr(name)?.as_ptr()),
                };
                if got != expected {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    })()?;
    INLINE.store(agree, Ordering::Relaxed);
    Ok(())
}

/// Whether instance values are read directly (for the tests:
/// `_roving._inline_fields()`).
#[pyfunction]
pub(crate) fn _inline_fields() -> bool {
    INLINE.load(Ordering::Relaxed)
}
