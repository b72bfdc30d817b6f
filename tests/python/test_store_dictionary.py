"""roving.Store's store-wide dictionary: values are written against it (the
keys of each map shape once per store, not once per record), it grows in
the commit of the records that need it, two processes that grow it at once
both do so correctly, stores written without it read as before, and
``compact()`` rewrites their records against it."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import roving
from conftest import run_at_once
from roving import Store


def item(i: int, shape: int = 0) -> dict[str, object]:
    """A record of one of several shapes (its keys depend on `shape`)."""
    return {f"field{shape}_{j}": i + j for j in range(6)} | {"name": f"item {i}"}


def test_values_read_back_after_reopening_and_take_less_room(tmp_path: Path) -> None:
    sizes = {}
    for dictionary in (False, True):
        path = tmp_path / f"{dictionary}.rvs"
        with Store(path, dictionary=dictionary) as s:
            for i in range(2000):
                s[f"k{i:05}"] = item(i, i % 3)
            assert s[f"k{7:05}"] == item(7, 1)  # pending
        with Store(path) as s:
            assert s._dictionary_len == (3 if dictionary else 0)
            for i in range(0, 2000, 7):
                assert s[f"k{i:05}"] == item(i, i % 3)
            assert s.get("k00010") == item(10, 1)
            assert dict(s.items())[f"k{1999:05}"] == item(1999, 1999 % 3)
            assert len(list(s.values())) == 2000
            assert s.view("k00005").to_python() == item(5, 2)
        with Store(path, trusted=True, readonly=True) as s:
            assert s["k00004"] == item(4, 1)
            assert next(iter(s.values())) == item(0, 0)
        sizes[dictionary] = os.path.getsize(path)
    assert sizes[True] < sizes[False], sizes


@dataclasses.dataclass
class Point:
    x: int
    y: int
    label: str


def test_typed_records(tmp_path: Path) -> None:
    path = tmp_path / "t.rvs"
    with Store(path, type=Point) as s:
        for i in range(100):
            s[str(i)] = Point(i, -i, f"p{i}")
    with Store(path, type=Point) as s:
        assert s["42"] == Point(42, -42, "p42")
        assert s._dictionary_len == 1
        assert sorted(p.x for p in s.values()) == list(range(100))


def test_a_store_written_without_a_dictionary_reads_and_compacts(tmp_path: Path) -> None:
    path = tmp_path / "old.rvs"
    with Store(path, dictionary=False) as s:  # as stores written before it
        for i in range(3000):
            s[f"k{i:05}"] = item(i)
    before = os.path.getsize(path)
    with Store(path) as s:
        assert s._dictionary_len == 0
        assert s["k00003"] == item(3)
        s["new"] = item(1, 5)
        assert s.compact() == 3001
        assert s._dictionary_len == 2
        assert s.compact() == 0
    with Store(path) as s:
        for i in range(0, 3000, 11):
            assert s[f"k{i:05}"] == item(i)
        assert s["new"] == item(1, 5)
        assert len(s) == 3001
    # The rewrite takes new pages (the old ones are freed once it commits,
    # for LMDB to reuse), so the file does not shrink: it grew 2x here.
    # As many records again, written against the dictionary, then take
    # less than the first ones took.
    compacted = os.path.getsize(path)
    with Store(path) as s:
        for i in range(3000, 6000):
            s[f"k{i:05}"] = item(i)
    assert os.path.getsize(path) - compacted < before, (before, compacted)


# Waits for the file `go`, then writes ROUNDS batches of records, each
# batch with shapes of its own (`tag` keeps the two processes' shapes
# apart), flushing after each. argv[1] is the store: a JSON list of the
# arguments of roving.Store (a path, or Redis Cluster URLs and a prefix).
WRITER = r"""
import json, os, sys, time
sys.path[:0] = {paths!r}
from roving._store import Store
target, go, tag = sys.argv[1:4]
args, kwargs = json.loads(target)
s = Store(*args, **kwargs)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
for r in range({rounds}):
    for i in range(20):
        s[f"{{tag}}-{{r}}-{{i}}"] = {{f"{{tag}}{{r % 7}}_{{j}}": r * 100 + i + j for j in range(4)}}
    s.flush()
s.close()
"""

ROUNDS = 60


def store_target(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, name: str
) -> tuple[list[Any], dict[str, Any]]:
    """The arguments of a new store `name` on `backend` ("lmdb": a file in
    `tmp_path`; "cluster": a fresh prefix on the session's Redis Cluster)."""
    if backend == "lmdb":
        return [str(tmp_path / f"{name}.rvs")], {}
    cluster = request.getfixturevalue("redis_cluster")
    return [cluster.urls], {"prefix": f"{name}-{time.time_ns()}:"}


@pytest.mark.parametrize("backend", ["lmdb", "cluster"])
def test_two_processes_grow_the_dictionary_at_once(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    target = store_target(backend, tmp_path, request, "two")
    go = tmp_path / "go"
    script = tmp_path / "writer.py"
    pkg_dir = str(Path(roving.__file__).parent.parent)
    script.write_text(WRITER.format(paths=[pkg_dir], rounds=ROUNDS))
    Store(*target[0], **target[1]).close()  # made before both open it
    spec = json.dumps(target)
    run_at_once(script, [[spec, str(go), tag] for tag in ("a", "b")], go)
    with Store(*target[0], **target[1]) as s:
        assert len(s) == 2 * ROUNDS * 20
        assert s._dictionary_len == 14  # 7 shapes each
        for tag in ("a", "b"):
            for r in range(ROUNDS):
                for i in range(20):
                    want = {f"{tag}{r % 7}_{j}": r * 100 + i + j for j in range(4)}
                    assert s[f"{tag}-{r}-{i}"] == want


def state_record(i: int) -> dict[str, object]:
    """A record whose `state` recurs every other time; `tag` is too short
    to be worth an entry, `note` never repeats."""
    state = "shipped to the customer" if i % 2 else "waiting for the courier"
    return {"n": i, "state": state, "tag": "ab", "note": f"note {i}"}


@pytest.mark.parametrize("backend", ["lmdb", "cluster"])
def test_recurring_values_become_dictionary_strings(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    target = store_target(backend, tmp_path, request, "rec")
    with Store(*target[0], **target[1]) as s:
        for i in range(300):
            s[f"k{i:03}"] = state_record(i)
    with Store(*target[0], **target[1]) as s:
        # The shape and the two states; not "ab" (too short) nor any note.
        assert s._dictionary_len == 3
        for i in range(300):
            assert s[f"k{i:03}"] == state_record(i)
        assert s.view("k123")["state"] == "shipped to the customer"
