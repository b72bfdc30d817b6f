//! Big integers as decimal text (JSON in and out, serde's string form) stop
//! at `MAX_DECIMAL_DIGITS` digits: converting costs time that grows with the
//! square of the digits (a million digits took 0.7 s to read and 0.16 s to
//! write, ten million would take over a minute), so a hostile document or
//! JSON text could stall a converter. Past the limit the conversion is an
//! `Unsupported` error, found before any conversion work, as Python's `int`
//! does past its 4300 digits. Binary big integers have no such limit.

use num_bigint::BigInt;
use roving::json::{from_json, to_json};
use roving::read::MAX_DECIMAL_DIGITS;
use roving::{Document, Encoder, ErrorKind};

/// `10^n - 1`, the largest integer of `n` digits, and `10^n`, the smallest
/// of `n + 1`.
fn nines_and_power(n: usize) -> (BigInt, BigInt) {
    let p = BigInt::from(10u8).pow(n as u32);
    (&p - 1u8, p)
}

/// A document whose root is the big integer `v`.
fn doc_of(v: &BigInt) -> Vec<u8> {
    let mut e = Encoder::new();
    e.bigint(v).unwrap();
    e.finish().unwrap()
}

#[test]
fn the_limit_is_pythons() {
    assert_eq!(MAX_DECIMAL_DIGITS, 4300);
}

#[test]
fn json_integers_up_to_the_limit_round_trip_exactly() {
    for text in [
        "9".repeat(MAX_DECIMAL_DIGITS),
        format!("-{}", "9".repeat(MAX_DECIMAL_DIGITS)),
        format!("1{}", "0".repeat(MAX_DECIMAL_DIGITS - 1)),
    ] {
        let bytes = from_json(text.as_bytes()).unwrap();
        let doc = Document::open(&bytes).unwrap();
        assert_eq!(to_json(doc.root()).unwrap(), text);
    }
}

#[test]
fn json_integers_past_the_limit_are_refused() {
    for (text, at) in [
        ("1".repeat(MAX_DECIMAL_DIGITS + 1), 0),
        (format!("-{}", "7".repeat(MAX_DECIMAL_DIGITS + 1)), 0),
        (format!("[1, {}]", "2".repeat(1_000_000)), 4),
    ] {
        let e = from_json(text.as_bytes()).unwrap_err();
        assert_eq!(*e.kind(), ErrorKind::Unsupported, "{e}");
        assert_eq!(e.offset(), Some(at), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("4300"), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
    }
    // Floats have no such limit: their digits are read in linear time.
    let long_float = format!("1.{}", "1".repeat(100_000));
    assert!(from_json(long_float.as_bytes()).is_ok());
}

#[test]
fn big_integers_past_the_limit_are_not_written_as_json() {
    let (nines, power) = nines_and_power(MAX_DECIMAL_DIGITS);
    for (v, ok) in [
        (nines.clone(), true),
        (-nines, true),
        (power.clone(), false),
        (-power, false),
        // A magnitude of a megabyte (2.5 million digits).
        (
            BigInt::from_bytes_le(num_bigint::Sign::Plus, &[0xA5; 1 << 20]),
            false,
        ),
    ] {
        let bytes = doc_of(&v);
        let doc = Document::open(&bytes).unwrap();
        match to_json(doc.root()) {
            Ok(text) => {
                assert!(ok, "{} digits written", text.len());
                assert_eq!(text, v.to_string());
            }
            Err(e) => {
                assert!(!ok, "{e}");
                assert_eq!(*e.kind(), ErrorKind::Unsupported, "{e}");
                assert!(e.to_string().contains("4300"), "{e}");
            }
        }
    }
}

#[test]
fn serde_gives_big_integers_past_the_limit_no_decimal_string() {
    // Past 128 bits, `deserialize_any` visits a big integer as its decimal
    // string (what serde_json's `Value` takes for such a number).
    let (nines, power) = nines_and_power(MAX_DECIMAL_DIGITS);
    let v: serde_json::Value = roving::from_slice(&doc_of(&nines)).unwrap();
    assert_eq!(v, serde_json::Value::String(nines.to_string()));
    let e = roving::from_slice::<serde_json::Value>(&doc_of(&power)).unwrap_err();
    assert_eq!(*e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("4300"), "{e}");
}

#[test]
fn to_decimal_limited_agrees_with_the_digit_count() {
    // Around the boundary the bit length alone cannot tell: 10^4300 - 1 and
    // 10^4300 both have 14,285 bits.
    let (nines, power) = nines_and_power(MAX_DECIMAL_DIGITS);
    assert_eq!(nines.bits(), power.bits());
    for (v, ok) in [(&nines, true), (&power, false)] {
        let bytes = doc_of(v);
        let doc = Document::open(&bytes).unwrap();
        let Some(roving::Value::BigInt(b)) = Some(doc.root()) else {
            panic!("not a big integer");
        };
        assert_eq!(b.to_decimal_limited().is_some(), ok);
        if ok {
            assert_eq!(b.to_decimal_limited().unwrap(), b.to_decimal());
        }
    }
}
