//! Writing pending changes into a write transaction, keeping pages full.
//!
//! LMDB splits a full leaf page in the middle, unless the new key goes at
//! its end (then it leaves the old page full). Keys appended past the last
//! one (as one big flush of sorted keys is) fill pages completely, but new
//! keys that fall *between* committed ones, many to a page (a flush every
//! 10,000 of `k0`, `k1`, ..., `k10000`..., whose keys interleave with the
//! committed ones), split page after page in the middle: pages end half
//! full, and the file nearly twice the size one flush leaves (1.89x for
//! 1M records flushed every 10,000; 130 bytes a record against 69).
//!
//! So where new keys come densely (at most [`GAP`] committed records
//! between two of them), the committed records between them are moved:
//! deleted, then put again in key order with the new ones, so that every
//! put goes at the end of a page. So is the rest of the page after the
//! last new key of such a run: a committed record left after the new keys
//! in their page would have them split it in the middle again (LMDB keeps
//! a page's separator in its parent when its first records are deleted,
//! so new keys well below the kept records still go to that page). Pages
//! are told apart by the addresses of keys read in a read transaction of
//! the state the write began from (`Base`). Records move about once per
//! flush, and only where new keys are dense (with 1M records flushed every
//! 10,000: 1.07x the file of one flush, for 1% more time): updates of
//! existing keys, deletions and sparse inserts are written as they are.

use std::ops::Bound;

use heed::{RoTxn, RwTxn, WithoutTls};

use crate::pending::Change;
use crate::shared::ItemsDb;

/// Pending changes planned and written together.
const CHUNK: usize = 4096;
/// New keys are dense when at most this many committed records (or
/// updated ones) lie between two of them.
const GAP: usize = 8;
/// Records move only around runs of at least this many new keys (one or
/// two new keys in a page split it once at most: not worth moving the
/// rest of the page).
const MIN_RUN: usize = 8;
/// A chunk stops looking for runs of new keys after this many long gaps
/// in a row (changes spread over the store: nothing to move).
const MAX_MISSES: usize = 16;
/// The most bytes of committed records copied to be moved per chunk.
const MOVE_BYTES: usize = 16 << 20;
/// Records with longer values (on LMDB's overflow pages, past about half
/// a 4 KiB page) do not move.
const MOVE_VALUE_MAX: usize = 2000;

/// The committed state a write transaction began from, read to plan
/// which records to move.
pub(crate) struct Base<'t> {
    pub(crate) txn: &'t RoTxn<'t, WithoutTls>,
    /// The map's address, LMDB's page size and the map's length, if the
    /// address is known: a key's page is found from its address.
    pub(crate) map: Option<(usize, usize, usize)>,
}

impl Base<'_> {
    /// The number of the page a key read from `txn` lies in, if known.
    fn page_of(&self, key: &[u8]) -> Option<usize> {
        let (start, page, len) = self.map?;
        let at = (key.as_ptr() as usize).checked_sub(start)?;
        (at < len && page > 0).then(|| at / page)
    }
}

/// Writes `changes` (in strictly increasing key order) into `wtxn`,
/// moving committed records where new keys come densely if `base` is
/// given.
pub(crate) fn write_changes<'a>(
    items: &ItemsDb,
    base: Option<&Base<'_>>,
    wtxn: &mut RwTxn<'_>,
    mut changes: impl Iterator<Item = Change<'a>>,
) -> heed::Result<()> {
    let last: Option<Vec<u8>> = items.last(wtxn)?.map(|(k, _)| k.to_vec());
    let mut w = Writer {
        items,
        appending: last.is_none(),
        last,
    };
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut plan = Plan::default();
    loop {
        chunk.clear();
        chunk.extend(changes.by_ref().take(CHUNK));
        if chunk.is_empty() {
            return Ok(());
        }
        plan.clear();
        if let (false, Some(base)) = (w.appending, base) {
            plan.make(items, base, &chunk)?;
        }
        w.write(wtxn, &chunk, &plan)?;
    }
}

/// The committed records one chunk moves.
#[derive(Default)]
struct Plan {
    /// Keys and values of the records to move, one after the other.
    bytes: Vec<u8>,
    /// Each record to move: start in `bytes`, key length, value length.
    moved: Vec<(usize, usize, usize)>,
    /// Changes (indices in the chunk) whose committed record is deleted
    /// before the chunk is written (their new value is then put in order).
    twins: Vec<usize>,
}

/// The keys from `k` on.
fn from(k: &str) -> (Bound<&[u8]>, Bound<&[u8]>) {
    (Bound::Included(k.as_bytes()), Bound::Unbounded)
}

impl Plan {
    fn clear(&mut self) {
        self.bytes.clear();
        self.moved.clear();
        self.twins.clear();
    }

    fn record(&self, &(at, k, v): &(usize, usize, usize)) -> (&[u8], &[u8]) {
        (&self.bytes[at..at + k], &self.bytes[at + k..at + k + v])
    }

    /// Walks the committed records among the chunk's keys (in `base`,
    /// the committed state the write transaction began from: the records
    /// from the chunk's first key on are the same in both) and picks the
    /// ones to move: those in gaps of at most [`GAP`] records between two
    /// new keys, and after the last new key of such a run, the rest of
    /// the page the record after it lies in (so that no committed record
    /// is left after the new keys in the page they go to).
    fn make(&mut self, items: &ItemsDb, base: &Base<'_>, chunk: &[Change<'_>]) -> heed::Result<()> {
        let txn = base.txn;
        // After a new key (moving records), records walked since.
        let (mut open, mut gap) = (false, 0);
        // The page of the first record after the last new key, and
        // whether the walk is still on it.
        let (mut seam, mut on_seam) = (None, false);
        // What stays moved if no new key comes before the seam page ends;
        // what was moved before the run of new keys began, and the new
        // keys in the run (a run of fewer than MIN_RUN moves nothing).
        let (mut mark, mut start, mut run) = ((0, 0, 0), (0, 0, 0), 0);
        // Seeks since the last run of new keys that moved records.
        let mut misses = 0;
        let mut iter = items.range(txn, &from(chunk[0].0))?;
        let mut cur = iter.next().transpose()?;
        let mut i = 0;
        while let Some(&(pk, pv)) = chunk.get(i) {
            let pkb = pk.as_bytes();
            let Some((ck, cv)) = cur.filter(|&(ck, _)| ck <= pkb) else {
                if pv.is_some() {
                    // A new key: what was moved since the last one stays
                    // moved, and a new seam begins.
                    if !open {
                        start = self.lens();
                        run = 0;
                    }
                    run += 1;
                    open = true;
                    gap = 0;
                    seam = None;
                    on_seam = true;
                    mark = self.lens();
                }
                i += 1;
                continue;
            };
            let twin = ck == pkb;
            let mut moves = false;
            if open {
                let page = base.page_of(ck);
                if seam.is_none() {
                    seam = Some(page);
                }
                on_seam &= page.is_some() && Some(page) == seam;
                moves = (on_seam || gap < GAP) && !self.full(ck, cv);
            }
            if moves {
                if twin {
                    self.twins.push(i);
                } else {
                    self.push(ck, cv);
                }
                if on_seam {
                    mark = self.lens();
                }
            } else if open || gap >= GAP {
                // A long gap: its records stay where they are; on to the
                // next change.
                self.rollback(if run >= MIN_RUN { mark } else { start });
                if open && run >= MIN_RUN {
                    misses = 0;
                }
                open = false;
                if !twin {
                    // Sparse changes (a seek for each): planning would cost
                    // a third of the flush for nothing; the rest of the
                    // chunk is written as it is.
                    misses += 1;
                    if misses > MAX_MISSES {
                        return Ok(());
                    }
                    iter = items.range(txn, &from(pk))?;
                    cur = iter.next().transpose()?;
                    gap = 0;
                    continue;
                }
            }
            gap += 1;
            if twin {
                i += 1;
            }
            cur = iter.next().transpose()?;
        }
        // Records moved past the seam page with no new key after them
        // stay; the rest of the seam page moves.
        if open && run < MIN_RUN {
            self.rollback(start);
            return Ok(());
        }
        self.rollback(mark);
        while let (true, Some((ck, cv))) = (open && on_seam, cur) {
            let page = base.page_of(ck);
            if seam.is_none() {
                seam = Some(page);
            }
            if page.is_none() || Some(page) != seam || self.full(ck, cv) {
                break;
            }
            self.push(ck, cv);
            cur = iter.next().transpose()?;
        }
        Ok(())
    }

    fn push(&mut self, k: &[u8], v: &[u8]) {
        self.moved.push((self.bytes.len(), k.len(), v.len()));
        self.bytes.extend_from_slice(k);
        self.bytes.extend_from_slice(v);
    }

    fn rollback(&mut self, (bytes, moved, twins): (usize, usize, usize)) {
        self.bytes.truncate(bytes);
        self.moved.truncate(moved);
        self.twins.truncate(twins);
    }

    fn lens(&self) -> (usize, usize, usize) {
        (self.bytes.len(), self.moved.len(), self.twins.len())
    }

    /// True if a record of key `k` and value `v` does not move: its value
    /// is on overflow pages (moving it would rewrite them all), or moving
    /// it would pass [`MOVE_BYTES`].
    fn full(&self, k: &[u8], v: &[u8]) -> bool {
        v.len() > MOVE_VALUE_MAX || self.bytes.len() + k.len() + v.len() > MOVE_BYTES
    }
}

struct Writer<'d> {
    items: &'d ItemsDb,
    /// The last key committed before this transaction.
    last: Option<Vec<u8>>,
    /// Past `last`: puts append (LMDB fills pages and skips the search).
    appending: bool,
}

impl Writer<'_> {
    /// Writes a chunk of changes and moves the records its plan moves.
    fn write(
        &mut self,
        wtxn: &mut RwTxn<'_>,
        chunk: &[Change<'_>],
        plan: &Plan,
    ) -> heed::Result<()> {
        for m in &plan.moved {
            self.items.delete(wtxn, plan.record(m).0)?;
        }
        for &i in &plan.twins {
            self.items.delete(wtxn, chunk[i].0.as_bytes())?;
        }
        let mut moved = plan.moved.iter().map(|m| plan.record(m)).peekable();
        for &(k, v) in chunk {
            let kb = k.as_bytes();
            while let Some((mk, mv)) = moved.next_if(|&(mk, _)| mk < kb) {
                self.put(wtxn, mk, Some(mv))?;
            }
            self.put(wtxn, kb, v)?;
        }
        for (mk, mv) in moved {
            self.put(wtxn, mk, Some(mv))?;
        }
        Ok(())
    }

    fn put(&mut self, wtxn: &mut RwTxn<'_>, kb: &[u8], v: Option<&[u8]>) -> heed::Result<()> {
        if !self.appending && self.last.as_deref().is_some_and(|l| kb > l) {
            self.appending = true;
        }
        match v {
            Some(b) if self.appending => {
                self.items
                    .put_with_flags(wtxn, heed::PutFlags::APPEND, kb, b)
            }
            Some(b) => self.items.put(wtxn, kb, b),
            None if self.appending => Ok(()), // past the last key: nothing to delete
            None => self.items.delete(wtxn, kb).map(|_| ()),
        }
    }
}
