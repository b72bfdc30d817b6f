//! Arrays of strings written as one string array record (`22`, format
//! version 2) instead of a string record for each new string and an array
//! of slots, where that is smaller (`docs/FORMAT.md` section 14).

use hashbrown::HashTable;

use super::pending::Pending;
use super::strings::{put_bytes, str_header_len};
use super::widths::need_width;
use super::{Encoder, Mark};
use crate::layout::*;

/// How many strings ahead [`Encoder::array_str`] starts a string's lookup.
const AHEAD: usize = 8;

/// Scratch space of [`Encoder::array_str`], kept for its allocations.
#[derive(Default)]
pub(super) struct StrListScratch {
    /// The strings' hashes (the string table's).
    hashes: Vec<u64>,
    /// The strings' lengths.
    lens: Vec<usize>,
    /// Two bit sets over the top bits of the hashes (see [`previous_copies`]).
    bits: Vec<u64>,
    /// The strings that may recur, by hash: the latest index of each (see
    /// [`previous_copies`]).
    seen: HashTable<usize>,
    /// (index, index of the previous equal string) of the strings equal
    /// to an earlier one (see [`previous_copies`]).
    copies: Vec<(usize, usize)>,
    /// The record each string would refer to in the slot form (see
    /// [`Encoder::slot_form_size`]).
    records: Vec<usize>,
}

/// Fewest elements of an array written as a string array record. From 4
/// the record can be smaller than the slot form, but it saves only a byte
/// or two per string, and each string of it that the document holds again
/// later gets a record of its own: on `1000people.json` the one array of
/// 7 tags packed at 4 cost 39 bytes in all, its words recurring later. At
/// 8, 16 or 32 that file is as before and the contacts of seed 003 (two
/// arrays of 150 and 99,999 strings) pack the same.
pub(super) const STR_ARRAY_MIN: usize = 8;

impl Encoder {
    /// Rewrites the array ending now, whose slots start at `slots_start`
    /// and whose records start at `out_start` in the output, as a string
    /// array record, if that is smaller and possible: every element is a
    /// non-empty string whose record is either one written inside the array
    /// (those records one after another, each string's first occurrence in
    /// the array, with nothing else written in between) or one written
    /// before it, and no mark was taken of one written inside. The record
    /// holds every element's bytes, repeats included. The strings written
    /// inside are then taken back out of the string table, so that a later
    /// equal string gets a record of its own. Returns the record's
    /// position.
    pub(super) fn try_str_array(
        &mut self,
        slots_start: usize,
        out_start: usize,
    ) -> Option<Pending> {
        let slots = self.slots.get(slots_start..)?;
        let n = slots.len();
        if n < STR_ARRAY_MIN || self.marked.load(std::sync::atomic::Ordering::Relaxed) > out_start {
            return None;
        }
        let here = self.out.len();
        let mut lens = Vec::with_capacity(n);
        // The records written inside the array, in order.
        let mut news = Vec::new();
        // The slot form's width, as `write_container` finds it: the
        // highest bit of every reference's need, OR-ed.
        let (mut at, mut refs) = (out_start, 0usize);
        for &p in slots {
            let t = p.record_pos()?;
            let (data, len) = string_record(&self.out, t)?;
            if t == at {
                news.push(t);
                at = data + len;
            } else if t >= out_start && (t > at || news.binary_search(&t).is_err()) {
                return None;
            }
            refs |= (here - t).min(t);
            lens.push(len);
        }
        if at != here {
            return None;
        }
        let width = need_width((refs as u64) << 2);
        let data_len: usize = lens.iter().sum();
        let slot_form = (here - out_start) + 1 + varint_len(n as u64) + n * width;
        let size = str_array_size(&lens, data_len);
        if size >= slot_form {
            return None;
        }
        // Every element's bytes, from its record (inside the array or
        // before it), read before the records inside are overwritten.
        let mut data = Vec::with_capacity(data_len);
        for &p in slots {
            let (d, len) = string_record(&self.out, p.record_pos()?)?;
            data.extend_from_slice(self.out.get(d..d + len)?);
        }
        // The strings written inside leave the string table (most of the
        // table at once in one pass).
        if 2 * news.len() >= self.strings.len() {
            self.strings.retain_before(out_start, news.len());
        } else {
            for &t in &news {
                self.strings.remove(&self.out, t);
            }
        }
        // Nor are they string records the document wrote any more (their
        // offsets are the last of `own_strs`, in order).
        let kept = self.own_strs.partition_point(|&p| p < out_start);
        self.own_strs.truncate(kept);
        self.out.truncate(out_start);
        self.out.reserve(size);
        write_str_array_head(&mut self.out, &lens, data_len);
        self.out.extend_from_slice(&data);
        debug_assert_eq!(self.out.len(), out_start + size);
        self.require_version(VERSION_2);
        Some(Pending::record(out_start))
    }
}

impl StrListScratch {
    /// The most entries of its buffers.
    pub(super) fn capacity(&self) -> usize {
        self.hashes
            .capacity()
            .max(self.lens.capacity())
            .max(self.bits.capacity())
            .max(self.seen.capacity())
            .max(self.copies.capacity())
            .max(self.records.capacity())
    }
}

impl Encoder {
    /// Writes an array of the strings `items` as `begin_array`, a
    /// [`Encoder::str`] per element and [`Encoder::end_array`] would, the
    /// same bytes, in fewer steps: a string array record is written
    /// directly when the array would end as one (rather than each string's
    /// record, then the array's), and otherwise each string is looked up
    /// with its lookup started a few strings ahead. Returns a mark of it.
    ///
    /// ```
    /// let words: Vec<String> = (0..20).map(|i| format!("w{i}")).collect();
    /// let words: Vec<&str> = words.iter().map(|w| w.as_str()).collect();
    /// let mut a = roving::Encoder::new();
    /// a.array_str(&words)?;
    /// let mut b = roving::Encoder::new();
    /// b.begin_array()?;
    /// for w in &words {
    ///     b.str(w)?;
    /// }
    /// b.end_array()?;
    /// assert_eq!(a.finish()?, b.finish()?);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn array_str(&mut self, items: &[&str]) -> crate::Result<Mark> {
        self.begin_array()?;
        let mut sc = self.str_scratch.take().unwrap_or_default();
        sc.hashes.clear();
        let r = match self.packed_strs(items, &mut sc) {
            Some(pos) => {
                self.require_version(VERSION_2);
                self.close_packed(pos)
            }
            None => self.strs_hashed(items, &mut sc.hashes),
        };
        self.str_scratch = Some(sc);
        r
    }

    /// The rest of [`Encoder::array_str`] when the array is not written as
    /// a string array record: each string as by [`Encoder::str`], then
    /// [`Encoder::end_array`]. `hashes` holds the hashes of the first
    /// strings, if any were computed.
    fn strs_hashed(&mut self, items: &[&str], hashes: &mut Vec<u64>) -> crate::Result<Mark> {
        let known = hashes.len();
        hashes.extend(
            items[known.min(items.len())..]
                .iter()
                .map(|s| self.strings.hash(s.as_bytes())),
        );
        for (i, (s, &h)) in items.iter().zip(hashes.iter()).enumerate() {
            if let Some(&ahead) = hashes.get(i + AHEAD) {
                self.strings.prefetch_hashed(ahead);
            }
            let pending = if s.is_empty() {
                Pending::special(SPECIAL_EMPTY_STR)
            } else {
                Pending::record(self.strings.intern_hashed(&mut self.out, s.as_bytes(), h))
            };
            self.place(pending)?;
        }
        self.end_array()
    }

    /// Writes the strings `items` as the string array record that
    /// [`Encoder::try_str_array`] would make of them, if it would (at
    /// least [`STR_ARRAY_MIN`] strings, none empty, and the record smaller
    /// than the slot form that writing them one by one would leave), and
    /// returns its position; else writes nothing (and `sc.hashes` holds
    /// the hashes of the strings, or of none if the sizes decided). It may
    /// also give up on an array that would pack (then the element-by-element
    /// path packs it): when the first strings show it likely would not.
    fn packed_strs(&mut self, items: &[&str], sc: &mut StrListScratch) -> Option<usize> {
        let n = items.len();
        if n < STR_ARRAY_MIN || items.iter().any(|s| s.is_empty()) || self.strings.is_wide() {
            return None;
        }
        // Sizes: the record, and the slot form if every string were new
        // and distinct (the most records it can write, nearly always its
        // largest: if the record is not smaller, the array is left to the
        // element-by-element path).
        sc.lens.clear();
        sc.lens.extend(items.iter().map(|s| s.len()));
        let out_start = self.out.len();
        let data_len = sc.lens.iter().sum::<usize>();
        let here = out_start + data_len + sc.lens.iter().map(|&l| str_header_len(l)).sum::<usize>();
        let (mut at, mut refs) = (out_start, 0usize);
        for &len in &sc.lens {
            refs |= (here - at).min(at);
            at += str_header_len(len) + len;
        }
        let width = need_width((refs as u64) << 2);
        let slot_form = (here - out_start) + 1 + varint_len(n as u64) + n * width;
        let size = str_array_size(&sc.lens, data_len);
        if size >= slot_form {
            return None;
        }
        // The record is written, then checked (each string's bytes are
        // read once, hashed and copied together), and taken back if the
        // slot form is smaller after all.
        self.out.reserve(size);
        write_str_array_head(&mut self.out, &sc.lens, data_len);
        let data = self.out.len();
        let mut at = 0;
        if let Some(spare) = self.out.spare_capacity_mut().get_mut(..data_len) {
            for (i, s) in items.iter().enumerate() {
                // (The strings a few ahead start loading: they are often
                // far apart in memory.)
                if let Some(a) = items.get(i + AHEAD) {
                    super::strings::prefetch(a.as_ptr());
                }
                let (b, n) = (s.as_bytes(), s.len());
                sc.hashes.push(self.strings.hash(b));
                let Some(d) = spare.get_mut(at..at + n) else {
                    break;
                };
                if !put_bytes(d, b) {
                    break; // unreachable: `d` is as long as `b`
                }
                at += n;
            }
        }
        if at != data_len {
            // Unreachable: `size` bytes were reserved, and `data_len` is
            // the strings' total length.
            self.out.truncate(out_start);
            return None;
        }
        // SAFETY: the `data_len` bytes of spare capacity after the head
        // (reserved above) were all written: each string's, one after the
        // other, their lengths adding up to `data_len` (checked).
        unsafe { self.out.set_len(data + data_len) };
        debug_assert_eq!(self.out.len(), out_start + size);
        match self.slot_form_size(items, sc, out_start, size) {
            Some(slot_form) if size < slot_form => Some(out_start),
            _ => {
                self.out.truncate(out_start);
                None
            }
        }
    }

    /// The size of the slot form that writing `items` (of hashes
    /// `sc.hashes`) one by one from `out_start` would leave, as
    /// [`Encoder::try_str_array`] measures it: the string records written
    /// inside the array (each string's first occurrence there, unless the
    /// string table finds it before, within its reach) and the array
    /// record. `None` when it gives up ([`previous_copies`] does, or so
    /// many of the first strings were written before that the slot form
    /// looks no larger than `size`, an estimate): the element-by-element
    /// path decides.
    fn slot_form_size(
        &self,
        items: &[&str],
        sc: &mut StrListScratch,
        out_start: usize,
        size: usize,
    ) -> Option<usize> {
        let n = items.len();
        if !previous_copies(
            items,
            &sc.hashes,
            &mut sc.bits,
            &mut sc.seen,
            &mut sc.copies,
        ) {
            return None;
        }
        let out = self.out.get(..out_start)?;
        let reach = self.strings.reach();
        sc.records.clear();
        sc.records.reserve(n);
        let mut end = out_start;
        // The next string that is a copy of an earlier one (`usize::MAX`:
        // none), and the index of that copy in `sc.copies`.
        let next_copy = |c: usize| sc.copies.get(c).map_or(usize::MAX, |&(i, _)| i);
        let (mut c, mut copy_at) = (0, next_copy(0));
        let mut check = 256;
        for (i, (s, &h)) in items.iter().zip(&sc.hashes).enumerate() {
            if let Some(&ahead) = sc.hashes.get(i + AHEAD) {
                self.strings.prefetch_hashed(ahead);
            }
            if i == check {
                // The slot form estimated from the strings so far (the
                // records written inside the array in proportion, and the
                // width that references to the middle of them need): most
                // arrays whose strings were written before give up here,
                // before the lookups of the rest.
                let inside = (end - out_start).saturating_mul(n) / i;
                if inside + n * need_width(((inside / 2) as u64) << 2) <= size {
                    return None;
                }
                check *= 4;
            }
            let found = if i == copy_at {
                // A repeat finds its string's latest record (that of its
                // previous occurrence), if within the reach (else it is
                // written again).
                let previous = sc.copies.get(c).map_or(usize::MAX, |&(_, p)| p);
                c += 1;
                copy_at = next_copy(c);
                sc.records
                    .get(previous)
                    .copied()
                    .filter(|&r| end.wrapping_sub(r) <= reach)
            } else {
                self.strings.find(out, s.as_bytes(), h, end)
            };
            let record = match found {
                Some(r) => r,
                None => {
                    let r = end;
                    end += str_header_len(s.len()) + s.len();
                    r
                }
            };
            sc.records.push(record);
        }
        let refs = sc
            .records
            .iter()
            .fold(0usize, |refs, &t| refs | (end - t).min(t));
        let width = need_width((refs as u64) << 2);
        Some((end - out_start) + 1 + varint_len(n as u64) + n * width)
    }
}

/// Finds the strings of `items` (of hashes `hashes`, as many) equal to an
/// earlier one, into `copies` as (index, index of the previous equal
/// string), in order of index; false if it gives up: more than half of
/// the first 1,024, 4,096, ... strings may recur (then the slot form is
/// likely smaller, and the element-by-element path decides), or too many
/// strings share a hash with a different one (more than 16 and one in 256:
/// each costs comparisons with the others of its hash). One pass over two bit sets of the
/// hashes' top bits (16 bits per string, so that they stay in the cache)
/// finds the strings whose bit was met twice, the only ones that may be
/// equal to another; those are looked up in `seen` (their latest index by
/// hash).
fn previous_copies(
    items: &[&str],
    hashes: &[u64],
    bits: &mut Vec<u64>,
    seen: &mut HashTable<usize>,
    copies: &mut Vec<(usize, usize)>,
) -> bool {
    copies.clear();
    seen.clear();
    let log = (hashes.len() * 16)
        .next_power_of_two()
        .trailing_zeros()
        .max(6);
    let shift = 64 - log;
    let words = 1usize << (log - 6);
    bits.clear();
    bits.resize(2 * words, 0);
    let (known, twice) = bits.split_at_mut(words);
    let (mut hits, mut check) = (0usize, 1024);
    for (i, &h) in hashes.iter().enumerate() {
        // (The words a few hashes ahead start loading.)
        if let Some(&a) = hashes.get(i + 2 * AHEAD) {
            let b = (a >> shift) as usize >> 6;
            if let (Some(s), Some(t)) = (known.get(b), twice.get(b)) {
                super::strings::prefetch((s as *const u64).cast());
                super::strings::prefetch((t as *const u64).cast());
            }
        }
        if i == check {
            if 2 * hits > i {
                return false;
            }
            check *= 4;
        }
        let b = (h >> shift) as usize;
        let (w, m) = (b >> 6, 1u64 << (b & 63));
        if let (Some(s), Some(t)) = (known.get_mut(w), twice.get_mut(w)) {
            if *s & m != 0 {
                *t |= m;
                hits += 1;
            }
            *s |= m;
        }
    }
    if hits == 0 {
        return true;
    }
    let mut collisions = 0;
    for (i, &h) in hashes.iter().enumerate() {
        let b = (h >> shift) as usize;
        if twice
            .get(b >> 6)
            .is_none_or(|t| t & (1u64 << (b & 63)) == 0)
        {
            continue;
        }
        let hash_of = |&j: &usize| hashes.get(j).copied().unwrap_or(0);
        match seen.find_mut(h, |&j| items[j] == items[i]) {
            Some(latest) => {
                copies.push((i, *latest));
                *latest = i;
            }
            None => {
                if seen.find(h, |&j| hashes[j] == h).is_some() {
                    // (A few are common: the hash is fast, not strong.)
                    collisions += 1;
                    if collisions > 16 + hashes.len() / 256 {
                        return false;
                    }
                }
                seen.insert_unique(h, i, hash_of);
            }
        }
    }
    true
}

/// The position and length of the bytes of the string record at `pos`.
#[inline(always)]
fn string_record(out: &[u8], pos: usize) -> Option<(usize, usize)> {
    let tag = *out.get(pos)?;
    if is_short_str(tag) {
        return Some((pos + 1, short_str_len(tag)));
    }
    let b = str_record(out, pos)?;
    Some((b.as_ptr() as usize - out.as_ptr() as usize, b.len()))
}

#[cfg(test)]
mod tests {
    use crate::Encoder;

    /// `array_str` writes the bytes of `begin_array`, `str` per item and
    /// `end_array`, for lists that pack and lists that do not: repeated
    /// strings, strings the document holds already, empty, long and
    /// non-ASCII strings, short lists, and lists long enough for the bit
    /// sets of `distinct` to meet the same bit twice.
    #[test]
    fn array_str_writes_the_bytes_of_str_per_item() {
        let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
        let words = |rng: &mut crate::test_rng::Rng, n: usize, pool: u64| -> Vec<String> {
            (0..n)
                .map(|i| match rng.next() % 40 {
                    0 => String::new(),
                    1 => "é".repeat(1 + (rng.next() % 40) as usize),
                    2 => format!("{i:>70}"),
                    3 => "earlier".to_owned(),
                    _ => format!("w{}", rng.next() % pool),
                })
                .collect()
        };
        let (mut a, mut b) = (Encoder::new(), Encoder::new());
        for round in 0..400 {
            let n = [0, 1, 7, 8, 9, 16, 17, 100, 3000][round % 9];
            // Distinct strings most of the time; repeats in a small pool.
            let pool = if round % 3 == 0 { 50 } else { 1 << 40 };
            let mut list = words(&mut rng, n, pool);
            if round % 2 == 0 {
                list.retain(|s| !s.is_empty() && s != "earlier");
            }
            let items: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
            for e in [&mut a, &mut b] {
                e.begin_array().unwrap();
                e.str("earlier").unwrap();
            }
            a.array_str(&items).unwrap();
            b.begin_array().unwrap();
            for s in &items {
                b.str(s).unwrap();
            }
            b.end_array().unwrap();
            for e in [&mut a, &mut b] {
                e.str("w1").unwrap();
                e.end_array().unwrap();
            }
            let (x, y) = (a.finish_reset().unwrap(), b.finish_reset().unwrap());
            assert_eq!(x, y, "round {round}: {n} strings");
            crate::Document::open(&x).unwrap();
        }
    }

    /// `array_str` copies strings of every length from 1 to 300 bytes (in
    /// words of up to 32 bytes, the last overlapping) exactly as writing
    /// each string does.
    #[test]
    fn array_str_copies_strings_of_every_length() {
        let text: String = (0..300u32)
            .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
            .collect();
        // (In a scrambled order: the estimate from the first strings of a
        // list of ever longer ones would give the list up to the slow path.)
        let items: Vec<&str> = (0..300).map(|i| &text[..(i * 37) % 300 + 1]).collect();
        let mut a = Encoder::new();
        a.array_str(&items).unwrap();
        let mut b = Encoder::new();
        b.begin_array().unwrap();
        for s in &items {
            b.str(s).unwrap();
        }
        b.end_array().unwrap();
        let (x, y) = (a.finish().unwrap(), b.finish().unwrap());
        assert_eq!(x, y);
        assert_eq!(x[2], 2, "one string array record");
        let got: Vec<&str> = crate::from_slice(&x).unwrap();
        assert_eq!(got, items);
    }

    /// `previous_copies` finds each string equal to an earlier one among
    /// many whose hashes share bits of its bit sets, with the index of the
    /// previous one, and finds none where there is none.
    #[test]
    fn previous_copies_finds_equal_strings() {
        let list: Vec<String> = (0..50_000).map(|i| format!("s{i}")).collect();
        let items: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
        let t = super::super::strings::StringTable::default();
        let hashes: Vec<u64> = items.iter().map(|s| t.hash(s.as_bytes())).collect();
        let (mut bits, mut seen, mut copies) = (Vec::new(), Default::default(), Vec::new());
        let mut run = |items: &[&str], hashes: &[u64], copies: &mut Vec<(usize, usize)>| {
            super::previous_copies(items, hashes, &mut bits, &mut seen, copies)
        };
        assert!(run(&items, &hashes, &mut copies));
        assert!(copies.is_empty());
        for (i, j) in [(0, 49_999), (123, 124), (40_000, 7)] {
            let mut items = items.clone();
            let mut hashes = hashes.clone();
            items[j] = items[i];
            hashes[j] = hashes[i];
            assert!(run(&items, &hashes, &mut copies));
            assert_eq!(copies, [(i.max(j), i.min(j))], "{i} {j}");
        }
        // Three copies of one string, and two of another.
        let mut items = items.clone();
        let mut hashes = hashes.clone();
        for (from, to) in [(5, 900), (5, 30_000), (77, 78)] {
            items[to] = items[from];
            hashes[to] = hashes[from];
        }
        assert!(run(&items, &hashes, &mut copies));
        assert_eq!(copies, [(78, 77), (900, 5), (30_000, 900)]);
        // Two different strings of one hash are told apart.
        hashes[1] = hashes[2];
        assert!(run(&items, &hashes, &mut copies));
        assert_eq!(copies, [(78, 77), (900, 5), (30_000, 900)]);
        // Many different strings of one hash: it gives up.
        for k in 100..400 {
            hashes[k] = hashes[2];
        }
        assert!(!run(&items, &hashes, &mut copies));
        // So it does when most of the first strings recur.
        let words: Vec<&str> = (0..5_000).map(|i| items[i % 100]).collect();
        let word_hashes: Vec<u64> = words.iter().map(|s| t.hash(s.as_bytes())).collect();
        assert!(!run(&words, &word_hashes, &mut copies));
    }
}
