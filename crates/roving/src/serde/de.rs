//! roving -> `Deserialize`, borrowing strings and bytes from the document.
//!
//! Structs: when a map's keys are exactly the struct's `fields` in order
//! (checked once per shape and cached), the keys are taken from `fields`
//! and only the values are read; any other map goes key by key. The
//! visitor sees the same keys either way.
//!
//! The elements of arrays and maps are handed to serde as [`SlotDe`]s: the
//! slot, resolved to one word, decoded only as far as the requested type
//! needs (a string, an integer, a float, a struct, a sequence); anything
//! else goes through the [`Value`]-based [`Deserializer`], with the same
//! visits either way. Typed decoding reads only validated documents.

use std::cell::{Cell, RefCell};

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::stack;
use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    f_dec_value, read_uint, read_varint, SPECIAL_FALSE, SPECIAL_NULL, SPECIAL_TRUE, TAG_ARRAY,
    TAG_F32, TAG_F64, TAG_F_DEC, TAG_MAP, TAG_SHORT_STR, TAG_STR, WIDTHS,
};
use crate::read::{
    bytes_at, map_shape_ref, record_value, special_value, text, Array, DecimalMemo, Document, Map,
    Scalar, Shape, Value, Vector,
};
use crate::Limits;

/// Maximum nesting depth of typed decoding by [`from_slice`] and
/// [`from_value`] (as serde_json's 128, it bounds the depth of the values
/// made, whose drops recurse too); [`from_value_with`] takes any.
pub const SERDE_MAX_DEPTH: usize = 256;

/// Maximum number of `Option::Some` and newtype levels in a row with no
/// container between them, under any limits. They consume no input, so
/// only a type that wraps itself with no end (`struct W(Option<Box<W>>)`
/// read from anything but `null`) has more: it stops with
/// [`ErrorKind::DepthLimit`] instead of recursing forever.
const MAX_WRAPPER_RUN: usize = 256;

/// `Option::Some` and newtype levels in a run that [`Ctx::wrap`] runs with
/// no check (the common types have one or two around a value).
const WRAPPERS_UNCHECKED: usize = 4;

/// Validates `bytes` and deserializes a `T` from the document, borrowing
/// `&str` and `&[u8]` fields from `bytes`. Documents nested deeper than
/// 256 levels need [`from_value_with`].
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct User<'a> { name: &'a str, langs: Vec<&'a str> }
///
/// let bytes = roving::to_vec(&User { name: "Ada", langs: vec!["en"] })?;
/// let user: User = roving::from_slice(&bytes)?; // borrows from `bytes`
/// assert_eq!(user, User { name: "Ada", langs: vec!["en"] });
/// let err = roving::from_slice::<Vec<User>>(&bytes).unwrap_err();
/// assert_eq!(err.kind(), &roving::ErrorKind::TypeMismatch);
/// # Ok::<(), roving::Error>(())
/// ```
pub fn from_slice<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    let doc = Document::open(bytes)?;
    let mut limits = Limits::for_len(bytes.len());
    limits.max_depth = limits.max_depth.min(SERDE_MAX_DEPTH);
    from_value_with(doc.root(), limits)
}

/// Deserializes a `T` from a value of an open document.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct User<'a> { name: &'a str }
///
/// let bytes = roving::json::from_json(br#"{"users":[{"name":"Ada"},{"name":"Grace"}]}"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// // Decode one part of a large document, without touching the rest.
/// let second: User = roving::from_value(doc.get_path("users[1]")?.unwrap())?;
/// assert_eq!(second, User { name: "Grace" });
/// # Ok::<(), roving::Error>(())
/// ```
pub fn from_value<'de, T: de::Deserialize<'de>>(value: Value<'de>) -> Result<T> {
    let mut limits = Limits::for_len(value.doc_len());
    limits.max_depth = SERDE_MAX_DEPTH;
    from_value_with(value, limits)
}

/// Deserializes a `T` from a value with explicit limits. A value of a
/// lazily opened document is validated first ([`Value::validated`]).
/// Deep levels run on stack segments of their own, so any depth limit is
/// safe on any thread's stack.
///
/// ```
/// let deep = roving::to_vec(&vec![vec![vec![1]]])?;
/// let doc = roving::Document::open(&deep)?;
/// let mut limits = roving::Limits::for_len(deep.len());
/// limits.max_depth = 2;
/// assert!(roving::serde::from_value_with::<Vec<Vec<Vec<u8>>>>(doc.root(), limits).is_err());
/// limits.max_depth = 3;
/// let back: Vec<Vec<Vec<u8>>> = roving::serde::from_value_with(doc.root(), limits)?;
/// assert_eq!(back, [[[1]]]);
/// # Ok::<(), roving::Error>(())
/// ```
pub fn from_value_with<'de, T: de::Deserialize<'de>>(
    value: Value<'de>,
    limits: Limits,
) -> Result<T> {
    let value = value.validated()?;
    let buf = match value {
        Value::Array(a) => a.buf(),
        Value::Map(m) => m.buf(),
        _ => &[],
    };
    let ctx = Ctx::new(buf, limits.max_values, limits.max_depth);
    T::deserialize(Deserializer { value, ctx: &ctx })
}

/// A serde `Deserializer` over one [`Value`] (made by [`from_value_with`]
/// for the value and each one below it).
pub(crate) struct Deserializer<'de, 'b> {
    value: Value<'de>,
    /// State shared by the whole decoding.
    ctx: &'b Ctx<'de>,
}

/// Number of entries of the [`Ctx`] shape cache (a power of two).
const SHAPE_CACHE: usize = 16;

/// State shared by one typed decoding: the document, the value budget,
/// the levels left and a small cache of which map shapes spell exactly a
/// struct's field list.
struct Ctx<'de> {
    /// The validated document every array and map decoded is in.
    buf: &'de [u8],
    /// Values left to visit.
    budget: Cell<u64>,
    /// Levels left below the container being visited.
    depth: Cell<usize>,
    /// Levels allowed in all (`depth` at the root).
    max_depth: usize,
    /// `Option::Some` and newtype levels entered since the innermost
    /// container (see [`wrap`](Self::wrap)).
    wrapped: Cell<usize>,
    /// Direct-mapped by shape position: `(shape + 1, fields address,
    /// fields length, equal)`; a zero shape marks an empty entry.
    shapes: [Cell<(usize, usize, usize, bool)>; SHAPE_CACHE],
    /// Decimal text of the big integers beyond 128 bits visited so far.
    decimals: RefCell<DecimalMemo>,
}

impl<'de> Ctx<'de> {
    fn new(buf: &'de [u8], budget: u64, depth: usize) -> Ctx<'de> {
        Ctx {
            buf,
            budget: Cell::new(budget),
            depth: Cell::new(depth),
            max_depth: depth,
            wrapped: Cell::new(0),
            shapes: Default::default(),
            decimals: Default::default(),
        }
    }

    /// Takes from the budget what copying out `len` bytes of payload (a
    /// string, byte string, big integer or vector) costs: a value per
    /// [`BYTES_PER_VALUE`](crate::BYTES_PER_VALUE) bytes (the value itself
    /// was taken by its container).
    #[inline(always)]
    fn payload(&self, len: usize) -> Result<()> {
        let cost = (len / crate::BYTES_PER_VALUE) as u64;
        if cost != 0 {
            match self.budget.get().checked_sub(cost) {
                Some(rest) => self.budget.set(rest),
                None => return Err(expansion_limit()),
            }
        }
        Ok(())
    }

    /// The decimal text of a big integer beyond 128 bits, its length taken
    /// from the budget before it is converted.
    fn decimal(&self, b: crate::read::BigInt<'de>) -> Result<String> {
        self.payload(DecimalMemo::max_len(b))?;
        Ok(self.decimals.borrow_mut().text(b)?.to_owned())
    }

    /// Enters a container of `len` values: one level down, `len` values
    /// taken from the budget. Returns the levels to restore with
    /// [`leave`](Self::leave) once the container is visited.
    #[inline(always)]
    fn enter(&self, len: usize) -> Result<usize> {
        let depth = self.depth.get();
        if depth == 0 {
            return Err(depth_limit());
        }
        let left = self.budget.get();
        match left.checked_sub(len as u64) {
            Some(rest) => self.budget.set(rest),
            None => return Err(expansion_limit()),
        }
        self.depth.set(depth - 1);
        self.wrapped.set(0);
        Ok(depth)
    }

    /// Runs `f`, the visit of an `Option::Some` or a newtype struct: a
    /// level that consumes no input, so at most [`MAX_WRAPPER_RUN`] of
    /// them in a row (a container in between starts a new run). Past
    /// [`WRAPPERS_UNCHECKED`] in a run, each is on enough stack
    /// ([`stack::at_level`], counting the containers above); the first few
    /// fit in the stack a container level leaves them.
    #[inline(always)]
    fn wrap<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<R> {
        let run = self.wrapped.get();
        self.wrapped.set(run + 1);
        let r = if run < WRAPPERS_UNCHECKED {
            f()
        } else {
            self.wrap_deep(run, f)
        };
        self.wrapped.set(run);
        r
    }

    /// [`wrap`](Self::wrap) past [`WRAPPERS_UNCHECKED`] in a run.
    #[inline(never)]
    fn wrap_deep<R>(&self, run: usize, f: impl FnOnce() -> Result<R>) -> Result<R> {
        if run >= MAX_WRAPPER_RUN {
            return Err(wrapper_limit());
        }
        let level = self.max_depth.saturating_sub(self.depth.get());
        stack::at_level(level.saturating_add(run), f)
    }

    #[inline(always)]
    fn leave(&self, depth: usize) {
        self.depth.set(depth);
    }

    /// Runs `f`, the visit of a container entered with [`enter`](Self::enter)
    /// (which returned `depth`), on enough stack ([`stack::at_level`]).
    #[inline(always)]
    fn at_level<R>(&self, depth: usize, f: impl FnOnce() -> R) -> R {
        stack::at_level(self.max_depth.saturating_sub(depth), f)
    }

    /// Whether the shape at `shape` is known (cached by
    /// [`keys_are`](Self::keys_are)) to spell exactly `fields`, in order.
    #[inline(always)]
    fn known_struct(&self, shape: usize, fields: &'static [&'static str]) -> bool {
        let (s, f, n, equal) = self.shapes[(shape ^ (shape >> 4)) & (SHAPE_CACHE - 1)].get();
        equal && (s, f, n) == (shape + 1, fields.as_ptr() as usize, fields.len())
    }

    /// Whether the keys of `shape` are exactly `fields`, in order (cached
    /// per shape and field list).
    #[inline]
    fn keys_are(&self, shape: &Shape, fields: &'static [&'static str]) -> bool {
        let at = shape.pos;
        let tag = (at + 1, fields.as_ptr() as usize, fields.len());
        let cell = &self.shapes[(at ^ (at >> 4)) & (SHAPE_CACHE - 1)];
        let (s, f, n, equal) = cell.get();
        if (s, f, n) == tag {
            return equal;
        }
        let equal = shape.count == fields.len()
            && fields
                .iter()
                .enumerate()
                .all(|(i, f)| shape.key_bytes(self.buf, i) == Some(f.as_bytes()));
        cell.set((tag.0, tag.1, tag.2, equal));
        equal
    }

    /// The array `a` (of this document) to `visitor`, as a sequence.
    #[inline]
    fn visit_array<V: Visitor<'de>>(&self, a: Array<'de>, visitor: V) -> Result<V::Value> {
        self.same_doc(a.buf())?;
        let (at, len, width) = a.parts().unwrap_or((0, 0, 1));
        let depth = self.enter(len)?;
        let mut seq = ArraySeq {
            ctx: self,
            slots: Slots::new(self.buf, at, len, width, a.pos()),
            i: 0,
        };
        let r = self.at_level(depth, || visitor.visit_seq(&mut seq));
        self.leave(depth);
        let v = r?;
        // A visitor that stopped early (a tuple, an array, a struct read
        // from an array) left elements unread: an error, as in serde_json,
        // rather than dropping them.
        if seq.i < len {
            return Err(de::Error::invalid_length(len, &ExpectedLen(seq.i)));
        }
        Ok(v)
    }

    /// The byte string `b` to `visitor`, as a sequence of `u8`s (each a
    /// value of the budget, as a vector's elements).
    #[inline(never)]
    fn visit_byte_seq<V: Visitor<'de>>(&self, b: &'de [u8], visitor: V) -> Result<V::Value> {
        self.payload(b.len().saturating_mul(crate::BYTES_PER_VALUE))?;
        let mut seq = ByteSeq { b, i: 0 };
        let v = visitor.visit_seq(&mut seq)?;
        if seq.i < b.len() {
            return Err(de::Error::invalid_length(b.len(), &ExpectedLen(seq.i)));
        }
        Ok(v)
    }

    /// The map `m` (of this document) to `visitor`: through [`StructAcc`]
    /// if its keys are `fields` in that order, else key by key.
    #[inline]
    fn visit_map<V: Visitor<'de>>(
        &self,
        m: Map<'de>,
        fields: Option<&'static [&'static str]>,
        visitor: V,
    ) -> Result<V::Value> {
        self.same_doc(m.buf())?;
        if let Some(fields) = fields {
            // A shape known to spell `fields` (the common case): its count
            // is `fields.len()`, so only the map's header is read.
            let (buf, pos) = (m.buf(), m.pos());
            if let (Some(&tag), Some((shape, values))) = (buf.get(pos), map_shape_ref(buf, pos)) {
                if self.known_struct(shape, fields) {
                    let depth = self.enter(fields.len())?;
                    let width = WIDTHS[(tag & 3) as usize];
                    let r = self.at_level(depth, || {
                        visitor.visit_map(StructAcc {
                            ctx: self,
                            fields,
                            slots: Slots::new(buf, values, fields.len(), width, pos),
                            next: 0,
                            pending: false,
                        })
                    });
                    self.leave(depth);
                    return r;
                }
            }
        }
        let Some((shape, values, width)) = m.parts() else {
            let depth = self.enter(0)?;
            let r = visitor.visit_map(MapAcc {
                ctx: self,
                shape: None,
                slots: Slots::new(self.buf, 0, 0, 1, 0),
                next: 0,
                pending: None,
            });
            self.leave(depth);
            return r;
        };
        let depth = self.enter(shape.count)?;
        let slots = Slots::new(self.buf, values, shape.count, width, m.pos());
        let r = self.at_level(depth, || match fields {
            Some(fields) if self.keys_are(&shape, fields) => visitor.visit_map(StructAcc {
                ctx: self,
                fields,
                slots,
                next: 0,
                pending: false,
            }),
            _ => visitor.visit_map(MapAcc {
                ctx: self,
                shape: Some(shape),
                slots,
                next: 0,
                pending: None,
            }),
        });
        self.leave(depth);
        r
    }

    /// Checks that a container's bytes are this decoding's document (they
    /// always are: every container comes from it), so that its strings
    /// are known valid.
    #[inline(always)]
    fn same_doc(&self, buf: &[u8]) -> Result<()> {
        if buf.is_empty() || std::ptr::eq(buf, self.buf) {
            Ok(())
        } else {
            Err(other_document())
        }
    }
}

/// The value slots of one array or map.
#[derive(Clone, Copy)]
struct Slots<'de> {
    /// The document.
    buf: &'de [u8],
    /// Position of the first slot.
    at: usize,
    /// Number of slots.
    len: usize,
    /// Slot width: 1, 2, 4 or 8.
    width: usize,
    /// Position of the container record.
    base: usize,
    /// `len` if 8 bytes can be read at every slot, `at + len * width + 8
    /// <= buf.len()` (all but the containers at the very end of `buf`), else 0.
    wide: usize,
}

impl<'de> Slots<'de> {
    fn new(buf: &'de [u8], at: usize, len: usize, width: usize, base: usize) -> Slots<'de> {
        let end = len
            .checked_mul(width)
            .and_then(|n| n.checked_add(at))
            .and_then(|n| n.checked_add(8));
        Slots {
            buf,
            at,
            len,
            width,
            base,
            wide: if end.is_some_and(|end| end <= buf.len()) {
                len
            } else {
                0
            },
        }
    }

    /// Slot `i`, resolved (see [`resolve`]; `null` past the end).
    #[inline(always)]
    fn get(&self, i: usize) -> u64 {
        let raw = if i < self.wide {
            let at = self.at + i * self.width;
            // SAFETY: `i < self.wide` means `i < self.len` and `self.at +
            // self.len * self.width + 8 <= self.buf.len()` (computed without
            // overflow in `new`), so the 8 bytes at `at` are inside `self.buf`.
            // One unaligned load with no bounds check and no branch on the
            // width: measured 7.71M -> 7.56M instructions per borrowed decode
            // of 1000people (the checked `read_uint` inlined at every slot).
            let word = unsafe { self.buf.as_ptr().add(at).cast::<u64>().read_unaligned() };
            u64::from_le(word) & (u64::MAX >> (64 - 8 * self.width as u32))
        } else {
            self.narrow(i)
        };
        resolve(raw, self.width, self.base)
    }

    /// [`get`](Self::get)'s raw slot where 8 bytes may not be readable.
    #[inline(never)]
    fn narrow(&self, i: usize) -> u64 {
        if i >= self.len {
            return NULL_SLOT;
        }
        read_uint(self.buf, self.at + i * self.width, self.width).unwrap_or(NULL_SLOT)
    }
}

/// A value slot resolved to one word, in the slot format with absolute
/// references and 64-bit immediates: a record at `p` is `p << 2`, an
/// integer `i` is `i << 2 | 1` (slots hold at most 62-bit integers), a
/// special constant `s` is `s << 2 | 3`; a reference that does not point
/// before its container reads as `Null`.
#[inline(always)]
fn resolve(raw: u64, width: usize, base: usize) -> u64 {
    if raw & 1 == 0 {
        let p = (raw >> 2) as usize;
        let t = if raw & 2 == 0 {
            base.wrapping_sub(p)
        } else {
            p
        };
        if t < base {
            (t as u64) << 2
        } else {
            NULL_SLOT
        }
    } else {
        // Sign-extends an integer from the slot width (and leaves the
        // specials of a valid document as they are).
        let sh = 64 - width as u32 * 8;
        (((raw << sh) as i64) >> sh) as u64
    }
}

/// The bytes of the record at `p` with tag `tag` if it is a long-form
/// string record (out of line: the short form is the common one).
#[inline(never)]
fn long_str(buf: &[u8], tag: u8, p: usize) -> Option<&[u8]> {
    if tag != TAG_STR {
        return None;
    }
    let (len, at) = read_varint(buf, p + 1)?;
    bytes_at(buf, at, len)
}

/// The resolved slot of `null`.
const NULL_SLOT: u64 = (SPECIAL_NULL << 2) | 3;

#[cold]
fn expansion_limit() -> Error {
    Error::new(ErrorKind::ExpansionLimit)
}

#[cold]
fn depth_limit() -> Error {
    Error::new(ErrorKind::DepthLimit)
}

#[cold]
fn wrapper_limit() -> Error {
    depth_limit().with_message(format!(
        "more than {MAX_WRAPPER_RUN} Option::Some and newtype levels in a row \
         (a type that wraps itself?)"
    ))
}

#[cold]
fn other_document() -> Error {
    Error::custom("a container of another document")
}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::TypeMismatch).with_message(msg)
    }
}

impl Deserializer<'_, '_> {
    fn unexpected(&self) -> de::Unexpected<'_> {
        match self.value {
            Value::Null => de::Unexpected::Unit,
            Value::Bool(b) => de::Unexpected::Bool(b),
            Value::Int(i) => de::Unexpected::Signed(i),
            Value::UInt(u) => de::Unexpected::Unsigned(u),
            Value::Float(f) => de::Unexpected::Float(f),
            Value::Str(s) => de::Unexpected::Str(s),
            Value::Bytes(b) => de::Unexpected::Bytes(b),
            Value::Array(_) | Value::Vector(_) => de::Unexpected::Seq,
            Value::Map(_) => de::Unexpected::Map,
            _ => de::Unexpected::Other(self.value.type_name()),
        }
    }
}

/// `deserialize_*` methods that visit one variant of [`Value`] directly and
/// defer everything else to `deserialize_any`.
macro_rules! scalar_fast {
    ($($($f:ident),+ => $pat:pat => $visit:ident($x:expr);)*) => {$($(
        #[inline]
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.value {
                $pat => visitor.$visit($x),
                _ => self.deserialize_any(visitor),
            }
        }
    )+)*};
}

impl<'de> de::Deserializer<'de> for Deserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => visitor.visit_i64(i),
            Value::UInt(u) => visitor.visit_u64(u),
            Value::BigInt(b) if b.magnitude.len() <= 16 => {
                let n = b.to_num();
                if let Ok(x) = i128::try_from(&n) {
                    visitor.visit_i128(x)
                } else if let Ok(x) = u128::try_from(&n) {
                    visitor.visit_u128(x)
                } else {
                    visitor.visit_string(n.to_string())
                }
            }
            // Past 128 bits, its decimal text (what serde_json's `Value`
            // takes for such a number).
            Value::BigInt(b) => visitor.visit_string(self.ctx.decimal(b)?),
            Value::Float(f) => visitor.visit_f64(f),
            Value::Str(s) => {
                self.ctx.payload(s.len())?;
                visitor.visit_borrowed_str(s)
            }
            Value::Bytes(b) => {
                self.ctx.payload(b.len())?;
                visitor.visit_borrowed_bytes(b)
            }
            Value::Timestamp(t) => visitor.visit_string(t.to_rfc3339()),
            Value::Ext(e) => {
                let depth = self.ctx.enter(2)?;
                let id = match i64::try_from(e.type_id) {
                    Ok(i) => Value::Int(i),
                    Err(_) => Value::UInt(e.type_id),
                };
                let r = visitor.visit_seq(PairSeq {
                    items: [id, Value::Bytes(e.data)].into_iter(),
                    ctx: self.ctx,
                });
                self.ctx.leave(depth);
                r
            }
            Value::Vector(v) => {
                // Its elements are values.
                self.ctx
                    .payload(v.len().saturating_mul(crate::BYTES_PER_VALUE))?;
                let mut seq = VectorSeq {
                    v,
                    i: 0,
                    ctx: self.ctx,
                };
                let r = visitor.visit_seq(&mut seq)?;
                if seq.i < v.len() {
                    return Err(de::Error::invalid_length(v.len(), &ExpectedLen(seq.i)));
                }
                Ok(r)
            }
            Value::Array(a) => self.ctx.visit_array(a, visitor),
            Value::Map(m) => self.ctx.visit_map(m, None, visitor),
        }
    }

    /// Maps whose keys are exactly `fields`, in order (checked once per
    /// shape), hand the visitor the names from `fields` instead of reading
    /// each key from the shape; the visitor sees the same keys either way.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            Value::Map(m) => self.ctx.visit_map(m, Some(fields), visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => self.ctx.wrap(|| visitor.visit_some(self)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.ctx.wrap(|| visitor.visit_newtype_struct(self))
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = match self.value {
            Value::Bytes(b) => b,
            Value::Str(s) => s.as_bytes(),
            Value::Vector(v) if v.elem_type() == crate::ElemType::U8 => v.raw(),
            _ => return self.deserialize_any(visitor),
        };
        self.ctx.payload(b.len())?;
        visitor.visit_borrowed_bytes(b)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            Value::Str(s) => visitor.visit_enum(s.into_deserializer()),
            Value::Map(m) if m.len() == 1 => {
                let depth = self.ctx.enter(1)?;
                let r = self.ctx.at_level(depth, || {
                    visitor.visit_enum(EnumAcc {
                        variant: m.key_at(0).unwrap_or(""),
                        de: Deserializer {
                            value: m.value_at(0).unwrap_or(Value::Null),
                            ctx: self.ctx,
                        },
                    })
                });
                self.ctx.leave(depth);
                r
            }
            _ => Err(de::Error::invalid_type(
                self.unexpected(),
                &"an enum (string or one-entry map)",
            )),
        }
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Int(i) => visitor.visit_i128(i as i128),
            Value::UInt(u) => visitor.visit_i128(u as i128),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Int(i) if i >= 0 => visitor.visit_u128(i as u128),
            Value::UInt(u) => visitor.visit_u128(u as u128),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    // The common cases of the scalar requests; anything else goes through
    // `deserialize_any` (same visits either way).
    scalar_fast! {
        deserialize_bool => Value::Bool(b) => visit_bool(b);
        deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64,
        deserialize_u8, deserialize_u16, deserialize_u32, deserialize_u64 => Value::Int(i) => visit_i64(i);
    }

    /// A big integer is visited as the nearest float, as serde_json reads
    /// an integer too large for 64 bits into an `f64`.
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Float(f) => visitor.visit_f64(f),
            Value::BigInt(b) => visitor.visit_f64(bigint_to_float(b)),
            _ => self.deserialize_any(visitor),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Str(s) => {
                self.ctx.payload(s.len())?;
                visitor.visit_borrowed_str(s)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    /// A float that is a binary32 exactly (NaN payloads included) is
    /// visited as one, so that a signalling NaN stays signalling.
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Float(f) => match crate::format::f64_to_f32_exact(f) {
                Some(x) => visitor.visit_f32(x),
                None => visitor.visit_f64(f),
            },
            Value::BigInt(b) => visitor.visit_f32(bigint_to_float(b)),
            _ => self.deserialize_any(visitor),
        }
    }

    /// A byte string is also a sequence of its bytes (a field that was
    /// `serde_bytes` when written and is a plain `Vec<u8>` now), as
    /// serde_json reads the array of numbers it writes for bytes.
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Array(a) => self.ctx.visit_array(a, visitor),
            Value::Bytes(b) => self.ctx.visit_byte_seq(b, visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    /// As `deserialize_seq`: a byte string is the sequence of its bytes
    /// (`[u8; N]`, tuples).
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Bytes(b) => self.ctx.visit_byte_seq(b, visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    serde::forward_to_deserialize_any! {
        char unit unit_struct map identifier
    }
}

/// The float (`f64` or `f32`) nearest to a big integer, infinite past the
/// float's range: correctly rounded from the decimal text, which is at most
/// 311 digits (a magnitude of more than 129 bytes is past 2^1032, infinite
/// in both).
fn bigint_to_float<F: std::str::FromStr + From<f32>>(b: crate::read::BigInt) -> F {
    let inf = if b.negative {
        f32::NEG_INFINITY
    } else {
        f32::INFINITY
    };
    if b.magnitude.len() > 129 {
        return F::from(inf);
    }
    b.to_decimal().parse().unwrap_or(F::from(inf))
}

/// One element of an array or value of a map, as a resolved slot (see
/// [`resolve`]): the common requests read it directly, the others through
/// the [`Value`]-based [`Deserializer`].
struct SlotDe<'de, 'b> {
    x: u64,
    ctx: &'b Ctx<'de>,
}

impl<'de, 'b> SlotDe<'de, 'b> {
    /// The slot's record: its tag and position.
    #[inline(always)]
    fn record(&self) -> Option<(u8, usize)> {
        if self.x & 3 != 0 {
            return None;
        }
        let p = (self.x >> 2) as usize;
        Some((*self.ctx.buf.get(p)?, p))
    }

    /// The slot as a [`Value`].
    fn value(&self) -> Value<'de> {
        let x = self.x;
        match x & 3 {
            0 => record_value(self.ctx.buf, (x >> 2) as usize, 0),
            1 => Value::Int((x as i64) >> 2),
            3 => special_value(x >> 2),
            _ => Value::Null,
        }
    }

    /// `f` of the [`Value`]-based deserializer of the slot: the slow path,
    /// out of line so that the fast ones stay small.
    #[inline(never)]
    fn slow<R>(self, f: impl FnOnce(Deserializer<'de, 'b>) -> R) -> R {
        f(Deserializer {
            value: self.value(),
            ctx: self.ctx,
        })
    }
}

/// `deserialize_*` methods of [`SlotDe`] for integers: an immediate is
/// visited directly, anything else goes through [`SlotDe::slow`].
macro_rules! slot_int {
    ($($f:ident),*) => {$(
        #[inline]
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if self.x & 3 == 1 {
                visitor.visit_i64((self.x as i64) >> 2)
            } else {
                self.slow(|d| d.$f(visitor))
            }
        }
    )*};
}

/// `deserialize_*` methods of [`SlotDe`] that go through [`SlotDe::slow`].
macro_rules! via_value {
    ($($f:ident($($a:ident: $t:ty),*);)*) => {$(
        fn $f<V: Visitor<'de>>(self, $($a: $t,)* visitor: V) -> Result<V::Value> {
            self.slow(|d| d.$f($($a,)* visitor))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for SlotDe<'de, '_> {
    type Error = Error;

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((tag, p)) = self.record() {
            let buf = self.ctx.buf;
            let s = if tag & 0xC0 == TAG_SHORT_STR {
                buf.get(p + 1..p + 1 + (tag & 0x3F) as usize)
            } else {
                long_str(buf, tag, p)
            };
            // Not lazy: the document was validated.
            if let Some(s) = s.and_then(|b| text(b, 0)) {
                self.ctx.payload(s.len())?;
                return visitor.visit_borrowed_str(s);
            }
        }
        self.slow(|d| d.deserialize_str(visitor))
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.x {
            x if x == (SPECIAL_TRUE << 2) | 3 => visitor.visit_bool(true),
            x if x == (SPECIAL_FALSE << 2) | 3 => visitor.visit_bool(false),
            _ => self.slow(|d| d.deserialize_bool(visitor)),
        }
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((tag, p)) = self.record() {
            let buf = self.ctx.buf;
            if tag == TAG_F_DEC {
                if let Some(&[e, m0, m1, m2, m3]) = buf.get(p + 1..).and_then(|b| b.first_chunk()) {
                    let m = i32::from_le_bytes([m0, m1, m2, m3]);
                    return visitor.visit_f64(f_dec_value(m, e as i8));
                }
            } else if tag == TAG_F64 {
                if let Some(b) = buf.get(p + 1..).and_then(|b| b.first_chunk::<8>()) {
                    return visitor.visit_f64(f64::from_le_bytes(*b));
                }
            }
        }
        self.slow(|d| d.deserialize_f64(visitor))
    }

    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((TAG_F32, p)) = self.record() {
            if let Some(b) = self.ctx.buf.get(p + 1..).and_then(|b| b.first_chunk::<4>()) {
                return visitor.visit_f32(f32::from_le_bytes(*b));
            }
        }
        self.slow(|d| d.deserialize_f32(visitor))
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.x == NULL_SLOT {
            visitor.visit_none()
        } else if self.x & 3 == 0 {
            self.ctx.wrap(|| visitor.visit_some(self))
        } else {
            self.slow(|d| d.deserialize_option(visitor))
        }
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if let Some((tag, p)) = self.record() {
            if tag & !3 == TAG_MAP {
                return self
                    .ctx
                    .visit_map(Map::at(self.ctx.buf, p), Some(fields), visitor);
            }
        }
        self.slow(|d| d.deserialize_struct(name, fields, visitor))
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((tag, p)) = self.record() {
            if tag & !3 == TAG_ARRAY {
                return self.ctx.visit_array(Array::at(self.ctx.buf, p), visitor);
            }
        }
        self.slow(|d| d.deserialize_seq(visitor))
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.ctx.wrap(|| visitor.visit_newtype_struct(self))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    slot_int!(
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64
    );

    via_value! {
        deserialize_any();
        deserialize_i128(); deserialize_u128(); deserialize_char();
        deserialize_bytes(); deserialize_byte_buf(); deserialize_unit();
        deserialize_unit_struct(n: &'static str);
        deserialize_tuple(n: usize);
        deserialize_tuple_struct(n: &'static str, len: usize);
        deserialize_map(); deserialize_identifier();
        deserialize_enum(n: &'static str, variants: &'static [&'static str]);
    }
}

/// Prefixes the path of an error from element `i` of an array, whose
/// slots are `slots` (see [`at_value`]).
#[cold]
#[inline(never)]
fn index_path(e: Error, i: usize, slots: &Slots) -> Error {
    at_value(e, i, slots).prefix_path(&format!("[{i}]"))
}

/// Prefixes the path of an error from the value of key `k`, the value of
/// slot `i` of `slots` (see [`at_value`]).
#[cold]
#[inline(never)]
fn key_path(e: Error, k: &str, i: usize, slots: &Slots) -> Error {
    key_segment(at_value(e, i, slots), k)
}

/// Prefixes the path of an error with key `k`: `.k`, or `["k"]` for a key
/// that is not a plain word.
#[cold]
#[inline(never)]
fn key_segment(e: Error, k: &str) -> Error {
    let simple = !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    if simple {
        e.prefix_path(&format!(".{k}"))
    } else {
        e.prefix_path(&format!("[{k:?}]"))
    }
}

/// An error from the value of slot `i` of `slots`, with the byte offset of
/// that value unless it has one (from a value further in): its record, or
/// the slot itself for a value held in the slot.
fn at_value(e: Error, i: usize, slots: &Slots) -> Error {
    if e.offset().is_some() {
        return e;
    }
    let x = slots.get(i);
    let at = if x & 3 == 0 {
        (x >> 2) as usize
    } else {
        slots.at + i * slots.width
    };
    e.with_offset(at)
}

#[cold]
fn value_before_key() -> Error {
    Error::custom("map value requested before its key")
}

/// The elements of an array.
struct ArraySeq<'de, 'b> {
    ctx: &'b Ctx<'de>,
    slots: Slots<'de>,
    /// Index of the next element.
    i: usize,
}

impl<'de> de::SeqAccess<'de> for ArraySeq<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let i = self.i;
        if i >= self.slots.len {
            return Ok(None);
        }
        self.i += 1;
        let x = self.slots.get(i);
        match seed.deserialize(SlotDe { x, ctx: self.ctx }) {
            Ok(x) => Ok(Some(x)),
            Err(e) => Err(index_path(e, i, &self.slots)),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.slots.len - self.i)
    }
}

/// The elements of a typed vector, each read as the [`Value`] it is (so
/// that an `f32` element, widened exactly, reads back into an `f32` bit
/// for bit, NaN payloads included).
struct VectorSeq<'de, 'b> {
    v: Vector<'de>,
    i: usize,
    ctx: &'b Ctx<'de>,
}

impl<'de> de::SeqAccess<'de> for VectorSeq<'de, '_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(x) = self.v.get(self.i) else {
            return Ok(None);
        };
        self.i += 1;
        let value = match x {
            Scalar::Int(i) => Value::Int(i),
            Scalar::UInt(u) => Value::UInt(u),
            Scalar::Float(f) => Value::Float(f),
        };
        seed.deserialize(Deserializer {
            value,
            ctx: self.ctx,
        })
        .map(Some)
        .map_err(|e: Error| e.prefix_path(&format!("[{}]", self.i - 1)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.v.len() - self.i)
    }
}

/// The bytes of a byte string, as a sequence of `u8`s.
struct ByteSeq<'de> {
    b: &'de [u8],
    i: usize,
}

impl<'de> de::SeqAccess<'de> for ByteSeq<'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(&x) = self.b.get(self.i) else {
            return Ok(None);
        };
        self.i += 1;
        seed.deserialize(x.into_deserializer())
            .map(Some)
            .map_err(|e: Error| e.prefix_path(&format!("[{}]", self.i - 1)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.b.len() - self.i)
    }
}

/// The entries of any map, keys read from its shape.
struct MapAcc<'de, 'b> {
    ctx: &'b Ctx<'de>,
    /// The shape (`None` for the empty map).
    shape: Option<Shape>,
    slots: Slots<'de>,
    /// Index of the next entry.
    next: usize,
    /// The key and the resolved slot of the entry whose value is next.
    pending: Option<(&'de str, u64)>,
}

impl<'de> de::MapAccess<'de> for MapAcc<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let (i, Some(shape)) = (self.next, &self.shape) else {
            return Ok(None);
        };
        if i >= self.slots.len {
            return Ok(None);
        }
        self.next += 1;
        // A malformed key (never in a validated document) reads as "".
        let k = shape.key_bytes(self.ctx.buf, i);
        let k = k.and_then(|k| text(k, 0)).unwrap_or("");
        self.ctx.payload(k.len())?;
        self.pending = Some((k, self.slots.get(i)));
        seed.deserialize(KeyDe(k, 0)).map(Some)
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some((k, x)) = self.pending.take() else {
            return Err(value_before_key());
        };
        match seed.deserialize(SlotDe { x, ctx: self.ctx }) {
            Ok(v) => Ok(v),
            Err(e) => Err(key_path(e, k, self.next - 1, &self.slots)),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.slots.len - self.next.min(self.slots.len))
    }
}

/// The entries of a map whose keys are known to be `fields` in order: the
/// keys come from `fields`, only the values are read.
struct StructAcc<'de, 'b> {
    ctx: &'b Ctx<'de>,
    fields: &'static [&'static str],
    slots: Slots<'de>,
    /// Index of the next key.
    next: usize,
    /// Whether the value of key `next - 1` is still to be read.
    pending: bool,
}

impl<'de> de::MapAccess<'de> for StructAcc<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some(&k) = self.fields.get(self.next) else {
            self.pending = false;
            return Ok(None);
        };
        self.next += 1;
        self.pending = true;
        seed.deserialize(KeyDe(k, 0)).map(Some)
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if !std::mem::take(&mut self.pending) {
            return Err(value_before_key());
        }
        let i = self.next - 1;
        let x = self.slots.get(i);
        match seed.deserialize(SlotDe { x, ctx: self.ctx }) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.value_error(e)),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - self.next)
    }
}

impl StructAcc<'_, '_> {
    /// The error `e` from the value of the last key, with its path and offset.
    #[cold]
    #[inline(never)]
    fn value_error(&self, e: Error) -> Error {
        let i = self.next - 1;
        key_path(e, self.fields[i], i, &self.slots)
    }
}

/// What a visitor that read `n` elements of a longer sequence expected.
struct ExpectedLen(usize);

impl de::Expected for ExpectedLen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            1 => write!(f, "1 element in sequence"),
            n => write!(f, "{n} elements in sequence"),
        }
    }
}

/// Map keys: borrowed strings, parsed as numbers when a number is wanted.
/// The count is of the `Option::Some` and newtype levels around the key so
/// far (at most [`MAX_WRAPPER_RUN`], as in [`Ctx::wrap`]).
struct KeyDe<'de>(&'de str, usize);

impl KeyDe<'_> {
    /// `f` of this key one `Option::Some` or newtype level down.
    fn wrap<R>(self, f: impl FnOnce(Self) -> Result<R>) -> Result<R> {
        let KeyDe(k, run) = self;
        if run >= MAX_WRAPPER_RUN {
            return Err(wrapper_limit());
        }
        stack::at_level(run, || f(KeyDe(k, run + 1)))
    }
}

/// Number, bool and char keys are read from text as serde_json reads
/// them: an integer key from JSON integer syntax (`1`, `-1`, not `+1`,
/// `01`, `-0` or ` 1`), a float key from any JSON number in its range
/// (`1.5`, `1e2`, not `.5`, `inf` or `NaN`); other text stays a string,
/// which the visitor then refuses.
macro_rules! key_parse {
    ($($f:ident => $v:ident: $t:ty, $syntax:ident),*) => {$(
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.0.parse::<$t>() {
                Ok(x) if $syntax(self.0) => visitor.$v(x),
                _ => visitor.visit_borrowed_str(self.0),
            }
        }
    )*};
}

/// Whether `s` is the canonical text of an integer map key: JSON integer
/// syntax as serde_json reads it, `0` or an optional `-` and digits with no
/// leading zero (`-0` is a float there; no `+`, no spaces). Integer keys
/// are written so and read back only from such text, here and in the
/// Python package's typed `dict[int, T]`.
///
/// ```
/// use roving::serde::is_int_key;
/// assert!(is_int_key("0") && is_int_key("-12") && is_int_key("18446744073709551616"));
/// assert!(!is_int_key("-0") && !is_int_key("01") && !is_int_key("+1") && !is_int_key(" 1"));
/// assert!(!is_int_key("") && !is_int_key("-") && !is_int_key("1.0"));
/// ```
pub fn is_int_key(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s).as_bytes();
    s == "0" || matches!(digits, [b'1'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit))
}

/// Whether `s` is a JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
fn number_key(s: &str) -> bool {
    fn digits(b: &[u8]) -> (usize, &[u8]) {
        let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
        (n, &b[n..])
    }
    let b = s.strip_prefix('-').unwrap_or(s).as_bytes();
    let (n, mut b) = digits(b);
    if n == 0 || (n > 1 && s.trim_start_matches('-').starts_with('0')) {
        return false;
    }
    if let Some(rest) = b.strip_prefix(b".") {
        let (n, rest) = digits(rest);
        if n == 0 {
            return false;
        }
        b = rest;
    }
    if let Some(rest) = b.strip_prefix(b"e").or_else(|| b.strip_prefix(b"E")) {
        let rest = rest
            .strip_prefix(b"+")
            .or_else(|| rest.strip_prefix(b"-"))
            .unwrap_or(rest);
        let (n, rest) = digits(rest);
        if n == 0 {
            return false;
        }
        b = rest;
    }
    b.is_empty()
}

/// Any text (bool and char keys: `str::parse` takes only their own text).
fn any_text(_: &str) -> bool {
    true
}

/// `deserialize_*` methods for float keys: a number in JSON syntax and in
/// the float's range (one past it is an error in serde_json too).
macro_rules! key_float {
    ($($f:ident => $v:ident: $t:ty),*) => {$(
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.0.parse::<$t>() {
                Ok(x) if x.is_finite() && number_key(self.0) => visitor.$v(x),
                _ => visitor.visit_borrowed_str(self.0),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDe<'de> {
    type Error = Error;
    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }
    key_parse!(deserialize_i8 => visit_i8: i8, is_int_key, deserialize_i16 => visit_i16: i16, is_int_key,
        deserialize_i32 => visit_i32: i32, is_int_key, deserialize_i64 => visit_i64: i64, is_int_key,
        deserialize_i128 => visit_i128: i128, is_int_key,
        deserialize_u8 => visit_u8: u8, is_int_key, deserialize_u16 => visit_u16: u16, is_int_key,
        deserialize_u32 => visit_u32: u32, is_int_key, deserialize_u64 => visit_u64: u64, is_int_key,
        deserialize_u128 => visit_u128: u128, is_int_key,
        deserialize_bool => visit_bool: bool, any_text, deserialize_char => visit_char: char, any_text);
    key_float!(deserialize_f32 => visit_f32: f32, deserialize_f64 => visit_f64: f64);
    /// A key is never null: an `Option` key is `Some` of the key.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.wrap(|k| visitor.visit_some(k))
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.wrap(|k| visitor.visit_newtype_struct(k))
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self.0.into_deserializer())
    }
    serde::forward_to_deserialize_any! {
        str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

struct EnumAcc<'de, 'b> {
    variant: &'de str,
    de: Deserializer<'de, 'b>,
}

impl<'de, 'b> de::EnumAccess<'de> for EnumAcc<'de, 'b> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let v = seed.deserialize(KeyDe(self.variant, 0))?;
        Ok((v, self))
    }
}

/// The value of a variant (`{variant: value}`): errors from it have the
/// variant in their path, as those from any map value have its key.
impl<'de> de::VariantAccess<'de> for EnumAcc<'de, '_> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        match self.de.value {
            Value::Null => Ok(()),
            _ => Err(de::Error::invalid_type(
                self.de.unexpected(),
                &"a unit variant",
            )),
        }
        .map_err(|e| key_segment(e, self.variant))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self.de)
            .map_err(|e| key_segment(e, self.variant))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self.de, visitor)
            .map_err(|e| key_segment(e, self.variant))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self.de, "", fields, visitor)
            .map_err(|e| key_segment(e, self.variant))
    }
}

/// The two values of an extension (type id, bytes) as a sequence.
struct PairSeq<'de, 'b> {
    items: std::array::IntoIter<Value<'de>, 2>,
    ctx: &'b Ctx<'de>,
}

impl<'de> de::SeqAccess<'de> for PairSeq<'de, '_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.items.next() {
            None => Ok(None),
            Some(value) => seed
                .deserialize(Deserializer {
                    value,
                    ctx: self.ctx,
                })
                .map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Rec {
        s: String,
        i: i64,
        f: f64,
        b: bool,
        o: Option<u32>,
        v: Vec<i64>,
    }

    /// Round trips through every slot width (documents of growing size),
    /// integers at the edges of the slot immediates (sign extension), and
    /// containers at the very end of the buffer (slots read narrowly) as
    /// well as inside it.
    #[test]
    fn slot_widths_and_buffer_ends() {
        for n in [0usize, 1, 3, 40, 700, 9000] {
            let recs: Vec<Rec> = (0..n)
                .map(|k| {
                    let i = match k % 6 {
                        0 => -(1i64 << (k % 62)),
                        1 => (1i64 << (k % 61)) - 1,
                        2 => i64::MIN + k as i64,
                        3 => i64::MAX - k as i64,
                        4 => -1,
                        _ => k as i64,
                    };
                    Rec {
                        s: "x".repeat(k % 70),
                        i,
                        f: k as f64 / 7.0 - 3.25,
                        b: k % 2 == 0,
                        o: (k % 3 != 0).then_some(k as u32),
                        v: (0..(k % 5) as i64).map(|j| i.wrapping_sub(j)).collect(),
                    }
                })
                .collect();
            let bytes = crate::to_vec(&recs).unwrap();
            assert_eq!(
                crate::from_slice::<Vec<Rec>>(&bytes).unwrap(),
                recs,
                "n {n}"
            );
            let by_key: BTreeMap<String, Vec<i64>> = recs
                .iter()
                .map(|r| (format!("{}{}", r.s, r.i), r.v.clone()))
                .collect();
            let bytes = crate::to_vec(&by_key).unwrap();
            assert_eq!(
                crate::from_slice::<BTreeMap<String, Vec<i64>>>(&bytes).unwrap(),
                by_key
            );
            // The last container of the document is read narrowly, inner ones widely.
            let tail: (Vec<i64>, Vec<i64>) = (vec![-5, 1 << 40, -(1 << 50)], vec![-1, 0, 1]);
            let bytes = crate::to_vec(&tail).unwrap();
            assert_eq!(
                crate::from_slice::<(Vec<i64>, Vec<i64>)>(&bytes).unwrap(),
                tail
            );
        }
    }
}
