//! The dictionary binding (format version 2, `docs/FORMAT.md` section 23):
//! the record that names the shared dictionary a document was written
//! against, and the base (the dictionary's records) a bound document is
//! read after.

use super::tags::{HEADER_LEN, MAGIC, VERSION_2};
use super::varint::read_varint;
use crate::error::{Error, ErrorKind, Result};

/// Dictionary binding (format version 2): varint entry count `n`, then the
/// 8-byte id of the dictionary's first `n` entries, little endian. Only
/// right after the header, at most once.
pub const TAG_DICT_BINDING: u8 = 0x24;

/// The header of a dictionary's base (section 23.3): the records of its
/// entries follow, and the bound document's own records after them.
pub const BASE_HEADER: [u8; 3] = [MAGIC[0], MAGIC[1], VERSION_2];

/// A document's binding: the entry count and id it needs, and where its
/// own records start (right after the binding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Number of dictionary entries the document was written against.
    pub count: u64,
    /// `id_at(count)` of that dictionary.
    pub id: u64,
    /// Offset of the first byte after the binding record.
    pub end: usize,
}

impl Binding {
    /// The dictionary a bound document needs, in words: `dictionary
    /// <id in hex> with <count> entries`.
    pub fn needs(&self) -> String {
        let s = if self.count == 1 { "entry" } else { "entries" };
        format!("dictionary {:016x} with {} {s}", self.id, self.count)
    }
}

/// True if `buf` (whose header was checked) starts with a binding record:
/// a document written against a shared dictionary (FORMAT.md section 23.3).
///
/// ```
/// let mut d = roving::Dictionary::new();
/// d.add_shape(&["id", "name"])?;
/// let mut e = roving::Encoder::with_dictionary(&d);
/// e.begin_map()?;
/// e.key("id")?;
/// e.i64(1)?;
/// e.key("name")?;
/// e.str("x")?;
/// e.end_map()?;
/// let bound = e.finish()?;
/// assert!(roving::layout::has_binding(&bound));
/// assert!(!roving::layout::has_binding(&roving::json::from_json(b"[1]")?));
/// # Ok::<(), roving::Error>(())
/// ```
#[inline(always)]
pub fn has_binding(buf: &[u8]) -> bool {
    buf.get(HEADER_LEN) == Some(&TAG_DICT_BINDING)
}

/// The binding of `buf`, if it has one (`Ok(None)` if it has none); an
/// error if the binding record is malformed or in a version 1 document.
pub fn read_binding(buf: &[u8]) -> Result<Option<Binding>> {
    if !has_binding(buf) {
        return Ok(None);
    }
    if buf.get(2).copied().unwrap_or(0) < VERSION_2 {
        return Err(Error::at(
            ErrorKind::UnknownTag(TAG_DICT_BINDING),
            HEADER_LEN,
        ));
    }
    let at = HEADER_LEN + 1;
    let (count, p) = read_varint(buf, at).ok_or_else(|| {
        // Every byte from `at` on continues the varint: the input ended.
        if buf[at.min(buf.len())..].iter().all(|b| b & 0x80 != 0) {
            Error::at(ErrorKind::Truncated, buf.len())
        } else {
            Error::at(ErrorKind::BadVarint, at)
        }
    })?;
    let id = buf
        .get(p..p + 8)
        .ok_or_else(|| Error::at(ErrorKind::Truncated, buf.len()))?;
    let id = u64::from_le_bytes(id.try_into().unwrap_or([0; 8]));
    Ok(Some(Binding {
        count,
        id,
        end: p + 8,
    }))
}

/// Appends a binding record for `count` entries of id `id` to `out`.
pub fn write_binding(out: &mut Vec<u8>, count: u64, id: u64) {
    let mut b = [0u8; 19];
    let n = binding_into(&mut b, count, id);
    out.extend_from_slice(&b[..n]);
}

/// Writes a binding record for `count` entries of id `id` at the start
/// of `out` (at least 19 bytes long) and returns its length.
pub fn binding_into(out: &mut [u8], count: u64, id: u64) -> usize {
    out[0] = TAG_DICT_BINDING;
    let mut n = 1;
    let mut v = count;
    while v >= 0x80 {
        out[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    out[n] = v as u8;
    n += 1;
    out[n..n + 8].copy_from_slice(&id.to_le_bytes());
    n + 8
}

/// The error of a bound document opened without its dictionary.
#[cold]
pub(crate) fn dictionary_required(buf: &[u8]) -> Error {
    match read_binding(buf) {
        Ok(Some(b)) => Error::at(ErrorKind::DictionaryRequired, HEADER_LEN).with_message(b.needs()),
        Ok(None) => Error::at(ErrorKind::DictionaryRequired, HEADER_LEN),
        Err(e) => e,
    }
}
