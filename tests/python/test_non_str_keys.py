"""dumps(..., non_str_keys=True): dict keys that are not str are written as
the text typed loads reads them back from (orjson's OPT_NON_STR_KEYS)."""

from __future__ import annotations

import collections
import datetime as dt
import decimal
import enum
import io
import uuid
from typing import Any

import pytest
import roving
from hypothesis import given
from hypothesis import strategies as st


class Color(enum.IntEnum):
    RED = 1
    BLUE = 2


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


class Level(enum.Enum):
    LOW = 10


def test_keys_are_written_as_their_text() -> None:
    d = {
        7: "int",
        -(2**70): "big int",
        Mode.FAST: "enum of str",
        Level.LOW: "enum of int",
        uuid.UUID(int=1): "uuid",
        decimal.Decimal("1.50"): "decimal",
        dt.date(2024, 1, 2): "date",
        "s": "str",
    }
    assert roving.loads(roving.dumps(d, non_str_keys=True)) == {
        "7": "int",
        "-1180591620717411303424": "big int",
        "fast": "enum of str",
        "10": "enum of int",
        "00000000-0000-0000-0000-000000000001": "uuid",
        "1.50": "decimal",
        "2024-01-02": "date",
        "s": "str",
    }


def test_an_int_enum_key_is_its_value_not_its_name() -> None:
    # str(Color.RED) is "Color.RED" on Python 3.11.
    b = roving.dumps({Color.RED: 1}, non_str_keys=True)
    assert roving.loads(b) == {"1": 1}
    assert roving.loads(b, type=dict[Color, int]) == {Color.RED: 1}


@pytest.mark.parametrize(
    ("value", "tp"),
    [
        ({1: "a", -5: "b", 2**80: "c"}, dict[int, str]),
        ({Color.RED: 1, Color.BLUE: 2}, dict[Color, int]),
        ({Mode.FAST: 1}, dict[Mode, int]),
        ({uuid.UUID(int=5): 1}, dict[uuid.UUID, int]),
        ({decimal.Decimal("-0.5"): 1}, dict[decimal.Decimal, int]),
        ({dt.date(1, 1, 1): 1, dt.date(9999, 12, 31): 2}, dict[dt.date, int]),
    ],
)
def test_typed_loads_reads_the_keys_back(value: dict[Any, Any], tp: Any) -> None:
    assert roving.loads(roving.dumps(value, non_str_keys=True), type=tp) == value


@given(st.dictionaries(st.integers(), st.integers()))
def test_int_keys_round_trip(d: dict[int, int]) -> None:
    assert roving.loads(roving.dumps(d, non_str_keys=True), type=dict[int, int]) == d


def test_nested_dicts_and_subclasses() -> None:
    value = {"outer": [{1: {2: "x"}}], "od": collections.OrderedDict([(3, "y")])}
    assert roving.loads(roving.dumps(value, non_str_keys=True)) == {
        "outer": [{"1": {"2": "x"}}],
        "od": {"3": "y"},
    }


class _ShownDecimal(decimal.Decimal):
    def __str__(self) -> str:
        return f"D({decimal.Decimal.__str__(self)})"


class _ShownUUID(uuid.UUID):
    def __str__(self) -> str:
        return "<" + self.hex + ">"


class _ShownDate(dt.date):
    def isoformat(self) -> str:
        return "the " + str(self.day)


def test_subclass_keys_are_written_as_their_base_class_text() -> None:
    # A subclass's own __str__ / isoformat was the key's text: "D(1.5)",
    # which typed loads refused (ValidationError "invalid Decimal").
    d = {
        _ShownDecimal("1.5"): 1,
        _ShownUUID(int=7): 2,
        _ShownDate(2024, 2, 29): 3,
    }
    b = roving.dumps(d, non_str_keys=True)
    assert roving.loads(b) == {
        "1.5": 1,
        "00000000-0000-0000-0000-000000000007": 2,
        "2024-02-29": 3,
    }
    assert roving.loads(b, type=dict[decimal.Decimal | uuid.UUID | dt.date, int]) == {
        decimal.Decimal("1.5"): 1,
        uuid.UUID(int=7): 2,
        dt.date(2024, 2, 29): 3,
    }


def test_an_int_key_too_long_for_typed_loads_is_refused() -> None:
    # 10**5000 was written as its 5001 digits, which typed loads refuses
    # (int keys of at most 4300 digits, as Python's int()).
    longest = 10**4300 - 1
    b = roving.dumps({longest: 1, -longest: 2}, non_str_keys=True)
    assert roving.loads(b, type=dict[int, int]) == {longest: 1, -longest: 2}
    for key in (10**4300, -(10**4300), 10**5000, 1 << 100_000):
        with pytest.raises(roving.EncodeError, match="more than 4300 digits"):
            roving.dumps({key: 1}, non_str_keys=True)


def test_str_keys_are_unchanged() -> None:
    value = {"a": 1, "b": [{"c": 2}]}
    assert roving.dumps(value, non_str_keys=True) == roving.dumps(value)


@pytest.mark.parametrize(
    "key", [1.5, True, None, (1, 2), dt.datetime(2024, 1, 1), dt.time(1), b"k", frozenset()]
)
def test_other_key_types_are_refused(key: Any) -> None:
    with pytest.raises(roving.EncodeError, match="must be str, int, enum, UUID, Decimal or date"):
        roving.dumps({key: 1}, non_str_keys=True)


def test_two_keys_with_one_text_are_an_error_not_a_lost_value() -> None:
    for d in ({1: "a", "1": "b"}, {"1": "b", 1: "a"}, {Mode.FAST: 1, "fast": 2}):
        with pytest.raises(roving.EncodeError, match=r"two keys of this dict are written as"):
            roving.dumps(d, non_str_keys=True)
    with pytest.raises(roving.EncodeError, match=r'as "1" .* at \$\.x\["1"\]'):
        roving.dumps({"x": {1: "a", "1": "b"}}, non_str_keys=True)


def test_without_the_option_non_str_keys_are_refused_as_before() -> None:
    with pytest.raises(roving.EncodeError) as ei:
        roving.dumps({"a": {1: "x"}})
    assert str(ei.value) == "dict keys must be str, got int 1 at $.a[<key 1>]"


def test_dump_takes_the_option(tmp_path: Any) -> None:
    f = io.BytesIO()
    roving.dump({1: "a"}, f, non_str_keys=True)
    assert roving.loads(f.getvalue(), type=dict[int, str]) == {1: "a"}
    path = tmp_path / "d.rov"
    roving.dump({2: "b"}, path, non_str_keys=True)
    assert roving.load(path, type=dict[int, str]) == {2: "b"}
    with pytest.raises(roving.EncodeError):
        roving.dump({2: "b"}, path)
    assert roving.load(path) == {"2": "b"}


def test_shared_dicts_with_int_keys_stay_shared() -> None:
    inner = {1: "x"}
    out = roving.loads(roving.dumps([inner, inner], non_str_keys=True))
    assert out == [{"1": "x"}] * 2 and out[0] is out[1]


def test_a_key_hook_that_mutates_the_dict_is_a_clean_error() -> None:
    d: dict[Any, int] = {}

    class Sneaky(enum.Enum):
        A = "a"

        @property
        def value(self) -> Any:  # type: ignore[override]
            d.clear()
            return "a"

    d[Sneaky.A] = 1
    d[2] = 2
    # The keys' text is taken while the dict's items are iterated, as
    # Python iterates them: a change meanwhile stops it cleanly.
    with pytest.raises(RuntimeError, match="changed size during iteration"):
        roving.dumps(d, non_str_keys=True)
