//! Tests of the store: seed 000's repository correctness, a model check of
//! pending changes and iteration, bad inputs, map growth, processes.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use roving::{Encoder, Timestamp, Value};
use roving_store::{Store, StoreErrorKind, StoreOptions};

fn opts() -> StoreOptions {
    StoreOptions::default()
}

fn tmp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("items.rvs");
    (dir, p)
}

// ---------------------------------------------------------------- seed 000

/// Seed 000's model object.
#[derive(Clone, Debug, PartialEq)]
struct BBItem {
    identifier: String,
    created_at: Timestamp,
    hash: String,
    data: Vec<u8>,
    optional_string: Option<String>,
    views: u64,
    display_in_rect: [f64; 4],
}

impl BBItem {
    fn dummy(i: u64) -> BBItem {
        BBItem {
            identifier: format!("item {i}"),
            created_at: Timestamp::new(
                1_700_000_000 + i as i64,
                (i as u32 * 7919) % 1_000_000_000,
                None,
            )
            .unwrap(),
            hash: "someHash120djas!hf0410AjsifhsFjsd".into(),
            data: b"some dummy data".to_vec(),
            optional_string: (i % 2 == 0).then(|| "optional string!".to_string()),
            views: i,
            display_in_rect: [i as f64, i as f64, i as f64, i as f64],
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.begin_map().unwrap();
        e.key("identifier").unwrap();
        e.str(&self.identifier).unwrap();
        e.key("createdAt").unwrap();
        e.timestamp(self.created_at).unwrap();
        e.key("hash").unwrap();
        e.str(&self.hash).unwrap();
        e.key("data").unwrap();
        e.bytes(&self.data).unwrap();
        if let Some(s) = &self.optional_string {
            e.key("optionalString").unwrap();
            e.str(s).unwrap();
        }
        e.key("views").unwrap();
        e.u64(self.views).unwrap();
        e.key("displayInRect").unwrap();
        e.begin_array().unwrap();
        for x in self.display_in_rect {
            e.f64(x).unwrap();
        }
        e.end_array().unwrap();
        e.end_map().unwrap();
        e.finish().unwrap()
    }

    fn decode(v: Value<'_>) -> BBItem {
        let m = v.as_map().expect("a map");
        let ts = match m.get("createdAt") {
            Some(Value::Timestamp(t)) => t,
            other => panic!("createdAt: {other:?}"),
        };
        let rect = m
            .get("displayInRect")
            .and_then(|v| v.as_array())
            .expect("rect");
        let mut r = [0.0; 4];
        for (i, x) in rect.iter().enumerate() {
            r[i] = x.as_f64().unwrap();
        }
        assert_eq!(rect.len(), 4);
        BBItem {
            identifier: m
                .get("identifier")
                .and_then(|v| v.as_str())
                .unwrap()
                .to_string(),
            created_at: ts,
            hash: m.get("hash").and_then(|v| v.as_str()).unwrap().to_string(),
            data: m.get("data").and_then(|v| v.as_bytes()).unwrap().to_vec(),
            optional_string: m
                .get("optionalString")
                .map(|v| v.as_str().unwrap().to_string()),
            views: m.get("views").and_then(|v| v.as_u64()).unwrap(),
            display_in_rect: r,
        }
    }
}

/// Seed 000's repository, on the store.
struct Repository {
    store: Store,
}

impl Repository {
    fn item_count(&self) -> u64 {
        self.store.len().unwrap()
    }
    fn item_with_identifier(&self, id: &str) -> Option<BBItem> {
        self.store
            .get(id)
            .unwrap()
            .map(|d| BBItem::decode(d.root()))
    }
    fn add_item(&mut self, item: &BBItem) {
        self.store.put(&item.identifier, item.encode()).unwrap();
    }
    fn remove_item(&mut self, item: &BBItem) {
        self.remove_item_with_identifier(&item.identifier);
    }
    fn remove_item_with_identifier(&mut self, id: &str) {
        self.store.delete(id).unwrap();
    }
    fn flush(&mut self) {
        self.store.flush().unwrap();
    }
    fn reload(&mut self) {
        self.store.reload().unwrap();
    }
}

#[test]
fn seed000_repository_correctness() {
    let (_d, path) = tmp();
    let mut repo = Repository {
        store: Store::open(&path, &opts()).unwrap(),
    };
    assert_eq!(repo.item_count(), 0);

    let items: Vec<BBItem> = (0..100).map(BBItem::dummy).collect();
    for (i, item) in items.iter().enumerate() {
        repo.add_item(item);
        assert_eq!(repo.item_count(), i as u64 + 1);
    }
    // Adding the same identifier again replaces, count unchanged.
    repo.add_item(&items[5]);
    assert_eq!(repo.item_count(), 100);

    repo.remove_item(&items[0]);
    assert_eq!(repo.item_count(), 99);
    assert_eq!(repo.item_with_identifier("item 0"), None);
    repo.remove_item_with_identifier("item 1");
    assert_eq!(repo.item_count(), 98);
    assert_eq!(repo.item_with_identifier("item 1"), None);
    // Removing what is not there changes nothing.
    repo.remove_item_with_identifier("item 1");
    repo.remove_item_with_identifier("no such item");
    assert_eq!(repo.item_count(), 98);

    repo.flush();
    assert_eq!(repo.item_count(), 98);
    repo.reload();
    assert_eq!(repo.item_count(), 98);
    for item in &items[2..] {
        assert_eq!(
            repo.item_with_identifier(&item.identifier).as_ref(),
            Some(item)
        );
    }

    // Reload drops unflushed changes.
    repo.remove_item(&items[2]);
    repo.add_item(&BBItem::dummy(1000));
    assert_eq!(repo.item_count(), 98);
    repo.reload();
    assert_eq!(repo.item_count(), 98);
    assert!(repo.item_with_identifier("item 2").is_some());
    assert!(repo.item_with_identifier("item 1000").is_none());

    // Remove after flush, flush, reopen from scratch: every field equal.
    repo.remove_item_with_identifier("item 2");
    assert_eq!(repo.item_count(), 97);
    repo.flush();
    assert_eq!(repo.item_count(), 97);
    drop(repo);
    let repo = Repository {
        store: Store::open(&path, &opts()).unwrap(),
    };
    assert_eq!(repo.item_count(), 97);
    for item in &items[3..] {
        assert_eq!(
            repo.item_with_identifier(&item.identifier).as_ref(),
            Some(item)
        );
    }
    let keys: Vec<String> = repo
        .store
        .iter()
        .map(|r| r.unwrap().0.to_string())
        .collect();
    let mut want: Vec<String> = items[3..].iter().map(|i| i.identifier.clone()).collect();
    want.sort();
    assert_eq!(keys, want);
    assert_eq!(repo.store.verify().unwrap(), 97);
}

// ------------------------------------------------------------ model check

fn doc_of(n: u64) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    e.key("n").unwrap();
    e.u64(n).unwrap();
    e.key("pad").unwrap();
    e.str(&"x".repeat((n % 50) as usize)).unwrap();
    e.end_map().unwrap();
    e.finish().unwrap()
}

fn n_of(store: &Store, key: &str) -> Option<u64> {
    store
        .get(key)
        .unwrap()
        .map(|d| d.root().get("n").unwrap().as_u64().unwrap())
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn check_model(store: &Store, model: &BTreeMap<String, u64>) {
    assert_eq!(store.len().unwrap(), model.len() as u64);
    let got: Vec<(String, u64)> = store
        .iter()
        .map(|r| {
            let (k, d) = r.unwrap();
            (k.to_string(), d.root().get("n").unwrap().as_u64().unwrap())
        })
        .collect();
    let want: Vec<(String, u64)> = model.iter().map(|(k, v)| (k.clone(), *v)).collect();
    assert_eq!(got, want);
}

#[test]
fn model_random_operations() {
    let (_d, path) = tmp();
    let mut store = Store::open(&path, &opts()).unwrap();
    let mut committed: BTreeMap<String, u64> = BTreeMap::new();
    let mut model = committed.clone();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for step in 0..6000u64 {
        let key = format!("k{:04}", rng.below(700));
        match rng.below(100) {
            0..=54 => {
                store.put(&key, doc_of(step)).unwrap();
                model.insert(key, step);
            }
            55..=84 => {
                let had = store.delete(&key).unwrap();
                assert_eq!(had, model.remove(&key).is_some());
            }
            85..=91 => {
                assert_eq!(n_of(&store, &key), model.get(&key).copied());
                assert_eq!(store.contains(&key).unwrap(), model.contains_key(&key));
            }
            92..=95 => {
                store.flush().unwrap();
                committed = model.clone();
            }
            96 => {
                store.reload().unwrap();
                model = committed.clone();
            }
            _ => {
                // Iteration from a key merges pending changes and the snapshot.
                let from: Vec<String> = store
                    .iter_from(Bound::Excluded(&key))
                    .map(|r| r.unwrap().0.to_string())
                    .collect();
                let want: Vec<String> = model
                    .range::<String, _>((Bound::Excluded(&key), Bound::Unbounded))
                    .map(|(k, _)| k.clone())
                    .collect();
                assert_eq!(from, want);
            }
        }
        if step % 500 == 0 {
            check_model(&store, &model);
        }
    }
    check_model(&store, &model);
    // Raw iteration: the same keys, the same bytes.
    let raw: Vec<(String, Vec<u8>)> = store
        .raw_iter_from(Bound::Unbounded)
        .map(|r| r.map(|(k, b)| (k.to_string(), b.to_vec())).unwrap())
        .collect();
    let validated: Vec<(String, Vec<u8>)> = store
        .iter()
        .map(|r| {
            r.map(|(k, d)| (k.to_string(), d.as_bytes().to_vec()))
                .unwrap()
        })
        .collect();
    assert_eq!(raw, validated);
    store.flush().unwrap();
    drop(store);
    let store = Store::open(&path, &opts()).unwrap();
    check_model(&store, &model);
}

// ------------------------------------------------------------- bad inputs

fn expect_kind<T: std::fmt::Debug>(r: roving_store::Result<T>, kind: StoreErrorKind) -> String {
    match r {
        Ok(v) => panic!("expected {kind:?}, got Ok({v:?})"),
        Err(e) => {
            assert_eq!(e.kind(), kind, "{e}");
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "one line: {msg}");
            msg
        }
    }
}

fn make_store(path: &Path, n: u64) {
    let mut s = Store::open(path, &opts()).unwrap();
    for i in 0..n {
        s.put(&format!("item {i}"), BBItem::dummy(i).encode())
            .unwrap();
    }
    s.flush().unwrap();
}

#[test]
fn garbage_file_is_not_a_store() {
    let (_d, path) = tmp();
    let mut junk = Vec::new();
    let mut rng = Rng(42);
    for _ in 0..10_000 {
        junk.push(rng.next() as u8);
    }
    for content in [
        &b"hello, not a store\n"[..],
        &junk[..],
        &[0u8; 8192][..],
        &[1u8][..],
    ] {
        std::fs::write(&path, content).unwrap();
        let msg = expect_kind(Store::open(&path, &opts()), StoreErrorKind::NotAStore);
        assert!(msg.contains("not a roving store"), "{msg}");
        expect_kind(
            Store::open(&path, &opts().readonly(true)),
            StoreErrorKind::NotAStore,
        );
        // The file was left alone and no lock file was made next to it.
        assert_eq!(std::fs::read(&path).unwrap(), content);
        assert!(!PathBuf::from(format!("{}-lock", path.display())).exists());
    }
}

#[test]
fn truncated_files_are_errors() {
    let (_d, path) = tmp();
    make_store(&path, 3000);
    let full = std::fs::read(&path).unwrap();
    assert!(full.len() > 64 * 1024, "{}", full.len());
    let cuts = [
        10,
        100,
        4095,
        4096,
        8192,
        12288,
        full.len() / 2,
        full.len() / 2 + 1000,
        full.len() - 4096,
        full.len() - 1,
    ];
    for cut in cuts {
        let p = path.with_file_name(format!("cut{cut}.rvs"));
        std::fs::write(&p, &full[..cut]).unwrap();
        let r = Store::open(&p, &opts());
        match r {
            Err(e) => assert!(
                matches!(
                    e.kind(),
                    StoreErrorKind::NotAStore | StoreErrorKind::Corrupt
                ),
                "cut {cut}: {e}"
            ),
            Ok(s) => panic!(
                "cut {cut}: opened a truncated store with {:?} records",
                s.len()
            ),
        }
    }
}

#[test]
fn empty_file_and_missing_paths() {
    let (d, path) = tmp();
    expect_kind(
        Store::open(&path, &opts().readonly(true)),
        StoreErrorKind::NotFound,
    );
    std::fs::write(&path, b"").unwrap();
    // The file is there (Python raises `NotFound` as a FileNotFoundError):
    // it is not a store yet.
    expect_kind(
        Store::open(&path, &opts().readonly(true)),
        StoreErrorKind::NotAStore,
    );
    // Read-write: an empty file becomes an empty store (as SQLite does).
    let s = Store::open(&path, &opts()).unwrap();
    assert_eq!(s.len().unwrap(), 0);
    drop(s);
    let missing_dir = d.path().join("no/such/dir/x.rvs");
    expect_kind(Store::open(&missing_dir, &opts()), StoreErrorKind::NotFound);
    // A directory without a store, read-only.
    let sub = d.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    expect_kind(
        Store::open(&sub, &opts().readonly(true)),
        StoreErrorKind::NotFound,
    );
    // A directory is an LMDB directory store.
    let mut s = Store::open(&sub, &opts()).unwrap();
    s.put("a", doc_of(1)).unwrap();
    s.flush().unwrap();
    drop(s);
    assert!(sub.join("data.mdb").exists());
    let s = Store::open(&sub, &opts().readonly(true)).unwrap();
    assert_eq!(n_of(&s, "a"), Some(1));
    // A directory with other things in it is not taken over.
    let busy = d.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("notes.txt"), b"mine").unwrap();
    expect_kind(Store::open(&busy, &opts()), StoreErrorKind::NotAStore);
    assert!(!busy.join("data.mdb").exists());
}

/// The data file of a directory store, named directly, opens that
/// directory store: LMDB's lock file stays `lock.mdb` beside it (a
/// `data.mdb-lock` would leave processes that open the directory and
/// processes that open the file without a common lock).
#[test]
fn the_data_file_of_a_directory_store_opens_the_directory_store() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("dirstore");
    std::fs::create_dir(&dir).unwrap();
    let mut s = Store::open(&dir, &opts()).unwrap();
    s.put("a", doc_of(1)).unwrap();
    s.flush().unwrap();
    drop(s);
    let data = dir.join("data.mdb");
    for ro in [true, false] {
        let mut s = Store::open(&data, &opts().readonly(ro)).unwrap();
        assert_eq!(s.path(), data.as_path());
        assert_eq!(n_of(&s, "a"), Some(1));
        if !ro {
            s.put("b", doc_of(2)).unwrap();
            s.flush().unwrap();
        }
    }
    assert!(!dir.join("data.mdb-lock").exists());
    let s = Store::open(&dir, &opts()).unwrap();
    assert_eq!(n_of(&s, "b"), Some(2));
}

/// A store made through a symbolic link whose target does not exist yet
/// is made at the target, with the target's lock file: the one every
/// later open (which resolves the link) uses.
#[test]
fn a_store_made_through_a_dangling_link_uses_the_targets_lock_file() {
    let d = tempfile::tempdir().unwrap();
    let sub = d.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let link = d.path().join("link.rvs");
    std::os::unix::fs::symlink("sub/real.rvs", &link).unwrap();
    let mut s = Store::open(&link, &opts()).unwrap();
    s.put("a", doc_of(1)).unwrap();
    s.flush().unwrap();
    assert!(sub.join("real.rvs").is_file());
    assert!(sub.join("real.rvs-lock").is_file());
    assert!(!d.path().join("link.rvs-lock").exists());
    drop(s);
    let s = Store::open(sub.join("real.rvs"), &opts()).unwrap();
    assert_eq!(n_of(&s, "a"), Some(1));
    // A loop of links is an error, not a hang.
    let l1 = d.path().join("l1.rvs");
    let l2 = d.path().join("l2.rvs");
    std::os::unix::fs::symlink(&l2, &l1).unwrap();
    std::os::unix::fs::symlink(&l1, &l2).unwrap();
    assert!(Store::open(&l1, &opts()).is_err());
}

#[test]
fn lmdb_file_of_another_program() {
    let (_d, path) = tmp();
    {
        // SAFETY: a fresh file used by nothing else.
        let env = unsafe {
            heed::EnvOpenOptions::new()
                .max_dbs(2)
                .flags(heed::EnvFlags::NO_SUB_DIR)
                .open(&path)
                .unwrap()
        };
        let wtxn = env.write_txn().unwrap();
        env.create_databases_and_commit(wtxn, |dbo, wtxn| -> Result<_, heed::Error> {
            let db = dbo
                .database_options()
                .types::<heed::types::Bytes, heed::types::Bytes>()
                .name("other")
                .create(wtxn)?;
            db.put(wtxn, b"k", b"v")?;
            Ok(heed::CommitOrAbort::<_, ()>::Commit(()))
        })
        .unwrap();
    }
    let msg = expect_kind(Store::open(&path, &opts()), StoreErrorKind::NotAStore);
    assert!(msg.contains("another program"), "{msg}");
}

#[test]
fn damaged_record_is_reported() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &opts()).unwrap();
    let mut e = Encoder::new();
    e.str("UNIQUE-MARKER-STRING-0123456789").unwrap();
    let doc = e.finish().unwrap();
    s.put("victim", doc.clone()).unwrap();
    s.put("other", doc_of(5)).unwrap();
    s.flush().unwrap();
    drop(s);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(doc.len())
        .position(|w| w == doc)
        .expect("record in file");
    bytes[at] = b'X'; // break the magic
    std::fs::write(&path, &bytes).unwrap();
    let s = Store::open(&path, &opts()).unwrap();
    let msg = expect_kind(s.get("victim"), StoreErrorKind::Corrupt);
    assert!(msg.contains("victim"), "{msg}");
    assert_eq!(n_of(&s, "other"), Some(5));
    expect_kind(s.verify(), StoreErrorKind::Corrupt);
    assert!(s.iter().any(|r| r.is_err()));
}

#[test]
fn bad_keys_and_values_leave_the_store_unchanged() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &opts()).unwrap();
    s.put("a", doc_of(1)).unwrap();
    s.flush().unwrap();
    expect_kind(s.put("", doc_of(2)), StoreErrorKind::InvalidKey);
    expect_kind(
        s.put(&"k".repeat(512), doc_of(2)),
        StoreErrorKind::InvalidKey,
    );
    s.put(&"k".repeat(511), doc_of(2)).unwrap();
    s.delete(&"k".repeat(511)).unwrap();
    expect_kind(
        s.put("b", b"not roving".to_vec()),
        StoreErrorKind::InvalidDocument,
    );
    expect_kind(s.put("b", Vec::new()), StoreErrorKind::InvalidDocument);
    let mut truncated = doc_of(3);
    truncated.pop();
    expect_kind(s.put("a", truncated), StoreErrorKind::InvalidDocument);
    assert!(!s.is_dirty());
    assert!(!s.delete("").unwrap());
    assert!(!s.contains("").unwrap());
    assert!(s.get(&"k".repeat(600)).unwrap().is_none());
    s.flush().unwrap();
    s.reload().unwrap();
    assert_eq!(s.len().unwrap(), 1);
    assert_eq!(n_of(&s, "a"), Some(1));
}

#[test]
fn readonly_store_refuses_writes() {
    let (_d, path) = tmp();
    make_store(&path, 10);
    let mut s = Store::open(&path, &opts().readonly(true)).unwrap();
    assert_eq!(s.len().unwrap(), 10);
    expect_kind(s.put("x", doc_of(1)), StoreErrorKind::ReadOnly);
    expect_kind(s.delete("item 1"), StoreErrorKind::ReadOnly);
    s.flush().unwrap(); // nothing pending: nothing to do
    s.reload().unwrap();
    assert_eq!(s.len().unwrap(), 10);
}

// ------------------------------------------------------------- map growth

#[test]
fn map_grows_past_its_initial_size() {
    let (_d, path) = tmp();
    let small = StoreOptions::default().map_size(1 << 20);
    let mut s = Store::open(&path, &small).unwrap();
    let start = s.map_size();
    assert_eq!(start, 1 << 20);
    let big = "y".repeat(10_000);
    let mut total = 0usize;
    for round in 0..4u64 {
        for i in 0..300u64 {
            let mut e = Encoder::new();
            e.begin_map().unwrap();
            e.key("i").unwrap();
            e.u64(round * 1000 + i).unwrap();
            e.key("big").unwrap();
            e.str(&big).unwrap();
            e.end_map().unwrap();
            let d = e.finish().unwrap();
            total += d.len();
            s.put(&format!("r{round}-{i:04}"), d).unwrap();
        }
        s.flush().unwrap();
    }
    assert!(total > 10 << 20);
    assert!(s.map_size() > start * 8, "map {}", s.map_size());
    assert_eq!(s.len().unwrap(), 1200);
    drop(s);
    // Reopening with the small initial size adopts the file's size.
    let s = Store::open(&path, &small).unwrap();
    assert_eq!(s.len().unwrap(), 1200);
    assert_eq!(s.verify().unwrap(), 1200);
    let d = s.get("r3-0299").unwrap().unwrap();
    assert_eq!(d.root().get("i").unwrap().as_u64(), Some(3299));
}

/// A map size beyond what a store may record (64 TiB) or beyond `usize`
/// is capped: the store it makes opens again, and no message speaks of
/// page-size multiples. (Mapping 64 TiB may fail on small address
/// spaces: that is an I/O error.)
#[test]
fn huge_map_sizes_are_capped() {
    for size in [(1usize << 46) + (1 << 20), usize::MAX] {
        let (_d, path) = tmp();
        match Store::open(&path, &opts().map_size(size)) {
            Ok(mut s) => {
                assert!(s.map_size() <= 1 << 46);
                s.put("a", doc_of(1)).unwrap();
                s.flush().unwrap();
                drop(s);
                let s = Store::open(&path, &opts()).unwrap();
                assert_eq!(n_of(&s, "a"), Some(1));
            }
            Err(e) => {
                assert_eq!(e.kind(), StoreErrorKind::Io, "{e}");
                assert!(!e.to_string().contains("multiple"), "{e}");
            }
        }
    }
}

#[test]
fn growth_waits_for_views_to_be_released() {
    let (_d, path) = tmp();
    let small = StoreOptions::default().map_size(1 << 20);
    let mut s = Store::open(&path, &small).unwrap();
    s.put("first", doc_of(1)).unwrap();
    s.flush().unwrap();
    let view = s.record("first").unwrap().unwrap();
    assert!(!view.is_pending());
    let big = "z".repeat(100_000);
    for i in 0..40 {
        let mut e = Encoder::new();
        e.str(&big).unwrap();
        s.put(&format!("big{i}"), e.finish().unwrap()).unwrap();
    }
    let msg = expect_kind(s.flush(), StoreErrorKind::Busy);
    assert!(msg.contains("view"), "{msg}");
    // Nothing lost: still pending and readable, the view still valid.
    assert_eq!(s.pending_len(), 40);
    assert_eq!(s.len().unwrap(), 41);
    assert_eq!(
        view.document().unwrap().root().get("n").unwrap().as_u64(),
        Some(1)
    );
    drop(view);
    s.flush().unwrap();
    assert_eq!(s.len().unwrap(), 41);
    assert!(s.map_size() > 1 << 20);
}

// ------------------------------------------------------ same process twice

#[test]
fn two_handles_in_one_process_share_the_file() {
    let (_d, path) = tmp();
    let mut w = Store::open(&path, &opts()).unwrap();
    let mut r = Store::open(&path, &opts().readonly(true)).unwrap();
    w.put("a", doc_of(1)).unwrap();
    assert_eq!(r.len().unwrap(), 0);
    w.flush().unwrap();
    assert_eq!(r.len().unwrap(), 0, "snapshot isolation until reload");
    r.reload().unwrap();
    assert_eq!(n_of(&r, "a"), Some(1));
    let id = r.snapshot().unwrap().txn_id();
    w.put("b", doc_of(2)).unwrap();
    w.flush().unwrap();
    r.reload().unwrap();
    assert!(r.snapshot().unwrap().txn_id() > id);
    assert_eq!(r.len().unwrap(), 2);
    drop(w);
    drop(r);
    // Reopen after every handle closed.
    let s = Store::open(&path, &opts()).unwrap();
    assert_eq!(s.len().unwrap(), 2);
}

/// A store open read-only in this process (a `Store`, or only a record
/// of one) keeps a read-write open of the same file from succeeding; the
/// error says what to release.
#[test]
fn read_write_after_read_only_in_one_process() {
    let (_d, path) = tmp();
    make_store(&path, 3);
    let r = Store::open(&path, &opts().readonly(true)).unwrap();
    let rec = r.record("item 1").unwrap().unwrap();
    let msg = expect_kind(Store::open(&path, &opts()), StoreErrorKind::Busy);
    assert!(msg.contains("read-only"), "{msg}");
    drop(r);
    // Only the record is left: the message must say so.
    let msg = expect_kind(Store::open(&path, &opts()), StoreErrorKind::Busy);
    assert!(msg.contains("record") && msg.contains("view"), "{msg}");
    drop(rec);
    let mut w = Store::open(&path, &opts()).unwrap();
    w.put("x", doc_of(1)).unwrap();
    w.flush().unwrap();
}

#[test]
fn records_outlive_reload_and_threads() {
    let (_d, path) = tmp();
    make_store(&path, 50);
    let mut s = Store::open(&path, &opts()).unwrap();
    let rec = s.record("item 7").unwrap().unwrap();
    s.delete("item 7").unwrap();
    s.flush().unwrap();
    s.reload().unwrap();
    assert!(s.get("item 7").unwrap().is_none());
    let h = std::thread::spawn(move || BBItem::decode(rec.document().unwrap().root()));
    assert_eq!(h.join().unwrap(), BBItem::dummy(7));
}

// ------------------------------------------------------------- processes

/// A child writer (this test binary re-run with an env var) commits batches
/// while this process reloads and checks every state it sees is complete.
#[test]
fn readers_see_only_committed_states() {
    if let Ok(p) = std::env::var("ROVING_STORE_TEST_WRITER") {
        let mut s = Store::open(&p, &opts()).unwrap();
        for batch in 1..=60u64 {
            // Each batch rewrites every key with the batch number and sets
            // "count"; a reader must never see a mix of two batches.
            for i in 0..50 {
                s.put(&format!("k{i:02}"), doc_of(batch)).unwrap();
            }
            s.put("count", doc_of(batch)).unwrap();
            s.flush().unwrap();
        }
        return;
    }
    let (_d, path) = tmp();
    make_store(&path, 0);
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe)
        .args([
            "--exact",
            "readers_see_only_committed_states",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("ROVING_STORE_TEST_WRITER", &path)
        .spawn()
        .unwrap();
    let mut s = Store::open(&path, &opts().readonly(true)).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    loop {
        s.reload().unwrap();
        let count = n_of(&s, "count");
        if let Some(c) = count {
            for i in 0..50 {
                assert_eq!(n_of(&s, &format!("k{i:02}")), Some(c), "torn state");
            }
            assert_eq!(s.len().unwrap(), 51);
            seen.insert(c);
            if c == 60 {
                break;
            }
        } else {
            assert_eq!(s.len().unwrap(), 0);
        }
        if let Some(st) = child.try_wait().unwrap() {
            assert!(st.success());
            s.reload().unwrap();
            assert_eq!(n_of(&s, "count"), Some(60));
            break;
        }
    }
    assert!(child.wait().unwrap().success());
    assert!(!seen.is_empty());
}

/// Another process grows the map past this process's while a view of it
/// is open here: `reload` cannot move the map, fails with `Busy`, and
/// changes nothing (the store still reads its state, its pending changes
/// are kept); once the view is released, `reload` succeeds.
#[test]
fn a_reload_that_cannot_grow_the_map_changes_nothing() {
    let small = StoreOptions::default().map_size(1 << 20);
    if let Ok(p) = std::env::var("ROVING_STORE_TEST_GROWER") {
        let mut s = Store::open(&p, &small).unwrap();
        let big = "z".repeat(100_000);
        for i in 0..40 {
            let mut e = Encoder::new();
            e.str(&big).unwrap();
            s.put(&format!("big{i}"), e.finish().unwrap()).unwrap();
        }
        s.flush().unwrap();
        return;
    }
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &small).unwrap();
    s.put("first", doc_of(1)).unwrap();
    s.flush().unwrap();
    let view = s.record("first").unwrap().unwrap();
    s.put("pending", doc_of(2)).unwrap();
    assert_eq!(s.len().unwrap(), 2);
    let exe = std::env::current_exe().unwrap();
    let st = std::process::Command::new(exe)
        .args([
            "--exact",
            "a_reload_that_cannot_grow_the_map_changes_nothing",
            "--test-threads=1",
        ])
        .env("ROVING_STORE_TEST_GROWER", &path)
        .status()
        .unwrap();
    assert!(st.success());
    let msg = expect_kind(s.reload(), StoreErrorKind::Busy);
    assert!(msg.contains("view"), "{msg}");
    // Nothing changed.
    assert_eq!(s.pending_len(), 1);
    assert_eq!(s.len().unwrap(), 2);
    assert_eq!(n_of(&s, "first"), Some(1));
    assert_eq!(n_of(&s, "pending"), Some(2));
    assert!(s.get("big0").unwrap().is_none());
    assert_eq!(s.iter().count(), 2);
    drop(view);
    s.reload().unwrap();
    assert_eq!(s.pending_len(), 0);
    assert_eq!(s.len().unwrap(), 41);
    assert!(s.get("big39").unwrap().is_some());
    assert!(s.map_size() > 1 << 20);
}

/// `reload` works when the reader table is full: the store's own
/// snapshot gives its slot to the new one.
#[test]
fn reload_with_a_full_reader_table() {
    let (_d, path) = tmp();
    let mut o = opts();
    o.max_readers = 4;
    let mut w = Store::open(&path, &o).unwrap();
    let mut others = Vec::new();
    loop {
        match Store::open(&path, &o) {
            Ok(s) => others.push(s),
            Err(e) => {
                assert_eq!(e.kind(), StoreErrorKind::Busy, "{e}");
                break;
            }
        }
    }
    assert!(!others.is_empty());
    w.put("a", doc_of(1)).unwrap();
    w.flush().unwrap();
    for s in &mut others {
        assert_eq!(n_of(s, "a"), None);
        s.reload().unwrap();
        assert_eq!(n_of(s, "a"), Some(1));
    }
}

fn doc_of_str(s: &str) -> Vec<u8> {
    let mut e = Encoder::new();
    e.str(s).unwrap();
    e.finish().unwrap()
}

/// A forked child that drops the store it inherited must not end the
/// parent's read transaction (LMDB's reader table is shared memory): the
/// parent's snapshot stays intact while another process rewrites every
/// record. Runs in a re-run of this test binary (one thread, so that
/// `fork` is safe), which forks; the rewriter is a third process.
#[test]
fn a_forked_child_dropping_its_store_keeps_the_parents_snapshot() {
    const NAME: &str = "a_forked_child_dropping_its_store_keeps_the_parents_snapshot";
    let rerun = |var: &str, path: &Path| {
        let st = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", NAME, "--test-threads=1"])
            .env(var, path)
            .status()
            .unwrap();
        assert!(st.success());
    };
    if let Ok(p) = std::env::var("ROVING_STORE_TEST_REWRITER") {
        for j in 0..30u8 {
            let mut s = Store::open(&p, &opts()).unwrap();
            let v = char::from(b'B' + j % 20).to_string().repeat(3000);
            for i in 0..20 {
                s.put(&format!("a{i}"), doc_of_str(&v)).unwrap();
            }
            s.flush().unwrap();
        }
        return;
    }
    let Ok(p) = std::env::var("ROVING_STORE_TEST_FORKER") else {
        let (_d, path) = tmp();
        rerun("ROVING_STORE_TEST_FORKER", &path);
        return;
    };
    let path = PathBuf::from(p);
    let a = "A".repeat(3000);
    let mut s = Store::open(&path, &opts()).unwrap();
    for i in 0..20 {
        s.put(&format!("a{i}"), doc_of_str(&a)).unwrap();
    }
    s.flush().unwrap();
    let view = s.record("a5").unwrap().unwrap();
    // SAFETY: this process runs one test on one thread (`--test-threads=1`);
    // the child only drops the store and exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        drop(view);
        drop(s);
        // SAFETY: ends the child without running the test harness.
        unsafe { libc::_exit(0) };
    }
    let mut status = 0;
    // SAFETY: waits for the child forked above.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    rerun("ROVING_STORE_TEST_REWRITER", &path);
    assert_eq!(view.document().unwrap().root().as_str(), Some(a.as_str()));
    let got = s
        .get("a5")
        .unwrap()
        .map(|d| d.root().as_str().map(str::to_owned));
    assert_eq!(got, Some(Some(a)));
    assert_eq!(s.iter().count(), 20);
}

/// A flush that cannot write (here: the file size limit, as a full disk)
/// fails with an I/O error that says so, keeps its pending changes, and
/// leaves the store as it was. The writer is a re-run of this test binary
/// with `RLIMIT_FSIZE` set (its output goes to pipes, which the limit does
/// not cover).
#[test]
fn a_flush_that_cannot_write_says_why() {
    const LIMIT: u64 = 2 << 20;
    if let Ok(p) = std::env::var("ROVING_STORE_TEST_FSIZE") {
        // SAFETY: plain system calls of this single-threaded re-run
        // (`--test-threads=1`), before any file is written.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: LIMIT as libc::rlim_t,
                rlim_max: libc::RLIM_INFINITY,
            };
            assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
        }
        let mut s = Store::open(&p, &opts()).unwrap();
        let pad = "x".repeat(10_000);
        for batch in 0..1000 {
            for i in 0..20 {
                let mut e = Encoder::new();
                e.str(&pad).unwrap();
                s.put(&format!("b{batch:04}-{i:02}"), e.finish().unwrap())
                    .unwrap();
            }
            if let Err(e) = s.flush() {
                assert_eq!(e.kind(), StoreErrorKind::Io, "{e}");
                let msg = e.to_string();
                assert!(msg.contains("full") || msg.contains("too large"), "{msg}");
                assert_eq!(s.pending_len(), 20);
                return;
            }
        }
        panic!("the file size limit was never reached");
    }
    let (_d, path) = tmp();
    make_store(&path, 10);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_flush_that_cannot_write_says_why",
            "--test-threads=1",
        ])
        .env("ROVING_STORE_TEST_FSIZE", &path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let s = Store::open(&path, &opts().verify_pages(true)).unwrap();
    assert_eq!(s.verify().unwrap() % 20, 10);
}

#[test]
fn store_and_records_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Store>();
    check::<roving_store::Record>();
    check::<roving_store::Snapshot>();
    check::<roving_store::StoreError>();
}

// ------------------------------------------------------------ page walk

fn build_varied_store(path: &Path) {
    let mut s = Store::open(path, &opts()).unwrap();
    for i in 0..400u64 {
        let mut e = Encoder::new();
        e.begin_map().unwrap();
        e.key("i").unwrap();
        e.u64(i).unwrap();
        e.key("pad").unwrap();
        // some values on overflow pages
        e.str(&"p".repeat(if i % 37 == 0 { 9000 } else { (i % 90) as usize }))
            .unwrap();
        e.end_map().unwrap();
        s.put(&format!("key {i:05}"), e.finish().unwrap()).unwrap();
        if i % 100 == 99 {
            s.flush().unwrap();
        }
    }
    for i in (0..400u64).step_by(3) {
        s.delete(&format!("key {i:05}")).unwrap();
    }
    s.flush().unwrap();
}

#[test]
fn verify_pages_accepts_good_stores() {
    let (_d, path) = tmp();
    build_varied_store(&path);
    let s = Store::open(&path, &opts().readonly(true).verify_pages(true)).unwrap();
    assert_eq!(s.len().unwrap(), 266);
    assert_eq!(s.verify().unwrap(), 266);
    drop(s);
    // Empty and fresh stores too.
    let (_d2, p2) = tmp();
    drop(Store::open(&p2, &opts()).unwrap());
    let s = Store::open(&p2, &opts().verify_pages(true)).unwrap();
    assert_eq!(s.len().unwrap(), 0);
}

/// Damaged copies of a store, opened with `verify_pages`: every one gives
/// an error or a store that reads without crashing (this test would die
/// with SIGBUS/SIGSEGV if the walk let a bad page through to LMDB).
#[test]
fn verify_pages_rejects_damaged_pages_without_crashing() {
    let (d, path) = tmp();
    build_varied_store(&path);
    let good = std::fs::read(&path).unwrap();
    let pages = good.len() / 4096;
    let mut rng = Rng(0xDEAD_BEEF_1234_5678);
    let (mut rejected, mut opened) = (0, 0);
    let rounds: usize = std::env::var("ROVING_STORE_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    for round in 0..rounds {
        let mut bad = good.clone();
        match round % 5 {
            // a field of a meta page (sizes, roots, depths, counts, txn ids)
            4 => {
                let at = rng.below(2) as usize * 4096 + 16 + rng.below(136) as usize;
                bad[at] = rng.next() as u8;
            }
            // a few random bytes anywhere after the meta pages
            0 | 1 => {
                for _ in 0..1 + rng.below(4) {
                    let at = 8192 + rng.below((bad.len() - 8192) as u64) as usize;
                    bad[at] = rng.next() as u8;
                }
            }
            // a page header field (number, flags, bounds) of a random page
            2 => {
                let page = 2 + rng.below(pages as u64 - 2) as usize;
                let at = page * 4096 + rng.below(16) as usize;
                bad[at] = rng.next() as u8;
            }
            // a node pointer or node header of a random page
            _ => {
                let page = 2 + rng.below(pages as u64 - 2) as usize;
                let at = page * 4096 + 16 + rng.below(64) as usize;
                bad[at] ^= 1 << rng.below(8);
            }
        }
        let p = d.path().join(format!("bad{round}.rvs"));
        std::fs::write(&p, &bad).unwrap();
        match Store::open(&p, &opts().readonly(true).verify_pages(true)) {
            Err(e) => {
                assert!(
                    matches!(
                        e.kind(),
                        StoreErrorKind::Corrupt | StoreErrorKind::NotAStore
                    ),
                    "{e}"
                );
                rejected += 1;
            }
            Ok(s) => {
                opened += 1;
                let _ = s.len();
                let _ = s.verify();
                for r in s.iter() {
                    let _ = r.map(|(_, d)| d.as_bytes().len());
                }
                for i in 0..400 {
                    let _ = s.get(&format!("key {i:05}"));
                }
            }
        }
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_file(d.path().join(format!("bad{round}.rvs-lock")));
    }
    assert!(
        rejected > rounds / 20 && opened > rounds / 20,
        "rejected {rejected}, opened {opened}"
    );
}

/// The fuzz finding `store_open-lmdb-sigbus`: a page whose nodes point past
/// the end of the file (LMDB alone dies of SIGBUS on it).
#[test]
fn verify_pages_rejects_the_sigbus_finding() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("finding.rvs");
    let bytes = include_bytes!("data/damaged-node-offsets.rvs");
    std::fs::write(&p, bytes).unwrap();
    let msg = expect_kind(
        Store::open(&p, &opts().readonly(true).verify_pages(true)),
        StoreErrorKind::Corrupt,
    );
    assert!(msg.contains("page"), "{msg}");
    expect_kind(
        Store::open(&p, &opts().verify_pages(true)),
        StoreErrorKind::Corrupt,
    );
}

/// The fuzz finding `store_open-verify-pages-sigbus`: the newer meta page
/// (transaction 16) sits in meta page 1, but LMDB reads transaction `t`
/// from meta page `t & 1`, so it followed meta page 0's trees, past the end
/// of the file, while the page walk checked meta page 1's (SIGBUS).
#[test]
fn a_meta_page_of_the_wrong_parity_is_rejected() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("finding.rvs");
    std::fs::write(&p, include_bytes!("data/meta-page-parity.rvs")).unwrap();
    let msg = expect_kind(
        Store::open(&p, &opts().readonly(true).verify_pages(true)),
        StoreErrorKind::Corrupt,
    );
    assert!(msg.contains("meta page"), "{msg}");
    expect_kind(
        Store::open(&p, &opts().verify_pages(true)),
        StoreErrorKind::Corrupt,
    );
    // The meta page check is O(1), so it runs without `verify_pages` too.
    expect_kind(
        Store::open(&p, &opts().readonly(true)),
        StoreErrorKind::Corrupt,
    );
}

/// LMDB may leave free pages at the end of the file unwritten ("the file
/// may be shorter if the freeDB lists the final pages", says LMDB), so a
/// file shorter than its page count is not always damaged: the pages
/// actually reachable decide. Simulated by raising the newest meta page's
/// last page number past the end of a good file.
#[test]
fn short_files_are_judged_by_their_reachable_pages() {
    let (d, path) = tmp();
    make_store(&path, 200);
    let mut bytes = std::fs::read(&path).unwrap();
    let txn = |b: &[u8], m: usize| {
        u64::from_le_bytes(b[m * 4096 + 144..m * 4096 + 152].try_into().unwrap())
    };
    let newest = if txn(&bytes, 1) > txn(&bytes, 0) {
        1
    } else {
        0
    };
    let at = newest * 4096 + 136;
    let last = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    assert_eq!((last + 1) * 4096, bytes.len() as u64);
    bytes[at..at + 8].copy_from_slice(&(last + 5).to_le_bytes());
    let short = d.path().join("short.rvs");
    std::fs::write(&short, &bytes).unwrap();
    {
        let s = Store::open(&short, &opts().readonly(true)).unwrap();
        assert_eq!(s.verify().unwrap(), 200);
        assert_eq!(std::fs::metadata(&short).unwrap().len(), bytes.len() as u64);
    }
    {
        // Read-write: the file is extended to its page count, and works.
        let mut s = Store::open(&short, &opts()).unwrap();
        assert_eq!(std::fs::metadata(&short).unwrap().len(), (last + 6) * 4096);
        s.put("after", doc_of(1)).unwrap();
        s.flush().unwrap();
        s.reload().unwrap();
        assert_eq!(s.verify().unwrap(), 201);
    }
    // The same, one page further cut: a reachable page is missing.
    let cut = d.path().join("cut.rvs");
    std::fs::write(&cut, &bytes[..bytes.len() - 4096]).unwrap();
    let msg = expect_kind(
        Store::open(&cut, &opts().readonly(true)),
        StoreErrorKind::Corrupt,
    );
    assert!(msg.contains("truncated"), "{msg}");
}

#[test]
fn populate_reads_the_same_records() {
    let (_d, p) = tmp();
    make_store(&p, 300);
    let bytes_of = |s: &Store| -> Vec<Vec<u8>> {
        (0..300)
            .map(|i| {
                s.get(&format!("item {i}"))
                    .unwrap()
                    .unwrap()
                    .as_bytes()
                    .to_vec()
            })
            .collect()
    };
    let plain = Store::open(&p, &opts().readonly(true)).unwrap();
    let want = bytes_of(&plain);
    drop(plain);
    let s = Store::open(&p, &opts().readonly(true).populate(true)).unwrap();
    assert_eq!(bytes_of(&s), want);
    assert_eq!(s.verify().unwrap(), 300);
    drop(s);
    // Writable too: later commits are read as usual.
    let mut s = Store::open(&p, &opts().populate(true)).unwrap();
    s.put("new", doc_of(7)).unwrap();
    s.flush().unwrap();
    assert_eq!(n_of(&s, "new"), Some(7));
    assert_eq!(bytes_of(&s), want);
}

/// An invalid key's error names the store, as the store's other errors do.
#[test]
fn invalid_key_errors_name_the_store() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &opts()).unwrap();
    for (key, n) in [(String::new(), 0), ("k".repeat(512), 512)] {
        let e = s.put(&key, doc_of(1)).unwrap_err();
        assert_eq!(e.kind(), StoreErrorKind::InvalidKey);
        assert_eq!(e.path(), Some(path.as_path()));
        assert_eq!(
            e.to_string(),
            format!(
                "store {}: keys must be 1 to 511 bytes of UTF-8, this one is {n} bytes",
                path.display()
            )
        );
    }
}

/// `max_readers` is taken as at least 1 (LMDB refuses 0) and at most
/// `MAX_READERS`; the error of a full table gives the size in use.
#[test]
fn max_readers_is_taken_within_its_bounds() {
    let (_d, path) = tmp();
    let one = opts().max_readers(0);
    let s = Store::open(&path, &one).unwrap();
    let e = Store::open(&path, &one).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Busy);
    assert!(e.to_string().contains("all 1 slots"), "{e}");
    assert!(e.to_string().contains("max_readers"), "{e}");
    drop(s);
    let (_d2, path2) = tmp();
    let huge = opts().max_readers(u32::MAX);
    let s = Store::open(&path2, &huge).unwrap();
    let lock = std::fs::metadata(format!("{}-lock", path2.display())).unwrap();
    assert!(
        lock.len() <= 64 * (roving_store::MAX_READERS as u64 + 64),
        "{}",
        lock.len()
    );
    drop(s);
}
