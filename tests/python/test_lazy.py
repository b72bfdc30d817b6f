"""roving.open() is O(1) and lazily checked by default: point operations
check what they read and raise DecodeError on malformed bytes; operations
on whole values validate the document first (once); validate=True checks
everything at open."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest
import roving

# Accessors of a view, each applied to the views of a lazy and of a
# validated document: the answers must be the same.


def answers(v: Any, depth: int = 0) -> Any:
    """Everything the point accessors say about `v`, recursively (a few
    children per level), as plain data."""
    if not isinstance(v, roving.View):
        return ("value", type(v).__name__, v)
    out: list[Any] = [v.kind, len(v), bool(v), repr(v), v.offset]
    if depth > 3:
        return out
    if v.kind == "map":
        keys = list(v.keys())
        out.append(keys)
        out.append([k for k in v])
        out.append([k for k, _ in v.items()])
        out.append(list(iter(v.keys()).__length_hint__() for _ in range(1)))
        for k in keys[:6]:
            out.append((k, k in v, answers(v[k], depth + 1), answers(v.get(k), depth + 1)))
        out.append(("nope" in v, v.get("nope", 7), 3 in v))
        with pytest.raises(KeyError):
            v["nope"]
        for x in list(v.values())[:3]:
            out.append(answers(x, depth + 1))
        out.append(v.get_path("nope", "dflt"))
    else:
        n = len(v)
        for i in sorted({0, 1, n // 2, n - 1, -1, -n}):
            if -n <= i < n:
                out.append((i, answers(v[i], depth + 1), answers(v.get(i), depth + 1)))
        out.append(v.get(n, "past"))
        with pytest.raises(IndexError):
            v[n]
        out.append([answers(x, depth + 1) for x in v[1:7:2]])
        out.append([answers(x, depth + 1) for x in list(v)[:4]])
        out.append(v.get_path("[0]", "dflt"))
    return out


def test_lazy_open_answers_like_validated_open(people: Any, people_bytes: bytes) -> None:
    lazy = roving.open(people_bytes)
    valid = roving.open(people_bytes, validate=True)
    trusted = roving.open(people_bytes, trusted=True)
    assert lazy.lazy and not valid.lazy and not trusted.lazy
    assert answers(lazy.root) == answers(valid.root) == answers(trusted.root)
    for i in (0, 123, 500, 999):
        a, b = lazy.root[i], valid.root[i]
        assert answers(a) == answers(b)
        for path in ("name", "friends[1].name", "tags[0]", "nope", "friends[99]"):
            assert a.get_path(path, "d") == b.get_path(path, "d")
        assert lazy.get_path(f"[{i}].name") == people[i]["name"]
    assert len(lazy) == len(valid) == 1000
    assert (people[3]["tags"][0] in lazy.root[3]["tags"]) is True
    # Whole-value operations give the same results...
    assert lazy.root[7].to_python() == valid.root[7].to_python() == people[7]
    assert lazy.root[7].to_json() == valid.root[7].to_json()
    assert lazy.root[7] == people[7] and lazy.root[7] != people[8]
    assert lazy.root[7] == valid.root[7]
    assert lazy.to_json() == valid.to_json()
    assert lazy.to_python() == people
    # ... and validate the document once: it is no longer lazy.
    assert not lazy.lazy
    assert roving.loads(roving.dumps({"p": lazy.root[9]})) == {"p": people[9]}


def test_whole_value_operations_validate_once(people: Any, people_bytes: bytes) -> None:
    doc = roving.open(people_bytes)
    early = doc.root[5]  # taken before the document is validated
    assert doc.lazy
    doc.validate()
    assert not doc.lazy
    doc.validate()  # cheap the second time
    assert early.to_python() == people[5]
    assert early == people[5]
    late = doc.root[6]
    assert late.to_python() == people[6]
    # A view taken lazily, compared after validation by another view.
    doc2 = roving.open(people_bytes)
    v = doc2.root[5]
    v.to_json()
    assert not doc2.lazy
    assert v == early


def test_validate_true_rejects_at_open_what_lazy_defers() -> None:
    good = bytearray(roving.dumps({"a": ["hello", "world"], "b": 1}))
    i = good.index(b"world")
    good[i] = 0xFF  # invalid UTF-8 in a string nothing has read yet
    bad = bytes(good)
    with pytest.raises(roving.DecodeError):
        roving.open(bad, validate=True)
    with pytest.raises(roving.DecodeError):
        roving.validate(bad)
    doc = roving.open(bad)  # O(1): not looked at yet
    assert doc.lazy
    assert doc["b"] == 1
    assert doc["a"][0] == "hello"
    assert len(doc["a"]) == 2
    with pytest.raises(roving.DecodeError) as ei:
        doc["a"][1]
    assert isinstance(ei.value.offset, int)
    assert "UTF-8" in str(ei.value)
    for op in (
        lambda: doc.root.to_python(),
        lambda: doc.to_python(),
        lambda: doc.to_json(),
        lambda: doc["a"].to_json(),
        lambda: doc.root == {"a": ["hello", "world"], "b": 1},
        lambda: "world" in doc["a"],
        lambda: roving.dumps(doc.root),
        lambda: doc.validate(),
        lambda: list(doc["a"]),
        lambda: doc.get_path("a[1]"),
        lambda: doc["a"].get(1),
        lambda: doc["a"][:],
    ):
        with pytest.raises(roving.DecodeError):
            op()
    assert doc.lazy  # failed validation is not cached as success
    with pytest.raises(ValueError):
        roving.open(bad, trusted=True, validate=True)


def test_invalid_utf8_keys_reached_lazily() -> None:
    b = bytearray(roving.dumps({"k\u00e9y": 1, "other": 2}))
    i = b.index("k\u00e9y".encode())
    b[i + 1] = 0xFF  # the key is no longer UTF-8
    doc = roving.open(bytes(b))
    with pytest.raises(roving.DecodeError):
        list(doc.root.keys())
    with pytest.raises(roving.DecodeError):
        list(doc.root.items())
    with pytest.raises(roving.DecodeError):
        list(doc.root)
    with pytest.raises(roving.DecodeError):
        doc.to_python()
    assert doc["other"] == 2  # a lookup compares bytes: other keys still work
    assert "k\u00e9y" not in doc


def test_doubly_shared_document_behaves_as_validated(tmp_path: Path) -> None:
    # 60 levels of [x, x]: a few hundred bytes expanding to 2**60 leaves.
    x: Any = [1, "s", {"k": 2}]
    for _ in range(60):
        x = [x, x]
    data = roving.dumps(x)
    assert len(data) < 10_000

    def outcome(f: Any) -> Any:
        try:
            r = f()
        except roving.RovingError as e:
            return (type(e), str(e))
        return ("ok", type(r))

    today = roving.open(data, validate=True)
    lazy = roving.open(data)
    for name in ("to_python", "to_json"):
        expect = outcome(getattr(today, name))
        assert outcome(getattr(lazy, name)) == expect
        assert outcome(getattr(roving.open(data).root, name)) == expect
        assert outcome(getattr(lazy.root[0][1][0], name)) == outcome(
            getattr(today.root[0][1][0], name)
        )
    # (== against the Python object would walk its 2**60 paths, lazily
    # opened or not: compare against a small value.)
    assert outcome(lambda: lazy.root == [1]) == outcome(lambda: today.root == [1])
    assert outcome(lambda: roving.dumps(lazy.root)) == outcome(lambda: roving.dumps(today.root))
    # Point operations walk the sharing without expanding it.
    v = lazy.root
    for _ in range(60):
        assert len(v) == 2 and v[0].offset == v[1].offset
        v = v[1]
    assert v[2]["k"] == 2
    assert lazy.get_path("[0]" * 60 + "[1]") == "s"


def test_mapped_file_opened_lazily(tmp_path: Path, people: Any, people_bytes: bytes) -> None:
    f = tmp_path / "people.rov"
    f.write_bytes(people_bytes)
    with roving.open(f) as doc:
        assert doc.lazy
        assert doc[123]["name"] == people[123]["name"]
        assert doc.root[999].to_python() == people[999]
    with roving.open(f, validate=True) as doc:
        assert not doc.lazy and doc[5]["name"] == people[5]["name"]
    bad = tmp_path / "bad.rov"
    b = bytearray(people_bytes)
    b[len(b) // 3] ^= 0xFF
    bad.write_bytes(bytes(b))
    with pytest.raises(roving.DecodeError):
        roving.open(bad, validate=True)
    with roving.open(bad) as doc:  # O(1) open of a damaged file
        walk_all(doc)


def test_numpy_vector_views_of_a_lazy_document() -> None:
    np = pytest.importorskip("numpy")
    a = np.arange(100, dtype="<i4")
    doc = roving.open(roving.dumps({"v": a, "n": 1}))
    v = doc["v"]
    assert isinstance(v, np.ndarray) and np.array_equal(v, a) and not v.flags.writeable
    assert (
        list(doc.root["v"][:3]) == [0, 1, 2] if not isinstance(doc.root["v"], np.ndarray) else True
    )
    assert doc.root == {"v": a.tolist(), "n": 1} or doc.root.to_python()["n"] == 1


def test_threads_validate_a_lazy_document_together(people: Any, people_bytes: bytes) -> None:
    doc = roving.open(people_bytes)
    views = [doc.root[i] for i in range(8)]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for _ in range(20):
                assert views[i].to_python() == people[i]
                assert views[i]["name"] == people[i]["name"]
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


# Hostile bytes: every operation gives a value or a roving error.

ERRORS = (roving.RovingError,)


def attempt(f: Any) -> Any:
    try:
        return f()
    except ERRORS as e:
        assert isinstance(e, roving.DecodeError) and isinstance(e, ValueError)
        assert e.offset is None or isinstance(e.offset, int)
        return e
    except (KeyError, IndexError, TypeError) as e:
        # Ordinary lookup misses and kind mismatches (a damaged byte can
        # turn a map into an integer): not decode errors, not crashes.
        return e


def walk(v: Any, budget: list[int], depth: int = 0) -> None:
    if budget[0] <= 0 or depth > 40 or not isinstance(v, roving.View):
        return
    budget[0] -= 1
    attempt(lambda: len(v))
    attempt(lambda: bool(v))
    attempt(lambda: repr(v))
    attempt(lambda: v.get_path("[0].name"))
    attempt(lambda: v.get_path("name"))
    if v.kind == "map":
        keys = attempt(lambda: list(v.keys()))
        attempt(lambda: list(v.items()))
        vals = attempt(lambda: list(v.values()))
        attempt(lambda: "name" in v)
        attempt(lambda: v.get("name"))
        attempt(lambda: v["name"])
        if isinstance(keys, list):
            for k in keys[:4]:
                attempt(lambda k=k: walk(v[k], budget, depth + 1))
        if isinstance(vals, list):
            for x in vals[:4]:
                walk(x, budget, depth + 1)
    else:
        n = attempt(lambda: len(v))
        if isinstance(n, int):
            for i in {0, 1, n // 2, n - 1, -1}:
                attempt(lambda i=i: walk(v[i], budget, depth + 1))
                attempt(lambda i=i: v.get(i))
            attempt(lambda: v[0:5])
        items = attempt(lambda: list(v))
        if isinstance(items, list):
            for x in items[:4]:
                walk(x, budget, depth + 1)
        attempt(lambda: 1 in v)
    attempt(lambda: v.to_python())
    attempt(lambda: v.to_json())
    attempt(lambda: v == {"a": 1})
    attempt(lambda: v == [1, 2])


def walk_all(doc: Any) -> None:
    attempt(lambda: walk(doc.root, [60]))
    attempt(lambda: doc[0])
    attempt(lambda: doc["name"])
    attempt(lambda: len(doc))
    attempt(lambda: list(doc))
    attempt(lambda: doc.get_path("[3].friends[0].name"))
    attempt(lambda: doc.to_python())
    attempt(lambda: doc.to_json())


def check_lazily(data: bytes) -> None:
    """Lazy open of `data`, walked: values or roving errors, and whole-value
    operations agree with full validation."""
    try:
        roving.validate(data)
        valid = True
    except roving.DecodeError:
        valid = False
    try:
        doc = roving.open(data)
    except roving.DecodeError:
        with pytest.raises(roving.DecodeError):
            roving.open(data, validate=True)
        return
    walk_all(doc)
    if not valid:
        with pytest.raises(roving.DecodeError):
            doc.to_python()
        with pytest.raises(roving.DecodeError):
            doc.to_json()
        with pytest.raises(roving.DecodeError):
            doc.validate()
        assert isinstance(doc.root, roving.View) or not doc.lazy or True
    else:
        assert doc.to_python() == roving.loads(data) or doc.to_json() == roving.to_json(data)


@pytest.fixture(scope="module")
def small(people: Any) -> bytes:
    return roving.dumps(people[:12])


def test_lazy_truncations_at_every_length(small: bytes) -> None:
    for n in range(len(small)):
        check_lazily(small[:n])


def test_lazy_bit_flips_of_a_real_document(small: bytes) -> None:
    rng = random.Random(4321)
    for _ in range(1500):
        b = bytearray(small)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        check_lazily(bytes(b))


def test_lazy_byte_changes_near_the_root(small: bytes) -> None:
    rng = random.Random(77)
    for _ in range(1500):
        b = bytearray(small)
        i = len(b) - 1 - rng.randrange(min(len(b), 300))
        b[i] = rng.randrange(256)
        check_lazily(bytes(b))


def test_lazy_every_bit_flip_of_a_small_document() -> None:
    doc = roving.dumps(
        {
            "a": [1, 2.5, "three", None, True, {"b": b"\x00\x01", "c": [-(2**70)]}],
            "d": "\u00e9" * 40,
            "e": {"x": [1]},
        }
    )
    for i in range(len(doc)):
        for bit in range(8):
            b = bytearray(doc)
            b[i] ^= 1 << bit
            check_lazily(bytes(b))


def test_lazy_random_bytes() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        n = rng.randrange(0, 120)
        data = bytes(rng.randrange(256) for _ in range(n))
        check_lazily(data)
        # A plausible header and a root-tagged end reach the readers.
        tail = bytes([rng.randrange(256), 0x1C | rng.randrange(4)])
        check_lazily(b"RV\x01" + data + tail)


def test_json_round_trip_of_lazy_views(people: Any, people_bytes: bytes) -> None:
    doc = roving.open(people_bytes)
    assert json.loads(doc.root[42].to_json(indent=2)) == people[42]


def test_get_path_counts_negative_indices_from_the_end() -> None:
    doc = roving.open(roving.dumps({"a": [10, 20, {"b": [1, 2, 3]}], "$x": 1}))
    assert doc.get_path("a[-1].b[-1]") == 3
    assert doc.get_path("$.a[-3]") == 10
    assert doc.root["a"].get_path("[-2]") == 20
    assert doc.get_path("a[-4]", "absent") == "absent"
    assert doc.get_path("$x") == 1
    assert doc.get_path('["a"][-1]["b"][0]') == 1
    for bad in ("a[-0]", "a[-]", 'a["\\u12"]', "a..b"):
        with pytest.raises(ValueError, match="bad path"):
            doc.get_path(bad)
