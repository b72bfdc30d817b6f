//! `roving._roving`: the Python extension of roving (see `python/roving/__init__.py`).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// Raw pointer to a static type object of the C API (`tp!(PyUnicode_Type)`).
/// Defined before the modules, which use it.
macro_rules! tp {
    ($t:ident) => {
        std::ptr::addr_of_mut!(pyo3::ffi::$t)
    };
}

mod base_shapes;
mod buf;
#[cfg(feature = "store")]
mod cluster_store;
mod codecs;
mod decode;
mod dictionary;
mod dictiter;
mod encode;
mod error_path;
mod errors;
mod instattr;
mod out_bytes;
mod prefetch;
mod pytypes;
mod stack;
#[cfg(feature = "store")]
mod store;
mod stream;
mod times;
mod typed;
mod view;
mod walk;

pub use buf::Buf;
pub(crate) use encode::EncodeOptions;
pub use view::{Doc, MapView, View, ViewIter};

/// Extension value of a type id this package does not know. Ids 1 to 63
/// are reserved for the package's own types (1 to 5 in use): applications
/// should use 64 and up.
#[pyclass(module = "roving", frozen)]
pub struct Ext {
    /// Application-defined type id.
    #[pyo3(get)]
    pub type_id: u64,
    /// Payload.
    #[pyo3(get)]
    pub data: Py<PyBytes>,
}

impl Ext {
    pub(crate) fn new(type_id: u64, data: Py<PyBytes>) -> Ext {
        Ext { type_id, data }
    }
}

#[pymethods]
impl Ext {
    /// `data` may be any bytes-like object (copied into `bytes`, as `dumps`
    /// reads it); a `bytes` object is kept as it is.
    #[new]
    fn py_new(type_id: u64, data: &Bound<'_, PyAny>) -> PyResult<Ext> {
        let py = data.py();
        let data = if data.is_exact_instance_of::<PyBytes>() {
            data.cast::<PyBytes>()?.clone().unbind()
        } else if data.is_instance_of::<PyString>() {
            // (with_bytes's message is about documents and from_json.)
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "roving.Ext data must be a bytes-like object, not str (encode the text first)",
            ));
        } else {
            with_bytes(data, |b, _| Ok(PyBytes::new(py, b).unbind()))?
        };
        Ok(Ext { type_id, data })
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Ext>() {
            Ok(o) => {
                let o = o.get();
                o.type_id == self.type_id
                    && o.data.bind(py).as_bytes() == self.data.bind(py).as_bytes()
            }
            Err(_) => false,
        }
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        (self.type_id, self.data.bind(py)).into_pyobject(py)?.hash()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "roving.Ext({}, {})",
            self.type_id,
            self.data.bind(py).repr()?
        ))
    }
}

/// Calls `f` with the bytes of a bytes-like object; `immutable` is true for
/// `bytes` (whose contents cannot change, so the GIL may be released).
pub(crate) fn with_bytes<T>(
    data: &Bound<'_, PyAny>,
    f: impl FnOnce(&[u8], bool) -> PyResult<T>,
) -> PyResult<T> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return f(b.as_bytes(), true);
    }
    if data.is_instance_of::<PyString>() {
        // A str here is most often JSON text (`loads(json_text)`).
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "expected a bytes-like object (a roving document), got str; \
             JSON text converts with roving.from_json()",
        ));
    }
    let b = pyo3::buffer::PyUntypedBuffer::get(data).map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "expected a bytes-like object, got {}",
            data.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    if b.is_c_contiguous() {
        // SAFETY: the export keeps `len_bytes` bytes at `buf_ptr` alive while
        // `b` lives; `f` runs with the GIL held (immutable = false), so no
        // Python code can change them meanwhile.
        let s = unsafe { std::slice::from_raw_parts(b.buf_ptr() as *const u8, b.len_bytes()) };
        return f(s, false);
    }
    let copy = data.call_method0("tobytes")?;
    let copy = copy.cast::<PyBytes>()?;
    f(copy.as_bytes(), true)
}

/// dumps(obj, /, *, default=None, non_str_keys=False, dictionary=None) -> bytes
///
/// Encodes `obj` as a roving document. `default(obj)` is called for objects
/// of unsupported types and its result encoded instead. With
/// `non_str_keys`, dict keys that are ints, enum members, UUIDs, Decimals
/// or dates are written as their text (what typed `loads` reads them back
/// from; an enum's, for an enum whose values are all str or all int).
/// With `dictionary` (a `roving.Dictionary`), maps of a shape it holds
/// and strings it holds refer to it, and it learns the document's other
/// shapes and its value strings that recur across documents (unless
/// frozen): read the result with the same `dictionary=`.
#[pyfunction]
#[pyo3(signature = (obj, /, *, default=None, non_str_keys=false, dictionary=None))]
fn dumps<'py>(
    obj: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    non_str_keys: bool,
    dictionary: Option<&Bound<'py, dictionary::Dictionary>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let options = encode::EncodeOptions::new(default, non_str_keys);
    dumps_with(obj, &options, dictionary)
}

/// [`dumps`] with its options made: what `roving.Encoder.encode` calls too.
pub(crate) fn dumps_with<'py>(
    obj: &Bound<'py, PyAny>,
    options: &EncodeOptions,
    dictionary: Option<&Bound<'py, dictionary::Dictionary>>,
) -> PyResult<Bound<'py, PyBytes>> {
    match dictionary {
        None => encode::dumps_py(obj, options),
        Some(d) => {
            let mut d = d.try_borrow_mut()?;
            let d = &mut *d;
            encode::dumps_py_with(obj, options, &mut d.inner, &mut d.learner)
        }
    }
}

/// loads(data, /, *, type=None, dictionary=None)
///
/// Validates and decodes a roving document from any bytes-like object. With
/// `type`, builds and checks that type (dataclasses, list[...], ...). With
/// `dictionary`, reads a document written against it (or an earlier state
/// of it); a document that needs a dictionary raises DictionaryError
/// without one, or with another.
#[pyfunction]
#[pyo3(signature = (data, /, *, r#type=None, dictionary=None))]
fn loads<'py>(
    data: &Bound<'py, PyAny>,
    r#type: Option<&Bound<'py, PyAny>>,
    dictionary: Option<&Bound<'py, dictionary::Dictionary>>,
) -> PyResult<Bound<'py, PyAny>> {
    let plan = match r#type.filter(|t| !t.is_none()) {
        Some(t) => Some(typed::plan_for(t)?),
        None => None,
    };
    let d = dictionary.map(|d| d.try_borrow()).transpose()?;
    loads_with(data, plan.as_ref(), d.as_deref())
}

/// [`loads`] with its type compiled (`plan`) and its dictionary borrowed:
/// what `roving.Decoder.decode` calls too.
pub(crate) fn loads_with<'py>(
    data: &Bound<'py, PyAny>,
    plan: Option<&std::sync::Arc<typed::Plan>>,
    dict: Option<&dictionary::Dictionary>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = data.py();
    with_bytes(data, |bytes, immutable| {
        let mut scratch;
        let mut kept;
        if let Some(dict) = dict {
            let d = &dict.inner;
            scratch = dictionary::Scratch::take();
            // A bound document, validated after the dictionary's base (in
            // a private copy, with the base).
            // A large one is validated without the GIL, if its bytes cannot
            // change meanwhile (they are copied before they are validated).
            let bound = if immutable && bytes.len() >= 1 << 16 {
                py.detach(|| roving::dictionary::open_bound(bytes, d, &mut scratch))
            } else {
                roving::dictionary::open_bound(bytes, d, &mut scratch)
            };
            let bound = bound.map_err(|e| errors::from_core(py, &e))?;
            if let Some(doc) = bound {
                return match plan {
                    None => {
                        // The shapes of the dictionary's base are kept
                        // from document to document (unless in use by a
                        // decoding this one runs inside of).
                        kept = dict.shapes.try_lock();
                        let shapes = kept
                            .as_deref_mut()
                            .ok()
                            .and_then(|s| d.bound_base_len(bytes).map(|n| (s, n)));
                        decode::loads_opened(py, &doc, shapes)
                    }
                    Some(plan) => typed::decode_typed(py, doc.as_bytes(), doc.root(), plan),
                };
            }
            // A plain document: as without a dictionary.
        }
        if plan.is_some() && !immutable {
            // Typed decoding runs Python code (constructors, default
            // factories, enum lookups) while it reads, and that code (or
            // another thread meanwhile) may write to a mutable buffer after
            // it was validated: decode a private copy instead.
            let copy = bytes.to_vec();
            return decode_py(py, &copy, plan, true);
        }
        decode_py(py, bytes, plan, immutable)
    })
}

/// Decodes roving bytes into Python objects (validating them first); with
/// `plan`, as that type. `detach` allows releasing the GIL while validating
/// (only if `bytes` cannot change meanwhile).
fn decode_py<'py>(
    py: Python<'py>,
    bytes: &[u8],
    plan: Option<&std::sync::Arc<typed::Plan>>,
    detach: bool,
) -> PyResult<Bound<'py, PyAny>> {
    match plan {
        None => decode::loads_slice(py, bytes, detach),
        Some(plan) => {
            let doc = decode::open_validated(py, bytes, detach)?;
            typed::decode_typed(py, bytes, doc.root(), plan)
        }
    }
}

/// Encodes a Python object to roving bytes (for other modules of this crate,
/// e.g. the store).
#[allow(dead_code)]
pub(crate) fn encode_py(obj: &Bound<'_, PyAny>, options: &EncodeOptions) -> PyResult<Vec<u8>> {
    encode::encode_py(obj, options)
}

/// Decodes an already opened document (validated, or trusted by the
/// caller) into Python objects; with `ty`, as that type. For the store.
/// `kept` is, for a document bound to a dictionary, the shapes of its base
/// kept from document to document and the base's length
/// ([`base_shapes`]).
#[allow(dead_code)]
pub(crate) fn decode_doc<'py, 'a>(
    py: Python<'py>,
    doc: &roving::Document<'a>,
    ty: Option<&Bound<'py, PyAny>>,
    kept: Option<(&'a mut base_shapes::BaseShapes, usize)>,
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = doc.as_bytes();
    match ty {
        None => {
            let _gc = decode::GcPause::new();
            let mut d = decode::Decoder::new(py, bytes);
            if let Some((shapes, base_len)) = kept {
                d.keep_base_shapes(shapes, base_len);
            }
            d.borrow_memo();
            // `doc` was validated or opened trusted (never lazily).
            d.read_in_place();
            d.value(doc.root())
        }
        Some(t) => {
            let plan = typed::plan_for(t)?;
            typed::decode_typed(py, bytes, doc.root(), &plan)
        }
    }
}

/// validate(data, /, *, dictionary=None) -> None
///
/// Checks that `data` is a well-formed roving document; raises DecodeError if not.
/// With `dictionary`, a document written against it is checked with it.
///
/// This checks the format. `loads` may still reject a valid document with
/// values Python cannot represent: a timestamp or date outside Python's
/// datetime range, nesting deeper than MAX_DEPTH, a reserved extension
/// type (EXT_DATE, EXT_UUID, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA) with a
/// malformed payload written by another tool. (`dumps` never writes such
/// extension values.)
#[pyfunction]
#[pyo3(signature = (data, /, *, dictionary=None))]
fn validate(
    data: &Bound<'_, PyAny>,
    dictionary: Option<&Bound<'_, dictionary::Dictionary>>,
) -> PyResult<()> {
    let py = data.py();
    let d = dictionary.map(|d| d.try_borrow()).transpose()?;
    with_bytes(data, |b, immutable| match d.as_ref() {
        Some(d) => roving::Document::open_with(b, &d.inner, &mut Vec::new())
            .map(|_| ())
            .map_err(|e| errors::from_core(py, &e)),
        None => decode::open_validated(py, b, immutable).map(|_| ()),
    })
}

/// from_json(data, /) -> bytes
///
/// Converts JSON text (str or UTF-8 bytes) to a roving document. An
/// integer of more than 4300 digits is a DecodeError, as it is a
/// ValueError for json.loads (converting decimal text takes time that
/// grows with the square of the digits).
#[pyfunction]
#[pyo3(signature = (data, /))]
fn from_json<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let py = data.py();
    let run = |b: &[u8], immutable: bool| -> PyResult<Bound<'py, PyBytes>> {
        let r = if immutable && b.len() >= 1 << 16 {
            py.detach(|| roving::json::from_json(b))
        } else {
            roving::json::from_json(b)
        };
        let out = r.map_err(|e| errors::from_core(py, &e))?;
        out_bytes::bytes_of(py, &out)
    };
    if let Ok(s) = data.cast::<PyString>() {
        // A str's UTF-8 form is immutable and lives as long as the str.
        let text = s.to_str().map_err(|_| {
            errors::decode_error(
                py,
                "JSON text has a lone surrogate (not encodable as UTF-8)".into(),
                None,
            )
        })?;
        return run(text.as_bytes(), true);
    }
    with_bytes(data, run)
}

/// The steps of a path such as `[123].name`, parsed by the core's
/// `PathSegment::parse` (the parser `get_path` uses): an int per index
/// (negative: from the end) and a str per key; a malformed path is a
/// ValueError. For the CLI, which walks the steps one by one to say where
/// a path is not found.
#[pyfunction]
#[pyo3(signature = (path, /))]
fn _parse_path(py: Python<'_>, path: &str) -> PyResult<Vec<Py<PyAny>>> {
    use roving::read::PathSegment;
    let segs = PathSegment::parse(path)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    segs.into_iter()
        .map(|s| match s {
            PathSegment::Index(n) => Ok(n.into_pyobject(py)?.into_any().unbind()),
            PathSegment::FromEnd(n) => Ok(n
                .into_pyobject(py)?
                .call_method0(pyo3::intern!(py, "__neg__"))?
                .unbind()),
            PathSegment::Key(k) => Ok(PyString::new(py, &k).into_any().unbind()),
        })
        .collect()
}

/// to_json(data, /, *, indent=None, dictionary=None) -> bytes
///
/// Converts a roving document (bytes-like) to JSON text. Bytes become
/// `{"$base64": ...}`, timestamps RFC 3339 strings, dates `"YYYY-MM-DD"`,
/// UUIDs and Decimals their text (the forms typed `loads` reads back),
/// other extension values `{"$ext": id, "$base64": ...}`, non-finite
/// floats null; an integer of more than 4300 digits is a DecodeError (as
/// for str(int)). `indent` (0 or more spaces) pretty-prints; a negative
/// one is a ValueError. With `dictionary`, reads a document written
/// against it.
#[pyfunction]
#[pyo3(signature = (data, /, *, indent=None, dictionary=None))]
fn to_json<'py>(
    data: &Bound<'py, PyAny>,
    indent: Option<i64>,
    dictionary: Option<&Bound<'py, dictionary::Dictionary>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let py = data.py();
    let indent = view::indent_arg(indent)?;
    let d = dictionary.map(|d| d.try_borrow()).transpose()?;
    let mut scratch = Vec::new();
    with_bytes(data, |b, immutable| {
        let b = dictionary::resolve(py, b, d.as_ref().map(|d| &d.inner), &mut scratch)?;
        let opts = roving::json::JsonOptions {
            indent,
            limits: roving::Limits::for_len(b.len()),
            ext_text: Some(pytypes::ext_json_text),
        };
        let mut out = Vec::new();
        let work = |out: &mut Vec<u8>| -> roving::Result<()> {
            let doc = roving::Document::open(b)?;
            roving::json::write_json(doc.root(), &opts, out)
        };
        let r = if immutable && b.len() >= 1 << 16 {
            py.detach(|| work(&mut out))
        } else {
            work(&mut out)
        };
        r.map_err(|e| errors::from_core(py, &e))?;
        Ok(PyBytes::new(py, &out))
    })
}

/// open(source, /, *, trusted=False, validate=False, dictionary=None) -> Doc
///
/// Opens a document for lazy, zero-copy access. `source` is a path (the file
/// is memory-mapped, not read) or a bytes-like object (`bytes` is used in
/// place, other buffers are copied). A path that cannot be opened raises the
/// OSError builtins.open would (errno, strerror and filename set).
///
/// Opening is O(1) and safe on any bytes: only the header, the trailer and
/// the root are checked, and every read then checks what it touches
/// (indexing, `get`, `in`, `len`, iteration and `get_path` raise
/// `DecodeError` on the malformed bytes they meet; what only a whole pass
/// can tell, such as a reference into another document written before
/// this one in the same file, reads as a wrong value: `validate=True`
/// catches it). Operations on whole values
/// (`to_python`, `to_json`, `==`, encoding a view) validate the whole
/// document first, once. `validate=True` validates it fully at open
/// instead (O(n)). `trusted=True` skips every check: use it only for bytes
/// that roving wrote (your own files), never for data from elsewhere (on
/// bytes that are not a valid document, reads still stay inside the
/// buffer, but give wrong values or raise DecodeError or
/// UnicodeDecodeError).
///
/// A `bytes` object is read in place; any other bytes-like object
/// (bytearray, memoryview, array.array, numpy array, mmap) is copied at
/// open, so changing or resizing it afterwards does not affect the `Doc`.
/// A path is memory-mapped, not copied, so the file must not change while
/// the `Doc` or any view or numpy array taken from it is alive: if it is
/// truncated (by another process, or by this one: `open(p, "wb")`,
/// `Path.write_bytes`), the next read of a page past the new end kills
/// this process with SIGBUS (no exception is possible); if it is rewritten
/// in place, reads see the new bytes, read as after validation (like
/// `trusted=True`: wrong values or errors). To update such a file, write a
/// new one and `os.replace()` it over the old (the map keeps the old file).
/// For a file that another process may change, open its bytes instead:
/// `roving.open(pathlib.Path(p).read_bytes())` (one copy, then immune).
///
/// With `dictionary`, opens a document written against it: such a
/// document is read after the dictionary's base, so it is copied (with
/// the base) at open.
#[pyfunction]
#[pyo3(signature = (source, /, *, trusted=false, validate=false, dictionary=None))]
fn open(
    source: &Bound<'_, PyAny>,
    trusted: bool,
    validate: bool,
    dictionary: Option<&Bound<'_, dictionary::Dictionary>>,
) -> PyResult<Doc> {
    let check = match (trusted, validate) {
        (false, false) => view::Check::Lazy,
        (false, true) => view::Check::Validate,
        (true, false) => view::Check::Trusted,
        (true, true) => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "open(): trusted=True and validate=True exclude each other",
            ))
        }
    };
    let py = source.py();
    let buf = if let Ok(b) = source.cast::<PyBytes>() {
        buf::Buf::from_bytes(b.clone())
    } else if source.is_instance_of::<PyString>() || source.hasattr("__fspath__")? {
        let path: std::path::PathBuf = source.extract()?;
        let oserr = |e: std::io::Error| os_error(py, e, source);
        let file = std::fs::File::open(&path).map_err(oserr)?;
        let meta = file.metadata().map_err(oserr)?;
        if meta.is_dir() {
            // As builtins.open: a directory opens, but is not a file to read.
            let eisdir: i32 = py.import("errno")?.getattr("EISDIR")?.extract()?;
            return Err(oserr(std::io::Error::from_raw_os_error(eisdir)));
        }
        let len = meta.len();
        if len == 0 {
            buf::Buf::copy(&[])
        } else {
            // SAFETY: the map is read-only and private to this process;
            // like every memory map it assumes the file is not truncated or
            // rewritten while mapped (documented on `roving.open`). Reads
            // stay bounds-checked and strings are UTF-8-checked when
            // converted, so a modified file gives wrong values, not
            // undefined behaviour inside this extension.
            let m = unsafe { memmap2::Mmap::map(&file) }.map_err(oserr)?;
            buf::Buf::from_mmap(m, &meta)
        }
    } else {
        with_bytes(source, |b, _| Ok(buf::Buf::copy(b))).map_err(|e| not_a_file(py, e, source))?
    };
    let buf = match dictionary {
        Some(d) if roving::layout::has_binding(buf.bytes()) => {
            let d = d.try_borrow()?;
            let mut scratch = Vec::new();
            let plain = dictionary::resolve(py, buf.bytes(), Some(&d.inner), &mut scratch)?;
            buf::Buf::copy(plain)
        }
        _ => buf,
    };
    Doc::open(py, std::sync::Arc::new(buf), check)
}

/// The `TypeError` of `open(f)` for a file object `f` (as `pickle.load(f)`
/// takes), saying what to pass instead; other errors unchanged.
#[cold]
fn not_a_file(py: Python<'_>, e: PyErr, source: &Bound<'_, PyAny>) -> PyErr {
    if !e.is_instance_of::<pyo3::exceptions::PyTypeError>(py)
        || !source.hasattr("read").unwrap_or(false)
    {
        return e;
    }
    let name = source
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    pyo3::exceptions::PyTypeError::new_err(format!(
        "roving.open() takes a path or a bytes-like object, not a file object ({name}): \
         pass the file's path to map it, or read it with roving.load(f)"
    ))
}

/// An `OSError` as builtins.open raises it: `errno`, `strerror` and
/// `filename` set, and the subclass that `errno` gives
/// (`FileNotFoundError`, `IsADirectoryError`, ...).
/// `filename` is `os.fspath(source)`, as builtins.open gives it.
fn os_error(py: Python<'_>, e: std::io::Error, source: &Bound<'_, PyAny>) -> PyErr {
    let Some(code) = e.raw_os_error() else {
        return e.into();
    };
    let strerror = py
        .import("os")
        .and_then(|os| os.getattr("strerror")?.call1((code,))?.extract::<String>())
        .unwrap_or_else(|_| e.to_string());
    let filename = py
        .import("os")
        .and_then(|os| os.getattr("fspath")?.call1((source,)))
        .unwrap_or_else(|_| source.clone());
    pyo3::exceptions::PyOSError::new_err((code, strerror, filename.unbind()))
}

/// True while a `roving.open()` of this process maps the file of this
/// device and inode number (`os.stat()`'s `st_dev` and `st_ino`): for
/// `roving.dump`, which must not truncate such a file (SIGBUS).
#[pyfunction]
#[pyo3(signature = (dev, ino, /))]
fn _is_mapped(dev: u64, ino: u64) -> bool {
    buf::is_mapped(dev, ino)
}

/// The extension module.
#[pymodule(gil_used = true)]
fn _roving(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    dictiter::init(m.py())?;
    instattr::init(m.py())?;
    m.add_function(wrap_pyfunction!(dictiter::_dict_direct, m)?)?;
    m.add_function(wrap_pyfunction!(instattr::_inline_fields, m)?)?;
    m.add_function(wrap_pyfunction!(_parse_path, m)?)?;
    m.add_function(wrap_pyfunction!(_is_mapped, m)?)?;
    walk::register(m)?;
    stream::register(m)?;
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(from_json, m)?)?;
    m.add_function(wrap_pyfunction!(to_json, m)?)?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_class::<Doc>()?;
    m.add_class::<View>()?;
    m.add_class::<ViewIter>()?;
    m.add_class::<MapView>()?;
    m.add_class::<Ext>()?;
    m.add_class::<dictionary::Dictionary>()?;
    m.add_class::<codecs::Encoder>()?;
    m.add_class::<codecs::Decoder>()?;
    m.add_class::<buf::BufferRef>()?;
    // How this extension was built: "pgo" by scripts/build_pgo.sh (with
    // a profile), else "plain" (or "instrumented", its training build).
    m.setattr("_build", option_env!("ROVING_BUILD").unwrap_or("plain"))?;
    m.add("EXT_DATE", pytypes::EXT_DATE)?;
    m.add("EXT_UUID", pytypes::EXT_UUID)?;
    m.add("EXT_DECIMAL", pytypes::EXT_DECIMAL)?;
    m.add("EXT_TIME", pytypes::EXT_TIME)?;
    m.add("EXT_TIMEDELTA", pytypes::EXT_TIMEDELTA)?;
    m.add("MAX_DEPTH", decode::MAX_DEPTH)?;
    #[cfg(feature = "store")]
    store::register(m)?;
    #[cfg(feature = "store")]
    cluster_store::register(m)?;
    Ok(())
}
