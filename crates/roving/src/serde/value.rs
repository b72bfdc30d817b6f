//! `Serialize` for [`Value`]: a value read in place goes into any serde
//! format (`serde_json::to_writer(w, &doc.root())`, MessagePack, ...) or
//! into a struct that other code serializes, with no intermediate tree.
//!
//! Each kind is handed over as [`from_value`](crate::from_value) hands it
//! to a type that takes any value (`deserialize_any`): scalars, strings
//! and byte strings as themselves, a timestamp as [`Timestamp`]
//! serializes (a timestamp record in roving, RFC 3339 text elsewhere), a
//! big integer as `i128`/`u128` when it fits, else as its decimal text, a
//! typed vector as a sequence of its elements, an extension value as the
//! pair `(type id, bytes)`. Roving's own serializer keeps every kind
//! exactly (see [`super::exact`]), so `roving::to_vec(&value)` copies a
//! value into a document of its own.
//!
//! As the other converters, it is bounded: the value is validated first if
//! its document was opened lazily, and nesting and expansion are limited
//! by [`Limits::for_len`] of the document (a small document of shared
//! subtrees can stand for an enormous tree): past them, serialization
//! fails with the serializer's custom error. Deep values run on enough
//! stack, as typed decoding does.
//!
//! [`Timestamp`]: crate::Timestamp
//! [`Limits::for_len`]: crate::Limits::for_len

use std::cell::{Cell, RefCell};

use serde::ser::{Error as _, Serialize, SerializeMap, SerializeSeq, Serializer};

use super::exact;
use super::stack::on_enough_stack;
use crate::layout::ElemType;
use crate::read::{DecimalMemo, Scalar, Value, Vector};
use crate::Limits;

/// What serializing one value may still spend, shared by its parts.
struct Budget {
    /// Values left ([`Limits::max_values`]; a payload's bytes count one
    /// value per [`BYTES_PER_VALUE`](crate::BYTES_PER_VALUE)).
    left: Cell<u64>,
    max_depth: usize,
    /// Decimal text of the big integers met, each converted once.
    decimals: RefCell<DecimalMemo>,
}

impl Budget {
    fn take(&self, values: u64) -> crate::Result<()> {
        match self.left.get().checked_sub(values) {
            Some(rest) => {
                self.left.set(rest);
                Ok(())
            }
            None => Err(
                crate::Error::new(crate::ErrorKind::ExpansionLimit).with_message(
                    "the value expands to more values than the limits of its document allow",
                ),
            ),
        }
    }
}

/// A value `level` containers below the one being serialized.
struct Node<'a, 'b> {
    v: Value<'a>,
    level: usize,
    budget: &'b Budget,
}

/// A vector's elements, as a sequence of numbers (`f32` ones as `f32`).
struct Elements<'a>(Vector<'a>);

impl Serialize for Elements<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        let f32s = self.0.elem_type() == ElemType::F32;
        for x in self.0.iter() {
            match x {
                Scalar::Int(i) => seq.serialize_element(&i)?,
                Scalar::UInt(u) => seq.serialize_element(&u)?,
                // Widened exactly: the f32 it was.
                Scalar::Float(f) if f32s => seq.serialize_element(&(f as f32))?,
                Scalar::Float(f) => seq.serialize_element(&f)?,
            }
        }
        seq.end()
    }
}

/// The part of a shaped vector of dimensions `dims` (a suffix of its shape)
/// that starts at element `first`, as nested sequences of numbers (`f32`
/// ones as `f32`).
struct Rows<'a, 'd> {
    v: Vector<'a>,
    dims: &'d [usize],
    first: usize,
}

impl Serialize for Rows<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some((&n, rest)) = self.dims.split_first() else {
            return s.serialize_seq(Some(0))?.end();
        };
        let mut seq = s.serialize_seq(Some(n))?;
        let f32s = self.v.elem_type() == ElemType::F32;
        if rest.is_empty() {
            for i in 0..n {
                match self.v.get(self.first + i) {
                    Some(Scalar::Int(x)) => seq.serialize_element(&x)?,
                    Some(Scalar::UInt(x)) => seq.serialize_element(&x)?,
                    Some(Scalar::Float(f)) if f32s => seq.serialize_element(&(f as f32))?,
                    Some(Scalar::Float(f)) => seq.serialize_element(&f)?,
                    None => seq.serialize_element(&())?,
                }
            }
        } else {
            // Saturating: see `json::write::write_rows`.
            let stride = rest.iter().fold(1usize, |a, &d| a.saturating_mul(d));
            for i in 0..n {
                let first = self.first.saturating_add(i.saturating_mul(stride));
                seq.serialize_element(&Rows {
                    v: self.v,
                    dims: rest,
                    first,
                })?;
            }
        }
        seq.end()
    }
}

/// Bytes, through `serialize_bytes` (an extension's payload).
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// Serializes the value, bounded by the limits of its document: each kind
/// as [`from_value`](crate::from_value) hands it to a type that takes any
/// value. Scalars, strings and byte strings as themselves; a timestamp as
/// [`Timestamp`][ts] serializes (a timestamp record in roving, RFC 3339
/// text elsewhere); a big integer as `i128`/`u128` when it fits, else its
/// decimal text; a typed vector as a sequence of its elements (`f32` ones
/// as `f32`); an extension value as the pair `(type id, bytes)`. Into
/// roving ([`to_vec`][tv], [`Serializer`][ser]) every kind stays what it
/// is, vectors, extensions and big integers included: a part of a
/// document copies into a document of its own.
///
/// A value of a lazily opened document is validated first; nesting past
/// [`Limits::for_len`][lim]'s depth, or more values than its
/// `max_values` (shared subtrees counted per place), is an error of the
/// serializer.
///
/// [ts]: crate::Timestamp
/// [tv]: crate::to_vec
/// [ser]: crate::serde::Serializer
/// [lim]: crate::Limits::for_len
///
/// ```
/// let bytes = roving::json::from_json(br#"{"user":{"name":"Ada","langs":["en","fr"]},"n":1}"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// let user = doc.get_path("user")?.unwrap();
/// // Into another serde format, straight from the document:
/// assert_eq!(serde_json::to_string(&user).unwrap(), r#"{"name":"Ada","langs":["en","fr"]}"#);
///
/// // Or inside a response type:
/// #[derive(serde::Serialize)]
/// struct Reply<'a> { ok: bool, user: roving::Value<'a> }
/// let text = serde_json::to_string(&Reply { ok: true, user }).unwrap();
/// assert_eq!(text, r#"{"ok":true,"user":{"name":"Ada","langs":["en","fr"]}}"#);
///
/// // Or into a roving document of its own:
/// let copy = roving::to_vec(&user)?;
/// assert!(roving::Document::open(&copy)?.root() == user);
/// # Ok::<(), roving::Error>(())
/// ```
impl Serialize for Value<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.validated().map_err(S::Error::custom)?;
        let limits = Limits::for_len(v.doc_len());
        let budget = Budget {
            left: Cell::new(limits.max_values),
            max_depth: limits.max_depth,
            decimals: RefCell::default(),
        };
        Node {
            v,
            level: 0,
            budget: &budget,
        }
        .serialize(s)
    }
}

impl Serialize for Node<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let budget = self.budget;
        let payload = |len: usize| (len / crate::BYTES_PER_VALUE) as u64;
        budget.take(1).map_err(S::Error::custom)?;
        let child = |v| Node {
            v,
            level: self.level + 1,
            budget,
        };
        // A container one level further down (its values are taken from
        // the budget one by one).
        let deeper = || {
            if self.level >= budget.max_depth {
                return Err(S::Error::custom(crate::Error::new(
                    crate::ErrorKind::DepthLimit,
                )));
            }
            Ok(())
        };
        match self.v {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(b),
            Value::Int(i) => s.serialize_i64(i),
            Value::UInt(u) => s.serialize_u64(u),
            Value::BigInt(b) => {
                if let Some(i) = self.v.as_i128() {
                    return s.serialize_i128(i);
                }
                if let Some(u) = self.v.as_u128() {
                    return s.serialize_u128(u);
                }
                budget
                    .take(payload(DecimalMemo::max_len(b)))
                    .map_err(S::Error::custom)?;
                let mut memo = budget.decimals.borrow_mut();
                let text = memo.text(b).map_err(S::Error::custom)?;
                s.serialize_newtype_struct(exact::BIGINT, text)
            }
            Value::Float(f) => s.serialize_f64(f),
            Value::Str(t) => {
                budget.take(payload(t.len())).map_err(S::Error::custom)?;
                s.serialize_str(t)
            }
            Value::Bytes(b) => {
                budget.take(payload(b.len())).map_err(S::Error::custom)?;
                s.serialize_bytes(b)
            }
            Value::Timestamp(t) => t.serialize(s),
            Value::Ext(e) => {
                budget
                    .take(payload(e.data.len()))
                    .map_err(S::Error::custom)?;
                s.serialize_newtype_struct(exact::EXT, &(e.type_id, Bytes(e.data)))
            }
            Value::Vector(v) if v.ndim() > 1 => {
                // Nested sequences (in roving too: nested arrays), each
                // inner sequence counted as a value.
                let dims = v.shape();
                deeper()?;
                if self.level + dims.len() > budget.max_depth {
                    return Err(S::Error::custom(crate::Error::new(
                        crate::ErrorKind::DepthLimit,
                    )));
                }
                // The inner sequences: d0 + d0 d1 + ... (all but the last).
                let (mut rows, mut outer) = (0u64, 1u64);
                for &d in &dims[..dims.len() - 1] {
                    outer = outer.saturating_mul(d as u64);
                    rows = rows.saturating_add(outer);
                }
                budget
                    .take((v.len() as u64).saturating_add(rows))
                    .map_err(S::Error::custom)?;
                Rows {
                    v,
                    dims: &dims,
                    first: 0,
                }
                .serialize(s)
            }
            Value::Vector(v) => {
                deeper()?;
                budget.take(v.len() as u64).map_err(S::Error::custom)?;
                s.serialize_newtype_struct(exact::VECTOR[v.elem_type() as usize], &Elements(v))
            }
            // Containers recurse, through the serializer's frames too (of
            // unknown size): each level makes sure of enough stack.
            Value::Array(a) => {
                deeper()?;
                on_enough_stack(|| {
                    let mut seq = s.serialize_seq(Some(a.len()))?;
                    for x in a.iter() {
                        seq.serialize_element(&child(x))?;
                    }
                    seq.end()
                })
            }
            Value::Map(m) => {
                deeper()?;
                on_enough_stack(|| {
                    let mut map = s.serialize_map(Some(m.len()))?;
                    for (k, x) in m.iter() {
                        budget.take(payload(k.len())).map_err(S::Error::custom)?;
                        map.serialize_entry(k, &child(x))?;
                    }
                    map.end()
                })
            }
        }
    }
}
