//! The full checker: every rule of every record, and the error reported
//! for the first one broken.

mod num_map;
mod packed_shape;
mod str_array;
mod stride_array;

use super::ascii::is_ascii_long;
use super::*;

impl Validator<'_, '_> {
    /// The forward scan over all records (rule 3: they tile the input);
    /// then the root record at `root_pos` must be the last one.
    ///
    /// Records that start at least [`WINDOW`] bytes before the end go
    /// through [`fast_run`], which accepts the common valid records with
    /// few checks (a `WINDOW`-byte view needs no bounds checks). Everything
    /// it does not accept, and all records near the end, go through
    /// [`Self::record`], which checks every rule and tells what is wrong.
    pub(super) fn scan<const MODE: u8>(&mut self, root_pos: usize, start: usize) -> Result<()> {
        let buf = self.buf;
        let n = buf.len();
        let mut pos = start;
        let avx2 = if MODE == AUTO { Avx2::detect() } else { None };
        loop {
            if MODE != FULL {
                pos = fast_run(self.fast, self.starts, &mut self.sh, n, pos, avx2);
                if pos > n {
                    // A record taken on the padded copy ends beyond the
                    // document (records tile, so it is the last one taken):
                    // left to the full checker (see `validate_with`).
                    self.overrun = true;
                    return Ok(());
                }
            }
            if pos >= n {
                break;
            }
            if MODE == FULL || is_value_tag(buf[pos]) {
                self.mark(pos);
            }
            if MODE != FULL && pos == root_pos {
                // The root record, last (`locate_root` checked its two
                // tags): only its slot is left to check.
                let w = tag_width(buf[pos]);
                if pos + w + 2 == n && slots_ok::<false>(buf, self.starts, pos + 1, n - 1, w, pos) {
                    return Ok(());
                }
            }
            pos = self.record(pos)?;
        }
        if MODE != FULL {
            // The scan ended without reaching the root record (which is not
            // marked in this mode's bitmap): the full checker tells why.
            return err(ErrorKind::BadTrailer, root_pos);
        }
        // Records end exactly at `n` (`record` never goes beyond). The
        // record at `root_pos` is `w + 2` bytes long and ends at `n`, so if
        // one starts there it is the last one.
        if !self.is_start(root_pos) {
            let last = (0..n).rev().find(|&p| self.is_start(p)).unwrap_or(0);
            return Err(Error::at(ErrorKind::BadTrailer, last));
        }
        Ok(())
    }

    /// Marks `pos` (< `buf.len()`) as a record start.
    #[inline(always)]
    fn mark(&mut self, pos: usize) {
        debug_assert!(pos < self.buf.len());
        // SAFETY: pos < buf.len(), and `starts` has buf.len() / 64 + 1 words.
        unsafe { *self.starts.get_unchecked_mut(pos / 64) |= 1 << (pos % 64) };
    }

    /// Whether a record starts at `p`, which must be < `buf.len()`.
    #[inline(always)]
    fn is_start(&self, p: usize) -> bool {
        assert!(p < self.buf.len());
        // SAFETY: p < buf.len() (checked above, and known to the optimizer
        // at the hot call sites), and `starts` has buf.len() / 64 + 1 words.
        unsafe { *self.starts.get_unchecked(p / 64) & (1 << (p % 64)) != 0 }
    }

    #[inline(always)]
    fn varint(&self, p: usize) -> Result<(u64, usize)> {
        match read_varint(self.buf, p) {
            Some(x) => Ok(x),
            None if p >= self.buf.len() => err(ErrorKind::Truncated, p),
            None => {
                // Truncated or malformed: tell which.
                let end = self.buf[p..].iter().position(|b| b & 0x80 == 0);
                match end {
                    None => err(ErrorKind::Truncated, p),
                    Some(_) => err(ErrorKind::BadVarint, p),
                }
            }
        }
    }

    /// `len` bytes at `p`, or an error.
    #[inline(always)]
    fn span(&self, p: usize, len: u64, at: usize) -> Result<usize> {
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| p.checked_add(l))
            .ok_or_else(|| Error::at(ErrorKind::BadLength, at))?;
        if end > self.buf.len() {
            return err(
                if len as usize <= self.buf.len() {
                    ErrorKind::Truncated
                } else {
                    ErrorKind::BadLength
                },
                at,
            );
        }
        Ok(end)
    }

    #[inline(always)]
    fn utf8(&self, p: usize, end: usize) -> Result<()> {
        let s = &self.buf[p..end];
        if is_ascii_long(s) || simdutf8::basic::from_utf8(s).is_ok() {
            Ok(())
        } else {
            let bad = std::str::from_utf8(s).err().map_or(0, |e| e.valid_up_to());
            err(ErrorKind::InvalidUtf8, p + bad)
        }
    }

    /// Validates the record at `pos`; returns the position after it. The
    /// common kinds are checked here, the others by [`Self::other_record`].
    #[inline(never)]
    fn record(&mut self, pos: usize) -> Result<usize> {
        use RecordKind::*;
        let buf = self.buf;
        let tag = buf[pos];
        let p = pos + 1;
        match RecordKind::of(tag) {
            Map => {
                let w = tag_width(tag);
                self.varint(p)?;
                let (s, q) =
                    map_shape_ref(buf, pos).ok_or_else(|| Error::at(ErrorKind::BadReference, p))?;
                let count = self.shape_count(s, p)?;
                let len = (count as u64)
                    .checked_mul(w as u64)
                    .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
                let end = self.span(q, len, pos)?;
                self.slots(q, end, w, pos)?;
                Ok(end)
            }
            Array => {
                let w = tag_width(tag);
                let (count, q) = self.varint(p)?;
                let len = count
                    .checked_mul(w as u64)
                    .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
                let end = self.span(q, len, pos)?;
                self.slots(q, end, w, pos)?;
                Ok(end)
            }
            Str => {
                let (len, p) = self.varint(p)?;
                let end = self.span(p, len, pos)?;
                self.utf8(p, end)?;
                Ok(end)
            }
            FDec => {
                let end = self.span(p, F_DEC_PAYLOAD as u64, pos)?;
                if (buf[p] as i8).unsigned_abs() > F_DEC_MAX_EXP as u8 {
                    return err(ErrorKind::NonCanonical, p);
                }
                Ok(end)
            }
            kind @ (ShortStr | I8 | I16 | I32 | I64 | U64 | F32 | F64 | BigIntPos | BigIntNeg
            | Timestamp | TimestampOffset | Bytes | Ext | Vector | Shape | Root
            | StrArray | StrideArray | PackedShape | NumMap | Unknown) => {
                self.other_record(pos, kind)
            }
            NumArray => self.num_array(pos),
            ShapedVector => self.shaped_vector(pos),
        }
    }

    /// Key count of the shape that a map at `at - 1` refers to at `s`.
    #[inline(always)]
    fn shape_count(&mut self, s: usize, at: usize) -> Result<usize> {
        let h = shape_slot(s);
        for (cached, count) in [self.sh.cache[h], self.sh.cache[h ^ 1]] {
            if cached == s {
                return Ok(count);
            }
        }
        if self.value_only {
            // Shapes are not in the bitmap: one of the shapes checked so far?
            let list = if self.sh.n <= FEW_SHAPES || s <= self.sh.few[FEW_SHAPES - 1].0 {
                &self.sh.few[..self.sh.n.min(FEW_SHAPES)]
            } else {
                &self.shapes[..]
            };
            let i = list
                .binary_search_by_key(&s, |&(p, _)| p)
                .or_else(|_| err(ErrorKind::BadReference, at))?;
            let count = list[i].1;
            self.cache_shape(s, count);
            return Ok(count);
        }
        if !self.is_start(s) {
            return err(ErrorKind::BadReference, at);
        }
        let shape = Shape::at(self.buf, s).ok_or_else(|| Error::at(ErrorKind::WrongTarget, at))?;
        self.cache_shape(s, shape.count);
        Ok(shape.count)
    }

    /// Notes the shape at `s` (a valid shape record of `count` keys, after
    /// all earlier ones): in the cache, and with [`Self::value_only`] in
    /// the list of shapes. A document with more than [`Self::shapes_max`]
    /// shapes is left to the full checker (an error here makes
    /// `validate_with` run it), so the list stays within `len / 4` bytes.
    #[inline(always)]
    fn checked_shape(&mut self, s: usize, count: usize) -> Result<()> {
        if self.value_only {
            if self.sh.n >= self.shapes_max() {
                return err(ErrorKind::BadLength, s);
            }
            match self.sh.few.get_mut(self.sh.n) {
                Some(e) => *e = (s, count),
                None => self.shapes.push((s, count)),
            }
            self.sh.n += 1;
        }
        self.cache_shape(s, count);
        Ok(())
    }

    /// Most shapes [`Self::shapes`] holds: 16 bytes each, `len / 4` bytes in all.
    fn shapes_max(&self) -> usize {
        self.buf.len() / 64 + 4
    }

    /// Puts the shape at `s` (a valid shape record of `count` keys) in the cache.
    #[inline(always)]
    pub(super) fn cache_shape(&mut self, s: usize, count: usize) {
        // Cached counts are at most len / 8, so count * width cannot overflow.
        // Two ways: the entry at h moves to h ^ 1, so two shapes whose
        // entries collide stay cached.
        let h = shape_slot(s);
        if count <= self.buf.len() / 8 && self.sh.cache[h].0 != s {
            self.sh.cache[h ^ 1] = self.sh.cache[h];
            self.sh.cache[h] = (s, count);
        }
    }

    /// The records of `kind` at `pos` other than long strings, arrays,
    /// maps and decimal floats (which [`Self::record`] checks).
    #[inline(never)]
    fn other_record(&mut self, pos: usize, kind: RecordKind) -> Result<usize> {
        use RecordKind::*;
        let buf = self.buf;
        let tag = buf[pos];
        let p = pos + 1;
        match kind {
            ShortStr => {
                let end = self.span(p, short_str_len(tag) as u64, pos)?;
                self.utf8(p, end)?;
                Ok(end)
            }
            I8 | I16 | I32 | I64 | U64 | F32 | F64 => {
                self.span(p, kind.fixed_payload().unwrap_or(0) as u64, pos)
            }
            BigIntPos | BigIntNeg => {
                let (len, q) = self.varint(p)?;
                let end = self.span(q, len, pos)?;
                let mag = &buf[q..end];
                let canonical = match mag.last() {
                    None | Some(0) => false,
                    Some(_) if kind == BigIntPos => mag.len() > 8,
                    Some(_) => {
                        mag.len() > 8
                            || (mag.len() == 8
                                && u64::from_le_bytes(mag.try_into().unwrap_or([0; 8])) > 1 << 63)
                    }
                };
                if !canonical {
                    return err(ErrorKind::NonCanonical, pos);
                }
                Ok(end)
            }
            Timestamp | TimestampOffset => {
                let n = kind.fixed_payload().unwrap_or(0);
                let end = self.span(p, n as u64, pos)?;
                let (_, nanos, offset) = timestamp_record(buf, pos, tag)
                    .ok_or_else(|| Error::at(ErrorKind::Truncated, p))?;
                if nanos > crate::Timestamp::MAX_NANOS {
                    return err(ErrorKind::NonCanonical, p + TIMESTAMP_NANOS_AT);
                }
                if let Some(o) = offset {
                    if o.unsigned_abs() > crate::Timestamp::MAX_OFFSET.unsigned_abs() {
                        return err(ErrorKind::NonCanonical, p + TIMESTAMP_OFFSET_AT);
                    }
                }
                Ok(end)
            }
            Bytes => {
                let (len, q) = self.varint(p)?;
                self.span(q, len, pos)
            }
            Ext => {
                let (_, q) = self.varint(p)?;
                let (len, q) = self.varint(q)?;
                self.span(q, len, pos)
            }
            Vector => {
                let code = *buf
                    .get(p)
                    .ok_or_else(|| Error::at(ErrorKind::Truncated, p))?;
                let elem = ElemType::from_code(code)
                    .ok_or_else(|| Error::at(ErrorKind::UnknownTag(code), p))?;
                let (count, q) = self.varint(p + 1)?;
                self.vector_data(pos, q, count, elem)
            }
            Shape => self.shape(pos, tag_width(tag)),
            Root => {
                let w = tag_width(tag);
                let q = self.span(p, w as u64 + 1, pos)?;
                self.slots(p, q - 1, w, pos)?;
                if buf[q - 1] != tag {
                    return err(ErrorKind::BadTrailer, q - 1);
                }
                Ok(q)
            }
            StrArray => self.str_array(pos),
            StrideArray => self.stride_array(pos),
            PackedShape => self.packed_shape(pos),
            NumMap => self.num_map(pos),
            Unknown => Err(unknown_tag(buf, tag, pos)),
            // Checked by `record`, which never passes them here.
            Str | FDec | Array | Map | NumArray | ShapedVector => self.record(pos),
        }
    }

    /// Validates a number array record (`30`-`3A`): only in a version 2
    /// document [UnknownTag otherwise, as for a version 1 reader], its
    /// elements within the input, and a decimal one's exponent in
    /// -22..=22 [NonCanonical, as for a decimal float record].
    #[inline(never)]
    fn num_array(&self, pos: usize) -> Result<usize> {
        let buf = self.buf;
        let tag = buf[pos];
        if !allows_v2(buf) {
            return Err(unknown_tag(buf, tag, pos));
        }
        let (count, mut q) = self.varint(pos + 1)?;
        let size = match ElemType::from_code(tag.wrapping_sub(TAG_NUM_ARRAY)) {
            Some(e) => e.size(),
            None => {
                // `3A`: the exponent, then i32 mantissas.
                self.span(q, 1, pos)?;
                if (buf[q] as i8).unsigned_abs() > F_DEC_MAX_EXP as u8 {
                    return err(ErrorKind::NonCanonical, q);
                }
                q += 1;
                4
            }
        };
        let len = count
            .checked_mul(size as u64)
            .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        self.span(q, len, pos)
    }

    /// Validates the shaped vector record (`23`) at `pos` (rule 11):
    /// a version 2 document, a defined element type, `ndim` of 2 to
    /// [`SHAPED_VECTOR_MAX_NDIM`], dimensions whose product times the
    /// element size does not overflow, at most
    /// [`SHAPED_VECTOR_MAX_EMPTY_ROWS`] rows when there are no elements,
    /// zero padding, the data in bounds.
    #[inline(never)]
    fn shaped_vector(&mut self, pos: usize) -> Result<usize> {
        let buf = self.buf;
        if !allows_v2(buf) {
            return Err(unknown_tag(buf, buf[pos], pos)
                .with_message("a version 2 record in a version 1 document"));
        }
        let p = pos + 1;
        let code = *buf
            .get(p)
            .ok_or_else(|| Error::at(ErrorKind::Truncated, p))?;
        let elem =
            ElemType::from_code(code).ok_or_else(|| Error::at(ErrorKind::UnknownTag(code), p))?;
        let (ndim, mut q) = self.varint(p + 1)?;
        if ndim < 2 {
            return err(ErrorKind::NonCanonical, p + 1);
        }
        if ndim > SHAPED_VECTOR_MAX_NDIM as u64 {
            return err(ErrorKind::BadLength, p + 1);
        }
        let dims_at = q;
        let mut count = 1u64;
        for _ in 0..ndim {
            let (d, r) = self.varint(q)?;
            count = count
                .checked_mul(d)
                .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
            q = r;
        }
        if count == 0 {
            if let Some(e) = empty_shape_rows_fault(buf, pos, dims_at, ndim as usize) {
                return Err(e);
            }
        }
        self.vector_data(pos, q, count, elem)
    }

    /// The padding at `q` and the data of `count` elements of a vector or
    /// shaped vector record at `pos` (rule 11): zero padding to the element
    /// size, the data within the input; returns the record's end.
    #[inline(always)]
    fn vector_data(&self, pos: usize, q: usize, count: u64, elem: ElemType) -> Result<usize> {
        let start = vector_data_start(q, elem);
        let pad_end = self.span(q, (start - q) as u64, pos)?;
        if self.buf[q..pad_end].iter().any(|&b| b != 0) {
            return err(ErrorKind::NonCanonical, q);
        }
        let len = count
            .checked_mul(elem.size() as u64)
            .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        self.span(start, len, pos)
    }

    /// Checks the value slots in `buf[p..end]` (in bounds) of the container at `base`.
    #[inline(always)]
    fn slots(&self, p: usize, end: usize, w: usize, base: usize) -> Result<()> {
        if self.value_only {
            if slots_ok::<false>(self.buf, self.starts, p, end, w, base) {
                return Ok(());
            }
            // Reported by the full checker (see `value_only`).
            return err(ErrorKind::BadReference, p);
        }
        if slots_ok::<true>(self.buf, self.starts, p, end, w, base) {
            Ok(())
        } else {
            self.slot_error(p, end, w, base)
        }
    }

    /// The first invalid value slot in `buf[p..end]`, as an error.
    #[cold]
    #[inline(never)]
    fn slot_error(&self, p: usize, end: usize, w: usize, base: usize) -> Result<()> {
        for at in (p..end).step_by(w) {
            let raw =
                read_uint(self.buf, at, w).ok_or_else(|| Error::at(ErrorKind::Truncated, at))?;
            match decode_slot(raw, w, base) {
                Some(Slot::Special(s)) if s >= SPECIAL_COUNT => {
                    return err(ErrorKind::BadImmediate, at)
                }
                Some(Slot::Ref(t)) => {
                    if !self.is_start(t) {
                        return err(ErrorKind::BadReference, at);
                    }
                    if !is_value_tag(self.buf[t]) {
                        return err(ErrorKind::WrongTarget, at);
                    }
                }
                Some(_) => {}
                None => return err(ErrorKind::BadReference, at),
            }
        }
        Ok(())
    }

    /// The key slots of a shape in `buf[p..end]` (in bounds): each is the
    /// empty-string constant or a reference to a string record
    /// [BadReference, WrongTarget]. Pushes to `hashes` the key hash of each
    /// key (long keys hashed once per record, see [`Self::key_hash_of`]).
    fn key_hashes<const W: usize>(
        &mut self,
        p: usize,
        end: usize,
        base: usize,
        hashes: &mut Vec<u64>,
    ) -> Result<()> {
        let buf = self.buf;
        for (i, c) in buf[p..end].chunks_exact(W).enumerate() {
            let at = p + i * W;
            let h = match decode_slot(read_uint_fixed::<W>(c), W, base) {
                Some(Slot::Special(SPECIAL_EMPTY_STR)) => key_hash(b""),
                Some(Slot::Ref(t)) => {
                    if !self.is_start(t) {
                        return err(ErrorKind::BadReference, at);
                    }
                    let tag = buf[t];
                    if is_short_str(tag) {
                        // A string record before the shape: already checked.
                        let len = short_str_len(tag);
                        key_hash(buf.get(t + 1..t + 1 + len).unwrap_or(&[]))
                    } else if tag == TAG_STR {
                        let bytes = str_record(buf, t).unwrap_or(&[]);
                        self.key_hash_of(t, bytes)
                    } else {
                        return err(ErrorKind::WrongTarget, at);
                    }
                }
                Some(_) => return err(ErrorKind::WrongTarget, at),
                None => return err(ErrorKind::BadReference, at),
            };
            hashes.push(h);
        }
        Ok(())
    }

    /// The key slots of a shape of at most [`SHAPE_LINEAR_MAX`] keys, in
    /// `buf[p..end]` (in bounds), as [`Self::key_hashes`]; then, if every key
    /// is at most 64 bytes long, checks that the keys are distinct by
    /// comparing their bytes (at most 28 pairs of at most 64 bytes: cheaper
    /// than hashing them, and bounded) and returns true. Returns false,
    /// with the duplicates left to the hashing path, if a key is longer
    /// (long keys can be shared by many shapes: comparing them again in
    /// each would not be linear time).
    #[inline(always)]
    fn small_shape_keys(&self, p: usize, end: usize, w: usize, base: usize) -> Result<bool> {
        let buf = self.buf;
        let mut keys: [&[u8]; SHAPE_LINEAR_MAX] = [&[]; SHAPE_LINEAR_MAX];
        let mut short = true;
        for (i, at) in (p..end).step_by(w).enumerate() {
            let raw = read_uint(buf, at, w).ok_or_else(|| Error::at(ErrorKind::Truncated, at))?;
            match decode_slot(raw, w, base) {
                Some(Slot::Special(SPECIAL_EMPTY_STR)) => keys[i] = &[],
                Some(Slot::Ref(t)) => {
                    if !self.is_start(t) {
                        return err(ErrorKind::BadReference, at);
                    }
                    let tag = buf[t];
                    if is_short_str(tag) {
                        // Validated (t < base): its bytes are within `buf`.
                        keys[i] = buf.get(t + 1..t + 1 + short_str_len(tag)).unwrap_or(&[]);
                    } else if tag == TAG_STR {
                        short = false;
                    } else {
                        return err(ErrorKind::WrongTarget, at);
                    }
                }
                Some(_) => return err(ErrorKind::WrongTarget, at),
                None => return err(ErrorKind::BadReference, at),
            }
        }
        if !short {
            return Ok(false);
        }
        let n = (end - p) / w;
        for i in 1..n {
            for j in 0..i {
                if keys[i] == keys[j] {
                    return err(ErrorKind::DuplicateKey, p + i * w);
                }
            }
        }
        Ok(true)
    }

    /// Whether the key slots of width `W` in `buf[p..end]` (in bounds, at
    /// most [`SHAPE_LINEAR_MAX`]) of the shape at `base` are valid, all
    /// keys are short strings (or the empty-string constant) and distinct.
    /// `false` leaves it to [`Self::small_shape_keys`].
    #[inline(always)]
    fn small_shape_ok<const W: usize>(&self, p: usize, end: usize, base: usize) -> bool {
        let buf = self.buf;
        let Some(head) = buf.get(..base) else {
            return false;
        };
        if self.starts.len() <= base / 64 {
            return false;
        }
        // (Start, length) of each key's bytes.
        let mut keys = [(0usize, 0usize); SHAPE_LINEAR_MAX];
        let mut n = 0;
        for c in buf[p..end].chunks_exact(W).take(SHAPE_LINEAR_MAX) {
            let raw = read_uint_fixed::<W>(c);
            if raw & 1 != 0 {
                if raw != special_slot(SPECIAL_EMPTY_STR) {
                    return false;
                }
                keys[n] = (0, 0);
            } else {
                let t = ref_target(raw, base);
                if t >= head.len() {
                    return false;
                }
                // SAFETY: t < base and starts.len() > base / 64 (checked above).
                let word = unsafe { *self.starts.get_unchecked(t / 64) };
                let tag = head[t];
                if word & (1 << (t % 64)) == 0 || !is_short_str(tag) {
                    return false;
                }
                keys[n] = (t + 1, short_str_len(tag));
            }
            n += 1;
        }
        // A short string record before `base` (validated) lies within `head`.
        let bytes = |(s, l): (usize, usize)| head.get(s..s + l);
        for i in 1..n {
            for j in 0..i {
                if keys[i].1 == keys[j].1 && bytes(keys[i]) == bytes(keys[j]) {
                    return false;
                }
            }
        }
        true
    }

    /// Validates a shape record: key slots, no duplicate keys, and an index
    /// through which every key is found by linear probing.
    fn shape(&mut self, pos: usize, w: usize) -> Result<usize> {
        let (count, q) = self.varint(pos + 1)?;
        let len = count
            .checked_mul(w as u64)
            .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        let keys_end = self.span(q, len, pos)?;
        if count <= SHAPE_LINEAR_MAX as u64 {
            // No index, and (for short keys) no hashes: compare the keys.
            // The common case first (valid, all keys short), then the
            // general one, which reports what is wrong.
            let ok = match w {
                1 => self.small_shape_ok::<1>(q, keys_end, pos),
                2 => self.small_shape_ok::<2>(q, keys_end, pos),
                4 => self.small_shape_ok::<4>(q, keys_end, pos),
                _ => self.small_shape_ok::<8>(q, keys_end, pos),
            };
            if ok || self.small_shape_keys(q, keys_end, w, pos)? {
                self.checked_shape(pos, count as usize)?;
                return Ok(keys_end);
            }
        }
        // A shape with an index (or one of long keys): its key slots and
        // their key hashes, in one pass.
        let mut hashes = Vec::with_capacity(count as usize);
        match w {
            1 => self.key_hashes::<1>(q, keys_end, pos, &mut hashes)?,
            2 => self.key_hashes::<2>(q, keys_end, pos, &mut hashes)?,
            4 => self.key_hashes::<4>(q, keys_end, pos, &mut hashes)?,
            _ => self.key_hashes::<8>(q, keys_end, pos, &mut hashes)?,
        }
        let shape = Shape::at(self.buf, pos).ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        let count = shape.count;
        let end = self.index_end(&shape, keys_end)?;

        self.distinct_keys(&shape, &hashes, keys_end, q, w)?;
        self.checked_shape(pos, count)?;
        Ok(end)
    }

    /// The end of `shape`'s hash index, which starts at `keys_end` (there
    /// if it has none), within the input.
    pub(super) fn index_end(&mut self, shape: &Shape, keys_end: usize) -> Result<usize> {
        let end = if shape.count > SHAPE_LINEAR_MAX {
            let bytes = (shape.table_size() as u64)
                .checked_mul(index_entry_width(shape.count) as u64)
                .ok_or_else(|| Error::at(ErrorKind::BadLength, shape.pos))?;
            self.span(keys_end, bytes, shape.pos)?
        } else {
            keys_end
        };
        debug_assert_eq!(end, shape.end());
        Ok(end)
    }

    /// Checks that the keys of `shape` (their key hashes `hashes`) are
    /// distinct and, with more than [`SHAPE_LINEAR_MAX`] keys, its hash
    /// index at `index` (`BadIndex`); a duplicate is reported at
    /// `first + i * w` (`DuplicateKey`: the key's slot, or for a packed
    /// shape, `w` 0, the record).
    pub(super) fn distinct_keys(
        &mut self,
        shape: &Shape,
        hashes: &[u64],
        index: usize,
        first: usize,
        w: usize,
    ) -> Result<()> {
        let count = shape.count;
        // The pairs of keys with equal key hashes: from the index's runs,
        // or comparing them all in a shape without an index.
        let mut colliding: Vec<(usize, usize)> = Vec::new();
        if count > SHAPE_LINEAR_MAX {
            match index_entry_width(count) {
                1 => self.index::<1>(shape, hashes, index, &mut colliding)?,
                2 => self.index::<2>(shape, hashes, index, &mut colliding)?,
                _ => self.index::<4>(shape, hashes, index, &mut colliding)?,
            }
        } else {
            for i in 1..count {
                for j in 0..i {
                    if hashes[i] == hashes[j] {
                        colliding.push((j, i));
                    }
                }
            }
        }
        // Equal key hashes: the same record is a duplicate; different
        // records are told apart by a keyed hash, random per run, so no
        // input can force long byte comparisons. A packed shape's keys
        // have no records: each non-empty key is its own, and empty keys
        // are one (as the empty-string constant of a shape's slots).
        if !colliding.is_empty() {
            let buf = self.buf;
            let record = |i: usize| {
                if shape.is_packed() {
                    let empty = shape.key_bytes(buf, i).is_none_or(|k| k.is_empty());
                    (!empty).then_some(usize::MAX / 2 + i)
                } else {
                    shape.key_record(buf, i).flatten()
                }
            };
            let mut keyed_seen: HashMap<u64, usize> = HashMap::new();
            for (j, i) in colliding {
                if record(i) == record(j) {
                    return err(ErrorKind::DuplicateKey, first + i * w);
                }
                for k in [j, i] {
                    let kh = self.keyed_of(shape, k, record(k));
                    if let Some(&other) = keyed_seen.get(&kh) {
                        if other != k {
                            return err(ErrorKind::DuplicateKey, first + i * w);
                        }
                    }
                    keyed_seen.insert(kh, k);
                }
            }
        }
        Ok(())
    }

    /// The key hash of `bytes`, the string record at `rec`: short keys are
    /// hashed each time, long ones once per record, so that shapes sharing
    /// long keys cost linear time overall.
    fn key_hash_of(&mut self, rec: usize, bytes: &[u8]) -> u64 {
        if bytes.len() <= 64 {
            return key_hash(bytes);
        }
        let memo = self.key_hashes.get_or_insert_with(HashMap::new);
        *memo.entry(rec).or_insert_with(|| key_hash(bytes))
    }

    fn keyed_of(&mut self, shape: &Shape, i: usize, rec: Option<usize>) -> u64 {
        let r = rec.unwrap_or(usize::MAX);
        let memo = self.keyed.get_or_insert_with(HashMap::new);
        if let Some(&h) = memo.get(&r) {
            return h;
        }
        let h = self
            .keyed_hasher
            .get_or_insert_with(DefaultHashBuilder::default)
            .hash_one(shape.key_bytes(self.buf, i).unwrap_or(&[]));
        memo.insert(r, h);
        h
    }

    /// Checks a shape's hash index (entries of `E` bytes) in O(table
    /// size), and pushes to `colliding` the pairs of keys with equal key
    /// hashes, as `(j, i)` with `j < i` the first key of `i`'s hash,
    /// ordered by `i`.
    ///
    /// One walk around the table from an empty entry checks that each key
    /// has one entry and that no empty entry lies between a key's home and
    /// its entry. Keys with equal hashes have one home, so (the walk having
    /// found that rule kept) they are in the same run of non-empty entries:
    /// each run's hashes are compared among themselves ([`equal_hashes`]),
    /// in time linear in the run (expected, for a long one).
    fn index<const E: usize>(
        &mut self,
        shape: &Shape,
        hashes: &[u64],
        at: usize,
        colliding: &mut Vec<(usize, usize)>,
    ) -> Result<()> {
        let t = shape.table_size();
        let count = hashes.len();
        // Positions wrap around the table (of any size: a packed shape's
        // is not a power of two); `dist(p, q)` is how far `p` is after `q`.
        let wrap = |p: usize| if p >= t { p - t } else { p };
        let dist = |p: usize, q: usize| if p >= q { p - q } else { p + t - q };
        // In bounds: `shape` checked the index's span.
        let table = shape
            .index_table(self.buf)
            .ok_or_else(|| Error::at(ErrorKind::Truncated, at))?;
        let entry = |p: usize| index_entry::<E>(table, p);
        let Some(empty) = (0..t).find(|&p| entry(p) == 0) else {
            return err(ErrorKind::BadIndex, at);
        };
        self.seen.clear();
        self.seen.resize(count / 64 + 1, 0);
        let mut filled = 0usize;
        let mut run: Vec<(u64, usize)> = Vec::new();
        let mut run_start = wrap(empty + 1);
        for step in 1..=t {
            let p = wrap(empty + step);
            let e = entry(p);
            if e == 0 {
                run_start = wrap(p + 1);
                if run.len() > 1 {
                    equal_hashes(&mut run, colliding);
                }
                run.clear();
                continue;
            }
            let k = e - 1;
            if k >= count || self.seen[k / 64] & (1 << (k % 64)) != 0 {
                return err(ErrorKind::BadIndex, at);
            }
            self.seen[k / 64] |= 1 << (k % 64);
            filled += 1;
            let home = shape.home(hashes[k], t);
            if dist(p, home) > dist(p, run_start) {
                return err(ErrorKind::BadIndex, at);
            }
            run.push((hashes[k], k));
        }
        // The walk ends on the empty entry it started after.
        if filled != count {
            return err(ErrorKind::BadIndex, at);
        }
        colliding.sort_unstable_by_key(|&(_, i)| i);
        Ok(())
    }
}

/// Pushes to `colliding`, for the keys `(hash, index)` of one run of a
/// shape's index, a pair `(first, k)` for each key `k` whose hash an
/// earlier key `first` (the first of that hash) of the run has. A short
/// run's hashes are compared pairwise, a long one's sorted.
#[inline(never)]
fn equal_hashes(run: &mut [(u64, usize)], colliding: &mut Vec<(usize, usize)>) {
    const PAIRWISE_MAX: usize = 16;
    if run.len() <= PAIRWISE_MAX {
        // Equal hashes are rare: looked for first, paired if found.
        if !(1..run.len()).any(|i| run[..i].iter().any(|e| e.0 == run[i].0)) {
            return;
        }
        for &(h, k) in run.iter() {
            let first = run.iter().filter(|e| e.0 == h).map(|e| e.1).min();
            if let Some(first) = first.filter(|&f| f < k) {
                colliding.push((first, k));
            }
        }
        return;
    }
    // Sorted by hash, then key (in place: the caller clears the run next):
    // each key of a hash after the first (the least) is paired with it.
    // O(r log r) however the run was crafted, and cheaper than a hash
    // table for the runs of a dense index.
    run.sort_unstable();
    for g in run.chunk_by(|a, b| a.0 == b.0) {
        for &(_, k) in &g[1..] {
            colliding.push((g[0].1, k));
        }
    }
}
