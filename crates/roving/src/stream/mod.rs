//! Record streams: many documents in one file, such as a log, that can be
//! appended to and read back one record at a time (`docs/FORMAT.md`
//! section 24).
//!
//! ```
//! use roving::stream::{Reader, Writer};
//! let mut w = Writer::new(Vec::new())?;
//! for n in 0..3 {
//!     w.serialize(&n)?;
//! }
//! let bytes = w.into_inner()?;
//! let mut r = Reader::new(&bytes)?;
//! let mut seen = Vec::new();
//! for frame in &mut r {
//!     seen.push(frame?.open()?.root().as_i64().unwrap());
//! }
//! assert_eq!(seen, [0, 1, 2]);
//! assert!(r.torn_tail().is_none());
//! # Ok::<(), roving::Error>(())
//! ```
//!
//! A stream whose last frame was cut by a crash reads every whole frame,
//! then ends and reports the torn one ([`Reader::torn_tail`]); a damaged
//! frame anywhere else is an error whose offset is the frame's.
//! [`scan`] finds where the whole frames end, for an appender that must cut
//! a torn tail off before it appends ([`open_append`] does it for a file).

use std::io::Write;
use std::ops::Range;

use crate::dictionary::Dictionary;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{
    read_frame_head, read_stream_header, write_frame_head, FrameHead, FrameKind, STREAM_HEADER,
    STREAM_HEADER_LEN,
};
use crate::read::Document;

pub use crate::layout::FrameKind as Kind;

/// One whole frame of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    /// What the payload is.
    pub kind: FrameKind,
    /// Byte offset of the frame (of its head) in the stream.
    pub offset: usize,
    /// The payload: a roving document, not yet validated.
    pub payload: &'a [u8],
}

impl<'a> Frame<'a> {
    /// Validates the payload and opens it as a document; an invalid one is
    /// an error at the frame's offset ([`frame_error`]).
    pub fn open(&self) -> Result<Document<'a>> {
        Document::open(self.payload).map_err(|e| frame_error(self.offset, &e))
    }
}

/// The error `e`, met in the document of the frame at `offset`, as an
/// error of the stream: its offset is the frame's, and its message says
/// where in the document it was.
#[cold]
pub fn frame_error(offset: usize, e: &Error) -> Error {
    let mut msg = format!("in the record at byte {offset} of the stream");
    if let Some(o) = e.offset() {
        msg.push_str(&format!(", byte {o} of its document"));
    }
    if let Some(m) = e.message() {
        msg.push_str(": ");
        msg.push_str(m);
    }
    let mut out = Error::at(e.kind().clone(), offset).with_message(msg);
    if let Some(p) = e.path() {
        out = out.with_path(p);
    }
    out
}

/// The stream's dictionary, as a reader grows it: dictionary frames add
/// their entries ([`StreamDictionary::learn`]), and documents written
/// against it open with it ([`StreamDictionary::open`]).
#[derive(Debug, Default)]
pub struct StreamDictionary {
    dict: Dictionary,
    scratch: Vec<u8>,
}

impl StreamDictionary {
    /// An empty dictionary: the state at the start of a stream.
    pub fn new() -> StreamDictionary {
        StreamDictionary::default()
    }

    /// The entries learnt so far.
    pub fn dictionary(&self) -> &Dictionary {
        &self.dict
    }

    /// Adds the entries of a dictionary frame (a delta, validated first);
    /// an invalid one is an error at the frame's offset.
    pub fn learn(&mut self, frame: &Frame<'_>) -> Result<()> {
        Document::open(frame.payload)
            .map(|_| ())
            .and_then(|()| self.dict.extend_from_delta(frame.payload))
            .map_err(|e| frame_error(frame.offset, &e))
    }

    /// Validates and opens the document of a frame, with the dictionary if
    /// it was written against one (the document's bytes are then a copy
    /// with the dictionary's base, see `Document::open_with`).
    pub fn open<'s>(&'s mut self, frame: &Frame<'s>) -> Result<Document<'s>> {
        Document::open_with(frame.payload, &self.dict, &mut self.scratch)
            .map_err(|e| frame_error(frame.offset, &e))
    }
}

/// Appends a dictionary frame of the entries of `dict` from `*written` on,
/// if there are any, and sets `*written` to `dict.len()`: a writer calls
/// it before each document written against `dict`, so that the entries a
/// document needs are in the stream before it.
pub fn push_dictionary(out: &mut Vec<u8>, dict: &Dictionary, written: &mut usize) {
    if dict.len() > *written {
        push_frame(out, FrameKind::Dictionary, &dict.delta_since(*written));
        *written = dict.len();
    }
}

/// The last frame of a stream, cut by the end of the bytes (a crash while
/// it was written): never read as a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// Byte offset of the torn frame.
    pub offset: usize,
    /// Bytes from there to the end.
    pub len: usize,
}

/// Reads the frames of a stream in order, without copying.
///
/// Iterating gives each whole frame (the payload unvalidated: see
/// [`Frame::open`]), or an error for a malformed frame head, after which
/// it ends. A torn last frame ends the iteration too, without an error:
/// [`Reader::torn_tail`] says so afterwards.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    torn: Option<TornTail>,
    failed: bool,
}

impl<'a> Reader<'a> {
    /// A reader of the stream in `buf`; checks its header. Empty bytes
    /// are an empty stream, and the first bytes of a header alone a stream
    /// torn before its first frame (a crash right after it was created).
    pub fn new(buf: &'a [u8]) -> Result<Reader<'a>> {
        let (pos, torn) = match read_stream_header(buf) {
            Ok(pos) => (pos, None),
            Err(_) if STREAM_HEADER.starts_with(buf) => {
                let torn = (!buf.is_empty()).then_some(TornTail {
                    offset: 0,
                    len: buf.len(),
                });
                (buf.len(), torn)
            }
            Err(e) => return Err(e),
        };
        Ok(Reader {
            buf,
            pos,
            torn,
            failed: false,
        })
    }

    /// A reader of the frames of `buf` from `pos` on, where a frame starts
    /// (the header is not checked): for a reader of a stream read piece by
    /// piece, `buf` the bytes not read yet.
    pub fn resume(buf: &'a [u8], pos: usize) -> Reader<'a> {
        Reader {
            buf,
            pos,
            torn: None,
            failed: false,
        }
    }

    /// Byte offset of the next frame (the end of the last whole frame read).
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The torn last frame, once the iteration reached it.
    pub fn torn_tail(&self) -> Option<TornTail> {
        self.torn
    }

    /// The next whole frame, `None` at the end or at a torn last frame.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'a>>> {
        if self.failed || self.torn.is_some() || self.pos >= self.buf.len() {
            return Ok(None);
        }
        let offset = self.pos;
        match read_frame_head(self.buf, offset) {
            Ok(FrameHead::Whole { kind, start, end }) => {
                self.pos = end;
                Ok(Some(Frame {
                    kind,
                    offset,
                    payload: &self.buf[start..end],
                }))
            }
            Ok(FrameHead::Torn) => {
                self.torn = Some(TornTail {
                    offset,
                    len: self.buf.len() - offset,
                });
                Ok(None)
            }
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Frame<'a>>;

    fn next(&mut self) -> Option<Result<Frame<'a>>> {
        self.next_frame().transpose()
    }
}

/// The frames of a stream, as [`scan`] found them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// Where the whole frames end: the length to cut the stream to before
    /// appending.
    pub end: usize,
    /// Number of document frames.
    pub documents: u64,
    /// The payloads of the dictionary frames, in order.
    pub dictionaries: Vec<Range<usize>>,
    /// The torn last frame, if any.
    pub torn: Option<TornTail>,
}

/// Walks the frame heads of a stream (not validating the documents): where
/// the whole frames end, how many there are, and where the dictionary
/// entries are. A malformed frame head is an error.
pub fn scan(buf: &[u8]) -> Result<Scan> {
    let mut r = Reader::new(buf)?;
    let mut s = Scan::default();
    while let Some(f) = r.next_frame()? {
        match f.kind {
            FrameKind::Document => s.documents += 1,
            FrameKind::Dictionary => {
                let end = r.offset();
                s.dictionaries.push(end - f.payload.len()..end);
            }
        }
    }
    s.end = r.offset();
    s.torn = r.torn_tail();
    Ok(s)
}

/// Appends one frame (head and payload) to `out`.
#[inline]
pub fn push_frame(out: &mut Vec<u8>, kind: FrameKind, payload: &[u8]) {
    write_frame_head(out, kind, payload.len());
    out.extend_from_slice(payload);
}

/// Appends the stream header to `out`.
pub fn push_header(out: &mut Vec<u8>) {
    out.extend_from_slice(&STREAM_HEADER);
}

/// Writes a stream to any [`Write`]: the header first (unless it continues
/// a stream, [`Writer::continuing`]), then one frame per call. Frames are
/// gathered in a buffer and written when it passes 64 KiB, at
/// [`Writer::flush`] and at [`Writer::into_inner`]: a frame is in the
/// output once `flush` returned.
#[derive(Debug)]
pub struct Writer<W: Write> {
    out: Option<W>,
    buf: Vec<u8>,
    /// Entries of the dictionary already in the stream.
    dict_written: usize,
}

/// Size past which a [`Writer`] writes its buffer out.
const WRITER_BUFFER: usize = 64 * 1024;

impl<W: Write> Writer<W> {
    /// A new stream: writes the header.
    pub fn new(out: W) -> Result<Writer<W>> {
        let mut w = Writer::continuing(out);
        push_header(&mut w.buf);
        Ok(w)
    }

    /// A writer that continues a stream whose whole frames end where `out`
    /// is (after [`scan`], and the stream cut to [`Scan::end`]).
    pub fn continuing(out: W) -> Writer<W> {
        Writer {
            out: Some(out),
            buf: Vec::with_capacity(WRITER_BUFFER),
            dict_written: 0,
        }
    }

    /// Sets how many entries of the dictionary the stream holds already (a
    /// continued stream: those of its dictionary frames, see
    /// [`Scan::dictionaries`]).
    pub fn set_dictionary_written(&mut self, entries: usize) {
        self.dict_written = entries;
    }

    /// Writes a document written against `dict` (or any document): first
    /// the entries of `dict` the stream does not hold yet, in a dictionary
    /// frame, so that a reader has every entry the document needs.
    pub fn write_document_with(&mut self, doc: &[u8], dict: &Dictionary) -> Result<()> {
        push_dictionary(&mut self.buf, dict, &mut self.dict_written);
        self.write_document(doc)
    }

    /// Writes `value` against `dict` (growing it by the document's shapes,
    /// unless it is frozen): [`write_document_with`](Self::write_document_with).
    pub fn serialize_with<T: serde::Serialize + ?Sized>(
        &mut self,
        value: &T,
        dict: &mut Dictionary,
    ) -> Result<()> {
        push_dictionary(&mut self.buf, dict, &mut self.dict_written);
        let doc = crate::serde::to_vec_with(value, dict)?;
        self.write_document(&doc)
    }

    /// Writes a document (bytes an `Encoder` or [`to_vec`](crate::to_vec)
    /// made; they are not validated here, a reader validates them).
    pub fn write_document(&mut self, doc: &[u8]) -> Result<()> {
        self.write_frame(FrameKind::Document, doc)
    }

    /// Writes a frame of `kind`.
    pub fn write_frame(&mut self, kind: FrameKind, payload: &[u8]) -> Result<()> {
        if payload.len() < STREAM_HEADER_LEN {
            return Err(Error::new(ErrorKind::BadLength)
                .with_message("a frame's payload is a roving document (4 bytes or more)"));
        }
        push_frame(&mut self.buf, kind, payload);
        if self.buf.len() >= WRITER_BUFFER {
            self.write_out()?;
        }
        Ok(())
    }

    /// Writes `value` as a document ([`to_vec`](crate::to_vec)).
    pub fn serialize<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let doc = crate::to_vec(value)?;
        self.write_document(&doc)
    }

    fn write_out(&mut self) -> Result<()> {
        if let Some(out) = self.out.as_mut() {
            out.write_all(&self.buf)?;
        }
        self.buf.clear();
        Ok(())
    }

    /// Writes every buffered frame to the output and flushes it.
    pub fn flush(&mut self) -> Result<()> {
        self.write_out()?;
        if let Some(out) = self.out.as_mut() {
            out.flush()?;
        }
        Ok(())
    }

    /// The output (buffered frames not written yet).
    pub fn get_ref(&self) -> &W {
        self.out
            .as_ref()
            .expect("the output is taken only by into_inner")
    }

    /// Flushes, and gives the output back.
    pub fn into_inner(mut self) -> Result<W> {
        self.flush()?;
        Ok(self.out.take().expect("the output is taken only once"))
    }
}

impl<W: Write> Drop for Writer<W> {
    fn drop(&mut self) {
        // As BufWriter: write what is buffered, ignoring errors (call
        // `flush` or `into_inner` to see them).
        if self.out.is_some() && !self.buf.is_empty() {
            let _ = self.flush();
        }
    }
}

/// Opens the stream file at `path` to append to it: a new file gets the
/// header; an existing one is scanned ([`scan`]), and a torn last frame
/// is cut off before anything is appended, so that it can never be read
/// as a record. Bytes that are not a stream, or a malformed frame head,
/// are an error and the file is left as it was.
pub fn open_append(path: &std::path::Path) -> Result<(Writer<std::fs::File>, Scan)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let s = scan(&bytes)?;
    if s.end < STREAM_HEADER_LEN {
        // Empty, or a header cut by a crash: start afresh.
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        let mut w = Writer::new(file)?;
        w.flush()?;
        let s = Scan {
            end: STREAM_HEADER_LEN,
            ..Scan::default()
        };
        return Ok((w, s));
    }
    if s.torn.is_some() {
        file.set_len(s.end as u64)?;
    }
    file.seek(SeekFrom::Start(s.end as u64))?;
    Ok((Writer::continuing(file), s))
}
