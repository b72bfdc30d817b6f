//! The one error type of the roving core.

use std::fmt;

/// What went wrong, without the where.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ends before a record, header or trailer is complete.
    Truncated,
    /// The first bytes are not `RV`: not a roving document.
    BadMagic,
    /// The document is of a major version this reader does not know.
    UnsupportedVersion(u8),
    /// A byte where a record starts is not a defined tag.
    UnknownTag(u8),
    /// A slot holds an undefined immediate.
    BadImmediate,
    /// A reference points forward, to itself, outside the document or into the middle of a record.
    BadReference,
    /// A reference points to a record of the wrong kind (e.g. a map's shape is not a shape).
    WrongTarget,
    /// A length or count does not fit in the document.
    BadLength,
    /// A varint is malformed, overlong or overflows 64 bits.
    BadVarint,
    /// A string is not valid UTF-8.
    InvalidUtf8,
    /// A shape's key index is malformed.
    BadIndex,
    /// A shape names the same key twice.
    DuplicateKey,
    /// A value is not in its canonical form where the format requires one.
    NonCanonical,
    /// The document does not end with a root record.
    BadTrailer,
    /// Nesting deeper than the configured limit.
    DepthLimit,
    /// Expanding shared subtrees would produce more values than the configured limit.
    ExpansionLimit,
    /// JSON text is malformed; the message says how.
    JsonSyntax,
    /// A value cannot be represented where it goes: in JSON, in the
    /// target type, or in the format (a timestamp out of range, vector
    /// bytes that are not whole elements, a map key that is not a string
    /// or a scalar, text that is not an RFC 3339 timestamp); or an integer
    /// of more than [`MAX_DECIMAL_DIGITS`](crate::read::MAX_DECIMAL_DIGITS)
    /// digits to convert to or from decimal text.
    Unsupported,
    /// Misuse of the `Encoder` API (e.g. a key outside a map).
    EncoderState,
    /// A value has a different type than expected (typed decoding).
    TypeMismatch,
    /// A path (`[123].name`) is malformed; the message says where.
    BadPath,
    /// A message from serde or a user type.
    Custom,
    /// An I/O error while reading or writing.
    Io,
    /// The document was written against a shared dictionary
    /// (`docs/FORMAT.md` section 23) and was opened without one; the
    /// message names the dictionary id and entry count it needs.
    DictionaryRequired,
    /// The dictionary given is not the one the document needs (another
    /// id, or fewer entries); the message names the id and count needed.
    DictionaryMismatch,
    /// Dictionary bytes (or a delta) are malformed, or disagree with the
    /// dictionary they extend.
    BadDictionary,
}

impl ErrorKind {
    fn describe(&self) -> String {
        match self {
            ErrorKind::Truncated => "truncated input".into(),
            ErrorKind::BadMagic => "not a roving document (bad magic)".into(),
            ErrorKind::UnsupportedVersion(v) => format!("unsupported format version {v}"),
            ErrorKind::UnknownTag(t) => format!("unknown tag 0x{t:02x}"),
            ErrorKind::BadImmediate => "undefined immediate value in a slot".into(),
            ErrorKind::BadReference => "bad reference".into(),
            ErrorKind::WrongTarget => "reference to a record of the wrong kind".into(),
            ErrorKind::BadLength => "length out of bounds".into(),
            ErrorKind::BadVarint => "malformed varint".into(),
            ErrorKind::InvalidUtf8 => "invalid UTF-8 in a string".into(),
            ErrorKind::BadIndex => "malformed key index".into(),
            ErrorKind::DuplicateKey => "duplicate key".into(),
            ErrorKind::NonCanonical => "non-canonical encoding".into(),
            ErrorKind::BadTrailer => "document does not end with a root record".into(),
            ErrorKind::DepthLimit => "nesting depth limit exceeded".into(),
            ErrorKind::ExpansionLimit => "expansion limit exceeded (shared subtrees)".into(),
            ErrorKind::JsonSyntax => "JSON syntax error".into(),
            ErrorKind::Unsupported => "unsupported value".into(),
            ErrorKind::EncoderState => "encoder misuse".into(),
            ErrorKind::TypeMismatch => "type mismatch".into(),
            ErrorKind::BadPath => "bad path".into(),
            ErrorKind::Custom => "error".into(),
            ErrorKind::Io => "I/O error".into(),
            ErrorKind::DictionaryRequired => {
                "the document was written against a shared dictionary, which is needed to read it"
                    .into()
            }
            ErrorKind::DictionaryMismatch => "not the shared dictionary the document needs".into(),
            ErrorKind::BadDictionary => "malformed shared dictionary".into(),
        }
    }
}

/// An error of the roving core: a kind, and where known the byte offset
/// in the input, a path to the value (`$[3].name`) and a message.
///
/// Boxed, so that a `Result<T, Error>` stays the size of `T` and a word:
/// typed decoding passes one up from every value it visits.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

#[derive(Clone)]
struct Inner {
    kind: ErrorKind,
    offset: Option<u64>,
    line_col: Option<(u64, u64)>,
    path: Option<String>,
    message: Option<Box<str>>,
    /// Segments prefixed by [`Error::prefix_path`] so far.
    prefixed: usize,
    /// The path once longer than `PATH_ENDS` segments.
    long_path: Option<Box<LongPath>>,
    /// The I/O error this one was made from (its
    /// [`source`](std::error::Error::source)); shared, so that errors stay
    /// `Clone`.
    io: Option<std::sync::Arc<std::io::Error>>,
}

/// Errors are equal when what they say is: kind, offset, line and column,
/// path and message (not how the path was built, nor the I/O error
/// behind them, which has no equality).
impl PartialEq for Inner {
    fn eq(&self, o: &Inner) -> bool {
        (self.kind == o.kind)
            && (self.offset, self.line_col) == (o.offset, o.line_col)
            && (self.path == o.path)
            && (self.message == o.message)
    }
}

impl Eq for Inner {}

/// Segments kept at each end of a path built by [`Error::prefix_path`];
/// those between are elided, so that an error deep in a value has a
/// message of bounded length, built in time linear in the depth.
const PATH_ENDS: usize = 20;

/// A path of more than `PATH_ENDS` segments: the innermost `PATH_ENDS`
/// (as text) and up to `PATH_ENDS` outermost (one string each), with a
/// count of those elided between them.
#[derive(Clone)]
struct LongPath {
    outer: std::collections::VecDeque<String>,
    elided: usize,
    inner: String,
}

impl LongPath {
    fn render(&self) -> String {
        let mut p = String::from("$");
        p.extend(self.outer.iter().map(String::as_str));
        if self.elided > 0 {
            p.push_str(&format!("...({} more)...", self.elided));
        }
        p.push_str(&self.inner);
        p
    }
}

/// Result with the roving [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of this kind.
    #[cold]
    pub fn new(kind: ErrorKind) -> Error {
        Error(Box::new(Inner {
            kind,
            offset: None,
            line_col: None,
            path: None,
            message: None,
            prefixed: 0,
            long_path: None,
            io: None,
        }))
    }

    /// A new error of this kind at this byte offset.
    #[cold]
    pub fn at(kind: ErrorKind, offset: usize) -> Error {
        Error::new(kind).with_offset(offset)
    }

    /// A free-form error (kind [`ErrorKind::Custom`]).
    #[cold]
    pub fn custom(message: impl fmt::Display) -> Error {
        Error::new(ErrorKind::Custom).with_message(message)
    }

    /// Sets the byte offset.
    #[must_use]
    pub fn with_offset(mut self, offset: usize) -> Error {
        self.0.offset = Some(offset as u64);
        self
    }

    /// Sets the line and column (1-based), for text inputs.
    #[must_use]
    pub fn with_line_col(mut self, line: u64, col: u64) -> Error {
        self.0.line_col = Some((line, col));
        self
    }

    /// Sets the message.
    #[must_use]
    pub fn with_message(mut self, message: impl fmt::Display) -> Error {
        self.0.message = Some(message.to_string().into_boxed_str());
        self
    }

    /// Sets the path, e.g. `$[3].name`.
    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Error {
        self.0.path = Some(path.into());
        self.0.prefixed = 0;
        self.0.long_path = None;
        self
    }

    /// Prepends a path segment (used while unwinding typed decoding). Past
    /// 40 segments, the middle of the path is elided (`$.a.b...(240
    /// more)....y.z`, as the Python package's paths are): the message
    /// stays short, and the path of an error 100,000 levels deep takes
    /// linear time to build.
    #[must_use]
    pub fn prefix_path(mut self, segment: &str) -> Error {
        let e = &mut *self.0;
        e.prefixed += 1;
        let path = e.path.take().unwrap_or_default();
        if e.prefixed <= PATH_ENDS {
            let rest = path.strip_prefix('$').unwrap_or(&path);
            e.path = Some(format!("${segment}{rest}"));
            return self;
        }
        // Past PATH_ENDS segments, those so far are the innermost, kept as
        // text; up to PATH_ENDS outer ones are kept one by one.
        let long = e.long_path.get_or_insert_with(|| {
            Box::new(LongPath {
                outer: Default::default(),
                elided: 0,
                inner: path.strip_prefix('$').unwrap_or(&path).to_string(),
            })
        });
        long.outer.push_front(segment.to_string());
        if long.outer.len() > PATH_ENDS {
            long.outer.pop_back();
            long.elided += 1;
        }
        e.path = Some(long.render());
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Byte offset in the input, when known.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// Line and column (1-based) in a text input, when known.
    pub fn line_col(&self) -> Option<(u64, u64)> {
        self.0.line_col
    }

    /// Path to the value concerned, when known.
    pub fn path(&self) -> Option<&str> {
        self.0.path.as_deref()
    }

    /// The message, when there is one beyond the kind.
    pub fn message(&self) -> Option<&str> {
        self.0.message.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.message {
            Some(m)
                if self.0.kind == ErrorKind::Custom || self.0.kind == ErrorKind::TypeMismatch =>
            {
                f.write_str(m)?
            }
            Some(m) => write!(f, "{}: {}", self.0.kind.describe(), m)?,
            None => f.write_str(&self.0.kind.describe())?,
        }
        if let Some(p) = &self.0.path {
            write!(f, " at {p}")?;
        }
        if let Some((l, c)) = self.0.line_col {
            write!(f, " (line {l}, column {c})")?;
        } else if let Some(o) = self.0.offset {
            write!(f, " (byte offset {o})")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        f.debug_struct("Error")
            .field("kind", &e.kind)
            .field("offset", &e.offset)
            .field("line_col", &e.line_col)
            .field("path", &e.path)
            .field("message", &e.message)
            .finish()
    }
}

/// The source of an [`ErrorKind::Io`] error made from a
/// [`std::io::Error`] is that error; other errors have none.
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.io {
            Some(e) => Some(&**e),
            None => None,
        }
    }
}

/// An [`ErrorKind::Io`] error with the I/O error's text as its message and
/// the I/O error as its [`source`](std::error::Error::source).
impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        let mut err = Error::new(ErrorKind::Io).with_message(&e);
        err.0.io = Some(std::sync::Arc::new(e));
        err
    }
}
