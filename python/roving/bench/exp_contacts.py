"""Experiment 5, seed 003: a Contacts object with two sets of strings.

The seed serialized a Java ``Contacts`` (two ``Set<String>``) with
Serializable (1133 ms / 506 ms), Externalizable the wrong way (737 / 367 ms)
and the right way (204 / 92 ms). Here the same object is a dataclass with
two ``set[str]``: 150 emails and 99,999 phones, serialized and deserialized
by each contender, and checked equal after the round trip.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .harness import Config, Experiment, Table, fmt_bytes, fmt_ratio, fmt_timing
from .peers import RovingMissing, optional, roving_module

NAME = "contacts"


@dataclass
class Contacts:
    """The seed's Contacts: two sets of strings."""

    emails: set[str]
    phones: set[str]


def make_contacts(n_emails: int = 150, n_phones: int = 100_000) -> Contacts:
    """Emails ``email.{i}@ext.com`` for i in 0..149 and phones for i in 1..99999,
    as the seed's Java test builds them."""
    emails = {f"email.{i}@ext.com" for i in range(n_emails)}
    phones = set()
    for i in range(1, n_phones):
        if i % 2 == 0:
            phones.add(str(600000000 + i))
        else:
            phones.add("+" + str(100 // i) + str(600000000 + i))
    return Contacts(emails, phones)


def _as_dict(c: Contacts) -> dict[str, list[str]]:
    return {"emails": list(c.emails), "phones": list(c.phones)}


def _from_dict(d: dict[str, Any]) -> Contacts:
    return Contacts(set(d["emails"]), set(d["phones"]))


def run(cfg: Config) -> Experiment:
    n_phones = 10_000 if cfg.quick else 100_000
    exp = Experiment(
        NAME,
        "contacts (seed 003): two sets of strings",
        "003",
        f"A `Contacts` dataclass with `emails: set[str]` (150) and `phones: set[str]` ({n_phones - 1:,}), "
        "serialized and deserialized back to a `Contacts`; every contender's result is checked equal first. "
        "Formats without sets write lists and rebuild the sets on load (inside the timing). "
        "Seed 003 (Java): Serializable 1133 ms / 506 ms, Externalizable (right way) 204 ms / 92 ms.",
        cfg,
    )
    exp.params = {"emails": 150, "phones": n_phones - 1}
    contacts = make_contacts(150, n_phones)

    cands: list[tuple[str, Callable[[Contacts], bytes], Callable[[bytes], Contacts], str]] = []
    cands.append(
        (
            "pickle",
            lambda c: pickle.dumps(c, protocol=5),
            pickle.loads,
            "the object itself (sets native)",
        )
    )
    import json

    cands.append(
        (
            "json",
            lambda c: json.dumps(_as_dict(c), separators=(",", ":")).encode(),
            lambda b: _from_dict(json.loads(b)),
            "lists",
        )
    )
    orjson = optional("orjson")
    if orjson is not None:
        cands.append(
            (
                "orjson",
                lambda c: orjson.dumps(c, default=list),
                lambda b: _from_dict(orjson.loads(b)),
                "dataclass, sets via default=list",
            )
        )
    else:
        exp.skip("orjson", "not installed (pip install orjson)")
    msgspec = optional("msgspec")
    if msgspec is not None:
        je, jd = msgspec.json.Encoder(), msgspec.json.Decoder(Contacts)
        me, md = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(Contacts)
        cands.append(("msgspec.json", je.encode, jd.decode, "typed: decodes to Contacts"))
        cands.append(("msgspec.msgpack", me.encode, md.decode, "typed: decodes to Contacts"))
    else:
        exp.skip("msgspec", "not installed (pip install msgspec)")
    msgpack = optional("msgpack")
    if msgpack is not None:
        cands.append(
            (
                "msgpack",
                lambda c: msgpack.packb(_as_dict(c)),
                lambda b: _from_dict(msgpack.unpackb(b)),
                "lists",
            )
        )
    else:
        exp.skip("msgpack", "not installed (pip install msgpack)")
    ormsgpack = optional("ormsgpack")
    if ormsgpack is not None:
        cands.append(
            (
                "ormsgpack",
                lambda c: ormsgpack.packb(c, default=list),
                lambda b: _from_dict(ormsgpack.unpackb(b)),
                "dataclass, sets via default=list",
            )
        )
    else:
        exp.skip("ormsgpack", "not installed (pip install ormsgpack)")
    cbor2 = optional("cbor2")
    if cbor2 is not None:
        cands.append(
            (
                "cbor2",
                lambda c: cbor2.dumps({"emails": c.emails, "phones": c.phones}),
                lambda b: Contacts(**cbor2.loads(b)),
                "sets native (tag 258)",
            )
        )
    else:
        exp.skip("cbor2", "not installed (pip install cbor2)")

    try:
        rv = roving_module()
    except RovingMissing as e:
        exp.skip("roving", str(e))
        rv = None
    if rv is not None:
        cands.append(
            (
                "roving (dict)",
                lambda c: rv.dumps(_as_dict(c)),
                lambda b: _from_dict(rv.loads(b)),
                "lists",
            )
        )
        cands.append(
            (
                "roving (dataclass)",
                lambda c: rv.dumps(c),
                lambda b: rv.loads(b, type=Contacts),
                "sets written as arrays; typed: decodes to Contacts",
            )
        )

    rows: list[tuple[str, Any, Any, int | None, str]] = []
    for name, enc, dec, how in cands:
        if not exp.verify(name, contacts, lambda enc=enc, dec=dec: dec(enc(contacts))):  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
            continue
        blob = enc(contacts)
        ts = exp.time(name, "serialize", lambda enc=enc: enc(contacts))  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
        td = exp.time(name, "deserialize", lambda dec=dec, blob=blob: dec(blob))  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
        exp.size(name, "size", len(blob))
        rows.append((name, ts, td, len(blob), how))

    base = next((r for r in rows if r[0] == "pickle"), None)
    t = Table(
        "Contacts: serialize and deserialize",
        [
            "contender",
            "serialize",
            "deserialize",
            "bytes",
            "ser vs pickle",
            "deser vs pickle",
            "how",
        ],
        align=["l", "r", "r", "r", "r", "r", "l"],
    )
    for name, ts, td, size, how in rows:
        rs = base[1].median / ts.median if base and ts and base[1] else None
        rd = base[2].median / td.median if base and td and base[2] else None
        t.add(
            name,
            fmt_timing(ts),
            fmt_timing(td),
            fmt_bytes(size),
            fmt_ratio(rs),
            fmt_ratio(rd),
            how,
        )
    t.notes.append(
        "Ratios are pickle's time divided by the contender's (above 1x is faster than pickle)."
    )
    exp.tables.append(t)
    exp.chart.append(("serialize", [(r[0], r[1].median if r[1] else None) for r in rows]))
    exp.chart.append(("deserialize", [(r[0], r[2].median if r[2] else None) for r in rows]))
    return exp
