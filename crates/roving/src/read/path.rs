//! Paths such as `[123].name` or `$.friends[0]["odd key"]`.

use crate::error::{Error, ErrorKind, Result};
use crate::read::Value;

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// An array index.
    Index(usize),
    /// A map key.
    Key(String),
}

impl PathSegment {
    /// Parses a path: an optional `$`, then steps `[N]` (index), `.key`,
    /// `["key"]` (any key, JSON string escapes) ; a leading key may omit the dot.
    pub fn parse(path: &str) -> Result<Vec<PathSegment>> {
        let b = path.as_bytes();
        let mut i = 0;
        let mut out = Vec::new();
        let err = |i: usize, m: &str| {
            Err(Error::new(ErrorKind::Custom)
                .with_message(format!("bad path {path:?} at character {i}: {m}")))
        };
        if b.first() == Some(&b'$') {
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
                        let key: String = match serde_json_like_unescape(&path[start..=i]) {
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
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        if start == i || b.get(i) != Some(&b']') {
                            return err(start, "expected an index and ]");
                        }
                        let n = match path[start..i].parse::<usize>() {
                            Ok(n) => n,
                            Err(_) => return err(start, "index too large"),
                        };
                        i += 1;
                        out.push(PathSegment::Index(n));
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

fn serde_json_like_unescape(quoted: &str) -> Option<String> {
    let inner = &quoted[1..quoted.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
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
        let mut v = *self;
        for s in PathSegment::parse(path)? {
            let next = match s {
                PathSegment::Index(i) => v.try_index(i)?,
                PathSegment::Key(k) => v.try_get(&k)?,
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
}
