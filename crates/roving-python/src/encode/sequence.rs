//! Writing lists, tuples and sets as arrays.

use pyo3::ffi;
use pyo3::prelude::*;

use roving::Mark;

use crate::error_path::PathStep;

use super::failure::Fail;
use super::int::small_int;
use super::strings::str_bytes;
use super::State;

/// Fewest items of a list of strings written by `Encoder::array_str`
/// (shorter ones item by item: the same bytes).
const STR_LIST_MIN: isize = 8;

impl<'py> State<'py, '_> {
    pub(super) unsafe fn list(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        // SAFETY: `o` is a live list (caller's contract).
        if let Some(m) = unsafe { self.number_list(o) } {
            return m;
        }
        // SAFETY: as above.
        if let Some(m) = unsafe { self.str_list(o) } {
            return m;
        }
        self.enc.begin_array()?;
        let mut i = 0;
        // SAFETY: `o` is a live list; the size is re-read at each step (a
        // hook may shrink it) and each item that may run Python code is held
        // strongly while encoded.
        unsafe {
            while i < ffi::PyList_GET_SIZE(o) {
                let v = ffi::PyList_GET_ITEM(o, i);
                // The item some steps ahead, if there (only prefetched).
                let ahead = i + crate::prefetch::AHEAD as ffi::Py_ssize_t;
                if ahead < ffi::PyList_GET_SIZE(o) {
                    crate::prefetch::prefetch(ffi::PyList_GET_ITEM(o, ahead));
                }
                let t = ffi::Py_TYPE(v);
                // Strings need no strong reference: no Python code runs.
                let r = if t == tp!(PyUnicode_Type) {
                    self.str(v)
                } else if t == tp!(PyDict_Type) {
                    let item = Bound::from_borrowed_ptr(self.py, v);
                    self.dict_value_of(item.as_ptr(), 2)
                } else {
                    let item = Bound::from_borrowed_ptr(self.py, v);
                    self.value(item.as_ptr(), 2)
                };
                if let Err(mut f) = r {
                    f.path.push(PathStep::Index(i as usize));
                    return Err(f);
                }
                i += 1;
            }
        }
        Ok(self.enc.end_array()?)
    }

    /// A list of only floats, or only ints within `i64` (exact types, not
    /// subclasses, so no Python code runs), written in one call
    /// (`Encoder::array_f64`, `array_i64`: the bytes the element-by-element
    /// path writes, without a record per element first); `None` for any
    /// other list (then nothing was written).
    ///
    /// # Safety
    /// `o` must be a live list.
    unsafe fn number_list(&mut self, o: *mut ffi::PyObject) -> Option<Result<Mark, Box<Fail>>> {
        // SAFETY: `o` is a live list; no Python code runs below (only exact
        // floats and ints are read), so its size and items stay as they are.
        unsafe {
            let n = ffi::PyList_GET_SIZE(o);
            if n == 0 {
                return None;
            }
            let first = ffi::Py_TYPE(ffi::PyList_GET_ITEM(o, 0));
            if first == tp!(PyFloat_Type) {
                let mut xs = std::mem::take(&mut self.tables.floats);
                xs.clear();
                for i in 0..n {
                    let v = ffi::PyList_GET_ITEM(o, i);
                    if ffi::Py_TYPE(v) != tp!(PyFloat_Type) {
                        self.tables.floats = xs;
                        return None;
                    }
                    xs.push(ffi::PyFloat_AS_DOUBLE(v));
                }
                let r = self.enc.array_f64(&xs).map_err(Into::into);
                self.tables.floats = xs;
                return Some(r);
            }
            if first == tp!(PyLong_Type) {
                let mut xs = std::mem::take(&mut self.tables.ints);
                xs.clear();
                for i in 0..n {
                    let v = ffi::PyList_GET_ITEM(o, i);
                    let mut overflow = 0;
                    let x = if ffi::Py_TYPE(v) != tp!(PyLong_Type) {
                        overflow = 1;
                        0
                    } else if let Some(x) = small_int(v) {
                        // (Read in place: no call.)
                        x
                    } else {
                        ffi::PyLong_AsLongLongAndOverflow(v, &mut overflow)
                    };
                    if overflow != 0 {
                        self.tables.ints = xs;
                        return None;
                    }
                    xs.push(x);
                }
                let r = self.enc.array_i64(&xs).map_err(Into::into);
                self.tables.ints = xs;
                return Some(r);
            }
            None
        }
    }

    /// A list of at least [`STR_LIST_MIN`] items, all exact `str`s with a
    /// UTF-8 form, written in one call (`Encoder::array_str`: the bytes
    /// the item-by-item path writes); `None` for any other list (then
    /// nothing was written).
    ///
    /// # Safety
    /// `o` must be a live list.
    unsafe fn str_list(&mut self, o: *mut ffi::PyObject) -> Option<Result<Mark, Box<Fail>>> {
        // SAFETY: `o` is a live list; no Python code runs below (only exact
        // strs are read), so its items stay alive and as they are until
        // `array_str` returns.
        unsafe {
            let n = ffi::PyList_GET_SIZE(o);
            if n < STR_LIST_MIN || ffi::Py_TYPE(ffi::PyList_GET_ITEM(o, 0)) != tp!(PyUnicode_Type) {
                return None;
            }
            let mut items: Vec<&str> = Vec::with_capacity(n as usize);
            for i in 0..n {
                let v = ffi::PyList_GET_ITEM(o, i);
                // The item some steps ahead, if there (only prefetched).
                let ahead = i + crate::prefetch::AHEAD as ffi::Py_ssize_t;
                if ahead < n {
                    crate::prefetch::prefetch(ffi::PyList_GET_ITEM(o, ahead));
                }
                if ffi::Py_TYPE(v) != tp!(PyUnicode_Type) {
                    return None;
                }
                match str_bytes(v) {
                    Some(b) => items.push(std::str::from_utf8_unchecked(b)),
                    None => {
                        // (A lone surrogate: the item-by-item path raises.)
                        drop(PyErr::take(self.py));
                        return None;
                    }
                }
            }
            Some(self.enc.array_str(&items).map_err(Into::into))
        }
    }

    pub(super) unsafe fn tuple(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        self.enc.begin_array()?;
        // SAFETY: `o` is a live tuple we hold; tuples are immutable, so their
        // items stay alive while we hold the tuple.
        unsafe {
            let n = ffi::PyTuple_GET_SIZE(o);
            for i in 0..n {
                if let Err(mut f) = self.value(ffi::PyTuple_GET_ITEM(o, i), 1) {
                    f.path.push(PathStep::Index(i as usize));
                    return Err(f);
                }
            }
        }
        Ok(self.enc.end_array()?)
    }

    /// A set or frozenset (or subclass), as an array of its items in
    /// iteration order (as msgspec writes them); `type=set[T]` reads it back.
    pub(super) unsafe fn set(&mut self, o: *mut ffi::PyObject) -> Result<Mark, Box<Fail>> {
        // SAFETY: `o` is live (caller's contract).
        let ob = unsafe { Bound::from_borrowed_ptr(self.py, o) };
        self.enc.begin_array()?;
        // The iterator raises if a hook changes the set's size meanwhile.
        for (i, item) in ob.try_iter()?.enumerate() {
            let item = item?;
            // SAFETY: `item` holds the object (its set holds it too) while
            // it is encoded.
            if let Err(mut f) = unsafe { self.value(item.as_ptr(), 2) } {
                f.path.push(PathStep::Index(i));
                return Err(f);
            }
        }
        Ok(self.enc.end_array()?)
    }
}
