"""Issue 26: ``roving.Store`` on a Redis Cluster against redis-py with pickle.

The experiment starts its own cluster (3 masters, 3 replicas on loopback,
:mod:`roving.bench.redis_cluster`) and times, on that same cluster:

* 10,000 BBItems put and flushed, then reloaded and read all (a fresh
  client, ``SCAN`` of the prefix, values read in pipelines), typed BBItems
  on both sides: ``roving.Store(urls, type=BBItem)`` against redis-py's
  ``RedisCluster`` with a non-transactional pipeline of ``SET`` of
  ``pickle.dumps(item)``, then ``scan_iter`` + ``mget_nonatomic`` +
  ``pickle.loads``, as a careful redis-py user writes it;
* one random typed get: ``store.get(key)`` against ``GET`` + ``pickle.loads``
  (timed in alternation);
* bytes per item as ``MEMORY USAGE`` reports them (roving documents, written
  against the store-wide dictionary, plus their share of the dictionary's
  list, against pickles of the same items).

roving's flush also waits (``WAIT 1``) for a replica of each master to
acknowledge; redis-py's pipeline does not (it has no per-node ``WAIT``), so
roving does more work in the flush row.
"""

from __future__ import annotations

import pickle
import random
from typing import Any, cast

from .exp_repository import BBItem, make_items
from .harness import (
    Config,
    Experiment,
    Table,
    Timing,
    check_equal,
    fmt_bytes,
    fmt_ratio,
    fmt_timing,
    fmt_verdict,
)
from .peers import RovingMissing, optional, roving_module

NAME = "cluster"
ROVING = "roving.Store (Redis Cluster)"
PEER = "redis-py + pickle"
#: Items sampled for MEMORY USAGE.
SAMPLE = 500


def run(cfg: Config) -> Experiment:
    n = 1_000 if cfg.quick else 10_000
    exp = Experiment(
        NAME,
        "cluster (issue 26): roving.Store on a Redis Cluster vs redis-py + pickle",
        "-",
        f"{n:,} BBItems on a local 3-master, 3-replica Redis Cluster (redis-server from Debian, "
        "started for the run): put all + flush, then a fresh client reads them all (SCAN + "
        "pipelined GETs), typed BBItems on both sides; one random typed get; bytes per item "
        "(MEMORY USAGE). roving's flush also waits for a replica of each master (WAIT 1); "
        "redis-py's pipeline does not. 2-core machine: the servers share the cores with the client.",
        cfg,
    )
    exp.params = {"items": n}
    try:
        rv = roving_module()
    except RovingMissing as e:
        exp.skip(ROVING, str(e))
        return exp
    redis = optional("redis")
    if redis is None:
        exp.skip(PEER, "not installed (pip install redis)")
    from .redis_cluster import ClusterError, RedisCluster

    try:
        cluster = RedisCluster().start()
    except ClusterError as e:
        exp.skip(ROVING, f"no Redis Cluster: {e}")
        exp.skip(PEER, f"no Redis Cluster: {e}")
        return exp
    try:
        _run(cfg, exp, rv, redis, cluster.urls, n)
    finally:
        cluster.stop()
    return exp


def _run(cfg: Config, exp: Experiment, rv: Any, redis: Any, urls: list[str], n: int) -> None:
    items = make_items(n)
    keys = list(items)

    def rv_flush() -> None:
        with rv.Store(urls, prefix="rv:", type=BBItem) as s:
            s.update(items)

    def rv_reload() -> dict[str, BBItem]:
        with rv.Store(urls, prefix="rv:", type=BBItem, readonly=True) as s:
            return dict(s.items())

    rc = None
    if redis is not None:
        host, port = urls[0].removeprefix("redis://").rsplit(":", 1)
        rc = redis.cluster.RedisCluster(host=host, port=int(port))

    def py_flush() -> None:
        assert rc is not None
        pipe = rc.pipeline(transaction=False)
        for k, v in items.items():
            pipe.set("pk:" + k, pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL))
        pipe.execute()

    def py_reload() -> dict[str, BBItem]:
        assert rc is not None
        ks = list(rc.scan_iter(match="pk:*", count=1000))
        vals = rc.mget_nonatomic(ks)
        return {k.decode()[3:]: pickle.loads(v) for k, v in zip(ks, vals, strict=True)}

    def same(got: dict[str, BBItem]) -> None:
        check_equal(sorted(items), sorted(got))
        check_equal(items, {k: got[k] for k in items})  # in the same order

    # Correctness first: both round-trip every item exactly.
    rv_flush()
    same(rv_reload())
    if rc is not None:
        py_flush()
        same(py_reload())

    single: dict[str, Any] = {"single": True, "warmup": 1}
    res: dict[str, dict[str, Timing | None]] = {}
    res[ROVING] = {
        "flush": exp.time(ROVING, f"put {n:,} + flush", rv_flush, **single),
        "reload": exp.time(ROVING, f"reload + read {n:,}", rv_reload, **single),
    }
    if rc is not None:
        res[PEER] = {
            "flush": exp.time(PEER, f"pipeline SET {n:,}", py_flush, **single),
            "reload": exp.time(PEER, f"SCAN + MGET + loads {n:,}", py_reload, **single),
        }

    rng = random.Random(26)
    store = rv.Store(urls, prefix="rv:", type=BBItem, readonly=True)
    try:
        pick = [rng.choice(keys) for _ in range(1024)]
        it = iter(range(1 << 62))

        def rv_get() -> BBItem:
            return store.get(pick[next(it) & 1023])  # type: ignore[no-any-return]

        def py_get() -> BBItem:
            assert rc is not None
            return pickle.loads(rc.get("pk:" + pick[next(it) & 1023]))  # type: ignore[no-any-return]

        get_pair = (
            exp.pair("one random typed get", (ROVING, rv_get), (PEER, py_get)) if rc else None
        )
        if get_pair is None:
            exp.time(ROVING, "one random typed get", rv_get)
        sample = keys[:: max(1, n // SAMPLE)]
        if rc is not None:
            rv_bytes = sum(rc.memory_usage("rv:" + k) for k in sample) / len(sample)
            # The store-wide dictionary (one list beside the records), shared
            # by all of them: its share counts too.
            rv_bytes += (rc.memory_usage("rv:\0dict") or 0) / n
            py_bytes = sum(rc.memory_usage("pk:" + k) for k in sample) / len(sample)
            exp.size(ROVING, "MEMORY USAGE per item", rv_bytes)
            exp.size(PEER, "MEMORY USAGE per item", py_bytes)
        else:
            rv_bytes = py_bytes = None
    finally:
        store.close()
        if rc is not None:
            rc.close()

    t = Table(
        f"{n:,} BBItems on the cluster",
        ["contender", "put all + flush", "reload + read all", "total", "bytes per item"],
    )
    for name, r in res.items():
        f, rl = r.get("flush"), r.get("reload")
        total = f.median + rl.median if f and rl else None
        size = rv_bytes if name == ROVING else py_bytes
        t.add(
            name,
            fmt_timing(f),
            fmt_timing(rl),
            fmt_timing(Timing.of([total], 1)) if total else "-",
            fmt_bytes(size),
        )
    exp.tables.append(t)

    def total_of(name: str) -> float | None:
        r = res.get(name) or {}
        f, rl = r.get("flush"), r.get("reload")
        return f.median + rl.median if f and rl else None

    rvt, pyt = total_of(ROVING), total_of(PEER)
    speedup = pyt / rvt if rvt and pyt else None
    v = Table(
        "Issue 26's targets",
        ["target", "needed", "measured", "verdict"],
        align=["l", "r", "r", "l"],
    )
    at_size = not cfg.quick
    v.add(
        f"put + flush + reload + read {n:,}: redis-py+pickle time / roving time",
        "≥ 3x",
        fmt_ratio(speedup),
        fmt_verdict(None if speedup is None else speedup >= 3, at_size=at_size),
    )
    gr = get_pair.ratio if get_pair else None
    v.add(
        "one random typed get: roving / (GET + pickle.loads)",
        "≤ 1.5x",
        fmt_ratio(gr),
        fmt_verdict(None if gr is None else gr <= 1.5),
    )
    br = rv_bytes / py_bytes if rv_bytes and py_bytes else None
    v.add(
        "MEMORY USAGE per item: roving / pickle",
        "≤ 1x",
        fmt_ratio(br),
        fmt_verdict(None if br is None else br <= 1),
    )
    v.notes.append(
        "failover (0 acknowledged records lost over 20 SIGKILLed masters): "
        "tests/python/test_store_failover.py, run by `make test`"
    )
    exp.tables.append(v)
    exp.chart = [
        (
            f"{n:,} BBItems: put + flush, reload + read",
            [
                (f"{name}: {op}", cast(float | None, tm.median))
                for name, r in res.items()
                for op, tm in r.items()
                if tm is not None
            ],
        )
    ]
