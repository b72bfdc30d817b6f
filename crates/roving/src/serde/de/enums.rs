//! Externally tagged enums: a variant is its name, or a one-entry map of
//! its name to its value.

use serde::de::{self, DeserializeSeed, Visitor};

use super::error_paths::key_segment;
use super::keys::KeyDeserializer;
use super::Deserializer;
use crate::error::{Error, Result};
use crate::read::Value;

/// An enum read from a one-entry map `{variant: value}`.
pub(super) struct EnumVariant<'de, 'b> {
    /// The variant's name (the key).
    pub(super) variant: &'de str,
    /// The deserializer of the variant's value.
    pub(super) deserializer: Deserializer<'de, 'b>,
}

impl<'de, 'b> de::EnumAccess<'de> for EnumVariant<'de, 'b> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let v = seed.deserialize(KeyDeserializer::new(self.variant))?;
        Ok((v, self))
    }
}

/// The value of a variant (`{variant: value}`): errors from it have the
/// variant in their path, as those from any map value have its key.
impl<'de> de::VariantAccess<'de> for EnumVariant<'de, '_> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        match self.deserializer.value {
            Value::Null => Ok(()),
            _ => Err(de::Error::invalid_type(
                self.deserializer.unexpected(),
                &"a unit variant",
            )),
        }
        .map_err(|e| key_segment(e, self.variant))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self.deserializer)
            .map_err(|e| key_segment(e, self.variant))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self.deserializer, visitor)
            .map_err(|e| key_segment(e, self.variant))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self.deserializer, "", fields, visitor)
            .map_err(|e| key_segment(e, self.variant))
    }
}
