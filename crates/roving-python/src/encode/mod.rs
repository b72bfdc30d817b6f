//! Python objects -> roving (`dumps`).
//!
//! A recursive walk with an explicit depth limit over a thread-local
//! [`Encoder`] (reused between calls). Containers that may appear more than
//! once (reference count above what one parent explains) are remembered by
//! identity: a second occurrence is written as a shared reference, and an
//! object met again while it is still open is a cycle (an error with the path).
//!
//! This file holds the walk and the dispatch on the type of each object;
//! the writers of each family of types are in the other files of the module.

mod dataclass;
mod datetime;
mod default;
mod dict;
mod failure;
mod int;
mod options;
mod sequence;
mod strings;
mod vector;

use std::cell::RefCell;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDate, PyDateTime, PyDelta, PyTime, PyType};

use roving::{Encoder, KeyId, Mark};

use crate::decode::IdMap;
use crate::pytypes::{self, EXT_DATE, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA, EXT_UUID};
use crate::times;

use dataclass::dataclass_fields;
use dict::base_str;
use failure::{fail_msg, into_pyerr, EncodeResult, Fail};
use int::int_layout_init;
use vector::array_elem;

pub(crate) use options::EncodeOptions;

/// Maximum nesting depth when encoding.
pub(crate) const MAX_DEPTH: usize = 10_000;

/// An encoder and its tables, kept between calls. Boxed: a call moves
/// them out of the thread's slot and back, and the box moves as one
/// pointer where the parts (~1 KB) were copied each way (13% of a
/// `dumps` of `{"a": 1}`).
type Kept = (Box<Encoder>, Box<Tables>);

thread_local! {
    /// The encoder and tables of the last call, kept for the next one.
    static ENCODER: RefCell<Option<Kept>> = const { RefCell::new(None) };
    /// The same for `dumps(obj, dictionary=d)`: an encoder bound to the
    /// last dictionary used, which keeps its base while that dictionary
    /// does not change (a plain `dumps` never gets it).
    static DICT_ENCODER: RefCell<Option<Kept>> = const { RefCell::new(None) };
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

/// Memo entry: the object is being written (cycle if met again) or done.
#[derive(Clone, Copy)]
enum MemoEntry {
    Open,
    Done(Mark),
}

/// The tables of one call, kept between calls (cleared) so that they do
/// not grow again from nothing every time.
#[derive(Default)]
struct Tables {
    memo: IdMap<usize, MemoEntry>,
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
    /// The numbers of a list of only floats or only ints, read before it
    /// is written in one call (`sequence.rs`, `number_list`).
    floats: Vec<f64>,
    /// As `floats`, for ints.
    ints: Vec<i64>,
    /// Signatures of the first keys of the dicts written with packed keys
    /// (`dict.rs`, `packed_dict`): a later dict that begins with the same
    /// keys is written with a shape, which the dicts after it share.
    packed: IdMap<usize, ()>,
}

/// Tables larger than this (entries) are dropped rather than kept.
const KEEP_TABLE_MAX: usize = 1 << 14;

impl Tables {
    /// Forgets the call's entries (releasing its references), keeping the
    /// memory unless a table grew large.
    fn clear(&mut self) {
        // Addresses and key ids are only meaningful during one call.
        self.keep.clear();
        clear_map(&mut self.memo);
        clear_map(&mut self.keys);
        clear_map(&mut self.packed);
        if self.keep.capacity() > KEEP_TABLE_MAX {
            self.keep = Vec::new();
        }
        if self.floats.capacity() > KEEP_TABLE_MAX {
            self.floats = Vec::new();
        }
        if self.ints.capacity() > KEEP_TABLE_MAX {
            self.ints = Vec::new();
        }
        for s in &mut self.seqs {
            s.clear();
            if s.capacity() > KEEP_TABLE_MAX {
                *s = Vec::new();
            }
        }
    }
}

/// Empties `map`, keeping its memory unless it is large, or much larger
/// than this call needed: clearing a table with entries writes all of its
/// control bytes, so a table a big document grew would cost every small
/// document after it that much (a 16K-entry memo: about 250 ns a call).
fn clear_map<V>(map: &mut IdMap<usize, V>) {
    let cap = map.capacity();
    if cap > KEEP_TABLE_MAX || (cap > 64 && cap > map.len() * 8) {
        *map = IdMap::default();
    } else {
        map.clear();
    }
}

/// The error of a container `o` met inside itself.
#[cold]
fn cycle(o: *mut ffi::PyObject) -> Box<Fail> {
    fail_msg(format!("cycle: a {} contains itself", type_name(o)))
}

/// The state of one call of the encoder: where it writes, what it met.
struct State<'py, 'd> {
    py: Python<'py>,
    enc: Box<Encoder>,
    /// `default=` and `non_str_keys=`.
    options: &'d EncodeOptions,
    /// Set while the result of `default` is being encoded, until `slow`
    /// takes it: the type `default` was called for and how many calls in a
    /// row led here (see [`State::call_default`]).
    from_default: Option<(*mut ffi::PyTypeObject, u32)>,
    tables: Box<Tables>,
    depth: usize,
    stack_limit: usize,
    /// The address of the object being written ([`State::root`]), or 0.
    root: usize,
}

/// Encodes a Python object into a roving document (used by the store,
/// through `crate::encode_py`).
#[allow(dead_code)]
pub(crate) fn encode_py(obj: &Bound<'_, PyAny>, options: &EncodeOptions) -> PyResult<Vec<u8>> {
    with_encoder(obj.py(), options, |st| {
        // SAFETY: `obj` is a live object the caller holds for the whole call.
        unsafe { st.root(obj.as_ptr()) }?;
        note_size(st.enc.len());
        st.enc.finish_reset().map_err(Box::<Fail>::from)
    })
}

/// Encodes into a new Python `bytes` object (one copy, from the encoder's buffer).
pub(crate) fn dumps_py<'py>(
    obj: &Bound<'py, PyAny>,
    options: &EncodeOptions,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let py = obj.py();
    with_encoder(py, options, |st| {
        // SAFETY: `obj` is a live object the caller holds for the whole call.
        unsafe { st.root(obj.as_ptr()) }?;
        note_size(st.enc.len());
        // One copy into the bytes object; the encoder keeps its buffer.
        st.enc
            .finish_with(|out| crate::out_bytes::bytes_of(py, out))
            .map_err(Box::<Fail>::from)?
            .map_err(Into::into)
    })
}

/// [`dumps_py`] against a shared dictionary, which learns (with
/// `learner`, unless frozen) the document's shapes it lacks and its value
/// strings that recur across documents.
pub(crate) fn dumps_py_with<'py>(
    obj: &Bound<'py, PyAny>,
    options: &EncodeOptions,
    dict: &mut roving::Dictionary,
    learner: &mut roving::dictionary::Learner,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let py = obj.py();
    encode_with(obj, options, Some((dict, Learn::Shapes(learner))), |out| {
        pyo3::types::PyBytes::new(py, out)
    })
}

/// `obj` encoded against a store's dictionary (which learns the
/// document's new shapes): what an assignment to a `roving.Store` (either
/// backend) writes.
#[cfg(feature = "store")]
pub(crate) fn encode_py_for_store(
    obj: &Bound<'_, PyAny>,
    options: &EncodeOptions,
    store: &mut impl roving_store::Backend,
) -> PyResult<Vec<u8>> {
    let py = obj.py();
    with_encoder_in(&DICT_ENCODER, py, options, |st| {
        st.enc.use_dictionary(store.dictionary());
        // SAFETY: `obj` is a live object the caller holds for the whole call.
        unsafe { st.root(obj.as_ptr()) }?;
        note_size(st.enc.len());
        store.grow_dictionary(&st.enc);
        st.enc
            .finish_with(|out| out.to_vec())
            .map_err(Box::<Fail>::from)
    })
}

/// Runs `f` on the state of a call (on the encoder and tables kept from
/// the last call of this thread, if any), and keeps them for the next.
fn with_encoder<'py, T>(
    py: Python<'py>,
    options: &EncodeOptions,
    f: impl FnOnce(&mut State<'py, '_>) -> Result<T, Box<Fail>>,
) -> PyResult<T> {
    with_encoder_in(&ENCODER, py, options, f)
}

/// [`with_encoder`] with the encoder kept in `cell`.
#[inline(always)]
fn with_encoder_in<'py, T>(
    cell: &'static std::thread::LocalKey<RefCell<Option<Kept>>>,
    py: Python<'py>,
    options: &EncodeOptions,
    f: impl FnOnce(&mut State<'py, '_>) -> Result<T, Box<Fail>>,
) -> PyResult<T> {
    // Taking the encoder out (rather than borrowing it) keeps a nested call
    // (from a `default` hook) safe: it simply gets a new encoder.
    let spare = cell.with(|c| c.borrow_mut().take());
    let mut st = match spare {
        Some((enc, tables)) => State::new(py, enc, tables, options),
        None => State::new(
            py,
            Box::new(Encoder::with_capacity(1 << 12)),
            Box::default(),
            options,
        ),
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
        cell.with(|c| *c.borrow_mut() = Some((st.enc, st.tables)));
    }
    ENCODER_KEEP.with(|k| k.set(true));
    r.map_err(|e| into_pyerr(py, e))
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

impl<'py, 'd> State<'py, 'd> {
    /// The state of one call, on an encoder and tables (kept or new).
    #[inline(always)]
    fn new(
        py: Python<'py>,
        enc: Box<Encoder>,
        tables: Box<Tables>,
        options: &'d EncodeOptions,
    ) -> Self {
        State {
            py,
            enc,
            options,
            from_default: None,
            tables,
            depth: 0,
            stack_limit: crate::stack::limit(),
            root: 0,
        }
    }

    /// Writes `o`, the document's root. The root is written once, so it
    /// is not remembered as an object that may recur (no memo entry, no
    /// reference kept: some 200 instructions of a small document): met
    /// again inside itself, it is a cycle ([`State::open_shared`]).
    ///
    /// # Safety
    /// `o` must be a live object for the duration of the call.
    unsafe fn root(&mut self, o: *mut ffi::PyObject) -> EncodeResult {
        self.root = o as usize;
        // SAFETY: `o` is live (caller's contract); no parent count can
        // make it look shared.
        let r = unsafe { self.value(o, isize::MAX) };
        self.root = 0;
        r
    }

    #[inline(always)]
    fn enter(&mut self) -> EncodeResult {
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
            return fail_msg(format!(
                "nesting depth limit exceeded: more than {MAX_DEPTH} levels"
            ));
        }
        fail_msg(format!(
            "nesting depth limit exceeded: this thread's stack is exhausted after {} levels",
            self.depth
        ))
    }

    /// Encodes `o`. `parent_refs` is the reference count that one parent (plus our
    /// own temporary references) explains: above it, `o` may occur again.
    ///
    /// # Safety
    /// `o` must be a live object for the duration of the call.
    #[inline]
    unsafe fn value(&mut self, o: *mut ffi::PyObject, parent_refs: isize) -> EncodeResult {
        // SAFETY: `o` is live (caller's contract); type checks read its header.
        unsafe {
            let t = ffi::Py_TYPE(o);
            if t == tp!(PyUnicode_Type) {
                self.str(o)
            } else if t == tp!(PyLong_Type) {
                self.int(o)
            } else if t == tp!(PyDict_Type) {
                self.dict_value_of(o, parent_refs)
            } else if t == tp!(PyList_Type) {
                self.list_value_of(o, parent_refs)
            } else if t == tp!(PyFloat_Type) {
                Ok(self.enc.f64(ffi::PyFloat_AS_DOUBLE(o))?)
            } else if t == tp!(PyBool_Type) {
                Ok(self.enc.bool(o == ffi::Py_True())?)
            } else if o == ffi::Py_None() {
                Ok(self.enc.null()?)
            } else if t == tp!(PyTuple_Type) {
                self.tracked(o, parent_refs, Self::tuple)
            } else if t == tp!(PyBytes_Type) {
                let b = Bound::from_borrowed_ptr(self.py, o)
                    .cast_into_unchecked::<pyo3::types::PyBytes>();
                Ok(self.enc.bytes(b.as_bytes())?)
            } else {
                self.slow(o, parent_refs)
            }
        }
    }

    /// Writes the exact dict `o`: an empty one in one step (it has nothing
    /// to share or to meet again: every empty map is the same constant).
    ///
    /// # Safety
    /// `o` must be a live exact dict for the duration of the call.
    #[inline(always)]
    unsafe fn dict_value_of(&mut self, o: *mut ffi::PyObject, parent_refs: isize) -> EncodeResult {
        // SAFETY: `o` is a live exact dict (caller's contract).
        unsafe {
            if crate::dictiter::dict_len(o) == 0 {
                return self.empty(true);
            }
            self.tracked(o, parent_refs, Self::dict)
        }
    }

    /// Writes an empty map (`map`) or array: a level of nesting like any
    /// other container (the same depth limit), with nothing in it.
    #[inline(always)]
    fn empty(&mut self, map: bool) -> EncodeResult {
        self.enter()?;
        if map {
            self.enc.empty_map()?;
        } else {
            self.enc.empty_array()?;
        }
        self.depth -= 1;
        Ok(())
    }

    /// Writes the exact list `o`, an empty one in one step (as
    /// [`State::dict_value_of`]).
    ///
    /// # Safety
    /// `o` must be a live exact list for the duration of the call.
    #[inline(always)]
    unsafe fn list_value_of(&mut self, o: *mut ffi::PyObject, parent_refs: isize) -> EncodeResult {
        // SAFETY: `o` is a live exact list (caller's contract).
        unsafe {
            if ffi::PyList_GET_SIZE(o) == 0 {
                return self.empty(false);
            }
            self.tracked(o, parent_refs, Self::list)
        }
    }

    /// Runs `f` for a container, with memo/cycle handling if it may be shared.
    #[inline(always)]
    unsafe fn tracked(
        &mut self,
        o: *mut ffi::PyObject,
        parent_refs: isize,
        f: unsafe fn(&mut Self, *mut ffi::PyObject) -> Result<Mark, Box<Fail>>,
    ) -> EncodeResult {
        // SAFETY: `o` is live (caller's contract).
        let shared = unsafe { ffi::Py_REFCNT(o) } > parent_refs;
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
    ) -> EncodeResult {
        // SAFETY: `o` is live (caller's contract).
        if unsafe { self.open_shared(o) }? {
            return Ok(());
        }
        self.enter()?;
        // SAFETY: as above.
        let mark = unsafe { f(self, o) }?;
        self.depth -= 1;
        self.tables.memo.insert(o as usize, MemoEntry::Done(mark));
        Ok(())
    }

    /// Starts a container `o` that may occur more than once: if it was
    /// written already, writes a reference to it and returns `true`; if it
    /// is open (met inside itself), the cycle error; else remembers it as
    /// open, holding it so that its address stays its own, and returns
    /// `false` (the caller writes it and records it as done).
    ///
    /// # Safety
    /// `o` must be a live object.
    unsafe fn open_shared(&mut self, o: *mut ffi::PyObject) -> Result<bool, Box<Fail>> {
        let key = o as usize;
        if key == self.root {
            return Err(cycle(o));
        }
        match self.tables.memo.get(&key) {
            Some(MemoEntry::Done(m)) => {
                self.enc.reuse(*m)?;
                return Ok(true);
            }
            Some(MemoEntry::Open) => return Err(cycle(o)),
            None => {}
        }
        self.tables.memo.insert(key, MemoEntry::Open);
        // SAFETY: `o` is live (caller's contract); the strong reference
        // keeps its address from being reused during the call.
        self.tables
            .keep
            .push(unsafe { Bound::from_borrowed_ptr(self.py, o) }.unbind());
        Ok(false)
    }

    /// Encodes an object we hold a new reference to, whose reference count
    /// one parent plus us explains up to `parent_refs`.
    fn owned(&mut self, b: Bound<'py, PyAny>, parent_refs: isize) -> EncodeResult {
        self.enter()?;
        // SAFETY: `b` keeps the object alive during the call.
        unsafe { self.value(b.as_ptr(), parent_refs) }?;
        self.depth -= 1;
        Ok(())
    }

    #[cold]
    unsafe fn slow(&mut self, o: *mut ffi::PyObject, parent_refs: isize) -> EncodeResult {
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
                return self.tracked_dataclass(&ob, parent_refs, &fields);
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
                return self.tracked(o, parent_refs, Self::dict_items);
            }
            if ffi::PyList_Check(o) != 0 {
                return self.tracked(o, parent_refs, Self::list);
            }
            if ffi::PyTuple_Check(o) != 0 {
                return self.tracked(o, parent_refs, Self::tuple);
            }
            if ffi::PyAnySet_Check(o) != 0 {
                return self.tracked(o, parent_refs, Self::set);
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
                return Err(fail_msg(format!(
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
                    return Err(fail_msg(format!(
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
                return self.tracked_vector(&ob, parent_refs, e, None);
            }
        }
        if let Some(np) = pytypes::numpy_loaded(py) {
            if ob.is_instance(np.ndarray.bind(py))? {
                if ob.get_type().is(np.ndarray.bind(py)) {
                    return self.numpy(&ob, parent_refs, from);
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
            Err(fail_msg(format!(
                "cannot encode object of type '{}'",
                type_name(o)
            )))
        })
    }
}

/// How a dictionary that a document is written against learns from it.
pub(crate) enum Learn<'l> {
    /// As a self-growing dictionary (a stream's own): shapes and
    /// recurring value strings, within `AUTO_GROWTH_MAX_BASE`.
    Bounded(&'l mut roving::dictionary::Learner),
    /// As a user's `roving.Dictionary`: every shape it lacks, and the
    /// recurring value strings.
    Shapes(&'l mut roving::dictionary::Learner),
}

/// Encodes `obj` and passes the document's bytes to `f` (the stream
/// writer frames them into its buffer: no `bytes` object per record).
/// With `dict`, the document is written against it (maps of its shapes
/// refer to it) and `dict` learns from the document as the [`Learn`]
/// given with it says.
pub(crate) fn encode_with<R>(
    obj: &Bound<'_, PyAny>,
    options: &EncodeOptions,
    dict: Option<(&mut roving::Dictionary, Learn<'_>)>,
    f: impl FnOnce(&[u8]) -> R,
) -> PyResult<R> {
    // A bound encoder keeps its dictionary's base between documents in
    // its own slot (as `dumps(obj, dictionary=d)`'s).
    let cell = if dict.is_some() {
        &DICT_ENCODER
    } else {
        &ENCODER
    };
    with_encoder_in(cell, obj.py(), options, |st| {
        if let Some((d, _)) = &dict {
            st.enc.use_dictionary(d);
        }
        // SAFETY: `obj` is a live object the caller holds for the whole call.
        unsafe { st.root(obj.as_ptr()) }?;
        note_size(st.enc.len());
        match dict {
            Some((d, Learn::Bounded(learner))) => learner.learn(&st.enc, d),
            Some((d, Learn::Shapes(learner))) => {
                st.enc.grow_dictionary(d);
                learner.learn_strings(&st.enc, d);
            }
            None => {}
        }
        st.enc.finish_with(f).map_err(Box::<Fail>::from)
    })
}
