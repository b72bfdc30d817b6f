"""Experiment 6: a corpus of JSON files and generated shapes, roving against the peers.

For every file (by default the repository's ``data/corpus/*.json`` and
``data/1000people.json``, plus three generated shapes; ``--corpus DIR``
runs a folder of the user's own JSON files instead) each contender's
bytes, ``dumps`` and ``loads`` are measured, after checking that it
round-trips the loaded JSON exactly. The garbage collector stays on
during the timing, as in a user's program. A summary gives roving's ratio
to the best peer per file, its worst file and geometric mean, against
the targets of the issue "Fast and compact on every shape of data".
"""

from __future__ import annotations

import glob
import json
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .harness import (
    Config,
    Experiment,
    Table,
    Timing,
    fmt_bytes,
    fmt_ratio,
    fmt_timing,
    fmt_verdict,
)
from .peers import RovingMissing, missing_note, optional, roving_module

NAME = "corpus"

#: The targets: (label, needed ratio, what the ratio compares).
TARGETS = [
    ("size vs msgspec.msgpack", 1.05, "size"),
    ("loads vs the faster of orjson.loads and msgspec.msgpack.decode", 1.0, "loads"),
    ("dumps vs orjson.dumps", 1.25, "dumps"),
]


@dataclass
class CorpusFile:
    """One document of the corpus: its name, the loaded JSON and where it came from."""

    name: str
    data: Any
    source: str
    json_bytes: int | None = None


@dataclass
class _Result:
    size: int | None = None
    dumps: Timing | None = None
    loads: Timing | None = None
    note: str = ""


@dataclass
class _FileResults:
    doc: CorpusFile
    rows: dict[str, _Result] = field(default_factory=dict)


# ---------------------------------------------------------------------------
# the documents


def make_contacts(n: int = 100_000) -> dict[str, list[str]]:
    """Contacts-like: a dict of two long lists of short strings (``n`` in all)."""
    n_emails = min(150, n // 10)
    emails = [f"email.{i}@ext.com" for i in range(n_emails)]
    phones = [
        str(600000000 + i) if i % 2 == 0 else "+" + str(100 // i) + str(600000000 + i)
        for i in range(1, n - n_emails + 1)
    ]
    return {"emails": emails, "phones": phones}


def generated_shapes() -> list[tuple[str, str, Callable[[], Any]]]:
    """The generated shapes of the default corpus: (name, what, build)."""
    n = 20_000
    return [
        ("contacts (generated)", "100,000 short strings", lambda: make_contacts(100_000)),
        ("20,000 keyed ints (generated)", '{"0": 0, ...}', lambda: {str(i): i for i in range(n)}),
        ("20,000 ints (generated)", "[0, 1, ...]", lambda: list(range(n))),
    ]


def load_json_file(path: str) -> tuple[CorpusFile | None, str]:
    """Loads one JSON file; returns (document, "") or (None, one-line reason)."""
    name = os.path.basename(path)
    if not os.path.isfile(path):
        return None, "not a regular file"
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        return None, f"cannot be read: {e.strerror or e}"
    if not raw.strip():
        return None, "empty"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, f"not UTF-8 (byte {e.start})"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        return None, f"not JSON: {e.msg} at line {e.lineno} column {e.colno}"
    except (ValueError, RecursionError) as e:
        return (
            None,
            f"not JSON: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}",
        )
    return CorpusFile(name, data, path, len(raw)), ""


def default_files(cfg: Config) -> list[str]:
    """The repository's corpus: ``data/corpus/*.json`` and ``data/1000people.json``."""
    from .exp_fleece import find_data

    out = []
    people = find_data(cfg, "1000people.json")
    if people is not None:
        data = os.path.dirname(people)
        out.extend(sorted(glob.glob(os.path.join(data, "corpus", "*.json"))))
        out.append(people)
    return out


def user_files(folder: str) -> list[str]:
    """Every entry of ``folder`` (the caller skips what is not a JSON file)."""
    return [os.path.join(folder, n) for n in sorted(os.listdir(folder))]


# ---------------------------------------------------------------------------
# the contenders


Codec = tuple[str, Callable[[Any], bytes], Callable[[bytes], Any]]
#: A contender's ``dumps`` and ``loads``.
DumpsLoads = tuple[Callable[[Any], bytes], Callable[[bytes], Any]]


def _msgspec_msgpack(m: Any) -> DumpsLoads:
    encoder, decoder = m.msgpack.Encoder(), m.msgpack.Decoder()
    return encoder.encode, decoder.decode


def _pyfory(m: Any) -> DumpsLoads:
    fory = m.Fory(xlang=False, ref=False, strict=False)
    return fory.serialize, fory.deserialize


#: The peers, in the order of the tables: (contender name, module, its
#: ``dumps`` and ``loads`` from the module).
PEERS: list[tuple[str, str, Callable[[Any], DumpsLoads]]] = [
    ("orjson", "orjson", lambda m: (m.dumps, m.loads)),
    ("msgspec.msgpack", "msgspec", _msgspec_msgpack),
    ("msgpack", "msgpack", lambda m: (m.packb, m.unpackb)),
    ("ormsgpack", "ormsgpack", lambda m: (m.packb, m.unpackb)),
    ("cbor2", "cbor2", lambda m: (m.dumps, m.loads)),
    ("pickle", "pickle", lambda m: (lambda o: m.dumps(o, protocol=5), m.loads)),
    ("pyfory", "pyfory", _pyfory),
]


def codecs(exp: Experiment) -> list[Codec]:
    """roving and the peers that are installed; a missing one is a skip note."""
    out: list[Codec] = []
    try:
        rv = roving_module()
        out.append(("roving", rv.dumps, rv.loads))
    except RovingMissing as e:
        exp.skip("roving", str(e))
    for name, module_name, pair in PEERS:
        module = optional(module_name)
        if module is None:
            exp.skip(name, missing_note(module_name))
            continue
        try:
            dumps, loads = pair(module)
        except Exception as e:  # noqa: BLE001 - a peer failing is a result
            exp.skip(name, f"cannot be set up: {type(e).__name__}: {e}")
            continue
        out.append((name, dumps, loads))
    return out


# ---------------------------------------------------------------------------
# the experiment


def run(cfg: Config) -> Experiment:
    user = cfg.corpus_dir
    exp = Experiment(
        NAME,
        "corpus: every shape of data, roving against the peers",
        "-",
        (
            f"The JSON files of `{user}`"
            if user
            else "The repository's `data/corpus/*.json` (canada, citm_catalog, twitter) and "
            "`data/1000people.json`, plus generated shapes: contacts-like (a dict of two lists of "
            '100,000 short strings in all), 20,000 ints keyed `{"0": 0, ...}` and a list of 20,000 ints'
        )
        + ": for each, the bytes, `dumps` and `loads` of roving and the peers. Every contender's "
        "round trip is first checked equal to the loaded JSON, exactly (types, float bits, key order); "
        "a contender that fails it shows '-' with a note. The garbage collector stays on during the "
        "timing, as in a user's program.",
        cfg,
    )
    # One document at a time: only the one being measured is alive, so that
    # the collections of the garbage collector (on during the timing, and
    # run before each repeat) walk it alone, not every file of the corpus.
    sources: list[Callable[[], tuple[CorpusFile | None, str]]] = []
    paths = user_files(user) if user else default_files(cfg)
    if not user and not paths:
        exp.notes.append("The repository's data/ was not found: only the generated shapes ran.")
    sources.extend(lambda path=path: load_json_file(path) for path in paths)  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
    if not user:
        sources.extend(
            lambda name=name, what=what, build=build: (CorpusFile(name, build(), what), "")  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
            for name, what, build in generated_shapes()
        )
    names: list[str] = []
    exp.params = {"files": names, "corpus_dir": user}

    cands = codecs(exp)
    results: list[_FileResults] = []
    for i, source in enumerate(sources):
        doc, reason = source()
        if doc is None:
            name = os.path.basename(paths[i])
            print(f"corpus: skipped {name}: {reason}", file=sys.stderr, flush=True)
            exp.notes.append(f"Skipped {name}: {reason}.")
            continue
        names.append(doc.name)
        fr = _FileResults(doc)
        results.append(fr)
        cfg.note(f"  {NAME}: {doc.name}")
        for name, enc, dec in cands:
            fr.rows[name] = _measure(exp, doc, name, enc, dec)
        _file_table(exp, fr)
        doc.data = None
        del doc
    _targets(exp, results)
    return exp


def _measure(
    exp: Experiment,
    doc: CorpusFile,
    name: str,
    enc: Callable[[Any], bytes],
    dec: Callable[[bytes], Any],
) -> _Result:
    who = f"{name} ({doc.name})"
    res = _Result()
    data = doc.data
    if not exp.verify(who, data, lambda: dec(enc(data))):
        res.note = exp.skipped.get(who, "")
        return res
    blob = enc(data)
    res.size = len(blob)
    exp.size(who, "size", len(blob), {"file": doc.name})
    res.dumps = exp.time(who, "dumps", lambda: enc(data), params={"file": doc.name})
    res.loads = exp.time(who, "loads", lambda: dec(blob), params={"file": doc.name})
    if res.dumps is None or res.loads is None:
        res.note = exp.skipped.get(who, "")
    return res


def _file_table(exp: Experiment, fr: _FileResults) -> None:
    doc = fr.doc
    what = f"{fmt_bytes(doc.json_bytes)} bytes of JSON" if doc.json_bytes else doc.source
    t = Table(
        f"{doc.name} ({what})",
        ["contender", "bytes", "dumps", "loads", "note"],
        align=["l", "r", "r", "r", "l"],
    )
    for name, r in fr.rows.items():
        note = r.note
        if note:
            note = note.replace("|", "/")
        t.add(name, fmt_bytes(r.size), fmt_timing(r.dumps), fmt_timing(r.loads), note)
    exp.tables.append(t)


def ratios(fr: _FileResults) -> dict[str, float | None]:
    """roving's ratio to the best peer of each target, for one file (None where not measured)."""
    rows = fr.rows
    rv = rows.get("roving", _Result())

    def med(name: str, attr: str) -> float | None:
        t = getattr(rows.get(name, _Result()), attr)
        return t.median if isinstance(t, Timing) else None

    out: dict[str, float | None] = {}
    mp = rows.get("msgspec.msgpack", _Result()).size
    out["size"] = rv.size / mp if (rv.size and mp) else None
    peers = [x for x in (med("orjson", "loads"), med("msgspec.msgpack", "loads")) if x]
    mine = med("roving", "loads")
    out["loads"] = mine / min(peers) if (mine and peers) else None
    mine, oj = med("roving", "dumps"), med("orjson", "dumps")
    out["dumps"] = mine / oj if (mine and oj) else None
    return out


def geomean(xs: list[float]) -> float | None:
    """The geometric mean of positive ``xs`` (None if there are none)."""
    xs = [x for x in xs if x and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _targets(exp: Experiment, results: list[_FileResults]) -> None:
    per = [(fr.doc.name, ratios(fr)) for fr in results]
    t = Table(
        "roving's ratio to the best peer, per file",
        ["file", "size vs msgspec.msgpack", "loads vs best of orjson / msgspec", "dumps vs orjson"],
        align=["l", "r", "r", "r"],
    )
    for name, r in per:
        t.add(name, fmt_ratio(r["size"]), fmt_ratio(r["loads"]), fmt_ratio(r["dumps"]))
    worst: dict[str, tuple[float, str] | None] = {}
    gm: dict[str, float | None] = {}
    for _label, _need, key in TARGETS:
        vals = [(x, name) for name, r in per if (x := r[key]) is not None]
        worst[key] = max(vals) if vals else None
        gm[key] = geomean([v for v, _ in vals])
    t.add(
        "**worst file**",
        *(f"{fmt_ratio(w[0])} ({w[1]})" if (w := worst[key]) else "-" for _l, _n, key in TARGETS),
    )
    t.add("**geometric mean**", *(fmt_ratio(gm[key]) for _l, _n, key in TARGETS))
    t.notes.append(
        "Ratios are roving's bytes or median time divided by the peer's: below 1x roving is smaller or "
        "faster. loads compares roving.loads with the faster of orjson.loads (of orjson's JSON) and "
        "msgspec.msgpack.decode on each file."
    )
    exp.tables.append(t)

    tt = Table(
        'Targets (issue "Fast and compact on every shape of data")',
        ["target", "needed", "worst file", "geometric mean", "verdict"],
        align=["l", "r", "r", "r", "l"],
    )
    for label, need, key in TARGETS:
        w = worst[key]
        tt.add(
            label,
            f"<= {need:g}x",
            f"{fmt_ratio(w[0])} ({w[1]})" if w else "-",
            fmt_ratio(gm[key]),
            fmt_verdict(None if w is None else w[0] <= need),
        )
    tt.notes.append(
        "The verdict is on the worst file: the target holds for every shape of data, not on average."
    )
    exp.tables.append(tt)
    exp.chart_unit = "roving / best peer (lower is better)"
    for label, _need, key in TARGETS:
        exp.chart.append((label, [(name, r[key]) for name, r in per], "x (roving / peer)"))
