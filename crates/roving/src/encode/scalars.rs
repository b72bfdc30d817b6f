//! Writing scalar values: null, booleans, integers, floats, strings, byte
//! strings, timestamps, extension values and typed vectors.

use super::containers::MAP_VALUE;
use super::decimal::short_decimal;
use super::pending::Pending;
use super::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::*;
use crate::read::VectorElement;
use crate::timestamp::Timestamp;

impl Encoder {
    /// Writes `null`.
    #[inline]
    pub fn null(&mut self) -> Result<()> {
        self.place(Pending::special(SPECIAL_NULL))
    }

    /// Writes a boolean.
    #[inline]
    pub fn bool(&mut self, v: bool) -> Result<()> {
        self.place(Pending::special(if v {
            SPECIAL_TRUE
        } else {
            SPECIAL_FALSE
        }))
    }

    /// Writes a signed integer.
    #[inline]
    pub fn i64(&mut self, v: i64) -> Result<()> {
        let (lo, hi) = inline_int_range(8);
        if v < lo || v > hi {
            let pos = self.int_record(v);
            return self.place(Pending::record(pos));
        }
        self.place(Pending::int(v))
    }

    /// Writes an unsigned integer.
    #[inline]
    pub fn u64(&mut self, v: u64) -> Result<()> {
        if v <= i64::MAX as u64 {
            return self.i64(v as i64);
        }
        let pos = self.out.len();
        self.out.push(TAG_U64);
        self.out.extend_from_slice(&v.to_le_bytes());
        self.place(Pending::record(pos))
    }

    /// Writes an `i128` (as a 64-bit integer when it fits, else a big integer).
    pub fn i128(&mut self, v: i128) -> Result<()> {
        if let Ok(x) = i64::try_from(v) {
            return self.i64(x);
        }
        if let Ok(x) = u64::try_from(v) {
            return self.u64(x);
        }
        let mag = v.unsigned_abs().to_le_bytes();
        self.bigint_le(v < 0, &mag)
    }

    /// Writes an integer of any size given as sign and little-endian
    /// magnitude (high zero bytes are ignored). Values that fit in `i64` or
    /// `u64` are written as such, so each integer has one encoding.
    pub fn bigint_le(&mut self, negative: bool, magnitude: &[u8]) -> Result<()> {
        let mut n = magnitude.len();
        while n > 0 && magnitude[n - 1] == 0 {
            n -= 1;
        }
        let mag = &magnitude[..n];
        if n <= 8 {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(mag);
            let m = u64::from_le_bytes(w);
            if !negative {
                return self.u64(m);
            }
            if m <= 1u64 << 63 {
                return self.i64((m as i64).wrapping_neg());
            }
        }
        let pos = self.out.len();
        self.out.push(if negative {
            TAG_BIGINT_NEG
        } else {
            TAG_BIGINT_POS
        });
        write_varint(&mut self.out, n as u64);
        self.out.extend_from_slice(mag);
        self.place(Pending::record(pos))
    }

    /// Writes a `num_bigint::BigInt`.
    pub fn bigint(&mut self, v: &num_bigint::BigInt) -> Result<()> {
        let (sign, mag) = v.to_bytes_le();
        self.bigint_le(sign == num_bigint::Sign::Minus, &mag)
    }

    /// Writes a float, bit-exact (as binary32 when that is lossless).
    #[inline]
    pub fn f64(&mut self, v: f64) -> Result<()> {
        let pos = self.out.len();
        let narrow = v as f32;
        // The record is built in a register, little-endian: tag in the low
        // byte. (Built byte by byte in memory, it was read back whole while
        // its bytes were still being stored, which stalled every float.)
        let (rec, len) = if f32_to_f64_exact(narrow).to_bits() == v.to_bits() {
            (TAG_F32 as u128 | (narrow.to_bits() as u128) << 8, 5)
        } else if let Some((m, e)) = short_decimal(v) {
            let payload = e as u8 as u128 | (m as u32 as u128) << 8;
            (TAG_F_DEC as u128 | payload << 8, 6)
        } else {
            (TAG_F64 as u128 | (v.to_bits() as u128) << 8, 9)
        };
        put_prefix(&mut self.out, &rec.to_le_bytes(), len);
        self.place(Pending::record(pos))
    }

    /// Writes a string (stored once per document however often it is written).
    #[inline(always)]
    pub fn str(&mut self, s: &str) -> Result<()> {
        if s.is_empty() {
            return self.place(Pending::special(SPECIAL_EMPTY_STR));
        }
        let end = self.out.len();
        // The value of a predicted shape's key: its key's `Sharing` says
        // whether to look it up (see `value_sharing`).
        let frame = &self.top;
        let key = if frame.state == MAP_VALUE && frame.matched > 0 {
            let at = frame.guess_keys.wrapping_add(frame.matched as usize - 1);
            self.shape_keys.get_mut(at)
        } else {
            None
        };
        let pos = match key {
            Some(key) => {
                if key.sharing.looks_up() {
                    let pos = self.strings.intern(&mut self.out, s.as_bytes());
                    key.sharing.note(pos < end);
                    pos
                } else {
                    super::strings::write_unshared(&mut self.out, s.as_bytes())
                }
            }
            None => self.strings.intern(&mut self.out, s.as_bytes()),
        };
        if pos >= end && self.track_strs {
            // A new record (see `own_value_strings`).
            self.own_strs.push(pos);
        }
        self.place(Pending::record(pos))
    }

    /// Writes a byte string.
    pub fn bytes(&mut self, b: &[u8]) -> Result<()> {
        let pos = self.out.len();
        self.out.push(TAG_BYTES);
        write_varint(&mut self.out, b.len() as u64);
        self.out.extend_from_slice(b);
        self.place(Pending::record(pos))
    }

    /// Writes a timestamp.
    pub fn timestamp(&mut self, t: Timestamp) -> Result<()> {
        if Timestamp::new(t.seconds, t.nanos, t.offset).is_none() {
            return Err(Error::new(ErrorKind::Unsupported)
                .with_message("timestamp nanos or offset out of range"));
        }
        let pos = self.out.len();
        self.out.push(if t.offset.is_some() {
            TAG_TIMESTAMP_OFFSET
        } else {
            TAG_TIMESTAMP
        });
        self.out.extend_from_slice(&t.seconds.to_le_bytes());
        self.out.extend_from_slice(&t.nanos.to_le_bytes());
        if let Some(o) = t.offset {
            self.out.extend_from_slice(&o.to_le_bytes());
        }
        self.place(Pending::record(pos))
    }

    /// Writes an extension value: an application type id and its bytes.
    pub fn ext(&mut self, type_id: u64, data: &[u8]) -> Result<()> {
        let pos = self.out.len();
        self.out.push(TAG_EXT);
        write_varint(&mut self.out, type_id);
        write_varint(&mut self.out, data.len() as u64);
        self.out.extend_from_slice(data);
        self.place(Pending::record(pos))
    }

    /// Writes a typed numeric vector, its data aligned to the element size.
    pub fn vector<T: VectorElement>(&mut self, data: &[T]) -> Result<()> {
        self.vector_raw(T::ELEM, &le_bytes(data))
    }

    /// Writes a typed numeric vector from little-endian element bytes
    /// (`data.len()` must be a multiple of the element size).
    pub fn vector_raw(&mut self, elem: ElemType, data: &[u8]) -> Result<()> {
        let size = elem.size();
        if data.len() % size != 0 {
            return Err(Error::new(ErrorKind::Unsupported)
                .with_message("vector data is not a whole number of elements"));
        }
        let pos = self.out.len();
        self.out.push(TAG_VECTOR);
        self.out.push(elem as u8);
        write_varint(&mut self.out, (data.len() / size) as u64);
        let start = self.out.len().next_multiple_of(size);
        self.out.resize(start, 0);
        self.out.extend_from_slice(data);
        self.place(Pending::record(pos))
    }

    /// Writes a typed numeric vector of two or more dimensions (`shape`,
    /// outermost first) from its elements in row-major (C) order: a shaped
    /// vector record (`23`), which makes the document a version 2 one.
    /// An error unless `shape` has 2 to [`SHAPED_VECTOR_MAX_NDIM`]
    /// dimensions whose product is `data.len()`.
    ///
    /// ```
    /// let mut enc = roving::Encoder::new();
    /// enc.shaped_vector(&[2, 2], &[1.5f64, 2.5, 3.5, 4.5])?;
    /// let bytes = enc.finish()?;
    /// assert_eq!(bytes[2], 2); // format version 2
    /// let doc = roving::Document::open(&bytes)?;
    /// let v = doc.root().as_vector().unwrap();
    /// assert_eq!(v.shape(), [2, 2]);
    /// assert_eq!(v.to_vec::<f64>(), Some(vec![1.5, 2.5, 3.5, 4.5]));
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn shaped_vector<T: VectorElement>(&mut self, shape: &[usize], data: &[T]) -> Result<()> {
        self.shaped_vector_raw(T::ELEM, shape, &le_bytes(data))
    }

    /// [`shaped_vector`](Self::shaped_vector) from little-endian element
    /// bytes, row-major.
    pub fn shaped_vector_raw(
        &mut self,
        elem: ElemType,
        shape: &[usize],
        data: &[u8],
    ) -> Result<()> {
        let bad = |why: &str| Err(Error::new(ErrorKind::Unsupported).with_message(why.to_string()));
        if !(2..=SHAPED_VECTOR_MAX_NDIM).contains(&shape.len()) {
            return bad("a shaped vector has 2 to 64 dimensions");
        }
        let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if count.and_then(|n| n.checked_mul(elem.size())) != Some(data.len()) {
            return bad("the product of a shaped vector's dimensions is not its element count");
        }
        if !shaped_vector_rows_ok(shape.iter().map(|&d| d as u64)) {
            return Err(Error::new(ErrorKind::Unsupported).with_message(format!(
                "a shaped vector without elements has at most {SHAPED_VECTOR_MAX_EMPTY_ROWS} \
                 rows (the product of its dimensions before the first 0)"
            )));
        }
        self.require_version(VERSION_2);
        let pos = self.out.len();
        self.out.push(TAG_SHAPED_VECTOR);
        self.out.push(elem as u8);
        write_varint(&mut self.out, shape.len() as u64);
        for &d in shape {
            write_varint(&mut self.out, d as u64);
        }
        let start = self.out.len().next_multiple_of(elem.size());
        self.out.resize(start, 0);
        self.out.extend_from_slice(data);
        self.place(Pending::record(pos))
    }

    /// Writes the integer record of `v` (the narrowest of `i8` to `i64`)
    /// and returns its position.
    pub(super) fn int_record(&mut self, v: i64) -> usize {
        let pos = self.out.len();
        if let Ok(x) = i8::try_from(v) {
            self.out.push(TAG_I8);
            self.out.push(x as u8);
        } else if let Ok(x) = i16::try_from(v) {
            self.out.push(TAG_I16);
            self.out.extend_from_slice(&x.to_le_bytes());
        } else if let Ok(x) = i32::try_from(v) {
            self.out.push(TAG_I32);
            self.out.extend_from_slice(&x.to_le_bytes());
        } else {
            self.out.push(TAG_I64);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
        pos
    }
}

/// The little-endian bytes of `data`: the slice itself on a little-endian
/// host, else a copy with each element's bytes reversed.
fn le_bytes<T: VectorElement>(data: &[T]) -> std::borrow::Cow<'_, [u8]> {
    let bytes: &[u8] = bytemuck::cast_slice(data);
    if cfg!(target_endian = "big") {
        let size = T::ELEM.size();
        return bytes
            .chunks_exact(size)
            .flat_map(|c| c.iter().rev().copied())
            .collect();
    }
    bytes.into()
}

/// Appends the first `len` bytes of `rec` to `out`, as one fixed-size
/// copy into reserved capacity (no call to `memcpy`).
#[inline(always)]
fn put_prefix<const N: usize>(out: &mut Vec<u8>, rec: &[u8; N], len: usize) {
    out.reserve(N);
    let old = out.len();
    match out.spare_capacity_mut().first_chunk_mut::<N>() {
        Some(d) if len <= N => {
            *d = rec.map(std::mem::MaybeUninit::new);
            // SAFETY: the `N >= len` bytes of capacity after the old
            // length were all written just above.
            unsafe { out.set_len(old + len) };
        }
        // Unreachable after the reserve (and `len <= N` at every call).
        _ => out.extend_from_slice(&rec[..len.min(N)]),
    }
}

/// Size of the integer record [`Encoder::int_record`] writes for `v`.
pub(super) fn int_record_len(v: i64) -> usize {
    if i8::try_from(v).is_ok() {
        2
    } else if i16::try_from(v).is_ok() {
        3
    } else if i32::try_from(v).is_ok() {
        5
    } else {
        9
    }
}
