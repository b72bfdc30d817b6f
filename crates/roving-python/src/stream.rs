//! Record streams (`docs/FORMAT.md` section 24) for Python: `roving.Writer`
//! and `roving.iter_load`. The frames are read and written by the core's
//! `roving::stream`; this module encodes and decodes the documents in
//! them, and moves bytes between files and buffers.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use roving::stream::{
    push_dictionary, push_frame, push_header, Frame, Kind, Reader, StreamDictionary, TornTail,
};

use crate::base_shapes::BaseShapes;
use crate::errors::{decode_error, from_core, prefix_validation};
use crate::typed::Plan;
use crate::{buf::Buf, encode, with_bytes, EncodeOptions};

/// Bytes a `Writer` gathers before it writes them to its file.
const WRITE_BUFFER: usize = 64 * 1024;
/// Bytes `iter_load` reads from a file at a time (more for a larger frame).
const READ_CHUNK: usize = 256 * 1024;

/// Where a `Writer` writes.
enum Sink {
    /// A file it opened from a path (and closes).
    File(File),
    /// A Python binary file object's `write` method (not closed).
    Py {
        write: Py<PyAny>,
        flush: Option<Py<PyAny>>,
    },
    /// After `close()`.
    Closed,
}

/// Writer(file, /, dictionary=None, *, default=None, non_str_keys=False)
///
/// Writes a record stream: many documents in one file, one `write(obj)`
/// each, read back with `roving.iter_load`. `file` is a path or a binary
/// file object. A path is appended to: a new or empty file gets the
/// stream header, an existing stream is continued after its last whole
/// record (a record torn by a crash at its end is cut off first), and a
/// file that is not a stream is a `DecodeError` (left as it was). A file
/// object gets a new stream from its current position, which must be its
/// start (to append, pass the path). Records are gathered in a buffer and
/// written every 64 KiB and by `flush()` and `close()` (and a `with` block's
/// end): a record is in the file once `flush()` returned. `default` and
/// `non_str_keys` are `dumps`'s.
///
/// The stream has a dictionary of its own (FORMAT.md sections 23 and 24):
/// the shapes (key lists) of the records written, up to 64 (and 1 KiB of
/// dictionary: each record read copies and checks it), go into the
/// stream once, in dictionary frames, and later records of those shapes
/// refer to them instead of carrying their keys (a SimpleObject: 59 bytes
/// instead of 78). Scalars are written plain. The stream stays
/// self-contained: `iter_load` learns the dictionary as it reads, and an
/// appending writer learns it from the file. With `dictionary=d` (a
/// `roving.Dictionary`), the records are written against `d` instead (which
/// learns their shapes, unless frozen), and `d`'s entries go into the
/// stream before the records that need them; appending to a stream written
/// with another dictionary is a `DictionaryError`.
#[pyclass(module = "roving", name = "Writer")]
pub struct StreamWriter {
    sink: Sink,
    buf: Vec<u8>,
    options: EncodeOptions,
    records: u64,
    /// The dictionary the records are written against, and how many of
    /// its entries are in the stream already.
    dict: WriterDictionary,
    dict_written: usize,
}

/// The dictionary of a `Writer`.
enum WriterDictionary {
    /// The stream's own (of shapes and recurring value strings, learnt as
    /// a Store's are, up to [`MAX_DICTIONARY`] entries and a base of
    /// `roving::dictionary::AUTO_GROWTH_MAX_BASE` bytes), and its learner.
    Own(roving::Dictionary, Box<roving::dictionary::Learner>),
    /// The user's `roving.Dictionary`.
    Shared(Py<crate::dictionary::Dictionary>),
}

/// Entries past which a `Writer`'s own dictionary stops growing: every
/// document written against it starts from all of them (FORMAT.md 23.3),
/// so a log of ever new shapes must not make it large.
const MAX_DICTIONARY: usize = 64;

impl StreamWriter {
    fn write_out(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        match &mut self.sink {
            Sink::File(f) => f.write_all(&self.buf)?,
            Sink::Py { write, .. } => write_all_py(py, write.bind(py), &self.buf)?,
            Sink::Closed => return Err(closed()),
        }
        self.buf.clear();
        Ok(())
    }

    fn check_open(&self) -> PyResult<()> {
        match self.sink {
            Sink::Closed => Err(closed()),
            _ => Ok(()),
        }
    }
}

fn closed() -> PyErr {
    PyValueError::new_err("write to a closed roving.Writer")
}

/// Writes all of `data` with a Python file object's `write`, which may
/// write less and say how much (a raw file).
fn write_all_py(py: Python<'_>, write: &Bound<'_, PyAny>, data: &[u8]) -> PyResult<()> {
    let mut rest = data;
    while !rest.is_empty() {
        let n = write.call1((PyBytes::new(py, rest),))?;
        match n.extract::<usize>() {
            Ok(0) => {
                return Err(pyo3::exceptions::PyOSError::new_err(format!(
                    "write() wrote 0 of {} bytes",
                    rest.len()
                )))
            }
            Ok(n) if n < rest.len() => rest = &rest[n..],
            _ => return Ok(()),
        }
    }
    Ok(())
}

/// True for the objects worth writing against the stream's dictionary:
/// dicts, lists, tuples and dataclass instances (which hold maps).
fn is_container(obj: &Bound<'_, PyAny>) -> bool {
    use pyo3::types::{PyDict, PyList, PyTuple};
    obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj
            .get_type()
            .hasattr(pyo3::intern!(obj.py(), "__dataclass_fields__"))
            .unwrap_or(false)
}

fn is_path(o: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(o.is_instance_of::<PyString>() || o.hasattr("__fspath__")?)
}

/// Opens the stream file at `path` for appending: cuts a torn last record
/// off, writes the header to a new or empty file, and seeks to the end.
/// Returns the file and the stream's dictionary (of its dictionary frames).
fn open_path(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<(File, roving::Dictionary)> {
    let path: std::path::PathBuf = source.extract()?;
    let oserr = |e: std::io::Error| crate::os_error(py, e, source);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(oserr)?;
    let len = file.metadata().map_err(oserr)?.len();
    let mut dict = roving::Dictionary::new();
    let end = if len == 0 {
        0
    } else {
        // SAFETY: a private read-only map, dropped before this function
        // writes the file; a file changed by another process meanwhile
        // gives a wrong scan, not undefined behaviour here (the scan reads
        // within the map's bounds).
        let m = unsafe { memmap2::Mmap::map(&file) }.map_err(oserr)?;
        let s = roving::stream::scan(&m).map_err(|e| from_core(py, &e))?;
        for r in &s.dictionaries {
            dict.extend_from_delta(&m[r.clone()])
                .map_err(|e| from_core(py, &roving::stream::frame_error(r.start, &e)))?;
        }
        s.end
    };
    if end < roving::layout::STREAM_HEADER_LEN {
        // Empty, or only part of a header (a crash right after creation).
        file.set_len(0).map_err(oserr)?;
        let mut h = Vec::new();
        push_header(&mut h);
        file.write_all(&h).map_err(oserr)?;
    } else {
        if end as u64 != len {
            file.set_len(end as u64).map_err(oserr)?;
        }
        file.seek(SeekFrom::Start(end as u64)).map_err(oserr)?;
    }
    Ok((file, dict))
}

#[pymethods]
impl StreamWriter {
    #[new]
    #[pyo3(signature = (file, /, dictionary=None, *, default=None, non_str_keys=false))]
    fn new(
        file: &Bound<'_, PyAny>,
        dictionary: Option<&Bound<'_, PyAny>>,
        default: Option<&Bound<'_, PyAny>>,
        non_str_keys: bool,
    ) -> PyResult<StreamWriter> {
        let py = file.py();
        let shared = match dictionary.filter(|d| !d.is_none()) {
            None => None,
            Some(d) => Some(d.cast::<crate::dictionary::Dictionary>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "roving.Writer(dictionary=...) takes a roving.Dictionary, not {}",
                    d.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?),
        };
        let mut buf = Vec::with_capacity(WRITE_BUFFER + 1024);
        let mut dict = roving::Dictionary::new();
        let sink = if is_path(file)? {
            let (f, d) = open_path(py, file)?;
            dict = d;
            Sink::File(f)
        } else {
            if file.is_instance(&py.import("io")?.getattr("TextIOBase")?)? {
                return Err(PyTypeError::new_err(
                    "roving.Writer() needs a binary file: open it in binary mode ('wb'), not as text",
                ));
            }
            let write = file.getattr("write").map_err(|_| {
                PyTypeError::new_err(format!(
                    "roving.Writer() takes a path or a binary file object (with a write() method), not {}",
                    file.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                ))
            })?;
            let pos = file
                .call_method0("tell")
                .and_then(|p| p.extract::<u64>())
                .unwrap_or(0);
            if pos != 0 {
                return Err(PyValueError::new_err(
                    "roving.Writer(file) starts a new stream, at the start of a file; \
                     to append to an existing stream, pass its path",
                ));
            }
            push_header(&mut buf);
            let flush = file.getattr("flush").ok().map(Bound::unbind);
            Sink::Py {
                write: write.unbind(),
                flush,
            }
        };
        Ok(StreamWriter {
            sink,
            buf,
            options: EncodeOptions::new(default, non_str_keys),
            records: 0,
            dict_written: dict.len(),
            dict: match shared {
                None => WriterDictionary::Own(dict, Box::default()),
                Some(d) => {
                    // The stream's entries must be the first of `d`'s.
                    let n = dict.len();
                    if n > 0 && d.borrow().inner.id_at(n) != Some(dict.id()) {
                        return Err(crate::errors::decode_error(
                            py,
                            format!(
                                "roving.Writer: the stream was written with another dictionary \
                                 ({n} entries, id {:016x}) than the one given",
                                dict.id()
                            ),
                            None,
                        ));
                    }
                    WriterDictionary::Shared(d.clone().unbind())
                }
            },
        })
    }

    /// write(obj, /) -> None
    ///
    /// Encodes `obj` (as `dumps` does) and appends it as the stream's next record.
    #[pyo3(signature = (obj, /))]
    fn write(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_open()?;
        let buf = &mut self.buf;
        // The entries the document may refer to go first (the last
        // document's shapes, learnt after it).
        // A scalar has no shape to share, and a binding costs 10 bytes.
        let bind = is_container(obj);
        match &mut self.dict {
            WriterDictionary::Own(d, learner) => {
                push_dictionary(buf, d, &mut self.dict_written);
                let full = d.len() >= MAX_DICTIONARY
                    || d.base_len() >= roving::dictionary::AUTO_GROWTH_MAX_BASE;
                if full && !d.is_frozen() {
                    d.freeze();
                }
                let learn = bind.then_some((d, encode::Learn::Bounded(learner)));
                encode::encode_with(obj, &self.options, learn, |doc| {
                    push_frame(buf, Kind::Document, doc)
                })?;
            }
            WriterDictionary::Shared(d) => {
                let mut d = d.bind(obj.py()).borrow_mut();
                let d = &mut *d;
                push_dictionary(buf, &d.inner, &mut self.dict_written);
                encode::encode_with(
                    obj,
                    &self.options,
                    bind.then_some((&mut d.inner, encode::Learn::Shapes(&mut d.learner))),
                    |doc| push_frame(buf, Kind::Document, doc),
                )?;
            }
        }
        self.records += 1;
        if self.buf.len() >= WRITE_BUFFER {
            self.write_out(obj.py())?;
        }
        Ok(())
    }

    /// flush() -> None
    ///
    /// Writes every buffered record to the file (and flushes a file object).
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        self.check_open()?;
        // The shapes the last records taught the dictionary, so that a
        // writer that appends later starts with them.
        match &self.dict {
            WriterDictionary::Own(d, _) => {
                push_dictionary(&mut self.buf, d, &mut self.dict_written)
            }
            WriterDictionary::Shared(d) => push_dictionary(
                &mut self.buf,
                &d.bind(py).borrow().inner,
                &mut self.dict_written,
            ),
        }
        self.write_out(py)?;
        match &mut self.sink {
            Sink::File(f) => f.flush()?,
            Sink::Py {
                flush: Some(flush), ..
            } => {
                flush.bind(py).call0()?;
            }
            Sink::Py { flush: None, .. } => {}
            Sink::Closed => return Err(closed()),
        }
        Ok(())
    }

    /// close() -> None
    ///
    /// Flushes, and closes a file opened from a path (a file object stays
    /// open). Closing again does nothing.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        if matches!(self.sink, Sink::Closed) {
            return Ok(());
        }
        let r = self.flush(py);
        self.sink = Sink::Closed;
        r
    }

    /// Number of records this writer wrote.
    #[getter]
    fn records(&self) -> u64 {
        self.records
    }

    /// True after `close()`.
    #[getter]
    fn closed(&self) -> bool {
        matches!(self.sink, Sink::Closed)
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.borrow().check_open()?;
        Ok(slf)
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(
        &mut self,
        py: Python<'_>,
        _args: &Bound<'_, pyo3::types::PyTuple>,
    ) -> PyResult<()> {
        self.close(py)
    }
}

impl Drop for StreamWriter {
    fn drop(&mut self) {
        // A writer dropped without close() writes what it buffered to a
        // file it opened, as a buffered file does (a file object's own
        // writer is Python code, not run from here).
        if let Sink::File(f) = &mut self.sink {
            let _ = f.write_all(&self.buf);
        }
    }
}

/// Where `iter_load` reads from.
enum Source {
    /// Bytes in memory, read in place.
    Mem(Arc<Buf>),
    /// A file, read a piece at a time: `buf` holds its bytes from file
    /// offset `base` on.
    File {
        file: File,
        buf: Vec<u8>,
        base: u64,
        eof: bool,
    },
}

/// The bytes of a source read so far.
fn source_bytes(source: &Source) -> &[u8] {
    match source {
        Source::Mem(b) => b.bytes(),
        Source::File { buf, .. } => buf,
    }
}

/// The iterator of `iter_load`: the records of a stream, decoded.
#[pyclass(module = "roving", name = "StreamIterator")]
pub struct StreamIter {
    source: Source,
    /// Position of the next frame in the source's bytes (`Mem`), or in
    /// `buf` (`File`).
    pos: usize,
    plan: Option<Arc<Plan>>,
    /// The stream's dictionary, grown by its dictionary frames.
    dicts: StreamDictionary,
    /// The key strings and dict templates of the shapes of its base, kept
    /// from record to record.
    shapes: BaseShapes,
    done: bool,
}

/// The next whole frame's kind and payload bounds in `bytes` from `pos`,
/// `Ok(None)` at the end, `Err(Ok(torn))` at a torn frame. Errors carry
/// offsets relative to `bytes`.
type Step = Result<Option<(Kind, usize, usize, usize)>, Result<TornTail, roving::Error>>;

fn step(bytes: &[u8], pos: usize) -> Step {
    let mut r = Reader::resume(bytes, pos);
    match r.next_frame() {
        Ok(Some(f)) => {
            let end = r.offset();
            Ok(Some((f.kind, f.offset, end - f.payload.len(), end)))
        }
        Ok(None) => match r.torn_tail() {
            Some(t) => Err(Ok(t)),
            None => Ok(None),
        },
        Err(e) => Err(Err(e)),
    }
}

impl StreamIter {
    /// Reads more of a file source (keeping the bytes from `self.pos`);
    /// false at the end of the file.
    fn fill(&mut self, at_least: usize) -> std::io::Result<bool> {
        let Source::File {
            file,
            buf,
            base,
            eof,
        } = &mut self.source
        else {
            return Ok(false);
        };
        if *eof {
            return Ok(false);
        }
        if self.pos > 0 {
            buf.drain(..self.pos);
            *base += self.pos as u64;
            self.pos = 0;
        }
        let want = at_least.max(READ_CHUNK);
        let start = buf.len();
        buf.resize(start + want, 0);
        let mut got = 0;
        while got < want {
            match file.read(&mut buf[start + got..]) {
                Ok(0) => {
                    *eof = true;
                    break;
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    buf.truncate(start + got);
                    return Err(e);
                }
            }
        }
        buf.truncate(start + got);
        Ok(got > 0)
    }

    fn bytes(&self) -> &[u8] {
        source_bytes(&self.source)
    }

    fn base(&self) -> u64 {
        match &self.source {
            Source::Mem(_) => 0,
            Source::File { base, .. } => *base,
        }
    }

    /// The next whole frame (kind, absolute offset, payload range in
    /// `bytes()`), reading more of a file as needed; `None` at the end.
    fn next_frame(&mut self, py: Python<'_>) -> PyResult<Option<(Kind, u64, usize, usize)>> {
        loop {
            match step(self.bytes(), self.pos) {
                Ok(Some((kind, off, start, end))) => {
                    self.pos = end;
                    return Ok(Some((kind, self.base() + off as u64, start, end)));
                }
                Ok(None) => {
                    // The end of the bytes so far.
                    if self.fill(0)? {
                        continue;
                    }
                    return Ok(None);
                }
                Err(Ok(torn)) => {
                    // Perhaps only cut by the end of what was read yet.
                    let need = self.bytes().len() - torn.offset + 16;
                    if self.fill(need)? {
                        continue;
                    }
                    let off = self.base() + torn.offset as u64;
                    warn_torn(py, off, torn.len)?;
                    return Ok(None);
                }
                Err(Err(e)) => {
                    let off = self.base() + e.offset().unwrap_or(0);
                    return Err(from_core(py, &e.with_offset(off as usize)));
                }
            }
        }
    }
}

/// Emits the one warning of a torn last record.
fn warn_torn(py: Python<'_>, offset: u64, len: usize) -> PyResult<()> {
    let cat = crate::errors::torn_record_warning(py)?;
    let msg = std::ffi::CString::new(format!(
        "the record stream ends with a record torn by a crash while it was written \
         (byte {offset}, {len} bytes): every whole record before it was read, the torn \
         one is ignored (a roving.Writer on this path cuts it off before appending)"
    ))
    .expect("no NUL in the message");
    PyErr::warn(py, &cat, &msg, 1)
}

#[pymethods]
impl StreamIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.done {
            return Ok(None);
        }
        loop {
            let next = self.next_frame(py);
            let Some((kind, offset, start, end)) = next.inspect_err(|_| self.done = true)? else {
                self.done = true;
                return Ok(None);
            };
            let frame = Frame {
                kind,
                offset: offset as usize,
                payload: &source_bytes(&self.source)[start..end],
            };
            if kind == Kind::Dictionary {
                if let Err(e) = self.dicts.learn(&frame) {
                    self.done = true;
                    return Err(from_core(py, &e));
                }
                continue;
            }
            let base_len = self.dicts.dictionary().bound_base_len(frame.payload);
            let doc = match self.dicts.open(&frame) {
                Ok(d) => d,
                Err(e) => {
                    self.done = true;
                    return Err(from_core(py, &e));
                }
            };
            let v = match &self.plan {
                None => {
                    let kept = base_len.map(|n| (&mut self.shapes, n));
                    crate::decode_doc(py, &doc, None, kept)
                }
                Some(plan) => crate::typed::decode_typed(py, doc.as_bytes(), doc.root(), plan)
                    .map_err(|e| prefix_validation(py, e, &format!("record at byte {offset}"))),
            };
            return v.map(|o| Some(o.unbind()));
        }
    }
}

/// iter_load(file, /, *, type=None) -> Iterator
///
/// The records of a record stream (written by `roving.Writer`), decoded one
/// at a time; with `type`, each as that type (as `loads(b, type=...)`).
/// `file` is a path (read a piece at a time, never whole), a binary file
/// object (read to its end first) or a bytes-like object. A last record torn
/// by a crash is not read: a `roving.TornRecordWarning` (a RuntimeWarning)
/// says so once, after every whole record. A damaged record anywhere else
/// raises `DecodeError` whose `.offset` is the byte offset of its frame.
#[pyfunction]
#[pyo3(signature = (file, /, *, r#type=None))]
pub(crate) fn iter_load(
    file: &Bound<'_, PyAny>,
    r#type: Option<&Bound<'_, PyAny>>,
) -> PyResult<StreamIter> {
    let py = file.py();
    let plan = match r#type.filter(|t| !t.is_none()) {
        Some(t) => Some(crate::typed::plan_for(t)?),
        None => None,
    };
    let mut it = StreamIter {
        source: Source::Mem(Arc::new(Buf::copy(&[]))),
        pos: 0,
        plan,
        dicts: StreamDictionary::new(),
        shapes: BaseShapes::default(),
        done: false,
    };
    if is_path(file)? {
        let oserr = |e: std::io::Error| crate::os_error(py, e, file);
        let path: std::path::PathBuf = file.extract()?;
        let f = File::open(&path).map_err(oserr)?;
        if f.metadata().map_err(oserr)?.is_dir() {
            let eisdir: i32 = py.import("errno")?.getattr("EISDIR")?.extract()?;
            return Err(oserr(std::io::Error::from_raw_os_error(eisdir)));
        }
        it.source = Source::File {
            file: f,
            buf: Vec::new(),
            base: 0,
            eof: false,
        };
        // The header: the first bytes of the file.
        it.fill(0).map_err(oserr)?;
    } else if let Ok(b) = file.cast::<PyBytes>() {
        it.source = Source::Mem(Arc::new(Buf::from_bytes(b.clone())));
    } else if file.hasattr("read")? && !file.hasattr("__buffer__").unwrap_or(false) {
        if file.is_instance(&py.import("io")?.getattr("TextIOBase")?)? {
            return Err(PyTypeError::new_err(
                "roving.iter_load() needs a binary file: open it in binary mode ('rb'), not as text",
            ));
        }
        let data = file.call_method0("read")?;
        with_bytes(&data, |b, _| {
            it.source = Source::Mem(Arc::new(Buf::copy(b)));
            Ok(())
        })?;
    } else {
        with_bytes(file, |b, _| {
            it.source = Source::Mem(Arc::new(Buf::copy(b)));
            Ok(())
        })?;
    }
    // The header.
    match Reader::new(it.bytes()).map(|r| (r.offset(), r.torn_tail())) {
        Ok((pos, torn)) => {
            it.pos = pos;
            if let Some(t) = torn {
                it.done = true;
                warn_torn(py, t.offset as u64, t.len)?;
            }
        }
        Err(e) => {
            let msg = if e.message().is_some_and(|m| m.contains("roving document")) {
                format!("{e}")
            } else {
                format!("roving.iter_load(): {e}")
            };
            return Err(decode_error(py, msg, e.offset()));
        }
    }
    Ok(it)
}

/// True if `data` starts like a record stream (for the CLI, which knows no
/// byte position).
#[pyfunction]
#[pyo3(signature = (data, /))]
fn _is_stream(data: &Bound<'_, PyAny>) -> PyResult<bool> {
    with_bytes(data, |b, _| Ok(roving::layout::is_stream(b)))
}

/// A frame as `_frames` gives it: kind, offset, end, payload, document.
type PyFrame<'py> = (
    &'static str,
    usize,
    usize,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);
/// What `_frames` returns: the frames, and the torn tail's offset and length.
type PyFrames<'py> = (Vec<PyFrame<'py>>, Option<(usize, usize)>);

/// The frames of a record stream, for the CLI: `([(kind, offset, end,
/// payload, document), ...], torn)`, kind `"document"` or `"dictionary"`,
/// `end` where the next frame starts, `document` the payload as a plain
/// document (for a document written against the stream's dictionary,
/// with the dictionary's records: what readers read), `torn` `(offset,
/// length)` of a torn last frame or None. Every frame is validated: a bad
/// one is a DecodeError at its offset.
#[pyfunction]
#[pyo3(signature = (data, /))]
fn _frames<'py>(data: &Bound<'py, PyAny>) -> PyResult<PyFrames<'py>> {
    let py = data.py();
    with_bytes(data, |b, _| {
        let mut r = Reader::new(b).map_err(|e| from_core(py, &e))?;
        let mut dicts = StreamDictionary::new();
        let mut out = Vec::new();
        while let Some(f) = r.next_frame().map_err(|e| from_core(py, &e))? {
            let payload = PyBytes::new(py, f.payload);
            let (kind, doc) = match f.kind {
                Kind::Document => {
                    let doc = dicts.open(&f).map_err(|e| from_core(py, &e))?;
                    ("document", PyBytes::new(py, doc.as_bytes()))
                }
                Kind::Dictionary => {
                    dicts.learn(&f).map_err(|e| from_core(py, &e))?;
                    ("dictionary", payload.clone())
                }
            };
            out.push((kind, f.offset, r.offset(), payload, doc));
        }
        Ok((out, r.torn_tail().map(|t| (t.offset, t.len))))
    })
}

/// Registers the stream types and functions.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_is_stream, m)?)?;
    m.add_function(wrap_pyfunction!(_frames, m)?)?;
    m.add_class::<StreamWriter>()?;
    m.add_class::<StreamIter>()?;
    m.add_function(wrap_pyfunction!(iter_load, m)?)?;
    Ok(())
}
