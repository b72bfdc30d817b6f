//! Looks `[123].name` up in a loop, as the `lookup_name` benchmarks do, for
//! instruction counts: `lookup_prof FILE.json|FILE.rov [N]`.
//! Run under `valgrind --tool=callgrind --toggle-collect='lookup_prof::get*'`
//! (`get_name` is one `index(123).get("name")`, `get_handle` the same through
//! a `KeyHandle`); each is called N times.
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: lookup_prof FILE [N]");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let bytes = std::fs::read(path).expect("read input");
    let doc = if path.ends_with(".json") {
        roving::json::from_json(&bytes).expect("convert")
    } else {
        bytes
    };
    // SAFETY: written by roving's encoder just above (or validated next).
    let d = unsafe { roving::Document::open_trusted(&doc) }.expect("open");
    roving::validate(&doc).expect("valid");
    let root = d.root();
    let handle = roving::KeyHandle::new("name");
    let mut total = 0usize;
    for _ in 0..n {
        total += get_name(black_box(root)).map_or(0, str::len);
        total += get_handle(black_box(root), black_box(&handle)).map_or(0, str::len);
    }
    eprintln!("{total}");
}

/// `root.index(123).get("name").as_str()`, never inlined: what callgrind counts.
#[inline(never)]
fn get_name(root: roving::Value<'_>) -> Option<&str> {
    root.index(black_box(123))?.get(black_box("name"))?.as_str()
}

/// The same through a key handle.
#[inline(never)]
fn get_handle<'a>(root: roving::Value<'a>, h: &roving::KeyHandle) -> Option<&'a str> {
    root.index(black_box(123))?.as_map()?.get_with(h)?.as_str()
}
