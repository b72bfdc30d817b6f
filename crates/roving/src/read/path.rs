//! Paths such as `[123].name` or `$.friends[0]["odd key"]`.

use crate::error::{Error, ErrorKind, Result};
use crate::read::Value;

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// An array index.
    Index(usize),
    /// An array index counted from the end: `[-1]` is `FromEnd(1)`, the
    /// last element.
    FromEnd(usize),
    /// A map key.
    Key(String),
}

impl PathSegment {
    /// Parses a path: an optional `$` (the root: alone, or followed by `.`
    /// or `[`), then steps `[N]` (an index; `[-N]` counts from the end),
    /// `.key` (up to the next `.` or `[`), or `["key"]` (any key, in JSON
    /// string syntax with its escapes); a leading key may omit the dot, so
    /// `$x` and `x` are both the key `x`... unless written `$.x`: a path
    /// starting with `$` followed by anything else is a key that starts
    /// with `$` (`$ref` is the key `$ref`).
    ///
    /// ```
    /// use roving::read::PathSegment::{self, *};
    /// assert_eq!(PathSegment::parse("$[3].name")?, [Index(3), Key("name".into())]);
    /// assert_eq!(PathSegment::parse("tags[-1]")?, [Key("tags".into()), FromEnd(1)]);
    /// assert_eq!(PathSegment::parse("$ref")?, [Key("$ref".into())]);
    /// assert_eq!(PathSegment::parse(r#"["a.b"]["\u00e9"]"#)?, [Key("a.b".into()), Key("é".into())]);
    /// assert!(PathSegment::parse("a..b").is_err());
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn parse(path: &str) -> Result<Vec<PathSegment>> {
        let b = path.as_bytes();
        let mut i = 0;
        let mut out = Vec::new();
        let err = |i: usize, m: &str| {
            Err(Error::new(ErrorKind::BadPath).with_message(format!("{path:?} at byte {i}: {m}")))
        };
        if b.first() == Some(&b'$') && matches!(b.get(1), None | Some(b'.') | Some(b'[')) {
            i = 1;
        }
        let mut first = true;
        while i < b.len() {
            match b[i] {
                b'[' => {
                    i += 1;
                    if b.get(i) == Some(&b'"') {
                        let start = i;
                        i += 1;
                        while i < b.len() && b[i] != b'"' {
                            i += if b[i] == b'\\' { 2 } else { 1 };
                        }
                        if i >= b.len() {
                            return err(start, "unterminated string");
                        }
                        let key = match unescape(&b[start + 1..i]) {
                            Some(k) => k,
                            None => return err(start, "bad string escape"),
                        };
                        i += 1;
                        if b.get(i) != Some(&b']') {
                            return err(i, "expected ]");
                        }
                        i += 1;
                        out.push(PathSegment::Key(key));
                    } else {
                        let start = i;
                        let negative = b.get(i) == Some(&b'-');
                        if negative {
                            i += 1;
                        }
                        let digits = i;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        if digits == i || b.get(i) != Some(&b']') {
                            return err(start, "expected an index and ]");
                        }
                        let n = match path[digits..i].parse::<usize>() {
                            Ok(n) => n,
                            Err(_) => return err(start, "index too large"),
                        };
                        i += 1;
                        out.push(match (negative, n) {
                            (false, n) => PathSegment::Index(n),
                            (true, 0) => return err(start, "-0 is no index"),
                            (true, n) => PathSegment::FromEnd(n),
                        });
                    }
                }
                c if c == b'.' || first => {
                    if c == b'.' {
                        i += 1;
                    }
                    let start = i;
                    while i < b.len() && b[i] != b'.' && b[i] != b'[' {
                        i += 1;
                    }
                    if start == i {
                        return err(start, "empty key");
                    }
                    out.push(PathSegment::Key(path[start..i].to_string()));
                }
                _ => return err(i, "expected . or ["),
            }
            first = false;
        }
        Ok(out)
    }
}

/// The text of a JSON string's contents (between the quotes): escapes as
/// JSON has them, `\uXXXX` with exactly four hex digits and surrogate
/// pairs joined; `None` if malformed (a lone surrogate too).
fn unescape(inner: &[u8]) -> Option<String> {
    fn hex4(b: &[u8]) -> Option<u32> {
        let h = b.get(..4)?;
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    }
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = *inner.get(i + 1)?;
        i += 2;
        let ch = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'u' => {
                let hi = hex4(&inner[i..])?;
                i += 4;
                let code = match hi {
                    0xD800..=0xDBFF => {
                        if inner.get(i..i + 2) != Some(b"\\u") {
                            return None;
                        }
                        let lo = hex4(&inner[i + 2..])?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return None;
                        }
                        i += 6;
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    }
                    _ => hi,
                };
                char::from_u32(code)?
            }
            _ => return None,
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
    String::from_utf8(out).ok()
}

impl<'a> Value<'a> {
    /// The value at `path` below this one (`Ok(None)` if a step is missing
    /// or of the wrong type; `Err` if the path itself is malformed).
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"[{"name":"a"},{"name":"b"}]"#).unwrap();
    /// let doc = roving::Document::open(&bytes).unwrap();
    /// assert_eq!(doc.root().path("[1].name").unwrap().unwrap().as_str(), Some("b"));
    /// ```
    pub fn path(&self, path: &str) -> Result<Option<Value<'a>>> {
        let segs = PathSegment::parse(path)?;
        Ok(self.path_segments(&segs))
    }

    /// [`path`](Self::path), reporting malformed bytes of a lazily opened
    /// document met on the way as an error (see [`Value::try_get`]).
    pub fn try_path(&self, path: &str) -> Result<Option<Value<'a>>> {
        self.try_path_segments(&PathSegment::parse(path)?)
    }

    /// [`path_segments`](Self::path_segments), reporting malformed bytes of
    /// a lazily opened document met on the way as an error.
    pub fn try_path_segments(&self, segs: &[PathSegment]) -> Result<Option<Value<'a>>> {
        let mut v = *self;
        for s in segs {
            let next = match s {
                PathSegment::Index(i) => v.try_index(*i)?,
                PathSegment::FromEnd(n) => match v {
                    // (An array whose header does not decode has length 0:
                    // `try_get` reports it.)
                    Value::Array(a) => a.try_get(a.len().checked_sub(*n).unwrap_or(usize::MAX))?,
                    _ => None,
                },
                PathSegment::Key(k) => v.try_get(k)?,
            };
            match next {
                Some(n) => v = n,
                None => return Ok(None),
            }
        }
        Ok(Some(v))
    }

    /// The value at pre-parsed path segments.
    pub fn path_segments(&self, segs: &[PathSegment]) -> Option<Value<'a>> {
        let mut v = *self;
        for s in segs {
            v = match s {
                PathSegment::Index(i) => v.index(*i)?,
                PathSegment::FromEnd(n) => match v {
                    Value::Array(a) => a.get(a.len().checked_sub(*n)?)?,
                    _ => return None,
                },
                PathSegment::Key(k) => v.get(k)?,
            };
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::PathSegment::{self, *};

    #[test]
    fn parse() {
        assert_eq!(
            PathSegment::parse("[123].name").unwrap(),
            vec![Index(123), Key("name".into())]
        );
        assert_eq!(
            PathSegment::parse("$.a[0][\"x.y\"]").unwrap(),
            vec![Key("a".into()), Index(0), Key("x.y".into())]
        );
        assert_eq!(
            PathSegment::parse("a.b").unwrap(),
            vec![Key("a".into()), Key("b".into())]
        );
        assert!(PathSegment::parse("[x]").is_err());
        assert!(PathSegment::parse("a..b").is_err());
        assert!(PathSegment::parse("[\"abc").is_err());
    }

    /// `$` is the root only alone or before `.` or `[`; elsewhere it starts
    /// a key.
    #[test]
    fn dollar_keys() {
        assert_eq!(PathSegment::parse("$").unwrap(), vec![]);
        assert_eq!(PathSegment::parse("").unwrap(), vec![]);
        assert_eq!(PathSegment::parse("$x").unwrap(), vec![Key("$x".into())]);
        assert_eq!(PathSegment::parse("$$").unwrap(), vec![Key("$$".into())]);
        assert_eq!(
            PathSegment::parse("$ref.$id").unwrap(),
            vec![Key("$ref".into()), Key("$id".into())]
        );
        assert_eq!(PathSegment::parse("$.$x").unwrap(), vec![Key("$x".into())]);
        assert_eq!(PathSegment::parse("$[0]").unwrap(), vec![Index(0)]);
    }

    /// `[-N]` counts from the end; `-0` and a bare `-` are refused.
    #[test]
    fn indices_from_the_end() {
        assert_eq!(
            PathSegment::parse("a[-1][-20]").unwrap(),
            vec![Key("a".into()), FromEnd(1), FromEnd(20)]
        );
        for bad in ["[-0]", "[-]", "[--1]", "[+1]", "[1-]"] {
            let e = PathSegment::parse(bad).unwrap_err();
            assert_eq!(e.kind(), &crate::ErrorKind::BadPath, "{bad}");
        }
    }

    /// Quoted keys take JSON's escapes exactly: four hex digits, surrogate
    /// pairs joined, lone surrogates refused.
    #[test]
    fn quoted_key_escapes() {
        let key = |p: &str| match PathSegment::parse(p).unwrap().as_slice() {
            [Key(k)] => k.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(key(r#"["\u00e9\n\"\\\/"]"#), "é\n\"\\/");
        assert_eq!(key(r#"["\ud83d\ude00"]"#), "😀");
        assert_eq!(key(r#"["\uD83D\uDE00x"]"#), "😀x");
        assert_eq!(key(r#"["a.b[0]"]"#), "a.b[0]");
        for bad in [
            r#"["\u12"]"#,
            r#"["\u+123"]"#,
            r#"["\u-123"]"#,
            r#"["\ud83d"]"#,
            r#"["\ud83dx"]"#,
            r#"["\ud83d\u0041"]"#,
            r#"["\ude00"]"#,
            r#"["\x41"]"#,
            r#"["\"]"#,
        ] {
            let e = PathSegment::parse(bad).unwrap_err();
            assert_eq!(e.kind(), &crate::ErrorKind::BadPath, "{bad}");
            assert!(e.to_string().starts_with("bad path"), "{e}");
        }
    }

    /// Paths with indices from the end, on a validated and a lazily opened
    /// document.
    #[test]
    fn lookups_from_the_end() {
        let bytes = crate::json::from_json(br#"{"a":[10,20,{"b":[1,2,3]}],"$x":1}"#).unwrap();
        for doc in [
            crate::Document::open(&bytes).unwrap(),
            crate::Document::open_lazy(&bytes).unwrap(),
        ] {
            let int = |p: &str| doc.root().try_path(p).unwrap().and_then(|v| v.as_i64());
            assert_eq!(int("a[-3]"), Some(10));
            assert_eq!(int("a[-1].b[-1]"), Some(3));
            assert_eq!(int("$.a[-1].b[-3]"), Some(1));
            assert_eq!(int("$x"), Some(1));
            assert!(doc.root().try_path("a[-4]").unwrap().is_none());
            assert!(doc.root().try_path("$x[-1]").unwrap().is_none());
            assert_eq!(
                doc.get_path("a[-2]").unwrap().and_then(|v| v.as_i64()),
                Some(20)
            );
            assert!(doc.get_path("a[-4]").unwrap().is_none());
        }
    }
}
