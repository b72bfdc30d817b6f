"""A Store on a Redis Cluster loses no acknowledged write when masters die.

A writer flushes numbered batches while, 20 times, a master is killed with
SIGKILL, its replica is promoted, and the killed node comes back as a
replica; the batches take new map shapes as they go, so that the store-wide
dictionary grows meanwhile. Afterwards every batch that ``flush()``
returned for is there and readable. The test runs its own cluster (it kills nodes); one that cannot
start fails the test.
"""

from __future__ import annotations

import random
import re
import signal
import threading
import time

import pytest
from roving._store import Store, StoreError
from roving.bench.redis_cluster import MASTERS, RedisCluster

KILLS = 20
BATCH = 40
# Every SHAPE_EVERY batches the records take another map shape (a key
# "shape<n>", n cycling through SHAPES values), so that the store-wide
# dictionary grows while masters die.
SHAPE_EVERY = 3
SHAPES = 40


def record(batch: int, j: int) -> dict[str, object]:
    return {"batch": batch, "j": j, "pad": "x" * 50, f"shape{batch // SHAPE_EVERY % SHAPES}": j}


def _wait_failover(cluster: RedisCluster, killed: int, timeout: float = 30.0) -> None:
    """Waits until the cluster has its masters again, none of them ``killed``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            masters = cluster.masters()
        except Exception:  # noqa: BLE001 - a node may be busy: ask again
            masters = []
        if len(masters) == MASTERS and killed not in masters:
            return
        assert time.monotonic() < deadline, f"no failover of {killed} within {timeout} s"
        time.sleep(0.1)


def test_no_acknowledged_batch_is_lost_across_20_failovers() -> None:
    cluster = RedisCluster().start()
    try:
        _run(cluster)
        _a_dead_slot_range_is_an_error_naming_its_node(cluster)
    finally:
        cluster.stop()


def _run(cluster: RedisCluster) -> None:
    acked: list[int] = []
    failed_flushes = 0
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        nonlocal failed_flushes
        s = Store(cluster.urls, prefix="failover:", timeout=1.0, wait_timeout=0.5, retries=4)
        batch = 0
        try:
            while not stop.is_set():
                for j in range(BATCH):
                    s[f"b{batch:05d}-{j:02d}"] = record(batch, j)
                while True:
                    try:
                        s.flush()
                    except StoreError as e:
                        assert e.kind == "cluster", e
                        failed_flushes += 1
                        if stop.is_set():
                            return  # this batch was never acknowledged
                        continue
                    acked.append(batch)
                    break
                batch += 1
                time.sleep(0.02)  # a steady writer, not one that starves the nodes
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)
        finally:
            s._close(commit=False)

    t = threading.Thread(target=writer)
    t.start()
    rng = random.Random(26)
    try:
        for k in range(KILLS):
            time.sleep(0.3)
            victim = rng.choice(cluster.masters())
            t0 = time.monotonic()
            cluster.kill(victim)
            _wait_failover(cluster, victim)
            t1 = time.monotonic()
            cluster.restart(victim)
            cluster.wait_ok(60)
            t2 = time.monotonic()
            print(f"kill {k + 1}: {victim} failed over in {t1 - t0:.1f} s, back in {t2 - t1:.1f} s")
        time.sleep(0.3)
    finally:
        stop.set()
        t.join(120)
    assert not t.is_alive(), "the writer hangs"
    assert not errors, errors
    assert len(acked) > KILLS, (len(acked), failed_flushes)
    with Store(cluster.urls, prefix="failover:", readonly=True) as s:
        got = dict(s.items())
    missing = [b for b in acked for j in range(BATCH) if f"b{b:05d}-{j:02d}" not in got]
    assert not missing, f"acknowledged batches lost: {sorted(set(missing))}"
    for b in acked:
        for j in range(BATCH):
            assert got[f"b{b:05d}-{j:02d}"] == record(b, j)
    with Store(cluster.urls, prefix="failover:") as s:
        entries = s._dictionary_len
    # The shapes of the acknowledged batches are in the dictionary.
    assert entries >= min(max(acked) // SHAPE_EVERY + 1, SHAPES), (entries, max(acked))
    print(
        f"{len(acked)} batches acknowledged, {failed_flushes} flushes retried, 0 lost, "
        f"{entries} dictionary entries"
    )


def _a_dead_slot_range_is_an_error_naming_its_node(cluster: RedisCluster) -> None:
    """A master and its replica both down (no failover possible): a flush
    raises StoreError naming the node within its bound, keeps its changes
    pending, and never hangs."""
    victim = cluster.masters()[0]
    info = cluster.cli(victim, "INFO", "replication")
    m = re.search(r"slave0:ip=[^,]*,port=(\d+)", info)
    assert m, info
    s = Store(cluster.urls, prefix="down:", timeout=1.0, wait_timeout=0.5, retries=3)
    cluster.kill(int(m.group(1)))
    cluster.kill(victim)
    for i in range(100):
        s[f"k{i}"] = i
    t = time.monotonic()
    with pytest.raises(StoreError) as ei:
        s.flush()
    took = time.monotonic() - t
    assert ei.value.kind == "cluster", ei.value
    assert f"127.0.0.1:{victim}" in str(ei.value), str(ei.value)
    assert took < 30, took
    assert s.pending == 100
    s._close(commit=False)


def _topology(cluster: RedisCluster) -> tuple[list[tuple[int, int, int]], dict[int, int]]:
    """The slot ranges as ``(first, last, master's port)``, and each master's
    replica's port, as ``CLUSTER NODES`` gives them."""
    rows = [line.split() for line in cluster.cli(cluster.ports[0], "CLUSTER", "NODES").splitlines()]
    rows = [f for f in rows if len(f) > 7]
    port = {f[0]: int(f[1].split("@")[0].rsplit(":", 1)[1]) for f in rows}
    ranges, replica_of = [], {}
    for f in rows:
        flags = f[2].split(",")
        if "master" in flags:
            for r in f[8:]:
                first, _, last = r.partition("-")
                ranges.append((int(first), int(last or first), port[f[0]]))
        elif "slave" in flags:
            replica_of[port[f[3]]] = port[f[0]]
    return ranges, replica_of


def _master_of(cluster: RedisCluster, key: bytes) -> int:
    """The port of the master that holds ``key`` (any bytes)."""
    slot = int(cluster.cli(cluster.ports[0], "-x", "CLUSTER", "KEYSLOT", stdin=key))
    return next(m for first, last, m in _topology(cluster)[0] if first <= slot <= last)


def test_records_wait_until_a_replica_has_their_dictionary_rows() -> None:
    """A client may read dictionary rows that another client appended but
    no replica acknowledged yet (its WAIT failed). Its records that refer
    to them must not be acknowledged before a replica has the rows: else a
    failover of the dictionary's master could lose the rows under them."""
    cluster = RedisCluster().start()
    try:
        prefix = "unacked:"
        dict_master = _master_of(cluster, (prefix + "\0dict").encode())
        replica = cluster.procs[_topology(cluster)[1][dict_master]]
        # A record key on another master, whose replica keeps answering.
        key = next(
            k
            for k in (f"y{i}" for i in range(100))
            if _master_of(cluster, (prefix + k).encode()) != dict_master
        )

        def rec(i: int) -> dict[str, int]:
            return {"one_field": i, "another_field": i + 1}

        def store() -> Store:
            return Store(cluster.urls, prefix=prefix, timeout=1.0, wait_timeout=0.3, retries=1)

        a = store()
        a["x"] = rec(1)  # carries its shape, which the dictionary learns
        replica.send_signal(signal.SIGSTOP)
        try:
            with pytest.raises(StoreError):
                a.flush()  # its row is on the master, unacknowledged
            b = store()
            assert b._dictionary_len == 1  # it read that row
            b[key] = rec(2)  # refers to it
            with pytest.raises(StoreError) as ei:
                b.flush()  # no replica has the row: the record waits
            assert ei.value.kind == "cluster", ei.value
            assert b.pending == 1
        finally:
            replica.send_signal(signal.SIGCONT)
        cluster.wait_ok(60)
        with Store(cluster.urls, prefix=prefix, readonly=True) as r:
            assert key not in r
        b.flush()
        a.flush()
        with Store(cluster.urls, prefix=prefix, readonly=True) as r:
            assert r[key] == rec(2) and r["x"] == rec(1)
        a.close()
        b.close()
    finally:
        cluster.stop()
