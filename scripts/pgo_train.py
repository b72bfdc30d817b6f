"""The training run of the profile-guided build (`make py-build`).

An instrumented build of the extension runs this script once; the compiler
then lays out and inlines the release build by the profile it records.
It calls what users call most, on every shape of data that `make bench`
measures: `dumps` and `loads` (untyped and typed, with and without a
dictionary, through the functions and through `Encoder`/`Decoder`),
`from_json`, `to_json`, lazy `open` and lookups, record streams and the
Store. It asserts round trips as it goes, so a broken build fails here
instead of training on errors. It takes a few seconds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import roving  # noqa: E402
from roving.bench.exp_corpus import generated_shapes  # noqa: E402
from roving.bench.exp_repository import BBItem, make_items  # noqa: E402
from roving.bench.exp_simpleobject import SimpleObject, make_object  # noqa: E402


def documents() -> list[Any]:
    """The corpus files, 1000people and the generated shapes, as Python values."""
    out: list[Any] = []
    for path in [
        ROOT / "data" / "1000people.json",
        *sorted((ROOT / "data" / "corpus").glob("*.json")),
    ]:
        out.append(json.loads(path.read_bytes()))
    out.extend(make() for _, _, make in generated_shapes())
    return out


def train_documents(docs: list[Any], rounds: int) -> None:
    """Big documents: dumps, loads, from_json, to_json, open and lookups."""
    for doc in docs:
        text = json.dumps(doc).encode()
        for _ in range(rounds):
            blob = roving.dumps(doc)
            assert roving.loads(blob) == doc
            assert roving.loads(roving.from_json(text)) == doc
        roving.to_json(blob)
        view = roving.open(blob, validate=True)
        if isinstance(doc, list) and doc:
            for i in range(0, len(doc), max(1, len(doc) // 200)):
                item = view[i]
                if isinstance(doc[i], dict):
                    for key in list(doc[i])[:4]:
                        item[key]  # noqa: B018 (a lookup is the point)
        elif isinstance(doc, dict):
            for key in list(doc)[:200]:
                view[key]  # noqa: B018


@dataclasses.dataclass
class Record:
    """A small typed record with a nested list, a datetime and an optional."""

    id: int
    name: str
    score: float
    tags: list[str]
    when: dt.datetime
    note: str | None = None


def train_small(rounds: int) -> None:
    """Small documents: typed and untyped, with and without a dictionary."""
    obj = make_object()
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    records = [
        Record(i, f"name {i}", i / 7, ["a", "b", str(i)], now, None if i % 2 else "x")
        for i in range(64)
    ]
    plain = [dataclasses.asdict(r) for r in records]
    d = roving.Dictionary()
    roving.dumps(obj, dictionary=d)
    roving.dumps(records[0], dictionary=d)
    enc, dec = roving.Encoder(), roving.Decoder(SimpleObject)
    encd, decd = roving.Encoder(dictionary=d), roving.Decoder(SimpleObject, dictionary=d)
    rdec = roving.Decoder(Record, dictionary=d)
    for _ in range(rounds):
        assert dec.decode(enc.encode(obj)) == obj
        assert decd.decode(encd.encode(obj)) == obj
        assert roving.loads(roving.dumps(obj), type=SimpleObject) == obj
        assert roving.loads(roving.dumps(obj, dictionary=d), dictionary=d, type=SimpleObject) == obj
        for r, p in zip(records, plain, strict=True):
            assert rdec.decode(encd.encode(r)) == r
            assert roving.loads(roving.dumps(p)) == p
    big = roving.dumps(records)
    for _ in range(rounds // 10 + 1):
        assert roving.loads(big, type=list[Record]) == records


def train_store_and_streams(rounds: int) -> None:
    """The Store (put, flush, get, views) and record streams."""
    items = make_items(2000)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "store")
        with roving.Store(path, type=BBItem) as s:
            for k, v in items.items():
                s[k] = v
            s.flush()
        keys = list(items)
        with roving.Store(path, readonly=True, type=BBItem) as s:
            for _ in range(rounds):
                for k in keys[::7]:
                    assert s[k] == items[k]
                    s.view(k)
        buf = io.BytesIO()
        w = roving.Writer(buf)
        for v in list(items.values())[:500]:
            w.write(dataclasses.asdict(v))
        w.close()
        assert sum(1 for _ in roving.iter_load(io.BytesIO(buf.getvalue()))) == 500


def main() -> None:
    rounds = int(os.environ.get("ROVING_PGO_ROUNDS", "3"))
    train_documents(documents(), rounds)
    train_small(rounds * 300)
    train_store_and_streams(rounds)


if __name__ == "__main__":
    main()
