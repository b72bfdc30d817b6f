//! The serde data model and the common attributes, next to serde_json: a
//! value that round-trips through serde_json round-trips through roving,
//! and the two agree on those that round-trip through neither (serde's
//! own limits: `Some(None)` reads back as `None`; `i128` inside
//! `flatten`ed or internally tagged content).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::time::{Duration, SystemTime};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Whether `v` round-trips through serde_json and through roving; they
/// must agree, and the answer must be `expect`.
fn both<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: T, expect: bool) {
    let json = serde_json::to_string(&v)
        .ok()
        .and_then(|j| serde_json::from_str::<T>(&j).ok());
    let bytes = roving::to_vec(&v).unwrap();
    let rov = roving::from_slice::<T>(&bytes);
    assert_eq!(
        json.as_ref() == Some(&v),
        expect,
        "serde_json: {v:?} -> {json:?}"
    );
    assert_eq!(
        rov.as_ref().ok() == Some(&v),
        expect,
        "roving: {v:?} -> {rov:?}"
    );
}

fn rt<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: T) {
    both(v, true)
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum External {
    U,
    N(i32),
    T(i32, String),
    S { a: i32, b: Option<String> },
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(tag = "type")]
enum Internal {
    U,
    S { a: i32 },
    N(Fields),
    Big { v: u128 },
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    U,
    N(i32),
    T(i32, String),
    S { a: i32 },
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(untagged)]
enum Untagged {
    I(i64),
    F(f64),
    S(String),
    B(bool),
    Nul,
    V(Vec<Untagged>),
    M(BTreeMap<String, Untagged>),
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Fields {
    x: u8,
    y: Option<u64>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct FlattenMap {
    a: i32,
    #[serde(flatten)]
    rest: BTreeMap<String, serde_json::Value>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct FlattenStruct {
    a: i32,
    #[serde(flatten)]
    inner: Fields,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct FlattenWide {
    a: i32,
    #[serde(flatten)]
    inner: Wide,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Wide {
    big: i128,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Renamed {
    first_name: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    last_name: Option<String>,
    #[serde(default)]
    n: u8,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Unit;

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Tuple(i32, String);

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Newtype(String);

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct WithBytes {
    #[serde(with = "serde_bytes")]
    b: Vec<u8>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, PartialOrd, Ord, Eq, Hash)]
enum KeyEnum {
    Aa,
    Bb,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, PartialOrd, Ord, Eq)]
struct KeyNewtype(String);

#[test]
fn enums_in_every_form() {
    rt(External::U);
    rt(External::N(3));
    rt(External::T(3, "x".into()));
    rt(External::S { a: 1, b: None });
    rt(Internal::U);
    rt(Internal::S { a: 5 });
    rt(Internal::N(Fields {
        x: 1,
        y: Some(u64::MAX),
    }));
    rt(Adjacent::U);
    rt(Adjacent::N(1));
    rt(Adjacent::T(1, "a".into()));
    rt(Adjacent::S { a: 2 });
    rt(Untagged::V(vec![
        Untagged::I(-1),
        Untagged::F(1.5),
        Untagged::F(2.0),
        Untagged::S("s".into()),
        Untagged::B(true),
        Untagged::Nul,
        Untagged::M(BTreeMap::from([("k".into(), Untagged::I(1))])),
    ]));
    rt(Ok::<i32, String>(1));
    rt(Err::<i32, String>("e".into()));
}

#[test]
fn struct_attributes() {
    let rest = BTreeMap::from([(
        "b".to_string(),
        serde_json::json!({"c": [1, 2.5, "x", null]}),
    )]);
    rt(FlattenMap { a: 1, rest });
    rt(FlattenStruct {
        a: 1,
        inner: Fields { x: 2, y: None },
    });
    rt(Renamed {
        first_name: "a".into(),
        last_name: None,
        n: 0,
    });
    rt(Renamed {
        first_name: "a".into(),
        last_name: Some("b".into()),
        n: 9,
    });
    let doc = roving::json::from_json(br#"{"firstName":"a","extra":1}"#).unwrap();
    let err = roving::from_slice::<Renamed>(&doc).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown field `extra`, expected one of `firstName`, `lastName`, `n`"
    );
    rt(Unit);
    rt(Tuple(1, "x".into()));
    rt(Newtype("x".into()));
    rt(());
    // serde buffers flattened and internally tagged content without i128.
    both(
        FlattenWide {
            a: 1,
            inner: Wide { big: i128::MIN },
        },
        false,
    );
    both(Internal::Big { v: u128::MAX }, false);
}

#[test]
fn scalars_options_and_collections() {
    rt(None::<i32>);
    rt(Some(3));
    rt(vec![Some(vec![None, Some(1)]), None]);
    both(Some(None::<i32>), false);
    for v in [i128::MIN, i128::MAX, -5, i64::MIN as i128, 1 << 64] {
        rt(v);
    }
    rt(u128::MAX);
    rt(u64::MAX);
    rt(i64::MIN);
    rt('x');
    rt('😀');
    rt(1.1f32);
    rt(0.1f64);
    rt(-0.0f64);
    rt(3.0f64);
    rt("a\0b".to_string());
    rt(Box::<str>::from("x"));
    rt(Cow::<str>::Owned("x".into()));
    rt(WithBytes { b: vec![0, 255] });
    rt(vec![0u8, 255]);
    rt((1, "a".to_string(), 2.5));
    rt([1u8; 3]);
    rt(1..5);
    rt(HashMap::from([(1u32, "a".to_string()), (2, "b".into())]));
    rt(BTreeMap::from([(-1i64, 1), (5, 2)]));
    rt(BTreeMap::from([(u128::MAX, 1)]));
    rt(BTreeMap::from([(true, 1)]));
    rt(BTreeMap::from([('c', 1)]));
    rt(BTreeMap::from([(KeyEnum::Aa, 1), (KeyEnum::Bb, 2)]));
    rt(BTreeMap::from([(KeyNewtype("k".into()), 1)]));
    rt(BTreeMap::from([(String::new(), 1)]));
    rt(serde_json::json!({
        "a": [1, -1, 1.5, u64::MAX, i64::MIN, "s", null, true, {"x": {}}, []],
        "b": 1e300,
        "c": 1e-300,
    }));
    // Non-finite floats: roving keeps them, serde_json writes null.
    let bytes = roving::to_vec(&[f64::INFINITY, f64::NEG_INFINITY]).unwrap();
    assert_eq!(
        roving::from_slice::<[f64; 2]>(&bytes).unwrap(),
        [f64::INFINITY, f64::NEG_INFINITY]
    );
}

#[test]
fn std_and_ecosystem_types() {
    rt(SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 5));
    rt(Duration::new(5, 7));
    rt(std::net::IpAddr::from([127, 0, 0, 1]));
    rt(std::path::PathBuf::from("/x"));
    rt(std::ffi::CString::new("ab").unwrap());
    rt(std::ffi::OsString::from("ab"));
    rt(std::collections::VecDeque::from([1, 2]));
    rt(std::collections::BTreeSet::from([1, 2]));
    rt(std::collections::HashSet::from(["a".to_string()]));
    rt(1..=3);
    rt(std::ops::Bound::Included(3));
    rt(std::num::Wrapping(3u8));
    rt(std::num::NonZeroU32::new(3).unwrap());
    rt(std::cmp::Reverse(3));
    rt("1.2.3.4:5".parse::<std::net::SocketAddr>().unwrap());
    rt("::1".parse::<std::net::Ipv6Addr>().unwrap());
    rt([0u8; 0]);
    rt((1,));
    rt(char::MAX);
    rt(uuid::Uuid::from_u128(
        0x1234_5678_9abc_def0_1234_5678_9abc_def0,
    ));
    rt(chrono::DateTime::<chrono::Utc>::from_timestamp(1_700_000_000, 123).unwrap());
    rt(chrono::NaiveDate::from_ymd_opt(2020, 2, 29).unwrap());
    // A roving timestamp record reads into chrono's types from its text.
    let mut enc = roving::Encoder::new();
    let t = roving::Timestamp::new(1_700_000_000, 5, Some(3600)).unwrap();
    enc.timestamp(t).unwrap();
    let bytes = enc.finish().unwrap();
    let dt = roving::from_slice::<chrono::DateTime<chrono::FixedOffset>>(&bytes).unwrap();
    assert_eq!(dt.to_rfc3339(), "2023-11-14T23:13:20.000000005+01:00");
}

#[test]
fn borrowed_strings_and_bytes() {
    #[derive(Serialize)]
    struct Out<'a> {
        s: &'a str,
        c: &'a str,
        #[serde(with = "serde_bytes")]
        b: &'a [u8],
        m: BTreeMap<&'a str, &'a str>,
    }
    #[derive(Deserialize)]
    struct In<'a> {
        s: &'a str,
        #[serde(borrow)]
        c: Cow<'a, str>,
        #[serde(with = "serde_bytes")]
        b: &'a [u8],
        #[serde(borrow)]
        m: BTreeMap<&'a str, &'a str>,
    }
    let out = Out {
        s: "hello",
        c: "cow",
        b: b"\x00\x01",
        m: BTreeMap::from([("k", "v")]),
    };
    let bytes = roving::to_vec(&out).unwrap();
    let back: In = roving::from_slice(&bytes).unwrap();
    assert_eq!((back.s, back.b), ("hello", &b"\x00\x01"[..]));
    assert!(matches!(back.c, Cow::Borrowed("cow")));
    assert_eq!(back.m, BTreeMap::from([("k", "v")]));
    let range = bytes.as_ptr_range();
    assert!(range.contains(&back.s.as_ptr()) && range.contains(&back.b.as_ptr()));
}

#[test]
fn plain_byte_slices_are_sequences_as_in_serde_json() {
    #[derive(Serialize)]
    struct Plain<'a> {
        b: &'a [u8],
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Borrowed<'a> {
        b: &'a [u8],
    }
    let bytes = roving::to_vec(&Plain { b: b"ab" }).unwrap();
    let doc = roving::Document::open(&bytes).unwrap();
    assert_eq!(
        roving::json::to_json(doc.root()).unwrap(),
        r#"{"b":[97,98]}"#
    );
    assert!(roving::from_slice::<Borrowed>(&bytes).is_err());
    assert!(serde_json::from_str::<Borrowed>(r#"{"b":[97,98]}"#).is_err());
}

/// Whether `v` written and read back as `B` (a type whose fields differ
/// from `A`'s in their annotations) gives the same result through
/// serde_json and through roving: both the same value, or both an error.
fn across<A: Serialize + Debug, B: DeserializeOwned + PartialEq + Debug>(v: &A) -> Option<B> {
    let json = serde_json::from_str::<B>(&serde_json::to_string(v).unwrap());
    let rov = roving::from_slice::<B>(&roving::to_vec(v).unwrap());
    assert_eq!(
        json.as_ref().ok(),
        rov.as_ref().ok(),
        "{v:?} as {}: serde_json {json:?}, roving {rov:?}",
        std::any::type_name::<B>()
    );
    rov.ok()
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct PlainVec {
    b: Vec<u8>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct PlainArray {
    b: [u8; 3],
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct PlainBoxed {
    b: Box<[u8]>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Signed {
    b: Vec<i8>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Wider {
    b: Vec<u16>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct AsFloats {
    b: Vec<f64>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct WithByteBuf {
    b: serde_bytes::ByteBuf,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct WithByteArray {
    #[serde(with = "serde_bytes")]
    b: [u8; 3],
}

/// A field's annotation changes between versions: bytes written through
/// `serialize_bytes` (a `serde_bytes` field, a byte string) read into a
/// plain `Vec<u8>`, `[u8; N]`, `Box<[u8]>` or a sequence of wider numbers,
/// and a plain sequence of small integers reads into a `serde_bytes`
/// field, as with serde_json (which writes bytes as an array of numbers).
#[test]
fn byte_strings_and_sequences_of_small_integers_read_as_each_other() {
    let bytes = WithBytes { b: vec![0, 7, 255] };
    assert_eq!(
        across::<_, PlainVec>(&bytes),
        Some(PlainVec { b: vec![0, 7, 255] })
    );
    assert_eq!(
        across::<_, PlainArray>(&bytes),
        Some(PlainArray { b: [0, 7, 255] })
    );
    assert_eq!(
        across::<_, PlainBoxed>(&bytes),
        Some(PlainBoxed {
            b: Box::new([0, 7, 255])
        })
    );
    assert_eq!(
        across::<_, Wider>(&bytes),
        Some(Wider { b: vec![0, 7, 255] })
    );
    assert_eq!(
        across::<_, AsFloats>(&bytes),
        Some(AsFloats {
            b: vec![0.0, 7.0, 255.0]
        })
    );
    // Bytes are unsigned: 255 is not an i8, 127 is.
    assert_eq!(across::<_, Signed>(&bytes), None);
    assert_eq!(
        across::<_, Signed>(&WithBytes { b: vec![0, 127] }),
        Some(Signed { b: vec![0, 127] })
    );
    // Too many or too few for a fixed-size array: an error, as for arrays.
    assert_eq!(across::<_, PlainArray>(&WithBytes { b: vec![1; 4] }), None);
    assert_eq!(across::<_, PlainArray>(&WithBytes { b: vec![1; 2] }), None);
    assert_eq!(
        across::<_, PlainVec>(&WithBytes { b: vec![] }),
        Some(PlainVec { b: vec![] })
    );
    // The root too, and inside a sequence.
    let root = serde_bytes::ByteBuf::from(vec![1, 2]);
    assert_eq!(across::<_, Vec<u8>>(&root), Some(vec![1, 2]));
    assert_eq!(across::<_, [u8; 2]>(&root), Some([1, 2]));
    assert_eq!(across::<_, (u8, u8)>(&root), Some((1, 2)));
    assert_eq!(
        across::<_, Vec<Vec<u8>>>(&[root.clone(), root]),
        Some(vec![vec![1, 2], vec![1, 2]])
    );

    // A plain sequence of small integers into a `serde_bytes` field.
    let plain = PlainVec { b: vec![0, 7, 255] };
    assert_eq!(across::<_, WithBytes>(&plain), Some(bytes));
    assert_eq!(
        across::<_, WithByteBuf>(&plain),
        Some(WithByteBuf {
            b: serde_bytes::ByteBuf::from(vec![0, 7, 255])
        })
    );
    assert_eq!(
        across::<_, WithByteArray>(&plain),
        Some(WithByteArray { b: [0, 7, 255] })
    );
    // Numbers that are not bytes are refused.
    assert_eq!(across::<_, WithBytes>(&Wider { b: vec![256] }), None);
    assert_eq!(across::<_, WithBytes>(&Signed { b: vec![-1] }), None);
}

/// A `serde_bytes` `&[u8]` borrows from a byte string only: from a
/// sequence of integers it is an error, in both.
#[test]
fn borrowed_bytes_cannot_come_from_a_sequence() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Borrowed<'a> {
        #[serde(with = "serde_bytes")]
        b: &'a [u8],
    }
    let bytes = roving::to_vec(&PlainVec { b: vec![1, 2] }).unwrap();
    assert!(roving::from_slice::<Borrowed>(&bytes).is_err());
    assert!(serde_json::from_str::<Borrowed>(r#"{"b":[1,2]}"#).is_err());
}

/// A map as a list of entries, so that any key type (floats too) can be
/// written and read back in order.
#[derive(PartialEq, Debug)]
struct Entries<K>(Vec<(K, i32)>);

impl<K: Serialize> Serialize for Entries<K> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl<'de, K: Deserialize<'de>> Deserialize<'de> for Entries<K> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<K>(std::marker::PhantomData<K>);
        impl<'de, K: Deserialize<'de>> serde::de::Visitor<'de> for Entries<K> {
            type Value = Vec<(K, i32)>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(e) = m.next_entry()? {
                    out.push(e);
                }
                Ok(out)
            }
        }
        d.deserialize_map(Entries(std::marker::PhantomData))
            .map(self::Entries)
    }
}

/// Writes a map with the key `k` through serde_json and through roving:
/// both refuse it, or both write it and each reads back `k` exactly from
/// what either wrote (serde_json from roving's JSON output, roving from
/// serde_json's text converted). Returns roving's key text.
fn key<K: Serialize + DeserializeOwned + Debug + Clone>(
    k: K,
    same: impl Fn(&K, &K) -> bool,
) -> Option<String> {
    let map = Entries(vec![(k.clone(), 1)]);
    let json = serde_json::to_string(&map);
    let rov = roving::to_vec(&map);
    assert_eq!(
        json.is_ok(),
        rov.is_ok(),
        "key {k:?}: serde_json {json:?}, roving {rov:?}"
    );
    let (Ok(json), Ok(rov)) = (json, rov) else {
        return None;
    };
    let doc = roving::Document::open(&rov).unwrap();
    let rov_json = roving::json::to_json(doc.root()).unwrap();
    let converted = roving::json::from_json(json.as_bytes()).unwrap();
    let backs = [
        serde_json::from_str::<Entries<K>>(&json).unwrap(),
        serde_json::from_str::<Entries<K>>(&rov_json).unwrap(),
        roving::from_slice::<Entries<K>>(&rov).unwrap(),
        roving::from_slice::<Entries<K>>(&converted).unwrap(),
    ];
    for back in &backs {
        assert!(same(&back.0[0].0, &k), "key {k:?} read back as {back:?}");
    }
    let roving::Value::Map(m) = doc.root() else {
        panic!("not a map: {rov_json}");
    };
    m.key_at(0).map(str::to_owned)
}

fn eq<K: PartialEq>(a: &K, b: &K) -> bool {
    a == b
}

/// Reads the JSON object `json` as `Entries<K>` through serde_json and
/// through roving (from the same object converted): the same keys, or an
/// error in both.
fn key_text<K: DeserializeOwned + PartialEq + Debug>(json: &str) {
    let want = serde_json::from_str::<Entries<K>>(json);
    let doc = roving::json::from_json(json.as_bytes()).unwrap();
    let got = roving::from_slice::<Entries<K>>(&doc);
    assert_eq!(
        got.as_ref().ok(),
        want.as_ref().ok(),
        "{json} as {} keys: roving {got:?}, serde_json {want:?}",
        std::any::type_name::<K>()
    );
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct FloatKey(f64);

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct IntKey(u16);

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct UnitKey;

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum VariantKey {
    Unit,
    New(i32),
}

/// Every kind of map key, next to serde_json: the ones it writes (strings,
/// integers of every width, finite floats, bools, chars, unit variants,
/// newtypes and `Some` of these) are written as the same text and read
/// back exactly; the ones it refuses (non-finite floats, `None`, `()`,
/// unit structs, bytes, sequences, variants with data) are refused.
#[test]
fn map_keys_of_every_kind_as_in_serde_json() {
    for k in [i8::MIN, -1, 0, i8::MAX] {
        key(k, eq);
    }
    key(i16::MIN, eq);
    key(i32::MIN, eq);
    key(i64::MIN, eq);
    key(i128::MIN, eq);
    key(i128::MAX, eq);
    key(u8::MAX, eq);
    key(u16::MAX, eq);
    key(u32::MAX, eq);
    key(u64::MAX, eq);
    key(u128::MAX, eq);
    let bits = |a: &f64, b: &f64| a.to_bits() == b.to_bits();
    for k in [
        1.5,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        1e16,
        1e300,
        -1e-300,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        123456789.125,
    ] {
        key(k, bits);
    }
    // The shortest text that reads back as the same float (roving's JSON
    // text of floats, section 17.2 of FORMAT.md; serde_json 1.0.154 writes
    // `1e+16` where roving writes `1e16`, and each reads the other).
    let texts = [1.5, 1.0, -0.0, 1e16, 5e-324].map(|k| key(k, bits).unwrap());
    assert_eq!(texts, ["1.5", "1.0", "-0.0", "1e16", "5e-324"]);
    let bits32 = |a: &f32, b: &f32| a.to_bits() == b.to_bits();
    assert_eq!(key(1.1f32, bits32).as_deref(), Some("1.1"));
    for k in [1.1f32, -0.0, 1e-45, f32::MAX, 16777216.0, 0.3] {
        key(k, bits32);
    }
    for k in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        key(k, bits);
    }
    key(f32::NAN, bits32);
    key(true, eq);
    key(false, eq);
    key('x', eq);
    key('"', eq);
    key("1".to_string(), eq);
    key(VariantKey::Unit, eq);
    key(VariantKey::New(1), eq);
    key(IntKey(7), eq);
    key(FloatKey(2.5), eq);
    key(Newtype("n".into()), eq);
    key(Some(3u8), eq);
    key(Some(Some(0.5f64)), eq);
    key(None::<u8>, eq);
    key((), eq);
    key(UnitKey, eq);
    key(serde_bytes::ByteBuf::from(vec![1]), eq);
    key((1, 2), eq);
    key(vec![1], eq);
}

/// Key text that `to_vec` does not write for a number is read as serde_json
/// reads it: JSON number syntax only (no `+`, leading zeros, `.5`, `inf`
/// or `NaN`), an integer key from an integer, a float key from any number
/// in range.
#[test]
fn number_keys_read_from_text_as_in_serde_json() {
    let ints = [
        "1",
        "-1",
        "0",
        "-0",
        "01",
        "+1",
        " 1",
        "1 ",
        "",
        "1.0",
        "1e2",
        "1.5",
        "0x1",
        "2147483648",
    ];
    for k in ints {
        let json = format!(r#"{{"{k}":1}}"#);
        key_text::<i32>(&json);
        key_text::<u32>(&json);
        key_text::<i64>(&json);
        key_text::<u64>(&json);
        // serde_json reads `-0` into a 128-bit key (and into no other).
        if k != "-0" {
            key_text::<i128>(&json);
            key_text::<u128>(&json);
        }
    }
    // roving refuses it for every integer width alike.
    let doc = roving::json::from_json(br#"{"-0":1}"#).unwrap();
    assert!(roving::from_slice::<Entries<i128>>(&doc).is_err());
    assert!(roving::from_slice::<Entries<u128>>(&doc).is_err());
    let floats = [
        "1",
        "-1",
        "1.5",
        "-0",
        "-0.0",
        "1e2",
        "1E+2",
        "1e-2",
        "0.1",
        "01.5",
        "00",
        ".5",
        "1.",
        "+1",
        "-",
        "1e",
        "NaN",
        "nan",
        "inf",
        "-inf",
        "infinity",
        "1e400",
        "-1e400",
        "1e-400",
        "4.9e-324",
        "1_0",
        " 1",
        "1e39",
        "3.4028235e38",
    ];
    for k in floats {
        let json = format!(r#"{{"{k}":1}}"#);
        key_text::<f64>(&json);
        key_text::<f32>(&json);
    }
    for k in ["true", "false", "True", "1", ""] {
        key_text::<bool>(&format!(r#"{{"{k}":1}}"#));
    }
    for k in ["a", "ab", ""] {
        key_text::<char>(&format!(r#"{{"{k}":1}}"#));
    }
}
