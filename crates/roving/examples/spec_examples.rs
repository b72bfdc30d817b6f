//! Prints the worked hex examples of `docs/FORMAT.md`, produced by the real
//! encoder, each with a record-by-record annotation.
//!
//! Run with `cargo run -p roving --example spec_examples`.
//!
//! The annotator below is deliberately independent of the crate's reader:
//! it decodes the bytes using only the rules written in FORMAT.md (and the
//! public constants of `roving::format`), and every example is also checked
//! with `roving::validate` and converted back to JSON, so a mismatch between
//! the spec, the encoder and the reader shows up here.

use roving::format::*;
use roving::{ElemType, Encoder, Timestamp};

type Res<T> = roving::Result<T>;

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Decodes a raw slot of a container at `base` into words.
fn slot_text(raw: u64, width: usize, base: usize, key: bool) -> String {
    match raw & 3 {
        0b00 => {
            let d = raw >> 2;
            format!("rel {d} -> @{}", base as i64 - d as i64)
        }
        0b10 => format!("abs -> @{}", raw >> 2),
        0b01 => {
            let sh = 64 - width as u32 * 8;
            let v = ((raw as i64) << sh) >> (sh + 2);
            format!("int {v}")
        }
        _ => {
            let s = raw >> 2;
            let name = match s {
                0 => "null",
                1 => "false",
                2 => "true",
                3 if key => "empty-string key",
                3 => "\"\"",
                4 => "[]",
                5 => "{}",
                _ => "UNDEFINED",
            };
            format!("special {s} = {name}")
        }
    }
}

fn line(out: &mut String, at: usize, bytes: &[u8], what: &str) {
    // Long byte runs are wrapped 16 per line.
    let chunks: Vec<&[u8]> = if bytes.is_empty() {
        vec![&[][..]]
    } else {
        bytes.chunks(16).collect()
    };
    for (i, c) in chunks.iter().enumerate() {
        let h = hex(c);
        if i == 0 {
            let l = format!("{at:04x}  {h:<48} {what}");
            out.push_str(l.trim_end());
            out.push('\n');
        } else {
            out.push_str(&format!("{:04x}  {h}\n", at + i * 16));
        }
    }
}

fn slots(
    out: &mut String,
    b: &[u8],
    p: usize,
    n: usize,
    w: usize,
    base: usize,
    key: bool,
) -> usize {
    for i in 0..n {
        let q = p + i * w;
        let raw = read_uint(b, q, w).unwrap();
        line(
            out,
            q,
            &b[q..q + w],
            &format!("  slot {i}: {}", slot_text(raw, w, base, key)),
        );
    }
    p + n * w
}

fn varint(b: &[u8], p: usize) -> (u64, usize) {
    read_varint(b, p).expect("canonical varint")
}

fn text(b: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(b))
}

/// Annotates every record of a document, front to back.
fn annotate(b: &[u8]) -> String {
    let mut out = String::new();
    line(
        &mut out,
        0,
        &b[..3],
        &format!("header: \"RV\", version {}", b[2]),
    );
    let mut p = HEADER_LEN;
    while p < b.len() {
        let tag = b[p];
        let start = p;
        match tag {
            t if t & 0xC0 == TAG_SHORT_STR => {
                let n = (t & 0x3F) as usize;
                line(
                    &mut out,
                    p,
                    &b[p..p + 1 + n],
                    &format!(
                        "short string, {n} byte{}: {}",
                        if n == 1 { "" } else { "s" },
                        text(&b[p + 1..p + 1 + n])
                    ),
                );
                p += 1 + n;
            }
            TAG_STR | TAG_BYTES => {
                let (n, q) = varint(b, p + 1);
                let kind = if tag == TAG_STR { "string" } else { "bytes" };
                line(&mut out, p, &b[p..q], &format!("{kind}, varint length {n}"));
                let e = q + n as usize;
                line(
                    &mut out,
                    q,
                    &b[q..e],
                    &if tag == TAG_STR {
                        format!("  UTF-8 data {}", text(&b[q..e]))
                    } else {
                        "  data".to_string()
                    },
                );
                p = e;
            }
            TAG_I8 | TAG_I16 | TAG_I32 | TAG_I64 | TAG_U64 => {
                let n = match tag {
                    TAG_I8 => 1,
                    TAG_I16 => 2,
                    TAG_I32 => 4,
                    _ => 8,
                };
                let raw = read_uint(b, p + 1, n).unwrap();
                let v = match tag {
                    TAG_I8 => (raw as u8 as i8).to_string(),
                    TAG_I16 => (raw as u16 as i16).to_string(),
                    TAG_I32 => (raw as u32 as i32).to_string(),
                    TAG_I64 => (raw as i64).to_string(),
                    _ => raw.to_string(),
                };
                let name = ["", "i8", "i16", "i32", "i64", "u64"][tag as usize];
                line(
                    &mut out,
                    p,
                    &b[p..p + 1 + n],
                    &format!("{name} record: {v}"),
                );
                p += 1 + n;
            }
            TAG_BIGINT_POS | TAG_BIGINT_NEG => {
                let (n, q) = varint(b, p + 1);
                let sign = if tag == TAG_BIGINT_NEG {
                    "negative"
                } else {
                    "positive"
                };
                line(
                    &mut out,
                    p,
                    &b[p..q],
                    &format!("big integer, {sign}, magnitude length {n}"),
                );
                let e = q + n as usize;
                line(&mut out, q, &b[q..e], "  magnitude, little endian");
                p = e;
            }
            TAG_F32 => {
                let v = f32::from_le_bytes(b[p + 1..p + 5].try_into().unwrap());
                line(&mut out, p, &b[p..p + 5], &format!("f32 record: {v:?}"));
                p += 5;
            }
            TAG_F64 => {
                let v = f64::from_le_bytes(b[p + 1..p + 9].try_into().unwrap());
                line(&mut out, p, &b[p..p + 9], &format!("f64 record: {v:?}"));
                p += 9;
            }
            TAG_F_DEC => {
                let e = b[p + 1] as i8;
                let m = i32::from_le_bytes(b[p + 2..p + 6].try_into().unwrap());
                line(
                    &mut out,
                    p,
                    &b[p..p + 2],
                    &format!("decimal float, exponent {e}"),
                );
                line(
                    &mut out,
                    p + 2,
                    &b[p + 2..p + 6],
                    &format!(
                        "  mantissa {m} (i32 LE) -> {m} * 10^{e} = {:?}",
                        f_dec_value(m, e)
                    ),
                );
                p += 6;
            }
            TAG_TIMESTAMP | TAG_TIMESTAMP_OFFSET => {
                let s = i64::from_le_bytes(b[p + 1..p + 9].try_into().unwrap());
                let ns = u32::from_le_bytes(b[p + 9..p + 13].try_into().unwrap());
                line(
                    &mut out,
                    p,
                    &b[p..p + 1],
                    if tag == TAG_TIMESTAMP {
                        "timestamp"
                    } else {
                        "timestamp with offset"
                    },
                );
                line(
                    &mut out,
                    p + 1,
                    &b[p + 1..p + 9],
                    &format!("  seconds {s} (i64 LE)"),
                );
                line(
                    &mut out,
                    p + 9,
                    &b[p + 9..p + 13],
                    &format!("  nanoseconds {ns} (u32 LE)"),
                );
                p += 13;
                if tag == TAG_TIMESTAMP_OFFSET {
                    let o = i32::from_le_bytes(b[p..p + 4].try_into().unwrap());
                    line(
                        &mut out,
                        p,
                        &b[p..p + 4],
                        &format!("  UTC offset {o} s (i32 LE)"),
                    );
                    p += 4;
                }
            }
            TAG_EXT => {
                let (id, q) = varint(b, p + 1);
                let (n, r) = varint(b, q);
                line(
                    &mut out,
                    p,
                    &b[p..r],
                    &format!("ext, varint type id {id}, varint length {n}"),
                );
                let e = r + n as usize;
                line(&mut out, r, &b[r..e], "  payload");
                p = e;
            }
            TAG_VECTOR => {
                let elem = ElemType::from_code(b[p + 1]).expect("element type");
                let (n, q) = varint(b, p + 2);
                line(
                    &mut out,
                    p,
                    &b[p..q],
                    &format!(
                        "vector, element type {} ({}), varint count {n}",
                        b[p + 1],
                        elem.name()
                    ),
                );
                let s = q.next_multiple_of(elem.size());
                if s > q {
                    line(
                        &mut out,
                        q,
                        &b[q..s],
                        &format!("  zero padding to offset {s} (multiple of {})", elem.size()),
                    );
                }
                for i in 0..n as usize {
                    let at = s + i * elem.size();
                    line(
                        &mut out,
                        at,
                        &b[at..at + elem.size()],
                        &format!("  element {i}"),
                    );
                }
                p = s + n as usize * elem.size();
            }
            t if t & !3 == TAG_ARRAY => {
                let w = WIDTHS[(t & 3) as usize];
                let (n, q) = varint(b, p + 1);
                line(
                    &mut out,
                    p,
                    &b[p..q],
                    &format!("array, slot width {w}, varint count {n}"),
                );
                p = slots(&mut out, b, q, n as usize, w, start, false);
            }
            t if t & !3 == TAG_MAP => {
                let w = WIDTHS[(t & 3) as usize];
                let (r, q) = varint(b, p + 1);
                let shape = if r & 1 == 0 {
                    p - (r >> 1) as usize
                } else {
                    (r >> 1) as usize
                };
                let how = if r & 1 == 0 {
                    format!("relative {} << 1", r >> 1)
                } else {
                    format!("absolute {} << 1 | 1", r >> 1)
                };
                let (n, _) = varint(b, shape + 1);
                line(&mut out, p, &b[p..p + 1], &format!("map, slot width {w}"));
                line(
                    &mut out,
                    p + 1,
                    &b[p + 1..q],
                    &format!("  shape ref varint {r} = {how} -> shape @{shape} ({n} keys)"),
                );
                p = slots(&mut out, b, q, n as usize, w, start, false);
            }
            t if t & !3 == TAG_SHAPE => {
                let w = WIDTHS[(t & 3) as usize];
                let (n, q) = varint(b, p + 1);
                line(
                    &mut out,
                    p,
                    &b[p..q],
                    &format!("shape, key slot width {w}, varint count {n}"),
                );
                let e = slots(&mut out, b, q, n as usize, w, start, true);
                p = e;
                let n = n as usize;
                if n > SHAPE_LINEAR_MAX {
                    let t = index_table_size(n);
                    let ew = index_entry_width(n);
                    for i in 0..t {
                        let at = p + i * ew;
                        let v = read_uint(b, at, ew).unwrap();
                        let what = if v == 0 {
                            format!("  index[{i}]: empty")
                        } else {
                            format!("  index[{i}]: key {}", v - 1)
                        };
                        line(&mut out, at, &b[at..at + ew], &what);
                    }
                    p += t * ew;
                }
            }
            t if t & !3 == TAG_ROOT => {
                let w = WIDTHS[(t & 3) as usize];
                line(
                    &mut out,
                    p,
                    &b[p..p + 1],
                    &format!("root record, slot width {w}"),
                );
                let raw = read_uint(b, p + 1, w).unwrap();
                line(
                    &mut out,
                    p + 1,
                    &b[p + 1..p + 1 + w],
                    &format!("  root slot: {}", slot_text(raw, w, start, false)),
                );
                line(
                    &mut out,
                    p + 1 + w,
                    &b[p + 1 + w..p + 2 + w],
                    "  trailing copy of the root tag (the last byte)",
                );
                p += 2 + w;
            }
            t @ TAG_NUM_ARRAY..=TAG_NUM_ARRAY_DEC => {
                let (n, mut q) = varint(b, p + 1);
                let (name, size) = match ElemType::from_code(t - TAG_NUM_ARRAY) {
                    Some(e) => (e.name().to_string(), e.size()),
                    None => {
                        q += 1;
                        (format!("decimal, exponent {}", b[q - 1] as i8), 4)
                    }
                };
                line(
                    &mut out,
                    p,
                    &b[p..q],
                    &format!("number array (version 2) of {name}, varint count {n}"),
                );
                for i in 0..n as usize {
                    let at = q + i * size;
                    line(&mut out, at, &b[at..at + size], &format!("  element {i}"));
                }
                p = q + n as usize * size;
            }
            t => panic!("unknown tag {t:#04x} at {p}"),
        }
        assert!(p > start);
    }
    out
}

fn show(title: &str, what: &str, note: &str, bytes: &[u8]) {
    roving::validate(bytes).expect("the example must validate");
    let doc = roving::Document::open(bytes).unwrap();
    let json = roving::json::to_json(doc.root()).unwrap_or_else(|e| format!("(no JSON: {e})"));
    println!("### {title}\n");
    println!("Value: {what}  ");
    println!("JSON form: `{json}`  ");
    println!("{} bytes: `{}`\n", bytes.len(), hex(bytes));
    println!("```text\n{}```\n", annotate(bytes));
    if !note.is_empty() {
        println!("{note}\n");
    }
}

fn json(title: &str, text: &str, note: &str) -> Res<Vec<u8>> {
    let bytes = roving::json::from_json(text.as_bytes())?;
    show(title, &format!("JSON `{text}`"), note, &bytes);
    Ok(bytes)
}

fn built(title: &str, what: &str, note: &str, f: impl FnOnce(&mut Encoder) -> Res<()>) -> Res<()> {
    let mut e = Encoder::new();
    f(&mut e)?;
    let bytes = e.finish()?;
    show(title, what, note, &bytes);
    Ok(())
}

/// For a document whose root is a map of more than 8 keys: each key's hash,
/// home and actual index position.
fn probe_table(bytes: &[u8]) -> Res<()> {
    let doc = roving::Document::open(bytes)?;
    let map = doc.root().as_map().unwrap();
    let shape = map.shape_offset().unwrap();
    let (n, keys) = read_varint(bytes, shape + 1).unwrap();
    let n = n as usize;
    let w = WIDTHS[(bytes[shape] & 3) as usize];
    let index = keys + n * w;
    let t = index_table_size(n);
    let ew = index_entry_width(n);
    println!(
        "| key | index k | `key_hash` | home = hash & {} | position |",
        t - 1
    );
    println!("|---|---|---|---|---|");
    for (k, key) in map.keys().enumerate() {
        let h = key_hash(key.as_bytes());
        let pos = (0..t)
            .find(|&i| read_uint(bytes, index + i * ew, ew) == Some(k as u64 + 1))
            .unwrap();
        println!(
            "| `{key:?}` | {k} | `{h:016x}` | {} | {pos} |",
            index_home(h, t)
        );
    }
    println!();
    Ok(())
}

/// An append-only update made by hand: the original document
/// `{"name":"Ada","langs":["en","fr"]}` gets a new root in which `name` is
/// "Grace"; the new bytes reuse the original's shape, array and strings.
fn append_example() -> Res<()> {
    let orig = roving::json::from_json(br#"{"name":"Ada","langs":["en","fr"]}"#)?;
    let doc = roving::Document::open(&orig)?;
    let map = doc.root().as_map().unwrap();
    let map_pos = map.offset().unwrap();
    let shape_pos = map.shape_offset().unwrap();
    let langs_pos = map
        .get("langs")
        .unwrap()
        .as_array()
        .unwrap()
        .offset()
        .unwrap();

    let mut b = orig.clone();
    // 1. The new string.
    let s = b.len();
    b.push(TAG_SHORT_STR | 5);
    b.extend_from_slice(b"Grace");
    // 2. A new map record of width 1 reusing the old shape and array.
    let m = b.len();
    b.push(TAG_MAP);
    write_varint(&mut b, ((m - shape_pos) as u64) << 1);
    for target in [s, langs_pos] {
        let d = (m - target) as u64;
        assert!(d << 2 < 256, "example assumes width 1");
        b.push((d << 2) as u8);
    }
    // 3. A new root record pointing at the new map.
    let r = b.len();
    let d = (r - m) as u64;
    b.extend_from_slice(&[TAG_ROOT, (d << 2) as u8, TAG_ROOT]);

    println!("### Append-only update\n");
    println!(
        "The original document `{{\"name\":\"Ada\",\"langs\":[\"en\",\"fr\"]}}` ({} bytes, old map @{map_pos}) \
         is updated to name \"Grace\" by appending {} bytes: the new string, a map that reuses the old \
         shape and the old array, and a new root. The old root record stays in the middle, unreferenced.\n",
        orig.len(),
        b.len() - orig.len()
    );
    roving::validate(&b).expect("the appended document must validate");
    let doc = roving::Document::open(&b)?;
    println!(
        "JSON form (after the update): `{}`  ",
        roving::json::to_json(doc.root())?
    );
    println!("{} bytes: `{}`\n", b.len(), hex(&b));
    println!("```text\n{}```\n", annotate(&b));
    Ok(())
}

fn main() -> Res<()> {
    println!("<!-- generated by `cargo run -p roving --example spec_examples` -->\n");

    built(
        "Null root",
        "`null`",
        "The smallest document: header, then a root record of width 1 whose slot is \
         the special constant 0.",
        |e| e.null(),
    )?;
    json(
        "Small integer (inline in a 1-byte slot)",
        "7",
        "`1d` = `000111 01`: kind `01` (small integer), payload 7.",
    )?;
    json(
        "Integer that needs a 2-byte slot",
        "1000",
        "1000 is outside the 1-byte inline range (-32..=31). Width 1 would need an \
         `i16` record (3 bytes) plus a 3-byte root; width 2 holds it inline in a \
         4-byte root, so the encoder picks width 2 (`1d` = root tag `1c | 1`). \
         `a1 0f` = 0x0fa1 = 1000 << 2 | 1.",
    )?;
    json(
        "Integer outside the inline range of an 8-byte slot",
        "-4611686018427387905",
        "-2^62 - 1 is below the 8-byte inline range (-2^61..), so it is an `i64` record, \
         written when the value is written; the root refers to it.",
    )?;
    json("Unsigned 64-bit integer", "18446744073709551615", "")?;
    json(
        "A string",
        r#""hello""#,
        "Short form: tag `0x80 + 5`. The root slot `18` is a relative reference: \
         6 back from the root's tag at @9.",
    )?;
    json(
        "A long string and absolute references",
        r#"["id","A string of more than sixty-three bytes uses the long form, tag 0x0c.","id"]"#,
        "The 69-byte string uses tag `0c` and a varint length. The array at @77 cannot \
         reach @3 or @6 with a 1-byte relative reference (distances 74 and 71 exceed 63), \
         but an absolute one fits: `0e` = 3 << 2 | `10`, `1a` = 6 << 2 | `10`. The two \
         `\"id\"` elements are one record.",
    )?;
    json(
        "A 2-element array",
        r#"[1,"ab"]"#,
        "Children first: the string, then the array, then the root. Slot 0 is the \
         integer 1 inline (`05`), slot 1 refers 3 bytes back from the array's tag.",
    )?;
    json(
        "A map of 2 keys",
        r#"{"name":"Ada","age":36}"#,
        "The keys are interned as they are written (`name`, then the value `Ada`, then \
         `age`); when the map ends its shape is written, then the map. 36 is outside \
         the 1-byte inline range, so width 1 costs an `i8` record (2 bytes) plus a \
         4-byte map, and width 2 a 6-byte map: a tie, and the narrower width wins.",
    )?;
    json(
        "Two maps sharing a shape",
        r#"[{"x":1,"y":2},{"x":3,"y":4}]"#,
        "One shape at @7, two 4-byte maps referring to it.",
    )?;
    json(
        "A shared string (value and key)",
        r#"{"id":"id","tags":["id","id"]}"#,
        "`\"id\"` is stored once at @3 and referred to as a key (shape slot 0), as a \
         value (map slot 0) and twice as an array element.",
    )?;
    json(
        "Big integer (2^64)",
        "18446744073709551616",
        "One more than `u64::MAX`: a positive big integer with a 9-byte magnitude.",
    )?;
    json(
        "Negative big integer (-(2^64))",
        "-18446744073709551616",
        "",
    )?;
    json(
        "Decimal float",
        "0.1",
        "0.1 is not a binary32 value; as a decimal float it is `m = 1, e = -1`, and \
         1.0 / 10.0 in binary64 is exactly the double nearest to 0.1.",
    )?;
    json("Float exact as binary32", "1.5", "")?;
    json(
        "Float that needs binary64",
        "3.141592653589793",
        "16 significant digits do not fit an `i32` mantissa.",
    )?;
    built(
        "Negative zero and NaN",
        "array of `-0.0`, `NaN`, `+inf`",
        "All three are exact binary32 values, so the array is a number array of f32 \
         (section 6.14; version 2). Their JSON forms show what JSON cannot carry: NaN \
         and infinity become `null`.",
        |e| {
            e.begin_array()?;
            e.f64(-0.0)?;
            e.f64(f64::NAN)?;
            e.f64(f64::INFINITY)?;
            e.end_array()?;
            Ok(())
        },
    )?;
    built(
        "Timestamp with offset",
        "2024-05-01T12:30:00.5+02:00 (seconds 1714559400, nanos 500000000, offset 7200)",
        "The seconds are the instant (10:30:00Z); the offset +7200 s only says the \
         writer's local time was 12:30.",
        |e| e.timestamp(Timestamp::new(1_714_559_400, 500_000_000, Some(7200)).unwrap()),
    )?;
    built(
        "Timestamp without offset",
        "1970-01-01T00:00:01, no offset (a naive date and time)",
        "",
        |e| e.timestamp(Timestamp::new(1, 0, None).unwrap()),
    )?;
    built("Byte string", "bytes `00 ff 10`", "", |e| {
        e.bytes(&[0x00, 0xff, 0x10])
    })?;
    built(
        "Vector of f64 (with padding)",
        "f64 vector `[1.5, -2.25]`",
        "The count ends at offset 6; two zero bytes bring the data to offset 8, a \
         multiple of 8 counted from the document start.",
        |e| e.vector::<f64>(&[1.5, -2.25]),
    )?;
    built(
        "Vector of u16 inside an array",
        "array `[\"v\", u16 vector [1, 2, 3]]`",
        "The count ends at offset 8, already a multiple of 2: no padding.",
        |e| {
            e.begin_array()?;
            e.str("v")?;
            e.vector::<u16>(&[1, 2, 3])?;
            e.end_array()?;
            Ok(())
        },
    )?;
    built(
        "Extension value",
        "ext type id 64, payload `01 02 03`",
        "Type id 64 is the first one left to applications (1 to 63 are reserved for the \
         well-known types of section 13.1). Its JSON form is the generic one.",
        |e| e.ext(64, &[1, 2, 3]),
    )?;
    json(
        "Empty string, empty array, empty map",
        r#"{"":"","a":[],"m":{}}"#,
        "No records for the empty values: the empty-string key is the constant 3 in a \
         key slot, and the three values are the constants 3, 4 and 5.",
    )?;
    let big = json(
        "A map of more than 8 keys, with its hash index",
        r#"{"a":0,"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7,"i":8,"j":9}"#,
        "10 keys: the index has 16 entries (the smallest power of two >= 10 + 5 + 1) of \
         1 byte. Keys are inserted in order 0..9 at their home or the next empty \
         entry after it (wrapping around):",
    )?;
    probe_table(&big)?;
    built(
        "A shared subtree (DAG)",
        "`[[1,2],[1,2]]` where both elements are one record",
        "Written with `Encoder::reuse`; both slots of the outer array refer to @3.",
        |e| {
            e.begin_array()?;
            e.begin_array()?;
            e.i64(1)?;
            e.i64(2)?;
            let m = e.end_array()?;
            e.reuse(m)?;
            e.end_array()?;
            Ok(())
        },
    )?;
    json(
        "Duplicate keys in JSON (first position, last value)",
        r#"{"a":1,"b":2,"a":3}"#,
        "",
    )?;
    append_example()?;

    println!("### Key hash test values\n");
    println!("| key | `key_hash` (hex) | home in a 16-entry index |");
    println!("|---|---|---|");
    for k in [
        "",
        "a",
        "j",
        "name",
        "abcdefgh",
        "abcdefghi",
        "\u{e9}t\u{e9}",
    ] {
        let h = key_hash(k.as_bytes());
        println!("| `{k:?}` | `{h:016x}` | {} |", index_home(h, 16));
    }
    println!();
    println!("### Index sizes\n");
    println!("| keys | table entries | entry width |");
    println!("|---|---|---|");
    for n in [9usize, 10, 11, 20, 21, 100, 254, 255, 65534, 65535] {
        println!(
            "| {n} | {} | {} |",
            index_table_size(n),
            index_entry_width(n)
        );
    }
    Ok(())
}
