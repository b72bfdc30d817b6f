//! `roving.Store`: the Python face of `roving_store::Store` (owned by the
//! store helper). The extension defines `_Store`; `python/roving/_store.py`
//! subclasses it together with `collections.abc.MutableMapping`.

use std::collections::VecDeque;
use std::ops::Bound as Edge;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::{
    PyKeyError, PyOverflowError, PyTypeError, PyUnicodeEncodeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyString, PyTuple, PyType};

use roving::Document;
use roving_store::{Store, StoreError, StoreErrorKind, StoreOptions, MAX_READERS};

use crate::base_shapes::BaseShapes;
use crate::buf::Buf;
use crate::encode::EncodeOptions;
use crate::typed;
use crate::view::Doc;

static STORE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
/// `StoreError` and `FileNotFoundError` (kind "not-found").
static STORE_NOT_FOUND: PyOnceLock<Py<PyType>> = PyOnceLock::new();
/// `StoreError` and `PermissionError` (kind "permission-denied").
static STORE_PERMISSION: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Keys (or items, or values) fetched per step of an iterator.
const ITER_CHUNK: usize = 256;

/// Adds `_Store`, `_StoreIter`, `StoreError` and its two `OSError`
/// subclasses to the module (after `RovingError` was registered).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let t = STORE_ERROR.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let base = m.getattr("RovingError")?.cast_into::<PyType>()?;
        PyErr::new_type(
            py,
            c"roving.StoreError",
            Some(c"An error of roving.Store: a damaged or foreign file, a write on a read-only or closed store, an invalid key... `.kind` names it (\"not-found\", \"permission-denied\", \"not-a-store\", \"corrupt\", \"invalid-key\", \"too-large\", \"read-only\", \"busy\", \"closed\", \"transaction\", \"io\", \"lmdb\"). Kind \"not-found\" is also a FileNotFoundError (StoreNotFoundError), \"permission-denied\" a PermissionError (StorePermissionError)."),
            Some(&base),
            None,
        )
    })?;
    let nf = STORE_NOT_FOUND.get_or_try_init(py, || {
        os_error_type(
            py,
            t.bind(py),
            "StoreNotFoundError",
            "FileNotFoundError",
            "A roving.StoreError (kind \"not-found\") that is also a FileNotFoundError: no store at the path of a read-only open, or its directory does not exist. `.filename` is the store's path.",
        )
    })?;
    let pe = STORE_PERMISSION.get_or_try_init(py, || {
        os_error_type(
            py,
            t.bind(py),
            "StorePermissionError",
            "PermissionError",
            "A roving.StoreError (kind \"permission-denied\") that is also a PermissionError: the operating system refused access to the store's file, its lock file or its directory. `.filename` is the store's path.",
        )
    })?;
    m.add("StoreError", t.bind(py))?;
    m.add("StoreNotFoundError", nf.bind(py))?;
    m.add("StorePermissionError", pe.bind(py))?;
    m.add_class::<PyStore>()?;
    m.add_class::<StoreIter>()?;
    Ok(())
}

/// `class roving.<name>(StoreError, <os_error>)`, whose `str()` is the
/// message alone (as `StoreError`'s), not `OSError`'s `[Errno n] ...`.
fn os_error_type(
    py: Python<'_>,
    store_error: &Bound<'_, PyType>,
    name: &str,
    os_error: &str,
    doc: &str,
) -> PyResult<Py<PyType>> {
    let builtins = py.import("builtins")?;
    let ns = pyo3::types::PyDict::new(py);
    ns.set_item("__module__", "roving")?;
    ns.set_item("__qualname__", name)?;
    ns.set_item("__doc__", doc)?;
    ns.set_item(
        "__str__",
        builtins.getattr("BaseException")?.getattr("__str__")?,
    )?;
    let bases = PyTuple::new(
        py,
        [store_error.as_any().clone(), builtins.getattr(os_error)?],
    )?;
    Ok(builtins
        .getattr("type")?
        .call1((name, bases, ns))?
        .cast_into::<PyType>()?
        .unbind())
}

/// A `roving.StoreError` for a store error (a `StoreNotFoundError` or a
/// `StorePermissionError` for those kinds, with `errno`, `strerror` and
/// `filename` set as `OSError`s have them).
#[cold]
pub(crate) fn store_err(py: Python<'_>, e: &StoreError) -> PyErr {
    let (cell, errno) = match e.kind() {
        StoreErrorKind::NotFound => (&STORE_NOT_FOUND, libc::ENOENT),
        StoreErrorKind::PermissionDenied => (&STORE_PERMISSION, libc::EACCES),
        _ => return new_store_error(py, e.kind().name(), store_message(e)),
    };
    let Some(t) = cell.get(py) else {
        return new_store_error(py, e.kind().name(), store_message(e));
    };
    let inst = match t.bind(py).call1((store_message(e),)) {
        Ok(inst) => inst,
        Err(err) => return err,
    };
    let errno = std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::raw_os_error)
        .unwrap_or(errno);
    let _ = inst.setattr("kind", e.kind().name());
    let _ = inst.setattr("errno", errno);
    let _ = inst.setattr("strerror", e.message());
    if let Some(p) = e.path() {
        let _ = inst.setattr("filename", p);
    }
    PyErr::from_value(inst)
}

#[cold]
pub(crate) fn new_store_error(py: Python<'_>, kind: &str, msg: String) -> PyErr {
    match STORE_ERROR.get(py) {
        Some(t) => match t.bind(py).call1((msg,)) {
            Ok(inst) => {
                let _ = inst.setattr("kind", kind);
                PyErr::from_value(inst)
            }
            Err(e) => e,
        },
        None => pyo3::exceptions::PyRuntimeError::new_err(msg),
    }
}

/// `path` as Python shows a file name that `os.fsdecode` gives: its text,
/// each byte that is not UTF-8 written as the `\udcXX` escape of the
/// surrogate that stands for it (as the `repr` of the name shows it);
/// with `quoted`, in double quotes with the text escaped as Rust's `{:?}`
/// does (`Store.__repr__`).
pub(crate) fn path_text(path: &Path, quoted: bool) -> String {
    let mut out = String::new();
    if quoted {
        out.push('"');
    }
    for chunk in path.as_os_str().as_encoded_bytes().utf8_chunks() {
        if quoted {
            out.extend(chunk.valid().chars().flat_map(char::escape_debug));
        } else {
            out.push_str(chunk.valid());
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\udc{b:02x}"));
        }
    }
    if quoted {
        out.push('"');
    }
    out
}

/// The message of `e`, its path (if any) shown as [`path_text`] gives it.
fn store_message(e: &StoreError) -> String {
    match e.path() {
        Some(p) => format!("store {}: {}", path_text(p, false), e.message()),
        None => e.to_string(),
    }
}

#[cold]
pub(crate) fn closed_error(py: Python<'_>, path: &std::path::Path) -> PyErr {
    new_store_error(
        py,
        "closed",
        format!("store {}: the store is closed", path_text(path, false)),
    )
}

/// The `TypeError` of a key that is not a `str`, naming the store (as its
/// other errors do).
#[cold]
fn key_type_error(key: &Bound<'_, PyAny>, path: &Path) -> PyErr {
    let tn = key
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!(
        "store {}: keys must be str, not {tn}",
        path_text(path, false)
    ))
}

/// A key to look up: `None` for a `str` that has no UTF-8 form (lone
/// surrogates), which no stored key can equal.
#[inline]
pub(crate) fn read_key<'a>(key: &'a Bound<'_, PyAny>, path: &Path) -> PyResult<Option<&'a str>> {
    match key.cast::<PyString>() {
        Ok(s) => Ok(s.to_str().ok()),
        Err(_) => Err(key_type_error(key, path)),
    }
}

/// A key to write: its UTF-8 form, or a `TypeError` (not a `str`) or the
/// `UnicodeEncodeError` of a `str` with no UTF-8 form, whose `reason`
/// begins with `store PATH: `.
#[inline]
pub(crate) fn key_str<'a>(key: &'a Bound<'_, PyAny>, path: &Path) -> PyResult<&'a str> {
    let s = key
        .cast::<PyString>()
        .map_err(|_| key_type_error(key, path))?;
    s.to_str().map_err(|e| name_the_store(key.py(), e, path))
}

/// `e` (a `UnicodeEncodeError`) with `store PATH: ` before its reason: its
/// `str()` is built from its attributes, so the reason is where the store's
/// name can go while encoding, object, start and end stay as they were.
#[cold]
fn name_the_store(py: Python<'_>, e: PyErr, path: &Path) -> PyErr {
    if e.is_instance_of::<PyUnicodeEncodeError>(py) {
        let v = e.value(py);
        if let Ok(reason) = v.getattr("reason").and_then(|r| r.extract::<String>()) {
            let _ = v.setattr(
                "reason",
                format!("store {}: {reason}", path_text(path, false)),
            );
        }
    }
    e
}

/// A store's path as `open()` takes one: `str`, `bytes` or an
/// `os.PathLike` of either (`os.fspath`), decoded as `os.fsdecode` does; on
/// Unix, bytes are the file name as it is (non-UTF-8 names included).
fn store_path(path: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let py = path.py();
    let p = py.import("os")?.getattr("fspath")?.call1((path,))?;
    if let Ok(b) = p.cast::<PyBytes>() {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            return Ok(PathBuf::from(std::ffi::OsStr::from_bytes(b.as_bytes())));
        }
        #[cfg(not(unix))]
        {
            return py.import("os")?.getattr("fsdecode")?.call1((b,))?.extract();
        }
    }
    p.extract()
}

/// `max_readers=`: an `int` (not a `bool`; `__index__` accepted, as for
/// `map_size`) from 1 to `roving_store::MAX_READERS`.
fn max_readers_arg(v: &Bound<'_, PyAny>) -> PyResult<u32> {
    let py = v.py();
    let type_error = || {
        let tn = v
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!("max_readers must be an int, not {tn}"))
    };
    if v.is_instance_of::<PyBool>() {
        return Err(type_error());
    }
    let n = match v.extract::<i64>() {
        Ok(n) => u32::try_from(n).ok(),
        Err(e) if e.is_instance_of::<PyOverflowError>(py) => None,
        Err(_) => return Err(type_error()),
    };
    match n {
        Some(n) if (1..=MAX_READERS).contains(&n) => Ok(n),
        _ => {
            // The repr of a huge int may exceed Python's digit limit.
            let shown = v
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "a larger int".into());
            Err(PyValueError::new_err(format!(
                "max_readers must be 1 to {MAX_READERS}, not {shown}"
            )))
        }
    }
}

/// The extension type behind `roving.Store` (use `roving.Store`).
#[pyclass(module = "roving._roving", name = "_Store", subclass)]
pub struct PyStore {
    inner: Option<Store>,
    ty: Option<Py<PyAny>>,
    /// The compiled plan of `ty` (looked up once, not per read).
    plan: Option<Arc<typed::Plan>>,
    /// Skip validating committed records on read (`trusted=True`).
    trusted: bool,
    path: PathBuf,
    readonly: bool,
    /// `default=` and `non_str_keys=`, as `dumps`'s, for every value written.
    encode_options: EncodeOptions,
    /// Write records against the store's dictionary (`dictionary=True`).
    dictionary: bool,
    /// What a get reads a record in, kept from get to get; a get that
    /// finds it in use (a get from the Python code a typed decoding runs)
    /// uses its own.
    scratch: std::sync::Mutex<ReadScratch>,
}

/// A get's buffers, kept from get to get.
#[derive(Default)]
struct ReadScratch {
    /// The bytes of a record written against the dictionary, read as the
    /// dictionary's base followed by the record.
    bytes: Vec<u8>,
    /// The key strings and dict templates of the base's shapes.
    shapes: BaseShapes,
}

impl PyStore {
    fn store(&self, py: Python<'_>) -> PyResult<&Store> {
        self.inner
            .as_ref()
            .ok_or_else(|| closed_error(py, &self.path))
    }

    fn store_mut(&mut self, py: Python<'_>) -> PyResult<&mut Store> {
        match self.inner.as_mut() {
            Some(s) => Ok(s),
            None => Err(closed_error(py, &self.path)),
        }
    }

    /// The document under `key`: validated, or (`trusted`) only opened; a
    /// record written against the store's dictionary is read in `scratch`.
    /// With it, the length of the dictionary base it is read after (0 for
    /// a record not written against the dictionary).
    fn lookup<'s>(
        &'s self,
        py: Python<'_>,
        key: &str,
        scratch: &'s mut Vec<u8>,
    ) -> PyResult<Option<(Document<'s>, usize)>> {
        let store = self.store(py)?;
        let Some(b) = store.get_bytes(key).map_err(|e| store_err(py, &e))? else {
            return Ok(None);
        };
        let base_len = store.dictionary().bound_base_len(b).unwrap_or(0);
        let doc = if self.trusted {
            let b = store.resolve(b, scratch).map_err(|e| store_err(py, &e))?;
            // SAFETY: the user opened the store with `trusted=True`
            // (documented: only for stores that roving wrote and nothing
            // else modified), as for `roving.open(trusted=True)`; the
            // bytes lie within the file, every read of the document is
            // bounds-checked and the decoder checks strings' UTF-8.
            unsafe { Document::open_trusted(b) }.map_err(|e| crate::errors::from_core(py, &e))?
        } else {
            store
                .open_record(key, b, scratch)
                .map_err(|e| store_err(py, &e))?
        };
        Ok(Some((doc, base_len)))
    }

    /// The Python value under `key` ([`lookup`](Self::lookup), then
    /// [`decode`](Self::decode)), read in the store's kept scratch buffers
    /// (or in this call's, if another thread holds them).
    fn read<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let mut own = ReadScratch::default();
        let mut kept = self.scratch.try_lock();
        let scratch = match kept.as_mut() {
            Ok(s) => &mut **s,
            Err(_) => &mut own,
        };
        match self.lookup(py, key, &mut scratch.bytes)? {
            Some((doc, base_len)) => self
                .decode(py, key, doc, Some((&mut scratch.shapes, base_len)))
                .map(Some),
            None => Ok(None),
        }
    }

    /// Python value of the validated document `doc` under `key` (typed if
    /// the store has a type; a `ValidationError` then names the key);
    /// `kept` as for [`crate::decode_doc`].
    fn decode<'py, 'a>(
        &self,
        py: Python<'py>,
        key: &str,
        doc: Document<'a>,
        kept: Option<(&'a mut BaseShapes, usize)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match &self.plan {
            Some(p) => typed::decode_typed(py, doc.as_bytes(), doc.root(), p).map_err(|e| {
                let at = format!("store {}, key {key:?}", path_text(&self.path, false));
                crate::errors::prefix_validation(py, e, &at)
            }),
            None => crate::decode_doc(py, &doc, None, kept),
        }
    }
}

#[pymethods]
impl PyStore {
    #[new]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    #[pyo3(signature = (path, *, r#type=None, readonly=false, trusted=false, verify_pages=false, map_size=None, sync=true, populate=false, max_readers=None, create=true, default=None, non_str_keys=false, dictionary=true))]
    fn py_new(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        r#type: Option<Bound<'_, PyAny>>,
        readonly: bool,
        trusted: bool,
        verify_pages: bool,
        map_size: Option<usize>,
        sync: bool,
        populate: bool,
        max_readers: Option<Bound<'_, PyAny>>,
        create: bool,
        default: Option<Bound<'_, PyAny>>,
        non_str_keys: bool,
        dictionary: bool,
    ) -> PyResult<PyStore> {
        let path = store_path(path)?;
        let ty = r#type.filter(|t| !t.is_none());
        // An unsupported type fails here, not on the first read.
        let plan = ty.as_ref().map(typed::plan_for).transpose()?;
        let mut opts = StoreOptions::default()
            .readonly(readonly)
            .create(create)
            .sync(sync)
            .verify_pages(verify_pages)
            .populate(populate);
        if let Some(m) = map_size {
            opts = opts.map_size(m);
        }
        if let Some(n) = max_readers.filter(|n| !n.is_none()) {
            opts = opts.max_readers(max_readers_arg(&n)?);
        }
        let p = path.clone();
        let store = py
            .detach(move || Store::open(&p, &opts))
            .map_err(|e| store_err(py, &e))?;
        Ok(PyStore {
            inner: Some(store),
            trusted,
            ty: ty.map(Bound::unbind),
            plan,
            path,
            readonly,
            encode_options: EncodeOptions::new(default.as_ref(), non_str_keys),
            dictionary,
            scratch: std::sync::Mutex::new(ReadScratch::default()),
        })
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(k) = read_key(key, &self.path)? else {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        };
        self.read(py, k)?
            .ok_or_else(|| PyKeyError::new_err(key.clone().unbind()))
    }

    /// `s.get(key, default=None)`.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let found = match read_key(key, &self.path)? {
            Some(k) => self.read(py, k)?,
            None => None,
        };
        Ok(found.unwrap_or_else(|| default.unwrap_or_else(|| py.None().into_bound(py))))
    }

    fn __setitem__(
        &mut self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let k = key_str(key, &self.path)?;
        if self.readonly {
            self.store(py)?;
            return Err(new_store_error(
                py,
                "read-only",
                format!(
                    "store {}: the store is open read-only",
                    path_text(&self.path, false)
                ),
            ));
        }
        let bytes = if self.dictionary {
            let store = match self.inner.as_mut() {
                Some(s) => s,
                None => return Err(closed_error(py, &self.path)),
            };
            crate::encode::encode_py_for_store(value, &self.encode_options, store)?
        } else {
            crate::encode_py(value, &self.encode_options)?
        };
        let store = self.store_mut(py)?;
        // SAFETY: `bytes` comes straight from roving's encoder (plain, or
        // against the store's dictionary, which holds its entries), which
        // only produces valid documents.
        unsafe { store.put_trusted(k, bytes) }.map_err(|e| store_err(py, &e))
    }

    /// `value` encoded as an assignment would write it (with the store's
    /// `default`, and its `non_str_keys` unless `non_str_keys` is given).
    #[pyo3(signature = (value, *, non_str_keys=None))]
    fn _encode<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        non_str_keys: Option<bool>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = match non_str_keys {
            Some(keys) if keys != self.encode_options.non_str_keys => {
                crate::encode_py(value, &self.encode_options.with_non_str_keys(py, keys))?
            }
            _ => crate::encode_py(value, &self.encode_options)?,
        };
        Ok(PyBytes::new(py, &bytes))
    }

    fn __delitem__(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(k) = read_key(key, &self.path)? else {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        };
        match self.store_mut(py)?.delete(k) {
            Ok(true) => Ok(()),
            Ok(false) => Err(PyKeyError::new_err(key.clone().unbind())),
            Err(e) => Err(store_err(py, &e)),
        }
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let n = self.store(py)?.len().map_err(|e| store_err(py, &e))?;
        Ok(n as usize)
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(s) = key.cast::<PyString>() else {
            return Ok(false);
        };
        let Ok(k) = s.to_str() else {
            return Ok(false);
        };
        self.store(py)?.contains(k).map_err(|e| store_err(py, &e))
    }

    fn __iter__(slf: Bound<'_, Self>) -> PyResult<StoreIter> {
        StoreIter::new(slf, IterKind::Keys)
    }

    /// Iterator over (key, value) pairs in key order (used by `items()`).
    fn _iter_items(slf: Bound<'_, Self>) -> PyResult<StoreIter> {
        StoreIter::new(slf, IterKind::Items)
    }

    /// Iterator over values in key order (used by `values()`).
    fn _iter_values(slf: Bound<'_, Self>) -> PyResult<StoreIter> {
        StoreIter::new(slf, IterKind::Values)
    }

    /// `s.view(key)`: the record as a lazy, zero-copy `roving.Doc` (read in
    /// place from the store's memory map; it keeps that state of the store
    /// alive, so release views you no longer need).
    fn view(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Doc> {
        let Some(k) = read_key(key, &self.path)? else {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        };
        let rec = match self.store(py)?.record(k) {
            Ok(Some(r)) => r,
            Ok(None) => return Err(PyKeyError::new_err(key.clone().unbind())),
            Err(e) => return Err(store_err(py, &e)),
        };
        let bytes = rec.as_bytes();
        let (ptr, len) = (bytes.as_ptr(), bytes.len());
        // SAFETY: a `Record` keeps its bytes readable and unchanged for as
        // long as it is alive, wherever it is moved (its owner is an
        // `Arc<[u8]>` or the snapshot whose memory map holds them).
        let buf = unsafe { Buf::from_owner(ptr, len, Box::new(rec)) };
        // The record was validated by the store (`Store::record`).
        Doc::new(py, Arc::new(buf), true)
    }

    /// Rewrites every record against the store's dictionary, in one
    /// transaction (pending changes are flushed first); returns how many
    /// records became smaller.
    fn compact(&mut self, py: Python<'_>) -> PyResult<u64> {
        let store = self.store_mut(py)?;
        py.detach(|| store.compact()).map_err(|e| store_err(py, &e))
    }

    /// The number of entries of the store's dictionary (committed ones and
    /// those pending changes added).
    #[getter]
    fn _dictionary_len(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.store(py)?.dictionary().len())
    }

    /// Commits every pending change in one atomic, durable transaction.
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        // (Inside a transaction, an error even with nothing pending.)
        if !store.is_dirty() && !store.in_transaction() {
            return Ok(());
        }
        py.detach(|| store.flush()).map_err(|e| store_err(py, &e))
    }

    /// Begins a transaction (`Store.transaction()`): flushes the pending
    /// changes, then waits for the write lock (the GIL released).
    fn _begin_transaction(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        py.detach(|| store.begin_transaction())
            .map_err(|e| store_err(py, &e))
    }

    /// Commits the open transaction (its changes are dropped on error).
    fn _commit_transaction(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        py.detach(|| store.commit_transaction())
            .map_err(|e| store_err(py, &e))
    }

    /// Aborts the open transaction: drops its changes.
    fn _abort_transaction(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        py.detach(|| store.abort_transaction())
            .map_err(|e| store_err(py, &e))
    }

    /// True inside `with store.transaction():`.
    #[getter]
    fn in_transaction(&self) -> bool {
        self.inner.as_ref().is_some_and(Store::in_transaction)
    }

    /// Sets how many bytes (estimated) of pending changes are held in
    /// memory before they are spilled to temporary files (64 MiB by
    /// default; for tests).
    fn _set_pending_memory(&mut self, py: Python<'_>, bytes: usize) -> PyResult<()> {
        self.store_mut(py)?.set_pending_memory(bytes);
        Ok(())
    }

    /// True if some pending changes were spilled to temporary files.
    fn _pending_spilled(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.store(py)?.pending_spilled())
    }

    /// Drops pending changes and reads the newest committed state.
    fn reload(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        store.reload().map_err(|e| store_err(py, &e))
    }

    /// Removes every record (pending until the next flush).
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        let keys: Vec<String> = store
            .raw_iter_from(Edge::Unbounded)
            .map(|r| r.map(|(k, _)| k.to_owned()))
            .collect::<Result<_, _>>()
            .map_err(|e| store_err(py, &e))?;
        for k in keys {
            store.delete(&k).map_err(|e| store_err(py, &e))?;
        }
        Ok(())
    }

    /// Flushes pending changes (if `commit`) and closes the store. Closing
    /// twice is allowed.
    #[pyo3(signature = (*, commit=true))]
    fn _close(&mut self, py: Python<'_>, commit: bool) -> PyResult<()> {
        if commit {
            if let Some(store) = self.inner.as_mut() {
                if store.is_dirty() {
                    py.detach(|| store.flush()).map_err(|e| store_err(py, &e))?;
                }
            }
        }
        self.inner = None;
        Ok(())
    }

    /// Flushes pending changes, then closes the store.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        self._close(py, true)
    }

    /// True once closed.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_none()
    }

    /// The path given to the constructor (`str`, `bytes` or `os.PathLike`),
    /// as a `pathlib.Path` (decoded as `os.fsdecode` does).
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// True if opened with `trusted=True`.
    #[getter]
    fn trusted(&self) -> bool {
        self.trusted
    }

    /// True if opened with `readonly=True`.
    #[getter]
    fn readonly(&self) -> bool {
        self.readonly
    }

    /// The type values decode to, or None.
    #[getter]
    fn r#type(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.ty.as_ref().map(|t| t.clone_ref(py))
    }

    /// Number of keys with changes not yet flushed.
    #[getter]
    fn pending(&self) -> usize {
        self.inner.as_ref().map_or(0, |s| s.pending_len())
    }

    fn __repr__(&self) -> String {
        let state = if self.inner.is_none() {
            " (closed)"
        } else {
            ""
        };
        format!("roving.Store({}){state}", path_text(&self.path, true))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum IterKind {
    Keys,
    Items,
    Values,
}

/// Iterator over a `roving.Store` in key order. It resumes after the last
/// key it returned, so changes to the store during iteration neither crash
/// nor repeat keys.
#[pyclass(module = "roving._roving", name = "_StoreIter")]
pub struct StoreIter {
    store: Py<PyStore>,
    kind: IterKind,
    after: Option<String>,
    buf: VecDeque<Py<PyAny>>,
    done: bool,
}

impl StoreIter {
    fn new(slf: Bound<'_, PyStore>, kind: IterKind) -> PyResult<StoreIter> {
        let py = slf.py();
        slf.borrow().store(py)?;
        Ok(StoreIter {
            store: slf.unbind(),
            kind,
            after: None,
            buf: VecDeque::new(),
            done: false,
        })
    }

    fn refill(&mut self, py: Python<'_>) -> PyResult<()> {
        let owner = self.store.bind(py).borrow();
        let store = owner.store(py)?;
        let start = match &self.after {
            Some(k) => Edge::Excluded(k.as_str()),
            None => Edge::Unbounded,
        };
        let kind = self.kind;
        let mut n = 0;
        let mut last: Option<&str> = None;
        // The shapes of the store's dictionary base, kept over the chunk.
        let mut shapes = BaseShapes::default();
        let dict = store.dictionary();
        let mut scratch = Vec::new();
        for r in store.raw_iter_from(start).take(ITER_CHUNK) {
            let (k, b) = r.map_err(|e| store_err(py, &e))?;
            let item = if kind == IterKind::Keys {
                // Keys only: values are not read.
                PyString::new(py, k).into_any().unbind()
            } else {
                let base_len = dict.bound_base_len(b).unwrap_or(0);
                let doc = if owner.trusted {
                    let b = store
                        .resolve(b, &mut scratch)
                        .map_err(|e| store_err(py, &e))?;
                    // SAFETY: `trusted=True`, as in `PyStore::lookup`.
                    unsafe { Document::open_trusted(b) }
                        .map_err(|e| crate::errors::from_core(py, &e))?
                } else {
                    store
                        .open_record(k, b, &mut scratch)
                        .map_err(|e| store_err(py, &e))?
                };
                let v = owner.decode(py, k, doc, Some((&mut shapes, base_len)))?;
                if kind == IterKind::Items {
                    let key = PyString::new(py, k).into_any();
                    PyTuple::new(py, [key, v])?.into_any().unbind()
                } else {
                    v.unbind()
                }
            };
            self.buf.push_back(item);
            last = Some(k);
            n += 1;
        }
        if n < ITER_CHUNK {
            self.done = true;
        }
        if let Some(k) = last {
            self.after = Some(k.to_owned());
        }
        Ok(())
    }
}

#[pymethods]
impl StoreIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.buf.is_empty() && !self.done {
            if let Err(e) = self.refill(py) {
                self.done = true;
                self.buf.clear();
                return Err(e);
            }
        }
        Ok(self.buf.pop_front())
    }
}
