"""The Store test suite on both backends: LMDB (a file) and a Redis Cluster
(3 masters, 3 replicas, started once per session by the ``redis_cluster``
fixture; a cluster that cannot start fails these tests).

What only LMDB has (file sizes, memory maps, the reader table, snapshots)
stays in test_store*.py; what only the cluster has is at the end.
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

import pytest
import roving
from roving._cluster_store import ClusterStore
from roving._store import Store, StoreError
from roving.bench.redis_cluster import RedisCluster
from test_store import VALUES, BBItem, Counted, dummy, snapshot_of

_PREFIXES = itertools.count()

Opener = Callable[..., Any]


@pytest.fixture(params=["lmdb", "cluster"])
def backend(request: pytest.FixtureRequest) -> str:
    """The backend a test runs on."""
    return str(request.param)


@pytest.fixture
def open_store(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    """``open_store(**kwargs)``: ``roving.Store`` of one store of this test,
    on the backend of the parameter (every call opens the same store)."""
    if backend == "lmdb":
        path = tmp_path / "s.rvs"
        return lambda *a, **kw: Store(path, *a, **kw)
    cluster: RedisCluster = request.getfixturevalue("redis_cluster")
    prefix = f"test{next(_PREFIXES)}-{time.time_ns()}:"
    return lambda *a, **kw: Store(cluster.urls, *a, prefix=prefix, **kw)


def test_round_trip_and_mapping_api(open_store: Opener) -> None:
    s = open_store()
    assert isinstance(s, MutableMapping) and isinstance(s, Store)
    assert len(s) == 0 and list(s) == [] and "x" not in s
    for k, v in VALUES.items():
        s[k] = v
    assert len(s) == len(VALUES)
    for k, v in VALUES.items():
        assert s[k] == v
    s.flush()
    s.close()
    s = open_store()
    assert dict(s) == VALUES
    assert dict(s.items()) == VALUES
    assert s == VALUES
    assert list(s.keys()) == sorted(VALUES)
    assert sorted(map(repr, s.values())) == sorted(map(repr, VALUES.values()))
    assert s.get("nope") is None and s.get("nope", 3) == 3
    with pytest.raises(KeyError):
        s["nope"]
    with pytest.raises(KeyError):
        del s["nope"]
    assert s.pop("float") == 1.5 and "float" not in s
    assert s.setdefault("float", 2.5) == 2.5
    s.update({"u1": 1}, u2=2)
    s.update([("u3", 3)])
    assert (s["u1"], s["u2"], s["u3"]) == (1, 2, 3)
    k, _ = s.popitem()
    assert k not in s
    s.clear()
    assert len(s) == 0 and list(s) == []
    s.reload()  # nothing of that was flushed
    assert dict(s) == VALUES
    s.close()


def test_key_order_merges_pending(open_store: Opener) -> None:
    s = open_store()
    keys = ["b", "a", "é", "z", "ä", "A", "😀", "aa", "日本", "a\x00b"]
    for i, k in enumerate(keys):
        s[k] = i
    s.flush()
    assert list(s) == sorted(keys)  # code point order
    del s["z"]
    s["c"] = 99
    s["a"] = -1
    want = sorted((set(keys) - {"z"}) | {"c"})
    assert list(s) == want
    assert [k for k, _ in s.items()] == want
    assert s["a"] == -1
    # many keys: iteration crosses the extension's chunks (and the
    # cluster's batches of reads)
    for i in range(1500):
        s[f"n{i:04d}"] = i
    s.flush()
    for i in range(0, 1500, 3):
        del s[f"n{i:04d}"]
    got = [k for k in s if k.startswith("n")]
    assert got == [f"n{i:04d}" for i in range(1500) if i % 3]
    assert [v for k, v in s.items() if k.startswith("n")] == [i for i in range(1500) if i % 3]
    # changing the store while iterating neither crashes nor repeats keys
    seen = []
    for k in s:
        seen.append(k)
        if k.startswith("n0"):
            s.pop(k, None)
    assert len(seen) == len(set(seen))
    s.close()


def test_pending_changes_are_private_until_flush(open_store: Opener, backend: str) -> None:
    w = open_store()
    w.flush()  # the store exists (an LMDB file)
    r = open_store(readonly=True)
    w["a"] = 1
    assert w.pending == 1
    assert "a" in w and "a" not in r
    w.flush()
    assert w.pending == 0
    if backend == "lmdb":
        assert "a" not in r  # r reads its snapshot until reload
    else:
        assert r["a"] == 1  # no snapshot: each read sees the cluster
    r.reload()
    assert r["a"] == 1
    w.close()
    r.close()


def test_context_manager_commits_or_rolls_back(open_store: Opener) -> None:
    with open_store() as s:
        s["kept"] = 1
    assert s.closed
    with pytest.raises(RuntimeError), open_store() as s:
        s["dropped"] = 2
        raise RuntimeError("boom")
    with open_store() as s:
        assert dict(s) == {"kept": 1}
    with pytest.raises(StoreError) as ei:
        s["x"]
    assert ei.value.kind == "closed"
    s.close()  # twice is fine


def test_close_flushes(open_store: Opener) -> None:
    s = open_store()
    s["a"] = [1]
    s.close()
    s = open_store()
    assert s["a"] == [1]
    s.close()


def test_typed_store(open_store: Opener) -> None:
    with open_store() as s:
        s["good"] = dataclasses.asdict(dummy(4))
        s["bad"] = {"identifier": 5}
    s = open_store(type=BBItem)
    assert s.type is BBItem
    good = s["good"]
    assert isinstance(good, BBItem)
    assert good == dummy(4)
    assert s.get("good") == dummy(4)
    with pytest.raises(roving.ValidationError, match='key "bad"'):
        s["bad"]
    s.close()


def test_typed_records_written_as_dataclasses(open_store: Opener) -> None:
    with open_store(type=BBItem) as s:
        for i in range(50):
            s[f"item {i}"] = dummy(i)
    with open_store(type=BBItem) as s:
        assert len(s) == 50
        assert s["item 7"] == dummy(7)
        assert sorted(s.values(), key=lambda b: b.views) == [dummy(i) for i in range(50)]
    with open_store(type=Counted) as s:
        s["bad"] = {"n": "x"}
        with pytest.raises(roving.ValidationError, match="expected int, got str"):
            s["bad"]
        assert s.view("bad")["n"] == "x"  # views are not typed


def test_view_is_lazy_and_outlives_changes(open_store: Opener) -> None:
    s = open_store()
    s["doc"] = {"name": "x", "list": list(range(100))}
    v_pending = s.view("doc")
    assert v_pending["name"] == "x"
    s.flush()
    v = s.view("doc")
    assert isinstance(v, roving.Doc)
    assert v["list"][42] == 42
    assert v.to_python() == {"name": "x", "list": list(range(100))}
    del s["doc"]
    s.flush()
    s.reload()
    assert "doc" not in s
    assert v["name"] == "x" and v_pending["list"][99] == 99  # still valid
    with pytest.raises(KeyError):
        s.view("doc")
    del v, v_pending
    gc.collect()
    s.close()


def test_readonly(open_store: Opener) -> None:
    with open_store() as s:
        s["a"] = 1
    s = open_store(readonly=True)
    assert s.readonly and s["a"] == 1
    with pytest.raises(StoreError) as ei:
        s["b"] = 2
    assert ei.value.kind == "read-only"
    with pytest.raises(StoreError):
        del s["a"]
    assert dict(s) == {"a": 1}
    s.close()
    s = open_store("r")
    assert s.readonly
    s.close()


def test_flag_n_empties(open_store: Opener) -> None:
    with open_store() as s:
        s["a"] = 1
        s["b"] = 2
    with open_store("n") as s:
        assert len(s) == 0
        s["c"] = 3
    with open_store() as s:
        assert dict(s) == {"c": 3}


@pytest.mark.parametrize("key", [1, 1.5, b"bytes", None, ("t",), object()])
def test_non_string_keys(open_store: Opener, key: Any) -> None:
    s = open_store()
    s["a"] = 1
    before = snapshot_of(s)
    with pytest.raises(TypeError, match="keys must be str"):
        s[key] = 1
    with pytest.raises(TypeError, match="keys must be str"):
        s[key]
    with pytest.raises(TypeError, match="keys must be str"):
        del s[key]
    with pytest.raises(TypeError):
        s.view(key)
    assert key not in s
    assert snapshot_of(s) == before
    s.close()


def test_bad_key_lengths(open_store: Opener) -> None:
    s = open_store()
    for key in ["", "k" * 512, "é" * 256]:
        with pytest.raises(StoreError) as ei:
            s[key] = 1
        assert ei.value.kind == "invalid-key"
        assert "\n" not in str(ei.value)
        assert key not in s
    s["k" * 511] = 1
    assert s["k" * 511] == 1
    # A str without a UTF-8 form cannot be stored, and is never found.
    lone = "a\ud800"
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
        s[lone] = 1
    assert lone not in s and s.get(lone) is None
    with pytest.raises(KeyError):
        s[lone]
    with pytest.raises(KeyError):
        del s[lone]
    with pytest.raises(KeyError):
        s.view(lone)
    assert s.pop(lone, None) is None
    with pytest.raises(UnicodeEncodeError):
        s.setdefault(lone, 1)
    assert s.pending == 1 and dict(s) == {"k" * 511: 1}
    s.close()


def test_unencodable_values_change_nothing(open_store: Opener) -> None:
    s = open_store()
    with pytest.raises(roving.EncodeError):
        s["x"] = object()
    assert "x" not in s and s.pending == 0
    s.close()


def shaped(i: int, shape: int) -> dict[str, object]:
    """A record of one of several map shapes (its keys depend on ``shape``)."""
    return {f"field{shape}_{j}": i + j for j in range(6)} | {"name": f"item {i}"}


def test_records_are_written_against_the_store_dictionary(open_store: Opener) -> None:
    with open_store(dictionary=False) as s:  # as records written before it
        for i in range(300):
            s[f"plain{i:04}"] = shaped(i, i % 3)
        assert s._dictionary_len == 0
    with open_store() as s:
        for i in range(300):
            s[f"k{i:04}"] = shaped(i, i % 3)
        assert s._dictionary_len == 3
        assert s["k0007"] == shaped(7, 1)  # pending, written against it
    with open_store() as s:
        assert s._dictionary_len == 3
        for i in range(0, 300, 7):
            assert s[f"k{i:04}"] == shaped(i, i % 3)
            assert s[f"plain{i:04}"] == shaped(i, i % 3)
        assert s.view("k0005").to_python() == shaped(5, 2)
        assert dict(s.items())["k0299"] == shaped(299, 2)
        assert len(list(s.values())) == 600
    with open_store(readonly=True) as r:
        assert r["k0004"] == shaped(4, 1)
    with open_store(type=dict) as t:
        assert t["k0010"] == shaped(10, 1)


# ------------------------------------------------------------- cluster only


def test_cluster_records_written_against_the_dictionary_are_smaller(
    redis_cluster: RedisCluster,
) -> None:
    sizes = {}
    for dictionary in (False, True):
        prefix = f"dsize-{dictionary}-{time.time_ns()}:"
        with Store(redis_cluster.urls, prefix=prefix, dictionary=dictionary) as s:
            s["first"] = shaped(0, 0)  # carries its shape, which the dictionary learns
            s["k"] = shaped(1, 0)
        # STRLEN through a node (-c follows the redirection to the key's).
        port = redis_cluster.ports[0]
        sizes[dictionary] = int(redis_cluster.cli(port, "-c", "STRLEN", prefix + "k"))
    assert sizes[True] < sizes[False] - 40, sizes


def test_cluster_clients_grow_one_dictionary(redis_cluster: RedisCluster) -> None:
    prefix = f"dgrow-{time.time_ns()}:"
    a = Store(redis_cluster.urls, prefix=prefix)
    b = Store(redis_cluster.urls, prefix=prefix)
    stale = Store(redis_cluster.urls, prefix=prefix)  # opened before both grew it
    a["x"] = shaped(1, 1)
    b["y"] = shaped(2, 2)
    b.flush()  # b's shape is entry 0
    a["z"] = shaped(3, 3)
    a.flush()  # a's append finds b's first: it merges, writes x and z again
    assert a["y"] == shaped(2, 2) and b["x"] == shaped(1, 1)
    # A client whose cache lacks the entries a record needs reads them.
    assert stale["x"] == shaped(1, 1) and stale["y"] == shaped(2, 2)
    # It writes a shape the cluster's dictionary already has, as its own
    # entry: its flush merges, and adds no entry.
    stale["w"] = shaped(4, 1)
    stale.flush()
    with Store(redis_cluster.urls, prefix=prefix) as c:
        assert c._dictionary_len == 3
        assert {k: c[k] for k in "wxyz"} == {
            "w": shaped(4, 1),
            "x": shaped(1, 1),
            "y": shaped(2, 2),
            "z": shaped(3, 3),
        }
        assert sorted(c) == ["w", "x", "y", "z"]  # the dictionary is no record
    # A reload drops the pending records and the entries only they used.
    stale["v"] = shaped(5, 9)
    assert stale._dictionary_len == 4
    stale.reload()
    assert stale._dictionary_len == 3 and "v" not in stale
    for s in (a, b, stale):
        s.close()


def test_cluster_dictionary_damage_is_an_error(redis_cluster: RedisCluster) -> None:
    prefix = f"ddamage-{time.time_ns()}:"
    with Store(redis_cluster.urls, prefix=prefix) as s:
        s["first"] = shaped(0, 0)
        s["k"] = shaped(1, 0)  # refers to the shape "first" carries
    # The dictionary's list dropped: its record needs entries it lacks.
    key = (prefix + "\0dict").encode()
    assert redis_cluster.cli(redis_cluster.ports[0], "-c", "-x", "DEL", stdin=key).strip() == "1"
    with Store(redis_cluster.urls, prefix=prefix, readonly=True) as r:
        with pytest.raises(StoreError) as ei:
            r["k"]
        assert ei.value.kind == "corrupt" and "dictionary" in str(ei.value)


def test_stores_share_a_cluster_by_prefix(redis_cluster: RedisCluster) -> None:
    a = Store(redis_cluster.urls[0], prefix="shared-a:", flag="n")
    b = Store(redis_cluster.urls[1:], prefix="shared-b:", flag="n")
    assert isinstance(a, ClusterStore)
    a["k"] = "from a"
    b["k"] = "from b"
    a.close()
    b.close()
    with Store(redis_cluster.urls[2], prefix="shared-a:") as a2:
        assert dict(a2) == {"k": "from a"}
    with Store(redis_cluster.urls[2], prefix="shared-b:") as b2:
        assert dict(b2) == {"k": "from b"}


def test_cluster_errors(redis_cluster: RedisCluster) -> None:
    t = time.monotonic()
    with pytest.raises(StoreError) as ei:
        Store("redis://127.0.0.1:1", timeout=0.5)
    assert ei.value.kind == "cluster" and "127.0.0.1:1" in str(ei.value)
    assert time.monotonic() - t < 5
    with pytest.raises(TypeError, match="map_size"):
        Store(redis_cluster.urls, map_size=1 << 20)
    with pytest.raises(TypeError, match="prefix"):
        Store("local.rvs", prefix="x")
    for reserved in ("\x00dict", "\x00x", "x\x00dict"):
        with pytest.raises(StoreError) as ei:
            Store(redis_cluster.urls, prefix="e:")[reserved] = 1
        assert ei.value.kind == "invalid-key"
    # A store whose prefix extends another's: neither sees the other's
    # dictionary as a record.
    with Store(redis_cluster.urls, prefix="nest") as outer:
        outer["k"] = shaped(0, 0)
    with Store(redis_cluster.urls, prefix="nest:") as inner:
        inner["k"] = shaped(0, 1)
    with Store(redis_cluster.urls, prefix="nest") as outer:
        assert sorted(outer) == [":k", "k"]
        assert outer[":k"] == shaped(0, 1)


def test_cluster_transactions_of_one_slot(redis_cluster: RedisCluster) -> None:
    prefix = f"txn-{time.time_ns()}:"
    a = Store(redis_cluster.urls, prefix=prefix)
    b = Store(redis_cluster.urls, prefix=prefix)
    with a.transaction():
        a["{c}n"] = a.get("{c}n", 0) + 1
    assert b["{c}n"] == 1
    # Records of a new shape: the dictionary entry is appended first.
    with a.transaction():
        a["{c}r1"] = shaped(1, 7)
        a["{c}r2"] = shaped(2, 7)
    assert b["{c}r2"] == shaped(2, 7) and b["{c}r1"] == shaped(1, 7)
    # Another client writes a key the block read: nothing is written.
    with pytest.raises(StoreError) as ei, a.transaction():
        n = a["{c}n"]
        b["{c}n"] = 10
        b.flush()
        a["{c}n"] = n + 1
        a["{c}more"] = "x"
    assert ei.value.kind == "transaction" and "run it again" in str(ei.value)
    assert a["{c}n"] == 10 and "{c}more" not in a and a.pending == 0
    # Keys of one hash slot only.
    with pytest.raises(StoreError, match="hash slot") as ei, a.transaction():
        a["{c}x"] = 1
        a["{d}y"] = 2
    assert ei.value.kind == "transaction" and "{c}x" not in a
    # An exception drops the block's changes; flush inside is refused.
    with pytest.raises(RuntimeError), a.transaction():
        a["{c}z"] = 1
        raise RuntimeError("boom")
    assert "{c}z" not in a
    with pytest.raises(StoreError, match="inside a transaction"), a.transaction():
        a.flush()
    a.close()
    b.close()


def test_cluster_store_collected_with_pending_changes_flushes(redis_cluster: RedisCluster) -> None:
    # As an LMDB store (and a shelf): collecting a store flushes its pending
    # changes, and warns of nothing.
    prefix = f"gc-{time.time_ns()}:"
    s = Store(redis_cluster.urls, prefix=prefix)
    s["a"] = 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del s
        gc.collect()
    assert [w for w in caught if issubclass(w.category, (ResourceWarning, RuntimeWarning))] == []
    with Store(redis_cluster.urls, prefix=prefix, readonly=True) as r:
        assert r["a"] == 1


def test_cluster_store_flushes_at_exit(redis_cluster: RedisCluster) -> None:
    # A store still referenced at interpreter exit is flushed then.
    prefix = f"exit-{time.time_ns()}:"
    code = (
        "import roving, sys\n"
        f"KEEP = roving.Store({redis_cluster.urls!r}, prefix={prefix!r})\n"
        "KEEP['a'] = [1, 2]\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr
    with Store(redis_cluster.urls, prefix=prefix, readonly=True) as r:
        assert r["a"] == [1, 2]
