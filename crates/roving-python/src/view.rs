//! Lazy, zero-copy access: `roving.open()` -> [`Doc`], and [`View`]s of
//! maps, arrays and vectors inside it. Views hold an `Arc` of the buffer,
//! so they stay valid after their `Doc` is closed or collected; scalars are
//! returned as Python values.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PySlice, PyString, PyTuple};

use roving::read::Scalar;
use roving::{Document, Value};

use crate::buf::{Buf, BufferRef};
use crate::decode::{self, Decoder};
use crate::errors::from_core;
use crate::pytypes;

/// Extends the lifetime of a value borrowed from `buf`'s bytes.
///
/// # Safety
/// `v` must borrow from the bytes of a `Buf` that the caller stores (in an
/// `Arc`) next to the returned value, so the bytes outlive every use of it.
pub(crate) unsafe fn extend(v: Value<'_>) -> Value<'static> {
    // SAFETY: only the lifetime changes (same type); the caller keeps the
    // borrowed bytes alive (a `Buf` never moves its bytes).
    unsafe { std::mem::transmute::<Value<'_>, Value<'static>>(v) }
}

/// Opens `buf` as a document: validates it unless `trusted`, releasing the
/// GIL while validating (the bytes of a `Buf` are immutable).
pub(crate) fn open_buf(
    py: Python<'_>,
    buf: Arc<Buf>,
    trusted: bool,
) -> PyResult<(Arc<Buf>, Value<'static>)> {
    let bytes = buf.bytes();
    let doc = if trusted {
        // SAFETY: the caller asserted (`trusted=True`, documented as "bytes
        // you wrote yourself") that these are the bytes of a valid document.
        unsafe { Document::open_trusted(bytes) }
    } else if bytes.len() >= 1 << 16 {
        py.detach(|| Document::open(bytes))
    } else {
        Document::open(bytes)
    }
    .map_err(|e| from_core(py, &e))?;
    // SAFETY: the value borrows `buf`'s bytes and is stored with `buf`.
    let root = unsafe { extend(doc.root()) };
    Ok((buf, root))
}

/// A document opened for lazy access (`roving.open`).
#[pyclass(module = "roving", frozen, weakref)]
pub struct Doc {
    state: Mutex<Option<(Arc<Buf>, Value<'static>)>>,
}

impl Doc {
    /// A document over `buf` (validated unless `trusted`).
    pub(crate) fn new(py: Python<'_>, buf: Arc<Buf>, trusted: bool) -> PyResult<Doc> {
        let s = open_buf(py, buf, trusted)?;
        Ok(Doc {
            state: Mutex::new(Some(s)),
        })
    }

    fn state(&self) -> PyResult<(Arc<Buf>, Value<'static>)> {
        match &*self.state.lock().unwrap_or_else(|e| e.into_inner()) {
            Some((b, v)) => Ok((b.clone(), *v)),
            None => Err(PyValueError::new_err(
                "I/O operation on a closed roving.Doc",
            )),
        }
    }

    /// Runs `f` on the root without cloning the Arc.
    fn with<T>(&self, f: impl FnOnce(&Arc<Buf>, Value<'static>) -> PyResult<T>) -> PyResult<T> {
        match &*self.state.lock().unwrap_or_else(|e| e.into_inner()) {
            Some((b, v)) => f(b, *v),
            None => Err(PyValueError::new_err(
                "I/O operation on a closed roving.Doc",
            )),
        }
    }
}

#[pymethods]
impl Doc {
    /// The root value: a `View` for a map, array or vector, else a Python value.
    #[getter]
    fn root(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.with(|b, v| to_view_or_value(py, b, v))
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.with(|b, v| getitem(py, b, v, key))
    }

    /// `doc.get(key, default=None)` on the root.
    #[pyo3(signature = (key, default=None))]
    fn get(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.with(|b, v| get(py, b, v, key, default))
    }

    fn __len__(&self) -> PyResult<usize> {
        self.with(|_, v| len(v))
    }

    fn __contains__(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.with(|_, v| contains(py, v, x))
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<ViewIter>> {
        let (b, v) = self.state()?;
        iter(py, b, v, IterKind::Default)
    }

    /// The value at a path such as `[123].name` (or `default` if absent).
    #[pyo3(signature = (path, default=None))]
    fn get_path(
        &self,
        py: Python<'_>,
        path: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.with(|b, v| get_path(py, b, v, path, default))
    }

    /// The whole document as Python objects.
    fn to_python(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.with(|b, v| {
            let _gc = decode::GcPause::new();
            let mut d = Decoder::new(py, b.bytes());
            d.borrow_memo();
            d.value(v).map(|o| o.unbind())
        })
    }

    /// The whole document as JSON text (bytes).
    #[pyo3(signature = (*, indent=None))]
    fn to_json<'py>(
        &self,
        py: Python<'py>,
        indent: Option<usize>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (b, v) = self.state()?;
        to_json(py, &b, v, indent)
    }

    /// Size of the document in bytes.
    #[getter]
    fn nbytes(&self) -> PyResult<usize> {
        self.with(|b, _| Ok(b.bytes().len()))
    }

    /// The document's bytes as a read-only memoryview (no copy).
    fn buffer<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (b, _) = self.state()?;
        let r = Bound::new(py, BufferRef { buf: b })?;
        pyo3::types::PyMemoryView::from(&r.into_any()).map(|m| m.into_any())
    }

    /// True after `close()`.
    #[getter]
    fn closed(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_none()
    }

    /// Releases this document's reference to its buffer (a memory-mapped
    /// file is unmapped once no view or array from it remains). Views
    /// taken earlier stay valid: they hold the buffer themselves.
    fn close(&self) {
        let old = self.state.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(old);
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        match &*self.state.lock().unwrap_or_else(|e| e.into_inner()) {
            Some((b, v)) => format!(
                "<roving.Doc {} bytes, root {}>",
                b.bytes().len(),
                v.type_name()
            ),
            None => "<roving.Doc closed>".into(),
        }
    }
}

/// A map, array or vector inside a document, read in place.
#[pyclass(module = "roving", frozen, weakref)]
pub struct View {
    value: Value<'static>,
    buf: Arc<Buf>,
}

/// A view (for containers) or a Python value (for scalars) of `v`, which
/// borrows from `buf`.
pub(crate) fn to_view_or_value(
    py: Python<'_>,
    buf: &Arc<Buf>,
    v: Value<'static>,
) -> PyResult<Py<PyAny>> {
    match v {
        Value::Array(_) | Value::Map(_) => Ok(Py::new(
            py,
            View {
                value: v,
                buf: buf.clone(),
            },
        )?
        .into_any()),
        Value::Vector(vec) => vector_view(py, buf, vec),
        Value::Str(s) => Ok(pytypes::make_str(py, s.as_bytes())?.unbind()),
        Value::Int(i) => Ok(i.into_pyobject(py)?.into_any().unbind()),
        Value::Null => Ok(py.None()),
        Value::Bool(b) => Ok(pyo3::types::PyBool::new(py, b)
            .to_owned()
            .into_any()
            .unbind()),
        Value::Float(f) => Ok(pyo3::types::PyFloat::new(py, f).into_any().unbind()),
        other => Ok(decode::scalar(py, other)?.unbind()),
    }
}

/// A read-only numpy array over the vector's bytes (zero copy), or an
/// `array.array` copy if numpy is not installed.
fn vector_view(
    py: Python<'_>,
    buf: &Arc<Buf>,
    vec: roving::Vector<'static>,
) -> PyResult<Py<PyAny>> {
    if let Some(np) = pytypes::numpy_import(py) {
        if cfg!(target_endian = "little") {
            let raw = vec.raw();
            let off = raw.as_ptr() as usize - buf.bytes().as_ptr() as usize;
            let r = Bound::new(py, BufferRef { buf: buf.clone() })?;
            let dt = np.dtypes[vec.elem_type() as usize]
                .as_ref()
                .map(|d| d.bind(py).clone());
            let kw = PyDict::new(py);
            kw.set_item("dtype", dt)?;
            kw.set_item("count", vec.len())?;
            kw.set_item("offset", off)?;
            return Ok(np.frombuffer.bind(py).call((r,), Some(&kw))?.unbind());
        }
    }
    Ok(pytypes::vector_to_py(py, vec.elem_type(), vec.raw())?.unbind())
}

fn scalar_to_py(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Scalar::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Scalar::UInt(u) => u.into_pyobject(py)?.into_any().unbind(),
        Scalar::Float(f) => pyo3::types::PyFloat::new(py, f).into_any().unbind(),
    })
}

fn type_error(v: &Value<'_>, what: &str) -> PyErr {
    PyTypeError::new_err(format!("roving {} view {what}", v.type_name()))
}

fn norm_index(i: isize, n: usize) -> Option<usize> {
    let j = if i < 0 { i + n as isize } else { i };
    (j >= 0 && (j as usize) < n).then_some(j as usize)
}

fn getitem(
    py: Python<'_>,
    buf: &Arc<Buf>,
    v: Value<'static>,
    key: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    match v {
        Value::Map(m) => {
            let k = key
                .cast::<PyString>()
                .map_err(|_| PyKeyError::new_err(key.clone().unbind()))?;
            match m.get(k.to_str()?) {
                Some(x) => to_view_or_value(py, buf, x),
                None => Err(PyKeyError::new_err(key.clone().unbind())),
            }
        }
        Value::Array(a) => {
            if let Ok(s) = key.cast::<PySlice>() {
                let ind = s.indices(a.len() as isize)?;
                let mut out = Vec::with_capacity(ind.slicelength);
                let mut i = ind.start;
                for _ in 0..ind.slicelength {
                    out.push(to_view_or_value(
                        py,
                        buf,
                        a.get(i as usize).unwrap_or(Value::Null),
                    )?);
                    i += ind.step;
                }
                return Ok(PyList::new(py, out)?.into_any().unbind());
            }
            let i: isize = key
                .extract()
                .map_err(|_| PyTypeError::new_err("array indices must be integers or slices"))?;
            match norm_index(i, a.len()).and_then(|j| a.get(j)) {
                Some(x) => to_view_or_value(py, buf, x),
                None => Err(PyIndexError::new_err("array index out of range")),
            }
        }
        Value::Vector(vec) => {
            let i: isize = key
                .extract()
                .map_err(|_| PyTypeError::new_err("vector indices must be integers"))?;
            match norm_index(i, vec.len()).and_then(|j| vec.get(j)) {
                Some(s) => scalar_to_py(py, s),
                None => Err(PyIndexError::new_err("vector index out of range")),
            }
        }
        other => Err(type_error(&other, "is not subscriptable")),
    }
}

fn get(
    py: Python<'_>,
    buf: &Arc<Buf>,
    v: Value<'static>,
    key: &Bound<'_, PyAny>,
    default: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let found = match v {
        Value::Map(m) => match key.cast::<PyString>() {
            Ok(k) => m.get(k.to_str()?),
            Err(_) => None,
        },
        Value::Array(a) => match key.extract::<isize>() {
            Ok(i) => norm_index(i, a.len()).and_then(|j| a.get(j)),
            Err(_) => None,
        },
        other => return Err(type_error(&other, "has no get()")),
    };
    match found {
        Some(x) => to_view_or_value(py, buf, x),
        None => Ok(default.unwrap_or_else(|| py.None())),
    }
}

fn get_path(
    py: Python<'_>,
    buf: &Arc<Buf>,
    v: Value<'static>,
    path: &str,
    default: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    match v.path(path) {
        Ok(Some(x)) => to_view_or_value(py, buf, x),
        Ok(None) => Ok(default.unwrap_or_else(|| py.None())),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

fn len(v: Value<'_>) -> PyResult<usize> {
    match v {
        Value::Map(m) => Ok(m.len()),
        Value::Array(a) => Ok(a.len()),
        Value::Vector(x) => Ok(x.len()),
        other => Err(type_error(&other, "has no len()")),
    }
}

fn contains(py: Python<'_>, v: Value<'static>, x: &Bound<'_, PyAny>) -> PyResult<bool> {
    match v {
        Value::Map(m) => match x.cast::<PyString>() {
            Ok(k) => Ok(m.position(k.to_str()?).is_some()),
            Err(_) => Ok(false),
        },
        Value::Array(a) => {
            for item in a.iter() {
                if eq_value(py, item, x, 0)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        other => Err(type_error(&other, "does not support 'in'")),
    }
}

/// Compares a value in place with a Python object (Python's `==` rules for
/// scalars; maps equal dicts with the same keys and equal values, arrays
/// equal lists or tuples of equal items).
fn eq_value(
    py: Python<'_>,
    v: Value<'static>,
    o: &Bound<'_, PyAny>,
    depth: usize,
) -> PyResult<bool> {
    if depth > decode::MAX_DEPTH || crate::stack::sp() < crate::stack::limit() {
        return Err(crate::errors::decode_error(
            py,
            "nesting depth limit exceeded in comparison".into(),
            None,
        ));
    }
    if let Ok(other) = o.cast::<View>() {
        let other = other.get();
        return Ok(v == other.value);
    }
    match v {
        Value::Map(m) => {
            let d = match o.cast::<PyDict>() {
                Ok(d) => d,
                Err(_) => return Ok(false),
            };
            if d.len() != m.len() {
                return Ok(false);
            }
            for (k, val) in m.iter() {
                match d.get_item(k)? {
                    Some(x) => {
                        if !eq_value(py, val, &x, depth + 1)? {
                            return Ok(false);
                        }
                    }
                    None => return Ok(false),
                }
            }
            Ok(true)
        }
        Value::Array(a) => {
            let seq = if let Ok(l) = o.cast::<PyList>() {
                l.as_any().clone()
            } else if let Ok(t) = o.cast::<PyTuple>() {
                t.as_any().clone()
            } else {
                return Ok(false);
            };
            if seq.len()? != a.len() {
                return Ok(false);
            }
            for (i, item) in a.iter().enumerate() {
                if !eq_value(py, item, &seq.get_item(i)?, depth + 1)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Value::Vector(vec) => {
            let n = match o.len() {
                Ok(n) => n,
                Err(_) => return Ok(false),
            };
            if n != vec.len() {
                return Ok(false);
            }
            for i in 0..n {
                let s = scalar_to_py(py, vec.get(i).unwrap_or(Scalar::Int(0)))?;
                if !s.bind(py).eq(o.get_item(i)?)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        scalar => {
            let mine = decode::scalar(py, scalar)?;
            mine.eq(o)
        }
    }
}

fn to_json<'py>(
    py: Python<'py>,
    buf: &Arc<Buf>,
    v: Value<'static>,
    indent: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = roving::json::JsonOptions {
        indent,
        limits: roving::Limits::for_len(buf.bytes().len()),
    };
    let mut out = Vec::new();
    let r = if buf.bytes().len() >= 1 << 16 {
        py.detach(|| roving::json::write_json(v, &opts, &mut out))
    } else {
        roving::json::write_json(v, &opts, &mut out)
    };
    r.map_err(|e| from_core(py, &e))?;
    Ok(PyBytes::new(py, &out))
}

#[derive(Clone, Copy)]
enum IterKind {
    Default,
    Keys,
    Values,
    Items,
}

fn iter(
    py: Python<'_>,
    buf: Arc<Buf>,
    v: Value<'static>,
    kind: IterKind,
) -> PyResult<Py<ViewIter>> {
    let n = match v {
        Value::Map(m) => m.len(),
        Value::Array(a) => a.len(),
        Value::Vector(x) => x.len(),
        other => return Err(type_error(&other, "is not iterable")),
    };
    Py::new(
        py,
        ViewIter {
            value: v,
            buf,
            kind,
            pos: std::sync::atomic::AtomicUsize::new(0),
            len: n,
        },
    )
}

#[pymethods]
impl View {
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        getitem(py, &self.buf, self.value, key)
    }

    /// `view.get(key, default=None)`: a map's value or an array's element.
    #[pyo3(signature = (key, default=None))]
    fn get(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        get(py, &self.buf, self.value, key, default)
    }

    /// The value at a path below this one, such as `[3].name` (or `default`).
    #[pyo3(signature = (path, default=None))]
    fn get_path(
        &self,
        py: Python<'_>,
        path: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        get_path(py, &self.buf, self.value, path, default)
    }

    fn __len__(&self) -> PyResult<usize> {
        len(self.value)
    }

    fn __bool__(&self) -> PyResult<bool> {
        len(self.value).map(|n| n > 0)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<ViewIter>> {
        iter(py, self.buf.clone(), self.value, IterKind::Default)
    }

    fn __contains__(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<bool> {
        contains(py, self.value, x)
    }

    /// The keys of a map, in order.
    fn keys(&self, py: Python<'_>) -> PyResult<Py<ViewIter>> {
        self.need_map()?;
        iter(py, self.buf.clone(), self.value, IterKind::Keys)
    }

    /// The values of a map, in order.
    fn values(&self, py: Python<'_>) -> PyResult<Py<ViewIter>> {
        self.need_map()?;
        iter(py, self.buf.clone(), self.value, IterKind::Values)
    }

    /// The (key, value) pairs of a map, in order.
    fn items(&self, py: Python<'_>) -> PyResult<Py<ViewIter>> {
        self.need_map()?;
        iter(py, self.buf.clone(), self.value, IterKind::Items)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        eq_value(py, self.value, other, 0)
    }

    fn __ne__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        eq_value(py, self.value, other, 0).map(|b| !b)
    }

    /// The value as plain Python objects (shared values come back shared).
    fn to_python(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let _gc = decode::GcPause::new();
        let mut d = Decoder::new(py, self.buf.bytes());
        d.borrow_memo();
        Ok(d.value(self.value)?.unbind())
    }

    /// The value as JSON text (bytes).
    #[pyo3(signature = (*, indent=None))]
    fn to_json<'py>(
        &self,
        py: Python<'py>,
        indent: Option<usize>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        to_json(py, &self.buf, self.value, indent)
    }

    /// `"map"` or `"array"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.value.type_name()
    }

    /// Byte offset of this value's record in the document (equal offsets:
    /// the same shared value).
    #[getter]
    fn offset(&self) -> Option<usize> {
        match self.value {
            Value::Map(m) => m.offset(),
            Value::Array(a) => a.offset(),
            _ => None,
        }
    }

    fn __repr__(&self) -> String {
        match self.value {
            Value::Map(m) => format!("<roving.View map of {} keys>", m.len()),
            Value::Array(a) => format!("<roving.View array of {} items>", a.len()),
            v => format!("<roving.View {}>", v.type_name()),
        }
    }

    #[classattr]
    const __hash__: Option<Py<PyAny>> = None;
}

impl View {
    fn need_map(&self) -> PyResult<()> {
        match self.value {
            Value::Map(_) => Ok(()),
            other => Err(type_error(&other, "has no keys, values or items")),
        }
    }
}

/// Iterator over a view.
#[pyclass(module = "roving", frozen, weakref)]
pub struct ViewIter {
    value: Value<'static>,
    buf: Arc<Buf>,
    kind: IterKind,
    pos: std::sync::atomic::AtomicUsize,
    len: usize,
}

#[pymethods]
impl ViewIter {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        use std::sync::atomic::Ordering;
        let i = self.pos.fetch_add(1, Ordering::Relaxed);
        if i >= self.len {
            self.pos.store(self.len, Ordering::Relaxed);
            return Ok(None);
        }
        let buf = &self.buf;
        let out = match (self.value, self.kind) {
            (Value::Map(m), IterKind::Default | IterKind::Keys) => {
                pytypes::make_str(py, m.key_at(i).unwrap_or("").as_bytes())?.unbind()
            }
            (Value::Map(m), IterKind::Values) => {
                to_view_or_value(py, buf, m.value_at(i).unwrap_or(Value::Null))?
            }
            (Value::Map(m), IterKind::Items) => {
                let k = pytypes::make_str(py, m.key_at(i).unwrap_or("").as_bytes())?;
                let v = to_view_or_value(py, buf, m.value_at(i).unwrap_or(Value::Null))?;
                PyTuple::new(py, [k.unbind(), v])?.into_any().unbind()
            }
            (Value::Array(a), _) => to_view_or_value(py, buf, a.get(i).unwrap_or(Value::Null))?,
            (Value::Vector(x), _) => scalar_to_py(py, x.get(i).unwrap_or(Scalar::Int(0)))?,
            _ => return Ok(None),
        };
        Ok(Some(out))
    }

    fn __length_hint__(&self) -> usize {
        self.len
            .saturating_sub(self.pos.load(std::sync::atomic::Ordering::Relaxed))
    }
}
