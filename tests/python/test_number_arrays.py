"""Lists of only ints or only floats: written as number array records
(format version 2, FORMAT.md section 6.14) and read back as the same
lists, through ``loads``, lazy views, typed ``loads`` and numpy."""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest
import roving
from conftest import same
from hypothesis import given, settings
from hypothesis import strategies as st

#: Byte 2 of the header: the format version.
VERSION = 2


def version(b: bytes) -> int:
    return b[VERSION]


def encodings(b: bytes) -> list[str]:
    """The encoding label of each record of ``b``."""
    from roving._roving import _records

    return [r[3] for r in _records(b)]


INT_EDGES = [0, 1, -1, 127, -128, 255, 256, -32768, 65535, 2**31 - 1, -(2**31), 2**32 - 1]
INT_EDGES += [2**61, -(2**61) - 1, 2**63 - 1, -(2**63)]

floats64 = st.floats(allow_nan=True, allow_infinity=True, width=64)
int64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
ints_any = st.one_of(int64, st.integers(min_value=0, max_value=2**64 - 1), st.integers())


@settings(max_examples=300, deadline=None)
@given(st.lists(floats64, min_size=1, max_size=40))
def test_lists_of_floats_round_trip(xs: list[float]) -> None:
    b = roving.dumps(xs)
    same(roving.loads(b), xs)
    assert version(b) == 2
    assert encodings(b)[0].startswith("numbers<")
    v = roving.open(b)
    assert len(v) == len(xs)
    for i, x in enumerate(xs):
        same(v[i], x)
    same(v[-1], xs[-1])
    same(roving.loads(b, type=list[float]), xs)


@settings(max_examples=300, deadline=None)
@given(st.lists(ints_any, min_size=1, max_size=40))
def test_lists_of_ints_round_trip(xs: list[int]) -> None:
    b = roving.dumps(xs)
    same(roving.loads(b), xs)
    fits = min(xs) >= -(2**63) and max(xs) <= 2**64 - 1 and (min(xs) >= 0 or max(xs) < 2**63)
    assert (version(b) == 2) == fits, xs
    v = roving.open(b)
    assert [v[i] for i in range(len(xs))] == xs
    same(roving.loads(b, type=list[int]), xs)


@pytest.mark.parametrize(
    ("xs", "label"),
    [
        ([1, 2, 3], "numbers<i8>"),
        ([0, 255], "numbers<u8>"),
        ([-1, 40000], "numbers<i32>"),
        ([2**64 - 1, 0], "numbers<u64>"),
        ([-(2**63), 2**63 - 1], "numbers<i64>"),
        ([1.5, -0.0, math.inf, math.nan], "numbers<f32>"),
        ([0.1, 2.25, 0.0], "numbers<decimal>"),
        ([0.1, -0.0], "numbers<f64>"),
        ([math.pi, 1.0], "numbers<f64>"),
    ],
)
def test_element_types(xs: list[Any], label: str) -> None:
    b = roving.dumps(xs)
    assert encodings(b)[0] == label
    same(roving.loads(b), xs)


@pytest.mark.parametrize(
    "xs",
    [[1, 2.5], [2.5, 1], [1, True], [2**63, -1], [2**64, 1], [-(2**63) - 1], [1.5, None], [1, "a"]],
)
def test_other_lists_keep_their_slots(xs: list[Any]) -> None:
    b = roving.dumps(xs)
    assert version(b) == 1
    assert encodings(b)[-2].startswith("array/")
    same(roving.loads(b), xs)


@pytest.mark.parametrize(
    "xs", [[1, 2, 3], [0, 255], [-1, 40000], [2**64 - 1, 0], [-(2**63), 2**63 - 1], [1.5, 2.0]]
)
def test_typed_int_lists_from_number_arrays(xs: list[Any]) -> None:
    b = roving.dumps({"a": xs, "b": xs})
    if all(isinstance(x, int) for x in xs):
        out = roving.loads(b, type=dict[str, list[int]])
        assert out == {"a": xs, "b": xs}
        assert all(type(x) is int for x in out["a"])
        assert out["a"] is out["b"]  # one record, one list
    else:
        with pytest.raises(roving.ValidationError, match=r"\$\.a\[0\]|expected int"):
            roving.loads(b, type=dict[str, list[int]])


def test_shared_number_lists_stay_shared() -> None:
    inner = [0.5, 1.5]
    out = roving.loads(roving.dumps([inner, inner, [inner]]))
    assert out[0] is out[1] is out[2][0]


def test_json_and_views() -> None:
    d = {"xs": [1.5, 2.5], "ns": [1, 300, -7], "ds": [0.1, 0.25]}
    b = roving.dumps(d)
    assert json.loads(roving.to_json(b)) == d
    v = roving.open(b)
    assert v["ns"][1] == 300
    assert v["xs"].to_python() == [1.5, 2.5]
    assert v["ds"][0] == 0.1
    assert v["ns"].kind == "array"
    assert len(v["ns"]) == 3


def test_numpy() -> None:
    np = pytest.importorskip("numpy")
    b = roving.dumps({"f": [0.1, 2.5, -1.0], "i": [1, 300, -7], "u": [2**64 - 1, 1]})
    v = roving.open(b)
    f = np.asarray(v["f"])
    assert f.dtype == np.float64 and f.tolist() == [0.1, 2.5, -1.0]
    i = np.asarray(v["i"])
    assert i.dtype == np.int64 and i.tolist() == [1, 300, -7]
    assert np.asarray(v["i"], dtype=np.float32).dtype == np.float32
    assert np.asarray(v["u"]).dtype == np.uint64
    arr = roving.loads(roving.dumps([0.5, 1.25]), type=np.ndarray)
    assert arr.dtype == np.float64 and arr.tolist() == [0.5, 1.25]
    arr = roving.loads(roving.dumps([1, 2, 3]), type=np.ndarray)
    assert arr.dtype == np.int64 and arr.tolist() == [1, 2, 3]


def test_float_bits_survive() -> None:
    nan = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_0000_0001))[0]
    xs = [nan, 1.0, -0.0, 5e-324, 1.7976931348623157e308]
    same(roving.loads(roving.dumps(xs)), xs)


def test_canada_like_data_is_smaller() -> None:
    ring = [[-65.61361699999998 + i * 1e-5, 43.42027300000001 - i * 1e-5] for i in range(500)]
    b = roving.dumps(ring)
    assert version(b) == 2
    same(roving.loads(b), ring)
    # 500 arrays of two f64: 18 bytes each, and 500 slots of the ring.
    assert len(b) < 500 * 18 + 500 * 2 + 16
