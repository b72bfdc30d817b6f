//! JSON -> roving: a streaming parser driving the [`Encoder`] directly.
//!
//! Strict RFC 8259: no trailing commas, comments, NaN or leading zeros;
//! the input must be UTF-8 with no BOM; lone surrogate escapes are
//! rejected. Iterative, so nesting is bounded only by the depth limit
//! (10,000 levels by default, as for the converters back to JSON, so that
//! every document `from_json` makes converts back). Integers stay integers,
//! big ones too, up to [`MAX_DECIMAL_DIGITS`] digits (a longer one is an
//! `Unsupported` error, as in Python); numbers with a fraction or an
//! exponent become the nearest `f64` (overflow to infinity is an error);
//! `-0` becomes the float `-0.0`, keeping its sign.

use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::read::MAX_DECIMAL_DIGITS;

/// Converts JSON text to a roving document.
///
/// ```
/// let doc = roving::json::from_json(br#"{"big": 123456789012345678901234567890}"#)?;
/// let json = roving::json::to_json(roving::Document::open(&doc)?.root())?;
/// assert_eq!(json, r#"{"big":123456789012345678901234567890}"#);
/// # Ok::<(), roving::Error>(())
/// ```
///
/// JSON nested deeper than 10,000 levels (the depth [`to_json`] and the
/// other converters accept by default, [`crate::Limits::for_len`]) is a
/// `DepthLimit` error; [`from_json_with`] sets another limit.
///
/// [`to_json`]: crate::json::to_json
pub fn from_json(input: &[u8]) -> Result<Vec<u8>> {
    from_json_with(input, crate::Limits::for_len(0).max_depth)
}

/// Converts JSON text to a roving document, with a maximum nesting depth.
///
/// Like [`crate::to_vec`], it uses the thread's spare encoder (same bytes
/// as a new [`Encoder`], tables reused from call to call).
pub fn from_json_with(input: &[u8], max_depth: usize) -> Result<Vec<u8>> {
    // A document is usually a little over half the size of its JSON text.
    let capacity = input.len() / 8 * 5 + 64;
    crate::encode::encode_document(Some(capacity), max_depth, |enc| from_json_into(input, enc))
}

/// [`from_json`] against a shared dictionary: objects whose keys are a
/// shape of `dict` refer to it, and `dict` learns the document's other
/// shapes (unless frozen). Open the result with
/// [`Document::open_with`](crate::Document::open_with).
pub fn from_json_dict(input: &[u8], dict: &mut crate::Dictionary) -> Result<Vec<u8>> {
    let mut enc = Encoder::with_dictionary(dict);
    enc.set_max_depth(crate::Limits::for_len(0).max_depth);
    from_json_into(input, &mut enc)?;
    enc.finish_growing(dict)
}

/// Writes the value of JSON text into `enc` (as its next value).
///
/// ```
/// let mut enc = roving::Encoder::new();
/// enc.begin_map()?;
/// enc.key("payload")?;
/// roving::json::from_json_into(br#"{"x":[1,2]}"#, &mut enc)?;
/// enc.end_map()?;
/// let bytes = enc.finish()?;
/// let doc = roving::Document::open(&bytes)?;
/// assert_eq!(doc.get_path("payload.x[1]")?.and_then(|v| v.as_i64()), Some(2));
/// # Ok::<(), roving::Error>(())
/// ```
pub fn from_json_into(input: &[u8], enc: &mut Encoder) -> Result<()> {
    let text = match simdutf8::compat::from_utf8(input) {
        Ok(text) => text,
        Err(e) => return Err(syntax(input, e.valid_up_to(), "invalid UTF-8")),
    };
    let mut p = Parser {
        b: input,
        text,
        i: 0,
        scratch: Vec::new(),
        stack: Vec::new(),
    };
    p.run(enc).map_err(|e| {
        if e.line_col().is_none() && e.kind() != &ErrorKind::JsonSyntax {
            let off = p.i.min(input.len());
            let (l, c) = line_col(input, off);
            e.with_offset(off).with_line_col(l, c)
        } else {
            e
        }
    })
}

fn line_col(input: &[u8], off: usize) -> (u64, u64) {
    let before = &input[..off.min(input.len())];
    let line = memchr::memchr_iter(b'\n', before).count() as u64 + 1;
    let start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[start..]).chars().count() as u64 + 1;
    (line, col)
}

#[cold]
fn syntax(input: &[u8], off: usize, msg: &str) -> Error {
    let (l, c) = line_col(input, off);
    Error::new(ErrorKind::JsonSyntax)
        .with_message(msg)
        .with_offset(off)
        .with_line_col(l, c)
}

/// The error for an integer of `n` digits, more than [`MAX_DECIMAL_DIGITS`].
#[cold]
fn too_many_digits(input: &[u8], off: usize, n: usize) -> Error {
    let (l, c) = line_col(input, off);
    Error::new(ErrorKind::Unsupported)
        .with_message(format!(
            "an integer of {n} digits: roving reads at most {MAX_DECIMAL_DIGITS} \
             (converting decimal text takes time that grows with the square of its digits; \
             Python's int has the same limit)"
        ))
        .with_offset(off)
        .with_line_col(l, c)
}

struct Parser<'a> {
    b: &'a [u8],
    /// `b` as text (checked once): strings and numbers are slices of it,
    /// with no UTF-8 check of their own.
    text: &'a str,
    i: usize,
    scratch: Vec<u8>,
    /// Open containers: `b'['` or `b'{'`.
    stack: Vec<u8>,
}

use super::SPECIAL_IN_STRING as STOP;

impl<'a> Parser<'a> {
    #[cold]
    fn err(&self, msg: &str) -> Error {
        syntax(self.b, self.i, msg)
    }

    #[inline(always)]
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if c == b' ' || c == b'\n' || c == b'\r' || c == b'\t' {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn run(&mut self, enc: &mut Encoder) -> Result<()> {
        'value: loop {
            self.ws();
            match self.peek() {
                Some(b'{') => {
                    self.i += 1;
                    enc.begin_map()?;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                        enc.end_map()?;
                    } else {
                        self.stack.push(b'{');
                        self.key(enc)?;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    enc.begin_array()?;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                        enc.end_array()?;
                    } else {
                        self.stack.push(b'[');
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    self.i += 1;
                    let s = self.string()?;
                    enc.str(s)?;
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    enc.bool(true)?;
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    enc.bool(false)?;
                }
                Some(b'n') => {
                    self.literal(b"null")?;
                    enc.null()?;
                }
                Some(b'-' | b'0'..=b'9') => self.number(enc)?,
                Some(0xEF) if self.i == 0 && self.b.starts_with(b"\xEF\xBB\xBF") => {
                    return Err(self.err("a byte order mark (JSON text must not start with one)"))
                }
                Some(_) => return Err(self.err("expected a value")),
                None => return Err(self.err("unexpected end of input, expected a value")),
            }
            // After a value: close containers or move to the next element.
            loop {
                self.ws();
                match self.stack.last() {
                    None => {
                        if self.i != self.b.len() {
                            return Err(self.err("trailing characters after the value"));
                        }
                        return Ok(());
                    }
                    Some(b'[') => match self.peek() {
                        Some(b',') => {
                            self.i += 1;
                            continue 'value;
                        }
                        Some(b']') => {
                            self.i += 1;
                            self.stack.pop();
                            enc.end_array()?;
                        }
                        None => return Err(self.err("unexpected end of input in an array")),
                        _ => return Err(self.err("expected , or ] in an array")),
                    },
                    Some(_) => match self.peek() {
                        Some(b',') => {
                            self.i += 1;
                            self.ws();
                            self.key(enc)?;
                            continue 'value;
                        }
                        Some(b'}') => {
                            self.i += 1;
                            self.stack.pop();
                            enc.end_map()?;
                        }
                        None => return Err(self.err("unexpected end of input in an object")),
                        _ => return Err(self.err("expected , or } in an object")),
                    },
                }
            }
        }
    }

    /// Parses `"key" :` (the caller skipped whitespace before it).
    fn key(&mut self, enc: &mut Encoder) -> Result<()> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string key"));
        }
        self.i += 1;
        let k = self.string()?;
        enc.key(k)?;
        self.ws();
        if self.peek() != Some(b':') {
            return Err(self.err("expected : after a key"));
        }
        self.i += 1;
        Ok(())
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(self.err("invalid literal"))
        }
    }

    /// Parses a string body after the opening quote.
    #[inline]
    fn string(&mut self) -> Result<&str> {
        let start = self.i;
        let b = self.b;
        let mut i = start;
        while i < b.len() && !STOP[b[i] as usize] {
            i += 1;
        }
        if i < b.len() && b[i] == b'"' {
            self.i = i + 1;
            // The whole input was checked to be UTF-8 and `"` is ASCII, so
            // both ends of the slice are character boundaries (`get` checks
            // just these two bytes).
            return self
                .text
                .get(start..i)
                .ok_or_else(|| self.err("invalid UTF-8"));
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(&b[start..i]);
        self.i = i;
        loop {
            let c = match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(c) => c,
            };
            match c {
                b'"' => {
                    self.i += 1;
                    break;
                }
                b'\\' => {
                    self.i += 1;
                    let e = self.peek().ok_or_else(|| self.err("unterminated escape"))?;
                    self.i += 1;
                    match e {
                        b'"' => self.scratch.push(b'"'),
                        b'\\' => self.scratch.push(b'\\'),
                        b'/' => self.scratch.push(b'/'),
                        b'b' => self.scratch.push(8),
                        b'f' => self.scratch.push(12),
                        b'n' => self.scratch.push(b'\n'),
                        b'r' => self.scratch.push(b'\r'),
                        b't' => self.scratch.push(b'\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let cp = if (0xD800..0xDC00).contains(&hi) {
                                if !self.b[self.i..].starts_with(b"\\u") {
                                    return Err(self.err("lone surrogate in \\u escape"));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("invalid surrogate pair"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.err("lone surrogate in \\u escape"));
                            } else {
                                hi
                            };
                            let ch =
                                char::from_u32(cp).ok_or_else(|| self.err("bad \\u escape"))?;
                            let mut tmp = [0u8; 4];
                            self.scratch
                                .extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.err("invalid escape"));
                        }
                    }
                }
                c if c < 0x20 => return Err(self.err("control character in a string")),
                _ => {
                    let s = self.i;
                    let mut j = s;
                    while j < self.b.len() && !STOP[self.b[j] as usize] {
                        j += 1;
                    }
                    self.scratch.extend_from_slice(&self.b[s..j]);
                    self.i = j;
                }
            }
        }
        std::str::from_utf8(&self.scratch).map_err(|_| syntax(self.b, start, "invalid UTF-8"))
    }

    fn hex4(&mut self) -> Result<u32> {
        let h = self
            .b
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("truncated \\u escape"))?;
        let mut v = 0u32;
        for &c in h {
            let d = (c as char)
                .to_digit(16)
                .ok_or_else(|| self.err("invalid \\u escape"))?;
            v = v * 16 + d;
        }
        self.i += 4;
        Ok(v)
    }

    fn number(&mut self, enc: &mut Encoder) -> Result<()> {
        let b = self.b;
        let start = self.i;
        let mut i = start;
        let neg = b[i] == b'-';
        if neg {
            i += 1;
        }
        let int_start = i;
        // The digits as an integer (wrapping; used only when there are at
        // most 19 of them), for the float fast path.
        let mut mant: u64 = 0;
        match b.get(i) {
            Some(b'0') => {
                i += 1;
                if b.get(i).is_some_and(u8::is_ascii_digit) {
                    self.i = i;
                    return Err(self.err("invalid number: leading zero"));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(d) = b.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d < 10) {
                    mant = mant.wrapping_mul(10).wrapping_add(d as u64);
                    i += 1;
                }
            }
            _ => {
                self.i = i;
                return Err(self.err("invalid number"));
            }
        }
        let int_end = i;
        let mut float = false;
        let mut frac_digits = 0usize;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let s = i;
            while let Some(d) = b.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d < 10) {
                mant = mant.wrapping_mul(10).wrapping_add(d as u64);
                i += 1;
            }
            if s == i {
                self.i = i;
                return Err(self.err("invalid number: digits expected after ."));
            }
            frac_digits = i - s;
            float = true;
        }
        // The exponent's value, saturated (only small ones matter below).
        let mut exp: i64 = 0;
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            let neg_exp = b.get(i) == Some(&b'-');
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let s = i;
            while let Some(d) = b.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d < 10) {
                exp = (exp * 10 + d as i64).min(1 << 20);
                i += 1;
            }
            if s == i {
                self.i = i;
                return Err(self.err("invalid number: digits expected in exponent"));
            }
            if neg_exp {
                exp = -exp;
            }
            float = true;
        }
        self.i = i;
        let digits = &b[int_start..int_end];
        if !float {
            if digits == b"0" && neg {
                return enc.f64(-0.0);
            }
            if digits.len() <= 19 {
                let mut v: u64 = 0;
                for &d in digits {
                    v = v * 10 + (d - b'0') as u64;
                }
                return if neg {
                    if v <= 1 << 63 {
                        enc.i64((v as i64).wrapping_neg())
                    } else {
                        enc.i128(-(v as i128))
                    }
                } else {
                    enc.u64(v)
                };
            }
            if digits.len() > MAX_DECIMAL_DIGITS {
                return Err(too_many_digits(b, start, digits.len()));
            }
            let big = num_bigint::BigInt::parse_bytes(&b[start..i], 10)
                .ok_or_else(|| syntax(b, start, "invalid integer"))?;
            return enc.bigint(&big);
        }
        let n_digits = int_end - int_start + frac_digits;
        let q = exp - frac_digits as i64;
        if let Some(f) = exact_float(mant, n_digits, q).or_else(|| nearest_float(mant, n_digits, q))
        {
            return enc.f64(if neg { -f } else { f });
        }
        // The slice is ASCII (checked above), and Rust's float parser rounds correctly.
        let text = self
            .text
            .get(start..i)
            .ok_or_else(|| syntax(b, start, "invalid number"))?;
        let f: f64 = text
            .parse()
            .map_err(|_| syntax(b, start, "invalid number"))?;
        if f.is_infinite() {
            return Err(syntax(
                b,
                start,
                "number out of the range of a 64-bit float",
            ));
        }
        enc.f64(f)
    }
}

/// `mant * 10^exp` when both are small enough for one correctly rounded
/// floating-point operation to give the nearest `f64` (Clinger's fast
/// path: `mant` is exact below 2^53, and so are the powers of ten up to
/// 10^22); `None` otherwise. `n_digits` is how many digits `mant` was read
/// from (more than 19 may have wrapped).
#[inline]
fn exact_float(mant: u64, n_digits: usize, exp: i64) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    if n_digits > 19 || mant > 1 << 53 {
        return None;
    }
    let m = mant as f64;
    match exp {
        0..=22 => Some(m * POW10[exp as usize]),
        -22..=-1 => Some(m / POW10[(-exp) as usize]),
        _ => None,
    }
}

/// The powers of ten [`nearest_float`] handles: `Q_MIN..=Q_MAX`.
const Q_MIN: i64 = -27;
const Q_MAX: i64 = 27;

/// `5^q` for `q` in `Q_MIN..=Q_MAX` as a 128-bit number with its top bit
/// set: exact for `q >= 0`; for `q < 0`, `2^b / 5^-q` rounded up, `b` the
/// exponent that gives the quotient 128 bits.
const POW5: [u128; (Q_MAX - Q_MIN + 1) as usize] = pow5_table();

const fn pow5_table() -> [u128; (Q_MAX - Q_MIN + 1) as usize] {
    let mut t = [0u128; (Q_MAX - Q_MIN + 1) as usize];
    let mut i = 0;
    while i < t.len() {
        let q = Q_MIN + i as i64;
        let mut p: u128 = 1;
        let mut k = 0;
        while k < q.abs() {
            p *= 5;
            k += 1;
        }
        t[i] = if q >= 0 {
            p << p.leading_zeros()
        } else {
            // floor(2^b / p) + 1 with 2^(z-1) < p < 2^z and b = z + 127,
            // by long division one bit at a time (p < 2^63, so the
            // remainder doubled fits).
            let z = 128 - (p - 1).leading_zeros();
            let b = z + 127;
            let (mut rem, mut quo) = (1u128, 0u128);
            let mut bit = 0;
            while bit < b {
                rem *= 2;
                quo <<= 1;
                if rem >= p {
                    rem -= p;
                    quo |= 1;
                }
                bit += 1;
            }
            // The leading 1 of 2^b: the quotient so far is floor(2^b / p),
            // since `rem` started at 1 with the first quotient bit above it.
            quo + 1
        };
        i += 1;
    }
    t
}

/// The nearest `f64` to `mant * 10^q` (Eisel and Lemire's algorithm, from
/// their paper "Number Parsing at a Gigabyte per Second"), for `mant` read
/// from at most 19 digits and `q` in `Q_MIN..=Q_MAX`; `None` where it does
/// not decide (then Rust's parser does), and for zero, subnormal and
/// infinite results. This is the common case of floats printed with 17
/// significant digits, as in GeoJSON, which the exact fast path cannot
/// take (their mantissa is past 2^53).
#[inline]
fn nearest_float(mant: u64, n_digits: usize, q: i64) -> Option<f64> {
    if n_digits > 19 || mant == 0 || !(Q_MIN..=Q_MAX).contains(&q) {
        return None;
    }
    let lz = mant.leading_zeros();
    let w = (mant << lz) as u128;
    let pow = POW5[(q - Q_MIN) as usize];
    // The top 128 bits of w * 5^q: one 64x64 product, and the second only
    // when the bits below the 55 kept might carry into them.
    let first = w * (pow >> 64);
    let (mut lo, mut hi) = (first as u64, (first >> 64) as u64);
    const MASK: u64 = u64::MAX >> 55;
    if hi & MASK == MASK {
        let second = w * (pow as u64 as u128);
        let (sum, carry) = lo.overflowing_add((second >> 64) as u64);
        lo = sum;
        hi += carry as u64;
    }
    if lo == u64::MAX {
        return None;
    }
    let upper = (hi >> 63) as u32;
    let shift = upper + 64 - 52 - 3;
    let mut m = hi >> shift;
    // floor(q * log2(10)) + 63, the binary exponent before normalising,
    // plus the bias of binary64.
    let mut e = ((217_706 * q as i32) >> 16) + 63 + upper as i32 - lz as i32 + 1023;
    if e <= 0 {
        return None;
    }
    // Exactly halfway between two floats (only possible for small q): round
    // to even rather than up.
    if lo <= 1 && (-4..=23).contains(&q) && m & 3 == 1 && m << shift == hi {
        m &= !1;
    }
    m += m & 1;
    m >>= 1;
    if m >= 2 << 52 {
        m = 1 << 52;
        e += 1;
    }
    if e >= 0x7FF {
        return None;
    }
    Some(f64::from_bits((m & !(1 << 52)) | (e as u64) << 52))
}

#[cfg(test)]
mod exact_float_tests {
    use super::exact_float;

    /// The fast path gives what Rust's (correctly rounding) parser gives,
    /// and declines what it cannot do exactly.
    #[test]
    fn fast_path_agrees_with_the_parser() {
        let mut rng = crate::test_rng::Rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..200_000 {
            let r = rng.next();
            let digits = (r % 20) as u32;
            let mant = rng.next() % 10u64.pow(digits).max(1);
            let exp = (rng.next() % 61) as i64 - 30;
            let n_digits = mant.to_string().len();
            if let Some(f) = exact_float(mant, n_digits, exp) {
                let want: f64 = format!("{mant}e{exp}").parse().unwrap();
                assert_eq!(f.to_bits(), want.to_bits(), "{mant}e{exp}");
            } else {
                assert!(mant > 1 << 53 || !(-22..=22).contains(&exp));
            }
        }
        assert_eq!(exact_float(1 << 53, 16, -22), Some(9007199254740992e-22));
        assert_eq!(exact_float((1 << 53) + 1, 16, 0), None);
        assert_eq!(exact_float(5, 25, 0), None);
    }

    /// Numbers of the fast path and of the fallback, through `from_json`.
    #[test]
    fn floats_round_trip_through_json() {
        for text in [
            "0.5",
            "-0.0",
            "1e22",
            "1e23",
            "123456789012345678e-5",
            "9007199254740993.0",
            "-65.613616999999977",
            "0.1e-22",
            "4.9e-324",
            "1.7976931348623157e308",
            "12.5E+3",
        ] {
            let want: f64 = text.parse().unwrap();
            let doc = crate::json::from_json(text.as_bytes()).unwrap();
            let got = crate::Document::open(&doc)
                .unwrap()
                .root()
                .as_f64()
                .unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
    }
}

#[cfg(test)]
mod nearest_float_tests {
    use super::{nearest_float, Q_MAX, Q_MIN};

    fn check(mant: u64, q: i64) -> bool {
        let n = mant.to_string().len();
        match nearest_float(mant, n, q) {
            Some(f) => {
                let want: f64 = format!("{mant}e{q}").parse().unwrap();
                assert_eq!(f.to_bits(), want.to_bits(), "{mant}e{q}");
                true
            }
            None => false,
        }
    }

    /// Eisel-Lemire gives what Rust's parser gives, on random digits, on
    /// the 17-digit texts of random floats and of their halfway points.
    #[test]
    fn agrees_with_the_parser() {
        let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
        let mut decided = 0;
        for _ in 0..300_000 {
            let digits = (rng.next() % 19 + 1) as u32;
            let mant = rng.next() % 10u64.pow(digits);
            let q = (rng.next() % (Q_MAX - Q_MIN + 1) as u64) as i64 + Q_MIN;
            decided += check(mant, q) as u32;
            // A float's 17 digits and the halfway point to its neighbour.
            let x = f64::from_bits(rng.next() >> 2);
            if x.is_finite() && x > 1e-10 && x < 1e20 {
                for text in [format!("{x:.16e}"), format!("{:.18e}", x + x * 1.1e-16)] {
                    let (m, e) = text.split_once('e').unwrap();
                    let frac = m.len() - m.find('.').unwrap() - 1;
                    let mant: u64 = m.replace('.', "").parse().unwrap();
                    let q = e.parse::<i64>().unwrap() - frac as i64;
                    if (Q_MIN..=Q_MAX).contains(&q) {
                        decided += check(mant, q) as u32;
                    }
                }
            }
        }
        assert!(decided > 250_000, "{decided}");
        // Exact halfway cases: 2^53 + 1 and its neighbours, ties to even.
        for mant in [
            9_007_199_254_740_993,
            9_007_199_254_740_995,
            9_007_199_254_740_997,
        ] {
            assert!(check(mant, 0));
            assert!(check(mant * 10, -1));
        }
        for text in [
            "-65.613616999999977",
            "43.420273000000009",
            "0.30000000000000004",
        ] {
            let (i, f) = text.trim_start_matches('-').split_once('.').unwrap();
            let mant: u64 = format!("{i}{f}").parse().unwrap();
            assert!(check(mant, -(f.len() as i64)), "{text}");
        }
    }
}
