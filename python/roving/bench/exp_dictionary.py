"""Shared dictionaries (issue 25): small documents without their keys.

SimpleObject (seed 002) written with and without a ``roving.Dictionary``
that holds its shape (and, as a second case, its two string values):
bytes per object, and ``dumps`` + ``loads(type=SimpleObject)`` per object
against ``msgspec.msgpack`` with the same dataclass. Then the 1000 person
records of ``1000people.json`` (seed 004), each as its own document (as a
``Store`` or a stream holds them): total bytes with and without a
dictionary, against msgpack. The verdicts are those of issue 25's
targets: at most 48 bytes per SimpleObject, and a round trip no slower
than msgspec's.
"""

from __future__ import annotations

import json
from typing import Any

from .exp_simpleobject import SimpleObject, make_object
from .harness import (
    Config,
    Experiment,
    Paired,
    Table,
    fmt_bytes,
    fmt_ratio,
    fmt_time,
    fmt_verdict,
)
from .peers import RovingMissing, optional, roving_module

NAME = "dictionary"

#: Issue 25's size target for SimpleObject with a dictionary, in bytes.
SIZE_TARGET = 48


def run(cfg: Config) -> Experiment:
    exp = Experiment(
        NAME,
        "dictionary (issue 25): small documents against a shared dictionary",
        "002",
        "SimpleObject (seed 002) with and without a `roving.Dictionary` holding its shape: "
        "bytes per object, and `dumps` + `loads(type=SimpleObject)` per object against "
        "`msgspec.msgpack` with the same dataclass; then the 1000 records of `1000people.json`, "
        "each as its own document.",
        cfg,
    )
    try:
        rv = roving_module()
    except RovingMissing as e:
        exp.skip("roving", str(e))
        return exp
    one = make_object()
    shape_dict = rv.Dictionary()
    rv.dumps(one, dictionary=shape_dict)  # learns the shape
    shape_dict.freeze()
    # A dictionary grown by dumps alone: the shape from the first, the two
    # strings once three documents have held them (as a Store's learns).
    str_dict = rv.Dictionary()
    for _ in range(3):
        rv.dumps(one, dictionary=str_dict)
    str_dict.freeze()

    # Each row writes its own copy of the object: msgspec's encoder makes
    # the instance's `__dict__` (CPython 3.11 keeps an instance's
    # attributes inline until something asks for it), which would change
    # how the rows timed after it read the object.
    def roving_trip(d: Any) -> Any:
        # Encoder / Decoder objects, as the msgspec row uses msgspec's.
        enc, dec = rv.Encoder(dictionary=d), rv.Decoder(SimpleObject, dictionary=d)
        obj = make_object()
        return lambda: dec.decode(enc.encode(obj))

    cands: list[tuple[str, Any, int, str]] = [
        ("roving", roving_trip(None), len(rv.dumps(one)), "no dictionary"),
        (
            "roving + dictionary",
            roving_trip(shape_dict),
            len(rv.dumps(one, dictionary=shape_dict)),
            "a frozen dictionary holding the shape",
        ),
        (
            "roving + grown dictionary",
            roving_trip(str_dict),
            len(rv.dumps(one, dictionary=str_dict)),
            'grown by 3 dumps: the shape, then "Simple" and "Planet Earth" (recurring strings)',
        ),
    ]
    msgspec = optional("msgspec")
    peer = None
    if msgspec is not None:
        me, md = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(SimpleObject)
        peer = "msgspec.msgpack"
        peer_obj = make_object()
        cands.append(
            (
                peer,
                lambda: md.decode(me.encode(peer_obj)),
                len(me.encode(make_object())),
                "typed dataclass",
            )
        )
    else:
        exp.skip("msgspec", "not installed (pip install msgspec)")

    t = Table(
        "SimpleObject: bytes and dumps + loads per object",
        ["contender", "bytes", "dumps + loads", "how"],
        align=["l", "r", "r", "l"],
    )
    for name, trip, size, how in cands:
        if not exp.verify(name, one, trip):
            continue
        tm = exp.time(name, "dumps + loads", trip)
        exp.size(name, "bytes", size)
        t.add(name, fmt_bytes(size), fmt_time(tm.median if tm else None), how)
    t.notes.append(
        "One object written and read back per call, through a Python lambda; median of the "
        "repeats. roving's rows call a `roving.Encoder` and a `roving.Decoder` (made once, "
        "with the row's dictionary), as msgspec's row calls its `Encoder` and `Decoder`. "
        "Each row writes its own copy of the object: msgspec makes an instance's `__dict__`, "
        "which CPython 3.11 otherwise leaves unmade, and that changes how others read it."
    )
    exp.tables.append(t)

    paired: Paired | None = None
    if peer is not None:
        paired = exp.pair(
            "dumps + loads",
            ("roving + dictionary", cands[1][1]),
            (peer, cands[-1][1]),
        )
    v = Table(
        "Issue 25's SimpleObject targets",
        ["target", "needed", "measured", "verdict"],
        align=["l", "r", "r", "l"],
    )
    size = cands[1][2]
    v.add(
        "bytes with a dictionary of its shape alone (frozen after one dumps)",
        f"<= {SIZE_TARGET}",
        str(size),
        fmt_verdict(size <= SIZE_TARGET),
    )
    v.add(
        "bytes with a dictionary grown by dumps (the shape and the two recurring strings)",
        f"<= {SIZE_TARGET}",
        str(cands[2][2]),
        fmt_verdict(cands[2][2] <= SIZE_TARGET),
    )
    # Against msgspec, then against the same calls without a dictionary,
    # all paired (the medians of the table above are timed one after the
    # other).
    plain_doc, bound_doc = rv.dumps(one), rv.dumps(one, dictionary=shape_dict)
    plain_dec = rv.Decoder(SimpleObject)
    bound_dec = rv.Decoder(SimpleObject, dictionary=shape_dict)
    ratios = [
        ("dumps + loads with a dictionary of its shape vs msgspec.msgpack", paired),
        (
            "dumps + loads with a grown dictionary vs msgspec.msgpack",
            None
            if peer is None
            else exp.pair(
                "dumps + loads", ("roving + grown dictionary", cands[2][1]), (peer, cands[-1][1])
            ),
        ),
        (
            "dumps + loads with a dictionary vs without",
            exp.pair(
                "dumps + loads", ("roving + dictionary", cands[1][1]), ("roving", cands[0][1])
            ),
        ),
        (
            "typed loads with a dictionary vs without",
            exp.pair(
                "loads(type=SimpleObject)",
                (
                    "roving + dictionary",
                    lambda: bound_dec.decode(bound_doc),
                ),
                ("roving", lambda: plain_dec.decode(plain_doc)),
            ),
        ),
    ]
    for label, p in ratios:
        v.add(
            label,
            "<= 1x",
            f"{fmt_ratio(p.ratio)} ({fmt_ratio(p.min)}–{fmt_ratio(p.max)}), paired" if p else "-",
            fmt_verdict(None if p is None else p.ratio <= 1.0),
        )
    v.notes.append(
        "A document bound to a dictionary carries a 10-byte binding (tag, entry count, 8-byte id) "
        "instead of its 4 keys and shape (29 bytes): 78 - 29 + 10 = 59 bytes; its values (37 bytes), "
        "header and root (6) leave 48 bytes out of reach unless the strings are dictionary entries too."
    )
    exp.tables.append(v)
    _records(exp, rv, cfg)
    return exp


def _records(exp: Experiment, rv: Any, cfg: Config) -> None:
    """The person records of 1000people.json, each its own document."""
    from .exp_fleece import find_data  # the seed 004 data file

    path = find_data(cfg)
    if path is None:
        exp.skip("records", "data file 1000people.json not found")
        return
    with open(path, "rb") as f:
        people = json.load(f)
    if not isinstance(people, list) or not people:
        return
    d = rv.Dictionary()
    for p in people[:1]:
        rv.dumps(p, dictionary=d)
    plain = [rv.dumps(p) for p in people]
    bound = [rv.dumps(p, dictionary=d) for p in people]
    assert all(rv.loads(b, dictionary=d) == p for b, p in zip(bound, people, strict=True))
    rows = [
        ("roving", sum(map(len, plain)), "each record alone"),
        (
            "roving + dictionary",
            sum(map(len, bound)) + len(bytes(d)),
            f"{len(d)} entries learned from the first record; includes the dictionary's "
            f"{len(bytes(d)):,} bytes",
        ),
    ]
    msgpack = optional("msgpack")
    if msgpack is not None:
        rows.append(("msgpack", sum(len(msgpack.packb(p)) for p in people), "packb(record)"))
    rows.append(
        ("json", sum(len(json.dumps(p, separators=(",", ":")).encode()) for p in people), "compact")
    )
    t = Table(
        f"{len(people):,} person records, each its own document",
        ["contender", "total bytes", "vs roving", "how"],
        align=["l", "r", "r", "l"],
    )
    base = rows[0][1]
    for name, n, how in rows:
        exp.size(name, "records total bytes", n)
        t.add(name, fmt_bytes(n), fmt_ratio(n / base), how)
    exp.tables.append(t)
