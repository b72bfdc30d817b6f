//! The store: committed state (a snapshot) plus pending changes.

use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use heed::MdbError;
use roving::Document;

use crate::dict::DictWrite;
use crate::error::{Result, StoreError, StoreErrorKind};
use crate::pending::{Found, Pending, PendingIter, Run};
use crate::shared::{round_map, Shared};
use crate::snapshot::Snapshot;
use crate::txn::Writer;
use crate::StoreOptions;

const LEN_UNKNOWN: u64 = u64::MAX;
/// The longest value LMDB stores (its `MAXDATASIZE`): 4 GiB - 1 bytes.
pub(crate) const MAX_VALUE_LEN: usize = u32::MAX as usize;
const SCAN_CHUNK: usize = 256;

/// A persistent map from string keys to roving documents, on LMDB.
///
/// A `Store` reads the committed state as of its last [`open`](Store::open),
/// [`flush`](Store::flush) or [`reload`](Store::reload) (a [`Snapshot`]),
/// with its own pending changes on top. Changes ([`put`](Store::put),
/// [`delete`](Store::delete)) stay pending until `flush` commits all of
/// them atomically in one write transaction, or `reload` drops them: in
/// memory, and past about 64 MiB in unnamed temporary files (see the
/// [crate](crate#model) documentation).
/// Dropping a `Store` drops its pending changes too: there is no flush on
/// drop (a commit can fail, and `Drop` could not report it), so flush
/// before a store goes out of scope.
///
/// Many processes may read a store while one writes: a commit is visible to
/// others when they `reload`. A second writer waits: `flush` blocks while
/// another process or thread is committing (flushes are short: the write
/// transaction exists only inside `flush`). Concurrent writers are last
/// writer wins per key; a read-modify-write that must not lose updates
/// goes in a [`transaction`](Store::transaction).
///
/// ```
/// use std::ops::Bound;
/// use roving_store::{Store, StoreOptions};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("items.rvs");
/// let mut store = Store::open(&path, &StoreOptions::default())?;
/// store.put("a", roving::to_vec(&["x", "y"])?)?;
/// store.put("b", roving::json::from_json(br#"{"n":2}"#)?)?;
/// assert!(store.is_dirty());                  // pending: this Store sees them,
/// assert_eq!(store.len()?, 2);                // other Stores do not yet
/// store.flush()?;                             // one atomic, durable commit
///
/// let doc = store.get("b")?.expect("present");
/// assert_eq!(doc.root().get("n").and_then(|v| v.as_i64()), Some(2));
/// let tags: Vec<&str> = roving::from_value(store.get("a")?.unwrap().root())?;
/// assert_eq!(tags, ["x", "y"]);
///
/// assert!(store.delete("a")?);
/// store.reload()?;                            // drops the pending delete
/// assert!(store.contains("a")?);
///
/// let mut keys = Vec::new();
/// for record in store.iter_from(Bound::Excluded("a")) {
///     let (key, _doc) = record?;
///     keys.push(key.to_owned());
/// }
/// assert_eq!(keys, ["b"]);
/// # Ok(()) }
/// ```
pub struct Store {
    shared: Arc<Shared>,
    snap: Option<Arc<Snapshot>>,
    pending: Pending,
    len: AtomicU64,
    readonly: bool,
    /// Whether this Store's commits must be synced to disk.
    sync: bool,
    /// The longest value `put` takes ([`MAX_VALUE_LEN`]; lowered in tests).
    max_value: usize,
    /// The open transaction, if any (holding LMDB's write lock).
    txn: Option<Writer>,
    /// The store's dictionary: the committed entries this store read
    /// (`dict_base` of them), then those its pending records added.
    dict: Arc<roving::Dictionary>,
    dict_base: usize,
    /// What grows `dict` from the records this store writes.
    learner: roving::dictionary::Learner,
}

/// A record lent by a store and kept alive by itself: the committed bytes
/// in the memory map (holding its snapshot open) or a pending change.
/// The bytes are a valid roving document.
pub struct Record {
    owner: Owner,
    ptr: *const u8,
    len: usize,
}

#[allow(dead_code)] // the owner is held for its lifetime only
enum Owner {
    Pending(Arc<[u8]>),
    /// A pending change spilled to a run (a mapped temporary file).
    Spilled(Arc<Run>),
    Committed(Arc<Snapshot>),
    /// A record written against the dictionary, as the plain document it
    /// reads as (and whether it is a pending change).
    Resolved(Arc<[u8]>, bool),
}

// SAFETY: a `Record` is a read-only view of immutable bytes kept alive by
// `owner` (an `Arc<[u8]>`, or a `Snapshot`, which is `Send + Sync`); the raw
// pointer is never written through.
unsafe impl Send for Record {}
// SAFETY: as above: shared access only reads immutable bytes.
unsafe impl Sync for Record {}

impl Record {
    /// The document's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: `ptr..ptr+len` is either the contents of the `Arc<[u8]>`
        // in `owner` or a slice of the map lent by the `Snapshot` in
        // `owner`, valid while that snapshot is alive; `owner` lives as long
        // as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The record as a document (validated when the record was lent).
    pub fn document(&self) -> Result<Document<'_>> {
        // SAFETY: the bytes were validated by `Document::open` when the
        // record was created (pending bytes on `put`) and are immutable.
        unsafe { Document::open_trusted(self.as_bytes()) }
            .map_err(|e| StoreError::new(StoreErrorKind::Corrupt, e.to_string()))
    }

    /// True if the record is a pending (not yet flushed) change.
    pub fn is_pending(&self) -> bool {
        matches!(
            self.owner,
            Owner::Pending(_) | Owner::Spilled(_) | Owner::Resolved(_, true)
        )
    }
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record")
            .field("len", &self.len)
            .field("pending", &self.is_pending())
            .finish()
    }
}

/// The error of a value for `key` that is not a valid roving document,
/// the validation error `e` as its source.
fn invalid_document(key: &str, e: roving::Error) -> StoreError {
    StoreError::new(
        StoreErrorKind::InvalidDocument,
        format!("the value for {key:?} is not a valid roving document: {e}"),
    )
    .with_source(e)
}

/// Where a store's spilled pending changes go: its directory (the
/// directory itself for a directory store).
fn spill_dir(path: &Path) -> std::path::PathBuf {
    if path.is_dir() {
        return path.to_path_buf();
    }
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    }
}

pub(crate) enum WriteFail {
    MapFull,
    Resized,
    /// Another process added dictionary entries since the store read it:
    /// the pending records bound to entries past them must be written
    /// again against the merged dictionary.
    DictMoved,
    Other(StoreError),
}

impl WriteFail {
    /// The error to report for a failure that will not be retried.
    fn into_error(self, shared: &Shared) -> StoreError {
        match self {
            WriteFail::Other(e) => e,
            WriteFail::DictMoved => shared.err(StoreError::new(
                StoreErrorKind::Busy,
                "other processes kept adding dictionary entries while this one flushed; \
                 the pending changes are kept: flush again",
            )),
            _ => shared.err(StoreError::new(
                StoreErrorKind::Lmdb,
                "the map could not be grown enough",
            )),
        }
    }
}

/// A failure of LMDB while writing, told apart by what comes next: grow
/// the map, adopt the size another process gave it, or report.
pub(crate) fn classify(shared: &Shared, e: heed::Error) -> WriteFail {
    match e {
        heed::Error::Mdb(MdbError::MapFull) => WriteFail::MapFull,
        heed::Error::Mdb(MdbError::MapResized) => WriteFail::Resized,
        e => WriteFail::Other(shared.err(e.into())),
    }
}

/// Writes `changes` into `wtxn` and commits it (see [`crate::commit`]).
pub(crate) fn write_and_commit(
    shared: &Shared,
    mut wtxn: heed::RwTxn<'_>,
    changes: &Pending,
    dict: &DictWrite,
) -> std::result::Result<(), WriteFail> {
    let classify = |e| classify(shared, e);
    // The dictionary entries the records need, in the same transaction.
    let stored = crate::dict::stored_len(&shared.meta, &wtxn).map_err(WriteFail::Other)?;
    if stored != dict.base {
        return Err(WriteFail::DictMoved);
    }
    crate::dict::write(&shared.meta, &mut wtxn, &dict.dict, dict.base).map_err(classify)?;
    // The state the transaction began from (the newest: this process
    // holds LMDB's write lock), read to plan which records to move
    // (`commit`); without a free reader slot, nothing moves.
    let rtxn = shared.env.read_txn().ok();
    let base = rtxn.as_ref().map(|txn| {
        let start = shared.base.load(Ordering::SeqCst);
        crate::commit::Base {
            txn,
            map: (start > 1).then(|| (start, shared.page_size, shared.map_size())),
        }
    });
    let changes = changes.iter_from(Bound::Unbounded);
    crate::commit::write_changes(&shared.items, base.as_ref(), &mut wtxn, changes)
        .map_err(classify)?;
    drop(rtxn);
    wtxn.commit().map_err(classify)
}

/// Counts a write transaction as a live transaction of the process.
pub(crate) struct LiveGuard<'a>(pub(crate) &'a Shared);

impl Drop for LiveGuard<'_> {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Store {
    /// Opens the store at `path`, creating it if it is missing (unless
    /// read-only or [`create(false)`](StoreOptions::create), which make a
    /// missing store a [`NotFound`](StoreErrorKind::NotFound) error).
    /// `path` is a file (LMDB's lock file is `path` + `-lock`)
    /// or, if it is an existing directory, a directory holding `data.mdb`
    /// (and `lock.mdb`): an empty directory becomes one (if the open
    /// creates), any other directory
    /// is not a store. The `data.mdb` of such a directory (beside its
    /// `lock.mdb`) opens that directory store.
    ///
    /// A path that holds something else, a truncated or damaged store
    /// gives an error of kind [`NotAStore`](StoreErrorKind::NotAStore) or
    /// [`Corrupt`](StoreErrorKind::Corrupt).
    pub fn open(path: impl AsRef<Path>, options: &StoreOptions) -> Result<Store> {
        let path = path.as_ref();
        let shared = Shared::open(path, options).map_err(|e| e.with_path(path))?;
        let snap = Snapshot::begin(&shared)?;
        if options.populate {
            snap.populate();
        }
        // The count is kept up to date only once asked for (`len`): bulk
        // puts then cost no lookup of the committed state.
        let len = AtomicU64::new(LEN_UNKNOWN);
        Ok(Store {
            shared,
            snap: Some(snap),
            pending: Pending::new(spill_dir(path)),
            len,
            readonly: options.readonly,
            sync: options.sync,
            max_value: MAX_VALUE_LEN,
            txn: None,
            dict: Arc::new(roving::Dictionary::new()),
            learner: roving::dictionary::Learner::new(),
            dict_base: 0,
        }
        .adopting_dict())
    }

    /// The path the store was opened with.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// True if the store was opened read-only.
    pub fn is_readonly(&self) -> bool {
        self.readonly
    }

    /// The current size of the memory map in bytes (it grows by itself).
    pub fn map_size(&self) -> usize {
        self.shared.map_size()
    }

    /// The longest key allowed, in bytes.
    pub fn max_key_len(&self) -> usize {
        self.shared.max_key
    }

    /// The committed state this store reads (below its pending changes).
    pub fn snapshot(&self) -> Result<&Arc<Snapshot>> {
        self.snap.as_ref().ok_or_else(|| {
            self.shared.err(StoreError::new(
                StoreErrorKind::Closed,
                "the store has no snapshot after a failed flush or reload; call reload()",
            ))
        })
    }

    /// True if there are changes not yet flushed.
    pub fn is_dirty(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The number of keys with changes not yet flushed (O(1) while they
    /// are held in memory; counted once by a merge after some were spilled
    /// to disk, see [`set_pending_memory`](Store::set_pending_memory)).
    pub fn pending_len(&self) -> usize {
        self.pending.len(|k| {
            self.snap
                .as_ref()
                .is_none_or(|s| s.contains(k).unwrap_or(true))
        })
    }

    /// Sets how much memory (in bytes, estimated) pending changes may take
    /// before they are spilled to disk; 64 MiB by default (so lowered in
    /// tests). Past it, pending changes are written in key order to
    /// unnamed temporary files beside the store (or in the system's
    /// temporary directory if the store's cannot take them) and read from
    /// there; a flush commits them all in one transaction as always, and
    /// `reload` or dropping the store drops them with their files.
    #[doc(hidden)]
    pub fn set_pending_memory(&mut self, bytes: usize) {
        self.pending.set_limit(bytes);
    }

    /// True if some pending changes were spilled to disk (for tests).
    #[doc(hidden)]
    pub fn pending_spilled(&self) -> bool {
        self.pending.spilled()
    }

    fn check_key(&self, key: &str) -> Result<()> {
        if key.is_empty() || key.len() > self.shared.max_key {
            return Err(self.shared.err(StoreError::new(
                StoreErrorKind::InvalidKey,
                format!(
                    "keys must be 1 to {} bytes of UTF-8, this one is {} bytes",
                    self.shared.max_key,
                    key.len()
                ),
            )));
        }
        Ok(())
    }

    /// A value LMDB would refuse at the next flush fails now instead.
    fn check_value(&self, key: &str, len: usize) -> Result<()> {
        if len > self.max_value {
            return Err(self.shared.err(StoreError::new(
                StoreErrorKind::TooLarge,
                format!(
                    "the value for {key:?} is {len} bytes, more than a store record can hold \
                     ({} bytes, LMDB's limit)",
                    self.max_value
                ),
            )));
        }
        Ok(())
    }

    /// What every put checks before taking a value of `len` bytes for
    /// `key`: the store is writable, the key valid, the value not too large.
    fn check_put(&self, key: &str, len: usize) -> Result<()> {
        self.check_writable()?;
        self.check_key(key)?;
        self.check_value(key, len)
    }

    fn check_writable(&self) -> Result<()> {
        if self.readonly {
            return Err(self.shared.err(StoreError::new(
                StoreErrorKind::ReadOnly,
                "the store is open read-only",
            )));
        }
        Ok(())
    }

    /// The document stored under `key` (pending changes first), borrowed
    /// from the map or from the pending change; validated.
    pub fn get(&self, key: &str) -> Result<Option<Document<'_>>> {
        match self.pending.get(key).map(|f| f.bytes()) {
            Some(Some(b)) if crate::dict::needs(b) == 0 => {
                // SAFETY: pending bytes were validated by `put`, and are
                // immutable (in memory, or in a run's map, which is never
                // written again).
                unsafe { Document::open_trusted(b) }
                    .map(Some)
                    .map_err(|e| StoreError::new(StoreErrorKind::Corrupt, e.to_string()))
            }
            Some(Some(b)) => self.snapshot()?.keep_resolved(key, b, &self.dict).map(Some),
            Some(None) => Ok(None),
            None => self.snapshot()?.get(key),
        }
    }

    /// The bytes stored under `key` (pending changes first), borrowed from
    /// the map or from the pending change, **not validated** when they come
    /// from the file (only checked to lie within it): validate them (e.g.
    /// with [`Document::open`]) before use.
    pub fn get_bytes(&self, key: &str) -> Result<Option<&[u8]>> {
        match self.pending.get(key) {
            Some(f) => Ok(f.bytes()),
            None => self.snapshot()?.get_bytes(key),
        }
    }

    /// Like [`get`](Store::get), as a [`Record`] that keeps its bytes alive
    /// by itself (for views that outlive a borrow of the store).
    pub fn record(&self, key: &str) -> Result<Option<Record>> {
        if let Some(b) = self.get_bytes(key)?.filter(|b| crate::dict::needs(b) > 0) {
            // Written against the dictionary: the plain document it reads as.
            let mut scratch = Vec::new();
            crate::snapshot::open_bound(&self.shared, &self.dict, key, b, &mut scratch)?;
            let bytes: Arc<[u8]> = Arc::from(scratch);
            return Ok(Some(Record {
                ptr: bytes.as_ptr(),
                len: bytes.len(),
                owner: Owner::Resolved(bytes, self.pending.get(key).is_some()),
            }));
        }
        match self.pending.get(key) {
            Some(Found::Mem(Some(b))) => Ok(Some(Record {
                ptr: b.as_ptr(),
                len: b.len(),
                owner: Owner::Pending(b.clone()),
            })),
            Some(Found::Run(run, Some(b))) => Ok(Some(Record {
                ptr: b.as_ptr(),
                len: b.len(),
                owner: Owner::Spilled(run.clone()),
            })),
            Some(_) => Ok(None),
            None => {
                let snap = self.snapshot()?;
                match snap.get(key)? {
                    Some(doc) => {
                        let b = doc.as_bytes();
                        Ok(Some(Record {
                            ptr: b.as_ptr(),
                            len: b.len(),
                            owner: Owner::Committed(snap.clone()),
                        }))
                    }
                    None => Ok(None),
                }
            }
        }
    }

    /// True if the store has `key` (pending changes included).
    pub fn contains(&self, key: &str) -> Result<bool> {
        match self.pending.get(key) {
            Some(f) => Ok(f.bytes().is_some()),
            None => self.snapshot()?.contains(key),
        }
    }

    /// The number of records, pending changes included.
    pub fn len(&self) -> Result<u64> {
        let n = self.len.load(Ordering::Relaxed);
        if n != LEN_UNKNOWN {
            return Ok(n);
        }
        let snap = self.snapshot()?;
        let mut n = snap.len();
        for (k, v) in self.pending.iter_from(Bound::Unbounded) {
            match (v.is_some(), snap.contains(k)?) {
                (true, false) => n += 1,
                (false, true) => n -= 1,
                _ => {}
            }
        }
        self.len.store(n, Ordering::Relaxed);
        Ok(n)
    }

    /// True if the store has no record.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Sets `key` to the document `doc` (validated here), pending until
    /// the next flush.
    pub fn put(&mut self, key: &str, doc: impl Into<Vec<u8>>) -> Result<()> {
        let doc: Vec<u8> = doc.into();
        self.check_put(key, doc.len())?;
        self.validate(key, &doc)?;
        self.set(key, Some(Arc::from(doc)))
    }

    /// Sets `key` to `doc` without validating it.
    ///
    /// # Safety
    /// `doc` must be a valid roving document (one that [`Document::open`]
    /// accepts), for example the output of [`roving::Encoder::finish`]:
    /// pending documents are read back without validation.
    pub unsafe fn put_trusted(&mut self, key: &str, doc: Vec<u8>) -> Result<()> {
        self.check_put(key, doc.len())?;
        self.set(key, Some(Arc::from(doc)))
    }

    /// Sets `key` to a copy of `doc`, pending until the next flush. A
    /// document opened with [`Document::open`] (or validated since) is
    /// copied as it is; one opened with [`Document::open_lazy`], whose
    /// bytes nothing has checked yet, is validated here first (O(n)), as
    /// [`put`](Store::put) validates.
    pub fn put_document(&mut self, key: &str, doc: Document<'_>) -> Result<()> {
        self.check_put(key, doc.as_bytes().len())?;
        if doc.is_lazy() {
            self.validate(key, doc.as_bytes())?;
        }
        self.set(key, Some(Arc::from(doc.as_bytes())))
    }

    /// Validates `doc`, a plain document or one written against the
    /// store's dictionary.
    fn validate(&self, key: &str, doc: &[u8]) -> Result<()> {
        let r = if crate::dict::needs(doc) > 0 {
            Document::open_with(doc, &self.dict, &mut Vec::new()).map(drop)
        } else {
            roving::validate(doc)
        };
        r.map_err(|e| self.shared.err(invalid_document(key, e)))
    }

    /// Removes `key`, pending until the next flush. Returns whether it was
    /// there.
    pub fn delete(&mut self, key: &str) -> Result<bool> {
        self.check_writable()?;
        if key.is_empty() || key.len() > self.shared.max_key {
            return Ok(false);
        }
        let committed = match self.pending.get(key).map(|f| f.bytes()) {
            Some(None) => return Ok(false),
            Some(Some(_)) => self.snapshot()?.contains(key)?,
            None => {
                let c = self.snapshot()?.contains(key)?;
                if !c {
                    return Ok(false);
                }
                c
            }
        };
        if committed {
            self.set(key, None)?;
        } else {
            // Only a pending value: forget it.
            self.pending.forget(key);
            let n = self.len.load(Ordering::Relaxed);
            if n != LEN_UNKNOWN {
                self.len.store(n - 1, Ordering::Relaxed);
            }
        }
        Ok(true)
    }

    fn set(&mut self, key: &str, value: Option<Arc<[u8]>>) -> Result<()> {
        let n = self.len.load(Ordering::Relaxed);
        if n != LEN_UNKNOWN {
            let before = self.contains(key)?;
            let n = match (before, value.is_some()) {
                (false, true) => n + 1,
                (true, false) => n - 1,
                _ => n,
            };
            self.len.store(n, Ordering::Relaxed);
        }
        self.pending.set(key, value);
        Ok(())
    }

    /// Records in key order (pending changes included), from the first.
    pub fn iter(&self) -> Iter<'_> {
        self.iter_from(Bound::Unbounded)
    }

    /// Records in key order from `start` (e.g. `Bound::Excluded(last_key)`
    /// to resume after a key).
    pub fn iter_from(&self, start: Bound<&str>) -> Iter<'_> {
        Iter {
            raw: RawIter::new(self, start),
            dict: &self.dict,
        }
    }

    /// Like [`iter_from`](Store::iter_from) but yields `(key, bytes)` and
    /// does **not validate** committed records (they are only checked to lie
    /// within the file): validate them before trusting them.
    pub fn raw_iter_from(&self, start: Bound<&str>) -> RawIter<'_> {
        RawIter::new(self, start)
    }

    /// Commits every pending change atomically (one LMDB write transaction,
    /// synced to disk unless the store was opened with `sync(false)`), then
    /// reads the newest committed state. Grows the map as needed. On error
    /// the pending changes are kept.
    ///
    /// New keys that fall densely between committed ones are written with
    /// the committed records among them moved, so that pages stay full:
    /// flushing often leaves a file about the size one flush leaves.
    ///
    /// Inside a transaction ([`begin_transaction`](Store::begin_transaction))
    /// `flush` fails (kind [`Transaction`](StoreErrorKind::Transaction)):
    /// the transaction's changes commit when it ends.
    pub fn flush(&mut self) -> Result<()> {
        if self.txn.is_some() {
            return Err(crate::txn::misuse(
                &self.shared,
                "flush() inside a transaction: its changes commit when it ends",
            ));
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        self.check_writable()?;
        let shared = self.shared.clone();
        shared.check_pid()?;
        crate::txn::check_thread(&shared)?;
        let _w = shared.write.lock().unwrap_or_else(|e| e.into_inner());
        let mut tries = 0;
        loop {
            tries += 1;
            let fail = match self.write_pending() {
                Ok(()) => break,
                Err(f) => f,
            };
            let remap_to = match fail {
                WriteFail::Other(e) => return Err(self.after_failure(e)),
                WriteFail::DictMoved if tries < 64 => {
                    if let Err(e) = self.merge_dict() {
                        return Err(self.after_failure(e));
                    }
                    continue;
                }
                WriteFail::MapFull if tries < 64 => self.grown_map(),
                WriteFail::Resized if tries < 64 => 0,
                f => return Err(self.after_failure(f.into_error(&shared))),
            };
            // Our own snapshot must end before the map can move.
            self.snap = None;
            if let Err(e) = shared.remap(remap_to) {
                return Err(self.after_failure(e));
            }
        }
        let info = shared.env.info();
        shared.extend_file((info.last_page_number as u64 + 1) * shared.page_size as u64);
        self.pending.clear();
        self.snap = None;
        self.len.store(LEN_UNKNOWN, Ordering::Relaxed);
        // Committed: the changes are no longer pending, even if the sync
        // that follows fails.
        let synced = shared.sync_commit(self.sync);
        self.snap = Some(Snapshot::begin(&shared)?);
        self.adopt_dict();
        synced
    }

    /// The size of the map to grow to when the pending changes did not
    /// fit: at least double.
    fn grown_map(&self) -> usize {
        let cur = self.shared.map_size();
        let want = cur
            .saturating_mul(2)
            .max(cur.saturating_add(self.pending.value_bytes().saturating_mul(2)));
        round_map(want)
    }

    /// After a failed flush: make sure there is a snapshot to read.
    fn after_failure(&mut self, e: StoreError) -> StoreError {
        if self.snap.is_none() {
            if let Ok(s) = Snapshot::begin(&self.shared) {
                self.snap = Some(s);
                self.len.store(LEN_UNKNOWN, Ordering::Relaxed);
            }
        }
        e
    }

    fn write_pending(&self) -> std::result::Result<(), WriteFail> {
        let shared = &*self.shared;
        let _g = shared.gate.read().unwrap_or_else(|e| e.into_inner());
        shared.live.fetch_add(1, Ordering::SeqCst);
        let _live = LiveGuard(shared);
        let wtxn = shared.env.write_txn().map_err(|e| classify(shared, e))?;
        write_and_commit(shared, wtxn, &self.pending, &self.dict_write())
    }

    /// Drops every pending change and reads the newest committed state
    /// (including other processes' commits). On error nothing changes:
    /// the store keeps its state and its pending changes (e.g. `Busy` when
    /// another process grew the map and views of this store are still
    /// open in this process: release them and retry).
    ///
    /// Inside a transaction, `reload` fails (kind
    /// [`Transaction`](StoreErrorKind::Transaction)): end it with
    /// [`abort_transaction`](Store::abort_transaction) instead.
    pub fn reload(&mut self) -> Result<()> {
        if self.txn.is_some() {
            return Err(crate::txn::misuse(
                &self.shared,
                "reload() inside a transaction: abort it instead",
            ));
        }
        let shared = self.shared.clone();
        shared.check_pid()?;
        // The new snapshot begins while the current one is still alive, so
        // that a failure leaves the store as it was. The current one must
        // end first only if the map must move to the size another process
        // gave it (`None`: every transaction of this process must end), or
        // if it holds the last free slot of the reader table.
        let snap = match Snapshot::try_begin(&shared) {
            Ok(Some(snap)) => snap,
            Err(e) if e.kind() != StoreErrorKind::Busy => return Err(e),
            first => {
                let ours = match &self.snap {
                    Some(s) if Arc::strong_count(s) == 1 => 1,
                    _ => 0,
                };
                let live = shared.live();
                match first {
                    Err(e) if ours == 0 => return Err(e),
                    Ok(_) if live > ours => return Err(shared.map_busy(live - ours)),
                    _ => {}
                }
                self.snap = None;
                self.len.store(LEN_UNKNOWN, Ordering::Relaxed);
                Snapshot::begin(&shared).map_err(|e| self.after_failure(e))?
            }
        };
        self.pending.clear();
        self.snap = Some(snap);
        self.len.store(LEN_UNKNOWN, Ordering::Relaxed);
        self.adopt_dict();
        Ok(())
    }

    /// Begins a transaction: a read-modify-write that no other writer, in
    /// this process or another, can interleave with. It takes LMDB's write
    /// lock (waiting while another process or Store flushes or has a
    /// transaction open) and holds it until
    /// [`commit_transaction`](Store::commit_transaction) or
    /// [`abort_transaction`](Store::abort_transaction) (or until the
    /// store is dropped, which aborts). Meanwhile the store reads the
    /// newest committed state (other processes' commits included, which
    /// no one can change until the transaction ends) with the
    /// transaction's own changes on top, and its changes
    /// ([`put`](Store::put), [`delete`](Store::delete)) are pending as
    /// usual: the commit writes all of them in one LMDB write transaction,
    /// an abort drops all of them.
    ///
    /// Changes pending before the transaction begins are flushed first, in
    /// a commit of their own (an abort then drops only the transaction's
    /// changes); if that flush fails, no transaction begins and they stay
    /// pending. Inside a transaction, [`flush`](Store::flush),
    /// [`reload`](Store::reload) and beginning another one fail (kind
    /// [`Transaction`](StoreErrorKind::Transaction): transactions do not
    /// nest), and so do a flush or a transaction of another `Store` of the
    /// same file in the thread that began this one (it would wait for this
    /// one forever). Keep transactions short: every other writer waits.
    /// A read-only store fails with kind
    /// [`ReadOnly`](StoreErrorKind::ReadOnly).
    ///
    /// See [`transaction`](Store::transaction) for the closure form.
    pub fn begin_transaction(&mut self) -> Result<()> {
        self.check_writable()?;
        let shared = self.shared.clone();
        if self.txn.is_some() {
            return Err(crate::txn::misuse(
                &shared,
                "a transaction is already open on this store (transactions do not nest)",
            ));
        }
        shared.check_pid()?;
        crate::txn::check_thread(&shared)?;
        self.flush()?;
        let mut tries = 0;
        let writer = loop {
            tries += 1;
            match Writer::start(&shared) {
                Ok(w) => break w,
                Err(WriteFail::Resized) if tries < 64 => {
                    // Another process grew the map: adopt its size (our own
                    // snapshot must end before the map can move).
                    self.snap = None;
                    shared.remap(0).map_err(|e| self.after_failure(e))?;
                }
                Err(f) => return Err(self.after_failure(f.into_error(&shared))),
            }
        };
        // The newest state, which stays the newest while the lock is held.
        self.snap = None;
        self.len.store(LEN_UNKNOWN, Ordering::Relaxed);
        match Snapshot::begin(&shared) {
            Ok(snap) => self.snap = Some(snap),
            Err(e) => {
                drop(writer);
                return Err(self.after_failure(e));
            }
        }
        // The newest dictionary, which no one else grows until the end.
        self.adopt_dict();
        self.txn = Some(writer);
        Ok(())
    }

    /// True while a transaction is open ([`begin_transaction`](Store::begin_transaction)).
    pub fn in_transaction(&self) -> bool {
        self.txn.is_some()
    }

    /// Commits the open transaction: its changes, all in one LMDB write
    /// transaction (synced to disk as a flush is), then releases the write
    /// lock and reads the newest state. On error the transaction's changes
    /// are dropped (never committed later by a flush, which would not be
    /// atomic with what the transaction read) and the lock is released.
    /// A map too small for the changes is grown, which needs the write
    /// lock released for a moment: if another process committed then, the
    /// commit fails (kind [`Transaction`](StoreErrorKind::Transaction)):
    /// run the transaction again. Without an open transaction, an error of
    /// that kind.
    pub fn commit_transaction(&mut self) -> Result<()> {
        let shared = self.shared.clone();
        let Some(mut writer) = self.txn.take() else {
            return Err(crate::txn::misuse(&shared, "no transaction is open"));
        };
        let mut tries = 0;
        let result = loop {
            tries += 1;
            let id = writer.id;
            let fail = match writer.commit(self.pending.take(), self.dict_write()) {
                Ok(()) => break Ok(()),
                Err((WriteFail::MapFull, Some(changes))) if tries < 64 => {
                    self.pending = *changes;
                    WriteFail::MapFull
                }
                Err((f, _)) => f,
            };
            if !matches!(fail, WriteFail::MapFull) {
                break Err(fail.into_error(&shared));
            }
            // Our own snapshot must end before the map can move.
            self.snap = None;
            if let Err(e) = shared.remap(self.grown_map()) {
                break Err(e);
            }
            writer = match Writer::start(&shared) {
                Ok(w) if w.id == id => w,
                Ok(_) => {
                    break Err(crate::txn::misuse(
                        &shared,
                        "another process committed while the map grew to hold this \
                         transaction's changes; they are dropped: run the transaction again",
                    ))
                }
                Err(f) => break Err(f.into_error(&shared)),
            };
        };
        self.pending.clear();
        self.snap = None;
        self.len.store(LEN_UNKNOWN, Ordering::Relaxed);
        if let Err(e) = result {
            return Err(self.after_failure(e));
        }
        let info = shared.env.info();
        shared.extend_file((info.last_page_number as u64 + 1) * shared.page_size as u64);
        let synced = shared.sync_commit(self.sync);
        self.snap = Some(Snapshot::begin(&shared)?);
        self.adopt_dict();
        synced
    }

    /// Aborts the open transaction: drops its changes and releases the
    /// write lock; the store keeps reading the state the transaction read.
    /// Without an open transaction, an error (kind
    /// [`Transaction`](StoreErrorKind::Transaction)).
    pub fn abort_transaction(&mut self) -> Result<()> {
        let Some(writer) = self.txn.take() else {
            return Err(crate::txn::misuse(&self.shared, "no transaction is open"));
        };
        drop(writer);
        self.pending.clear();
        self.len.store(LEN_UNKNOWN, Ordering::Relaxed);
        Ok(())
    }

    /// Runs `f` in a transaction ([`begin_transaction`](Store::begin_transaction)):
    /// commits if it returns `Ok`, aborts if it returns `Err` or panics.
    ///
    /// ```
    /// use roving_store::{Store, StoreOptions};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// let mut store = Store::open(dir.path().join("n.rvs"), &StoreOptions::default())?;
    /// // A counter that processes may increment at once: no update is lost.
    /// store.transaction(|s| {
    ///     let n: i64 = match s.get("n")? {
    ///         Some(doc) => roving::from_value(doc.root())?,
    ///         None => 0,
    ///     };
    ///     s.put("n", roving::to_vec(&(n + 1))?)
    /// })?;
    /// let n: i64 = roving::from_value(store.get("n")?.unwrap().root())?;
    /// assert_eq!(n, 1);
    /// # Ok(()) }
    /// ```
    pub fn transaction<T, E: From<StoreError>>(
        &mut self,
        f: impl FnOnce(&mut Store) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        crate::Backend::transaction(self, f)
    }

    /// The store's dictionary (`docs/FORMAT.md` section 23): the strings
    /// and shapes its records may refer to, as committed when this store
    /// last read the store's state, plus those its pending records added.
    /// Write a record against it with
    /// [`Encoder::with_dictionary`](roving::Encoder::with_dictionary), then
    /// [`grow_dictionary`](Store::grow_dictionary) and a put.
    pub fn dictionary(&self) -> &roving::Dictionary {
        &self.dict
    }

    /// Adds the shapes the document `enc` wrote itself (not those of the
    /// store's dictionary) to the store's dictionary, and the value strings
    /// that have now recurred in a few records (see
    /// [`Learner`](roving::dictionary::Learner)): the next flush commits
    /// them with the records, and later records refer to them. Call it
    /// before finishing a document written against
    /// [`dictionary`](Store::dictionary), then put the document. Once the
    /// dictionary's base reaches
    /// [`AUTO_GROWTH_MAX_BASE`](roving::dictionary::AUTO_GROWTH_MAX_BASE)
    /// bytes it no longer grows (the cost of reading a record grows with
    /// it): later shapes stay in their records.
    pub fn grow_dictionary(&mut self, enc: &roving::Encoder) {
        if self.dict.base_len() < roving::dictionary::AUTO_GROWTH_MAX_BASE {
            self.learner.learn(enc, Arc::make_mut(&mut self.dict));
        }
    }

    /// The plain document that `bytes` (a record of this store, or a
    /// document written against its dictionary) reads as: `bytes` itself,
    /// or the dictionary's base followed by its records, in `scratch`. Not
    /// validated. A document needing entries the dictionary lacks is an
    /// error naming the dictionary it needs.
    pub fn resolve<'a>(&'a self, bytes: &'a [u8], scratch: &'a mut Vec<u8>) -> Result<&'a [u8]> {
        roving::dictionary::resolve(bytes, &self.dict, scratch).map_err(|e| {
            self.shared.err(StoreError::new(
                StoreErrorKind::Corrupt,
                format!("the store is damaged: a record needs dictionary entries it lacks: {e}"),
            ))
        })
    }

    /// [`get`](Store::get) that reads a record written against the store's
    /// dictionary into `scratch` (the dictionary's base and the record),
    /// reused from call to call, instead of keeping a copy until the next
    /// flush or reload as `get` does.
    pub fn get_with<'a>(
        &'a self,
        key: &str,
        scratch: &'a mut Vec<u8>,
    ) -> Result<Option<Document<'a>>> {
        match self.get_bytes(key)? {
            Some(b) => self.open_record(key, b, scratch).map(Some),
            None => Ok(None),
        }
    }

    /// Validates and opens `bytes`, record `key` of this store (from
    /// [`raw_iter_from`](Store::raw_iter_from) or
    /// [`get_bytes`](Store::get_bytes)), reading a record written against
    /// the store's dictionary into `scratch`.
    pub fn open_record<'a>(
        &'a self,
        key: &str,
        bytes: &'a [u8],
        scratch: &'a mut Vec<u8>,
    ) -> Result<Document<'a>> {
        crate::snapshot::open_bound(&self.shared, &self.dict, key, bytes, scratch)
    }

    /// Rewrites every record against the store's dictionary, in one
    /// transaction (see [`begin_transaction`](Store::begin_transaction);
    /// pending changes are flushed first): records written before the
    /// store had a dictionary, or that carry shapes it learned since,
    /// refer to it afterwards and take fewer bytes. Returns the number of
    /// records rewritten (those that became smaller).
    pub fn compact(&mut self) -> Result<u64> {
        self.begin_transaction()?;
        match self.compact_in_transaction() {
            Ok(n) => {
                self.commit_transaction()?;
                Ok(n)
            }
            Err(e) => {
                let _ = self.abort_transaction();
                Err(e)
            }
        }
    }

    fn compact_in_transaction(&mut self) -> Result<u64> {
        let snap = self.snapshot()?.clone();
        let mut dict = (*self.dict).clone();
        let mut learner = roving::dictionary::Learner::new();
        let mut scratch = Vec::new();
        let mut enc = roving::Encoder::new();
        let mut buf = Vec::with_capacity(SCAN_CHUNK);
        let mut n = 0;
        // Two passes: the first teaches the dictionary every shape, so
        // that the second writes no record carrying one.
        for pass in 0..2 {
            let mut last: Option<String> = None;
            loop {
                buf.clear();
                let start = last.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
                snap.scan(start, SCAN_CHUNK, &mut buf)?;
                for &(k, v) in &buf {
                    let doc = crate::snapshot::open_bound(
                        &self.shared,
                        snap.dictionary(),
                        k,
                        v,
                        &mut scratch,
                    )?;
                    enc.use_dictionary(&dict);
                    enc.write_value(doc.root())?;
                    if pass == 0 {
                        learner.learn(&enc, &mut dict);
                        continue;
                    }
                    let out = enc.finish_reset()?;
                    if out.len() < v.len() {
                        self.pending.set(k, Some(Arc::from(out)));
                        n += 1;
                    }
                }
                match buf.last() {
                    Some(&(k, _)) if buf.len() == SCAN_CHUNK => last = Some(k.to_owned()),
                    _ => break,
                }
            }
        }
        self.dict = Arc::new(dict);
        self.len.store(LEN_UNKNOWN, Ordering::Relaxed);
        Ok(n)
    }

    /// What the next commit writes of the dictionary.
    fn dict_write(&self) -> DictWrite {
        DictWrite {
            dict: self.dict.clone(),
            base: self.dict_base,
        }
    }

    /// Reads the dictionary of the store's snapshot (with no pending
    /// change: after an open, a flush, a reload, a commit).
    fn adopt_dict(&mut self) {
        if let Some(s) = &self.snap {
            self.dict = s.dictionary().clone();
            self.dict_base = self.dict.len();
        }
    }

    fn adopting_dict(mut self) -> Store {
        self.adopt_dict();
        self
    }

    /// After another process added dictionary entries: reads them, and
    /// writes again, against the merged dictionary, the pending records
    /// that need entries this store added (entry `dict_base` on).
    fn merge_dict(&mut self) -> Result<()> {
        let committed = Snapshot::begin(&self.shared)?.dictionary().clone();
        let base = self.dict_base;
        let mut merged = crate::dict::merged(&committed, &self.dict, base);
        let mut redo = Vec::new();
        for (k, v) in self.pending.iter_from(Bound::Unbounded) {
            if let Some(b) = v.filter(|b| crate::dict::needs(b) > base) {
                let out = crate::dict::transcode(b, &self.dict, &mut merged)
                    .map_err(|e| self.shared.err(crate::dict::missing(k, &e)))?;
                redo.push((k.to_owned(), out));
            }
        }
        for (k, v) in redo {
            self.pending.set(&k, Some(Arc::from(v)));
        }
        self.dict_base = committed.len();
        self.dict = Arc::new(merged);
        Ok(())
    }

    /// Validates every committed record; returns how many there are.
    pub fn verify(&self) -> Result<u64> {
        self.snapshot()?.verify()
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.shared.path)
            .field("readonly", &self.readonly)
            .field("pending", &self.pending_len())
            .finish()
    }
}

/// Iterator over a store's records in key order: `(key, document)`, each
/// validated (see [`Store::iter`]).
pub struct Iter<'a> {
    raw: RawIter<'a>,
    /// The store's dictionary (a superset of its snapshot's).
    dict: &'a roving::Dictionary,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Result<(&'a str, Document<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let r = self.raw.step().and_then(|x| match x {
            None => Ok(None),
            Some((k, b, true)) if crate::dict::needs(b) == 0 => {
                // SAFETY: pending bytes were validated by `put` (or vouched
                // for by the caller of `put_trusted`).
                unsafe { Document::open_trusted(b) }
                    .map(|d| Some((k, d)))
                    .map_err(|e| StoreError::new(StoreErrorKind::Corrupt, e.to_string()))
            }
            Some((k, b, _)) => match self.raw.snap {
                Some(s) => s.keep_resolved(k, b, self.dict).map(|d| Some((k, d))),
                None => Ok(None),
            },
        });
        self.raw.finish(r)
    }
}

/// Iterator over a store's records in key order as `(key, bytes)`: the
/// bytes of committed records are **not validated** (only checked to lie
/// within the file); see [`Store::raw_iter_from`].
pub struct RawIter<'a> {
    snap: Option<&'a Snapshot>,
    err: Option<StoreError>,
    pend: PendingIter<'a>,
    pend_head: Option<(&'a str, Option<&'a [u8]>)>,
    buf: Vec<(&'a str, &'a [u8])>,
    pos: usize,
    snap_start: Bound<&'a str>,
    snap_done: bool,
}

impl<'a> RawIter<'a> {
    fn new(store: &'a Store, start: Bound<&str>) -> RawIter<'a> {
        let mut it = RawIter {
            snap: None,
            err: None,
            pend: store.pending.iter_from(start),
            pend_head: None,
            buf: Vec::new(),
            pos: 0,
            snap_start: Bound::Unbounded,
            snap_done: false,
        };
        match store.snapshot() {
            Ok(s) => {
                it.snap = Some(&**s);
                // The first chunk now: later ones resume after a key of the map.
                if let Err(e) = it.refill(s, start) {
                    it.err = Some(e);
                }
            }
            Err(e) => it.err = Some(e),
        }
        it
    }

    fn refill(&mut self, snap: &'a Snapshot, start: Bound<&str>) -> Result<()> {
        self.buf.clear();
        self.pos = 0;
        snap.scan(start, SCAN_CHUNK, &mut self.buf)?;
        match self.buf.last() {
            Some(&(k, _)) if self.buf.len() == SCAN_CHUNK => self.snap_start = Bound::Excluded(k),
            _ => self.snap_done = true,
        }
        Ok(())
    }

    fn snap_head(&mut self) -> Result<Option<(&'a str, &'a [u8])>> {
        if self.pos == self.buf.len() && !self.snap_done {
            let Some(snap) = self.snap else {
                self.snap_done = true;
                return Ok(None);
            };
            self.refill(snap, self.snap_start)?;
        }
        Ok(self.buf.get(self.pos).copied())
    }

    /// The next record: key, bytes, and whether they are a pending change.
    fn step(&mut self) -> Result<Option<(&'a str, &'a [u8], bool)>> {
        if let Some(e) = self.err.take() {
            return Err(e);
        }
        loop {
            if self.pend_head.is_none() {
                self.pend_head = self.pend.next();
            }
            let snap = self.snap_head()?;
            let take_pending = match (self.pend_head, snap) {
                (None, None) => return Ok(None),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some((pk, _)), Some((sk, _))) => {
                    if pk == sk {
                        self.pos += 1; // the pending change replaces it
                        true
                    } else {
                        pk < sk
                    }
                }
            };
            if take_pending {
                let (k, v) = self.pend_head.take().unwrap_or_default();
                if let Some(b) = v {
                    return Ok(Some((k, b, true)));
                }
            } else if let Some((k, v)) = snap {
                self.pos += 1;
                return Ok(Some((k, v, false)));
            }
        }
    }

    /// Stops after an error.
    fn finish<T>(&mut self, r: Result<Option<T>>) -> Option<Result<T>> {
        match r {
            Ok(x) => x.map(Ok),
            Err(e) => {
                self.snap = None;
                self.snap_done = true;
                self.buf.clear();
                self.pos = 0;
                self.pend = PendingIter::empty();
                self.pend_head = None;
                Some(Err(e))
            }
        }
    }
}

impl<'a> Iterator for RawIter<'a> {
    type Item = Result<(&'a str, &'a [u8])>;

    fn next(&mut self) -> Option<Self::Item> {
        let r = self.step().map(|x| x.map(|(k, b, _)| (k, b)));
        self.finish(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc_of_str(s: &str) -> Vec<u8> {
        let mut e = roving::Encoder::new();
        e.str(s).unwrap();
        e.finish().unwrap()
    }

    /// A value longer than LMDB takes (4 GiB - 1 bytes) fails when it is
    /// put, with its own kind, and changes nothing; not at the next flush,
    /// where LMDB refused it as a "key or value" of a bad size. The limit
    /// is lowered here: a 4 GiB test value is too much memory for a test.
    #[test]
    fn a_value_too_large_for_lmdb_fails_when_put() {
        assert_eq!(MAX_VALUE_LEN as u64, 0xffff_ffff);
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
        s.put("a", doc_of_str("small")).unwrap();
        s.flush().unwrap();
        let big = doc_of_str(&"x".repeat(100));
        s.max_value = big.len() - 1;
        let doc = Document::open(&big).unwrap();
        for what in ["put", "put_trusted", "put_document"] {
            let r = match what {
                "put" => s.put("a", big.clone()),
                // SAFETY: `big` is the output of the encoder.
                "put_trusted" => unsafe { s.put_trusted("a", big.clone()) },
                _ => s.put_document("a", doc),
            };
            let e = r.unwrap_err();
            assert_eq!(e.kind(), StoreErrorKind::TooLarge, "{what}: {e}");
            let msg = e.to_string();
            assert!(
                msg.contains("\"a\"") && msg.contains(&big.len().to_string()),
                "{msg}"
            );
            assert_eq!(s.pending_len(), 0, "{what}");
            assert_eq!(s.len().unwrap(), 1, "{what}");
            let got = s.get("a").unwrap().unwrap();
            assert_eq!(got.root().as_str(), Some("small"), "{what}");
        }
        s.max_value = big.len();
        s.put("a", big.clone()).unwrap();
        s.flush().unwrap();
        assert_eq!(s.get("a").unwrap().unwrap().as_bytes(), &big[..]);
    }

    /// Stores of one file in one process share one LMDB environment, whose
    /// flags the first open sets: a later Store asking for durable commits
    /// of an environment opened with `sync(false)` syncs after each of its
    /// own commits (it silently did not before); the unsynced Store still
    /// does not, and neither does a synced environment.
    #[test]
    fn a_synced_store_syncs_its_commits_on_an_environment_opened_without_sync() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.rvs");
        let mut fast = Store::open(&path, &StoreOptions::default().sync(false)).unwrap();
        let mut durable = Store::open(&path, &StoreOptions::default()).unwrap();
        assert!(Arc::ptr_eq(&fast.shared, &durable.shared));
        let synced = || durable_syncs(&path);
        fast.put("a", doc_of_str("1")).unwrap();
        fast.flush().unwrap();
        assert_eq!(synced(), 0);
        durable.put("b", doc_of_str("2")).unwrap();
        durable.flush().unwrap();
        assert_eq!(synced(), 1);
        durable.flush().unwrap(); // nothing pending: no commit, no sync
        assert_eq!(synced(), 1);
        durable.put("c", doc_of_str("3")).unwrap();
        durable.flush().unwrap();
        assert_eq!(synced(), 2);
        assert_eq!(fast.len().unwrap(), 1);
        fast.reload().unwrap();
        assert_eq!(fast.len().unwrap(), 3);
        drop((fast, durable));

        let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
        let mut again = Store::open(&path, &StoreOptions::default()).unwrap();
        s.put("d", doc_of_str("4")).unwrap();
        s.flush().unwrap();
        again.put("e", doc_of_str("5")).unwrap();
        again.flush().unwrap();
        assert_eq!(s.shared.forced_syncs.load(Ordering::Relaxed), 0);
    }

    /// Syncs forced so far on the environment of the store at `path`.
    fn durable_syncs(path: &Path) -> usize {
        let s = Store::open(path, &StoreOptions::default()).unwrap();
        s.shared.forced_syncs.load(Ordering::Relaxed)
    }
}
