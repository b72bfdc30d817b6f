"""Any bytes at all give a value or an exception, never a crash: random
bytes, truncations at every length of a real document, bit flips."""

from __future__ import annotations

import random
from typing import Any

import pytest
import roving
from hypothesis import given, settings
from hypothesis import strategies as st


def exercise(data: bytes | memoryview) -> None:
    """Every reading entry point on `data`: either all succeed, or each
    raises a roving error (DecodeError) - nothing else, no crash."""
    try:
        roving.validate(data)
    except roving.DecodeError as e:
        assert isinstance(e, ValueError)
        assert e.offset is None or isinstance(e.offset, int)
        for f in (roving.loads, roving.to_json):
            with pytest.raises(roving.DecodeError):
                f(data)
        with pytest.raises(roving.DecodeError):
            roving.open(data, validate=True)
        with pytest.raises(roving.DecodeError):
            roving.loads(data, type=Any)
        # The default open is O(1): it may defer the error to the reads,
        # but whole-value operations validate first and raise.
        try:
            lazy = roving.open(data)
        except roving.DecodeError:
            return
        try:
            walk(lazy.root)
        except (roving.DecodeError, KeyError):
            # KeyError: a damaged hash index can hide a key that iteration
            # lists (lazily, a lookup reads the index, never every key).
            pass
        for op in (lazy.to_python, lazy.to_json, lazy.validate):
            with pytest.raises(roving.DecodeError):
                op()
        return
    roving.loads(data)
    roving.loads(data, type=Any)
    roving.to_json(data)
    roving.to_json(data, indent=2)
    for kw in ({}, {"validate": True}):
        doc = roving.open(bytes(data), **kw)
        walk(doc.root)
        assert doc.to_json() == roving.to_json(data)
        doc.to_python()


def walk(v: Any, depth: int = 0) -> None:
    if depth > 50 or not isinstance(v, roving.View):
        return
    len(v)
    if v.kind == "map":
        for k in v:
            walk(v[k], depth + 1)
        for item in v.values():
            walk(item, depth + 1)
        list(v.items())
    else:
        for item in v:
            walk(item, depth + 1)
    v.to_python()
    v.to_json()
    assert v == v.to_python() or True


@pytest.fixture(scope="module")
def small_doc(people: Any) -> bytes:
    return roving.dumps(people[:20])


def test_truncated_at_every_length(small_doc: bytes) -> None:
    mv = memoryview(small_doc)
    for n in range(len(small_doc)):
        with pytest.raises(roving.DecodeError):
            roving.loads(mv[:n])
        if n % 7 == 0:
            with pytest.raises(roving.DecodeError):
                roving.open(mv[:n], validate=True)
            # Lazily: the open or the first whole-value operation raises.
            with pytest.raises(roving.DecodeError):
                roving.open(mv[:n]).to_python()


def test_truncated_real_document_sampled(people_bytes: bytes) -> None:
    mv = memoryview(people_bytes)
    for n in list(range(64)) + list(range(64, len(people_bytes), 997)) + [len(people_bytes) - 1]:
        with pytest.raises(roving.DecodeError):
            roving.loads(mv[:n])


def test_every_bit_flip_of_a_small_document() -> None:
    doc = roving.dumps(
        {"a": [1, 2.5, "three", None, True, {"b": b"\x00\x01", "c": [-(2**70)]}], "d": "é" * 40}
    )
    for i in range(len(doc)):
        for bit in range(8):
            b = bytearray(doc)
            b[i] ^= 1 << bit
            exercise(bytes(b))


def test_random_bit_flips_of_a_real_document(small_doc: bytes) -> None:
    rng = random.Random(1234)
    for _ in range(3000):
        b = bytearray(small_doc)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        exercise(bytes(b))


def test_random_byte_changes_near_the_end(small_doc: bytes) -> None:
    # The root and the last records live at the end: hit them often.
    rng = random.Random(99)
    for _ in range(3000):
        b = bytearray(small_doc)
        i = len(b) - 1 - rng.randrange(min(len(b), 200))
        b[i] = rng.randrange(256)
        exercise(bytes(b))


@settings(max_examples=3000, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    exercise(data)
    exercise(b"RV\x01" + data)


@settings(max_examples=1000, deadline=None)
@given(st.binary(min_size=1, max_size=64), st.integers(0, 10_000))
def test_random_splices(data: bytes, at: int) -> None:
    doc = roving.dumps({"k": [1, "two", 3.0, {"x": None}], "v": list(range(20))})
    at %= len(doc)
    exercise(doc[:at] + data + doc[at + len(data) :])


def test_not_a_roving_document() -> None:
    for bad in [
        b"",
        b"R",
        b"RV",
        b"RV\x01",
        b"RV\x02\x00",
        b"{}",
        b"\x00" * 100,
        b"RV\x01" + b"\xff" * 50,
    ]:
        with pytest.raises(roving.DecodeError) as ei:
            roving.loads(bad)
        assert (
            "roving" in str(ei.value)
            or "truncated" in str(ei.value)
            or "offset" in str(ei.value)
            or str(ei.value)
        )


def test_decode_error_has_an_offset() -> None:
    doc = bytearray(roving.dumps(["hello", "world"]))
    i = doc.index(b"hello")
    doc[i] = 0xFF  # invalid UTF-8
    with pytest.raises(roving.DecodeError) as ei:
        roving.loads(bytes(doc))
    assert isinstance(ei.value.offset, int)
    assert "UTF-8" in str(ei.value)


def test_trusted_open_of_bad_bytes_does_not_crash(small_doc: bytes) -> None:
    # trusted=True skips validation (for bytes roving wrote); even then, a
    # damaged document must give exceptions or wrong values, not a crash.
    rng = random.Random(7)
    for _ in range(2000):
        b = bytearray(small_doc)
        i = rng.randrange(len(b))
        b[i] = rng.randrange(256)
        try:
            doc = roving.open(bytes(b), trusted=True)
            walk(doc.root)
            doc.to_python()
        except (
            roving.RovingError,
            UnicodeDecodeError,
            KeyError,
            IndexError,
            TypeError,
            ValueError,
        ):
            pass
