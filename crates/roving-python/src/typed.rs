//! Typed decoding: `loads(data, type=list[Item])`.
//!
//! A Python type is compiled once into a [`Plan`] (cached per type), and
//! documents are converted straight from their in-place values to the
//! requested objects, checking types on the way. Errors carry the path.

use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyFrozenSet, PySet, PyString, PyTuple, PyType};

use roving::read::{MapSlots, Scalar};
use roving::{Array, Map, Value};

use crate::decode::{self, Decoder, IdMap};
use crate::errors::validation_error;
use crate::pytypes::{self, EXT_DATE, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA, EXT_UUID};
use crate::times;

/// A compiled type.
pub(crate) enum Plan {
    Any,
    NoneT,
    Bool,
    Int,
    Float,
    Str,
    Bytes,
    ByteArray,
    DateTime,
    Date,
    Uuid,
    Decimal,
    Time,
    TimeDelta,
    List(Box<Plan>),
    Set(Box<Plan>, bool),
    TupleVar(Box<Plan>),
    Tuple(Vec<Plan>),
    Dict(Box<Plan>),
    /// A dict whose keys (str in the document) are read as a type that
    /// reads from str ([`Plan::str_like`]): `dict[StrEnum, T]`, or with
    /// `true`, from their canonical decimal text as a type that reads from
    /// an int ([`int_key_type`]): `dict[int, T]`, `dict[IntEnum, T]`.
    KeyDict(Box<Plan>, Box<Plan>, bool),
    Union {
        nullable: bool,
        members: Vec<Plan>,
        name: String,
    },
    /// A dataclass or a `TypedDict`.
    Dataclass(Arc<DcPlan>),
    NamedTuple(Box<NtPlan>),
    /// An enum, its name, and whether a member's value is a bool.
    Enum(Py<PyType>, String, bool),
    /// A `Literal`: each value as written (an enum member's `.value`) and
    /// as returned, and the type's name.
    Literal(Vec<(Py<PyAny>, Py<PyAny>)>, String),
    Vector,
    /// `numpy.ndarray`: a typed vector, or an array of equal ndarrays (of
    /// one dimension less), as `dumps` writes an array of 2 or more.
    NdArray,
}

/// A `NamedTuple` (or `collections.namedtuple`): an array of its fields,
/// the last ones optional when they have defaults.
pub(crate) struct NtPlan {
    cls: Py<PyType>,
    name: String,
    items: Vec<Plan>,
    /// The default of each field, `None` for required ones.
    defaults: Vec<Option<Py<PyAny>>>,
    /// Fields without a default (the first ones).
    required: usize,
}

/// A dataclass: its fields are compiled after the plan is registered, so
/// recursive dataclasses refer to themselves.
pub(crate) struct DcPlan {
    cls: Py<PyType>,
    name: String,
    /// A parameterized generic (`Box[int]`): its key in the caches is an
    /// alias, equal to the same one with union arguments in another order.
    generic: bool,
    /// A `TypedDict`: decoded to a dict of the keys present (fields that
    /// are not required may be missing).
    as_dict: bool,
    fields: OnceLock<Vec<Field>>,
    /// Field index by name.
    by_name: OnceLock<hashbrown::HashMap<String, usize>>,
    /// Build with `cls(**kwargs)` (InitVars) rather than `object.__new__` + attributes.
    call_init: OnceLock<bool>,
    post_init: OnceLock<bool>,
    /// The class's own dataclass-generated `__init__`, when calling it with
    /// every field positionally is exactly "set each field" (see
    /// [`generated_init`]): one Python call, whose attribute stores CPython
    /// specializes, instead of a generic attribute store per field.
    fast_init: OnceLock<Option<Py<PyAny>>>,
    /// Field indexes of the key lists seen (across documents, so that
    /// decoding many small documents of one dataclass, e.g. store records,
    /// looks their keys up once): filled once each, never changed, so read
    /// without a lock or a reference count.
    key_lists: [OnceLock<KeyIndex>; KEY_LISTS],
    /// Entries of `key_lists` claimed so far.
    n_key_lists: AtomicUsize,
    /// 1 + the entry of `key_lists` seen last (0: none yet).
    last_keys: AtomicUsize,
}

/// Key lists remembered per dataclass (more are indexed per document).
const KEY_LISTS: usize = 8;

/// A key list's field index: remembered by the plan, or (past
/// [`KEY_LISTS`]) held by the decoding of one document.
#[derive(Clone)]
enum KeyRef<'p> {
    Plan(&'p KeyIndex),
    Own(Rc<KeyIndex>),
}

impl std::ops::Deref for KeyRef<'_> {
    type Target = KeyIndex;

    #[inline]
    fn deref(&self) -> &KeyIndex {
        match self {
            KeyRef::Plan(k) => k,
            KeyRef::Own(k) => k,
        }
    }
}

/// A key list and the field of each key (`u32::MAX` for unknown keys and
/// `init=False` fields).
pub(crate) struct KeyIndex {
    /// The string record of each key, in order, as stored
    /// ([`MapSlots::key_record`]): compared with a map's keys in one step.
    recs: Vec<Box<[u8]>>,
    /// The field index of each key.
    idx: Vec<u32>,
}

impl DcPlan {
    /// Sets the parts compiled after the plan was made (it may be
    /// referenced by its own fields' plans first): the fields, their index
    /// by name, and how instances are built.
    fn complete(
        &self,
        fields: Vec<Field>,
        fast_init: Option<Py<PyAny>>,
        call_init: bool,
        post_init: bool,
    ) {
        let by_name = fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name_str.clone(), i))
            .collect();
        let _ = self.fast_init.set(fast_init);
        let _ = self.fields.set(fields);
        let _ = self.by_name.set(by_name);
        let _ = self.call_init.set(call_init);
        let _ = self.post_init.set(post_init);
    }

    /// The field index of the last key list seen.
    #[inline]
    fn last_keys(&self) -> Option<&KeyIndex> {
        let i = self.last_keys.load(Ordering::Acquire).checked_sub(1)?;
        self.key_lists.get(i)?.get()
    }

    /// The field of key `k` (`u32::MAX` for unknown keys and `init=False`
    /// fields).
    fn field_of(&self, k: &str, fields: &[Field]) -> u32 {
        match self.by_name.get().and_then(|b| b.get(k)) {
            Some(&j) if fields[j].init => j as u32,
            _ => u32::MAX,
        }
    }

    /// Index of the field of each key of `m`: a key list remembered
    /// already, or a new one (remembered while there is room); either
    /// becomes the last key list seen.
    fn field_index(&self, m: &MapSlots<'_>, fields: &[Field]) -> KeyRef<'_> {
        let n = m.len();
        for (k, ki) in self.key_lists.iter().enumerate() {
            let Some(ki) = ki.get() else { continue };
            if ki.recs.len() == n && (0..n).all(|i| m.key_record_is(i, &ki.recs[i])) {
                self.last_keys.store(k + 1, Ordering::Release);
                return KeyRef::Plan(ki);
            }
        }
        let mut recs = Vec::new();
        let mut idx = Vec::new();
        for i in 0..n {
            let k = m.key(i).unwrap_or("");
            // A slot that does not decode (lazily opened documents only)
            // matches no record: such a list is not reused.
            recs.push(Box::from(m.key_record(i).unwrap_or(&[0xFF])));
            idx.push(self.field_of(k, fields));
        }
        let ki = KeyIndex { recs, idx };
        let claimed = self
            .n_key_lists
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |c| {
                (c < KEY_LISTS).then_some(c + 1)
            });
        match claimed {
            Ok(k) => {
                // Each entry is claimed by one caller only, so this sets it.
                let ki = self.key_lists[k].get_or_init(|| ki);
                self.last_keys.store(k + 1, Ordering::Release);
                KeyRef::Plan(ki)
            }
            Err(_) => KeyRef::Own(Rc::new(ki)),
        }
    }
}

struct Field {
    name: Py<PyString>,
    name_str: String,
    plan: Plan,
    default: Default,
    /// Set from the input (false for `init=False` fields).
    init: bool,
}

enum Default {
    Required,
    /// A `TypedDict` key that is not required: left out when missing.
    Omit,
    Value(Py<PyAny>),
    Factory(Py<PyAny>),
}

impl Plan {
    fn name(&self) -> String {
        match self {
            Plan::Any => "any".into(),
            Plan::NoneT => "None".into(),
            Plan::Bool => "bool".into(),
            Plan::Int => "int".into(),
            Plan::Float => "float".into(),
            Plan::Str => "str".into(),
            Plan::Bytes => "bytes".into(),
            Plan::ByteArray => "bytearray".into(),
            Plan::DateTime => "datetime".into(),
            Plan::Date => "date".into(),
            Plan::Uuid => "UUID".into(),
            Plan::Decimal => "Decimal".into(),
            Plan::Time => "time".into(),
            Plan::TimeDelta => "timedelta".into(),
            Plan::List(_) => "list".into(),
            Plan::Set(_, false) => "set".into(),
            Plan::Set(_, true) => "frozenset".into(),
            Plan::TupleVar(_) | Plan::Tuple(_) => "tuple".into(),
            Plan::Dict(_) | Plan::KeyDict(..) => "dict".into(),
            Plan::Union { name, .. } => name.clone(),
            Plan::Dataclass(d) => d.name.clone(),
            Plan::NamedTuple(nt) => nt.name.clone(),
            Plan::Enum(_, n, _) => n.clone(),
            Plan::Literal(_, n) => n.clone(),
            Plan::Vector => "array".into(),
            Plan::NdArray => "ndarray".into(),
        }
    }

    /// Whether this type reads from str only (not from str as one kind
    /// among others, as `Any` does): the key types of a typed dict.
    fn str_like(&self) -> bool {
        match self {
            Plan::Str | Plan::Uuid | Plan::Decimal | Plan::Date | Plan::DateTime => true,
            Plan::Time | Plan::TimeDelta => true,
            Plan::Enum(..) | Plan::Literal(..) => true,
            Plan::Union {
                members, nullable, ..
            } => !nullable && members.iter().all(Plan::str_like),
            _ => false,
        }
    }

    /// Whether a value of this kind could be converted (shallow check, for unions).
    fn accepts(&self, v: &Value<'_>) -> bool {
        match self {
            Plan::Any => true,
            Plan::NoneT => matches!(v, Value::Null),
            Plan::Bool => matches!(v, Value::Bool(_)),
            Plan::Int => matches!(v, Value::Int(_) | Value::UInt(_) | Value::BigInt(_)),
            Plan::Float => matches!(
                v,
                Value::Float(_) | Value::Int(_) | Value::UInt(_) | Value::BigInt(_)
            ),
            Plan::Str => matches!(v, Value::Str(_)),
            Plan::Bytes | Plan::ByteArray => {
                matches!(v, Value::Bytes(_)) || base64_text(v).is_some()
            }
            Plan::DateTime => matches!(v, Value::Timestamp(_) | Value::Str(_)),
            Plan::Date => {
                matches!(v, Value::Str(_)) || matches!(v, Value::Ext(e) if e.type_id == EXT_DATE)
            }
            Plan::Uuid => {
                matches!(v, Value::Str(_)) || matches!(v, Value::Ext(e) if e.type_id == EXT_UUID)
            }
            Plan::Decimal => {
                matches!(
                    v,
                    Value::Str(_) | Value::Int(_) | Value::UInt(_) | Value::BigInt(_)
                ) || matches!(v, Value::Ext(e) if e.type_id == EXT_DECIMAL)
            }
            Plan::Time => {
                matches!(v, Value::Str(_)) || matches!(v, Value::Ext(e) if e.type_id == EXT_TIME)
            }
            Plan::TimeDelta => {
                matches!(v, Value::Str(_))
                    || matches!(v, Value::Ext(e) if e.type_id == EXT_TIMEDELTA)
            }
            Plan::List(_) | Plan::Set(..) | Plan::TupleVar(_) => {
                matches!(v, Value::Array(_) | Value::Vector(_))
            }
            Plan::Tuple(_) | Plan::NamedTuple(_) => matches!(v, Value::Array(_)),
            Plan::Dict(_) | Plan::KeyDict(..) | Plan::Dataclass(_) => matches!(v, Value::Map(_)),
            Plan::Union {
                members, nullable, ..
            } => (*nullable && matches!(v, Value::Null)) || members.iter().any(|m| m.accepts(v)),
            // (An enum's value may be a tuple, written as an array.)
            Plan::Enum(..) => !matches!(v, Value::Map(_)),
            Plan::Literal(..) => !matches!(v, Value::Array(_) | Value::Map(_)),
            Plan::Vector => matches!(v, Value::Vector(_)),
            Plan::NdArray => matches!(v, Value::Vector(_) | Value::Array(_)),
        }
    }
}

/// The text of `{"$base64": text}`, the form `to_json` writes bytes in.
fn base64_text<'a>(v: &Value<'a>) -> Option<&'a str> {
    match v {
        Value::Map(m) if m.len() == 1 && m.key_at(0) == Some("$base64") => {
            match m.values().next() {
                Some(Value::Str(s)) => Some(s),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The bytes of `{"$base64": text}` (strict base64, as `to_json` writes it).
fn from_base64<'py>(py: Python<'py>, s: &str) -> Result<Bound<'py, PyAny>, Box<Fail>> {
    let kw = PyDict::new(py);
    py.import("binascii")
        .and_then(|b| {
            kw.set_item("strict_mode", true)?;
            b.getattr("a2b_base64")?.call((s,), Some(&kw))
        })
        .map_err(|_| fail_msg(format!("invalid base64 {}", py_repr(py, s))))
}

/// The year, month and day of `YYYY-MM-DD` text (a calendar date; the
/// range is checked by `datetime.date`).
fn iso_date(s: &str) -> Option<(i32, u8, u8)> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let d = b.get(r)?;
        d.iter()
            .all(u8::is_ascii_digit)
            .then(|| d.iter().fold(0, |v, &c| v * 10 + (c - b'0') as u32))
    };
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    Some((num(0..4)? as i32, num(5..7)? as u8, num(8..10)? as u8))
}

/// Python's repr of a str.
/// A document string re-checked for UTF-8, for the parsers of text (dates,
/// timestamps, UUIDs, Decimals) and their messages: the `&str`s of a
/// document read without validation (a `Store` opened `trusted=True`) may
/// hold invalid UTF-8, which PyO3's `str` conversion panics on and Rust's
/// formatting must not see. An invalid one is the `UnicodeDecodeError`
/// that converting it to `str` raises.
fn utf8<'s>(py: Python<'_>, s: &'s str) -> Result<&'s str, Box<Fail>> {
    match std::str::from_utf8(s.as_bytes()) {
        Ok(s) => Ok(s),
        Err(_) => Err(decode_fail(match pytypes::make_str(py, s.as_bytes()) {
            Err(e) => e,
            Ok(_) => pyo3::exceptions::PyValueError::new_err("invalid UTF-8"),
        })),
    }
}

fn py_repr(py: Python<'_>, s: &str) -> String {
    PyString::new(py, s)
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| format!("{s:?}"))
}

fn got_name(v: &Value<'_>) -> &'static str {
    match v {
        Value::Null => "None",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::UInt(_) | Value::BigInt(_) => "int",
        Value::Float(_) => "float",
        Value::Str(_) => "str",
        Value::Bytes(_) => "bytes",
        Value::Timestamp(_) => "datetime",
        Value::Array(_) => "list",
        Value::Map(_) => "dict",
        Value::Vector(_) => "array",
        Value::Ext(e) => match e.type_id {
            EXT_DATE => "date",
            EXT_UUID => "UUID",
            EXT_DECIMAL => "Decimal",
            EXT_TIME => "time",
            EXT_TIMEDELTA => "timedelta",
            _ => "ext",
        },
    }
}

// ---- compiling ---------------------------------------------------------------

struct Typing {
    get_origin: Py<PyAny>,
    get_args: Py<PyAny>,
    get_type_hints: Py<PyAny>,
    any: Py<PyAny>,
    union: Py<PyAny>,
    union_type: Py<PyAny>,
    literal: Py<PyAny>,
    annotated: Py<PyAny>,
    /// `typing.Tuple` unparameterized (its args are `()`, as `tuple[()]`'s).
    bare_tuple: Py<PyAny>,
    initvar: Py<PyAny>,
    missing: Py<PyAny>,
    field_marker: Py<PyAny>,
    initvar_marker: Py<PyAny>,
    typevar: Py<PyAny>,
    abc: Vec<(Py<PyAny>, u8)>,
    datetime: Py<PyAny>,
    date: Py<PyAny>,
    time: Py<PyAny>,
    timedelta: Py<PyAny>,
    /// type -> compiled plan
    plans: Py<PyDict>,
    /// dataclass type (or parameterized generic dataclass) -> DcPlanBox
    dcs: Py<PyDict>,
}

static TYPING: PyOnceLock<Typing> = PyOnceLock::new();

fn typing(py: Python<'_>) -> PyResult<&Typing> {
    TYPING.get_or_try_init(py, || {
        let t = py.import("typing")?;
        let dc = py.import("dataclasses")?;
        let abc = py.import("collections.abc")?;
        let types = py.import("types")?;
        let dt = py.import("datetime")?;
        let mut kinds = Vec::new();
        for (n, k) in [
            ("Sequence", b'l'),
            ("MutableSequence", b'l'),
            ("Collection", b'l'),
            ("Iterable", b'l'),
            ("Mapping", b'd'),
            ("MutableMapping", b'd'),
            ("Set", b's'),
            ("MutableSet", b's'),
        ] {
            kinds.push((abc.getattr(n)?.unbind(), k));
        }
        Ok(Typing {
            get_origin: t.getattr("get_origin")?.unbind(),
            get_args: t.getattr("get_args")?.unbind(),
            get_type_hints: t.getattr("get_type_hints")?.unbind(),
            any: t.getattr("Any")?.unbind(),
            union: t.getattr("Union")?.unbind(),
            union_type: types.getattr("UnionType")?.unbind(),
            literal: t.getattr("Literal")?.unbind(),
            annotated: t.getattr("Annotated")?.unbind(),
            bare_tuple: t.getattr("Tuple")?.unbind(),
            initvar: dc.getattr("InitVar")?.unbind(),
            missing: dc.getattr("MISSING")?.unbind(),
            field_marker: dc.getattr("_FIELD")?.unbind(),
            initvar_marker: dc.getattr("_FIELD_INITVAR")?.unbind(),
            typevar: t.getattr("TypeVar")?.unbind(),
            abc: kinds,
            datetime: dt.getattr("datetime")?.unbind(),
            date: dt.getattr("date")?.unbind(),
            time: dt.getattr("time")?.unbind(),
            timedelta: dt.getattr("timedelta")?.unbind(),
            plans: PyDict::new(py).unbind(),
            dcs: PyDict::new(py).unbind(),
        })
    })
}

/// A cached plan, with the type it was compiled from and, for a type
/// whose plan depends on the order of its union members (`A | B` and `B |
/// A` are equal keys of the cache, but try their members in another
/// order), that type's [`leaves`], compared on a hit by an equal type.
#[pyclass(frozen)]
struct PlanBox {
    plan: Arc<Plan>,
    tp: Py<PyAny>,
    ordered: Option<Vec<Py<PyAny>>>,
}

/// The leaves of a type expression in order (`list[int | str]`: `int`,
/// `str`), `None` left out (a union's plan takes it out of the order):
/// two equal types whose leaves are the same in the same order have the
/// same plan.
fn leaves<'py>(tp: &Bound<'py, PyAny>, out: &mut Vec<Bound<'py, PyAny>>) -> PyResult<()> {
    let py = tp.py();
    let _level = too_deep()?;
    if tp.is_none() || tp.is(py.None().bind(py).get_type()) {
        return Ok(());
    }
    if !tp.is_instance_of::<PyType>() {
        if let Some(args) = tp.getattr_opt(pyo3::intern!(py, "__args__"))? {
            if let Ok(args) = args.cast::<PyTuple>() {
                for a in args.iter() {
                    leaves(&a, out)?;
                }
                return Ok(());
            }
        }
    }
    out.push(tp.clone());
    Ok(())
}

/// Whether `tp` has these [`leaves`] (identical, or equal for values such
/// as a `Literal`'s).
fn same_leaves(tp: &Bound<'_, PyAny>, stored: &[Py<PyAny>]) -> PyResult<bool> {
    let mut mine = Vec::with_capacity(stored.len());
    leaves(tp, &mut mine)?;
    Ok(mine.len() == stored.len()
        && mine.iter().zip(stored).all(|(a, b)| {
            let b = b.bind(tp.py());
            a.is(b) || (!a.is_instance_of::<PyType>() && a.eq(b).unwrap_or(false))
        }))
}

/// Whether the plan holds a union of several members or a parameterized
/// generic dataclass (not looking into other dataclasses, whose field
/// types are their own).
fn order_sensitive(p: &Plan) -> bool {
    match p {
        Plan::List(p) | Plan::Set(p, _) | Plan::TupleVar(p) | Plan::Dict(p) => order_sensitive(p),
        Plan::KeyDict(k, v, _) => order_sensitive(k) || order_sensitive(v),
        Plan::Tuple(items) => items.iter().any(order_sensitive),
        Plan::Union { members, .. } => members.len() > 1 || members.iter().any(order_sensitive),
        Plan::Dataclass(d) => d.generic,
        _ => false,
    }
}

/// A cached dataclass plan; for a parameterized generic (`Box[A | B]`),
/// the [`leaves`] of its key too (an equal key in another order is
/// another plan).
#[pyclass(frozen)]
struct DcPlanBox(Arc<DcPlan>, Option<Vec<Py<PyAny>>>);

fn type_repr(t: &Bound<'_, PyAny>) -> String {
    if let Ok(ty) = t.cast::<PyType>() {
        if let Ok(n) = ty.qualname() {
            return n.to_string();
        }
    }
    t.repr()
        .map(|r| r.to_string().replace("typing.", ""))
        .unwrap_or_else(|_| "?".into())
}

thread_local! {
    /// Levels of [`compile`] and [`leaves`] under way on this thread.
    static TYPE_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Levels of type nesting that are always compiled, whatever the stack
/// (as before the check: a thread with a small stack still compiles a
/// shallow type); past them every level checks the stack.
const FREE_TYPE_LEVELS: u32 = 32;

/// One level of [`compile`] or [`leaves`] (left when dropped).
struct TypeLevel;

impl Drop for TypeLevel {
    fn drop(&mut self) {
        TYPE_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Enters one level of type nesting: the `TypeError` of a type nested so
/// deeply that compiling it would exhaust this thread's stack.
fn too_deep() -> PyResult<TypeLevel> {
    let depth = TYPE_DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get()
    });
    let level = TypeLevel;
    if depth > FREE_TYPE_LEVELS && crate::stack::sp() < crate::stack::limit() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "type nested too deeply for typed decoding (this thread's stack is exhausted)",
        ));
    }
    Ok(level)
}

/// The compiled plan of a type (cached).
pub(crate) fn plan_for(tp: &Bound<'_, PyAny>) -> PyResult<Arc<Plan>> {
    let py = tp.py();
    let ty = typing(py)?;
    let cache = ty.plans.bind(py);
    let hashable = tp.hash().is_ok();
    if hashable {
        if let Some(p) = cache.get_item(tp)? {
            if let Ok(b) = p.cast::<PlanBox>() {
                let b = b.get();
                let same = b.tp.bind(py).is(tp)
                    || match &b.ordered {
                        None => true,
                        Some(l) => same_leaves(tp, l)?,
                    };
                if same {
                    return Ok(b.plan.clone());
                }
                // An equal type with its members in another order: its own
                // plan, not cached (the first order seen keeps the entry).
                return Ok(Arc::new(compile(tp)?));
            }
        }
    }
    let plan = Arc::new(compile(tp)?);
    if hashable && cache.len() < 10_000 {
        let ordered = if order_sensitive(&plan) {
            let mut l = Vec::new();
            leaves(tp, &mut l)?;
            Some(l.into_iter().map(Bound::unbind).collect())
        } else {
            None
        };
        let b = PlanBox {
            plan: plan.clone(),
            tp: tp.clone().unbind(),
            ordered,
        };
        cache.set_item(tp, Bound::new(py, b)?)?;
    }
    Ok(plan)
}

/// [`compile`] of the type `hint` of field `name` of the class named
/// `class`, whose errors name the field.
fn compile_field(class: &str, name: &Bound<'_, PyAny>, hint: &Bound<'_, PyAny>) -> PyResult<Plan> {
    compile(hint).map_err(|e| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "field {class}.{name}: {}",
            e.value(name.py())
        ))
    })
}

fn compile(tp: &Bound<'_, PyAny>) -> PyResult<Plan> {
    let py = tp.py();
    // A type nested thousands deep (`list[list[...]]` built in a loop)
    // overflowed the stack: SIGSEGV.
    let _level = too_deep()?;
    let ty = typing(py)?;
    if tp.is(ty.any.bind(py)) || tp.is(py.get_type::<pyo3::types::PyAny>()) {
        return Ok(Plan::Any);
    }
    if tp.is_none() || tp.is(py.None().bind(py).get_type()) {
        return Ok(Plan::NoneT);
    }
    if let Ok(t) = tp.cast::<PyType>() {
        let simple = [
            (py.get_type::<pyo3::types::PyBool>(), 0),
            (py.get_type::<pyo3::types::PyInt>(), 1),
            (py.get_type::<pyo3::types::PyFloat>(), 2),
            (py.get_type::<PyString>(), 3),
            (py.get_type::<pyo3::types::PyBytes>(), 4),
            (py.get_type::<pyo3::types::PyByteArray>(), 5),
        ];
        for (st, k) in simple {
            if t.is(&st) {
                return Ok(match k {
                    0 => Plan::Bool,
                    1 => Plan::Int,
                    2 => Plan::Float,
                    3 => Plan::Str,
                    4 => Plan::Bytes,
                    _ => Plan::ByteArray,
                });
            }
        }
        if t.is(ty.datetime.bind(py)) {
            return Ok(Plan::DateTime);
        }
        if t.is(ty.date.bind(py)) {
            return Ok(Plan::Date);
        }
        if t.is(ty.time.bind(py)) {
            return Ok(Plan::Time);
        }
        if t.is(ty.timedelta.bind(py)) {
            return Ok(Plan::TimeDelta);
        }
        let std = pytypes::types(py)?;
        if t.is(std.uuid.bind(py)) {
            return Ok(Plan::Uuid);
        }
        if t.is(std.decimal.bind(py)) {
            return Ok(Plan::Decimal);
        }
        if t.is(py.get_type::<pyo3::types::PyList>()) {
            return Ok(Plan::List(Box::new(Plan::Any)));
        }
        if t.is(py.get_type::<PyTuple>()) {
            return Ok(Plan::TupleVar(Box::new(Plan::Any)));
        }
        if t.is(py.get_type::<PyDict>()) {
            return Ok(Plan::Dict(Box::new(Plan::Any)));
        }
        if t.is(py.get_type::<PySet>()) {
            return Ok(Plan::Set(Box::new(Plan::Any), false));
        }
        if t.is(py.get_type::<PyFrozenSet>()) {
            return Ok(Plan::Set(Box::new(Plan::Any), true));
        }
        if t.is(std.array.bind(py)) {
            return Ok(Plan::Vector);
        }
        if let Some(np) = pytypes::numpy_loaded(py) {
            if t.is(np.ndarray.bind(py)) {
                return Ok(Plan::NdArray);
            }
        }
        if t.is_subclass(std.enum_.bind(py))? {
            let mut bools = false;
            for m in t.try_iter()? {
                bools |= m?
                    .getattr(pyo3::intern!(py, "value"))?
                    .is_instance_of::<pyo3::types::PyBool>();
            }
            return Ok(Plan::Enum(t.clone().unbind(), type_repr(tp), bools));
        }
        if t.hasattr(pyo3::intern!(py, "__dataclass_fields__"))? || is_typeddict(t)? {
            return Ok(Plan::Dataclass(dataclass_plan(tp, t, None)?));
        }
        if t.is_subclass(&py.get_type::<PyTuple>())?
            && t.hasattr(pyo3::intern!(py, "_fields"))?
            && t.hasattr(pyo3::intern!(py, "_field_defaults"))?
        {
            return Ok(Plan::NamedTuple(Box::new(namedtuple_plan(t)?)));
        }
    }
    if tp.is_instance(ty.typevar.bind(py))? {
        return typevar_plan(tp);
    }
    if tp.is(ty.bare_tuple.bind(py)) {
        return Ok(Plan::TupleVar(Box::new(Plan::Any)));
    }
    let origin = ty.get_origin.bind(py).call1((tp,))?;
    let args = ty.get_args.bind(py).call1((tp,))?.cast_into::<PyTuple>()?;
    if let Ok(cls) = origin.cast::<PyType>() {
        // A parameterized generic dataclass: `Box[int]`.
        if cls.hasattr(pyo3::intern!(py, "__dataclass_fields__"))?
            && !cls.is_subclass(pytypes::types(py)?.enum_.bind(py))?
        {
            return Ok(Plan::Dataclass(dataclass_plan(tp, cls, Some(&args))?));
        }
    }
    if !origin.is_none() {
        let arg = |i: usize| -> PyResult<Plan> {
            match args.get_item(i) {
                Ok(a) => compile(&a),
                Err(_) => Ok(Plan::Any),
            }
        };
        if origin.is(ty.union.bind(py)) || origin.is(ty.union_type.bind(py)) {
            let mut members = Vec::new();
            let mut nullable = false;
            for a in args.iter() {
                match compile(&a)? {
                    Plan::NoneT => nullable = true,
                    p => members.push(p),
                }
            }
            let mut names: Vec<String> = members.iter().map(Plan::name).collect();
            if nullable {
                names.push("None".into());
            }
            // An integer goes to `int` ahead of `float` or `Decimal`, which
            // accept integers too (as msgspec and pydantic do): `float |
            // int` must not round 2**60 + 1 to a float.
            let lax = members
                .iter()
                .position(|m| matches!(m, Plan::Float | Plan::Decimal));
            let int = members.iter().position(|m| matches!(m, Plan::Int));
            if let (Some(l), Some(i)) = (lax, int) {
                if l < i {
                    let m = members.remove(i);
                    members.insert(l, m);
                }
            }
            return Ok(Plan::Union {
                nullable,
                members,
                name: names.join(" | "),
            });
        }
        if origin.is(ty.literal.bind(py)) {
            let enum_ = pytypes::types(py)?.enum_.bind(py);
            let mut vals = Vec::new();
            for a in args.iter() {
                // An enum member is written as its value.
                let wire = if a.is_instance(enum_)? {
                    a.getattr(pyo3::intern!(py, "value"))?
                } else {
                    a.clone()
                };
                vals.push((wire.unbind(), a.unbind()));
            }
            let shown: Vec<String> = vals
                .iter()
                .map(|(_, v)| v.bind(py).repr().map(|r| r.to_string()).unwrap_or_default())
                .collect();
            return Ok(Plan::Literal(vals, format!("one of {}", shown.join(", "))));
        }
        if origin.is(ty.annotated.bind(py)) {
            return arg(0);
        }
        if origin.is(py.get_type::<pyo3::types::PyList>()) {
            return Ok(Plan::List(Box::new(arg(0)?)));
        }
        if origin.is(py.get_type::<PySet>()) {
            return Ok(Plan::Set(Box::new(arg(0)?), false));
        }
        if origin.is(py.get_type::<PyFrozenSet>()) {
            return Ok(Plan::Set(Box::new(arg(0)?), true));
        }
        if origin.is(py.get_type::<PyTuple>()) {
            let n = args.len();
            if n == 2 && args.get_item(1)?.is(py.Ellipsis().bind(py)) {
                return Ok(Plan::TupleVar(Box::new(arg(0)?)));
            }
            let mut items = Vec::new();
            for a in args.iter() {
                items.push(compile(&a)?);
            }
            return Ok(Plan::Tuple(items));
        }
        let is_dict = origin.is(py.get_type::<PyDict>())
            || ty
                .abc
                .iter()
                .any(|(t, k)| *k == b'd' && origin.is(t.bind(py)));
        if is_dict {
            if let Ok(k) = args.get_item(0) {
                let kp = compile(&k)?;
                if !matches!(kp, Plan::Str | Plan::Any) {
                    let int_keys = int_key_type(py, &kp)?;
                    if !int_keys && !kp.str_like() {
                        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                            "dict keys must be str for typed decoding (or a type read \
                             from str or from an int's text), not {}",
                            type_repr(&k)
                        )));
                    }
                    return Ok(Plan::KeyDict(Box::new(kp), Box::new(arg(1)?), int_keys));
                }
            }
            return Ok(Plan::Dict(Box::new(arg(1)?)));
        }
        for (t, k) in &ty.abc {
            if origin.is(t.bind(py)) {
                return Ok(match k {
                    b'l' => Plan::List(Box::new(arg(0)?)),
                    _ => Plan::Set(Box::new(arg(0)?), true),
                });
            }
        }
    }
    // typing.NewType
    if let Ok(sup) = tp.getattr(pyo3::intern!(py, "__supertype__")) {
        return compile(&sup);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "unsupported type for typed decoding: {}",
        type_repr(tp)
    )))
}

/// Whether dict keys of this type are read from an int's decimal text:
/// `int`, an enum whose members' values are all ints (not bools), a
/// `Literal` of ints, or a union of these (without None).
fn int_key_type(py: Python<'_>, p: &Plan) -> PyResult<bool> {
    let is_int = |o: &Bound<'_, PyAny>| {
        o.is_instance_of::<pyo3::types::PyInt>() && !o.is_instance_of::<pyo3::types::PyBool>()
    };
    Ok(match p {
        Plan::Int => true,
        Plan::Enum(cls, _, _) => {
            let mut any = false;
            for m in cls.bind(py).try_iter()? {
                if !is_int(&m?.getattr(pyo3::intern!(py, "value"))?) {
                    return Ok(false);
                }
                any = true;
            }
            any
        }
        Plan::Literal(vals, _) => vals.iter().all(|(w, _)| is_int(w.bind(py))),
        Plan::Union {
            members, nullable, ..
        } => {
            if *nullable {
                return Ok(false);
            }
            for m in members {
                if !int_key_type(py, m)? {
                    return Ok(false);
                }
            }
            true
        }
        _ => false,
    })
}

/// `typing.get_type_hints(cls, **kwargs)`, its failure named by [`hints_error`].
fn type_hints<'py>(
    cls: &Bound<'py, PyType>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = cls.py();
    typing(py)?
        .get_type_hints
        .bind(py)
        .call((cls,), kwargs)
        .map_err(|e| hints_error(cls, e))?
        .cast_into::<PyDict>()
        .map_err(PyErr::from)
}

/// A failure of `typing.get_type_hints(cls)` (a string annotation that
/// does not resolve, e.g. a class local to a function), naming `cls`: of
/// the same exception type when that is a `NameError`, with the original
/// as its cause.
#[cold]
fn hints_error(cls: &Bound<'_, PyType>, e: PyErr) -> PyErr {
    let py = cls.py();
    if !e.is_instance_of::<pyo3::exceptions::PyNameError>(py) {
        return e;
    }
    let err = pyo3::exceptions::PyNameError::new_err(format!(
        "cannot resolve the type hints of {}: {}",
        type_repr(cls.as_any()),
        e.value(py)
    ));
    err.set_cause(py, Some(e));
    err
}

/// The failure of a user class's constructor (a dataclass, a NamedTuple):
/// a `ValueError` or `TypeError` (a check in `__post_init__`, say) is
/// shown with the path ([`FailKind::User`]); any other exception is
/// propagated unchanged ([`FailKind::Decode`]).
#[cold]
fn user_fail(py: Python<'_>, e: PyErr) -> Box<Fail> {
    Box::new(Fail {
        kind: if e.is_instance_of::<pyo3::exceptions::PyValueError>(py)
            || e.is_instance_of::<pyo3::exceptions::PyTypeError>(py)
        {
            FailKind::User(e)
        } else {
            FailKind::Decode(e)
        },
        path: Vec::new(),
    })
}

/// Whether `t` is a `TypedDict` (typing's or typing_extensions').
fn is_typeddict(t: &Bound<'_, PyType>) -> PyResult<bool> {
    let py = t.py();
    Ok(t.is_subclass(&py.get_type::<PyDict>())?
        && t.hasattr(pyo3::intern!(py, "__required_keys__"))?
        && t.hasattr(pyo3::intern!(py, "__total__"))?)
}

thread_local! {
    /// NamedTuple classes being compiled by this thread (a NamedTuple that
    /// holds itself is refused rather than compiled forever).
    static NT_IN_PROGRESS: std::cell::RefCell<Vec<usize>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn namedtuple_plan(cls: &Bound<'_, PyType>) -> PyResult<NtPlan> {
    let py = cls.py();
    let key = cls.as_ptr() as usize;
    if NT_IN_PROGRESS.with(|p| p.borrow().contains(&key)) {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "recursive NamedTuple {} is not supported for typed decoding",
            type_repr(cls.as_any())
        )));
    }
    NT_IN_PROGRESS.with(|p| p.borrow_mut().push(key));
    let r = (|| {
        let name = type_repr(cls.as_any());
        let hints = type_hints(cls, None)?;
        let field_defaults = cls
            .getattr(pyo3::intern!(py, "_field_defaults"))?
            .cast_into::<PyDict>()?;
        let (mut items, mut defaults, mut required) = (Vec::new(), Vec::new(), 0);
        for f in cls.getattr(pyo3::intern!(py, "_fields"))?.try_iter()? {
            let f = f?;
            items.push(match hints.get_item(&f)? {
                Some(h) => compile_field(&name, &f, &h)?,
                None => Plan::Any,
            });
            let d = field_defaults.get_item(&f)?.map(Bound::unbind);
            if d.is_none() {
                required = items.len();
            }
            defaults.push(d);
        }
        Ok(NtPlan {
            cls: cls.clone().unbind(),
            name,
            items,
            defaults,
            required,
        })
    })();
    NT_IN_PROGRESS.with(|p| p.borrow_mut().retain(|k| *k != key));
    r
}

/// A free type variable: its bound, its constraints as a union, or `Any`
/// (as msgspec reads them).
fn typevar_plan(tv: &Bound<'_, PyAny>) -> PyResult<Plan> {
    let py = tv.py();
    let bound = tv.getattr(pyo3::intern!(py, "__bound__"))?;
    if !bound.is_none() {
        return compile(&bound);
    }
    let cons = tv
        .getattr(pyo3::intern!(py, "__constraints__"))?
        .cast_into::<PyTuple>()?;
    if !cons.is_empty() {
        let u = typing(py)?.union.bind(py).get_item(cons)?;
        return compile(&u);
    }
    Ok(Plan::Any)
}

/// A parameterized type's text: `Box[int]`, `Pair[str, list[int]]`.
fn generic_name(cls: &Bound<'_, PyType>, args: &Bound<'_, PyTuple>) -> String {
    let shown: Vec<String> = args.iter().map(|a| type_repr(&a)).collect();
    format!("{}[{}]", type_repr(cls.as_any()), shown.join(", "))
}

/// Whether `key` is the dataclass (or parameterized generic) `k`: the
/// same class, or an equal generic with the same [`leaves`].
fn same_key(key: &Bound<'_, PyAny>, k: &Bound<'_, PyAny>, generic: bool) -> PyResult<bool> {
    if key.is(k) {
        return Ok(true);
    }
    if !generic || !key.eq(k)? {
        return Ok(false);
    }
    let mut l = Vec::new();
    leaves(k, &mut l)?;
    let l: Vec<Py<PyAny>> = l.into_iter().map(Bound::unbind).collect();
    same_leaves(key, &l)
}

thread_local! {
    /// Dataclass plans being compiled by this thread (for recursive types),
    /// by class or parameterized generic; published to the shared cache
    /// only once complete.
    static IN_PROGRESS: std::cell::RefCell<Vec<(Py<PyAny>, Arc<DcPlan>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The plan of dataclass `cls`, parameterized by `args` when `key` is a
/// generic alias (`Box[int]`; `key` is `cls` otherwise).
fn dataclass_plan(
    key: &Bound<'_, PyAny>,
    cls: &Bound<'_, PyType>,
    args: Option<&Bound<'_, PyTuple>>,
) -> PyResult<Arc<DcPlan>> {
    let py = cls.py();
    let ty = typing(py)?;
    let dcs = ty.dcs.bind(py);
    let generic = args.is_some();
    let hashable = key.hash().is_ok();
    if hashable {
        if let Some(b) = dcs.get_item(key)? {
            if let Ok(b) = b.cast::<DcPlanBox>() {
                let b = b.get();
                let hit = match &b.1 {
                    Some(l) => same_leaves(key, l)?,
                    None => true,
                };
                if hit {
                    return Ok(b.0.clone());
                }
            }
        }
    }
    let mut pending = None;
    IN_PROGRESS.with(|p| -> PyResult<()> {
        for (k, d) in p.borrow().iter() {
            if same_key(key, k.bind(py), generic)? {
                pending = Some(d.clone());
                break;
            }
        }
        Ok(())
    })?;
    if let Some(d) = pending {
        return Ok(d);
    }
    let plan = Arc::new(DcPlan {
        cls: cls.clone().unbind(),
        name: match args {
            Some(a) => generic_name(cls, a),
            None => type_repr(cls.as_any()),
        },
        generic,
        as_dict: is_typeddict(cls)?,
        fields: OnceLock::new(),
        by_name: OnceLock::new(),
        call_init: OnceLock::new(),
        post_init: OnceLock::new(),
        fast_init: OnceLock::new(),
        key_lists: std::array::from_fn(|_| OnceLock::new()),
        n_key_lists: AtomicUsize::new(0),
        last_keys: AtomicUsize::new(0),
    });
    IN_PROGRESS.with(|p| p.borrow_mut().push((key.clone().unbind(), plan.clone())));
    let r = if plan.as_dict {
        fill_typeddict(cls, &plan)
    } else {
        fill_dataclass(cls, &plan, args)
    };
    IN_PROGRESS.with(|p| {
        let mut p = p.borrow_mut();
        if let Some(i) = p.iter().rposition(|(_, d)| Arc::ptr_eq(d, &plan)) {
            p.remove(i);
        }
    });
    r?;
    if hashable && dcs.len() < 10_000 {
        let l = if generic {
            let mut l = Vec::new();
            leaves(key, &mut l)?;
            Some(l.into_iter().map(Bound::unbind).collect())
        } else {
            None
        };
        dcs.set_item(key, Bound::new(py, DcPlanBox(plan.clone(), l))?)?;
    }
    Ok(plan)
}

/// The fields of a `TypedDict`: every key, required or not. Which are
/// required comes from the `Required`/`NotRequired` qualifiers when the
/// annotations show them (Python 3.11 misses them in string annotations,
/// `from __future__ import annotations`), else `__required_keys__`.
fn fill_typeddict(cls: &Bound<'_, PyType>, plan: &DcPlan) -> PyResult<()> {
    let py = cls.py();
    let ty = typing(py)?;
    let t = py.import("typing")?;
    let (req, not_req) = (t.getattr("Required")?, t.getattr("NotRequired")?);
    let kw = PyDict::new(py);
    kw.set_item("include_extras", true)?;
    let hints = type_hints(cls, Some(&kw))?;
    let required_keys = cls.getattr(pyo3::intern!(py, "__required_keys__"))?;
    let mut out = Vec::new();
    for (name, mut hint) in hints.iter() {
        let name = name.cast_into::<PyString>()?;
        let mut required = required_keys.contains(&name)?;
        // Qualifiers, possibly inside Annotated (compile strips Annotated).
        loop {
            let origin = ty.get_origin.bind(py).call1((&hint,))?;
            if origin.is(&req) || origin.is(&not_req) {
                required = origin.is(&req);
                hint = ty.get_args.bind(py).call1((&hint,))?.get_item(0)?;
            } else if origin.is(ty.annotated.bind(py)) {
                hint = ty.get_args.bind(py).call1((&hint,))?.get_item(0)?;
            } else {
                break;
            }
        }
        let fplan = compile_field(&plan.name, &name, &hint)?;
        out.push(Field {
            name_str: name.to_str()?.to_owned(),
            name: name.unbind(),
            plan: fplan,
            default: if required {
                Default::Required
            } else {
                Default::Omit
            },
            init: true,
        });
    }
    plan.complete(out, None, false, false);
    Ok(())
}

/// The type variables of each generic class in `cls`'s MRO, by class,
/// bound to what `cls[args]` and the bases' parameters (`class
/// IntBox(Box[int])`) make them; unbound ones are left out.
fn typevar_maps<'py>(
    cls: &Bound<'py, PyType>,
    args: Option<&Bound<'py, PyTuple>>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = cls.py();
    let ty = typing(py)?;
    let maps = PyDict::new(py);
    let own = PyDict::new(py);
    if let Some(args) = args {
        if let Some(params) = cls.getattr_opt(pyo3::intern!(py, "__parameters__"))? {
            for (p, a) in params.try_iter()?.zip(args.iter()) {
                own.set_item(p?, a)?;
            }
        }
    }
    maps.set_item(cls, own)?;
    let mro = cls.getattr(pyo3::intern!(py, "__mro__"))?;
    for c in mro.try_iter()? {
        let c = c?;
        let cmap = match maps.get_item(&c)? {
            Some(m) => m.cast_into::<PyDict>()?,
            None => PyDict::new(py),
        };
        let Some(bases) = c
            .getattr(pyo3::intern!(py, "__dict__"))?
            .get_item(pyo3::intern!(py, "__orig_bases__"))
            .ok()
        else {
            continue;
        };
        for b in bases.try_iter()? {
            let b = b?;
            let origin = ty.get_origin.bind(py).call1((&b,))?;
            let Ok(origin) = origin.cast_into::<PyType>() else {
                continue;
            };
            let Some(params) = origin.getattr_opt(pyo3::intern!(py, "__parameters__"))? else {
                continue;
            };
            let bargs = ty.get_args.bind(py).call1((&b,))?;
            let bmap = match maps.get_item(&origin)? {
                Some(m) => m.cast_into::<PyDict>()?,
                None => {
                    let m = PyDict::new(py);
                    maps.set_item(&origin, &m)?;
                    m
                }
            };
            for (p, a) in params.try_iter()?.zip(bargs.try_iter()?) {
                let (p, a) = (p?, a?);
                if !bmap.contains(&p)? {
                    bmap.set_item(p, substitute(&a, &cmap)?)?;
                }
            }
        }
    }
    Ok(maps)
}

/// `tp` with the type variables bound in `map` replaced (`list[T]` with
/// T -> int: `list[int]`).
fn substitute<'py>(
    tp: &Bound<'py, PyAny>,
    map: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = tp.py();
    if map.is_empty() {
        return Ok(tp.clone());
    }
    if let Some(v) = map.get_item(tp).ok().flatten() {
        return Ok(v);
    }
    if tp.is_instance_of::<PyType>() {
        return Ok(tp.clone());
    }
    let Some(params) = tp.getattr_opt(pyo3::intern!(py, "__parameters__"))? else {
        return Ok(tp.clone());
    };
    let Ok(params) = params.cast_into::<PyTuple>() else {
        return Ok(tp.clone());
    };
    if params.is_empty() {
        return Ok(tp.clone());
    }
    let mut vals = Vec::with_capacity(params.len());
    for p in params.iter() {
        vals.push(map.get_item(&p)?.unwrap_or(p));
    }
    tp.get_item(PyTuple::new(py, vals)?)
}

fn fill_dataclass(
    cls: &Bound<'_, PyType>,
    plan: &DcPlan,
    args: Option<&Bound<'_, PyTuple>>,
) -> PyResult<()> {
    let py = cls.py();
    let ty = typing(py)?;
    let generic = cls
        .getattr_opt(pyo3::intern!(py, "__parameters__"))?
        .is_some_and(|p| p.len().is_ok_and(|n| n > 0))
        || cls
            .getattr_opt(pyo3::intern!(py, "__orig_bases__"))?
            .is_some();
    let maps = if generic {
        Some(typevar_maps(cls, args)?)
    } else {
        None
    };
    let mro = cls.getattr(pyo3::intern!(py, "__mro__"))?;
    let hints = type_hints(cls, None)?;
    let fields = cls
        .getattr(pyo3::intern!(py, "__dataclass_fields__"))?
        .cast_into::<PyDict>()?;
    let mut out = Vec::new();
    let mut has_initvar = false;
    let mut all_positional = true;
    for (name, f) in fields.iter() {
        let ft = f.getattr(pyo3::intern!(py, "_field_type"))?;
        let is_initvar = ft.is(ty.initvar_marker.bind(py));
        if !ft.is(ty.field_marker.bind(py)) && !is_initvar {
            continue;
        }
        has_initvar |= is_initvar;
        let name = name.cast_into::<PyString>()?;
        let mut hint = match hints.get_item(&name)? {
            Some(h) => h,
            None => f.getattr(pyo3::intern!(py, "type"))?,
        };
        if hint.is_instance(ty.initvar.bind(py))? {
            hint = hint.getattr(pyo3::intern!(py, "type"))?;
        }
        if let Some(maps) = &maps {
            // The type variables of the class that declares the field.
            for c in mro.try_iter()? {
                let c = c?;
                let declares = c
                    .getattr(pyo3::intern!(py, "__dict__"))?
                    .get_item(pyo3::intern!(py, "__annotations__"))
                    .ok()
                    .is_some_and(|a| a.contains(&name).unwrap_or(false));
                if declares {
                    if let Some(m) = maps.get_item(&c)? {
                        hint = substitute(&hint, m.cast::<PyDict>()?)?;
                    }
                    break;
                }
            }
        }
        let fplan = compile_field(&plan.name, &name, &hint)?;
        let d = f.getattr(pyo3::intern!(py, "default"))?;
        let df = f.getattr(pyo3::intern!(py, "default_factory"))?;
        let default = if !d.is(ty.missing.bind(py)) {
            Default::Value(d.unbind())
        } else if !df.is(ty.missing.bind(py)) {
            Default::Factory(df.unbind())
        } else {
            Default::Required
        };
        let init: bool = f.getattr(pyo3::intern!(py, "init"))?.extract()?;
        let kw_only = f
            .getattr(pyo3::intern!(py, "kw_only"))
            .is_ok_and(|k| k.is_truthy().unwrap_or(true));
        all_positional &= init && !kw_only;
        let mut p = name.clone().into_ptr();
        // SAFETY: `p` is an owned str; interning may replace it with another owned reference.
        let name = unsafe {
            ffi::PyUnicode_InternInPlace(&mut p);
            Bound::from_owned_ptr(py, p).cast_into_unchecked::<PyString>()
        };
        out.push(Field {
            name_str: name.to_str()?.to_owned(),
            name: name.unbind(),
            plan: fplan,
            default,
            init,
        });
    }
    let post_init = cls.hasattr(pyo3::intern!(py, "__post_init__"))?;
    let fast_init = if all_positional && !has_initvar && out.len() <= VALS_INLINE {
        generated_init(cls)?
    } else {
        None
    };
    plan.complete(out, fast_init, has_initvar, post_init);
    Ok(())
}

/// The `__init__` that `@dataclass` generated for `cls` itself, if calling
/// it as `__init__(obj, *fields)` does exactly what decoding does by hand:
/// store each field on `obj` in order (then call `__post_init__`). That
/// holds when the class is not frozen (a frozen class's `__init__` goes
/// through `object.__setattr__`), does not define `__setattr__` (decoding
/// bypasses it) and its `__init__` is the generated one (defined in the
/// class, compiled by `dataclasses` from a string, named after the class).
fn generated_init(cls: &Bound<'_, PyType>) -> PyResult<Option<Py<PyAny>>> {
    let py = cls.py();
    let tp = cls.as_ptr() as *mut ffi::PyTypeObject;
    // SAFETY: `cls` is a live type object; reading a slot is plain field access.
    let setattro = unsafe { (*tp).tp_setattro };
    let generic: ffi::setattrofunc = ffi::PyObject_GenericSetAttr;
    if !setattro.is_some_and(|f| std::ptr::fn_addr_eq(f, generic)) {
        return Ok(None);
    }
    let params = cls.getattr(pyo3::intern!(py, "__dataclass_params__"))?;
    if params.getattr(pyo3::intern!(py, "frozen"))?.is_truthy()?
        || !params.getattr(pyo3::intern!(py, "init"))?.is_truthy()?
    {
        return Ok(None);
    }
    let own = cls.getattr(pyo3::intern!(py, "__dict__"))?;
    let Ok(init) = own.get_item(pyo3::intern!(py, "__init__")) else {
        return Ok(None);
    };
    if !init.is_instance_of::<pyo3::types::PyFunction>() {
        return Ok(None);
    }
    let code = init.getattr(pyo3::intern!(py, "__code__"))?;
    let file: String = code.getattr(pyo3::intern!(py, "co_filename"))?.extract()?;
    let qualname: String = init.getattr(pyo3::intern!(py, "__qualname__"))?.extract()?;
    let cls_qualname: String = cls.getattr(pyo3::intern!(py, "__qualname__"))?.extract()?;
    if file != "<string>" || qualname != format!("{cls_qualname}.__init__") {
        return Ok(None);
    }
    Ok(Some(init.unbind()))
}

// ---- decoding ------------------------------------------------------------------

enum Seg {
    Index(usize),
    Key(String),
}

enum FailKind {
    Mismatch {
        expected: String,
        got: &'static str,
    },
    Msg(String),
    /// A Python error raised by user code (`__post_init__`, enum lookup): shown with the path.
    User(PyErr),
    /// A decode error (limits): propagated unchanged.
    Decode(PyErr),
}

struct Fail {
    kind: FailKind,
    path: Vec<Seg>,
}

type TR<'py> = Result<Bound<'py, PyAny>, Box<Fail>>;

#[cold]
fn mismatch(plan: &Plan, v: &Value<'_>) -> Box<Fail> {
    Box::new(Fail {
        kind: FailKind::Mismatch {
            expected: plan.name(),
            got: got_name(v),
        },
        path: Vec::new(),
    })
}

#[cold]
fn fail_msg(m: String) -> Box<Fail> {
    Box::new(Fail {
        kind: FailKind::Msg(m),
        path: Vec::new(),
    })
}

#[cold]
fn decode_fail(e: PyErr) -> Box<Fail> {
    Box::new(Fail {
        kind: FailKind::Decode(e),
        path: Vec::new(),
    })
}

#[cold]
fn with_seg(mut f: Box<Fail>, s: Seg) -> Box<Fail> {
    f.path.push(s);
    f
}

fn format_path(path: &[Seg]) -> String {
    let mut out = String::from("$");
    for s in path.iter().rev() {
        match s {
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
            Seg::Key(k) => {
                let ident = {
                    let mut c = k.chars();
                    matches!(c.next(), Some(ch) if ch == '_' || ch.is_alphabetic())
                        && c.all(|ch| ch == '_' || ch.is_alphanumeric())
                };
                if ident {
                    out.push('.');
                    out.push_str(k);
                } else {
                    out.push_str(&format!("[{k:?}]"));
                }
            }
        }
    }
    out
}

/// The order in which a union tries its members on map `m` when two or
/// more are dataclasses (or `TypedDict`s), as indexes into `members`: the
/// dataclasses, in the places they hold among the members, sorted by how
/// many keys of `m` are not their fields (then in the order written);
/// the other members keep their places. Since unknown keys are ignored,
/// trying them in the order written gave a map to the first dataclass
/// whose required fields it had, whichever it was written as. `None`:
/// the order written.
fn dataclass_order(members: &[Plan], m: &Map<'_>) -> Option<Vec<usize>> {
    let is_dc = |i: &usize| matches!(members[*i], Plan::Dataclass(_));
    // Counted first: unions of one dataclass (`Item | None`, the common
    // case) allocate nothing per map.
    (0..members.len()).filter(is_dc).nth(1)?;
    let places: Vec<usize> = (0..members.len()).filter(is_dc).collect();
    let slots = m.slots();
    let unknown = |i: usize| match &members[i] {
        Plan::Dataclass(dc) => match dc.fields.get() {
            Some(fields) => (0..slots.len())
                .filter(|&k| dc.field_of(slots.key(k).unwrap_or(""), fields) == u32::MAX)
                .count(),
            None => usize::MAX,
        },
        _ => usize::MAX,
    };
    let mut ranked: Vec<(usize, usize)> = places.iter().map(|&i| (unknown(i), i)).collect();
    ranked.sort_unstable();
    let mut order: Vec<usize> = (0..members.len()).collect();
    for (&place, &(_, i)) in places.iter().zip(&ranked) {
        order[place] = i;
    }
    Some(order)
}

/// The failure of a union none of whose members matched, when several
/// could have (a map tried as two dataclasses): each member's reason, at
/// its place below the union's value (`.y`, `[0]`), so that the message
/// says why each one failed, not only the first.
#[cold]
fn union_fail(py: Python<'_>, plan: &Plan, fails: Vec<(&Plan, Box<Fail>)>) -> Box<Fail> {
    /// Members whose reasons are spelled out.
    const SHOWN: usize = 4;
    let n = fails.len();
    let mut reasons: Vec<String> = fails
        .into_iter()
        .take(SHOWN)
        .map(|(m, f)| {
            let text = match f.kind {
                FailKind::Mismatch { expected, got } => format!("expected {expected}, got {got}"),
                FailKind::Msg(m) => m,
                FailKind::User(e) | FailKind::Decode(e) => e.value(py).to_string(),
            };
            let at = format_path(&f.path);
            match at.strip_prefix('$') {
                Some("") | None => format!("{}: {text}", m.name()),
                Some(rel) => format!("{}: {text} at {rel}", m.name()),
            }
        })
        .collect();
    if n > SHOWN {
        reasons.push(format!("{} more", n - SHOWN));
    }
    fail_msg(format!(
        "no member of {} matches ({})",
        plan.name(),
        reasons.join("; ")
    ))
}

#[allow(clippy::boxed_local)]
fn into_pyerr(py: Python<'_>, f: Box<Fail>) -> PyErr {
    let path = format_path(&f.path);
    match f.kind {
        FailKind::Mismatch { expected, got } => validation_error(
            py,
            format!("expected {expected}, got {got} at {path}"),
            path,
        ),
        FailKind::Msg(m) => validation_error(py, format!("{m} at {path}"), path),
        FailKind::User(e) => {
            let err = validation_error(py, format!("{} at {path}", e.value(py)), path);
            err.set_cause(py, Some(e));
            err
        }
        FailKind::Decode(e) => e,
    }
}

/// `cls.__new__(cls)`: object's own `tp_new` called directly when the
/// class does not override `__new__` (no method lookup, no argument tuple
/// built per instance).
fn new_instance<'py>(cls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    let tp = cls.as_ptr() as *mut ffi::PyTypeObject;
    // SAFETY: `cls` is a live type object (a dataclass, checked when the
    // plan was made); reading its `tp_new` slot and object's is plain
    // field access on live static or heap type objects.
    let (own, base) = unsafe {
        (
            (*tp).tp_new,
            (*std::ptr::addr_of!(ffi::PyBaseObject_Type)).tp_new,
        )
    };
    match (own, base) {
        (Some(new), Some(base)) if std::ptr::fn_addr_eq(new, base) => {
            let args = pyo3::types::PyTuple::empty(py);
            // SAFETY: object.__new__ with an empty argument tuple and no
            // keywords, as `object.__new__(cls)` does; it returns a new
            // reference or NULL with an exception set.
            unsafe {
                Bound::from_owned_ptr_or_err(py, new(tp, args.as_ptr(), std::ptr::null_mut()))
            }
        }
        _ => cls.call_method1(pyo3::intern!(py, "__new__"), (cls,)),
    }
}

/// Field values of one dataclass instance (inline for up to
/// `VALS_INLINE` fields: no allocation per instance).
enum Vals<'py> {
    Inline([Option<Bound<'py, PyAny>>; VALS_INLINE], usize),
    Heap(Vec<Option<Bound<'py, PyAny>>>),
}

const VALS_INLINE: usize = 16;

impl<'py> Vals<'py> {
    fn new(n: usize) -> Vals<'py> {
        if n <= VALS_INLINE {
            Vals::Inline(std::array::from_fn(|_| None), n)
        } else {
            let mut v = Vec::new();
            v.resize_with(n, || None);
            Vals::Heap(v)
        }
    }

    fn slice(&mut self) -> &mut [Option<Bound<'py, PyAny>>] {
        match self {
            Vals::Inline(a, n) => &mut a[..*n],
            Vals::Heap(v) => v,
        }
    }
}

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

struct TDec<'py, 'a, 'p> {
    d: Decoder<'py, 'a>,
    /// Results by (record offset, plan address), for shared values.
    memo: Memo<'py>,
    /// Field index per (shape offset, dataclass plan address), for maps
    /// whose keys were checked already.
    shapes: IdMap<(usize, usize), KeyRef<'p>>,
    /// The last entry looked up or added in `shapes`.
    last_shape: Option<(usize, usize, KeyRef<'p>)>,
}

/// Decodes `v` as `plan`.
pub(crate) fn decode_typed<'py>(
    py: Python<'py>,
    buf: &[u8],
    v: Value<'_>,
    plan: &Plan,
) -> PyResult<Bound<'py, PyAny>> {
    let _gc = decode::GcPause::new();
    let mut t = TDec {
        d: Decoder::new(py, buf),
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

impl<'py, 'a, 'p> TDec<'py, 'a, 'p> {
    fn py(&self) -> Python<'py> {
        self.d.py
    }

    /// [`value`](Self::value) with the common scalar cases inline (the
    /// body of the dataclass and sequence loops).
    #[inline(always)]
    fn field(&mut self, plan: &'p Plan, v: Value<'a>) -> TR<'py> {
        let py = self.py();
        match (plan, v) {
            (Plan::Str, Value::Str(s)) => self.d.str(s.as_bytes()).map_err(decode_fail),
            (Plan::Int, Value::Int(i)) => {
                // SAFETY: returns a new reference or NULL with an exception set.
                unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromLongLong(i)) }
                    .map_err(decode_fail)
            }
            (Plan::Float, Value::Float(f)) => Ok(pyo3::types::PyFloat::new(py, f).into_any()),
            (Plan::Bytes, Value::Bytes(b)) => {
                self.d.charge_payload(b.len()).map_err(decode_fail)?;
                Ok(pyo3::types::PyBytes::new(py, b).into_any())
            }
            (Plan::Union { nullable: true, .. }, Value::Null) => Ok(py.None().into_bound(py)),
            (Plan::Union { members, .. }, Value::Str(s)) if matches!(members[..], [Plan::Str]) => {
                self.d.str(s.as_bytes()).map_err(decode_fail)
            }
            (Plan::DateTime, Value::Timestamp(t)) => decode::timestamp(py, t).map_err(decode_fail),
            (Plan::Tuple(items), Value::Array(a)) => {
                self.memoized(plan, a.offset(), |s| s.tuple(items, a))
            }
            _ => self.value(plan, v),
        }
    }

    /// A fixed-length tuple (`tuple[int, str]`) from an array: filled in
    /// place, each item through [`field`](Self::field).
    fn tuple(&mut self, items: &'p [Plan], a: Array<'a>) -> TR<'py> {
        let py = self.py();
        let elems = a.slots();
        let n = elems.len();
        if items.len() != n {
            return Err(fail_msg(format!(
                "expected tuple of length {}, got list of length {n}",
                items.len()
            )));
        }
        self.enter(n)?;
        // SAFETY: PyTuple_New returns a new tuple of `n` NULL items or NULL
        // with an exception set; a partly filled one (after an error) is
        // valid to free, as NULL items are skipped.
        let out =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(n as ffi::Py_ssize_t)) }
                .map_err(decode_fail)?;
        for (i, p) in items.iter().enumerate() {
            let item = elems.value(i).unwrap_or(Value::Null);
            let o = self
                .field(p, item)
                .map_err(|f| with_seg(f, Seg::Index(i)))?;
            // SAFETY: i < n, each item is set once; the tuple steals the
            // reference.
            unsafe { ffi::PyTuple_SET_ITEM(out.as_ptr(), i as ffi::Py_ssize_t, o.into_ptr()) };
        }
        self.d.leave();
        Ok(out)
    }

    /// A `NamedTuple` from an array: `cls(*items)`, missing trailing
    /// items from the defaults.
    fn namedtuple(&mut self, nt: &'p NtPlan, a: Array<'a>) -> TR<'py> {
        let py = self.py();
        let elems = a.slots();
        let n = elems.len();
        let total = nt.items.len();
        if n < nt.required || n > total {
            let want = if nt.required == total {
                format!("{total} items")
            } else {
                format!("{} to {total} items", nt.required)
            };
            return Err(fail_msg(format!(
                "expected {} ({want}), got list of length {n}",
                nt.name
            )));
        }
        self.enter(n)?;
        let mut out = Vec::with_capacity(total);
        for (i, p) in nt.items.iter().enumerate() {
            if i < n {
                let item = elems.value(i).unwrap_or(Value::Null);
                out.push(
                    self.field(p, item)
                        .map_err(|f| with_seg(f, Seg::Index(i)))?,
                );
            } else if let Some(d) = &nt.defaults[i] {
                out.push(d.bind(py).clone());
            }
        }
        self.d.leave();
        let args = PyTuple::new(py, out).map_err(decode_fail)?;
        nt.cls.bind(py).call1(args).map_err(|e| user_fail(py, e))
    }

    fn value(&mut self, plan: &'p Plan, v: Value<'a>) -> TR<'py> {
        let py = self.py();
        match plan {
            Plan::Any => self.d.value(v).map_err(decode_fail),
            Plan::Str => match v {
                Value::Str(s) => self.d.str(s.as_bytes()).map_err(decode_fail),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Int => match v {
                Value::Int(_) | Value::UInt(_) | Value::BigInt(_) => {
                    self.d.value(v).map_err(decode_fail)
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Float => match v {
                Value::Float(f) => Ok(pyo3::types::PyFloat::new(py, f).into_any()),
                Value::Int(i) => Ok(pyo3::types::PyFloat::new(py, i as f64).into_any()),
                Value::UInt(u) => Ok(pyo3::types::PyFloat::new(py, u as f64).into_any()),
                Value::BigInt(b) => {
                    let i = decode::bigint(py, b).map_err(decode_fail)?;
                    let f: f64 = i.extract().map_err(|e| {
                        Box::new(Fail {
                            kind: FailKind::User(e),
                            path: Vec::new(),
                        })
                    })?;
                    Ok(pyo3::types::PyFloat::new(py, f).into_any())
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Bool => match v {
                Value::Bool(b) => Ok(pyo3::types::PyBool::new(py, b).to_owned().into_any()),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::NoneT => match v {
                Value::Null => Ok(py.None().into_bound(py)),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Bytes => match v {
                Value::Bytes(b) => {
                    self.d.charge_payload(b.len()).map_err(decode_fail)?;
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
                    decode::ext(py, e.type_id, e.data, self.d.doc_bytes()).map_err(decode_fail)
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
                    decode::ext(py, e.type_id, e.data, self.d.doc_bytes()).map_err(decode_fail)
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
                    self.d.charge_payload(e.data.len()).map_err(decode_fail)?;
                    decode::ext(py, e.type_id, e.data, self.d.doc_bytes()).map_err(decode_fail)
                }
                Value::Str(s) => {
                    let s = utf8(py, s)?;
                    pytypes::types(py)
                        .and_then(|t| t.decimal.bind(py).call1((s,)))
                        .map_err(|_| fail_msg(format!("invalid Decimal {}", py_repr(py, s))))
                }
                Value::Int(_) | Value::UInt(_) | Value::BigInt(_) => {
                    let i = self.d.value(v).map_err(decode_fail)?;
                    pytypes::types(py)
                        .and_then(|t| t.decimal.bind(py).call1((i,)))
                        .map_err(decode_fail)
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::Time => {
                match v {
                    Value::Ext(e) if e.type_id == EXT_TIME => {
                        decode::ext(py, e.type_id, e.data, self.d.doc_bytes()).map_err(decode_fail)
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
                    decode::ext(py, e.type_id, e.data, self.d.doc_bytes()).map_err(decode_fail)
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
                Value::Vector(vec) => {
                    pytypes::vector_to_py(py, vec.elem_type(), vec.raw()).map_err(decode_fail)
                }
                _ => Err(mismatch(plan, &v)),
            },
            Plan::NdArray => match v {
                Value::Vector(vec) => {
                    pytypes::vector_to_py(py, vec.elem_type(), vec.raw()).map_err(decode_fail)
                }
                Value::Array(a) => self.ndarray_rows(plan, a),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::List(_) | Plan::Set(..) | Plan::TupleVar(_) | Plan::Tuple(_) => {
                self.sequence(plan, v)
            }
            Plan::Dict(vp) => match v {
                Value::Map(m) => self.memoized(plan, m.offset(), |s| s.dict(vp, m)),
                _ => Err(mismatch(plan, &v)),
            },
            Plan::KeyDict(kp, vp, int_keys) => match v {
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
            Plan::Enum(cls, name, bools) => {
                if !plan.accepts(&v) {
                    return Err(mismatch(plan, &v));
                }
                let raw = self.d.value(v).map_err(decode_fail)?;
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
            Plan::Literal(vals, _) => {
                if !plan.accepts(&v) {
                    return Err(mismatch(plan, &v));
                }
                let raw = self.d.value(v).map_err(decode_fail)?;
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
    fn memoized(
        &mut self,
        plan: &Plan,
        off: Option<usize>,
        f: impl FnOnce(&mut Self) -> TR<'py>,
    ) -> TR<'py> {
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

    fn enter(&mut self, n: usize) -> Result<(), Box<Fail>> {
        self.d.charge(n).map_err(decode_fail)?;
        self.d.enter().map_err(decode_fail)
    }

    fn sequence(&mut self, plan: &'p Plan, v: Value<'a>) -> TR<'py> {
        let py = self.py();
        match v {
            Value::Array(a) => self.memoized(plan, a.offset(), |s| {
                let mut elems = a.iter();
                let n = elems.len();
                if let Plan::Tuple(items) = plan {
                    if items.len() != n {
                        return Err(fail_msg(format!(
                            "expected tuple of length {}, got list of length {n}",
                            items.len()
                        )));
                    }
                }
                s.enter(n)?;
                if !matches!(plan, Plan::Set(..)) {
                    // Lists and tuples are filled in place.
                    let list = matches!(plan, Plan::List(_));
                    let len = n as ffi::Py_ssize_t;
                    // SAFETY: PyList_New / PyTuple_New return a new
                    // container of `n` NULL items or NULL with an exception
                    // set; a partly filled one (after an error) is valid to
                    // free, as NULL items are skipped.
                    let out = unsafe {
                        let p = if list {
                            ffi::PyList_New(len)
                        } else {
                            ffi::PyTuple_New(len)
                        };
                        Bound::from_owned_ptr_or_err(py, p).map_err(decode_fail)?
                    };
                    for i in 0..n {
                        let item = elems.next().unwrap_or(Value::Null);
                        let p = match plan {
                            Plan::List(p) | Plan::TupleVar(p) => &**p,
                            Plan::Tuple(items) => &items[i],
                            _ => unreachable!("list and tuple plans only"),
                        };
                        let o = s.field(p, item).map_err(|f| with_seg(f, Seg::Index(i)))?;
                        let i = i as ffi::Py_ssize_t;
                        // SAFETY: i < n, each item is set once; the
                        // container steals the reference.
                        unsafe {
                            if list {
                                ffi::PyList_SET_ITEM(out.as_ptr(), i, o.into_ptr());
                            } else {
                                ffi::PyTuple_SET_ITEM(out.as_ptr(), i, o.into_ptr());
                            }
                        }
                    }
                    s.d.leave();
                    return Ok(out);
                }
                let mut out: Vec<Bound<'py, PyAny>> = Vec::with_capacity(n);
                for i in 0..n {
                    let item = elems.next().unwrap_or(Value::Null);
                    let p = match plan {
                        Plan::List(p) | Plan::Set(p, _) | Plan::TupleVar(p) => &**p,
                        Plan::Tuple(items) => &items[i],
                        _ => unreachable!("sequence plans only"),
                    };
                    let o = s.value(p, item).map_err(|f| with_seg(f, Seg::Index(i)))?;
                    out.push(o);
                }
                s.d.leave();
                s.collect(plan, out)
            }),
            Value::Vector(vec) if !matches!(plan, Plan::Tuple(_)) => {
                let n = vec.len();
                self.enter(n)?;
                let p = match plan {
                    Plan::List(p) | Plan::Set(p, _) | Plan::TupleVar(p) => &**p,
                    _ => unreachable!("sequence plans only"),
                };
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let item = match vec.get(i) {
                        Some(Scalar::Int(x)) => Value::Int(x),
                        Some(Scalar::UInt(x)) => Value::UInt(x),
                        Some(Scalar::Float(x)) => Value::Float(x),
                        None => Value::Null,
                    };
                    let o = self
                        .value(p, item)
                        .map_err(|f| with_seg(f, Seg::Index(i)))?;
                    out.push(o);
                }
                self.d.leave();
                let _ = py;
                self.collect(plan, out)
            }
            _ => Err(mismatch(plan, &v)),
        }
    }

    fn collect(&mut self, plan: &'p Plan, items: Vec<Bound<'py, PyAny>>) -> TR<'py> {
        let py = self.py();
        let r = match plan {
            Plan::List(_) => pyo3::types::PyList::new(py, items).map(|l| l.into_any()),
            Plan::TupleVar(_) | Plan::Tuple(_) => PyTuple::new(py, items).map(|t| t.into_any()),
            Plan::Set(_, false) => PySet::new(py, &items).map(|s| s.into_any()),
            Plan::Set(_, true) => PyFrozenSet::new(py, &items).map(|s| s.into_any()),
            _ => unreachable!("sequence plans only"),
        };
        r.map_err(|e| {
            Box::new(Fail {
                kind: FailKind::User(e),
                path: Vec::new(),
            })
        })
    }

    fn dict(&mut self, vp: &'p Plan, m: Map<'a>) -> TR<'py> {
        let py = self.py();
        let n = m.len();
        self.enter(n)?;
        let dict = PyDict::new(py);
        let start = self.d.keys_start(&m, n).map_err(decode_fail)?;
        for (i, v) in m.values().enumerate().take(n) {
            let o = self.value(vp, v).map_err(|f| {
                let k = m.key_at(i).unwrap_or("").as_bytes();
                with_seg(f, Seg::Key(String::from_utf8_lossy(k).into_owned()))
            })?;
            let k = self.d.key(start, i);
            // SAFETY: `k` is a live str owned by the decoder's key store.
            if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), k, o.as_ptr()) } < 0 {
                return Err(decode_fail(PyErr::fetch(py)));
            }
        }
        self.d.leave();
        Ok(dict.into_any())
    }

    /// A dict whose keys are read as `kp` (each key's errors at its place).
    fn key_dict(&mut self, kp: &'p Plan, vp: &'p Plan, int_keys: bool, m: Map<'a>) -> TR<'py> {
        let n = m.len();
        self.enter(n)?;
        let dict = PyDict::new(self.py());
        for (i, v) in m.values().enumerate().take(n) {
            let k = m.key_at(i).unwrap_or("");
            let at = |f| with_seg(f, Seg::Key(k.to_owned()));
            let ko = if int_keys {
                self.int_key(kp, k)
            } else {
                self.value(kp, Value::Str(k))
            }
            .map_err(at)?;
            let o = self.value(vp, v).map_err(at)?;
            dict.set_item(ko, o).map_err(decode_fail)?;
        }
        self.d.leave();
        Ok(dict.into_any())
    }

    /// A dict key read as an int type (see [`int_key_type`]) from its
    /// canonical decimal text (`-?(0|[1-9][0-9]*)`, not `-0`, at most 4300
    /// digits as for `int(str)`): as an int value of the document within 64
    /// bits, else as a Python int.
    fn int_key(&mut self, kp: &'p Plan, k: &str) -> TR<'py> {
        let py = self.py();
        let k = utf8(py, k)?;
        let digits = k.len() - usize::from(k.starts_with('-'));
        if !roving::serde::is_int_key(k) || digits > roving::read::MAX_DECIMAL_DIGITS {
            return Err(fail_msg(format!(
                "invalid int key {} (expected an integer's decimal text: no sign but -, no \
                 leading zeros or spaces, at most {} digits)",
                py_repr(py, k),
                roving::read::MAX_DECIMAL_DIGITS
            )));
        }
        if let Ok(i) = k.parse::<i64>() {
            return self.value(kp, Value::Int(i));
        }
        if let Ok(u) = k.parse::<u64>() {
            return self.value(kp, Value::UInt(u));
        }
        let i = py
            .get_type::<pyo3::types::PyInt>()
            .call1((k,))
            .map_err(decode_fail)?;
        self.big_int_key(kp, &i)
    }

    /// A dict key outside 64 bits (a Python int) as an int type.
    fn big_int_key(&mut self, kp: &'p Plan, i: &Bound<'py, PyAny>) -> TR<'py> {
        let py = self.py();
        let shown = || i.repr().map(|r| r.to_string()).unwrap_or_default();
        match kp {
            Plan::Int => Ok(i.clone()),
            Plan::Enum(cls, name, _) => cls
                .bind(py)
                .call1((i,))
                .map_err(|_| fail_msg(format!("invalid value {} for {name}", shown()))),
            Plan::Literal(vals, _) => vals
                .iter()
                .find(|(c, _)| c.bind(py).eq(i).unwrap_or(false))
                .map(|(_, out)| out.bind(py).clone())
                .ok_or_else(|| fail_msg(format!("expected {}, got {}", kp.name(), shown()))),
            Plan::Union { members, .. } => {
                for m in members {
                    if let Ok(o) = self.big_int_key(m, i) {
                        return Ok(o);
                    }
                }
                Err(fail_msg(format!("expected {}, got {}", kp.name(), shown())))
            }
            _ => Err(fail_msg(format!("expected {}, got int", kp.name()))),
        }
    }

    /// An ndarray from an array of rows (`plan` is [`Plan::NdArray`]):
    /// each row read as an ndarray, then stacked, when they all have one
    /// shape and one dtype (as `dumps` writes them).
    fn ndarray_rows(&mut self, plan: &'p Plan, a: Array<'a>) -> TR<'py> {
        let py = self.py();
        let Some(np) = pytypes::numpy_import(py) else {
            return Err(fail_msg("numpy is not installed".into()));
        };
        let n = a.len();
        if n == 0 {
            return Err(fail_msg(
                "expected ndarray, got an empty array (no dtype or shape to give it)".into(),
            ));
        }
        self.enter(n)?;
        let mut rows = Vec::with_capacity(n);
        let mut first: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = None;
        for (i, v) in a.iter().enumerate() {
            let at = |f| with_seg(f, Seg::Index(i));
            let row = self.value(plan, v).map_err(at)?;
            let shape = row
                .getattr(pyo3::intern!(py, "shape"))
                .map_err(decode_fail)?;
            let dtype = row
                .getattr(pyo3::intern!(py, "dtype"))
                .map_err(decode_fail)?;
            if let Some((s0, d0)) = &first {
                let same =
                    s0.eq(&shape).map_err(decode_fail)? && d0.eq(&dtype).map_err(decode_fail)?;
                if !same {
                    let show =
                        |o: &Bound<'py, PyAny>| o.str().map(|s| s.to_string()).unwrap_or_default();
                    return Err(at(fail_msg(format!(
                        "expected ndarray rows of one shape and dtype, got {} {} after {} {}",
                        show(&shape),
                        show(&dtype),
                        show(s0),
                        show(d0)
                    ))));
                }
            } else {
                first = Some((shape, dtype));
            }
            rows.push(row);
        }
        self.d.leave();
        let rows = pyo3::types::PyList::new(py, rows).map_err(decode_fail)?;
        np.stack.bind(py).call1((rows,)).map_err(decode_fail)
    }

    fn dataclass(&mut self, dc: &'p Arc<DcPlan>, m: Map<'a>) -> TR<'py> {
        let py = self.py();
        let fields = match dc.fields.get() {
            Some(f) => f,
            None => return Err(fail_msg(format!("dataclass {} is not ready", dc.name))),
        };
        let m = m.slots();
        let n = m.len();
        self.enter(n)?;
        let key = (
            m.shape_offset().unwrap_or(usize::MAX),
            Arc::as_ptr(dc) as usize,
        );
        // A key list already checked in this document, or a candidate (the
        // last one seen for this dataclass) whose keys are compared while
        // the values are read.
        let known = match &self.last_shape {
            Some((s, d, ki)) if (*s, *d) == key => Some(ki.clone()),
            _ if self.shapes.is_empty() => None,
            _ => self.shapes.get(&key).cloned(),
        };
        // A map of a known shape has that shape's key count, unless the
        // bytes are not a valid document (opened trusted, or changed
        // after validation): then its keys are matched one by one.
        let known = known.filter(|k| k.idx.len() == n);
        let checked = known.is_some();
        let cand = known.or_else(|| dc.last_keys().map(KeyRef::Plan));
        let mut vals = Vals::new(fields.len());
        let mut same = cand.as_ref().is_some_and(|c| c.idx.len() == n);
        for i in 0..n {
            let j = match &cand {
                Some(c) if checked => c.idx[i],
                Some(c) if same && m.key_record_is(i, &c.recs[i]) => c.idx[i],
                _ => {
                    same = false;
                    dc.field_of(m.key(i).unwrap_or(""), fields)
                }
            };
            if j == u32::MAX {
                continue;
            }
            let Some(v) = m.value(i) else { break };
            let f = &fields[j as usize];
            let o = self
                .field(&f.plan, v)
                .map_err(|e| with_seg(e, Seg::Key(f.name_str.clone())))?;
            vals.slice()[j as usize] = Some(o);
        }
        if !checked {
            let ki = match cand {
                Some(c) if same => c,
                _ => dc.field_index(&m, fields),
            };
            // The previous entry moves to the map (a document of one
            // shape, e.g. a store record, allocates none).
            if let Some((s, d, prev)) = self.last_shape.replace((key.0, key.1, ki)) {
                if self.shapes.len() < 4096 {
                    self.shapes.insert((s, d), prev);
                }
            }
        }
        self.d.leave();
        let vals = vals.slice();
        // Defaults and missing fields.
        for (j, f) in fields.iter().enumerate() {
            if vals[j].is_some() {
                continue;
            }
            vals[j] = Some(match &f.default {
                Default::Value(d) => d.bind(py).clone(),
                Default::Factory(fac) => fac.bind(py).call0().map_err(|e| {
                    Box::new(Fail {
                        kind: FailKind::User(e),
                        path: Vec::new(),
                    })
                })?,
                // An `init=False` field without a default is left unset,
                // as `__init__` leaves it (`__post_init__` may set it).
                Default::Required if !f.init => continue,
                Default::Omit => continue,
                Default::Required => {
                    return Err(fail_msg(format!("missing required field '{}'", f.name_str)));
                }
            });
        }
        if dc.as_dict {
            let out = PyDict::new(py);
            for (f, v) in fields.iter().zip(vals.iter()) {
                if let Some(v) = v {
                    out.set_item(f.name.bind(py), v).map_err(decode_fail)?;
                }
            }
            return Ok(out.into_any());
        }
        let cls = dc.cls.bind(py);
        let user = |e: PyErr| user_fail(py, e);
        if *dc.call_init.get().unwrap_or(&false) {
            let kw = PyDict::new(py);
            for (f, v) in fields.iter().zip(vals.iter_mut()) {
                if f.init {
                    kw.set_item(f.name.bind(py), v.take().expect("filled above"))
                        .map_err(user)?;
                }
            }
            return cls.call((), Some(&kw)).map_err(user);
        }
        // object.__new__(cls), then the fields set like the generated
        // __init__ does (bypassing a frozen class's __setattr__).
        let obj = new_instance(cls).map_err(user)?;
        if let Some(init) = dc.fast_init.get().and_then(Option::as_ref) {
            // Every field is an `init` field (checked when the plan was
            // made), in the order of `__init__`'s parameters.
            let mut args = [std::ptr::null_mut::<ffi::PyObject>(); VALS_INLINE + 1];
            args[0] = obj.as_ptr();
            for (a, v) in args[1..].iter_mut().zip(vals.iter()) {
                match v {
                    Some(v) => *a = v.as_ptr(),
                    None => return Err(fail_msg("missing field value".to_owned())),
                }
            }
            // SAFETY: `init` is a live function; `args` holds `1 + fields`
            // live borrowed references (the callee takes its own); it
            // returns a new reference or NULL with an exception set.
            let r = unsafe {
                ffi::PyObject_Vectorcall(
                    init.as_ptr(),
                    args.as_ptr(),
                    vals.len() + 1,
                    std::ptr::null_mut(),
                )
            };
            // SAFETY: as above.
            unsafe { Bound::from_owned_ptr_or_err(py, r) }.map_err(user)?;
            return Ok(obj);
        }
        for (f, v) in fields.iter().zip(vals.iter()) {
            let Some(v) = v else {
                if !f.init {
                    continue;
                }
                return Err(fail_msg(format!("missing required field '{}'", f.name_str)));
            };
            // SAFETY: live objects; PyObject_GenericSetAttr takes its own references.
            let rc =
                unsafe { ffi::PyObject_GenericSetAttr(obj.as_ptr(), f.name.as_ptr(), v.as_ptr()) };
            if rc < 0 {
                return Err(user(PyErr::fetch(py)));
            }
        }
        if *dc.post_init.get().unwrap_or(&false) {
            obj.call_method0(pyo3::intern!(py, "__post_init__"))
                .map_err(user)?;
        }
        Ok(obj)
    }
}
