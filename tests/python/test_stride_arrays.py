"""Lists of number lists (matrix rows, polygon points): written as number
arrays at equal steps and one stride array record (format version 2,
FORMAT.md section 6.16), read back as the same lists through ``loads``,
lazy views, typed ``loads`` and numpy, and written byte for byte as the
section-14 reference encoder writes them."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
from typing import Any

import pytest
import roving
from conftest import json_to_neutral, load_reference_reader, same
from hypothesis import given, settings
from hypothesis import strategies as st

ref = load_reference_reader()


def encodings(b: bytes) -> list[str]:
    """The encoding label of each record of ``b``."""
    from roving._roving import _records

    return [r[3] for r in _records(b)]


def polygon(n: int) -> list[list[float]]:
    return [[-65.61361699999998 + i * 1e-5, 43.42027300000001 - i * 1e-5] for i in range(n)]


def test_polygon_points_take_18_bytes_each() -> None:
    ring = polygon(2000)
    b = roving.dumps(ring)
    assert b[2] == 2
    labels = encodings(b)
    assert labels[:-2] == ["numbers<f64>"] * 2000
    assert labels[-2:] == ["stride array", "root/1"]
    # Header, 2000 rows of 18 bytes, 3B + 2-byte count + 1-byte stride, root.
    assert len(b) == 3 + 2000 * 18 + 4 + 3
    same(roving.loads(b), ring)


def test_rows_after_an_f64_row_are_f64() -> None:
    rows = [[0.12345678901234567, 1.0], [0.5, 1.5], [0.1, 0.25]]
    b = roving.dumps(rows)
    assert encodings(b) == ["numbers<f64>"] * 3 + ["stride array", "root/1"]
    same(roving.loads(b), rows)
    # Alone, [0.5, 1.5] is f32 and [0.1, 0.25] decimal.
    assert encodings(roving.dumps([[0.5, 1.5]]))[0] == "numbers<f32>"
    assert encodings(roving.dumps([[0.1, 0.25]]))[0] == "numbers<decimal>"


def test_every_reader() -> None:
    np = pytest.importorskip("numpy")
    ring = polygon(50) + [[0.5, 1.5]]
    b = roving.dumps({"type": "Polygon", "coordinates": [ring]})

    v = roving.open(b)  # lazy: nothing validated up front
    pts = v["coordinates"][0]
    assert len(pts) == 51
    assert pts[50][1] == 1.5
    assert pts[3].to_python() == ring[3]
    assert [p[0] for p in pts] == [p[0] for p in ring]
    assert np.asarray(pts).shape == (51, 2)
    same(roving.open(b, validate=True)["coordinates"].to_python(), [ring])

    @dataclasses.dataclass
    class Geometry:
        type: str
        coordinates: list[list[tuple[float, float]]]

    g = roving.loads(b, type=Geometry)
    assert g.coordinates[0][50] == (0.5, 1.5)
    assert g.coordinates[0][:50] == [tuple(p) for p in ring[:50]]
    arr = roving.loads(roving.dumps(ring), type=np.ndarray)
    assert arr.shape == (51, 2) and arr.dtype == np.float64
    assert json.loads(roving.to_json(b)) == {"type": "Polygon", "coordinates": [ring]}


def test_other_lists_keep_their_slots() -> None:
    row = [0.5, 1.5]
    for obj in (
        [[1.5, 2.5], [1, 2.5], [3.5, 4.5]],  # an int among floats: smaller with slots
        [[1, 2], [300, 4]],  # an i8 row and an i16 row: two sizes
        [row, row],  # one list twice: one record, referred to twice
        [[1, 2]],  # one row
    ):
        b = roving.dumps(obj)
        assert "stride array" not in encodings(b), obj
        same(roving.loads(b), obj)
    out = roving.loads(roving.dumps([row, row]))
    assert out[0] is out[1]


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
small_floats = st.integers(-4000, 4000).map(lambda m: m / 8)
rows = st.one_of(
    st.tuples(finite, finite).map(list),
    st.lists(small_floats, min_size=1, max_size=3),
    st.lists(st.integers(-300, 300), min_size=1, max_size=3),
    st.lists(finite, min_size=1, max_size=4),
    # Whole numbers among floats, as JSON writers print them.
    st.lists(st.one_of(finite, st.integers(-300, 300)), min_size=1, max_size=3),
)
# Points of a polygon, a few with an integer coordinate (small, or too
# wide for a slot): the rows that section 14 lays out again.
long_floats = st.integers(-(10**15), 10**15).map(lambda m: m / 1e13 + 1e-9)
coordinate = st.integers(0, 40).flatmap(
    lambda k: (
        st.integers(-300, 300)
        if k == 0
        else st.integers(-(1 << 63), (1 << 63) - 1)
        if k == 1
        else long_floats
    )
)
points = st.lists(st.tuples(coordinate, coordinate).map(list), min_size=2, max_size=150)


@settings(max_examples=300, deadline=None)
@given(st.lists(rows, max_size=30))
def test_rows_round_trip_and_match_section_14(obj: list[list[Any]]) -> None:
    b = roving.dumps(obj)
    same(roving.loads(b), obj)
    same(roving.open(b).to_python(), obj)
    text = json.dumps(obj)
    assert roving.from_json(text) == b
    assert ref.encode(json_to_neutral(text)).hex() == b.hex()
    assert ref.validate_and_decode(b) == json_to_neutral(text)


@settings(max_examples=200, deadline=None)
@given(points)
def test_points_with_integers_match_section_14(obj: list[list[Any]]) -> None:
    b = roving.dumps(obj)
    same(roving.loads(b), obj)
    text = json.dumps(obj)
    assert roving.from_json(text) == b
    assert ref.encode(json_to_neutral(text)).hex() == b.hex()
    assert ref.validate_and_decode(b) == json_to_neutral(text)


def test_points_with_integers_take_no_slots() -> None:
    ring: list[list[Any]] = polygon(1000)
    ring[10][0] = ring[11][0] = -125  # two points on a meridian
    ring[500][1] = 47
    b = roving.dumps(ring)
    labels = encodings(b)
    assert labels[-2:] == ["stride array", "root/1"]
    assert labels.count("array/8") == 3
    # Header, 3 float records (9 bytes), 1000 rows of 18 bytes, 3B + 2-byte
    # count + 1-byte stride, root. (The three integers are inline in the
    # 2-byte slots those rows had at first: an i8 record would save no byte.)
    assert len(b) == 3 + 3 * 9 + 1000 * 18 + 4 + 3
    same(roving.loads(b), ring)
    assert type(roving.loads(b)[500][1]) is int
    v = roving.open(b)
    assert v[11].to_python() == ring[11] and v[999].to_python() == ring[999]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(width=64), st.floats(width=64)).map(list), max_size=20))
def test_any_float_bits_survive(obj: list[list[float]]) -> None:
    back = roving.loads(roving.dumps(obj))
    assert len(back) == len(obj)
    for a, b in zip(back, obj, strict=True):
        for x, y in zip(a, b, strict=True):
            assert math.copysign(1.0, x) == math.copysign(1.0, y)
            assert (math.isnan(x) and math.isnan(y)) or x == y


def test_cli_dump_and_stats_show_the_rows(tmp_path: Any) -> None:
    p = tmp_path / "poly.rv"
    p.write_bytes(roving.dumps({"coordinates": [polygon(3)]}))

    def cli(*args: str) -> str:
        r = subprocess.run(
            [sys.executable, "-m", "roving", *args, str(p)],
            capture_output=True,
            check=True,
            timeout=120,
            env={**os.environ, "ROVING_NO_PROGRESS": "1"},
        )
        return r.stdout.decode()

    dump = cli("dump")
    assert "[0]: array[3]" in dump
    assert dump.count("numbers<f64>[2]") == 3
    stats = cli("stats")
    assert "stride array 1 (3 B)" in stats
    assert "6 float" in stats and "5 array" in stats
