"""Typed decoding: ``loads(data, type=...)`` successes and every kind of
mismatch; then the cases a review against msgspec found, each pinning a
defect that was fixed."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import subprocess
import sys
import typing
import uuid
from typing import Any, Literal, Optional

import pytest
import roving
from conftest import mypy_strict
from hypothesis import given, settings
from hypothesis import strategies as st


@dataclasses.dataclass
class Friend:
    id: int
    name: str


@dataclasses.dataclass
class Person:
    name: str
    age: int
    tags: list[str]
    friends: list[Friend]
    balance: str | None = None
    email: str | None = None
    latitude: float = 0.0
    extra: dict[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Item:
    id: int
    views: int


@dataclasses.dataclass
class Placed:
    at: dt.datetime
    rect: tuple[int, int, int, int]
    pair: tuple[str, tuple[int, float]] = ("", (0, 0.0))


def enc(x: Any) -> bytes:
    return roving.dumps(x)


def test_people_typed(people: Any, people_bytes: bytes) -> None:
    out = roving.loads(people_bytes, type=list[Person])
    assert len(out) == len(people)
    p = out[123]
    assert isinstance(p, Person) and isinstance(p.friends[0], Friend)
    assert p.name == people[123]["name"] and p.tags == people[123]["tags"]
    assert p.friends[1].name == people[123]["friends"][1]["name"]
    assert p.balance == people[123]["balance"] and p.extra == {}


def test_unknown_fields_are_ignored_and_defaults_fill_missing() -> None:
    b = enc({"name": "a", "age": 3, "tags": [], "friends": [], "new_field": [1, 2, 3]})
    p = roving.loads(b, type=Person)
    assert p == Person("a", 3, [], [])
    p2 = roving.loads(b, type=Person)
    assert p2.extra is not p.extra  # default_factory called per instance


def test_missing_required_field() -> None:
    with pytest.raises(
        roving.ValidationError, match=r"missing required field 'age' at \$\[1\]"
    ) as ei:
        roving.loads(
            enc([{"name": "a", "age": 1, "tags": [], "friends": []}, {"name": "b"}]),
            type=list[Person],
        )
    assert ei.value.path == "$[1]"


@pytest.mark.parametrize(
    ("value", "tp", "message"),
    [
        (
            [
                {"id": 1, "views": 2},
                {"id": 1, "views": 2},
                {"id": 1, "views": 2},
                {"id": 1, "views": "x"},
            ],
            list[Item],
            r"expected int, got str at \$\[3\]\.views",
        ),
        ({"id": 1.5, "views": 1}, Item, r"expected int, got float at \$\.id"),
        ({"id": True, "views": 1}, Item, r"expected int, got bool at \$\.id"),
        ([1, 2], Item, r"expected Item, got list at \$$"),
        ("x", int, r"expected int, got str at \$$"),
        (1, str, r"expected str, got int at \$$"),
        (None, int, r"expected int, got None at \$$"),
        ("x", float, r"expected float, got str at \$$"),
        (1, bool, r"expected bool, got int at \$$"),
        ("s", bytes, r"expected bytes, got str at \$$"),
        ({"a": 1}, list[int], r"expected list, got dict at \$$"),
        ([1, "a"], list[int], r"expected int, got str at \$\[1\]"),
        ({"a": "x"}, dict[str, int], r"expected int, got str at \$\.a"),
        ({"odd key": "x"}, dict[str, int], r"expected int, got str at \$\[\"odd key\"\]"),
        ([1, 2, 3], tuple[int, int], r"expected tuple of length 2, got list of length 3 at \$$"),
        ([1, "x"], tuple[int, int], r"expected int, got str at \$\[1\]"),
        ([1, "x"], tuple[int, ...], r"expected int, got str at \$\[1\]"),
        (
            [[1, 2, 3]],
            list[tuple[int, int]],
            r"expected tuple of length 2, got list of length 3 at \$\[0\]$",
        ),
        ([[1, "x"]], list[tuple[int, int]], r"expected int, got str at \$\[0\]\[1\]"),
        (
            {"at": dt.datetime(2024, 1, 1, tzinfo=dt.UTC), "rect": [1, 2, 3]},
            Placed,
            r"expected tuple of length 4, got list of length 3 at \$\.rect$",
        ),
        (
            {"at": dt.datetime(2024, 1, 1, tzinfo=dt.UTC), "rect": {"a": 1}},
            Placed,
            r"expected tuple, got dict at \$\.rect$",
        ),
        (
            {
                "at": dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
                "rect": [1, 2, 3, 4],
                "pair": ["a", [1, "x"]],
            },
            Placed,
            r"expected float, got str at \$\.pair\[1\]\[1\]",
        ),
        (
            {"at": "2024", "rect": [1, 2, 3, 4]},
            Placed,
            r"invalid datetime '2024' \(expected RFC 3339 text\) at \$\.at$",
        ),
        ({"at": 2024, "rect": [1, 2, 3, 4]}, Placed, r"expected datetime, got int at \$\.at$"),
        (1.5, Optional[int], r"expected int \| None, got float at \$$"),  # noqa: UP045
        ([1.5], list[int | str], r"expected int \| str, got float at \$\[0\]"),
        ("c", Literal["a", "b"], r"expected one of 'a', 'b', got 'c' at \$$"),
        ("2024", dt.datetime, r"invalid datetime '2024' \(expected RFC 3339 text\) at \$$"),
        ("2024", dt.date, r"invalid date '2024' \(expected YYYY-MM-DD\) at \$$"),
        (2024, dt.datetime, r"expected datetime, got int at \$$"),
        (b"2024", dt.date, r"expected date, got bytes at \$$"),
        ("not-a-uuid", uuid.UUID, r"invalid UUID 'not-a-uuid' at \$$"),
        ([1], set[str], r"expected str, got int at \$\[0\]"),
    ],
)
def test_mismatches(value: Any, tp: Any, message: str) -> None:
    with pytest.raises(roving.ValidationError, match=message) as ei:
        roving.loads(enc(value), type=tp)
    assert isinstance(ei.value, roving.DecodeError)
    assert isinstance(ei.value, roving.RovingError)
    assert ei.value.path.startswith("$")


def test_tuple_and_datetime_fields() -> None:
    when = dt.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    p = Placed(when, (1, -2, 3, 2**40), ("a", (5, 1.5)))
    assert roving.loads(enc(p), type=Placed) == p
    assert roving.loads(enc([p, p]), type=list[Placed]) == [p, p]
    out = roving.loads(enc({"at": when, "rect": [0, 0, 0, 0]}), type=Placed)
    assert out == Placed(when, (0, 0, 0, 0)) and isinstance(out.rect, tuple)
    # A tuple shared by two fields of a document decodes once.
    rect = [7, 8, 9, 10]
    two = roving.loads(
        enc([{"at": when, "rect": rect}, {"at": when, "rect": rect}]), type=list[Placed]
    )
    assert two[0].rect == two[1].rect == (7, 8, 9, 10)


def test_successes_of_each_kind() -> None:
    assert roving.loads(enc(3), type=float) == 3.0 and isinstance(
        roving.loads(enc(3), type=float), float
    )
    assert roving.loads(enc(None), type=Optional[int]) is None  # noqa: UP045
    assert roving.loads(enc(5), type=int | None) == 5
    assert roving.loads(enc([1, "a", None]), type=list[int | str | None]) == [1, "a", None]
    assert roving.loads(enc([1, 2]), type=tuple[int, int]) == (1, 2)
    assert roving.loads(enc([1, 2]), type=tuple[int, ...]) == (1, 2)
    assert roving.loads(enc([1, 2, 2]), type=set[int]) == {1, 2}
    assert roving.loads(enc([1, 2]), type=frozenset[int]) == frozenset({1, 2})
    assert roving.loads(enc({"a": [1]}), type=dict[str, list[int]]) == {"a": [1]}
    assert roving.loads(enc(b"x"), type=bytes) == b"x"
    assert roving.loads(enc(b"x"), type=bytearray) == bytearray(b"x")
    assert roving.loads(enc("a"), type=Literal["a", "b"]) == "a"
    assert roving.loads(enc({"x": [1, {"y": None}]}), type=Any) == {"x": [1, {"y": None}]}
    assert roving.loads(enc([1]), type=list) == [1]
    assert roving.loads(enc({"a": 1}), type=dict) == {"a": 1}
    when = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    assert roving.loads(enc(when), type=dt.datetime) == when
    assert roving.loads(enc(dt.date(2024, 5, 6)), type=dt.date) == dt.date(2024, 5, 6)
    u = uuid.uuid4()
    assert roving.loads(enc(u), type=uuid.UUID) == u
    assert roving.loads(enc(str(u)), type=uuid.UUID) == u
    assert roving.loads(enc(decimal.Decimal("1.25")), type=decimal.Decimal) == decimal.Decimal(
        "1.25"
    )
    assert roving.loads(enc("1.25"), type=decimal.Decimal) == decimal.Decimal("1.25")
    assert roving.loads(enc(7), type=decimal.Decimal) == decimal.Decimal(7)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def test_enums() -> None:
    assert roving.loads(enc(["red", "blue"]), type=list[Color]) == [Color.RED, Color.BLUE]
    assert roving.loads(enc(Level.HIGH), type=Level) is Level.HIGH
    with pytest.raises(roving.ValidationError, match=r"invalid value 'green' for Color at \$\[0\]"):
        roving.loads(enc(["green"]), type=list[Color])


@dataclasses.dataclass
class Node:
    value: int
    children: list[Node] = dataclasses.field(default_factory=list)


def test_recursive_dataclass() -> None:
    tree = Node(1, [Node(2), Node(3, [Node(4)])])
    assert roving.loads(roving.dumps(tree), type=Node) == tree
    with pytest.raises(roving.ValidationError, match=r"at \$\.children\[1\]\.children\[0\]\.value"):
        roving.loads(
            enc(
                {"value": 1, "children": [{"value": 2}, {"value": 3, "children": [{"value": "x"}]}]}
            ),
            type=Node,
        )


@dataclasses.dataclass(frozen=True)
class FrozenPoint:
    x: int
    y: int


@dataclasses.dataclass(slots=True)
class SlotPoint:
    x: int
    y: int = 0


@dataclasses.dataclass
class Checked:
    n: int

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError("n must be >= 0")


@dataclasses.dataclass
class WithInitVar:
    a: int
    scale: dataclasses.InitVar[int] = 1

    def __post_init__(self, scale: int) -> None:
        self.a *= scale


@dataclasses.dataclass
class NotInit:
    a: int
    b: int = dataclasses.field(default=5, init=False)


def test_dataclass_variants() -> None:
    assert roving.loads(enc({"x": 1, "y": 2}), type=FrozenPoint) == FrozenPoint(1, 2)
    assert roving.loads(enc({"x": 1}), type=SlotPoint) == SlotPoint(1, 0)
    assert roving.loads(enc({"n": 3}), type=Checked) == Checked(3)
    with pytest.raises(roving.ValidationError, match=r"n must be >= 0 at \$\[0\]"):
        roving.loads(enc([{"n": -1}]), type=list[Checked])
    assert roving.loads(enc({"a": 2, "scale": 3}), type=WithInitVar).a == 6
    assert roving.loads(enc({"a": 2, "b": 9}), type=NotInit).b == 5


def test_shared_values_stay_shared_with_types() -> None:
    f = {"id": 1, "name": "x"}
    out = roving.loads(roving.dumps([f, f]), type=list[Friend])
    assert out[0] is out[1]


def test_unsupported_types_are_type_errors() -> None:
    with pytest.raises(TypeError, match="unsupported type"):
        roving.loads(enc(1), type=complex)
    # (int keys are read from their decimal text: test_dict_keys_of_int_types.)
    with pytest.raises(TypeError, match="dict keys must be str"):
        roving.loads(enc({}), type=dict[float, int])
    with pytest.raises(TypeError, match="dict keys must be str"):
        roving.loads(enc({}), type=dict[int | None, int])


def test_a_type_nested_too_deeply_is_a_type_error() -> None:
    # Compiling list[list[...]] 20,000 deep (a type built in a loop)
    # overflowed the stack: the process died with SIGSEGV. Checked in a
    # subprocess, on the main thread and on one with a small stack.
    code = """
import threading, roving
def nested(n):
    t = list
    for _ in range(n):
        t = list[t]
    return t
errors = []
def check(t):
    try:
        roving.loads(roving.dumps([]), type=t)
    except TypeError as e:
        errors.append(str(e))
check(nested(20_000))
# (CPython's own hash() of the type needs the stack of 20,000 levels.)
threading.stack_size(512 * 1024)
t = threading.Thread(target=check, args=(nested(2_000),))
t.start()
t.join()
assert len(errors) == 2 and all("nested too deeply" in e for e in errors), errors
assert roving.loads(roving.dumps([]), type=nested(500)) == []
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (r.returncode, r.stdout.strip(), r.stderr) == (0, "ok", "")


def test_typed_numpy_and_vectors() -> None:
    np = pytest.importorskip("numpy")
    a = np.arange(5, dtype="<i4")
    assert np.array_equal(roving.loads(enc(a), type=np.ndarray), a)
    assert roving.loads(enc(a), type=list[int]) == [0, 1, 2, 3, 4]
    with pytest.raises(roving.ValidationError, match=r"expected str, got int at \$\[0\]"):
        roving.loads(enc(a), type=list[str])


def test_string_annotations_resolve() -> None:
    ns: dict[str, Any] = {}
    exec(  # noqa: S102
        "from __future__ import annotations\n"
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class A:\n"
        "    x: list[int]\n"
        "    y: 'int | None' = None\n",
        ns,
    )
    A = ns["A"]
    import sys
    import types

    mod = types.ModuleType("fake_mod_for_roving")
    mod.A = A  # type: ignore[attr-defined]
    A.__module__ = "fake_mod_for_roving"
    sys.modules["fake_mod_for_roving"] = mod
    try:
        assert roving.loads(enc({"x": [1], "y": 2}), type=A) == A([1], 2)
    finally:
        del sys.modules["fake_mod_for_roving"]


def test_key_lists_change_between_documents() -> None:
    # The field index of a dataclass is remembered across documents (for
    # many small ones, e.g. store records); documents with other key lists,
    # orders, unknown keys or missing fields must still decode right.
    docs = [
        {"id": 1, "name": "a"},
        {"name": "b", "id": 2},
        {"name": "c", "id": 3, "extra": [1, 2]},
        {"id": 4},
        {"id": 5, "name": "e"},
        {"nam": "x", "id": 6},
    ]
    for _ in range(3):
        for d in docs:
            b = roving.dumps(d)
            if "name" in d:
                assert roving.loads(b, type=Friend) == Friend(d["id"], d["name"])
            else:
                with pytest.raises(roving.ValidationError, match="name"):
                    roving.loads(b, type=Friend)


@dataclasses.dataclass
class Keys:
    a: int
    identifier: str
    displayInRect: int
    optionalStringXYZW: str = ""
    long_field_name_of_more_than_sixty_three_bytes_to_take_the_long_string_form: int = 0


def test_key_lists_compared_by_record_across_documents() -> None:
    # A dataclass's last key list is compared with each document's keys
    # record by record: keys of 1, 8 to 16 and more than 63 bytes, keys
    # that share their record with an equal string value, near-miss keys
    # of the same length, and other orders must all decode right.
    long = "long_field_name_of_more_than_sixty_three_bytes_to_take_the_long_string_form"
    docs: list[tuple[dict[str, Any], Keys | None]] = [
        ({"a": 1, "identifier": "x", "displayInRect": 2}, Keys(1, "x", 2)),
        ({"a": 2, "identifier": "identifier", "displayInRect": 3}, Keys(2, "identifier", 3)),
        ({"a": 3, "identifiex": "y", "displayInRect": 4}, None),
        ({"b": 4, "identifier": "z", "displayInRect": 5}, None),
        ({"a": 5, "identifier": "z", "displayInRecT": 6}, None),
        ({"a": 6, "identifier": "w", "displayInRect": 7, long: 8}, Keys(6, "w", 7, "", 8)),
        ({"a": 7, "identifier": "v", "displayInRect": 8, long[:-1] + "X": 9}, Keys(7, "v", 8)),
        ({"displayInRect": 9, "a": 8, "identifier": "u"}, Keys(8, "u", 9)),
        (
            {"a": 9, "identifier": "t", "displayInRect": 10, "optionalStringXYZW": "s"},
            Keys(9, "t", 10, "s"),
        ),
        (
            {"a": 10, "identifier": "t", "displayInRect": 11, "optionalStringXYZV": "s"},
            Keys(10, "t", 11),
        ),
    ]
    for _ in range(2):
        for d, want in docs:
            b = roving.dumps(d)
            if want is None:
                with pytest.raises(roving.ValidationError):
                    roving.loads(b, type=Keys)
            else:
                assert roving.loads(b, type=Keys) == want
            assert roving.loads(b) == d


def test_many_key_lists_in_one_document_and_across_documents() -> None:
    # More key lists for one dataclass than it remembers: inside one
    # document (a list of records of many shapes, each shape repeated) and
    # across documents, alternating, every record still decodes right.
    recs: list[dict[str, Any]] = []
    for i in range(40):
        d: dict[str, Any] = {"a": i, "identifier": f"id{i}", "displayInRect": i % 7}
        extra = i % 13
        for k in range(extra):
            d[f"x{k}"] = k
        if i % 3 == 0:
            d["optionalStringXYZW"] = "s"
        if i % 2:
            d = dict(reversed(list(d.items())))
        recs.append(d)

    def want(d: dict[str, Any]) -> Keys:
        return Keys(d["a"], d["identifier"], d["displayInRect"], d.get("optionalStringXYZW", ""))

    doc = roving.dumps(recs + recs)
    assert roving.loads(doc, type=list[Keys]) == [want(d) for d in recs + recs]
    for _ in range(2):
        for d in recs:
            assert roving.loads(roving.dumps(d), type=Keys) == want(d)


@dataclasses.dataclass
class When:
    at: dt.datetime
    opt: dt.datetime | None = None


def test_typed_datetimes_keep_their_offset() -> None:
    values = [
        dt.datetime(2024, 1, 2, 3, 4, 5, 678901),
        dt.datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC),
        dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=-7))),
        dt.datetime(1, 1, 1),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.UTC),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone(dt.timedelta(minutes=90))),
    ]
    for v in values:
        back = roving.loads(roving.dumps(When(v, v)), type=When)
        for x in (back.at, back.opt):
            assert x == v
            assert x is not None
            assert x.utcoffset() == v.utcoffset()
            if v.tzinfo is None:
                assert x.tzinfo is None
            elif v.utcoffset() == dt.timedelta(0):
                assert x.tzinfo is dt.UTC


@dataclasses.dataclass
class Stamped:
    at: dt.datetime
    day: dt.date
    note: dt.datetime | str = ""


def test_datetime_and_date_accept_iso_text() -> None:
    # A document that went through JSON holds timestamps as RFC 3339 text
    # (what to_json writes for them): typed decoding reads them back as
    # datetimes, and YYYY-MM-DD text as dates.
    aware = dt.datetime(2023, 11, 14, 23, 13, 20, 123456, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    naive = dt.datetime(1969, 12, 31, 23, 59, 59, 1)
    day = dt.date(2020, 2, 29)
    for at in (aware, naive):
        via_json = roving.from_json(roving.to_json(roving.dumps({"at": at})))
        assert isinstance(roving.loads(via_json)["at"], str)  # text without type=
        doc = enc({"at": roving.loads(via_json)["at"], "day": day.isoformat()})
        got = roving.loads(doc, type=Stamped)
        assert got == Stamped(at=at, day=day)
        assert (got.at.tzinfo is None) == (at.tzinfo is None)
    # Nanosecond text is truncated to microseconds, as timestamps are.
    got = roving.loads(enc("2023-11-14T23:13:20.123456789"), type=dt.datetime)
    assert got == dt.datetime(2023, 11, 14, 23, 13, 20, 123456)
    assert got.tzinfo is None
    # `Z` is UTC: an aware datetime (text without an offset is naive).
    got = roving.loads(enc("2023-11-14T23:13:20.123456789Z"), type=dt.datetime)
    assert got == dt.datetime(2023, 11, 14, 23, 13, 20, 123456, tzinfo=dt.UTC)
    assert got.tzinfo is dt.UTC
    # In a union, text that is no timestamp falls through to str.
    doc = enc({"at": "2000-01-01T00:00:00+00:00", "day": "2000-01-01", "note": "hello"})
    assert roving.loads(doc, type=Stamped).note == "hello"
    for bad, kind, msg in [
        ("2023-11-14 23:13:20", dt.datetime, "invalid datetime '2023-11-14 23:13:20'"),
        ("2023-11-14T25:00:00Z", dt.datetime, "invalid datetime"),
        ("2021-02-29", dt.date, r"invalid date '2021-02-29' \(expected YYYY-MM-DD\)"),
        ("2021-2-28", dt.date, "invalid date"),
        ("2021-02-28T00:00:00Z", dt.date, "invalid date"),
    ]:
        with pytest.raises(roving.ValidationError, match=msg):
            roving.loads(enc(bad), type=kind)


@dataclasses.dataclass
class OnlyX:
    x: int


@dataclasses.dataclass
class OnlyYZ:
    y: int
    z: list[int]


def test_a_union_that_matches_no_member_says_why_for_each() -> None:
    # Several members could have taken the value: each one's reason is
    # given, at its place below the union's value.
    cases = [
        (
            {"y": 1, "z": [1, "a"]},
            OnlyX | OnlyYZ,
            "no member of OnlyX | OnlyYZ matches (OnlyX: missing required field 'x'; "
            "OnlyYZ: expected int, got str at .z[1]) at $",
        ),
        (
            [{"x": "no"}],
            list[OnlyX | OnlyYZ],
            "no member of OnlyX | OnlyYZ matches (OnlyX: expected int, got str at .x; "
            "OnlyYZ: missing required field 'y') at $[0]",
        ),
    ]
    for value, tp, message in cases:
        with pytest.raises(roving.ValidationError) as ei:
            roving.loads(roving.dumps(value), type=tp)
        assert str(ei.value) == message
    # One member that could take it: its own reason, as before.
    with pytest.raises(roving.ValidationError, match=r"^expected int, got str at \$\.x$"):
        roving.loads(roving.dumps({"x": "no"}), type=OnlyX | None)
    # Members that cannot take the value at all are not listed.
    with pytest.raises(roving.ValidationError, match=r"^expected OnlyX \| int, got str at \$$"):
        roving.loads(roving.dumps("s"), type=OnlyX | int)


class Corner(enum.Enum):
    TOP_LEFT = (0, 0)
    BOTTOM_RIGHT = (1, 1)


def test_enum_members_whose_value_is_a_tuple_read_back() -> None:
    b = roving.dumps([Corner.TOP_LEFT, Corner.BOTTOM_RIGHT])
    assert roving.loads(b) == [[0, 0], [1, 1]]
    assert roving.loads(b, type=list[Corner]) == [Corner.TOP_LEFT, Corner.BOTTOM_RIGHT]
    with pytest.raises(roving.ValidationError, match=r"invalid value \[0, 1\] for Corner at \$"):
        roving.loads(roving.dumps([0, 1]), type=Corner)
    # In a union, an array that is no member falls through to the next type.
    assert roving.loads(roving.dumps([0, 1]), type=Corner | list[int]) == [0, 1]


# ---- Reviewed against msgspec: each test below pins a defect that was fixed.


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
