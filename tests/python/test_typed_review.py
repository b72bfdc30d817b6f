"""Typed decoding reviewed against msgspec: each test pins a defect that was fixed."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import typing
import uuid
from typing import Any

import pytest
import roving
from conftest import mypy_strict
from hypothesis import given, settings
from hypothesis import strategies as st


def enc(x: Any) -> bytes:
    return roving.dumps(x)


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class One(enum.Enum):
    ONE = 1


class Perm(enum.Flag):
    R = 1
    W = 2


class Switch(enum.Enum):
    ON = True
    OFF = False


def test_a_bool_is_not_an_int_enum_member() -> None:
    # As for int fields and Literal[1]: True is not 1 here (msgspec agrees).
    for tp in (Level, One, Perm):
        with pytest.raises(roving.ValidationError, match=r"expected .+, got bool at \$$"):
            roving.loads(enc(True), type=tp)
    assert roving.loads(enc(1), type=Level) is Level.LOW
    assert roving.loads(enc(Perm.R | Perm.W), type=Perm) == Perm.R | Perm.W
    # Members whose value is a bool still read back, and 1 is not True.
    assert roving.loads(enc(Switch.ON), type=Switch) is Switch.ON
    with pytest.raises(roving.ValidationError, match=r"got int at \$$"):
        roving.loads(enc(1), type=Switch)


@dataclasses.dataclass
class Derived:
    a: int
    twice: int = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.twice = 2 * self.a


def test_init_false_fields_without_default_are_not_required() -> None:
    # __init__ never takes them, so neither does decoding; __post_init__ sets them.
    out = roving.loads(enc(Derived(3)), type=Derived)
    assert out == Derived(3) and out.twice == 6
    assert roving.loads(enc({"a": 4, "twice": 0}), type=Derived).twice == 8


def test_bare_typing_tuple_is_a_tuple_of_any_length() -> None:
    # typing.Tuple (no parameters) is tuple[Any, ...], like tuple and typing.List;
    # it read as tuple[()] and rejected every non-empty array.
    assert roving.loads(enc([1, "a"]), type=typing.Tuple) == (1, "a")  # noqa: UP006
    assert roving.loads(enc([]), type=typing.Tuple[()]) == ()  # noqa: UP006
    assert roving.loads(enc([]), type=tuple[()]) == ()
    with pytest.raises(roving.ValidationError, match=r"expected tuple of length 0, got list"):
        roving.loads(enc([1]), type=tuple[()])


@dataclasses.dataclass
class OptA:
    x: int = 0


@dataclasses.dataclass
class OptB:
    y: int = 0


def test_unions_equal_but_in_another_order_are_not_confused() -> None:
    # Union[A, B] == Union[B, A] in Python; the plan cached for one was used
    # for the other, so the member picked depended on what was decoded before.
    for _ in range(2):
        assert type(roving.loads(enc({}), type=typing.Union[OptA, OptB])) is OptA  # noqa: UP007
        assert type(roving.loads(enc({}), type=typing.Union[OptB, OptA])) is OptB  # noqa: UP007
        assert type(roving.loads(enc({}), type=OptA | OptB)) is OptA
        assert type(roving.loads(enc({}), type=OptB | OptA)) is OptB
        assert type(roving.loads(enc([{}]), type=list[OptB | OptA])[0]) is OptB


def test_an_int_in_a_union_with_int_and_float_stays_an_int() -> None:
    # float accepts integers, but not ahead of int (msgspec and pydantic agree):
    # float | int turned 2**60 + 1 into a float, losing its last digits.
    big = 2**60 + 1
    for tp in (float | int, int | float, typing.Union[float, int]):  # noqa: UP007
        out = roving.loads(enc(big), type=tp)
        assert out == big and type(out) is int
    assert roving.loads(enc([big, 1.5]), type=list[float | int]) == [big, 1.5]
    assert type(roving.loads(enc([big]), type=list[float | int])[0]) is int
    assert roving.loads(enc(3), type=float | str) == 3.0


T = typing.TypeVar("T")
U = typing.TypeVar("U")
N = typing.TypeVar("N", bound=int)


@dataclasses.dataclass
class Box(typing.Generic[T]):
    item: T


@dataclasses.dataclass
class Pair(typing.Generic[T, U]):
    first: T
    rest: list[U] = dataclasses.field(default_factory=list)
    maybe: T | None = None


@dataclasses.dataclass
class IntBox(Box[int]):
    note: str = ""


@dataclasses.dataclass
class Relabel(Box[int], typing.Generic[T]):
    # The same TypeVar object, bound to int for Box's field and free here.
    other: T | None = None


@dataclasses.dataclass
class Tree(typing.Generic[T]):
    value: T
    children: list[Tree[T]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Bounded(typing.Generic[N]):
    n: N


def test_generic_dataclasses() -> None:
    # msgspec decodes these; they were "unsupported type" (and a bare Box
    # failed on its field of type ~T).
    assert roving.loads(enc(Box(1)), type=Box[int]) == Box(1)
    with pytest.raises(roving.ValidationError, match=r"expected int, got str at \$\.item$"):
        roving.loads(enc(Box("s")), type=Box[int])
    assert roving.loads(enc(Box([1])), type=Box[list[int]]) == Box([1])
    assert roving.loads(enc(Box(Box("x"))), type=Box[Box[str]]) == Box(Box("x"))
    # An unparameterized generic reads its type variables as Any (or their bound).
    assert roving.loads(enc(Box({"a": [1]})), type=Box) == Box({"a": [1]})
    assert roving.loads(enc(Box(1)), type=typing.Any) == {"item": 1}
    assert roving.loads(enc(3), type=T) == 3
    with pytest.raises(roving.ValidationError, match=r"expected int, got str at \$\.n$"):
        roving.loads(enc({"n": "x"}), type=Bounded)
    p = Pair("a", [1, 2], "b")
    assert roving.loads(enc(p), type=Pair[str, int]) == p
    with pytest.raises(roving.ValidationError, match=r"expected int, got str at \$\.rest\[0\]$"):
        roving.loads(enc(Pair(1, ["x"])), type=Pair[int, int])
    with pytest.raises(roving.ValidationError, match=r"expected str \| None, got int at \$\.maybe"):
        roving.loads(enc(Pair("a", [], 5)), type=Pair[str, int])
    # Parameters bound by a base class, per class.
    assert roving.loads(enc(IntBox(1, "n")), type=IntBox) == IntBox(1, "n")
    with pytest.raises(roving.ValidationError, match=r"expected int, got str at \$\.item$"):
        roving.loads(enc({"item": "x"}), type=IntBox)
    assert roving.loads(enc(Relabel(1, "s")), type=Relabel[str]) == Relabel(1, "s")
    with pytest.raises(roving.ValidationError, match=r"got str at \$\.item$"):
        roving.loads(enc({"item": "x", "other": "s"}), type=Relabel[str])
    # Recursive generics.
    t = Tree(1, [Tree(2, [Tree(3)])])
    assert roving.loads(enc(t), type=Tree[int]) == t
    with pytest.raises(roving.ValidationError, match=r"at \$\.children\[0\]\.value$"):
        roving.loads(enc(Tree(1, [Tree("x")])), type=Tree[int])
    assert roving.loads(enc(Tree("a", [Tree("b")])), type=Tree[str]) == Tree("a", [Tree("b")])
    # (Box[A | B] and Box[B | A] are one object: typing caches them as equal.)
    assert type(roving.loads(enc(Box({})), type=Box[OptA | OptB]).item) is OptA


class Movie(typing.TypedDict):
    title: str
    year: int
    tags: typing.NotRequired[list[str]]


class Partial(typing.TypedDict, total=False):
    a: int
    b: typing.Required[str]


class Cast(typing.TypedDict):
    movie: Movie
    sequels: list[Cast]


def test_typed_dicts() -> None:
    # msgspec decodes these (a dict with checked values; unknown keys dropped,
    # as for dataclasses); they were "unsupported type".
    m: Movie = {"title": "Up", "year": 2009, "tags": ["a"]}
    out = roving.loads(enc(m), type=Movie)
    assert out == m and type(out) is dict
    assert roving.loads(enc({"title": "Up", "year": 2009, "x": 1}), type=Movie) == {
        "title": "Up",
        "year": 2009,
    }
    with pytest.raises(roving.ValidationError, match=r"missing required field 'year' at \$$"):
        roving.loads(enc({"title": "Up"}), type=Movie)
    with pytest.raises(roving.ValidationError, match=r"expected int, got str at \$\.year$"):
        roving.loads(enc({"title": "Up", "year": "x"}), type=Movie)
    with pytest.raises(roving.ValidationError, match=r"expected str, got int at \$\.tags\[0\]$"):
        roving.loads(enc({"title": "Up", "year": 1, "tags": [1]}), type=Movie)
    assert roving.loads(enc({"b": "x"}), type=Partial) == {"b": "x"}
    with pytest.raises(roving.ValidationError, match=r"missing required field 'b'"):
        roving.loads(enc({"a": 1}), type=Partial)
    c: Cast = {"movie": m, "sequels": [{"movie": m, "sequels": []}]}
    assert roving.loads(enc(c), type=Cast) == c
    assert roving.loads(enc([m, m]), type=list[Movie]) == [m, m]
    with pytest.raises(roving.ValidationError, match=r"expected Movie, got list at \$$"):
        roving.loads(enc([1]), type=Movie)


class Point(typing.NamedTuple):
    x: int
    y: int
    label: str = ""


def test_named_tuples() -> None:
    # msgspec decodes these from arrays (what dumps writes for them).
    p = Point(1, 2, "a")
    out = roving.loads(enc(p), type=Point)
    assert out == p and type(out) is Point
    assert roving.loads(enc([1, 2]), type=Point) == Point(1, 2, "")
    assert roving.loads(enc([p, Point(3, 4)]), type=list[Point]) == [p, Point(3, 4)]
    # The path is the document's ($[1]), as msgspec's.
    with pytest.raises(roving.ValidationError, match=r"expected int, got str at \$\[1\]$"):
        roving.loads(enc([1, "x"]), type=Point)
    with pytest.raises(
        roving.ValidationError,
        match=r"expected Point \(2 to 3 items\), got list of length 4 at \$$",
    ):
        roving.loads(enc([1, 2, "a", 4]), type=Point)
    with pytest.raises(roving.ValidationError, match=r"got list of length 1 at \$\[0\]$"):
        roving.loads(enc([[1]]), type=list[Point])
    with pytest.raises(roving.ValidationError, match=r"expected Point, got dict at \$$"):
        roving.loads(enc({"x": 1, "y": 2}), type=Point)


@dataclasses.dataclass
class Blob:
    data: bytes
    buf: bytearray
    name: str = ""


def test_bytes_read_back_through_json() -> None:
    # to_json writes bytes as {"$base64": ...}; like the other forms it writes
    # (timestamps, dates, UUIDs, Decimals as text), typed loads reads it back.
    b = Blob(b"\x00\xffab", bytearray(b"q"), "n")
    back = roving.from_json(roving.to_json(enc(b)))
    assert roving.loads(back, type=Blob) == b
    assert roving.loads(roving.from_json(b'{"$base64": ""}'), type=bytes) == b""
    assert roving.loads(enc({"$base64": "AGI="}), type=bytes | None) == b"\x00b"
    with pytest.raises(roving.ValidationError, match=r"invalid base64 '\*\*\*' at \$$"):
        roving.loads(enc({"$base64": "***"}), type=bytes)
    with pytest.raises(roving.ValidationError, match=r"expected bytes, got dict at \$$"):
        roving.loads(enc({"$base64": "AGI=", "x": 1}), type=bytes)
    with pytest.raises(roving.ValidationError, match=r"expected bytes, got dict at \$$"):
        roving.loads(enc({"other": "AGI="}), type=bytes)
    # A map is still a map where bytes are not wanted.
    assert roving.loads(enc({"$base64": "AGI="}), type=dict[str, str]) == {"$base64": "AGI="}


@dataclasses.dataclass
class Lazy:
    a: int
    cache: int = dataclasses.field(init=False)


def test_unset_init_false_fields_are_left_out_by_dumps() -> None:
    # A field that __init__ never sets may be unset: dumps leaves it out (as
    # msgspec does) instead of raising AttributeError, and typed loads leaves
    # it unset again.
    x = Lazy(1)
    assert roving.loads(enc(x)) == {"a": 1}
    back = roving.loads(enc(x), type=Lazy)
    assert back.a == 1 and not hasattr(back, "cache")
    x.cache = 5
    assert roving.loads(enc(x)) == {"a": 1, "cache": 5}


class Lang(enum.StrEnum):
    EN = "en"
    FR = "fr"


def test_dict_keys_of_str_like_types() -> None:
    # Map keys are str; a key type that reads from str (a str-valued enum,
    # a Literal of str, UUID...) now decodes them, as msgspec does. dumps
    # writes a StrEnum key as its str, so such dicts round-trip.
    d = {Lang.EN: 1, Lang.FR: 2}
    out = roving.loads(enc(d), type=dict[Lang, int])
    assert out == d and all(type(k) is Lang for k in out)
    assert roving.loads(enc({"a": 1}), type=dict[typing.Literal["a", "b"], int]) == {"a": 1}
    u = uuid.UUID(int=7)
    assert roving.loads(enc({str(u): [1]}), type=dict[uuid.UUID, list[int]]) == {u: [1]}
    assert roving.loads(enc({"fr": {}}), type=typing.Mapping[Lang, dict[str, int]]) == {Lang.FR: {}}
    with pytest.raises(roving.ValidationError, match=r"invalid value 'de' for Lang at \$\.de$"):
        roving.loads(enc({"de": 1}), type=dict[Lang, int])
    with pytest.raises(roving.ValidationError, match=r"expected int, got str at \$\.fr$"):
        roving.loads(enc({"fr": "x"}), type=dict[Lang, int])
    with pytest.raises(TypeError, match="dict keys must be str"):
        roving.loads(enc({}), type=dict[float, int])


@dataclasses.dataclass
class Counts:
    by_id: dict[int, int]
    names: typing.Mapping[int, str | None] = dataclasses.field(default_factory=dict)


def test_dict_keys_of_int_types() -> None:
    # Map keys are str: int keys are read from their canonical decimal
    # text, as msgspec reads JSON object keys for dict[int, T].
    big = 2**70
    d = {"1": "a", "-20": "b", "0": "c", str(big): "d", str(-(2**64)): "e", str(2**64 - 1): "f"}
    out = roving.loads(enc(d), type=dict[int, str])
    assert out == {1: "a", -20: "b", 0: "c", big: "d", -(2**64): "e", 2**64 - 1: "f"}
    assert all(type(k) is int for k in out)
    assert list(out) == [1, -20, 0, big, -(2**64), 2**64 - 1]  # the document's order
    assert roving.loads(enc({"9" * 4300: 1}), type=dict[int, int]) == {int("9" * 4300): 1}
    assert roving.loads(enc({"-" + "9" * 4300: 1}), type=dict[int, int]) == {-int("9" * 4300): 1}
    # IntEnum, Literal of ints and unions of them.
    out2 = roving.loads(enc({"2": 5, "1": 6}), type=dict[Level, int])
    assert out2 == {Level.HIGH: 5, Level.LOW: 6} and all(type(k) is Level for k in out2)
    lit = typing.Literal[1, 7, 2**70]
    assert roving.loads(enc({"7": 0, str(big): 1}), type=dict[lit, int]) == {7: 0, big: 1}
    either = Level | typing.Literal[9, 2**80]
    out3 = roving.loads(enc({"9": 0, "2": 1, str(2**80): 2}), type=dict[either, int])
    assert out3 == {9: 0, Level.HIGH: 1, 2**80: 2}
    # Nested, and through JSON (whose object keys are str too).
    c = Counts({3: 4, -5: 6}, {1: None, 2: "two"})
    assert (
        roving.loads(
            enc({"by_id": {"3": 4, "-5": 6}, "names": {"1": None, "2": "two"}}), type=Counts
        )
        == c
    )
    assert roving.loads(roving.from_json('{"by_id": {"10": 1}}'), type=Counts) == Counts({10: 1})
    # Errors name the key.
    with pytest.raises(
        roving.ValidationError, match=r"expected int, got str at \$\.by_id\[\"3\"\]$"
    ):
        roving.loads(enc({"by_id": {"3": "x"}}), type=Counts)
    with pytest.raises(roving.ValidationError, match=r"invalid value 3 for Level at \$\[\"3\"\]$"):
        roving.loads(enc({"3": 1}), type=dict[Level, int])
    with pytest.raises(
        roving.ValidationError, match=r"expected one of 1, 7, .*, got 8 at \$\[\"8\"\]$"
    ):
        roving.loads(enc({"8": 1}), type=dict[lit, int])
    with pytest.raises(roving.ValidationError, match=r"at \$\[\"5\"\]$"):
        roving.loads(enc({"5": 1}), type=dict[either, int])
    with pytest.raises(roving.ValidationError, match=r"at \$\[\"1180591620717411303423\"\]$"):
        roving.loads(enc({str(big - 1): 1}), type=dict[lit, int])


@pytest.mark.parametrize(
    "key",
    [
        "",
        "-",
        "01",
        "-01",
        "00",
        "-0",
        " 1",
        "1 ",
        "+1",
        "1.0",
        "1e3",
        "0x10",
        "1_000",
        "\u0663",
        "\uff11",
        "one",
        "9" * 4301,
        "-" + "9" * 4301,
    ],
)
def test_dict_int_keys_must_be_canonical(key: str) -> None:
    for t in [dict[int, int], dict[Level, int], dict[typing.Literal[1], int]]:
        with pytest.raises(
            roving.ValidationError, match=r"invalid int key .* at \$\.by_id[.\[]"
        ) as e:
            roving.loads(enc({"by_id": {"1": 1, key: 2}}), type=dict[str, t])  # type: ignore[valid-type]
        assert e.value.path.startswith("$.by_id") and e.value.path != "$.by_id"


def test_dumps_still_refuses_int_keys() -> None:
    # Non-str keys are not converted silently: write {str(k): v} instead.
    for d in [{1: 2}, {Level.LOW: 1}]:
        with pytest.raises(roving.EncodeError, match="dict keys must be str"):
            enc(d)
    assert roving.loads(enc({str(k): v for k, v in {1: 2}.items()}), type=dict[int, int]) == {1: 2}


TYPED_USE = """
import dataclasses
from typing import Any, assert_type

import roving


@dataclasses.dataclass
class Item:
    id: int


b = roving.dumps(Item(1))
assert_type(roving.loads(b, type=Item), Item)
assert_type(roving.loads(b, type=list[Item]), list[Item])
assert_type(roving.loads(b, type=dict[str, Item]), dict[str, Item])
assert_type(roving.loads(b), Any)
assert_type(roving.load("f", type=Item), Item)
assert_type(roving.load("f"), Any)
n: int | None = roving.loads(b, type=int | None)
"""


def test_loads_with_a_type_is_typed_as_that_type(tmp_path: Any) -> None:
    # As msgspec.msgpack.decode(b, type=T) is: mypy sees loads(b, type=Item) as an Item.
    r = mypy_strict(tmp_path, TYPED_USE)
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_unresolvable_annotation_names_the_class() -> None:
    # A string annotation naming a class local to a function cannot be
    # resolved (as for msgspec); the error says which class it was in.
    @dataclasses.dataclass
    class Inner:
        x: int

    @dataclasses.dataclass
    class Outer:
        i: Inner

    with pytest.raises(NameError, match=r"type hints of .*Outer: name 'Inner' is not defined"):
        roving.loads(enc({"i": {"x": 1}}), type=Outer)


class Shape(enum.Enum):
    CIRCLE = "circle"
    SQUARE = "square"


def test_literal_of_enum_members_reads_back() -> None:
    # Literal[Shape.CIRCLE] (PEP 586 allows enum members) matched nothing
    # dumps writes: the member is written as its value.
    tp = typing.Literal[Shape.CIRCLE, Level.HIGH]
    assert roving.loads(enc(Shape.CIRCLE), type=tp) is Shape.CIRCLE
    assert roving.loads(enc(Level.HIGH), type=tp) is Level.HIGH
    with pytest.raises(roving.ValidationError, match=r"got 'square' at \$$"):
        roving.loads(enc(Shape.SQUARE), type=tp)
    with pytest.raises(roving.ValidationError, match=r"got True at \$$"):
        roving.loads(enc(True), type=typing.Literal[Level.LOW])


@dataclasses.dataclass
class Rec:
    i: int
    f: float
    s: str
    b: bytes
    o: int | None
    tags: list[str]
    t: tuple[int, str]
    st: frozenset[int]
    d: dict[str, float]
    shape: Shape
    lang: Lang
    when: dt.datetime
    day: dt.date
    u: uuid.UUID
    dec: decimal.Decimal
    p: Point
    box: Box[list[int]]
    m: Movie
    clock: dt.time
    span: dt.timedelta


offsets = st.sampled_from([None, dt.UTC, dt.timezone(dt.timedelta(hours=5, minutes=30))])
recs = st.builds(
    Rec,
    i=st.integers(min_value=-(2**80), max_value=2**80),
    f=st.floats(allow_nan=False, allow_infinity=False),
    s=st.text(),
    b=st.binary(),
    o=st.none() | st.integers(),
    tags=st.lists(st.text(max_size=5), max_size=3),
    t=st.tuples(st.integers(), st.text(max_size=3)),
    st=st.frozensets(st.integers(), max_size=3),
    d=st.dictionaries(
        st.text(max_size=3), st.floats(allow_nan=False, allow_infinity=False), max_size=3
    ),
    shape=st.sampled_from(Shape),
    lang=st.sampled_from(Lang),
    when=st.builds(
        lambda d, tz: d.replace(tzinfo=tz),
        st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)),
        offsets,
    ),
    day=st.dates(),
    u=st.uuids(),
    dec=st.decimals(allow_nan=False, allow_infinity=False),
    p=st.builds(Point, st.integers(), st.integers(), st.text(max_size=3)),
    box=st.builds(Box, st.lists(st.integers(), max_size=3)),
    m=st.fixed_dictionaries(
        {"title": st.text(max_size=3), "year": st.integers()},
        optional={"tags": st.lists(st.text(max_size=3), max_size=2)},
    ),
    clock=st.times(timezones=st.none() | offsets | st.timezones())
    | st.times(
        timezones=st.integers(-86_399_999_999, 86_399_999_999).map(
            lambda us: dt.timezone(dt.timedelta(microseconds=us))
        )
    ),
    span=st.timedeltas(),
)


@settings(max_examples=150, deadline=None)
@given(recs)
def test_typed_round_trips(r: Rec) -> None:
    # loads(dumps(x), type=type(x)) == x, directly and through to_json/from_json
    # (finite floats: JSON has no infinity, to_json writes null as orjson does).
    b = roving.dumps(r)
    assert roving.loads(b, type=Rec) == r
    assert roving.loads(roving.from_json(roving.to_json(b)), type=Rec) == r


GOOD_REC = roving.dumps(
    [
        Rec(
            i=2**70,
            f=1.5,
            s="s",
            b=b"\x00b",
            o=None,
            tags=["a"],
            t=(1, "x"),
            st=frozenset({1}),
            d={"k": 2.5},
            shape=Shape.SQUARE,
            lang=Lang.FR,
            when=dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
            day=dt.date(2024, 1, 2),
            u=uuid.UUID(int=5),
            dec=decimal.Decimal("1.5"),
            p=Point(1, 2),
            box=Box([1]),
            m={"title": "t", "year": 1},
            clock=dt.time(1, 2, 3, 4, tzinfo=dt.timezone(dt.timedelta(hours=-2))),
            span=dt.timedelta(days=-3, microseconds=7),
        ),
        {"k": {"$base64": "AGI="}},
    ]
)
REC_TYPE = tuple[Rec, dict[Lang | str, Blob | bytes]]


@settings(max_examples=1500, deadline=None)
@given(st.integers(0, len(GOOD_REC) - 1), st.integers(0, 255), st.integers(1, 4))
def test_typed_decoding_of_damaged_documents(at: int, byte: int, run: int) -> None:
    # Damaged bytes through the new plans: a value or a roving error, never a crash.
    roving.loads(GOOD_REC, type=REC_TYPE)
    b = bytearray(GOOD_REC)
    for i in range(at, min(at + run, len(b))):
        b[i] = byte
    try:
        roving.loads(bytes(b), type=REC_TYPE)
    except roving.RovingError:
        pass


def test_an_unsupported_field_type_is_named_with_its_field() -> None:
    # Dataclasses, TypedDicts and NamedTuples name the field alike.
    @dataclasses.dataclass
    class HasComplex:
        x: complex

    class TD(typing.TypedDict):
        y: complex

    class NT(typing.NamedTuple):
        z: complex

    for t, field, data in (
        (HasComplex, "HasComplex.x", {"x": 1}),
        (TD, "TD.y", {"y": 1}),
        (NT, "NT.z", [1]),
    ):
        with pytest.raises(TypeError, match=rf"^field \S*{field}: unsupported type"):
            roving.loads(roving.dumps(data), type=t)


@dataclasses.dataclass
class Cat:
    name: str
    meows: bool = False


@dataclasses.dataclass
class Dog:
    name: str
    barks: bool = False
    owner: str | None = None


def test_a_union_of_dataclasses_picks_the_one_the_keys_belong_to() -> None:
    # Unknown keys are ignored (old readers take new data), so the first
    # dataclass took every map that had its required fields: every Dog came
    # back a Cat, silently. The member with the fewest keys that are not its
    # fields now goes first (ties: the order written); pydantic's "smart"
    # unions also choose by how well the keys fit.
    pets = [Dog("rex", barks=True), Cat("tom", meows=True), Dog("fido"), Cat("kit")]
    for tp in (Cat | Dog, Dog | Cat, typing.Union[Cat, Dog]):  # noqa: UP007
        assert roving.loads(roving.dumps(pets), type=list[tp]) == pets  # type: ignore[valid-type]
    # A key a newer writer added still reads: the best member still wins.
    newer = {"name": "rex", "barks": True, "collar": "red"}
    assert roving.loads(roving.dumps(newer), type=Cat | Dog) == Dog("rex", True)
    # Keys both take equally: the first member, as before.
    assert type(roving.loads(roving.dumps({"name": "x"}), type=Cat | Dog)) is Cat
    assert type(roving.loads(roving.dumps({"name": "x"}), type=Dog | Cat)) is Dog
    # A member that lacks a required field falls through to the next.
    assert roving.loads(roving.dumps({"barks": True}), type=Cat | Dog | dict[str, Any]) == {
        "barks": True
    }
    # Other members keep their places: dataclasses are reordered among
    # themselves only.
    dog = roving.dumps({"name": "x", "barks": True})
    assert roving.loads(dog, type=Cat | dict[str, Any] | Dog) == Dog("x", True)
    assert roving.loads(dog, type=dict[str, Any] | Cat | Dog) == {"name": "x", "barks": True}
    cat_plus = roving.dumps({"name": "x", "extra": 1})
    assert roving.loads(cat_plus, type=Cat | dict[str, Any]) == Cat("x")
    # Shared records decode once per member chosen.
    rex = {"name": "rex", "barks": True}
    out = roving.loads(roving.dumps([rex, rex]), type=list[Cat | Dog])
    assert out == [Dog("rex", True)] * 2 and out[0] is out[1]
