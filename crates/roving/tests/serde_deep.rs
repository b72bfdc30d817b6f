//! Deep values through serde on a small stack: `to_vec` and
//! `from_value_with` recurse through the caller's types once per level, so
//! they must not overflow a thread's stack before their depth limits
//! (100,000 levels for `to_vec`; what the caller asks for when decoding).
//! The types here hold no nested heap data (nothing to drop recursively):
//! `Nest(n)` is `n` arrays inside one another around a `0`.

mod common;
use common::on_small_stack;

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeSeq, Serializer};

/// `n` nested one-element arrays around `0`.
struct Nest(usize);

impl Serialize for Nest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 == 0 {
            return s.serialize_u8(0);
        }
        let mut seq = s.serialize_seq(Some(1))?;
        seq.serialize_element(&Nest(self.0 - 1))?;
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Nest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Nest, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Nest;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("0 or a one-element array")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Nest, E> {
                match v {
                    0 => Ok(Nest(0)),
                    _ => Err(E::custom("not 0")),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Nest, A::Error> {
                let inner: Nest = a
                    .next_element()?
                    .ok_or_else(|| de::Error::custom("empty"))?;
                Ok(Nest(inner.0 + 1))
            }
        }
        d.deserialize_any(V)
    }
}

#[test]
fn to_vec_writes_up_to_its_depth_limit_on_a_small_stack() {
    on_small_stack(|| {
        let bytes = roving::to_vec(&Nest(100_000)).unwrap();
        let doc = roving::Document::open(&bytes).unwrap();
        let mut v = doc.root();
        let mut depth = 0;
        while let Some(a) = v.as_array() {
            v = a.get(0).unwrap();
            depth += 1;
        }
        assert_eq!((depth, v.as_u64()), (100_000, Some(0)));
        let err = roving::to_vec(&Nest(100_001)).unwrap_err();
        assert_eq!(*err.kind(), roving::ErrorKind::DepthLimit);
    });
}

#[test]
fn from_value_with_reads_to_the_callers_depth_on_a_small_stack() {
    on_small_stack(|| {
        let bytes = roving::to_vec(&Nest(50_000)).unwrap();
        let doc = roving::Document::open(&bytes).unwrap();
        let mut limits = roving::Limits::for_len(bytes.len());
        limits.max_depth = 50_000;
        let back: Nest = roving::serde::from_value_with(doc.root(), limits).unwrap();
        assert_eq!(back.0, 50_000);
        limits.max_depth = 49_999;
        let err = roving::serde::from_value_with::<Nest>(doc.root(), limits)
            .err()
            .unwrap();
        assert_eq!(*err.kind(), roving::ErrorKind::DepthLimit);
        // from_slice keeps its own limit (256 levels).
        let err = roving::from_slice::<Nest>(&bytes).err().unwrap();
        assert_eq!(*err.kind(), roving::ErrorKind::DepthLimit);
    });
}

#[test]
fn the_path_of_an_error_deep_down_is_elided_in_the_middle() {
    on_small_stack(|| {
        // 50,000 arrays around a 1, which `Nest` refuses.
        let mut enc = roving::Encoder::new();
        for _ in 0..50_000 {
            enc.begin_array().unwrap();
        }
        enc.i64(1).unwrap();
        for _ in 0..50_000 {
            enc.end_array().unwrap();
        }
        let bytes = enc.finish().unwrap();
        let doc = roving::Document::open(&bytes).unwrap();
        let mut limits = roving::Limits::for_len(bytes.len());
        limits.max_depth = 50_000;
        let err = roving::serde::from_value_with::<Nest>(doc.root(), limits)
            .err()
            .unwrap();
        let path = err.path().unwrap();
        let ends = "[0]".repeat(20);
        assert_eq!(path, format!("${ends}...(49960 more)...{ends}"));
        assert_eq!(err.message(), Some("not 0"));

        // 40 levels or fewer: the whole path.
        for depth in [1, 20, 21, 40] {
            let nested = (0..depth).fold(serde_json::json!(1), |v, _| serde_json::json!([v]));
            let bytes = roving::to_vec(&nested).unwrap();
            let err = roving::from_slice::<Nest>(&bytes).err().unwrap();
            assert_eq!(
                err.path(),
                Some(format!("${}", "[0]".repeat(depth)).as_str())
            );
        }
    });
}

#[test]
fn errors_with_the_same_path_are_equal_however_it_was_built() {
    let said = roving::Error::custom("x").with_path("$[0].a");
    let built = roving::Error::custom("x")
        .prefix_path(".a")
        .prefix_path("[0]");
    assert_eq!(said, built);
    assert_ne!(said, roving::Error::custom("x").prefix_path("[0]"));
}

/// `n` nested one-element arrays around `leaf` (a sequence itself).
struct NestAround<'a>(usize, &'a [f64]);

impl Serialize for NestAround<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 == 0 {
            return self.1.serialize(s);
        }
        let mut seq = s.serialize_seq(Some(1))?;
        seq.serialize_element(&NestAround(self.0 - 1, self.1))?;
        seq.end()
    }
}

/// An array of floats only (written in one step, its array opened only
/// then) and an empty array count against the depth limit as any array:
/// at the limit they are written, one level deeper they are an error.
#[test]
fn arrays_of_floats_and_empty_arrays_count_against_the_depth_limit() {
    on_small_stack(|| {
        for leaf in [&[0.5, 0.1][..], &[]] {
            let bytes = roving::to_vec(&NestAround(99_999, leaf)).unwrap();
            let doc = roving::Document::open(&bytes).unwrap();
            let mut v = doc.root();
            let mut depth = 0;
            while let Some(a) = v.as_array() {
                depth += 1;
                match a.get(0) {
                    Some(inner) => v = inner,
                    None => break,
                }
            }
            assert_eq!(depth, 100_000, "{leaf:?}");
            let err = roving::to_vec(&NestAround(100_000, leaf)).unwrap_err();
            assert_eq!(*err.kind(), roving::ErrorKind::DepthLimit, "{leaf:?}");
        }
    });
}
