//! roving -> JSON, iteratively (no recursion at any depth).

use base64::Engine as _;

use crate::error::{Error, ErrorKind, Result};
use crate::read::{ArrayIter, DecimalMemo, MapIter, Scalar, Value, Vector};
use crate::Limits;

/// Text for an extension value in JSON output instead of the default
/// `{"$ext": id, "$base64": ...}` object: called with the type id and the
/// payload, it returns the text of a JSON string to write (escaped by the
/// writer), or `None` to keep the default form. An application that
/// defines extension types (e.g. the Python package's dates, UUIDs and
/// decimals) makes them readable this way.
pub type ExtText = fn(type_id: u64, data: &[u8]) -> Option<String>;

/// Options of the JSON writer.
#[derive(Clone, Copy, Debug)]
pub struct JsonOptions {
    /// Spaces per level; `None` for compact output.
    pub indent: Option<usize>,
    /// Depth and expansion limits.
    pub limits: Limits,
    /// How extension values are written (`None`: the default object form).
    pub ext_text: Option<ExtText>,
}

impl Default for JsonOptions {
    fn default() -> Self {
        JsonOptions {
            indent: None,
            limits: Limits::for_len(0),
            ext_text: None,
        }
    }
}

/// Compact JSON text of `value`, with the default limits for its document
/// ([`Limits::for_len`]).
pub fn to_json(value: Value<'_>) -> Result<String> {
    let mut out = Vec::new();
    let opts = JsonOptions {
        indent: None,
        limits: Limits::for_len(value.doc_len()),
        ext_text: None,
    };
    write_json(value, &opts, &mut out)?;
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// JSON text of `value` indented by `indent` spaces per level.
///
/// ```
/// let bytes = roving::json::from_json(br#"{"a":[1,2]}"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// let text = roving::json::to_json_pretty(doc.root(), 2)?;
/// assert_eq!(text, "{\n  \"a\": [\n    1,\n    2\n  ]\n}");
/// # Ok::<(), roving::Error>(())
/// ```
pub fn to_json_pretty(value: Value<'_>, indent: usize) -> Result<String> {
    let mut out = Vec::new();
    let opts = JsonOptions {
        indent: Some(indent),
        limits: Limits::for_len(value.doc_len()),
        ext_text: None,
    };
    write_json(value, &opts, &mut out)?;
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// An open container of the writer's explicit stack.
enum Frame<'a> {
    /// An array: the elements not yet written.
    Array {
        elements: ArrayIter<'a>,
        /// No element written yet (no comma before the next).
        first: bool,
    },
    /// A map: the entries not yet written.
    Map {
        entries: MapIter<'a>,
        /// No entry written yet (no comma before the next).
        first: bool,
    },
}

/// What the writer spends of its expansion limit ([`Limits::max_values`]):
/// one per value written, and one per
/// [`BYTES_PER_VALUE`](crate::BYTES_PER_VALUE) bytes of output, so that
/// neither long strings written once per place they appear, nor
/// indentation, nor long vectors can make the output large.
struct Budget {
    max: u64,
    /// Values written so far.
    values: u64,
    /// Length of `out` before the first value.
    start: usize,
    /// Decimal text of the big integers written so far.
    decimals: DecimalMemo,
}

impl Budget {
    /// Takes `n` values, and checks that `extra` more bytes of output
    /// would still be in budget.
    #[inline]
    fn take(&mut self, n: u64, extra: usize, out: &[u8]) -> Result<()> {
        self.values = self.values.saturating_add(n);
        let bytes = (out.len() - self.start).saturating_add(extra);
        let cost = self
            .values
            .saturating_add((bytes / crate::BYTES_PER_VALUE) as u64);
        if cost > self.max {
            return Err(Error::new(ErrorKind::ExpansionLimit).with_message(format!(
                "more than {} values (one per value and per {} bytes of output)",
                self.max,
                crate::BYTES_PER_VALUE
            )));
        }
        Ok(())
    }
}

/// Appends the JSON text of `value` to `out`. A value of a lazily opened
/// document is validated first ([`Value::validated`]).
///
/// The output is limited by `opts.limits.max_values` (an
/// [`ErrorKind::ExpansionLimit`] error past it): it counts every value
/// written (a vector's elements too) and every
/// [`BYTES_PER_VALUE`](crate::BYTES_PER_VALUE) bytes of output.
///
/// ```
/// use roving::json::{write_json, JsonOptions};
/// let bytes = roving::json::from_json(br#"{"user":{"name":"Ada"}}"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// let mut body = b"data: ".to_vec(); // appends: reuse one buffer
/// write_json(doc.get_path("user")?.unwrap(), &JsonOptions::default(), &mut body)?;
/// assert_eq!(body, br#"data: {"name":"Ada"}"#);
/// # Ok::<(), roving::Error>(())
/// ```
pub fn write_json(value: Value<'_>, opts: &JsonOptions, out: &mut Vec<u8>) -> Result<()> {
    let value = value.validated()?;
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut budget = Budget {
        max: opts.limits.max_values,
        values: 0,
        start: out.len(),
        decimals: DecimalMemo::default(),
    };
    let mut next = Some(value);
    loop {
        if let Some(v) = next.take() {
            budget.take(1, 0, out)?;
            match v {
                Value::Array(a) if !a.is_empty() => {
                    if stack.len() >= opts.limits.max_depth {
                        return Err(depth_error(opts));
                    }
                    out.push(b'[');
                    stack.push(Frame::Array {
                        elements: a.iter(),
                        first: true,
                    });
                }
                Value::Map(m) if !m.is_empty() => {
                    if stack.len() >= opts.limits.max_depth {
                        return Err(depth_error(opts));
                    }
                    out.push(b'{');
                    stack.push(Frame::Map {
                        entries: m.iter(),
                        first: true,
                    });
                }
                v => scalar(v, opts, stack.len(), &mut budget, out)?,
            }
        }
        let depth = stack.len();
        match stack.last_mut() {
            None => return Ok(()),
            Some(Frame::Array { elements, first }) => match elements.next() {
                Some(v) => {
                    if !*first {
                        out.push(b',');
                    }
                    *first = false;
                    newline(opts, depth, out)?;
                    next = Some(v);
                }
                None => {
                    stack.pop();
                    newline(opts, depth - 1, out)?;
                    out.push(b']');
                }
            },
            Some(Frame::Map { entries, first }) => match entries.next() {
                Some((k, v)) => {
                    if !*first {
                        out.push(b',');
                    }
                    *first = false;
                    newline(opts, depth, out)?;
                    write_str(k, out);
                    out.push(b':');
                    if opts.indent.is_some() {
                        out.push(b' ');
                    }
                    next = Some(v);
                }
                None => {
                    stack.pop();
                    newline(opts, depth - 1, out)?;
                    out.push(b'}');
                }
            },
        }
    }
}

fn depth_error(opts: &JsonOptions) -> Error {
    Error::new(ErrorKind::DepthLimit)
        .with_message(format!("more than {} levels", opts.limits.max_depth))
}

/// A newline and the indent of `depth` levels, if indenting: an error,
/// not a panic or an abort, if that indent cannot be held in memory (an
/// absurd `indent`).
#[inline]
fn newline(opts: &JsonOptions, depth: usize, out: &mut Vec<u8>) -> Result<()> {
    if let Some(n) = opts.indent {
        out.push(b'\n');
        let spaces = n.saturating_mul(depth);
        if out.try_reserve(spaces).is_err() {
            return Err(Error::new(ErrorKind::Unsupported).with_message(format!(
                "an indent of {n} spaces per level does not fit in memory"
            )));
        }
        out.resize(out.len() + spaces, b' ');
    }
    Ok(())
}

fn float(f: f64, out: &mut Vec<u8>) {
    if f.is_finite() {
        out.extend_from_slice(ryu::Buffer::new().format_finite(f).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

fn scalar(
    v: Value<'_>,
    opts: &JsonOptions,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<u8>,
) -> Result<()> {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Int(i) => out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
        Value::UInt(u) => out.extend_from_slice(itoa::Buffer::new().format(u).as_bytes()),
        Value::BigInt(b) => {
            // A conversion whose text could not fit is refused before it starts.
            budget.take(0, DecimalMemo::max_len(b), out)?;
            out.extend_from_slice(budget.decimals.text(b)?.as_bytes());
        }
        Value::Float(f) => float(f, out),
        Value::Str(s) => write_str(s, out),
        Value::Bytes(b) => {
            out.extend_from_slice(b"{\"$base64\":");
            if opts.indent.is_some() {
                out.push(b' ');
            }
            out.push(b'"');
            out.extend_from_slice(
                base64::engine::general_purpose::STANDARD
                    .encode(b)
                    .as_bytes(),
            );
            out.extend_from_slice(b"\"}");
        }
        Value::Timestamp(t) => write_str(&t.to_rfc3339(), out),
        Value::Ext(e) => {
            if let Some(text) = opts.ext_text.and_then(|f| f(e.type_id, e.data)) {
                write_str(&text, out);
                return Ok(());
            }
            let sp = if opts.indent.is_some() { " " } else { "" };
            out.extend_from_slice(
                format!("{{\"$ext\":{sp}{},{sp}\"$base64\":{sp}\"", e.type_id).as_bytes(),
            );
            out.extend_from_slice(
                base64::engine::general_purpose::STANDARD
                    .encode(e.data)
                    .as_bytes(),
            );
            out.extend_from_slice(b"\"}");
        }
        Value::Vector(vec) => write_vector(vec, opts, depth, budget, out)?,
        Value::Array(_) => out.extend_from_slice(b"[]"),
        Value::Map(_) => out.extend_from_slice(b"{}"),
    }
    Ok(())
}

/// Writes a vector as an array of numbers (a shaped vector as nested
/// arrays, row-major), taking each element and each inner array from the
/// budget (the vector itself was taken already).
fn write_vector(
    vec: Vector<'_>,
    opts: &JsonOptions,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<u8>,
) -> Result<()> {
    if vec.ndim() > 1 {
        return write_rows(vec, &vec.shape(), 0, opts, depth, budget, out);
    }
    write_elements(vec, 0, vec.len(), opts, depth, budget, out)
}

/// Writes elements `first..first + n` of `vec` as an array of numbers.
fn write_elements(
    vec: Vector<'_>,
    first: usize,
    n: usize,
    opts: &JsonOptions,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<u8>,
) -> Result<()> {
    out.push(b'[');
    for i in 0..n {
        budget.take(1, 0, out)?;
        if i > 0 {
            out.push(b',');
        }
        newline(opts, depth + 1, out)?;
        match vec.get(first + i) {
            Some(Scalar::Int(x)) => out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes()),
            Some(Scalar::UInt(x)) => {
                out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes())
            }
            Some(Scalar::Float(x)) => float(x, out),
            None => out.extend_from_slice(b"null"),
        }
    }
    if n > 0 {
        newline(opts, depth, out)?;
    }
    out.push(b']');
    Ok(())
}

/// Writes the part of a shaped vector of dimensions `dims` (a suffix of
/// its shape, at least one) that starts at element `first` as nested
/// arrays. Recursion is bounded by the number of dimensions (at most 64).
fn write_rows(
    vec: Vector<'_>,
    dims: &[usize],
    first: usize,
    opts: &JsonOptions,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<u8>,
) -> Result<()> {
    let [n, rest @ ..] = dims else {
        return Ok(());
    };
    if rest.is_empty() {
        return write_elements(vec, first, *n, opts, depth, budget, out);
    }
    // Saturating: a product that overflows has a 0 further on (the whole
    // product fits), which makes the stride 0.
    let stride = rest.iter().fold(1usize, |a, &d| a.saturating_mul(d));
    out.push(b'[');
    for i in 0..*n {
        budget.take(1, 0, out)?;
        if i > 0 {
            out.push(b',');
        }
        newline(opts, depth + 1, out)?;
        let at = first.saturating_add(i.saturating_mul(stride));
        write_rows(vec, rest, at, opts, depth + 1, budget, out)?;
    }
    if *n > 0 {
        newline(opts, depth, out)?;
    }
    out.push(b']');
    Ok(())
}

const HEX: &[u8; 16] = b"0123456789abcdef";

use super::SPECIAL_IN_STRING as ESCAPE;

/// Writes `s` as a JSON string.
pub(crate) fn write_str(s: &str, out: &mut Vec<u8>) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if !ESCAPE[c as usize] {
            continue;
        }
        out.extend_from_slice(&b[start..i]);
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(c >> 4) as usize],
                HEX[(c & 15) as usize],
            ]),
        }
        start = i + 1;
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}
