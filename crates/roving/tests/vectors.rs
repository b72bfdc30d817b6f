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

/// Valid values: (name, description, value).
fn valid_cases() -> Vec<(&'static str, &'static str, J)> {
    let long = |n: usize| "x".repeat(n);
    let nine: Vec<(String, J)> = (0..9).map(|i| (format!("k{i}"), int(i))).collect();
    let nine_ref: Vec<(&str, J)> = nine.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let many: Vec<(String, J)> = (0..300).map(|i| (format!("key{i}"), J::Null)).collect();
    let many_ref: Vec<(&str, J)> = many.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
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
            "[1, 2, 3]: inline ints in 1-byte slots",
            json!([int(1), int(2), int(3)]),
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
            "one large int widens the slots or gets its own record",
            json!([int(1), int(100_000), int(2)]),
        ),
        (
            "array_70",
            "70 elements",
            J::Array((0..70).map(int).collect()),
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
            "1970-01-01T00:00:00Z",
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
            "extension type 1 with bytes",
            json!({ "ext": 1, "data": "cafe" }),
        ),
        (
            "ext_big_id",
            "extension type 2^40, no bytes",
            json!({ "ext": 1u64 << 40, "data": "" }),
        ),
        (
            "shared_subtree",
            "one array referenced twice (a DAG)",
            json!([{ "share": "s", "value": [int(1), "x"] }, { "again": "s" }]),
        ),
    ]
}

/// Bytes that decode but that the encoder does not produce: (name, description, hex, value).
fn decode_only_cases() -> Vec<(&'static str, &'static str, &'static str, J)> {
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
            "map_zero_key_shape",
            "a map record of a shape with no keys is {}",
            concat!("525601", "1800", "1404", "1c081c"),
            map(&[]),
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
    add("empty_input", "no bytes at all", String::new(), "Truncated");
    add("magic_only", "just the magic", h("5256"), "Truncated");
    add("bad_magic", "not RV", h("585601 1c031c"), "BadMagic");
    add(
        "version_2",
        "a future major version",
        h("525602 1c031c"),
        "UnsupportedVersion",
    );
    add("header_only", "no root record", h("525601"), "BadTrailer");
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
    v
}

fn kind_name(e: &roving::Error) -> String {
    let d = format!("{:?}", e.kind());
    d.split('(').next().unwrap_or("").to_string()
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
    let mut write = |name: &str, case: J| {
        n += 1;
        let text = serde_json::to_string_pretty(&case).unwrap() + "\n";
        std::fs::write(d.join(format!("{name}.json")), text).unwrap();
    };
    for (name, desc, value) in valid_cases() {
        let hex = to_hex(&encode_doc(&value));
        write(
            name,
            json!({ "name": name, "description": desc, "valid": true, "value": value, "hex": hex }),
        );
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
    let expected = valid_cases().len() + decode_only_cases().len() + reject_cases().len();
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
        } else {
            let want = case["error"].as_str().unwrap();
            match roving::Document::open(&bytes) {
                Ok(_) => failures.push(format!("{name}: accepted, must be rejected ({want})")),
                Err(e) if kind_name(&e) != want => failures.push(format!(
                    "{name}: rejected with {} ({e}), expected {want}",
                    kind_name(&e)
                )),
                Err(_) => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
