"""roving.Encoder and roving.Decoder: dumps and loads with their keyword
arguments bound once. Each call must write and read exactly what the
functions do with the same arguments, dictionaries included."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import uuid
from typing import Any

import pytest
import roving
from hypothesis import given, settings
from hypothesis import strategies as st


@dataclasses.dataclass
class Item:
    id: int
    name: str
    tags: list[str]
    score: float | None = None


class Color(enum.Enum):
    RED = "red"


json_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.binary(max_size=8),
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=6), children, max_size=6)
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(json_like)
def test_the_bytes_and_values_of_dumps_and_loads(value: Any) -> None:
    data = roving.Encoder().encode(value)
    assert data == roving.dumps(value)
    assert roving.Decoder().decode(data) == roving.loads(data)
    assert roving.Decoder(None).decode(bytearray(data)) == roving.loads(data)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(), st.text(max_size=8), st.lists(st.text(max_size=4), max_size=3)),
        min_size=1,
        max_size=8,
    )
)
def test_a_growing_dictionary_learns_as_with_dumps(rows: list[tuple[int, str, list[str]]]) -> None:
    """An Encoder writing against a dictionary writes the bytes dumps writes
    against another dictionary in the same state, and both learn alike."""
    mine, theirs = roving.Dictionary(), roving.Dictionary()
    enc = roving.Encoder(dictionary=mine)
    dec = roving.Decoder(Item, dictionary=mine)
    for i, name, tags in rows:
        item = Item(i, name, tags)
        data = enc.encode(item)
        assert data == roving.dumps(item, dictionary=theirs)
        assert bytes(mine) == bytes(theirs)
        assert dec.decode(data) == item
        assert roving.loads(data, dictionary=theirs, type=Item) == item


def test_options_are_those_of_dumps() -> None:
    def default(o: object) -> object:
        if isinstance(o, complex):
            return [o.real, o.imag]
        raise TypeError("no")

    value = {
        "z": 1 + 2j,
        "when": dt.datetime(2026, 11, 29, 4, 0),
        "u": uuid.UUID(int=7),
        "c": Color.RED,
    }
    enc = roving.Encoder(default=default)
    assert enc.encode(value) == roving.dumps(value, default=default)
    assert enc.default is default and enc.non_str_keys is False and enc.dictionary is None
    keyed = {1: "a", 2: "b"}
    with pytest.raises(roving.EncodeError):
        roving.Encoder().encode(keyed)
    text_keys = roving.Encoder(non_str_keys=True)
    assert text_keys.non_str_keys is True
    assert text_keys.encode(keyed) == roving.dumps(keyed, non_str_keys=True)
    assert roving.Decoder(dict[int, str]).decode(text_keys.encode(keyed)) == keyed
    with pytest.raises(TypeError):
        roving.Encoder(default)  # type: ignore[misc]  # keyword-only


def test_decoder_types_and_errors() -> None:
    item = Item(1, "one", ["a"], 0.5)
    data = roving.dumps(item)
    dec = roving.Decoder(Item)
    assert dec.type is Item and dec.dictionary is None
    assert dec.decode(data) == item
    assert dec.decode(memoryview(data)) == item
    assert roving.Decoder(list[Item]).decode(roving.dumps([item, item])) == [item, item]
    with pytest.raises(TypeError, match="unsupported type"):
        roving.Decoder(lambda: 1)
    with pytest.raises(roving.DecodeError) as e:
        dec.decode(data[:-1])
    with pytest.raises(roving.DecodeError) as again:
        roving.loads(data[:-1], type=Item)
    assert (type(e.value), e.value.offset) == (type(again.value), again.value.offset)
    with pytest.raises(roving.ValidationError):
        roving.Decoder(Item).decode(roving.dumps({"id": "not an int", "name": "x", "tags": []}))


def test_dictionary_errors_name_the_one_needed() -> None:
    d = roving.Dictionary()
    d.add_shape(["id", "name", "tags", "score"])
    data = roving.Encoder(dictionary=d).encode(Item(2, "two", []))
    needs = f"{d.id:016x}"
    with pytest.raises(roving.DictionaryError, match=needs):
        roving.Decoder(Item).decode(data)
    other = roving.Dictionary()
    other.add_shape(["id"])
    with pytest.raises(roving.DictionaryError, match=needs):
        roving.Decoder(Item, dictionary=other).decode(data)
    dec = roving.Decoder(Item, dictionary=d)
    assert dec.dictionary is d
    assert dec.decode(data) == Item(2, "two", [])
    # A plain document reads with a dictionary too.
    assert dec.decode(roving.dumps(Item(3, "three", []))) == Item(3, "three", [])
    assert "Decoder" in repr(dec) and "Encoder" in repr(roving.Encoder())
