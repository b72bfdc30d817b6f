"""Record streams: 100,000 SimpleObjects (seed 002's) written to one stream
and read back, beside the length-prefix loops users write by hand.

roving writes them with ``Writer`` and reads them with
``iter_load(type=SimpleObject)`` (FORMAT.md section 24: a 5-byte header,
then a 1 or 2 byte frame head per document; the shape of the records goes
once into the stream's dictionary, which later records refer to). The peers frame each
object's bytes with a 4-byte length in a Python loop, as the README's
"Migrating" section showed before streams existed (``msgspec.msgpack``,
typed; ``pickle``, which reads its own frames). Everything is written to
and read from memory (``io.BytesIO``, ``bytes``): the format's cost, not
the disk's. Target (issue 25): roving faster than ``msgspec.msgpack``'s
loop, writing and reading together, and in fewer bytes.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from typing import Any

from .exp_simpleobject import SimpleObject, make_object
from .harness import (
    Config,
    Experiment,
    Table,
    Timing,
    fmt_ratio,
    fmt_timing,
    fmt_verdict,
)
from .peers import RovingMissing, optional, roving_module

NAME = "stream"
TARGET_N = 100_000


def _prefix_write(encode: Callable[[Any], bytes]) -> Callable[[list[Any]], bytes]:
    def write(objs: list[Any]) -> bytes:
        f = io.BytesIO()
        w = f.write
        for o in objs:
            b = encode(o)
            w(len(b).to_bytes(4, "little"))
            w(b)
        return f.getvalue()

    return write


def _prefix_read(decode: Callable[[Any], Any]) -> Callable[[bytes], list[Any]]:
    def read(data: bytes) -> list[Any]:
        mv = memoryview(data)
        out = []
        pos, end = 0, len(data)
        while pos < end:
            n = int.from_bytes(mv[pos : pos + 4], "little")
            pos += 4
            out.append(decode(mv[pos : pos + n]))
            pos += n
        return out

    return read


def _pickle_write(objs: list[Any]) -> bytes:
    f = io.BytesIO()
    p = pickle.Pickler(f, protocol=5)
    for o in objs:
        p.dump(o)
        p.clear_memo()  # each record on its own, as a log's records are
    return f.getvalue()


def _pickle_read(data: bytes) -> list[Any]:
    f = io.BytesIO(data)
    u = pickle.Unpickler(f)
    out = []
    end = len(data)
    while f.tell() < end:
        out.append(u.load())
    return out


def run(cfg: Config) -> Experiment:
    n = 5_000 if cfg.quick else TARGET_N
    exp = Experiment(
        NAME,
        f"stream: {n:,} SimpleObjects in one record stream",
        "-",
        f"{n:,} seed-002 `SimpleObject`s written one by one into one stream in memory, then read "
        "back one by one as `SimpleObject`s. roving: `Writer(f).write(o)` and "
        "`iter_load(data, type=SimpleObject)`; the peers: a Python loop of 4-byte length + "
        "encoded bytes. Target (issue 25): roving faster than `msgspec.msgpack`'s loop "
        "(write + read) and in fewer bytes.",
        cfg,
    )
    exp.params = {"objects": n}
    objs = [make_object() for _ in range(n)]

    cands: list[tuple[str, Callable[[list[Any]], bytes], Callable[[bytes], list[Any]], str]] = []
    try:
        rv = roving_module()
    except RovingMissing as e:
        exp.skip("roving", str(e))
        rv = None
    if rv is not None and not hasattr(rv, "Writer"):
        exp.skip("roving", "this build has no roving.Writer")
        rv = None
    if rv is not None:

        def rv_write(objs: list[Any]) -> bytes:
            f = io.BytesIO()
            with rv.Writer(f) as w:
                write = w.write
                for o in objs:
                    write(o)
            return f.getvalue()

        def rv_read(data: bytes) -> list[Any]:
            return list(rv.iter_load(data, type=SimpleObject))

        cands.append(("roving Writer / iter_load", rv_write, rv_read, "typed dataclass"))
        cands.append(
            (
                "roving dumps / loads, length prefix",
                _prefix_write(rv.dumps),
                _prefix_read(lambda b: rv.loads(b, type=SimpleObject)),
                "the loop a user wrote before streams",
            )
        )
    msgspec = optional("msgspec")
    if msgspec is not None:
        enc = msgspec.msgpack.Encoder()
        dec = msgspec.msgpack.Decoder(SimpleObject)
        cands.append(
            (
                "msgspec.msgpack, length prefix",
                _prefix_write(enc.encode),
                _prefix_read(dec.decode),
                "typed dataclass, 4-byte length + msgpack",
            )
        )
    else:
        exp.skip("msgspec.msgpack, length prefix", "not installed (pip install msgspec)")
    cands.append(("pickle", _pickle_write, _pickle_read, "Pickler.dump per object, load loop"))

    rows: list[tuple[str, Timing | None, Timing | None, float, str]] = []
    blobs: dict[str, bytes] = {}
    for name, write, read, how in cands:
        if not exp.verify(name, objs[:50], lambda w=write, r=read: r(w(objs[:50]))):  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
            continue
        blob = write(objs)
        blobs[name] = blob
        tw = exp.time(name, "write", lambda w=write: w(objs))  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
        tr = exp.time(name, "read", lambda r=read, b=blob: r(b))  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
        exp.size(name, "bytes", len(blob))
        rows.append((name, tw, tr, len(blob) / n, how))

    t = Table(
        f"{n:,} SimpleObjects: write the stream, read it back",
        ["contender", "write all", "read all", "per object (w + r)", "bytes per object", "how"],
        align=["l", "r", "r", "r", "r", "l"],
    )
    for name, tw, tr, per, how in rows:
        both = tw.median + tr.median if tw and tr else None
        t.add(
            name,
            fmt_timing(tw),
            fmt_timing(tr),
            fmt_timing(None) if both is None else f"{both / n * 1e9:,.0f} ns",
            f"{per:.2f}",
            how,
        )
    t.notes.append(
        "roving's bytes per object: the stream's first SimpleObject is a 78-byte document; its "
        "shape then goes into the stream's dictionary (one dictionary frame) and every later one "
        "is a 59-byte document bound to it; each has a 2-byte frame head (FORMAT.md sections 23 "
        "and 24). `dumps` has no dictionary: 78 bytes and the 4-byte length."
    )
    exp.tables.append(t)
    _target(exp, cands, objs, blobs, n)
    exp.chart.append(("write", [(r[0], r[1].median if r[1] else None) for r in rows]))
    exp.chart.append(("read", [(r[0], r[2].median if r[2] else None) for r in rows]))
    return exp


def _target(
    exp: Experiment,
    cands: list[tuple[str, Callable[[list[Any]], bytes], Callable[[bytes], list[Any]], str]],
    objs: list[Any],
    blobs: dict[str, bytes],
    n: int,
) -> None:
    """The verdict: roving's Writer + iter_load against msgspec's loop,
    timed in alternation (paired), and their bytes."""
    by = {c[0]: c for c in cands}
    a, b = "roving Writer / iter_load", "msgspec.msgpack, length prefix"
    t = Table(
        "Target: a stream of SimpleObjects, roving vs msgspec.msgpack's length-prefix loop",
        ["target", "roving", "msgspec.msgpack", "ratio", "verdict"],
        align=["l", "r", "r", "r", "l"],
    )
    if a not in by or b not in by or a not in blobs or b not in blobs:
        t.add("write + read, and bytes", "-", "-", "-", fmt_verdict(None))
        exp.tables.append(t)
        return
    at_size = n == TARGET_N
    wa, ra = by[a][1], by[a][2]
    wb, rb = by[b][1], by[b][2]
    ba, bb = blobs[a], blobs[b]
    p = exp.pair("write + read", (a, lambda: ra(wa(objs))), (b, lambda: rb(wb(objs))))
    if p is None:
        t.add("write + read (paired)", "-", "-", "-", fmt_verdict(None))
    else:
        ratio = p.ratio  # the median of the per-repeat ratios
        t.add(
            "write + read (paired), no slower",
            fmt_timing(p.a),
            fmt_timing(p.b),
            fmt_ratio(ratio),
            fmt_verdict(ratio < 1.0, at_size=at_size),
        )
    t.add(
        "bytes per object, fewer",
        f"{len(ba) / n:.2f}",
        f"{len(bb) / n:.2f}",
        fmt_ratio(len(ba) / len(bb)),
        fmt_verdict(len(ba) < len(bb), at_size=at_size),
    )
    t.notes.append(
        "Ratio: roving's time over msgspec's (the median of the ratios within each paired "
        "repeat), or roving's bytes over msgspec's; below 1 is better. msgspec: 60 bytes of "
        "msgpack and a 4-byte length per object."
    )
    exp.tables.append(t)
