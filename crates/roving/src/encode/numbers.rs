//! Number arrays (format version 2): an array whose elements are all
//! integers of 64 bits or all floats is written, when it ends, as one
//! number array record (`30`-`3A`) instead of its element records and a
//! record of slots.
//!
//! The elements were written as they came (inline integers pending,
//! integer and float records in the output); when the array ends, if its
//! slots are exactly those numbers and their records tile the output since
//! the array opened (nothing else was written in between, no slot refers
//! to an earlier record), the records are read back, the output is cut
//! back to where the array opened and the packed record written there.

use std::sync::atomic::Ordering;

use super::decimal::short_decimal;
use super::Encoder;
use crate::layout::*;

/// What the elements of an array are, found by [`Encoder::numbers_found`].
pub(super) enum Found {
    /// Integers from `lo` (at most 0) to `hi` (at least 0).
    Ints { lo: i64, hi: u64 },
    /// Floats: whether one needed a binary64 record (`09`), and whether all
    /// are binary32 records (`08`).
    Floats { f64s: bool, f32s: bool },
}

impl Encoder {
    /// If the array ending now (slots `slots[start..]`, opened when the
    /// output was `out_start` bytes long) holds only integers of 64 bits or
    /// only floats, written since it opened and not marked, rewrites them
    /// as one number array record at `out_start` and returns `out_start`;
    /// else changes nothing and returns `None`.
    #[inline]
    pub(super) fn pack_numbers(&mut self, start: usize, out_start: usize) -> Option<usize> {
        if self.marked.load(Ordering::Relaxed) > out_start {
            return None;
        }
        let found = self.numbers_found(start, out_start)?;
        self.pack_found(start, out_start, found, true)
    }

    /// [`Self::pack_numbers`] of numbers that [`Self::numbers_found`]
    /// found (`found`).
    #[inline(always)]
    fn pack_found(
        &mut self,
        start: usize,
        out_start: usize,
        found: Found,
        rows: bool,
    ) -> Option<usize> {
        let elem = self.packed_elements(start, out_start, found, rows)?;
        Some(self.put_packed(start, out_start, elem))
    }

    /// How the numbers of `slots[start..]` that [`Self::numbers_found`]
    /// found (`found`) are stored in a number array record, with their
    /// bytes left in `self.scratch`; `None` for integers that no element
    /// type holds. `rows` says whether the rule of a matrix's rows (an
    /// array of floats after an `f64` row is `f64`) applies, as it does to
    /// an array and not to a map's values.
    #[inline(always)]
    pub(super) fn packed_elements(
        &mut self,
        start: usize,
        out_start: usize,
        found: Found,
        rows: bool,
    ) -> Option<NumElem> {
        let int = match found {
            Found::Ints { lo, hi } => Some(int_elem(lo, hi)?),
            Found::Floats { .. } => None,
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let elem = match found {
            Found::Ints { .. } => {
                let e = int.unwrap_or(ElemType::I64);
                self.put_ints(start, e.size(), &mut scratch);
                NumElem::Binary(e)
            }
            // (An f64 row is f64 anyway: the test only for the others.)
            Found::Floats { f64s: false, .. }
                if rows
                    && self.follows_f64_row(
                        &self.top,
                        start,
                        out_start,
                        self.slots.len() - start,
                    ) =>
            {
                f64_payloads(&self.out, out_start, &mut scratch);
                NumElem::Binary(ElemType::F64)
            }
            Found::Floats {
                f64s: false,
                f32s: true,
            } => {
                // Each element's binary32, as its record holds it.
                for_each_record(&self.out, out_start, |tag, payload| {
                    if tag == TAG_F32 {
                        scratch.extend_from_slice(payload);
                    }
                });
                NumElem::Binary(ElemType::F32)
            }
            Found::Floats { f64s, .. } => match (!f64s)
                .then(|| self.decimals(out_start, &mut scratch))
                .flatten()
            {
                Some(e) => NumElem::Decimal(e),
                None => {
                    scratch.clear();
                    f64_payloads(&self.out, out_start, &mut scratch);
                    NumElem::Binary(ElemType::F64)
                }
            },
        };
        self.scratch = scratch;
        Some(elem)
    }

    /// Replaces the output from `out_start` (the records of `slots[start..]`)
    /// with the number array record of `self.scratch`'s elements, stored
    /// as `elem` ([`Self::packed_elements`]); returns its position.
    pub(super) fn put_packed(&mut self, start: usize, out_start: usize, elem: NumElem) -> usize {
        let n = self.slots.len() - start;
        self.out.truncate(out_start);
        let scratch = std::mem::take(&mut self.scratch);
        self.put_numbers(elem, n, &scratch);
        self.scratch = scratch;
        out_start
    }

    /// Whether `slots[start..]` are all integers or all floats, each
    /// either an inline integer or a number record, the records laid one
    /// after the other from `out_start` to the end of the output, in slot
    /// order: what they are, or `None`.
    pub(super) fn numbers_found(&self, start: usize, out_start: usize) -> Option<Found> {
        let out = &self.out;
        let mut at = out_start;
        let (mut lo, mut hi) = (0i64, 0u64);
        let (mut ints, mut floats, mut f64s, mut f32s) = (false, false, false, true);
        for p in &self.slots[start..] {
            match p.0 & 3 {
                SLOT_INT => {
                    let v = (p.0 as i64) >> 2;
                    ints = true;
                    lo = lo.min(v);
                    hi = hi.max(v.max(0) as u64);
                }
                SLOT_REL => {
                    let t = (p.0 >> 2) as usize;
                    if t != at {
                        return None;
                    }
                    let tag = *out.get(t)?;
                    let len = 1 + RecordKind::of(tag).fixed_payload()?;
                    let payload = out.get(t + 1..t + len)?;
                    match tag {
                        TAG_F32 => floats = true,
                        TAG_F64 => (floats, f64s, f32s) = (true, true, false),
                        TAG_F_DEC => (floats, f32s) = (true, false),
                        _ => {
                            let v = int_value(tag, payload)?;
                            ints = true;
                            match i64::try_from(v) {
                                Ok(v) => {
                                    lo = lo.min(v);
                                    hi = hi.max(v.max(0) as u64);
                                }
                                Err(_) => hi = hi.max(v as u64),
                            }
                        }
                    }
                    at += len;
                }
                _ => return None,
            }
        }
        if at != out.len() || (ints && floats) {
            return None;
        }
        Some(if ints {
            Found::Ints { lo, hi }
        } else {
            Found::Floats { f64s, f32s }
        })
    }

    /// Appends to `scratch` the integers of `slots[start..]` (checked by
    /// [`Self::numbers_found`]), each as its low `size` bytes.
    fn put_ints(&self, start: usize, size: usize, scratch: &mut Vec<u8>) {
        for p in &self.slots[start..] {
            let v = match p.0 & 3 {
                SLOT_INT => ((p.0 as i64) >> 2) as i128,
                _ => {
                    let t = (p.0 >> 2) as usize;
                    let tag = self.out.get(t).copied().unwrap_or(0);
                    let len = RecordKind::of(tag).fixed_payload().unwrap_or(0);
                    self.out
                        .get(t + 1..t + 1 + len)
                        .and_then(|b| int_value(tag, b))
                        .unwrap_or(0)
                }
            };
            scratch.extend_from_slice(&v.to_le_bytes()[..size]);
        }
    }

    /// Appends to `scratch` the `i32` mantissas of the float records from
    /// `out_start` (binary32 and decimal records only) at one common
    /// exponent, and returns it; `None` if an element has no decimal form
    /// (`-0.0`, NaN, infinities, values of more digits) or a mantissa does
    /// not fit `i32` at the smallest exponent.
    fn decimals(&self, out_start: usize, scratch: &mut Vec<u8>) -> Option<i8> {
        let mut decs: Vec<Option<(i32, i8)>> = Vec::new();
        let mut ok = true;
        for_each_record(&self.out, out_start, |tag, payload| {
            let d = match tag {
                TAG_F_DEC => {
                    let m = i32::from_le_bytes(payload[1..5].try_into().unwrap_or([0; 4]));
                    Some((m != 0).then_some((m, payload[0] as i8)))
                }
                _ => decimal_of(float_value(tag, payload)),
            };
            ok &= d.is_some();
            decs.push(d.flatten());
        });
        if !ok {
            return None;
        }
        put_decimals(&decs, scratch)
    }

    /// Writes an array of the floats `xs` as `begin_array`, an `f64` call
    /// per element and `end_array` would, without writing a record per
    /// element first: one number array record (or the empty array
    /// constant). Returns a mark of it.
    ///
    /// ```
    /// let mut a = roving::Encoder::new();
    /// a.array_f64(&[0.5, 0.1, -2.0])?;
    /// let mut b = roving::Encoder::new();
    /// b.begin_array()?;
    /// for x in [0.5, 0.1, -2.0] {
    ///     b.f64(x)?;
    /// }
    /// b.end_array()?;
    /// assert_eq!(a.finish()?, b.finish()?);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn array_f64(&mut self, xs: &[f64]) -> crate::Result<super::Mark> {
        if !xs.is_empty()
            && self.top.state == super::containers::ARRAY
            && self.frames.len() < self.max_depth
            && self.follows_f64_row(&self.top, self.slots.len(), self.out.len(), xs.len())
        {
            // The next row of a matrix: what `begin_array` and
            // `end_array_f64` would write, without opening a frame.
            let pos = self.put_f64_row(xs);
            let pending = super::pending::Pending::record(pos);
            self.place(pending)?;
            return Ok(super::Mark {
                pending,
                generation: self.generation,
            });
        }
        self.begin_array()?;
        self.end_array_f64(xs)
    }

    /// Writes the `f64` number array record of `xs` and returns its
    /// position.
    #[inline(always)]
    fn put_f64_row(&mut self, xs: &[f64]) -> usize {
        let pos = self.out.len();
        self.out
            .reserve(1 + varint_len(xs.len() as u64) + 8 * xs.len());
        self.put_numbers_head(NumElem::Binary(ElemType::F64), xs.len());
        for &v in xs {
            self.out.extend_from_slice(&v.to_le_bytes());
        }
        pos
    }

    /// Writes the floats `xs` as the elements of the open array and ends
    /// it: the bytes of an [`Encoder::f64`] call per element and
    /// [`Encoder::end_array`], in one step (as [`Encoder::array_f64`])
    /// when the array has no element yet.
    #[inline(always)]
    pub(crate) fn end_array_f64(&mut self, xs: &[f64]) -> crate::Result<super::Mark> {
        if xs.is_empty()
            || self.top.state != super::containers::ARRAY
            || self.slots.len() != self.top.slots_start
            || self.out.len() != self.top.out_start
        {
            for &x in xs {
                self.f64(x)?;
            }
            return self.end_array();
        }
        // As `f64` chooses each element's record, and `pack_numbers` the array's.
        let after_f64_row = self.frames.last().is_some_and(|parent| {
            self.follows_f64_row(parent, self.top.slots_start, self.out.len(), xs.len())
        });
        if after_f64_row {
            // The next row of a matrix: written in place.
            let pos = self.put_f64_row(xs);
            return self.close_packed(pos);
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let elem = if xs
            .iter()
            .all(|&v| f32_to_f64_exact(v as f32).to_bits() == v.to_bits())
        {
            for &v in xs {
                scratch.extend_from_slice(&(v as f32).to_le_bytes());
            }
            NumElem::Binary(ElemType::F32)
        } else {
            // (Most floats that are not binary32 have no short decimal
            // either: the first one tells, before anything is collected.)
            let decs = xs.split_first().and_then(|(&first, rest)| {
                let first = decimal_of(first)?;
                let mut decs = Vec::with_capacity(xs.len());
                decs.push(first);
                for &v in rest {
                    decs.push(decimal_of(v)?);
                }
                Some(decs)
            });
            match decs.and_then(|d| put_decimals(&d, &mut scratch)) {
                Some(e) => NumElem::Decimal(e),
                None => {
                    self.scratch = scratch;
                    let pos = self.put_f64_row(xs);
                    return self.close_packed(pos);
                }
            }
        };
        let pos = self.out.len();
        self.put_numbers(elem, xs.len(), &scratch);
        self.scratch = scratch;
        self.close_packed(pos)
    }

    /// Writes an array of the integers `xs` as `begin_array`, an `i64`
    /// call per element and `end_array` would: one number array record
    /// (or the empty array constant). Returns a mark of it.
    ///
    /// ```
    /// let mut a = roving::Encoder::new();
    /// a.array_i64(&[1, -300, 1 << 62])?;
    /// let mut b = roving::Encoder::new();
    /// b.begin_array()?;
    /// for x in [1, -300, 1 << 62] {
    ///     b.i64(x)?;
    /// }
    /// b.end_array()?;
    /// assert_eq!(a.finish()?, b.finish()?);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn array_i64(&mut self, xs: &[i64]) -> crate::Result<super::Mark> {
        self.begin_array()?;
        if xs.is_empty() {
            return self.end_array();
        }
        // (One pass, not `min()` then `max()`.)
        let (mut lo, mut hi) = (0i64, 0i64);
        for &v in xs {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        let hi = hi as u64;
        let e = int_elem(lo, hi).unwrap_or(ElemType::I64);
        // Straight into the output (`put_numbers`' head, then the numbers
        // at their width, a fixed-size copy each).
        let pos = self.out.len();
        self.put_numbers(NumElem::Binary(e), xs.len(), &[]);
        match e.size() {
            1 => put_ints::<1>(&mut self.out, xs),
            2 => put_ints::<2>(&mut self.out, xs),
            4 => put_ints::<4>(&mut self.out, xs),
            _ => put_ints::<8>(&mut self.out, xs),
        }
        self.close_packed(pos)
    }

    /// Writes a number array record of `n` elements `data`, stored as `elem`.
    fn put_numbers(&mut self, elem: NumElem, n: usize, data: &[u8]) {
        self.put_numbers_head(elem, n);
        self.out.extend_from_slice(data);
    }

    /// Writes the head of a number array record of `n` elements stored as
    /// `elem` (its elements follow), in a version 2 document.
    #[inline(always)]
    fn put_numbers_head(&mut self, elem: NumElem, n: usize) {
        self.out.push(elem.tag());
        write_varint(&mut self.out, n as u64);
        if let NumElem::Decimal(e) = elem {
            self.out.push(e as u8);
        }
        self.require_version(VERSION_2);
    }

    /// Ends the array opened by `array_f64` or `array_i64` (which wrote no
    /// slot) with the number array record at `pos` as its value.
    #[inline]
    pub(super) fn close_packed(&mut self, pos: usize) -> crate::Result<super::Mark> {
        let Some(outer) = self.frames.pop() else {
            return Err(crate::Error::new(crate::ErrorKind::EncoderState)
                .with_message("end_array without an open array"));
        };
        self.top = outer;
        let pending = super::pending::Pending::record(pos);
        self.place(pending)?;
        Ok(super::Mark {
            pending,
            generation: self.generation,
        })
    }
}

/// Appends to `scratch` the binary64 of each float record from `out_start`
/// to the end of `out`: the elements of an `f64` number array.
#[inline(always)]
fn f64_payloads(out: &[u8], out_start: usize, scratch: &mut Vec<u8>) {
    for_each_record(out, out_start, |tag, payload| {
        scratch.extend_from_slice(&float_value(tag, payload).to_le_bytes());
    });
}

/// Appends the integers `xs` to `out`, `N` bytes (little endian) each
/// (they fit).
#[inline(always)]
fn put_ints<const N: usize>(out: &mut Vec<u8>, xs: &[i64]) {
    let at = out.len();
    out.resize(at + xs.len() * N, 0);
    for (d, &v) in out[at..].chunks_exact_mut(N).zip(xs) {
        if let (Some(d), Some(b)) = (d.first_chunk_mut::<N>(), v.to_le_bytes().first_chunk::<N>()) {
            *d = *b;
        }
    }
}

/// The decimal form of the float `v` in a number array: `Some(None)` for
/// `+0.0` (any exponent holds it), `Some((m, e))` for the decimal float
/// record of `v` (its shortest decimal), `None` if it has none (`-0.0`,
/// NaN, infinities, too many digits).
#[inline]
fn decimal_of(v: f64) -> Option<Option<(i32, i8)>> {
    if v.to_bits() == 0 {
        return Some(None);
    }
    short_decimal(v).map(Some)
}

/// Appends the mantissas `decs` (`None`: `+0.0`) scaled to their smallest
/// exponent, and returns it; `None` if one does not fit `i32` there.
fn put_decimals(decs: &[Option<(i32, i8)>], scratch: &mut Vec<u8>) -> Option<i8> {
    let e = decs.iter().flatten().map(|&(_, e)| e).min()?;
    for d in decs {
        let m = match *d {
            None => 0,
            Some((m, de)) => {
                let k = (de - e) as u32;
                let m = (m as i64).checked_mul(10i64.checked_pow(k)?)?;
                i32::try_from(m).ok()?
            }
        };
        scratch.extend_from_slice(&m.to_le_bytes());
    }
    Some(e)
}

/// Calls `f(tag, payload)` for each record from `from` to the end of
/// `out`: number records of fixed size (checked by
/// [`Encoder::numbers_found`]).
#[inline(always)]
fn for_each_record(out: &[u8], from: usize, mut f: impl FnMut(u8, &[u8])) {
    let mut at = from;
    while let Some(&tag) = out.get(at) {
        let Some(len) = RecordKind::of(tag).fixed_payload() else {
            return;
        };
        let Some(payload) = out.get(at + 1..at + 1 + len) else {
            return;
        };
        f(tag, payload);
        at += 1 + len;
    }
}

/// The value of the float record (`08`, `09` or `20`) with `tag` and `payload`.
#[inline(always)]
fn float_value(tag: u8, payload: &[u8]) -> f64 {
    let word = |n: usize| {
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(payload.get(..n).unwrap_or(&[0; 8][..n]));
        u64::from_le_bytes(w)
    };
    match tag {
        TAG_F32 => f32_to_f64_exact(f32::from_bits(word(4) as u32)),
        TAG_F_DEC => f_dec_value((word(5) >> 8) as u32 as i32, word(1) as u8 as i8),
        _ => f64::from_bits(word(8)),
    }
}

/// The value of the integer record (`01`-`05`) with `tag` and `payload`;
/// `None` for other records.
#[inline(always)]
fn int_value(tag: u8, payload: &[u8]) -> Option<i128> {
    Some(match tag {
        TAG_I8 => i8::from_le_bytes(payload.try_into().ok()?) as i128,
        TAG_I16 => i16::from_le_bytes(payload.try_into().ok()?) as i128,
        TAG_I32 => i32::from_le_bytes(payload.try_into().ok()?) as i128,
        TAG_I64 => i64::from_le_bytes(payload.try_into().ok()?) as i128,
        TAG_U64 => u64::from_le_bytes(payload.try_into().ok()?) as i128,
        _ => return None,
    })
}

/// The narrowest integer element type holding every value from `lo`
/// (at most 0) to `hi` (at least 0), signed preferred at one size; `None`
/// if none does (negative values and values above `i64::MAX`).
fn int_elem(lo: i64, hi: u64) -> Option<ElemType> {
    use ElemType::*;
    let fits = |min: i64, max: u64| lo >= min && hi <= max;
    [
        (I8, i8::MIN as i64, i8::MAX as u64),
        (U8, 0, u8::MAX as u64),
        (I16, i16::MIN as i64, i16::MAX as u64),
        (U16, 0, u16::MAX as u64),
        (I32, i32::MIN as i64, i32::MAX as u64),
        (U32, 0, u32::MAX as u64),
        (I64, i64::MIN, i64::MAX as u64),
        (U64, 0, u64::MAX),
    ]
    .into_iter()
    .find(|&(_, min, max)| fits(min, max))
    .map(|(e, _, _)| e)
}
