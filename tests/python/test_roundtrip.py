"""Round trips of every supported type, edges of ints and floats, key order."""

from __future__ import annotations

import array
import collections
import dataclasses
import datetime as dt
import decimal
import enum
import math
import struct
import sys
import uuid
from typing import Any

import pytest
import roving
from conftest import same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def rt(x: Any) -> Any:
    return roving.loads(roving.dumps(x))


# ---- scalars and edges ---------------------------------------------------------

INT_EDGES = [
    0,
    1,
    -1,
    63,
    64,
    -64,
    -65,
    127,
    128,
    -128,
    -129,
    255,
    256,
    2**15 - 1,
    2**15,
    -(2**15),
    -(2**15) - 1,
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**32,
    2**53,
    2**53 + 1,
    2**62,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64 - 1,
    2**64,
    -(2**64),
    2**100,
    -(2**100),
    10**400,
    -(10**400),
]


@pytest.mark.parametrize("n", INT_EDGES)
def test_int_edges(n: int) -> None:
    same(rt(n), n)
    same(rt([n, -n]), [n, -n])
    same(rt({"k": n}), {"k": n})


FLOAT_EDGES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    1e-310,
    -5e-324,
    5e-324,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
    float.fromhex("0x1.fffffep+127"),
    2.0**24,
    2.0**53,
    3.14,
    1e22,
    1e23,
    123456789.0,
    0.5,
    1 / 3,
    16777217.0,
    float(2**63),
    -float(2**63),
]


@pytest.mark.parametrize("f", FLOAT_EDGES)
def test_float_edges_bit_exact(f: float) -> None:
    same(rt(f), f)
    same(rt([f]), [f])


def test_nan_payloads_bit_exact() -> None:
    for bits in (0x7FF8000000000001, 0xFFF8000000000000, 0x7FF4000000000000, 0x7FF0000000000001):
        f = struct.unpack("<d", struct.pack("<Q", bits))[0]
        back = rt(f)
        assert struct.pack("<d", back) == struct.pack("<d", f)


def test_simple_values() -> None:
    for x in [
        None,
        True,
        False,
        "",
        "a",
        "é",
        "日本語",
        "\x00",
        "🎉" * 100,
        "x" * 100_000,
        b"",
        b"\x00\xff" * 1000,
    ]:
        same(rt(x), x)


def test_bytes_like_become_bytes() -> None:
    same(rt(bytearray(b"abc")), b"abc")
    same(rt(memoryview(b"abcdef")[1:4]), b"bcd")
    same(rt(memoryview(b"abcdef")[::2]), b"ace")


def test_tuple_is_an_array() -> None:
    same(rt((1, (2, 3), [])), [1, [2, 3], []])


def test_sets_are_arrays() -> None:
    class MySet(set[int]):
        pass

    for s in [{3, 1, 2}, frozenset({"a", "b"}), set(), frozenset(), MySet({7, 8})]:
        back = rt(s)
        assert type(back) is list
        assert sorted(back) == sorted(s)
        # In iteration order, like list(s).
        assert roving.dumps(s) == roving.dumps(list(s))
        same(roving.loads(roving.dumps(s), type=set[Any]), set(s))
        same(roving.loads(roving.dumps(s), type=frozenset[Any]), frozenset(s))
    nested = frozenset({frozenset({1}), frozenset({2, 3})})
    assert sorted(map(sorted, rt(nested))) == [[1], [2, 3]]
    same(roving.loads(roving.dumps({"tags": {"x"}}), type=dict[str, set[str]]), {"tags": {"x"}})
    # One frozenset twice is written once (a shared reference), like a tuple.
    f = frozenset({1, 2})
    back = rt([f, f])
    assert back[0] is back[1]
    with pytest.raises(roving.EncodeError, match=r"type 'object' at \$\.s\[0\]$"):
        roving.dumps({"s": {object()}})
    # A hook that changes the set while it is written: an error, no crash.
    grow = {1, "x", 2.5, None, (1, 2)}

    class Later:
        pass

    grow.add(Later())
    with pytest.raises(RuntimeError, match="changed size"):
        roving.dumps(grow, default=lambda o: grow.add(99))


def test_key_order_preserved() -> None:
    d = {"b": 1, "a": 2, "": 3, "c": {"z": 1, "y": 2}}
    same(rt(d), d)
    d = {str(i): i for i in range(1000, 0, -1)}
    same(rt(d), d)


def test_ordered_dict_order_is_its_own() -> None:
    import collections

    od = collections.OrderedDict(a=1, b=2, c=3)
    od.move_to_end("a")
    same(rt(od), {"b": 2, "c": 3, "a": 1})
    assert list(rt(od)) == ["b", "c", "a"]


def test_lone_surrogate_is_an_encode_error() -> None:
    with pytest.raises(roving.EncodeError, match=r"at \$\.k"):
        roving.dumps({"k": "\ud800"})
    with pytest.raises(roving.EncodeError):
        roving.dumps({"\udfff": 1})


# ---- other types ---------------------------------------------------------------------


def test_datetimes() -> None:
    tz = dt.timezone(dt.timedelta(hours=5, minutes=30))
    values = [
        dt.datetime(2024, 1, 2, 3, 4, 5, 678901),
        dt.datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC),
        dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=tz),
        dt.datetime(1, 1, 1),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
        dt.datetime(1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=-23, seconds=-59))),
        dt.datetime(
            9999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone(dt.timedelta(hours=23, minutes=59))
        ),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
    ]
    for v in values:
        back = rt(v)
        same(back, v)
        assert (back.tzinfo is None) == (v.tzinfo is None)


def test_zoneinfo_keeps_the_offset() -> None:
    zoneinfo = pytest.importorskip("zoneinfo")
    try:
        tz = zoneinfo.ZoneInfo("Europe/Paris")
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip("no tz database")
    v = dt.datetime(2024, 7, 1, 12, 0, tzinfo=tz)
    back = rt(v)
    assert back == v
    assert back.utcoffset() == dt.timedelta(hours=2)


def test_date_uuid_decimal() -> None:
    for v in [dt.date(1, 1, 1), dt.date(1970, 1, 1), dt.date(2024, 2, 29), dt.date(9999, 12, 31)]:
        same(rt(v), v)
    u = uuid.uuid4()
    same(rt(u), u)
    for s in [
        "0",
        "-0",
        "1.10",
        "1E+3",
        "-1.5e-10",
        "NaN",
        "-sNaN",
        "Infinity",
        "-Infinity",
        "1" * 80 + ".5",
    ]:
        same(rt(decimal.Decimal(s)), decimal.Decimal(s))


class _ShownDecimal(decimal.Decimal):
    def __str__(self) -> str:
        return f"D({decimal.Decimal.__str__(self)})"


class _ShortUUID(uuid.UUID):
    @property
    def bytes(self) -> bytes:  # type: ignore[override]
        return b"short"


def test_subclasses_of_decimal_and_uuid_never_write_an_unreadable_document() -> None:
    # dumps wrote a Decimal subclass's own str() ("D(1.5)") as the payload
    # and a UUID subclass's own 5-byte .bytes: documents loads refused
    # ("bad Decimal payload", "bad UUID payload").
    assert roving.loads(roving.dumps([_ShownDecimal("1.5")])) == [decimal.Decimal("1.5")]
    with pytest.raises(roving.EncodeError, match="bytes are not 16 bytes long"):
        roving.dumps(_ShortUUID(int=1))


def test_ext_values() -> None:
    e = roving.Ext(77, b"payload")
    same(rt(e), e)
    assert rt([e, e]) == [e, e]
    assert roving.Ext(5, b"x") != roving.Ext(6, b"x")


def test_ext_accepts_any_bytes_like_payload() -> None:
    np = pytest.importorskip("numpy")
    want = roving.Ext(55, b"ab")
    for data in [
        memoryview(b"ab"),
        bytearray(b"ab"),
        array.array("B", b"ab"),
        np.frombuffer(b"ab", dtype="u1"),
        memoryview(b"xaxb")[1::2],  # not contiguous
    ]:
        e = roving.Ext(55, data)
        assert type(e.data) is bytes and e.data == b"ab"
        assert e == want and hash(e) == hash(want)
        same(rt(e), want)
    # A copy: later changes to a mutable buffer do not reach the Ext.
    ba = bytearray(b"ab")
    e = roving.Ext(55, ba)
    ba[0] = ord("z")
    assert e.data == b"ab"
    b = b"kept"
    assert roving.Ext(55, b).data is b
    for bad in ["ab", 5, None, [1, 2]]:
        with pytest.raises(TypeError):
            roving.Ext(55, bad)  # type: ignore[arg-type]
    # A str payload is not a document: no pointer to from_json (it said
    # "expected a bytes-like object (a roving document), got str; JSON text
    # converts with roving.from_json()").
    with pytest.raises(TypeError, match=r"^roving.Ext data must be a bytes-like object, not str"):
        roving.Ext(55, "ab")  # type: ignore[arg-type]


def test_ext_with_a_reserved_id_needs_a_valid_payload() -> None:
    bad = [
        roving.Ext(roving.EXT_DATE, b"\x00"),
        roving.Ext(roving.EXT_DATE, b"\x00" * 5),
        roving.Ext(roving.EXT_DATE, (2**31 - 1).to_bytes(4, "little")),  # past year 9999
        roving.Ext(roving.EXT_UUID, b"\x00" * 15),
        roving.Ext(roving.EXT_DECIMAL, b""),
        roving.Ext(roving.EXT_DECIMAL, b"1 2"),
        roving.Ext(roving.EXT_DECIMAL, b"pi"),
        roving.Ext(roving.EXT_DECIMAL, "é".encode()),
    ]
    for e in bad:
        with pytest.raises(roving.EncodeError, match=r"reserved .* at \$\.e\[0\]$"):
            roving.dumps({"e": [e]})
    # Valid payloads are written, and come back as the value they encode.
    same(rt(roving.Ext(roving.EXT_DATE, (0).to_bytes(4, "little"))), dt.date(1970, 1, 1))
    u = uuid.UUID(int=12345)
    same(rt(roving.Ext(roving.EXT_UUID, u.bytes)), u)
    same(rt(roving.Ext(roving.EXT_DECIMAL, b"-1.50")), decimal.Decimal("-1.50"))
    # Other ids carry any payload (1 to 5 are reserved; EXT_TIME and
    # EXT_TIMEDELTA, 4 and 5, are tested in test_time_types.py).
    same(rt(roving.Ext(6, b"\x00")), roving.Ext(6, b"\x00"))
    same(rt(roving.Ext(0, b"")), roving.Ext(0, b""))


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def test_enums_become_their_values() -> None:
    same(rt([Color.RED, Level.HIGH]), ["red", 2])


@dataclasses.dataclass
class Point:
    x: int
    y: float
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, slots=True)
class Frozen:
    a: int
    b: str


def test_dataclasses_are_maps_of_their_fields() -> None:
    same(rt(Point(1, 2.5, ["a"])), {"x": 1, "y": 2.5, "tags": ["a"]})
    same(rt(Frozen(1, "z")), {"a": 1, "b": "z"})


def test_dataclass_fields_read_as_getattr_reads_them() -> None:
    """Fields are what getattr gives: a property or __getattribute__ of the
    class rules (also one added after instances were written), __dict__
    entries out of field order or not fields change nothing, and a field
    missing from __dict__ is the class attribute."""

    @dataclasses.dataclass
    class Reordered:
        a: int
        b: str
        c: float = 0.5

    r = Reordered(1, "x")
    del r.a
    r.extra = "not a field"  # type: ignore[attr-defined]
    r.a = 7  # now after "b", "c" and "extra" in __dict__
    del r.c  # the class default, 0.5
    same(rt(r), {"a": 7, "b": "x", "c": 0.5})
    same(rt([r, r]), [{"a": 7, "b": "x", "c": 0.5}] * 2)

    @dataclasses.dataclass
    class WithProperty:
        a: int
        b: int = 0

    def get_b(self: Any) -> int:
        return 99

    def set_b(self: Any, v: int) -> None:
        self.__dict__["b"] = v

    w = WithProperty(1, 2)
    same(rt(w), {"a": 1, "b": 2})
    # A property added to the class after its instances were written.
    WithProperty.b = property(get_b, set_b)  # type: ignore[assignment]
    assert w.__dict__["b"] == 2 and w.b == 99
    same(rt(w), {"a": 1, "b": 99})
    same(rt(WithProperty(3, 4)), {"a": 3, "b": 99})

    @dataclasses.dataclass
    class Intercepted:
        a: int

        def __getattribute__(self, name: str) -> Any:
            if name == "a":
                return -1
            return object.__getattribute__(self, name)

    same(rt(Intercepted(5)), {"a": -1})

    @dataclasses.dataclass
    class Dunder:
        a: int

    d = Dunder(1)
    d.__dict__.clear()
    same(rt(d), {})


def test_subclasses_of_builtins() -> None:
    class S(str):
        pass

    class Int(int):
        pass

    class F(float):
        pass

    class D(dict):
        pass

    class L(list):
        pass

    same(rt([S("s"), Int(3), F(1.5), D(a=1), L([1])]), ["s", 3, 1.5, {"a": 1}, [1]])


def test_array_array_is_a_vector() -> None:
    for code, vals in [
        ("b", [-1, 2]),
        ("B", [0, 255]),
        ("h", [-300]),
        ("H", [60000]),
        ("i", [-(2**31)]),
        ("I", [2**32 - 1]),
        ("q", [-(2**63)]),
        ("Q", [2**64 - 1]),
        ("f", [1.5]),
        ("d", [math.pi]),
    ]:
        a = array.array(code, vals)
        back = rt(a)
        assert list(back) == list(a)
        assert (
            back.dtype.itemsize == a.itemsize
            if hasattr(back, "dtype")
            else back.itemsize == a.itemsize
        )


def test_numpy_vectors() -> None:
    np = pytest.importorskip("numpy")
    for dtype in ["i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8", ">f8", ">i4"]:
        a = (
            (np.arange(37) * 3 - 50).astype(dtype)
            if dtype[-2] in "iu" or dtype[-1] in "iu"
            else np.linspace(-1, 1, 37).astype(dtype)
        )
        back = rt(a)
        assert isinstance(back, np.ndarray)
        assert back.dtype == a.dtype.newbyteorder("<") or back.dtype == a.dtype
        assert np.array_equal(back, a)
        assert back.flags.writeable
    strided = np.arange(20, dtype="<f8")[::3]
    assert np.array_equal(rt(strided), strided)
    assert np.array_equal(rt(np.array([], dtype="<i4")), np.array([], dtype="<i4"))
    same(rt([np.int64(5), np.float32(1.5), np.bool_(True)]), [5, 1.5, True])
    assert rt(np.zeros((2, 2)).tolist()) == [[0.0, 0.0], [0.0, 0.0]]
    # An empty first axis keeps its shape too (a shaped vector).
    assert rt(np.zeros((0, 2))).shape == (0, 2)
    # Dtypes with no vector type go to default= (or are an EncodeError
    # naming them).
    for bad in (np.zeros((2, 2), dtype=bool),):
        with pytest.raises(roving.EncodeError, match="numpy array"):
            roving.dumps(bad)
        same(roving.loads(roving.dumps(bad, default=lambda a: a.tolist())), bad.tolist())


def test_numpy_arrays_of_several_dimensions_keep_their_shape() -> None:
    np = pytest.importorskip("numpy")
    cases = [
        np.arange(6.0).reshape(2, 3),
        np.arange(24, dtype="<i2").reshape(2, 3, 4),
        np.arange(16, dtype=">f4").reshape(4, 4)[:, ::2],  # strided, big endian
        np.asfortranarray(np.arange(6, dtype="u1").reshape(3, 2)),
        np.zeros((3, 0)),  # rows of no element keep the dtype
        np.zeros((0, 3)),
        np.arange(2**10, dtype="<i8").reshape((2,) * 10),
    ]
    for a in cases:
        b = roving.dumps(a)
        assert b[2] == 2 and b[3] == 0x23  # a shaped vector, version 2
        # Untyped: the array itself, shape and dtype (little endian) kept.
        back = roving.loads(b)
        assert isinstance(back, np.ndarray) and back.flags.writeable
        assert back.shape == a.shape and back.dtype == a.dtype.newbyteorder("<")
        assert np.array_equal(back, a)
        # to_json shows nested lists.
        assert roving.to_json(b) == roving.to_json(roving.dumps(a.tolist()))
        # Typed: the array, as a list of lists, or rows as arrays.
        back = roving.loads(b, type=np.ndarray)
        assert back.shape == a.shape and back.dtype == a.dtype.newbyteorder("<")
        assert np.array_equal(back, a)
        if a.ndim == 2:
            py = int if a.dtype.kind in "iu" else float
            assert roving.loads(b, type=list[list[py]]) == a.tolist()
            rows = roving.loads(b, type=list[np.ndarray])
            assert len(rows) == a.shape[0] and all(
                np.array_equal(r, x) for r, x in zip(rows, a, strict=True)
            )
        # Lazy views: the root is a numpy array of the shape (a view of the
        # bytes), and rows are reached as numpy arrays.
        doc = roving.open(b)
        assert np.array_equal(np.asarray(doc.root), a) and doc.root.shape == a.shape
        assert len(doc) == a.shape[0]
        if a.shape[0]:
            assert np.array_equal(np.asarray(doc[a.shape[0] - 1]), a[-1])
            assert np.array_equal(np.asarray(list(doc)), a)
    assert roving.loads(roving.dumps({"m": cases[0]}), type=dict[str, np.ndarray])["m"].shape == (
        2,
        3,
    )
    # An array of rows (what dumps wrote before shaped vectors) still reads
    # as an ndarray with type=numpy.ndarray.
    rows = roving.dumps([np.arange(3.0), np.arange(3.0, 6.0)])
    assert np.array_equal(roving.loads(rows, type=np.ndarray), cases[0])


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_numpy_subclasses() -> None:
    np = pytest.importorskip("numpy")
    # numpy.matrix's rows are matrices again: its rows nested until the depth
    # limit. It is written as its data seen as a plain ndarray.
    m = np.matrix([[1, 2], [3, 4]])
    back = roving.loads(roving.dumps(m), type=np.ndarray)
    assert type(back) is np.ndarray and back.tolist() == [[1, 2], [3, 4]]
    # A masked array's data alone would write masked values as valid ones
    # (a 1-D one did so, silently): it goes to default= instead.
    for ma in (
        np.ma.masked_array([1, 2], mask=[0, 1]),
        np.ma.masked_array([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]]),
    ):
        with pytest.raises(roving.EncodeError, match="masked array"):
            roving.dumps(ma)
        same(roving.loads(roving.dumps(ma, default=lambda a: a.tolist())), ma.tolist())
    assert roving.loads(
        roving.dumps(np.ma.masked_array([1, 2], mask=[0, 1]).filled(0))
    ).tolist() == [
        1,
        0,
    ]


def test_typed_ndarray_needs_rows_of_one_shape_and_dtype() -> None:
    np = pytest.importorskip("numpy")
    bad = [
        (
            [np.zeros(2), np.zeros(3)],
            r"one shape and dtype, got \(3,\) float64 after .* at \$\[1\]",
        ),
        ([np.zeros(2), np.zeros(2, dtype="i1")], r"got \(2,\) int8 after \(2,\) float64"),
        ([], "got an empty array"),
        # (Not [[1, 2]]: a list of only numbers is a number array, which
        # reads as a row; see the end.)
        ([[1, "x"]], r"expected ndarray, got int at \$\[0\]\[0\]"),
        ("text", "expected ndarray, got str"),
    ]
    for value, why in bad:
        with pytest.raises(roving.ValidationError, match=why):
            roving.loads(roving.dumps(value), type=np.ndarray)
    # Lists of only numbers (number arrays, format version 2) are rows.
    rows = roving.loads(roving.dumps([[1, 2], [3, 4]]), type=np.ndarray)
    assert rows.dtype == np.int64 and rows.tolist() == [[1, 2], [3, 4]]


def test_numpy_datetime64_is_a_timestamp() -> None:
    np = pytest.importorskip("numpy")
    # Exact to the nanosecond (to_json shows the timestamp as written), for
    # every unit; multiples of a unit and dates before 1970 too. A
    # datetime64 is naive: no offset is written, and none shown (no `Z`).
    cases = [
        ("2020-01-01T00:00:00.123456789", "ns", "2020-01-01T00:00:00.123456789"),
        ("1969-12-31T23:59:59.999999999", "ns", "1969-12-31T23:59:59.999999999"),
        ("2020-01-01T00:00:00.123456", "us", "2020-01-01T00:00:00.123456"),
        ("1900-01-01T00:00:00.5", "ms", "1900-01-01T00:00:00.500"),
        ("2020-06-05T13:14:15", "s", "2020-06-05T13:14:15"),
        ("2020-06-05T13:14", "m", "2020-06-05T13:14:00"),
        ("2020-06-05T13", "h", "2020-06-05T13:00:00"),
        ("2020-06-05", "D", "2020-06-05T00:00:00"),
        ("2020-06-04", "W", "2020-06-04T00:00:00"),
        ("2020-03", "M", "2020-03-01T00:00:00"),
        ("1968-12", "M", "1968-12-01T00:00:00"),
        ("2021", "Y", "2021-01-01T00:00:00"),
        ("1969", "Y", "1969-01-01T00:00:00"),
    ]
    for text, unit, want in cases:
        x = np.datetime64(text, unit)
        assert roving.to_json(roving.dumps(x)) == f'"{want}"'.encode(), (text, unit)
        back = roving.loads(roving.dumps([x]))[0]
        assert type(back) is dt.datetime and back.tzinfo is None
        assert back == dt.datetime.fromisoformat(want[:26]), (text, unit)
    assert roving.to_json(roving.dumps(np.datetime64(3, "10ms"))) == b'"1970-01-01T00:00:00.030"'
    assert roving.to_json(roving.dumps(np.datetime64(-1, "2Y"))) == b'"1968-01-01T00:00:00"'
    # Timestamps outside datetime's range are written; loads cannot return them.
    big = roving.dumps(np.datetime64(2**40, "W"))
    assert roving.to_json(big) == b'"+21072526099-09-03T00:00:00"'
    with pytest.raises(roving.DecodeError, match="outside the range of datetime"):
        roving.loads(big)
    # The same bytes as the naive datetime of that instant.
    same_instant = dt.datetime(2020, 1, 2, 3, 4, 5, 678000)
    assert roving.dumps(np.datetime64("2020-01-02T03:04:05.678")) == roving.dumps(same_instant)


def test_numpy_datetime64_errors() -> None:
    np = pytest.importorskip("numpy")
    for x, why in [
        (np.datetime64(5, "ps"), "finer than the nanoseconds"),
        (np.datetime64(5, "as"), "finer than the nanoseconds"),
        (np.datetime64(2**62, "D"), "outside the range of a timestamp"),
        (np.datetime64(2**62, "Y"), "outside the range of a timestamp"),
        (np.datetime64("NaT"), "NaT"),
        (np.datetime64("NaT", "ns"), "NaT"),
    ]:
        with pytest.raises(
            roving.EncodeError, match=rf"type 'numpy.datetime64' .*{why}.* at \$\.t\[1\]$"
        ):
            roving.dumps({"t": [0, x]})
    # NaT goes to default= when given; an unsupported unit is an error still.
    assert roving.loads(roving.dumps([np.datetime64("NaT")], default=lambda o: None)) == [None]
    with pytest.raises(roving.EncodeError, match="finer"):
        roving.dumps(np.datetime64(5, "ps"), default=lambda o: None)


def test_numpy_timedelta64_and_time_arrays_are_not_supported() -> None:
    np = pytest.importorskip("numpy")
    unsupported = [
        np.timedelta64(5, "s"),
        np.timedelta64(5, "ns"),
        np.timedelta64("NaT"),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        np.array(["2020-01-01T00:00:00.1"], dtype="datetime64[ns]"),
        np.array([1, 2], dtype="timedelta64[s]"),
    ]
    seen: list[Any] = []

    def hook(o: Any) -> str:
        seen.append(o)
        return "hooked"

    for x in unsupported:
        with pytest.raises(roving.EncodeError, match=r"numpy.timedelta64|numpy array") as ei:
            roving.dumps({"x": x})
        assert str(ei.value).endswith("at $.x")
        # Never silently an int: default= sees the numpy object itself.
        seen.clear()
        assert roving.loads(roving.dumps([x], default=hook)) == ["hooked"]
        assert len(seen) == 1 and seen[0] is x
    with pytest.raises(roving.EncodeError, match=r"type 'numpy.timedelta64' at \$\[0\]$"):
        roving.dumps([np.timedelta64(5, "s")])


# ---- default hook and errors ---------------------------------------------------------------


def test_unsupported_type_names_type_and_path() -> None:
    with pytest.raises(
        roving.EncodeError, match=r"cannot encode object of type 'complex' at \$\.a\[1\]\.b"
    ):
        roving.dumps({"a": [1, {"b": complex(1, 2)}]})
    with pytest.raises(roving.EncodeError, match=r"at \$\[\"odd key\"\]"):
        roving.dumps({"odd key": object()})
    with pytest.raises(roving.EncodeError, match=r"dict keys must be str, got int"):
        roving.dumps({1: 2})
    with pytest.raises(roving.EncodeError, match=r"at \$\.p\.x"):
        roving.dumps({"p": Point(object(), 1.0)})  # type: ignore[arg-type]
    assert issubclass(roving.EncodeError, roving.RovingError)


def test_encode_error_is_a_type_error() -> None:
    # As json's TypeError and orjson.JSONEncodeError (a TypeError).
    assert issubclass(roving.EncodeError, TypeError)
    assert issubclass(roving.EncodeError, roving.RovingError)
    assert not issubclass(roving.EncodeError, ValueError)
    assert not issubclass(roving.DecodeError, TypeError)
    with pytest.raises(TypeError, match="cannot encode object of type 'object'"):
        roving.dumps([object()])
    with pytest.raises(TypeError, match="cycle"):
        a: list[Any] = []
        a.append(a)
        roving.dumps(a)
    try:
        roving.dumps({1: 2})
    except TypeError as e:
        assert type(e) is roving.EncodeError
    else:
        raise AssertionError("no error")


def test_non_str_key_paths_are_marked_as_keys() -> None:
    cases: list[tuple[Any, str]] = [
        ({"a": {1: 2}}, "got int 1 at $.a[<key 1>]"),
        ({1: 2}, "got int 1 at $[<key 1>]"),
        ({"a": [{(1, "x"): 2}]}, "got tuple (1, 'x') at $.a[0][<key (1, 'x')>]"),
        ({"a": {None: 1}}, "got NoneType None at $.a[<key None>]"),
        ({"a": {"\ud800": 1}}, "surrogates not allowed at $.a[<key '\\ud800'>]"),
        # A dict subclass (written through items()) says the same.
        (collections.OrderedDict(b={2.5: 1}), "got float 2.5 at $.b[<key 2.5>]"),
        # str keys and indexes as before.
        ({"a": {"b c": [0, object()]}}, 'at $.a["b c"][1]'),
    ]
    for obj, want in cases:
        with pytest.raises(roving.EncodeError) as ei:
            roving.dumps(obj)
        assert str(ei.value).endswith(want), str(ei.value)


def test_default_hook() -> None:
    data = {"s": {3, 1, 2}, "c": complex(1, 2)}

    def default(o: Any) -> Any:
        if isinstance(o, set):
            return sorted(o)
        if isinstance(o, complex):
            return [o.real, o.imag]
        raise TypeError(f"nope: {type(o).__name__}")

    same(roving.loads(roving.dumps(data, default=default)), {"s": [1, 2, 3], "c": [1.0, 2.0]})
    with pytest.raises(TypeError, match="nope: object") as ei:
        roving.dumps({"x": [object()]}, default=default)
    assert any("$.x[0]" in n for n in getattr(ei.value, "__notes__", []))


def test_default_returning_itself_is_a_clean_error() -> None:
    class Weird:
        pass

    with pytest.raises(
        roving.EncodeError,
        match=r"^default\(\) returned an unencodable object of type '.*Weird' at \$$",
    ):
        roving.dumps(Weird(), default=lambda o: Weird())


def test_default_is_not_called_again_on_its_own_type() -> None:
    class C:
        pass

    calls: list[Any] = []

    def same(o: Any) -> Any:
        calls.append(o)
        return o

    with pytest.raises(
        roving.EncodeError,
        match=r"^default\(\) returned an unencodable object of type '.*C' at \$\[0\]$",
    ):
        roving.dumps([C()], default=same)
    assert len(calls) == 1
    with pytest.raises(roving.EncodeError, match=r"type '.*C' at \$\.a\.b$"):
        roving.dumps({"a": {"b": C()}}, default=lambda o: o)


def test_default_chains_and_trees() -> None:
    class A:
        pass

    class B:
        pass

    # default may map one unencodable type to another that it then converts.
    def step(o: Any) -> Any:
        return B() if isinstance(o, A) else "b"

    assert roving.loads(roving.dumps([A()], default=step)) == ["b"]

    # Types mapped to each other forever: a clean error after 254 calls.
    calls = 0

    def flip(o: Any) -> Any:
        nonlocal calls
        calls += 1
        return B() if isinstance(o, A) else A()

    with pytest.raises(roving.EncodeError, match=r"254 times in a row .* at \$\[0\]$"):
        roving.dumps([A()], default=flip)
    assert calls == 254

    # A result holding objects of the same type (a tree) is fine.
    @dataclasses.dataclass(eq=False)
    class Node:
        kids: list[Any]

    class Tree:
        def __init__(self, kids: list[Tree]) -> None:
            self.kids = kids

    deep = Tree([])
    for _ in range(500):
        deep = Tree([deep, Tree([])])
    out = roving.loads(roving.dumps(deep, default=lambda t: {"kids": t.kids}))
    n = 0
    while out["kids"]:
        out = out["kids"][0]
        n += 1
    assert n == 500
    got = roving.loads(roving.dumps(Tree([Tree([])]), default=lambda t: Node(t.kids)))
    assert got == {"kids": [{"kids": []}]}
    got = roving.loads(roving.dumps(Tree([Tree([])]), default=lambda t: tuple(t.kids)))
    assert got == [[]]


def test_nested_dumps_in_default_hook() -> None:
    inner = roving.dumps({"a": 1})
    out = roving.dumps(
        {"x": object()}, default=lambda o: roving.loads(roving.dumps({"nested": [1, 2]}))
    )
    same(roving.loads(out), {"x": {"nested": [1, 2]}})
    same(roving.loads(inner), {"a": 1})


def test_key_objects_shared_across_dicts() -> None:
    # The same key objects recur across dicts (as after json.loads), in
    # changing orders and lengths, mixed with fresh keys; each hook call
    # makes new key objects (shared by two containers) that are freed once
    # encoded, so their addresses get reused by the next call's keys.
    keys = [f"k{i}" for i in range(40)]
    rows: list[Any] = []
    for r in range(60):
        ks = keys[r % 7 :] + keys[: r % 7] if r % 3 else keys[::-1]
        d: dict[Any, Any] = {k: r for k in ks[: 1 + r % 40]}
        d[f"fresh{r}"] = {"x": r, keys[r % 40]: [r], "": r}
        rows.append(d)
    calls = []

    def default(o: Any) -> Any:
        n = len(calls)
        calls.append(n)
        ks = ["".join(["t", str(n), "_", str(i)]) for i in range(4)]
        return [ks, {k: n for k in ks}]

    rows.append([{"a": object()} for _ in range(20)])
    out = roving.loads(roving.dumps(rows, default=default))
    hooked = [
        {"a": [[f"t{n}_{i}" for i in range(4)], {f"t{n}_{i}": n for i in range(4)}]}
        for n in range(20)
    ]
    expect = rows[:-1] + [hooked]
    same(out, expect)
    assert [list(d) for d in out[:-1]] == [list(d) for d in rows[:-1]]
    assert [list(d["a"][1]) for d in out[-1]] == [list(d["a"][1]) for d in hooked]


def test_loads_accepts_buffers(people_bytes: bytes) -> None:
    a = roving.loads(people_bytes)
    same(roving.loads(bytearray(people_bytes)), a)
    same(roving.loads(memoryview(people_bytes)), a)
    same(roving.loads(array.array("B", people_bytes)), a)
    with pytest.raises(TypeError):
        roving.loads("not bytes")  # type: ignore[arg-type]


def test_dump_and_load_files(tmp_path: Any) -> None:
    p = tmp_path / "x.rov"
    roving.dump({"a": [1, 2]}, p)
    same(roving.load(p), {"a": [1, 2]})
    same(roving.load(str(p)), {"a": [1, 2]})
    with open(p, "wb") as f:
        roving.dump([3], f)
    with open(p, "rb") as f:
        same(roving.load(f), [3])


def test_people_round_trip(people: Any, people_bytes: bytes) -> None:
    same(roving.loads(people_bytes), people)
    assert len(people_bytes) < 842_077  # pickle protocol 5 of the same data


# ---- hypothesis ---------------------------------------------------------------------------

fixed_tz = st.integers(-86399, 86399).map(lambda s: dt.timezone(dt.timedelta(seconds=s)))
# A time's offset may have microseconds (a datetime's may not: the format's
# timestamps keep whole seconds).
fixed_tz_us = st.integers(-86_399_999_999, 86_399_999_999).map(
    lambda us: dt.timezone(dt.timedelta(microseconds=us))
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
    | st.binary()
    | st.datetimes()
    | st.datetimes(timezones=fixed_tz)
    | st.dates()
    | st.times()
    | st.times(timezones=fixed_tz | fixed_tz_us)
    | st.timedeltas()
    | st.timedeltas(min_value=dt.timedelta.max - dt.timedelta(days=2))
    | st.timedeltas(max_value=dt.timedelta.min + dt.timedelta(days=2))
    | st.uuids()
    | st.decimals(allow_nan=True, allow_infinity=True)
    | st.builds(roving.Ext, st.integers(6, 2**64 - 1), st.binary())
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=8) | st.dictionaries(st.text(max_size=8), children, max_size=8)
    ),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_hypothesis_round_trip(x: Any) -> None:
    same(rt(x), x)


@settings(max_examples=200, deadline=None)
@given(values)
def test_hypothesis_dumps_is_deterministic(x: Any) -> None:
    assert roving.dumps(x) == roving.dumps(x)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda c: st.lists(c, max_size=6) | st.dictionaries(st.text(max_size=6), c, max_size=6),
        max_leaves=30,
    )
)
def test_hypothesis_json_agrees(x: Any) -> None:
    import json

    try:
        text = json.dumps(x, allow_nan=False)
    except ValueError:
        return
    a = roving.from_json(text)
    assert roving.loads(a) == json.loads(text)
    assert json.loads(roving.to_json(roving.dumps(x))) == json.loads(text)


def test_recursion_limit_setting_does_not_matter() -> None:
    old = sys.getrecursionlimit()
    try:
        x: Any = []
        for _ in range(500):
            x = [x]
        sys.setrecursionlimit(100)
        back = roving.loads(roving.dumps(x))
    finally:
        sys.setrecursionlimit(old)
    assert back == x


def test_key_strings_across_documents() -> None:
    # Short keys of small documents come from a per-thread cache of interned
    # strs (by bytes, 256 entries): many distinct keys (evictions, entries
    # that share a slot), keys of every length around the cache's limit,
    # non-ASCII and empty keys all come back equal, and interned.
    keys = [f"k{i}" for i in range(2000)] + [
        "",
        "é",
        "日本",
        "x" * 23,
        "x" * 24,
        "x" * 25,
        "x" * 200,
    ]
    for rnd in range(3):
        for i in range(0, len(keys), 7):
            d = {k: j for j, k in enumerate(keys[i : i + 7 + rnd])}
            got = roving.loads(roving.dumps(d))
            assert got == d
            assert list(got) == list(d)
            for k in got:
                assert k is sys.intern(k)


@pytest.mark.parametrize("change", ["grow", "delete", "clear", "replace"])
def test_default_hook_changing_the_dict_being_encoded(change: str) -> None:
    # dumps reads a dict's table directly on CPython 3.11; a hook that runs
    # mid-dict and changes that dict (a new, bigger table; removed items;
    # an emptied table) must be seen as PyDict_Next would see it: no crash,
    # no stale item, a valid document.
    d: dict[Any, Any] = {f"k{i}": i for i in range(6)}
    d["hook"] = object()
    d.update({f"after{i}": i for i in range(3)})

    def default(o: Any) -> Any:
        if change == "grow":
            for i in range(1000):
                d[f"new{i}"] = i
        elif change == "delete":
            for i in range(3):
                del d[f"after{i}"]
        elif change == "clear":
            d.clear()
        else:
            d.clear()
            d.update({f"other{i}": [i] for i in range(50)})
        return "hooked"

    out = roving.loads(roving.dumps(d, default=default))
    assert isinstance(out, dict)
    assert out["hook"] == "hooked"
    assert [k for k in out if k.startswith("k")] == [f"k{i}" for i in range(6)]
    for k, v in out.items():
        if k != "hook":
            assert d.get(k, v) == v or k.startswith("k")
    if change == "delete":
        assert not any(k.startswith("after") for k in out)


def test_dict_iteration_mode_is_known() -> None:
    # On CPython 3.11 dicts are read directly (checked against PyDict_Next
    # at import); elsewhere through PyDict_Next.
    import sys

    direct = roving._roving._dict_direct()
    assert direct == (sys.implementation.name == "cpython" and sys.version_info[:2] == (3, 11))


def test_every_day_of_datetime_range_round_trips() -> None:
    """Every date datetime can hold (years 1 to 9999) comes back as the
    same date, naive and aware (the decoder's own day-to-date arithmetic
    against Python's)."""
    first = dt.date(1, 1, 1).toordinal()
    last = dt.date(9999, 12, 31).toordinal()
    plus2 = dt.timezone(dt.timedelta(hours=2))
    step = 400_000
    for lo in range(first, last + 1, step):
        days = range(lo, min(lo + step, last + 1))
        naive = [dt.datetime.fromordinal(d) for d in days]
        assert roving.loads(roving.dumps(naive)) == naive
        # Aware, late in the day at +02:00 (the local date is what is built).
        aware = [
            dt.datetime.fromordinal(d).replace(hour=23, minute=59, tzinfo=plus2) for d in days[::7]
        ]
        back = roving.loads(roving.dumps(aware))
        assert [b.date() for b in back] == [a.date() for a in aware]
        assert back == aware
