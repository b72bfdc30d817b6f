"""Refcount and memory leak checks: 100,000 rounds of every operation."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import gc
import os
import sys
import uuid
from typing import Any

import pytest
import roving


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclasses.dataclass
class Rec:
    name: str
    n: int
    when: dt.datetime
    tags: list[str]
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)


def sample() -> Any:
    shared = {"s": "shared"}
    return {
        "name": "Ada Lovelace",
        "n": 2**70,
        "f": 1.25,
        "when": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        "naive": dt.datetime(2024, 1, 2),
        "day": dt.date(2024, 1, 2),
        "id": uuid.UUID(int=12345),
        "price": decimal.Decimal("9.99"),
        "tags": ["a", "b", "c"],
        "raw": b"\x00\x01\x02",
        "ext": roving.Ext(99, b"x"),
        "a": shared,
        "b": shared,
        "t": (1, 2),
    }


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_no_leak_over_100000_rounds() -> None:
    obj = sample()
    data = roving.dumps(obj)
    rec_bytes = roving.dumps({"name": "x", "n": 1, "when": obj["when"], "tags": ["t"]})
    bad = data[:-3]
    wrong = roving.dumps({"name": 1})
    cyc: list[Any] = []
    cyc.append(cyc)

    def one_round(i: int) -> None:
        b = roving.dumps(obj)
        assert roving.loads(b)["name"] == "Ada Lovelace"
        assert roving.loads(rec_bytes, type=Rec).n == 1
        if i % 4 == 0:
            doc = roving.open(data)
            v = doc.root
            assert v["tags"][1] == "b" and v["a"] == {"s": "shared"}
            list(v.items())
            v.to_json()
            doc.close()
        if i % 8 == 0:
            for f in (
                lambda: roving.loads(bad),
                lambda: roving.loads(wrong, type=Rec),
                lambda: roving.dumps(cyc),
                lambda: roving.dumps({"x": complex(1, 2)}),
            ):
                try:
                    f()
                except roving.RovingError:
                    pass
            roving.from_json(b'{"a": [1, 2, 3]}')

    for i in range(2000):
        one_round(i)
    gc.collect()
    before = rss()
    refs_none = sys.getrefcount(None)
    for i in range(100_000):
        one_round(i)
    gc.collect()
    growth = rss() - before
    assert growth < 8 * 1024 * 1024, f"RSS grew by {growth / 1e6:.1f} MB"
    assert abs(sys.getrefcount(None) - refs_none) < 100


def test_refcounts_of_inputs_are_unchanged() -> None:
    obj = sample()
    key = "a key that is not interned by anyone else " * 2
    val = ["value"]
    d = {key: val}
    before = (sys.getrefcount(obj), sys.getrefcount(key), sys.getrefcount(val), sys.getrefcount(d))
    for _ in range(1000):
        roving.dumps(obj)
        roving.dumps(d)
        try:
            roving.dumps({key: [object()]})
        except roving.EncodeError:
            pass
    assert (
        sys.getrefcount(obj),
        sys.getrefcount(key),
        sys.getrefcount(val),
        sys.getrefcount(d),
    ) == before
