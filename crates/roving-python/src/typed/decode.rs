//! Decoding a document's value with a [`Plan`]: the decoder, the entry
//! point, and the conversion of each kind of value.

use pyo3::ffi;
use pyo3::prelude::*;

use roving::Value;

use crate::decode::{self, Decoder, IdMap};
use crate::pytypes::{self, EXT_DATE, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA, EXT_UUID};
use crate::times;

use super::decode_dataclass::dataclass_order;
use super::failure::{
    decode_fail, fail_msg, into_pyerr, mismatch, union_fail, DecodeResult, Fail, FailKind,
};
use super::plan::{KeyIndexRef, Plan};
use super::text::{base64_text, from_base64, iso_date, py_repr, utf8};

/// Containers already built, by (record offset, plan address): the first
/// few kept inline, so that small documents (store records) need no
/// allocation, then in a hash map.
struct Memo<'py> {
    few: [(usize, usize, Option<Bound<'py, PyAny>>); MEMO_INLINE],
    n_few: usize,
    many: IdMap<(usize, usize), Bound<'py, PyAny>>,
}

const MEMO_INLINE: usize = 4;

impl<'py> Memo<'py> {
    fn new() -> Memo<'py> {
        Memo {
            few: std::array::from_fn(|_| (0, 0, None)),
            n_few: 0,
            many: IdMap::default(),
        }
    }

    #[inline]
    fn get(&self, key: (usize, usize)) -> Option<&Bound<'py, PyAny>> {
        for (o, p, v) in &self.few[..self.n_few] {
            if (*o, *p) == key {
                return v.as_ref();
            }
        }
        if self.many.is_empty() {
            return None;
        }
        self.many.get(&key)
    }

    #[inline]
    fn insert(&mut self, key: (usize, usize), v: Bound<'py, PyAny>) {
        if self.n_few < MEMO_INLINE {
            self.few[self.n_few] = (key.0, key.1, Some(v));
            self.n_few += 1;
        } else {
            self.many.insert(key, v);
        }
    }
}

/// The decoding of one document with a plan.
pub(super) struct TypedDecoder<'py, 'a, 'p> {
    /// The untyped decoder: `Any` values, strings and keys, limits.
    pub(super) decoder: Decoder<'py, 'a>,
    /// Results by (record offset, plan address), for shared values.
    memo: Memo<'py>,
    /// Field index per (shape offset, dataclass plan address), for maps
    /// whose keys were checked already.
    pub(super) shapes: IdMap<(usize, usize), KeyIndexRef<'p>>,
    /// The last entry looked up or added in `shapes`.
    pub(super) last_shape: Option<(usize, usize, KeyIndexRef<'p>)>,
}

/// Decodes `v` as `plan`.
pub(crate) fn decode_typed<'py>(
    py: Python<'py>,
    buf: &[u8],
    v: Value<'_>,
    plan: &Plan,
) -> PyResult<Bound<'py, PyAny>> {
    let _gc = decode::GcPause::new();
    let mut t = TypedDecoder {
        decoder: Decoder::new(py, buf),
        memo: Memo::new(),
        shapes: IdMap::default(),
        last_shape: None,
    };
    let r = match (plan, v) {
        // The root record is referenced by no other record (references
        // point backward, to records written before the one that holds
        // them): nothing to remember it for.
        (Plan::Dataclass(dc), Value::Map(m)) => t.dataclass(dc, m),
        _ => t.value(plan, v),
    };
    r.map_err(|f| into_pyerr(py, f))
}

impl<'py, 'a, 'p> TypedDecoder<'py, 'a, 'p> {
    pub(super) fn py(&self) -> Python<'py> {
        self.decoder.py
    }

    /// [`value`](Self::value) with the common scalar cases inline (the
    /// body of the dataclass and sequence loops).
    #[inline(always)]
    pub(super) fn field(&mut self, plan: &'p Plan, v: Value<'a>) -> DecodeResult<'py> {
        let py = self.py();
        match (plan, v) {
            (Plan::Str, Value::Str(s)) => self.decoder.str(s.as_bytes()).map_err(decode_fail),
            (Plan::Int, Value::Int(i)) => {
                // SAFETY: returns a new reference or NULL with an exception set.
                unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromLongLong(i)) }
                    .map_err(decode_fail)
            }
            (Plan::Float, Value::Float(f)) => Ok(pyo3::types::PyFloat::new(py, f).into_any()),
            (Plan::Bytes, Value::Bytes(b)) => {
                self.decoder.charge_payload(b.len()).map_err(decode_fail)?;
                Ok(pyo3::types::PyBytes::new(py, b).into_any())
            }
            (Plan::Union { nullable: true, .. }, Value::Null) => Ok(py.None().into_bound(py)),
            (Plan::Union { members, .. }, Value::Str(s)) if matches!(members[..], [Plan::Str]) => {
                self.decoder.str(s.as_bytes()).map_err(decode_fail)
            }
            (Plan::DateTime, Value::Timestamp(t)) => decode::timestamp(py, t).map_err(decode_fail),
            (Plan::Tuple { items }, Value::Array(a)) => {
                self.memoized(plan, a.offset(), |s| s.tuple(items, a))
            }
            _ => self.value(plan, v),
        }
    }

    pub(super) fn value(&mut self, plan: &'p Plan, v: Value<'a>) -> DecodeResult<'py> {
        let py = self.py();
        match plan {
            Plan::Any => self.decoder.value(v).map_err(decode_fail),
            Plan::Str => match v {
                Value::Str(s) => self.decoder.str(s.as_bytes()).map_err(decode_fail),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Int => match v {
                Value::Int(_) | Value::UInt(_) | Value::BigInt(_) => {
                    self.decoder.value(v).map_err(decode_fail)
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Float => match v {
                Value::Float(f) => Ok(pyo3::types::PyFloat::new(py, f).into_any()),
                Value::Int(i) => Ok(pyo3::types::PyFloat::new(py, i as f64).into_any()),
                Value::UInt(u) => Ok(pyo3::types::PyFloat::new(py, u as f64).into_any()),
                Value::BigInt(b) => {
                    let i = decode::bigint(py, b).map_err(decode_fail)?;
                    let f: f64 = i.extract().map_err(|e| Fail::boxed(FailKind::User(e)))?;
                    Ok(pyo3::types::PyFloat::new(py, f).into_any())
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Bool => match v {
                Value::Bool(b) => Ok(pyo3::types::PyBool::new(py, b).to_owned().into_any()),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::NoneType => match v {
                Value::Null => Ok(py.None().into_bound(py)),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Bytes => match v {
                Value::Bytes(b) => {
                    self.decoder.charge_payload(b.len()).map_err(decode_fail)?;
                    Ok(pyo3::types::PyBytes::new(py, b).into_any())
                }
                _ => match base64_text(&v) {
                    Some(s) => from_base64(py, s),
                    None => Err(mismatch(plan, &v)),
                },
            },
            Plan::ByteArray => match v {
                Value::Bytes(b) => Ok(pyo3::types::PyByteArray::new(py, b).into_any()),
                _ => match base64_text(&v) {
                    Some(s) => {
                        let b = from_base64(py, s)?;
                        pyo3::types::PyByteArray::from(&b)
                            .map(Bound::into_any)
                            .map_err(decode_fail)
                    }
                    None => Err(mismatch(plan, &v)),
                },
            },
            Plan::DateTime => match v {
                Value::Timestamp(t) => decode::timestamp(py, t).map_err(decode_fail),
                // RFC 3339 text (what to_json writes for a timestamp).
                Value::Str(s) => match utf8(py, s)?.parse::<roving::Timestamp>() {
                    Ok(t) => decode::timestamp(py, t).map_err(decode_fail),
                    Err(_) => Err(fail_msg(format!(
                        "invalid datetime {} (expected RFC 3339 text)",
                        py_repr(py, s)
                    ))),
                },
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Date => match v {
                Value::Ext(e) if e.type_id == EXT_DATE => {
                    decode::ext(py, e.type_id, e.data, self.decoder.doc_bytes())
                        .map_err(decode_fail)
                }
                Value::Str(s) => iso_date(utf8(py, s)?)
                    .and_then(|(y, m, d)| pyo3::types::PyDate::new(py, y, m, d).ok())
                    .map(Bound::into_any)
                    .ok_or_else(|| {
                        fail_msg(format!(
                            "invalid date {} (expected YYYY-MM-DD)",
                            py_repr(py, s)
                        ))
                    }),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Uuid => match v {
                Value::Ext(e) if e.type_id == EXT_UUID => {
                    decode::ext(py, e.type_id, e.data, self.decoder.doc_bytes())
                        .map_err(decode_fail)
                }
                Value::Str(s) => {
                    let s = utf8(py, s)?;
                    pytypes::types(py)
                        .and_then(|t| t.uuid.bind(py).call1((s,)))
                        .map_err(|_| fail_msg(format!("invalid UUID {}", py_repr(py, s))))
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Decimal => match v {
                Value::Ext(e) if e.type_id == EXT_DECIMAL => {
                    self.decoder
                        .charge_payload(e.data.len())
                        .map_err(decode_fail)?;
                    decode::ext(py, e.type_id, e.data, self.decoder.doc_bytes())
                        .map_err(decode_fail)
                }
                Value::Str(s) => {
                    let s = utf8(py, s)?;
                    pytypes::types(py)
                        .and_then(|t| t.decimal.bind(py).call1((s,)))
                        .map_err(|_| fail_msg(format!("invalid Decimal {}", py_repr(py, s))))
                }
                Value::Int(_) | Value::UInt(_) | Value::BigInt(_) => {
                    let i = self.decoder.value(v).map_err(decode_fail)?;
                    pytypes::types(py)
                        .and_then(|t| t.decimal.bind(py).call1((i,)))
                        .map_err(decode_fail)
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Time => {
                match v {
                    Value::Ext(e) if e.type_id == EXT_TIME => {
                        decode::ext(py, e.type_id, e.data, self.decoder.doc_bytes())
                            .map_err(decode_fail)
                    }
                    Value::Str(s) => {
                        let s = utf8(py, s)?;
                        let bad = || {
                            fail_msg(format!("invalid time {} (expected ISO 8601 text, HH:MM:SS[.ffffff][+HH:MM])", py_repr(py, s)))
                        };
                        let t = times::parse_time(s).ok_or_else(bad)?;
                        let p = t.payload();
                        decode::ext(py, EXT_TIME, &p, &[]).map_err(|_| bad())
                    }
                    _ => Err(mismatch(plan, &v)),
                }
            }
            Plan::TimeDelta => match v {
                Value::Ext(e) if e.type_id == EXT_TIMEDELTA => {
                    decode::ext(py, e.type_id, e.data, self.decoder.doc_bytes())
                        .map_err(decode_fail)
                }
                Value::Str(s) => {
                    let s = utf8(py, s)?;
                    let bad = || {
                        fail_msg(format!("invalid timedelta {} (expected an ISO 8601 duration, [-]P[nD][T[nH][nM][n[.ffffff]S]], within timedelta's range)", py_repr(py, s)))
                    };
                    let d = times::parse_timedelta(s).ok_or_else(bad)?;
                    decode::ext(py, EXT_TIMEDELTA, &d.payload(), &[]).map_err(|_| bad())
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Vector => match v {
                // `array.array` has one dimension: a shaped vector is not one.
                Value::Vector(vec) if vec.ndim() > 1 => Err(mismatch(plan, &v)),
                Value::Vector(vec) => {
                    pytypes::vector_to_py(py, vec.elem_type(), vec.raw()).map_err(decode_fail)
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::NdArray => match v {
                Value::Vector(vec) => pytypes::vector_value_to_py(py, vec).map_err(decode_fail),
                Value::Array(a) => match a.numbers() {
                    // A number array (version 2): its numbers, as numpy
                    // makes them from a list.
                    Some(numbers) => decode::numbers_array(py, numbers).map_err(decode_fail),
                    None => self.ndarray_rows(plan, a),
                },
                _ => Err(mismatch(plan, &v)),
            },
            Plan::List { .. }
            | Plan::Set { .. }
            | Plan::HomogeneousTuple { .. }
            | Plan::Tuple { .. } => self.sequence(plan, v),
            Plan::Dict { value: vp } => match v {
                Value::Map(m) => self.memoized(plan, m.offset(), |s| s.dict(vp, m)),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::TypedKeyDict {
                key: kp,
                value: vp,
                int_keys,
            } => match v {
                Value::Map(m) => {
                    self.memoized(plan, m.offset(), |s| s.key_dict(kp, vp, *int_keys, m))
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Dataclass(dc) => match v {
                Value::Map(m) => self.memoized(plan, m.offset(), |s| s.dataclass(dc, m)),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::NamedTuple(nt) => match v {
                Value::Array(a) => self.memoized(plan, a.offset(), |s| s.namedtuple(nt, a)),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Union {
                nullable, members, ..
            } => {
                if matches!(v, Value::Null) && *nullable {
                    return Ok(py.None().into_bound(py));
                }
                let mut fails: Vec<(&Plan, Box<Fail>)> = Vec::new();
                let order = match &v {
                    Value::Map(map) => dataclass_order(members, map),
                    _ => None,
                };
                for k in 0..members.len() {
                    let m = match &order {
                        Some(o) => &members[o[k]],
                        None => &members[k],
                    };
                    if !m.accepts(&v) {
                        continue;
                    }
                    match self.value(m, v) {
                        Ok(o) => return Ok(o),
                        Err(f) => {
                            if matches!(f.kind, FailKind::Decode(_)) {
                                return Err(f);
                            }
                            fails.push((m, f));
                        }
                    }
                }
                if order.is_some() {
                    // Each member's reason in the order written.
                    let at = |p: &Plan| members.iter().position(|m| std::ptr::eq(m, p));
                    fails.sort_by_key(|(p, _)| at(p));
                }
                match fails.len() {
                    0 => Err(mismatch(plan, &v)),
                    1 => Err(fails.swap_remove(0).1),
                    _ => Err(union_fail(py, plan, fails)),
                }
            }
            Plan::Enum {
                class: cls,
                name,
                bool_values: bools,
            } => {
                if !plan.accepts(&v) {
                    return Err(mismatch(plan, &v));
                }
                let raw = self.decoder.value(v).map_err(decode_fail)?;
                let cls = cls.bind(py);
                let m = cls
                    .call1((&raw,))
                    .or_else(|e| match raw.cast::<pyo3::types::PyList>() {
                        // A member whose value is a tuple was written as
                        // an array, and reads as a list.
                        Ok(l) => cls.call1((l.to_tuple(),)),
                        Err(_) => Err(e),
                    })
                    .map_err(|_| {
                        let r = raw.repr().map(|r| r.to_string()).unwrap_or_default();
                        fail_msg(format!("invalid value {r} for {name}"))
                    })?;
                // A bool is not an int here (as for int fields and
                // Literal): True does not pick the member of value 1, nor
                // 1 the member of value True.
                // (Only bools, and ints when a member's value is a bool,
                // need the member's value looked at.)
                let numeric = matches!(v, Value::Int(_) | Value::UInt(_) | Value::BigInt(_));
                let is_bool = matches!(v, Value::Bool(_));
                if is_bool || (numeric && *bools) {
                    let member_bool = m
                        .getattr(pyo3::intern!(py, "value"))
                        .is_ok_and(|x| x.is_instance_of::<pyo3::types::PyBool>());
                    if is_bool != member_bool {
                        return Err(mismatch(plan, &v));
                    }
                }
                Ok(m)
            }
            Plan::Literal { values: vals, .. } => {
                if !plan.accepts(&v) {
                    return Err(mismatch(plan, &v));
                }
                let raw = self.decoder.value(v).map_err(decode_fail)?;
                for (c, out) in vals {
                    let c = c.bind(py);
                    // bool is not an int here: Literal[1] does not match True.
                    if c.get_type().is(raw.get_type()) && c.eq(&raw).unwrap_or(false) {
                        return Ok(out.bind(py).clone());
                    }
                }
                let r = raw.repr().map(|r| r.to_string()).unwrap_or_default();
                Err(fail_msg(format!("expected {}, got {r}", plan.name())))
            }
        }
    }

    /// Runs `f` unless the (container) value at `off` was already built for this plan.
    #[inline]
    pub(super) fn memoized(
        &mut self,
        plan: &Plan,
        off: Option<usize>,
        f: impl FnOnce(&mut Self) -> DecodeResult<'py>,
    ) -> DecodeResult<'py> {
        let key = match off {
            Some(o) => (o, plan as *const Plan as usize),
            None => return f(self),
        };
        if let Some(o) = self.memo.get(key) {
            return Ok(o.clone());
        }
        let o = f(self)?;
        self.memo.insert(key, o.clone());
        Ok(o)
    }

    pub(super) fn enter(&mut self, n: usize) -> Result<(), Box<Fail>> {
        self.decoder.charge(n).map_err(decode_fail)?;
        self.decoder.enter().map_err(decode_fail)
    }
}
