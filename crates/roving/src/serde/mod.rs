//! serde support: [`to_vec`] writes any `Serialize` type in one pass
//! through the [`Encoder`](crate::Encoder); [`from_slice`] validates a
//! document and deserializes from it in place, lending `&str` and `&[u8]`
//! straight from the input.
//!
//! Structs are maps keyed by field name (so maps of one struct type share
//! one shape), enums are externally tagged like serde_json, `Option::None`
//! is null, and what serializes through `serialize_bytes` (a
//! `#[serde(with = "serde_bytes")]` field) is a byte string, which reads
//! back as borrowed `&[u8]`. As in serde_json, a plain `Vec<u8>` or
//! `&[u8]` field is a sequence of integers (serde's own mapping), which a
//! `&[u8]` cannot borrow: use `serde_bytes` for bytes. A field may change
//! between the two from one version to the next: a byte string reads into
//! a plain sequence (`Vec<u8>`, `[u8; N]`, `Box<[u8]>`, a tuple, or a
//! sequence of any type its bytes fit, `Vec<u16>`, `Vec<f64>`) as the
//! sequence of its bytes, and a sequence of integers that fit a byte reads
//! into an owned `serde_bytes` field (`ByteBuf`, `Vec<u8>`, `[u8; N]`),
//! as serde_json reads the array of numbers it writes for bytes. A type
//! that takes any value (`deserialize_any`: `serde_json::Value`, untagged
//! enums, flattened fields) is handed a byte string as bytes, which
//! `serde_json::Value` refuses. A typed vector reads into a sequence of
//! its element type or of any type its elements fit, an `f32` one bit
//! for bit.
//!
//! Map keys other than strings are written as serde_json writes them:
//! integers, bools and chars as their text, finite floats as the shortest
//! text that reads back as the same float (`1.5`, `1e16`), unit variants
//! as their name; they read back from that text (a number from JSON
//! number syntax only), and NaN or infinite float keys are an error.
//!
//! [`Timestamp`](crate::Timestamp) is a timestamp record (and RFC 3339
//! text in other formats, from which it also reads).
//!
//! A [`Value`](crate::Value) read in place is itself `Serialize`: it goes
//! into any serde format, or into a type that other code serializes, each
//! kind as a type that takes any value receives it (see the impl on
//! `Value`; into roving every kind stays what it is), bounded as the
//! other converters are.
//!
//! A decoding error carries the path of the value it is about
//! ([`Error::path`](crate::Error::path), `$.a[1].x`) and, below the root,
//! its byte offset in the document ([`Error::offset`](crate::Error::offset)).

/// `ser::Serializer` methods for scalar kinds a serializer refuses, each
/// returning the error `$err`: `refuse_scalars!(err(); serialize_f32(f32), ...)`.
macro_rules! refuse_scalars {
    ($err:expr; $($f:ident($($t:ty),*)),* $(,)?) => {$(
        fn $f(self, $(_: $t),*) -> Result<()> {
            Err($err)
        }
    )*};
}

/// The associated types and compound-value methods of a
/// `ser::Serializer` that takes scalars only: every compound value
/// (sequence, tuple, map, struct, variant with data) is refused with the
/// error `$err`.
macro_rules! refuse_compound_values {
    ($err:expr) => {
        type Ok = ();
        type Error = Error;
        type SerializeSeq = ser::Impossible<(), Error>;
        type SerializeTuple = ser::Impossible<(), Error>;
        type SerializeTupleStruct = ser::Impossible<(), Error>;
        type SerializeTupleVariant = ser::Impossible<(), Error>;
        type SerializeMap = ser::Impossible<(), Error>;
        type SerializeStruct = ser::Impossible<(), Error>;
        type SerializeStructVariant = ser::Impossible<(), Error>;

        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
            Err($err)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
            Err($err)
        }
        refuse_compounds_but_sequences!($err);
    };
}

/// The compound-value methods of a `ser::Serializer` other than
/// `serialize_seq` and `serialize_tuple`, each refused with the error
/// `$err` (the `Serialize*` types they would return are the caller's).
macro_rules! refuse_compounds_but_sequences {
    ($err:expr) => {
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<()> {
            Err($err)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err($err)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err($err)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err($err)
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
            Err($err)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err($err)
        }
    };
}

mod de;
mod exact;
mod ser;
mod stack;
mod timestamp;
mod value;

pub use de::{from_slice, from_slice_with, from_value, from_value_with, is_int_key};
pub use ser::{to_vec, to_vec_with, Serializer};
