//! Shared pieces of the roving benchmarks: the typed `Person` records of
//! `1000people.json` (with serde, bitcode and rkyv derives), the data loader
//! and the encoders each contender uses, so the benchmark and its tests build
//! every format the same way.
//!
//! The benchmark itself is `benches/peers.rs`; `benches/corpus.rs` runs
//! the three files of `data/corpus/` with the typed records of [`corpus`].
//! `scripts/bench_report.py` turns their results into `docs/BENCHMARKS.md`.

use std::path::PathBuf;

pub mod corpus;

use serde::{Deserialize, Serialize};

/// One friend of a [`Person`] (owned strings).
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Friend {
    /// `id`
    pub id: u32,
    /// `name`
    pub name: String,
}

/// One record of `1000people.json` (owned strings).
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Person {
    /// `_id`
    #[serde(rename = "_id")]
    pub id: String,
    /// `type`
    #[serde(rename = "type")]
    pub kind: String,
    /// `index`
    pub index: u32,
    /// `guid`
    pub guid: String,
    /// `isActive`
    #[serde(rename = "isActive")]
    pub is_active: bool,
    /// `balance`
    pub balance: String,
    /// `picture`
    pub picture: String,
    /// `age`
    pub age: u32,
    /// `eyeColor`
    #[serde(rename = "eyeColor")]
    pub eye_color: String,
    /// `name`
    pub name: String,
    /// `gender`
    pub gender: String,
    /// `company`
    pub company: String,
    /// `email`
    pub email: String,
    /// `phone`
    pub phone: String,
    /// `address`
    pub address: String,
    /// `about`
    pub about: String,
    /// `registered`
    pub registered: String,
    /// `latitude`
    pub latitude: f64,
    /// `longitude`
    pub longitude: f64,
    /// `tags`
    pub tags: Vec<String>,
    /// `friends`
    pub friends: Vec<Friend>,
}

/// One friend of a [`PersonRef`] (strings borrowed from the input).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct FriendRef<'a> {
    /// `id`
    pub id: u32,
    /// `name`
    pub name: &'a str,
}

/// One record of `1000people.json` with every string borrowed from the
/// input (for formats that can hand out `&str` into their buffer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct PersonRef<'a> {
    /// `_id`
    #[serde(rename = "_id")]
    pub id: &'a str,
    /// `type`
    #[serde(rename = "type")]
    pub kind: &'a str,
    /// `index`
    pub index: u32,
    /// `guid`
    pub guid: &'a str,
    /// `isActive`
    #[serde(rename = "isActive")]
    pub is_active: bool,
    /// `balance`
    pub balance: &'a str,
    /// `picture`
    pub picture: &'a str,
    /// `age`
    pub age: u32,
    /// `eyeColor`
    #[serde(rename = "eyeColor")]
    pub eye_color: &'a str,
    /// `name`
    pub name: &'a str,
    /// `gender`
    pub gender: &'a str,
    /// `company`
    pub company: &'a str,
    /// `email`
    pub email: &'a str,
    /// `phone`
    pub phone: &'a str,
    /// `address`
    pub address: &'a str,
    /// `about`
    pub about: &'a str,
    /// `registered`
    pub registered: &'a str,
    /// `latitude`
    pub latitude: f64,
    /// `longitude`
    pub longitude: f64,
    /// `tags`
    #[serde(borrow)]
    pub tags: Vec<&'a str>,
    /// `friends`
    #[serde(borrow)]
    pub friends: Vec<FriendRef<'a>>,
}

impl PersonRef<'_> {
    /// The owned copy of this record.
    pub fn to_owned_person(&self) -> Person {
        Person {
            id: self.id.into(),
            kind: self.kind.into(),
            index: self.index,
            guid: self.guid.into(),
            is_active: self.is_active,
            balance: self.balance.into(),
            picture: self.picture.into(),
            age: self.age,
            eye_color: self.eye_color.into(),
            name: self.name.into(),
            gender: self.gender.into(),
            company: self.company.into(),
            email: self.email.into(),
            phone: self.phone.into(),
            address: self.address.into(),
            about: self.about.into(),
            registered: self.registered.into(),
            latitude: self.latitude,
            longitude: self.longitude,
            tags: self.tags.iter().map(|t| (*t).into()).collect(),
            friends: self
                .friends
                .iter()
                .map(|f| Friend {
                    id: f.id,
                    name: f.name.into(),
                })
                .collect(),
        }
    }
}

/// The minified size of `1000people.json` that the issue's size target is
/// measured against.
pub const MINIFIED_JSON_LEN: usize = 1_010_316;

/// Where the data file is: `$ROVING_BENCH_DATA` (the file) if set, else
/// `1000people.json` in `$ROVING_DATA` if set, else in the repository's
/// `data/` (as the core's tests do).
pub fn data_path() -> PathBuf {
    if let Some(p) = std::env::var_os("ROVING_BENCH_DATA") {
        return PathBuf::from(p);
    }
    match std::env::var_os("ROVING_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("data"),
    }
    .join(DATA_FILE)
}

/// The data file's name.
pub const DATA_FILE: &str = "1000people.json";

/// The workspace root (two levels above this crate's manifest).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where criterion writes its results (the same rule criterion 0.5 uses:
/// `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else
/// `<workspace>/target/criterion`).
pub fn criterion_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(p).join("criterion");
    }
    workspace_root().join("target/criterion")
}

/// The data set in every form the benchmarks start from.
pub struct Corpus {
    /// The file as read (pretty-printed JSON).
    pub pretty: Vec<u8>,
    /// Minified JSON (serde_json, keys in file order): the input of every
    /// JSON benchmark.
    pub json: Vec<u8>,
    /// The records as a `serde_json::Value`.
    pub value: serde_json::Value,
    /// The records as typed structs.
    pub people: Vec<Person>,
}

/// Errors while loading or checking the data, as one line of text.
pub type Failure = String;

impl Corpus {
    /// Loads the data from [`data_path`] and minifies it.
    pub fn load() -> Result<Corpus, Failure> {
        let path = data_path();
        let pretty =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Corpus::from_json(pretty)
    }

    /// Builds the corpus from JSON bytes.
    pub fn from_json(pretty: Vec<u8>) -> Result<Corpus, Failure> {
        let people: Vec<Person> =
            serde_json::from_slice(&pretty).map_err(|e| format!("typed parse: {e}"))?;
        // Minify through the typed records: keeps the file's key order
        // (serde_json::Value without `preserve_order` would sort the keys).
        let json = serde_json::to_vec(&people).map_err(|e| format!("minify: {e}"))?;
        let value: serde_json::Value =
            serde_json::from_slice(&json).map_err(|e| format!("value parse: {e}"))?;
        Ok(Corpus {
            pretty,
            json,
            value,
            people,
        })
    }
}

/// Encoders of each format, as the benchmarks use them.
pub mod enc {
    use super::{Failure, Person};

    /// JSON -> roving.
    pub fn roving_from_json(json: &[u8]) -> Result<Vec<u8>, Failure> {
        roving::json::from_json(json).map_err(|e| e.to_string())
    }
    /// Typed -> roving.
    pub fn roving_typed(p: &[Person]) -> Result<Vec<u8>, Failure> {
        roving::to_vec(p).map_err(|e| e.to_string())
    }
    /// Value -> MessagePack (maps with string keys).
    pub fn msgpack_value(v: &serde_json::Value) -> Result<Vec<u8>, Failure> {
        rmp_serde::to_vec(v).map_err(|e| e.to_string())
    }
    /// Typed -> MessagePack (rmp-serde's default: structs as arrays).
    pub fn msgpack_typed(p: &[Person]) -> Result<Vec<u8>, Failure> {
        rmp_serde::to_vec(p).map_err(|e| e.to_string())
    }
    /// Typed -> MessagePack with field names (structs as maps).
    pub fn msgpack_typed_named(p: &[Person]) -> Result<Vec<u8>, Failure> {
        rmp_serde::to_vec_named(p).map_err(|e| e.to_string())
    }
    /// Any `Serialize` -> CBOR.
    pub fn cbor<T: serde::Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, Failure> {
        let mut out = Vec::new();
        ciborium::into_writer(v, &mut out).map_err(|e| e.to_string())?;
        Ok(out)
    }
    /// Any `Serialize` -> FlexBuffers.
    pub fn flex<T: serde::Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, Failure> {
        flexbuffers::to_vec(v).map_err(|e| e.to_string())
    }
    /// Typed -> bitcode (derive).
    pub fn bitcode_typed(p: &Vec<Person>) -> Vec<u8> {
        bitcode::encode(p)
    }
    /// Typed -> rkyv.
    pub fn rkyv_typed(p: &Vec<Person>) -> Result<rkyv::util::AlignedVec, Failure> {
        rkyv::to_bytes::<rkyv::rancor::Error>(p).map_err(|e| e.to_string())
    }
}

/// Checks that every decode the benchmark times gives back the data
/// exactly (`people`, or `value` for the dynamic decodes), each from the
/// bytes the benchmark decodes; the benchmark runs this before timing
/// anything, so no contender is timed doing less than a full, correct decode.
pub fn check_decodes(c: &Corpus) -> Result<(), Failure> {
    fn same<T: PartialEq>(what: &str, got: Result<T, String>, want: &T) -> Result<(), Failure> {
        match got {
            Ok(v) if v == *want => Ok(()),
            Ok(_) => Err(format!("{what}: decodes to different data")),
            Err(e) => Err(format!("{what}: {e}")),
        }
    }
    fn s<T>(r: Result<T, roving::Error>) -> Result<T, String> {
        r.map_err(|e| e.to_string())
    }
    fn owned(v: Vec<PersonRef<'_>>) -> Vec<Person> {
        v.iter().map(PersonRef::to_owned_person).collect()
    }
    let people = &c.people;
    let value = &c.value;
    let rv = (enc::roving_from_json(&c.json))?;
    let mp_value = (enc::msgpack_value(value))?;
    let mp_typed = (enc::msgpack_typed(people))?;
    let cbor_value = (enc::cbor(value))?;
    let cbor_typed = (enc::cbor(people))?;
    let flex_value = (enc::flex(value))?;
    let flex_typed = (enc::flex(people))?;
    let bc = enc::bitcode_typed(people);
    let rk = enc::rkyv_typed(people)?;

    // decode_value
    same(
        "decode_value/roving",
        s(roving::from_slice::<serde_json::Value>(&rv)),
        value,
    )?;
    same(
        "decode_value/serde_json",
        serde_json::from_slice::<serde_json::Value>(&c.json).map_err(|e| e.to_string()),
        value,
    )?;
    same(
        "decode_value/simd-json",
        simd_json::serde::from_slice_with_buffers::<serde_json::Value>(
            &mut c.json.clone(),
            &mut simd_json::Buffers::new(c.json.len()),
        )
        .map_err(|e| e.to_string()),
        value,
    )?;
    same(
        "decode_value/rmp-serde",
        rmp_serde::from_slice::<serde_json::Value>(&mp_value).map_err(|e| e.to_string()),
        value,
    )?;
    same(
        "decode_value/ciborium",
        ciborium::from_reader::<serde_json::Value, _>(&cbor_value[..]).map_err(|e| e.to_string()),
        value,
    )?;
    same(
        "decode_value/flexbuffers",
        flexbuffers::from_slice::<serde_json::Value>(&flex_value).map_err(|e| e.to_string()),
        value,
    )?;

    // decode_typed
    same(
        "decode_typed/roving",
        s(roving::from_slice::<Vec<Person>>(&rv)),
        people,
    )?;
    same(
        "decode_typed/serde_json",
        serde_json::from_slice::<Vec<Person>>(&c.json).map_err(|e| e.to_string()),
        people,
    )?;
    same(
        "decode_typed/simd-json",
        simd_json::serde::from_slice_with_buffers::<Vec<Person>>(
            &mut c.json.clone(),
            &mut simd_json::Buffers::new(c.json.len()),
        )
        .map_err(|e| e.to_string()),
        people,
    )?;
    same(
        "decode_typed/rmp-serde",
        rmp_serde::from_slice::<Vec<Person>>(&mp_typed).map_err(|e| e.to_string()),
        people,
    )?;
    same(
        "decode_typed/ciborium",
        ciborium::from_reader::<Vec<Person>, _>(&cbor_typed[..]).map_err(|e| e.to_string()),
        people,
    )?;
    same(
        "decode_typed/flexbuffers",
        flexbuffers::from_slice::<Vec<Person>>(&flex_typed).map_err(|e| e.to_string()),
        people,
    )?;
    same(
        "decode_typed/bitcode",
        bitcode::decode::<Vec<Person>>(&bc).map_err(|e| e.to_string()),
        people,
    )?;
    same(
        "decode_typed/rkyv",
        rkyv::from_bytes::<Vec<Person>, rkyv::rancor::Error>(&rk).map_err(|e| e.to_string()),
        people,
    )?;

    // decode_typed_borrowed (rkyv's row is `access`: checked below)
    same(
        "decode_typed_borrowed/roving",
        s(roving::from_slice::<Vec<PersonRef<'_>>>(&rv)).map(owned),
        people,
    )?;
    same(
        "decode_typed_borrowed/rmp-serde",
        rmp_serde::from_slice::<Vec<PersonRef<'_>>>(&mp_typed)
            .map(owned)
            .map_err(|e| e.to_string()),
        people,
    )?;
    same(
        "decode_typed_borrowed/flexbuffers",
        flexbuffers::from_slice::<Vec<PersonRef<'_>>>(&flex_typed)
            .map(owned)
            .map_err(|e| e.to_string()),
        people,
    )?;
    same(
        "decode_typed_borrowed/bitcode",
        bitcode::decode::<Vec<PersonRef<'_>>>(&bc)
            .map(owned)
            .map_err(|e| e.to_string()),
        people,
    )?;
    if bitcode::Buffer::new().encode(people) != &bc[..] {
        return Err("encode_typed/bitcode_reuse: other bytes than bitcode::encode".into());
    }
    let archived = rkyv::access::<rkyv::Archived<Vec<Person>>, rkyv::rancor::Error>(&rk)
        .map_err(|e| format!("decode_typed_borrowed/rkyv: {e}"))?;
    let names: Vec<&str> = archived.iter().map(|p| p.name.as_str()).collect();
    let want: Vec<&str> = people.iter().map(|p| p.name.as_str()).collect();
    if names != want {
        return Err("decode_typed_borrowed/rkyv: archived records differ".into());
    }

    // encode_typed / json_to_format outputs that no decode above reads
    let typed = enc::roving_typed(people)?;
    same(
        "encode_typed/roving",
        s(roving::from_slice::<Vec<Person>>(&typed)),
        people,
    )?;
    let named = enc::msgpack_typed_named(people)?;
    same(
        "encode_typed/rmp-serde_named",
        rmp_serde::from_slice::<Vec<Person>>(&named).map_err(|e| e.to_string()),
        people,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Corpus {
        Corpus::load().expect("data")
    }

    #[test]
    fn every_timed_decode_gives_the_data_back() {
        check_decodes(&corpus()).unwrap();
    }

    #[test]
    fn minified_length_matches_issue() {
        assert_eq!(corpus().json.len(), MINIFIED_JSON_LEN);
    }

    #[test]
    fn every_format_round_trips() {
        let c = corpus();
        let rv = enc::roving_from_json(&c.json).unwrap();
        let doc = roving::Document::open(&rv).unwrap();
        assert_eq!(
            doc.root().index(123).unwrap().get("name").unwrap().as_str(),
            Some(c.people[123].name.as_str())
        );
        let h = roving::KeyHandle::new("name");
        let m = doc.root().index(123).unwrap().as_map().unwrap();
        assert_eq!(
            m.get_with(&h).unwrap().as_str(),
            Some(c.people[123].name.as_str())
        );

        let typed: Vec<Person> = roving::from_slice(&rv).unwrap();
        assert_eq!(typed, c.people);
        let typed_rv = enc::roving_typed(&c.people).unwrap();
        let typed2: Vec<Person> = roving::from_slice(&typed_rv).unwrap();
        assert_eq!(typed2, c.people);
        let borrowed: Vec<PersonRef<'_>> = roving::from_slice(&rv).unwrap();
        assert_eq!(borrowed[999].to_owned_person(), c.people[999]);
        let v: serde_json::Value = roving::from_slice(&rv).unwrap();
        assert_eq!(v, c.value);

        let mp = enc::msgpack_typed(&c.people).unwrap();
        assert_eq!(rmp_serde::from_slice::<Vec<Person>>(&mp).unwrap(), c.people);
        let mpv = enc::msgpack_value(&c.value).unwrap();
        assert_eq!(
            rmp_serde::from_slice::<serde_json::Value>(&mpv).unwrap(),
            c.value
        );
        let cb = enc::cbor(&c.value).unwrap();
        assert_eq!(
            ciborium::from_reader::<serde_json::Value, _>(&cb[..]).unwrap(),
            c.value
        );
        let fx = enc::flex(&c.value).unwrap();
        assert_eq!(
            flexbuffers::from_slice::<serde_json::Value>(&fx).unwrap(),
            c.value
        );
        let bc = enc::bitcode_typed(&c.people);
        assert_eq!(bitcode::decode::<Vec<Person>>(&bc).unwrap(), c.people);
        let rk = enc::rkyv_typed(&c.people).unwrap();
        let back = rkyv::from_bytes::<Vec<Person>, rkyv::rancor::Error>(&rk).unwrap();
        assert_eq!(back, c.people);
    }
}
