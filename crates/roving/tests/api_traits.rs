//! The public types have the traits a user expects: `Send` and `Sync`
//! (documents, values and encoders move to and are shared between
//! threads), `Debug`, and `std::error::Error` for the error. A missing
//! one fails to compile. And they are small: an error is one word.

fn send_sync<T: Send + Sync>() {}
fn debug<T: std::fmt::Debug>() {}

#[test]
fn public_types_are_send_sync_and_debug() {
    send_sync::<roving::Document<'static>>();
    send_sync::<roving::Value<'static>>();
    send_sync::<roving::Array<'static>>();
    send_sync::<roving::Map<'static>>();
    send_sync::<roving::Vector<'static>>();
    send_sync::<roving::Encoder>();
    send_sync::<roving::Error>();
    send_sync::<roving::Timestamp>();
    send_sync::<roving::Mark>();
    send_sync::<roving::KeyId>();
    send_sync::<roving::KeyHandle>();
    send_sync::<roving::Limits>();
    send_sync::<roving::json::JsonOptions>();
    send_sync::<roving::serde::Serializer<'static>>();

    debug::<roving::Document<'static>>();
    debug::<roving::Value<'static>>();
    debug::<roving::Encoder>();
    debug::<roving::Mark>();
    debug::<roving::KeyId>();
    debug::<roving::KeyHandle>();
    debug::<roving::Limits>();
    debug::<roving::json::JsonOptions>();
    debug::<roving::read::ArrayIter<'static>>();
    debug::<roving::read::MapIter<'static>>();
    debug::<roving::read::MapValues<'static>>();
    debug::<roving::read::ArraySlots<'static>>();
    debug::<roving::read::MapSlots<'static>>();
    debug::<roving::read::BigInt<'static>>();
    debug::<roving::read::Ext<'static>>();
    debug::<roving::read::Scalar>();
    debug::<roving::read::VectorIter<'static>>();
    send_sync::<roving::read::VectorIter<'static>>();
    debug::<roving::read::PathSegment>();
    debug::<roving::ElemType>();
    debug::<roving::serde::Serializer<'static>>();
}

#[test]
fn the_error_is_a_std_error_that_crosses_threads() {
    fn std_error<T: std::error::Error + Send + Sync + 'static>() {}
    std_error::<roving::Error>();
    let boxed: Box<dyn std::error::Error + Send + Sync> =
        roving::validate(b"nope").unwrap_err().into();
    assert!(boxed.to_string().starts_with("not a roving document"));
}

/// Arrays and maps iterate by reference too (`for x in &array`), as
/// `Vec` and `HashMap` do: a loop over a borrowed container is the
/// habit, and `Array`/`Map` are `Copy` handles, so both forms yield the
/// same items.
#[test]
fn arrays_and_maps_iterate_by_reference() {
    let bytes = roving::json::from_json(br#"{"a":[1,2],"b":"x"}"#).unwrap();
    let doc = roving::Document::open(&bytes).unwrap();
    let map = doc.root().as_map().unwrap();
    let mut keys = Vec::new();
    for (k, _) in &map {
        keys.push(k);
    }
    assert_eq!(keys, ["a", "b"]);
    let arr = map.get("a").unwrap().as_array().unwrap();
    let mut ints = Vec::new();
    for v in &arr {
        ints.push(v.as_i64().unwrap());
    }
    assert_eq!(ints, [1, 2]);
}

/// `Error` is boxed so that a `Result<T, Error>` is the size of `T` and a
/// word; a `Value` is a few (four) words.
#[test]
fn errors_and_values_are_small() {
    use std::mem::size_of;
    let word = size_of::<usize>();
    assert_eq!(size_of::<roving::Error>(), word);
    assert_eq!(size_of::<roving::Result<()>>(), word);
    assert!(size_of::<roving::Result<u64>>() <= size_of::<u64>() + word);
    assert!(
        size_of::<roving::Value<'_>>() <= 4 * word,
        "{}",
        size_of::<roving::Value<'_>>()
    );
}
