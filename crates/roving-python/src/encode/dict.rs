//! Writing dicts: exact dicts by their own iteration (keys cached by
//! identity), subclasses through `items()`, and keys that are not `str`
//! (`non_str_keys=True`).

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDate, PyDateTime, PyString, PyType};

use roving::{KeyId, Mark};

use crate::error_path::PathStep;
use crate::pytypes;

use super::failure::{fail_msg, Fail};
use super::strings::str_bytes;
use super::{type_name, State};

/// Most distinct key objects remembered per document.
const KEY_CACHE_MAX: usize = 1 << 12;
/// Fewest keys of a dict written with packed keys (see [`State::packed_dict`]).
const PACKED_MIN: usize = 16;
/// Keys of a dict looked at to tell whether its keys are its own.
const PACKED_SAMPLE: usize = 4;
/// Depths that remember the key sequence of their last dict.
const SEQ_DEPTHS: usize = 32;

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

/// `base.__str__(ob)` (`ob` an instance of `base`): `str(ob)` for `base`
/// itself, the base's text for a subclass that has its own `__str__`.
pub(super) fn base_str(ob: &Bound<'_, PyAny>, base: &Bound<'_, PyType>) -> PyResult<String> {
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

impl<'py> State<'py, '_> {
    pub(super) unsafe fn dict(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        // SAFETY: `o` is a live exact dict (caller's contract).
        if self.options.non_str_keys && unsafe { has_non_str_key(o) } {
            // SAFETY: as above.
            return unsafe { self.dict_items(o) };
        }
        // The keys expected at each position (from the last dict at this
        // depth), and whether this dict's keys are still being recorded.
        let mut seq = self
            .tables
            .seqs
            .get_mut(self.depth)
            .map(std::mem::take)
            .unwrap_or_default();
        // SAFETY: `o` is a live exact dict; its first key is only
        // compared by address.
        let first = unsafe {
            if crate::dictiter::dict_len(o) >= PACKED_MIN {
                crate::dictiter::DictIter::new(o).next()
            } else {
                None
            }
        };
        if first.is_some_and(|(k, _)| seq.first().is_none_or(|&(a, _)| a != k as usize)) {
            // SAFETY: as above.
            if let Some(r) = unsafe { self.packed_dict(o) } {
                self.put_seq(seq);
                return r;
            }
        }
        self.enc.begin_map()?;
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
                self.dict_value(&mut items, k, v)?;
            }
        }
        self.put_seq(seq);
        Ok(self.enc.end_map()?)
    }

    /// Keeps `seq` as the key sequence of the last dict at this depth.
    #[inline(always)]
    fn put_seq(&mut self, seq: Vec<(usize, KeyId)>) {
        let d = self.depth;
        if d < SEQ_DEPTHS {
            if self.tables.seqs.len() <= d {
                self.tables.seqs.resize_with(d + 1, Vec::new);
            }
            self.tables.seqs[d] = seq;
        }
    }

    /// Writes the exact dict `o` (of [`PACKED_MIN`] keys or more) with
    /// packed keys ([`roving::Encoder::begin_map_with_keys`]) if its keys
    /// look like its own: the first [`PACKED_SAMPLE`] are exact `str`
    /// objects that nothing else holds (at most one other reference: a
    /// dict keyed by ids, built from data), and no dict of this document
    /// written with packed keys began with the same keys. (The caller
    /// checks first that the first key is not the one the last dict at
    /// this depth began with.) Keys that records share (field names:
    /// literals, keys `json.loads` made once for every object) are held
    /// by many dicts, and their maps keep shapes of shared key strings.
    /// `None` when not taken (nothing written). The keys are read in one
    /// pass, the first [`PACKED_SAMPLE`] checked as they come.
    ///
    /// # Safety
    /// `o` must be a live exact dict.
    #[inline(never)]
    unsafe fn packed_dict(&mut self, o: *mut ffi::PyObject) -> Option<Result<Mark, Box<Fail>>> {
        // SAFETY: `o` is a live exact dict; no Python code runs while the
        // keys are read, and they stay alive (held by the dict) until the
        // values are written: the `&str`s borrowed from them are used
        // before any value's conversion can run Python code.
        unsafe {
            let n = crate::dictiter::dict_len(o);
            let mut keys: Vec<&str> = Vec::new();
            let mut sig = 0u64;
            let mut items = crate::dictiter::DictIter::new(o);
            while let Some((k, _)) = items.next() {
                let i = keys.len();
                if ffi::Py_TYPE(k) != tp!(PyUnicode_Type)
                    || (i < PACKED_SAMPLE && ffi::Py_REFCNT(k) > 2)
                {
                    return None;
                }
                let kb = str_bytes(k)?;
                if i < PACKED_SAMPLE {
                    sig = (sig ^ roving::layout::key_hash(kb))
                        .rotate_left(23)
                        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    // Dicts that begin with the same keys (each its own
                    // objects, as from a decoder that does not share keys)
                    // share a shape.
                    if i + 1 == PACKED_SAMPLE {
                        if self.tables.packed.insert(sig as usize, ()).is_some() {
                            return None;
                        }
                        keys.reserve(n);
                    }
                }
                keys.push(std::str::from_utf8_unchecked(kb));
            }
            if let Err(e) = self.enc.begin_map_with_keys(&keys) {
                return Some(Err(e.into()));
            }
            drop(keys);
            let mut items = crate::dictiter::DictIter::new(o);
            let mut written = 0usize;
            while let Some((k, v)) = items.next() {
                written += 1;
                if let Err(f) = self.dict_value(&mut items, k, v) {
                    return Some(Err(f));
                }
                // Python code run for a value (a `default` hook) may have
                // changed the dict: its keys are written already.
                if crate::dictiter::dict_len(o) != n {
                    break;
                }
            }
            if written != n || crate::dictiter::dict_len(o) != n {
                return Some(Err(fail_msg(
                    "dict changed size during encoding".to_owned(),
                )));
            }
            Some(self.enc.end_map().map_err(Into::into))
        }
    }

    /// Writes `v`, the value of key `k` of the dict that `items` steps
    /// through (refreshed if Python code ran); a failure's path ends with
    /// the key. Scalars are written without running Python code; any
    /// other value is held strongly, with its key, while it is encoded.
    ///
    /// # Safety
    /// `k` and `v` must be a live key and value of that dict.
    #[inline(always)]
    unsafe fn dict_value(
        &mut self,
        items: &mut crate::dictiter::DictIter,
        k: *mut ffi::PyObject,
        v: *mut ffi::PyObject,
    ) -> Result<(), Box<Fail>> {
        // SAFETY: the caller's contract.
        unsafe {
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
            } else if t == tp!(PyList_Type) && ffi::PyList_GET_SIZE(v) == 0 {
                // Empty containers run no Python code either (and are
                // never shared: every empty one is the same constant).
                self.empty(false)
            } else if t == tp!(PyDict_Type) && crate::dictiter::dict_len(v) == 0 {
                self.empty(true)
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
                    f.path.push(PathStep::Object(key.unbind()));
                    return Err(f);
                }
                Ok(())
            };
            if let Err(mut f) = r {
                // No Python code ran: the borrowed key is still alive.
                f.path.push(PathStep::Object(
                    Bound::from_borrowed_ptr(self.py, k).unbind(),
                ));
                return Err(f);
            }
            Ok(())
        }
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
        f.path.push(PathStep::Object(key.unbind()));
        f
    }

    /// The error for a key of a type that is not written (without its path).
    #[cold]
    fn key_type_error(&self, k: &Bound<'py, PyAny>) -> Box<Fail> {
        let r = k.repr().map(|r| r.to_string()).unwrap_or_default();
        let got = format!("{} {r}", type_name(k.as_ptr()));
        fail_msg(if self.options.non_str_keys {
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
                _ => Err(fail_msg(format!(
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
    pub(super) unsafe fn dict_items(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
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
                    } else if self.options.non_str_keys {
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
                            f.path.push(PathStep::Object(k.unbind()));
                            return Err(f);
                        }
                    }
                }
            };
            if self.options.non_str_keys && !seen.insert(key.to_owned()) {
                let mut f = fail_msg(format!(
                    "two keys of this dict are written as {key:?} (non_str_keys=True)"
                ));
                f.path.push(PathStep::Object(k.unbind()));
                return Err(f);
            }
            self.enc.key(key)?;
            // `v` is held by the dict and by the (k, v) tuple... and by us.
            if let Err(mut f) = self.owned(v, 3) {
                f.path.push(PathStep::Object(k.unbind()));
                return Err(f);
            }
        }
        Ok(self.enc.end_map()?)
    }
}
