//! `roving.Store` on a Redis Cluster: the Python face of
//! `roving_store::ClusterStore`. The extension defines `_ClusterStore`;
//! `python/roving/_cluster_store.py` subclasses it together with
//! `collections.abc.MutableMapping`, and `roving.Store(url)` opens it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use roving::Document;
use roving_store::{ClusterOptions, ClusterStore};

use crate::buf::Buf;
use crate::encode::EncodeOptions;
use crate::store::{closed_error, key_str, new_store_error, path_text, read_key, store_err};
use crate::typed;
use crate::view::Doc;

/// Adds `_ClusterStore` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClusterStore>()
}

/// The extension type behind `roving.Store("redis://...")` (use `roving.Store`).
#[pyclass(module = "roving._roving", name = "_ClusterStore", subclass)]
pub struct PyClusterStore {
    inner: Option<ClusterStore>,
    ty: Option<Py<PyAny>>,
    plan: Option<Arc<typed::Plan>>,
    /// How errors name the store (`redis://host:port prefix "p"`), as the
    /// helpers shared with `roving.Store` take it.
    name: PathBuf,
    nodes: Vec<String>,
    prefix: String,
    readonly: bool,
    /// Write records against the store-wide dictionary (`dictionary=True`).
    dictionary: bool,
    encode_options: EncodeOptions,
}

/// A timeout in seconds (`float`), positive.
fn seconds(what: &str, s: f64) -> PyResult<Duration> {
    if s.is_finite() && s > 0.0 && s < 1e9 {
        Ok(Duration::from_secs_f64(s))
    } else {
        Err(PyValueError::new_err(format!(
            "{what} must be a positive number of seconds, not {s}"
        )))
    }
}

impl PyClusterStore {
    fn store(&self, py: Python<'_>) -> PyResult<&ClusterStore> {
        self.inner
            .as_ref()
            .ok_or_else(|| closed_error(py, &self.name))
    }

    fn store_mut(&mut self, py: Python<'_>) -> PyResult<&mut ClusterStore> {
        match self.inner.as_mut() {
            Some(s) => Ok(s),
            None => Err(closed_error(py, &self.name)),
        }
    }

    fn path(&self) -> &Path {
        &self.name
    }

    /// Python value of the validated document `bytes` of `key` (typed if
    /// the store has a type; a `ValidationError` then names the key).
    fn decode<'py>(&self, py: Python<'py>, key: &str, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: the store validated these bytes (on put, or when it read
        // them from the cluster) and they are immutable.
        let doc = unsafe { Document::open_trusted(bytes) }
            .map_err(|e| crate::errors::from_core(py, &e))?;
        match &self.plan {
            Some(p) => typed::decode_typed(py, doc.as_bytes(), doc.root(), p).map_err(|e| {
                let at = format!("store {}, key {key:?}", path_text(&self.name, false));
                crate::errors::prefix_validation(py, e, &at)
            }),
            None => crate::decode_doc(py, &doc, None, None),
        }
    }

    fn fetch(&self, py: Python<'_>, key: &str) -> PyResult<Option<Arc<[u8]>>> {
        let store = self.store(py)?;
        py.detach(|| store.get(key)).map_err(|e| store_err(py, &e))
    }
}

#[pymethods]
impl PyClusterStore {
    #[new]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    #[pyo3(signature = (nodes, *, prefix="", r#type=None, readonly=false, default=None, non_str_keys=false, dictionary=true, replicas=1, timeout=2.0, wait_timeout=1.0, retries=8))]
    fn py_new(
        py: Python<'_>,
        nodes: &Bound<'_, PyAny>,
        prefix: &str,
        r#type: Option<Bound<'_, PyAny>>,
        readonly: bool,
        default: Option<Bound<'_, PyAny>>,
        non_str_keys: bool,
        dictionary: bool,
        replicas: u32,
        timeout: f64,
        wait_timeout: f64,
        retries: u32,
    ) -> PyResult<PyClusterStore> {
        let nodes: Vec<String> = match nodes.cast::<PyString>() {
            Ok(s) => vec![s.to_str()?.to_owned()],
            Err(_) => nodes.extract()?,
        };
        let ty = r#type.filter(|t| !t.is_none());
        let plan = ty.as_ref().map(typed::plan_for).transpose()?;
        let opts = ClusterOptions {
            prefix: prefix.to_owned(),
            readonly,
            connect_timeout: seconds("timeout", timeout)?,
            response_timeout: seconds("timeout", timeout)?,
            replicas,
            wait_timeout: seconds("wait_timeout", wait_timeout)?,
            retries,
            dictionary,
        };
        let list = nodes.clone();
        let store = py
            .detach(move || ClusterStore::open(&list, &opts))
            .map_err(|e| store_err(py, &e))?;
        Ok(PyClusterStore {
            name: PathBuf::from(store.name()),
            inner: Some(store),
            ty: ty.map(Bound::unbind),
            plan,
            nodes,
            prefix: prefix.to_owned(),
            readonly,
            dictionary,
            encode_options: EncodeOptions::new(default.as_ref(), non_str_keys),
        })
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(k) = read_key(key, self.path())? else {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        };
        match self.fetch(py, k)? {
            Some(b) => self.decode(py, k, &b),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
    }

    /// `s.get(key, default=None)`.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let found = match read_key(key, self.path())? {
            Some(k) => self.fetch(py, k)?.map(|b| (k, b)),
            None => None,
        };
        match found {
            Some((k, b)) => self.decode(py, k, &b),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    fn __setitem__(
        &mut self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let k = key_str(key, self.path())?;
        if self.readonly {
            self.store(py)?;
            return Err(new_store_error(
                py,
                "read-only",
                format!(
                    "store {}: the store is open read-only",
                    path_text(&self.name, false)
                ),
            ));
        }
        let options = &self.encode_options;
        let store = match self.inner.as_mut() {
            Some(s) => s,
            None => return Err(closed_error(py, &self.name)),
        };
        let bytes = if self.dictionary {
            crate::encode::encode_py_for_store(value, options, store)?
        } else {
            crate::encode_py(value, options)?
        };
        // SAFETY: `bytes` comes straight from roving's encoder (plain, or
        // against the store's dictionary, which holds its entries), which
        // only produces valid documents.
        unsafe { store.put_trusted(k, bytes) }.map_err(|e| store_err(py, &e))
    }

    /// `value` encoded as an assignment would write it.
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
        let Some(k) = read_key(key, self.path())? else {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        };
        let store = self.store_mut(py)?;
        match py.detach(|| store.delete(k)) {
            Ok(true) => Ok(()),
            Ok(false) => Err(PyKeyError::new_err(key.clone().unbind())),
            Err(e) => Err(store_err(py, &e)),
        }
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let store = self.store(py)?;
        let n = py.detach(|| store.len()).map_err(|e| store_err(py, &e))?;
        Ok(n as usize)
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(s) = key.cast::<PyString>() else {
            return Ok(false);
        };
        let Ok(k) = s.to_str() else {
            return Ok(false);
        };
        let store = self.store(py)?;
        py.detach(|| store.contains(k))
            .map_err(|e| store_err(py, &e))
    }

    /// Every key, pending changes included, sorted (one `SCAN` of each
    /// master): iteration walks this list.
    fn _keys(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let store = self.store(py)?;
        py.detach(|| store.keys()).map_err(|e| store_err(py, &e))
    }

    /// `(key, value)` pairs (or values alone) of those of `keys` still in
    /// the store, in one pipeline per master.
    #[pyo3(signature = (keys, *, values_only=false))]
    fn _read_many<'py>(
        &self,
        py: Python<'py>,
        keys: Vec<String>,
        values_only: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let store = self.store(py)?;
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let got = py
            .detach(|| store.get_many(&refs))
            .map_err(|e| store_err(py, &e))?;
        let out = PyList::empty(py);
        for (k, b) in keys.iter().zip(got) {
            let Some(b) = b else { continue };
            let v = self.decode(py, k, &b)?;
            if values_only {
                out.append(v)?;
            } else {
                out.append(PyTuple::new(py, [PyString::new(py, k).into_any(), v])?)?;
            }
        }
        Ok(out)
    }

    /// `s.view(key)`: the record as a lazy `roving.Doc` over a copy of its
    /// bytes (read off the network once).
    fn view(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Doc> {
        let Some(k) = read_key(key, self.path())? else {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        };
        let Some(bytes) = self.fetch(py, k)? else {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        };
        let (ptr, len) = (bytes.as_ptr(), bytes.len());
        // SAFETY: the `Arc<[u8]>` moved into the owner keeps these bytes
        // alive and unchanged for as long as the buffer lives.
        let buf = unsafe { Buf::from_owner(ptr, len, Box::new(bytes)) };
        // The store validated the record.
        Doc::new(py, Arc::new(buf), true)
    }

    /// Writes every pending change; returns once each is acknowledged by
    /// its master and `replicas` replicas.
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        if !store.is_dirty() && !store.in_transaction() {
            return Ok(());
        }
        py.detach(|| store.flush()).map_err(|e| store_err(py, &e))
    }

    /// Begins a transaction over keys of one hash slot (see
    /// `ClusterStore.transaction`): flushes first.
    fn _begin_transaction(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        py.detach(|| store.begin_transaction())
            .map_err(|e| store_err(py, &e))
    }

    /// Commits the open transaction (`MULTI` ... `EXEC`, then `WAIT`).
    fn _commit_transaction(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        py.detach(|| store.commit_transaction())
            .map_err(|e| store_err(py, &e))
    }

    /// Drops the open transaction and its changes.
    fn _abort_transaction(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        store.abort_transaction().map_err(|e| store_err(py, &e))
    }

    /// Drops pending changes (reads always see the cluster's current state).
    fn reload(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        store.reload().map_err(|e| store_err(py, &e))
    }

    /// Removes every record (pending until the next flush).
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        let store = self.store_mut(py)?;
        py.detach(|| store.clear()).map_err(|e| store_err(py, &e))
    }

    /// Flushes pending changes (if `commit`) and closes the store.
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

    /// The node addresses given to the constructor.
    #[getter]
    fn nodes(&self) -> Vec<String> {
        self.nodes.clone()
    }

    /// The Redis key prefix of the store's records.
    #[getter]
    fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Always False: records read from a cluster are always validated.
    #[getter]
    fn trusted(&self) -> bool {
        false
    }

    /// The number of entries of the store's dictionary this client knows
    /// (those it read from the cluster, and those its pending records added).
    #[getter]
    fn _dictionary_len(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.store(py)?.dictionary().len())
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
        format!(
            "roving.Store({}, prefix={:?}){state}",
            path_text(Path::new(&self.nodes.join(", ")), true),
            self.prefix
        )
    }
}
