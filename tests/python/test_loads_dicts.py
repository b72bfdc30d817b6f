"""The dicts loads builds: a record whose shape recurs is a copy of a
template dict of its keys, filled in place on CPython 3.11 (each value
written into its entry). They must be ordinary dicts in every way: the same
items in the same order, each key found, mutable, tracked by the garbage
collector exactly when a dict built with ``dict[key] = value`` would be,
and holding one reference to each value."""

from __future__ import annotations

import gc
import json
import sys
import weakref
from typing import Any

import roving

# Eight keys (templates serve shapes of six keys or more, from their
# second map on), values of each kind loads makes.
KEYS = ["id", "name", "score", "ok", "none", "tags", "friend", "when"]


def _record(i: int) -> dict[str, Any]:
    return {
        "id": i,
        "name": f"person {i}",
        "score": i / 4,
        "ok": i % 2 == 0,
        "none": None,
        "tags": [f"t{i}", "common"] if i % 3 else [],
        "friend": {"id": i + 1, "name": f"friend {i}"} if i % 4 else {"id": i},
        "when": 10**20 + i,
    }


def _walk(x: Any) -> Any:
    """Yields every dict of ``x``, depth first."""
    if isinstance(x, dict):
        yield x
        for v in x.values():
            yield from _walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from _walk(v)


def test_template_dicts_equal_dicts_built_by_setitem() -> None:
    records = [_record(i) for i in range(50)]
    out = roving.loads(roving.dumps(records))
    assert out == records
    for got, want in zip(out, records, strict=True):
        assert list(got) == KEYS
        assert list(got.items()) == list(want.items())
        for k in KEYS:
            assert got[k] == want[k] and k in got and got.get(k) == want[k]
        assert "missing" not in got


def test_template_dicts_are_tracked_like_setitem_dicts(people: Any) -> None:
    for data in ([_record(i) for i in range(50)], people):
        loaded = roving.loads(roving.dumps(data))
        # json.loads builds each dict with PyDict_SetItem.
        reference = json.loads(json.dumps(data))
        got = [gc.is_tracked(d) for d in _walk(loaded)]
        want = [gc.is_tracked(d) for d in _walk(reference)]
        assert got == want
        assert any(got) and not all(got)


def test_a_cycle_through_a_loaded_dict_is_collected() -> None:
    class Marker:
        pass

    loaded = roving.loads(roving.dumps([_record(i) for i in range(20)]))
    rec = loaded[7]
    marker = Marker()
    alive = weakref.ref(marker)
    rec["tags"].append(marker)
    rec["tags"].append(rec)  # rec -> its tags -> rec
    del loaded, rec, marker
    gc.collect()
    assert alive() is None


def test_template_dicts_can_be_changed() -> None:
    loaded = roving.loads(roving.dumps([_record(i) for i in range(10)]))
    d = loaded[5]
    d["extra"] = 1
    del d["name"]
    d["id"] = "changed"
    for i in range(100):
        d[f"k{i}"] = i
    assert d["id"] == "changed" and "name" not in d and d["k99"] == 99
    assert list(d)[:7] == [k for k in KEYS if k != "name"]
    # The other records (copies of the same template) are untouched.
    assert loaded[4] == _record(4) and loaded[6] == _record(6)


def test_values_of_template_dicts_hold_one_reference() -> None:
    loaded = roving.loads(roving.dumps([_record(i) for i in range(10)]))
    d = loaded[3]
    # The dict's reference and getrefcount's argument (counted outside the
    # assert, whose rewriting by pytest keeps its operands).
    counts = {k: sys.getrefcount(d[k]) for k in ("name", "score", "tags", "friend", "when")}
    assert counts == dict.fromkeys(counts, 2)


def test_loads_keeps_the_reference_count_of_none() -> None:
    # Each template copy starts with None values, which the fill replaces.
    data = roving.dumps([_record(i) for i in range(200)])
    roving.loads(data)
    before = sys.getrefcount(None)
    for _ in range(200):
        roving.loads(data)
    assert abs(sys.getrefcount(None) - before) < 50
