//! Typed numeric vectors, viewable zero-copy at natural alignment.

use crate::layout::{
    allows_v2, read_varint, shape_dims, shaped_vector_record, vector_record, ElemType,
};

/// A typed numeric vector inside a document: a vector record (`0F`, one
/// dimension) or a shaped vector record (`23`, two or more dimensions,
/// row-major). Its elements read as one flat run ([`len`](Self::len),
/// [`raw`](Self::raw), [`iter`](Self::iter) cover them all);
/// [`shape`](Self::shape) tells its dimensions.
#[derive(Clone, Copy)]
pub struct Vector<'a> {
    elem: ElemType,
    /// Bytes before the data in `bytes`: 0 for a vector of one dimension
    /// (`bytes` is its data); for a shaped vector, its shape (`ndim` and
    /// the dimensions, varints) and its padding.
    head: u16,
    bytes: &'a [u8],
    offset: usize,
}

/// The element type, shape and offset, not the elements (which may be
/// millions).
impl std::fmt::Debug for Vector<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Vector");
        d.field("elem", &self.elem).field("len", &self.len());
        if self.head != 0 {
            d.field("shape", &self.shape());
        }
        d.field("offset", &self.offset).finish()
    }
}

/// Element types a [`Vector`] can be viewed as.
pub trait VectorElement: bytemuck::Pod {
    /// The format's element type for `Self`.
    const ELEM: ElemType;
}

macro_rules! vector_element {
    ($($t:ty => $e:ident),*) => {$(
        impl VectorElement for $t {
            const ELEM: ElemType = ElemType::$e;
        }
    )*};
}
vector_element!(i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32,
    i64 => I64, u64 => U64, f32 => F32, f64 => F64);

impl<'a> Vector<'a> {
    /// The vector record at `pos`, if one starts there and its data is in bounds.
    pub(crate) fn at(buf: &'a [u8], pos: usize) -> Option<Vector<'a>> {
        let (elem, start, len) = vector_record(buf, pos)?;
        let data = buf.get(start..start + len)?;
        Some(Vector {
            elem,
            head: 0,
            bytes: data,
            offset: pos,
        })
    }

    /// The shaped vector record at `pos` (version 2 documents only), if
    /// one starts there and its data is in bounds.
    pub(crate) fn shaped_at(buf: &'a [u8], pos: usize) -> Option<Vector<'a>> {
        if !allows_v2(buf) {
            return None;
        }
        let r = shaped_vector_record(buf, pos)?;
        // The padding is zero (at most 7 bytes; what a lazily opened
        // document's read of it checks).
        if buf.get(r.dims_end..r.start)?.iter().any(|&b| b != 0) {
            return None;
        }
        Some(Vector {
            elem: r.elem,
            // At most 1 + 64 * 10 bytes of shape and 7 of padding.
            head: u16::try_from(r.start - r.shape_at).ok()?,
            bytes: buf.get(r.shape_at..r.start + r.len)?,
            offset: pos,
        })
    }

    /// True if `other` has the same shape (its dimensions, not only its
    /// length).
    pub(crate) fn same_shape(&self, other: &Vector<'_>) -> bool {
        match (self.head, other.head) {
            (0, 0) => self.len() == other.len(),
            (0, _) | (_, 0) => false,
            _ => self.shape() == other.shape(),
        }
    }

    /// The element bytes.
    #[inline(always)]
    fn data(&self) -> &'a [u8] {
        self.bytes.get(self.head as usize..).unwrap_or_default()
    }

    /// The number of dimensions: 1 for a vector record (`0F`), 2 or more
    /// for a shaped vector (`23`).
    pub fn ndim(&self) -> usize {
        if self.head == 0 {
            return 1;
        }
        read_varint(self.bytes, 0).map_or(1, |(n, _)| n as usize)
    }

    /// The dimensions, outermost first: `[len]` for a vector of one
    /// dimension, for a shaped vector its shape (whose product is
    /// [`len`](Self::len)); the elements are in row-major (C) order.
    ///
    /// ```
    /// let mut enc = roving::Encoder::new();
    /// enc.shaped_vector(&[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
    /// let bytes = enc.finish()?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let v = doc.root().as_vector().unwrap();
    /// assert_eq!((v.shape(), v.ndim(), v.len()), (vec![2, 3], 2, 6));
    /// assert_eq!(roving::json::to_json(doc.root())?, "[[1,2,3],[4,5,6]]");
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn shape(&self) -> Vec<usize> {
        if self.head == 0 {
            return vec![self.len()];
        }
        match read_varint(self.bytes, 0) {
            Some((n, p)) => shape_dims(self.bytes, p, n as usize),
            None => vec![self.len()],
        }
    }

    /// The element type.
    pub fn elem_type(&self) -> ElemType {
        self.elem
    }

    /// Number of elements (of a shaped vector: all of them, the product
    /// of its dimensions).
    pub fn len(&self) -> usize {
        self.data().len() / self.elem.size()
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.data().is_empty()
    }

    /// The raw little-endian element bytes (of a shaped vector: all of
    /// them, row-major).
    pub fn raw(&self) -> &'a [u8] {
        self.data()
    }

    /// Byte offset of the vector's record in the document.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The elements as a slice, without copying, if `T` is the element type
    /// and the document's buffer is aligned in memory so that the data is
    /// (the format aligns data to its element size relative to the
    /// document start; a buffer at an 8-aligned address suffices).
    /// Little-endian hosts only; see [`Vector::to_vec`] otherwise.
    ///
    /// A document that lies at any address usually is not aligned so: a
    /// record of a `roving_store::Store` (LMDB places values at any byte
    /// offset), or a document inside a larger buffer. There this returns
    /// `None`; [`to_vec`](Self::to_vec), [`iter`](Self::iter) and
    /// [`get`](Self::get) read any alignment.
    ///
    /// ```
    /// let mut enc = roving::Encoder::new();
    /// enc.vector(&[0.5f32, 1.5, 2.5])?;
    /// let bytes = enc.finish()?; // the allocator's buffers are 8-aligned in practice
    /// let doc = roving::Document::open(&bytes)?;
    /// let v = doc.root().as_vector().unwrap();
    /// assert_eq!(v.elem_type(), roving::ElemType::F32);
    /// assert_eq!(v.as_slice::<f32>(), Some(&[0.5f32, 1.5, 2.5][..]));
    /// assert_eq!(v.as_slice::<f64>(), None); // not the element type
    /// assert_eq!(v.to_vec::<f32>(), Some(vec![0.5, 1.5, 2.5]));
    /// assert_eq!(v.get_f64(2), Some(2.5));
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn as_slice<T: VectorElement>(&self) -> Option<&'a [T]> {
        if T::ELEM != self.elem || cfg!(target_endian = "big") {
            return None;
        }
        bytemuck::try_cast_slice(self.data()).ok()
    }

    /// The elements copied into a `Vec`, if `T` is the element type.
    pub fn to_vec<T: VectorElement>(&self) -> Option<Vec<T>> {
        if T::ELEM != self.elem {
            return None;
        }
        let size = self.elem.size();
        let mut v = Vec::with_capacity(self.len());
        for chunk in self.data().chunks_exact(size) {
            let mut x = T::zeroed();
            let dst = bytemuck::bytes_of_mut(&mut x);
            dst.copy_from_slice(chunk);
            if cfg!(target_endian = "big") {
                dst.reverse();
            }
            v.push(x);
        }
        Some(v)
    }

    /// Element `i` widened to `f64` (exact for all but 64-bit integers beyond 2^53).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        Some(match self.get(i)? {
            Scalar::Int(x) => x as f64,
            Scalar::UInt(x) => x as f64,
            Scalar::Float(x) => x,
        })
    }

    /// Element `i` as a [`Scalar`]: exact for every element type.
    pub fn get(&self, i: usize) -> Option<Scalar> {
        let s = self.elem.size();
        let start = i.checked_mul(s)?;
        let b = self.data().get(start..start.checked_add(s)?)?;
        let mut w = [0u8; 8];
        w[..s].copy_from_slice(b);
        let u = u64::from_le_bytes(w);
        Some(match self.elem {
            ElemType::I8 => Scalar::Int(u as u8 as i8 as i64),
            ElemType::U8 => Scalar::Int(u as u8 as i64),
            ElemType::I16 => Scalar::Int(u as u16 as i16 as i64),
            ElemType::U16 => Scalar::Int(u as u16 as i64),
            ElemType::I32 => Scalar::Int(u as u32 as i32 as i64),
            ElemType::U32 => Scalar::Int(u as u32 as i64),
            ElemType::I64 => Scalar::Int(u as i64),
            ElemType::U64 => Scalar::UInt(u),
            ElemType::F32 => {
                Scalar::Float(crate::layout::f32_to_f64_exact(f32::from_bits(u as u32)))
            }
            ElemType::F64 => Scalar::Float(f64::from_bits(u)),
        })
    }
}

impl<'a> Vector<'a> {
    /// The elements in order, each as [`get`](Self::get) reads it: for a
    /// vector of any element type, in a buffer of any alignment.
    ///
    /// ```
    /// use roving::read::Scalar;
    /// let mut enc = roving::Encoder::new();
    /// enc.vector(&[1u16, 2, 3])?;
    /// let bytes = enc.finish()?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let v = doc.root().as_vector().unwrap();
    /// let sum: i64 = v.iter().map(|x| match x { Scalar::Int(i) => i, _ => 0 }).sum();
    /// assert_eq!(sum, 6);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn iter(&self) -> VectorIter<'a> {
        VectorIter {
            v: *self,
            next: 0,
            end: self.len(),
        }
    }
}

impl<'a> IntoIterator for Vector<'a> {
    type Item = Scalar;
    type IntoIter = VectorIter<'a>;
    fn into_iter(self) -> VectorIter<'a> {
        self.iter()
    }
}

/// `for x in &vector` (the same items as [`Vector::iter`]).
impl<'a> IntoIterator for &Vector<'a> {
    type Item = Scalar;
    type IntoIter = VectorIter<'a>;
    fn into_iter(self) -> VectorIter<'a> {
        self.iter()
    }
}

/// Iterator over a [`Vector`]'s elements ([`Vector::iter`]).
#[derive(Clone, Debug)]
pub struct VectorIter<'a> {
    v: Vector<'a>,
    next: usize,
    end: usize,
}

impl Iterator for VectorIter<'_> {
    type Item = Scalar;

    fn next(&mut self) -> Option<Scalar> {
        if self.next >= self.end {
            return None;
        }
        self.next += 1;
        self.v.get(self.next - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for VectorIter<'_> {
    fn next_back(&mut self) -> Option<Scalar> {
        if self.next >= self.end {
            return None;
        }
        self.end -= 1;
        self.v.get(self.end)
    }
}

impl ExactSizeIterator for VectorIter<'_> {}

/// One element of a vector.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A signed integer (or an unsigned one that fits in `i64`).
    Int(i64),
    /// A `u64` element.
    UInt(u64),
    /// A float element (`f32` widened exactly).
    Float(f64),
}
