//! Typed records of the three JSON files of `data/corpus/` (`canada.json`,
//! `citm_catalog.json`, `twitter.json`, the files of serde-rs'
//! json-benchmark), written from the data, and the inputs and checks of the
//! corpus benchmark (`benches/corpus.rs`): per file, JSON → roving beside
//! `serde_json::Value`, and typed encode and decode beside rmp-serde with
//! named fields.

pub mod canada;
pub mod citm;
pub mod twitter;

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{workspace_root, Failure};

/// The files, by the name the benchmark and its report use, and the file
/// name in `data/corpus/`.
pub const FILES: [(&str, &str); 3] = [
    ("canada", "canada.json"),
    ("citm_catalog", "citm_catalog.json"),
    ("twitter", "twitter.json"),
];

/// The folder of the files: `$ROVING_DATA/corpus` if `ROVING_DATA` is set,
/// else the repository's `data/corpus/`.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("ROVING_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("data"),
    }
    .join("corpus")
}

/// JSON text without the whitespace between tokens (strings and numbers
/// are kept byte for byte, keys stay in file order).
pub fn minify(json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for &b in json {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            in_string = b == b'"';
            out.push(b);
        }
    }
    out
}

/// One file in every form the benchmark starts from.
pub struct CorpusFile<T> {
    /// The benchmark's name of the file (`canada`, ...).
    pub name: &'static str,
    /// The file as read.
    pub pretty: Vec<u8>,
    /// The file minified: the input of the JSON benchmarks.
    pub json: Vec<u8>,
    /// The typed records, decoded from `roving_json` (roving parses
    /// numbers correctly rounded; serde_json without its `float_roundtrip`
    /// feature, as the peer runs, can be one unit in the last place off).
    pub typed: T,
    /// `roving::json::from_json(json)`.
    pub roving_json: Vec<u8>,
    /// `roving::to_vec(typed)`: the input of roving's typed decode.
    pub roving_typed: Vec<u8>,
    /// `rmp_serde::to_vec_named(typed)` (structs as maps with field names,
    /// the data model of roving's serde; rmp-serde's structs as arrays
    /// cannot carry twitter's optional fields that are left out).
    pub msgpack_named: Vec<u8>,
}

fn err<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> Failure + '_ {
    move |e| format!("{what}: {e}")
}

impl<T: Serialize + DeserializeOwned> CorpusFile<T> {
    /// Reads `data/corpus/<file>` and builds every encoding.
    pub fn load(name: &'static str) -> Result<Self, Failure> {
        let file = FILES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| format!("no corpus file named {name}"))?;
        let path = corpus_dir().join(file);
        let pretty = std::fs::read(&path).map_err(err(&path.display().to_string()))?;
        Self::from_json(name, pretty)
    }

    /// Builds every encoding from the JSON text of a file.
    pub fn from_json(name: &'static str, pretty: Vec<u8>) -> Result<Self, Failure> {
        let json = minify(&pretty);
        let roving_json = roving::json::from_json(&json).map_err(err(name))?;
        let typed: T = roving::from_slice(&roving_json).map_err(err(name))?;
        Ok(CorpusFile {
            name,
            roving_typed: roving::to_vec(&typed).map_err(err(name))?,
            msgpack_named: rmp_serde::to_vec_named(&typed).map_err(err(name))?,
            roving_json,
            pretty,
            json,
            typed,
        })
    }
}

impl<T: Serialize + DeserializeOwned + PartialEq> CorpusFile<T> {
    /// Checks that every decode the benchmark times gives the data back
    /// exactly, and that the typed records lose nothing of the file: JSON →
    /// struct → roving → struct gives the struct, and the roving documents
    /// (from JSON and from the struct) decode to the same
    /// `serde_json::Value` as the struct; serde_json's own parse of the
    /// text agrees with all of them (floats to one unit in the last place).
    pub fn check(&self) -> Result<(), Failure> {
        let name = self.name;
        let same = |what: &str, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(format!("{name}: {what}: decodes to different data"))
            }
        };
        let typed = |bytes: &[u8]| roving::from_slice::<T>(bytes);
        let from_typed = typed(&self.roving_typed).map_err(err(name))?;
        same("roving to_vec -> from_slice", from_typed == self.typed)?;
        let from_json = typed(&self.roving_json).map_err(err(name))?;
        same(
            "roving from_json -> typed from_slice",
            from_json == self.typed,
        )?;
        let named: T = rmp_serde::from_slice(&self.msgpack_named).map_err(err(name))?;
        same("rmp_serde to_vec_named -> from_slice", named == self.typed)?;
        let by_serde_json: T = serde_json::from_slice(&self.json).map_err(err(name))?;

        // Nothing of the file is lost by the types: the values agree.
        let want = serde_json::to_value(&self.typed).map_err(err(name))?;
        let v = roving::from_slice::<serde_json::Value>(&self.roving_typed).map_err(err(name))?;
        same("roving to_vec -> Value", v == want)?;
        let text: serde_json::Value = serde_json::from_slice(&self.json).map_err(err(name))?;
        let v = roving::from_slice::<serde_json::Value>(&self.roving_json).map_err(err(name))?;
        same("roving from_json -> Value", close(&v, &text))?;
        same("serde_json's Value of the text", close(&text, &want))?;
        let typed = serde_json::to_value(&by_serde_json).map_err(err(name))?;
        same("serde_json's typed parse of the text", close(&typed, &want))?;
        Ok(())
    }
}

/// The same values, floats allowed one unit in the last place apart, and an
/// integer equal to a float of the same value (`47` in the text is `47.0` in
/// a typed `f64`).
fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x.is_sign_negative() == y.is_sign_negative() && x.to_bits().abs_diff(y.to_bits()) <= 1
        }
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| close(x, y))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, x), (ky, y))| kx == ky && close(x, y))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Serialize + DeserializeOwned + PartialEq>(name: &'static str) {
        let f = CorpusFile::<T>::load(name).unwrap();
        f.check().unwrap();
        // The minified text is the same JSON as the file.
        let a: serde_json::Value = serde_json::from_slice(&f.pretty).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&f.json).unwrap();
        assert_eq!(a, b);
        assert!(f.json.len() < f.pretty.len());
    }

    #[test]
    fn canada_round_trips() {
        check::<canada::FeatureCollection>("canada");
    }

    #[test]
    fn citm_catalog_round_trips() {
        check::<citm::CitmCatalog>("citm_catalog");
    }

    #[test]
    fn twitter_round_trips() {
        check::<twitter::Twitter>("twitter");
    }

    #[test]
    fn minify_keeps_strings() {
        let text = br#"{ "a b" : [1, "x \" y\\" , {"c":"\t"} ] }"#;
        assert_eq!(
            minify(text),
            br#"{"a b":[1,"x \" y\\",{"c":"\t"}]}"#.to_vec()
        );
    }
}
