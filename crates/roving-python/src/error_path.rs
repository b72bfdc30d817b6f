//! The path to a value, as every error of this package shows it:
//! `$[3].name["odd key"][<key 1>]` (an `EncodeError`'s message, a
//! `ValidationError`'s message and `.path`).
//!
//! A key that is an identifier follows a dot; any other is quoted as a JSON
//! string, the syntax `get_path` reads (`roving::read::PathSegment::parse`);
//! a key that is not a `str` (met while encoding) shows its repr, marked as
//! a key (`[1]` would read as an index). The middle of a path of more than
//! [`SHOWN_STEPS`] steps is elided.

use pyo3::prelude::*;
use pyo3::types::PyString;

/// One step from a value down to its child.
pub(crate) enum PathStep {
    /// An array (list, tuple) index.
    Index(usize),
    /// A map key or field name, as text.
    Key(String),
    /// A dict key or attribute name met while encoding, as the object it
    /// is (formatted only if the error is shown; it may not be a `str`).
    Object(Py<PyAny>),
}

/// The steps from where an error happened up to the root, innermost first
/// (each level pushes its step while the error goes up).
pub(crate) struct ErrorPath(Vec<PathStep>);

/// Paths longer than this show their first and last steps only.
const SHOWN_STEPS: usize = 40;

impl ErrorPath {
    /// The path of an error at the root (no allocation).
    #[inline]
    pub(crate) const fn new() -> ErrorPath {
        ErrorPath(Vec::new())
    }

    /// Adds the step from the parent to the value the path led to so far.
    #[cold]
    pub(crate) fn push(&mut self, step: PathStep) {
        self.0.push(step);
    }

    /// The path as text, from the root `$`.
    pub(crate) fn format(&self, py: Python<'_>) -> String {
        let path = &self.0;
        let mut out = String::from("$");
        let n = path.len();
        let mut i = n;
        while i > 0 {
            i -= 1;
            if n > SHOWN_STEPS && i == n - (SHOWN_STEPS / 2 + 1) {
                out.push_str(&format!("...({} more)...", n - SHOWN_STEPS));
                i = SHOWN_STEPS / 2;
            }
            match &path[i] {
                PathStep::Index(k) => out.push_str(&format!("[{k}]")),
                PathStep::Key(k) => push_key(&mut out, k),
                PathStep::Object(k) => {
                    let k = k.bind(py);
                    match k.cast::<PyString>().ok().and_then(|s| s.to_str().ok()) {
                        Some(s) => push_key(&mut out, s),
                        None => out.push_str(&format!(
                            "[<key {}>]",
                            k.repr().map(|r| r.to_string()).unwrap_or_default()
                        )),
                    }
                }
            }
        }
        out
    }
}

/// Appends the step to key `k`: `.k` for an identifier, else `["k"]`.
fn push_key(out: &mut String, k: &str) {
    if is_identifier(k) {
        out.push('.');
        out.push_str(k);
    } else {
        out.push('[');
        json_quote(out, k);
        out.push(']');
    }
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch == '_' || ch.is_alphabetic())
        && c.all(|ch| ch == '_' || ch.is_alphanumeric())
}

/// Appends `s` as a JSON string.
fn json_quote(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
