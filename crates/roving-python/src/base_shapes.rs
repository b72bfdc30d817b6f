//! The key strings and dict templates of the shapes in a dictionary's
//! base, and the `str` objects of its value strings, kept from one
//! document to the next.
//!
//! A store's records are small documents bound to the store's dictionary
//! (`docs/FORMAT.md` section 23): each is read as the dictionary's base
//! followed by the record's own bytes, so its shapes sit at the same
//! offsets in every record. Converting a record to Python would otherwise
//! look up (or make) each key string, and insert each key into a new dict,
//! on every read: about a third of a store `get`. Kept here, a record's
//! dict is a copy of its shape's template. In the same way, a value
//! string of the base (one the dictionary learned because it recurs) is
//! the same `str` object in every record, not a new one each time.
//!
//! What is kept is tied to the base's bytes, not to a dictionary object:
//! [`BaseShapes::sync`] compares the base of the document about to be read
//! with the bytes the entries were read from, and forgets them all if they
//! differ (another dictionary). Bases of one dictionary are prefixes of
//! each other (it only grows), so its entries stay.

use pyo3::ffi;
use pyo3::prelude::*;

use crate::decode::IdMap;

/// Bases longer than this are not kept (nor are their shapes): comparing
/// them on every document would cost more than the shapes save.
const MAX_BASE: usize = 1 << 16;

/// At most this many shapes are kept.
const MAX_SHAPES: usize = 1 << 12;

/// At most this many value strings are kept.
const MAX_STRS: usize = 1 << 12;

/// One kept shape.
struct KeptShape {
    /// Its key strings, in order.
    keys: Box<[Py<PyAny>]>,
    /// A dict of those keys (values None), or `None` for a shape too small
    /// to need one.
    template: Option<Py<PyAny>>,
}

/// Key strings and dict templates of base shapes, by shape offset, and
/// value strings of the base, by the offset of their bytes.
#[derive(Default)]
pub(crate) struct BaseShapes {
    /// The base the shapes were read from (the longest one seen).
    base: Vec<u8>,
    shapes: IdMap<usize, KeptShape>,
    /// By offset: the string's length, and its `str`.
    strs: IdMap<usize, (usize, Py<PyAny>)>,
}

impl BaseShapes {
    /// Readies the kept shapes for a document whose base is `base`: kept
    /// if one base is a prefix of the other, forgotten otherwise. Returns
    /// false if `base` is too long to keep shapes for (none are used).
    pub(crate) fn sync(&mut self, base: &[u8]) -> bool {
        if base.len() > MAX_BASE {
            return false;
        }
        let n = base.len().min(self.base.len());
        if base[..n] != self.base[..n] {
            self.shapes.clear();
            self.strs.clear();
            self.base.clear();
        }
        if base.len() > self.base.len() {
            let have = self.base.len();
            self.base.extend_from_slice(&base[have..]);
        }
        true
    }

    /// The kept shape at offset `shape`: its keys pushed to `keys` (new
    /// references) and its template (a new reference, or NULL); `None` if
    /// it is not kept.
    pub(crate) fn get(
        &self,
        py: Python<'_>,
        shape: usize,
        keys: &mut Vec<*mut ffi::PyObject>,
    ) -> Option<*mut ffi::PyObject> {
        let kept = self.shapes.get(&shape)?;
        keys.extend(kept.keys.iter().map(|k| k.clone_ref(py).into_ptr()));
        Some(
            kept.template
                .as_ref()
                .map_or(std::ptr::null_mut(), |t| t.clone_ref(py).into_ptr()),
        )
    }

    /// Keeps the shape at offset `shape`: `keys` (borrowed references) and
    /// `template` (borrowed, or NULL).
    pub(crate) fn insert(
        &mut self,
        py: Python<'_>,
        shape: usize,
        keys: &[*mut ffi::PyObject],
        template: *mut ffi::PyObject,
    ) {
        if self.shapes.len() >= MAX_SHAPES {
            return;
        }
        // SAFETY: the pointers are live objects the caller holds; each
        // kept one gets its own reference.
        let own = |p: *mut ffi::PyObject| unsafe { Bound::from_borrowed_ptr(py, p) }.unbind();
        let keys = keys.iter().map(|&k| own(k)).collect();
        let template = (!template.is_null()).then(|| own(template));
        self.shapes.insert(shape, KeptShape { keys, template });
    }

    /// The `str` of the base's string bytes `b`, which start at offset
    /// `at` of the document: the kept one (a new reference), else a new
    /// one, kept for the next document. The base's bytes are those
    /// [`BaseShapes::sync`] compared, so the same offset and length are
    /// the same text (the length is compared too: bytes of two records of
    /// a hostile document may overlap).
    pub(crate) fn str<'py>(
        &mut self,
        py: Python<'py>,
        at: usize,
        b: &[u8],
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some((len, s)) = self.strs.get(&at) {
            if *len == b.len() {
                return Ok(s.bind(py).clone());
            }
        }
        let s = crate::pytypes::make_str(py, b)?;
        if self.strs.len() < MAX_STRS {
            self.strs.insert(at, (b.len(), s.clone().unbind()));
        }
        Ok(s)
    }
}
