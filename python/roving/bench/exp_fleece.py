"""Experiment 1, seed 004: Fleece's benchmark on 1000people.json.

Fleece compared its in-place format with parsing JSON into Foundation
objects: data size, converting JSON to Fleece, parse (Fleece: validate and
return the root), parse trusted, and looking up ``[123].name``, with
"gross" ratios (conversion excluded) and "net" ratios (the JSON -> Fleece
conversion added to every Fleece operation).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .harness import (
    Config,
    Experiment,
    Paired,
    Table,
    Timing,
    fmt_bytes,
    fmt_ratio,
    fmt_time,
    fmt_timing,
    fmt_verdict,
)
from .peers import (
    RovingMissing,
    fastest_json_loads,
    generic_codecs,
    has_kw,
    roving_module,
)

NAME = "fleece"
JSON_FAMILY = {"json", "orjson", "msgspec.json"}


def find_data(cfg: Config, name: str = "1000people.json") -> str | None:
    """Looks for a data file: in --data-dir, $ROVING_BENCH_DATA, $ROVING_DATA,
    then the ``data/`` directory of the roving repository this runs from."""
    from . import repo_root

    cands = [cfg.data_dir, os.environ.get("ROVING_BENCH_DATA"), os.environ.get("ROVING_DATA")]
    root = repo_root()
    if root is not None:
        cands.append(os.path.join(root, "data"))
    for d in cands:
        if not d:
            continue
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return os.path.normpath(p)
    return None


class _Row:
    def __init__(self, name: str) -> None:
        self.name = name
        self.size: int | None = None
        self.dumps: Timing | None = None
        self.convert: Timing | None = None
        self.parse: Timing | None = None
        self.trusted: Timing | None = None
        self.lookup: Timing | None = None
        self.parse_lookup: Timing | None = None
        self.parse_note = ""
        self.trusted_note = ""
        #: The contender's dumps and loads of this data, as timed for the
        #: rows (for issue 3's paired targets).
        self.ops: tuple[Callable[[], Any], Callable[[], Any]] | None = None


def run(cfg: Config) -> Experiment:
    exp = Experiment(
        NAME,
        "fleece (seed 004): 1000people.json, parse and look up one name",
        "004",
        "Fleece's benchmark (seed 004) on its own data set, 1,000 fake people. Rows: data size, "
        "convert JSON -> format, parse (JSON: full load; roving: `open`, lazily checked by default or "
        "validating the whole document with `validate=True`, or `loads`, a full load), parse trusted, look up `[123].name` "
        "on the parsed data, and parse + look up from bytes. Seed 004 (Mac, 2.3 GHz i7): JSON 1,303,317 "
        "bytes, Fleece 911,920; parse 17,000 µs vs 750 µs; trusted 0.6 µs; look up 960 ns vs 49 ns.",
        cfg,
    )
    path = find_data(cfg)
    if path is None:
        exp.notes.append(
            "1000people.json was not found (looked in --data-dir, $ROVING_BENCH_DATA, $ROVING_DATA "
            "and the repository's data/): experiment not run."
        )
        exp.skip("all", "data file 1000people.json not found")
        return exp
    with open(path, "rb") as f:
        src = f.read()
    exp.params = {"data": os.path.basename(path), "json_file_bytes": len(src)}
    fast_loads, fast_name = fastest_json_loads()
    obj = fast_loads(src)
    expected_name = obj[123]["name"]

    rows: list[_Row] = []
    codecs, missing = generic_codecs()
    for k, v in missing.items():
        exp.skip(k, v)
    for c in codecs:
        if not exp.verify(c.name, obj, lambda c=c: c.decode(c.encode(obj))):  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
            continue
        data = c.encode(obj)
        r = _Row(c.name)
        r.size = len(data)
        r.ops = (lambda c=c: c.encode(obj), lambda c=c, data=data: c.decode(data))
        r.dumps = exp.time(c.name, "dumps", r.ops[0])
        if c.name not in JSON_FAMILY:
            r.convert = exp.time(c.name, "convert", lambda c=c: c.encode(fast_loads(src)))  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
        r.parse = exp.time(c.name, "parse", r.ops[1])
        r.trusted = r.parse
        r.trusted_note = "same as parse"
        loaded = c.decode(data)
        r.lookup = exp.time(c.name, "lookup", lambda loaded=loaded: loaded[123]["name"])  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
        r.parse_lookup = exp.time(
            c.name,
            "parse+lookup",
            lambda c=c, data=data: c.decode(data)[123]["name"],  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
        )
        rows.append(r)

    try:
        rv = roving_module()
    except RovingMissing as e:
        exp.skip("roving", str(e))
        rv = None
    paired: dict[str, Paired] = {}
    if rv is not None:
        rows.extend(_roving_rows(rv, exp, src, obj, expected_name))
        paired = _paired_targets(exp, rows)

    for r in rows:
        if r.size is not None:
            exp.size(r.name, "size", r.size)

    json_row = next((r for r in rows if r.name == "json"), None)
    orjson_row = next((r for r in rows if r.name == "orjson"), None)
    # Seed 004's parse is Fleece's checked parse: roving's is the validating open.
    rv_row = next(
        (r for r in rows if r.name == "roving (open validate=True)"),
        next((r for r in rows if r.name == "roving (open)"), None),
    )

    # ---- table A: seed 004's layout ------------------------------------------
    if json_row and rv_row:
        cols = ["", "JSON (json)", "roving", "gross ratio", "net ratio"]
        if orjson_row:
            cols += ["JSON (orjson)", "gross ratio", "net ratio"]
        ta = Table("Seed 004's table, with roving in Fleece's place", cols)
        for label, fn in _seed_rows():
            cells = [label]
            for base in [json_row] + ([orjson_row] if orjson_row else []):
                vb, vr, gross, net = fn(base, rv_row)
                if base is json_row:
                    cells += [vb, vr, fmt_ratio(gross), fmt_ratio(net)]
                else:
                    cells += [vb, fmt_ratio(gross), fmt_ratio(net)]
            ta.add(*cells)
        ta.notes.append(
            f"JSON data is the minified JSON ({fmt_bytes(json_row.size)} bytes); the source file is "
            f"{len(src):,} bytes with whitespace (the size seed 004 quotes). Conversion parses the file."
        )
        ta.notes.append(
            "Gross ratio: JSON / roving, conversion excluded; net ratio: conversion added to every roving "
            "operation; look-up net = (JSON parse + look-up) / (convert + open + look-up), as seed 004's note [1]. "
            ">1 means roving is better."
        )
        ta.notes.append(
            f"Parse for roving is `{rv_row.name[len('roving (') : -1]}`"
            + (
                ": a full validation pass that returns the root"
                if "validate" in rv_row.name
                else ": the lazily checked open"
            )
            + "; look-ups then read in place."
        )
        exp.tables.append(ta)
    else:
        exp.notes.append(
            "Seed 004's table needs both json and roving (open); one of them did not run."
        )

    # ---- table B: every contender ---------------------------------------------
    tb = Table(
        "Every contender",
        [
            "contender",
            "bytes",
            "dumps",
            "convert from JSON",
            "parse",
            "parse trusted",
            "look up [123].name",
            "parse + look up",
            "parse vs json (gross)",
            "parse vs json (net)",
        ],
    )
    for r in rows:
        gross = net = None
        if json_row and json_row.parse and r.parse:
            gross = json_row.parse.median / r.parse.median
            net = json_row.parse.median / (
                r.parse.median + (r.convert.median if r.convert else 0.0)
            )
        trusted = fmt_timing(r.trusted) if r.trusted_note != "same as parse" else "= parse"
        if r.trusted is None and r.trusted_note:
            trusted = r.trusted_note
        tb.add(
            r.name,
            fmt_bytes(r.size),
            fmt_timing(r.dumps) if r.dumps else "-",
            fmt_timing(r.convert) if r.convert else "-",
            fmt_timing(r.parse),
            trusted,
            fmt_timing(r.lookup),
            fmt_timing(r.parse_lookup),
            fmt_ratio(gross),
            fmt_ratio(net),
        )
    tb.notes.append(
        f"Binary peers convert with `{fast_name}` + their encoder; roving converts with `roving.from_json` "
        "(the core's streaming converter, no Python objects)."
    )
    empty = exp.time("(baseline)", "empty call", lambda: None)
    if empty is not None:
        tb.notes.append(
            f"Every timed call goes through a Python lambda; an empty one takes {fmt_time(empty.median)} here "
            "(included in the look-up times, not subtracted)."
        )
    tb.notes.append(
        "Look-up on a loaded value is Python indexing of lists and dicts; on the `roving (open ...)` rows it "
        'goes through the lazy view (`doc.root[123]["name"]`). `roving (open)` is the default open: O(1), '
        "each read checks the bytes it touches; `roving (open validate=True)` validates the whole document "
        "at open; `roving (open trusted)` checks nothing (`roving.open(data, trusted=True)`, for bytes roving "
        "wrote itself). The parse trusted column of the open rows is the trusted open."
    )
    tb.notes.append(
        "dumps: the Python objects (as loaded from the JSON) to the format's bytes; roving's is "
        "`roving.dumps` (the `roving (loads)` row)."
    )
    tb.notes.append(
        "The garbage collector stays on while a repeat is timed, as in an application (not as "
        "`timeit` does): the peers' loads pay the collections their new containers trigger, "
        "and `roving.loads` pauses the collector as it builds its objects."
    )
    exp.tables.append(tb)
    _python_targets(exp, rows, paired)

    exp.chart.append(("bytes", [(r.name, r.size) for r in rows], "bytes"))
    exp.chart.append(("parse", [(r.name, r.parse.median if r.parse else None) for r in rows]))
    exp.chart.append(
        (
            "look up [123].name",
            [(r.name, r.lookup.median if r.lookup else None) for r in rows],
        )
    )
    exp.chart.append(
        (
            "parse + look up",
            [(r.name, r.parse_lookup.median if r.parse_lookup else None) for r in rows],
        )
    )
    return exp


#: Issue 3's ratio targets: (label, op, peer, the op's index in
#: `_Row.ops` (0 dumps, 1 loads), the ratio needed).
RATIO_TARGETS = [
    ("dumps vs orjson.dumps", "dumps", "orjson", 0, 0.8),
    ("loads vs orjson.loads", "loads", "orjson", 1, 0.8),
    ("loads vs msgspec.msgpack decode", "loads", "msgspec.msgpack", 1, 1.0),
]


def _paired_targets(exp: Experiment, rows: list[_Row]) -> dict[str, Paired]:
    """Issue 3's ratio targets timed in alternation with the peer
    (:meth:`Experiment.pair`): roving's and the peer's loops take turns, so
    that the ratio does not depend on which of them a busy spell of the
    shared machine fell on."""
    ops = {r.name: r.ops for r in rows if r.ops is not None}
    mine = ops.get("roving (loads)")
    out: dict[str, Paired] = {}
    for label, op, peer, which, _need in RATIO_TARGETS:
        theirs = ops.get(peer)
        if mine is None or theirs is None:
            continue
        p = exp.pair(op, ("roving (loads)", mine[which]), (peer, theirs[which]))
        if p is not None:
            out[label] = p
    return out


def _python_targets(exp: Experiment, rows: list[_Row], paired: dict[str, Paired]) -> None:
    """The Python package's targets (issue 3), as ratios measured in this run:
    the ratio targets from the paired timings, the others from the tables."""
    by = {r.name: r for r in rows}

    def med(name: str, attr: str) -> float | None:
        r = by.get(name)
        t = getattr(r, attr, None) if r else None
        return t.median if isinstance(t, Timing) else None

    t = Table(
        "The Python package's targets (issue 3)",
        ["target", "needed", "measured", "verdict"],
        align=["l", "r", "r", "l"],
    )

    rv = "roving (loads)"
    x: float | None  # the measured value of a target, None where not measured
    for label, _op, peer, which, need in RATIO_TARGETS:
        attr = ("dumps", "parse")[which]
        a, b = med(rv, attr), med(peer, attr)
        p = paired.get(label)
        if p is not None:
            x = p.ratio
            measured = f"{fmt_ratio(p.ratio)} ({fmt_ratio(p.min)}–{fmt_ratio(p.max)}), paired"
        else:
            x = a / b if (a is not None and b) else None
            measured = fmt_ratio(x)
        if p is not None and a is not None and b:
            measured += f"; {fmt_ratio(a / b)} from the medians above"
        t.add(label, f"<= {need:g}x", measured, fmt_verdict(None if x is None else x <= need))
    for name in ("roving (open)", "roving (open validate=True)", "roving (open trusted)"):
        x = med(name, "parse_lookup")
        t.add(
            f'open + [123]["name"], {name}',
            "<= 1 µs",
            fmt_time(x),
            fmt_verdict(None if x is None else x <= 1e-6),
        )
    size, pk = by.get(rv), by.get("pickle")
    x = size.size / pk.size if (size and pk and size.size and pk.size) else None
    t.add(
        "size vs pickle (protocol 5)",
        "<= 1x",
        f"{x:.3f}x" if x is not None else "-",
        fmt_verdict(None if x is None else x <= 1.0),
    )
    t.notes.append(
        "The ratio targets are timed paired: roving's loop and the peer's take turns (a b, b a, ...) "
        f"over {exp.cfg.repeats} repeats, and the verdict uses the median of the repeats' ratios "
        "(their range in brackets). The tables above time one contender after the other, so a busy spell "
        "of this shared machine can fall on one of them only; their ratio is shown beside it."
    )
    t.notes.append(
        "Medians of this run; the timed calls go through a Python lambda (see above). "
        "`roving (open)` is the default lazily checked open (O(1); each read checks what it touches); "
        "`open validate=True` validates the whole document before the look-up; `open trusted` checks nothing."
    )
    exp.tables.append(t)


def _seed_rows() -> list[
    tuple[str, Callable[[_Row, _Row], tuple[str, str, float | None, float | None]]]
]:
    def med(t: Timing | None) -> float | None:
        return t.median if t is not None else None

    def ratio(a: float | None, b: float | None) -> float | None:
        if a is None or b is None or b <= 0:
            return None
        return a / b

    def size(j: _Row, r: _Row) -> tuple[str, str, float | None, float | None]:
        g = ratio(j.size, r.size)
        return fmt_bytes(j.size), fmt_bytes(r.size), g, g

    def convert(j: _Row, r: _Row) -> tuple[str, str, float | None, float | None]:
        return "-", fmt_time(med(r.convert)), None, None

    def parse(j: _Row, r: _Row) -> tuple[str, str, float | None, float | None]:
        c = med(r.convert) or 0.0
        p = med(r.parse)
        return (
            fmt_time(med(j.parse)),
            fmt_time(p),
            ratio(med(j.parse), p),
            ratio(med(j.parse), None if p is None else p + c),
        )

    def trusted(j: _Row, r: _Row) -> tuple[str, str, float | None, float | None]:
        c = med(r.convert) or 0.0
        t = med(r.trusted)
        if t is None:
            return fmt_time(med(j.parse)), r.trusted_note or "-", None, None
        return (
            fmt_time(med(j.parse)),
            fmt_time(t),
            ratio(med(j.parse), t),
            ratio(med(j.parse), t + c),
        )

    def lookup(j: _Row, r: _Row) -> tuple[str, str, float | None, float | None]:
        c = med(r.convert) or 0.0
        lj, lr, pj, pr = med(j.lookup), med(r.lookup), med(j.parse), med(r.parse)
        net = None
        if lj is not None and lr is not None and pj is not None and pr is not None:
            net = (pj + lj) / (c + pr + lr)
        return fmt_time(lj), fmt_time(lr), ratio(lj, lr), net

    return [
        ("Data size (bytes)", size),
        ("Convert JSON to roving", convert),
        ("Parse", parse),
        ("Parse trusted", trusted),
        ("Look up one name", lookup),
    ]


def _roving_rows(rv: Any, exp: Experiment, src: bytes, obj: Any, expected_name: str) -> list[_Row]:
    rows: list[_Row] = []
    has_from_json = hasattr(rv, "from_json")
    # Round trips: dumps/loads of the objects, and the JSON converter.
    if not exp.verify("roving (loads)", obj, lambda: rv.loads(rv.dumps(obj))):
        return rows
    if has_from_json:
        if not exp.verify("roving (loads)", obj, lambda: rv.loads(rv.from_json(src))):
            return rows
        data = rv.from_json(src)
    else:
        exp.notes.append(
            "roving.from_json is missing: roving data comes from roving.dumps and convert is not timed."
        )
        data = rv.dumps(obj)

    convert = None
    if has_from_json:
        convert = exp.time("roving (loads)", "convert", lambda: rv.from_json(src))

    full = _Row("roving (loads)")
    full.size = len(data)
    full.ops = (lambda: rv.dumps(obj), lambda: rv.loads(data))
    full.dumps = exp.time("roving (loads)", "dumps", full.ops[0])
    full.convert = convert
    full.parse = exp.time("roving (loads)", "parse", full.ops[1])
    full.trusted = full.parse
    full.trusted_note = "same as parse"
    loaded = rv.loads(data)
    full.lookup = exp.time("roving (loads)", "lookup", lambda: loaded[123]["name"])
    full.parse_lookup = exp.time(
        "roving (loads)", "parse+lookup", lambda: rv.loads(data)[123]["name"]
    )
    rows.append(full)

    if not hasattr(rv, "open"):
        exp.skip("roving (open)", "roving.open is missing from the installed roving")
        return rows
    name = "roving (open)"
    if not exp.verify(name, obj, lambda: rv.open(data).root.to_python()):
        return rows
    if not exp.verify(name, expected_name, lambda: rv.open(data).root[123]["name"]):
        return rows
    lazy = _Row(name)
    lazy.size = len(data)
    lazy.convert = convert
    lazy.parse = exp.time(name, "parse", lambda: rv.open(data))
    has_trusted = has_kw(rv.open, "trusted")
    if has_trusted:
        lazy.trusted = exp.time(name, "parse trusted", lambda: rv.open(data, trusted=True))
    else:
        lazy.trusted_note = "n/a (no trusted open in the Python API)"
    root = rv.open(data).root
    lazy.lookup = exp.time(name, "lookup", lambda: root[123]["name"])
    lazy.parse_lookup = exp.time(name, "parse+lookup", lambda: rv.open(data).root[123]["name"])
    rows.append(lazy)
    if has_kw(rv.open, "validate") and has_trusted:
        # The whole document validated at open, as Fleece's checked parse.
        vname = "roving (open validate=True)"
        vd = _Row(vname)
        vd.size = len(data)
        vd.convert = convert
        vd.parse = exp.time(vname, "parse", lambda: rv.open(data, validate=True))
        vd.trusted = lazy.trusted
        vroot = rv.open(data, validate=True).root
        vd.lookup = exp.time(vname, "lookup", lambda: vroot[123]["name"])
        vd.parse_lookup = exp.time(
            vname, "parse+lookup", lambda: rv.open(data, validate=True).root[123]["name"]
        )
        rows.append(vd)
    if has_trusted:
        # The trusted path: bytes roving wrote itself, opened in O(1).
        tname = "roving (open trusted)"

        def open_trusted() -> Any:
            return rv.open(data, trusted=True)

        if not exp.verify(tname, expected_name, lambda: open_trusted().root[123]["name"]):
            return rows
        tr = _Row(tname)
        tr.size = len(data)
        tr.convert = convert
        tr.parse = lazy.trusted
        tr.trusted = lazy.trusted
        troot = open_trusted().root
        tr.lookup = exp.time(tname, "lookup", lambda: troot[123]["name"])
        tr.parse_lookup = exp.time(tname, "parse+lookup", lambda: open_trusted().root[123]["name"])
        rows.append(tr)
    return rows
