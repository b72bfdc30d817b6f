"""Experiment 7: cost per MB from 1 MB to 1 GB, and the Store from 100k to 5M records.

Documents: ``1000people.json`` repeated until the JSON reaches each size,
each copy perturbed so that it is not a repeat of the first (every string
has the copy number appended with probability 1/2, every integer has the
copy number added). For each size: ``dumps`` of roving, orjson and
msgspec.msgpack, ``roving.from_json``, ``loads`` of the three, and
``roving.open(validate=True)``, reported as milliseconds per MB of JSON.
The garbage collector stays on during the timing, as in a user's program.

The Store: ``N`` small records put and flushed once, the same records
flushed every 10,000, random ``get`` latency, and the memory that ``N``
unflushed records hold (measured in a child process, from its peak
resident size).

Defaults: 1, 10 and 100 MB, and 100,000 and 1,000,000 records;
``--large`` adds 1 GB and 5,000,000 records (and measures 3,000,000
unflushed records, the pending-memory target's size).
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from .harness import (
    Config,
    Experiment,
    Table,
    fmt_bytes,
    fmt_ratio,
    fmt_verdict,
    measure,
)
from .peers import RovingMissing, missing_note, optional, roving_module

NAME = "scaling"

MB = 1_000_000

#: Cost per MB at the largest size over the cost at 1 MB (target: at most this).
FLAT_LIMIT = 1.5
#: roving.dumps over orjson.dumps at every size (target: at most this).
DUMPS_LIMIT = 1.25
#: Memory of 3,000,000 unflushed Store records (target: at most this many bytes).
PENDING_LIMIT = 256 * 2**20
PENDING_TARGET_RECORDS = 3_000_000
#: File after flushing every 10,000 records over one flush (target: at most this).
FILE_LIMIT = 1.2
FLUSH_EVERY = 10_000


def sizes_mb(cfg: Config) -> list[float]:
    """The document sizes of this run, in MB of JSON."""
    if cfg.quick:
        return [0.5, 2.0]
    return [1.0, 10.0, 100.0] + ([1000.0] if cfg.large else [])


def record_counts(cfg: Config) -> list[int]:
    """The Store sizes of this run, in records."""
    if cfg.quick:
        return [5_000, 20_000]
    return [100_000, 1_000_000] + ([5_000_000] if cfg.large else [])


# ---------------------------------------------------------------------------
# the documents


def perturbed_copy(value: Any, k: int, rng: random.Random) -> Any:
    """``value`` with ``k`` added to every int and appended to about half of its strings."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return value
    if isinstance(value, int):
        return value + k
    if isinstance(value, str):
        return value + str(k) if rng.random() < 0.5 else value
    if isinstance(value, list):
        return [perturbed_copy(v, k, rng) for v in value]
    if isinstance(value, dict):
        return {key: perturbed_copy(v, k, rng) for key, v in value.items()}
    return value


def scaled_people(people: list[Any], target_bytes: int, seed: int = 1) -> list[Any]:
    """Copies of ``people`` (copy 0 as it is, the others perturbed) until
    their JSON reaches ``target_bytes``; a partial last copy stops there."""
    rng = random.Random(seed)
    out: list[Any] = []
    size = 2
    k = 0
    while size < target_bytes:
        for person in people:
            p = person if k == 0 else perturbed_copy(person, k, rng)
            out.append(p)
            size += len(json.dumps(p, ensure_ascii=False, separators=(",", ":")).encode()) + 1
            if size >= target_bytes:
                break
        k += 1
    return out


def _load_people(cfg: Config) -> list[Any] | None:
    from .exp_fleece import find_data

    path = find_data(cfg, "1000people.json")
    if path is None:
        return None
    with open(path, "rb") as f:
        data = json.load(f)
    return data if isinstance(data, list) else None


# ---------------------------------------------------------------------------
# the documents experiment

#: (label, contender, op) of every document operation, in table order.
DOC_OPS = [
    ("roving.dumps", "roving", "dumps"),
    ("orjson.dumps", "orjson", "dumps"),
    ("msgspec.msgpack.encode", "msgspec.msgpack", "dumps"),
    ("roving.from_json", "roving", "from_json"),
    ("roving.loads", "roving", "loads"),
    ("orjson.loads", "orjson", "loads"),
    ("msgspec.msgpack.decode", "msgspec.msgpack", "loads"),
    ("roving.open(validate=True)", "roving", "open"),
]
#: The reference row: CPython's own pass over the document's objects.
FLOOR = "gc.collect(), the objects' own pass"
#: Every row of the cost-per-MB table, in order.
ROWS = [label for label, _, _ in DOC_OPS] + [FLOOR]
#: The operations whose cost per MB must stay flat.
FLAT_OPS = ["roving.dumps", "roving.from_json", "roving.loads", "roving.open(validate=True)"]


def _documents(exp: Experiment, cfg: Config) -> dict[str, dict[float, float]]:
    """Times every document operation at every size; returns label -> size -> s per MB."""
    per_mb: dict[str, dict[float, float]] = {label: {} for label in ROWS}
    people = _load_people(cfg)
    if people is None:
        exp.notes.append("1000people.json was not found: the document sizes did not run.")
        return per_mb
    try:
        rv: Any = roving_module()
    except RovingMissing as e:
        exp.skip("roving", str(e))
        rv = None
    orjson = optional("orjson")
    msgspec = optional("msgspec")
    if orjson is None:
        exp.skip("orjson", missing_note("orjson"))
    if msgspec is None:
        exp.skip("msgspec.msgpack", missing_note("msgspec"))
    people_json = json.dumps(people)
    for mb in sizes_mb(cfg):
        cfg.note(f"  {NAME}: {mb:g} MB")
        # Every object of the document is made after the freeze (copy 0
        # too, from the JSON), so that a full collection visits the
        # document's objects and no others.
        gc.collect()
        gc.freeze()
        data = scaled_people(json.loads(people_json), int(mb * MB))
        floor = _gc_pass(cfg.clock)
        gc.unfreeze()
        _one_size(exp, cfg, (rv, orjson, msgspec), data, mb, floor, per_mb)
        del data
    return per_mb


def _gc_pass(clock: Callable[[], float], repeats: int = 5) -> float:
    """Seconds of a full garbage collection, best of ``repeats``: it visits
    every container object not frozen (``gc.freeze``) and reads the header
    of every object they hold. With only a document's objects unfrozen,
    that is CPython's own pass over them: the memory traffic that any
    encoder pays to read them and any decoder to make them."""
    best = float("inf")
    for _ in range(repeats):
        t = clock()
        gc.collect()
        best = min(best, clock() - t)
    return best


def _one_size(
    exp: Experiment,
    cfg: Config,
    modules: tuple[Any, Any, Any],
    data: list[Any],
    mb: float,
    floor: float,
    per_mb: dict[str, dict[float, float]],
) -> None:
    """Times every document operation on ``data`` (``mb`` MB of JSON), and
    records ``floor`` (seconds of ``_gc_pass`` over it) per MB beside them."""
    rv, orjson, msgspec = modules
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    json_mb = len(text) / MB
    per_mb[FLOOR][mb] = floor / json_mb
    fns: dict[str, Callable[[], Any]] = {}
    if rv is not None:
        blob = rv.dumps(data)
        exp.size("roving", "size", len(blob), {"mb": mb})
        fns["roving.dumps"] = lambda: rv.dumps(data)
        fns["roving.from_json"] = lambda: rv.from_json(text)
        fns["roving.loads"] = lambda: rv.loads(blob)
        fns["roving.open(validate=True)"] = lambda: rv.open(blob, validate=True)
    if orjson is not None:
        fns["orjson.dumps"] = lambda: orjson.dumps(data)
        fns["orjson.loads"] = lambda: orjson.loads(text)
    if msgspec is not None:
        enc, dec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder()
        packed = enc.encode(data)
        fns["msgspec.msgpack.encode"] = lambda: enc.encode(data)
        fns["msgspec.msgpack.decode"] = lambda: dec.decode(packed)
    single = mb >= 10
    for label, who, op in DOC_OPS:
        fn = fns.get(label)
        if fn is None:
            continue
        t = exp.time(
            who,
            op,
            fn,
            params={"mb": mb, "json_bytes": len(text)},
            single=single,
            repeats=3 if single else None,
        )
        if t is not None:
            per_mb[label][mb] = t.min / json_mb


def _documents_tables(exp: Experiment, cfg: Config, per_mb: dict[str, dict[float, float]]) -> None:
    sizes = sizes_mb(cfg)
    t = Table(
        "ms per MB of JSON (best of the repeats; garbage collector on)",
        ["operation"] + [f"{mb:g} MB" for mb in sizes] + ["largest / smallest"],
        align=["l"] + ["r"] * (len(sizes) + 1),
    )
    for label in ROWS:
        row = per_mb[label]
        cells = [f"{row[mb] * 1e3:.3f}" if mb in row else "-" for mb in sizes]
        first, last = row.get(sizes[0]), row.get(sizes[-1])
        t.add(label, *cells, fmt_ratio(last / first) if first and last else "-")
    exp.tables.append(t)
    exp.notes.append(
        f"{FLOOR}: a full garbage collection that visits the document's objects "
        "and no others (the rest frozen with gc.freeze while it runs; best of 5). It reads every object of the document once and "
        "writes nothing: the memory cost that any dumps pays to read the objects, and any loads "
        "to make them. Its growth with size is CPython's, not an encoder's."
    )
    exp.lines.append(
        (
            "cost per MB of JSON against size",
            {
                label: sorted((mb, s * 1e3) for mb, s in per_mb[label].items())
                for label in ROWS
                if per_mb[label]
            },
            "MB of JSON",
            "ms per MB",
        )
    )


# ---------------------------------------------------------------------------
# the Store experiment


def store_record(i: int) -> dict[str, Any]:
    """The ``i``-th small record of the Store measurements."""
    return {"id": i, "name": f"user{i}", "score": i * 0.5, "tags": ["a", "b"], "active": i % 3 == 0}


def _file_size(path: str) -> int:
    """Bytes the store's data file takes on disk (its lock file left out)."""
    return os.stat(path).st_blocks * 512 if os.path.isfile(path) else 0


def _build(rv: Any, path: str, n: int, every: int | None) -> float:
    """Puts ``n`` records, flushing every ``every`` (or once); returns seconds."""
    t0 = time.perf_counter()
    with rv.Store(path, "n") as s:
        for i in range(n):
            s[f"k{i}"] = store_record(i)
            if every and (i + 1) % every == 0:
                s.flush()
        s.flush()
    return time.perf_counter() - t0


#: Run in a child process: puts N records without flushing and prints how
#: far the peak resident size rose above the resident size before, in
#: bytes, as JSON.
_PENDING_CHILD = r"""
import json, sys
import roving
from roving.bench.exp_scaling import store_record

def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    return 0

path, n = sys.argv[1], int(sys.argv[2])
keys = [f"k{i}" for i in range(n)]
s = roving.Store(path, "n")
before = status("VmRSS:")
for i, k in enumerate(keys):
    s[k] = store_record(i)
after = status("VmHWM:")
print(json.dumps({"peak_growth": after - before}))
s.reload()
s.close()
"""


def pending_memory(path: str, n: int) -> int | None:
    """Peak memory growth, in bytes, of ``n`` unflushed records in a child
    process (None where /proc is unavailable or the child fails)."""
    if not os.path.exists("/proc/self/status"):
        return None
    try:
        out = subprocess.run(
            [sys.executable, "-c", _PENDING_CHILD, path, str(n)],
            capture_output=True,
            text=True,
            check=True,
            timeout=3600,
        ).stdout
        return int(json.loads(out.strip().splitlines()[-1])["peak_growth"])
    except (subprocess.SubprocessError, OSError, ValueError, KeyError, IndexError):
        return None


def _getter(store: Any, keys: list[str]) -> Callable[[], Any]:
    """A function that gets every key of ``keys`` from ``store``."""
    return lambda: [store[k] for k in keys]


def _store(exp: Experiment, cfg: Config) -> None:
    try:
        rv: Any = roving_module()
    except RovingMissing as e:
        exp.skip("roving Store", str(e))
        return
    counts = record_counts(cfg)
    t = Table(
        "the Store against the number of records",
        [
            "records",
            "build, per record (one flush)",
            "file (one flush)",
            f"file (flush every {FLUSH_EVERY:,})",
            "file ratio",
            "get, median",
            "pending memory (unflushed)",
        ],
        align=["r"] * 7,
    )
    series: dict[str, list[tuple[float, float]]] = {"build per record": [], "get median": []}
    ratios: dict[int, float] = {}
    pendings: dict[int, int] = {}
    with tempfile.TemporaryDirectory(prefix="roving-scaling-") as tmp:
        for n in counts:
            cfg.note(f"  {NAME}: Store, {n:,} records")
            once, every = os.path.join(tmp, "once.rv"), os.path.join(tmp, "every.rv")
            build = _build(rv, once, n, None)
            size_once = _file_size(once)
            _build(rv, every, n, FLUSH_EVERY)
            size_every = _file_size(every)
            ratio = size_every / size_once if size_once else None
            if ratio is not None:
                ratios[n] = ratio
            rng = random.Random(n)
            keys = [f"k{rng.randrange(n)}" for _ in range(1000)]
            with rv.Store(once, "r") as store:
                get = measure(_getter(store, keys), cfg)
            per_get = get.median / len(keys)
            params = {"records": n}
            exp.size("roving Store", "file, one flush", size_once, params)
            exp.size("roving Store", f"file, flush every {FLUSH_EVERY}", size_every, params)
            exp.size("roving Store", "build per record (s)", build / n, params)
            exp.size("roving Store", "get median (s)", per_get, params)
            pend_n = min(n, PENDING_TARGET_RECORDS)
            pend = pending_memory(os.path.join(tmp, "pending.rv"), pend_n)
            if pend is not None:
                pendings[pend_n] = pend
            series["build per record"].append((n, build / n * 1e6))
            series["get median"].append((n, per_get * 1e6))
            t.add(
                f"{n:,}",
                f"{build / n * 1e6:.2f} µs",
                fmt_bytes(size_once),
                fmt_bytes(size_every),
                fmt_ratio(ratio),
                f"{per_get * 1e6:.2f} µs",
                f"{pend / 2**20:.0f} MiB for {pend_n:,}" if pend is not None else "-",
            )
            for p in (once, every):
                for f in (p, p + "-lock"):
                    if os.path.exists(f):
                        os.remove(f)
    exp.tables.append(t)
    exp.lines.append(("the Store against records", series, "records", "µs"))
    exp.params["store_file_ratios"] = ratios
    exp.params["store_pending_bytes"] = pendings


# ---------------------------------------------------------------------------
# the experiment


def run(cfg: Config) -> Experiment:
    exp = Experiment(
        NAME,
        "scaling: cost per MB from 1 MB to 1 GB, and the Store up to millions of records",
        "-",
        "1000people.json repeated to each size, every copy perturbed (each string has the copy "
        "number appended with probability 1/2, each int has it added): the cost per MB of JSON "
        "of roving's dumps, from_json, loads and validating open, with orjson and msgspec.msgpack "
        "in the same run; and a Store of small records: build time, file size after one flush and "
        f"after a flush every {FLUSH_EVERY:,} records, get latency, and the memory that unflushed "
        "records hold. The garbage collector stays on during the timing.",
        cfg,
    )
    per_mb = _documents(exp, cfg)
    _documents_tables(exp, cfg, per_mb)
    _store(exp, cfg)
    _targets(exp, cfg, per_mb)
    return exp


def _targets(exp: Experiment, cfg: Config, per_mb: dict[str, dict[float, float]]) -> None:
    sizes = sizes_mb(cfg)
    at_size = sizes[-1] >= 1000 and sizes[0] <= 1
    t = Table("targets", ["target", "measured", "verdict"], align=["l", "r", "l"])
    for label in FLAT_OPS:
        row = per_mb[label]
        first, last = row.get(sizes[0]), row.get(sizes[-1])
        ratio = last / first if first and last else None
        t.add(
            f"{label}: cost per MB at 1 GB ≤ {FLAT_LIMIT}x at 1 MB",
            f"{fmt_ratio(ratio)} ({sizes[-1]:g} MB / {sizes[0]:g} MB)",
            fmt_verdict(None if ratio is None else ratio <= FLAT_LIMIT, at_size=at_size),
        )
    worst = None
    for mb in sizes:
        a, b = per_mb["roving.dumps"].get(mb), per_mb["orjson.dumps"].get(mb)
        if a and b:
            worst = max(worst or 0.0, a / b)
    t.add(
        f"roving.dumps ≤ {DUMPS_LIMIT}x orjson.dumps at every size",
        f"worst {fmt_ratio(worst)}",
        fmt_verdict(None if worst is None else worst <= DUMPS_LIMIT),
    )
    ratios: dict[int, float] = exp.params.get("store_file_ratios", {})
    if ratios:
        worst_file = max(ratios.values())
        t.add(
            f"Store file, flush every {FLUSH_EVERY:,} ≤ {FILE_LIMIT}x one flush",
            f"worst {fmt_ratio(worst_file)}",
            fmt_verdict(worst_file <= FILE_LIMIT),
        )
    pend: dict[int, int] = exp.params.get("store_pending_bytes", {})
    if pend:
        n = max(pend)
        t.add(
            f"Store: {PENDING_TARGET_RECORDS:,} unflushed records hold ≤ 256 MiB",
            f"{pend[n] / 2**20:.0f} MiB for {n:,}",
            fmt_verdict(pend[n] <= PENDING_LIMIT, at_size=n >= PENDING_TARGET_RECORDS),
        )
    exp.tables.append(t)
