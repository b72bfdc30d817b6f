"""dumps with its per-thread encoder and tables kept between calls, ints read
from the object (CPython 3.11), dicts read through a pointer cursor: the
bytes of a call never depend on earlier calls, on re-entrant calls from a
``default`` hook, or on what a hook did to the containers being written."""

from __future__ import annotations

import json
from typing import Any

import pytest
import roving
from conftest import same


class Marker:
    """An object only a ``default`` hook can write."""


def _ints() -> list[int]:
    # Made at run time (not the small-int cache, not constants), around the
    # one- and two-digit limits of 30-bit digits and the 64-bit limits.
    out = []
    for b in [0, 1, 7, 29, 30, 31, 59, 60, 61, 62, 63, 64, 65, 90, 200]:
        p = int("1" + "0" * b, 2)
        out += [p - 1, p, p + 1, -(p - 1), -p, -(p + 1)]
    return out + [int(str(i)) for i in range(-6, 260)]


def test_ints_around_the_digit_limits() -> None:
    ints = _ints()
    for n in ints:
        same(roving.loads(roving.dumps(n)), n)
        # Inside the containers that have their own int paths.
        assert roving.dumps([n]) == roving.from_json(json.dumps([n]))
        assert roving.dumps({"k": n}) == roving.from_json(json.dumps({"k": n}))
    same(roving.loads(roving.dumps(ints)), ints)
    same(roving.loads(roving.dumps(tuple(ints))), ints)
    same(
        roving.loads(roving.dumps({str(i): n for i, n in enumerate(ints)})),
        {str(i): n for i, n in enumerate(ints)},
    )


def test_int_subclasses_are_written_as_their_value() -> None:
    class Odd(int):
        # None of these may be consulted: the value is the int's own.
        def __index__(self) -> int:
            raise AssertionError("__index__ called")

        def __int__(self) -> int:
            raise AssertionError("__int__ called")

        def __eq__(self, other: object) -> bool:
            return False

        __hash__ = int.__hash__

    for n in _ints():
        o = Odd(n)
        want = roving.dumps(n)
        assert roving.dumps(o) == want
        assert roving.dumps([o]) == roving.dumps([n])
        assert roving.dumps({"k": o}) == roving.dumps({"k": n})


def test_bools_stay_bools() -> None:
    x = [True, 1, False, 0, {"t": True, "one": 1, "f": False, "zero": 0}, (True, 1)]
    same(
        roving.loads(roving.dumps(x)),
        [True, 1, False, 0, {"t": True, "one": 1, "f": False, "zero": 0}, [True, 1]],
    )
    assert roving.dumps(True) != roving.dumps(1)
    assert roving.dumps({"a": False}) != roving.dumps({"a": 0})


def test_many_calls_give_the_bytes_of_the_first(people: Any) -> None:
    # More than 256 calls on the thread's kept encoder (its string table's
    # generation wraps), interleaved documents sharing strings and key
    # objects, one large call in between (tables dropped, not kept).
    docs = [people[i : i + 1 + i % 5] for i in range(0, 60)]
    first = [roving.dumps(d) for d in docs]
    big = {f"key{i}": [f"v{i}", i] for i in range(40_000)}
    big_bytes = roving.dumps(big)
    for rnd in range(12):
        for i, d in enumerate(docs):
            assert roving.dumps(d) == first[i], (rnd, i)
        if rnd % 4 == 0:
            assert roving.dumps(big) == big_bytes
    # The JSON converter (its own fresh encoder) agrees.
    for i in range(0, 60, 7):
        assert roving.from_json(json.dumps(docs[i])) == first[i]


def test_an_error_mid_call_leaves_nothing_behind(people: Any) -> None:
    doc = people[:20]
    want = roving.dumps(doc)
    for _ in range(5):
        with pytest.raises(roving.EncodeError):
            roving.dumps([doc, {"bad": complex(1, 2)}])
        with pytest.raises(ZeroDivisionError):
            roving.dumps([doc, Marker()], default=lambda o: 1 / 0)
        assert roving.dumps(doc) == want


def test_reentrant_dumps_in_hooks_gives_the_substituted_bytes(people: Any) -> None:
    # Hooks that call dumps (on documents whose key objects are the outer
    # document's) at several depths, inside dicts and lists: the result is
    # byte for byte the document with the hooks' results in place.
    inner_docs = [people[10 + i : 12 + i] for i in range(6)]
    results = [roving.loads(roving.dumps({"inner": d, "n": i})) for i, d in enumerate(inner_docs)]
    calls: list[int] = []

    def default(o: Any) -> Any:
        i = len(calls)
        calls.append(i)
        # Nested calls, one of which fails and one of which nests again.
        with pytest.raises(roving.EncodeError):
            roving.dumps({"x": complex(1, 2)})
        roving.dumps([Marker()], default=lambda _: roving.loads(roving.dumps(people[:3])))
        return roving.loads(roving.dumps({"inner": inner_docs[i], "n": i}))

    def build(hole: Any) -> Any:
        return {
            "head": people[:5],
            "a": hole(0),
            "mid": [people[5], {"deep": [hole(1), people[6]], "k": hole(2)}],
            "b": [hole(3), {"name": "x", "c": hole(4)}],
            "tail": {**people[7], "h": hole(5)},
        }

    got = roving.dumps(build(lambda i: Marker()), default=default)
    assert calls == list(range(6))
    assert got == roving.dumps(build(lambda i: results[i]))


@pytest.mark.parametrize("where", ["dict", "list"])
@pytest.mark.parametrize("change", ["grow", "clear", "replace"])
def test_hook_changing_an_outer_container(where: str, change: str) -> None:
    # The hook runs inside a nested dict (written straight from its parent
    # dict or list) and changes the parent: the parent's cursor is re-read
    # after the nested value, as PyDict_Next would see it.
    outer_d: dict[str, Any] = {f"k{i}": i for i in range(5)}
    outer_l: list[Any] = [0, 1, 2]

    def default(o: Any) -> Any:
        target: Any = outer_d if where == "dict" else outer_l
        if change == "grow":
            if where == "dict":
                outer_d.update({f"new{i}": i for i in range(500)})
            else:
                outer_l.extend(range(500))
        elif change == "clear":
            target.clear()
        else:
            target.clear()
            if where == "dict":
                outer_d.update({f"other{i}": [i] for i in range(40)})
            else:
                outer_l.extend([[i] for i in range(40)])
        return "hooked"

    nested = {"a": 1, "hook": Marker(), "b": [2]}
    if where == "dict":
        outer_d["nested"] = nested
        outer_d.update({f"after{i}": i for i in range(3)})
        out = roving.loads(roving.dumps(outer_d, default=default))
        assert isinstance(out, dict)
        assert out["nested"] == {"a": 1, "hook": "hooked", "b": [2]}
        assert [k for k in out if k.startswith("k")] == [f"k{i}" for i in range(5)]
        for k, v in out.items():
            if k != "nested" and k in outer_d:
                assert outer_d[k] == v
    else:
        outer_l.append(nested)
        outer_l.extend([3, 4])
        out = roving.loads(roving.dumps(outer_l, default=default))
        assert isinstance(out, list)
        assert out[:4] == [0, 1, 2, {"a": 1, "hook": "hooked", "b": [2]}]
    # The thread's encoder is sound afterwards.
    same(roving.loads(roving.dumps({"after": [1, "x"]})), {"after": [1, "x"]})


def test_hook_mutating_a_dict_it_is_given() -> None:
    # A dict value that a hook (for a later item) changes before it is
    # written: the values written are the dict's at the time it is reached.
    later: dict[str, Any] = {"x": 1}

    def default(o: Any) -> Any:
        later["x"] = 2
        later.update({f"y{i}": i for i in range(100)})
        return None

    out = roving.loads(roving.dumps([Marker(), later], default=default))
    same(out, [None, {"x": 2, **{f"y{i}": i for i in range(100)}}])
