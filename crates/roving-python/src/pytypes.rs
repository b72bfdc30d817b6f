//! Python types and helpers shared by the encoder, the decoders and views.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule, PyType};

use roving::ElemType;

/// The well-known extension type ids and the payload checks of dates
/// and decimals, from the core ([`roving::layout::ext`]).
pub(crate) use roving::layout::ext::{
    date_payload, decimal_text, EXT_DATE, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA, EXT_UUID,
};

/// JSON text of this package's extension values (`to_json`, views'
/// `to_json`): a date as `YYYY-MM-DD`, a UUID in its canonical hex form, a
/// Decimal as its text, a time as `time.isoformat()` writes it, a
/// timedelta as an ISO 8601 duration in msgspec's form (`P1DT2.5S`), each
/// a JSON string (the forms typed `loads` accepts for those types); other
/// type ids, malformed date, UUID, time and timedelta payloads and Decimal
/// text that is not printable ASCII keep the core's
/// `{"$ext": ..., "$base64": ...}` form.
pub(crate) fn ext_json_text(type_id: u64, data: &[u8]) -> Option<String> {
    match type_id {
        EXT_DATE => date_payload(data)
            .ok()
            .map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}")),
        EXT_UUID => roving::layout::ext::uuid_payload(data).map(roving::layout::ext::uuid_text),
        EXT_DECIMAL => decimal_text(data).map(str::to_owned),
        EXT_TIME => crate::times::time_payload(data)
            .ok()
            .map(|t| crate::times::time_iso(&t)),
        EXT_TIMEDELTA => crate::times::timedelta_payload(data)
            .ok()
            .map(|d| crate::times::delta_iso(&d)),
        _ => None,
    }
}

/// Standard-library types looked up once.
pub(crate) struct Types {
    pub(crate) uuid: Py<PyType>,
    pub(crate) decimal: Py<PyType>,
    pub(crate) enum_: Py<PyType>,
    pub(crate) array: Py<PyType>,
    pub(crate) dataclass_fields: Py<PyAny>,
    pub(crate) field_marker: Py<PyAny>,
    pub(crate) timezone_cache: Py<PyDict>,
}

static TYPES: PyOnceLock<Types> = PyOnceLock::new();

/// The standard-library types (imported on first use).
pub(crate) fn types(py: Python<'_>) -> PyResult<&Types> {
    TYPES.get_or_try_init(py, || {
        let uuid = py
            .import("uuid")?
            .getattr("UUID")?
            .cast_into::<PyType>()?
            .unbind();
        let decimal = py
            .import("decimal")?
            .getattr("Decimal")?
            .cast_into::<PyType>()?
            .unbind();
        let enum_ = py
            .import("enum")?
            .getattr("Enum")?
            .cast_into::<PyType>()?
            .unbind();
        let array = py
            .import("array")?
            .getattr("array")?
            .cast_into::<PyType>()?
            .unbind();
        let dc = py.import("dataclasses")?;
        Ok(Types {
            uuid,
            decimal,
            enum_,
            array,
            dataclass_fields: pyo3::intern!(py, "__dataclass_fields__")
                .clone()
                .into_any()
                .unbind(),
            field_marker: dc.getattr("_FIELD")?.unbind(),
            timezone_cache: PyDict::new(py).unbind(),
        })
    })
}

/// numpy, when it can be imported.
pub(crate) struct Numpy {
    pub(crate) ndarray: Py<PyType>,
    pub(crate) generic: Py<PyType>,
    pub(crate) datetime64: Py<PyType>,
    pub(crate) timedelta64: Py<PyType>,
    /// `numpy.datetime_data(dtype)`: the unit and count of a datetime64 dtype.
    pub(crate) datetime_data: Py<PyAny>,
    pub(crate) frombuffer: Py<PyAny>,
    /// `numpy.stack`: typed `ndarray` of 2 or more dimensions, from its rows.
    pub(crate) stack: Py<PyAny>,
    /// dtypes indexed by `ElemType as usize`.
    pub(crate) dtypes: Vec<Option<Py<PyAny>>>,
}

static NUMPY: PyOnceLock<Option<Numpy>> = PyOnceLock::new();

fn load_numpy(py: Python<'_>, np: &Bound<'_, PyModule>) -> PyResult<Numpy> {
    let mut dtypes = Vec::new();
    for code in 0u8..=16 {
        dtypes.push(match ElemType::from_code(code) {
            Some(e) => Some(np.getattr("dtype")?.call1((dtype_str(e),))?.unbind()),
            None => None,
        });
    }
    let _ = py;
    Ok(Numpy {
        ndarray: np.getattr("ndarray")?.cast_into::<PyType>()?.unbind(),
        generic: np.getattr("generic")?.cast_into::<PyType>()?.unbind(),
        datetime64: np.getattr("datetime64")?.cast_into::<PyType>()?.unbind(),
        timedelta64: np.getattr("timedelta64")?.cast_into::<PyType>()?.unbind(),
        datetime_data: np.getattr("datetime_data")?.unbind(),
        frombuffer: np.getattr("frombuffer")?.unbind(),
        stack: np.getattr("stack")?.unbind(),
        dtypes,
    })
}

/// numpy, importing it if needed (`None` if it is not installed).
pub(crate) fn numpy_import(py: Python<'_>) -> Option<&Numpy> {
    NUMPY
        .get_or_init(py, || {
            py.import("numpy")
                .ok()
                .and_then(|np| load_numpy(py, &np).ok())
        })
        .as_ref()
}

/// numpy, only if some code already imported it (an object can only be a
/// numpy array if numpy is loaded, so encoding never imports it).
pub(crate) fn numpy_loaded(py: Python<'_>) -> Option<&Numpy> {
    if let Some(n) = NUMPY.get(py) {
        return n.as_ref();
    }
    let modules = py.import("sys").ok()?.getattr("modules").ok()?;
    if modules.get_item("numpy").is_err() {
        return None;
    }
    numpy_import(py)
}

/// numpy dtype string of an element type (little endian).
pub(crate) fn dtype_str(e: ElemType) -> &'static str {
    match e {
        ElemType::I8 => "i1",
        ElemType::U8 => "u1",
        ElemType::I16 => "<i2",
        ElemType::U16 => "<u2",
        ElemType::I32 => "<i4",
        ElemType::U32 => "<u4",
        ElemType::I64 => "<i8",
        ElemType::U64 => "<u8",
        ElemType::F32 => "<f4",
        ElemType::F64 => "<f8",
    }
}

/// `array.array` typecode of an element type.
pub(crate) fn array_typecode(e: ElemType) -> &'static str {
    match e {
        ElemType::I8 => "b",
        ElemType::U8 => "B",
        ElemType::I16 => "h",
        ElemType::U16 => "H",
        ElemType::I32 => "i",
        ElemType::U32 => "I",
        ElemType::I64 => "q",
        ElemType::U64 => "Q",
        ElemType::F32 => "f",
        ElemType::F64 => "d",
    }
}

/// A vector read from a document as a new Python object: for one dimension
/// as [`vector_to_py`]; a shaped vector as a writable numpy array of its
/// shape (a copy), or without numpy nested lists of `array.array` rows.
pub(crate) fn vector_value_to_py<'py>(
    py: Python<'py>,
    v: roving::Vector<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    if v.ndim() < 2 {
        return vector_to_py(py, v.elem_type(), v.raw());
    }
    let shape = v.shape();
    if numpy_import(py).is_some() {
        let flat = vector_to_py(py, v.elem_type(), v.raw())?;
        return reshape(py, &flat, &shape);
    }
    nested_rows(py, v.elem_type(), v.raw(), &shape)
}

/// `a.reshape(shape)` (a view of `a`, which is contiguous).
pub(crate) fn reshape<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let shape = pyo3::types::PyTuple::new(py, shape)?;
    a.call_method1(pyo3::intern!(py, "reshape"), (shape,))
}

/// The rows of a shaped vector's data `raw` as nested lists, down to
/// `array.array`s of the last dimension (without numpy).
fn nested_rows<'py>(
    py: Python<'py>,
    elem: ElemType,
    raw: &[u8],
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let [n, rest @ ..] = shape else {
        return vector_to_py(py, elem, raw);
    };
    if rest.is_empty() {
        return vector_to_py(py, elem, raw);
    }
    let row = rest.iter().product::<usize>() * elem.size();
    let out = pyo3::types::PyList::empty(py);
    for i in 0..*n {
        let part = raw.get(i * row..(i + 1) * row).unwrap_or_default();
        out.append(nested_rows(py, elem, part, rest)?)?;
    }
    Ok(out.into_any())
}

/// A vector (its raw little-endian bytes) as a new Python object: a writable
/// numpy array if numpy is installed, else an `array.array`.
pub(crate) fn vector_to_py<'py>(
    py: Python<'py>,
    elem: ElemType,
    raw: &[u8],
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(np) = numpy_import(py) {
        // A bytearray copy makes the array writable and owns the data.
        let ba = pyo3::types::PyByteArray::new(py, raw);
        let dt = np.dtypes[elem as usize]
            .as_ref()
            .map(|d| d.bind(py).clone());
        return np.frombuffer.bind(py).call1((ba, dt));
    }
    let t = types(py)?;
    let arr = t.array.bind(py).call1((array_typecode(elem),))?;
    let bytes = if cfg!(target_endian = "big") {
        let s = elem.size();
        let mut v = raw.to_vec();
        for c in v.chunks_exact_mut(s) {
            c.reverse();
        }
        v
    } else {
        raw.to_vec()
    };
    arr.call_method1("frombytes", (pyo3::types::PyBytes::new(py, &bytes),))?;
    Ok(arr)
}

/// Days since 1970-01-01 of a Python date's year (1..=9999), month and
/// day, as [`roving::timestamp::days_from_civil`] counts them (which has
/// a day count for every year within ±2^54, so the fallback is never
/// taken).
#[inline]
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    roving::timestamp::days_from_civil(year, month, day).unwrap_or(i64::MIN)
}

/// [`roving::timestamp::civil_from_days`] for `|days| <= 15_000_000` (about ±41,000 years),
/// in unsigned arithmetic with multiplications and shifts (Neri and
/// Schneider's algorithm): the same result, checked day by day over
/// ±2^40 seconds (the range [`crate::decode::timestamp`] converts).
#[inline]
pub(crate) fn civil_from_days_near(days: i64) -> (i64, u32, u32) {
    /// Whole 400-year eras added so that the day count is positive.
    const ERAS: u64 = 100;
    const SHIFT: u64 = 719_468 + 146_097 * ERAS;
    debug_assert!(days.unsigned_abs() <= 15_000_000);
    let n = days.wrapping_add(SHIFT as i64) as u64;
    let n1 = 4 * n + 3;
    let century = n1 / 146_097;
    let n2 = (n1 % 146_097) | 3;
    let p2 = 2_939_745 * n2;
    let year_of_century = p2 >> 32;
    let day_of_year = (p2 & 0xFFFF_FFFF) / 2_939_745 / 4;
    let n3 = 2_141 * day_of_year + 197_913;
    let (m, d) = (n3 >> 16, (n3 & 0xFFFF) / 2_141 + 1);
    let jan_feb = day_of_year >= 306;
    let y = (100 * century + year_of_century) as i64 - 400 * ERAS as i64 + jan_feb as i64;
    (y, if jan_feb { m - 12 } else { m } as u32, d as u32)
}

/// CPython's datetime C API (imported on first use).
#[inline]
pub(crate) fn datetime_api(py: Python<'_>) -> PyResult<*const ffi::PyDateTime_CAPI> {
    // SAFETY: reading the API pointer is an atomic load; importing it is
    // a plain C API call with the thread attached.
    unsafe {
        let mut api = ffi::PyDateTimeAPI();
        if api.is_null() {
            ffi::PyDateTime_IMPORT();
            api = ffi::PyDateTimeAPI();
            if api.is_null() {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(api)
    }
}

/// `datetime.timezone` of a UTC offset in seconds (cached).
pub(crate) fn timezone<'py>(
    py: Python<'py>,
    offset: i32,
) -> PyResult<Bound<'py, pyo3::types::PyTzInfo>> {
    use pyo3::types::{PyDelta, PyTzInfo};
    if offset == 0 {
        return Ok(PyTzInfo::utc(py)?.to_owned());
    }
    let cache = types(py)?.timezone_cache.bind(py);
    if let Some(tz) = cache.get_item(offset)? {
        return Ok(tz.cast_into()?);
    }
    let tz = PyTzInfo::fixed_offset(py, PyDelta::new(py, 0, offset, 0, true)?)?;
    if cache.len() < 1024 {
        cache.set_item(offset, &tz)?;
    }
    Ok(tz)
}

/// A Python `str` from UTF-8 bytes. ASCII is copied straight into a compact
/// string; anything else goes through CPython's (validating) UTF-8 decoder,
/// so invalid bytes give an exception, never a bad string.
#[inline]
pub(crate) fn make_str<'py>(py: Python<'py>, b: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let len = b.len() as ffi::Py_ssize_t;
    if let [c @ 0..=127] = *b {
        // One ASCII character: CPython's own cached string of it (no
        // allocation, and none to free later).
        // SAFETY: plain C API call; returns a new reference or NULL.
        return unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyUnicode_FromOrdinal(c.into())) };
    }
    // SAFETY: PyUnicode_New(len, 127) returns a compact ASCII string with
    // room for `len` bytes (plus the NUL CPython wrote) or NULL. We copy
    // `len` bytes into it, then check the copy is ASCII before handing it
    // out (a concurrent writer of `b` cannot make the result invalid); if
    // it is not, the object is freed and the UTF-8 decoder is used.
    unsafe {
        if b.len() <= 64 || is_ascii(b) {
            let o = ffi::PyUnicode_New(len, 127);
            if o.is_null() {
                return Err(PyErr::fetch(py));
            }
            let data = ffi::PyUnicode_DATA(o).cast::<u8>();
            let ascii = if b.len() <= 32 {
                copy_short(b, std::slice::from_raw_parts_mut(data, b.len()))
            } else {
                std::ptr::copy_nonoverlapping(b.as_ptr(), data, b.len());
                is_ascii(std::slice::from_raw_parts(data, b.len()))
            };
            if ascii {
                return Ok(Bound::from_owned_ptr(py, o));
            }
            ffi::Py_DECREF(o);
        }
        decode_utf8(py, b)
    }
}

/// Copies `b` (at most 32 bytes) to `dst` (as long) as two overlapping
/// words, and tells whether the bytes copied are ASCII (checked on the
/// words written, not read again from `b`).
#[inline(always)]
fn copy_short(b: &[u8], dst: &mut [u8]) -> bool {
    let copied = match b.len() {
        16.. => copy_two::<16>(b, dst),
        8.. => copy_two::<8>(b, dst),
        4.. => copy_two::<4>(b, dst),
        _ => None,
    };
    copied.unwrap_or_else(|| {
        let mut high = 0u8;
        for (d, &c) in dst.iter_mut().zip(b) {
            *d = c;
            high |= c;
        }
        high & 0x80 == 0
    })
}

/// [`copy_short`] of `b` (`N` to `2N` bytes) as its first and its last `N`
/// bytes; `None` if `b` is shorter than `N` or `dst` not as long as `b`.
#[inline(always)]
fn copy_two<const N: usize>(b: &[u8], dst: &mut [u8]) -> Option<bool> {
    let (lo, hi) = (b.first_chunk::<N>()?, b.last_chunk::<N>()?);
    let n = b.len();
    if dst.len() != n {
        return None;
    }
    dst.first_chunk_mut::<N>()?.copy_from_slice(lo);
    dst.last_chunk_mut::<N>()?.copy_from_slice(hi);
    // Both words in one wide integer, zero-padded (N is at most 16).
    let (mut a, mut c) = ([0u8; 16], [0u8; 16]);
    a.get_mut(..N)?.copy_from_slice(lo);
    c.get_mut(..N)?.copy_from_slice(hi);
    let or = u128::from_ne_bytes(a) | u128::from_ne_bytes(c);
    Some(or & 0x8080_8080_8080_8080_8080_8080_8080_8080 == 0)
}

/// A `str` of non-ASCII UTF-8 bytes (or an exception for invalid bytes).
#[inline(never)]
fn decode_utf8<'py>(py: Python<'py>, b: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: the decoder reads `len` bytes at `b` and returns a new
    // reference or NULL with an exception set.
    unsafe {
        let o = ffi::PyUnicode_DecodeUTF8(
            b.as_ptr().cast(),
            b.len() as ffi::Py_ssize_t,
            c"strict".as_ptr(),
        );
        Bound::from_owned_ptr_or_err(py, o)
    }
}

/// True if every byte is ASCII: eight bytes at a time, the tail read as
/// overlapping words (short strings are most strings: no byte loop).
#[inline(always)]
fn is_ascii(b: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = b.len();
    let word = |i: usize| u64::from_ne_bytes(b[i..i + 8].try_into().unwrap_or([0xFF; 8]));
    if n >= 8 {
        let mut acc = word(n - 8);
        let mut i = 0;
        while i + 8 <= n {
            acc |= word(i);
            i += 8;
        }
        return acc & HIGH == 0;
    }
    let acc = if n >= 4 {
        let w = |i: usize| u32::from_ne_bytes(b[i..i + 4].try_into().unwrap_or([0xFF; 4]));
        w(0) | w(n - 4)
    } else if n >= 2 {
        let w = |i: usize| u16::from_ne_bytes(b[i..i + 2].try_into().unwrap_or([0xFF; 2]));
        u32::from(w(0) | w(n - 2))
    } else if n == 1 {
        u32::from(b[0])
    } else {
        0
    };
    u64::from(acc) & HIGH == 0
}

/// The `__dataclass_fields__` names of a dataclass type that are real fields
/// (not `ClassVar`/`InitVar`), in definition order; `None` if `t` is not a dataclass.
pub(crate) fn dataclass_field_names<'py>(
    t: &Bound<'py, PyType>,
) -> PyResult<Option<Vec<Bound<'py, pyo3::types::PyString>>>> {
    let py = t.py();
    let ty = types(py)?;
    let fields = match t.getattr_opt(
        ty.dataclass_fields
            .bind(py)
            .cast::<pyo3::types::PyString>()?,
    )? {
        Some(f) => f,
        None => return Ok(None),
    };
    let fields = match fields.cast_into::<PyDict>() {
        Ok(f) => f,
        Err(_) => return Ok(None),
    };
    let marker = ty.field_marker.bind(py);
    let mut out = Vec::with_capacity(fields.len());
    for (name, field) in fields.iter() {
        let ft = field.getattr(pyo3::intern!(py, "_field_type"))?;
        if ft.is(marker) {
            let mut s = name.cast_into::<pyo3::types::PyString>()?;
            // Interned names make attribute access fast.
            let mut p = s.into_ptr();
            // SAFETY: p is an owned str reference; InternInPlace may replace
            // it with another owned reference.
            unsafe {
                ffi::PyUnicode_InternInPlace(&mut p);
                s = Bound::from_owned_ptr(py, p).cast_into_unchecked();
            }
            out.push(s);
        }
    }
    Ok(Some(out))
}
