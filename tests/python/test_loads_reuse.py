"""loads with its per-thread tables (shapes, keys, the memo of shared
containers) kept between calls and its cache of key strings: the value of a
call never depends on earlier calls, on a call that failed half-way, or on a
loads run inside another's conversion."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import roving
from conftest import same

# Keys that share an entry of the key cache, and some that do not.
COLLIDING = ["name", "tags"]


def _doc(i: int) -> dict[str, Any]:
    shared = {"id": i, "label": f"s{i}"}
    return {
        "name": f"n{i}",
        "tags": [f"t{i}", "common"],
        "age": i,
        "pair": [shared, shared],
        f"only_{i % 3}": i,
    }


def test_alternating_documents_decode_as_alone(people: Any) -> None:
    small = [roving.dumps(_doc(i)) for i in range(20)]
    big = roving.dumps(people)
    expected_small = [_doc(i) for i in range(20)]
    for round_ in range(3):
        for i, b in enumerate(small):
            same(roving.loads(b), expected_small[i])
            if i % 7 == round_:
                same(roving.loads(big), people)


def test_shared_containers_are_not_taken_from_an_earlier_document() -> None:
    # Both documents reference a container at the same offset twice: the
    # second must get its own (the memo of the first is emptied).
    a = roving.loads(roving.dumps(_doc(1)))
    b = roving.loads(roving.dumps(_doc(2)))
    assert a["pair"][0] is a["pair"][1]
    assert b["pair"][0] is b["pair"][1]
    assert b["pair"][0] is not a["pair"][0]
    assert b["pair"][0] == {"id": 2, "label": "s2"}


def test_colliding_keys_are_the_same_interned_strings() -> None:
    docs = [roving.loads(roving.dumps({k: 1 for k in COLLIDING})) for _ in range(3)]
    for d in docs:
        assert list(d) == COLLIDING
    for k0, k1 in zip(docs[0], docs[2], strict=True):
        assert k0 is k1


def test_many_distinct_keys_through_the_key_cache() -> None:
    # More short keys than the cache holds, in many documents: every key
    # comes back right, whatever the cache evicted.
    keys = [f"k{i}" for i in range(2000)]
    for start in range(0, 2000, 50):
        d = {k: i for i, k in enumerate(keys[start : start + 50])}
        assert roving.loads(roving.dumps(d)) == d


@dataclasses.dataclass
class Checked:
    meta: dict[str, Any]
    n: int


def test_an_error_mid_document_then_a_good_one() -> None:
    # The dict field fills the tables (shapes, keys, memo), then the int
    # field fails: the next calls start clean.
    bad = roving.dumps({"meta": _doc(7), "n": "not an int"})
    for i in range(3):
        with pytest.raises(roving.ValidationError, match="n"):
            roving.loads(bad, type=Checked)
        same(roving.loads(roving.dumps(_doc(i))), _doc(i))
        got = roving.loads(roving.dumps({"meta": _doc(i), "n": i}), type=Checked)
        same(got.meta, _doc(i))
        assert got.n == i


@dataclasses.dataclass
class Inner:
    raw: bytes
    decoded: Any = None

    def __post_init__(self) -> None:
        # loads inside the conversion of the outer document.
        self.decoded = roving.loads(self.raw)


@dataclasses.dataclass
class Outer:
    meta: dict[str, Any]
    inner: list[Inner]
    more: dict[str, Any]


def test_loads_inside_a_conversion() -> None:
    inner_docs = [roving.dumps(_doc(i)) for i in range(4)]
    outer = {
        "meta": _doc(10),
        "inner": [{"raw": b} for b in inner_docs],
        "more": _doc(11),
    }
    for _ in range(3):
        got = roving.loads(roving.dumps(outer), type=Outer)
        same(got.meta, _doc(10))
        same(got.more, _doc(11))
        for i, item in enumerate(got.inner):
            same(item.decoded, _doc(i))
    # And untyped afterwards, on the same thread's tables.
    same(roving.loads(roving.dumps(outer)), outer)
