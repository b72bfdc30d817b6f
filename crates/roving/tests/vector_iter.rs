//! A typed vector iterates over its elements as [`Scalar`]s, whatever its
//! element type and whatever the alignment of the buffer (`as_slice`
//! needs both to match), from both ends, and in a `for` loop.

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
