"""Typed decoding reviewed against msgspec: each test pins a defect that was fixed."""

from __future__ import annotations

import dataclasses
import enum
import typing
from typing import Any

import pytest
import roving


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
