//! The state one typed decoding shares: the document, the value budget,
//! the levels left, and which map shapes spell a struct's fields.

use std::cell::{Cell, RefCell};

use serde::de::{self, Visitor};

use super::maps::{MapEntries, NumberEntries, StructEntries};
use super::sequences::{
    ArrayElements, ByteStringElements, ExpectedLength, F64Elements, StrArrayElements,
    StrideElements, ValueElements,
};
use super::slots::Slots;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{is_map, map_shape_ref, Shape};
use crate::layout::{ElemType, NumElem, WIDTHS};
use crate::read::{Array, DecimalMemo, Map, Numbers};
use crate::serde::stack;

/// Maximum number of `Option::Some` and newtype levels in a row with no
/// container between them, under any limits. They consume no input, so
/// only a type that wraps itself with no end (`struct W(Option<Box<W>>)`
/// read from anything but `null`) has more: it stops with
/// [`ErrorKind::DepthLimit`] instead of recursing forever.
pub(super) const MAX_WRAPPER_RUN: usize = 256;

/// `Option::Some` and newtype levels in a run that [`Context::wrap`] runs with
/// no check (the common types have one or two around a value).
const WRAPPERS_UNCHECKED: usize = 4;

/// Number of entries of the [`Context`] shape cache (a power of two).
const SHAPE_CACHE: usize = 16;

/// One entry of the [`Context`] shape cache: whether the keys of one shape
/// spell exactly one struct's field list, in order.
#[derive(Clone, Copy, Debug, Default)]
struct ShapeCacheEntry {
    /// Position of the shape plus one (0: an empty entry).
    shape_plus_one: usize,
    /// Address of the field list.
    fields_address: usize,
    /// Length of the field list.
    fields_len: usize,
    /// Whether the shape's keys are the fields, in order.
    equal: bool,
}

impl ShapeCacheEntry {
    /// Whether this entry is about the shape at `shape` and `fields`.
    #[inline(always)]
    fn is_for(&self, shape: usize, fields: &'static [&'static str]) -> bool {
        self.shape_plus_one == shape + 1
            && self.fields_address == fields.as_ptr() as usize
            && self.fields_len == fields.len()
    }
}

/// State shared by one typed decoding: the document, the value budget,
/// the levels left and a small cache of which map shapes spell exactly a
/// struct's field list.
pub(super) struct Context<'de> {
    /// The validated document every array and map decoded is in.
    pub(super) document: &'de [u8],
    /// Values left to visit.
    budget: Cell<u64>,
    /// Levels left below the container being visited.
    depth: Cell<usize>,
    /// Levels allowed in all (`depth` at the root).
    max_depth: usize,
    /// `Option::Some` and newtype levels entered since the innermost
    /// container (see [`wrap`](Self::wrap)).
    wrapped: Cell<usize>,
    /// Which shapes spell which struct's fields, direct-mapped by shape
    /// position (see [`shape_cache_entry`](Self::shape_cache_entry)).
    shapes: [Cell<ShapeCacheEntry>; SHAPE_CACHE],
    /// Decimal text of the big integers beyond 128 bits visited so far.
    decimals: RefCell<DecimalMemo>,
}

impl<'de> Context<'de> {
    /// The state of decoding from the validated document `document`, with
    /// `budget` values to visit and `depth` levels.
    pub(super) fn new(document: &'de [u8], budget: u64, depth: usize) -> Context<'de> {
        Context {
            document,
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
    pub(super) fn payload(&self, len: usize) -> Result<()> {
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
    pub(super) fn decimal(&self, b: crate::read::BigInt<'de>) -> Result<String> {
        self.payload(DecimalMemo::max_len(b))?;
        Ok(self.decimals.borrow_mut().text(b)?.to_owned())
    }

    /// Enters a container of `len` values: one level down, `len` values
    /// taken from the budget. Returns the levels to restore with
    /// [`leave`](Self::leave) once the container is visited.
    #[inline(always)]
    pub(super) fn enter(&self, len: usize) -> Result<usize> {
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
    pub(super) fn wrap<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<R> {
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

    /// Restores the levels that [`enter`](Self::enter) returned, once
    /// the container it entered is visited.
    #[inline(always)]
    pub(super) fn leave(&self, depth: usize) {
        self.depth.set(depth);
    }

    /// Runs `f`, the visit of a container entered with [`enter`](Self::enter)
    /// (which returned `depth`), on enough stack ([`stack::at_level`]).
    #[inline(always)]
    pub(super) fn at_level<R>(&self, depth: usize, f: impl FnOnce() -> R) -> R {
        stack::at_level(self.max_depth.saturating_sub(depth), f)
    }

    /// Whether the shape at `shape` is known (cached by
    /// [`keys_are`](Self::keys_are)) to spell exactly `fields`, in order.
    #[inline(always)]
    fn known_struct(&self, shape: usize, fields: &'static [&'static str]) -> bool {
        let entry = self.shape_cache_entry(shape).get();
        entry.equal && entry.is_for(shape, fields)
    }

    /// The cache entry of the shape at `shape`.
    #[inline(always)]
    fn shape_cache_entry(&self, shape: usize) -> &Cell<ShapeCacheEntry> {
        &self.shapes[(shape ^ (shape >> 4)) & (SHAPE_CACHE - 1)]
    }

    /// Whether the keys of `shape` are exactly `fields`, in order (cached
    /// per shape and field list).
    #[inline]
    fn keys_are(&self, shape: &Shape, fields: &'static [&'static str]) -> bool {
        let at = shape.pos;
        let cell = self.shape_cache_entry(at);
        let entry = cell.get();
        if entry.is_for(at, fields) {
            return entry.equal;
        }
        let equal = shape.count == fields.len()
            && fields
                .iter()
                .enumerate()
                .all(|(i, field)| shape.key_bytes(self.document, i) == Some(field.as_bytes()));
        cell.set(ShapeCacheEntry {
            shape_plus_one: at + 1,
            fields_address: fields.as_ptr() as usize,
            fields_len: fields.len(),
            equal,
        });
        equal
    }

    /// The array `a` (of this document) to `visitor`, as a sequence.
    #[inline]
    pub(super) fn visit_array<V: Visitor<'de>>(
        &self,
        a: Array<'de>,
        visitor: V,
    ) -> Result<V::Value> {
        self.same_document(a.buf())?;
        if let Some(numbers) = a.numbers() {
            return self.visit_numbers(numbers, visitor);
        }
        if let Some(strs) = a.str_array() {
            return self.visit_str_array(strs, a.lazy(), visitor);
        }
        if let Some(stride) = a.stride_array() {
            let len = stride.count;
            let elements = StrideElements {
                context: self,
                stride,
                next: 0,
            };
            return self.visit_level(len, elements, |e| e.next, visitor);
        }
        let (at, len, width) = a.parts().unwrap_or((0, 0, 1));
        let elements = ArrayElements {
            context: self,
            slots: Slots::new(self.document, at, len, width, a.pos()),
            next: 0,
        };
        self.visit_level(len, elements, |e| e.next, visitor)
    }

    /// The elements of a number array record to `visitor`, as a sequence
    /// (as [`Self::visit_array`] gives the same array of slots).
    #[inline(never)]
    fn visit_numbers<V: Visitor<'de>>(
        &self,
        numbers: Numbers<'de>,
        visitor: V,
    ) -> Result<V::Value> {
        let len = numbers.len();
        if numbers.elem() == NumElem::Binary(ElemType::F64) {
            // The common float row (a coordinate pair): each element read
            // straight from its bytes.
            let elements = F64Elements {
                context: self,
                data: numbers.raw(),
                next: 0,
            };
            return self.visit_level(len, elements, |e| e.next / 8, visitor);
        }
        self.visit_level(len, ValueElements::new(numbers, self), |e| e.next, visitor)
    }

    /// Visits the `len` `elements` of an array (`read(elements)`: how many
    /// were read) as one container level with `visitor`.
    #[inline(always)]
    fn visit_level<V: Visitor<'de>, S: de::SeqAccess<'de, Error = Error>>(
        &self,
        len: usize,
        mut elements: S,
        read: impl Fn(&S) -> usize,
        visitor: V,
    ) -> Result<V::Value> {
        let depth = self.enter(len)?;
        let r = self.at_level(depth, || visitor.visit_seq(&mut elements));
        self.leave(depth);
        let v = r?;
        // A visitor that stopped early (a tuple, an array, a struct read
        // from an array) left elements unread: an error, as in serde_json,
        // rather than dropping them.
        if read(&elements) < len {
            return Err(de::Error::invalid_length(
                len,
                &ExpectedLength(read(&elements)),
            ));
        }
        Ok(v)
    }

    /// The string array record `strs` (of this document) to `visitor`, as
    /// a sequence of strings.
    #[inline(never)]
    fn visit_str_array<V: Visitor<'de>>(
        &self,
        strs: crate::layout::StrArray,
        lazy: usize,
        visitor: V,
    ) -> Result<V::Value> {
        let len = strs.count;
        let elements = StrArrayElements {
            context: self,
            strs,
            lazy,
            next: 0,
        };
        self.visit_level(len, elements, |e| e.next, visitor)
    }

    /// The byte string `b` to `visitor`, as a sequence of `u8`s (each a
    /// value of the budget, as a vector's elements).
    #[inline(never)]
    pub(super) fn visit_byte_sequence<V: Visitor<'de>>(
        &self,
        b: &'de [u8],
        visitor: V,
    ) -> Result<V::Value> {
        self.payload(b.len().saturating_mul(crate::BYTES_PER_VALUE))?;
        let mut elements = ByteStringElements { bytes: b, next: 0 };
        let v = visitor.visit_seq(&mut elements)?;
        if elements.next < b.len() {
            return Err(de::Error::invalid_length(
                b.len(),
                &ExpectedLength(elements.next),
            ));
        }
        Ok(v)
    }

    /// The map `m` (of this document) to `visitor`: through [`StructEntries`]
    /// if its keys are `fields` in that order, else key by key.
    #[inline]
    pub(super) fn visit_map<V: Visitor<'de>>(
        &self,
        m: Map<'de>,
        fields: Option<&'static [&'static str]>,
        visitor: V,
    ) -> Result<V::Value> {
        self.same_document(m.buf())?;
        if let Some(fields) = fields {
            // A shape known to spell `fields` (the common case): its count
            // is `fields.len()`, so only the map's header is read.
            let (buf, pos) = (m.buf(), m.pos());
            if let (Some(&tag), Some((shape, values))) = (buf.get(pos), map_shape_ref(buf, pos)) {
                // (A map of numbers has no slots: read below.)
                if is_map(tag) && self.known_struct(shape, fields) {
                    let depth = self.enter(fields.len())?;
                    let width = WIDTHS[(tag & 3) as usize];
                    let r = self.at_level(depth, || {
                        visitor.visit_map(StructEntries {
                            context: self,
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
            if let Some((shape, numbers)) = m.num_parts() {
                return self.visit_num_map(shape, numbers, visitor);
            }
            let depth = self.enter(0)?;
            let r = visitor.visit_map(MapEntries {
                context: self,
                shape: None,
                slots: Slots::new(self.document, 0, 0, 1, 0),
                next: 0,
                pending: None,
            });
            self.leave(depth);
            return r;
        };
        let depth = self.enter(shape.count)?;
        let slots = Slots::new(self.document, values, shape.count, width, m.pos());
        let r = self.at_level(depth, || match fields {
            Some(fields) if self.keys_are(&shape, fields) => visitor.visit_map(StructEntries {
                context: self,
                fields,
                slots,
                next: 0,
                pending: false,
            }),
            _ => visitor.visit_map(MapEntries {
                context: self,
                shape: Some(shape),
                slots,
                next: 0,
                pending: None,
            }),
        });
        self.leave(depth);
        r
    }

    /// A map of numbers (its shape and values) to `visitor`, key by key.
    #[cold]
    #[inline(never)]
    fn visit_num_map<V: Visitor<'de>>(
        &self,
        shape: Shape,
        numbers: Numbers<'de>,
        visitor: V,
    ) -> Result<V::Value> {
        let depth = self.enter(shape.count)?;
        let r = self.at_level(depth, || {
            visitor.visit_map(NumberEntries {
                context: self,
                shape,
                numbers,
                next: 0,
                pending: None,
            })
        });
        self.leave(depth);
        r
    }

    /// Checks that a container's bytes are this decoding's document (they
    /// always are: every container comes from it), so that its strings
    /// are known valid.
    #[inline(always)]
    fn same_document(&self, buf: &[u8]) -> Result<()> {
        if buf.is_empty() || std::ptr::eq(buf, self.document) {
            Ok(())
        } else {
            Err(other_document())
        }
    }
}

/// The error of a decoding that visits more values than its budget.
#[cold]
fn expansion_limit() -> Error {
    Error::new(ErrorKind::ExpansionLimit)
}

/// The error of a decoding deeper than its levels.
#[cold]
fn depth_limit() -> Error {
    Error::new(ErrorKind::DepthLimit)
}

/// The error of more than [`MAX_WRAPPER_RUN`] `Option::Some` and
/// newtype levels in a row.
#[cold]
pub(super) fn wrapper_limit() -> Error {
    depth_limit().with_message(format!(
        "more than {MAX_WRAPPER_RUN} Option::Some and newtype levels in a row \
         (a type that wraps itself?)"
    ))
}

/// The error of a container that is not in the document decoded.
#[cold]
fn other_document() -> Error {
    Error::custom("a container of another document")
}
