//! A store's pending changes: in memory while they are few, spilled to
//! sorted runs in unnamed temporary files past a memory limit.
//!
//! The newest changes live in a `BTreeMap` (`mem`). Once its estimated
//! memory passes [`Pending::limit`] it is written, in key order, to a run:
//! an unnamed temporary file (`O_TMPFILE` where the system has it) beside
//! the store, mapped read-only, with one key in [`INDEX_EVERY`] kept in
//! memory to find the others. Every four runs of a size are merged into one
//! (size-tiered, as in a log-structured merge tree), so a few runs hold any
//! number of changes and each change is rewritten once per tier (log base 4
//! of the number of spills). A lookup reads `mem`, then the runs from the
//! newest; iteration merges them in key order, the newest change of a key
//! winning. Nothing here is durable: the files have no name, and the
//! system frees them when the store drops them (flush, reload, drop, or a
//! crash of the process).

use std::collections::btree_map;
use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Estimated memory of one entry of `mem` beyond its key and value bytes:
/// its slot in the B-tree, the key's `String` and the value's `Arc`
/// allocations (measured: ~190 bytes a record of a 7-byte key and a
/// 45-byte value, over 3M records).
const ENTRY_COST: usize = 128;
/// Default memory limit of `mem` (bytes, estimated as [`ENTRY_COST`] plus
/// key and value bytes per entry).
pub(crate) const DEFAULT_LIMIT: usize = 64 << 20;
/// One key in this many of a run is kept in memory (its index).
const INDEX_EVERY: usize = 16;
/// Runs merged at once (see [`Pending::maybe_spill`]).
const MERGE_FANOUT: usize = 4;
/// Bit of an entry's key length that marks a deletion.
const TOMBSTONE: u32 = 1 << 31;
/// `count` not known.
const UNKNOWN: usize = usize::MAX;
/// A run read in order gives back the pages it has read every this many
/// bytes (so that merging runs and flushing them holds little memory).
const RELEASE_EVERY: usize = 4 << 20;

/// A pending change: the new value, or `None` for a deletion.
pub(crate) type Change<'a> = (&'a str, Option<&'a [u8]>);

/// The pending changes of a store.
pub(crate) struct Pending {
    mem: BTreeMap<String, Option<Arc<[u8]>>>,
    /// Value bytes in `mem`.
    mem_values: usize,
    /// Estimated memory of `mem`.
    mem_cost: usize,
    /// Older changes, oldest first.
    runs: Vec<Arc<Run>>,
    /// Spill `mem` past this many (estimated) bytes.
    limit: usize,
    /// Where runs are made (the store's directory).
    dir: PathBuf,
    /// Distinct keys pending, once counted while there are runs.
    count: AtomicUsize,
}

/// Where a pending change of a key was found.
pub(crate) enum Found<'a> {
    /// In memory: the value (`None`: deleted).
    Mem(Option<&'a Arc<[u8]>>),
    /// In a run: the run and the value's bytes in its map.
    Run(&'a Arc<Run>, Option<&'a [u8]>),
}

impl<'a> Found<'a> {
    /// The value (`None`: a pending deletion).
    pub(crate) fn bytes(&self) -> Option<&'a [u8]> {
        match *self {
            Found::Mem(v) => v.map(|b| &b[..]),
            Found::Run(_, v) => v,
        }
    }
}

impl Pending {
    /// No pending changes; runs are made in `dir`.
    pub(crate) fn new(dir: PathBuf) -> Pending {
        Pending {
            mem: BTreeMap::new(),
            mem_values: 0,
            mem_cost: 0,
            runs: Vec::new(),
            limit: DEFAULT_LIMIT,
            dir,
            count: AtomicUsize::new(UNKNOWN),
        }
    }

    /// Takes every pending change, leaving none (with the same directory
    /// and memory limit).
    pub(crate) fn take(&mut self) -> Pending {
        let mut empty = Pending::new(self.dir.clone());
        empty.limit = self.limit;
        std::mem::replace(self, empty)
    }

    /// Sets the memory limit (bytes) past which changes are spilled.
    pub(crate) fn set_limit(&mut self, bytes: usize) {
        self.limit = bytes;
        self.maybe_spill();
    }

    /// True if nothing is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.mem.is_empty() && self.runs.is_empty()
    }

    /// True if some changes were spilled to runs.
    pub(crate) fn spilled(&self) -> bool {
        !self.runs.is_empty()
    }

    /// Value bytes pending (values overwritten in runs counted too).
    pub(crate) fn value_bytes(&self) -> usize {
        self.mem_values + self.runs.iter().map(|r| r.values).sum::<usize>()
    }

    /// The number of keys with a pending change. In memory only, as
    /// stored; with runs, counted once by a merge and kept until the next
    /// change. A deletion counts only if `committed(key)` (a key put and
    /// deleted again since the last flush has no change pending).
    pub(crate) fn len(&self, committed: impl Fn(&str) -> bool) -> usize {
        if self.runs.is_empty() {
            return self.mem.len();
        }
        let n = self.count.load(Ordering::Relaxed);
        if n != UNKNOWN {
            return n;
        }
        let n = self
            .iter_from(Bound::Unbounded)
            .filter(|(k, v)| v.is_some() || committed(k))
            .count();
        self.count.store(n, Ordering::Relaxed);
        n
    }

    /// The pending change of `key`, if any.
    pub(crate) fn get(&self, key: &str) -> Option<Found<'_>> {
        if let Some(v) = self.mem.get(key) {
            return Some(Found::Mem(v.as_ref()));
        }
        self.runs
            .iter()
            .rev()
            .find_map(|r| r.get(key).map(|v| Found::Run(r, v)))
    }

    /// Sets the pending change of `key` (`None`: delete it).
    pub(crate) fn set(&mut self, key: &str, value: Option<Arc<[u8]>>) {
        let add = value.as_ref().map_or(0, |v| v.len());
        self.mem_values += add;
        if !self.runs.is_empty() {
            // A new key, or a deletion that may no longer count.
            self.count.store(UNKNOWN, Ordering::Relaxed);
        }
        match self.mem.entry(key.to_owned()) {
            btree_map::Entry::Vacant(e) => {
                self.mem_cost += ENTRY_COST + key.len() + add;
                e.insert(value);
            }
            btree_map::Entry::Occupied(mut e) => {
                self.mem_cost += add;
                if let Some(old) = e.insert(value) {
                    self.mem_values -= old.len();
                    self.mem_cost -= old.len();
                }
            }
        }
        self.maybe_spill();
    }

    /// Forgets the pending value of `key` (not committed): removed from
    /// memory if no run holds it, else shadowed by a deletion.
    pub(crate) fn forget(&mut self, key: &str) {
        if self.runs.is_empty() {
            if let Some(old) = self.mem.remove(key) {
                let len = old.map_or(0, |v| v.len());
                self.mem_values -= len;
                self.mem_cost -= ENTRY_COST + key.len() + len;
            }
        } else {
            self.set(key, None);
        }
    }

    /// Drops every pending change.
    pub(crate) fn clear(&mut self) {
        self.mem.clear();
        self.mem_values = 0;
        self.mem_cost = 0;
        self.runs.clear();
        self.count.store(UNKNOWN, Ordering::Relaxed);
    }

    /// The pending changes in key order from `start`.
    pub(crate) fn iter_from(&self, start: Bound<&str>) -> PendingIter<'_> {
        let mut sources = Vec::with_capacity(1 + self.runs.len());
        sources.push(Source::Mem(
            self.mem.range::<str, _>((start, Bound::Unbounded)),
        ));
        sources.extend(
            self.runs
                .iter()
                .rev()
                .map(|r| Source::Run(r.iter_from(start))),
        );
        PendingIter::new(sources)
    }

    /// Spills `mem` to a run if it is over the limit. A run that cannot be
    /// written (no room on disk, no writable directory) leaves the changes
    /// in memory and doubles the limit, so as not to retry at every put.
    fn maybe_spill(&mut self) {
        if self.mem_cost <= self.limit || self.mem.is_empty() {
            return;
        }
        let run = {
            let changes = self.mem.iter().map(|(k, v)| (k.as_str(), v.as_deref()));
            Run::write(&self.dir, changes)
        };
        let Ok(run) = run else {
            self.limit = self.limit.saturating_mul(2);
            return;
        };
        self.runs.push(Arc::new(run));
        self.mem.clear();
        self.mem_values = 0;
        self.mem_cost = 0;
        // Merge the newest MERGE_FANOUT runs when they are of a size (the
        // oldest of them at most twice the newest): each change is
        // rewritten once per tier (log base 4 of the spills), and a lookup
        // reads a few runs per tier.
        while self.runs.len() >= MERGE_FANOUT {
            let newest = &self.runs[self.runs.len() - MERGE_FANOUT..];
            if newest[0].bytes > newest[MERGE_FANOUT - 1].bytes.saturating_mul(2) {
                break;
            }
            let merged = {
                let sources = newest
                    .iter()
                    .rev()
                    .map(|r| Source::Run(r.iter_from(Bound::Unbounded)))
                    .collect();
                Run::write(&self.dir, PendingIter::new(sources))
            };
            let Ok(merged) = merged else { break };
            self.runs.truncate(self.runs.len() - MERGE_FANOUT);
            self.runs.push(Arc::new(merged));
        }
        self.count.store(UNKNOWN, Ordering::Relaxed);
    }
}

/// A sorted run of changes in an unnamed temporary file, mapped.
///
/// Each entry: key length (`u32`, [`TOMBSTONE`] bit for a deletion), value
/// length (`u32`), the key, zeros to a multiple of 8, the value, zeros to
/// a multiple of 8 (values are 8-aligned, as in memory).
pub(crate) struct Run {
    map: memmap2::Mmap,
    /// Every [`INDEX_EVERY`]th key and the offset of its entry.
    index: Vec<(Box<str>, usize)>,
    /// File size.
    bytes: usize,
    /// Value bytes.
    values: usize,
}

impl Run {
    /// Writes `changes` (in strictly increasing key order) to a new run in
    /// `dir` (or the system's temporary directory if `dir` takes none).
    fn write<'a>(dir: &Path, changes: impl Iterator<Item = Change<'a>>) -> std::io::Result<Run> {
        let file = tempfile::tempfile_in(dir).or_else(|_| tempfile::tempfile())?;
        let mut w = BufWriter::with_capacity(1 << 20, &file);
        let mut index = Vec::new();
        let (mut off, mut len, mut values) = (0usize, 0usize, 0usize);
        const ZEROS: [u8; 8] = [0; 8];
        for (k, v) in changes {
            if len % INDEX_EVERY == 0 {
                index.push((Box::from(k), off));
            }
            let klen = u32::try_from(k.len()).map_err(|_| std::io::ErrorKind::InvalidInput)?;
            let vlen = v
                .map_or(Ok(0), |v| u32::try_from(v.len()))
                .map_err(|_| std::io::ErrorKind::InvalidInput)?;
            let flags = if v.is_some() { 0 } else { TOMBSTONE };
            w.write_all(&(klen | flags).to_le_bytes())?;
            w.write_all(&vlen.to_le_bytes())?;
            w.write_all(k.as_bytes())?;
            w.write_all(&ZEROS[..pad(k.len())])?;
            off += 8 + k.len() + pad(k.len());
            if let Some(v) = v {
                w.write_all(v)?;
                w.write_all(&ZEROS[..pad(v.len())])?;
                off += v.len() + pad(v.len());
                values += v.len();
            }
            len += 1;
        }
        w.flush()?;
        drop(w);
        let map = if off == 0 {
            memmap2::MmapOptions::new()
                .len(0)
                .map_anon()?
                .make_read_only()?
        } else {
            // SAFETY: the file is an unnamed temporary file of this process
            // (no other process can open it by name), completely written
            // above and never written, truncated or resized again: the
            // mapped bytes do not change while the map lives.
            unsafe { memmap2::MmapOptions::new().len(off).map(&file)? }
        };
        Ok(Run {
            map,
            index,
            bytes: off,
            values,
        })
    }

    /// The entry at `off`: key, value, offset of the next entry. `None`
    /// past the end or for an entry that does not fit (the run was written
    /// by this process: never, short of damage to its file).
    #[inline]
    fn entry(&self, off: usize) -> Option<(&str, Option<&[u8]>, usize)> {
        let m = &self.map[..];
        let head = m.get(off..off.checked_add(8)?)?;
        let klen = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let vlen = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        let (dead, klen) = (klen & TOMBSTONE != 0, (klen & !TOMBSTONE) as usize);
        let kstart = off + 8;
        let key = std::str::from_utf8(m.get(kstart..kstart.checked_add(klen)?)?).ok()?;
        let vstart = kstart + klen + pad(klen);
        if dead {
            return Some((key, None, vstart));
        }
        let value = m.get(vstart..vstart.checked_add(vlen)?)?;
        Some((key, Some(value), vstart + vlen + pad(vlen)))
    }

    /// The change of `key` in this run, if any.
    fn get(&self, key: &str) -> Option<Option<&[u8]>> {
        let i = self.index.partition_point(|(k, _)| &**k <= key);
        let mut off = self.index.get(i.checked_sub(1)?)?.1;
        for _ in 0..INDEX_EVERY {
            let (k, v, next) = self.entry(off)?;
            match k.cmp(key) {
                std::cmp::Ordering::Equal => return Some(v),
                std::cmp::Ordering::Greater => return None,
                std::cmp::Ordering::Less => off = next,
            }
        }
        None
    }

    /// The entries from `start` on.
    fn iter_from(&self, start: Bound<&str>) -> RunIter<'_> {
        let (i, skip): (usize, fn(&str, &str) -> bool) = match start {
            Bound::Unbounded => return RunIter::new(self, 0),
            Bound::Included(s) => (self.index.partition_point(|(k, _)| &**k < s), |k, s| k < s),
            Bound::Excluded(s) => (self.index.partition_point(|(k, _)| &**k <= s), |k, s| {
                k <= s
            }),
        };
        let s = match start {
            Bound::Included(s) | Bound::Excluded(s) => s,
            Bound::Unbounded => "",
        };
        let mut off = match i.checked_sub(1) {
            Some(j) => self.index[j].1,
            None => 0,
        };
        while let Some((k, _, next)) = self.entry(off) {
            if !skip(k, s) {
                break;
            }
            off = next;
        }
        RunIter::new(self, off)
    }

    /// Gives the pages of `from..to` back to the system (Linux): they
    /// leave the process's resident memory, and are read again from the
    /// file if used again.
    fn release(&self, from: usize, to: usize) {
        #[cfg(target_os = "linux")]
        if to > from && to <= self.map.len() {
            // SAFETY: `map` is a read-only shared mapping of a file that is
            // never written again (see `write`). MADV_DONTNEED on a shared
            // file mapping only drops the pages from this process's page
            // tables: the next access reads them again from the file (the
            // page cache), with the same contents. So bytes borrowed from
            // the map (records, documents) stay valid and unchanged.
            unsafe {
                let _ = self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    from,
                    to - from,
                );
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (from, to);
    }
}

/// Zeros after `len` bytes to reach a multiple of 8.
#[inline]
fn pad(len: usize) -> usize {
    len.wrapping_neg() & 7
}

/// The entries of a run in key order, giving back the pages read.
pub(crate) struct RunIter<'a> {
    run: &'a Run,
    off: usize,
    /// The pages before this offset were given back.
    released: usize,
}

impl<'a> RunIter<'a> {
    fn new(run: &'a Run, off: usize) -> RunIter<'a> {
        RunIter {
            run,
            off,
            released: off,
        }
    }
}

impl<'a> Iterator for RunIter<'a> {
    type Item = Change<'a>;

    #[inline]
    fn next(&mut self) -> Option<Change<'a>> {
        let (k, v, next) = self.run.entry(self.off)?;
        self.off = next;
        if self.off - self.released >= RELEASE_EVERY {
            // The page of the current entry stays: `k` and `v` are in use.
            let to = self.off - RELEASE_EVERY / 2;
            self.run.release(self.released, to);
            self.released = to;
        }
        Some((k, v))
    }
}

/// One layer of pending changes being merged.
enum Source<'a> {
    Mem(btree_map::Range<'a, String, Option<Arc<[u8]>>>),
    Run(RunIter<'a>),
}

impl<'a> Source<'a> {
    #[inline]
    fn next(&mut self) -> Option<Change<'a>> {
        match self {
            Source::Mem(r) => r.next().map(|(k, v)| (k.as_str(), v.as_deref())),
            Source::Run(r) => r.next(),
        }
    }
}

/// Pending changes in key order: layers merged, the first (newest) layer
/// holding a key giving its change.
pub(crate) struct PendingIter<'a> {
    sources: Vec<Source<'a>>,
    heads: Vec<Option<Change<'a>>>,
}

impl<'a> PendingIter<'a> {
    fn new(mut sources: Vec<Source<'a>>) -> PendingIter<'a> {
        let heads = sources.iter_mut().map(Source::next).collect();
        PendingIter { sources, heads }
    }

    /// An iterator that yields nothing.
    pub(crate) fn empty() -> PendingIter<'a> {
        PendingIter {
            sources: Vec::new(),
            heads: Vec::new(),
        }
    }
}

impl<'a> Iterator for PendingIter<'a> {
    type Item = Change<'a>;

    #[inline]
    fn next(&mut self) -> Option<Change<'a>> {
        if let [head] = &mut self.heads[..] {
            // One layer (nothing spilled): no merge.
            let out = head.take()?;
            *head = self.sources[0].next();
            return Some(out);
        }
        let mut best: Option<(usize, Change<'a>)> = None;
        for (i, h) in self.heads.iter().enumerate() {
            if let Some(c) = *h {
                if best.is_none_or(|(_, b)| c.0 < b.0) {
                    best = Some((i, c));
                }
            }
        }
        let (_, out) = best?;
        for (h, s) in self.heads.iter_mut().zip(&mut self.sources) {
            if h.is_some_and(|c| c.0 == out.0) {
                *h = s.next();
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(i: usize) -> (String, Option<Arc<[u8]>>) {
        let v = (i % 7 != 3).then(|| Arc::from(vec![i as u8; i % 13]));
        (format!("k{i}"), v)
    }

    /// Layers merge in key order with the newest change winning, and
    /// lookups agree with the merge, however the changes were spilled.
    #[test]
    fn layers_merge_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Pending::new(dir.path().to_path_buf());
        p.set_limit(2000);
        let mut model = BTreeMap::new();
        for round in 0..5 {
            for i in (round..3000).step_by(round + 1) {
                let (k, v) = change(i * (round + 1) % 3001);
                p.set(&k, v.clone());
                model.insert(k, v);
            }
        }
        assert!(p.runs.len() >= 2, "{} runs", p.runs.len());
        let got: Vec<(String, Option<Vec<u8>>)> = p
            .iter_from(Bound::Unbounded)
            .map(|(k, v)| (k.to_owned(), v.map(<[u8]>::to_vec)))
            .collect();
        let want: Vec<(String, Option<Vec<u8>>)> = model
            .iter()
            .map(|(k, v)| (k.clone(), v.as_deref().map(<[u8]>::to_vec)))
            .collect();
        assert_eq!(got, want);
        for (k, v) in &model {
            let f = p.get(k).map(|f| f.bytes());
            assert_eq!(f, Some(v.as_deref()), "{k}");
        }
        assert!(p.get("nope").is_none() && p.get("k99999").is_none());
        for start in ["k1", "k1500", "k2", "k999", "zz", ""] {
            for b in [Bound::Included(start), Bound::Excluded(start)] {
                let got: Vec<&str> = p.iter_from(b).map(|(k, _)| k).collect();
                let want: Vec<&str> = model
                    .range::<str, _>((b, Bound::Unbounded))
                    .map(|(k, _)| k.as_str())
                    .collect();
                assert_eq!(got, want, "{b:?}");
            }
        }
        assert_eq!(p.len(|_| true), model.len());
        assert_eq!(
            p.len(|_| false),
            model.len(),
            "counted once, until a change"
        );
        p.count.store(UNKNOWN, Ordering::Relaxed);
        let live = model.values().filter(|v| v.is_some()).count();
        assert_eq!(p.len(|_| false), live);
        // A value put since the spill and deleted again (not committed)
        // leaves no change to count.
        p.set("new", Some(Arc::from(&b"v"[..])));
        assert_eq!(p.len(|_| false), live + 1);
        p.forget("new");
        assert_eq!(p.len(|_| false), live);
        p.clear();
        assert!(p.is_empty() && p.iter_from(Bound::Unbounded).next().is_none());
    }
}
