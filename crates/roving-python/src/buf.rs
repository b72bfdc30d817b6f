//! Buffers that hold a document's bytes for views: owned, a Python `bytes`
//! object, a memory-mapped file, or any owner supplied by Rust code (the
//! store). A [`Buf`] never moves its bytes, so values borrowed from it stay
//! valid for as long as an `Arc<Buf>` is held.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Who keeps the bytes alive.
pub(crate) enum Owner {
    /// An owned copy, stored in `u64`s so that the data is 8-byte aligned.
    Words(#[allow(dead_code)] Box<[u64]>),
    /// An immutable Python `bytes` object.
    Bytes(#[allow(dead_code)] Py<PyBytes>),
    /// A read-only memory map of a file.
    Mmap(#[allow(dead_code)] FileMap),
    /// Any other owner (e.g. a store transaction); its bytes must not move
    /// or change while it is alive.
    Other(#[allow(dead_code)] Box<dyn Send + Sync>),
}

/// A document's bytes and their owner.
pub struct Buf {
    ptr: *const u8,
    len: usize,
    /// Set once the bytes have passed full validation (`Document::open`
    /// or `roving::validate::validate`); shared by a lazily opened `Doc`
    /// and all its views, so that the document is validated at most once.
    validated: AtomicBool,
    _owner: Owner,
}

// SAFETY: `ptr`/`len` describe memory owned by `_owner`, which is itself
// Send + Sync (Py<PyBytes>, Mmap, Box<[u64]> or a Send + Sync box), and the
// bytes are never written through this type.
unsafe impl Send for Buf {}
// SAFETY: as above; `Buf` only hands out shared `&[u8]`.
unsafe impl Sync for Buf {}

impl Buf {
    /// An owned, 8-byte aligned copy of `data`.
    pub(crate) fn copy(data: &[u8]) -> Buf {
        let mut words = vec![0u64; data.len().div_ceil(8)].into_boxed_slice();
        // SAFETY: `words` has at least `data.len()` bytes; u64 has no invalid
        // bit patterns and the regions do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                words.as_mut_ptr().cast::<u8>(),
                data.len(),
            );
        }
        let ptr = words.as_ptr().cast::<u8>();
        Buf {
            ptr,
            len: data.len(),
            validated: AtomicBool::new(false),
            _owner: Owner::Words(words),
        }
    }

    /// The bytes of a Python `bytes` object, without copying.
    pub(crate) fn from_bytes(b: Bound<'_, PyBytes>) -> Buf {
        let s = b.as_bytes();
        let (ptr, len) = (s.as_ptr(), s.len());
        Buf {
            ptr,
            len,
            validated: AtomicBool::new(false),
            _owner: Owner::Bytes(b.unbind()),
        }
    }

    /// A read-only memory map of the file `meta` describes (recorded as
    /// mapped, see [`is_mapped`], until the `Buf` is dropped).
    pub(crate) fn from_mmap(m: memmap2::Mmap, meta: &std::fs::Metadata) -> Buf {
        let (ptr, len) = (m.as_ptr(), m.len());
        Buf {
            ptr,
            len,
            validated: AtomicBool::new(false),
            _owner: Owner::Mmap(FileMap::new(m, meta)),
        }
    }

    /// Bytes kept alive by `owner`.
    ///
    /// # Safety
    /// `ptr..ptr+len` must stay readable and unmodified for as long as
    /// `owner` is alive, wherever `owner` is moved.
    pub unsafe fn from_owner(ptr: *const u8, len: usize, owner: Box<dyn Send + Sync>) -> Buf {
        Buf {
            ptr,
            len,
            validated: AtomicBool::new(false),
            _owner: Owner::Other(owner),
        }
    }

    /// True once the bytes are known to be a valid document (see
    /// [`set_validated`](Self::set_validated)).
    #[inline]
    pub(crate) fn is_validated(&self) -> bool {
        self.validated.load(Ordering::Acquire)
    }

    /// Records that the bytes passed full validation. Only call this after
    /// validation succeeded: it lets lazily read values be read unchecked.
    pub(crate) fn set_validated(&self) {
        self.validated.store(true, Ordering::Release);
    }

    /// The bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: the owner keeps `ptr..ptr+len` alive and unmoved for the
        // lifetime of `self` (see the constructors).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The files this process has memory-mapped for `roving.open()`, by
/// (device, inode), with how many live maps each has. `roving.dump()`
/// asks ([`is_mapped`]) before it truncates a file in place: a map of a
/// truncated file kills the process with SIGBUS when read past the new end.
static MAPPED: LazyLock<Mutex<HashMap<FileId, usize>>> = LazyLock::new(Mutex::default);

/// A file's (device, inode).
type FileId = (u64, u64);

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_meta: &std::fs::Metadata) -> Option<FileId> {
    None
}

fn mapped() -> std::sync::MutexGuard<'static, HashMap<FileId, usize>> {
    // The list is consistent after any panic (each change is one step).
    MAPPED.lock().unwrap_or_else(|e| e.into_inner())
}

/// True while a `roving.open()` map of the file (device, inode) is alive
/// in this process.
pub(crate) fn is_mapped(dev: u64, ino: u64) -> bool {
    mapped().contains_key(&(dev, ino))
}

/// A memory map of a file, recorded in [`MAPPED`] while it lives.
pub(crate) struct FileMap {
    _map: memmap2::Mmap,
    id: Option<FileId>,
}

impl FileMap {
    fn new(map: memmap2::Mmap, meta: &std::fs::Metadata) -> FileMap {
        let id = file_id(meta);
        if let Some(id) = id {
            *mapped().entry(id).or_insert(0) += 1;
        }
        FileMap { _map: map, id }
    }
}

impl Drop for FileMap {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let mut m = mapped();
        if let Some(n) = m.get_mut(&id) {
            *n -= 1;
            if *n == 0 {
                m.remove(&id);
            }
        }
    }
}

/// A read-only Python buffer over a [`Buf`], so that numpy arrays can view
/// vectors in place while keeping the bytes alive.
#[pyclass(frozen, module = "roving")]
pub(crate) struct BufferRef {
    pub(crate) buf: Arc<Buf>,
}

#[pymethods]
impl BufferRef {
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        let bytes = slf.get().buf.bytes();
        // SAFETY: `view` is the Py_buffer CPython asked us to fill;
        // PyBuffer_FillInfo takes a new reference to `slf` (released by
        // CPython with the view) and refuses writable requests since
        // readonly = 1. The bytes live as long as `slf`, which the view keeps.
        let rc = unsafe {
            pyo3::ffi::PyBuffer_FillInfo(
                view,
                slf.as_ptr(),
                bytes.as_ptr() as *mut std::ffi::c_void,
                bytes.len() as pyo3::ffi::Py_ssize_t,
                1,
                flags,
            )
        };
        if rc < 0 {
            return Err(PyErr::fetch(slf.py()));
        }
        Ok(())
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}

    fn __len__(&self) -> usize {
        self.buf.bytes().len()
    }
}
