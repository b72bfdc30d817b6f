//! Values read from text: the forms `to_json` writes bytes, dates and
//! other types in, which typed decoding reads back.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use roving::Value;

use crate::pytypes;

use super::failure::{decode_fail, fail_msg, Fail};

/// The text of `{"$base64": text}`, the form `to_json` writes bytes in.
pub(super) fn base64_text<'a>(v: &Value<'a>) -> Option<&'a str> {
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
pub(super) fn from_base64<'py>(py: Python<'py>, s: &str) -> Result<Bound<'py, PyAny>, Box<Fail>> {
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
pub(super) fn iso_date(s: &str) -> Option<(i32, u8, u8)> {
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

/// A document string re-checked for UTF-8, for the parsers of text (dates,
/// timestamps, UUIDs, Decimals) and their messages: the `&str`s of a
/// document read without validation (a `Store` opened `trusted=True`) may
/// hold invalid UTF-8, which PyO3's `str` conversion panics on and Rust's
/// formatting must not see. An invalid one is the `UnicodeDecodeError`
/// that converting it to `str` raises.
pub(super) fn utf8<'s>(py: Python<'_>, s: &'s str) -> Result<&'s str, Box<Fail>> {
    match std::str::from_utf8(s.as_bytes()) {
        Ok(s) => Ok(s),
        Err(_) => Err(decode_fail(match pytypes::make_str(py, s.as_bytes()) {
            Err(e) => e,
            Ok(_) => pyo3::exceptions::PyValueError::new_err("invalid UTF-8"),
        })),
    }
}

/// Python's repr of a str.
pub(super) fn py_repr(py: Python<'_>, s: &str) -> String {
    PyString::new(py, s)
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| format!("{s:?}"))
}
