//! `Serialize` -> roving, in one pass through the encoder.

use serde::ser::{self, Serialize};

use super::stack::at_level;
use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};

/// Serializes `value` to a roving document.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct Person<'a> { name: &'a str, age: u32 }
/// let bytes = roving::to_vec(&Person { name: "Ada", age: 36 })?;
/// let back: Person = roving::from_slice(&bytes)?;
/// assert_eq!(back, Person { name: "Ada", age: 36 });
/// # Ok::<(), roving::Error>(())
/// ```
///
/// Each thread keeps a spare encoder for this function, so that repeated
/// calls reuse its tables and presize the output to the last document's
/// size (the bytes are the same as with a new [`Encoder`]).
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    crate::encode::encode_document(None, crate::encode::DEFAULT_MAX_DEPTH, |enc| {
        value.serialize(&mut Serializer { enc })
    })
}

/// A serde `Serializer` writing into an [`Encoder`]: the next value of the
/// encoder (its root, an array element, a map value after its key), so
/// typed values can be mixed with values written by hand.
///
/// ```
/// use serde::Serialize;
/// let mut enc = roving::Encoder::new();
/// enc.begin_map()?;
/// enc.key("point")?;
/// (1, 2).serialize(&mut roving::serde::Serializer::new(&mut enc))?;
/// enc.end_map()?;
/// let bytes = enc.finish()?;
/// let doc = roving::Document::open(&bytes)?;
/// assert_eq!(roving::json::to_json(doc.root())?, r#"{"point":[1,2]}"#);
/// # Ok::<(), roving::Error>(())
/// ```
#[derive(Debug)]
pub struct Serializer<'e> {
    /// The encoder written to.
    pub enc: &'e mut Encoder,
}

impl<'e> Serializer<'e> {
    /// A serializer writing the next value of `enc`.
    pub fn new(enc: &'e mut Encoder) -> Self {
        Serializer { enc }
    }
}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::custom(msg)
    }
}

impl<'a, 'e> ser::Serializer for &'a mut Serializer<'e> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSerializer<'a, 'e>;
    type SerializeTuple = SeqSerializer<'a, 'e>;
    type SerializeTupleStruct = SeqSerializer<'a, 'e>;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.enc.bool(v)
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.enc.i64(v as i64)
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.enc.i64(v as i64)
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.enc.i64(v as i64)
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.enc.i64(v)
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.enc.i128(v)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.enc.i64(v as i64)
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.enc.i64(v as i64)
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.enc.i64(v as i64)
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.enc.u64(v)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        if let Ok(x) = u64::try_from(v) {
            return self.enc.u64(x);
        }
        self.enc.bigint_le(false, &v.to_le_bytes())
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        // Bit-exact (`as f64` may quiet a signalling NaN).
        self.enc.f64(crate::layout::f32_to_f64_exact(v))
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.enc.f64(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        let mut b = [0u8; 4];
        self.enc.str(v.encode_utf8(&mut b))
    }
    #[inline(always)]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.enc.str(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.enc.bytes(v)
    }
    fn serialize_none(self) -> Result<()> {
        self.enc.null()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.enc.null()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.enc.null()
    }
    fn serialize_unit_variant(
        self,
        _n: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.enc.str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if super::exact::is_private(name) {
            return super::exact::write(self.enc, name, value);
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.enc.begin_map()?;
        self.enc.key(variant)?;
        at_level(self.enc.depth(), || value.serialize(&mut *self))?;
        self.enc.end_map().map(drop)
    }
    #[inline]
    fn serialize_seq(self, _len: Option<usize>) -> Result<SeqSerializer<'a, 'e>> {
        SeqSerializer::new(self)
    }
    #[inline]
    fn serialize_tuple(self, _len: usize) -> Result<SeqSerializer<'a, 'e>> {
        SeqSerializer::new(self)
    }
    fn serialize_tuple_struct(
        self,
        _n: &'static str,
        _len: usize,
    ) -> Result<SeqSerializer<'a, 'e>> {
        SeqSerializer::new(self)
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self> {
        self.enc.begin_map()?;
        self.enc.key(variant)?;
        self.enc.begin_array()?;
        Ok(self)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self> {
        self.enc.begin_map()?;
        Ok(self)
    }
    #[inline]
    fn serialize_struct(self, _n: &'static str, _len: usize) -> Result<Self> {
        self.enc.begin_map()?;
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self> {
        self.enc.begin_map()?;
        self.enc.key(variant)?;
        self.enc.begin_map()?;
        Ok(self)
    }
}

/// The sequences of [`Serializer`] (`SerializeSeq`, `SerializeTuple`,
/// `SerializeTupleStruct`): an array. While every element so far is a
/// float, the floats are held back (in the encoder's `float_run`, after
/// those of the sequences it is in), and an array of floats only is
/// written in one step when it ends (`Encoder::end_array_f64`: a number
/// array, without a record per float first); at the first element that is
/// not a float, the floats held back are written one by one and the rest
/// as it comes. The bytes are those of an element at a time.
pub struct SeqSerializer<'a, 'e> {
    ser: &'a mut Serializer<'e>,
    /// Where this sequence's floats start in `float_run`, while every
    /// element so far was a float; `None` after one was not.
    run: Option<usize>,
    /// Whether the encoder's array is open. It is opened at the first
    /// element that is not a float (nothing is written before then), so
    /// that an array of floats only is written by `Encoder::array_f64`
    /// in one step.
    open: bool,
}

impl<'a, 'e> SeqSerializer<'a, 'e> {
    /// Starts the array of a sequence.
    #[inline(always)]
    fn new(ser: &'a mut Serializer<'e>) -> Result<SeqSerializer<'a, 'e>> {
        let run = Some(ser.enc.float_run.len());
        Ok(SeqSerializer {
            ser,
            run,
            open: false,
        })
    }

    /// Opens the encoder's array, if it is not open yet.
    #[inline(always)]
    fn open(&mut self) -> Result<()> {
        if !self.open {
            self.ser.enc.begin_array()?;
            self.open = true;
        }
        Ok(())
    }

    /// Writes the floats held back as elements, one by one, and ends the
    /// run: the next elements are written as they come.
    #[inline]
    fn flush(&mut self) -> Result<()> {
        self.open()?;
        self.end_run(
            |enc, floats| floats.iter().try_for_each(|&x| enc.f64(x)),
            |_| Ok(()),
        )
    }

    /// Ends the run: `held(encoder, floats)` if floats are held back
    /// (which then leave `float_run`), else `none(encoder)`.
    #[inline(always)]
    fn end_run<R>(
        &mut self,
        held: impl FnOnce(&mut Encoder, &[f64]) -> Result<R>,
        none: impl FnOnce(&mut Encoder) -> Result<R>,
    ) -> Result<R> {
        let enc = &mut *self.ser.enc;
        match self.run.take() {
            Some(from) if enc.float_run.len() > from => {
                let run = std::mem::take(&mut enc.float_run);
                let r = held(enc, run.get(from..).unwrap_or(&[]));
                enc.float_run = run;
                enc.float_run.truncate(from);
                r
            }
            _ => none(enc),
        }
    }

    /// Writes one element.
    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        // (The level of the array's elements, whether or not it is open.)
        let level = self.ser.enc.depth() + usize::from(!self.open);
        if self.run.is_some() {
            return at_level(level, || v.serialize(ElementSerializer { seq: self }));
        }
        at_level(level, || v.serialize(&mut *self.ser))
    }

    /// Ends the array: in one step if its elements are floats held back.
    #[inline(always)]
    fn finish(mut self) -> Result<()> {
        let open = self.open;
        let held = self.end_run(
            |enc, floats| {
                let mark = match open {
                    true => enc.end_array_f64(floats),
                    false => enc.array_f64(floats),
                };
                mark.map(|_| true)
            },
            |_| Ok(false),
        )?;
        if !held {
            // No float held back: the run ended earlier, or the array is
            // empty.
            self.open()?;
            self.ser.enc.end_array()?;
        }
        Ok(())
    }
}

impl ser::SerializeSeq for SeqSerializer<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        self.element(v)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTuple for SeqSerializer<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        self.element(v)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for SeqSerializer<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        self.element(v)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// The serializer of an element of a [`SeqSerializer`] whose elements so
/// far were all floats: a float joins the run held back; any other value
/// ends the run ([`SeqSerializer::flush`]) and is written by [`Serializer`]
/// (each method below does what `Serializer`'s does).
struct ElementSerializer<'s, 'a, 'e> {
    seq: &'s mut SeqSerializer<'a, 'e>,
}

impl<'s, 'e> ElementSerializer<'s, '_, 'e> {
    /// The run written out, then the sequence's serializer, for a value
    /// that is not a float.
    #[inline(always)]
    fn plain(self) -> Result<&'s mut Serializer<'e>> {
        self.seq.flush()?;
        Ok(&mut *self.seq.ser)
    }

    /// Holds back the float `v`.
    #[inline(always)]
    fn float(self, v: f64) -> Result<()> {
        self.seq.ser.enc.float_run.push(v);
        Ok(())
    }
}

/// `fn $f(self, v: $t, ...) -> Result<$r>` of [`ElementSerializer`]:
/// [`ElementSerializer::plain`]'s (`Result<()>` when no `$r` is given).
macro_rules! plain_methods {
    ($($f:ident($($v:ident: $t:ty),*) $(-> $r:ty)?;)*) => {$(
        fn $f(self, $($v: $t),*) -> Result<plain_methods!(@ok $($r)?)> {
            self.plain()?.$f($($v),*)
        }
    )*};
    (@ok $r:ty) => { $r };
    (@ok) => { () };
}

impl<'s, 'a, 'e> ser::Serializer for ElementSerializer<'s, 'a, 'e> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSerializer<'s, 'e>;
    type SerializeTuple = SeqSerializer<'s, 'e>;
    type SerializeTupleStruct = SeqSerializer<'s, 'e>;
    type SerializeTupleVariant = &'s mut Serializer<'e>;
    type SerializeMap = &'s mut Serializer<'e>;
    type SerializeStruct = &'s mut Serializer<'e>;
    type SerializeStructVariant = &'s mut Serializer<'e>;

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.float(v)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        // As `Serializer::serialize_f32`.
        self.float(crate::layout::f32_to_f64_exact(v))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if super::exact::is_private(name) {
            return self.plain()?.serialize_newtype_struct(name, value);
        }
        value.serialize(self)
    }
    plain_methods! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
        serialize_seq(len: Option<usize>) -> SeqSerializer<'s, 'e>;
        serialize_tuple(len: usize) -> SeqSerializer<'s, 'e>;
        serialize_tuple_struct(name: &'static str, len: usize) -> SeqSerializer<'s, 'e>;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> &'s mut Serializer<'e>;
        serialize_map(len: Option<usize>) -> &'s mut Serializer<'e>;
        serialize_struct(name: &'static str, len: usize) -> &'s mut Serializer<'e>;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> &'s mut Serializer<'e>;
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.plain()?
            .serialize_newtype_variant(name, index, variant, value)
    }
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<()> {
        self.plain()?.collect_str(value)
    }
}

impl ser::SerializeTupleVariant for &mut Serializer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        at_level(self.enc.depth(), || v.serialize(&mut **self))
    }
    fn end(self) -> Result<()> {
        self.enc.end_array()?;
        self.enc.end_map().map(drop)
    }
}

impl ser::SerializeMap for &mut Serializer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        key.serialize(KeySerializer { enc: self.enc })
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        at_level(self.enc.depth(), || v.serialize(&mut **self))
    }
    fn end(self) -> Result<()> {
        self.enc.end_map().map(drop)
    }
}

impl ser::SerializeStruct for &mut Serializer<'_> {
    type Ok = ();
    type Error = Error;
    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<()> {
        self.enc.key_static(key)?;
        at_level(self.enc.depth(), || v.serialize(&mut **self))
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.enc.end_map().map(drop)
    }
}

impl ser::SerializeStructVariant for &mut Serializer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<()> {
        self.enc.key_static(key)?;
        at_level(self.enc.depth(), || v.serialize(&mut **self))
    }
    fn end(self) -> Result<()> {
        self.enc.end_map()?;
        self.enc.end_map().map(drop)
    }
}

/// Serializes map keys: strings, and integers, finite floats, chars and
/// bools as their text (what serde_json writes for them).
struct KeySerializer<'e> {
    enc: &'e mut Encoder,
}

fn key_error() -> Error {
    Error::new(ErrorKind::Unsupported).with_message(
        "map keys must be strings, or integers, floats, bools, chars or unit variants \
         (written as their text)",
    )
}

fn float_key_error() -> Error {
    Error::new(ErrorKind::Unsupported)
        .with_message("float map keys must be finite (NaN and infinities have no key text)")
}

macro_rules! key_display {
    ($($f:ident: $t:ty),*) => {$(
        fn $f(self, v: $t) -> Result<()> {
            self.enc.key(&v.to_string())
        }
    )*};
}

impl ser::Serializer for KeySerializer<'_> {
    fn serialize_str(self, v: &str) -> Result<()> {
        self.enc.key(v)
    }
    key_display!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_char: char, serialize_i128: i128, serialize_u128: u128);
    /// The shortest text that reads back as `v` (`1.5`, `1.0`, `-0.0`,
    /// `1e16`: the JSON text of floats, FORMAT.md 17.2); serde_json writes
    /// the same numbers (`1e+16`), and each reads the other's.
    fn serialize_f64(self, v: f64) -> Result<()> {
        if !v.is_finite() {
            return Err(float_key_error());
        }
        self.enc.key(ryu::Buffer::new().format_finite(v))
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        if !v.is_finite() {
            return Err(float_key_error());
        }
        self.enc.key(ryu::Buffer::new().format_finite(v))
    }
    refuse_scalars!(
        key_error();
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
    );
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<()> {
        v.serialize(self)
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, v: &'static str) -> Result<()> {
        self.enc.key(v)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<()> {
        v.serialize(self)
    }
    refuse_compound_values!(key_error());
}

/// [`to_vec`] against a shared dictionary: maps whose keys are a shape of
/// `dict` refer to it, and `dict` learns the document's other shapes
/// (unless it is frozen). Read it back with [`from_slice_with`](crate::serde::from_slice_with).
///
/// ```
/// let mut dict = roving::Dictionary::new();
/// let first = roving::serde::to_vec_with(&[("a", 1)].into_iter().collect::<std::collections::BTreeMap<_, _>>(), &mut dict)?;
/// assert_eq!(dict.len(), 1); // learned the shape {"a"}
/// # Ok::<(), roving::Error>(())
/// ```
pub fn to_vec_with<T: Serialize + ?Sized>(
    value: &T,
    dict: &mut crate::Dictionary,
) -> Result<Vec<u8>> {
    let mut enc = Encoder::with_dictionary(dict);
    value.serialize(&mut Serializer { enc: &mut enc })?;
    enc.finish_growing(dict)
}
