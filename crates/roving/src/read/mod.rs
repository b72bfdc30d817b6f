//! Reading documents in place: open a buffer, reach the root in O(1), index
//! arrays in O(1) and look keys up without allocating.

/// The accessors an [`Array`] and a [`Map`] share: both are a document's
/// bytes and a record position carrying the [`value::LAZY`] bit.
macro_rules! record_accessors {
    ($t:ident) => {
        impl<'a> $t<'a> {
            /// Address of the document's bytes (with [`pos`](Self::pos), the
            /// record's identity while the buffer lives).
            pub(crate) fn buf_addr(&self) -> usize {
                self.buf.as_ptr() as usize
            }

            /// Position of the record (0 for the empty immediate).
            #[inline(always)]
            pub(crate) fn pos(&self) -> usize {
                self.at & !LAZY
            }

            /// [`LAZY`] if the document was opened lazily, else 0.
            #[inline(always)]
            pub(crate) fn lazy(&self) -> usize {
                self.at & LAZY
            }

            /// The document's bytes.
            pub(crate) fn buf(&self) -> &'a [u8] {
                self.buf
            }

            /// The empty container (an immediate, no record).
            pub(crate) fn empty() -> $t<'a> {
                $t { buf: &[], at: 0 }
            }
        }

        /// Where the container is, not the document's bytes (a `Value`
        /// of a large document prints in a line).
        impl std::fmt::Debug for $t<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t))
                    .field("offset", &self.pos())
                    .field("lazy", &(self.lazy() != 0))
                    .finish()
            }
        }
    };
}

mod array;
mod compare;
mod convert;
mod equal;
mod map;
mod path;
mod value;
mod vector;

pub use array::{Array, ArrayIter, ArraySlots, ArrayStrings, Numbers};
pub use map::{KeyHandle, Map, MapIter, MapSlots, MapValues};
pub use path::PathSegment;
pub(crate) use value::DecimalMemo;
pub use value::{BigInt, Ext, Value, MAX_DECIMAL_BITS, MAX_DECIMAL_DIGITS};
pub use vector::{Scalar, Vector, VectorElement, VectorIter};

pub(crate) use value::{record_value, special_value, text, LAZY};

use crate::error::{Error, ErrorKind, Result};
use crate::layout::{locate_root, read_slot, root_slot, Slot};

/// A roving document: a borrowed buffer whose root has been located.
///
/// Three ways to open one:
///
/// * [`Document::open`] validates the whole buffer in one linear pass first
///   (section 16 of `docs/FORMAT.md`); after it succeeds no accessor can
///   fail, and strings are handed out without further checks.
/// * [`Document::open_lazy`] is O(1) and safe on any bytes: it checks the
///   header and the trailer only, and every accessor then checks what it
///   reads (see there). For one lookup in a large untrusted buffer.
/// * `unsafe` [`Document::open_trusted`] is O(1) and checks nothing more:
///   for bytes known to be valid.
///
/// No accessor panics or reads out of bounds, whatever the bytes.
#[derive(Clone, Copy)]
pub struct Document<'a> {
    buf: &'a [u8],
    root: Option<Slot>,
    /// `value::LAZY` if opened with `open_lazy`, else 0.
    lazy: usize,
}

/// The document's size and root, not its bytes.
impl std::fmt::Debug for Document<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("len", &self.buf.len())
            .field("root", &self.root)
            .field("lazy", &(self.lazy != 0))
            .finish()
    }
}

impl<'a> Document<'a> {
    /// Validates `buf` (one linear pass, no recursion, bounded memory) and
    /// opens it. Any bytes at all give a document or an error.
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"{"id":7}"#)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// assert_eq!(doc.root().get("id").and_then(|v| v.as_i64()), Some(7));
    /// let err = roving::Document::open(b"{}").unwrap_err();
    /// assert_eq!(err.kind(), &roving::ErrorKind::BadMagic);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn open(buf: &'a [u8]) -> Result<Document<'a>> {
        let (width, pos) = crate::validate::validate_root(buf)?;
        // SAFETY: `buf` was just validated, and its root is at `pos`.
        unsafe { Document::at_root(buf, width, pos) }
    }

    /// The document `buf` whose root record, found by `locate_root`, is
    /// at `pos` with slots of `width` bytes.
    ///
    /// # Safety
    /// As for [`open_trusted`](Self::open_trusted): `buf` must be a valid
    /// document (validated, or vouched for by the caller).
    pub(crate) unsafe fn at_root(buf: &'a [u8], width: usize, pos: usize) -> Result<Document<'a>> {
        let root = read_slot(buf, root_slot(pos), width, pos);
        if root.is_none() {
            return Err(Error::at(ErrorKind::BadReference, root_slot(pos)));
        }
        Ok(Document { buf, root, lazy: 0 })
    }

    /// Opens `buf` in O(1) without validating it, safely: the accessors
    /// check what they touch ("lazy" validation).
    ///
    /// Like [`open_trusted`](Self::open_trusted) it checks only the header,
    /// the trailer and the root slot. Then every read is checked:
    ///
    /// * bounds, of every header, slot, length and string;
    /// * tags: a reference to anything but a value record (an unknown tag,
    ///   a shape, a root) reads as `Null`, a map's shape must be a shape;
    /// * references point strictly backwards (so every walk terminates),
    ///   special constants are 0..=5;
    /// * UTF-8 of every string and key handed out as `&str` (an invalid
    ///   string reads as `Null`, an invalid key as absent or `""`);
    /// * timestamp ranges; and a hash-index entry above the key count ends
    ///   the lookup (absent).
    ///
    /// Malformed spots read as `Null` or absent from the plain accessors
    /// ([`Value::index`], [`Value::get`], [`Map::get`], iterators ...);
    /// the `try_` accessors ([`Value::try_get`], [`Value::try_index`],
    /// [`Map::try_get`], [`Array::try_get`] ...) report them as errors.
    ///
    /// What only [`open`](Self::open) (full validation) establishes: that
    /// records tile the buffer and references land on record starts (a lazy
    /// reader may decode bytes from the middle of a record, safely), the
    /// validity of records nothing reads, canonical forms (varints aside,
    /// which are always checked), distinct keys and a complete hash index
    /// (a lazy lookup may miss a key a scan would find).
    ///
    /// Operations on whole values -- `==`, [`crate::json::to_json`],
    /// [`crate::from_value`], [`crate::Encoder::write_value`] -- validate
    /// the whole document first when it was opened lazily (an O(n) pass,
    /// not cached), so they stay linear; [`Value::validated`] does that once.
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"[{"name":"a"},{"name":"b"}]"#)?;
    /// let doc = roving::Document::open_lazy(&bytes)?; // O(1), no validation
    /// let name = doc.root().try_index(1)?.unwrap().try_get("name")?;
    /// assert_eq!(name.and_then(|v| v.as_str()), Some("b"));
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn open_lazy(buf: &'a [u8]) -> Result<Document<'a>> {
        // SAFETY: the document is marked lazy, so its strings are checked
        // for UTF-8 when read; nothing else relies on validation.
        let doc = unsafe { Document::open_trusted(buf) }?;
        Ok(Document {
            lazy: value::LAZY,
            ..doc
        })
    }

    /// Opens `buf` without validating it: O(1), reading only the trailer.
    ///
    /// # Safety
    /// `buf` must be a document that [`Document::open`] accepts, for example
    /// one written by this crate's encoder or validated earlier and not
    /// modified since. Strings are not re-checked for UTF-8, so an invalid
    /// buffer can produce `&str`s that are not UTF-8 (undefined behaviour);
    /// every other access stays bounds-checked. [`Document::open_lazy`] is
    /// the safe O(1) alternative.
    pub unsafe fn open_trusted(buf: &'a [u8]) -> Result<Document<'a>> {
        let (width, pos) = locate_root(buf)?;
        // SAFETY: the caller's contract.
        unsafe { Document::at_root(buf, width, pos) }
    }

    /// The format version in the header: 1, or 2 for a document that may
    /// hold the records version 2 adds (`docs/FORMAT.md`, section 19).
    ///
    /// ```
    /// let doc = roving::Document::open(b"RV\x01\x1c\x03\x1c")?;
    /// assert_eq!(doc.version(), 1);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn version(&self) -> u8 {
        crate::layout::doc_version(self.buf)
    }

    /// The root value. O(1). (In a lazily opened document, a root that does
    /// not decode reads as `Null`; [`try_root`](Self::try_root) reports it.)
    #[inline]
    pub fn root(&self) -> Value<'a> {
        value::slot_value(self.buf, self.root, self.lazy)
    }

    /// The root value, or why it does not decode (lazily opened documents
    /// only; for others this is `Ok(root())`).
    pub fn try_root(&self) -> Result<Value<'a>> {
        let v = self.root();
        if self.lazy != 0 && v.is_null() {
            let (width, pos) = locate_root(self.buf)?;
            value::check_slot(self.buf, root_slot(pos), width, pos)?;
        }
        Ok(v)
    }

    /// True if the document was opened with [`open_lazy`](Self::open_lazy)
    /// (and not validated since with [`validated`](Self::validated)).
    pub fn is_lazy(&self) -> bool {
        self.lazy != 0
    }

    /// The document, validated: a lazily opened one is validated now (O(n))
    /// and from then on read without checks; others are returned as they are.
    pub fn validated(self) -> Result<Document<'a>> {
        if self.lazy != 0 {
            crate::validate::validate(self.buf)?;
        }
        Ok(Document { lazy: 0, ..self })
    }

    /// `v`, a value read from this document, read as this document reads:
    /// if this document is validated (opened with [`open`](Self::open) or
    /// `open_trusted`, or returned by [`validated`](Self::validated)) and `v`
    /// is an array or map read lazily from the same bytes, the same value
    /// without the lazy flag (no further checks, and whole-value operations
    /// no longer validate first); otherwise `v` unchanged. O(1).
    ///
    /// For callers that validate a lazily opened document once and keep
    /// values read from it before (e.g. views of a Python `roving.open`).
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"[{"name":"a"}]"#)?;
    /// let lazy = roving::Document::open_lazy(&bytes)?;
    /// let v = lazy.root().try_index(0)?.unwrap();
    /// assert!(v.is_lazy());
    /// let valid = lazy.validated()?; // O(n), once
    /// assert!(!valid.adopt(v).is_lazy());
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn adopt(&self, v: Value<'a>) -> Value<'a> {
        if self.lazy != 0 {
            return v;
        }
        match v {
            Value::Array(a) if a.lazy() != 0 && std::ptr::eq(a.buf(), self.buf) => {
                Value::Array(Array::at(a.buf(), a.pos()))
            }
            Value::Map(m) if m.lazy() != 0 && std::ptr::eq(m.buf(), self.buf) => {
                Value::Map(Map::at(m.buf(), m.pos()))
            }
            v => v,
        }
    }

    /// The document's bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// The value at `path` from the root (e.g. `[123].name`); see [`Value::path`].
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"{"users":[{"name":"Ada"},{"name":"Grace"}]}"#)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// assert_eq!(doc.get_path("users[1].name")?.and_then(|v| v.as_str()), Some("Grace"));
    /// assert_eq!(doc.get_path("users[-1].name")?.and_then(|v| v.as_str()), Some("Grace"));
    /// assert!(doc.get_path("users[5]")?.is_none()); // absent
    /// assert!(doc.get_path("users[").is_err()); // malformed path
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn get_path(&self, path: &str) -> Result<Option<Value<'a>>> {
        self.root().path(path)
    }
}
