//! A driver for instruction-count measurements of lookups:
//! `cargo build --release -p roving --example lookup_driver`, then
//! `ROVING_DRIVER=name|handle|lazy|lazy_handle|lazy_try|open_lazy ROVING_DRIVER_N=100000 \
//!  valgrind --tool=callgrind target/release/examples/lookup_driver`.
//! Subtract the run with `ROVING_DRIVER_N=0` to get the cost of the loop.
//! `ROVING_DRIVER=sizes` prints the sizes of the reader's types instead.

use std::hint::black_box;

fn main() {
    let mode = std::env::var("ROVING_DRIVER").unwrap_or_else(|_| "name".into());
    if mode == "sizes" {
        sizes();
    } else {
        drive(&mode);
    }
}

fn drive(mode: &str) {
    let json = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/1000people.json"
    ))
    .unwrap();
    let bytes = roving::json::from_json(&json).unwrap();
    let n: usize = std::env::var("ROVING_DRIVER_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let doc = if mode.starts_with("lazy") {
        roving::Document::open_lazy(&bytes).unwrap()
    } else {
        // SAFETY: written by roving's encoder just above.
        unsafe { roving::Document::open_trusted(&bytes) }.unwrap()
    };
    let root = doc.root();
    let handle = roving::KeyHandle::new("name");
    let mut total = 0usize;
    match mode {
        "name" | "lazy" => {
            for _ in 0..n {
                let s = black_box(root)
                    .index(black_box(123))
                    .unwrap()
                    .get(black_box("name"))
                    .unwrap()
                    .as_str();
                total += black_box(s).map_or(0, str::len);
            }
        }
        "handle" | "lazy_handle" => {
            for _ in 0..n {
                let m = black_box(root)
                    .index(black_box(123))
                    .unwrap()
                    .as_map()
                    .unwrap();
                let s = m.get_with(black_box(&handle)).unwrap().as_str();
                total += black_box(s).map_or(0, str::len);
            }
        }
        "lazy_try" => {
            for _ in 0..n {
                let s = black_box(root)
                    .try_index(black_box(123))
                    .unwrap()
                    .unwrap()
                    .try_get(black_box("name"))
                    .unwrap()
                    .unwrap()
                    .as_str();
                total += black_box(s).map_or(0, str::len);
            }
        }
        "open_lazy" => {
            for _ in 0..n {
                let d = roving::Document::open_lazy(black_box(&bytes)).unwrap();
                let s = d
                    .root()
                    .index(black_box(123))
                    .unwrap()
                    .get(black_box("name"))
                    .unwrap()
                    .as_str();
                total += black_box(s).map_or(0, str::len);
            }
        }
        other => panic!("unknown mode {other}"),
    }
    black_box(total);
}

fn sizes() {
    use std::mem::size_of;
    eprintln!(
        "Value {} Option<Value> {} Array {} Map {} Vector {}",
        size_of::<roving::Value>(),
        size_of::<Option<roving::Value>>(),
        size_of::<roving::Array>(),
        size_of::<roving::Map>(),
        size_of::<roving::Vector>()
    );
}
