//! Record streams (`docs/FORMAT.md` section 24): the stream header and the
//! head of each frame. The only code that knows where a stream's bytes
//! are; [`crate::stream`] reads and writes streams through it.
//!
//! A stream is a header, `RV` `53` `01` `00` (magic, the stream marker
//! where a document has its version, the stream version, flags), then
//! frames. A frame is one varint, `length << 2 | kind`, then `length`
//! bytes of payload: kind 0 a document, kind 1 dictionary entries (a
//! document too); kinds 2 and 3 are reserved.

use super::tags::MAGIC;
use super::varint::{read_varint, varint_len, write_varint};
use crate::error::{Error, ErrorKind, Result};

/// Byte 2 of a stream, where a document has its version: ASCII `S`.
pub const STREAM_MARK: u8 = 0x53;
/// The stream version this crate reads and writes (byte 3).
pub const STREAM_VERSION: u8 = 1;
/// Length of the stream header: `RV`, [`STREAM_MARK`], [`STREAM_VERSION`],
/// a byte of flags (no flag is defined: it must be 0).
pub const STREAM_HEADER_LEN: usize = 5;
/// The header this crate writes.
pub const STREAM_HEADER: [u8; STREAM_HEADER_LEN] =
    [MAGIC[0], MAGIC[1], STREAM_MARK, STREAM_VERSION, 0];

/// Bits of a frame head that hold the kind.
const KIND_BITS: u32 = 2;
/// Largest payload length a frame head can carry.
pub const MAX_FRAME_LEN: u64 = u64::MAX >> KIND_BITS;

/// What a frame's payload is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// A roving document: one record of the stream (kind 0).
    Document,
    /// Dictionary entries: a roving document that a reader adds to the
    /// stream's dictionary before reading the documents after it (kind 1).
    Dictionary,
}

impl FrameKind {
    fn bits(self) -> u64 {
        match self {
            FrameKind::Document => 0,
            FrameKind::Dictionary => 1,
        }
    }
}

/// True if `buf` starts like a stream (`RV` then the stream marker), so
/// that a reader of one document can say that it was given a stream.
pub fn is_stream(buf: &[u8]) -> bool {
    matches!(buf, [a, b, STREAM_MARK, ..] if [*a, *b] == MAGIC)
}

/// Checks the stream header at the start of `buf`; returns where the
/// first frame starts.
pub fn read_stream_header(buf: &[u8]) -> Result<usize> {
    let n = buf.len().min(STREAM_HEADER_LEN);
    if buf[..n.min(3)] != STREAM_HEADER[..n.min(3)] {
        let what = if buf.len() >= 3 && buf[..2] == MAGIC {
            "a roving document, not a record stream (read it with loads/load)"
        } else {
            "not a roving record stream (it does not start with RV S)"
        };
        return Err(Error::at(ErrorKind::BadMagic, 0).with_message(what));
    }
    if n < STREAM_HEADER_LEN {
        let e = Error::at(ErrorKind::Truncated, buf.len());
        return Err(e.with_message("the stream header is incomplete"));
    }
    if buf[3] != STREAM_VERSION {
        return Err(Error::at(ErrorKind::UnsupportedVersion(buf[3]), 3)
            .with_message("unknown record stream version"));
    }
    if buf[4] != 0 {
        return Err(Error::at(ErrorKind::NonCanonical, 4)
            .with_message(format!("unknown stream flags 0x{:02x}", buf[4])));
    }
    Ok(STREAM_HEADER_LEN)
}

/// Appends the head of a frame of `kind` whose payload is `len` bytes.
#[inline]
pub fn write_frame_head(out: &mut Vec<u8>, kind: FrameKind, len: usize) {
    write_varint(out, ((len as u64) << KIND_BITS) | kind.bits());
}

/// Length of the head of a frame whose payload is `len` bytes.
#[inline]
pub fn frame_head_len(len: usize) -> usize {
    varint_len((len as u64) << KIND_BITS)
}

/// A frame head read at some position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameHead {
    /// A whole frame: its kind, and where its payload starts and ends.
    Whole {
        /// What the payload is.
        kind: FrameKind,
        /// Position of the payload's first byte.
        start: usize,
        /// Position after the payload: where the next frame starts.
        end: usize,
    },
    /// The bytes end inside the frame (its head or its payload): a frame
    /// torn by a crash while it was written, if it is the stream's last.
    Torn,
}

/// Reads the frame head at `pos` (`pos < buf.len()`). A malformed head
/// (an overlong varint, a reserved kind) is an error at `pos`; a head or
/// payload cut by the end of `buf` is [`FrameHead::Torn`]. A frame that
/// starts with a zero byte is torn if every byte after it is zero too (a
/// file extended by a crash before its data reached it), else an error
/// (an empty document is never valid).
#[inline]
pub fn read_frame_head(buf: &[u8], pos: usize) -> Result<FrameHead> {
    let Some((head, start)) = read_varint(buf, pos) else {
        let rest = buf.get(pos..).unwrap_or_default();
        // A varint cut by the end: every byte has its continuation bit.
        if rest.len() < 10 && rest.iter().all(|&b| b & 0x80 != 0) {
            return Ok(FrameHead::Torn);
        }
        return Err(Error::at(ErrorKind::BadVarint, pos).with_message("bad frame head"));
    };
    if head == 0 && buf[pos..].iter().all(|&b| b == 0) {
        return Ok(FrameHead::Torn);
    }
    let kind = match head & ((1 << KIND_BITS) - 1) {
        0 => FrameKind::Document,
        1 => FrameKind::Dictionary,
        k => {
            return Err(
                Error::at(ErrorKind::UnknownTag(k as u8), pos).with_message("reserved frame kind")
            )
        }
    };
    let len = head >> KIND_BITS;
    match usize::try_from(len).ok().and_then(|l| start.checked_add(l)) {
        Some(end) if end <= buf.len() => Ok(FrameHead::Whole { kind, start, end }),
        _ => Ok(FrameHead::Torn),
    }
}
