"""Shared dictionaries from Python (FORMAT.md section 23): roving.Dictionary,
dumps/loads/open/validate/to_json with ``dictionary=``, growth, freezing,
bytes and deltas, and the errors of a missing or wrong dictionary."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import roving
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import one_error_line


@dataclasses.dataclass
class SimpleObject:
    Id: int
    Name: str
    Address: str
    Scores: list[int]


SIMPLE = SimpleObject(100000, "Simple", "Planet Earth", list(range(10)))


def test_simple_object_shrinks_after_the_first_document() -> None:
    d = roving.Dictionary()
    assert len(d) == 0
    first = roving.dumps(SIMPLE, dictionary=d)
    assert first == roving.dumps(SIMPLE)  # an empty dictionary binds nothing
    assert len(d) == 1  # it learned the shape
    second = roving.dumps(SIMPLE, dictionary=d)
    assert (len(first), len(second)) == (78, 59)
    assert roving.loads(second, dictionary=d, type=SimpleObject) == SIMPLE
    assert roving.loads(second, dictionary=d) == dataclasses.asdict(SIMPLE)
    assert roving.loads(first, dictionary=d, type=SimpleObject) == SIMPLE
    d.add_string("Simple")
    d.add_string("Planet Earth")
    third = roving.dumps(SIMPLE, dictionary=d)
    assert len(third) == 39
    assert roving.loads(third, dictionary=d, type=SimpleObject) == SIMPLE


def test_dump_and_load_take_a_dictionary(tmp_path: Path) -> None:
    d = roving.Dictionary()
    roving.dumps(SIMPLE, dictionary=d)  # learns the shape
    path = tmp_path / "simple.rv"
    roving.dump(SIMPLE, path, dictionary=d)
    assert path.read_bytes() == roving.dumps(SIMPLE, dictionary=d)
    assert roving.load(path, dictionary=d, type=SimpleObject) == SIMPLE
    with path.open("rb") as f:
        assert roving.load(f, dictionary=d) == dataclasses.asdict(SIMPLE)
    # The file needs the first entry (the shape); the third dumps taught
    # `d` the two strings as well.
    assert len(d) == 3
    with pytest.raises(roving.DictionaryError, match=f"{d.id_at(1):016x}"):
        roving.load(path)


def test_missing_or_wrong_dictionary_names_the_id() -> None:
    d = roving.Dictionary()
    d.add_shape(["a", "b"])
    doc = roving.dumps({"a": 1, "b": [{"a": 2, "b": 3}]}, dictionary=d)
    needs = f"{d.id:016x}"
    for read in (roving.loads, roving.validate, roving.to_json, roving.open):
        with pytest.raises(roving.DictionaryError, match=needs):
            read(doc)
    other = roving.Dictionary()
    other.add_shape(["a", "c"])
    with pytest.raises(roving.DictionaryError, match=needs) as e:
        roving.loads(doc, dictionary=other)
    assert isinstance(e.value, roving.DecodeError)
    assert e.value.offset == 3
    assert roving.loads(doc, dictionary=d) == {"a": 1, "b": [{"a": 2, "b": 3}]}


def test_damaged_bound_documents_report_offsets_in_themselves() -> None:
    """A bound document is validated after the dictionary's base (checked
    once): loads and validate refuse each damaged copy alike, with the
    offset in the bound document, not in its base."""
    d = roving.Dictionary()
    d.add_shape([f"f{i}" for i in range(12)])  # a shape with a hash index
    doc = roving.dumps({f"f{i}": i * 1000 for i in range(12)}, dictionary=d)
    refused = 0
    for at in range(13, len(doc)):  # after the 13-byte header and binding
        for byte in (0x00, 0x0E, 0xFF):
            bad = bytearray(doc)
            bad[at] = byte
            try:
                roving.validate(bytes(bad), dictionary=d)
            except roving.DecodeError as e:
                refused += 1
                assert e.offset is not None and e.offset < len(doc)
                with pytest.raises(roving.DecodeError) as again:
                    roving.loads(bytes(bad), dictionary=d)
                assert (type(again.value), again.value.offset) == (type(e), e.offset)
                continue
            roving.loads(bytes(bad), dictionary=d)
    assert refused > 0


def test_large_bound_documents_from_any_buffer() -> None:
    """A bound document of more than 64 KiB (validated without the GIL when
    its bytes cannot change) reads alike from bytes, bytearray and
    memoryview, typed and untyped, also from two threads at once."""
    import threading

    d = roving.Dictionary()
    d.add_shape(["Id", "Name", "Address", "Scores"])
    items = [SimpleObject(i, f"name {i}", "Planet Earth", list(range(i % 7))) for i in range(3000)]
    doc = roving.dumps(items, dictionary=d)
    assert len(doc) > 1 << 16
    want = [dataclasses.asdict(o) for o in items]
    for buf in (doc, bytearray(doc), memoryview(doc)):
        assert roving.loads(buf, dictionary=d) == want
        assert roving.loads(buf, dictionary=d, type=list[SimpleObject]) == items
    got: list[Any] = []

    def read() -> None:
        got.append(roving.loads(doc, dictionary=d, type=list[SimpleObject]))

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [items, items]


def test_older_documents_read_with_newer_states() -> None:
    d = roving.Dictionary()
    docs = []
    for i in range(10):
        obj = {f"k{i}": i, "v": [i, {"x": i}]}
        docs.append((obj, roving.dumps(obj, dictionary=d)))
    assert len(d) == 11  # ten shapes {k_i, v} and {x}
    copy = roving.Dictionary.from_bytes(bytes(d))
    assert copy == d and copy.id == d.id
    for obj, doc in docs:
        assert roving.loads(doc, dictionary=copy) == obj
        assert json.loads(roving.to_json(doc, dictionary=copy)) == obj
        roving.validate(doc, dictionary=copy)
        view = roving.open(doc, dictionary=copy)
        assert view.to_python() == obj
    # A shorter dictionary cannot read the later documents.
    short = roving.Dictionary()
    for keys in (["k0", "v"], ["x"]):
        short.add_shape(keys)
    with pytest.raises(roving.DictionaryError):
        roving.loads(docs[-1][1], dictionary=short)


def test_freeze_and_entries() -> None:
    d = roving.Dictionary()
    assert d.add_shape(["a"]) == 0
    assert d.add_shape(["a"]) == 0
    d.freeze()
    assert d.frozen
    doc = roving.dumps([{"a": 1}, {"b": 2}], dictionary=d)
    assert len(d) == 1
    assert roving.loads(doc, dictionary=d) == [{"a": 1}, {"b": 2}]
    with pytest.raises(roving.DictionaryError):
        d.add_string("x")
    with pytest.raises(roving.DictionaryError):
        roving.Dictionary().add_shape(["k", "k"])
    assert d.id_at(0) != d.id_at(1) and d.id_at(2) is None
    assert "1 entries" in repr(d) and "frozen" in repr(d)


def test_deltas() -> None:
    a = roving.Dictionary()
    a.add_shape(["a", "b"])
    b = roving.Dictionary.from_bytes(bytes(a))
    a.add_string("s")
    a.add_shape(["c"])
    delta = a.delta_since(1)
    b.extend_from_delta(delta)
    b.extend_from_delta(delta)  # idempotent
    assert b == a
    c = roving.Dictionary()
    c.add_shape(["x"])
    with pytest.raises(roving.DictionaryError):
        c.extend_from_delta(delta)
    with pytest.raises(roving.DecodeError):
        roving.Dictionary.from_bytes(b"not a dictionary")
    with pytest.raises(roving.DictionaryError):
        roving.Dictionary.from_bytes(delta)  # a delta is not a whole dictionary


@dataclasses.dataclass
class Inner:
    x: int
    tags: list[str]


@dataclasses.dataclass
class Outer:
    name: str
    inner: list[Inner]


def test_typed_decoding_of_many_kinds() -> None:
    d = roving.Dictionary()
    for n in range(3):
        obj = Outer("n" * (n + 1), [Inner(i, ["t"] * i) for i in range(n + 1)])
        doc = roving.dumps(obj, dictionary=d)
        assert roving.loads(doc, dictionary=d, type=Outer) == obj


json_values: Any = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(json_values, min_size=1, max_size=4), st.booleans())
def test_round_trips(values: list[Any], freeze: bool) -> None:
    d = roving.Dictionary()
    d.add_string("shared")
    if freeze:
        d.freeze()
    docs = [(v, roving.dumps(v, dictionary=d)) for v in values]
    for v, doc in docs:
        assert roving.loads(doc, dictionary=d) == v
        assert roving.loads(doc, dictionary=roving.Dictionary.from_bytes(bytes(d))) == v


def test_cli_takes_a_dictionary(tmp_path: Path) -> None:
    """`roving dump|get|stats|validate --dictionary FILE`; one-line errors
    without it or with another one."""
    d = roving.Dictionary()
    roving.dumps({"a": 1, "b": "x"}, dictionary=d)
    doc = tmp_path / "doc.rv"
    doc.write_bytes(roving.dumps({"a": 1, "b": ["x", {"a": 2, "b": 3}]}, dictionary=d))
    (tmp_path / "dict.bin").write_bytes(bytes(d))
    (tmp_path / "other.bin").write_bytes(bytes(roving.Dictionary()))
    ok = [
        (["validate", "--dictionary", "dict.bin", "doc.rv"], "ok"),
        (["dump", "--dictionary", "dict.bin", "doc.rv"], 'str "x"'),
        (["dump", "--json", "--dictionary", "dict.bin", "doc.rv"], '"b": ['),
        (["get", "--dictionary", "dict.bin", "doc.rv", "b[1].a"], "2"),
        (["stats", "--dictionary", "dict.bin", "doc.rv"], "records"),
    ]
    for args, want in ok:
        p = cli(*args, cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        assert want in p.stdout.decode(), (args, p.stdout)
    needs = f"{d.id:016x}"
    for args in (
        ["validate", "doc.rv"],
        ["dump", "doc.rv"],
        ["get", "doc.rv", "a"],
        ["stats", "doc.rv"],
    ):
        line = one_error_line(cli(*args, cwd=tmp_path))
        assert needs in line and "--dictionary" in line, line
    line = one_error_line(cli("validate", "--dictionary", "other.bin", "doc.rv", cwd=tmp_path))
    assert needs in line and "not the shared dictionary" in line, line
    line = one_error_line(cli("dump", "--dictionary", "doc.rv", "doc.rv", cwd=tmp_path))
    assert "not a roving dictionary" in line, line


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, ROVING_NO_PROGRESS="1")
    return subprocess.run(
        [sys.executable, "-m", "roving", *args],
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def test_dumps_learns_value_strings_that_recur() -> None:
    # As a Store's dictionary: a value string of 4 to 96 bytes is learnt
    # once 3 documents written against the dictionary have held it.
    d = roving.Dictionary()
    sizes = [len(roving.dumps(SIMPLE, dictionary=d)) for _ in range(4)]
    assert sizes == [78, 59, 59, 39]
    assert len(d) == 3  # the shape, "Simple", "Planet Earth"
    last = roving.dumps(SIMPLE, dictionary=d)
    assert len(last) <= 48
    assert roving.loads(last, dictionary=d, type=SimpleObject) == SIMPLE
    # Strings that do not recur are not learnt; a frozen dictionary learns nothing.
    u = roving.Dictionary()
    for i in range(10):
        roving.dumps({"name": f"user number {i}", "kind": "visitor"}, dictionary=u)
    assert len(u) == 2  # the shape and "visitor"
    f = roving.Dictionary()
    f.freeze()
    for _ in range(5):
        roving.dumps(SIMPLE, dictionary=f)
    assert len(f) == 0
