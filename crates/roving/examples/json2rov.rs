//! Converts a JSON file to a roving file: `json2rov IN.json OUT.rov`.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        return Err("usage: json2rov IN.json OUT.rov".into());
    }
    let doc = roving::json::from_json(&std::fs::read(&args[1])?)?;
    std::fs::write(&args[2], doc)?;
    Ok(())
}
