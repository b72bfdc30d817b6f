//! The [`Plan`] a Python type compiles to, and what a plan tells about
//! the values it reads (its name, which kinds of value it accepts).

use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

use roving::read::MapSlots;
use roving::Value;

use crate::pytypes::{EXT_DATE, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA, EXT_UUID};

use super::text::base64_text;

/// A compiled type: what a value of the document is read as.
pub(crate) enum Plan {
    /// `typing.Any` (or `object`): the value as untyped `loads` gives it.
    Any,
    /// `None`.
    NoneType,
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
    /// `list[item]` (and `Sequence[item]`, ...).
    List {
        item: Box<Plan>,
    },
    /// `set[item]`, or `frozenset[item]` when `frozen`.
    Set {
        item: Box<Plan>,
        frozen: bool,
    },
    /// `tuple[item, ...]`: any length, every item of one type.
    HomogeneousTuple {
        item: Box<Plan>,
    },
    /// `tuple[A, B]`: one type per item, of this length.
    Tuple {
        items: Vec<Plan>,
    },
    /// `dict[str, value]`.
    Dict {
        value: Box<Plan>,
    },
    /// A dict whose keys (str in the document) are read as `key`, a type
    /// that reads from str ([`Plan::str_like`]): `dict[StrEnum, T]`, or
    /// with `int_keys`, from their canonical decimal text as a type that
    /// reads from an int (`int_key_type` in `compile.rs`): `dict[int,
    /// T]`, `dict[IntEnum, T]`.
    TypedKeyDict {
        key: Box<Plan>,
        value: Box<Plan>,
        int_keys: bool,
    },
    /// `A | B | None`: the members tried in order (an `int` member ahead
    /// of `float` and `Decimal`), `None` accepted when `nullable`.
    Union {
        nullable: bool,
        members: Vec<Plan>,
        name: String,
    },
    /// A dataclass or a `TypedDict`.
    Dataclass(Arc<DataclassPlan>),
    NamedTuple(Box<NamedTuplePlan>),
    /// An enum `class`, its `name`, and whether a member's value is a bool.
    Enum {
        class: Py<PyType>,
        name: String,
        bool_values: bool,
    },
    /// A `Literal`: each value as written (an enum member's `.value`) and
    /// as returned, and the type's name.
    Literal {
        values: Vec<(Py<PyAny>, Py<PyAny>)>,
        name: String,
    },
    /// `array.array`, from a typed vector.
    Vector,
    /// `numpy.ndarray`: a typed vector, or an array of equal ndarrays (of
    /// one dimension less), as `dumps` writes an array of 2 or more.
    NdArray,
}

/// A `NamedTuple` (or `collections.namedtuple`): an array of its fields,
/// the last ones optional when they have defaults.
pub(crate) struct NamedTuplePlan {
    pub(super) cls: Py<PyType>,
    pub(super) name: String,
    pub(super) items: Vec<Plan>,
    /// The default of each field, `None` for required ones.
    pub(super) defaults: Vec<Option<Py<PyAny>>>,
    /// Fields without a default (the first ones).
    pub(super) required: usize,
}

/// A dataclass: its fields are compiled after the plan is registered, so
/// recursive dataclasses refer to themselves.
pub(crate) struct DataclassPlan {
    pub(super) cls: Py<PyType>,
    pub(super) name: String,
    /// A parameterized generic (`Box[int]`): its key in the caches is an
    /// alias, equal to the same one with union arguments in another order.
    pub(super) generic: bool,
    /// A `TypedDict`: decoded to a dict of the keys present (fields that
    /// are not required may be missing).
    pub(super) as_dict: bool,
    pub(super) fields: OnceLock<Vec<Field>>,
    /// Field index by name.
    pub(super) by_name: OnceLock<hashbrown::HashMap<String, usize>>,
    /// Build with `cls(**kwargs)` (InitVars) rather than `object.__new__` + attributes.
    pub(super) call_init: OnceLock<bool>,
    pub(super) post_init: OnceLock<bool>,
    /// The class's own dataclass-generated `__init__`, when calling it with
    /// every field positionally is exactly "set each field" (see
    /// [`generated_init`]): one Python call, whose attribute stores CPython
    /// specializes, instead of a generic attribute store per field.
    pub(super) fast_init: OnceLock<Option<Py<PyAny>>>,
    /// Field indexes of the key lists seen (across documents, so that
    /// decoding many small documents of one dataclass, e.g. store records,
    /// looks their keys up once): filled once each, never changed, so read
    /// without a lock or a reference count.
    pub(super) key_lists: [OnceLock<KeyIndex>; KEY_LISTS],
    /// Entries of `key_lists` claimed so far.
    pub(super) n_key_lists: AtomicUsize,
    /// 1 + the entry of `key_lists` seen last (0: none yet).
    pub(super) last_keys: AtomicUsize,
}

/// Key lists remembered per dataclass (more are indexed per document).
const KEY_LISTS: usize = 8;

/// A key list's field index: remembered by the plan, or (past
/// [`KEY_LISTS`]) held by the decoding of one document.
#[derive(Clone)]
pub(super) enum KeyIndexRef<'p> {
    Plan(&'p KeyIndex),
    Own(Rc<KeyIndex>),
}

impl std::ops::Deref for KeyIndexRef<'_> {
    type Target = KeyIndex;

    #[inline]
    fn deref(&self) -> &KeyIndex {
        match self {
            KeyIndexRef::Plan(k) => k,
            KeyIndexRef::Own(k) => k,
        }
    }
}

/// A key list and the field of each key (`u32::MAX` for unknown keys and
/// `init=False` fields).
pub(crate) struct KeyIndex {
    /// The string record of each key, in order, as stored
    /// ([`MapSlots::key_record`]): compared with a map's keys in one step.
    pub(super) recs: Vec<Box<[u8]>>,
    /// The field index of each key.
    pub(super) idx: Vec<u32>,
}

impl DataclassPlan {
    /// Sets the parts compiled after the plan was made (it may be
    /// referenced by its own fields' plans first): the fields, their index
    /// by name, and how instances are built.
    pub(super) fn complete(
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
    pub(super) fn last_keys(&self) -> Option<&KeyIndex> {
        let i = self.last_keys.load(Ordering::Acquire).checked_sub(1)?;
        self.key_lists.get(i)?.get()
    }

    /// The field of key `k` (`u32::MAX` for unknown keys and `init=False`
    /// fields).
    pub(super) fn field_of(&self, k: &str, fields: &[Field]) -> u32 {
        match self.by_name.get().and_then(|b| b.get(k)) {
            Some(&j) if fields[j].init => j as u32,
            _ => u32::MAX,
        }
    }

    /// Index of the field of each key of `m`: a key list remembered
    /// already, or a new one (remembered while there is room); either
    /// becomes the last key list seen.
    pub(super) fn field_index(&self, m: &MapSlots<'_>, fields: &[Field]) -> KeyIndexRef<'_> {
        let n = m.len();
        for (k, ki) in self.key_lists.iter().enumerate() {
            let Some(ki) = ki.get() else { continue };
            if ki.recs.len() == n && (0..n).all(|i| m.key_record_is(i, &ki.recs[i])) {
                self.last_keys.store(k + 1, Ordering::Release);
                return KeyIndexRef::Plan(ki);
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
                KeyIndexRef::Plan(ki)
            }
            Err(_) => KeyIndexRef::Own(Rc::new(ki)),
        }
    }
}

pub(super) struct Field {
    pub(super) name: Py<PyString>,
    pub(super) name_str: String,
    pub(super) plan: Plan,
    pub(super) default: FieldDefault,
    /// Set from the input (false for `init=False` fields).
    pub(super) init: bool,
}

pub(super) enum FieldDefault {
    Required,
    /// A `TypedDict` key that is not required: left out when missing.
    Omit,
    Value(Py<PyAny>),
    Factory(Py<PyAny>),
}

impl Plan {
    pub(super) fn name(&self) -> String {
        match self {
            Plan::Any => "any".into(),
            Plan::NoneType => "None".into(),
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
            Plan::List { .. } => "list".into(),
            Plan::Set { frozen: false, .. } => "set".into(),
            Plan::Set { frozen: true, .. } => "frozenset".into(),
            Plan::HomogeneousTuple { .. } | Plan::Tuple { .. } => "tuple".into(),
            Plan::Dict { .. } | Plan::TypedKeyDict { .. } => "dict".into(),
            Plan::Union { name, .. } => name.clone(),
            Plan::Dataclass(d) => d.name.clone(),
            Plan::NamedTuple(nt) => nt.name.clone(),
            Plan::Enum { name: n, .. } => n.clone(),
            Plan::Literal { name: n, .. } => n.clone(),
            Plan::Vector => "array".into(),
            Plan::NdArray => "ndarray".into(),
        }
    }

    /// Whether this type reads from str only (not from str as one kind
    /// among others, as `Any` does): the key types of a typed dict.
    pub(super) fn str_like(&self) -> bool {
        match self {
            Plan::Str | Plan::Uuid | Plan::Decimal | Plan::Date | Plan::DateTime => true,
            Plan::Time | Plan::TimeDelta => true,
            Plan::Enum { .. } | Plan::Literal { .. } => true,
            Plan::Union {
                members, nullable, ..
            } => !nullable && members.iter().all(Plan::str_like),
            _ => false,
        }
    }

    /// Whether a value of this kind could be converted (shallow check, for unions).
    pub(super) fn accepts(&self, v: &Value<'_>) -> bool {
        match self {
            Plan::Any => true,
            Plan::NoneType => matches!(v, Value::Null),
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
            Plan::List { .. } | Plan::Set { .. } | Plan::HomogeneousTuple { .. } => {
                matches!(v, Value::Array(_) | Value::Vector(_))
            }
            Plan::Tuple { .. } | Plan::NamedTuple(_) => matches!(v, Value::Array(_)),
            Plan::Dict { .. } | Plan::TypedKeyDict { .. } | Plan::Dataclass(_) => {
                matches!(v, Value::Map(_))
            }
            Plan::Union {
                members, nullable, ..
            } => (*nullable && matches!(v, Value::Null)) || members.iter().any(|m| m.accepts(v)),
            // (An enum's value may be a tuple, written as an array.)
            Plan::Enum { .. } => !matches!(v, Value::Map(_)),
            Plan::Literal { .. } => !matches!(v, Value::Array(_) | Value::Map(_)),
            Plan::Vector => matches!(v, Value::Vector(_)),
            Plan::NdArray => matches!(v, Value::Vector(_) | Value::Array(_)),
        }
    }
}
