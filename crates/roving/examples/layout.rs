//! Prints how the bytes of a JSON file's roving encoding are spent, by record kind.
use roving::format::*;
fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/1000people.json").into());
    let json = std::fs::read(&path).unwrap();
    let doc = roving::json::from_json(&json).unwrap();
    let mut pos = HEADER_LEN;
    let mut by: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    while pos < doc.len() {
        let (name, end) = record_end(&doc, pos);
        let e = by.entry(name.to_string()).or_default();
        e.0 += 1;
        e.1 += end - pos;
        pos = end;
    }
    for (k, (n, b)) in &by {
        println!("{k:30} {n:8} records {b:9} bytes");
    }
    println!("total {}", doc.len());
}
fn record_end(b: &[u8], pos: usize) -> (&'static str, usize) {
    let tag = b[pos];
    match tag {
        t if t & 0xC0 == 0x80 => ("short str", pos + 1 + (t & 0x3f) as usize),
        TAG_STR => {
            let (l, p) = read_varint(b, pos + 1).unwrap();
            ("str", p + l as usize)
        }
        TAG_I8 => ("i8", pos + 2),
        TAG_I16 => ("i16", pos + 3),
        TAG_I32 => ("i32", pos + 5),
        TAG_F32 => ("f32", pos + 5),
        TAG_F64 => ("f64", pos + 9),
        TAG_F_DEC => ("fdec", pos + 6),
        TAG_I64 => ("i64", pos + 9),
        t if t & !3 == TAG_ARRAY => {
            let (n, p) = read_varint(b, pos + 1).unwrap();
            (
                ["array1", "array2", "array4", "array8"][(t & 3) as usize],
                p + n as usize * WIDTHS[(t & 3) as usize],
            )
        }
        t if t & !3 == TAG_MAP => {
            let w = WIDTHS[(t & 3) as usize];
            let (r, p) = read_varint(b, pos + 1).unwrap();
            let target = if r & 1 == 0 {
                pos - (r >> 1) as usize
            } else {
                (r >> 1) as usize
            };
            let (n, _) = read_varint(b, target + 1).unwrap();
            (
                ["map1", "map2", "map4", "map8"][(t & 3) as usize],
                p + n as usize * w,
            )
        }
        t if t & !3 == TAG_SHAPE => {
            let w = WIDTHS[(t & 3) as usize];
            let (n, p) = read_varint(b, pos + 1).unwrap();
            let n = n as usize;
            let idx = if n > SHAPE_LINEAR_MAX {
                index_table_size(n) * index_entry_width(n)
            } else {
                0
            };
            ("shape", p + n * w + idx)
        }
        t if t & !3 == TAG_ROOT => ("root", pos + 2 + WIDTHS[(t & 3) as usize]),
        _ => panic!("tag {tag}"),
    }
}
