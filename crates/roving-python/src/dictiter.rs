//! Iterating an exact `dict` without a call per item, and filling the
//! values of a new one in place.
//!
//! `PyDict_Next` is a call into libpython per item (~45 instructions each,
//! 1.6M of the 12.4M instructions of `dumps` on 1000people.json). For a
//! combined-table dict (every dict `json.loads` and literals make) the items
//! are an array in insertion order, so [`DictIter`] reads them directly.
//! In the same way, `loads` fills a dict copied from a template of its
//! shape's keys by writing each value into its entry ([`fill_entry`]),
//! where `PyDict_SetItem` would look the key up again.
//! The layout is CPython 3.11's private one (`Include/internal/pycore_dict.h`):
//! it is used only when the running interpreter is 3.11 and a self-test at
//! import ([`init`]) agrees with `PyDict_Next` and `PyDict_SetItem`;
//! otherwise, and for split tables (instance `__dict__`s), every step is
//! `PyDict_Next` (or `PyDict_SetItem`).

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Whether [`DictIter`] may read 3.11 dict tables directly.
static DIRECT: AtomicBool = AtomicBool::new(false);

/// `PyDictKeysObject` of CPython 3.11 (its entries follow `dk_indices`,
/// which is `1 << dk_log2_index_bytes` bytes long).
#[repr(C)]
struct Keys {
    dk_refcnt: ffi::Py_ssize_t,
    dk_log2_size: u8,
    dk_log2_index_bytes: u8,
    /// 0: general entries (hash, key, value); otherwise unicode entries
    /// (key, value).
    dk_kind: u8,
    dk_version: u32,
    dk_usable: ffi::Py_ssize_t,
    dk_nentries: ffi::Py_ssize_t,
}

/// `PyDictObject` of CPython 3.11.
#[repr(C)]
struct Dict {
    ob_base: ffi::PyObject,
    ma_used: ffi::Py_ssize_t,
    ma_version_tag: u64,
    ma_keys: *mut Keys,
    /// Non-null for a split table.
    ma_values: *mut std::ffi::c_void,
}

/// The number of items of the exact dict `o` (`len(o)`): its `ma_used`
/// field on CPython 3.11 once the self-test agreed, else `PyDict_Size`.
///
/// # Safety
/// `o` must be a live exact `dict`.
#[inline(always)]
pub(crate) unsafe fn dict_len(o: *mut ffi::PyObject) -> usize {
    if DIRECT.load(Ordering::Relaxed) {
        // SAFETY: `DIRECT` is set only on CPython 3.11 after the self-test
        // in `init` agreed on the layout of `Dict`; `o` is a live dict.
        return unsafe { (*o.cast::<Dict>()).ma_used } as usize;
    }
    // SAFETY: `o` is a live dict.
    unsafe { ffi::PyDict_Size(o) as usize }
}

/// Where a combined table's items are: the first entry's key field, the
/// entry size in pointers and the entry count (`dk_nentries`). A null
/// `entries` means "use `PyDict_Next`".
#[derive(Clone, Copy)]
struct Table {
    entries: *mut *mut ffi::PyObject,
    stride: usize,
    n: usize,
}

/// The table of no dict: every step goes through `PyDict_Next`.
const API: Table = Table {
    entries: std::ptr::null_mut(),
    stride: 0,
    n: 0,
};

/// The items of an exact dict, like `PyDict_Next` gives them (borrowed
/// references), reading a combined table directly when allowed.
///
/// The table's address and entry count are read once (and again by
/// [`DictIter::refresh`]), so that a step only moves a pointer: only
/// Python code can change the dict, and the caller refreshes after any.
pub(crate) struct DictIter {
    dict: *mut ffi::PyObject,
    /// Reading the table directly: the next entry's key field, the end of
    /// the entries (null when stepping through `PyDict_Next`), the entry
    /// size in pointers and the first entry (for `refresh`).
    cur: *mut *mut ffi::PyObject,
    end: *mut *mut ffi::PyObject,
    stride: usize,
    entries: *mut *mut ffi::PyObject,
    /// `PyDict_Next`'s position.
    pos: ffi::Py_ssize_t,
}

impl DictIter {
    /// Iterates `o`.
    ///
    /// # Safety
    /// `o` must be a live exact `dict` while the iterator is used.
    #[inline(always)]
    pub(crate) unsafe fn new(o: *mut ffi::PyObject) -> DictIter {
        let table = if DIRECT.load(Ordering::Relaxed) {
            // SAFETY: `DIRECT` is set only on CPython 3.11 after the
            // self-test in `init` agreed; `o` is a live dict.
            unsafe { table(o) }
        } else {
            API
        };
        DictIter::at(o, table, 0)
    }

    /// An iterator of `o` at entry `index` of `table`.
    #[inline(always)]
    fn at(o: *mut ffi::PyObject, t: Table, index: usize) -> DictIter {
        let (cur, end) = if t.entries.is_null() {
            (std::ptr::null_mut(), std::ptr::null_mut())
        } else {
            let index = index.min(t.n);
            (
                t.entries.wrapping_add(index * t.stride),
                t.entries.wrapping_add(t.n * t.stride),
            )
        };
        DictIter {
            dict: o,
            cur,
            end,
            stride: t.stride,
            entries: t.entries,
            pos: 0,
        }
    }

    /// The next item (key, value), borrowed from the dict: valid until
    /// Python code runs that may change it.
    ///
    /// # Safety
    /// The dict is live (see [`DictIter::new`]), and if Python code ran
    /// since the last step (it may have changed the dict),
    /// [`DictIter::refresh`] was called after it.
    #[inline(always)]
    pub(crate) unsafe fn next(&mut self) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        while self.cur < self.end {
            // SAFETY: `end` is non-null only on CPython 3.11 (see `new`),
            // and `cur..end` are entries of the dict's current table: no
            // Python code ran since it was read, or the caller called
            // `refresh` after (the safety contract of `next`). A removed
            // item has a null value and is skipped. The entry `AHEAD`
            // entries on is read only when it lies before `end`; its value
            // (maybe null) is only prefetched, never dereferenced.
            unsafe {
                let e = self.cur;
                self.cur = e.add(self.stride);
                let value = *e.add(1);
                // The value some entries ahead, if within the table.
                let ahead = self.stride * crate::prefetch::AHEAD;
                if (self.end as usize - e as usize) / std::mem::size_of::<usize>() > ahead {
                    crate::prefetch::prefetch(*e.add(ahead + 1));
                }
                if !value.is_null() {
                    return Some((*e, value));
                }
            }
        }
        if !self.end.is_null() {
            return None;
        }
        // SAFETY: the dict is live.
        unsafe { self.next_api() }
    }

    /// Re-reads the dict's table: call it after running Python code,
    /// which may have given the dict a new one or changed its entry
    /// count (as `PyDict_Next` re-reads them at each step). The position
    /// (entry index) is kept.
    ///
    /// # Safety
    /// The dict is live.
    #[inline]
    pub(crate) unsafe fn refresh(&mut self) {
        if !self.end.is_null() {
            let index = (self.cur as usize - self.entries as usize)
                / (self.stride * std::mem::size_of::<*mut ffi::PyObject>());
            // SAFETY: the dict is live, and `end` was set on CPython 3.11.
            let t = unsafe { table(self.dict) };
            *self = if t.entries.is_null() {
                // Not possible for a combined table; step through the API
                // from the same position (an entry index, as for ours).
                let mut it = DictIter::at(self.dict, API, 0);
                it.pos = index as ffi::Py_ssize_t;
                it
            } else {
                DictIter::at(self.dict, t, index)
            };
        }
    }

    /// [`DictIter::next`] through `PyDict_Next`.
    ///
    /// # Safety
    /// The dict is live.
    #[inline]
    unsafe fn next_api(&mut self) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        let (mut k, mut v) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: the dict is live (caller's contract).
        (unsafe { ffi::PyDict_Next(self.dict, &mut self.pos, &mut k, &mut v) } != 0)
            .then_some((k, v))
    }
}

/// The dict's current table ([`API`] for a split table).
///
/// # Safety
/// CPython 3.11, and `dict` is a live dict.
#[inline]
unsafe fn table(dict: *mut ffi::PyObject) -> Table {
    // SAFETY: the dict is a live 3.11 dict (caller's contract), so it has
    // the layout of `Dict`, and its keys object that of `Keys` followed by
    // `1 << dk_log2_index_bytes` bytes of indices, then the entries: (key,
    // value) pointers for a unicode table, (hash, key, value) for a
    // general one.
    unsafe {
        let d = dict.cast::<Dict>();
        if !(*d).ma_values.is_null() {
            return API;
        }
        let keys = (*d).ma_keys;
        let (stride, at) = if (*keys).dk_kind != 0 { (2, 0) } else { (3, 1) };
        let entries = keys
            .cast::<u8>()
            .add(std::mem::size_of::<Keys>() + (1usize << (*keys).dk_log2_index_bytes))
            .cast::<*mut ffi::PyObject>()
            .add(at);
        Table {
            entries,
            stride,
            n: (*keys).dk_nentries.max(0) as usize,
        }
    }
}

/// The key of entry `ix` of `keys`, a keys object that instances of a
/// class share (a unicode table: (key, value) entries; the values live in
/// each instance), or `None` if it has no such entry or dicts are not
/// read directly.
///
/// # Safety
/// `keys` is a live keys object of CPython 3.11 (a class's cached keys).
#[inline(always)]
pub(crate) unsafe fn shared_key_at(
    keys: *mut std::ffi::c_void,
    ix: usize,
) -> Option<*mut ffi::PyObject> {
    if !DIRECT.load(Ordering::Relaxed) || keys.is_null() {
        return None;
    }
    // SAFETY: `DIRECT` is set only on CPython 3.11 after the self-test in
    // `init` agreed on the layout of `Keys`; `keys` is a live keys object
    // (caller's contract), whose entries follow its indices; entry `ix` is
    // read only below `dk_nentries`.
    unsafe {
        let keys = keys.cast::<Keys>();
        if (*keys).dk_kind == 0 || ix >= (*keys).dk_nentries.max(0) as usize {
            return None;
        }
        let entries = keys
            .cast::<u8>()
            .add(std::mem::size_of::<Keys>() + (1usize << (*keys).dk_log2_index_bytes))
            .cast::<*mut ffi::PyObject>();
        Some(*entries.add(2 * ix))
    }
}

/// Whether new dicts are filled in place ([`fill_entry`]).
#[inline]
pub(crate) fn fills_in_place() -> bool {
    DIRECT.load(Ordering::Relaxed)
}

/// The entries of `dict`, a new dict copied from a template of `n` str
/// keys, for [`fill_entry`]: the first entry's key field, if dicts are
/// accessed directly and its table is a combined one of exactly `n`
/// entries of (key, value) pairs.
///
/// # Safety
/// `dict` is a live exact dict.
#[inline]
pub(crate) unsafe fn unicode_entries(
    dict: *mut ffi::PyObject,
    n: usize,
) -> Option<*mut *mut ffi::PyObject> {
    if !DIRECT.load(Ordering::Relaxed) {
        return None;
    }
    // SAFETY: `DIRECT` is set only on CPython 3.11 after the self-test in
    // `init` agreed; `dict` is a live dict (caller's contract).
    let t = unsafe { table(dict) };
    (!t.entries.is_null() && t.stride == 2 && t.n == n).then_some(t.entries)
}

/// Sets entry `i` of `entries` (from [`unicode_entries`] of `dict`) to
/// `value`, if that entry's key is `key`: as `PyDict_SetItem(dict, key,
/// value)` would, without looking the key up (the dict is tracked by the
/// garbage collector once a value may need it, as `PyDict_SetItem` does).
/// Gives `value` back if the entry holds another key (then the caller
/// sets it through the API).
///
/// # Safety
/// `dict` is live, has not changed since `entries` was taken, and `i` is
/// below the `n` given to [`unicode_entries`]; no other code may be
/// using the dict (it was just made).
#[inline(always)]
pub(crate) unsafe fn fill_entry<'py>(
    dict: *mut ffi::PyObject,
    entries: *mut *mut ffi::PyObject,
    i: usize,
    key: *mut ffi::PyObject,
    value: Bound<'py, PyAny>,
) -> Result<(), Bound<'py, PyAny>> {
    // SAFETY: entry `i` is within the table (caller's contract): its key
    // field at `2 i`, its value field (an owned reference or null) after.
    unsafe {
        let kf = entries.add(2 * i);
        if *kf != key {
            return Err(value);
        }
        let t = ffi::Py_TYPE(value.as_ptr());
        let atomic = t == tp!(PyUnicode_Type)
            || t == tp!(PyLong_Type)
            || t == tp!(PyFloat_Type)
            || t == tp!(PyBool_Type)
            || value.is_none();
        if !atomic
            && ffi::PyObject_IS_GC(value.as_ptr()) != 0
            && ffi::PyObject_GC_IsTracked(dict) == 0
        {
            ffi::PyObject_GC_Track(dict.cast());
        }
        let old = std::mem::replace(&mut *kf.add(1), value.into_ptr());
        ffi::Py_XDECREF(old);
    }
    Ok(())
}

/// Items of `d` as [`DictIter`] reads them directly (`None` for a split
/// table).
///
/// # Safety
/// The interpreter must be CPython 3.11.
unsafe fn items_direct(d: &Bound<'_, PyDict>) -> Option<Vec<(usize, usize)>> {
    // SAFETY: `d` is a live exact dict of CPython 3.11 (caller's contract);
    // no Python code runs in the loop.
    let table = unsafe { table(d.as_ptr()) };
    if table.entries.is_null() {
        return None;
    }
    let mut it = DictIter::at(d.as_ptr(), table, 0);
    let mut out = Vec::new();
    // SAFETY: as above.
    while let Some((k, v)) = unsafe { it.next() } {
        out.push((k as usize, v as usize));
    }
    Some(out)
}

/// Items of `d` as `PyDict_Next` gives them.
fn items_api(d: &Bound<'_, PyDict>) -> Vec<(usize, usize)> {
    let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
    let mut out = Vec::new();
    // SAFETY: `d` is a live dict; no Python code runs in the loop.
    while unsafe { ffi::PyDict_Next(d.as_ptr(), &mut pos, &mut k, &mut v) } != 0 {
        out.push((k as usize, v as usize));
    }
    out
}

/// Enables direct reading on CPython 3.11 if it reads a few dicts (str and
/// other keys, with a removed item) exactly as `PyDict_Next` does.
pub(crate) fn init(py: Python<'_>) -> PyResult<()> {
    let implementation: String = py
        .import("sys")?
        .getattr("implementation")?
        .getattr("name")?
        .extract()?;
    if implementation != "cpython" || !(py.version_info() >= (3, 11) && py.version_info() < (3, 12))
    {
        return Ok(());
    }
    let str_keys = PyDict::new(py);
    let other_keys = PyDict::new(py);
    for i in 0..20 {
        str_keys.set_item(format!("k{i}"), i)?;
        other_keys.set_item(i, format!("v{i}"))?;
    }
    str_keys.del_item("k3")?;
    other_keys.del_item(7)?;
    let agree = [&str_keys, &other_keys].iter().all(|d| {
        let expected = items_api(d);
        // SAFETY: the interpreter is CPython 3.11 (checked above).
        let got = unsafe { items_direct(d) };
        expected.len() == 19 && got.as_ref() == Some(&expected)
    });
    DIRECT.store(agree, Ordering::Relaxed);
    if agree && !fills_like_set_item(py)? {
        DIRECT.store(false, Ordering::Relaxed);
    }
    Ok(())
}

/// Whether a dict copied from a template and filled with [`fill_entry`]
/// equals one filled with `PyDict_SetItem`: same items in the same order,
/// each key found, and tracked by the garbage collector (it holds a list).
fn fills_like_set_item(py: Python<'_>) -> PyResult<bool> {
    let template = PyDict::new(py);
    let keys: Vec<Bound<'_, PyAny>> = (0..9)
        .map(|i| pyo3::types::PyString::intern(py, &format!("key{i}")).into_any())
        .collect();
    for k in &keys {
        template.set_item(k, py.None())?;
    }
    let values: Vec<Bound<'_, PyAny>> = (0..9i64)
        .map(|i| {
            if i == 4 {
                Ok(pyo3::types::PyList::new(py, [i])?.into_any())
            } else {
                Ok(i.into_pyobject(py)?.into_any())
            }
        })
        .collect::<PyResult<_>>()?;
    let expected = template.copy()?;
    for (k, v) in keys.iter().zip(&values) {
        expected.set_item(k, v)?;
    }
    let filled = template.copy()?;
    // SAFETY: `filled` is a live dict copied just now, not changed while
    // its entries are written (only this loop touches it).
    let all_filled = unsafe {
        match unicode_entries(filled.as_ptr(), keys.len()) {
            None => false,
            Some(e) => keys.iter().zip(&values).enumerate().all(|(i, (k, v))| {
                fill_entry(filled.as_ptr(), e, i, k.as_ptr(), v.clone()).is_ok()
            }),
        }
    };
    Ok(all_filled
        && items_api(&filled) == items_api(&expected)
        && filled.eq(&expected)?
        && keys.iter().zip(&values).all(|(k, v)| {
            filled
                .get_item(k)
                .ok()
                .flatten()
                .is_some_and(|got| got.is(v))
        })
        // SAFETY: `filled` is a live object.
        && unsafe { ffi::PyObject_GC_IsTracked(filled.as_ptr()) } == 1)
}

/// Whether dicts are read directly (for the tests: `_roving._dict_direct()`).
#[pyfunction]
pub(crate) fn _dict_direct() -> bool {
    DIRECT.load(Ordering::Relaxed)
}
