"""``dumps`` of a dataclass reads its fields from the values an instance
keeps inline (CPython 3.11), and writes exactly what ``getattr`` gives in
every case where the two could differ: a property set on the class after
instances were written, an unset field, an instance whose ``__dict__`` was
made and changed, a class with its own ``__getattribute__``, subclasses,
``__slots__`` and a class changed by a library's cache."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import roving
from hypothesis import given
from hypothesis import strategies as st


@dataclasses.dataclass
class Point:
    x: Any
    y: Any
    label: str = "p"


def written(obj: Any) -> Any:
    return roving.loads(roving.dumps(obj))


def test_fields_are_read_inline_on_cpython_3_11() -> None:
    expected = sys.implementation.name == "cpython" and sys.version_info[:2] == (3, 11)
    assert roving._roving._inline_fields() == expected


@given(st.lists(st.tuples(st.integers(), st.text(), st.floats(allow_nan=False)), max_size=20))
def test_values_are_those_of_getattr(rows: list[tuple[int, str, float]]) -> None:
    objs = [Point(a, [b, c], b) for a, b, c in rows]
    assert written(objs) == [{"x": o.x, "y": o.y, "label": o.label} for o in objs]


def new_temp_class() -> Any:
    """A new dataclass of two fields (a class of its own for each test)."""

    @dataclasses.dataclass
    class Temp:
        celsius: float
        place: str

    return Temp


def test_a_property_set_on_the_class_later_is_honoured() -> None:
    temp = new_temp_class()
    t = temp(1.5, "here")
    assert written(t) == {"celsius": 1.5, "place": "here"}
    temp.celsius = property(lambda self: 42.0)
    assert t.celsius == 42.0
    assert written(t) == {"celsius": 42.0, "place": "here"}


def test_a_property_there_when_the_class_is_first_written() -> None:
    temp = new_temp_class()
    t = temp(1.5, "here")
    temp.celsius = property(lambda self: 42.0)
    assert written(t) == {"celsius": 42.0, "place": "here"}
    assert written(t) == {"celsius": 42.0, "place": "here"}


def test_a_class_changed_by_a_cache_keeps_its_values() -> None:
    @dataclasses.dataclass
    class Item:
        a: int
        b: str

    assert written(Item(1, "x")) == {"a": 1, "b": "x"}
    Item.some_library_cache = {"k": 1}  # type: ignore[attr-defined]
    assert written(Item(2, "y")) == {"a": 2, "b": "y"}
    Item.b = "class default"  # type: ignore[misc]
    assert written(Item(3, "z")) == {"a": 3, "b": "z"}


def test_a_class_that_changes_at_every_instance() -> None:
    @dataclasses.dataclass
    class Counted:
        n: int

        def __post_init__(self) -> None:
            type(self).made = getattr(type(self), "made", 0) + 1  # type: ignore[attr-defined]

    assert [written(Counted(i)) for i in range(50)] == [{"n": i} for i in range(50)]


def test_unset_deleted_and_dict_changed_fields() -> None:
    p = Point(1, 2)
    del p.y
    assert written(p) == {"x": 1, "label": "p"}
    q = Point(1, 2)
    q.__dict__["x"] = "changed"
    assert written(q) == {"x": "changed", "y": 2, "label": "p"}
    r = Point(3, 4)
    r.extra = "not a field"  # type: ignore[attr-defined]
    assert written(r) == {"x": 3, "y": 4, "label": "p"}


def test_a_class_with_its_own_getattribute() -> None:
    @dataclasses.dataclass
    class Loud:
        word: str

        def __getattribute__(self, name: str) -> Any:
            v = object.__getattribute__(self, name)
            return v.upper() if name == "word" else v

    assert written(Loud("hi")) == {"word": "HI"}


def test_subclasses_and_slots() -> None:
    @dataclasses.dataclass
    class Base:
        a: int

    @dataclasses.dataclass
    class Child(Base):
        b: int

    @dataclasses.dataclass(slots=True)
    class Slotted:
        a: int
        b: int

    assert written([Base(1), Child(2, 3), Base(4)]) == [{"a": 1}, {"a": 2, "b": 3}, {"a": 4}]
    assert written(Slotted(5, 6)) == {"a": 5, "b": 6}


def test_an_attribute_set_in_a_different_order() -> None:
    # Instances whose attributes were set in another order than the first
    # one's share the class's keys in that first order.
    @dataclasses.dataclass
    class Pair:
        first: int
        second: int

    a = Pair(1, 2)
    b = object.__new__(Pair)
    b.second = 20
    b.first = 10
    assert written([a, b]) == [{"first": 1, "second": 2}, {"first": 10, "second": 20}]
