//! The encoder's string table: a distinct string is written once, and
//! found again as long as it recurs within [`MAX_SLOTS`] / 2 new strings
//! (two generations of the table).

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

use crate::layout::{read_varint, varint_len, write_varint, SHORT_STR_MAX, TAG_SHORT_STR, TAG_STR};

/// Tables up to this capacity are kept whatever the last document used.
const SHRINK_ABOVE: usize = 4096;

/// Empties `table`. Clearing costs its capacity, so a table grown by a big
/// document shrinks back (above `keep` entries of capacity) when that
/// document used less than a quarter of it: small documents encoded after
/// a big one stay cheap.
pub(super) fn clear_table<T>(table: &mut HashTable<T>, keep: usize, hash: impl Fn(&T) -> u64) {
    let used = table.len();
    table.clear();
    if table.capacity() > keep && table.capacity() > used * 4 {
        table.shrink_to(used, hash);
    }
}

/// Most slots of [`StringTable`]'s current generation (half of them used,
/// then the table turns over). Its control bytes (128 KiB) stay in the
/// processor's second-level cache and its slots (1 MiB) in the third,
/// whatever the document's size: an unbounded table costs a cache miss
/// per string once it outgrows them, and the cost per MB of a 1 GB
/// document was 7.7 times that of a 1 MB one (issue 28).
const MAX_SLOTS: usize = 1 << 17;

/// Record positions up to this fit the 8-byte slots of [`StringTable`]
/// (past it, the table moves to [`WideTable`]; small in tests, so that
/// they can reach it).
#[cfg(not(test))]
const NARROW_MAX: usize = u32::MAX as usize;
#[cfg(test)]
const NARROW_MAX: usize = 1 << 12;

/// Positions of the string records written so far, found by content: a
/// linear-probing table (at most half full) of 8-byte slots, each with a
/// control byte in an array of its own. A slot holds the record's position
/// (high 32 bits) and the high 32 bits of the string's hash (low 32: the
/// home index and beyond, so that growing moves each string without
/// hashing it again). A control byte is 0 for an empty slot, else 7 bits
/// of the hash with the high bit set: a probe reads the control bytes
/// (one byte per slot, so the array stays in cache where the slots would
/// not) and loads a slot only when its byte matches, so a new string,
/// the common case, usually costs no load of a slot at all. Clearing
/// zeroes the control bytes. Documents whose records lie past 4 GiB use a
/// [`WideTable`] instead.
///
/// The table holds at most [`MAX_SLOTS`] slots. Full at that size, it
/// turns over: the current strings become the previous generation and the
/// table starts empty. A string missing from the table is looked up in the
/// previous generation and, if there, moved back to the table at its
/// record: a string that recurs at least once per generation (every
/// [`MAX_SLOTS`] / 2 new strings) is still written once, however large
/// the document. One that recurs less often may be written again (the
/// format allows equal strings in two records, FORMAT.md section 7), so
/// that two records of a document can hold the same bytes once the table
/// has turned over ([`Self::turns`]). So can they once a string found in
/// the table had its record more than [`FAR`] bytes back: it is written
/// again, and the table keeps the new record.
pub(super) struct StringTable {
    /// A power of two of slots (or none).
    slots: Vec<u64>,
    /// One control byte per slot.
    ctrl: Vec<u8>,
    /// Strings the slots take before growing (half of them); 0 once the
    /// table is wide, so that every string takes the slow path.
    limit: usize,
    /// Strings in the table.
    len: usize,
    /// Strings removed from the table since it was cleared (see
    /// [`Self::remove`]): counted as used when clearing decides whether
    /// to shrink, so that a document whose strings were packed keeps its
    /// table's size for the next one.
    removed: usize,
    /// Seeds of [`hash_bytes`], random per table (as hashbrown's default
    /// hasher is), so that colliding strings cannot be chosen in advance.
    seeds: [u64; 4],
    /// The strings of a document past [`NARROW_MAX`] bytes.
    wide: Option<Box<WideTable>>,
    /// The previous generation's slots and control bytes (empty until the
    /// table first turns over).
    old_slots: Vec<u64>,
    old_ctrl: Vec<u8>,
    /// Strings in the previous generation.
    old_len: usize,
    /// How many times the table turned over since it was cleared.
    turns: u32,
    /// Most slots: [`MAX_SLOTS`], lowered by tests, or none for an encoder
    /// bound to a dictionary (see [`Self::set_bounded`]).
    max_slots: usize,
    /// While logging (see [`Self::set_logging`]): the hash and record of
    /// each string added since the log was last cleared, up to
    /// [`LOG_MAX`], so that [`Self::forget_logged`] takes back a small
    /// document's strings without a pass over the whole table.
    log: Vec<(u64, usize)>,
    /// Whether strings added are logged.
    logging: bool,
    /// Whether more strings were added than the log holds (or the table
    /// went wide): the log no longer lists them all.
    log_full: bool,
    /// How far back (bytes before the end of the output) a record may lie
    /// and still be taken for a string found in the table: [`FAR`], or no
    /// limit for an encoder bound to a dictionary (see [`Self::set_bounded`]).
    far: usize,
    /// Whether a string was written again because its record lay too far
    /// back (see [`FAR`]) since the table was cleared.
    rewrote: bool,
}

/// A string whose record lies more than this many bytes before the end of
/// the output is written again rather than compared with that record, and
/// its new record replaces the old one in the table. Comparing reads the
/// old record; in a document larger than the processor's caches that read
/// is a miss to main memory for every recurring string, which made the
/// cost per MB of `dumps` grow with the document's size (issue 28). A
/// string keeps its record for as long as that record lies within this
/// distance; one that keeps recurring has one record per this many bytes
/// of output.
const FAR: usize = 4 << 20;

/// Most strings [`StringTable::log`] lists.
const LOG_MAX: usize = 64;

/// Tables of fewer slots than this stay in the cache (their control bytes
/// and slots take 9 bytes each): [`StringTable::prefetch_hashed`] does nothing.
const PREFETCH_FROM: usize = 1 << 13;

/// Asks the processor to load the cache line of `p` (a hint: no fault,
/// no effect on the program's state).
#[inline(always)]
pub(super) fn prefetch(p: *const u8) {
    // SAFETY: SSE is part of every x86_64 target (its baseline); a
    // prefetch reads no memory the program sees and cannot fault, whatever
    // the address.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The high bit of each of eight control bytes read as a word: set in a
/// used slot's byte (see [`control`]).
const USED_BITS: u64 = 0x8080_8080_8080_8080;

/// The control byte of a string of hash `h`.
#[inline(always)]
fn control(h: u64) -> u8 {
    0x80 | (h as u8 & 0x7F)
}

impl Default for StringTable {
    fn default() -> Self {
        StringTable {
            slots: Vec::new(),
            ctrl: Vec::new(),
            limit: 0,
            len: 0,
            removed: 0,
            seeds: {
                let h = DefaultHashBuilder::default();
                [0u64, 1, 2, 3].map(|i| h.hash_one(i))
            },
            wide: None,
            old_slots: Vec::new(),
            old_ctrl: Vec::new(),
            old_len: 0,
            turns: 0,
            max_slots: MAX_SLOTS,
            log: Vec::new(),
            logging: false,
            log_full: false,
            far: FAR,
            rewrote: false,
        }
    }
}

impl std::fmt::Debug for StringTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StringTable({} strings)", self.len)
    }
}

/// The string table of a document past 4 GiB: 16-byte slots holding the
/// whole hash (low bit set: zero is empty) and the record's position.
#[derive(Default)]
struct WideTable {
    /// A power of two of slots, at most half full.
    slots: Vec<(u64, usize)>,
    len: usize,
}

impl WideTable {
    /// Position of the record of `s` (hash `h`), writing it if it is new.
    fn intern(&mut self, out: &mut Vec<u8>, s: &[u8], h: u64) -> usize {
        self.reserve_one();
        let t = h | 1;
        let mask = self.slots.len() - 1;
        let mut i = (t >> 32) as usize & mask;
        loop {
            let (st, sr) = self.slots[i];
            if st == 0 {
                break;
            }
            if st == t && super::keys::key_eq(record_bytes(out, sr), s) {
                return sr;
            }
            i = (i + 1) & mask;
        }
        let r = write_record(out, s);
        self.slots[i] = (t, r);
        self.len += 1;
        r
    }

    /// Adds a string known not to be in the table: hash `h`, record `r`.
    fn insert_new(&mut self, h: u64, r: usize) {
        self.reserve_one();
        Self::place(&mut self.slots, h | 1, r);
        self.len += 1;
    }

    /// Forgets the strings whose records are at or after `from`.
    fn retain_before(&mut self, from: usize) {
        let kept: Vec<(u64, usize)> = self
            .slots
            .iter()
            .copied()
            .filter(|&(t, r)| t != 0 && r < from)
            .collect();
        self.slots.fill((0, 0));
        self.len = kept.len();
        for (t, r) in kept {
            Self::place(&mut self.slots, t, r);
        }
    }

    /// Forgets the string of hash `h` whose record is at `r`, if there.
    fn remove(&mut self, h: u64, r: usize) {
        if self.slots.is_empty() {
            return;
        }
        let t = h | 1;
        let mask = self.slots.len() - 1;
        let mut i = (t >> 32) as usize & mask;
        loop {
            match self.slots[i] {
                (0, _) => return,
                (st, sr) if st == t && sr == r => break,
                _ => i = (i + 1) & mask,
            }
        }
        // Backward-shift deletion: move each later entry of the run whose
        // home is not after the hole into it, so that every entry stays
        // reachable from its home.
        let mut hole = i;
        let mut j = (i + 1) & mask;
        while self.slots[j].0 != 0 {
            let home = (self.slots[j].0 >> 32) as usize & mask;
            if j.wrapping_sub(home) & mask >= j.wrapping_sub(hole) & mask {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.slots[hole] = (0, 0);
        self.len -= 1;
    }

    /// Doubles the slots (16 at first) if one more string would fill
    /// more than half of them.
    fn reserve_one(&mut self) {
        if 2 * (self.len + 1) <= self.slots.len() {
            return;
        }
        let n = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); n]);
        for (t, r) in old.into_iter().filter(|e| e.0 != 0) {
            Self::place(&mut self.slots, t, r);
        }
    }

    /// Puts tag `t` and record `r` in the first empty slot from `t`'s home
    /// (`slots`, a power of two of them, is less than half full).
    fn place(slots: &mut [(u64, usize)], t: u64, r: usize) {
        let mask = slots.len() - 1;
        let mut i = (t >> 32) as usize & mask;
        while slots[i].0 != 0 {
            i = (i + 1) & mask;
        }
        slots[i] = (t, r);
    }
}

/// The bytes of the string record at `record` in `out`.
#[inline]
fn record_bytes(out: &[u8], record: usize) -> Option<&[u8]> {
    let tag = *out.get(record)?;
    if tag & 0xC0 == TAG_SHORT_STR {
        out.get(record + 1..record + 1 + (tag & 0x3F) as usize)
    } else {
        let (len, p) = read_varint(out, record + 1)?;
        out.get(p..p.checked_add(usize::try_from(len).ok()?)?)
    }
}

/// Writes a record of `s` (not empty) without looking it up or adding it
/// to a table, and returns its position: a string that is not expected to
/// recur (see `value_sharing`).
#[inline(always)]
pub(super) fn write_unshared(out: &mut Vec<u8>, s: &[u8]) -> usize {
    write_record(out, s)
}

/// Writes the string record of `s` (not empty) at the end of `out`;
/// returns its position. Up to 32 bytes are copied as two overlapping
/// fixed-size words into reserved capacity, without a call to `memcpy`.
#[inline(always)]
fn write_record(out: &mut Vec<u8>, s: &[u8]) -> usize {
    let record = out.len();
    let n = s.len();
    if n > 32 {
        return write_long_record(out, s);
    }
    out.reserve(n + 1);
    let spare = out.spare_capacity_mut();
    if spare.len() < n + 1 || n == 0 {
        // Unreachable after the reserve (and `s` is not empty).
        out.push(TAG_SHORT_STR | n as u8);
        out.extend_from_slice(s);
        return record;
    }
    spare[0].write(TAG_SHORT_STR | n as u8);
    if !put_short(&mut spare[1..=n], s) {
        // Unreachable (every copy above is within `0..n`).
        out.push(TAG_SHORT_STR | n as u8);
        out.extend_from_slice(s);
        return record;
    }
    // SAFETY: `spare` had at least `n + 1` bytes of capacity after the
    // old length; its first byte (the tag) and all of `d` (the next `n`
    // bytes: in each case the copies, all made, cover `0..n`: two
    // overlapping words of `N <= n <= 2N` bytes, or bytes 0, n/2 and
    // n - 1 of `n <= 3`) were written.
    unsafe { out.set_len(record + 1 + n) };
    record
}

/// Copies `s` (1 to 32 bytes) to `d` (as long) as two overlapping
/// fixed-size words (or three bytes), without a call to `memcpy`: false if
/// it did not (`s` empty or longer, or `d` not as long).
#[inline(always)]
pub(super) fn put_short(d: &mut [std::mem::MaybeUninit<u8>], s: &[u8]) -> bool {
    let n = s.len();
    if d.len() != n || n == 0 || n > 32 {
        return false;
    }
    if n >= 16 {
        put::<16>(d, s, 0) && put::<16>(d, s, n - 16)
    } else if n >= 8 {
        put::<8>(d, s, 0) && put::<8>(d, s, n - 8)
    } else if n >= 4 {
        put::<4>(d, s, 0) && put::<4>(d, s, n - 4)
    } else {
        put::<1>(d, s, 0) && put::<1>(d, s, n / 2) && put::<1>(d, s, n - 1)
    }
}

/// Copies `s` to `d` (as long): [`put_short`] up to 32 bytes, else 32
/// bytes at a time, the last 32 overlapping. False if `d` is not as long.
/// (A loop of byte writes to spare capacity is not made into one copy.)
#[inline(always)]
pub(super) fn put_bytes(d: &mut [std::mem::MaybeUninit<u8>], s: &[u8]) -> bool {
    let n = s.len();
    if d.len() != n {
        return false;
    }
    if n <= 32 {
        return n == 0 || put_short(d, s);
    }
    for (d, s) in d.chunks_exact_mut(32).zip(s.chunks_exact(32)) {
        if let (Some(d), Some(s)) = (d.first_chunk_mut::<32>(), s.first_chunk::<32>()) {
            *d = s.map(std::mem::MaybeUninit::new);
        }
    }
    put::<32>(d, s, n - 32)
}

/// Copies the `N` bytes of `s` at `at` to `d` at `at`, as one word;
/// false (nothing copied) if either is too short.
#[inline(always)]
fn put<const N: usize>(d: &mut [std::mem::MaybeUninit<u8>], s: &[u8], at: usize) -> bool {
    let d = d.get_mut(at..).and_then(|d| d.first_chunk_mut::<N>());
    let s = s.get(at..).and_then(|s| s.first_chunk::<N>());
    match (d, s) {
        (Some(d), Some(s)) => {
            *d = s.map(std::mem::MaybeUninit::new);
            true
        }
        _ => false,
    }
}

/// [`write_record`] of more than 32 bytes.
#[inline(never)]
fn write_long_record(out: &mut Vec<u8>, s: &[u8]) -> usize {
    let record = out.len();
    if s.len() <= SHORT_STR_MAX {
        out.push(TAG_SHORT_STR | s.len() as u8);
    } else {
        out.push(TAG_STR);
        write_varint(out, s.len() as u64);
    }
    out.extend_from_slice(s);
    record
}

/// Size of the header of a string record of `len` bytes.
#[inline]
pub(super) fn str_header_len(len: usize) -> usize {
    if len <= SHORT_STR_MAX {
        1
    } else {
        1 + varint_len(len as u64)
    }
}

/// The little-endian `u64` at `at` (8 bytes must be there).
#[inline(always)]
pub(super) fn u64_at(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The little-endian `u32` at `at` (4 bytes must be there), widened.
#[inline(always)]
pub(super) fn u32_at(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&s[at..at + 4]);
    u32::from_le_bytes(w) as u64
}

/// The 128-bit product of `a` and `b`, its halves XOR-ed.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline(always)]
fn le64(b: &[u8; 8]) -> u64 {
    u64::from_le_bytes(*b)
}

/// The 8-byte words of a 32-byte chunk.
#[inline(always)]
fn words(c: &[u8; 32]) -> [u64; 4] {
    let mut w = [0u64; 4];
    for (w, b) in w.iter_mut().zip(c.chunks_exact(8)) {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        *w = u64::from_le_bytes(a);
    }
    w
}

/// Hash of a string's bytes (its length included): up to 16 bytes are two
/// overlapping loads and one multiply, up to 32 two multiplies; longer
/// strings fold 32 bytes per two multiplies, then their last 32.
#[inline(always)]
fn hash_bytes(seeds: &[u64; 4], s: &[u8]) -> u64 {
    let n = s.len();
    let (a, b) = match (s.first_chunk::<8>(), s.last_chunk::<8>()) {
        (Some(a), Some(b)) if n <= 16 => (le64(a), le64(b)),
        (Some(_), Some(_)) => return hash_long(seeds, s),
        _ if n >= 4 => (u32_at(s, 0), u32_at(s, n - 4)),
        _ if n > 0 => (
            s[0] as u64 | (s[n / 2] as u64) << 8 | (s[n - 1] as u64) << 16,
            0,
        ),
        _ => (0, 0),
    };
    fold(a ^ seeds[0], b ^ seeds[1] ^ n as u64)
}

/// [`hash_bytes`] of more than 16 bytes.
#[inline(always)]
fn hash_long(seeds: &[u64; 4], s: &[u8]) -> u64 {
    let n = s.len() as u64;
    if let (Some(h), Some(t)) = (s.first_chunk::<16>(), s.last_chunk::<16>()) {
        if s.len() <= 32 {
            let (h0, h1) = h.split_at(8);
            let (t0, t1) = t.split_at(8);
            return fold(u64_at(h0, 0) ^ seeds[0], u64_at(h1, 0) ^ seeds[1])
                ^ fold(u64_at(t0, 0) ^ seeds[2], u64_at(t1, 0) ^ seeds[3] ^ n);
        }
    }
    hash_longer(seeds, s)
}

/// [`hash_bytes`] of more than 32 bytes.
#[inline(never)]
fn hash_longer(seeds: &[u64; 4], s: &[u8]) -> u64 {
    let (mut a, mut b) = (seeds[2] ^ s.len() as u64, seeds[3]);
    let mut rest = s;
    while rest.len() > 32 {
        let Some((c, r)) = rest.split_first_chunk::<32>() else {
            break;
        };
        let w = words(c);
        a = fold(a ^ w[0] ^ seeds[0], w[1] ^ seeds[1]);
        b = fold(b ^ w[2] ^ seeds[2], w[3] ^ seeds[3]);
        rest = r;
    }
    if let Some(t) = s.last_chunk::<32>() {
        let w = words(t);
        a = fold(a ^ w[0] ^ seeds[0], w[1] ^ seeds[1]);
        b = fold(b ^ w[2] ^ seeds[2], w[3] ^ seeds[3]);
    }
    a ^ b.rotate_left(32)
}

impl StringTable {
    /// Empties the table. A table grown by a big document shrinks back
    /// (above [`SHRINK_ABOVE`] slots) when that document used less than an
    /// eighth of it, so that small documents after a big one stay small.
    pub(super) fn clear(&mut self) {
        let used = self.len + self.removed;
        self.len = 0;
        self.removed = 0;
        self.rewrote = false;
        self.clear_log();
        if self.turns > 0 {
            self.turns = 0;
            self.old_len = 0;
            self.old_slots = Vec::new();
            self.old_ctrl = Vec::new();
        }
        if self.wide.take().is_some()
            || (self.slots.len() > SHRINK_ABOVE && self.slots.len() > used * 8)
        {
            self.slots = Vec::new();
            self.ctrl = Vec::new();
            self.limit = 0;
            return;
        }
        self.ctrl.fill(0);
    }

    /// Slots of the table (it holds up to half as many strings without growing).
    pub(super) fn capacity(&self) -> usize {
        self.slots.len() + self.wide.as_ref().map_or(0, |w| w.slots.len())
    }

    /// Position of the record of `s`, writing it to `out` if it is new.
    #[inline(always)]
    pub(super) fn intern(&mut self, out: &mut Vec<u8>, s: &[u8]) -> usize {
        let h = self.hash(s);
        self.intern_hashed(out, s, h)
    }

    /// The hash of `s` that [`Self::intern_hashed`] and [`Self::find`]
    /// take.
    #[inline(always)]
    pub(super) fn hash(&self, s: &[u8]) -> u64 {
        hash_bytes(&self.seeds, s)
    }

    /// How far back a record may lie and still be found ([`FAR`], or no
    /// limit for an encoder bound to a dictionary).
    #[inline(always)]
    pub(super) fn reach(&self) -> usize {
        self.far
    }

    /// Whether the table is wide (see [`Self::find`]).
    #[inline(always)]
    pub(super) fn is_wide(&self) -> bool {
        self.wide.is_some()
    }

    /// The record that [`Self::intern_hashed`] of `s` (of hash `h`) would
    /// return without writing one, were the output `end` bytes long (at
    /// least `out.len()`; the reach is measured from there): `None` if it
    /// would write a new record. Also `None` for a wide table, which
    /// callers check first ([`Self::is_wide`]).
    #[inline(always)]
    pub(super) fn find(&self, out: &[u8], s: &[u8], h: u64, end: usize) -> Option<usize> {
        if self.wide.is_some() {
            return None;
        }
        find_in(&self.slots, &self.ctrl, out, s, h, self.far, end).or_else(|| {
            if self.turns > 0 {
                find_in(&self.old_slots, &self.old_ctrl, out, s, h, self.far, end)
            } else {
                None
            }
        })
    }

    /// Starts loading the table entries that [`Self::intern_hashed`] of a
    /// string of hash `h` (see [`Self::hash`]) will read first (its control
    /// byte and slot) into the cache, if the table is too large to stay
    /// there ([`PREFETCH_FROM`] slots); nothing else. A caller that knows
    /// the next strings calls this some strings ahead, so that their cache
    /// misses overlap rather than follow each other.
    #[inline(always)]
    pub(super) fn prefetch_hashed(&self, h: u64) {
        if self.slots.len() < PREFETCH_FROM || self.len >= self.limit {
            return;
        }
        let i = (h >> 32) as usize & (self.slots.len() - 1);
        if let (Some(c), Some(slot)) = (self.ctrl.get(i), self.slots.get(i)) {
            prefetch(c as *const u8);
            prefetch((slot as *const u64).cast());
        }
    }

    /// [`Self::intern`] of `s` of hash `h` (see [`Self::hash`]).
    #[inline(always)]
    pub(super) fn intern_hashed(&mut self, out: &mut Vec<u8>, s: &[u8], h: u64) -> usize {
        if self.len >= self.limit {
            return self.intern_cold(out, s, h);
        }
        let c = control(h);
        let high = h >> 32;
        let slots = &mut self.slots[..];
        let Some(ctrl) = self.ctrl.get_mut(..slots.len()) else {
            // Unreachable: there are as many control bytes as slots.
            return self.intern_cold(out, s, h);
        };
        if slots.is_empty() {
            // Unreachable: `limit` is 0 while there are no slots.
            return self.intern_cold(out, s, h);
        }
        // `slots.len()` (and `ctrl.len()`) is a power of two, not 0:
        // indices masked by `mask` are within both (no bounds check is
        // left).
        let mask = slots.len() - 1;
        let mut i = high as usize & mask;
        loop {
            let b = ctrl[i & mask];
            if b == c {
                let slot = slots[i & mask];
                if slot as u32 as u64 == high {
                    let record = (slot >> 32) as usize;
                    if out.len().wrapping_sub(record) > self.far {
                        return self.rewrite_far(out, s, h, i & mask);
                    }
                    if super::keys::key_eq(record_bytes(out, record), s) {
                        return record;
                    }
                }
            } else if b == 0 {
                break;
            }
            i = (i + 1) & mask;
        }
        let record = if self.turns > 0 {
            match find_in(
                &self.old_slots,
                &self.old_ctrl,
                out,
                s,
                h,
                self.far,
                out.len(),
            ) {
                Some(r) => r,
                None => write_record(out, s),
            }
        } else {
            write_record(out, s)
        };
        if record > NARROW_MAX {
            return self.go_wide(out, h, record);
        }
        ctrl[i & mask] = c;
        slots[i & mask] = ((record as u64) << 32) | high;
        self.len += 1;
        if self.logging {
            self.log_added(h, record);
        }
        record
    }

    /// Notes a string added to the table (see [`Self::log`]).
    #[inline(always)]
    fn log_added(&mut self, h: u64, record: usize) {
        if self.log.len() < LOG_MAX {
            self.log.push((h, record));
        } else {
            self.log_full = true;
        }
    }

    /// Starts (or stops) logging the strings added, with an empty log:
    /// for an encoder that takes back each document's strings (a bound
    /// encoder's rewind, see [`Self::forget_logged`]).
    pub(super) fn set_logging(&mut self, logging: bool) {
        self.logging = logging;
        self.clear_log();
    }

    /// Empties the log of strings added (they stay in the table).
    pub(super) fn clear_log(&mut self) {
        self.log.clear();
        self.log_full = false;
    }

    /// Forgets the strings added since the log was cleared, if the log
    /// lists them all, and empties it; false (forgetting nothing) if it
    /// does not: then [`Self::retain_before`] has to.
    pub(super) fn forget_logged(&mut self) -> bool {
        if !self.logging || self.log_full || self.wide.is_some() || self.turns() > 0 {
            return false;
        }
        for &(h, record) in &self.log {
            // A string already taken out (packed into a string array, see
            // `Self::remove`) is not found again.
            if remove_from(&mut self.slots, &mut self.ctrl, h, record) {
                self.len -= 1;
                self.removed += 1;
            }
        }
        self.log.clear();
        true
    }

    /// Forgets the string whose record is at `record` in `out` (one that
    /// [`Self::intern`] wrote), so that the same string is written anew
    /// next time: for records taken back out of `out` (see
    /// `Encoder::try_str_array`). Nothing if it is not in the table.
    pub(super) fn remove(&mut self, out: &[u8], record: usize) {
        let Some(s) = record_bytes(out, record) else {
            return;
        };
        let h = hash_bytes(&self.seeds, s);
        self.removed += 1;
        if let Some(w) = &mut self.wide {
            return w.remove(h, record);
        }
        if remove_from(&mut self.slots, &mut self.ctrl, h, record) {
            self.len -= 1;
        } else if self.turns > 0 && remove_from(&mut self.old_slots, &mut self.old_ctrl, h, record)
        {
            self.old_len -= 1;
        }
    }

    /// Number of strings in the table (both generations).
    pub(super) fn len(&self) -> usize {
        self.wide
            .as_ref()
            .map_or(self.len + self.old_len, |w| w.len)
    }

    /// Whether the table turns over at [`MAX_SLOTS`] (the default) or
    /// grows without bound. An encoder bound to a dictionary grows it:
    /// its base strings must stay in the table from one document to the
    /// next, and its rewinds count the strings a document added.
    pub(super) fn set_bounded(&mut self, bounded: bool) {
        self.max_slots = if bounded { MAX_SLOTS } else { usize::MAX };
        self.far = if bounded { FAR } else { usize::MAX };
    }

    /// [`Self::intern_hashed`] of a string `s` (hash `h`) whose slot `i`
    /// matched its hash but whose record lies more than [`Self::far`]
    /// bytes back: writes `s` again and puts the new record in that slot,
    /// without reading the old record (if it held other bytes, that string
    /// is only forgotten: written again when it recurs).
    #[cold]
    #[inline(never)]
    fn rewrite_far(&mut self, out: &mut Vec<u8>, s: &[u8], h: u64, i: usize) -> usize {
        let record = write_record(out, s);
        // Set before going wide too: the wide table then holds both
        // records of `s`, and its lookups may give either.
        self.rewrote = true;
        if record > NARROW_MAX {
            return self.go_wide(out, h, record);
        }
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = ((record as u64) << 32) | (h >> 32);
        }
        record
    }

    /// How many times the table turned over (see [`StringTable`]) since
    /// it was cleared, plus one if a string was written again because its
    /// record lay more than [`FAR`] bytes back: while it is 0, equal
    /// strings have equal records.
    #[inline(always)]
    pub(super) fn turns(&self) -> u32 {
        self.turns + u32::from(self.rewrote)
    }

    /// Forgets the strings whose records are at or after `from` in the
    /// output (those written last), `count` of them, in one pass over the
    /// table: for taking back most of the strings at once (see
    /// [`Self::remove`]).
    pub(super) fn retain_before(&mut self, from: usize, count: usize) {
        self.removed += count;
        if let Some(w) = &mut self.wide {
            return w.retain_before(from);
        }
        self.len = retain_in(&mut self.slots, &mut self.ctrl, from);
        if self.turns > 0 {
            self.old_len = retain_in(&mut self.old_slots, &mut self.old_ctrl, from);
        }
    }

    /// [`StringTable::intern`] when the table is full or wide.
    #[cold]
    #[inline(never)]
    fn intern_cold(&mut self, out: &mut Vec<u8>, s: &[u8], h: u64) -> usize {
        if let Some(w) = &mut self.wide {
            return w.intern(out, s, h);
        }
        if self.slots.len() >= self.max_slots {
            self.turn_over();
        } else {
            self.grow();
        }
        self.intern_hashed(out, s, h)
    }

    /// Makes the full table the previous generation and starts an empty
    /// one of the same size (the previous generation's memory, reused).
    #[cold]
    #[inline(never)]
    fn turn_over(&mut self) {
        std::mem::swap(&mut self.slots, &mut self.old_slots);
        std::mem::swap(&mut self.ctrl, &mut self.old_ctrl);
        if self.slots.len() != self.old_slots.len() {
            self.slots = vec![0; self.old_slots.len()];
            self.ctrl = vec![0; self.old_slots.len()];
        } else {
            self.ctrl.fill(0);
        }
        self.old_len = self.len;
        self.len = 0;
        self.turns += 1;
    }

    /// Doubles the slots (16 at first), moving the current strings by the
    /// hash bits their slots hold.
    fn grow(&mut self) {
        let n = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![0; n]);
        let old_ctrl = std::mem::replace(&mut self.ctrl, vec![0; n]);
        let mask = n - 1;
        self.limit = n / 2;
        for (slot, c) in old.into_iter().zip(old_ctrl) {
            if c == 0 {
                continue;
            }
            let mut i = (slot as u32) as usize & mask;
            while self.ctrl[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
            self.ctrl[i] = c;
        }
    }

    /// Moves the strings to a [`WideTable`] (the document has grown past
    /// [`NARROW_MAX`] bytes) and adds the string of hash `h` just written
    /// at `record`.
    #[cold]
    #[inline(never)]
    fn go_wide(&mut self, out: &[u8], h: u64, record: usize) -> usize {
        let mut w = Box::<WideTable>::default();
        for (&slot, &c) in self.slots.iter().zip(&self.ctrl) {
            if c != 0 {
                let r = (slot >> 32) as usize;
                let b = record_bytes(out, r).unwrap_or(&[]);
                w.insert_new(hash_bytes(&self.seeds, b), r);
            }
        }
        w.insert_new(h, record);
        self.wide = Some(w);
        self.limit = 0;
        self.log_full = true;
        record
    }
}

/// The record of `s` (hash `h`) in the table of `slots` and `ctrl` (as
/// [`StringTable`] lays them out), if there and not more than `far` bytes
/// before `end` (the output's length, or what it will be).
#[inline(always)]
fn find_in(
    slots: &[u64],
    ctrl: &[u8],
    out: &[u8],
    s: &[u8],
    h: u64,
    far: usize,
    end: usize,
) -> Option<usize> {
    if slots.is_empty() || ctrl.len() != slots.len() {
        return None;
    }
    let (c, high, mask) = (control(h), h >> 32, slots.len() - 1);
    let mut i = high as usize & mask;
    loop {
        let b = ctrl[i];
        if b == c {
            let slot = slots[i];
            let record = (slot >> 32) as usize;
            if slot as u32 as u64 == high {
                if end.wrapping_sub(record) > far {
                    return None;
                }
                if super::keys::key_eq(record_bytes(out, record), s) {
                    return Some(record);
                }
            }
        } else if b == 0 {
            return None;
        }
        i = (i + 1) & mask;
    }
}

/// Removes the string of hash `h` whose record is at `record` from the
/// table of `slots` and `ctrl`; returns whether it was there.
fn remove_from(slots: &mut [u64], ctrl: &mut [u8], h: u64, record: usize) -> bool {
    if slots.is_empty() || ctrl.len() != slots.len() {
        return false;
    }
    let mask = slots.len() - 1;
    let mut i = (h >> 32) as usize & mask;
    loop {
        if ctrl[i] == 0 {
            return false;
        }
        if (slots[i] >> 32) as usize == record {
            break;
        }
        i = (i + 1) & mask;
    }
    // Backward-shift deletion (as in `WideTable::remove`).
    let mut hole = i;
    let mut j = (i + 1) & mask;
    while ctrl[j] != 0 {
        let home = (slots[j] as u32) as usize & mask;
        if j.wrapping_sub(home) & mask >= j.wrapping_sub(hole) & mask {
            slots[hole] = slots[j];
            ctrl[hole] = ctrl[j];
            hole = j;
        }
        j = (j + 1) & mask;
    }
    slots[hole] = 0;
    ctrl[hole] = 0;
    true
}

/// Keeps in the table of `slots` and `ctrl` only the strings whose records
/// lie before `from`, in one pass; returns how many it keeps.
fn retain_in(slots: &mut [u64], ctrl: &mut [u8], from: usize) -> usize {
    let mask = slots.len().wrapping_sub(1);
    let mut kept = Vec::new();
    // Eight control bytes at a time (a used one has its high bit set):
    // only the used slots are read.
    for (k, word) in ctrl.chunks_exact(8).enumerate() {
        let mut used = u64::from_le_bytes(word.try_into().unwrap_or([0; 8])) & USED_BITS;
        while used != 0 {
            let i = k * 8 + used.trailing_zeros() as usize / 8;
            used &= used - 1;
            let slot = slots.get(i).copied().unwrap_or(0);
            if ((slot >> 32) as usize) < from {
                kept.push((slot, ctrl[i]));
            }
        }
    }
    // (A slot whose control byte is 0 is empty, whatever it holds.)
    ctrl.fill(0);
    let n = kept.len();
    for (slot, c) in kept {
        let mut i = (slot as u32) as usize & mask;
        while ctrl[i] != 0 {
            i = (i + 1) & mask;
        }
        slots[i] = slot;
        ctrl[i] = c;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of `max_slots` slots at most.
    fn bounded(max_slots: usize) -> StringTable {
        StringTable {
            max_slots,
            ..StringTable::default()
        }
    }

    /// A table that reaches 64 bytes back, an output of 3 bytes then
    /// `"recurs"`, and that string's record.
    fn reaching_64_with_recurs() -> (StringTable, Vec<u8>, usize) {
        let mut t = StringTable {
            far: 64,
            ..StringTable::default()
        };
        let mut out = vec![0u8; 3];
        let first = t.intern(&mut out, b"recurs");
        (t, out, first)
    }

    /// Past its bound the table turns over: a string that recurs once per
    /// generation keeps its one record, one that does not is written
    /// again; removing and forgetting see both generations; clearing
    /// forgets them.
    #[test]
    fn a_full_table_turns_over() {
        let mut t = bounded(64); // 32 strings per generation
        let mut out = vec![0u8; 3];
        let kept = t.intern(&mut out, b"kept");
        let lost = t.intern(&mut out, b"lost");
        let mut last = 0;
        for i in 0..200u32 {
            last = t.intern(&mut out, format!("s{i}").as_bytes());
            if i % 20 == 0 {
                assert_eq!(t.intern(&mut out, b"kept"), kept, "recurring: one record");
            }
        }
        assert!(t.turns() >= 5, "{} turns", t.turns());
        assert!(t.slots.len() <= 64 && t.old_slots.len() <= 64);
        assert!(t.find(&out, b"kept", t.hash(b"kept"), out.len()).is_some());
        assert!(t.find(&out, b"lost", t.hash(b"lost"), out.len()).is_none());
        let again = t.intern(&mut out, b"lost");
        assert!(again > lost, "written again");
        assert_eq!(record_bytes(&out, again), Some(&b"lost"[..]));
        // The last string, then every string from `again` on, forgotten.
        t.remove(&out, last);
        assert!(t.find(&out, b"s199", t.hash(b"s199"), out.len()).is_none());
        t.retain_before(again, 1);
        assert!(t.find(&out, b"lost", t.hash(b"lost"), out.len()).is_none());
        assert!(t.find(&out, b"kept", t.hash(b"kept"), out.len()).is_some());
        t.clear();
        assert_eq!((t.turns(), t.len()), (0, 0));
        let mut small = vec![0u8; 3];
        let a = t.intern(&mut small, b"kept");
        assert_eq!(t.intern(&mut small, b"kept"), a);
    }

    /// A string found with its record more than `far` bytes back is
    /// written again without reading that record, and later lookups find
    /// the new record; one within `far` keeps its record. A bound
    /// encoder's table has no limit.
    #[test]
    fn a_far_record_is_written_again() {
        let (mut t, mut out, first) = reaching_64_with_recurs();
        out.resize(first + 60, 0);
        assert_eq!(t.intern(&mut out, b"recurs"), first, "within reach");
        assert_eq!(t.turns(), 0);
        out.resize(first + 200, 0);
        let second = t.intern(&mut out, b"recurs");
        assert_eq!(second, first + 200, "written again at the end");
        assert_eq!(record_bytes(&out, second), Some(&b"recurs"[..]));
        assert_eq!(t.turns(), 1, "equal strings may now have two records");
        assert_eq!(
            t.intern(&mut out, b"recurs"),
            second,
            "the new record is found"
        );
        assert_eq!(t.len(), 1);
        out.resize(second + 200, 0);
        assert!(t
            .find(&out, b"recurs", t.hash(b"recurs"), out.len())
            .is_none());
        t.clear();
        assert_eq!(t.turns(), 0);
        t.set_bounded(false);
        let mut out = vec![0u8; 3];
        let first = t.intern(&mut out, b"recurs");
        out.resize(first + (FAR + 100), 0);
        assert_eq!(
            t.intern(&mut out, b"recurs"),
            first,
            "a bound table has no limit"
        );
    }

    /// A string written again past the reach at the record that makes the
    /// table wide: the wide table holds both of its records, and the table
    /// says that equal strings may have two.
    #[test]
    fn a_far_record_written_again_as_the_table_goes_wide_is_counted() {
        let (mut t, mut out, first) = reaching_64_with_recurs();
        out.resize(NARROW_MAX + 1, 0);
        let second = t.intern(&mut out, b"recurs");
        assert!(second > NARROW_MAX && t.wide.is_some());
        assert_eq!(record_bytes(&out, first), record_bytes(&out, second));
        assert!(t.turns() > 0);
    }

    /// Strings of every length up to 100 (and some sharing prefixes,
    /// suffixes or a length) are each written once and found again.
    #[test]
    fn interns_every_length() {
        let mut t = StringTable::default();
        let mut out = vec![0u8; 3];
        let mut strings = Vec::new();
        for n in 0..=100usize {
            for fill in [b'a', b'b'] {
                let mut s: Vec<u8> = (0..n).map(|i| fill + (i % 7) as u8).collect();
                strings.push(s.clone());
                if n > 0 {
                    s[n / 2] = b'z';
                    strings.push(s.clone());
                    s[n - 1] = b'y';
                    strings.push(s);
                }
            }
        }
        strings.sort();
        strings.dedup();
        let records: Vec<usize> = strings.iter().map(|s| t.intern(&mut out, s)).collect();
        let len = out.len();
        for (s, &r) in strings.iter().zip(&records) {
            assert_eq!(t.intern(&mut out, s), r);
            assert_eq!(record_bytes(&out, r), Some(&s[..]));
        }
        assert_eq!(out.len(), len, "no string written twice");
        let mut sorted = records.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), strings.len());
    }

    /// A document whose records pass [`NARROW_MAX`] (4 KiB in tests) moves
    /// its strings to the wide table: those written before and after are
    /// each found again and written once; clearing returns to the narrow
    /// table, which then works as before.
    #[test]
    fn strings_past_narrow_max_move_to_the_wide_table() {
        let mut t = StringTable::default();
        for doc in 0..3 {
            let mut out = vec![0u8; 3];
            let strings: Vec<String> = (0..2000).map(|i| format!("string {i} of {doc}")).collect();
            let records: Vec<usize> = strings
                .iter()
                .map(|s| t.intern(&mut out, s.as_bytes()))
                .collect();
            assert!(out.len() > NARROW_MAX, "the document passes NARROW_MAX");
            assert!(t.wide.is_some());
            let len = out.len();
            for (s, &r) in strings.iter().zip(&records) {
                assert_eq!(t.intern(&mut out, s.as_bytes()), r);
                assert_eq!(record_bytes(&out, r), Some(s.as_bytes()));
            }
            assert_eq!(out.len(), len, "no string written twice");
            t.clear();
            assert!(t.wide.is_none());
            let mut small = vec![0u8; 3];
            let a = t.intern(&mut small, b"again");
            assert_eq!(t.intern(&mut small, b"again"), a);
            assert!(t.wide.is_none() && t.len == 1);
            t.clear();
        }
    }

    /// Strings removed (in any order, narrow or wide) are written anew
    /// when interned again; the others are still found.
    #[test]
    fn removed_strings_are_written_again() {
        for count in [10usize, 300, 2000] {
            let mut t = StringTable::default();
            let mut out = vec![0u8; 3];
            let strings: Vec<String> = (0..count).map(|i| format!("str {i}")).collect();
            let records: Vec<usize> = strings
                .iter()
                .map(|s| t.intern(&mut out, s.as_bytes()))
                .collect();
            // Remove every third string, from the middle outward.
            let gone: Vec<usize> = (0..count).filter(|i| i % 3 == 1).rev().collect();
            for &i in &gone {
                t.remove(&out, records[i]);
            }
            for (i, s) in strings.iter().enumerate() {
                let r = t.intern(&mut out, s.as_bytes());
                if i % 3 == 1 {
                    assert!(r > records[count - 1], "{count}: {i} written anew");
                } else {
                    assert_eq!(r, records[i], "{count}: {i} found");
                }
            }
        }
    }

    /// Forgetting the strings a log lists, one by one: they are written
    /// anew, the others found; a log that overflowed forgets nothing.
    #[test]
    fn logged_strings_are_forgotten_one_by_one() {
        // (strings before the log starts, strings logged): a log that
        // holds them all, and one that overflows (then nothing is
        // forgotten and the caller makes a pass instead).
        for (keep, added) in [(5usize, 3usize), (300, 40), (20, LOG_MAX + 1)] {
            let mut t = StringTable::default();
            let mut out = vec![0u8; 3];
            let strings: Vec<String> = (0..keep + added).map(|i| format!("s{i}")).collect();
            let mut records: Vec<usize> = strings[..keep]
                .iter()
                .map(|s| t.intern(&mut out, s.as_bytes()))
                .collect();
            t.set_logging(true);
            records.extend(
                strings[keep..]
                    .iter()
                    .map(|s| t.intern(&mut out, s.as_bytes())),
            );
            // A string found again is not logged twice.
            t.intern(&mut out, strings[keep].as_bytes());
            if added > LOG_MAX {
                assert!(!t.forget_logged());
                assert_eq!(t.len(), keep + added);
                continue;
            }
            assert!(t.forget_logged());
            assert_eq!(t.len(), keep);
            let end = out.len();
            for (i, s) in strings.iter().enumerate() {
                let h = t.hash(s.as_bytes());
                assert_eq!(
                    t.find(&out, s.as_bytes(), h, out.len()).is_some(),
                    i < keep,
                    "{i}"
                );
                let r = t.intern(&mut out, s.as_bytes());
                if i < keep {
                    assert_eq!(r, records[i], "{i} found");
                } else {
                    assert!(r >= end, "{i} written anew");
                }
            }
        }
    }

    /// Forgetting the strings written last at once, narrow or wide: they
    /// are written anew, the others found.
    #[test]
    fn strings_written_last_are_forgotten_at_once() {
        for (count, keep) in [(10usize, 3usize), (2000, 1500), (2000, 10)] {
            let mut t = StringTable::default();
            let mut out = vec![0u8; 3];
            let strings: Vec<String> = (0..count).map(|i| format!("string {i}")).collect();
            let records: Vec<usize> = strings
                .iter()
                .map(|s| t.intern(&mut out, s.as_bytes()))
                .collect();
            t.retain_before(records[keep], count - keep);
            assert_eq!(t.len(), keep);
            for (i, s) in strings.iter().enumerate() {
                let r = t.intern(&mut out, s.as_bytes());
                if i >= keep {
                    assert!(r > records[count - 1], "{count}: {i} written anew");
                } else {
                    assert_eq!(r, records[i], "{count}: {i} found");
                }
            }
        }
    }

    /// Across many documents, a string of an earlier document is never
    /// found again, and the current one's are.
    #[test]
    fn clearing_forgets_every_string() {
        let mut t = StringTable::default();
        for doc in 0..700usize {
            let mut out = vec![0u8; 3];
            let n = 1 + doc % 40;
            let strings: Vec<String> = (0..n).map(|i| format!("s{}", i * 7 + doc % 3)).collect();
            let records: Vec<usize> = strings
                .iter()
                .map(|s| t.intern(&mut out, s.as_bytes()))
                .collect();
            for (s, &r) in strings.iter().zip(&records) {
                assert_eq!(record_bytes(&out, r), Some(s.as_bytes()), "document {doc}");
                assert_eq!(t.intern(&mut out, s.as_bytes()), r);
            }
            t.clear();
        }
    }
}
