//! A snapshot: one LMDB read transaction, the committed state of the store
//! at one moment, lending records straight from the memory map.

use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use heed::{MdbError, RoTxn, WithoutTls};
use roving::Document;

use crate::error::{readers_full_message, Result, StoreError, StoreErrorKind};
use crate::shared::{Shared, FORMAT_KEY};

/// The committed state of a store at one moment (an LMDB read transaction).
///
/// Records borrowed from a snapshot point into the memory map: no copy is
/// made. A snapshot never changes; commits made after it began are not
/// visible in it. It keeps the pages it sees from being reused, so do not
/// keep one for hours while other processes write a lot (the file grows).
///
/// A `Snapshot` is `Send` and `Sync`: its transaction sits behind a mutex,
/// taken only for the duration of each LMDB call.
pub struct Snapshot {
    shared: Arc<Shared>,
    txn: Mutex<Option<RoTxn<'static, WithoutTls>>>,
    len: u64,
    id: usize,
    /// Every key and value must lie in `lo..hi` (addresses); `0..usize::MAX`
    /// when the map's address could not be established.
    lo: usize,
    hi: usize,
    /// The store's dictionary (at least the entries of this state).
    dict: Arc<roving::Dictionary>,
    /// Records written against the dictionary, as read by `get` (the
    /// dictionary's base and the record): kept until the snapshot ends.
    resolved: Mutex<Vec<Box<[u8]>>>,
}

impl Snapshot {
    /// Begins a read transaction and wraps it in a snapshot, adopting a map
    /// grown by another process if needed.
    pub(crate) fn begin(shared: &Arc<Shared>) -> Result<Arc<Snapshot>> {
        match Snapshot::try_begin(shared)? {
            Some(snap) => Ok(snap),
            None => {
                shared.remap(0)?;
                match Snapshot::try_begin(shared)? {
                    Some(snap) => Ok(snap),
                    None => Err(shared.err(heed::Error::Mdb(MdbError::MapResized).into())),
                }
            }
        }
    }

    /// Begins a read transaction and wraps it in a snapshot; `None` if
    /// another process grew the map, which must be adopted (`remap(0)`)
    /// first.
    pub(crate) fn try_begin(shared: &Arc<Shared>) -> Result<Option<Arc<Snapshot>>> {
        shared.check_pid()?;
        let txn = {
            let _g = shared.gate.read().unwrap_or_else(|e| e.into_inner());
            match shared.env.clone().static_read_txn() {
                Ok(txn) => {
                    shared.live.fetch_add(1, Ordering::SeqCst);
                    txn
                }
                Err(heed::Error::Mdb(MdbError::MapResized)) => return Ok(None),
                Err(heed::Error::Mdb(MdbError::ReadersFull)) => {
                    let slots = shared.env.info().maximum_number_of_readers;
                    return Err(shared.err(
                        StoreError::new(StoreErrorKind::Busy, readers_full_message(Some(slots)))
                            .with_source(MdbError::ReadersFull),
                    ));
                }
                Err(e) => return Err(shared.err(e.into())),
            }
        };
        Snapshot::new(shared.clone(), txn).map(|s| Some(Arc::new(s)))
    }

    /// Wraps a transaction already counted in `shared.live`.
    fn new(shared: Arc<Shared>, txn: RoTxn<'static, WithoutTls>) -> Result<Snapshot> {
        let id = txn.id();
        let mut snap = Snapshot {
            shared,
            txn: Mutex::new(Some(txn)),
            len: 0,
            id,
            lo: 0,
            hi: usize::MAX,
            dict: Arc::new(roving::Dictionary::new()),
            resolved: Mutex::new(Vec::new()),
        };
        snap.check().map_err(|e| snap.shared.err(e))?;
        Ok(snap)
    }

    fn check(&mut self) -> Result<()> {
        let shared = self.shared.clone();
        let ps = shared.page_size;
        let info = shared.env.info();
        let file_len = shared.file.metadata()?.len();
        let need = (info.last_page_number as u64 + 1).saturating_mul(ps as u64);
        let id = self.id as u64;
        // A file shorter than its pages is walked (once per state).
        if file_len >= need || shared.short_ok.load(Ordering::SeqCst) != id {
            crate::shared::check_file(&shared.file, &info, ps, id, false, shared.env_readonly)?;
            if file_len < need {
                shared.short_ok.store(id, Ordering::SeqCst);
            }
        }
        let guard = self.lock()?;
        let txn = guard_txn(&guard)?;
        let len = shared.items.len(txn)?;
        let dict = {
            let mut d = shared.dict.lock().unwrap_or_else(|e| e.into_inner());
            crate::dict::load(&shared.meta, txn, &mut d)?;
            d.clone()
        };
        let mut base = shared.base.load(Ordering::SeqCst);
        if base == 0 {
            base = map_base(&shared, txn)?;
            shared.base.store(base, Ordering::SeqCst);
        }
        drop(guard);
        self.dict = dict;
        self.len = len;
        if base > 1 {
            let mapped = (file_len as usize).min(info.map_size);
            self.lo = base + 2 * ps; // pages 0 and 1 are LMDB's meta pages
            self.hi = base.saturating_add(mapped);
        }
        Ok(())
    }

    fn lock(&self) -> Result<MutexGuard<'_, Option<RoTxn<'static, WithoutTls>>>> {
        Ok(self.txn.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The number of records in this snapshot.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True if the snapshot holds no record.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The LMDB transaction id of this snapshot: it grows by one with
    /// each commit to the store, from any process.
    pub fn txn_id(&self) -> usize {
        self.id
    }

    /// Maps the pages of the file that this snapshot may read into the
    /// process's page tables now ([`StoreOptions::populate`]): Linux's
    /// `MADV_POPULATE_READ`; a no-op elsewhere, on kernels without it, or
    /// when the map's address is not known.
    ///
    /// [`StoreOptions::populate`]: crate::StoreOptions::populate
    pub(crate) fn populate(&self) {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            let ps = self.shared.page_size;
            if self.hi == usize::MAX || self.lo < 2 * ps || self.hi <= self.lo {
                return; // the map's address is unknown: nothing to prefault
            }
            let base = self.lo - 2 * ps;
            // SAFETY: `base..hi` is the start of LMDB's read-only mapping
            // of the file, up to the file's length (established by
            // `check`: `base` is the map's page-aligned address, `hi` is
            // `base` plus the smaller of the file's length and the map's
            // size). MADV_POPULATE_READ only faults those pages in (a page
            // that cannot be read gives an error, not a signal); it changes
            // neither the mapping nor its contents. Errors (e.g. EINVAL on
            // kernels before 5.14) only mean the pages are mapped on first
            // read instead, as without this call.
            unsafe {
                libc::madvise(
                    base as *mut libc::c_void,
                    self.hi - base,
                    libc::MADV_POPULATE_READ,
                );
            }
        }
    }

    /// Checks that a slice handed out by LMDB lies within the file.
    #[inline]
    fn in_bounds(&self, s: &[u8]) -> Result<()> {
        let p = s.as_ptr() as usize;
        if p >= self.lo && p.checked_add(s.len()).is_some_and(|end| end <= self.hi) {
            Ok(())
        } else {
            Err(self.shared.err(StoreError::new(
                StoreErrorKind::Corrupt,
                "the store is damaged: a record points outside the file",
            )))
        }
    }

    /// The bytes of record `key`, straight from the map, not validated.
    pub fn get_bytes(&self, key: &str) -> Result<Option<&[u8]>> {
        if key.is_empty() || key.len() > self.shared.max_key {
            return Ok(None); // LMDB cannot hold such a key
        }
        let guard = self.lock()?;
        let txn = guard_txn(&guard)?;
        let v = match self.shared.items.get(txn, key.as_bytes()) {
            Ok(Some(v)) => v,
            Ok(None) => return Ok(None),
            Err(e) => return Err(self.shared.err(e.into())),
        };
        self.in_bounds(v)?;
        // SAFETY: `v` points into LMDB's memory map (read transactions never
        // see dirty pages) and was just checked to lie within the file. The
        // pages a read transaction sees are not modified or reused until it
        // ends, and it ends only when `self` drops (the transaction is owned
        // by `self`); the map is not remapped while `self` is alive
        // (`Shared::remap` refuses while any transaction lives). So the bytes
        // stay valid and unchanged for the lifetime of `&self`.
        let v: &[u8] = unsafe { std::slice::from_raw_parts(v.as_ptr(), v.len()) };
        Ok(Some(v))
    }

    /// Record `key` as a validated document borrowed from the map.
    pub fn get(&self, key: &str) -> Result<Option<Document<'_>>> {
        match self.get_bytes(key)? {
            Some(v) => self.keep_resolved(key, v, &self.dict).map(Some),
            None => Ok(None),
        }
    }

    /// The plain document `bytes` (record `key`, validated) reads as: `bytes`
    /// itself, or for a record written against the dictionary, a copy of
    /// the dictionary's base and the record, kept until the snapshot ends
    /// ([`Store::get_with`](crate::Store::get_with) reads many such records).
    /// `dict` is the snapshot's dictionary or a later state of it.
    pub(crate) fn keep_resolved<'a>(
        &'a self,
        key: &str,
        bytes: &'a [u8],
        dict: &roving::Dictionary,
    ) -> Result<Document<'a>> {
        if crate::dict::needs(bytes) == 0 {
            return self.open_doc(key, bytes);
        }
        let mut scratch = Vec::new();
        open_bound(&self.shared, dict, key, bytes, &mut scratch)?;
        let kept: Box<[u8]> = scratch.into_boxed_slice();
        let (ptr, len) = (kept.as_ptr(), kept.len());
        self.resolved
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(kept);
        // SAFETY: the bytes are the heap allocation of a `Box<[u8]>` now
        // owned by `self.resolved`, which only grows (moving the boxes,
        // not their contents) and is dropped with `self`: they stay valid
        // and unchanged for the lifetime of `&self`.
        let plain: &'a [u8] = unsafe { std::slice::from_raw_parts(ptr, len) };
        // SAFETY: `open_bound` just validated this very document.
        unsafe { Document::open_trusted(plain) }
            .map_err(|e| self.shared.err(crate::dict::missing(key, &e)))
    }

    /// True if the snapshot has record `key`.
    pub fn contains(&self, key: &str) -> Result<bool> {
        Ok(self.get_bytes(key)?.is_some())
    }

    /// The store's dictionary, with at least the entries this state's
    /// records need.
    pub fn dictionary(&self) -> &Arc<roving::Dictionary> {
        &self.dict
    }

    /// Validates `bytes`, record `key` of this snapshot (a plain document:
    /// a bound one needs [`open_bound`]).
    pub(crate) fn open_doc<'a>(&self, key: &str, bytes: &'a [u8]) -> Result<Document<'a>> {
        Document::open(bytes).map_err(|e| {
            self.shared.err(StoreError::new(
                StoreErrorKind::Corrupt,
                format!("the store is damaged: record {key:?} is not a valid roving document: {e}"),
            ))
        })
    }

    /// Appends to `out` up to `max` records (key, unvalidated bytes) in key
    /// order, starting at `start`.
    pub fn scan<'s>(
        &'s self,
        start: Bound<&str>,
        max: usize,
        out: &mut Vec<(&'s str, &'s [u8])>,
    ) -> Result<()> {
        let guard = self.lock()?;
        let txn = guard_txn(&guard)?;
        let range = (start.map(str::as_bytes), Bound::<&[u8]>::Unbounded);
        let iter = self
            .shared
            .items
            .range(txn, &range)
            .map_err(|e| self.shared.err(e.into()))?;
        for item in iter.take(max) {
            let (k, v) = item.map_err(|e| self.shared.err(e.into()))?;
            self.in_bounds(k)?;
            self.in_bounds(v)?;
            let k = std::str::from_utf8(k).map_err(|_| {
                self.shared.err(StoreError::new(
                    StoreErrorKind::Corrupt,
                    "the store is damaged: a key is not UTF-8",
                ))
            })?;
            // SAFETY: as in `get_bytes`: both slices lie in pages of the
            // map that stay valid and unchanged while `self` is alive.
            let (k, v): (&str, &[u8]) = unsafe {
                (
                    std::str::from_utf8_unchecked(std::slice::from_raw_parts(k.as_ptr(), k.len())),
                    std::slice::from_raw_parts(v.as_ptr(), v.len()),
                )
            };
            out.push((k, v));
        }
        Ok(())
    }

    /// Validates every record of the snapshot; returns how many there are.
    pub fn verify(&self) -> Result<u64> {
        let mut buf = Vec::with_capacity(256);
        let mut n = 0u64;
        let mut last: Option<&str> = None;
        loop {
            buf.clear();
            let start = last.map_or(Bound::Unbounded, Bound::Excluded);
            self.scan(start, 256, &mut buf)?;
            let mut scratch = Vec::new();
            for &(k, v) in &buf {
                open_bound(&self.shared, &self.dict, k, v, &mut scratch)?;
                n += 1;
            }
            match buf.last() {
                Some(&(k, _)) if buf.len() == 256 => last = Some(k),
                _ => return Ok(n),
            }
        }
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        let txn = self.txn.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if self.shared.forked() {
            // A child forked after the transaction began: its reader slot
            // in LMDB's (shared) reader table is the parent's, and ending
            // the transaction here would free it under the parent's live
            // snapshot, whose pages a writer could then reuse. Leak it.
            std::mem::forget(txn);
        } else {
            drop(txn);
        }
        self.shared.live.fetch_sub(1, Ordering::SeqCst);
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("txn_id", &self.id)
            .field("len", &self.len)
            .finish()
    }
}

/// Validates `bytes`, record `key` read with `dict` (a plain record from
/// the map, or a bound one after the dictionary's base in `scratch`).
pub(crate) fn open_bound<'a>(
    shared: &Shared,
    dict: &roving::Dictionary,
    key: &str,
    bytes: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Result<Document<'a>> {
    Document::open_with(bytes, dict, scratch).map_err(|e| {
        shared.err(match e.kind() {
            roving::ErrorKind::DictionaryMismatch | roving::ErrorKind::DictionaryRequired => {
                crate::dict::missing(key, &e)
            }
            _ => StoreError::new(
                StoreErrorKind::Corrupt,
                format!("the store is damaged: record {key:?} is not a valid roving document: {e}"),
            ),
        })
    })
}

fn guard_txn<'g>(
    guard: &'g MutexGuard<'_, Option<RoTxn<'static, WithoutTls>>>,
) -> Result<&'g RoTxn<'static, WithoutTls>> {
    guard
        .as_ref()
        .ok_or_else(|| StoreError::new(StoreErrorKind::Closed, "the snapshot has ended"))
}

/// Finds the address where LMDB mapped the file, from the page holding the
/// store's format marker: that page's number (in its header) times the
/// page size, subtracted from its address. The result is confirmed by
/// reading the same page from the file. Returns 1 if it cannot be
/// confirmed on a system whose pages are not LMDB's (bounds checks off).
fn map_base(shared: &Shared, txn: &RoTxn<'static, WithoutTls>) -> Result<usize> {
    use std::os::unix::fs::FileExt;
    let ps = shared.page_size;
    let Some(v) = shared.meta.get(txn, FORMAT_KEY)? else {
        return Err(StoreError::new(
            StoreErrorKind::Corrupt,
            "the store is damaged: no format marker",
        ));
    };
    if !ps.is_power_of_two() || ps < 512 {
        return Ok(1);
    }
    let page = v.as_ptr() as usize & !(ps - 1);
    if (v.as_ptr() as usize) + v.len() > page + ps {
        // A marker of a few bytes never spans pages: the node is damaged.
        return Err(StoreError::new(
            StoreErrorKind::Corrupt,
            "the store is damaged: bad metadata page",
        ));
    }
    // SAFETY: `v` lies in one LMDB page of the map (checked just above that
    // it does not cross a page boundary), the page starts at `page` because
    // LMDB pages are aligned to their size in the map when the map's start
    // is (checked below by comparing with the file; on mismatch nothing is
    // concluded from the bytes); the page is within the file, whose length
    // was checked against the last page number before this call, and it
    // does not change while `txn` is alive.
    let mapped: &[u8] = unsafe { std::slice::from_raw_parts(page as *const u8, ps) };
    let mut pgno_bytes = [0u8; 8];
    pgno_bytes.copy_from_slice(&mapped[..8]);
    let pgno = u64::from_ne_bytes(pgno_bytes);
    let mut from_file = vec![0u8; ps];
    let off = pgno.checked_mul(ps as u64);
    let same = match off {
        Some(off) => shared.file.read_exact_at(&mut from_file, off).is_ok() && from_file == mapped,
        None => false,
    };
    let base = (page as u64).checked_sub(pgno.saturating_mul(ps as u64));
    match base {
        Some(base) if same && base > 1 && base % 4096 == 0 => Ok(base as usize),
        _ if ps == 4096 => Err(StoreError::new(
            StoreErrorKind::Corrupt,
            "the store is damaged: a page is not where its header says",
        )),
        _ => Ok(1),
    }
}
