//! The seam for the store-wide dictionary on a cluster (not built yet).
//!
//! When roving gains a store-wide dictionary (shared strings that records
//! refer to by number), a [`ClusterStore`](crate::ClusterStore) keeps it
//! under one Redis key beside its records, [`dict_key`] (the prefix, then
//! a NUL byte: no record key can begin with NUL, see
//! [`ClusterStore::put`](crate::ClusterStore::put)), so that iteration and
//! `len` never meet it. The plan:
//!
//! - the dictionary is append-only: entry `n` never changes once written;
//! - a writer adds entries with one Lua script (`EVALSHA`) that appends
//!   the entries it lacks and returns the numbers of all it asked for,
//!   atomically (one key, so one slot, so one script run on one master),
//!   and `flush` writes records only after the script returned;
//! - each client caches the entries it read; a record naming an entry
//!   past the cache's end makes the client read the missing tail
//!   (`GETRANGE` from the cached length) before decoding it.
//!
//! The flush path ([`super::ClusterStore::flush`]) and the read path
//! ([`super::ClusterStore::get`]) are where those two steps go.

/// The Redis key of the store-wide dictionary of the store with `prefix`.
#[allow(dead_code)] // the seam: used once the dictionary exists
pub(crate) fn dict_key(prefix: &[u8]) -> Vec<u8> {
    let mut k = prefix.to_vec();
    k.extend_from_slice(b"\0dict");
    k
}
