//! Reading documents in place: open a buffer, reach the root in O(1), index
//! arrays in O(1) and look keys up without allocating.

mod array;
mod equal;
mod map;
mod path;
mod value;
mod vector;

pub use array::{Array, ArrayIter};
pub use map::{KeyHandle, Map, MapIter, MapValues};
pub use path::PathSegment;
pub use value::{BigInt, Ext, Value};
pub use vector::{Scalar, Vector, VectorElement};

pub(crate) use map::{map_shape_ref, Shape};
pub(crate) use value::{decode_slot, read_slot, str_record, Slot};
pub(crate) use vector::data_start as vector_data_start;

use crate::error::{Error, ErrorKind, Result};
use crate::format::*;

/// A roving document: a borrowed buffer whose root has been located.
///
/// [`Document::open`] validates the whole buffer in one linear pass first;
/// after it succeeds no accessor can panic or read out of bounds.
#[derive(Clone, Copy, Debug)]
pub struct Document<'a> {
    buf: &'a [u8],
    root: Option<Slot>,
}

/// Locates the root record from the end of `buf`: returns its slot width
/// and position. Checks the header too.
pub(crate) fn locate_root(buf: &[u8]) -> Result<(usize, usize)> {
    if buf.len() < 2 || buf[..2] != MAGIC {
        if buf.len() < 2 && MAGIC.starts_with(buf) {
            return Err(Error::at(ErrorKind::Truncated, buf.len()));
        }
        return Err(Error::at(ErrorKind::BadMagic, 0));
    }
    match buf.get(2) {
        None => return Err(Error::at(ErrorKind::Truncated, buf.len())),
        Some(&VERSION) => {}
        Some(&v) => return Err(Error::at(ErrorKind::UnsupportedVersion(v), 2)),
    }
    let last = match buf.last() {
        Some(&t) if buf.len() > HEADER_LEN && t & !3 == TAG_ROOT => t,
        _ => {
            return Err(Error::at(
                ErrorKind::BadTrailer,
                buf.len().saturating_sub(1),
            ))
        }
    };
    let width = WIDTHS[(last & 3) as usize];
    let pos = buf
        .len()
        .checked_sub(width + 2)
        .filter(|&p| p >= HEADER_LEN && buf[p] == last)
        .ok_or_else(|| Error::at(ErrorKind::BadTrailer, buf.len() - 1))?;
    Ok((width, pos))
}

impl<'a> Document<'a> {
    /// Validates `buf` (one linear pass, no recursion, bounded memory) and
    /// opens it. Any bytes at all give a document or an error.
    pub fn open(buf: &'a [u8]) -> Result<Document<'a>> {
        crate::validate::validate(buf)?;
        // SAFETY: `buf` was just validated.
        unsafe { Document::open_trusted(buf) }
    }

    /// Opens `buf` without validating it: O(1), reading only the trailer.
    ///
    /// # Safety
    /// `buf` must be a document that [`Document::open`] accepts, for example
    /// one written by this crate's encoder or validated earlier and not
    /// modified since. Strings are not re-checked for UTF-8, so an invalid
    /// buffer can produce `&str`s that are not UTF-8 (undefined behaviour);
    /// every other access stays bounds-checked.
    pub unsafe fn open_trusted(buf: &'a [u8]) -> Result<Document<'a>> {
        let (width, pos) = locate_root(buf)?;
        let root = read_slot(buf, pos + 1, width, pos);
        if root.is_none() {
            return Err(Error::at(ErrorKind::BadReference, pos + 1));
        }
        Ok(Document { buf, root })
    }

    /// The root value. O(1).
    #[inline]
    pub fn root(&self) -> Value<'a> {
        value::slot_value(self.buf, self.root)
    }

    /// The document's bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// The value at `path` from the root (e.g. `[123].name`); see [`Value::path`].
    pub fn get_path(&self, path: &str) -> Result<Option<Value<'a>>> {
        self.root().path(path)
    }
}
