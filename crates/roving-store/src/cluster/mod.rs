//! [`ClusterStore`]: a store of roving documents on a Redis Cluster.
//!
//! The second [`Backend`](crate::Backend), for when one machine is not
//! enough: several app servers share one store, or the data outgrows one
//! machine. It talks to the cluster's nodes itself (one connection per
//! node, with the `redis` crate's protocol layer), because `flush` must
//! send `WAIT` on the very connection that wrote (see [`ClusterStore::flush`]).
//!
//! Its semantics are documented on [`ClusterStore`].

mod dict;
mod slot;
mod txn;

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use redis::Value;
use roving::{Dictionary, Document};

use crate::error::{Result, StoreError, StoreErrorKind};

/// The longest key, in bytes (as for LMDB stores).
const MAX_KEY: usize = 511;
/// Commands per pipeline round trip to one node, at most.
const BATCH: usize = 4096;
/// Keys asked for per `SCAN` step.
const SCAN_COUNT: &str = "1000";

/// Options of [`ClusterStore::open`].
#[derive(Clone, Debug)]
pub struct ClusterOptions {
    /// The Redis key prefix of the store's records (default empty: the
    /// whole key space of the cluster is the store).
    pub prefix: String,
    /// Refuse writes.
    pub readonly: bool,
    /// How long to wait for a node to accept a connection. Default 1 s.
    pub connect_timeout: Duration,
    /// How long to wait for a node's answer (at least
    /// [`wait_timeout`](ClusterOptions::wait_timeout) + 1 s). Default 2 s.
    pub response_timeout: Duration,
    /// How many replicas of each master written to must acknowledge a
    /// flush's writes (`WAIT`). Default 1; 0 skips the `WAIT`.
    pub replicas: u32,
    /// How long a master waits for its replicas' acknowledgements in
    /// `WAIT`. Default 1 s.
    pub wait_timeout: Duration,
    /// How many times commands are sent again after a redirection, a
    /// node that does not answer or too few acknowledgements, with pauses
    /// of 50 ms doubling up to 1 s in between. Default 8 (about 5 s plus
    /// the timeouts in all).
    pub retries: u32,
    /// Grow the store-wide dictionary (`cluster/dict.rs`) with the shapes
    /// of the records written through [`ClusterStore::grow_dictionary`].
    /// Default true; with false, [`ClusterStore::grow_dictionary`] adds
    /// nothing (records written by other clients against the dictionary
    /// still read).
    pub dictionary: bool,
}

impl Default for ClusterOptions {
    fn default() -> ClusterOptions {
        ClusterOptions {
            prefix: String::new(),
            readonly: false,
            connect_timeout: Duration::from_secs(1),
            response_timeout: Duration::from_secs(2),
            replicas: 1,
            wait_timeout: Duration::from_secs(1),
            retries: 8,
            dictionary: true,
        }
    }
}

/// A map of string keys to roving documents on a Redis Cluster.
///
/// # Semantics
/// - **A store is a key prefix.** The record of key `k` is the Redis key
///   `prefix + k` holding the document's bytes, so many stores share one
///   cluster. Keys are 1 to 511 bytes of UTF-8 (as in LMDB stores) that
///   neither begin with a NUL byte nor end with `"\0dict"` (reserved for
///   the stores' own keys: the store-wide dictionary, see
///   `cluster/dict.rs`). A key's slot
///   is that of its Redis key: a hash tag (`{user1}:cart`) puts keys in one
///   slot; a prefix with braces puts the whole store in one slot (one
///   master), so keep braces out of prefixes.
/// - **Each key is atomic**; there is no snapshot: a read sees the
///   cluster's current value (this store's pending changes first). Several
///   writers are last writer wins, key by key.
/// - **`flush` is durable against the loss of a master**: it pipelines the
///   pending writes to each master (`SET`, `DEL`) followed by
///   `WAIT replicas timeout` on the same connection, and returns only when
///   every master written to says at least [`ClusterOptions::replicas`]
///   replicas have its writes. Otherwise it fails and keeps the pending
///   changes, so that a `flush` retried later writes them again (writes
///   are idempotent). A flush is not atomic across keys: after a failed
///   flush, some of its keys may already be written.
/// - **Redirections** (`MOVED`, `ASK`, `TRYAGAIN`, `CLUSTERDOWN`) while
///   slots move or fail over are followed: the slot map is read again and
///   the commands not yet answered are sent again, at most
///   [`ClusterOptions::retries`] times with a growing pause. A node that
///   does not answer within [`ClusterOptions::connect_timeout`] /
///   [`ClusterOptions::response_timeout`] for that long gives a
///   [`StoreErrorKind::Cluster`] error naming the node, never a hang.
/// - **Reads copy**: each record is copied off the network and validated
///   (a value that is not a roving document is
///   [`Corrupt`](StoreErrorKind::Corrupt)). A record written against the
///   store-wide dictionary is handed out as the plain document it reads as
///   (the dictionary's base, then its records).
/// - **The store-wide dictionary** (`docs/FORMAT.md` section 23) is one
///   append-only Redis list beside the records, grown atomically by a Lua
///   script; each client caches it and reads the entries it lacks when a
///   record needs them (`cluster/dict.rs`). `flush` appends the entries
///   its records need, acknowledged by a replica, before writing them.
/// - **Pending changes** are held in memory (no spill to disk).
/// - **Transactions** ([`ClusterStore::transaction`]) are optimistic and
///   hold over the keys of one hash slot (`cluster/txn.rs`).
pub struct ClusterStore {
    /// `redis://host:port` of the first node given, and the prefix: for
    /// messages.
    name: String,
    prefix: Vec<u8>,
    opts: ClusterOptions,
    net: Mutex<Net>,
    pending: BTreeMap<String, Option<Arc<[u8]>>>,
    /// The open transaction (`cluster/txn.rs`).
    txn: Mutex<Option<txn::Txn>>,
    /// The dictionary's entries read from the cluster so far.
    cache: Mutex<dict::Cache>,
    /// The dictionary pending records are written against: the cluster's
    /// first `base` entries, then the entries this client added since.
    ours: Arc<Dictionary>,
    base: usize,
    /// What grows `ours` from the records this client writes.
    learner: roving::dictionary::Learner,
}

/// The connections and the slot map.
struct Net {
    /// Addresses (`host:port`) given to `open`.
    seeds: Vec<String>,
    /// `(first slot, last slot, master's address)`, sorted.
    ranges: Vec<(u16, u16, String)>,
    conns: HashMap<String, redis::Connection>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verb {
    Get,
    Exists,
    Set,
    Del,
    /// The dictionary's rows from number `n` on (`LRANGE`).
    Rows,
    /// Appends the row `value` to the dictionary if its last row's head
    /// is `extra` ([`dict::APPEND_SCRIPT`]).
    Append,
    /// Writes row `n` again if its head is `extra`, so that a `WAIT`
    /// after it covers every row up to it ([`dict::CONFIRM_SCRIPT`]).
    Confirm,
}

/// One command on one key.
struct Op<'a> {
    verb: Verb,
    key: Vec<u8>,
    value: &'a [u8],
    /// The number argument of [`Verb::Rows`] and [`Verb::Confirm`].
    n: usize,
    /// The row head argument of [`Verb::Append`] and [`Verb::Confirm`].
    extra: Vec<u8>,
}

impl<'a> Op<'a> {
    fn new(verb: Verb, key: Vec<u8>, value: &'a [u8]) -> Op<'a> {
        Op {
            verb,
            key,
            value,
            n: 0,
            extra: Vec::new(),
        }
    }
}

/// Appends the RESP encoding of the command `args` to `out`.
fn push_cmd(out: &mut Vec<u8>, args: &[&[u8]]) {
    let _ = write!(out, "*{}\r\n", args.len());
    for a in args {
        let _ = write!(out, "${}\r\n", a.len());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
}

impl Op<'_> {
    fn encode(&self, out: &mut Vec<u8>) {
        match self.verb {
            Verb::Get => push_cmd(out, &[b"GET", &self.key]),
            Verb::Exists => push_cmd(out, &[b"EXISTS", &self.key]),
            Verb::Set => push_cmd(out, &[b"SET", &self.key, self.value]),
            Verb::Del => push_cmd(out, &[b"DEL", &self.key]),
            Verb::Rows => {
                let from = self.n.to_string();
                push_cmd(out, &[b"LRANGE", &self.key, from.as_bytes(), b"-1"]);
            }
            Verb::Append => {
                let script = dict::APPEND_SCRIPT.as_bytes();
                let args: [&[u8]; 6] = [b"EVAL", script, b"1", &self.key, &self.extra, self.value];
                push_cmd(out, &args);
            }
            Verb::Confirm => {
                let row = self.n.to_string();
                let script = dict::CONFIRM_SCRIPT.as_bytes();
                let args: [&[u8]; 6] = [
                    b"EVAL",
                    script,
                    b"1",
                    &self.key,
                    row.as_bytes(),
                    &self.extra,
                ];
                push_cmd(out, &args);
            }
        }
    }
}

/// True for keys reserved for the stores' own keys: those that begin with
/// a NUL byte (this store's), or end with its dictionary's name (so that
/// no record of a store can be the dictionary of a store whose prefix
/// extends its prefix).
fn reserved(key: &[u8]) -> bool {
    key.first() == Some(&0) || key.ends_with(dict::DICT_NAME)
}

/// A `Cluster` error about node `addr`.
#[cold]
fn node_error(addr: &str, what: impl std::fmt::Display) -> StoreError {
    StoreError::new(
        StoreErrorKind::Cluster,
        format!("cluster node {addr}: {what}"),
    )
}

/// `host:port` of `redis://host:port[/...]` (or of `host:port`).
fn address(url: &str) -> Result<String> {
    let rest = url.strip_prefix("redis://").unwrap_or(url);
    let hostport = rest.split('/').next().unwrap_or_default();
    let hostport = hostport.rsplit('@').next().unwrap_or_default();
    match hostport.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok() => Ok(hostport.to_owned()),
        _ => Err(StoreError::new(
            StoreErrorKind::Cluster,
            format!("{url:?} is not a Redis node address (redis://host:port)"),
        )),
    }
}

/// One error of all of `errs` (their messages joined), or "did not answer".
fn joined(mut errs: Vec<StoreError>) -> StoreError {
    if errs.len() == 1 {
        return errs.remove(0);
    }
    if errs.is_empty() {
        return StoreError::new(StoreErrorKind::Cluster, "the cluster did not answer");
    }
    let mut msgs: Vec<&str> = errs.iter().map(StoreError::message).collect();
    msgs.dedup();
    StoreError::new(StoreErrorKind::Cluster, msgs.join("; "))
}

/// The pause before try `round` (1-based): 50 ms doubling, at most 1 s.
fn backoff(round: u32) -> Duration {
    Duration::from_millis((50u64 << round.min(5).saturating_sub(1)).min(1000))
}

/// What one node's answers to a group of commands ask for.
enum Answer {
    /// The commands (by index) to send again, each to the node named (an
    /// `ASK` redirection) or to its slot's master; whether the slot map
    /// must be read again; the error that explains the retry, if any.
    Retry(Vec<(usize, Option<String>)>, bool, Option<StoreError>),
    /// An error that retrying does not cure.
    Fatal(StoreError),
}

impl Net {
    fn conn(&mut self, addr: &str, opts: &ClusterOptions) -> Result<&mut redis::Connection> {
        if !self.conns.contains_key(addr) {
            let c = redis::Client::open(format!("redis://{addr}"))
                .and_then(|c| c.get_connection_with_timeout(opts.connect_timeout))
                .map_err(|e| node_error(addr, format_args!("cannot connect: {e}")))?;
            let rt = opts
                .response_timeout
                .max(opts.wait_timeout + Duration::from_secs(1));
            c.set_read_timeout(Some(rt))
                .and_then(|()| c.set_write_timeout(Some(rt)))
                .map_err(|e| node_error(addr, e))?;
            self.conns.insert(addr.to_owned(), c);
        }
        Ok(self.conns.get_mut(addr).expect("just inserted"))
    }

    /// Reads the slot map from the first node that gives it.
    fn refresh(&mut self, opts: &ClusterOptions) -> Result<()> {
        let mut tried: Vec<String> = Vec::new();
        for r in &self.ranges {
            if !tried.contains(&r.2) {
                tried.push(r.2.clone());
            }
        }
        for s in &self.seeds {
            if !tried.contains(s) {
                tried.push(s.clone());
            }
        }
        let mut errors = Vec::new();
        for addr in &tried {
            match self.slots_from(addr, opts) {
                Ok(ranges) if !ranges.is_empty() => {
                    self.ranges = ranges;
                    return Ok(());
                }
                Ok(_) => errors.push(format!("{addr}: no slots assigned")),
                Err(e) => {
                    self.conns.remove(addr);
                    errors.push(e.message().to_owned());
                }
            }
        }
        Err(StoreError::new(
            StoreErrorKind::Cluster,
            format!(
                "no node of the cluster gave its slot map: {}",
                errors.join("; ")
            ),
        ))
    }

    fn slots_from(&mut self, addr: &str, opts: &ClusterOptions) -> Result<Vec<(u16, u16, String)>> {
        let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h).to_owned();
        let conn = self.conn(addr, opts)?;
        let v = redis::cmd("CLUSTER")
            .arg("SLOTS")
            .query::<Value>(conn)
            .map_err(|e| node_error(addr, e))?;
        let bad = || node_error(addr, "CLUSTER SLOTS gave an answer of an unknown form");
        let Value::Array(rows) = v else {
            return Err(bad());
        };
        let mut ranges = Vec::new();
        for row in rows {
            let Value::Array(f) = row else {
                return Err(bad());
            };
            let (Some(Value::Int(a)), Some(Value::Int(b)), Some(Value::Array(m))) =
                (f.first(), f.get(1), f.get(2))
            else {
                return Err(bad());
            };
            let mhost = match m.first() {
                Some(Value::BulkString(h)) if !h.is_empty() && h != b"?" => {
                    String::from_utf8_lossy(h).into_owned()
                }
                _ => host.clone(),
            };
            let Some(Value::Int(port)) = m.get(1) else {
                return Err(bad());
            };
            let (Ok(a), Ok(b)) = (u16::try_from(*a), u16::try_from(*b)) else {
                return Err(bad());
            };
            ranges.push((a, b, format!("{mhost}:{port}")));
        }
        ranges.sort();
        Ok(ranges)
    }

    fn master_of(&self, slot: u16) -> Option<&str> {
        let i = self.ranges.partition_point(|r| r.1 < slot);
        match self.ranges.get(i) {
            Some((a, _, addr)) if *a <= slot => Some(addr),
            _ => None,
        }
    }

    /// The masters' addresses, each once.
    fn masters(&self) -> Vec<String> {
        let mut out: Vec<String> = self.ranges.iter().map(|r| r.2.clone()).collect();
        out.sort();
        out.dedup();
        out
    }
}

impl ClusterStore {
    /// Opens the store with [`ClusterOptions::prefix`] on the cluster one
    /// of whose nodes is each of `nodes` (`redis://host:port`; one is
    /// enough, more are tried in turn): reads the cluster's slot map, or
    /// fails with a [`Cluster`](StoreErrorKind::Cluster) error.
    pub fn open<S: AsRef<str>>(nodes: &[S], opts: &ClusterOptions) -> Result<ClusterStore> {
        let seeds = nodes
            .iter()
            .map(|n| address(n.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        let Some(first) = seeds.first() else {
            return Err(StoreError::new(
                StoreErrorKind::Cluster,
                "no Redis Cluster node given",
            ));
        };
        let name = match opts.prefix.as_str() {
            "" => format!("redis://{first}"),
            p => format!("redis://{first} prefix {p:?}"),
        };
        let mut net = Net {
            seeds: seeds.clone(),
            ranges: Vec::new(),
            conns: HashMap::new(),
        };
        net.refresh(opts).map_err(|e| e.with_path(name.as_ref()))?;
        let mut store = ClusterStore {
            name,
            prefix: opts.prefix.as_bytes().to_vec(),
            opts: opts.clone(),
            net: Mutex::new(net),
            pending: BTreeMap::new(),
            txn: Mutex::new(None),
            cache: Mutex::new(dict::Cache::default()),
            ours: Arc::new(Dictionary::new()),
            base: 0,
            learner: roving::dictionary::Learner::new(),
        };
        if !opts.readonly && opts.dictionary {
            // A writer starts from the dictionary's entries, so that its
            // records refer to those other clients added.
            store.load_dictionary()?;
            store.adopt_dictionary();
        }
        Ok(store)
    }

    /// `redis://host:port` of the first node given to `open`, and the
    /// prefix if there is one: how errors name the store.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The store's key prefix.
    pub fn prefix(&self) -> &str {
        &self.opts.prefix
    }

    /// True if the store was opened read-only.
    pub fn is_readonly(&self) -> bool {
        self.opts.readonly
    }

    /// The longest key allowed, in bytes.
    pub fn max_key_len(&self) -> usize {
        MAX_KEY
    }

    fn err(&self, e: StoreError) -> StoreError {
        e.with_path(self.name.as_ref())
    }

    fn net(&self) -> MutexGuard<'_, Net> {
        self.net.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn txn_lock(&self) -> MutexGuard<'_, Option<txn::Txn>> {
        self.txn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn redis_key(&self, key: &str) -> Vec<u8> {
        let mut k = Vec::with_capacity(self.prefix.len() + key.len());
        k.extend_from_slice(&self.prefix);
        k.extend_from_slice(key.as_bytes());
        k
    }

    fn check_key(&self, key: &str) -> Result<()> {
        if key.is_empty() || key.len() > MAX_KEY {
            return Err(self.err(StoreError::new(
                StoreErrorKind::InvalidKey,
                format!(
                    "keys must be 1 to {MAX_KEY} bytes of UTF-8, this one is {} bytes",
                    key.len()
                ),
            )));
        }
        if reserved(key.as_bytes()) {
            return Err(self.err(StoreError::new(
                StoreErrorKind::InvalidKey,
                "keys of a cluster store may not begin with a NUL character or end \
                 with \"\\0dict\" (reserved for the stores' own keys)",
            )));
        }
        Ok(())
    }

    fn check_writable(&self) -> Result<()> {
        if self.opts.readonly {
            return Err(self.err(StoreError::new(
                StoreErrorKind::ReadOnly,
                "the store is open read-only",
            )));
        }
        Ok(())
    }

    /// Sends `ops`, each to its slot's master, in one pipeline per node
    /// (each ended by `WAIT` if `wait`), following redirections; returns
    /// their answers in order.
    fn run(&self, ops: &[Op<'_>], wait: bool) -> Result<Vec<Value>> {
        let mut results = vec![Value::Nil; ops.len()];
        for start in (0..ops.len()).step_by(BATCH) {
            let end = (start + BATCH).min(ops.len());
            self.run_batch(&ops[start..end], wait, &mut results[start..end])?;
        }
        Ok(results)
    }

    fn run_batch(&self, ops: &[Op<'_>], wait: bool, results: &mut [Value]) -> Result<()> {
        let opts = &self.opts;
        let mut net = self.net();
        let mut todo: Vec<(usize, Option<String>)> = (0..ops.len()).map(|i| (i, None)).collect();
        // The errors of the last round that had any (each node's), so that
        // the final error names every node that failed, not only the last.
        let mut errs: Vec<StoreError> = Vec::new();
        let mut last_err: Vec<StoreError> = Vec::new();
        let mut refresh = false;
        let mut round = 0;
        while !todo.is_empty() {
            if !last_err.is_empty() {
                errs = std::mem::take(&mut last_err);
            }
            if round > opts.retries {
                let e = joined(errs);
                let tries = opts.retries + 1;
                return Err(self.err(e.explained(&format!(" (after {tries} tries)"))));
            }
            if round > 0 {
                std::thread::sleep(backoff(round));
            }
            round += 1;
            if refresh {
                if let Err(e) = net.refresh(opts) {
                    last_err.push(e);
                    continue;
                }
                refresh = false;
            }
            let mut groups: BTreeMap<String, Vec<(usize, bool)>> = BTreeMap::new();
            for (i, ask) in std::mem::take(&mut todo) {
                let addr = match ask {
                    Some(a) => Some((a, true)),
                    None => net
                        .master_of(slot::slot(&ops[i].key))
                        .map(|a| (a.to_owned(), false)),
                };
                match addr {
                    Some((a, asking)) => groups.entry(a).or_default().push((i, asking)),
                    None => {
                        todo.push((i, None));
                        refresh = true;
                        last_err.push(StoreError::new(
                            StoreErrorKind::Cluster,
                            "a slot has no master in the cluster's slot map",
                        ));
                    }
                }
            }
            let mut sent = Vec::new();
            for (addr, items) in groups {
                let mut buf = Vec::new();
                for &(i, asking) in &items {
                    if asking {
                        push_cmd(&mut buf, &[b"ASKING"]);
                    }
                    ops[i].encode(&mut buf);
                }
                if wait && opts.replicas > 0 {
                    let n = opts.replicas.to_string();
                    let ms = opts.wait_timeout.as_millis().max(1).to_string();
                    push_cmd(&mut buf, &[b"WAIT", n.as_bytes(), ms.as_bytes()]);
                }
                let r = net.conn(&addr, opts).and_then(|c| {
                    c.send_packed_command(&buf)
                        .map_err(|e| node_error(&addr, e))
                });
                match r {
                    Ok(()) => sent.push((addr, items)),
                    Err(e) => {
                        net.conns.remove(&addr);
                        todo.extend(items.iter().map(|&(i, _)| (i, None)));
                        refresh = true;
                        last_err.push(e);
                    }
                }
            }
            for (addr, items) in sent {
                match receive(
                    &mut net,
                    &addr,
                    &items,
                    wait && opts.replicas > 0,
                    opts,
                    results,
                ) {
                    Answer::Retry(again, moved, e) => {
                        todo.extend(again);
                        refresh |= moved;
                        last_err.extend(e);
                    }
                    Answer::Fatal(e) => {
                        net.conns.remove(&addr);
                        return Err(self.err(e));
                    }
                }
            }
        }
        Ok(())
    }

    /// The validated bytes of a record read from the cluster (the plain
    /// document a record written against the dictionary reads as).
    fn record(&self, key: &str, v: Value) -> Result<Option<Arc<[u8]>>> {
        match v {
            Value::Nil => Ok(None),
            Value::BulkString(b) if crate::dict::needs(&b) > 0 => {
                let d = self.dictionary_for(&b)?;
                self.resolve(key, &b, &d).map(Some)
            }
            Value::BulkString(b) => match Document::open(&b) {
                Ok(_) => Ok(Some(Arc::from(b))),
                Err(e) => Err(self.err(
                    StoreError::new(
                        StoreErrorKind::Corrupt,
                        format!("the record {key:?} is not a valid roving document: {e}"),
                    )
                    .with_source(e),
                )),
            },
            other => Err(self.err(StoreError::new(
                StoreErrorKind::Corrupt,
                format!("the record {key:?} is not a string value: {other:?}"),
            ))),
        }
    }

    /// The validated bytes of the document under `key` (pending changes
    /// first), copied from the cluster.
    pub fn get(&self, key: &str) -> Result<Option<Arc<[u8]>>> {
        Ok(self.get_many(&[key])?.pop().flatten())
    }

    /// [`get`](ClusterStore::get) of each of `keys`, in one pipeline per
    /// master.
    pub fn get_many(&self, keys: &[&str]) -> Result<Vec<Option<Arc<[u8]>>>> {
        let mut out: Vec<Option<Arc<[u8]>>> = vec![None; keys.len()];
        let mut ops = Vec::new();
        let mut at = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            match self.pending.get(*k) {
                Some(Some(v)) if crate::dict::needs(v) > 0 => {
                    out[i] = Some(self.resolve(k, v, &self.ours)?);
                }
                Some(v) => out[i] = v.clone(),
                None if k.is_empty() || k.len() > MAX_KEY || reserved(k.as_bytes()) => {}
                None => {
                    ops.push(Op::new(Verb::Get, self.redis_key(k), &[]));
                    at.push(i);
                }
            }
        }
        if ops.is_empty() {
            return Ok(out);
        }
        let answers = if self.in_transaction() {
            let ks: Vec<&str> = at.iter().map(|&i| keys[i]).collect();
            self.txn_read(&ks)?
        } else {
            self.run(&ops, false)?
        };
        for (v, i) in answers.into_iter().zip(at) {
            out[i] = self.record(keys[i], v)?;
        }
        Ok(out)
    }

    /// Puts the document `doc` under `key` (pending until
    /// [`flush`](ClusterStore::flush)); an invalid document is an
    /// [`InvalidDocument`](StoreErrorKind::InvalidDocument) error.
    /// A document written against [`dictionary`](ClusterStore::dictionary)
    /// is checked against it.
    pub fn put(&mut self, key: &str, doc: impl Into<Vec<u8>>) -> Result<()> {
        let doc = doc.into();
        let checked = if crate::dict::needs(&doc) > 0 {
            Document::open_with(&doc, &self.ours, &mut Vec::new()).map(|_| ())
        } else {
            Document::open(&doc).map(|_| ())
        };
        if let Err(e) = checked {
            return Err(self.err(
                StoreError::new(
                    StoreErrorKind::InvalidDocument,
                    format!("the value for {key:?} is not a valid roving document: {e}"),
                )
                .with_source(e),
            ));
        }
        // SAFETY: validated just above.
        unsafe { self.put_trusted(key, doc) }
    }

    /// [`put`](ClusterStore::put) without validating `doc`.
    ///
    /// # Safety
    /// `doc` must be a valid roving document, plain or written against
    /// [`dictionary`](ClusterStore::dictionary) (e.g. the output of
    /// roving's encoder): reads of pending changes trust it.
    pub unsafe fn put_trusted(&mut self, key: &str, doc: Vec<u8>) -> Result<()> {
        self.check_writable()?;
        self.check_key(key)?;
        self.txn_claim(key)?;
        self.pending.insert(key.to_owned(), Some(Arc::from(doc)));
        Ok(())
    }

    /// Deletes `key` (pending); true if it was there.
    pub fn delete(&mut self, key: &str) -> Result<bool> {
        self.check_writable()?;
        self.check_key(key)?;
        let was = self.contains(key)?;
        if was {
            self.pending.insert(key.to_owned(), None);
        }
        Ok(was)
    }

    /// True if the store has `key` (pending changes included).
    pub fn contains(&self, key: &str) -> Result<bool> {
        if let Some(v) = self.pending.get(key) {
            return Ok(v.is_some());
        }
        if key.is_empty() || key.len() > MAX_KEY || reserved(key.as_bytes()) {
            return Ok(false);
        }
        if self.in_transaction() {
            return Ok(!matches!(
                self.txn_read(&[key])?.first(),
                Some(Value::Nil) | None
            ));
        }
        let op = Op::new(Verb::Exists, self.redis_key(key), &[]);
        Ok(matches!(self.run(&[op], false)?.first(), Some(Value::Int(n)) if *n > 0))
    }

    /// The keys of the committed records (`SCAN` of every master), unsorted.
    fn committed_keys(&self) -> Result<Vec<String>> {
        let opts = &self.opts;
        let mut pattern = Vec::with_capacity(self.prefix.len() + 1);
        for &b in &self.prefix {
            if matches!(b, b'*' | b'?' | b'[' | b']' | b'\\') {
                pattern.push(b'\\');
            }
            pattern.push(b);
        }
        pattern.push(b'*');
        let mut last_err = None;
        for round in 0..=opts.retries {
            if round > 0 {
                std::thread::sleep(backoff(round));
            }
            let mut net = self.net();
            if round > 0 {
                if let Err(e) = net.refresh(opts) {
                    last_err = Some(e);
                    continue;
                }
            }
            match self.scan_all(&mut net, &pattern) {
                Ok(keys) => return Ok(keys),
                Err(e) => last_err = Some(e),
            }
        }
        let e = last_err.unwrap_or_else(|| StoreError::new(StoreErrorKind::Cluster, "no answer"));
        Err(self.err(e))
    }

    fn scan_all(&self, net: &mut Net, pattern: &[u8]) -> Result<Vec<String>> {
        let mut keys = Vec::new();
        for addr in net.masters() {
            let conn = net.conn(&addr, &self.opts)?;
            let mut cursor = "0".to_owned();
            loop {
                let (next, batch): (String, Vec<Vec<u8>>) = redis::cmd("SCAN")
                    .arg(&cursor)
                    .arg("MATCH")
                    .arg(pattern)
                    .arg("COUNT")
                    .arg(SCAN_COUNT)
                    .query(conn)
                    .map_err(|e| node_error(&addr, e))?;
                for k in batch {
                    let Some(rest) = k.strip_prefix(self.prefix.as_slice()) else {
                        continue;
                    };
                    if reserved(rest) {
                        // The store's own keys (its dictionary), or the
                        // dictionary of a store whose prefix extends this
                        // one's.
                        continue;
                    }
                    if let Ok(s) = std::str::from_utf8(rest) {
                        keys.push(s.to_owned());
                    }
                }
                if next == "0" {
                    break;
                }
                cursor = next;
            }
        }
        Ok(keys)
    }

    /// Every key, pending changes included, sorted by their bytes.
    pub fn keys(&self) -> Result<Vec<String>> {
        let mut keys = self.committed_keys()?;
        keys.retain(|k| !self.pending.contains_key(k));
        keys.extend(
            self.pending
                .iter()
                .filter(|(_, v)| v.is_some())
                .map(|(k, _)| k.clone()),
        );
        keys.sort_unstable();
        keys.dedup();
        Ok(keys)
    }

    /// The number of records, pending changes included (a `SCAN` of
    /// every master: O(records)).
    pub fn len(&self) -> Result<u64> {
        Ok(self.keys()?.len() as u64)
    }

    /// True if the store has no record.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// True if there are changes not yet flushed.
    pub fn is_dirty(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The number of keys with changes not yet flushed.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Writes every pending change: one pipeline per master, ended by
    /// `WAIT` ([`ClusterOptions::replicas`]) on the same connection;
    /// returns once every master written to has its writes acknowledged
    /// by that many replicas. On error the changes stay pending (some may
    /// be written already): flush again, or reload.
    pub fn flush(&mut self) -> Result<()> {
        self.check_no_transaction("flush()")?;
        if self.pending.is_empty() {
            return Ok(());
        }
        self.check_writable()?;
        // The dictionary's new entries first, acknowledged, then the
        // records that use them.
        self.commit_dictionary()?;
        let ops: Vec<Op<'_>> = self
            .pending
            .iter()
            .map(|(k, v)| {
                let verb = if v.is_some() { Verb::Set } else { Verb::Del };
                Op::new(verb, self.redis_key(k), v.as_deref().unwrap_or_default())
            })
            .collect();
        self.run(&ops, true)?;
        drop(ops);
        self.pending.clear();
        self.adopt_dictionary();
        Ok(())
    }

    /// Deletes every record (pending until the next flush).
    pub fn clear(&mut self) -> Result<()> {
        self.check_writable()?;
        for k in self.keys()? {
            self.pending.insert(k, None);
        }
        Ok(())
    }

    /// Drops every pending change (reads always see the cluster's current
    /// state).
    pub fn reload(&mut self) -> Result<()> {
        self.check_no_transaction("reload()")?;
        self.pending.clear();
        self.drop_own_entries();
        if !self.opts.readonly && self.opts.dictionary {
            self.load_dictionary()?;
            self.adopt_dictionary();
        }
        Ok(())
    }
}

/// Reads the answers of node `addr` to the commands `items` (and to the
/// final `WAIT` if `wait`) into `results`.
fn receive(
    net: &mut Net,
    addr: &str,
    items: &[(usize, bool)],
    wait: bool,
    opts: &ClusterOptions,
    results: &mut [Value],
) -> Answer {
    let Some(conn) = net.conns.get_mut(addr) else {
        let all = items.iter().map(|&(i, _)| (i, None)).collect();
        return Answer::Retry(all, true, None);
    };
    let mut again = Vec::new();
    let mut moved = false;
    let mut err = None;
    let mut fatal = None;
    let mut done = Vec::new();
    for &(i, asking) in items {
        let mut read = || conn.recv_response();
        if asking {
            if let Err(e) = read() {
                net.conns.remove(addr);
                let all = items.iter().map(|&(i, _)| (i, None)).collect();
                return Answer::Retry(all, true, Some(node_error(addr, e)));
            }
        }
        match read() {
            Ok(Value::ServerError(e)) => match e.code() {
                "MOVED" => {
                    moved = true;
                    again.push((i, None));
                }
                "ASK" => {
                    let to = e
                        .details()
                        .and_then(|d| d.split_whitespace().nth(1))
                        .map(str::to_owned);
                    moved |= to.is_none();
                    again.push((i, to));
                }
                "TRYAGAIN" | "CLUSTERDOWN" | "LOADING" | "MASTERDOWN" | "READONLY" => {
                    moved = true;
                    err = Some(node_error(
                        addr,
                        format_args!("{} {}", e.code(), e.details().unwrap_or("")),
                    ));
                    again.push((i, None));
                }
                _ => {
                    fatal.get_or_insert_with(|| {
                        node_error(
                            addr,
                            format_args!("{} {}", e.code(), e.details().unwrap_or("")),
                        )
                    });
                }
            },
            Ok(v) => {
                results[i] = v;
                done.push(i);
            }
            Err(e) => {
                net.conns.remove(addr);
                let all = items.iter().map(|&(i, _)| (i, None)).collect();
                return Answer::Retry(all, true, Some(node_error(addr, e)));
            }
        }
    }
    if wait {
        let acked = match conn.recv_response() {
            Ok(Value::Int(n)) => n,
            Ok(other) => {
                err = Some(node_error(addr, format_args!("WAIT answered {other:?}")));
                -1
            }
            Err(e) => {
                net.conns.remove(addr);
                let all = items.iter().map(|&(i, _)| (i, None)).collect();
                return Answer::Retry(all, true, Some(node_error(addr, e)));
            }
        };
        if acked < i64::from(opts.replicas) {
            // Not acknowledged: those writes count as not made.
            if acked >= 0 {
                err = Some(node_error(
                    addr,
                    format_args!(
                        "{acked} of {} replica(s) acknowledged the writes within {} ms",
                        opts.replicas,
                        opts.wait_timeout.as_millis()
                    ),
                ));
            }
            again.extend(done.iter().map(|&i| (i, None)));
            moved = true;
        }
    }
    if let Some(e) = fatal {
        return Answer::Fatal(e);
    }
    Answer::Retry(again, moved, err)
}

impl crate::Backend for ClusterStore {
    fn load(&self, key: &str) -> Result<Option<Arc<[u8]>>> {
        ClusterStore::get(self, key)
    }

    fn put(&mut self, key: &str, doc: Vec<u8>) -> Result<()> {
        ClusterStore::put(self, key, doc)
    }

    fn delete(&mut self, key: &str) -> Result<bool> {
        ClusterStore::delete(self, key)
    }

    fn contains(&self, key: &str) -> Result<bool> {
        ClusterStore::contains(self, key)
    }

    fn len(&self) -> Result<u64> {
        ClusterStore::len(self)
    }

    fn keys(&self) -> Result<Vec<String>> {
        ClusterStore::keys(self)
    }

    fn flush(&mut self) -> Result<()> {
        ClusterStore::flush(self)
    }

    fn reload(&mut self) -> Result<()> {
        ClusterStore::reload(self)
    }

    fn is_dirty(&self) -> bool {
        ClusterStore::is_dirty(self)
    }

    fn dictionary(&self) -> &Dictionary {
        ClusterStore::dictionary(self)
    }

    fn grow_dictionary(&mut self, enc: &roving::Encoder) {
        ClusterStore::grow_dictionary(self, enc);
    }

    fn begin_transaction(&mut self) -> Result<()> {
        ClusterStore::begin_transaction(self)
    }

    fn commit_transaction(&mut self) -> Result<()> {
        ClusterStore::commit_transaction(self)
    }

    fn abort_transaction(&mut self) -> Result<()> {
        ClusterStore::abort_transaction(self)
    }
}

impl std::fmt::Debug for ClusterStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterStore")
            .field("name", &self.name)
            .field("readonly", &self.opts.readonly)
            .field("pending", &self.pending.len())
            .finish()
    }
}
