//! Writing typed vectors: `array.array` and numpy arrays (of 2 or more
//! dimensions as shaped vectors, which keep their shape).

use pyo3::ffi;
use pyo3::prelude::*;

use roving::ElemType;

use crate::pytypes;

use super::failure::{fail_msg, EncodeResult};
use super::{MemoEntry, State};

impl<'py> State<'py, '_> {
    /// A buffer of elements `elem` (C-contiguous, little-endian) as a
    /// vector, or with `shape` (2 or more dimensions) as a shaped vector;
    /// an object referenced elsewhere too is written once and shared.
    pub(super) fn tracked_vector(
        &mut self,
        ob: &Bound<'py, PyAny>,
        parent_refs: isize,
        elem: ElemType,
        shape: Option<&[usize]>,
    ) -> EncodeResult {
        let o = ob.as_ptr();
        // SAFETY: `o` is alive through `ob`.
        let shared = unsafe { ffi::Py_REFCNT(o) } > parent_refs;
        let key = o as usize;
        if shared {
            if let Some(MemoEntry::Done(m)) = self.tables.memo.get(&key) {
                return Ok(self.enc.reuse(*m)?);
            }
        }
        let b = pyo3::buffer::PyUntypedBuffer::get(ob)?;
        if !b.is_c_contiguous() || b.len_bytes() % elem.size() != 0 {
            return Err(fail_msg("vector buffer is not contiguous".into()));
        }
        // SAFETY: the buffer export keeps `len_bytes` bytes at `buf_ptr`
        // readable while `b` lives; we hold the GIL, so no Python code runs.
        let s = unsafe { std::slice::from_raw_parts(b.buf_ptr() as *const u8, b.len_bytes()) };
        let le;
        let s = if cfg!(target_endian = "big") {
            let mut v = s.to_vec();
            for c in v.chunks_exact_mut(elem.size()) {
                c.reverse();
            }
            le = v;
            &le[..]
        } else {
            s
        };
        match shape {
            Some(shape) => self.enc.shaped_vector_raw(elem, shape, s)?,
            None => self.enc.vector_raw(elem, s)?,
        }
        if shared {
            if let Some(m) = self.enc.mark() {
                self.tables.memo.insert(key, MemoEntry::Done(m));
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
    pub(super) fn numpy_subclass(
        &mut self,
        ob: &Bound<'py, PyAny>,
        from: Option<(*mut ffi::PyTypeObject, u32)>,
    ) -> EncodeResult {
        let py = self.py;
        let masked = py.import("numpy.ma")?.getattr("MaskedArray")?;
        if ob.is_instance(&masked)? {
            return self.call_default(ob, from, || {
                Err(fail_msg(
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

    pub(super) fn numpy(
        &mut self,
        ob: &Bound<'py, PyAny>,
        parent_refs: isize,
        from: Option<(*mut ffi::PyTypeObject, u32)>,
    ) -> EncodeResult {
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
            (Some(e), 1..) => e,
            _ => {
                return self.call_default(ob, from, || {
                    let shape = ob.getattr(pyo3::intern!(py, "shape"))?.repr()?.to_string();
                    Err(fail_msg(format!(
                        "cannot encode numpy array of dtype {} and shape {shape} (only integer and float32/float64 arrays)",
                        dtype.str()?
                    )))
                });
            }
        };
        // Two or more dimensions: a shaped vector (row-major, as the
        // C-contiguous copy below is).
        let shape: Option<Vec<usize>> = if ndim > 1 {
            Some(ob.getattr(pyo3::intern!(py, "shape"))?.extract()?)
        } else {
            None
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
        let parent_refs = if arr.is(ob) { parent_refs } else { 1 };
        self.tracked_vector(&arr, parent_refs, elem, shape.as_deref())
    }
}

pub(super) fn array_elem(code: &str, size: usize) -> Option<ElemType> {
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
