//! The one error type of the store.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What went wrong, without the where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// An open that does not create (read-only, or
    /// [`create(false)`](crate::StoreOptions::create)) of a path where
    /// there is no store, or an open in a directory that does not exist.
    NotFound,
    /// The path holds something that is not a roving store (not an LMDB
    /// file, an LMDB file of another program, or a directory/device).
    NotAStore,
    /// The store or one of its records is damaged (truncated file, bad
    /// page, a record that is not a valid roving document).
    Corrupt,
    /// A key is empty or longer than the store allows (511 UTF-8 bytes).
    InvalidKey,
    /// A value given to `put` (or `put_document`) is not a valid roving
    /// document; the validation error (a `roving::Error`, with its kind and
    /// offset) is the [`source`](std::error::Error::source).
    InvalidDocument,
    /// A write on a store opened read-only.
    ReadOnly,
    /// The operation cannot proceed now: the reader table is full, or the
    /// map must grow while other snapshots of the store are open in this
    /// process, or the store is open read-only elsewhere in this process.
    Busy,
    /// The store was closed.
    Closed,
    /// A transaction cannot do this: one was begun while another was open
    /// (they do not nest), `flush` or `reload` was called inside one, or
    /// none is open to commit. On LMDB
    /// ([`Store::begin_transaction`](crate::Store::begin_transaction)), also
    /// a Store of the same file waited for one open in its own thread, or
    /// another process committed while its map grew; on a Redis Cluster
    /// ([`ClusterStore::begin_transaction`](crate::ClusterStore::begin_transaction)),
    /// also a key outside the transaction's hash slot, or another client
    /// changed a key it read. (Its changes are then dropped: run it again.)
    Transaction,
    /// The operating system refused access to the store's file, its lock
    /// file or its directory (permissions).
    PermissionDenied,
    /// A value longer than a store record can be (LMDB's limit: 4 GiB - 1).
    TooLarge,
    /// An operating-system I/O error.
    Io,
    /// Any other error reported by LMDB.
    Lmdb,
    /// An error of the roving core converted with `?` (`From<roving::Error>`):
    /// encoding a value to put (`roving::to_vec`) or decoding a record
    /// (`roving::from_value`); the `roving::Error` is the
    /// [`source`](std::error::Error::source).
    Document,
    /// A Redis Cluster ([`ClusterStore`](crate::ClusterStore)) failed: a
    /// node that does not answer (named in the message), too few replicas
    /// acknowledging a flush, or an error the cluster reported.
    Cluster,
}

impl StoreErrorKind {
    /// A short lowercase name of the kind (`"corrupt"`, `"not-a-store"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            StoreErrorKind::NotFound => "not-found",
            StoreErrorKind::NotAStore => "not-a-store",
            StoreErrorKind::Corrupt => "corrupt",
            StoreErrorKind::InvalidKey => "invalid-key",
            StoreErrorKind::InvalidDocument => "invalid-document",
            StoreErrorKind::ReadOnly => "read-only",
            StoreErrorKind::Busy => "busy",
            StoreErrorKind::Closed => "closed",
            StoreErrorKind::Transaction => "transaction",
            StoreErrorKind::PermissionDenied => "permission-denied",
            StoreErrorKind::TooLarge => "too-large",
            StoreErrorKind::Io => "io",
            StoreErrorKind::Lmdb => "lmdb",
            StoreErrorKind::Document => "document",
            StoreErrorKind::Cluster => "cluster",
        }
    }
}

/// An error of the store: a kind, a one-line message and, where known, the
/// store's path and the underlying error.
#[derive(Clone, Debug)]
pub struct StoreError {
    kind: StoreErrorKind,
    message: String,
    path: Option<PathBuf>,
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

/// Result with [`StoreError`].
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl StoreError {
    /// A new error of `kind` with a one-line `message`.
    #[cold]
    pub fn new(kind: StoreErrorKind, message: impl Into<String>) -> StoreError {
        StoreError {
            kind,
            message: message.into(),
            path: None,
            source: None,
        }
    }

    /// Attaches the store's path (kept if one is already set).
    pub fn with_path(mut self, path: &Path) -> StoreError {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }

    /// Attaches the underlying error.
    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> StoreError {
        self.source = Some(Arc::new(source));
        self
    }

    /// The same error with `more` after its message.
    pub(crate) fn explained(mut self, more: &str) -> StoreError {
        self.message.push_str(more);
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> StoreErrorKind {
        self.kind
    }

    /// The message, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The store's path, where known.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "store {}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> StoreError {
        let kind = match e.kind() {
            std::io::ErrorKind::NotFound => StoreErrorKind::NotFound,
            std::io::ErrorKind::PermissionDenied => StoreErrorKind::PermissionDenied,
            _ => StoreErrorKind::Io,
        };
        let mut msg = e.to_string();
        if e.raw_os_error() == Some(libc::EIO) {
            // LMDB turns a short write (ENOSPC or EFBIG part-way) into EIO.
            msg.push_str(
                " (LMDB also reports a write cut short this way: a full disk or file \
                 system, or a file size limit)",
            );
        }
        StoreError::new(kind, msg).with_source(e)
    }
}

/// An error of the roving core met around a store, for `?` in a function
/// that returns the store's [`Result`]: kind
/// [`Document`](StoreErrorKind::Document), the roving error's text as the
/// message and the roving error itself as the source.
///
/// ```
/// use roving_store::{Result, Store, StoreErrorKind, StoreOptions};
///
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Item<'a> { name: &'a str, qty: u32 }
///
/// fn save(store: &mut Store, key: &str, item: &Item<'_>) -> Result<()> {
///     store.put(key, roving::to_vec(item)?)?;
///     store.flush()
/// }
///
/// fn load<'s>(store: &'s Store, key: &str) -> Result<Option<Item<'s>>> {
///     match store.get(key)? {
///         Some(doc) => Ok(Some(roving::from_value(doc.root())?)),
///         None => Ok(None),
///     }
/// }
///
/// # fn main() -> Result<()> {
/// # let dir = tempfile::tempdir()?;
/// let mut store = Store::open(dir.path().join("items.rvs"), &StoreOptions::default())?;
/// save(&mut store, "pear", &Item { name: "pear", qty: 2 })?;
/// assert_eq!(load(&store, "pear")?, Some(Item { name: "pear", qty: 2 }));
/// store.put("odd", roving::to_vec(&"not an item")?)?;
/// assert_eq!(load(&store, "odd").unwrap_err().kind(), StoreErrorKind::Document);
/// # Ok(()) }
/// ```
impl From<roving::Error> for StoreError {
    fn from(e: roving::Error) -> StoreError {
        StoreError::new(StoreErrorKind::Document, e.to_string()).with_source(e)
    }
}

/// The message of a full LMDB reader table of `slots` slots (if known).
pub(crate) fn readers_full_message(slots: Option<u32>) -> String {
    let table = match slots {
        Some(n) => format!("all {n} slots of LMDB's reader table"),
        None => "all slots of LMDB's reader table".to_string(),
    };
    format!(
        "too many snapshots of the store are open at once: {table} (over all processes) \
         are taken, one by each open Store and one by each earlier state of a Store that \
         views taken before its flush or reload still hold; close Stores or release views \
         no longer needed, or reopen the store with a larger max_readers once no process \
         has it open"
    )
}

impl From<heed::Error> for StoreError {
    fn from(e: heed::Error) -> StoreError {
        use heed::MdbError as M;
        let e = match e {
            heed::Error::Io(io) => return StoreError::from(io),
            e => e,
        };
        let (kind, msg) = match &e {
            heed::Error::Io(io) => (StoreErrorKind::Io, io.to_string()),
            heed::Error::Mdb(m) => match m {
                M::Invalid => (
                    StoreErrorKind::NotAStore,
                    "not a roving store (not an LMDB file)".to_string(),
                ),
                M::VersionMismatch => (
                    StoreErrorKind::NotAStore,
                    "not a roving store (LMDB file of an incompatible version)".to_string(),
                ),
                M::Corrupted | M::PageNotFound | M::Panic | M::Problem | M::BadTxn => (
                    StoreErrorKind::Corrupt,
                    format!("the store is damaged (LMDB: {m})"),
                ),
                M::ReadersFull => (StoreErrorKind::Busy, readers_full_message(None)),
                M::BadValSize => (
                    StoreErrorKind::InvalidKey,
                    "key or value size not supported by LMDB".to_string(),
                ),
                other => (StoreErrorKind::Lmdb, format!("LMDB: {other}")),
            },
            heed::Error::Encoding(x) | heed::Error::Decoding(x) => {
                (StoreErrorKind::Corrupt, format!("bad key or value: {x}"))
            }
            heed::Error::EnvAlreadyOpened => (
                StoreErrorKind::Busy,
                "the store is already open in this process".to_string(),
            ),
        };
        let err = StoreError::new(kind, msg);
        match e {
            heed::Error::Mdb(m) => err.with_source(m),
            _ => err,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python maps these to `FileNotFoundError` and `PermissionError`: the
    /// kind must say which.
    #[test]
    fn io_errors_keep_not_found_and_permission_denied() {
        use std::io::{Error, ErrorKind};
        let kind = |k: ErrorKind| StoreError::from(Error::from(k)).kind();
        assert_eq!(kind(ErrorKind::NotFound), StoreErrorKind::NotFound);
        assert_eq!(
            kind(ErrorKind::PermissionDenied),
            StoreErrorKind::PermissionDenied
        );
        assert_eq!(
            StoreError::from(Error::from_raw_os_error(libc::EACCES)).kind(),
            StoreErrorKind::PermissionDenied
        );
        assert_eq!(
            StoreError::from(heed::Error::Io(Error::from_raw_os_error(libc::EACCES))).kind(),
            StoreErrorKind::PermissionDenied
        );
        assert_eq!(kind(ErrorKind::Other), StoreErrorKind::Io);
        assert_eq!(StoreErrorKind::PermissionDenied.name(), "permission-denied");
    }
}
