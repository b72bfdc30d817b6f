//! Lazy, zero-copy access: `roving.open()` -> [`Doc`], and [`View`]s of
//! maps, arrays and vectors inside it. Views hold an `Arc` of the buffer,
//! so they stay valid after their `Doc` is closed or collected; scalars are
//! returned as Python values.
//!
//! By default a document is opened with `Document::open_lazy` (O(1)): point
//! operations (indexing, `get`, `in`, `len`, iteration, `get_path`) use the
//! core's checked `try_` accessors and raise `DecodeError` on malformed
//! bytes; operations on whole values (`to_python`, `to_json`, `==`,
//! encoding a view) validate the document first, once per buffer (see
//! [`whole`]), so they stay linear and give the results of a validated open.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PySlice, PyString, PyTuple};

use roving::read::{PathSegment, Scalar};
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

/// How `roving.open` checks a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// O(1) open; every read is checked (`Document::open_lazy`).
    Lazy,
    /// Full validation up front (`Document::open`).
    Validate,
    /// No checks (`Document::open_trusted`): bytes the caller vouches for.
    Trusted,
}

/// Validates `bytes` (releasing the GIL for large buffers: the bytes of a
/// `Buf` are immutable) and returns the validated document.
fn validate_bytes<'a>(py: Python<'_>, bytes: &'a [u8]) -> PyResult<Document<'a>> {
    if bytes.len() >= 1 << 16 {
        py.detach(|| Document::open(bytes))
    } else {
        Document::open(bytes)
    }
    .map_err(|e| from_core(py, &e))
}

/// Opens `buf` as a document, checked as `check` says.
pub(crate) fn open_buf(
    py: Python<'_>,
    buf: Arc<Buf>,
    check: Check,
) -> PyResult<(Arc<Buf>, Value<'static>)> {
    let bytes = buf.bytes();
    let root = match check {
        Check::Trusted => {
            // SAFETY: the caller asserted (`trusted=True`, documented as
            // "bytes you wrote yourself") that these are the bytes of a
            // valid document.
            unsafe { Document::open_trusted(bytes) }
                .map_err(|e| from_core(py, &e))?
                .root()
        }
        Check::Validate => {
            let root = validate_bytes(py, bytes)?.root();
            buf.set_validated();
            root
        }
        // O(1): the header, the trailer and the root record are checked.
        Check::Lazy => Document::open_lazy(bytes)
            .and_then(|d| d.try_root())
            .map_err(|e| from_core(py, &e))?,
    };
    // SAFETY: the value borrows `buf`'s bytes and is stored with `buf`.
    let root = unsafe { extend(root) };
    Ok((buf, root))
}

/// `v` (read from `buf`) ready for an operation on the whole value: if it
/// was read lazily, its document is validated first -- once per buffer,
/// the flag is shared by a `Doc` and its views -- and `v` is returned
/// unmarked, so that walking it is linear and unchecked, exactly as after
/// `open(..., validate=True)`. Raises `DecodeError` if validation fails.
pub(crate) fn whole(py: Python<'_>, buf: &Buf, v: Value<'static>) -> PyResult<Value<'static>> {
    if !v.is_lazy() {
        return Ok(v);
    }
    let bytes = buf.bytes();
    let doc = if buf.is_validated() {
        // SAFETY: the flag is set only after these bytes passed full
        // validation, and the bytes of a `Buf` never change.
        unsafe { Document::open_trusted(bytes) }.map_err(|e| from_core(py, &e))?
    } else {
        let doc = validate_bytes(py, bytes)?;
        buf.set_validated();
        doc
    };
    // SAFETY: the value borrows `buf`'s bytes, which the caller holds (in
    // the `Arc` stored next to `v`) for as long as it uses the result.
    Ok(unsafe { extend(doc.adopt(v)) })
}

/// `v` (a whole value of `buf`, see [`whole`]) decoded as the type `ty`,
/// as `roving.loads(b, type=ty)` decodes a document's root.
fn to_typed(
    py: Python<'_>,
    buf: &Buf,
    v: Value<'static>,
    ty: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let plan = crate::typed::plan_for(ty)?;
    crate::typed::decode_typed(py, buf.bytes(), v, &plan).map(Bound::unbind)
}

/// Converts a core error met while reading (a malformed spot of a lazily
/// opened document) to a `DecodeError` with its offset.
fn bad(py: Python<'_>) -> impl Fn(roving::Error) -> PyErr + '_ {
    move |e| from_core(py, &e)
}

/// A document opened for lazy access (`roving.open`).
#[pyclass(module = "roving", frozen, weakref)]
pub struct Doc {
    state: Mutex<Option<(Arc<Buf>, Value<'static>)>>,
    /// How the document was opened.
    check: Check,
}

impl Doc {
    /// A document over `buf`: validated unless `trusted` (for the store).
    pub(crate) fn new(py: Python<'_>, buf: Arc<Buf>, trusted: bool) -> PyResult<Doc> {
        let check = if trusted {
            Check::Trusted
        } else {
            Check::Validate
        };
        Doc::open(py, buf, check)
    }

    /// A document over `buf`, checked as `check` says.
    pub(crate) fn open(py: Python<'_>, buf: Arc<Buf>, check: Check) -> PyResult<Doc> {
        let s = open_buf(py, buf, check)?;
        Ok(Doc {
            state: Mutex::new(Some(s)),
            check,
        })
    }

    /// The root, its document validated (once; see [`whole`]); the state
    /// keeps the unmarked root, so later views read without checks. The
    /// lock is not held while validating (which may release the GIL).
    fn whole_root(&self, py: Python<'_>) -> PyResult<(Arc<Buf>, Value<'static>)> {
        let (b, v) = self.state()?;
        // A lazily opened document is validated even if its root is a
        // scalar (not a lazy value): the whole document is what
        // `validate=True` would have checked.
        if self.check == Check::Lazy && !b.is_validated() {
            validate_bytes(py, b.bytes())?;
            b.set_validated();
        }
        if !v.is_lazy() {
            return Ok((b, v));
        }
        let w = whole(py, &b, v)?;
        if let Some((sb, sv)) = &mut *self.state.lock().unwrap_or_else(|e| e.into_inner()) {
            if Arc::ptr_eq(sb, &b) {
                *sv = w;
            }
        }
        Ok((b, w))
    }

    fn state(&self) -> PyResult<(Arc<Buf>, Value<'static>)> {
        match &*self.state.lock().unwrap_or_else(|e| e.into_inner()) {
            Some((b, v)) => Ok((b.clone(), *v)),
            None => Err(PyValueError::new_err(
                "I/O operation on a closed roving.Doc",
            )),
        }
    }

    /// Runs `f` on the root. The lock is released first: `f` may run Python
    /// code (a key's `__index__`, numpy), which may use this `Doc` again or
    /// let another thread do so; held, the lock would deadlock them.
    fn with<T>(&self, f: impl FnOnce(&Arc<Buf>, Value<'static>) -> PyResult<T>) -> PyResult<T> {
        let (b, v) = self.state()?;
        f(&b, v)
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

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(|_, v| len(py, v))
    }

    fn __contains__(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<bool> {
        let (b, v) = self.state()?;
        contains(py, &b, v, x)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<ViewIter>> {
        let (b, v) = self.state()?;
        iter(py, b, v, IterKind::Default)
    }

    /// The value at a path such as `[123].name`, `$.tags[-1]` (from the
    /// end) or `["odd.key"]` (JSON string syntax), or `default` if absent.
    /// A malformed path raises ValueError.
    #[pyo3(signature = (path, default=None))]
    fn get_path(
        &self,
        py: Python<'_>,
        path: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.with(|b, v| get_path(py, b, v, path, default))
    }

    /// The whole document as Python objects; with `type=T`, decoded as
    /// `T` (a dataclass, `list[T]`...) by the rules of
    /// `roving.loads(b, type=T)`.
    #[pyo3(signature = (*, r#type=None))]
    fn to_python(&self, py: Python<'_>, r#type: Option<Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let (b, v) = self.whole_root(py)?;
        if let Some(t) = r#type.filter(|t| !t.is_none()) {
            return to_typed(py, &b, v, &t);
        }
        let _gc = decode::GcPause::new();
        let mut d = Decoder::new(py, b.bytes());
        d.borrow_memo();
        d.value(v).map(|o| o.unbind())
    }

    /// Validates the whole document now (O(n), once: a document opened
    /// with `validate=True` or `trusted=True`, or validated before, returns
    /// at once); raises `DecodeError` if it is not valid. Afterwards views
    /// taken from `root` read without per-access checks.
    fn validate(&self, py: Python<'_>) -> PyResult<()> {
        self.whole_root(py).map(|_| ())
    }

    /// True if the document was opened lazily and has not been validated since.
    #[getter]
    fn lazy(&self) -> PyResult<bool> {
        self.with(|b, _| Ok(self.check == Check::Lazy && !b.is_validated()))
    }

    /// The whole document as JSON text (bytes).
    #[pyo3(signature = (*, indent=None))]
    fn to_json<'py>(&self, py: Python<'py>, indent: Option<i64>) -> PyResult<Bound<'py, PyBytes>> {
        let indent = indent_arg(indent)?;
        let (b, v) = self.whole_root(py)?;
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
        other => Ok(decode::scalar(py, other, buf.bytes())?.unbind()),
    }
}

/// A read-only numpy array over the vector's bytes (zero copy), or an
/// `array.array` copy if numpy is not installed. Data that is not aligned
/// for its element type in memory (a buffer that does not start at an
/// address aligned to 8, such as a store record in LMDB's map) is copied
/// into an aligned buffer first: numpy arrays are always aligned.
fn vector_view(
    py: Python<'_>,
    buf: &Arc<Buf>,
    vec: roving::Vector<'static>,
) -> PyResult<Py<PyAny>> {
    if let Some(np) = pytypes::numpy_import(py) {
        if cfg!(target_endian = "little") {
            let raw = vec.raw();
            let aligned = (raw.as_ptr() as usize) % vec.elem_type().size() == 0;
            let (buf, off) = if aligned {
                let off = raw.as_ptr() as usize - buf.bytes().as_ptr() as usize;
                (buf.clone(), off)
            } else {
                // `Buf::copy` is 8-byte aligned.
                (Arc::new(Buf::copy(raw)), 0)
            };
            let r = Bound::new(py, BufferRef { buf })?;
            let dt = np.dtypes[vec.elem_type() as usize]
                .as_ref()
                .map(|d| d.bind(py).clone());
            let kw = PyDict::new(py);
            kw.set_item("dtype", dt)?;
            kw.set_item("count", vec.len())?;
            kw.set_item("offset", off)?;
            let a = np.frombuffer.bind(py).call((r,), Some(&kw))?;
            if vec.ndim() > 1 {
                // A shaped vector: the same data seen with its shape (a view).
                return Ok(pytypes::reshape(py, &a, &vec.shape())?.unbind());
            }
            return Ok(a.unbind());
        }
    }
    Ok(pytypes::vector_value_to_py(py, vec)?.unbind())
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
            match m.try_get(k.to_str()?).map_err(bad(py))? {
                Some(x) => to_view_or_value(py, buf, x),
                None => Err(PyKeyError::new_err(key.clone().unbind())),
            }
        }
        Value::Array(a) => {
            if let Ok(s) = key.cast::<PySlice>() {
                let ind = s.indices(array_len(py, a)? as isize)?;
                let mut out = Vec::with_capacity(ind.slicelength);
                let mut i = ind.start;
                for _ in 0..ind.slicelength {
                    let x = a.try_get(i as usize).map_err(bad(py))?;
                    out.push(to_view_or_value(py, buf, x.unwrap_or(Value::Null))?);
                    i += ind.step;
                }
                return Ok(PyList::new(py, out)?.into_any().unbind());
            }
            let i = match index_arg(py, key, "array") {
                Ok(i) => i,
                Err(e) if e.is_instance_of::<PyTypeError>(py) => {
                    return Err(PyTypeError::new_err(
                        "array indices must be integers or slices",
                    ))
                }
                Err(e) => return Err(e),
            };
            let x = match index(py, a, i)? {
                Some(j) => a.try_get(j).map_err(bad(py))?,
                None => None,
            };
            match x {
                Some(x) => to_view_or_value(py, buf, x),
                None => Err(PyIndexError::new_err("array index out of range")),
            }
        }
        // A shaped vector: indexed as the numpy array it reads as (a row,
        // an element, a slice).
        Value::Vector(vec) if vec.ndim() > 1 => {
            Ok(vector_view(py, buf, vec)?.bind(py).get_item(key)?.unbind())
        }
        Value::Vector(vec) => {
            let i = index_arg(py, key, "vector")?;
            match norm_index(i, vec.len()).and_then(|j| vec.get(j)) {
                Some(s) => scalar_to_py(py, s),
                None => Err(PyIndexError::new_err("vector index out of range")),
            }
        }
        other => Err(type_error(&other, "is not subscriptable")),
    }
}

/// An integer index (anything with `__index__`): one beyond the range of
/// `isize` is an IndexError, as it is out of range (list says the same).
fn index_arg(py: Python<'_>, key: &Bound<'_, PyAny>, what: &str) -> PyResult<isize> {
    match key.extract::<isize>() {
        Ok(i) => Ok(i),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(py) => {
            Err(PyIndexError::new_err(format!("{what} index out of range")))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} indices must be integers"
        ))),
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
            Ok(k) => m.try_get(k.to_str()?).map_err(bad(py))?,
            Err(_) => None,
        },
        Value::Array(a) => match key.extract::<isize>() {
            Ok(i) => match index(py, a, i)? {
                Some(j) => a.try_get(j).map_err(bad(py))?,
                None => None,
            },
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
    // A malformed path is a ValueError; malformed bytes met on the way a
    // DecodeError.
    let segs = PathSegment::parse(path).map_err(|e| PyValueError::new_err(e.to_string()))?;
    match v.try_path_segments(&segs).map_err(bad(py))? {
        Some(x) => to_view_or_value(py, buf, x),
        None => Ok(default.unwrap_or_else(|| py.None())),
    }
}

/// The position of Python index `i` (negative: from the end) in `a`, if in
/// range. A nonnegative index is returned as it is: `try_get` checks it
/// against the length as it decodes the header (one decoding, not two).
#[inline]
fn index(py: Python<'_>, a: roving::Array<'_>, i: isize) -> PyResult<Option<usize>> {
    if i >= 0 {
        return Ok(Some(i as usize));
    }
    Ok(norm_index(i, array_len(py, a)?))
}

/// Length of an array, its header checked if it was read lazily.
#[inline]
fn array_len(py: Python<'_>, a: roving::Array<'_>) -> PyResult<usize> {
    // `try_get` past any end checks the header and nothing else.
    a.try_get(usize::MAX).map_err(bad(py))?;
    Ok(a.len())
}

/// Number of entries of a map, its header and shape checked if it was read lazily.
#[inline]
fn map_len(py: Python<'_>, m: roving::Map<'_>) -> PyResult<usize> {
    m.try_value_at(usize::MAX).map_err(bad(py))?;
    Ok(m.len())
}

fn len(py: Python<'_>, v: Value<'_>) -> PyResult<usize> {
    match v {
        Value::Map(m) => map_len(py, m),
        Value::Array(a) => array_len(py, a),
        // A shaped vector's length is its first dimension, as numpy's.
        Value::Vector(x) => Ok(x.shape()[0]),
        other => Err(type_error(&other, "has no len()")),
    }
}

fn contains(py: Python<'_>, buf: &Buf, v: Value<'static>, x: &Bound<'_, PyAny>) -> PyResult<bool> {
    match v {
        Value::Map(m) => match x.cast::<PyString>() {
            Ok(k) => {
                let k = k.to_str()?;
                map_len(py, m)?;
                Ok(m.position(k).is_some())
            }
            Err(_) => Ok(false),
        },
        Value::Array(_) => {
            // A scan comparing whole values: validated first if lazy.
            let Value::Array(a) = whole(py, buf, v)? else {
                return Ok(false);
            };
            for item in a.iter() {
                if eq_value(py, item, x)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        other => Err(type_error(&other, "does not support 'in'")),
    }
}

/// Container pairs (record offset, Python object) already found equal in
/// one comparison: a document's shared values meet the same Python objects
/// again, so a DAG with exponentially many paths compares in time linear in
/// its distinct pairs. The objects are held, so their addresses stay theirs
/// (Python code run by a scalar's `__eq__` could free them).
#[derive(Default)]
struct EqMemo {
    equal: std::collections::HashSet<(usize, usize)>,
    keep: Vec<Py<PyAny>>,
}

/// Compares a value in place with a Python object (Python's `==` rules for
/// scalars; maps equal dicts with the same keys and equal values, arrays
/// equal lists or tuples of equal items).
fn eq_value(py: Python<'_>, v: Value<'static>, o: &Bound<'_, PyAny>) -> PyResult<bool> {
    eq_in(py, v, o, 0, &mut EqMemo::default())
}

fn eq_in(
    py: Python<'_>,
    v: Value<'static>,
    o: &Bound<'_, PyAny>,
    depth: usize,
    memo: &mut EqMemo,
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
        // Both sides validated first if lazy (once per buffer), so that the
        // core's `==` does not validate them again on every comparison.
        let w = whole(py, &other.buf, other.value)?;
        return Ok(v == w);
    }
    let pair = match v {
        Value::Map(m) => m.offset(),
        Value::Array(a) => a.offset(),
        _ => None,
    }
    .map(|at| (at, o.as_ptr() as usize));
    if pair.is_some_and(|p| memo.equal.contains(&p)) {
        return Ok(true);
    }
    let equal = match v {
        Value::Map(m) => {
            let d = match o.cast::<PyDict>() {
                Ok(d) => d,
                Err(_) => return Ok(false),
            };
            if d.len() != m.len() {
                return Ok(false);
            }
            for (k, val) in m.iter() {
                // The key as a checked `str`: in a trusted document (or a
                // file rewritten after validation) it may not be UTF-8,
                // which PyO3's conversion of a `&str` panics on.
                let k = pytypes::make_str(py, k.as_bytes())?;
                match d.get_item(k)? {
                    Some(x) => {
                        if !eq_in(py, val, &x, depth + 1, memo)? {
                            return Ok(false);
                        }
                    }
                    None => return Ok(false),
                }
            }
            true
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
                if !eq_in(py, item, &seq.get_item(i)?, depth + 1, memo)? {
                    return Ok(false);
                }
            }
            true
        }
        // A shaped vector: equal to what has its shape and elements
        // (`numpy.array_equal`; without numpy, its nested rows' `==`).
        Value::Vector(vec) if vec.ndim() > 1 => {
            let a = pytypes::vector_value_to_py(py, vec)?;
            let same = match pytypes::numpy_import(py) {
                Some(_) => py
                    .import("numpy")?
                    .getattr("array_equal")?
                    .call1((a, o))
                    .and_then(|r| r.is_truthy()),
                None => a.eq(o),
            };
            same.unwrap_or(false)
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
            true
        }
        scalar => {
            let mine = decode::scalar(py, scalar, &[])?;
            return mine.eq(o);
        }
    };
    if let (true, Some(pair)) = (equal, pair) {
        memo.equal.insert(pair);
        memo.keep.push(o.clone().unbind());
    }
    Ok(equal)
}

/// A `to_json` indent: a negative one is a ValueError (not an OverflowError
/// from the conversion to an unsigned integer).
pub(crate) fn indent_arg(indent: Option<i64>) -> PyResult<Option<usize>> {
    indent
        .map(|n| {
            usize::try_from(n).map_err(|_| {
                PyValueError::new_err(format!("indent must be 0 or more (spaces), got {n}"))
            })
        })
        .transpose()
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
        ext_text: Some(crate::pytypes::ext_json_text),
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
        Value::Map(m) => map_len(py, m)?,
        Value::Array(a) => array_len(py, a)?,
        Value::Vector(x) => x.shape()[0],
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

    /// The value at a path below this one, such as `[3].name`, `tags[-1]`
    /// (from the end) or `["odd.key"]` (JSON string syntax), or `default`
    /// if absent. A malformed path raises ValueError.
    #[pyo3(signature = (path, default=None))]
    fn get_path(
        &self,
        py: Python<'_>,
        path: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        get_path(py, &self.buf, self.value, path, default)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        len(py, self.value)
    }

    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        len(py, self.value).map(|n| n > 0)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<ViewIter>> {
        iter(py, self.buf.clone(), self.value, IterKind::Default)
    }

    fn __contains__(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<bool> {
        contains(py, &self.buf, self.value, x)
    }

    /// The keys of a map, in order.
    fn keys(&self) -> PyResult<MapView> {
        self.map_view(IterKind::Keys)
    }

    /// The values of a map, in order.
    fn values(&self) -> PyResult<MapView> {
        self.map_view(IterKind::Values)
    }

    /// The (key, value) pairs of a map, in order.
    fn items(&self) -> PyResult<MapView> {
        self.map_view(IterKind::Items)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        eq_value(py, whole(py, &self.buf, self.value)?, other)
    }

    fn __ne__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        eq_value(py, whole(py, &self.buf, self.value)?, other).map(|b| !b)
    }

    /// The value as plain Python objects (shared values come back shared);
    /// with `type=T`, decoded as `T` (a dataclass, `list[T]`...) by the
    /// rules of `roving.loads(b, type=T)`.
    #[pyo3(signature = (*, r#type=None))]
    fn to_python(&self, py: Python<'_>, r#type: Option<Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let v = whole(py, &self.buf, self.value)?;
        if let Some(t) = r#type.filter(|t| !t.is_none()) {
            return to_typed(py, &self.buf, v, &t);
        }
        let _gc = decode::GcPause::new();
        let mut d = Decoder::new(py, self.buf.bytes());
        d.borrow_memo();
        Ok(d.value(v)?.unbind())
    }

    /// `numpy.asarray(view)`: the array of the value as plain Python
    /// objects (`to_python()`), as numpy makes it from a list (an array
    /// of equal vectors gives a 2-D array) or a dict (a 0-d object array);
    /// always a new array, so `copy=False` is a `ValueError`.
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if copy == Some(false) {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "a roving View is converted to a new array: copy=False is not possible",
            ));
        }
        let np = py.import("numpy")?;
        if let Value::Array(a) = self.value {
            if let Some(numbers) = a.numbers() {
                // A number array: no list of Python numbers in between.
                let arr = decode::numbers_array(py, numbers)?;
                return np.getattr("asarray")?.call1((arr, dtype));
            }
        }
        np.getattr("asarray")?
            .call1((self.to_python(py, None)?, dtype))
    }

    /// The value as JSON text (bytes).
    #[pyo3(signature = (*, indent=None))]
    fn to_json<'py>(&self, py: Python<'py>, indent: Option<i64>) -> PyResult<Bound<'py, PyBytes>> {
        let indent = indent_arg(indent)?;
        let v = whole(py, &self.buf, self.value)?;
        to_json(py, &self.buf, v, indent)
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

    fn map_view(&self, kind: IterKind) -> PyResult<MapView> {
        self.need_map()?;
        Ok(MapView {
            value: self.value,
            buf: self.buf.clone(),
            kind,
        })
    }
}

/// The keys, values or items of a map view (`View.keys()`, `.values()`,
/// `.items()`), like a dict's views: iterable any number of times, with
/// `len()` and `in`.
#[pyclass(module = "roving", frozen)]
pub struct MapView {
    value: Value<'static>,
    buf: Arc<Buf>,
    kind: IterKind,
}

#[pymethods]
impl MapView {
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<ViewIter>> {
        iter(py, self.buf.clone(), self.value, self.kind)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        match self.value {
            Value::Map(m) => map_len(py, m),
            _ => Ok(0),
        }
    }

    /// A key (keys), a value equal to `x` (values, a scan), or a
    /// `(key, value)` pair whose key holds an equal value (items).
    fn __contains__(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Value::Map(m) = self.value else {
            return Ok(false);
        };
        match self.kind {
            IterKind::Default | IterKind::Keys => contains(py, &self.buf, self.value, x),
            IterKind::Values => {
                // A scan comparing whole values: validated first if lazy.
                let Value::Map(m) = whole(py, &self.buf, self.value)? else {
                    return Ok(false);
                };
                for (_, v) in m.iter() {
                    if eq_value(py, v, x)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            IterKind::Items => {
                let Ok(pair) = x.cast::<PyTuple>() else {
                    return Ok(false);
                };
                if pair.len() != 2 {
                    return Ok(false);
                }
                let Ok(k) = pair.get_item(0)?.cast_into::<PyString>() else {
                    return Ok(false);
                };
                let Ok(k) = k.to_str() else {
                    return Ok(false);
                };
                match m.try_get(k).map_err(bad(py))? {
                    Some(v) => {
                        let v = whole(py, &self.buf, v)?;
                        eq_value(py, v, &pair.get_item(1)?)
                    }
                    None => Ok(false),
                }
            }
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let name = match self.kind {
            IterKind::Default | IterKind::Keys => "keys",
            IterKind::Values => "values",
            IterKind::Items => "items",
        };
        let items = pyo3::types::PyList::empty(py);
        for x in self.__iter__(py)?.bind(py).try_iter()? {
            items.append(x?)?;
        }
        Ok(format!("roving.MapView.{name}({})", items.repr()?))
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
        // Checked reads (lazily opened documents): malformed bytes raise.
        let key = |m: roving::Map<'static>| -> PyResult<Py<PyAny>> {
            let k = m.try_key_at(i).map_err(bad(py))?.unwrap_or("");
            Ok(pytypes::make_str(py, k.as_bytes())?.unbind())
        };
        let value = |m: roving::Map<'static>| -> PyResult<Py<PyAny>> {
            let v = m.try_value_at(i).map_err(bad(py))?;
            to_view_or_value(py, buf, v.unwrap_or(Value::Null))
        };
        let out = match (self.value, self.kind) {
            (Value::Map(m), IterKind::Default | IterKind::Keys) => key(m)?,
            (Value::Map(m), IterKind::Values) => value(m)?,
            (Value::Map(m), IterKind::Items) => {
                let k = key(m)?;
                let v = value(m)?;
                PyTuple::new(py, [k, v])?.into_any().unbind()
            }
            (Value::Array(a), _) => {
                let v = a.try_get(i).map_err(bad(py))?;
                to_view_or_value(py, buf, v.unwrap_or(Value::Null))?
            }
            // A shaped vector's rows, as numpy iterates its arrays.
            (Value::Vector(x), _) if x.ndim() > 1 => {
                vector_view(py, buf, x)?.bind(py).get_item(i)?.unbind()
            }
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
