//! Reading a document written against a dictionary: its records follow
//! the dictionary's base (`docs/FORMAT.md` section 23.3), so the base and
//! the records, laid end to end, make a plain document that every reader
//! of this crate reads.

use super::Dictionary;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{read_binding, Binding, BASE_HEADER, HEADER_LEN};
use crate::read::Document;

/// The plain document `buf` reads as with `dict`: `buf` itself if it has
/// no dictionary binding, else the dictionary's base followed by `buf`'s
/// records, built in `scratch`. Checks the binding (the dictionary has the
/// entries the document names, with the same id), not the records.
///
/// ```
/// let dict = roving::Dictionary::new();
/// let plain = roving::to_vec(&[1, 2])?;
/// let mut scratch = Vec::new();
/// assert_eq!(roving::dictionary::resolve(&plain, &dict, &mut scratch)?, &plain[..]);
/// # Ok::<(), roving::Error>(())
/// ```
pub fn resolve<'a>(buf: &'a [u8], dict: &Dictionary, scratch: &'a mut Vec<u8>) -> Result<&'a [u8]> {
    match resolve_bound(buf, dict, scratch)? {
        Some(bound) => Ok(bound.plain),
        None => Ok(buf),
    }
}

/// The plain document of a bound document, as [`resolve`] builds it.
struct Resolved<'a> {
    /// The base, then the bound document's records.
    plain: &'a [u8],
    /// The length of the base.
    base: usize,
    /// Where the bound document's records start (after its binding).
    end: usize,
}

/// [`resolve`] of a bound document; `None` for another one.
fn resolve_bound<'a>(
    buf: &[u8],
    dict: &Dictionary,
    scratch: &'a mut Vec<u8>,
) -> Result<Option<Resolved<'a>>> {
    if buf.len() <= HEADER_LEN || buf[..2] != BASE_HEADER[..2] {
        // Not a bound document (or not a document): the plain checks say why.
        return Ok(None);
    }
    let Some(b) = read_binding(buf)? else {
        return Ok(None);
    };
    let n = check(&b, dict)?;
    let base = dict.base(n);
    scratch.clear();
    scratch.reserve(base.len() + buf.len() - b.end);
    scratch.extend_from_slice(base);
    scratch[..HEADER_LEN].copy_from_slice(&BASE_HEADER);
    scratch.extend_from_slice(&buf[b.end..]);
    Ok(Some(Resolved {
        plain: scratch,
        base: base.len(),
        end: b.end,
    }))
}

/// Validates and opens `buf` with `dict` if it is a bound document (its
/// plain document built in `scratch`, as [`resolve`] does); `None` if it
/// is not bound, which is left to the caller (nothing checked). Errors are
/// those of [`Document::open_with`], with offsets in `buf`.
///
/// The dictionary's base is not validated again: its seed (made once per
/// growth of `dict`) starts the scan after it.
///
/// ```
/// let mut dict = roving::Dictionary::new();
/// dict.add_shape(&["id"])?;
/// let mut enc = roving::Encoder::with_dictionary(&dict);
/// enc.begin_map()?;
/// enc.key("id")?;
/// enc.i64(7)?;
/// enc.end_map()?;
/// let bound = enc.finish()?;
/// let mut scratch = Vec::new();
/// let doc = roving::dictionary::open_bound(&bound, &dict, &mut scratch)?.expect("bound");
/// assert_eq!(doc.root().get("id").and_then(|v| v.as_i64()), Some(7));
/// let plain = roving::to_vec(&7)?;
/// assert!(roving::dictionary::open_bound(&plain, &dict, &mut scratch)?.is_none());
/// # Ok::<(), roving::Error>(())
/// ```
pub fn open_bound<'a>(
    buf: &'a [u8],
    dict: &Dictionary,
    scratch: &'a mut Vec<u8>,
) -> Result<Option<Document<'a>>> {
    let Some(Resolved { plain, base, end }) = resolve_bound(buf, dict, scratch)? else {
        return Ok(None);
    };
    let checked = match dict.base_seed() {
        Some(seed) => crate::validate::validate_after_base(plain, seed, base),
        None => crate::validate::validate_root(plain),
    };
    let (width, pos) = checked.map_err(|e| shift_error(e, base, end))?;
    // SAFETY: `plain` was just validated, and its root is at `pos`.
    unsafe { Document::at_root(plain, width, pos) }.map(Some)
}

/// The entry count of binding `b` if `dict` has those entries.
pub(super) fn check(b: &Binding, dict: &Dictionary) -> Result<usize> {
    let n = usize::try_from(b.count).ok().filter(|&n| n <= dict.len());
    match n {
        Some(n) if dict.id_at(n) == Some(b.id) => Ok(n),
        _ => Err(
            Error::at(ErrorKind::DictionaryMismatch, HEADER_LEN).with_message(format!(
                "it needs {}, this one has {} entries (id {:016x})",
                b.needs(),
                dict.len(),
                dict.id()
            )),
        ),
    }
}

/// An error found in the plain document of a bound one, with its offset
/// moved back into the bound document (`base` = the base's length, `end`
/// = where the bound document's records start).
fn shift_error(e: Error, base: usize, end: usize) -> Error {
    match e.offset() {
        Some(off) if off as usize >= base => {
            let at = off as usize - base + end;
            e.with_offset(at)
        }
        _ => e,
    }
}

impl<'a> Document<'a> {
    /// Validates and opens `buf`, a document written against `dict` (or
    /// against an earlier state of it, or a plain document). A bound
    /// document is read after the dictionary's base, which is copied with
    /// it into `scratch` (reused from call to call); the returned document
    /// borrows `buf` or `scratch`.
    ///
    /// Errors: [`ErrorKind::DictionaryMismatch`] if `dict` lacks the
    /// entries the document names (another dictionary, or a shorter one;
    /// the message names the id and count needed), else those of
    /// [`Document::open`], with offsets in `buf`.
    pub fn open_with(
        buf: &'a [u8],
        dict: &Dictionary,
        scratch: &'a mut Vec<u8>,
    ) -> Result<Document<'a>> {
        match open_bound(buf, dict, scratch)? {
            Some(doc) => Ok(doc),
            None => Document::open(buf),
        }
    }

    /// [`Document::open_lazy`] of a document written against `dict`
    /// (see [`open_with`](Self::open_with)): O(1) for a plain document,
    /// a copy of the base and the document for a bound one.
    pub fn open_lazy_with(
        buf: &'a [u8],
        dict: &Dictionary,
        scratch: &'a mut Vec<u8>,
    ) -> Result<Document<'a>> {
        let plain = resolve(buf, dict, scratch)?;
        Document::open_lazy(plain)
    }

    /// [`Document::open_trusted`] of a document written against `dict`.
    ///
    /// # Safety
    /// As for [`Document::open_trusted`]: `buf` must be a document that
    /// [`open_with`](Self::open_with) accepts with `dict`.
    pub unsafe fn open_trusted_with(
        buf: &'a [u8],
        dict: &Dictionary,
        scratch: &'a mut Vec<u8>,
    ) -> Result<Document<'a>> {
        let plain = resolve(buf, dict, scratch)?;
        // SAFETY: the caller vouches for `buf` with `dict`, so the plain
        // document is valid.
        unsafe { Document::open_trusted(plain) }
    }
}
