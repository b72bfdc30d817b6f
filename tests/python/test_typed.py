"""Typed decoding: ``loads(data, type=...)`` successes and every kind of mismatch."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import subprocess
import sys
import uuid
from typing import Any, Literal, Optional

import pytest
import roving


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
    # (int keys are read from their decimal text: test_typed_review.py.)
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
    got = roving.loads(enc("2023-11-14T23:13:20.123456789Z"), type=dt.datetime)
    assert got == dt.datetime(2023, 11, 14, 23, 13, 20, 123456)
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
