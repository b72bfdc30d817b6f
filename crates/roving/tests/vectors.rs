//! Golden vectors: tests/vectors/*.json at the repository root.
//!
//! Each file is one case: a value in the neutral notation with its exact
//! encoding, or bytes that must be rejected with a given error kind.
//! `ROVING_WRITE_VECTORS=1 cargo test --test vectors` regenerates them
//! from the definitions below; without it the test checks every file
//! against the implementation (encode gives exactly the hex, decoding the
//! hex gives the value, rejected bytes fail with the kind named).

mod common;

use common::neutral::{encode_doc, expand, from_value, normalize, to_hex, unhex};
use serde_json::{json, Value as J};
use std::collections::HashMap;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

fn int(s: impl ToString) -> J {
    json!({ "int": s.to_string() })
}

fn float(f: f64) -> J {
    json!({ "float": format!("{:016x}", f.to_bits()) })
}

fn map(kvs: &[(&str, J)]) -> J {
    json!({ "map": kvs.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>() })
}

fn vector(elem: &str, data: &[u8]) -> J {
    json!({ "vector": elem, "data": to_hex(data) })
}

fn shaped(elem: &str, shape: &[usize], data: &[u8]) -> J {
    json!({ "vector": elem, "shape": shape, "data": to_hex(data) })
}

/// Shaped vectors (record `23`, version 2): valid cases.
fn shaped_vector_cases() -> Vec<(&'static str, &'static str, J)> {
    let f64s = |xs: &[f64]| xs.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    vec![
        (
            "shaped_vector_f64",
            "a 2 x 3 f64 shaped vector (version 2); its data starts at offset 8, no padding",
            shaped("f64", &[2, 3], &f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
        ),
        (
            "shaped_vector_u16_3d",
            "a 2 x 1 x 2 u16 shaped vector, one byte of padding",
            shaped("u16", &[2, 1, 2], &[1, 0, 2, 0, 3, 0, 4, 0]),
        ),
        (
            "shaped_vector_i8",
            "a 2 x 2 i8 shaped vector, no padding",
            shaped("i8", &[2, 2], &[0xff, 0x00, 0x7f, 0x80]),
        ),
        (
            "shaped_vector_empty",
            "a 0 x 3 f32 shaped vector: no elements, padding still",
            shaped("f32", &[0, 3], &[]),
        ),
        (
            "shaped_vector_empty_rows",
            "a 4096 x 0 x 7 u8 shaped vector: no elements, the most rows allowed",
            shaped("u8", &[4096, 0, 7], &[]),
        ),
        (
            "shaped_vector_in_array",
            "an i32 shaped vector after a u8 vector in an array",
            json!([
                vector("u8", &[9]),
                shaped("i32", &[1, 2], &[1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff])
            ]),
        ),
    ]
}

/// Shaped vectors: bytes that must be rejected (name, description, hex,
/// kind), made by damaging a valid one:
/// `52 56 02 | 23 03 03 02 01 02 | 00 | 01 00 02 00 03 00 04 00 | 1c 3c 1c`
/// (a 2 x 1 x 2 u16 shaped vector, one byte of padding at offset 9).
fn shaped_vector_rejects() -> Vec<(&'static str, &'static str, String, &'static str)> {
    let good = encode_doc(&shaped("u16", &[2, 1, 2], &[1, 0, 2, 0, 3, 0, 4, 0]));
    assert_eq!(to_hex(&good[..10]), "52560223030302010200");
    let damaged = |at: usize, byte: u8| {
        let mut b = good.clone();
        b[at] = byte;
        to_hex(&b)
    };
    vec![
        (
            "shaped_vector_in_v1",
            "a shaped vector (a version 2 record) in a version 1 document",
            damaged(2, 1),
            "UnknownTag",
        ),
        (
            "shaped_vector_ndim_1",
            "a shaped vector of 1 dimension",
            damaged(5, 1),
            "NonCanonical",
        ),
        (
            "shaped_vector_ndim_0",
            "a shaped vector of 0 dimensions",
            damaged(5, 0),
            "NonCanonical",
        ),
        (
            "shaped_vector_padding",
            "non-zero padding before a shaped vector's data",
            damaged(9, 1),
            "NonCanonical",
        ),
        (
            "shaped_vector_elem_type",
            "element type 10 is not defined",
            damaged(4, 10),
            "UnknownTag",
        ),
        (
            "shaped_vector_truncated",
            "a shaped vector whose data runs past the end (2 x 5 x 2)",
            damaged(6, 5),
            "Truncated",
        ),
        (
            "shaped_vector_overflow",
            "an i8 shaped vector of 2^62 x 2^62 elements: the product overflows",
            "525602 2300 02 808080808080808040 808080808080808040 1c541c".replace(' ', ""),
            "BadLength",
        ),
        (
            "shaped_vector_empty_rows",
            "a 4097 x 0 u8 shaped vector: no elements, one row too many",
            "525602 2301 02 8120 00 1c1c1c".replace(' ', ""),
            "BadLength",
        ),
        (
            "shaped_vector_empty_bomb",
            "a 2000000 x 248 x 0 x 3 u16 shaped vector: 4 bytes of shape for \
             496 million empty arrays (a fuzz finding)",
            "525602 2303 04 80897a f801 00 03 00 1c2c1c".replace(' ', ""),
            "BadLength",
        ),
    ]
}

/// Floats whose JSON text shows where section 17.2 switches between plain
/// and exponent notation, and how exponents are written.
const JSON_FLOATS: [f64; 24] = [
    0.0,
    -0.0,
    1.0,
    100.0,
    0.1,
    123.456,
    1e15,
    1e16,
    -1e16,
    123_456_789_012_345.67,
    9_007_199_254_740_993.0,
    1.234_567_890_123_456_7e16,
    1e21,
    1.5e300,
    f64::MAX,
    1e-4,
    1e-5,
    1.2345e-5,
    1e-6,
    1.5e-7,
    -2.5e-10,
    5e-324,
    f64::NAN,
    f64::INFINITY,
];

/// Nine keys of which "i" (key 7) and "y" (key 8) both have home 15 in a
/// 16-entry index, and "e" (key 4) and "f" (key 5) both home 6: inserted in
/// order, "y" wraps around to entry 0 and "f" goes to entry 7.
fn wrap_keys() -> Vec<(&'static str, J)> {
    ["a", "b", "c", "d", "e", "f", "g", "i", "y"]
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, int(i)))
        .collect()
}

/// Where the 16-entry index of the `wrap_keys` map starts in its document:
/// header, nine 2-byte key strings, shape tag, count, nine 1-byte key slots.
const WRAP_INDEX: usize = 3 + 9 * 2 + 2 + 9;

/// The `wrap_keys` map with its index entries changed by `f`.
fn wrap_doc(f: impl FnOnce(&mut [u8])) -> String {
    let mut doc = encode_doc(&map(&wrap_keys()));
    assert_eq!(doc[WRAP_INDEX - 11], 0x18, "test layout assumption");
    f(&mut doc[WRAP_INDEX..WRAP_INDEX + 16]);
    to_hex(&doc)
}

/// A well-known extension value (FORMAT.md section 13.1): name,
/// description, type id, payload hex, "ext_text" or "ext_error", text.
type ExtCase = (
    &'static str,
    &'static str,
    u64,
    &'static str,
    &'static str,
    &'static str,
);

/// The vectors of the well-known extension types, valid documents all.
fn ext_cases() -> Vec<ExtCase> {
    vec![
        (
            "ext_date",
            "EXT_DATE 2024-05-01: 19,844 days, i32 LE",
            1,
            "844d0000",
            "ext_text",
            "2024-05-01",
        ),
        (
            "ext_date_first",
            "EXT_DATE 0001-01-01: -719,162 days",
            1,
            "c606f5ff",
            "ext_text",
            "0001-01-01",
        ),
        (
            "ext_date_last",
            "EXT_DATE 9999-12-31: 2,932,896 days",
            1,
            "a0c02c00",
            "ext_text",
            "9999-12-31",
        ),
        (
            "ext_date_out_of_range",
            "EXT_DATE 10000-01-01: past year 9999",
            1,
            "a1c02c00",
            "ext_error",
            "date outside years 1 to 9999",
        ),
        (
            "ext_date_length",
            "EXT_DATE with 2 bytes instead of 4",
            1,
            "cafe",
            "ext_error",
            "not 4 bytes",
        ),
        (
            "ext_uuid",
            "EXT_UUID: the 16 bytes in RFC 4122 order",
            2,
            "12345678123456789abcdef012345678",
            "ext_text",
            "12345678-1234-5678-9abc-def012345678",
        ),
        (
            "ext_uuid_length",
            "EXT_UUID with 15 bytes",
            2,
            "12345678123456789abcdef0123456",
            "ext_error",
            "not 16 bytes",
        ),
        (
            "ext_decimal",
            "EXT_DECIMAL: the ASCII text -1.50",
            3,
            "2d312e3530",
            "ext_text",
            "-1.50",
        ),
        (
            "ext_decimal_exponent",
            "EXT_DECIMAL: 1E+3 (to-scientific-string form)",
            3,
            "31452b33",
            "ext_text",
            "1E+3",
        ),
        (
            "ext_decimal_nan",
            "EXT_DECIMAL: NaN",
            3,
            "4e614e",
            "ext_text",
            "NaN",
        ),
        (
            "ext_decimal_empty",
            "EXT_DECIMAL with no text",
            3,
            "",
            "ext_error",
            "empty",
        ),
        (
            "ext_decimal_space",
            "EXT_DECIMAL with a space",
            3,
            "312e3520",
            "ext_error",
            "not printable ASCII without spaces",
        ),
        (
            "ext_decimal_syntax",
            "EXT_DECIMAL text that is not a number",
            3,
            "312e352e36",
            "ext_error",
            "not a decimal number",
        ),
        (
            "ext_time",
            "EXT_TIME 13:45:30.25, naive, fold 0",
            4,
            "10a33b880b00000000",
            "ext_text",
            "13:45:30.250000",
        ),
        (
            "ext_time_aware",
            "EXT_TIME 13:45:30.25+02:00, fold 1",
            4,
            "10a33b880b00000001004827ad01000000",
            "ext_text",
            "13:45:30.250000+02:00",
        ),
        (
            "ext_time_midnight_end",
            "EXT_TIME of 86,400,000,000 microseconds",
            4,
            "0060d71d1400000000",
            "ext_error",
            "a day or more",
        ),
        (
            "ext_time_fold",
            "EXT_TIME with fold 2",
            4,
            "000000000000000002",
            "ext_error",
            "fold not 0 or 1",
        ),
        (
            "ext_time_length",
            "EXT_TIME of 10 bytes",
            4,
            "00000000000000000000",
            "ext_error",
            "not 9 or 17 bytes",
        ),
        (
            "ext_time_offset",
            "EXT_TIME with a UTC offset of one day",
            4,
            "0000000000000000000060d71d14000000",
            "ext_error",
            "offset of a day or more",
        ),
        (
            "ext_timedelta",
            "EXT_TIMEDELTA 1 day 1 hour 1 minute 1.5 seconds",
            5,
            "cd5f01000000000020a10700",
            "ext_text",
            "P1DT3661.5S",
        ),
        (
            "ext_timedelta_negative",
            "EXT_TIMEDELTA of -1 microsecond: seconds -1, 999,999 us",
            5,
            "ffffffffffffffff3f420f00",
            "ext_text",
            "-PT0.000001S",
        ),
        (
            "ext_timedelta_micros",
            "EXT_TIMEDELTA with 1,000,000 microseconds",
            5,
            "000000000000000040420f00",
            "ext_error",
            "microseconds of a second or more",
        ),
        (
            "ext_timedelta_range",
            "EXT_TIMEDELTA past 999,999,999 days",
            5,
            "00004f91944e000000000000",
            "ext_error",
            "outside the range",
        ),
    ]
}

/// Valid values: (name, description, value).
fn valid_cases() -> Vec<(&'static str, &'static str, J)> {
    let long = |n: usize| "x".repeat(n);
    let nine: Vec<(String, J)> = (0..9).map(|i| (format!("k{i}"), int(i))).collect();
    let nine_ref: Vec<(&str, J)> = nine.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let many: Vec<(String, J)> = (0..300).map(|i| (format!("key{i}"), J::Null)).collect();
    let many_ref: Vec<(&str, J)> = many.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let keys_254: Vec<(String, J)> = (0..254).map(|i| (format!("k{i}"), J::Null)).collect();
    let keys_254: Vec<(&str, J)> = keys_254
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    let keys_255: Vec<(String, J)> = (0..255).map(|i| (format!("k{i}"), J::Null)).collect();
    let keys_255: Vec<(&str, J)> = keys_255
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    vec![
        (
            "null",
            "null root: a root record with an immediate special",
            J::Null,
        ),
        ("true", "boolean true", J::Bool(true)),
        ("false", "boolean false", J::Bool(false)),
        ("int_zero", "0 as an inline int", int(0)),
        (
            "int_w1_max",
            "31: largest inline int of a 1-byte slot",
            int(31),
        ),
        (
            "int_w1_min",
            "-32: smallest inline int of a 1-byte slot",
            int(-32),
        ),
        ("int_w2", "32 needs a 2-byte slot", int(32)),
        (
            "int_w2_max",
            "8191: largest inline int of a 2-byte slot",
            int(8191),
        ),
        ("int_w2_min", "-8192", int(-8192)),
        ("int_w4", "8192 needs a 4-byte slot", int(8192)),
        ("int_w4_max", "2^29 - 1", int((1i64 << 29) - 1)),
        ("int_w8", "2^29 needs an 8-byte slot", int(1i64 << 29)),
        (
            "int_w8_max",
            "2^61 - 1: largest inline int",
            int((1i64 << 61) - 1),
        ),
        (
            "int_record_i64",
            "2^61 is written as an I64 record",
            int(1i64 << 61),
        ),
        (
            "int_record_min",
            "-2^61 - 1 as an I64 record",
            int(-(1i64 << 61) - 1),
        ),
        ("int_i64_max", "i64::MAX", int(i64::MAX)),
        ("int_i64_min", "i64::MIN", int(i64::MIN)),
        ("int_u64", "2^63 needs a U64 record", int(1u64 << 63)),
        ("int_u64_max", "u64::MAX", int(u64::MAX)),
        (
            "bigint_pos",
            "2^64: the smallest positive big integer",
            int("18446744073709551616"),
        ),
        (
            "bigint_neg",
            "-2^63 - 1: the largest negative big integer",
            int("-9223372036854775809"),
        ),
        (
            "bigint_huge",
            "a 40-digit integer",
            int("-1234567890123456789012345678901234567890"),
        ),
        ("float_zero", "0.0 as an F32 record", float(0.0)),
        ("float_neg_zero", "-0.0 keeps its sign", float(-0.0)),
        ("float_f32", "1.5 is exact in binary32", float(1.5)),
        ("float_dec", "0.1 as a decimal float", float(0.1)),
        (
            "float_dec_coord",
            "40.941286 as a decimal float",
            float(40.941286),
        ),
        ("float_f64", "1e300 as an F64 record", float(1e300)),
        (
            "float_dec_whole",
            "3e10: a whole number as a decimal float (m = 3, e = 10)",
            float(3e10),
        ),
        (
            "float_dec_millis",
            "1714559400000.0 (milliseconds) as a decimal float",
            float(1714559400000.0),
        ),
        (
            "float_dec_neg",
            "-21.152958 as a decimal float",
            float(-21.152958),
        ),
        (
            "float_pi",
            "pi needs all 64 bits",
            float(std::f64::consts::PI),
        ),
        ("float_nan", "the default quiet NaN", float(f64::NAN)),
        (
            "float_nan_payload",
            "a NaN payload survives",
            float(f64::from_bits(0x7ff8_0000_dead_beef)),
        ),
        ("float_inf", "+infinity", float(f64::INFINITY)),
        ("float_neg_inf", "-infinity", float(f64::NEG_INFINITY)),
        ("float_min_subnormal", "5e-324", float(5e-324)),
        (
            "float_f32_subnormal",
            "2^-149, the smallest binary32 subnormal, as an F32 record",
            float(f64::from_bits(0x36a0_0000_0000_0000)),
        ),
        (
            "float_snan",
            "a signalling NaN keeps its bits (an F64 record: binary32 would quiet it)",
            float(f64::from_bits(0x7ff0_0000_2000_0000)),
        ),
        ("float_max", "f64::MAX", float(f64::MAX)),
        ("str_empty", "the empty string is an immediate", json!("")),
        ("str_a", "a one-byte string", json!("a")),
        (
            "str_63",
            "63 bytes: the longest short string",
            json!(long(63)),
        ),
        (
            "str_64",
            "64 bytes: a STR record with a varint length",
            json!(long(64)),
        ),
        (
            "str_200",
            "200 bytes: two-byte varint length",
            json!(long(200)),
        ),
        (
            "str_unicode",
            "multi-byte UTF-8",
            json!("h\u{e9}llo \u{2713} \u{1d11e}"),
        ),
        (
            "bytes_empty",
            "an empty byte string",
            json!({ "bytes": "" }),
        ),
        ("bytes_3", "three bytes", json!({ "bytes": "00ff10" })),
        ("array_empty", "the empty array is an immediate", json!([])),
        (
            "array_ints",
            "[1, 2, 3]: only ints, a number array of i8 (version 2)",
            json!([int(1), int(2), int(3)]),
        ),
        (
            "array_ints_slots",
            "[1, 2, 3, null]: inline ints in 1-byte slots",
            json!([int(1), int(2), int(3), J::Null]),
        ),
        (
            "array_mixed",
            "mixed values",
            json!([int(1), "a", J::Null, J::Bool(true), float(2.5)]),
        ),
        ("array_nested", "[[[]]]", json!([[[]]])),
        (
            "array_dedup",
            "the same string twice is stored once",
            json!(["same", "same"]),
        ),
        (
            "array_wide_int",
            "one large int makes a number array of i32 (version 2)",
            json!([int(1), int(100_000), int(2)]),
        ),
        (
            "array_wide_int_slots",
            "with a null too: one large int widens the slots or gets its own record",
            json!([int(1), int(100_000), int(2), J::Null]),
        ),
        (
            "array_70",
            "70 ints: a number array of i8 (version 2)",
            J::Array((0..70).map(int).collect()),
        ),
        (
            "array_70_slots",
            "70 elements, 69 ints and a null: 2-byte slots",
            J::Array((0..69).map(int).chain([J::Null]).collect()),
        ),
        (
            "numbers_i8",
            "ints in -128..=127: a number array of i8 (30)",
            json!([int(-128), int(0), int(127)]),
        ),
        (
            "numbers_u8",
            "ints in 0..=255: u8 (31)",
            json!([int(0), int(128), int(255)]),
        ),
        (
            "numbers_i16",
            "ints in i16: i16 (32)",
            json!([int(-1), int(128), int(-32768), int(32767)]),
        ),
        (
            "numbers_u16",
            "ints in 0..=65535: u16 (33)",
            json!([int(40_000), int(65_535)]),
        ),
        (
            "numbers_i32",
            "ints in i32: i32 (34)",
            json!([int(-1), int(65_536), int(i32::MIN)]),
        ),
        (
            "numbers_u32",
            "ints in 0..=2^32-1: u32 (35)",
            json!([int(u32::MAX), int(7)]),
        ),
        (
            "numbers_i64",
            "ints in i64: i64 (36); inline and record elements alike",
            json!([int(i64::MIN), int(-1), int(1u64 << 62), int(i64::MAX)]),
        ),
        (
            "numbers_u64",
            "ints in 0..=2^64-1, one above 2^63-1: u64 (37)",
            json!([int(0), int(u64::MAX), int(1u64 << 63)]),
        ),
        (
            "numbers_u64_negative",
            "a negative int and one above 2^63-1: no element type holds both, slots",
            json!([int(-1), int(1u64 << 63)]),
        ),
        (
            "numbers_bigint",
            "an int beyond 64 bits: slots",
            json!([int(1), int("18446744073709551616")]),
        ),
        (
            "numbers_f32",
            "floats exact as binary32 (-0.0, inf and NaN too): f32 (38)",
            json!([
                float(1.5),
                float(-0.0),
                float(f64::INFINITY),
                float(f64::NAN)
            ]),
        ),
        (
            "numbers_f64",
            "a float that needs binary64: f64 (39)",
            json!([float(0.1), float(std::f64::consts::PI)]),
        ),
        (
            "numbers_f64_negative_zero",
            "a short decimal and -0.0, which has no decimal form: f64",
            json!([float(0.1), float(-0.0)]),
        ),
        (
            "numbers_decimal",
            "short decimals at one exponent, the smallest: decimal (3A), e = -2",
            json!([
                float(0.1),
                float(2.25),
                float(0.0),
                float(100.0),
                float(-45.5)
            ]),
        ),
        (
            "numbers_decimal_coordinates",
            "coordinates of 6 decimals: decimal, e = -6",
            json!([float(-45.848157), float(12.5), float(170.000001)]),
        ),
        (
            "numbers_decimal_wide",
            "a mantissa beyond i32 at the common exponent: f64",
            json!([float(3e10), float(0.1)]),
        ),
        (
            "numbers_decimal_positive_exponent",
            "3e10 and 5e10: decimal, e = 10",
            json!([float(3e10), float(5e10)]),
        ),
        (
            "numbers_mixed",
            "an int and a float: slots",
            json!([int(1), float(1.5)]),
        ),
        (
            "numbers_nested",
            "number arrays inside an array of slots",
            json!([[int(1), int(2)], [float(0.5)], [float(0.1)]]),
        ),
        (
            "numbers_shared",
            "one number array referenced twice",
            json!([{ "share": "n", "value": [int(300), int(-2)] }, { "again": "n" }]),
        ),
        (
            "map_empty",
            "the empty map is an immediate",
            json!({ "map": [] }),
        ),
        ("map_one", "{\"a\": 1}", map(&[("a", int(1))])),
        (
            "map_order",
            "insertion order is kept: b before a",
            map(&[("b", int(1)), ("a", int(2))]),
        ),
        ("map_empty_key", "the empty key", map(&[("", int(0))])),
        (
            "map_nine",
            "nine keys: the shape carries a hash index",
            map(&nine_ref),
        ),
        (
            "map_300",
            "300 keys: index entries are two bytes wide",
            map(&many_ref),
        ),
        (
            "map_254",
            "254 keys: the most with 1-byte index entries (n < 255)",
            map(&keys_254),
        ),
        (
            "map_255",
            "255 keys: 2-byte index entries, although 255 fits in a byte (n < 255 fails)",
            map(&keys_255),
        ),
        (
            "map_index_wrap",
            "9 keys; \"i\" and \"y\" both have home 15 of 16: \"y\" wraps around to entry 0",
            map(&wrap_keys()),
        ),
        (
            "map_shared_shape",
            "two maps with the same keys share one shape",
            json!([
                map(&[("id", int(1)), ("n", json!("x"))]),
                map(&[("id", int(2)), ("n", json!("y"))])
            ]),
        ),
        (
            "map_nested",
            "a map inside a map",
            map(&[
                ("inner", map(&[("k", json!("v"))])),
                ("list", json!([int(1)])),
            ]),
        ),
        (
            "timestamp_epoch",
            "1970-01-01T00:00:00, no offset",
            json!({ "timestamp": { "seconds": "0", "nanos": 0, "offset": null } }),
        ),
        (
            "timestamp_offset",
            "with a +01:00 offset and nanoseconds",
            json!({ "timestamp": { "seconds": "1700000000", "nanos": 123456789, "offset": 3600 } }),
        ),
        (
            "timestamp_negative",
            "before the epoch, negative offset",
            json!({ "timestamp": { "seconds": "-1", "nanos": 999999999, "offset": -1800 } }),
        ),
        ("vector_i8", "i8 vector", vector("i8", &[0x01, 0xff, 0x7f])),
        ("vector_u8", "u8 vector", vector("u8", &[0, 1, 255])),
        (
            "vector_i16",
            "i16 vector (2-byte aligned)",
            vector("i16", &[1, 0, 0xff, 0xff]),
        ),
        ("vector_u16", "u16 vector", vector("u16", &[0xff, 0xff])),
        (
            "vector_i32",
            "i32 vector",
            vector("i32", &[1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]),
        ),
        ("vector_u32", "u32 vector", vector("u32", &[7, 0, 0, 0])),
        (
            "vector_i64",
            "i64 vector (8-byte aligned)",
            vector("i64", &(-5i64).to_le_bytes()),
        ),
        (
            "vector_u64",
            "u64 vector",
            vector("u64", &u64::MAX.to_le_bytes()),
        ),
        (
            "vector_f32",
            "f32 vector",
            vector("f32", &1.5f32.to_le_bytes()),
        ),
        (
            "vector_f64",
            "f64 vector",
            vector(
                "f64",
                &[1.0f64.to_le_bytes(), 2.5f64.to_le_bytes()].concat(),
            ),
        ),
        ("vector_empty", "an empty f64 vector", vector("f64", &[])),
        (
            "ext",
            "extension type 64 (the first id left to applications) with bytes",
            json!({ "ext": 64, "data": "cafe" }),
        ),
        (
            "ext_big_id",
            "extension type 2^40, no bytes",
            json!({ "ext": 1u64 << 40, "data": "" }),
        ),
        (
            "float_json_forms",
            "floats at the boundaries of plain and exponent notation in JSON (section 17.2)",
            J::Array(JSON_FLOATS.iter().map(|&f| float(f)).collect()),
        ),
        (
            "float_json_forms_records",
            "float_json_forms and a null: each float in its own record (08, 09, 20)",
            J::Array(
                JSON_FLOATS
                    .iter()
                    .map(|&f| float(f))
                    .chain([J::Null])
                    .collect(),
            ),
        ),
        (
            "shared_subtree",
            "one array referenced twice (a DAG)",
            json!([{ "share": "s", "value": [int(1), "x"] }, { "again": "s" }]),
        ),
    ]
    .into_iter()
    .chain(str_array_valid_cases())
    .chain(stride_array_valid_cases())
    .collect()
}

/// Bytes that decode but that the encoder does not produce: (name, description, hex, value).
fn decode_only_cases() -> Vec<(&'static str, &'static str, String, J)> {
    let other_order = wrap_doc(|index| {
        // "e" and "f" (home 6) swap entries 6 and 7, "i" and "y" (home 15)
        // entries 15 and 0: each key is still at its home or after it with
        // no empty entry between.
        index.swap(6, 7);
        index.swap(15, 0);
    });
    let mut v: Vec<(&'static str, &'static str, String, J)> = vec![
        (
            "index_other_order",
            "map_index_wrap with keys placed in another valid order (not insertion order)",
            other_order,
            map(&wrap_keys()),
        ),
        (
            "array_zero_count",
            "an array record of count 0 (10 00) is []",
            "5256011000".to_string() + "1c081c",
            json!([]),
        ),
        (
            "str_short_empty",
            "a short string record of 0 bytes (80) is \"\"",
            "52560180".to_string() + "1c041c",
            json!(""),
        ),
        (
            "int_u64_small",
            "5 in a U64 record (05)",
            "525601050500000000000000".to_string() + "1c241c",
            int(5),
        ),
    ];
    v.extend(
        decode_only_fixed()
            .into_iter()
            .map(|(n, d, h, x)| (n, d, h.to_string(), x)),
    );
    v.extend(str_array_decode_only());
    v.extend(stride_array_decode_only());
    v.extend(packed_shape_decode_only());
    v.extend(num_map_decode_only());
    v
}

/// [`decode_only_cases`] given as fixed hex.
fn decode_only_fixed() -> Vec<(&'static str, &'static str, &'static str, J)> {
    vec![
        (
            "appended_root",
            "an older root record before the last one (append-only update)",
            concat!("525601", "1c031c", "1c071c"),
            J::Bool(false),
        ),
        (
            "int_noncanonical_width",
            "5 in an I64 record is valid (readers accept any width)",
            concat!("525601", "040500000000000000", "1c241c"),
            int(5),
        ),
        (
            "int_w4_as_record",
            "8192 in an I16 record behind a 1-byte root slot (as encoders wrote it before \
             inline integers were preferred within an eighth of the size)",
            concat!("525601", "020020", "1c0c1c"),
            int(8192),
        ),
        (
            "str_long_form_short",
            "a 1-byte string in a STR record",
            concat!("525601", "0c0161", "1c0c1c"),
            json!("a"),
        ),
        (
            "wide_slot_null",
            "null in an 8-byte root slot",
            concat!("525601", "1f0300000000000000", "1f"),
            J::Null,
        ),
        (
            "absolute_ref",
            "the root refers to a string by absolute offset",
            concat!("525601", "8161", "1c0e1c"),
            json!("a"),
        ),
        (
            "int_i8_record",
            "5 in an I8 record (a writer would inline it)",
            concat!("525601", "0105", "1c081c"),
            int(5),
        ),
        (
            "float_f32_snan",
            "a signalling binary32 NaN widens bit for bit, staying signalling",
            concat!("525601", "080100807f", "1c141c"),
            float(f64::from_bits(0x7ff0_0000_2000_0000)),
        ),
        (
            "array_width_4",
            "[7, null] in 4-byte slots",
            concat!("525601", "12021d00000003000000", "1c281c"),
            json!([int(7), J::Null]),
        ),
        (
            "array_width_8",
            "[-1] in an 8-byte slot",
            concat!("525601", "1301fdffffffffffffff", "1c281c"),
            json!([int(-1)]),
        ),
        (
            "map_width_2",
            "{\"a\": 5} with 2-byte value slots",
            concat!("525601", "8161", "180108", "15061500", "1c101c"),
            map(&[("a", int(5))]),
        ),
        (
            "map_absolute_shape",
            "{\"a\": 5} whose shape reference is absolute",
            concat!("525601", "8161", "180108", "140b15", "1c0c1c"),
            map(&[("a", int(5))]),
        ),
        (
            "shape_width_4",
            "{\"a\": 5} whose shape has 4-byte key slots",
            concat!("525601", "8161", "1a0108000000", "140c15", "1c0c1c"),
            map(&[("a", int(5))]),
        ),
        (
            "shape_width_8",
            "{\"a\": 5} whose shape has 8-byte key slots",
            concat!("525601", "8161", "1b010800000000000000", "141415", "1c0c1c"),
            map(&[("a", int(5))]),
        ),
        (
            "key_empty_string_record",
            "the empty key as a 0-byte STR record instead of the constant",
            concat!("525601", "0c00", "180108", "140615", "1c0c1c"),
            map(&[("", int(5))]),
        ),
        (
            "version_2_plain",
            "a version 2 header on a document of version 1 records only",
            concat!("525602", "1c031c"),
            json!(null),
        ),
        (
            "map_zero_key_shape",
            "a map record of a shape with no keys is {}",
            concat!("525601", "1800", "1404", "1c081c"),
            map(&[]),
        ),
        (
            "numbers_zero_count",
            "a number array record of count 0 (30 00) is []",
            concat!("525602", "3000", "1c081c"),
            json!([]),
        ),
        (
            "numbers_u64_small",
            "a u64 number array of small values (the encoder writes i8)",
            concat!(
                "525602",
                "3702",
                "0100000000000000",
                "0200000000000000",
                "1c481c"
            ),
            json!([int(1), int(2)]),
        ),
        (
            "numbers_decimal_trailing_zeros",
            "a decimal number array whose mantissas could be shorter (10, 20 at e = -2)",
            concat!("525602", "3a02", "fe", "0a000000", "14000000", "1c2c1c"),
            json!([float(0.1), float(0.2)]),
        ),
        (
            "numbers_decimal_exponent_22",
            "a decimal number array of exponent 22 and -22",
            concat!(
                "525602", "3a01", "16", "01000000", "3a01", "ea", "01000000", "1002", "381c",
                "1c101c"
            ),
            json!([[float(1e22)], [float(1e-22)]]),
        ),
    ]
}

/// Bytes that must be rejected: (name, description, hex, error kind).
fn reject_cases() -> Vec<(String, String, String, &'static str)> {
    let mut v: Vec<(String, String, String, &'static str)> = vec![];
    let mut add = |name: &str, desc: &str, hex: String, kind: &'static str| {
        v.push((name.to_string(), desc.to_string(), hex, kind));
    };
    let h = |s: &str| s.replace(' ', "");
    for (name, desc, hex, kind) in shaped_vector_rejects() {
        add(name, desc, hex, kind);
    }
    add("empty_input", "no bytes at all", String::new(), "Truncated");
    add("magic_only", "just the magic", h("5256"), "Truncated");
    add("bad_magic", "not RV", h("585601 1c031c"), "BadMagic");
    add(
        "version_3",
        "a future major version",
        h("525603 1c031c"),
        "UnsupportedVersion",
    );
    add("header_only", "no root record", h("525601"), "BadTrailer");
    add(
        "numbers_in_version_1",
        "a number array record in a version 1 document",
        h("525601 3002 0102 1c101c"),
        "UnknownTag",
    );
    add(
        "numbers_reserved_tag",
        "tag 3C, reserved",
        h("525602 3c00 1c081c"),
        "UnknownTag",
    );
    add(
        "numbers_truncated",
        "a number array of 10 i8 elements with 2 bytes, then the root",
        h("525602 300a 0102 1c101c"),
        "Truncated",
    );
    add(
        "numbers_count_overflow",
        "a u64 number array of 2^64-1 elements: the size overflows",
        h("525602 37ffffffffffffffffff01 1c2c1c"),
        "BadLength",
    );
    add(
        "numbers_decimal_exponent_23",
        "a decimal number array of exponent 23",
        h("525602 3a01 17 01000000 1c1c1c"),
        "NonCanonical",
    );
    add(
        "numbers_decimal_exponent_minus_23",
        "a decimal number array of exponent -23",
        h("525602 3a01 e9 01000000 1c1c1c"),
        "NonCanonical",
    );
    add(
        "numbers_root_tag_inside",
        "a number array whose elements run over the root record",
        h("525602 3005 0102 1c101c"),
        "BadTrailer",
    );
    add(
        "no_trailer",
        "the last byte is not a root tag",
        h("525601 1c03"),
        "BadTrailer",
    );
    add(
        "trailer_mismatch",
        "root record tags disagree",
        h("525601 1d0300 1c"),
        "BadTrailer",
    );
    add(
        "trailing_garbage",
        "bytes after the root record",
        h("525601 1c031c 00"),
        "BadTrailer",
    );
    add(
        "unknown_tag",
        "tag 0x30 is not defined",
        h("525601 30 1c041c"),
        "UnknownTag",
    );
    add(
        "unknown_tag_zero",
        "tag 0x00 is not defined",
        h("525601 00 1c041c"),
        "UnknownTag",
    );
    add(
        "self_reference",
        "the root refers to itself (distance 0)",
        h("525601 1c001c"),
        "BadReference",
    );
    add(
        "absolute_self",
        "absolute reference to the referring record",
        h("525601 1c0e1c"),
        "BadReference",
    );
    add(
        "forward_reference",
        "an array refers to a later record",
        h("525601 10011a 8161 1c141c"),
        "BadReference",
    );
    add(
        "reference_outside",
        "a relative distance beyond the document start",
        h("525601 1d0001 1d"),
        "BadReference",
    );
    add(
        "reference_mid_record",
        "a reference into the middle of a string",
        h("525601 83616263 1c121c"),
        "BadReference",
    );
    add(
        "value_ref_to_shape",
        "a value slot refers to a shape",
        h("525601 8161 180108 1c0c1c"),
        "WrongTarget",
    );
    add(
        "value_ref_to_root",
        "a value slot refers to an old root record",
        h("525601 1c031c 1c0c1c"),
        "WrongTarget",
    );
    add(
        "map_shape_not_shape",
        "a map's shape reference points to a string",
        h("525601 8161 1404 1c081c"),
        "WrongTarget",
    );
    add(
        "map_shape_forward",
        "a map's shape reference of distance 0",
        h("525601 1400 1c081c"),
        "BadReference",
    );
    add(
        "map_shape_before_start",
        "a map's relative shape distance is its offset + 1 (a shape at offset -1)",
        h("525601 1408 1c081c"),
        "BadReference",
    );
    add(
        "map_shape_past_start",
        "a map after a string, its relative shape distance its offset + 1",
        h("525601 8161 140c 1c081c"),
        "BadReference",
    );
    add(
        "key_empty_twice",
        "a shape's keys are an empty STR record and the empty-key constant",
        h("525601 0c00 1802080f 14081515 1c101c"),
        "DuplicateKey",
    );
    add(
        "key_not_string",
        "a shape key refers to an integer",
        h("525601 0105 180108 1c031c"),
        "WrongTarget",
    );
    add(
        "key_special_null",
        "a shape key is the null immediate",
        h("525601 180103 1c031c"),
        "WrongTarget",
    );
    add(
        "key_inline_int",
        "a shape key is an inline int",
        h("525601 180105 1c031c"),
        "WrongTarget",
    );
    add(
        "undefined_special",
        "special constant 6 is not defined",
        h("525601 1c1b1c"),
        "BadImmediate",
    );
    add(
        "invalid_utf8",
        "a string that is not UTF-8",
        h("525601 82c328 1c0c1c"),
        "InvalidUtf8",
    );
    add(
        "surrogate_utf8",
        "UTF-8 encoding of a surrogate",
        h("525601 83eda080 1c101c"),
        "InvalidUtf8",
    );
    add(
        "varint_not_minimal",
        "a length varint with a redundant byte",
        h("525601 0c8100 1c0c1c"),
        "BadVarint",
    );
    add(
        "varint_overflow",
        "a varint beyond 64 bits",
        h("525601 0cffffffffffffffffff7f 1c0c1c"),
        "BadVarint",
    );
    add(
        "length_near_u64_max",
        "a string length of 2^64 - 2",
        h("525601 0cfeffffffffffffffff01 1c0c1c"),
        "BadLength",
    );
    add(
        "array_count_huge",
        "an array of 2^63 one-byte slots",
        h("525601 1080808080808080808001 1c0c1c"),
        "BadLength",
    );
    add(
        "array_count_overflow",
        "an array whose size overflows 64 bits",
        h("525601 13808080808080808040 1c0c1c"),
        "BadLength",
    );
    add(
        "truncated_bytes",
        "a byte string longer than the rest",
        h("525601 0d096162 1c101c"),
        "Truncated",
    );
    add(
        "truncated_i64",
        "an I64 record cut short",
        h("525601 040102 1c0c1c"),
        "Truncated",
    );
    add(
        "bigint_fits_u64",
        "a big integer that fits in u64",
        h("525601 0608ffffffffffffffff 1c281c"),
        "NonCanonical",
    );
    add(
        "bigint_high_zero",
        "a big integer with a zero high byte",
        h("525601 0609010000000000000000 1c2c1c"),
        "NonCanonical",
    );
    add(
        "bigint_neg_fits_i64",
        "-2^63 written as a big integer",
        h("525601 07080000000000000080 1c281c"),
        "NonCanonical",
    );
    add(
        "bigint_empty",
        "a big integer with no magnitude",
        h("525601 0600 1c081c"),
        "NonCanonical",
    );
    add(
        "timestamp_nanos",
        "nanoseconds of 10^9",
        h("525601 0a0000000000000000 00ca9a3b 1c341c"),
        "NonCanonical",
    );
    add(
        "timestamp_offset",
        "a UTC offset of 86,400 seconds",
        h("525601 0b0000000000000000 00000000 80510100 1c441c"),
        "NonCanonical",
    );
    add(
        "vector_padding",
        "non-zero padding before vector data",
        h("525601 0f0901 0100 000000000000f03f 1c2c1c"),
        "NonCanonical",
    );
    add(
        "vector_elem_type",
        "element type 10 is not defined",
        h("525601 0f0a00 1c0c1c"),
        "UnknownTag",
    );
    add(
        "vector_count_overflow",
        "a vector whose byte size overflows",
        h("525601 0f09808080808080808040 0000 1c341c"),
        "BadLength",
    );
    add(
        "fdec_exponent",
        "a decimal float with exponent 23",
        h("525601 201701000000 1c181c"),
        "NonCanonical",
    );
    add(
        "shape_duplicate_ref",
        "a shape naming the same key record twice",
        h("525601 8161 18020808 1c031c"),
        "DuplicateKey",
    );
    add(
        "shape_duplicate_content",
        "a shape naming two equal strings",
        h("525601 8161 8161 18021008 1c031c"),
        "DuplicateKey",
    );
    add(
        "shape_duplicate_empty",
        "a shape with the empty key twice",
        h("525601 18020f0f 1c031c"),
        "DuplicateKey",
    );
    add(
        "map_truncated",
        "a map with fewer value slots than keys",
        h("525601 8161 8162 18021008 1408 05"),
        "BadTrailer",
    );
    // Hash index cases: a valid 9-key map with null values, then damaged.
    let keys: Vec<J> = (0..9)
        .map(|i| json!([format!("{}", (b'a' + i) as char), J::Null]))
        .collect();
    let good = encode_doc(&json!({ "map": keys }));
    // Layout: header(3), 9 keys of 2 bytes, shape at 21: tag, count, 9 slots, 16 index entries.
    assert_eq!(good[21], 0x18, "test layout assumption");
    let index = 21 + 2 + 9;
    let filled: Vec<usize> = (index..index + 16).filter(|&p| good[p] != 0).collect();
    let mut bad = good.clone();
    bad[filled[0]] = 10;
    add(
        "index_out_of_range",
        "an index entry names key 10 of 9",
        to_hex(&bad),
        "BadIndex",
    );
    let mut bad = good.clone();
    bad[filled[0]] = 0;
    add(
        "index_missing_key",
        "an index without one of the keys",
        to_hex(&bad),
        "BadIndex",
    );
    let mut bad = good.clone();
    bad[filled[1]] = good[filled[0]];
    add(
        "index_duplicate_entry",
        "an index naming one key twice",
        to_hex(&bad),
        "BadIndex",
    );
    let mut bad = good.clone();
    for (j, e) in bad[index..index + 16].iter_mut().enumerate() {
        *e = if j < 9 { (j + 1) as u8 } else { 0 };
    }
    let probing_ok = roving::validate(&bad).is_ok();
    if !probing_ok {
        add(
            "index_wrong_slots",
            "index entries not where probing finds them",
            to_hex(&bad),
            "BadIndex",
        );
    }
    let mut bad = good.clone();
    for (j, e) in bad[index..index + 16].iter_mut().enumerate() {
        *e = (j % 9 + 1) as u8;
    }
    add(
        "index_full",
        "an index with no empty entry",
        to_hex(&bad),
        "BadIndex",
    );

    add(
        "old_root_bad_slot",
        "an earlier root record whose slot is special constant 6 (rule 17)",
        h("525601 1c1b1c 1c031c"),
        "BadImmediate",
    );
    add(
        "old_root_bad_reference",
        "an earlier root record whose slot refers to itself (rule 17)",
        h("525601 1c001c 1c031c"),
        "BadReference",
    );
    add(
        "old_root_no_tag_copy",
        "an earlier root record that does not end with a copy of its tag (rule 17)",
        h("525601 1c0303 1c031c"),
        "BadTrailer",
    );
    add(
        "utf8_overlong_2",
        "a 2-byte overlong form of '/' (C0 AF)",
        h("525601 82c0af 1c0c1c"),
        "InvalidUtf8",
    );
    add(
        "utf8_overlong_3",
        "a 3-byte overlong form of '/' (E0 80 AF)",
        h("525601 83e080af 1c101c"),
        "InvalidUtf8",
    );
    add(
        "utf8_above_max",
        "F4 90 80 80, the code point U+110000",
        h("525601 84f4908080 1c141c"),
        "InvalidUtf8",
    );
    add(
        "fdec_exponent_neg",
        "a decimal float with exponent -23",
        h("525601 20e901000000 1c181c"),
        "NonCanonical",
    );
    add(
        "special_w2",
        "special constant 6 in a 2-byte root slot",
        h("525601 1d1b00 1d"),
        "BadImmediate",
    );
    add(
        "special_w4",
        "special constant 6 in a 4-byte array slot",
        h("525601 12011b000000 1c181c"),
        "BadImmediate",
    );
    add(
        "special_w8",
        "special constant 2^62 - 1 in an 8-byte root slot",
        h("525601 1fffffffffffffffff 1f"),
        "BadImmediate",
    );
    add(
        "key_special_6",
        "a shape key slot holding special constant 6",
        h("525601 18011b 1c031c"),
        "WrongTarget",
    );
    add(
        "key_ref_shape",
        "a shape key refers to a shape record",
        h("525601 1800 180108 1c031c"),
        "WrongTarget",
    );
    add(
        "key_ref_root",
        "a shape key refers to an earlier root record",
        h("525601 1c031c 18010c 1c031c"),
        "WrongTarget",
    );
    add(
        "map_shape_mid_record",
        "a map's shape reference lands on a byte 18 inside a string: not a record start",
        h("525601 83180500 1406 1c081c"),
        "BadReference",
    );
    add(
        "map_shape_root",
        "a map's shape reference points to an earlier root record",
        h("525601 1c031c 1406 1c081c"),
        "WrongTarget",
    );
    add(
        "vector_truncated",
        "a vector of two f64 whose data runs past the end of the input",
        h("525601 0f0902 0000 0000000000000000 1c2c1c"),
        "Truncated",
    );
    add(
        "index_wrap_gap",
        "map_index_wrap with \"y\" (home 15) at entry 1: entry 0 between is empty",
        wrap_doc(|index| index.swap(0, 1)),
        "BadIndex",
    );
    add(
        "index_wrap_unreachable",
        "map_index_wrap with \"i\" and \"y\" (home 15) at entries 0 and 1, 15 empty",
        wrap_doc(|index| {
            index[1] = index[15];
            index[15] = 0;
        }),
        "BadIndex",
    );
    // The same damage to a 2-byte index: map_300 (300 keys "key0".."key299").
    let keys: Vec<J> = (0..300)
        .map(|i| json!([format!("key{i}"), J::Null]))
        .collect();
    let good = encode_doc(&json!({ "map": keys }));
    let shape = 3 + (0..300).map(|i| 1 + format!("key{i}").len()).sum::<usize>();
    assert_eq!(
        good[shape], 0x19,
        "test layout assumption: 2-byte key slots"
    );
    let index = shape + 1 + 2 + 300 * 2;
    let entry = |d: &[u8], j: usize| u16::from_le_bytes([d[index + 2 * j], d[index + 2 * j + 1]]);
    let put = |d: &mut Vec<u8>, j: usize, e: u16| {
        d[index + 2 * j..index + 2 * j + 2].copy_from_slice(&e.to_le_bytes())
    };
    let filled: Vec<usize> = (0..512).filter(|&j| entry(&good, j) != 0).collect();
    // (name, description, damage), each applied to a copy of `good`.
    type Damage<'a> = Box<dyn Fn(&mut Vec<u8>) + 'a>;
    let cases: [(&str, &str, Damage); 5] = [
        (
            "index2_out_of_range",
            "a 2-byte index entry names key 300 of 300 (entry 301 = 2d 01)",
            Box::new(|d| put(d, filled[0], 301)),
        ),
        (
            "index2_missing_key",
            "a 2-byte index without one of the keys",
            Box::new(|d| put(d, filled[0], 0)),
        ),
        (
            "index2_duplicate_entry",
            "a 2-byte index naming one key twice",
            Box::new(|d| put(d, filled[1], entry(&good, filled[0]))),
        ),
        (
            "index2_wrong_slots",
            "a 2-byte index with key k at entry k, not where probing finds them",
            Box::new(|d| (0..512).for_each(|j| put(d, j, if j < 300 { j as u16 + 1 } else { 0 }))),
        ),
        (
            "index2_full",
            "a 2-byte index with no empty entry",
            Box::new(|d| (0..512).for_each(|j| put(d, j, (j % 300) as u16 + 1))),
        ),
    ];
    for (name, desc, damage) in cases {
        let mut bad = good.clone();
        damage(&mut bad);
        add(name, desc, to_hex(&bad), "BadIndex");
    }
    v.extend(str_array_rejects());
    v.extend(stride_array_rejects());
    v.extend(packed_shape_rejects());
    v.extend(num_map_rejects());
    v
}

fn kind_name(e: &roving::Error) -> String {
    let d = format!("{:?}", e.kind());
    d.split('(').next().unwrap_or("").to_string()
}

/// Whether a neutral value has only JSON kinds (null, booleans, integers,
/// floats, strings, arrays, maps): its vector then records the JSON text of
/// section 17.2 (`"json"`).
fn plain(v: &J) -> bool {
    match v {
        J::Array(a) => a.iter().all(plain),
        J::Object(o) if o.contains_key("map") => {
            o["map"].as_array().unwrap().iter().all(|kv| plain(&kv[1]))
        }
        J::Object(o) if o.contains_key("share") => plain(&o["value"]),
        J::Object(o) => o.contains_key("int") || o.contains_key("float") || o.contains_key("again"),
        _ => true,
    }
}

/// The JSON text of the document `hex` (section 17.2).
fn json_text(bytes: &[u8]) -> String {
    roving::json::to_json(roving::Document::open(bytes).unwrap().root()).unwrap()
}

/// A validating function.
type Validate = fn(&[u8]) -> roving::Result<()>;

/// The validators every vector goes through: the public one, and with the
/// `fuzzing` feature its full checker and portable fast path too.
fn validators() -> Vec<(&'static str, Validate)> {
    #[allow(unused_mut)]
    let mut v: Vec<(&'static str, Validate)> = vec![("validate", roving::validate)];
    #[cfg(feature = "fuzzing")]
    {
        v.push(("validate_full", roving::validate::validate_full));
        v.push(("validate_portable", roving::validate::validate_portable));
    }
    v
}

fn write_all() {
    let d = dir();
    std::fs::create_dir_all(&d).unwrap();
    for f in std::fs::read_dir(&d).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "json") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let mut n = 0;
    let mut write = |name: &str, mut case: J| {
        n += 1;
        if case["valid"] == J::Bool(true)
            && plain(&case["value"])
            && case.get("dictionary").is_none()
        {
            let text = json_text(&unhex(case["hex"].as_str().unwrap()));
            case["json"] = J::String(text);
        }
        let text = serde_json::to_string_pretty(&case).unwrap() + "\n";
        std::fs::write(d.join(format!("{name}.json")), text).unwrap();
    };
    for (name, desc, value) in valid_cases().into_iter().chain(shaped_vector_cases()) {
        let hex = to_hex(&encode_doc(&value));
        write(
            name,
            json!({ "name": name, "description": desc, "valid": true, "value": value, "hex": hex }),
        );
    }
    for (name, desc, type_id, data, field, text) in ext_cases() {
        let value = json!({ "ext": type_id, "data": data });
        let hex = to_hex(&encode_doc(&value));
        let mut case =
            json!({ "name": name, "description": desc, "valid": true, "value": value, "hex": hex });
        case[field] = J::String(text.to_string());
        write(name, case);
    }
    for (name, desc, hex, value) in decode_only_cases() {
        write(
            name,
            json!({ "name": name, "description": desc, "valid": true, "decode_only": true,
            "value": value, "hex": hex }),
        );
    }
    for (name, desc, hex, kind) in reject_cases() {
        let name = format!("reject_{name}");
        write(
            &name,
            json!({ "name": name, "description": desc, "valid": false,
            "hex": hex, "error": kind }),
        );
    }
    for (name, case) in dict_vectors() {
        write(&name, case);
    }
    eprintln!("wrote {n} vectors to {}", d.display());
}

#[test]
fn golden_vectors() {
    if std::env::var_os("ROVING_WRITE_VECTORS").is_some() {
        write_all();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 60,
        "expected at least 60 vectors, found {}",
        files.len()
    );
    let expected = valid_cases().len()
        + ext_cases().len()
        + decode_only_cases().len()
        + reject_cases().len()
        + shaped_vector_cases().len()
        + dict_vectors().len();
    assert_eq!(
        files.len(),
        expected,
        "vectors out of date: run with ROVING_WRITE_VECTORS=1"
    );
    let mut failures = Vec::new();
    for f in &files {
        let case: J = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let name = case["name"].as_str().unwrap();
        let bytes = unhex(case["hex"].as_str().unwrap());
        if case.get("dictionary").is_some() {
            check_dict_vector(&case, &mut failures);
            continue;
        }
        if case["valid"] == J::Bool(true) {
            let value = &case["value"];
            if case["decode_only"] != J::Bool(true) {
                let enc = encode_doc(value);
                if enc != bytes {
                    failures.push(format!(
                        "{name}: encodes to {} not {}",
                        to_hex(&enc),
                        to_hex(&bytes)
                    ));
                }
            }
            for (which, validate) in validators() {
                if let Err(e) = validate(&bytes) {
                    failures.push(format!("{name}: rejected by {which}: {e}"));
                }
            }
            match roving::Document::open(&bytes) {
                Err(e) => failures.push(format!("{name}: rejected: {e}")),
                Ok(doc) => {
                    let got = normalize(&from_value(doc.root()));
                    let want = normalize(&expand(value, &mut HashMap::new()));
                    if got != want {
                        failures.push(format!("{name}: decodes to {got} not {want}"));
                    }
                }
            }
            match (&case["json"], plain(value)) {
                (J::String(want), true) => {
                    let got = json_text(&bytes);
                    if &got != want {
                        failures.push(format!("{name}: JSON text {got} not {want}"));
                    }
                }
                (J::Null, false) => {}
                _ => failures.push(format!("{name}: \"json\" missing or not expected")),
            }
        } else {
            let want = case["error"].as_str().unwrap();
            let open = ("Document::open", roving::Document::open(&bytes).map(|_| ()));
            let all = validators()
                .into_iter()
                .map(|(which, v)| (which, v(&bytes)));
            check_rejected(name, want, std::iter::once(open).chain(all), &mut failures);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---- string array records (22, format version 2) ---------------------------

/// String arrays the encoder writes: (name, description, value).
fn str_array_valid_cases() -> Vec<(&'static str, &'static str, J)> {
    let texts =
        |n: usize, f: &dyn Fn(usize) -> String| J::Array((0..n).map(|i| J::String(f(i))).collect());
    vec![
        (
            "str_array_8",
            "eight new distinct strings: one string array record (version 2)",
            json!(["a", "b", "c", "d", "e", "f", "g", "h"]),
        ),
        (
            "str_array_7",
            "seven new distinct strings stay a slot array (version 1)",
            json!(["a", "b", "c", "d", "e", "f", "g"]),
        ),
        (
            "str_array_repeat",
            "eight strings, one of them twice: a string array record holding both copies (smaller than seven string records and a slot array)",
            json!(["a", "b", "c", "d", "e", "f", "g", "a"]),
        ),
        (
            "str_array_repeats_slots",
            "eight strings, two of them four times each: a slot array (version 1), smaller than a string array record",
            json!(["ab", "cd", "ab", "cd", "ab", "cd", "ab", "cd"]),
        ),
        (
            "str_array_16",
            "sixteen strings: one full block",
            texts(16, &|i| format!("s{i}")),
        ),
        (
            "str_array_17",
            "seventeen strings: the last one starts a second block",
            texts(17, &|i| format!("s{i}")),
        ),
        (
            "str_array_utf8",
            "strings of multi-byte UTF-8 characters",
            json!(["é", "日本", "🎉", "ü", "ß", "ñ", "€", "中"]),
        ),
        (
            "str_array_w2_v2",
            "17 strings of 20 bytes: block starts and ends need 2 bytes",
            texts(17, &|i| format!("{i:02}").repeat(10)),
        ),
        (
            "str_array_in_map",
            "a string array as a map value; an element written again later has a record of its own",
            map(&[
                (
                    "tags",
                    json!(["red", "green", "blue", "cyan", "pink", "gray", "teal", "gold"]),
                ),
                ("main", json!("green")),
            ]),
        ),
    ]
}

/// String arrays the encoder does not write: (name, description, hex, value).
fn str_array_decode_only() -> Vec<(&'static str, &'static str, String, J)> {
    let h = |s: &str| s.replace(' ', "");
    vec![
        (
            "str_array_4",
            "a string array of four strings (the encoder writes slots below 8)",
            h("525602 22 04 04 00 00 01020304 61626364 1c341c"),
            json!(["a", "b", "c", "d"]),
        ),
        (
            "str_array_one",
            "a string array of one string",
            h("525602 22 01 01 00 00 01 61 1c1c1c"),
            json!(["a"]),
        ),
        (
            "str_array_empty_element",
            "a string array with an empty string in the middle",
            h("525602 22 03 02 00 00 01 01 02 6162 1c281c"),
            json!(["a", "", "b"]),
        ),
        (
            "str_array_wide",
            "a string array with 8-byte block starts and 4-byte ends",
            h("525602 22 02 02 0b 0000000000000000 01000000 02000000 6162 1c581c"),
            json!(["a", "b"]),
        ),
    ]
}

/// String arrays that must be rejected: (name, description, hex, error kind).
fn str_array_rejects() -> Vec<(String, String, String, &'static str)> {
    let h = |s: &str| s.replace(' ', "");
    [
        (
            "str_array_v1",
            "a string array record in a version 1 document",
            "525601 22 01 01 00 00 01 61 1c1c1c",
            "UnknownTag",
        ),
        (
            "str_array_widths_bits",
            "a reserved bit of the widths byte set",
            "525602 22 01 01 10 00 01 61 1c1c1c",
            "NonCanonical",
        ),
        (
            "str_array_end_beyond",
            "a string ending beyond the data",
            "525602 22 01 01 00 00 02 61 1c1c1c",
            "BadLength",
        ),
        (
            "str_array_decreasing",
            "ends decreasing within a block",
            "525602 22 02 02 00 00 02 01 6162 1c241c",
            "BadLength",
        ),
        (
            "str_array_split_char",
            "a string boundary inside a UTF-8 character",
            "525602 22 02 02 00 00 01 02 c3a9 1c241c",
            "InvalidUtf8",
        ),
        (
            "str_array_bad_utf8",
            "data that is not UTF-8",
            "525602 22 01 01 00 00 01 ff 1c1c1c",
            "InvalidUtf8",
        ),
        (
            "str_array_not_tiling",
            "the last string ends before the end of the data",
            "525602 22 01 02 00 00 01 6162 1c201c",
            "BadLength",
        ),
        (
            "str_array_first_start",
            "the first block does not start at 0",
            "525602 22 01 01 00 01 00 61 1c1c1c",
            "BadLength",
        ),
        (
            "str_array_block_gap",
            "the second block does not start where the first one ends",
            concat!(
                "525602 22 11 11 00 00 11",
                " 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 01",
                " 6161616161616161616161616161616161 1c8c1c"
            ),
            "BadLength",
        ),
        (
            "str_array_truncated",
            "data longer than the document",
            "525602 22 01 0a 00 00 01 61 1c1c1c",
            "Truncated",
        ),
    ]
    .into_iter()
    .map(|(n, d, x, k)| (n.to_string(), d.to_string(), h(x), k))
    .collect()
}

// ---- stride arrays (format version 2, section 6.16) -------------------------

/// Arrays the encoder writes as stride arrays, or not: (name, description, value).
fn stride_array_valid_cases() -> Vec<(&'static str, &'static str, J)> {
    let pair = |a: J, b: J| J::Array(vec![a, b]);
    vec![
        (
            "stride_array_pairs",
            "two pairs of integers: two i8 number arrays, then a stride array of stride 4",
            json!([[int(1), int(2)], [int(3), int(4)]]),
        ),
        (
            "stride_array_f64_rows",
            "rows of floats after an f64 row are f64 rows too (not f32 or decimal), so that all take one stride",
            json!([
                pair(float(-65.613_616_999_999_98), float(43.420_273_000_000_01)),
                pair(float(0.5), float(-1.25)),
                pair(float(0.1), float(2.0)),
            ]),
        ),
        (
            "stride_array_f32_rows_in_map",
            "rows of binary32 floats as a map value: f32 number arrays, stride 10",
            map(&[(
                "path",
                json!([
                    pair(float(1.5), float(2.5)),
                    pair(float(3.5), float(4.5)),
                    pair(float(-0.25), float(8.0)),
                ]),
            )]),
        ),
        (
            "stride_array_sizes_differ",
            "an i8 row and an i16 row: records of two sizes keep the array's slots",
            json!([[int(1), int(2)], [int(300), int(4)]]),
        ),
        (
            "stride_array_mixed_row",
            "a row of an integer and a float (slots, not a number array) keeps the outer array's slots",
            json!([
                pair(float(1.5), float(2.5)),
                pair(int(1), float(2.5)),
                pair(float(3.5), float(4.5)),
            ]),
        ),
    ]
}

/// Stride arrays the encoder does not write: (name, description, hex, value).
fn stride_array_decode_only() -> Vec<(&'static str, &'static str, String, J)> {
    let h = |s: &str| s.replace(' ', "");
    vec![
        (
            "stride_array_strings",
            "a stride array of two short strings (the encoder writes one for number arrays only)",
            h("525602 8161 8162 3b0202 1c0c1c"),
            json!(["a", "b"]),
        ),
        (
            "stride_array_zero_count",
            "a stride array of no elements is []",
            h("525602 3b0001 1c0c1c"),
            json!([]),
        ),
    ]
}

/// Stride arrays that must be rejected: (name, description, hex, error kind).
fn stride_array_rejects() -> Vec<(String, String, String, &'static str)> {
    let h = |s: &str| s.replace(' ', "");
    [
        (
            "stride_array_v1",
            "a stride array record in a version 1 document",
            "525601 8161 8162 3b0202 1c0c1c",
            "UnknownTag",
        ),
        (
            "stride_array_zero_stride",
            "a stride of 0",
            "525602 8161 3b0100 1c0c1c",
            "BadLength",
        ),
        (
            "stride_array_stride_too_big",
            "a stride of 2^32, above the largest (2^32 - 1)",
            "525602 8161 3b01 8080808010 1c1c1c",
            "BadLength",
        ),
        (
            "stride_array_before_header",
            "two elements of stride 2 before offset 5: the first would be at 1, in the header",
            "525602 8161 3b0202 1c0c1c",
            "BadReference",
        ),
        (
            "stride_array_count_overflow",
            "2^64 - 1 elements of stride 2: the span overflows",
            "525602 8161 3b ffffffffffffffffff01 02 1c301c",
            "BadReference",
        ),
        (
            "stride_array_mid_record",
            "the element would start inside a string record",
            "525602 0c03616263 3b0103 1c0c1c",
            "BadReference",
        ),
        (
            "stride_array_gap",
            "elements 5 bytes apart with a string record between them: each element must be 5 bytes long",
            "525602 300105 8161 300106 8162 3b0205 1c0c1c",
            "BadLength",
        ),
        (
            "stride_array_of_stride_arrays",
            "a stride array whose element is a stride array (of 3 bytes, as its stride)",
            "525602 300105 300106 3b0203 3b0303 1c0c1c",
            "BadReference",
        ),
        (
            "stride_array_shape_element",
            "the element is a shape record, not a value",
            "525602 1800 3b0102 1c0c1c",
            "BadReference",
        ),
    ]
    .into_iter()
    .map(|(n, d, x, k)| (n.to_string(), d.to_string(), h(x), k))
    .collect()
}

// ---- shared dictionaries (format version 2, section 23) ---------------------

/// A dictionary of `entries`: a string, or an array of keys for a shape.
fn dict_of(entries: &J) -> roving::Dictionary {
    let mut d = roving::Dictionary::new();
    for e in entries.as_array().unwrap() {
        match e {
            J::String(s) => d.add_string(s).unwrap(),
            J::Array(keys) => {
                let keys: Vec<&str> = keys.iter().map(|k| k.as_str().unwrap()).collect();
                d.add_shape(&keys).unwrap()
            }
            _ => panic!("bad entry {e}"),
        };
    }
    d
}

/// `value` written against the first `n` entries of `dict` (frozen: the
/// vector's dictionary does not change).
fn encode_bound(value: &J, dict: &roving::Dictionary, n: usize) -> Vec<u8> {
    let mut first = roving::Dictionary::new();
    for e in &dict.entries()[..n] {
        match e {
            roving::dictionary::Entry::Str(s) => first.add_string(s).unwrap(),
            roving::dictionary::Entry::Shape(k) => first.add_shape(k).unwrap(),
        };
    }
    let mut enc = roving::Encoder::with_dictionary(&first);
    common::neutral::encode(value, &mut enc, &mut HashMap::new());
    enc.finish().unwrap()
}

/// A reject vector of a bound document: name, description, bytes, the
/// dictionary given (none: opened without), error kind.
type DictReject<'a> = (
    &'a str,
    &'a str,
    Vec<u8>,
    Option<&'a roving::Dictionary>,
    &'a str,
);

/// The bound-document vectors: (file name, case). Valid ones carry the
/// dictionary's bytes (`dictionary`, hex) and its entries (`entries`);
/// rejects carry a dictionary unless they test its absence.
fn dict_vectors() -> Vec<(String, J)> {
    let so = json!({"map": [["Id", int(100000)], ["Name", "Simple"], ["Address", "Planet Earth"],
        ["Scores", (0..10).map(int).collect::<Vec<_>>()]]});
    let ten: Vec<J> = (0..10).map(|i| J::String(format!("k{i}"))).collect();
    let ten_map = J::Object(
        [(
            "map".to_string(),
            J::Array((0..10).map(|i| json!([format!("k{i}"), int(i)])).collect()),
        )]
        .into_iter()
        .collect(),
    );
    // (name, description, entries, entries the document is bound to, value)
    let valid: Vec<(&str, &str, J, usize, J)> = vec![
        (
            "dict_shape",
            "a map of a dictionary shape: no key or shape record of its own",
            json!([["a", "b"]]),
            1,
            json!({"map": [["a", int(1)], ["b", "x"]]}),
        ),
        (
            "dict_simple_object",
            "the benchmarks' SimpleObject bound to its shape (59 bytes, 78 plain)",
            json!([["Id", "Name", "Address", "Scores"]]),
            1,
            so.clone(),
        ),
        (
            "dict_simple_object_strings",
            "SimpleObject with its two string values as dictionary strings (39 bytes)",
            json!([
                ["Id", "Name", "Address", "Scores"],
                "Simple",
                "Planet Earth"
            ]),
            3,
            so,
        ),
        (
            "dict_string_value",
            "a root string that is a dictionary string: a reference into the base",
            json!(["hello"]),
            1,
            json!("hello"),
        ),
        (
            "dict_key_as_value",
            "a value equal to a key of a dictionary shape refers to the key's record",
            json!([["name"]]),
            1,
            json!({"map": [["name", "name"]]}),
        ),
        (
            "dict_older_state",
            "bound to the first 2 of 3 entries: reads with the longer dictionary",
            json!([["x"], "s", ["y", "z"]]),
            2,
            json!([{"map": [["x", "s"]]}, {"map": [["y", int(1)], ["z", int(2)]]}]),
        ),
        (
            "dict_local_shape",
            "a map whose shape the dictionary lacks writes its shape locally",
            json!([["a"]]),
            1,
            json!([{"map": [["a", int(1)]]}, {"map": [["b", int(2)]]}]),
        ),
        (
            "dict_empty_key",
            "a dictionary shape with the empty key",
            json!([["", "k"]]),
            1,
            json!({"map": [["", int(1)], ["k", int(2)]]}),
        ),
        (
            "dict_indexed_shape",
            "a dictionary shape of 10 keys (with its hash index in the base)",
            J::Array(vec![J::Array(ten)]),
            1,
            ten_map,
        ),
        (
            "dict_vector_alignment",
            "a vector after the base: aligned in the document read after the base",
            json!([["v", "w"]]),
            1,
            json!({"map": [["v", {"vector": "f64", "data": "000000000000f83f"}], ["w", "abc"]]}),
        ),
    ];
    let mut out = Vec::new();
    let mut bound: HashMap<&str, (Vec<u8>, roving::Dictionary)> = HashMap::new();
    for (name, desc, entries, n, value) in valid {
        let dict = dict_of(&entries);
        let bytes = encode_bound(&value, &dict, n);
        let mut case = json!({ "name": name, "description": desc, "valid": true, "value": value,
            "hex": to_hex(&bytes), "dictionary": to_hex(&dict.to_bytes()), "entries": entries });
        if plain(&case["value"]) {
            let mut scratch = Vec::new();
            let doc = roving::Document::open_with(&bytes, &dict, &mut scratch).unwrap();
            case["json"] = J::String(roving::json::to_json(doc.root()).unwrap());
        }
        bound.insert(name, (bytes, dict));
        out.push((name.to_string(), case));
    }
    let (shape_doc, shape_dict) = bound["dict_shape"].clone();
    let (str_doc, str_dict) = bound["dict_string_value"].clone();
    let (older_doc, _) = bound["dict_older_state"].clone();
    let short = dict_of(&json!([["x"]]));
    let other = dict_of(&json!([["a", "c"]]));
    let mut bad_id = shape_doc.clone();
    bad_id[5] ^= 1;
    let mut v1 = shape_doc.clone();
    v1[2] = 1;
    // A second binding right after the first.
    let mut twice = shape_doc[..13].to_vec();
    twice.extend_from_slice(&shape_doc[3..]);
    // The root string's reference moved into the middle of its base record.
    let (root_slot, base_rec) = (str_doc.len() - 2, 3u8);
    let mut mid = str_doc.clone();
    mid[root_slot] = ((base_rec as u64 + 1) << 2 | 2) as u8;
    // A root reference to the base's shape record (offset 5, after "a" at 3).
    let shape_only = dict_of(&json!([["a"]]));
    let mut enc = roving::Encoder::with_dictionary(&shape_only);
    enc.null().unwrap();
    let mut to_shape = enc.finish().unwrap();
    let l = to_shape.len();
    to_shape[l - 3..].copy_from_slice(&[0x1c, (5 << 2) | 2, 0x1c]);
    let none: Option<&roving::Dictionary> = None;
    let rejects: Vec<DictReject<'_>> = vec![
        (
            "dict_required",
            "a bound document opened without a dictionary",
            shape_doc.clone(),
            none,
            "DictionaryRequired",
        ),
        (
            "dict_other",
            "a bound document opened with another dictionary of as many entries",
            shape_doc.clone(),
            Some(&other),
            "DictionaryMismatch",
        ),
        (
            "dict_shorter",
            "bound to 2 entries, opened with a dictionary of 1",
            older_doc,
            Some(&short),
            "DictionaryMismatch",
        ),
        (
            "dict_bad_id",
            "the binding's id changed by one bit",
            bad_id,
            Some(&shape_dict),
            "DictionaryMismatch",
        ),
        (
            "dict_binding_in_version_1",
            "a binding record in a version 1 document",
            v1,
            Some(&shape_dict),
            "UnknownTag",
        ),
        (
            "dict_second_binding",
            "a binding record after the first one",
            twice,
            Some(&shape_dict),
            "UnknownTag",
        ),
        (
            "dict_truncated_binding",
            "the input ends inside the binding's id",
            shape_doc[..8].to_vec(),
            Some(&shape_dict),
            "Truncated",
        ),
        (
            "dict_ref_mid_base_record",
            "a reference into the middle of a base record",
            mid,
            Some(&str_dict),
            "BadReference",
        ),
        (
            "dict_ref_to_base_shape",
            "a value reference to a shape record of the base",
            to_shape,
            Some(&shape_only),
            "WrongTarget",
        ),
    ];
    for (name, desc, bytes, dict, kind) in rejects {
        let name = format!("reject_{name}");
        let mut case = json!({ "name": name, "description": desc, "valid": false,
            "hex": to_hex(&bytes), "error": kind });
        match dict {
            Some(d) => {
                case["dictionary"] = J::String(to_hex(&d.to_bytes()));
                case["entries"] = entries_json(d);
            }
            None => case["dictionary"] = J::Null,
        }
        out.push((name, case));
    }
    out
}

/// The entries of `d` in the vectors' notation.
fn entries_json(d: &roving::Dictionary) -> J {
    J::Array(
        d.entries()
            .iter()
            .map(|e| match e {
                roving::dictionary::Entry::Str(s) => J::String(s.clone()),
                roving::dictionary::Entry::Shape(k) => json!(k),
            })
            .collect(),
    )
}

/// Checks a bound-document vector: its dictionary's bytes are those of
/// its entries; a valid one encodes to its hex (against the entries its
/// binding names) and decodes to its value; a reject fails with its kind,
/// from `open_with` (or, without a dictionary, `open` and `validate`).
fn check_dict_vector(case: &J, failures: &mut Vec<String>) {
    let name = case["name"].as_str().unwrap();
    let bytes = unhex(case["hex"].as_str().unwrap());
    let dict = case["dictionary"].as_str().map(|h| {
        let d = roving::Dictionary::from_bytes(&unhex(h)).unwrap();
        if d != dict_of(&case["entries"]) {
            failures.push(format!("{name}: dictionary bytes differ from its entries"));
        }
        d
    });
    let mut scratch = Vec::new();
    if case["valid"] == J::Bool(true) {
        let dict = dict.unwrap();
        let n = roving::layout::read_binding(&bytes)
            .unwrap()
            .map_or(0, |b| b.count as usize);
        let enc = encode_bound(&case["value"], &dict, n);
        if enc != bytes {
            failures.push(format!(
                "{name}: encodes to {} not {}",
                to_hex(&enc),
                to_hex(&bytes)
            ));
        }
        match roving::Document::open_with(&bytes, &dict, &mut scratch) {
            Err(e) => failures.push(format!("{name}: rejected: {e}")),
            Ok(doc) => {
                let got = normalize(&from_value(doc.root()));
                let want = normalize(&expand(&case["value"], &mut HashMap::new()));
                if got != want {
                    failures.push(format!("{name}: decodes to {got} not {want}"));
                }
                if let J::String(j) = &case["json"] {
                    let text = roving::json::to_json(doc.root()).unwrap();
                    if &text != j {
                        failures.push(format!("{name}: JSON text {text} not {j}"));
                    }
                }
            }
        }
        if roving::Document::open(&bytes).is_ok() {
            failures.push(format!("{name}: opens without its dictionary"));
        }
        return;
    }
    let want = case["error"].as_str().unwrap();
    let mut got = vec![];
    match &dict {
        Some(d) => got.push((
            "open_with",
            roving::Document::open_with(&bytes, d, &mut scratch).map(|_| ()),
        )),
        None => {
            got.push(("Document::open", roving::Document::open(&bytes).map(|_| ())));
            for (which, v) in validators() {
                got.push((which, v(&bytes)));
            }
        }
    }
    check_rejected(name, want, got, failures);
}

/// Records in `failures` each reader of `results` (name, result) that
/// accepted vector `name` or rejected it with another kind than `want`.
fn check_rejected<'a>(
    name: &str,
    want: &str,
    results: impl IntoIterator<Item = (&'a str, roving::Result<()>)>,
    failures: &mut Vec<String>,
) {
    for (which, got) in results {
        match got {
            Ok(()) => failures.push(format!(
                "{name}: accepted by {which}, must be rejected ({want})"
            )),
            Err(e) if kind_name(&e) != want => failures.push(format!(
                "{name}: {which} rejected with {} ({e}), expected {want}",
                kind_name(&e)
            )),
            Err(_) => {}
        }
    }
}

/// A document of one map whose keys are `keys` (written as a packed shape,
/// FORMAT.md section 6.18), each key's value its index.
fn packed_doc(keys: &[&str]) -> Vec<u8> {
    let mut e = roving::Encoder::new();
    e.begin_map_with_keys(keys).unwrap();
    for i in 0..keys.len() {
        e.i64(i as i64).unwrap();
    }
    e.end_map().unwrap();
    e.finish().unwrap()
}

/// The keys `k{n-1}`, ..., `k1`, `k0` of the packed shape vectors: in
/// decreasing order, so that their shapes have a dense index (keys in
/// order have none, section 6.18).
fn k_keys(n: usize) -> Vec<String> {
    (0..n).rev().map(|i| format!("k{i}")).collect()
}

/// Packed shapes (section 6.18, version 2): decode-only, since the
/// reference encoder writes one only when asked (`begin_map_with_keys`,
/// section 14).
fn packed_shape_decode_only() -> Vec<(&'static str, &'static str, String, J)> {
    let mut v = Vec::new();
    let cases: [(&'static str, &'static str, usize); 3] = [
        (
            "packed_shape_9",
            "a map of 9 keys in a packed shape: the smallest dense index (12 entries)",
            9,
        ),
        (
            "packed_shape_40",
            "a map of 40 keys in a packed shape: dense index of 51 one-byte entries (its values a map of numbers)",
            40,
        ),
        (
            "packed_shape_300",
            "a map of 300 keys in a packed shape: dense index of 376 two-byte entries",
            300,
        ),
    ];
    for (name, desc, n) in cases {
        let owned = k_keys(n);
        let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        let value: Vec<(&str, J)> = keys.iter().enumerate().map(|(i, k)| (*k, int(i))).collect();
        v.push((name, desc, to_hex(&packed_doc(&keys)), map(&value)));
    }
    // The map of 40 keys as written before maps of numbers (section
    // 6.19): its values in a map record of 1-byte slots and `i8` records.
    let keys: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
    v.push((
        "packed_shape_40_slots",
        "a map of 40 keys in a packed shape, its values in slots (as the encoder wrote it before maps of numbers)",
        "52560225286e00002656020406080a0c0e101214171a1d2023260306090c0f1215181b1e2124272a2d300306090c0f1215186b306b316b326b336b346b356b366b376b386b396b31306b31316b31326b31336b31346b31356b31366b31376b31386b31396b32306b32316b32326b32336b32346b32356b32366b32376b32386b32396b33306b33316b33326b33336b33346b33356b33366b33376b33386b3339111b1710191a0f1e18060e21220d03232713001f002000050b1d15260a12071c2428000000000c0814000016010002000925040120012101220123012401250126012714070105090d1115191d2125292d3135393d4145494d5155595d6165696d7175797d40383028201810081ca81c".to_string(),
        map(&keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str(), int(i)))
            .collect::<Vec<_>>()),
    ));
    // Keys in order: no index (section 6.18).
    let by_length: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    let mut by_bytes: Vec<String> = [
        "a", "ab", "abc", "b", "ba", "c", "ca", "cab", "d", "é", "éa",
    ]
    .iter()
    .map(|k| k.to_string())
    .collect();
    by_bytes.sort();
    for (name, desc, keys) in [
        (
            "packed_shape_ordered_by_length",
            "20 keys \"0\" ... \"19\", in order of length then bytes: widths bit 4, no index",
            by_length,
        ),
        (
            "packed_shape_ordered_by_bytes",
            "11 keys in order of bytes (\"a\", \"ab\", \"abc\", \"b\", ...): widths bit 5, no index",
            by_bytes,
        ),
    ] {
        let keys: Vec<&str> = keys.iter().map(|s| s.as_str()).collect();
        let value: Vec<(&str, J)> = keys.iter().enumerate().map(|(i, k)| (*k, int(i))).collect();
        v.push((name, desc, to_hex(&packed_doc(&keys)), map(&value)));
    }
    v.push((
        "packed_shape_3",
        "the keys \"id\", \"\" (empty) and \"b\" in a packed shape (FORMAT.md section 6.18's example)",
        to_hex(&packed_doc(&["id", "", "b"])),
        map(&[("id", int(0)), ("", int(1)), ("b", int(2))]),
    ));
    v
}

/// Packed shapes that must be rejected: (name, description, hex, error kind).
fn packed_shape_rejects() -> Vec<(String, String, String, &'static str)> {
    let mut v = Vec::new();
    let mut add = |n: &str, d: &str, b: Vec<u8>, k: &'static str| {
        v.push((format!("packed_shape_{n}"), d.to_string(), to_hex(&b), k));
    };
    let three = packed_doc(&["a", "b", "c"]);
    // 52 56 02 | 25 03 03 00 00 01 02 03 61 62 63 | map ...
    let mut b = three.clone();
    b[2] = 1;
    add(
        "v1",
        "a packed shape in a version 1 document",
        b,
        "UnknownTag",
    );
    let mut b = three.clone();
    b[13] = b'a';
    add("duplicate", "two equal keys (no index)", b, "DuplicateKey");
    let mut b = three.clone();
    b[13] = 0xFF;
    add("bad_utf8", "a key that is not UTF-8", b, "InvalidUtf8");
    let mut b = three.clone();
    b[6] = 0x40;
    add(
        "widths_bits",
        "a reserved bit (bit 6) of the widths byte set (bits 4 and 5 give the key order)",
        b,
        "NonCanonical",
    );
    // A value slot that refers to the packed shape: the root, 1-byte
    // slot, relative reference to offset 3.
    let mut b = three.clone();
    let n = b.len();
    b[n - 2] = ((n - 3 - 3) << 2) as u8;
    add(
        "as_value",
        "the root refers to a packed shape, which is not a value",
        b,
        "WrongTarget",
    );
    let owned = k_keys(9);
    let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let nine = packed_doc(&keys);
    // 25 09 L 00 00 ends(9) data(L) index(12)
    let index = 3 + 5 + 9 + keys.iter().map(|k| k.len()).sum::<usize>();
    let mut b = nine.clone();
    let full = (0..12).find(|&i| b[index + i] != 0).unwrap();
    b[index + full] = 0;
    add(
        "index_missing",
        "a key missing from the dense index",
        b,
        "BadIndex",
    );
    let mut b = nine.clone();
    let e = (0..12).find(|&i| b[index + i] == 0).unwrap();
    let f = (0..12).find(|&i| b[index + i] != 0).unwrap();
    b[index + e] = b[index + f];
    add(
        "index_twice",
        "a key twice in the dense index",
        b,
        "BadIndex",
    );
    let mut b = nine[..index + 6].to_vec();
    b.extend_from_slice(&[0x1c, 0x03, 0x1c]);
    add("index_truncated", "a dense index cut short", b, "Truncated");
    // Keys in order (widths bit 4): "0" ... "19", their bytes at `data`.
    let owned: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let ordered = packed_doc(&keys);
    let widths = 3 + 1 + 1 + 1;
    assert_eq!(ordered[widths] & 0x30, 0x10, "{ordered:02x?}");
    let data = ordered
        .windows(10)
        .position(|w| w == b"0123456789")
        .unwrap();
    let mut b = ordered.clone();
    b[data + 5] = b'7';
    add(
        "ordered_out_of_order",
        "keys said to be in order of length then bytes: \"7\" before \"6\"",
        b,
        "BadIndex",
    );
    let mut b = ordered.clone();
    b[data + 6] = b'5';
    add(
        "ordered_duplicate",
        "keys said to be in order: \"5\" twice",
        b,
        "DuplicateKey",
    );
    let mut b = ordered.clone();
    b[widths] |= 0x30;
    add(
        "both_orders",
        "both key order bits of the widths byte set",
        b,
        "NonCanonical",
    );
    let mut b = ordered.clone();
    b[widths] ^= 0x30;
    add(
        "ordered_by_bytes_wrong",
        "keys \"0\" ... \"19\" said to be in order of bytes (\"10\" is before \"2\" by bytes)",
        b,
        "BadIndex",
    );
    v
}

/// Maps of numbers (section 6.19, version 2): decode-only, since the
/// reference encoder writes one only for a map opened with its keys
/// (section 14).
fn num_map_decode_only() -> Vec<(&'static str, &'static str, String, J)> {
    let h = |s: &str| s.replace(' ', "");
    let mut v = vec![
        (
            "num_map_example",
            "{\"a\": 7}: a shape, the u8 number array [7], a map of numbers referring to both (FORMAT.md section 6.19's example)",
            h("525602 8161 180108 310107 260c06 1c0c1c"),
            map(&[("a", int(7))]),
        ),
        (
            "num_map_absolute",
            "the example with both references absolute (odd varints: offsets 5 and 8)",
            h("525602 8161 180108 310107 260b11 1c0c1c"),
            map(&[("a", int(7))]),
        ),
        (
            "num_map_empty",
            "a shape of no keys and a number array of no elements make {}",
            h("525602 1800 3000 260804 1c0c1c"),
            map(&[]),
        ),
        (
            "num_map_shared_values",
            "the number array is also the first element of the root array: [[7], {\"a\": 7}]",
            h("525602 8161 180108 310107 260c06 1002180c 1c101c"),
            J::Array(vec![J::Array(vec![int(7)]), map(&[("a", int(7))])]),
        ),
    ];
    // A map opened with its keys whose 20 values are binary32 floats:
    // an f32 number array and a map of numbers, as the encoder writes it.
    let owned = k_keys(20);
    let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let mut e = roving::Encoder::new();
    e.begin_map_with_keys(&keys).unwrap();
    for i in 0..keys.len() {
        e.f64(i as f64 + 0.5).unwrap();
    }
    e.end_map().unwrap();
    let bytes = e.finish().unwrap();
    let value: Vec<(&str, J)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, float(i as f64 + 0.5)))
        .collect();
    v.push((
        "num_map_packed_f32",
        "20 keys in a packed shape, their values an f32 number array, written as the encoder writes a map opened with its keys",
        to_hex(&bytes),
        map(&value),
    ));
    v
}

/// Maps of numbers that must be rejected: (name, description, hex, error kind).
fn num_map_rejects() -> Vec<(String, String, String, &'static str)> {
    [
        (
            "num_map_v1",
            "a map of numbers (and its number array) in a version 1 document",
            "525601 8161 180108 310107 260c06 1c0c1c",
            "UnknownTag",
        ),
        (
            "num_map_values_not_numbers",
            "the values reference lands on the shape, not on a number array",
            "525602 8161 180108 310107 260c0c 1c0c1c",
            "WrongTarget",
        ),
        (
            "num_map_shape_not_shape",
            "the shape reference lands on the number array, not on a shape",
            "525602 8161 180108 310107 260606 1c0c1c",
            "WrongTarget",
        ),
        (
            "num_map_count_differs",
            "a shape of 1 key and a number array of 2 elements",
            "525602 8161 180108 31020708 260e08 1c0c1c",
            "BadLength",
        ),
        (
            "num_map_values_mid_record",
            "the values reference lands inside the number array record",
            "525602 8161 180108 310107 260c04 1c0c1c",
            "BadReference",
        ),
        (
            "num_map_values_in_header",
            "the values reference reaches back into the header (offset 1)",
            "525602 8161 180108 310107 260c14 1c0c1c",
            "BadReference",
        ),
        (
            "num_map_values_forward",
            "an absolute values reference to the map record itself (not before it)",
            "525602 8161 180108 310107 260c17 1c0c1c",
            "BadReference",
        ),
    ]
    .into_iter()
    .map(|(n, d, hex, k)| (n.to_string(), d.to_string(), hex.replace(' ', ""), k))
    .collect()
}
