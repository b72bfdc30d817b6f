//! `roving.Dictionary`: a shared dictionary (FORMAT.md section 23) that
//! `dumps(obj, dictionary=d)` writes against (and grows) and `loads`,
//! `open`, `validate` and `to_json` read with.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::base_shapes::BaseShapes;
use crate::errors;

/// Shared dictionary of strings and map shapes (FORMAT.md section 23).
///
/// `dumps(obj, dictionary=d)` writes a document whose maps of a shape in
/// `d` (and strings that are entries of `d`) refer to it instead of
/// carrying their keys, and adds to `d` (unless frozen) the document's
/// other shapes and the value strings of 4 to 96 bytes that 3 documents
/// written against it have held, as a Store's dictionary learns, so the
/// next document of that kind is small. Read it with `loads(b, dictionary=d)` (or `open`, `validate`,
/// `to_json`), with `d` or any later state of it: a dictionary only grows.
/// Without it, or with another or a shorter one, reading raises
/// `DictionaryError` naming the dictionary id and entry count needed.
///
/// `bytes(d)` is the dictionary as bytes (a roving document);
/// `Dictionary.from_bytes(b)` reads it back. `d.delta_since(n)` is the
/// entries from `n` on, which `extend_from_delta` applies to a copy that
/// has the first `n`.
#[pyclass(module = "roving", name = "Dictionary")]
pub struct Dictionary {
    pub(crate) inner: roving::Dictionary,
    /// What `dumps` learns with: the value strings seen so far.
    pub(crate) learner: Box<roving::dictionary::Learner>,
    /// The key strings and dict templates of the shapes of its base, kept
    /// from one `loads` to the next.
    pub(crate) shapes: std::sync::Mutex<BaseShapes>,
}

#[pymethods]
impl Dictionary {
    #[new]
    fn py_new() -> Dictionary {
        Dictionary {
            inner: roving::Dictionary::new(),
            learner: Box::default(),
            shapes: Default::default(),
        }
    }

    /// Dictionary.from_bytes(data, /) -> Dictionary
    ///
    /// The dictionary `bytes(d)` gave (any other bytes raise
    /// DictionaryError or DecodeError).
    #[staticmethod]
    #[pyo3(signature = (data, /))]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Dictionary> {
        roving::Dictionary::from_bytes(data)
            .map(|inner| Dictionary {
                inner,
                learner: Box::default(),
                shapes: Default::default(),
            })
            .map_err(|e| errors::from_core(py, &e))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Dictionary>()
            .is_ok_and(|o| o.borrow().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "<roving.Dictionary of {} entries, id {:016x}{}>",
            self.inner.len(),
            self.inner.id(),
            if self.inner.is_frozen() {
                ", frozen"
            } else {
                ""
            }
        )
    }

    /// The dictionary's id (a 64-bit content hash of its entries).
    #[getter]
    fn id(&self) -> u64 {
        self.inner.id()
    }

    /// The id of the first `n` entries, or None if there are fewer.
    #[pyo3(signature = (n, /))]
    fn id_at(&self, n: usize) -> Option<u64> {
        self.inner.id_at(n)
    }

    /// Whether `freeze()` was called.
    #[getter]
    fn frozen(&self) -> bool {
        self.inner.is_frozen()
    }

    /// Stops the growth: documents written afterwards refer to the
    /// dictionary's entries but add none.
    fn freeze(&mut self) {
        self.inner.freeze();
    }

    /// add_string(s, /) -> int
    ///
    /// Adds a string entry: string values equal to it are written as a
    /// reference to the dictionary. Returns its index.
    #[pyo3(signature = (s, /))]
    fn add_string(&mut self, py: Python<'_>, s: &str) -> PyResult<usize> {
        self.inner
            .add_string(s)
            .map_err(|e| errors::from_core(py, &e))
    }

    /// add_shape(keys, /) -> int
    ///
    /// Adds a shape entry (distinct keys, in order). Returns its index.
    #[pyo3(signature = (keys, /))]
    fn add_shape(&mut self, py: Python<'_>, keys: Vec<String>) -> PyResult<usize> {
        self.inner
            .add_shape(&keys)
            .map_err(|e| errors::from_core(py, &e))
    }

    /// delta_since(n, /) -> bytes
    ///
    /// The entries from `n` on, as bytes for `extend_from_delta`.
    #[pyo3(signature = (n, /))]
    fn delta_since<'py>(&self, py: Python<'py>, n: usize) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.delta_since(n))
    }

    /// extend_from_delta(data, /) -> None
    ///
    /// Appends the entries of a delta that starts at or below `len(self)`
    /// and agrees with the entries it overlaps (so applying one twice is
    /// harmless); raises DictionaryError otherwise, changing nothing.
    #[pyo3(signature = (data, /))]
    fn extend_from_delta(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        self.inner
            .extend_from_delta(data)
            .map_err(|e| errors::from_core(py, &e))
    }

    /// resolve(data, /) -> bytes
    ///
    /// The plain document that `data`, a document written against this
    /// dictionary, reads as: the dictionary's base (its entries' records)
    /// followed by the document's records (FORMAT.md section 23.3);
    /// `data` itself if it was written without a dictionary. Checks that
    /// this is the dictionary it needs (DictionaryError), not the rest.
    #[pyo3(signature = (data, /))]
    fn resolve<'py>(&self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let mut scratch = Vec::new();
        let plain = resolve(py, data, Some(&self.inner), &mut scratch)?;
        Ok(PyBytes::new(py, plain))
    }
}

/// The plain document `bytes` reads as with `dict` (a copy in `scratch`
/// for a bound document), or the DecodeError / DictionaryError why not.
pub(crate) fn resolve<'a>(
    py: Python<'_>,
    bytes: &'a [u8],
    dict: Option<&roving::Dictionary>,
    scratch: &'a mut Vec<u8>,
) -> PyResult<&'a [u8]> {
    match dict {
        None => Ok(bytes),
        Some(d) => {
            roving::dictionary::resolve(bytes, d, scratch).map_err(|e| errors::from_core(py, &e))
        }
    }
}

thread_local! {
    /// The buffer of the last [`Scratch`], kept for the next one.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A buffer for the plain document of a bound one (see [`resolve`]),
/// taken from the thread's spare one and given back when dropped (unless
/// large), so that `loads(b, dictionary=d)` allocates none.
pub(crate) struct Scratch(Vec<u8>);

impl Scratch {
    pub(crate) fn take() -> Scratch {
        Scratch(
            SCRATCH
                .try_with(|s| s.try_borrow_mut().map(|mut v| std::mem::take(&mut *v)))
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default(),
        )
    }
}

impl std::ops::Deref for Scratch {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl std::ops::DerefMut for Scratch {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        const KEEP_MAX: usize = 1 << 16;
        if self.0.capacity() <= KEEP_MAX {
            let v = std::mem::take(&mut self.0);
            let _ = SCRATCH.try_with(|s| {
                if let Ok(mut s) = s.try_borrow_mut() {
                    *s = v;
                }
            });
        }
    }
}
