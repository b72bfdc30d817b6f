//! The per-process state of one open store file: the LMDB environment,
//! shared by every `Store` and `Snapshot` of that file in this process
//! (LMDB forbids opening one environment twice in a process).

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, RwLock, Weak};
use std::time::Duration;

use heed::types::Bytes;
use heed::{CommitOrAbort, Database, Env, EnvFlags, EnvOpenOptions, MdbError, WithoutTls};

use crate::error::{Result, StoreError, StoreErrorKind};
use crate::StoreOptions;

/// Name of the LMDB database holding the records.
pub(crate) const ITEMS_DB: &str = "roving.items";
/// Name of the LMDB database holding the store's own metadata.
pub(crate) const META_DB: &str = "roving.meta";
/// Key of the format marker in the metadata database.
pub(crate) const FORMAT_KEY: &[u8] = b"format";
/// The format marker of this version of the store.
pub(crate) const FORMAT_V1: &[u8] = b"roving-store/1";
/// LMDB's magic number, at offset 16 of the first page of every LMDB file.
const LMDB_MAGIC: u32 = 0xBEEF_C0DE;
/// Map sizes are multiples of this (a multiple of every OS page size).
const MAP_ROUND: usize = 1 << 20;

/// Open environments of this process, by canonical data-file path.
static REGISTRY: LazyLock<Mutex<HashMap<PathBuf, Weak<Shared>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// LMDB's default key order (`memcmp` over the shorter length, then the
/// shorter key first), compared 8 bytes at a time without a call to
/// `memcmp`: a lookup in a large store compares its key some 20 times.
/// The order is exactly LMDB's, so files stay readable by any LMDB user
/// (and by earlier versions of this crate, which used the default).
pub(crate) enum KeyOrder {}

impl heed::Comparator for KeyOrder {
    #[inline]
    fn compare(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
        /// The 8 bytes of `s` at `i` as a big-endian word (lexicographic
        /// order of the bytes is the order of the words).
        #[inline(always)]
        fn word(s: &[u8], i: usize) -> u64 {
            u64::from_be_bytes(s[i..i + 8].try_into().unwrap_or([0; 8]))
        }
        let n = a.len().min(b.len());
        if n >= 8 {
            let mut i = 0;
            while i + 8 < n {
                let (x, y) = (word(a, i), word(b, i));
                if x != y {
                    return x.cmp(&y);
                }
                i += 8;
            }
            // The last 8 common bytes: those before `i` are equal, so this
            // compares the rest.
            let (x, y) = (word(a, n - 8), word(b, n - 8));
            if x != y {
                return x.cmp(&y);
            }
        } else {
            for (x, y) in a[..n].iter().zip(&b[..n]) {
                if x != y {
                    return x.cmp(y);
                }
            }
        }
        a.len().cmp(&b.len())
    }
}

/// The records' database: string keys in [`KeyOrder`], document bytes.
pub(crate) type ItemsDb = Database<'static, Bytes, Bytes, KeyOrder>;

pub(crate) struct Shared {
    pub(crate) env: Env<WithoutTls>,
    pub(crate) items: ItemsDb,
    pub(crate) meta: Database<'static, Bytes, Bytes>,
    /// A duplicate of LMDB's data-file descriptor: `fstat` and `pread`.
    pub(crate) file: File,
    /// The path as the user gave it (for messages).
    pub(crate) path: PathBuf,
    pub(crate) env_readonly: bool,
    /// Whether LMDB syncs each commit (the first open's `sync`); a later
    /// open asking for `sync` on an environment opened without it syncs
    /// after its own commits ([`Shared::sync_commit`]).
    pub(crate) env_sync: bool,
    /// Syncs made by [`Shared::sync_commit`] (for tests).
    pub(crate) forced_syncs: AtomicUsize,
    pub(crate) page_size: usize,
    pub(crate) max_key: usize,
    /// Read side: beginning a transaction. Write side: remapping (resize).
    pub(crate) gate: RwLock<()>,
    /// Transactions (snapshots and the writer's) alive in this process.
    pub(crate) live: AtomicUsize,
    /// Address of the start of the map once checked; 0 = unknown,
    /// 1 = could not be established (bounds checks off).
    pub(crate) base: AtomicUsize,
    /// Serializes this process's writers (LMDB serializes processes).
    pub(crate) write: Mutex<()>,
    /// The thread that began the open transaction of a Store of this file
    /// ([`Store::begin_transaction`](crate::Store::begin_transaction)), if
    /// any: a flush or a transaction of another Store of the file in that
    /// thread would wait for it forever, and fails instead.
    pub(crate) txn_thread: Mutex<Option<std::thread::ThreadId>>,
    /// The last state (txn id) found readable although the file is shorter
    /// than its pages (free pages at the end): not walked again.
    pub(crate) short_ok: std::sync::atomic::AtomicU64,
    /// The process that opened the environment (LMDB environments must not
    /// be used across `fork()`).
    pub(crate) pid: u32,
    /// The store's dictionary as far as this process has read it (only
    /// committed entries; snapshots extend it, see [`crate::dict`]).
    pub(crate) dict: Mutex<Arc<roving::Dictionary>>,
}

/// How the path is laid out on disk.
struct Layout {
    /// What LMDB opens: the data file or the directory.
    env: PathBuf,
    /// The LMDB data file.
    data: PathBuf,
    /// True for a single file (`path` + `path-lock`), false for a directory
    /// holding `data.mdb` and `lock.mdb`.
    single_file: bool,
}

fn layout(path: &Path) -> Layout {
    if path.is_dir() {
        Layout {
            env: path.to_path_buf(),
            data: path.join("data.mdb"),
            single_file: false,
        }
    } else if let Some(dir) = dir_of_data_file(path) {
        // The data file of a directory store: open that store, so that
        // every process uses its lock file (`lock.mdb`).
        Layout {
            env: dir,
            data: path.to_path_buf(),
            single_file: false,
        }
    } else {
        Layout {
            env: path.to_path_buf(),
            data: path.to_path_buf(),
            single_file: true,
        }
    }
}

/// LMDB's lock file of the single-file store at `path`: `path` + `-lock`.
fn lock_file_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-lock");
    PathBuf::from(name)
}

/// The directory of `path` if `path` is the data file of a directory
/// store (`data.mdb` beside a `lock.mdb`).
fn dir_of_data_file(path: &Path) -> Option<PathBuf> {
    if path.file_name()? != "data.mdb" || !path.is_file() {
        return None;
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    dir.join("lock.mdb").is_file().then_some(dir)
}

fn canonical(data: &Path) -> Result<PathBuf> {
    canonical_within(data, 40)
}

/// [`canonical`], following at most `links` symbolic links to a file that
/// does not exist yet.
fn canonical_within(data: &Path, links: u32) -> Result<PathBuf> {
    match data.canonicalize() {
        Ok(p) => Ok(p),
        Err(_) => {
            let name = data
                .file_name()
                .ok_or_else(|| StoreError::new(StoreErrorKind::Io, "the path names no file"))?;
            let parent = match data.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            // A link to a file not made yet: the store is made at the
            // target, so its lock file is the target's, as for every later
            // open (which resolves the link).
            let is_link = std::fs::symlink_metadata(data).is_ok_and(|m| m.file_type().is_symlink());
            if is_link && links > 0 {
                let target = std::fs::read_link(data)?;
                return canonical_within(&parent.join(target), links - 1);
            }
            let parent = parent.canonicalize().map_err(|e| {
                let kind = match StoreError::from(std::io::Error::from(e.kind())).kind() {
                    StoreErrorKind::PermissionDenied => StoreErrorKind::PermissionDenied,
                    _ => StoreErrorKind::NotFound,
                };
                StoreError::new(
                    kind,
                    format!("its directory {} cannot be used: {e}", parent.display()),
                )
            })?;
            Ok(parent.join(name))
        }
    }
}

/// What the data file looks like before LMDB touches it.
enum Precheck {
    /// Missing or empty: LMDB will make a new store.
    New,
    /// Starts like an LMDB file.
    Lmdb,
}

/// Checks the data file before LMDB opens it; a missing one is an error
/// unless `create`.
fn precheck(data: &Path, readonly: bool, create: bool) -> Result<Precheck> {
    let md = match std::fs::metadata(data) {
        Ok(md) => md,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if readonly || !create {
                return Err(StoreError::new(
                    StoreErrorKind::NotFound,
                    "no store at this path",
                ));
            }
            return Ok(Precheck::New);
        }
        Err(e) => return Err(e.into()),
    };
    if !md.is_file() {
        return Err(StoreError::new(
            StoreErrorKind::NotAStore,
            "not a roving store (not a regular file)",
        ));
    }
    if md.len() == 0 {
        if readonly {
            // The file is there (not `NotFound`, which Python raises as a
            // `FileNotFoundError`): it holds no store yet.
            return Err(StoreError::new(
                StoreErrorKind::NotAStore,
                "not a roving store (the file is empty: no store yet; a read-write open makes one)",
            ));
        }
        return Ok(Precheck::New);
    }
    let mut head = [0u8; 24];
    let n = read_prefix(data, &mut head)?;
    if n < head.len() || u32::from_ne_bytes([head[16], head[17], head[18], head[19]]) != LMDB_MAGIC
    {
        return Err(StoreError::new(
            StoreErrorKind::NotAStore,
            "not a roving store (not an LMDB file)",
        ));
    }
    check_meta_sizes(data)?;
    Ok(Precheck::Lmdb)
}

/// Largest map a store may record (64 TiB): anything larger is damage, and
/// LMDB would try to map it.
const MAX_PLAUSIBLE_MAP: u64 = 1 << 46;

/// Rejects meta pages whose page size, map size or last page are absurd
/// (LMDB maps what they say before reading anything else).
fn check_meta_sizes(data: &Path) -> Result<()> {
    use std::os::unix::fs::FileExt;
    let f = File::open(data)?;
    let damaged = |what: &str| {
        StoreError::new(
            StoreErrorKind::Corrupt,
            format!("the store is damaged: {what}"),
        )
    };
    let mut w = [0u8; 8];
    let mut u64_at = |off: u64| -> Result<u64> {
        f.read_exact_at(&mut w, off)
            .map_err(|_| damaged("a meta page is cut short"))?;
        Ok(u64::from_le_bytes(w))
    };
    let ps = u64_at(40)? & 0xFFFF_FFFF;
    if !ps.is_power_of_two() || !(512..=65536).contains(&ps) {
        return Err(damaged("bad page size in the meta page"));
    }
    for meta in [0, ps] {
        if u64_at(meta + 40)? & 0xFFFF_FFFF != ps {
            return Err(damaged("the meta pages disagree on the page size"));
        }
        let mapsize = u64_at(meta + 32)?;
        let last_pg = u64_at(meta + 136)?;
        let pages_end = last_pg.checked_add(1).and_then(|n| n.checked_mul(ps));
        if mapsize > MAX_PLAUSIBLE_MAP || pages_end.is_none_or(|e| e > MAX_PLAUSIBLE_MAP) {
            return Err(damaged("implausible map size or page count in a meta page"));
        }
    }
    Ok(())
}

fn read_prefix(data: &Path, buf: &mut [u8]) -> Result<usize> {
    use std::io::Read;
    let mut f = File::open(data)?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(n)
}

/// The largest map this crate asks for: [`MAX_PLAUSIBLE_MAP`] (a store
/// recording more is taken for damaged when opened), or what `usize` holds.
const MAX_MAP: usize = if usize::MAX as u64 >= MAX_PLAUSIBLE_MAP {
    MAX_PLAUSIBLE_MAP as usize
} else {
    usize::MAX / MAP_ROUND * MAP_ROUND
};

/// `size` rounded up to a multiple of [`MAP_ROUND`], at most [`MAX_MAP`].
pub(crate) fn round_map(size: usize) -> usize {
    size.clamp(MAP_ROUND, MAX_MAP).div_ceil(MAP_ROUND) * MAP_ROUND
}

impl Shared {
    /// Opens (or joins, if this process has it open already) the store at `path`.
    pub(crate) fn open(path: &Path, options: &StoreOptions) -> Result<Arc<Shared>> {
        Shared::open_at(path, options).map_err(|e| {
            if e.kind() != StoreErrorKind::PermissionDenied {
                return e;
            }
            let lock = match layout(path) {
                Layout {
                    single_file: true, ..
                } => lock_file_of(path),
                lay => lay.env.join("lock.mdb"),
            };
            let data = if options.readonly {
                "read"
            } else {
                "read-write"
            };
            e.explained(&format!(
                " (a store needs {data} access to its file, read-write access to its lock \
                 file {} even to read, and write access to their directory to create them)",
                lock.display()
            ))
        })
    }

    fn open_at(path: &Path, options: &StoreOptions) -> Result<Arc<Shared>> {
        if path.as_os_str().as_encoded_bytes().contains(&0) {
            return Err(StoreError::new(
                StoreErrorKind::Io,
                "the path contains a NUL byte",
            ));
        }
        let mut lay = layout(path);
        if !lay.single_file && !lay.data.exists() {
            // Only an empty directory becomes an LMDB directory store.
            let empty = std::fs::read_dir(path)
                .map(|mut d| d.next().is_none())
                .unwrap_or(false);
            if !empty {
                return Err(StoreError::new(
                    StoreErrorKind::NotAStore,
                    "not a roving store (a directory without data.mdb)",
                ));
            }
        }
        let _making = open_lock(&lay.data, options.readonly, options.create);
        let pre = precheck(&lay.data, options.readonly, options.create)?;
        let key = canonical(&lay.data)?;
        if lay.single_file {
            // LMDB is given the canonical path: a bare file name ("x.rvs")
            // has an empty parent, which heed cannot resolve for a new file.
            lay.env = key.clone();
        }
        let mut registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(shared) = registry.get(&key).and_then(Weak::upgrade) {
            shared.check_pid()?;
            if shared.env_readonly && !options.readonly {
                return Err(StoreError::new(
                    StoreErrorKind::Busy,
                    "the store is open read-only elsewhere in this process (a read-only \
                     Store, or a record or view taken from one), and LMDB opens a file once \
                     per process: close or release that first, or open the read-write Store \
                     first (read-only Stores opened after it share it)",
                ));
            }
            return Ok(shared);
        }
        let shared = Arc::new(Shared::open_env(path, &lay, pre, options)?);
        registry.insert(key, Arc::downgrade(&shared));
        registry.retain(|_, w| w.strong_count() > 0);
        Ok(shared)
    }

    fn open_env(
        path: &Path,
        lay: &Layout,
        pre: Precheck,
        options: &StoreOptions,
    ) -> Result<Shared> {
        let mut eo = EnvOpenOptions::new().read_txn_without_tls();
        eo.map_size(round_map(options.map_size))
            .max_dbs(4)
            .max_readers(options.max_readers.clamp(1, crate::MAX_READERS));
        let mut flags = EnvFlags::empty();
        if lay.single_file {
            flags |= EnvFlags::NO_SUB_DIR;
        }
        if options.readonly {
            flags |= EnvFlags::READ_ONLY;
        }
        if !options.sync {
            flags |= EnvFlags::NO_SYNC;
        }
        // SAFETY: `flags` only holds NO_SUB_DIR, READ_ONLY and NO_SYNC, none
        // of which breaks memory safety (WRITEMAP and NO_LOCK are never set).
        unsafe { eo.flags(flags) };
        let mut attempt = 0;
        let env = loop {
            // SAFETY: LMDB maps the file; the mapping is read-only (no
            // WRITEMAP) and LMDB's lock file coordinates every process that
            // writes it, so what a read transaction sees never changes while
            // it is alive. The registry above makes sure this process opens
            // each file once.
            match unsafe { eo.open(&lay.env) } {
                Ok(env) => break env,
                Err(heed::Error::EnvAlreadyOpened) if attempt < 50 => {
                    // Another handle of this file is being closed right now.
                    attempt += 1;
                    match heed::env_closing_event(&lay.env) {
                        Some(ev) => {
                            ev.wait_timeout(Duration::from_millis(100));
                        }
                        None => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
                Err(e) => return Err(StoreError::from(e).with_path(path)),
            }
        };
        // Before any transaction reads a page: a file shorter than its pages
        // would crash the process (SIGBUS) when a missing page is read, and
        // with `verify_pages` every page is checked first.
        {
            let file = env
                .try_clone_inner_file()
                .map_err(|e| StoreError::from(e).with_path(path))?;
            let ps = env.unnamed_database_stat().page_size as usize;
            // A read transaction pins the state being checked (beginning one
            // reads no page).
            let rtxn = match env.read_txn() {
                Err(heed::Error::Mdb(MdbError::MapResized)) => {
                    // The file's pages go past the map: adopt the size the
                    // file records (no transaction is alive yet).
                    // SAFETY: this environment was just opened by this
                    // thread and no transaction of it exists.
                    unsafe { env.resize(0) }.map_err(|e| StoreError::from(e).with_path(path))?;
                    env.read_txn()
                }
                r => r,
            }
            .map_err(|e| match e {
                heed::Error::Mdb(MdbError::MapResized) => StoreError::new(
                    StoreErrorKind::Corrupt,
                    "the store is damaged: its pages go past its map size",
                ),
                e => StoreError::from(e),
            })
            .map_err(|e| e.with_path(path))?;
            let id = rtxn.id() as u64;
            // The meta page LMDB reads for this transaction must be the
            // one `info` and the walk describe (checked once, at open:
            // later states are written by LMDB itself).
            crate::verify::check_meta(&file, id).map_err(|e| e.with_path(path))?;
            check_file(
                &file,
                &env.info(),
                ps,
                id,
                options.verify_pages,
                options.readonly,
            )
            .map_err(|e| e.with_path(path))?;
            drop(rtxn);
        }
        let fresh = matches!(pre, Precheck::New) || env.unnamed_database_stat().entries == 0;
        let (items, meta) =
            open_databases(&env, fresh, options.readonly).map_err(|e| e.with_path(path))?;
        let file = env
            .try_clone_inner_file()
            .map_err(|e| StoreError::from(e).with_path(path))?;
        let page_size = env.unnamed_database_stat().page_size as usize;
        let max_key = env.max_key_size();
        // Free the reader slots of processes that died holding a snapshot.
        let _ = env.clear_stale_readers();
        Ok(Shared {
            env,
            items,
            meta,
            file,
            path: path.to_path_buf(),
            env_readonly: options.readonly,
            env_sync: options.sync,
            forced_syncs: AtomicUsize::new(0),
            page_size,
            max_key,
            gate: RwLock::new(()),
            live: AtomicUsize::new(0),
            base: AtomicUsize::new(0),
            write: Mutex::new(()),
            txn_thread: Mutex::new(None),
            pid: std::process::id(),
            short_ok: std::sync::atomic::AtomicU64::new(0),
            dict: Mutex::new(Arc::new(roving::Dictionary::new())),
        })
    }

    /// True in a child process forked after the store was opened.
    pub(crate) fn forked(&self) -> bool {
        std::process::id() != self.pid
    }

    /// Errors in a child process forked after the store was opened.
    pub(crate) fn check_pid(&self) -> Result<()> {
        if self.forked() {
            return Err(self.err(StoreError::new(
                StoreErrorKind::Busy,
                "the store was opened before fork() by the parent process and cannot be \
                 used or reopened in the child: open stores after forking (or use the \
                 'spawn' start method)",
            )));
        }
        Ok(())
    }

    /// The number of transactions (snapshots, views' snapshots, a writer)
    /// of this file alive in this process.
    pub(crate) fn live(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }

    /// Remaps to `new_size` bytes (0: the size recorded in the file, after
    /// another process grew it). Only possible when no transaction of this
    /// file is alive in this process.
    pub(crate) fn remap(&self, new_size: usize) -> Result<()> {
        let _g = self.gate.write().unwrap_or_else(|e| e.into_inner());
        let live = self.live.load(Ordering::SeqCst);
        if live != 0 {
            return Err(self.map_busy(live));
        }
        // SAFETY: we hold the gate exclusively and `live` is 0, so no
        // transaction of this environment exists in this process and none
        // can begin until the gate is released; every slice into the old
        // map was borrowed from a transaction, so none survives the remap.
        unsafe { self.env.resize(new_size) }.map_err(|e| self.err(e.into()))?;
        self.base.store(0, Ordering::SeqCst);
        Ok(())
    }

    /// The error of a map that must grow (or move to the size another
    /// process gave it) while `live` transactions of this process use it.
    #[cold]
    pub(crate) fn map_busy(&self, live: usize) -> StoreError {
        self.err(StoreError::new(
            StoreErrorKind::Busy,
            format!(
                "the store's map must grow but {live} snapshot(s) or view(s) of it are open \
                 in this process; release them and retry (pending changes are kept)"
            ),
        ))
    }

    pub(crate) fn map_size(&self) -> usize {
        self.env.info().map_size
    }

    /// After a commit of a Store opened with `sync`: syncs the data file
    /// if LMDB does not (an earlier open in this process, which the
    /// environment is shared with, asked for no sync), so that every
    /// Store that asks for durable commits gets them.
    pub(crate) fn sync_commit(&self, wants_sync: bool) -> Result<()> {
        if !wants_sync || self.env_sync {
            return Ok(());
        }
        self.forced_syncs.fetch_add(1, Ordering::Relaxed);
        self.env.force_sync().map_err(|e| {
            self.err(StoreError::from(e).explained(
                " (syncing to disk after a commit: the changes are committed and visible, \
                 but may not survive a crash of the machine)",
            ))
        })
    }

    /// Attaches the path to an error.
    pub(crate) fn err(&self, e: StoreError) -> StoreError {
        e.with_path(&self.path)
    }

    /// Makes the data file at least `len` bytes long (see [`extend_file`]):
    /// LMDB may leave the pages at the end of the file unwritten when they
    /// were freed in the transaction that allocated them; extending keeps
    /// "file shorter than its pages" a rare case.
    pub(crate) fn extend_file(&self, len: u64) {
        extend_file(&self.file, len);
    }
}

/// Checks that LMDB can read the state of read transaction `txn_id` (0:
/// the newest) without reading past the end of the file. The cheap check
/// compares the file's length with the pages its meta page counts; the file
/// may legitimately be shorter when its last pages are free (LMDB leaves
/// freed pages unwritten), so a short file, or `walk`, walks the pages
/// actually reachable ([`crate::verify`]). A short file that passes is
/// extended (zero-filled, never shrunk) unless read-only.
pub(crate) fn check_file(
    file: &File,
    info: &heed::EnvInfo,
    page_size: usize,
    txn_id: u64,
    walk: bool,
    readonly: bool,
) -> Result<()> {
    let file_len = file.metadata()?.len();
    let need = (info.last_page_number as u64 + 1).saturating_mul(page_size as u64);
    if file_len >= need && !walk {
        return Ok(());
    }
    match crate::verify::verify_file(file, txn_id) {
        Ok(_) => {
            if file_len < need && !readonly {
                extend_file(file, need);
            }
            Ok(())
        }
        Err(e) if file_len < need && e.kind() == StoreErrorKind::Corrupt => Err(StoreError::new(
            StoreErrorKind::Corrupt,
            format!(
                "the store is damaged: the file is truncated ({file_len} bytes, its pages need {need}): {}",
                e.message()
            ),
        )),
        Err(e) => Err(e),
    }
}

/// An advisory lock (`flock`) on the data file, held while a store is
/// opened: exclusive while an empty (new) file becomes a store, shared
/// otherwise. LMDB's set-up of a new file is not safe against another
/// process opening it at the same moment: that process could read a state
/// older than the first commit, find no store in it, and fail with "not a
/// roving store" (2 of 80 opens of new stores by two processes at once, before
/// this lock). With it, an open waits until the store it opens is made.
/// `None` where the file cannot be opened or locked (the open then fails
/// or goes on as before) and on systems without `flock`.
fn open_lock(data: &Path, readonly: bool, create: bool) -> Option<File> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let file = if readonly || !create {
            File::open(data).ok()?
        } else {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(data)
                .ok()?
        };
        let mode = if file.metadata().ok()?.len() == 0 {
            libc::LOCK_EX
        } else {
            libc::LOCK_SH
        };
        loop {
            // SAFETY: plain system call on a file descriptor we own; the
            // lock goes when the file is closed (dropped).
            if unsafe { libc::flock(file.as_raw_fd(), mode) } == 0 {
                return Some(file);
            }
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return None;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (data, readonly, create);
        None
    }
}

/// Makes `file` at least `len` bytes long without ever shrinking it or
/// touching existing bytes.
pub(crate) fn extend_file(file: &File, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let Ok(md) = file.metadata() else { return };
        if md.len() >= len {
            return;
        }
        let Ok(len) = libc::off_t::try_from(len) else {
            return;
        };
        // SAFETY: plain system call on a file descriptor we own; mode 0
        // only allocates blocks that are not allocated yet and extends
        // the size, it never shrinks the file or changes existing data.
        unsafe {
            libc::fallocate(file.as_raw_fd(), 0, 0, len);
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, len);
    }
}

type Dbs = (ItemsDb, Database<'static, Bytes, Bytes>);

fn open_databases(env: &Env<WithoutTls>, fresh: bool, readonly: bool) -> Result<Dbs> {
    let rtxn = env.read_txn()?;
    let found: Option<Dbs> = env
        .open_databases_and_commit(rtxn, |dbo, rtxn| -> Result<_, heed::Error> {
            let items = dbo
                .database_options()
                .types::<Bytes, Bytes>()
                .key_comparator::<KeyOrder>()
                .name(ITEMS_DB)
                .open(rtxn)?;
            let meta = dbo
                .database_options()
                .types::<Bytes, Bytes>()
                .name(META_DB)
                .open(rtxn)?;
            Ok(CommitOrAbort::<_, ()>::Commit(items.zip(meta)))
        })?
        .unwrap_commit();
    let (items, meta) = match found {
        Some(dbs) => dbs,
        None if fresh && !readonly => {
            let wtxn = env.write_txn()?;
            env.create_databases_and_commit(wtxn, |dbo, wtxn| -> Result<_, heed::Error> {
                let items = dbo
                    .database_options()
                    .types::<Bytes, Bytes>()
                    .key_comparator::<KeyOrder>()
                    .name(ITEMS_DB)
                    .create(wtxn)?;
                let meta = dbo
                    .database_options()
                    .types::<Bytes, Bytes>()
                    .name(META_DB)
                    .create(wtxn)?;
                if meta.get(wtxn, FORMAT_KEY)?.is_none() {
                    meta.put(wtxn, FORMAT_KEY, FORMAT_V1)?;
                }
                Ok(CommitOrAbort::<_, ()>::Commit((items, meta)))
            })?
            .unwrap_commit()
        }
        None if fresh => {
            return Err(StoreError::new(
                StoreErrorKind::NotFound,
                "no store at this path",
            ))
        }
        None => {
            return Err(StoreError::new(
                StoreErrorKind::NotAStore,
                "not a roving store (an LMDB file of another program)",
            ))
        }
    };
    let rtxn = env.read_txn()?;
    match meta.get(&rtxn, FORMAT_KEY)? {
        Some(v) if v == FORMAT_V1 => Ok((items, meta)),
        Some(v) if v.starts_with(b"roving-store/") => Err(StoreError::new(
            StoreErrorKind::NotAStore,
            format!(
                "the store has format {}, which this version of roving cannot read",
                String::from_utf8_lossy(v)
            ),
        )),
        _ => Err(StoreError::new(
            StoreErrorKind::NotAStore,
            "not a roving store (no format marker)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::KeyOrder;
    use heed::Comparator;

    /// `KeyOrder` is exactly LMDB's default order (`mdb_cmp_memn`), which
    /// is the lexicographic order of byte slices.
    #[test]
    fn key_order_is_lmdb_order() {
        let mut keys: Vec<Vec<u8>> = vec![
            vec![],
            b"a".to_vec(),
            b"item 1".to_vec(),
            b"item 10".to_vec(),
            b"item 100".to_vec(),
            b"item 1000".to_vec(),
            b"item 10000".to_vec(),
            b"item 9".to_vec(),
            b"item 99999999999999999".to_vec(),
            vec![0xff; 9],
            vec![0xff; 8],
            vec![0x00; 8],
            vec![0x00; 9],
            vec![0x7f, 0x80, 0xff, 0x00, 1, 2, 3, 4, 5],
            vec![0x80, 0x7f, 0xff, 0x00, 1, 2, 3, 4, 5],
        ];
        // Pseudo-random keys of 0..40 bytes over a small alphabet, so that
        // long common prefixes are frequent.
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..3000 {
            let len = (next() % 40) as usize;
            keys.push(
                (0..len)
                    .map(|_| [0u8, 1, 0x7f, 0x80, 0xff][(next() % 5) as usize])
                    .collect(),
            );
        }
        // Keys sharing long prefixes: every prefix of a few long keys, and
        // each prefix with its last byte raised or lowered.
        for base in [
            &b"item 1234567890123456789"[..],
            &[
                0x00, 0xff, 0x80, 0x7f, 0x01, 0xfe, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,
                0x90, 0xa0, 0xb0,
            ][..],
        ] {
            for n in 0..=base.len() {
                let p = base[..n].to_vec();
                if let Some(&last) = p.last() {
                    for d in [last.wrapping_add(1), last.wrapping_sub(1)] {
                        let mut q = p.clone();
                        *q.last_mut().unwrap_or(&mut 0) = d;
                        keys.push(q);
                    }
                }
                keys.push(p);
            }
        }
        for a in &keys {
            for b in keys.iter().take(200).chain(keys.iter().skip(3015)) {
                assert_eq!(KeyOrder::compare(a, b), a.as_slice().cmp(b), "{a:?} {b:?}");
                assert_eq!(KeyOrder::compare(b, a), b.as_slice().cmp(a), "{b:?} {a:?}");
            }
        }
    }
}
