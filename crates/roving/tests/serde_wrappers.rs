//! Types that wrap themselves without a container in between
//! (`struct W(Option<Box<W>>)`, `struct N(Box<N>)`): deserializing one
//! from anything but `null` recurses through `Option` and newtype levels
//! that consume no input. That must stop with `DepthLimit`, not grow the
//! stack (or stack segments) without bound. Each test runs on a 256 KiB
//! stack, so that a regression overflows it at once.

mod common;
use common::on_small_stack;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct W(Option<Box<W>>);

#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct N(Box<N>);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(transparent)]
struct T(Option<Box<T>>);

fn depth_limit<V: std::fmt::Debug>(r: roving::Result<V>) {
    let err = r.unwrap_err();
    assert_eq!(*err.kind(), roving::ErrorKind::DepthLimit, "{err}");
    assert!(
        err.to_string().starts_with(
            "nesting depth limit exceeded: more than 256 Option::Some and newtype levels in a row"
        ),
        "{err}"
    );
}

#[test]
fn self_wrapping_types_stop_at_the_depth_limit() {
    on_small_stack(|| {
        for json in [r#"1"#, r#""x""#, r#"[1]"#, r#"{"a":1}"#, r#"[[[]]]"#] {
            let bytes = roving::json::from_json(json.as_bytes()).unwrap();
            depth_limit(roving::from_slice::<W>(&bytes));
            depth_limit(roving::from_slice::<N>(&bytes));
            depth_limit(roving::from_slice::<T>(&bytes));
            // As array elements and map values (the slot fast paths).
            let arr = roving::to_vec(&vec![
                serde_json::from_str::<serde_json::Value>(json).unwrap()
            ])
            .unwrap();
            depth_limit(roving::from_slice::<Vec<W>>(&arr));
            depth_limit(roving::from_slice::<Vec<N>>(&arr));
            depth_limit(roving::from_slice::<Vec<T>>(&arr));
            // With no limits at all, still a clean error.
            let doc = roving::Document::open(&bytes).unwrap();
            depth_limit(roving::serde::from_value_with::<W>(
                doc.root(),
                roving::Limits::none(),
            ));
        }
        // Map keys.
        let bytes = roving::json::from_json(br#"{"k":1}"#).unwrap();
        depth_limit(roving::from_slice::<BTreeMap<W, i32>>(&bytes));
        depth_limit(roving::from_slice::<BTreeMap<N, i32>>(&bytes));
    });
}

#[test]
fn finite_wrapping_still_round_trips() {
    on_small_stack(|| {
        // `null` ends the recursion at once (as in serde_json, `W(Some(W(None)))`
        // is written as null too).
        let bytes = roving::to_vec(&W(Some(Box::new(W(None))))).unwrap();
        assert_eq!(roving::from_slice::<W>(&bytes).unwrap(), W(None));
        // Many Option and newtype levels around each container are fine.
        #[derive(Serialize, Deserialize, Debug, PartialEq)]
        struct Node {
            next: Option<Box<Wrap>>,
        }
        #[derive(Serialize, Deserialize, Debug, PartialEq)]
        struct Wrap(Option<Option<Node>>);
        let mut node = Node { next: None };
        for _ in 0..200 {
            node = Node {
                next: Some(Box::new(Wrap(Some(Some(node))))),
            };
        }
        let bytes = roving::to_vec(&node).unwrap();
        assert_eq!(roving::from_slice::<Node>(&bytes).unwrap(), node);
    });
}
