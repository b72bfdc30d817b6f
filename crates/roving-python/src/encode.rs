//! Python objects -> roving (`dumps`).
//!
//! A recursive walk with an explicit depth limit over a thread-local
//! [`Encoder`] (reused between calls). Containers that may appear more than
//! once (reference count above what one parent explains) are remembered by
//! identity: a second occurrence is written as a shared reference, and an
//! object met again while it is still open is a cycle (an error with the path).

use std::cell::RefCell;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDate, PyDateTime, PyDelta, PyDict, PyString, PyTime, PyType};

use roving::{ElemType, Encoder, KeyId, Mark, Timestamp};

use crate::decode::IdMap;
use crate::errors::encode_error;
use crate::pytypes::{self, EXT_DATE, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA, EXT_UUID};
use crate::times;

/// Maximum nesting depth when encoding.
pub(crate) const MAX_DEPTH: usize = 10_000;

thread_local! {
    /// The encoder and tables of the last call, kept for the next one.
    static ENCODER: RefCell<Option<(Encoder, Tables)>> = const { RefCell::new(None) };
    /// Cleared after encoding a huge document, so its encoder is dropped.
    static ENCODER_KEEP: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Documents above this size do not keep their encoder for the next call.
const KEEP_ENCODER_MAX: usize = 32 << 20;

#[inline]
fn note_size(len: usize) {
    if len > KEEP_ENCODER_MAX {
        ENCODER_KEEP.with(|k| k.set(false));
    }
}

/// One step of the path to a value.
enum Seg {
    Index(usize),
    Key(Py<PyAny>),
    Attr(Py<PyAny>),
}

enum FailKind {
    /// A Python exception (from a hook or CPython), propagated with a note.
    Py(PyErr),
    /// An encoding error with this message.
    Msg(String),
}

/// A failure and the path to where it happened (innermost segment first).
struct Fail {
    kind: FailKind,
    path: Vec<Seg>,
}

type R = Result<(), Box<Fail>>;

#[cold]
fn msg(m: String) -> Box<Fail> {
    Box::new(Fail {
        kind: FailKind::Msg(m),
        path: Vec::new(),
    })
}

impl From<PyErr> for Box<Fail> {
    #[cold]
    fn from(e: PyErr) -> Box<Fail> {
        Box::new(Fail {
            kind: FailKind::Py(e),
            path: Vec::new(),
        })
    }
}

impl From<roving::Error> for Box<Fail> {
    #[cold]
    fn from(e: roving::Error) -> Box<Fail> {
        msg(e.to_string())
    }
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch == '_' || ch.is_alphabetic())
        && c.all(|ch| ch == '_' || ch.is_alphanumeric())
}

/// Formats a path like `$[3].name["odd key"][<key 1>]` (the last a key that
/// is not a str), eliding the middle of very long ones.
fn format_path(py: Python<'_>, path: &[Seg]) -> String {
    let mut out = String::from("$");
    let n = path.len();
    let mut i = n;
    while i > 0 {
        i -= 1;
        if n > 40 && i == n - 21 {
            out.push_str(&format!("...({} more)...", n - 40));
            i = 20;
        }
        match &path[i] {
            Seg::Index(k) => out.push_str(&format!("[{k}]")),
            Seg::Key(k) | Seg::Attr(k) => {
                let k = k.bind(py);
                match k
                    .cast::<PyString>()
                    .ok()
                    .and_then(|s| s.to_str().ok().map(str::to_owned))
                {
                    Some(s) if is_identifier(&s) => {
                        out.push('.');
                        out.push_str(&s);
                    }
                    Some(s) => out.push_str(&format!("[{}]", json_quote(&s))),
                    // A key that is not a str (or has no UTF-8 form): its
                    // repr, marked as a key (`[1]` would read as an index).
                    None => out.push_str(&format!(
                        "[<key {}>]",
                        k.repr().map(|r| r.to_string()).unwrap_or_default()
                    )),
                }
            }
        }
    }
    out
}

fn json_quote(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

#[allow(clippy::boxed_local)]
fn into_pyerr(py: Python<'_>, f: Box<Fail>) -> PyErr {
    let path = format_path(py, &f.path);
    match f.kind {
        FailKind::Msg(m) => encode_error(py, format!("{m} at {path}")),
        FailKind::Py(e) => {
            let _ = e.add_note(py, format!("while encoding the value at {path}"));
            e
        }
    }
}

/// Memo entry: the object is being written (cycle if met again) or done.
#[derive(Clone, Copy)]
enum Memo {
    Open,
    Done(Mark),
}

/// The tables of one call, kept between calls (cleared) so that they do
/// not grow again from nothing every time.
#[derive(Default)]
struct Tables {
    memo: IdMap<usize, Memo>,
    /// Strong references to memoized objects and cached keys, so that
    /// their addresses stay unique during the call.
    keep: Vec<Py<PyAny>>,
    /// Keys written so far, by the address of their (exact) `str` object:
    /// the same key object recurs across dicts (`json.loads` memoizes
    /// keys, literals are shared), and a hit needs no UTF-8 or hashing.
    /// Each object is held in `keep`, so its address stays its own.
    keys: IdMap<usize, KeyId>,
    /// By depth, the cached keys (address, id) of the last dict written
    /// there: the dicts of one level (records) usually have the same keys
    /// in the same order, so a key is mostly found by one comparison.
    seqs: Vec<Vec<(usize, KeyId)>>,
}

/// Tables larger than this (entries) are dropped rather than kept.
const KEEP_TABLE_MAX: usize = 1 << 14;

impl Tables {
    /// Forgets the call's entries (releasing its references), keeping the
    /// memory unless a table grew large.
    fn clear(&mut self) {
        // Addresses and key ids are only meaningful during one call.
        self.keep.clear();
        if self.memo.capacity() > KEEP_TABLE_MAX {
            self.memo = IdMap::default();
        } else {
            self.memo.clear();
        }
        if self.keys.capacity() > KEEP_TABLE_MAX {
            self.keys = IdMap::default();
        } else {
            self.keys.clear();
        }
        if self.keep.capacity() > KEEP_TABLE_MAX {
            self.keep = Vec::new();
        }
        for s in &mut self.seqs {
            s.clear();
            if s.capacity() > KEEP_TABLE_MAX {
                *s = Vec::new();
            }
        }
    }
}

struct State<'py, 'd> {
    py: Python<'py>,
    enc: Encoder,
    default: Option<&'d Bound<'py, PyAny>>,
    /// Set while the result of `default` is being encoded, until `slow`
    /// takes it: the type `default` was called for and how many calls in a
    /// row led here (see [`State::call_default`]).
    from_default: Option<(*mut ffi::PyTypeObject, u32)>,
    tables: Tables,
    depth: usize,
    stack_limit: usize,
    /// `dumps(..., non_str_keys=True)`: dict keys of some other types are
    /// written as their text ([`State::key_text`]).
    non_str_keys: bool,
}

/// Whether the exact dict `o` has a key that is not an exact `str`.
///
/// # Safety
/// `o` must be a live exact dict.
unsafe fn has_non_str_key(o: *mut ffi::PyObject) -> bool {
    // SAFETY: `o` is a live exact dict; no Python code runs meanwhile.
    unsafe {
        let mut items = crate::dictiter::DictIter::new(o);
        while let Some((k, _)) = items.next() {
            if ffi::Py_TYPE(k) != tp!(PyUnicode_Type) {
                return true;
            }
        }
    }
    false
}

/// Encodes a Python object into a roving document (used by the store,
/// through `crate::encode_py`).
///
/// `default` is called for objects of unsupported types; its result is
/// encoded instead; `non_str_keys` as for `dumps`.
#[allow(dead_code)]
pub(crate) fn encode_py(
    obj: &Bound<'_, PyAny>,
    default: Option<&Bound<'_, PyAny>>,
    non_str_keys: bool,
) -> PyResult<Vec<u8>> {
    with_encoder(obj.py(), |st| {
        st.default = default;
        st.non_str_keys = non_str_keys;
        // SAFETY: `obj` is a live object the caller holds for the whole call.
        unsafe { st.value(obj.as_ptr(), 0) }?;
        note_size(st.enc.len());
        st.enc.finish_reset().map_err(Box::<Fail>::from)
    })
}

/// Encodes into a new Python `bytes` object (one copy, from the encoder's buffer).
pub(crate) fn dumps_py<'py>(
    obj: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    non_str_keys: bool,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let py = obj.py();
    with_encoder(py, |st| {
        st.default = default;
        st.non_str_keys = non_str_keys;
        // SAFETY: `obj` is a live object the caller holds for the whole call.
        unsafe { st.value(obj.as_ptr(), 0) }?;
        note_size(st.enc.len());
        // One copy into the bytes object; the encoder keeps its buffer.
        st.enc
            .finish_with(|out| pyo3::types::PyBytes::new(py, out))
            .map_err(Box::<Fail>::from)
    })
}

fn with_encoder<'py, T>(
    py: Python<'py>,
    f: impl for<'d> FnOnce(&mut State<'py, 'd>) -> Result<T, Box<Fail>>,
) -> PyResult<T> {
    // Taking the encoder out (rather than borrowing it) keeps a nested call
    // (from a `default` hook) safe: it simply gets a new encoder. (State is
    // built from the kept parts and taken apart into them field by field:
    // each move of these ~500 bytes is a copy.)
    let spare = ENCODER.with(|c| c.borrow_mut().take());
    let mut st = match spare {
        Some((enc, tables)) => State::new(py, enc, tables),
        None => State::new(py, Encoder::with_capacity(1 << 12), Tables::default()),
    };
    st.enc.set_max_depth(MAX_DEPTH + 1);
    int_layout_init(py);
    let r = f(&mut st);
    st.tables.clear();
    if r.is_err() {
        st.enc.reset();
    }
    // Keep the encoder and tables (their capacity) for the next call,
    // unless this document was huge: a thread should not hold on to that
    // memory.
    if ENCODER_KEEP.with(|k| k.get()) {
        ENCODER.with(|c| *c.borrow_mut() = Some((st.enc, st.tables)));
    }
    ENCODER_KEEP.with(|k| k.set(true));
    r.map_err(|e| into_pyerr(py, e))
}

/// `base.__str__(ob)` (`ob` an instance of `base`): `str(ob)` for `base`
/// itself, the base's text for a subclass that has its own `__str__`.
fn base_str(ob: &Bound<'_, PyAny>, base: &Bound<'_, PyType>) -> PyResult<String> {
    let py = ob.py();
    let s = if ob.get_type().is(base) {
        ob.str()?
    } else {
        base.getattr(pyo3::intern!(py, "__str__"))?
            .call1((ob,))?
            .cast_into::<PyString>()?
    };
    Ok(s.to_str()?.to_owned())
}

#[inline]
fn type_name(o: *mut ffi::PyObject) -> String {
    // SAFETY: `o` is a live object; tp_name is a NUL-terminated C string.
    unsafe {
        let t = ffi::Py_TYPE(o);
        std::ffi::CStr::from_ptr((*t).tp_name)
            .to_string_lossy()
            .into_owned()
    }
}

/// Most calls of `default` in a row, each on what the last returned
/// (orjson's limit).
const DEFAULT_CHAIN_MAX: u32 = 254;

/// Most distinct key objects remembered per document.
const KEY_CACHE_MAX: usize = 1 << 12;
/// Depths that remember the key sequence of their last dict.
const SEQ_DEPTHS: usize = 32;

impl<'py> State<'py, '_> {
    /// The state of one call, on an encoder and tables (kept or new).
    #[inline(always)]
    fn new(py: Python<'py>, enc: Encoder, tables: Tables) -> Self {
        State {
            py,
            enc,
            default: None,
            from_default: None,
            tables,
            depth: 0,
            stack_limit: crate::stack::limit(),
            non_str_keys: false,
        }
    }

    #[inline(always)]
    fn enter(&mut self) -> R {
        if self.depth >= MAX_DEPTH || crate::stack::sp() < self.stack_limit {
            return Err(self.depth_error());
        }
        self.depth += 1;
        Ok(())
    }

    /// The error of [`State::enter`].
    #[cold]
    #[inline(never)]
    fn depth_error(&self) -> Box<Fail> {
        if self.depth >= MAX_DEPTH {
            return msg(format!(
                "nesting depth limit exceeded: more than {MAX_DEPTH} levels"
            ));
        }
        msg(format!(
            "nesting depth limit exceeded: this thread's stack is exhausted after {} levels",
            self.depth
        ))
    }

    /// Encodes `o`. `thr` is the reference count that one parent (plus our
    /// own temporary references) explains: above it, `o` may occur again.
    ///
    /// # Safety
    /// `o` must be a live object for the duration of the call.
    #[inline]
    unsafe fn value(&mut self, o: *mut ffi::PyObject, thr: isize) -> R {
        // SAFETY: `o` is live (caller's contract); type checks read its header.
        unsafe {
            let t = ffi::Py_TYPE(o);
            if t == tp!(PyUnicode_Type) {
                self.str(o)
            } else if t == tp!(PyLong_Type) {
                self.int(o)
            } else if t == tp!(PyDict_Type) {
                self.tracked(o, thr, Self::dict)
            } else if t == tp!(PyList_Type) {
                self.tracked(o, thr, Self::list)
            } else if t == tp!(PyFloat_Type) {
                Ok(self.enc.f64(ffi::PyFloat_AS_DOUBLE(o))?)
            } else if t == tp!(PyBool_Type) {
                Ok(self.enc.bool(o == ffi::Py_True())?)
            } else if o == ffi::Py_None() {
                Ok(self.enc.null()?)
            } else if t == tp!(PyTuple_Type) {
                self.tracked(o, thr, Self::tuple)
            } else if t == tp!(PyBytes_Type) {
                let b = Bound::from_borrowed_ptr(self.py, o)
                    .cast_into_unchecked::<pyo3::types::PyBytes>();
                Ok(self.enc.bytes(b.as_bytes())?)
            } else {
                self.slow(o, thr)
            }
        }
    }

    /// Runs `f` for a container, with memo/cycle handling if it may be shared.
    #[inline(always)]
    unsafe fn tracked(
        &mut self,
        o: *mut ffi::PyObject,
        thr: isize,
        f: unsafe fn(&mut Self, *mut ffi::PyObject) -> Result<Mark, Box<Fail>>,
    ) -> R {
        // SAFETY: `o` is live (caller's contract).
        let shared = unsafe { ffi::Py_REFCNT(o) } > thr;
        if !shared {
            self.enter()?;
            // SAFETY: as above.
            unsafe { f(self, o) }?;
            self.depth -= 1;
            return Ok(());
        }
        // SAFETY: as above.
        unsafe { self.tracked_shared(o, f) }
    }

    /// [`State::tracked`] for a container that may occur more than once.
    ///
    /// # Safety
    /// `o` must be a live object for the duration of the call.
    #[inline(never)]
    unsafe fn tracked_shared(
        &mut self,
        o: *mut ffi::PyObject,
        f: unsafe fn(&mut Self, *mut ffi::PyObject) -> Result<Mark, Box<Fail>>,
    ) -> R {
        let key = o as usize;
        match self.tables.memo.get(&key) {
            Some(Memo::Done(m)) => return Ok(self.enc.reuse(*m)?),
            Some(Memo::Open) => {
                return Err(msg(format!("cycle: a {} contains itself", type_name(o))))
            }
            None => {}
        }
        self.tables.memo.insert(key, Memo::Open);
        // SAFETY: `o` is live; we take a strong reference to keep its address unique.
        self.tables
            .keep
            .push(unsafe { Bound::from_borrowed_ptr(self.py, o) }.unbind());
        self.enter()?;
        // SAFETY: as above.
        let mark = unsafe { f(self, o) }?;
        self.depth -= 1;
        self.tables.memo.insert(key, Memo::Done(mark));
        Ok(())
    }

    #[inline(always)]
    unsafe fn str(&mut self, o: *mut ffi::PyObject) -> R {
        // SAFETY: `o` is a live str (or subclass).
        let s = unsafe { str_bytes(o) }.ok_or_else(|| self.str_error())?;
        // SAFETY: str_bytes returns UTF-8 (CPython's own encoding of the str).
        Ok(self.enc.str(unsafe { std::str::from_utf8_unchecked(s) })?)
    }

    #[cold]
    fn str_error(&self) -> Box<Fail> {
        let e = PyErr::take(self.py);
        let detail = e.map(|e| e.to_string()).unwrap_or_default();
        msg(format!("cannot encode str: {detail}"))
    }

    #[inline]
    unsafe fn int(&mut self, o: *mut ffi::PyObject) -> R {
        // SAFETY: `o` is a live int (caller's contract).
        if let Some(v) = unsafe { small_int(o) } {
            return Ok(self.enc.i64(v)?);
        }
        // SAFETY: as above.
        unsafe { self.int_api(o) }
    }

    /// [`State::int`] through CPython's API (big integers, subclasses, or
    /// when the int layout is not known).
    ///
    /// # Safety
    /// `o` must be a live int (or subclass).
    #[inline(never)]
    unsafe fn int_api(&mut self, o: *mut ffi::PyObject) -> R {
        let mut overflow = 0;
        // SAFETY: `o` is a live int (or subclass).
        let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(o, &mut overflow) };
        if overflow == 0 {
            if v == -1 {
                if let Some(e) = PyErr::take(self.py) {
                    return Err(e.into());
                }
            }
            return Ok(self.enc.i64(v)?);
        }
        // SAFETY: as above.
        let b = unsafe { Bound::from_borrowed_ptr(self.py, o) };
        let n: num_bigint::BigInt = b.extract()?;
        Ok(self.enc.bigint(&n)?)
    }

    unsafe fn dict(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        // SAFETY: `o` is a live exact dict (caller's contract).
        if self.non_str_keys && unsafe { has_non_str_key(o) } {
            // SAFETY: as above.
            return unsafe { self.dict_items(o) };
        }
        self.enc.begin_map()?;
        // The keys expected at each position (from the last dict at this
        // depth), and whether this dict's keys are still being recorded.
        let mut seq = self
            .tables
            .seqs
            .get_mut(self.depth)
            .map(std::mem::take)
            .unwrap_or_default();
        let mut learn = true;
        let mut i = 0usize;
        // SAFETY: `o` is a live exact dict; dict_next gives borrowed references.
        // Scalars are written without running Python code (nothing can
        // mutate the dict meanwhile); any other value is held strongly,
        // with its key, while it is encoded. The addresses in `seq` are
        // of key objects the key cache holds, so equal addresses are the
        // same key.
        unsafe {
            let mut items = crate::dictiter::DictIter::new(o);
            while let Some((k, v)) = items.next() {
                if ffi::Py_TYPE(k) == tp!(PyUnicode_Type) {
                    match seq.get(i) {
                        Some(&(a, id)) if a == k as usize => self.enc.key_id(id)?,
                        _ => {
                            let id = match self.tables.keys.get(&(k as usize)) {
                                Some(&id) => {
                                    self.enc.key_id(id)?;
                                    Some(id)
                                }
                                None => self.new_key(k)?,
                            };
                            seq.truncate(i);
                            match id {
                                Some(id) if learn => seq.push((k as usize, id)),
                                _ => learn = false,
                            }
                        }
                    }
                } else {
                    seq.truncate(i);
                    learn = false;
                    let kb = if ffi::PyUnicode_Check(k) != 0 {
                        str_bytes(k)
                    } else {
                        None
                    };
                    let kb = match kb {
                        Some(b) => b,
                        None => return Err(self.key_error(k)),
                    };
                    self.enc.key(std::str::from_utf8_unchecked(kb))?;
                }
                i += 1;
                let t = ffi::Py_TYPE(v);
                let r = if t == tp!(PyUnicode_Type) {
                    self.str(v)
                } else if t == tp!(PyLong_Type) {
                    self.int(v)
                } else if t == tp!(PyFloat_Type) {
                    self.enc.f64(ffi::PyFloat_AS_DOUBLE(v)).map_err(Into::into)
                } else if t == tp!(PyBool_Type) {
                    self.enc.bool(v == ffi::Py_True()).map_err(Into::into)
                } else if v == ffi::Py_None() {
                    self.enc.null().map_err(Into::into)
                } else {
                    let key = Bound::from_borrowed_ptr(self.py, k);
                    let val = Bound::from_borrowed_ptr(self.py, v);
                    // Nested records and lists straight to their writer.
                    let r = if t == tp!(PyDict_Type) {
                        self.tracked(val.as_ptr(), 2, Self::dict)
                    } else if t == tp!(PyList_Type) {
                        self.tracked(val.as_ptr(), 2, Self::list)
                    } else {
                        self.value(val.as_ptr(), 2)
                    };
                    // Python code (a `default` hook) may have changed the dict.
                    items.refresh();
                    if let Err(mut f) = r {
                        f.path.push(Seg::Key(key.unbind()));
                        return Err(f);
                    }
                    Ok(())
                };
                if let Err(mut f) = r {
                    // No Python code ran: the borrowed key is still alive.
                    f.path
                        .push(Seg::Key(Bound::from_borrowed_ptr(self.py, k).unbind()));
                    return Err(f);
                }
            }
        }
        let d = self.depth;
        if d < SEQ_DEPTHS {
            if self.tables.seqs.len() <= d {
                self.tables.seqs.resize_with(d + 1, Vec::new);
            }
            self.tables.seqs[d] = seq;
        }
        Ok(self.enc.end_map()?)
    }

    /// Writes a key (an exact `str`) not in the key cache, and remembers it
    /// if it may recur (another reference than its dict's exists): then
    /// returns its id.
    ///
    /// # Safety
    /// `k` must be a live `str`.
    #[inline(never)]
    unsafe fn new_key(&mut self, k: *mut ffi::PyObject) -> Result<Option<KeyId>, Box<Fail>> {
        // SAFETY: `k` is a live str (caller's contract).
        let kb = match unsafe { str_bytes(k) } {
            Some(b) => b,
            // SAFETY: as above.
            None => return Err(unsafe { self.key_error(k) }),
        };
        // SAFETY: str_bytes returns CPython's UTF-8 form of the str.
        let id = self
            .enc
            .key_with_id(unsafe { std::str::from_utf8_unchecked(kb) })?;
        // SAFETY: as above.
        if unsafe { ffi::Py_REFCNT(k) } > 1 && self.tables.keys.len() < KEY_CACHE_MAX {
            self.tables.keys.insert(k as usize, id);
            // SAFETY: `k` is live; the strong reference keeps its address
            // from being reused by another object during this call.
            self.tables
                .keep
                .push(unsafe { Bound::from_borrowed_ptr(self.py, k) }.unbind());
            return Ok(Some(id));
        }
        Ok(None)
    }

    /// The error for a key that is not a str (or has no UTF-8 form).
    ///
    /// # Safety
    /// `k` must be a live object.
    #[cold]
    unsafe fn key_error(&self, k: *mut ffi::PyObject) -> Box<Fail> {
        // SAFETY: `k` is live (caller's contract).
        let key = unsafe { Bound::from_borrowed_ptr(self.py, k) };
        let mut f = if key.is_instance_of::<PyString>() {
            self.str_error()
        } else {
            self.key_type_error(&key)
        };
        f.path.push(Seg::Key(key.unbind()));
        f
    }

    /// The error for a key of a type that is not written (without its path).
    #[cold]
    fn key_type_error(&self, k: &Bound<'py, PyAny>) -> Box<Fail> {
        let r = k.repr().map(|r| r.to_string()).unwrap_or_default();
        let got = format!("{} {r}", type_name(k.as_ptr()));
        msg(if self.non_str_keys {
            format!("dict keys must be str, int, enum, UUID, Decimal or date, got {got}")
        } else {
            format!("dict keys must be str, got {got}")
        })
    }

    /// The text a key that is not a `str` is written as, with
    /// `non_str_keys=True`: what typed `loads` reads such keys back from
    /// (`dict[int, T]`, `dict[UUID, T]`...): an int's decimal text (an
    /// `IntEnum`'s too), an enum member's value's text, a `UUID`'s and a
    /// `Decimal`'s `str()`, a date's `isoformat()`. Bools, floats, `None`,
    /// datetimes and other types are refused.
    fn key_text(&self, k: &Bound<'py, PyAny>) -> Result<String, Box<Fail>> {
        let py = self.py;
        let ty = pytypes::types(py)?;
        let k = if k.is_instance(ty.enum_.bind(py))? {
            &k.getattr(pyo3::intern!(py, "value"))?
        } else {
            k
        };
        if k.is_instance_of::<PyString>() {
            return k.extract::<String>().map_err(|_| self.str_error());
        }
        if k.is_instance_of::<pyo3::types::PyInt>() && !k.is_instance_of::<pyo3::types::PyBool>() {
            let n: num_bigint::BigInt = k.extract()?;
            // Typed `loads` reads int keys of at most 4300 digits (Python's
            // int text limit): a longer one would be written, not read back.
            use roving::read::{MAX_DECIMAL_BITS, MAX_DECIMAL_DIGITS};
            let text = (n.bits() <= MAX_DECIMAL_BITS as u64).then(|| n.to_string());
            return match text {
                Some(t) if t.trim_start_matches('-').len() <= MAX_DECIMAL_DIGITS => Ok(t),
                _ => Err(msg(format!(
                    "an int key of more than {MAX_DECIMAL_DIGITS} digits has no text that \
                     typed loads reads back (non_str_keys=True)"
                ))),
            };
        }
        // The base class's text, not a subclass's own `__str__` or
        // `isoformat` (which typed `loads` could not read back).
        for base in [ty.uuid.bind(py), ty.decimal.bind(py)] {
            if k.is_instance(base)? {
                return Ok(base_str(k, base)?);
            }
        }
        if k.is_instance_of::<PyDate>() && !k.is_instance_of::<PyDateTime>() {
            let date = py.get_type::<PyDate>();
            let iso = date.getattr(pyo3::intern!(py, "isoformat"))?.call1((k,))?;
            return Ok(iso.extract()?);
        }
        Err(self.key_type_error(k))
    }

    /// A dict subclass, through its `items()`.
    unsafe fn dict_items(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        // SAFETY: `o` is live (caller's contract).
        let ob = unsafe { Bound::from_borrowed_ptr(self.py, o) };
        let items = ob.call_method0(pyo3::intern!(self.py, "items"))?;
        self.enc.begin_map()?;
        // With non_str_keys, the text of each key: two keys written as one
        // text (`1` and `"1"`) would be merged, losing a value.
        let mut seen = hashbrown::HashSet::new();
        for kv in items.try_iter()? {
            let kv = kv?;
            let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = kv.extract()?;
            let kb = if k.is_instance_of::<PyString>() {
                // SAFETY: `k` is a str, alive through the Bound.
                unsafe { str_bytes(k.as_ptr()) }
            } else {
                None
            };
            let text;
            let key = match kb {
                // SAFETY: str_bytes returns CPython's UTF-8 form of the str.
                Some(b) => unsafe { std::str::from_utf8_unchecked(b) },
                None => {
                    let r = if k.is_instance_of::<PyString>() {
                        Err(self.str_error())
                    } else if self.non_str_keys {
                        self.key_text(&k)
                    } else {
                        Err(self.key_type_error(&k))
                    };
                    match r {
                        Ok(t) => {
                            text = t;
                            &text
                        }
                        Err(mut f) => {
                            f.path.push(Seg::Key(k.unbind()));
                            return Err(f);
                        }
                    }
                }
            };
            if self.non_str_keys && !seen.insert(key.to_owned()) {
                let mut f = msg(format!(
                    "two keys of this dict are written as {key:?} (non_str_keys=True)"
                ));
                f.path.push(Seg::Key(k.unbind()));
                return Err(f);
            }
            self.enc.key(key)?;
            // `v` is held by the dict and by the (k, v) tuple... and by us.
            if let Err(mut f) = self.owned(v, 3) {
                f.path.push(Seg::Key(k.unbind()));
                return Err(f);
            }
        }
        Ok(self.enc.end_map()?)
    }

    unsafe fn list(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        self.enc.begin_array()?;
        let mut i = 0;
        // SAFETY: `o` is a live list; the size is re-read at each step (a
        // hook may shrink it) and each item that may run Python code is held
        // strongly while encoded.
        unsafe {
            while i < ffi::PyList_GET_SIZE(o) {
                let v = ffi::PyList_GET_ITEM(o, i);
                let t = ffi::Py_TYPE(v);
                // Strings need no strong reference: no Python code runs.
                let r = if t == tp!(PyUnicode_Type) {
                    self.str(v)
                } else if t == tp!(PyDict_Type) {
                    let item = Bound::from_borrowed_ptr(self.py, v);
                    self.tracked(item.as_ptr(), 2, Self::dict)
                } else {
                    let item = Bound::from_borrowed_ptr(self.py, v);
                    self.value(item.as_ptr(), 2)
                };
                if let Err(mut f) = r {
                    f.path.push(Seg::Index(i as usize));
                    return Err(f);
                }
                i += 1;
            }
        }
        Ok(self.enc.end_array()?)
    }

    unsafe fn tuple(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        self.enc.begin_array()?;
        // SAFETY: `o` is a live tuple we hold; tuples are immutable, so their
        // items stay alive while we hold the tuple.
        unsafe {
            let n = ffi::PyTuple_GET_SIZE(o);
            for i in 0..n {
                if let Err(mut f) = self.value(ffi::PyTuple_GET_ITEM(o, i), 1) {
                    f.path.push(Seg::Index(i as usize));
                    return Err(f);
                }
            }
        }
        Ok(self.enc.end_array()?)
    }

    /// A set or frozenset (or subclass), as an array of its items in
    /// iteration order (as msgspec writes them); `type=set[T]` reads it back.
    unsafe fn set(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        // SAFETY: `o` is live (caller's contract).
        let ob = unsafe { Bound::from_borrowed_ptr(self.py, o) };
        self.enc.begin_array()?;
        // The iterator raises if a hook changes the set's size meanwhile.
        for (i, item) in ob.try_iter()?.enumerate() {
            let item = item?;
            // SAFETY: `item` holds the object (its set holds it too) while
            // it is encoded.
            if let Err(mut f) = unsafe { self.value(item.as_ptr(), 2) } {
                f.path.push(Seg::Index(i));
                return Err(f);
            }
        }
        Ok(self.enc.end_array()?)
    }

    /// Encodes an object we hold a new reference to, whose reference count
    /// one parent plus us explains up to `thr`.
    fn owned(&mut self, b: Bound<'py, PyAny>, thr: isize) -> R {
        self.enter()?;
        // SAFETY: `b` keeps the object alive during the call.
        unsafe { self.value(b.as_ptr(), thr) }?;
        self.depth -= 1;
        Ok(())
    }

    #[cold]
    unsafe fn slow(&mut self, o: *mut ffi::PyObject, thr: isize) -> R {
        let py = self.py;
        // Whether `o` is what `default` just returned (for `call_default`).
        let from = self.from_default.take();
        // SAFETY: `o` is live (caller's contract).
        let ob = unsafe { Bound::from_borrowed_ptr(py, o) };
        let ty = pytypes::types(py)?;
        // Dataclass instances, the common case here: one cache lookup by type
        // (enum types are never in it, their members are written below).
        let t = ob.get_type();
        if let Some(fields) = dataclass_fields(&t)? {
            if !ob.is_instance_of::<PyType>() {
                return self.tracked_dataclass(&ob, thr, fields);
            }
        }
        // Enum members (including IntEnum/StrEnum) are written as their value.
        if ob.is_instance(ty.enum_.bind(py))? {
            let v = ob.getattr(pyo3::intern!(py, "value"))?;
            return self.owned(v, 2);
        }
        // SAFETY: type checks on a live object; the per-type helpers get the
        // same live object.
        unsafe {
            if ffi::PyUnicode_Check(o) != 0 {
                return self.str(o);
            }
            if ffi::PyLong_Check(o) != 0 {
                return self.int(o);
            }
            if ffi::PyFloat_Check(o) != 0 {
                let f = ffi::PyFloat_AsDouble(o);
                return Ok(self.enc.f64(f)?);
            }
            if ffi::PyDict_Check(o) != 0 {
                // Subclasses (OrderedDict...) may keep their own order: use items().
                return self.tracked(o, thr, Self::dict_items);
            }
            if ffi::PyList_Check(o) != 0 {
                return self.tracked(o, thr, Self::list);
            }
            if ffi::PyTuple_Check(o) != 0 {
                return self.tracked(o, thr, Self::tuple);
            }
            if ffi::PyAnySet_Check(o) != 0 {
                return self.tracked(o, thr, Self::set);
            }
            if ffi::PyBytes_Check(o) != 0 {
                let b = ob.cast_unchecked::<pyo3::types::PyBytes>();
                return Ok(self.enc.bytes(b.as_bytes())?);
            }
            if ffi::PyByteArray_Check(o) != 0 || ffi::PyMemoryView_Check(o) != 0 {
                let b = pyo3::buffer::PyUntypedBuffer::get(&ob)?;
                if b.is_c_contiguous() {
                    let s = std::slice::from_raw_parts(b.buf_ptr() as *const u8, b.len_bytes());
                    return Ok(self.enc.bytes(s)?);
                }
                let bytes = ob.call_method0(pyo3::intern!(py, "tobytes"))?;
                let bytes = bytes.cast::<pyo3::types::PyBytes>().map_err(PyErr::from)?;
                return Ok(self.enc.bytes(bytes.as_bytes())?);
            }
        }
        if let Ok(dt) = ob.cast::<PyDateTime>() {
            return self.datetime(dt);
        }
        if let Ok(d) = ob.cast::<PyDate>() {
            use pyo3::types::PyDateAccess;
            let days = pytypes::days_from_civil(
                d.get_year() as i64,
                d.get_month() as u32,
                d.get_day() as u32,
            );
            return Ok(self.enc.ext(EXT_DATE, &(days as i32).to_le_bytes())?);
        }
        if ob.is_instance(ty.uuid.bind(py))? {
            let b = ob.getattr(pyo3::intern!(py, "bytes"))?;
            let b = b.cast::<pyo3::types::PyBytes>().map_err(PyErr::from)?;
            if b.as_bytes().len() != 16 {
                // A subclass's own `bytes`: a payload `loads` would refuse.
                return Err(msg(format!(
                    "cannot encode a {} whose bytes are not 16 bytes long",
                    type_name(o)
                )));
            }
            return Ok(self.enc.ext(EXT_UUID, b.as_bytes())?);
        }
        if ob.is_instance(ty.decimal.bind(py))? {
            // `Decimal.__str__`, not a subclass's own (whose text `loads`
            // could not read back: a document it refuses).
            let s = base_str(&ob, ty.decimal.bind(py))?;
            return Ok(self.enc.ext(EXT_DECIMAL, s.as_bytes())?);
        }
        if ob.is_instance_of::<crate::View>() {
            // A view of another document: its value, as Python objects.
            let v = ob.call_method0(pyo3::intern!(py, "to_python"))?;
            return self.owned(v, 1);
        }
        if let Ok(e) = ob.cast::<crate::Ext>() {
            let e = e.get();
            let data = e.data.bind(py).as_bytes().to_vec();
            if matches!(
                e.type_id,
                EXT_DATE | EXT_UUID | EXT_DECIMAL | EXT_TIME | EXT_TIMEDELTA
            ) {
                // A reserved id: only a payload that `loads` accepts (the
                // decoder's own checks), so no document is written that
                // cannot be read back.
                if let Err(err) = crate::decode::ext(py, e.type_id, &data, &[]) {
                    let why = err.value(py).str().map(|s| s.to_string());
                    return Err(msg(format!(
                        "cannot encode roving.Ext with the reserved type id {} ({}): {}",
                        e.type_id,
                        match e.type_id {
                            EXT_DATE => "EXT_DATE",
                            EXT_UUID => "EXT_UUID",
                            EXT_DECIMAL => "EXT_DECIMAL",
                            EXT_TIME => "EXT_TIME",
                            _ => "EXT_TIMEDELTA",
                        },
                        why.unwrap_or_default()
                    )));
                }
            }
            return Ok(self.enc.ext(e.type_id, &data)?);
        }
        if ob.is_instance(ty.array.bind(py))? {
            let code: String = ob.getattr(pyo3::intern!(py, "typecode"))?.extract()?;
            let size: usize = ob.getattr(pyo3::intern!(py, "itemsize"))?.extract()?;
            if let Some(e) = array_elem(&code, size) {
                return self.tracked_vector(&ob, thr, e);
            }
        }
        if let Some(np) = pytypes::numpy_loaded(py) {
            if ob.is_instance(np.ndarray.bind(py))? {
                if ob.get_type().is(np.ndarray.bind(py)) {
                    return self.numpy(&ob, thr, from);
                }
                return self.numpy_subclass(&ob, from);
            }
            if ob.is_instance(np.datetime64.bind(py))? {
                return self.datetime64(&ob, np, from);
            }
            // Other numpy scalars as their Python value (`.item()`), except
            // timedelta64 (a `datetime.timedelta` or an int), which is not
            // supported: it goes to `default` or is an error naming it.
            if ob.is_instance(np.generic.bind(py))? && !ob.is_instance(np.timedelta64.bind(py))? {
                let v = ob.call_method0(pyo3::intern!(py, "item"))?;
                if !v.is_instance(np.generic.bind(py))? {
                    return self.owned(v, 1);
                }
            }
        }
        if let Ok(t) = ob.cast::<PyTime>() {
            return self.time(t);
        }
        if let Ok(d) = ob.cast::<PyDelta>() {
            use pyo3::types::PyDeltaAccess;
            let d = times::Delta::from_fields(d.get_days(), d.get_seconds(), d.get_microseconds());
            return Ok(self.enc.ext(EXT_TIMEDELTA, &d.payload())?);
        }
        self.call_default(&ob, from, || {
            Err(msg(format!(
                "cannot encode object of type '{}'",
                type_name(o)
            )))
        })
    }

    fn datetime(&mut self, dt: &Bound<'py, PyDateTime>) -> R {
        use pyo3::types::{PyDateAccess, PyDeltaAccess, PyTimeAccess, PyTzInfo, PyTzInfoAccess};
        let py = self.py;
        let offset = match dt.get_tzinfo() {
            None => None,
            // `datetime.timezone.utc`, the common case: no `utcoffset()` call.
            Some(tz) if PyTzInfo::utc(py).is_ok_and(|u| u.as_ptr() == tz.as_ptr()) => Some(0),
            Some(_) => {
                let u = dt.call_method0(pyo3::intern!(py, "utcoffset"))?;
                if u.is_none() {
                    None
                } else {
                    let d = u.cast::<PyDelta>().map_err(PyErr::from)?;
                    if d.get_microseconds() != 0 {
                        return Err(msg("cannot encode a UTC offset with microseconds".into()));
                    }
                    Some(d.get_days() as i64 * 86_400 + d.get_seconds() as i64)
                }
            }
        };
        let days = pytypes::days_from_civil(
            dt.get_year() as i64,
            dt.get_month() as u32,
            dt.get_day() as u32,
        );
        let secs = days * 86_400
            + dt.get_hour() as i64 * 3600
            + dt.get_minute() as i64 * 60
            + dt.get_second() as i64
            - offset.unwrap_or(0);
        let off = match offset {
            Some(o) => Some(i32::try_from(o).map_err(|_| msg("UTC offset out of range".into()))?),
            None => None,
        };
        let ts = Timestamp::new(secs, dt.get_microsecond() * 1000, off)
            .ok_or_else(|| msg("UTC offset out of range".into()))?;
        Ok(self.enc.timestamp(ts)?)
    }

    /// A `datetime.time` (or subclass) as `EXT_TIME`: an aware one (whose
    /// `utcoffset()` is not None) with its offset, to the microsecond; one
    /// whose tzinfo gives no offset is naive, as Python defines it (a
    /// `ZoneInfo`'s offset depends on a date, so its times are naive), and
    /// a tzinfo's error from `utcoffset(None)` is raised as it is.
    fn time(&mut self, t: &Bound<'py, PyTime>) -> R {
        use pyo3::types::{PyDeltaAccess, PyTimeAccess, PyTzInfoAccess};
        let py = self.py;
        let offset = match t.get_tzinfo() {
            None => None,
            Some(_) => {
                let u = t.call_method0(pyo3::intern!(py, "utcoffset"))?;
                if u.is_none() {
                    None
                } else {
                    let d = u.cast::<PyDelta>().map_err(PyErr::from)?;
                    Some(
                        d.get_days() as i64 * times::US_PER_DAY as i64
                            + d.get_seconds() as i64 * 1_000_000
                            + d.get_microseconds() as i64,
                    )
                }
            }
        };
        let micros = ((t.get_hour() as u64 * 60 + t.get_minute() as u64) * 60
            + t.get_second() as u64)
            * 1_000_000
            + t.get_microsecond() as u64;
        let tod = times::TimeOfDay {
            micros,
            fold: t.get_fold(),
            offset,
        };
        Ok(self.enc.ext(EXT_TIME, &tod.payload())?)
    }

    /// Encodes what `default` returns for `ob` (of a type this encoder
    /// cannot write). `from` is set if `ob` itself is what `default`
    /// returned: calling `default` again on an object of the same type as
    /// it was given would not end (`default=lambda o: o`), so that is an
    /// error at once, as is a chain of more than [`DEFAULT_CHAIN_MAX`]
    /// calls (types that `default` maps to each other). A result that is
    /// a container is not affected: its items are new values. Without a
    /// `default`, the result is `unsupported()` (the caller's error).
    fn call_default(
        &mut self,
        ob: &Bound<'py, PyAny>,
        from: Option<(*mut ffi::PyTypeObject, u32)>,
        unsupported: impl FnOnce() -> R,
    ) -> R {
        let Some(d) = self.default else {
            return unsupported();
        };
        let t = ob.get_type_ptr();
        let calls = match from {
            Some((ft, _)) if ft == t => {
                return Err(msg(format!(
                    "default() returned an unencodable object of type '{}'",
                    type_name(ob.as_ptr())
                )))
            }
            Some((_, n)) if n >= DEFAULT_CHAIN_MAX => {
                return Err(msg(format!(
                "default() returned unencodable objects {n} times in a row (the last of type '{}')",
                type_name(ob.as_ptr())
            )))
            }
            Some((_, n)) => n + 1,
            None => 1,
        };
        let v = d.call1((ob,))?;
        // The result goes to `slow` (which takes `from_default`) unless
        // it is an exact dict, list or tuple (written by `value` itself):
        // then their items must not see it.
        let vt = v.get_type_ptr();
        if vt != tp!(PyDict_Type) && vt != tp!(PyList_Type) && vt != tp!(PyTuple_Type) {
            self.from_default = Some((t, calls));
        }
        let r = self.owned(v, 1);
        self.from_default = None;
        r
    }

    /// A `numpy.datetime64` scalar as a timestamp without offset, exact
    /// for every unit from years to nanoseconds. NaT goes to `default`.
    fn datetime64(
        &mut self,
        ob: &Bound<'py, PyAny>,
        np: &pytypes::Numpy,
        from: Option<(*mut ffi::PyTypeObject, u32)>,
    ) -> R {
        let py = self.py;
        let dtype = ob.getattr(pyo3::intern!(py, "dtype"))?;
        let (unit, count): (String, i64) = np.datetime_data.bind(py).call1((dtype,))?.extract()?;
        let raw: i64 = ob
            .call_method1(pyo3::intern!(py, "view"), ("<i8",))?
            .extract()?;
        if raw == i64::MIN {
            // NaT ("not a time"): no timestamp.
            return self.call_default(ob, from, || {
                Err(msg(
                    "cannot encode object of type 'numpy.datetime64' (NaT, not a time)".into(),
                ))
            });
        }
        let ts = datetime64_timestamp(raw, &unit, count).map_err(|why| {
            msg(format!(
                "cannot encode object of type 'numpy.datetime64' ({}): {why}",
                ob.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        Ok(self.enc.timestamp(ts)?)
    }

    fn tracked_dataclass(
        &mut self,
        ob: &Bound<'py, PyAny>,
        thr: isize,
        fields: Bound<'py, pyo3::types::PyTuple>,
    ) -> R {
        let o = ob.as_ptr();
        // SAFETY: `o` is alive through `ob`.
        let shared = unsafe { ffi::Py_REFCNT(o) } > thr;
        let key = o as usize;
        if shared {
            match self.tables.memo.get(&key) {
                Some(Memo::Done(m)) => return Ok(self.enc.reuse(*m)?),
                Some(Memo::Open) => {
                    return Err(msg(format!("cycle: a {} contains itself", type_name(o))))
                }
                None => {}
            }
            self.tables.memo.insert(key, Memo::Open);
            self.tables.keep.push(ob.clone().unbind());
        }
        self.enter()?;
        self.enc.begin_map()?;
        for name in fields.iter() {
            let name = name.cast_into::<PyString>().map_err(PyErr::from)?;
            let v = match ob.getattr(&name) {
                Ok(v) => v,
                // A field `__init__` does not set (`init=False` without a
                // default) may be unset: left out, as msgspec does.
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(self.py) => {
                    continue
                }
                Err(e) => {
                    let mut f: Box<Fail> = e.into();
                    f.path.push(Seg::Attr(name.into_any().unbind()));
                    return Err(f);
                }
            };
            self.enc.key(name.to_str()?)?;
            if let Err(mut f) = self.owned(v, 2) {
                f.path.push(Seg::Attr(name.into_any().unbind()));
                return Err(f);
            }
        }
        let mark = self.enc.end_map()?;
        self.depth -= 1;
        if shared {
            self.tables.memo.insert(key, Memo::Done(mark));
        }
        Ok(())
    }

    fn tracked_vector(&mut self, ob: &Bound<'py, PyAny>, thr: isize, elem: ElemType) -> R {
        let o = ob.as_ptr();
        // SAFETY: `o` is alive through `ob`.
        let shared = unsafe { ffi::Py_REFCNT(o) } > thr;
        let key = o as usize;
        if shared {
            if let Some(Memo::Done(m)) = self.tables.memo.get(&key) {
                return Ok(self.enc.reuse(*m)?);
            }
        }
        let b = pyo3::buffer::PyUntypedBuffer::get(ob)?;
        if !b.is_c_contiguous() || b.len_bytes() % elem.size() != 0 {
            return Err(msg("vector buffer is not contiguous".into()));
        }
        // SAFETY: the buffer export keeps `len_bytes` bytes at `buf_ptr`
        // readable while `b` lives; we hold the GIL, so no Python code runs.
        let s = unsafe { std::slice::from_raw_parts(b.buf_ptr() as *const u8, b.len_bytes()) };
        if cfg!(target_endian = "big") {
            let mut v = s.to_vec();
            for c in v.chunks_exact_mut(elem.size()) {
                c.reverse();
            }
            self.enc.vector_raw(elem, &v)?;
        } else {
            self.enc.vector_raw(elem, s)?;
        }
        if shared {
            if let Some(m) = self.enc.mark() {
                self.tables.memo.insert(key, Memo::Done(m));
                self.tables.keep.push(ob.clone().unbind());
            }
        }
        Ok(())
    }

    /// An instance of a subclass of `numpy.ndarray`: a masked array goes
    /// to `default=` (its data alone would drop the mask: masked values
    /// written as if they were valid), any other (`numpy.matrix`, whose
    /// rows are matrices again, ...) is written as its data seen as a
    /// plain ndarray (`numpy.asarray`).
    fn numpy_subclass(
        &mut self,
        ob: &Bound<'py, PyAny>,
        from: Option<(*mut ffi::PyTypeObject, u32)>,
    ) -> R {
        let py = self.py;
        let masked = py.import("numpy.ma")?.getattr("MaskedArray")?;
        if ob.is_instance(&masked)? {
            return self.call_default(ob, from, || {
                Err(msg(
                    "cannot encode a numpy masked array (its data alone would lose the mask: \
                     write a.filled(fill_value), or a.tolist() for None at masked places)"
                        .into(),
                ))
            });
        }
        let plain = py.import("numpy")?.getattr("asarray")?.call1((ob,))?;
        // A new view held by us alone (1): it is never shared.
        self.owned(plain, 1)
    }

    /// A numpy array of 2 or more dimensions (integers or floats, no axis
    /// before the last empty): an array of its rows, each written as a
    /// numpy array of one dimension less, down to typed vectors.
    fn numpy_rows(&mut self, ob: &Bound<'py, PyAny>) -> R {
        self.enc.begin_array()?;
        for (i, row) in ob.try_iter()?.enumerate() {
            // A new view of the row, held by us alone.
            if let Err(mut f) = self.owned(row?, 1) {
                f.path.push(Seg::Index(i));
                return Err(f);
            }
        }
        self.enc.end_array()?;
        Ok(())
    }

    fn numpy(
        &mut self,
        ob: &Bound<'py, PyAny>,
        thr: isize,
        from: Option<(*mut ffi::PyTypeObject, u32)>,
    ) -> R {
        let py = self.py;
        let ndim: usize = ob.getattr(pyo3::intern!(py, "ndim"))?.extract()?;
        let dtype = ob.getattr(pyo3::intern!(py, "dtype"))?;
        let kind: String = dtype.getattr(pyo3::intern!(py, "kind"))?.extract()?;
        let size: usize = dtype.getattr(pyo3::intern!(py, "itemsize"))?.extract()?;
        let elem = match (kind.as_str(), size) {
            ("i", 1) => Some(ElemType::I8),
            ("i", 2) => Some(ElemType::I16),
            ("i", 4) => Some(ElemType::I32),
            ("i", 8) => Some(ElemType::I64),
            ("u", 1) => Some(ElemType::U8),
            ("u", 2) => Some(ElemType::U16),
            ("u", 4) => Some(ElemType::U32),
            ("u", 8) => Some(ElemType::U64),
            ("f", 4) => Some(ElemType::F32),
            ("f", 8) => Some(ElemType::F64),
            _ => None,
        };
        let elem = match (elem, ndim) {
            (Some(e), 1) => e,
            (Some(_), 2..) => {
                // An array of its rows (each an array of rows, down to
                // vectors), unless an axis before the last is empty: then
                // the nesting could not tell the shape.
                let shape: Vec<usize> = ob.getattr(pyo3::intern!(py, "shape"))?.extract()?;
                if !shape[..ndim - 1].contains(&0) {
                    return self.numpy_rows(ob);
                }
                return self.call_default(ob, from, || {
                    Err(msg(format!(
                        "cannot encode numpy array of shape {} (an axis before the last is \
                         empty, so nested arrays could not keep the shape)",
                        ob.getattr(pyo3::intern!(py, "shape"))?.repr()?
                    )))
                });
            }
            _ => {
                return self.call_default(ob, from, || {
                    let shape = ob.getattr(pyo3::intern!(py, "shape"))?.repr()?.to_string();
                    Err(msg(format!(
                        "cannot encode numpy array of dtype {} and shape {shape} (only integer and float32/float64 arrays)",
                        dtype.str()?
                    )))
                });
            }
        };
        // Little-endian, C-contiguous data.
        let le = pytypes::dtype_str(elem);
        let dstr: String = dtype.getattr(pyo3::intern!(py, "str"))?.extract()?;
        let arr = if dstr == le || size == 1 {
            ob.clone()
        } else {
            ob.call_method1(pyo3::intern!(py, "astype"), (le,))?
        };
        let arr = if arr
            .getattr(pyo3::intern!(py, "flags"))?
            .getattr(pyo3::intern!(py, "c_contiguous"))?
            .is_truthy()?
        {
            arr
        } else {
            arr.call_method1(pyo3::intern!(py, "copy"), ("C",))?
        };
        let thr = if arr.is(ob) { thr } else { 1 };
        self.tracked_vector(&arr, thr, elem)
    }
}

/// The timestamp (without offset) of a numpy datetime64 value `raw` in
/// units of `count` x `unit` since 1970-01-01T00:00, or why there is none.
fn datetime64_timestamp(raw: i64, unit: &str, count: i64) -> Result<Timestamp, String> {
    const OUT: &str = "outside the range of a timestamp";
    let n = i128::from(raw)
        .checked_mul(i128::from(count))
        .ok_or_else(|| OUT.to_string())?;
    // Nanoseconds per unit (calendar units are converted to days first).
    let ns_per: i128 = match unit {
        "Y" | "M" => {
            // Years or months since 1970: the first day of that month.
            let months = if unit == "Y" {
                n.checked_mul(12).ok_or_else(|| OUT.to_string())?
            } else {
                n
            };
            let year = 1970 + months.div_euclid(12);
            // Beyond this many years the seconds cannot fit in an i64.
            if year.unsigned_abs() > 200_000_000_000 {
                return Err(OUT.into());
            }
            let month = months.rem_euclid(12) as u32 + 1;
            let days = pytypes::days_from_civil(year as i64, month, 1);
            let secs = days.checked_mul(86_400).ok_or_else(|| OUT.to_string())?;
            return Timestamp::new(secs, 0, None).ok_or_else(|| OUT.into());
        }
        "W" => 7 * 86_400 * 1_000_000_000,
        "D" => 86_400 * 1_000_000_000,
        "h" => 3_600 * 1_000_000_000,
        "m" => 60 * 1_000_000_000,
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        "us" => 1_000,
        "ns" => 1,
        "ps" | "fs" | "as" => {
            return Err(format!(
                "unit '{unit}' is finer than the nanoseconds of a timestamp"
            ))
        }
        _ => return Err(format!("unit '{unit}' is not supported")),
    };
    let total = n.checked_mul(ns_per).ok_or_else(|| OUT.to_string())?;
    let secs = i64::try_from(total.div_euclid(1_000_000_000)).map_err(|_| OUT.to_string())?;
    let nanos = total.rem_euclid(1_000_000_000) as u32;
    Timestamp::new(secs, nanos, None).ok_or_else(|| OUT.into())
}

/// Whether [`small_int`] may read CPython 3.11 ints directly: 0 not yet
/// tested, 1 yes, 2 no.
static INT_DIRECT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// The head of an `int` of CPython 3.11 (`Include/cpython/longintrepr.h`):
/// `ob_size` is the digit count, negative for a negative number; digits
/// are 30-bit, least significant first.
#[repr(C)]
struct Long311 {
    ob_base: ffi::PyVarObject,
    ob_digit: [u32; 2],
}

/// The value of an int of at most two digits (below 2**60 in magnitude),
/// read from the object, if [`int_layout_init`] found the layout known.
///
/// # Safety
/// `o` must be a live int (or subclass).
#[inline(always)]
unsafe fn small_int(o: *mut ffi::PyObject) -> Option<i64> {
    if INT_DIRECT.load(std::sync::atomic::Ordering::Relaxed) != 1 {
        return None;
    }
    // SAFETY: the interpreter is CPython 3.11 with 30-bit digits (checked
    // by `int_layout_init`), so `o` has the layout of `Long311`, with
    // `|ob_size|` digits allocated; only those are read.
    unsafe { small_int_311(o) }
}

/// [`small_int`] without the check of the layout.
///
/// # Safety
/// CPython 3.11 with 30-bit digits, and `o` is a live int.
#[inline(always)]
unsafe fn small_int_311(o: *mut ffi::PyObject) -> Option<i64> {
    // SAFETY: caller's contract (see `small_int`).
    unsafe {
        let l = o.cast::<Long311>();
        let size = (*l).ob_base.ob_size;
        let d = std::ptr::addr_of!((*l).ob_digit).cast::<u32>();
        let mag = match size.unsigned_abs() {
            0 => return Some(0),
            1 => i64::from(*d),
            2 => i64::from(*d) | (i64::from(*d.add(1)) << 30),
            _ => return None,
        };
        Some(if size < 0 { -mag } else { mag })
    }
}

/// Enables [`small_int`] on CPython 3.11 with 30-bit digits if it reads a
/// few ints exactly as `PyLong_AsLongLong` does (once per process).
fn int_layout_init(py: Python<'_>) {
    use std::sync::atomic::Ordering;
    if INT_DIRECT.load(Ordering::Relaxed) != 0 {
        return;
    }
    let ok = (|| -> PyResult<bool> {
        let sys = py.import("sys")?;
        let name: String = sys.getattr("implementation")?.getattr("name")?.extract()?;
        let info = sys.getattr("int_info")?;
        let bits: u32 = info.getattr("bits_per_digit")?.extract()?;
        let size: u32 = info.getattr("sizeof_digit")?.extract()?;
        if name != "cpython"
            || !(py.version_info() >= (3, 11) && py.version_info() < (3, 12))
            || bits != 30
            || size != 4
        {
            return Ok(false);
        }
        let mut vals = vec![0i64, 1, -1, 5, -5, 1000, -1000];
        for b in [29, 30, 31, 59, 60, 61, 62, 63] {
            let v = ((1u64 << b) - 1) as i64;
            vals.extend([v, -v, v.wrapping_add(1), v.wrapping_add(1).wrapping_neg()]);
        }
        vals.push(i64::MIN);
        for v in vals {
            // SAFETY: PyLong_FromLongLong returns a new reference or NULL
            // (then the error is taken); the test reads it as a 3.11 int,
            // which it is (checked above).
            let got = unsafe {
                let o = Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromLongLong(v))?;
                small_int_311(o.as_ptr())
            };
            let want = (v.unsigned_abs() < 1 << 60).then_some(v);
            if got != want {
                return Ok(false);
            }
        }
        Ok(true)
    })()
    .unwrap_or(false);
    INT_DIRECT.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
}

/// The UTF-8 bytes of a str (no copy for ASCII; CPython caches the UTF-8
/// form of other strings). `None` with a Python error set for strings with
/// lone surrogates.
///
/// # Safety
/// `o` must be a live `str` (or subclass); the bytes live as long as it.
#[inline]
unsafe fn str_bytes<'a>(o: *mut ffi::PyObject) -> Option<&'a [u8]> {
    // SAFETY: `o` is a live str (caller's contract).
    unsafe {
        if ffi::PyUnicode_IS_COMPACT_ASCII(o) != 0 {
            // A compact ASCII string's characters (one byte each, which is
            // their UTF-8) follow its header (CPython's _PyUnicode_COMPACT_DATA).
            let n = ffi::PyUnicode_GET_LENGTH(o) as usize;
            let p = o.cast::<ffi::PyASCIIObject>().add(1).cast::<u8>();
            return Some(std::slice::from_raw_parts(p, n));
        }
        let mut n: ffi::Py_ssize_t = 0;
        let p = ffi::PyUnicode_AsUTF8AndSize(o, &mut n);
        if p.is_null() {
            return None;
        }
        Some(std::slice::from_raw_parts(p as *const u8, n as usize))
    }
}

fn array_elem(code: &str, size: usize) -> Option<ElemType> {
    Some(match (code, size) {
        ("b", 1) => ElemType::I8,
        ("B", 1) => ElemType::U8,
        ("h" | "i" | "l" | "q", 2) => ElemType::I16,
        ("H" | "I" | "L" | "Q", 2) => ElemType::U16,
        ("h" | "i" | "l" | "q", 4) => ElemType::I32,
        ("H" | "I" | "L" | "Q", 4) => ElemType::U32,
        ("h" | "i" | "l" | "q", 8) => ElemType::I64,
        ("H" | "I" | "L" | "Q", 8) => ElemType::U64,
        ("f", 4) => ElemType::F32,
        ("d", 8) => ElemType::F64,
        _ => return None,
    })
}

/// Cached names of the fields of a dataclass type (`None` if not one).
fn dataclass_fields<'py>(
    t: &Bound<'py, PyType>,
) -> PyResult<Option<Bound<'py, pyo3::types::PyTuple>>> {
    use pyo3::sync::PyOnceLock;
    static CACHE: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    let py = t.py();
    let cache = CACHE.get_or_init(py, || PyDict::new(py).unbind()).bind(py);
    if let Some(v) = cache.get_item(t)? {
        return Ok(v.cast_into::<pyo3::types::PyTuple>().ok());
    }
    // An enum that is also a dataclass is written as its members' values.
    let is_enum = t.is_subclass(pytypes::types(py)?.enum_.bind(py))?;
    let v = match pytypes::dataclass_field_names(t)? {
        Some(names) if !is_enum => pyo3::types::PyTuple::new(py, names)?.into_any(),
        _ => py.None().into_bound(py),
    };
    if cache.len() < 4096 {
        cache.set_item(t, &v)?;
    }
    Ok(v.cast_into::<pyo3::types::PyTuple>().ok())
}
