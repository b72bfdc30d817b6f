//! Arrays read in place: O(1) indexing.

use crate::error::{ErrorKind, Result};
use crate::layout::{
    container_header, is_array, num_array_record, num_at, read_slot, slot_pos, tag_width, ElemType,
    Num, NumElem, StrArray, StrArrayBytes, StrideArray, TAG_NUM_ARRAY, TAG_STRIDE_ARRAY,
    TAG_STR_ARRAY,
};
use crate::read::value::{
    check_slot, malformed, record_error, record_value, slot_value, slot_value_each, text, Value,
    LAZY,
};

/// An array inside a document: a position; its header is decoded on use,
/// so that a `Value` stays small and copying it is cheap.
#[derive(Clone, Copy)]
pub struct Array<'a> {
    buf: &'a [u8],
    /// Position of the record, with the [`LAZY`] bit of lazily opened documents.
    at: usize,
}

/// An array's header, decoded: where its elements are and how they are
/// stored. (Three words, as before number arrays: it is copied into every
/// `ArrayIter`.)
#[derive(Clone, Copy, Debug)]
struct Header {
    /// Position of the first slot (of a number array: of the first
    /// element's bytes; of a string array: of the record).
    slots: usize,
    /// Number of elements.
    len: usize,
    /// Slot width in bytes (of a number array: element size;
    /// [`STRINGS`] for a string array record, `22`, whose elements are
    /// read from its parts, not from slots; of a stride array: its
    /// stride).
    width: u32,
    /// 0 for an array record (slots), else a number array record's tag,
    /// or [`TAG_STRIDE_ARRAY`] for a stride array (whose `slots` is the
    /// position of element 0's record).
    packed: u8,
    /// The exponent of a decimal number array (`3A`).
    exp: i8,
}

/// [`Header::width`] of a string array record (`22`).
const STRINGS: u32 = 0;

impl Header {
    /// The header an array whose header does not decode reads with: no elements.
    const EMPTY: Header = Header {
        slots: 0,
        len: 0,
        width: 1,
        packed: 0,
        exp: 0,
    };

    /// Slot width (element size) in bytes.
    #[inline(always)]
    fn width(&self) -> usize {
        self.width as usize
    }

    /// Position of element `i`'s record, if this is a stride array's
    /// header (`i` below the length).
    #[inline(always)]
    fn stride_element(&self, i: usize) -> Option<usize> {
        (self.packed == TAG_STRIDE_ARRAY).then(|| self.slots + i * self.width())
    }

    /// How a number array's elements are stored (`None` for slots and
    /// for a stride array).
    #[inline(always)]
    fn packed(&self) -> Option<NumElem> {
        if self.packed == 0 || self.packed == TAG_STRIDE_ARRAY {
            return None;
        }
        Some(
            match ElemType::from_code(self.packed.wrapping_sub(TAG_NUM_ARRAY)) {
                Some(e) => NumElem::Binary(e),
                None => NumElem::Decimal(self.exp),
            },
        )
    }
}

/// Element `i` of a number array (`h.packed` is `Some`), in bounds.
#[inline(always)]
pub(crate) fn packed_value<'a>(buf: &'a [u8], elem: NumElem, data: usize, i: usize) -> Value<'a> {
    match num_at(buf, elem, data, i) {
        Some(Num::Int(v)) => Value::Int(v),
        Some(Num::UInt(v)) => Value::UInt(v),
        Some(Num::Float(v)) => Value::Float(v),
        None => Value::Null,
    }
}

/// The elements of a number array record, as stored: their element type
/// and their little-endian bytes ([`Array::numbers`]), for readers that
/// convert a whole array at once.
///
/// ```
/// use roving::layout::{ElemType, NumElem};
/// let mut enc = roving::Encoder::new();
/// enc.begin_array()?;
/// for x in [1.5, -2.0, 0.25] {
///     enc.f64(x)?;
/// }
/// enc.end_array()?;
/// let bytes = enc.finish()?;
/// let doc = roving::Document::open(&bytes)?;
/// let numbers = doc.root().as_array().unwrap().numbers().unwrap();
/// assert_eq!(numbers.elem(), NumElem::Binary(ElemType::F32));
/// assert_eq!(numbers.len(), 3);
/// assert_eq!(numbers.get(1).and_then(|v| v.as_f64()), Some(-2.0));
/// # Ok::<(), roving::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numbers<'a> {
    elem: NumElem,
    data: &'a [u8],
}

impl<'a> Numbers<'a> {
    /// How the elements are stored.
    pub fn elem(&self) -> NumElem {
        self.elem
    }

    /// The elements' bytes: `len() * elem().size()` bytes, little endian,
    /// not aligned (of a decimal array: the `i32` mantissas).
    pub fn raw(&self) -> &'a [u8] {
        self.data
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len() / self.elem.size()
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Element `i` (an `Int`, `UInt` or `Float`), or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        (i < self.len()).then(|| self.get_below_len(i))
    }

    /// The `count` elements stored as `elem` from `data` in `buf`, if they
    /// are within it.
    #[inline]
    pub(crate) fn from_parts(
        buf: &'a [u8],
        elem: NumElem,
        data: usize,
        count: usize,
    ) -> Option<Numbers<'a>> {
        let len = count.checked_mul(elem.size())?;
        let data = buf.get(data..data.checked_add(len)?)?;
        Some(Numbers { elem, data })
    }

    /// Element `i`, for `i` below [`len`](Self::len) (`Null` past the end).
    #[inline(always)]
    pub(crate) fn get_below_len(&self, i: usize) -> Value<'a> {
        packed_value(self.data, self.elem, 0, i)
    }
}

/// Element `i` (< its length) of the string array record at `pos` in
/// `buf` (`Null` if malformed, only in a lazily opened document).
#[inline(never)]
fn str_element(buf: &[u8], pos: usize, i: usize, lazy: usize) -> Value<'_> {
    match StrArray::at(buf, pos)
        .and_then(|s| s.bytes(buf, i))
        .and_then(|b| text(b, lazy))
    {
        Some(t) => Value::Str(t),
        None => Value::Null,
    }
}

/// [`str_element`], with what is malformed as an error.
#[cold]
fn try_str_element(buf: &[u8], pos: usize, i: usize) -> Result<Value<'_>> {
    let s = StrArray::at(buf, pos).ok_or_else(|| malformed(ErrorKind::Truncated, pos))?;
    let b = s
        .bytes(buf, i)
        .ok_or_else(|| malformed(ErrorKind::BadLength, s.ends + i * s.end_width))?;
    match text(b, LAZY) {
        Some(t) => Ok(Value::Str(t)),
        None => Err(malformed(ErrorKind::InvalidUtf8, s.data)),
    }
}

record_accessors!(Array);

impl std::fmt::Debug for ArraySlots<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArraySlots")
            .field("offset", &self.base)
            .field("len", &self.h.len)
            .finish()
    }
}

impl std::fmt::Debug for ArrayIter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrayIter")
            .field("offset", &self.base)
            .field("len", &self.h.len)
            .field("next", &self.next)
            .field("end", &self.end)
            .finish()
    }
}

impl<'a> Array<'a> {
    /// The array at `at`: a record position, with the [`LAZY`] bit for a
    /// lazily opened document. Without it the caller vouches that the
    /// document was validated or is trusted (strings are not re-checked).
    #[inline(always)]
    pub(crate) fn at(buf: &'a [u8], at: usize) -> Array<'a> {
        Array { buf, at }
    }

    #[inline(always)]
    fn header(&self) -> Option<Header> {
        let (tag, len, slots) = container_header(self.buf, self.pos())?;
        if !is_array(tag) {
            if tag == TAG_STR_ARRAY {
                return self.str_header();
            }
            if tag == TAG_STRIDE_ARRAY {
                return self.stride_header();
            }
            return self.packed_header();
        }
        Some(Header {
            slots,
            len: usize::try_from(len).ok().filter(|&l| l <= self.buf.len())?,
            width: tag_width(tag) as u32,
            packed: 0,
            exp: 0,
        })
    }

    /// The header of a number array record (`None` if it does not decode
    /// or its elements do not end within the document).
    #[inline(never)]
    fn packed_header(&self) -> Option<Header> {
        let p = num_array_record(self.buf, self.pos())?;
        Some(Header {
            slots: p.data,
            len: p.count,
            width: p.elem.size() as u32,
            packed: p.elem.tag(),
            exp: match p.elem {
                NumElem::Decimal(e) => e,
                NumElem::Binary(_) => 0,
            },
        })
    }

    /// The decoded header of an array record: position of the first
    /// slot, number of elements and slot width (`None` for the empty
    /// immediate, a header that does not decode, or a number array or a
    /// string array, which have no slots: see [`numbers`](Self::numbers)
    /// and [`strings`](Self::strings)).
    #[inline(always)]
    pub(crate) fn parts(&self) -> Option<(usize, usize, usize)> {
        self.header()
            .filter(|h| h.packed == 0 && h.width != STRINGS)
            .map(|h| (h.slots, h.len, h.width()))
    }

    /// The elements as stored, if this array is a number array record
    /// (format version 2: numbers of one element type, packed, which the
    /// encoder writes for an array of only integers or only floats);
    /// `None` for an array of slots.
    #[inline]
    pub fn numbers(&self) -> Option<Numbers<'a>> {
        // (The record's own parse: not the slot arrays' header first.)
        let p = num_array_record(self.buf, self.pos())?;
        let data = self.buf.get(p.data..p.end())?;
        Some(Numbers { elem: p.elem, data })
    }

    /// [`Self::header`] of a stride array record.
    #[inline(never)]
    fn stride_header(&self) -> Option<Header> {
        let s = StrideArray::at(self.buf, self.pos())?;
        Some(Header {
            slots: s.first,
            len: s.count,
            // No loss: a stride is at most `u32::MAX`.
            width: s.stride as u32,
            packed: TAG_STRIDE_ARRAY,
            exp: 0,
        })
    }

    /// [`Self::header`] of a string array record.
    #[inline(never)]
    fn str_header(&self) -> Option<Header> {
        let s = StrArray::at(self.buf, self.pos())?;
        Some(Header {
            slots: self.pos(),
            len: s.count,
            width: STRINGS,
            packed: 0,
            exp: 0,
        })
    }

    /// True if the array is stored as a string array record (format
    /// version 2, `docs/FORMAT.md` section 6.15): its elements are all
    /// strings, packed, none of them shared with another value. It reads
    /// like any other array; a reader may take this as a hint (every
    /// element a distinct string, not worth caching by position).
    ///
    /// ```
    /// let names: Vec<String> = (0..20).map(|i| format!("name {i}")).collect();
    /// let bytes = roving::to_vec(&names)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let array = doc.root().as_array().unwrap();
    /// assert!(array.is_string_array());
    /// assert_eq!(array.get(3).and_then(|v| v.as_str()), Some("name 3"));
    /// # Ok::<(), roving::Error>(())
    /// ```
    #[inline]
    pub fn is_string_array(&self) -> bool {
        self.buf.get(self.pos()) == Some(&TAG_STR_ARRAY)
    }

    /// For an array stored as a string array record (see
    /// [`is_string_array`](Self::is_string_array)), its strings in order,
    /// read sequentially: a little faster than [`iter`](Self::iter). `None`
    /// for other arrays. An item is `None` only for a malformed string of
    /// a lazily opened document (where [`get`](Self::get) gives `Null`).
    ///
    /// ```
    /// let names: Vec<String> = (0..20).map(|i| format!("name {i}")).collect();
    /// let bytes = roving::to_vec(&names)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let array = doc.root().as_array().unwrap();
    /// let read: Vec<&str> = array.strings().unwrap().map(Option::unwrap).collect();
    /// assert_eq!(read, names);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn strings(&self) -> Option<ArrayStrings<'a>> {
        Some(ArrayStrings {
            bytes: StrArrayBytes::new(self.buf, self.str_array()?),
            lazy: self.lazy(),
        })
    }

    /// The header of a stride array record (`3B`), if this array is one.
    #[inline]
    pub(crate) fn stride_array(&self) -> Option<StrideArray> {
        if self.buf.get(self.pos()) != Some(&TAG_STRIDE_ARRAY) {
            return None;
        }
        StrideArray::at(self.buf, self.pos())
    }

    /// The parts of a string array record (`22`), if this array is one.
    #[inline]
    pub(crate) fn str_array(&self) -> Option<StrArray> {
        if self.buf.get(self.pos()) != Some(&TAG_STR_ARRAY) {
            return None;
        }
        StrArray::at(self.buf, self.pos())
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.header().map_or(0, |h| h.len)
    }

    /// True if there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`, or `None` past the end. O(1).
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"[10,"x",null]"#)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let array = doc.root().as_array().unwrap();
    /// assert_eq!(array.len(), 3);
    /// assert_eq!(array.get(0).and_then(|v| v.as_i64()), Some(10));
    /// assert!(array.get(2).unwrap().is_null());
    /// assert!(array.get(3).is_none());
    /// # Ok::<(), roving::Error>(())
    /// ```
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        let h = self.header()?;
        if i >= h.len {
            return None;
        }
        if let Some(elem) = h.packed() {
            return Some(packed_value(self.buf, elem, h.slots, i));
        }
        if h.width == STRINGS {
            return Some(str_element(self.buf, h.slots, i, self.lazy()));
        }
        if let Some(at) = h.stride_element(i) {
            return Some(record_value(self.buf, at, self.lazy()));
        }
        let slot = read_slot(
            self.buf,
            slot_pos(h.slots, i, h.width()),
            h.width(),
            self.pos(),
        );
        Some(slot_value(self.buf, slot, self.lazy()))
    }

    /// Element `i` (`Ok(None)` past the end), reporting malformed bytes of
    /// a lazily opened document ([`Document::open_lazy`]) as an error
    /// instead of a `Null`: a header that does not decode, a slot that is
    /// not a valid immediate or backward reference, a target that is not a
    /// value record, a string that is not UTF-8. For validated documents
    /// this is [`get`](Self::get).
    ///
    /// [`Document::open_lazy`]: crate::Document::open_lazy
    pub fn try_get(&self, i: usize) -> Result<Option<Value<'a>>> {
        if self.lazy() == 0 {
            return Ok(self.get(i));
        }
        let pos = self.pos();
        let h = self
            .header()
            .ok_or_else(|| malformed(ErrorKind::Truncated, pos))?;
        if i >= h.len {
            return Ok(None);
        }
        if let Some(elem) = h.packed() {
            return Ok(Some(packed_value(self.buf, elem, h.slots, i)));
        }
        if h.width == STRINGS {
            return try_str_element(self.buf, h.slots, i).map(Some);
        }
        if let Some(at) = h.stride_element(i) {
            // A record's value is never `Null` (null has no record).
            return match record_value(self.buf, at, LAZY) {
                Value::Null => Err(record_error(self.buf, at)),
                v => Ok(Some(v)),
            };
        }
        let at = slot_pos(h.slots, i, h.width());
        let v = slot_value(self.buf, read_slot(self.buf, at, h.width(), pos), LAZY);
        if v.is_null() {
            check_slot(self.buf, at, h.width(), pos)?;
        }
        Ok(Some(v))
    }

    /// The array's header decoded once, for reading its elements by
    /// index (typed decoders: see [`ArraySlots`]).
    #[inline]
    pub fn slots(&self) -> ArraySlots<'a> {
        ArraySlots {
            buf: self.buf,
            base: self.pos(),
            lazy: self.lazy(),
            h: self.header().unwrap_or(Header::EMPTY),
        }
    }

    /// The elements, in order.
    #[inline]
    pub fn iter(&self) -> ArrayIter<'a> {
        let h = self.header().unwrap_or(Header::EMPTY);
        ArrayIter {
            buf: self.buf,
            base: self.pos(),
            lazy: self.lazy(),
            h,
            next: 0,
            end: h.len,
        }
    }

    /// Byte offset of this array's record in the document (`None` for the
    /// empty array, which has no record). Equal offsets mean the same shared value.
    pub fn offset(&self) -> Option<usize> {
        (!self.buf.is_empty()).then_some(self.pos())
    }

    /// Length of the whole document this array is in (0 for the empty array).
    pub(crate) fn doc_len(&self) -> usize {
        self.buf.len()
    }
}

impl<'a> IntoIterator for Array<'a> {
    type Item = Value<'a>;
    type IntoIter = ArrayIter<'a>;
    fn into_iter(self) -> ArrayIter<'a> {
        self.iter()
    }
}

/// `for x in &array`, as for `Vec` and `HashMap` (the same items as
/// [`Array::iter`]).
///
/// ```
/// let bytes = roving::json::from_json(b"[1,2,3]")?;
/// let doc = roving::Document::open(&bytes)?;
/// let array = doc.root().as_array().unwrap();
/// let mut sum = 0;
/// for v in &array {
///     sum += v.as_i64().unwrap_or(0);
/// }
/// assert_eq!(sum, 6);
/// # Ok::<(), roving::Error>(())
/// ```
impl<'a> IntoIterator for &Array<'a> {
    type Item = Value<'a>;
    type IntoIter = ArrayIter<'a>;
    fn into_iter(self) -> ArrayIter<'a> {
        self.iter()
    }
}

/// An [`Array`] with its header decoded: its elements read by index with
/// no further decoding ([`Array::slots`]). An array whose header does not
/// decode (only in a lazily opened document) reads as empty.
#[derive(Clone, Copy)]
pub struct ArraySlots<'a> {
    buf: &'a [u8],
    base: usize,
    lazy: usize,
    h: Header,
}

impl<'a> ArraySlots<'a> {
    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.h.len
    }

    /// True if there are no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.h.len == 0
    }

    /// Element `i`, as [`Array::get`] (`None` past the end).
    #[inline(always)]
    pub fn value(&self, i: usize) -> Option<Value<'a>> {
        if i >= self.h.len {
            return None;
        }
        if let Some(elem) = self.h.packed() {
            return Some(packed_value(self.buf, elem, self.h.slots, i));
        }
        if self.h.width == STRINGS {
            return Some(str_element(self.buf, self.h.slots, i, self.lazy));
        }
        if let Some(at) = self.h.stride_element(i) {
            return Some(record_value(self.buf, at, self.lazy));
        }
        let slot = read_slot(
            self.buf,
            slot_pos(self.h.slots, i, self.h.width()),
            self.h.width(),
            self.base,
        );
        Some(slot_value_each(self.buf, slot, self.lazy))
    }
}

/// Iterator over the elements of an [`Array`].
#[derive(Clone)]
pub struct ArrayIter<'a> {
    buf: &'a [u8],
    base: usize,
    lazy: usize,
    h: Header,
    /// Index of the next element from the front.
    next: usize,
    /// One past the next element from the back.
    end: usize,
}

impl<'a> ArrayIter<'a> {
    #[inline(always)]
    fn value(&self, i: usize) -> Value<'a> {
        if let Some(elem) = self.h.packed() {
            return packed_value(self.buf, elem, self.h.slots, i);
        }
        if self.h.width == STRINGS {
            return str_element(self.buf, self.h.slots, i, self.lazy);
        }
        if let Some(at) = self.h.stride_element(i) {
            return record_value(self.buf, at, self.lazy);
        }
        let w = self.h.width();
        let slot = read_slot(self.buf, slot_pos(self.h.slots, i, w), w, self.base);
        slot_value(self.buf, slot, self.lazy)
    }
}

impl<'a> DoubleEndedIterator for ArrayIter<'a> {
    #[inline]
    fn next_back(&mut self) -> Option<Value<'a>> {
        if self.end <= self.next {
            return None;
        }
        self.end -= 1;
        Some(self.value(self.end))
    }
}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        if self.next >= self.end {
            return None;
        }
        let v = self.value(self.next);
        self.next += 1;
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next.min(self.end);
        (n, Some(n))
    }
}

impl ExactSizeIterator for ArrayIter<'_> {}

/// The strings of a string array, in order (see [`Array::strings`]), or
/// the keys of a packed shape, laid out as one (see
/// [`Map::packed_keys`](crate::Map::packed_keys)).
#[derive(Clone, Debug)]
pub struct ArrayStrings<'a> {
    bytes: StrArrayBytes<'a>,
    lazy: usize,
}

impl<'a> Iterator for ArrayStrings<'a> {
    type Item = Option<&'a str>;

    #[inline]
    fn next(&mut self) -> Option<Option<&'a str>> {
        let b = self.bytes.next()?;
        Some(b.and_then(|b| text(b, self.lazy)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.bytes.size_hint()
    }
}

impl ExactSizeIterator for ArrayStrings<'_> {}

impl<'a> ArrayStrings<'a> {
    /// The strings `bytes`, read as text as a document opened with `lazy`
    /// reads them.
    pub(crate) fn new(bytes: StrArrayBytes<'a>, lazy: usize) -> ArrayStrings<'a> {
        ArrayStrings { bytes, lazy }
    }

    /// Calls `f` with each remaining string, in order, as
    /// [`next`](Iterator::next) would give them, and stops at its first
    /// error. Faster than the iterator: one loop per block of strings.
    ///
    /// ```
    /// let names: Vec<String> = (0..40).map(|i| format!("name {i}")).collect();
    /// let bytes = roving::to_vec(&names)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let mut read = Vec::new();
    /// let strings = doc.root().as_array().unwrap().strings().unwrap();
    /// strings.try_each(|s| {
    ///     read.push(s.unwrap());
    ///     Ok::<(), roving::Error>(())
    /// })?;
    /// assert_eq!(read, names);
    /// # Ok::<(), roving::Error>(())
    /// ```
    #[inline]
    pub fn try_each<E>(self, mut f: impl FnMut(Option<&'a str>) -> Result<(), E>) -> Result<(), E> {
        let lazy = self.lazy;
        self.bytes.try_each(|b| f(b.and_then(|b| text(b, lazy))))
    }
}
