//! serde for [`Timestamp`]: a native timestamp in roving documents, RFC
//! 3339 text in every other format.
//!
//! `Timestamp` serializes as a newtype struct of a private name holding
//! its RFC 3339 text: other serializers see the text (serde_json writes
//! `"2024-01-01T09:00:00+09:00"`), roving's [`Serializer`] recognizes the
//! name and writes a timestamp record. It deserializes from RFC 3339 text,
//! which is also what roving's deserializer hands over for a timestamp
//! record, so a timestamp read from JSON text or from roving reads alike.
//!
//! [`Serializer`]: crate::serde::Serializer

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{self, Serialize, Serializer};

use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::Timestamp;

/// The newtype name roving's serializer writes as a timestamp record.
pub(crate) const NAME: &str = "$roving::private::Timestamp";

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(NAME, &self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Timestamp, D::Error> {
        d.deserialize_newtype_struct(NAME, TimestampVisitor)
    }
}

struct TimestampVisitor;

impl<'de> Visitor<'de> for TimestampVisitor {
    type Value = Timestamp;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a timestamp (RFC 3339 text)")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Timestamp, D::Error> {
        d.deserialize_str(self)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Timestamp, E> {
        v.parse()
            .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

/// Writes the RFC 3339 text a `Timestamp` serializes as into `enc` as a
/// timestamp record (anything else is refused: only `Timestamp` uses
/// [`NAME`]).
pub(crate) struct TimestampWriter<'e> {
    pub(crate) enc: &'e mut Encoder,
}

fn not_a_timestamp() -> Error {
    Error::new(ErrorKind::Unsupported).with_message(format!("{NAME} holds RFC 3339 text only"))
}

impl ser::Serializer for TimestampWriter<'_> {
    fn serialize_str(self, v: &str) -> Result<()> {
        let t: Timestamp = v.parse()?;
        self.enc.timestamp(t)
    }

    refuse_scalars!(
        not_a_timestamp();
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(not_a_timestamp())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<()> {
        Err(not_a_timestamp())
    }
    refuse_compound_values!(not_a_timestamp());
}
