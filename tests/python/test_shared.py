"""Shared references, cycles, deep nesting and expansion limits."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import pytest
import roving


def test_shared_object_is_stored_once_and_comes_back_shared() -> None:
    inner = {"big": "x" * 1000, "list": list(range(100))}
    data = [inner, inner, {"again": inner}]
    b = roving.dumps(data)
    single = roving.dumps([inner])
    assert len(b) < len(single) + 100  # the second and third occurrence are references
    back = roving.loads(b)
    assert back == data
    assert back[0] is back[1] is back[2]["again"]
    back[0]["new"] = 1
    assert back[1]["new"] == 1


def test_shared_lists_tuples_and_dataclasses() -> None:
    @dataclasses.dataclass
    class P:
        x: int

    lst = [1, 2]
    tup = (3, 4)
    p = P(5)
    back = roving.loads(roving.dumps({"a": lst, "b": lst, "c": tup, "d": tup, "e": p, "f": p}))
    assert back["a"] is back["b"]
    assert back["c"] is back["d"]
    assert back["e"] is back["f"] and back["e"] == {"x": 5}


def test_equal_but_distinct_objects_are_not_merged() -> None:
    back = roving.loads(roving.dumps([[1, 2], [1, 2]]))
    assert back == [[1, 2], [1, 2]]
    assert back[0] is not back[1]


def test_shared_numpy_array() -> None:
    np = pytest.importorskip("numpy")
    a = np.arange(10.0)
    back = roving.loads(roving.dumps([a, a]))
    assert back[0] is back[1]
    assert np.array_equal(back[0], a)


def test_cycles_raise_with_the_path() -> None:
    a: list[Any] = [1]
    a.append(a)
    with pytest.raises(roving.EncodeError, match=r"cycle.*at \$\[1\]$"):
        roving.dumps(a)
    d: dict[str, Any] = {"x": {"y": []}}
    d["x"]["y"].append(d)
    with pytest.raises(roving.EncodeError, match=r"cycle.*at \$\.x\.y\[0\]$"):
        roving.dumps(d)

    @dataclasses.dataclass
    class Node:
        next: Any = None

    n = Node()
    n.next = Node(n)
    with pytest.raises(roving.EncodeError, match=r"cycle.*at \$\.next\.next$"):
        roving.dumps(n)


def test_cycle_through_an_unreferenced_entry_point() -> None:
    # The cycle is reached through an object whose only other reference is the cycle.
    a: list[Any] = []
    b: list[Any] = [a]
    a.append(b)
    holder = [b]
    del a, b
    with pytest.raises(roving.EncodeError, match="cycle"):
        roving.dumps(holder)


def nest(depth: int) -> Any:
    x: Any = 0
    for _ in range(depth):
        x = [x]
    return x


def test_deep_nesting_is_a_clean_error() -> None:
    ok = nest(roving.MAX_DEPTH - 1)
    assert roving.loads(roving.dumps(ok)) is not None
    with pytest.raises(roving.EncodeError, match="depth"):
        roving.dumps(nest(roving.MAX_DEPTH + 10))
    d: dict[str, Any] = {}
    cur = d
    for _ in range(roving.MAX_DEPTH + 10):
        cur["a"] = {}
        cur = cur["a"]
    with pytest.raises(roving.EncodeError, match="depth"):
        roving.dumps(d)


def test_empty_containers_count_as_a_level_of_nesting() -> None:
    # An empty list or dict at the bottom is a level like any other:
    # dumps writes MAX_DEPTH levels (as deep as loads reads) and refuses
    # one more, whatever the bottom is.
    def levels(n: int, leaf: Any, wrap: Any) -> Any:
        x = leaf
        for _ in range(n - (1 if isinstance(leaf, (list, dict)) else 0)):
            x = wrap(x)
        return x

    for leaf in ([], {}, 0):
        for wrap in (lambda x: [x], lambda x: {"k": x}):
            assert roving.dumps(levels(roving.MAX_DEPTH, leaf, wrap))
            with pytest.raises(roving.EncodeError, match="depth"):
                roving.dumps(levels(roving.MAX_DEPTH + 1, leaf, wrap))


def test_from_json_nests_as_deep_as_loads_and_to_json() -> None:
    # from_json, loads and to_json share one depth limit (MAX_DEPTH): what
    # from_json makes, loads and to_json take back; deeper JSON is refused
    # up front, cleanly.
    def nested(n: int) -> bytes:
        return b"[" * n + b"]" * n

    doc = roving.from_json(nested(roving.MAX_DEPTH))
    assert roving.to_json(doc) == nested(roving.MAX_DEPTH)
    x = roving.loads(doc)
    for _ in range(roving.MAX_DEPTH - 1):
        x = x[0]
    assert x == []
    assert roving.open(doc).to_json() == nested(roving.MAX_DEPTH)
    for n in (roving.MAX_DEPTH + 1, 50_000, 1_000_000):
        with pytest.raises(roving.DecodeError, match="levels"):
            roving.from_json(nested(n))


@pytest.mark.parametrize("stack_kb", [256, 1024, 16 * 1024])
def test_deep_nesting_in_threads_with_small_stacks(stack_kb: int) -> None:
    # Threads may have small stacks: every recursive conversion must stop
    # with a clean error before the stack runs out, never crash.
    x = nest(roving.MAX_DEPTH - 1)
    b = roving.dumps(x)
    ops = {
        "dumps": lambda: roving.dumps(x),
        "loads": lambda: roving.loads(b),
        "typed": lambda: roving.loads(b, type=list[Any]),
        "to_python": lambda: roving.open(b).to_python(),
        "eq": lambda: roving.open(b).root == x,
    }
    out: dict[str, Any] = {}

    def work() -> None:
        for name, op in ops.items():
            try:
                op()
                out[name] = "ok"
            except roving.RovingError as e:
                out[name] = e

    old = threading.stack_size()
    threading.stack_size(stack_kb * 1024)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert set(out) == set(ops)
    for name, r in out.items():
        assert r == "ok" or "depth" in str(r), (name, r)
    if stack_kb >= 16 * 1024:
        assert all(r == "ok" for r in out.values()), out


def exponential_doc(levels: int) -> bytes:
    """A small document whose tree expands to 2**levels leaves."""
    x: Any = ["leaf"]
    for _ in range(levels):
        x = [x, x]
    return roving.dumps(x)


def test_shared_subtrees_do_not_explode_loads() -> None:
    b = exponential_doc(60)  # 2**60 leaves as a tree
    assert len(b) < 5000
    back = roving.loads(b)  # shared objects, linear work
    node = back
    for _ in range(60):
        assert node[0] is node[1]
        node = node[0]


def test_shared_subtrees_hit_the_expansion_limit_in_to_json() -> None:
    b = exponential_doc(60)
    with pytest.raises(roving.DecodeError, match="expansion|limit"):
        roving.to_json(b)
    with pytest.raises(roving.DecodeError, match="expansion|limit"):
        roving.open(b).to_json()


def test_shared_subtrees_in_typed_decoding() -> None:
    b = exponential_doc(60)
    back = roving.loads(b, type=list[Any])
    assert back[0] is back[1]


def test_issue_sized_shared_document() -> None:
    # Issue 6's case: a document of at most 1,000 bytes with 40 levels of
    # shared subtrees (2**40 leaves as a tree): loads shares objects,
    # to_json stops at the expansion limit with a clear error.
    b = exponential_doc(40)
    assert len(b) <= 1000
    back = roving.loads(b)
    assert back[0] is back[1]
    with pytest.raises(roving.DecodeError, match="expansion|limit"):
        roving.to_json(b)


def test_shared_subtrees_compare_with_python_objects_in_linear_time() -> None:
    # A view of 2**60 paths against Python objects shared the same way:
    # pairs found equal are remembered, so each distinct pair is compared
    # once (without that, this would not finish).
    b = exponential_doc(60)
    view = roving.open(b).root
    same: Any = ["leaf"]
    # Differs only at the last leaf of the last branch: every left branch
    # is equal (and remembered), the difference is found at the bottom.
    differs: Any = ["other"]
    for _ in range(60):
        differs = [same, differs]
        same = [same, same]
    assert view == same
    assert view == roving.loads(b)
    assert view != differs
    assert not (view == differs)


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def shared_bytes_doc(payload: bytes, places: int) -> bytes:
    """An array of `places` references to one byte string (dumps writes
    each bytes object anew, so this is built by hand): the header, the
    bytes record at offset 3, an array of 1-byte absolute references to it
    (slot 3 << 2 | 2), and a root of width 4 referring to the array."""
    doc = bytearray(b"RV\x01")
    doc += b"\x0d" + varint(len(payload)) + payload
    array = len(doc)
    doc += b"\x10" + varint(places) + bytes([3 << 2 | 2]) * places
    root = (array << 2 | 2).to_bytes(4, "little")
    doc += b"\x1e" + root + b"\x1e"
    roving.validate(doc)
    return bytes(doc)


def test_a_long_string_at_many_places_hits_the_expansion_limit() -> None:
    # Containers are shared as objects, but each place of a long string
    # gets a str of its own: its length counts against the limit, as in
    # the Rust converters (a value per 16 bytes). Without
    # that, this 150 KB document needs 5 GB of strings.
    b = roving.dumps(["x" * 50_000] * 100_000)
    assert len(b) < 200_000
    with pytest.raises(roving.DecodeError, match="expansion"):
        roving.loads(b)
    with pytest.raises(roving.DecodeError, match="expansion"):
        roving.loads(b, type=list[str])
    raw = shared_bytes_doc(b"y" * 50_000, 100_000)
    assert len(raw) < 200_000
    with pytest.raises(roving.DecodeError, match="expansion"):
        roving.loads(raw)
    with pytest.raises(roving.DecodeError, match="expansion"):
        roving.loads(raw, type=list[bytes])
    # A few hundred places of a long string convert.
    ok = ["z" * 5_000] * 300
    assert roving.loads(roving.dumps(ok)) == ok
