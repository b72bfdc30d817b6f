//! `roving-store`: a persistent keyed store of roving documents on LMDB.
//!
//! Keys are strings (1 to 511 bytes of UTF-8, sorted by their bytes, i.e.
//! by code point); values are roving documents of at most 4 GiB - 1 bytes
//! (LMDB's limit: a longer one fails when it is put, with
//! [`StoreErrorKind::TooLarge`]), validated when they are put
//! and again when they are read (LMDB does not checksum its pages), and
//! read straight from the memory map with no copy. LMDB places a record
//! at any byte offset, so the zero-copy slice of a typed vector
//! (`roving::Vector::as_slice`, which needs its data aligned) is usually
//! `None` for a record: read vectors with `to_vec` or `iter` there.
//!
//! ```no_run
//! use roving_store::{Store, StoreOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut store = Store::open("items.rvs", &StoreOptions::default())?;
//! let mut enc = roving::Encoder::new();
//! enc.begin_map()?;
//! enc.key("views")?;
//! enc.i64(3)?;
//! enc.end_map()?;
//! store.put("item 1", enc.finish()?)?;
//! store.flush()?; // one atomic, durable commit
//! let doc = store.get("item 1")?.expect("just put");
//! assert_eq!(doc.root().get("views").and_then(|v| v.as_i64()), Some(3));
//! # Ok(()) }
//! ```
//!
//! # Model
//! A [`Store`] reads one committed state (a [`Snapshot`]: an LMDB read
//! transaction) with its own pending changes on top. [`Store::flush`]
//! commits all pending changes in one write transaction (synced to disk on
//! commit: once `flush` returns, the changes survive a crash of the process
//! or of the machine) and moves to the newest state; [`Store::reload`]
//! drops pending changes and moves to the newest state. A `Store`
//! dropped without a `flush` drops its pending changes (no flush on drop:
//! a commit can fail, and `Drop` could not report it; Python's
//! `roving.Store` flushes when collected or at exit, as `shelve` does).
//! A transaction ([`Store::transaction`], or
//! [`Store::begin_transaction`] ... [`Store::commit_transaction`]) is a
//! read-modify-write: it holds LMDB's write lock, reads the newest
//! committed state with its own changes on top, and commits them at once.
//!
//! Pending changes are held in memory up to about 64 MiB; past that they
//! are written in key order to unnamed temporary files beside the store
//! (or in the system's temporary directory if the store's directory
//! cannot take them), which the system deletes when the `Store` drops
//! them (flush, reload, drop, or a crash of the process): any number of
//! unflushed records takes little memory (3M small records: 90 MB in all,
//! against 530 MB in memory). Reads see them as before. The flush of a
//! large set still holds the pages it writes in memory until it commits
//! (LMDB keeps up to 512 MiB of them; 211 MB for those 3M records).
//!
//! # Dictionary
//! A store keeps one dictionary (`docs/FORMAT.md` section 23,
//! [`roving::Dictionary`]) of strings and map shapes that its records may
//! refer to: [`Store::dictionary`], grown by [`Store::grow_dictionary`]
//! as records are written against it (Python's `roving.Store` writes
//! every value so) with their shapes and the value strings they repeat
//! ([`roving::dictionary::Learner`]). The entries a flush's records need
//! are committed in the same write transaction, so a record never
//! outlives them; a flush that finds entries another process added
//! meanwhile writes its records again against the merged dictionary. A store without a dictionary (one
//! written before it existed) reads as before; [`Store::compact`]
//! rewrites its records against it. A record written against the
//! dictionary reads as the dictionary's base followed by its own bytes:
//! [`Store::get_with`] reads it in a buffer of the caller's, while
//! [`Store::get`] and [`Store::iter`] keep a copy until the store's
//! snapshot ends (its next flush or reload). Reading such a record
//! copies the base too (validated once per growth of the dictionary, not
//! per record), so the dictionary stops growing
//! once its base reaches
//! [`roving::dictionary::AUTO_GROWTH_MAX_BASE`] (1 KiB: a few record
//! kinds' shapes); records of shapes met after that carry their own.
//!
//! # Processes
//! Any number of processes may read a store while one writes. Readers see
//! only committed states. Each open [`Store`] holds a slot of LMDB's reader
//! table, and so does each earlier [`Snapshot`] kept alive (by records or
//! views): [`StoreOptions::max_readers`] (510 by default; only an open
//! while no other process has the store open sizes the table, and it only
//! grows: see there) at once over all processes;
//! beyond, opening one more fails with [`StoreErrorKind::Busy`]. A second
//! writer *waits*: `flush` blocks while another process is inside its own
//! `flush` (LMDB's write lock is taken only inside `flush` and open
//! transactions, never while changes are merely pending, spilled or not:
//! other stores of the file, in this thread or elsewhere, flush
//! meanwhile). There is no conflict detection:
//! the last flush wins, key by key, so two processes that each read a
//! counter, add one and flush lose updates; a transaction takes the
//! write lock *before* it reads (other writers wait for it), so the same
//! read-modify-write in transactions loses none.
//!
//! Like every LMDB environment, an open store belongs to the process that
//! opened it: after `fork()`, `flush`, `reload` and opening the same store
//! again fail with [`StoreErrorKind::Busy`] in the child; open stores after
//! forking. The child can still read the snapshot it inherited, but only
//! while the parent keeps that snapshot (the reader slot that protects its
//! pages is the parent's): once the parent drops, flushes or reloads that
//! store, the child's reads may see other data, or crash. Dropping an
//! inherited store in the child leaves the parent's snapshots alone (the
//! child's copy of each read transaction is left unended).
//!
//! # Files
//! `Store::open("x.rvs")` makes the data file `x.rvs` and LMDB's lock file
//! `x.rvs-lock`; an existing directory is opened as an LMDB directory
//! (`data.mdb`, `lock.mdb`), and so is the path of its `data.mdb`. The map (the address range the file is mapped
//! to) starts at [`StoreOptions::map_size`] and at least doubles by itself when a
//! flush needs more room; growing it needs every other snapshot of the
//! store in this process (views held by a caller, and every other open
//! [`Store`] of the same file, each of which holds one) to be released
//! first, otherwise `flush` fails with [`StoreErrorKind::Busy`] and keeps
//! its pending changes (and `reload`, after another process grew it,
//! fails the same way and changes nothing). A store expected to grow
//! large while several handles of it are open should be opened with a
//! `map_size` above its expected size: the map is address space only,
//! the file grows with its contents.
//!
//! A store is known to a process by its path with symbolic links
//! resolved, and LMDB's lock file is that path + `-lock`: do not open one
//! store file under two hard-linked names.
//!
//! # Damaged files
//! A file that is not an LMDB file, an LMDB file of another program, a
//! truncated file, a meta page that does not hold the transaction LMDB
//! would read from it, pages out of place, records pointing outside the
//! file and records that are not valid roving documents are reported as errors
//! ([`StoreErrorKind::NotAStore`], [`StoreErrorKind::Corrupt`]). LMDB
//! keeps no checksums: arbitrary bytes written over its B-tree pages can
//! still make LMDB itself crash the process, unless the store is opened
//! with [`StoreOptions::verify_pages`], which walks every page in Rust
//! first (O(file size): for files from elsewhere). [`Store::verify`] reads
//! every record.

mod backend;
mod cluster;
mod commit;
mod dict;
mod error;
mod pending;
mod shared;
mod snapshot;
mod store;
mod txn;
mod verify;

pub use backend::Backend;
pub use cluster::{ClusterOptions, ClusterStore};
pub use error::{Result, StoreError, StoreErrorKind};
pub use snapshot::Snapshot;
pub use store::{Iter, RawIter, Record, Store};

/// Options of [`Store::open`].
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// Open read-only: writes fail, a missing store is an error.
    pub readonly: bool,
    /// Make a new store if there is none at the path (default true). With
    /// `false`, a missing store is a [`StoreErrorKind::NotFound`] error, as
    /// it is for a read-only open (`dbm`'s and `shelve`'s flag `"w"`).
    pub create: bool,
    /// Initial size of the memory map in bytes (rounded up to 1 MiB, at
    /// most 64 TiB; at least what the data in the file takes, but not the
    /// larger map an existing store may have had before). Default 1 GiB.
    /// The map grows by itself; this only sets how soon.
    pub map_size: usize,
    /// Sync to disk on every commit (LMDB's default). With `false`, a
    /// crash of the machine (not of the process) may lose recent commits,
    /// and, on a file system that does not keep the order of writes, may
    /// leave the store damaged (LMDB's `MDB_NOSYNC`). A crash of the
    /// process alone loses nothing that was flushed.
    ///
    /// Stores of one file in one process share the first open's LMDB
    /// environment, and with it its `map_size`, `max_readers` and
    /// `verify_pages`, and its `sync`, except that a Store opened with
    /// `sync` on an environment opened without it syncs the file after
    /// each of its own commits: every Store that asks for durable commits
    /// gets them.
    pub sync: bool,
    /// Size of LMDB's reader table: snapshots (read transactions) alive
    /// at once over all processes, beyond which opening one more fails
    /// with [`StoreErrorKind::Busy`]. Default 510; taken as at least 1 and
    /// at most [`MAX_READERS`].
    ///
    /// The table lives in the lock file, which keeps it after every
    /// process closed the store, and LMDB sizes it only when the store is
    /// opened while no other process has it open: it then grows to this
    /// size if it is smaller, and a larger table already there is kept.
    /// While another process has the store open, an open uses the table
    /// in place, whatever it asks; so does a later open in a process that
    /// has the store open already (they share one LMDB environment). The
    /// error of a full table says how many slots it has.
    pub max_readers: u32,
    /// Walk every page of the file in Rust before LMDB reads any
    /// (O(file size)): for files that come from elsewhere. LMDB trusts its
    /// pages (no checksums), so without this, bytes written over its B-tree
    /// pages can crash the process; with it, any such damage in the state
    /// present at open is a [`StoreErrorKind::Corrupt`] error. Default
    /// false. (Records are validated on read either way.)
    pub verify_pages: bool,
    /// Map every page of the file into the process's page tables at open
    /// (Linux 5.14+: `madvise(MADV_POPULATE_READ)`; ignored elsewhere), so
    /// that the first reads of each page take no page fault: random reads
    /// right after open cost what they cost once warm. It reads the whole
    /// file at open (O(file size): ~30 ms for 420 MB already in the page
    /// cache, much more from disk) and leaves it all resident; pages the
    /// map gains later (the map grows, other processes commit) are mapped
    /// on first read as usual. Default false.
    pub populate: bool,
}

/// The largest [`StoreOptions::max_readers`]: a million slots, a 64 MiB
/// lock file (LMDB's reader slot is 64 bytes; the file is sparse).
pub const MAX_READERS: u32 = 1 << 20;

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            readonly: false,
            create: true,
            map_size: 1 << 30,
            sync: true,
            max_readers: 510,
            verify_pages: false,
            populate: false,
        }
    }
}

impl StoreOptions {
    /// Default options.
    pub fn new() -> StoreOptions {
        StoreOptions::default()
    }

    /// Sets [`readonly`](StoreOptions::readonly).
    pub fn readonly(mut self, readonly: bool) -> StoreOptions {
        self.readonly = readonly;
        self
    }

    /// Sets [`create`](StoreOptions::create).
    pub fn create(mut self, create: bool) -> StoreOptions {
        self.create = create;
        self
    }

    /// Sets [`map_size`](StoreOptions::map_size).
    pub fn map_size(mut self, bytes: usize) -> StoreOptions {
        self.map_size = bytes;
        self
    }

    /// Sets [`verify_pages`](StoreOptions::verify_pages).
    pub fn verify_pages(mut self, verify: bool) -> StoreOptions {
        self.verify_pages = verify;
        self
    }

    /// Sets [`populate`](StoreOptions::populate).
    pub fn populate(mut self, populate: bool) -> StoreOptions {
        self.populate = populate;
        self
    }

    /// Sets [`max_readers`](StoreOptions::max_readers).
    pub fn max_readers(mut self, readers: u32) -> StoreOptions {
        self.max_readers = readers;
        self
    }

    /// Sets [`sync`](StoreOptions::sync).
    pub fn sync(mut self, sync: bool) -> StoreOptions {
        self.sync = sync;
        self
    }
}
