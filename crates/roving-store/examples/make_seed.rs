//! Writes a small store (three BBItem-like records) to the path given, as a
//! seed for the `store_open` fuzz target: `make_seed OUT.rvs`.
use roving_store::{Store, StoreOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).ok_or("usage: make_seed OUT.rvs")?;
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(format!("{out}-lock"));
    let mut store = Store::open(&out, &StoreOptions::new().map_size(1 << 20))?;
    for i in 0..3 {
        let json = format!(
            r#"{{"identifier":"item {i}","views":{i},"hash":"someHash120djas!hf0410AjsifhsFjsd"}}"#
        );
        store.put(
            &format!("item {i}"),
            roving::json::from_json(json.as_bytes())?,
        )?;
    }
    store.flush()?;
    Ok(())
}
