//! The Redis Cluster backend against a real cluster (3 masters, 3
//! replicas, started by `python/roving/bench/redis_cluster.py serve`), and
//! the same `Backend` checks on LMDB. A cluster that cannot start fails
//! these tests.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use roving_store::{Backend, ClusterOptions, ClusterStore, Store, StoreErrorKind, StoreOptions};

struct Cluster {
    child: Child,
    nodes: Vec<String>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        drop(self.child.stdin.take()); // the harness stops the cluster
        let _ = self.child.wait();
    }
}

/// One cluster for every test of this file (tests run in parallel).
fn cluster() -> &'static Mutex<Cluster> {
    static CLUSTER: OnceLock<Mutex<Cluster>> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../python/roving/bench/redis_cluster.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the cluster harness");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the harness prints the cluster's nodes");
        assert!(
            line.contains("\"nodes\""),
            "the Redis Cluster did not start (needs redis-server): {line:?}"
        );
        let list = line
            .split("\"nodes\": [")
            .nth(1)
            .unwrap()
            .split(']')
            .next()
            .unwrap();
        let nodes = list
            .split(',')
            .map(|s| s.trim().trim_matches('"').to_owned())
            .collect();
        Mutex::new(Cluster { child, nodes })
    })
}

fn nodes() -> Vec<String> {
    cluster()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .nodes
        .clone()
}

fn open(prefix: &str) -> ClusterStore {
    let opts = ClusterOptions {
        prefix: prefix.to_owned(),
        ..ClusterOptions::default()
    };
    ClusterStore::open(&nodes(), &opts).expect("opens the cluster store")
}

fn doc(s: &str) -> Vec<u8> {
    roving::to_vec(&s).unwrap()
}

fn text(b: &[u8]) -> String {
    roving::Document::open(b)
        .unwrap()
        .root()
        .as_str()
        .unwrap()
        .to_owned()
}

/// What every backend does: put, get, delete, contains, len, keys,
/// flush, reload.
fn backend_semantics(s: &mut dyn Backend) {
    assert!(s.is_empty().unwrap());
    s.put("b", doc("two")).unwrap();
    s.put("a", doc("one")).unwrap();
    assert!(s.is_dirty());
    assert_eq!(s.len().unwrap(), 2);
    assert_eq!(text(&s.load("a").unwrap().unwrap()), "one");
    s.flush().unwrap();
    assert!(!s.is_dirty());
    assert_eq!(s.keys().unwrap(), ["a", "b"]);
    assert!(s.delete("a").unwrap());
    assert!(!s.delete("zz").unwrap());
    assert!(!s.contains("a").unwrap());
    assert_eq!(s.len().unwrap(), 1);
    s.reload().unwrap();
    assert!(s.contains("a").unwrap());
    assert_eq!(s.len().unwrap(), 2);
    s.put("c", doc("three")).unwrap();
    assert!(s.delete("b").unwrap());
    s.flush().unwrap();
    assert_eq!(s.keys().unwrap(), ["a", "c"]);
    assert_eq!(s.load("b").unwrap(), None);
    assert_eq!(text(&s.load("c").unwrap().unwrap()), "three");
    let e = s.put("d", b"not a roving document".to_vec()).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::InvalidDocument);
    assert_eq!(
        s.put("", doc("x")).unwrap_err().kind(),
        StoreErrorKind::InvalidKey
    );
    let long = "k".repeat(512);
    assert_eq!(
        s.put(&long, doc("x")).unwrap_err().kind(),
        StoreErrorKind::InvalidKey
    );
}

#[test]
fn lmdb_backend_semantics() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    backend_semantics(&mut s);
}

#[test]
fn cluster_backend_semantics() {
    let mut s = open("semantics:");
    backend_semantics(&mut s);
}

/// A map of `keys` (each to its index plus `i`), as a plain document.
fn shaped(keys: &[&str], i: i64) -> Vec<u8> {
    let m: std::collections::BTreeMap<&str, i64> = keys
        .iter()
        .enumerate()
        .map(|(j, k)| (*k, i + j as i64))
        .collect();
    roving::to_vec(&m).unwrap()
}

/// Puts `plain` under `key` written against the store's dictionary, which
/// learns its shape (as `roving.Store` assignments do).
fn put_bound(s: &mut dyn Backend, key: &str, plain: &[u8]) {
    let doc = roving::Document::open(plain).unwrap();
    let mut enc = roving::Encoder::new();
    enc.use_dictionary(s.dictionary());
    enc.write_value(doc.root()).unwrap();
    s.grow_dictionary(&enc);
    let bytes = enc.finish_reset().unwrap();
    s.put(key, bytes).unwrap();
}

/// The value of `key`, as JSON.
fn json_of(s: &dyn Backend, key: &str) -> String {
    let b = s.load(key).unwrap().expect("the record is there");
    roving::json::to_json(roving::Document::open(&b).unwrap().root()).unwrap()
}

/// The store-wide dictionary on the cluster: clients that grow it at once
/// merge, a client reads the entries a record needs that it lacks, and
/// records written against it take fewer bytes.
#[test]
fn clients_grow_one_dictionary() {
    let prefix = "dict:";
    let mut a = open(prefix);
    let mut b = open(prefix);
    let stale = open(prefix); // opened before either grew it
    let (k1, k2, k3): (&[&str], &[&str], &[&str]) = (
        &["first_field", "second_field", "third_field"],
        &["b1", "b2"],
        &["c1", "c2", "c3", "c4"],
    );
    put_bound(&mut a, "x", &shaped(k1, 1));
    put_bound(&mut a, "x2", &shaped(k1, 10)); // refers to the shape x taught
    put_bound(&mut b, "y", &shaped(k2, 2));
    b.flush().unwrap();
    put_bound(&mut a, "z", &shaped(k3, 3));
    a.flush().unwrap(); // its append finds b's row first: it merges
    assert_eq!(a.dictionary().len(), 3);
    let c = open(prefix);
    assert_eq!(c.dictionary().len(), 3);
    for s in [&c as &dyn Backend, &stale, &b] {
        assert_eq!(
            json_of(s, "x"),
            r#"{"first_field":1,"second_field":2,"third_field":3}"#
        );
        assert_eq!(
            json_of(s, "x2"),
            r#"{"first_field":10,"second_field":11,"third_field":12}"#
        );
        assert_eq!(json_of(s, "y"), r#"{"b1":2,"b2":3}"#);
        assert_eq!(json_of(s, "z"), r#"{"c1":3,"c2":4,"c3":5,"c4":6}"#);
    }
    // The dictionary is no record.
    assert_eq!(c.keys().unwrap(), ["x", "x2", "y", "z"]);
    // x2, written against the dictionary, is smaller than the plain record.
    let mut plain = open("dict-plain:");
    plain.put("x2", shaped(k1, 10)).unwrap();
    plain.flush().unwrap();
    let stored = redis_strlen(&format!("{prefix}x2"));
    let plain_len = redis_strlen("dict-plain:x2");
    assert!(stored + 20 < plain_len, "{stored} vs {plain_len}");
}

/// Through `Backend`, an LMDB store's records written against its
/// dictionary load as the plain documents they read as.
#[test]
fn lmdb_backend_loads_records_written_against_the_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::open(dir.path().join("d.rvs"), &StoreOptions::default()).unwrap();
    let keys: &[&str] = &["first_field", "second_field"];
    put_bound(&mut s, "a", &shaped(keys, 1));
    put_bound(&mut s, "b", &shaped(keys, 5)); // refers to the shape a taught
    assert_eq!(json_of(&s, "b"), r#"{"first_field":5,"second_field":6}"#);
    s.flush().unwrap();
    assert_eq!(s.dictionary().len(), 1);
    for _ in 0..3 {
        assert_eq!(json_of(&s, "b"), r#"{"first_field":5,"second_field":6}"#);
        assert_eq!(json_of(&s, "a"), r#"{"first_field":1,"second_field":2}"#);
    }
}

/// A client whose cached dictionary holds a row the cluster lost (a
/// failover before it replicated; here: the list deleted, then grown again
/// to the same length by another client) reads the cluster's rows again
/// when a record needs them, and its own records written against the lost
/// row are written again against the cluster's dictionary at its flush.
#[test]
fn a_stale_cached_dictionary_is_read_again() {
    let prefix = "stale:";
    let (s1, s2): (&[&str], &[&str]) = (&["one_a", "one_b"], &["two_a", "two_b", "two_c"]);
    let mut x = open(prefix);
    put_bound(&mut x, "x1", &shaped(s1, 1)); // carries its shape, learned
    x.flush().unwrap();
    let mut b = open(prefix); // caches the row of s1
    assert_eq!(b.dictionary().len(), 1);
    redis_del(format!("{prefix}\0dict").as_bytes()); // the row is lost
    let mut y = open(prefix);
    assert_eq!(y.dictionary().len(), 0);
    put_bound(&mut y, "y1", &shaped(s2, 1));
    put_bound(&mut y, "y2", &shaped(s2, 2)); // refers to the new entry 0
    y.flush().unwrap();
    // b's entry 0 is s1; the cluster's is s2: b reads the rows again.
    assert_eq!(json_of(&b, "y2"), r#"{"two_a":2,"two_b":3,"two_c":4}"#);
    // b writes against the s1 it cached; its flush writes that again.
    put_bound(&mut b, "b1", &shaped(s1, 5));
    b.flush().unwrap();
    let c = open(prefix);
    assert_eq!(c.dictionary().len(), 2);
    assert_eq!(json_of(&c, "b1"), r#"{"one_a":5,"one_b":6}"#);
    assert_eq!(json_of(&c, "y2"), r#"{"two_a":2,"two_b":3,"two_c":4}"#);
    assert_eq!(json_of(&c, "x1"), r#"{"one_a":1,"one_b":2}"#);
}

/// `DEL key` on the cluster (the key through standard input, so that it
/// may hold any byte).
fn redis_del(key: &[u8]) {
    use std::io::Write as _;
    let port = nodes()[0].rsplit(':').next().unwrap().to_owned();
    let mut child = Command::new("redis-cli")
        .args(["-c", "-h", "127.0.0.1", "-p", &port, "-x", "DEL"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("redis-cli runs");
    child.stdin.take().unwrap().write_all(key).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
}

/// `STRLEN key` on the cluster (through redis-cli, which follows the
/// redirection).
fn redis_strlen(key: &str) -> usize {
    let port = nodes()[0].rsplit(':').next().unwrap().to_owned();
    let out = Command::new("redis-cli")
        .args(["-c", "-h", "127.0.0.1", "-p", &port, "STRLEN", key])
        .output()
        .expect("redis-cli runs");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// Stores are key prefixes: two share the cluster without seeing each other.
#[test]
fn stores_are_prefixes() {
    let mut a = open("pa:");
    let mut b = open("pb:");
    for i in 0..100 {
        a.put(&format!("k{i}"), doc(&format!("a{i}"))).unwrap();
    }
    b.put("k1", doc("b1")).unwrap();
    a.flush().unwrap();
    b.flush().unwrap();
    assert_eq!(a.len().unwrap(), 100);
    assert_eq!(b.keys().unwrap(), ["k1"]);
    assert_eq!(text(&a.get("k1").unwrap().unwrap()), "a1");
    assert_eq!(text(&b.get("k1").unwrap().unwrap()), "b1");
    let keys: Vec<&str> = ["k5", "k99", "nope", "k0"].to_vec();
    let got = a.get_many(&keys).unwrap();
    let got: Vec<Option<String>> = got.iter().map(|b| b.as_deref().map(text)).collect();
    assert_eq!(
        got,
        [
            Some("a5".into()),
            Some("a99".into()),
            None,
            Some("a0".into())
        ]
    );
    // A second client sees the flushed writes.
    let again = open("pa:");
    assert_eq!(again.len().unwrap(), 100);
}

/// A value that is not a roving document, written by someone else, is
/// reported as corrupt on read.
#[test]
fn foreign_values_are_corrupt() {
    let mut s = open("foreign:");
    s.put("ok", doc("fine")).unwrap();
    s.flush().unwrap();
    // Write garbage under a key of the store with a raw SET, through the
    // master of its slot (found by trying: the others answer MOVED).
    let mut written = false;
    for n in nodes() {
        let client = redis::Client::open(n.as_str()).unwrap();
        let mut c = client.get_connection().unwrap();
        if redis::cmd("SET")
            .arg("foreign:bad")
            .arg("garbage")
            .query::<()>(&mut c)
            .is_ok()
        {
            written = true;
            break;
        }
    }
    assert!(written);
    let e = s.get("bad").unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Corrupt, "{e}");
    assert!(e.to_string().contains("\"bad\""), "{e}");
}

/// Nodes that do not answer give a `Cluster` error naming a node, within
/// the bound, never a hang.
#[test]
fn unreachable_nodes_fail_fast_naming_the_node() {
    let t = Instant::now();
    let e = ClusterStore::open(&["redis://127.0.0.1:1"], &ClusterOptions::default()).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Cluster);
    assert!(e.to_string().contains("127.0.0.1:1"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(5));
    let e = ClusterStore::open(&["not a url"], &ClusterOptions::default()).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Cluster);
}

/// A read-only store refuses writes.
#[test]
fn readonly_refuses_writes() {
    let opts = ClusterOptions {
        prefix: "ro:".into(),
        readonly: true,
        ..ClusterOptions::default()
    };
    let mut s = ClusterStore::open(&nodes(), &opts).unwrap();
    assert_eq!(
        s.put("a", doc("x")).unwrap_err().kind(),
        StoreErrorKind::ReadOnly
    );
}

fn num(s: &ClusterStore, key: &str) -> i64 {
    match s.get(key).unwrap() {
        Some(b) => roving::Document::open(&b).unwrap().root().as_i64().unwrap(),
        None => 0,
    }
}

/// Transactions hold over the keys of one hash slot: a read-modify-write
/// that another client interleaves with fails (nothing written) and runs
/// again; a key of another slot, nesting and flush inside fail at once.
#[test]
fn transactions_of_one_slot() {
    let mut a = open("txn:");
    let mut b = open("txn:");
    a.transaction(|s| s.put("{c}n", roving::to_vec(&1i64)?))
        .unwrap();
    // Interleaved: b writes a key a read; a's commit does nothing.
    a.begin_transaction().unwrap();
    let n = num(&a, "{c}n");
    b.put("{c}n", roving::to_vec(&10i64).unwrap()).unwrap();
    b.flush().unwrap();
    a.put("{c}n", roving::to_vec(&(n + 1)).unwrap()).unwrap();
    a.put("{c}other", roving::to_vec(&"x").unwrap()).unwrap();
    let e = a.commit_transaction().unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Transaction, "{e}");
    assert!(!a.is_dirty());
    assert_eq!(num(&a, "{c}n"), 10);
    assert!(!a.contains("{c}other").unwrap());
    // Run again: it holds.
    a.transaction(|s| {
        let n = num(s, "{c}n");
        s.put("{c}n", roving::to_vec(&(n + 1))?)
    })
    .unwrap();
    assert_eq!(num(&b, "{c}n"), 11);
    // One slot only; no nesting; no flush or reload inside.
    a.begin_transaction().unwrap();
    a.put("{c}x", doc("1")).unwrap();
    let e = a.put("{d}y", doc("2")).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Transaction);
    assert!(e.to_string().contains("hash slot"), "{e}");
    assert_eq!(
        a.begin_transaction().unwrap_err().kind(),
        StoreErrorKind::Transaction
    );
    assert_eq!(a.flush().unwrap_err().kind(), StoreErrorKind::Transaction);
    assert_eq!(a.reload().unwrap_err().kind(), StoreErrorKind::Transaction);
    a.abort_transaction().unwrap();
    assert!(!a.contains("{c}x").unwrap());
    assert_eq!(
        a.commit_transaction().unwrap_err().kind(),
        StoreErrorKind::Transaction
    );
}
