//! Map keys: borrowed strings, parsed as numbers, bools or chars when
//! one is requested, as serde_json reads them.

use serde::de::{self, IntoDeserializer, Visitor};

use super::context::{wrapper_limit, MAX_WRAPPER_RUN};
use crate::error::{Error, Result};
use crate::serde::stack;

/// Map keys: borrowed strings, parsed as numbers when a number is wanted.
pub(super) struct KeyDeserializer<'de> {
    /// The key's text.
    key: &'de str,
    /// The `Option::Some` and newtype levels around the key so far (at
    /// most [`MAX_WRAPPER_RUN`], as in
    /// [`Context::wrap`](super::context::Context::wrap)).
    wrappers: usize,
}

impl<'de> KeyDeserializer<'de> {
    /// The deserializer of `key`, with no wrapper around it yet.
    #[inline(always)]
    pub(super) fn new(key: &'de str) -> Self {
        KeyDeserializer { key, wrappers: 0 }
    }

    /// `f` of this key one `Option::Some` or newtype level down.
    fn wrap<R>(self, f: impl FnOnce(Self) -> Result<R>) -> Result<R> {
        let KeyDeserializer { key, wrappers } = self;
        if wrappers >= MAX_WRAPPER_RUN {
            return Err(wrapper_limit());
        }
        stack::at_level(wrappers, || {
            f(KeyDeserializer {
                key,
                wrappers: wrappers + 1,
            })
        })
    }
}

/// Number, bool and char keys are read from text as serde_json reads
/// them: an integer key from JSON integer syntax (`1`, `-1`, not `+1`,
/// `01`, `-0` or ` 1`), a float key from any JSON number in its range
/// (`1.5`, `1e2`, not `.5`, `inf` or `NaN`); other text stays a string,
/// which the visitor then refuses.
macro_rules! key_parse {
    ($($f:ident => $v:ident: $t:ty, $syntax:ident),*) => {$(
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.key.parse::<$t>() {
                Ok(x) if $syntax(self.key) => visitor.$v(x),
                _ => visitor.visit_borrowed_str(self.key),
            }
        }
    )*};
}

/// Whether `s` is the canonical text of an integer map key: JSON integer
/// syntax as serde_json reads it, `0` or an optional `-` and digits with no
/// leading zero (`-0` is a float there; no `+`, no spaces). Integer keys
/// are written so and read back only from such text, here and in the
/// Python package's typed `dict[int, T]`.
///
/// ```
/// use roving::serde::is_int_key;
/// assert!(is_int_key("0") && is_int_key("-12") && is_int_key("18446744073709551616"));
/// assert!(!is_int_key("-0") && !is_int_key("01") && !is_int_key("+1") && !is_int_key(" 1"));
/// assert!(!is_int_key("") && !is_int_key("-") && !is_int_key("1.0"));
/// ```
pub fn is_int_key(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s).as_bytes();
    s == "0" || matches!(digits, [b'1'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit))
}

/// Whether `s` is a JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
fn number_key(s: &str) -> bool {
    fn digits(b: &[u8]) -> (usize, &[u8]) {
        let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
        (n, &b[n..])
    }
    let b = s.strip_prefix('-').unwrap_or(s).as_bytes();
    let (n, mut b) = digits(b);
    if n == 0 || (n > 1 && s.trim_start_matches('-').starts_with('0')) {
        return false;
    }
    if let Some(rest) = b.strip_prefix(b".") {
        let (n, rest) = digits(rest);
        if n == 0 {
            return false;
        }
        b = rest;
    }
    if let Some(rest) = b.strip_prefix(b"e").or_else(|| b.strip_prefix(b"E")) {
        let rest = rest
            .strip_prefix(b"+")
            .or_else(|| rest.strip_prefix(b"-"))
            .unwrap_or(rest);
        let (n, rest) = digits(rest);
        if n == 0 {
            return false;
        }
        b = rest;
    }
    b.is_empty()
}

/// Any text (bool and char keys: `str::parse` takes only their own text).
fn any_text(_: &str) -> bool {
    true
}

/// `deserialize_*` methods for float keys: a number in JSON syntax and in
/// the float's range (one past it is an error in serde_json too).
macro_rules! key_float {
    ($($f:ident => $v:ident: $t:ty),*) => {$(
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.key.parse::<$t>() {
                Ok(x) if x.is_finite() && number_key(self.key) => visitor.$v(x),
                _ => visitor.visit_borrowed_str(self.key),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDeserializer<'de> {
    type Error = Error;
    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.key)
    }
    key_parse!(deserialize_i8 => visit_i8: i8, is_int_key, deserialize_i16 => visit_i16: i16, is_int_key,
        deserialize_i32 => visit_i32: i32, is_int_key, deserialize_i64 => visit_i64: i64, is_int_key,
        deserialize_i128 => visit_i128: i128, is_int_key,
        deserialize_u8 => visit_u8: u8, is_int_key, deserialize_u16 => visit_u16: u16, is_int_key,
        deserialize_u32 => visit_u32: u32, is_int_key, deserialize_u64 => visit_u64: u64, is_int_key,
        deserialize_u128 => visit_u128: u128, is_int_key,
        deserialize_bool => visit_bool: bool, any_text, deserialize_char => visit_char: char, any_text);
    key_float!(deserialize_f32 => visit_f32: f32, deserialize_f64 => visit_f64: f64);
    /// A key is never null: an `Option` key is `Some` of the key.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.wrap(|k| visitor.visit_some(k))
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.wrap(|k| visitor.visit_newtype_struct(k))
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self.key.into_deserializer())
    }
    serde::forward_to_deserialize_any! {
        str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}
