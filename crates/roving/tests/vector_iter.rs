//! A typed vector iterates over its elements as [`Scalar`]s, whatever its
//! element type and whatever the alignment of the buffer (`as_slice`
//! needs both to match), from both ends, and in a `for` loop; in an
//! aligned buffer it is viewed in place as a slice.

use roving::read::Scalar;
use roving::{Document, Encoder};

fn doc_of<T: roving::read::VectorElement>(data: &[T]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.vector(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn elements_iterate_as_scalars() {
    let bytes = doc_of(&[1.5f32, -2.0, 3.25]);
    let doc = Document::open(&bytes).unwrap();
    let v = doc.root().as_vector().unwrap();
    let all: Vec<Scalar> = v.iter().collect();
    assert_eq!(
        all,
        [Scalar::Float(1.5), Scalar::Float(-2.0), Scalar::Float(3.25)]
    );
    assert_eq!(v.iter().len(), 3);
    assert_eq!(v.iter().next_back(), Some(Scalar::Float(3.25)));
    let mut sum = 0.0;
    for x in v {
        if let Scalar::Float(f) = x {
            sum += f;
        }
    }
    assert_eq!(sum, 2.75);
    let n = (&v).into_iter().count();
    assert_eq!(n, 3);
}

#[test]
fn a_misaligned_buffer_still_iterates() {
    let bytes = doc_of(&[1u64, u64::MAX]);
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&bytes);
    let doc = Document::open(&shifted[1..]).unwrap();
    let v = doc.root().as_vector().unwrap();
    let all: Vec<Scalar> = v.iter().collect();
    assert_eq!(all, [Scalar::UInt(1), Scalar::UInt(u64::MAX)]);
    let mut back = v.iter();
    assert_eq!(back.next_back(), Some(Scalar::UInt(u64::MAX)));
    assert_eq!(back.next(), Some(Scalar::UInt(1)));
    assert_eq!(back.next(), None);
    assert_eq!(back.next_back(), None);
}

/// Vectors are viewed in place when the buffer is 8-aligned (the format
/// aligns the data to the element size from the document start).
#[test]
fn vectors_are_viewed_in_place_in_an_aligned_buffer() {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.str("x").unwrap();
    e.vector(&[1.5f64, -2.0, 3.25]).unwrap();
    e.vector(&[7u16, 8]).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    // An 8-aligned copy.
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    let aligned: &mut [u8] = bytemuck_bytes(&mut words);
    aligned[..bytes.len()].copy_from_slice(&bytes);
    let doc = Document::open(&aligned[..bytes.len()]).unwrap();
    let root = doc.root();
    let f = root.index(1).unwrap().as_vector().unwrap();
    assert_eq!(f.as_slice::<f64>(), Some(&[1.5, -2.0, 3.25][..]));
    assert_eq!(f.as_slice::<f32>(), None);
    let u = root.index(2).unwrap().as_vector().unwrap();
    assert_eq!(u.as_slice::<u16>(), Some(&[7u16, 8][..]));
}

fn bytemuck_bytes(words: &mut [u64]) -> &mut [u8] {
    let len = std::mem::size_of_val(words);
    // SAFETY: u64 has no padding and u8 has alignment 1.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}
