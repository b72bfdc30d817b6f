//! The header and the trailer: locating the root record from the end of a
//! document.

use super::tags::{is_root, tag_width, HEADER_LEN, MAGIC, VERSION, VERSION_1, VERSION_2};
use crate::error::{Error, ErrorKind, Result};

/// The error of bytes that do not start with `RV`; where they start like
/// data a program migrating to roving still has (JSON text, a Python
/// pickle, gzip), the message says which.
#[cold]
#[inline(never)]
fn bad_magic(buf: &[u8]) -> Error {
    let e = Error::at(ErrorKind::BadMagic, 0);
    let text = buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(buf);
    let first = text.iter().find(|b| !b" \t\r\n".contains(b));
    let what = match (buf, first) {
        (_, Some(b'{' | b'[' | b'"')) => "it looks like JSON text, which from_json converts",
        ([0x80, 2..=5, ..], _) => "it looks like a Python pickle",
        ([0x1f, 0x8b, ..], _) => "it looks like gzip-compressed data",
        _ => return e,
    };
    e.with_message(what)
}

/// Locates the root record from the end of `buf`: returns its slot width
/// and position. Checks the header too.
pub(crate) fn locate_root(buf: &[u8]) -> Result<(usize, usize)> {
    if buf.len() < 2 || buf[..2] != MAGIC {
        if buf.is_empty() {
            return Err(Error::at(ErrorKind::Truncated, 0).with_message("the input is empty"));
        }
        if buf.len() < 2 && MAGIC.starts_with(buf) {
            return Err(Error::at(ErrorKind::Truncated, buf.len()));
        }
        return Err(bad_magic(buf));
    }
    match buf.get(2) {
        None => return Err(Error::at(ErrorKind::Truncated, buf.len())),
        Some(&(VERSION_1..=VERSION)) => {}
        Some(&v) => return Err(Error::at(ErrorKind::UnsupportedVersion(v), 2)),
    }
    if super::has_binding(buf) {
        // Written against a shared dictionary: readable only through it
        // (`Document::open_with`), never as a plain document.
        return Err(super::dictionary_required(buf));
    }
    let last = match buf.last() {
        Some(&t) if buf.len() > HEADER_LEN && is_root(t) => t,
        _ => {
            return Err(Error::at(
                ErrorKind::BadTrailer,
                buf.len().saturating_sub(1),
            ))
        }
    };
    let width = tag_width(last);
    let pos = buf
        .len()
        .checked_sub(width + 2)
        .filter(|&p| p >= HEADER_LEN && buf[p] == last)
        .ok_or_else(|| Error::at(ErrorKind::BadTrailer, buf.len() - 1))?;
    Ok((width, pos))
}

/// Position of the root record's slot (right after its tag).
#[inline(always)]
pub(crate) const fn root_slot(root_pos: usize) -> usize {
    root_pos + 1
}

/// True if `header` (the first three bytes at some position) is a
/// document header: `RV` and a version this crate reads.
pub(crate) fn is_header(bytes: &[u8]) -> bool {
    matches!(bytes, [m0, m1, v, ..] if [*m0, *m1] == MAGIC && (VERSION_1..=VERSION).contains(v))
}

/// The format version of a document whose header was checked (byte 2).
#[inline(always)]
pub(crate) fn doc_version(buf: &[u8]) -> u8 {
    buf.get(2).copied().unwrap_or(VERSION_1)
}

/// True if the document in `buf` may hold version 2 records.
#[inline(always)]
pub(crate) fn allows_v2(buf: &[u8]) -> bool {
    doc_version(buf) >= VERSION_2
}
