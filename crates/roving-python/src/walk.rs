//! `_records` and `_root`: the core's record walker (`roving::walk`) for
//! the `roving stats` and `roving dump` commands, which know no byte
//! positions themselves.

use std::collections::HashSet;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use roving::walk::{self, Record, Slot};
use roving::Value;

use crate::errors::from_core;
use crate::{decode, with_bytes};

/// A slot as `(kind, value)`: `("ref", offset)`, `("int", n)` or
/// `("special", k)` (`k` a special constant, 0 null to 5 empty map).
fn slot<'py>(py: Python<'py>, s: Slot) -> PyResult<Bound<'py, PyTuple>> {
    let (kind, v) = match s {
        Slot::Ref(p) => (pyo3::intern!(py, "ref"), p.into_pyobject(py)?),
        Slot::Int(i) => (pyo3::intern!(py, "int"), i.into_pyobject(py)?),
        Slot::Special(k) => (pyo3::intern!(py, "special"), k.into_pyobject(py)?),
    };
    PyTuple::new(py, [kind.clone().into_any(), v.into_any()])
}

/// The Python value of a scalar record, as `dump` prints it: strings,
/// numbers and byte strings as themselves; a timestamp as
/// `(seconds, nanoseconds, offset or None)` (datetime has neither
/// nanoseconds nor every year); an extension value as the package decodes
/// it (`date`, `UUID`, `Decimal`, `time`, `timedelta`, else `roving.Ext`,
/// which a malformed payload of the package's own types also gives); a
/// vector or a number array as `(count, [its first 8 elements], shape)`;
/// a map of numbers as the list of its values (None for a later map of
/// numbers of the same number array),
/// a string array as the list of its strings, a packed shape as the list
/// of its keys (a number array's and a 1-D vector's shape is `[count]`).
fn value<'py>(
    py: Python<'py>,
    r: &Record<'_>,
    doc: &[u8],
    shown: &mut HashSet<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(keys) = r.packed_keys() {
        // A packed shape: the list of its keys.
        return Ok(PyList::new(py, keys)?.into_any());
    }
    let Some(v) = r.value() else {
        return Ok(py.None().into_bound(py));
    };
    Ok(match v {
        Value::Timestamp(t) => (t.seconds, t.nanos, t.offset).into_pyobject(py)?.into_any(),
        Value::Ext(e) => match decode::ext(py, e.type_id, e.data, doc) {
            Ok(o) => o,
            Err(_) => Bound::new(
                py,
                crate::Ext::new(e.type_id, PyBytes::new(py, e.data).unbind()),
            )?
            .into_any(),
        },
        Value::Vector(vec) => {
            let first = PyList::empty(py);
            for x in vec.iter().take(8) {
                match x {
                    roving::read::Scalar::Int(i) => first.append(i)?,
                    roving::read::Scalar::UInt(u) => first.append(u)?,
                    roving::read::Scalar::Float(f) => first.append(f)?,
                }
            }
            (vec.len(), first, vec.shape())
                .into_pyobject(py)?
                .into_any()
        }
        // A string array: the list of its strings.
        Value::Array(a) if a.is_string_array() => decode::scalar(py, v, doc)?,
        // A map of numbers: the list of its values, for the first map of
        // numbers of its number array only (many maps of a few bytes may
        // share one large array: the work stays linear in the document).
        Value::Map(m) => {
            let array = r.slots().next().and_then(|s| match s {
                Slot::Ref(p) => Some(p),
                _ => None,
            });
            if array.is_some_and(|p| !shown.insert(p)) {
                return Ok(py.None().into_bound(py));
            }
            let values = PyList::empty(py);
            for x in m.values() {
                values.append(decode::scalar(py, x, doc)?)?;
            }
            values.into_any()
        }
        // A number array, as a vector.
        Value::Array(a) => {
            let first = PyList::empty(py);
            for x in a.iter().take(8) {
                first.append(decode::scalar(py, x, doc)?)?;
            }
            (a.len(), first, [a.len()]).into_pyobject(py)?.into_any()
        }
        v => decode::scalar(py, v, doc)?,
    })
}

/// A record as the tuple `_records` gives.
fn record<'py>(
    py: Python<'py>,
    r: &Record<'_>,
    doc: &[u8],
    values: Option<&mut HashSet<usize>>,
) -> PyResult<Bound<'py, PyTuple>> {
    // A stride array has no slots, but gives its elements as references;
    // a map of numbers gives its number array as one.
    let slots = if r.kind().has_slots()
        || matches!(
            r.kind(),
            roving::walk::Kind::StrideArray | roving::walk::Kind::NumMap
        ) {
        let items = r
            .slots()
            .map(|s| slot(py, s))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, items)?
    } else {
        PyTuple::empty(py)
    };
    let v = if let Some(shown) = values {
        value(py, r, doc, shown)?
    } else {
        py.None().into_bound(py)
    };
    let kind = pyo3::types::PyString::intern(py, r.kind().name());
    let enc = pyo3::types::PyString::intern(py, r.encoding());
    (
        r.offset(),
        r.end(),
        kind,
        enc,
        // A number array: its element size and count, as stats prints them.
        r.numbers().map_or(r.width(), |(size, _)| size),
        r.numbers().map_or(r.slot_count(), |(_, count)| count),
        r.shape(),
        slots,
        v,
    )
        .into_pyobject(py)
}

/// Validates the bytes of `data` (a copy of a buffer that is not `bytes`,
/// which Python code run meanwhile could change) and calls `f` with the
/// document.
fn with_doc<T>(
    data: &Bound<'_, PyAny>,
    f: impl FnOnce(roving::Document<'_>) -> PyResult<T>,
) -> PyResult<T> {
    let py = data.py();
    with_bytes(data, |b, immutable| {
        let copy;
        let b = if immutable {
            b
        } else {
            copy = b.to_vec();
            &copy[..]
        };
        f(decode::open_validated(py, b, immutable)?)
    })
}

/// _records(data, /, *, values=False) -> list[tuple]
///
/// Validates a document and lists its records in order, each as
/// `(offset, end, kind, encoding, width, count, shape, slots, value)`:
/// `kind` is `"str"`, `"int"`, `"uint"`, `"bigint"`, `"float"`,
/// `"timestamp"`, `"bytes"`, `"ext"`, `"vector"`, `"array"`, `"map"`,
/// `"map of numbers"`, `"shape"` or `"root"` (and the other kinds of
/// `roving::walk::Kind::name`); `encoding` as `roving stats` prints it
/// (`"short str"`, `"map/2"`, `"vector<f64>"`...); `width` and `count` the
/// slot width and number of slots (0 for scalars); `shape` a map's shape
/// offset, else None; `slots` a tuple of `(kind, value)` pairs (`"ref"`
/// and an offset, `"int"` and an int, `"special"` and a constant 0 to 5);
/// `value`, with `values=True`, a scalar record's value (see the CLI's
/// `dump`), else None.
#[pyfunction]
#[pyo3(signature = (data, /, *, values=false))]
pub(crate) fn _records<'py>(
    data: &Bound<'py, PyAny>,
    values: bool,
) -> PyResult<Bound<'py, PyList>> {
    let py = data.py();
    with_doc(data, |doc| {
        let buf = doc.as_bytes();
        let out = PyList::empty(py);
        let mut shown = HashSet::new();
        for r in walk::records(&doc).map_err(|e| from_core(py, &e))? {
            let r = r.map_err(|e| from_core(py, &e))?;
            out.append(record(py, &r, buf, values.then_some(&mut shown))?)?;
        }
        Ok(out)
    })
}

/// _root(data, /) -> tuple[tuple[str, int], tuple | None]
///
/// Validates a document and gives its root slot (a `(kind, value)` pair as
/// in `_records`) and, if it is a reference, the record it refers to (a
/// tuple as `_records` gives, without a value), else None. O(1) after the
/// validation.
#[pyfunction]
#[pyo3(signature = (data, /))]
pub(crate) fn _root<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let py = data.py();
    with_doc(data, |doc| {
        let core = |e: roving::Error| from_core(py, &e);
        let root = walk::root(&doc).map_err(core)?;
        let Some(s) = root.slots().next() else {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "the root has no slot",
            ));
        };
        let target = match s {
            Slot::Ref(p) => {
                let r = walk::record_at(&doc, p).map_err(core)?;
                record(py, &r, doc.as_bytes(), None)?.into_any()
            }
            _ => py.None().into_bound(py),
        };
        PyTuple::new(py, [slot(py, s)?.into_any(), target])
    })
}

/// Adds `_records` and `_root` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_records, m)?)?;
    m.add_function(wrap_pyfunction!(_root, m)?)?;
    Ok(())
}
