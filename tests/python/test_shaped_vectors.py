"""numpy arrays of any number of dimensions keep their shape (the shaped
vector record 23 of FORMAT.md section 6.17, format version 2): dumps,
loads, typed loads, lazy views, JSON, and the independent reference reader
of the same bytes; hypothesis round trips of arrays of 0 to 4 dimensions,
empty dimensions included, of every dtype a vector has."""

from __future__ import annotations

import json
from typing import Any

import pytest
import roving
from conftest import load_reference_reader
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
hnp = pytest.importorskip("hypothesis.extra.numpy")

ref = load_reference_reader()

DTYPES = ["i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8", ">i2", ">f8"]


def _arrays() -> Any:
    return st.sampled_from(DTYPES).flatmap(
        lambda dt: hnp.arrays(
            dtype=dt,
            shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4),
            elements={"allow_nan": False} if dt[-2] == "f" else None,
        )
    )


def _neutral_dtype(a: Any) -> str:
    return {"i": "i", "u": "u", "f": "f"}[a.dtype.kind] + str(8 * a.dtype.itemsize)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_arrays())
def test_numpy_arrays_round_trip_with_their_shape(a: Any) -> None:
    b = roving.dumps(a)
    # One dimension: a vector record (version 1); more: a shaped vector.
    assert b[2] == (1 if a.ndim == 1 else 2)
    assert b[3] == (0x0F if a.ndim == 1 else 0x23)
    want_dtype = a.dtype.newbyteorder("<")
    for back in (
        roving.loads(b),
        roving.loads(b, type=np.ndarray),
        np.asarray(roving.open(b).root),
    ):
        assert isinstance(back, np.ndarray)
        assert back.shape == a.shape and back.dtype == want_dtype
        assert np.array_equal(back, a)
    assert roving.loads(b).flags.writeable
    # JSON: nested arrays, as of the nested lists.
    assert json.loads(roving.to_json(b)) == json.loads(roving.to_json(roving.dumps(a.tolist())))
    # The reference reader, written from FORMAT.md alone, reads the same
    # element type, shape and bytes, and writes the same bytes back.
    got = ref.validate_and_decode(b)
    assert got["vector"] == _neutral_dtype(a)
    assert bytes.fromhex(got["data"]) == a.astype(want_dtype).tobytes()
    assert got.get("shape", [a.shape[0]]) == list(a.shape)
    assert ref.encode(got) == b


@settings(max_examples=100, deadline=None)
@given(st.lists(_arrays(), min_size=1, max_size=4))
def test_arrays_inside_containers_and_shared(arrays: list[Any]) -> None:
    doc = {"xs": arrays, "again": arrays[0]}
    b = roving.dumps(doc)
    back = roving.loads(b)
    for x, y in zip(back["xs"], arrays, strict=True):
        assert x.shape == y.shape and np.array_equal(x, y)
    assert back["again"].shape == arrays[0].shape
    view = roving.open(b).root
    for i, y in enumerate(arrays):
        v = view["xs"][i]
        assert isinstance(v, np.ndarray) and v.shape == y.shape and np.array_equal(v, y)
    ref.validate_and_decode(b)


def test_empty_dimensions_and_every_position() -> None:
    for shape in [(0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 1, 1, 1), (4, 3, 2, 1)]:
        for dt in DTYPES:
            a = np.arange(int(np.prod(shape)), dtype=dt).reshape(shape)
            # Behind a 1-byte vector, so that padding is needed.
            b = roving.dumps([np.array([7], dtype="u1"), a])
            back = roving.loads(b)[1]
            assert back.shape == a.shape and np.array_equal(back, a), (shape, dt)
    assert roving.to_json(roving.dumps(np.zeros((3, 0)))) == b"[[],[],[]]"
    assert roving.to_json(roving.dumps(np.zeros((0, 3)))) == b"[]"


def test_empty_arrays_have_at_most_4096_rows() -> None:
    # Section 6.17: with no elements, the product of the dimensions before
    # the first 0 is at most 4096 (each row is an empty array in JSON).
    for shape in [(4096, 0), (64, 64, 0, 3), (0, 10**12)]:
        back = roving.loads(roving.dumps(np.zeros(shape, dtype="u1")))
        assert back.shape == shape
    for shape in [(4097, 0), (65, 64, 0)]:
        with pytest.raises(roving.EncodeError, match="at most 4096 rows"):
            roving.dumps(np.zeros(shape, dtype="u1"))
    bomb = bytes.fromhex("525602 2303 03 fbfe7d f801 00 1c241c")
    with pytest.raises(roving.DecodeError, match="at most 4096 rows"):
        roving.loads(bomb)


def test_typed_loads_of_a_shaped_vector() -> None:
    a = np.arange(12, dtype="<i4").reshape(2, 3, 2)
    b = roving.dumps({"a": a})
    assert roving.loads(b, type=dict[str, list[list[list[int]]]])["a"] == a.tolist()
    assert roving.loads(b, type=dict[str, tuple[list[tuple[int, ...]], ...]])["a"] == tuple(
        [tuple(r) for r in m] for m in a.tolist()
    )
    rows = roving.loads(b, type=dict[str, list[np.ndarray]])["a"]
    assert [r.shape for r in rows] == [(3, 2), (3, 2)]
    assert all(np.array_equal(r, x) for r, x in zip(rows, a, strict=True))
    # Element types are checked as for vectors; the path says where.
    with pytest.raises(
        roving.ValidationError, match=r"expected str, got int at \$\.a\[0\]\[0\]\[0\]"
    ):
        roving.loads(b, type=dict[str, list[list[list[str]]]])
    # array.array has one dimension.
    import array

    with pytest.raises(roving.ValidationError, match="expected"):
        roving.loads(b, type=dict[str, array.array])


def test_views_of_a_shaped_vector() -> None:
    a = np.arange(6.0).reshape(3, 2)
    doc = roving.open(roving.dumps(a))
    assert len(doc) == 3
    assert np.array_equal(doc[1], a[1]) and doc[-1][1] == 5.0
    assert np.array_equal(np.asarray(list(doc)), a)
    assert not doc.root.flags.writeable  # a view of the document's bytes
    outer = roving.open(roving.dumps([a]))
    assert outer.root == [a.tolist()]
    assert outer.root != [a.T.tolist()]
    assert outer.root.to_python()[0].shape == (3, 2)


def test_zero_dimensional_arrays_are_unchanged() -> None:
    # 0-d arrays are not vectors: an EncodeError, or default=.
    with pytest.raises(roving.EncodeError, match="numpy array"):
        roving.dumps(np.array(5.0))
    assert roving.loads(roving.dumps(np.array(5.0), default=lambda x: x.item())) == 5.0
