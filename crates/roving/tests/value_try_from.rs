//! `TryFrom<Value>` for the plain types a field is read as, so that a
//! function returning `roving::Result` reads `let name: &str =
//! v.try_into()?;` and gets a `TypeMismatch` error that names both kinds
//! instead of an `Option` to turn into an error by hand.

use roving::{Array, Document, ErrorKind, Map, Timestamp, Value, Vector};

fn person(v: Value<'_>) -> roving::Result<(&str, i64, f64, bool)> {
    let m: Map = v.try_into()?;
    let field = |k: &str| {
        m.get(k)
            .ok_or_else(|| roving::Error::custom(format!("no field {k:?}")))
    };
    Ok((
        field("name")?.try_into()?,
        field("age")?.try_into()?,
        field("score")?.try_into()?,
        field("admin")?.try_into()?,
    ))
}

#[test]
fn fields_convert_with_question_mark() {
    let bytes = roving::json::from_json(
        br#"[{"name":"Ada","age":36,"score":9.5,"admin":true},{"name":7,"age":1,"score":1,"admin":false}]"#,
    )
    .unwrap();
    let doc = Document::open(&bytes).unwrap();
    let a: Array = doc.root().try_into().unwrap();
    assert_eq!(person(a.get(0).unwrap()).unwrap(), ("Ada", 36, 9.5, true));
    let err = person(a.get(1).unwrap()).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::TypeMismatch);
    assert_eq!(err.to_string(), "invalid type: int, expected str");
    let err = <&str>::try_from(doc.root()).unwrap_err();
    assert_eq!(err.to_string(), "invalid type: array, expected str");
}

#[test]
fn every_plain_type_converts() {
    let t = Timestamp::new(5, 6, None).unwrap();
    let mut e = roving::Encoder::new();
    e.begin_array().unwrap();
    e.bytes(b"xy").unwrap();
    e.u64(u64::MAX).unwrap();
    e.i128(i128::MIN).unwrap();
    e.timestamp(t).unwrap();
    e.vector(&[1u8, 2]).unwrap();
    e.i64(-3).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    let at = |i: usize| doc.root().index(i).unwrap();
    assert_eq!(<&[u8]>::try_from(at(0)).unwrap(), b"xy");
    assert_eq!(u64::try_from(at(1)).unwrap(), u64::MAX);
    assert!(i64::try_from(at(1)).is_err());
    assert_eq!(i128::try_from(at(2)).unwrap(), i128::MIN);
    assert!(u128::try_from(at(2)).is_err());
    assert_eq!(Timestamp::try_from(at(3)).unwrap(), t);
    assert_eq!(Vector::try_from(at(4)).unwrap().len(), 2);
    assert_eq!(i64::try_from(at(5)).unwrap(), -3);
    assert_eq!(f64::try_from(at(5)).unwrap(), -3.0);
    assert!(u64::try_from(at(5)).is_err());
    assert_eq!(u128::try_from(at(1)).unwrap(), u64::MAX as u128);
    let e = u64::try_from(at(5)).unwrap_err();
    assert_eq!(e.to_string(), "invalid value: -3, out of the range of u64");
}
