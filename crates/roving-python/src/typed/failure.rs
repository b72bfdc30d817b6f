//! Why a value does not decode as its plan, and the Python error that
//! says so (a `ValidationError` with the path, or the error as raised).

use pyo3::prelude::*;

use roving::Value;

use crate::error_path::{ErrorPath, PathStep};
use crate::errors::validation_error;
use crate::pytypes::{EXT_DATE, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA, EXT_UUID};

use super::plan::Plan;

/// Why a value does not decode.
pub(super) enum FailKind {
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

/// A failure and the path to where it happened.
pub(super) struct Fail {
    pub(super) kind: FailKind,
    pub(super) path: ErrorPath,
}

impl Fail {
    /// A failure at the value being read (its path is added on the way up).
    #[cold]
    pub(super) fn boxed(kind: FailKind) -> Box<Fail> {
        Box::new(Fail {
            kind,
            path: ErrorPath::new(),
        })
    }
}

/// A decoded object, or why the value does not decode as its plan.
pub(super) type DecodeResult<'py> = Result<Bound<'py, PyAny>, Box<Fail>>;

#[cold]
pub(super) fn mismatch(plan: &Plan, v: &Value<'_>) -> Box<Fail> {
    Fail::boxed(FailKind::Mismatch {
        expected: plan.name(),
        got: got_name(v),
    })
}

#[cold]
pub(super) fn fail_msg(m: String) -> Box<Fail> {
    Fail::boxed(FailKind::Msg(m))
}

#[cold]
pub(super) fn decode_fail(e: PyErr) -> Box<Fail> {
    Fail::boxed(FailKind::Decode(e))
}

/// `f`, one level up: reached through `s`.
#[cold]
pub(super) fn with_step(mut f: Box<Fail>, s: PathStep) -> Box<Fail> {
    f.path.push(s);
    f
}

/// The type name of a value of the document, for messages.
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

/// The failure of a user class's constructor (a dataclass, a NamedTuple):
/// a `ValueError` or `TypeError` (a check in `__post_init__`, say) is
/// shown with the path ([`FailKind::User`]); any other exception is
/// propagated unchanged ([`FailKind::Decode`]).
#[cold]
pub(super) fn user_fail(py: Python<'_>, e: PyErr) -> Box<Fail> {
    Fail::boxed(
        if e.is_instance_of::<pyo3::exceptions::PyValueError>(py)
            || e.is_instance_of::<pyo3::exceptions::PyTypeError>(py)
        {
            FailKind::User(e)
        } else {
            FailKind::Decode(e)
        },
    )
}

/// The failure of a union none of whose members matched, when several
/// could have (a map tried as two dataclasses): each member's reason, at
/// its place below the union's value (`.y`, `[0]`), so that the message
/// says why each one failed, not only the first.
#[cold]
pub(super) fn union_fail(py: Python<'_>, plan: &Plan, fails: Vec<(&Plan, Box<Fail>)>) -> Box<Fail> {
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
            let at = f.path.format(py);
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
pub(super) fn into_pyerr(py: Python<'_>, f: Box<Fail>) -> PyErr {
    let path = f.path.format(py);
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
