//! `to_vec` holds back the floats of a sequence while all its elements are
//! floats, and writes an array of floats only in one step: the bytes must
//! be those of writing each element with the `Encoder` as it comes, for
//! every mix of floats and other values, nesting, `Option`s and newtypes.

use proptest::prelude::*;
use roving::Encoder;
use serde::Serialize;

/// A newtype around a float (serialized as the float).
#[derive(Clone, Debug, Serialize)]
struct Meters(f64);

/// A tuple struct of two floats.
#[derive(Clone, Debug, Serialize)]
struct Point(f64, f32);

/// A value whose sequences mix floats with other elements.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
enum Item {
    F64(f64),
    F32(f32),
    Opt(Option<f64>),
    Meters(Meters),
    Int(i64),
    Str(String),
    List(Vec<Item>),
    Pair((f64, f64)),
    Point(Point),
    Map { x: f64, rest: Vec<Item> },
}

/// The bytes of `item` written element by element with the `Encoder`.
fn write(e: &mut Encoder, item: &Item) {
    match item {
        Item::F64(v) | Item::Meters(Meters(v)) => e.f64(*v).unwrap(),
        Item::F32(v) => e.f64(f64::from(*v)).unwrap(),
        Item::Opt(Some(v)) => e.f64(*v).unwrap(),
        Item::Opt(None) => e.null().unwrap(),
        Item::Int(v) => e.i64(*v).unwrap(),
        Item::Str(s) => e.str(s).unwrap(),
        Item::List(xs) => {
            e.begin_array().unwrap();
            for x in xs {
                write(e, x);
            }
            e.end_array().unwrap();
        }
        Item::Pair((a, b)) => {
            e.begin_array().unwrap();
            e.f64(*a).unwrap();
            e.f64(*b).unwrap();
            e.end_array().unwrap();
        }
        Item::Point(Point(a, b)) => {
            e.begin_array().unwrap();
            e.f64(*a).unwrap();
            e.f64(f64::from(*b)).unwrap();
            e.end_array().unwrap();
        }
        Item::Map { x, rest } => {
            e.begin_map().unwrap();
            e.key("x").unwrap();
            e.f64(*x).unwrap();
            e.key("rest").unwrap();
            write(e, &Item::List(rest.clone()));
            e.end_map().unwrap();
        }
    }
}

/// Floats of every kind the encoder tells apart: binary32-exact, short
/// decimals, full binary64, zeros of both signs, infinities and NaNs.
fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-1000i32..1000).prop_map(|v| f64::from(v) / 4.0),
        (-1_000_000i64..1_000_000).prop_map(|v| v as f64 / 1000.0),
        any::<f64>(),
        Just(0.0),
        Just(-0.0),
        Just(f64::INFINITY),
        Just(f64::NAN),
        Just(-65.613_616_943_359_38),
    ]
}

fn item() -> impl Strategy<Value = Item> {
    let leaf = prop_oneof![
        6 => float().prop_map(Item::F64),
        1 => any::<f32>().prop_map(Item::F32),
        1 => proptest::option::of(float()).prop_map(Item::Opt),
        1 => float().prop_map(|v| Item::Meters(Meters(v))),
        1 => (-100i64..100_000).prop_map(Item::Int),
        1 => "[a-z]{0,3}".prop_map(Item::Str),
        2 => (float(), float()).prop_map(Item::Pair),
        1 => (float(), any::<f32>()).prop_map(|(a, b)| Item::Point(Point(a, b))),
    ];
    leaf.prop_recursive(4, 64, 10, |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 0..10).prop_map(Item::List),
            // Mostly floats, a few other values among them.
            3 => prop::collection::vec(
                prop_oneof![8 => float().prop_map(Item::F64), 1 => inner.clone()],
                0..12
            )
            .prop_map(Item::List),
            1 => (float(), prop::collection::vec(inner, 0..4))
                .prop_map(|(x, rest)| Item::Map { x, rest }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `to_vec` writes the bytes of writing each element as it comes.
    #[test]
    fn float_runs_write_the_bytes_of_each_element(items in prop::collection::vec(item(), 0..6)) {
        let value = Item::List(items);
        let mut e = Encoder::new();
        write(&mut e, &value);
        let expected = e.finish().unwrap();
        prop_assert_eq!(roving::to_vec(&value).unwrap(), expected.clone());
        // Twice in a row on one thread (the held-back floats are per call).
        prop_assert_eq!(roving::to_vec(&value).unwrap(), expected);
    }
}

/// A sequence of floats that fails part-way leaves nothing behind for the
/// next document.
#[test]
fn an_error_in_a_run_leaves_no_floats_behind() {
    struct Fails;
    impl Serialize for Fails {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no"))
        }
    }
    #[derive(Serialize)]
    struct Doc(Vec<f64>, Fails);
    assert!(roving::to_vec(&vec![vec![1.5, 2.5], vec![3.5]]).is_ok());
    assert!(roving::to_vec(&Doc(vec![1.5, 2.5], Fails)).is_err());
    #[derive(Serialize)]
    #[serde(untagged)]
    enum E {
        F(f64),
        X(Fails),
    }
    assert!(roving::to_vec(&vec![E::F(1.5), E::X(Fails)]).is_err());
    let after = roving::to_vec(&vec![0.25, 0.5]).unwrap();
    let mut e = Encoder::new();
    e.array_f64(&[0.25, 0.5]).unwrap();
    assert_eq!(after, e.finish().unwrap());
}
