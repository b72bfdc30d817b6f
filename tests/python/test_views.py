"""Lazy, zero-copy access: roving.open() and views."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import weakref
from pathlib import Path
from typing import Any

import pytest
import roving


def test_open_bytes_and_lookups(people: Any, people_bytes: bytes) -> None:
    doc = roving.open(people_bytes)
    root = doc.root
    assert isinstance(root, roving.View) and root.kind == "array"
    assert len(root) == len(people)
    assert root[123]["name"] == people[123]["name"]
    assert doc[123]["name"] == people[123]["name"]
    assert root[-1]["index"] == people[-1]["index"]
    p = root[5]
    assert p.kind == "map" and len(p) == len(people[5])
    assert list(p.keys()) == list(people[5].keys())
    assert [k for k in p] == list(people[5])
    assert next(iter(p.values())) == next(iter(people[5].values()))
    assert dict(p.items())["age"] == people[5]["age"]
    assert "name" in p and "nope" not in p and 3 not in p
    assert p.get("nope") is None and p.get("nope", 7) == 7 and p.get("age") == people[5]["age"]
    assert root.get(10**9) is None
    assert p["tags"] == people[5]["tags"]
    assert p["tags"][0] == people[5]["tags"][0]
    assert people[5]["tags"][1] in p["tags"]
    assert p["friends"][0]["name"] == people[5]["friends"][0]["name"]
    assert root.get_path("[7].friends[1].name") == people[7]["friends"][1]["name"]
    assert doc.get_path("[7].nope", "dflt") == "dflt"
    assert p == people[5] and p != people[6] and root == people
    assert p.to_python() == people[5]
    assert json.loads(p.to_json()) == people[5]
    assert json.loads(doc.to_json(indent=2)) == people
    assert root[2:5] == people[2:5] or [v.to_python() for v in root[2:5]] == people[2:5]
    assert [v.to_python() for v in root[::250]] == people[::250]
    assert doc.nbytes == len(people_bytes)
    assert bytes(doc.buffer()) == people_bytes
    assert "View" in repr(p) and "Doc" in repr(doc)


def test_errors_of_views(people_bytes: bytes) -> None:
    root = roving.open(people_bytes).root
    with pytest.raises(IndexError):
        root[10**6]
    with pytest.raises(TypeError):
        root["x"]
    with pytest.raises(KeyError):
        root[0]["nope"]
    with pytest.raises(KeyError):
        root[0][0]
    with pytest.raises(TypeError):
        root.keys()
    with pytest.raises(TypeError):
        hash(root)
    with pytest.raises(ValueError):
        root.get_path("[x")


def test_scalar_root_and_types() -> None:
    assert roving.open(roving.dumps(42)).root == 42
    assert roving.open(roving.dumps("s")).root == "s"
    assert roving.open(roving.dumps(None)).root is None
    doc = roving.open(roving.dumps({"b": b"x", "f": 1.5, "big": 2**80, "e": [], "m": {}}))
    r = doc.root
    assert r["b"] == b"x" and r["f"] == 1.5 and r["big"] == 2**80
    assert len(r["e"]) == 0 and not r["e"] and r["e"] == [] and r["m"] == {}


def test_views_outlive_their_doc(people: Any, people_bytes: bytes) -> None:
    doc = roving.open(people_bytes)
    p = doc.root[10]
    tags = p["tags"]
    doc.close()
    assert doc.closed
    with pytest.raises(ValueError, match="closed"):
        _ = doc.root
    del doc
    gc.collect()
    assert p["name"] == people[10]["name"]
    assert tags == people[10]["tags"]
    assert p.to_python() == people[10]


def test_views_keep_a_file_mapping_alive(tmp_path: Path, people: Any, people_bytes: bytes) -> None:
    f = tmp_path / "people.rov"
    f.write_bytes(people_bytes)
    with roving.open(f) as doc:
        p = doc.root[321]
        it = iter(doc.root[322].items())
    assert doc.closed
    assert p["name"] == people[321]["name"]
    assert dict(it)["name"] == people[322]["name"]
    with roving.open(str(f)) as doc2:
        assert doc2[0]["index"] == 0
    # Bytes given to open() stay alive through the views too.
    b = bytes(people_bytes)
    v = roving.open(b).root[1]
    del b
    gc.collect()
    assert v["index"] == 1


def test_open_copies_mutable_buffers(people_bytes: bytes) -> None:
    ba = bytearray(people_bytes)
    doc = roving.open(ba)
    ba[:] = b"\x00" * len(ba)  # the document keeps its own copy
    assert doc[0]["index"] == 0
    doc2 = roving.open(memoryview(people_bytes))
    assert doc2[1]["index"] == 1


def test_open_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        roving.open(tmp_path / "missing.rov")
    empty = tmp_path / "empty.rov"
    empty.write_bytes(b"")
    with pytest.raises(roving.DecodeError):
        roving.open(empty)
    bad = tmp_path / "bad.rov"
    bad.write_bytes(b"RV\x01garbage")
    with pytest.raises(roving.DecodeError):
        roving.open(bad)
    with pytest.raises(TypeError):
        roving.open(12)  # type: ignore[arg-type]


def test_open_os_errors_are_builtins_opens(tmp_path: Path) -> None:
    missing = tmp_path / "missing.rov"
    for path in [str(missing), missing, str(tmp_path / "no" / "dir.rov"), str(tmp_path), tmp_path]:
        with pytest.raises(OSError) as want:
            open(path, "rb")  # noqa: SIM115
        with pytest.raises(OSError) as got:
            roving.open(path)
        assert type(got.value) is type(want.value)
        assert got.value.errno == want.value.errno
        assert got.value.strerror == want.value.strerror
        assert got.value.filename == want.value.filename
        assert str(got.value) == str(want.value)
    with pytest.raises(
        FileNotFoundError, match=r"^\[Errno 2\] No such file or directory: '/nope'$"
    ):
        roving.open("/nope")
    with pytest.raises(IsADirectoryError) as ei:
        roving.open(str(tmp_path))
    assert ei.value.filename == str(tmp_path)


def test_huge_indexes_are_index_errors() -> None:
    doc = roving.open(roving.dumps([1, [2, 3], {"a": 4}]))
    for big in [2**63, 2**70, -(2**63) - 1, -(2**70)]:
        for seq in (doc, doc.root, doc.root[1]):
            with pytest.raises(IndexError, match="array index out of range"):
                seq[big]
        assert doc.root.get(big, "d") == "d"
    np = pytest.importorskip("numpy")
    vec = roving.open(roving.dumps(np.arange(3)))
    with pytest.raises(IndexError, match="vector index out of range"):
        vec[2**70]
    assert vec[np.int64(2)] == 2 and vec[-1] == 2
    assert doc.root[np.int64(1)] == [2, 3] and doc.root[-3] == 1
    for bad in [1.0, "1", None]:
        with pytest.raises(TypeError, match="array indices must be integers or slices"):
            doc.root[bad]
        with pytest.raises(TypeError, match="vector indices must be integers"):
            vec[bad]


def test_negative_json_indent_is_a_value_error() -> None:
    data = roving.dumps({"a": [1, 2]})
    doc = roving.open(data)
    for to_json in (
        lambda i: roving.to_json(data, indent=i),
        lambda i: doc.to_json(indent=i),
        lambda i: doc.root.to_json(indent=i),
        lambda i: doc.root["a"].to_json(indent=i),
    ):
        for n in [-1, -3, -(2**62)]:
            with pytest.raises(ValueError, match=rf"indent must be 0 or more \(spaces\), got {n}$"):
                to_json(n)
        assert b"\n" in to_json(0)
        assert b"\n" not in to_json(None)
    assert roving.to_json(data, indent=2) == b'{\n  "a": [\n    1,\n    2\n  ]\n}'
    assert roving.to_json(memoryview(data)) == b'{"a":[1,2]}'
    with pytest.raises(TypeError):
        roving.to_json(data, indent="2")  # type: ignore[arg-type]


def test_trusted_open_is_the_same_for_good_documents(people: Any, people_bytes: bytes) -> None:
    doc = roving.open(people_bytes, trusted=True)
    assert doc[999]["name"] == people[999]["name"]
    assert doc.to_python() == people


def test_numpy_vectors_are_zero_copy_and_read_only(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    a = np.arange(1000, dtype="<f8")
    b = roving.dumps({"v": a, "w": np.arange(7, dtype="u1")})
    f = tmp_path / "v.rov"
    f.write_bytes(b)
    doc = roving.open(f)
    v = doc["v"]
    assert isinstance(v, np.ndarray) and np.array_equal(v, a)
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v[0] = 1.0
    assert np.array_equal(doc["w"], np.arange(7, dtype="u1"))
    assert v.ctypes.data % 8 == 0  # vector data is aligned in the mapped file
    doc.close()
    del doc
    gc.collect()
    assert v.sum() == a.sum()  # the array keeps the mapping alive


def test_view_objects_are_released(people_bytes: bytes) -> None:
    doc = roving.open(people_bytes)
    r = weakref.ref(doc)
    del doc
    gc.collect()
    assert r() is None


def test_equality_rules() -> None:
    r = roving.open(roving.dumps({"a": [1, 2.0, "x", None, True], "b": {"c": b"z"}})).root
    assert r == {"a": [1, 2.0, "x", None, True], "b": {"c": b"z"}}
    assert r == {"b": {"c": b"z"}, "a": (1, 2, "x", None, 1)}  # Python's == rules
    assert r != {"a": [1, 2.0, "x", None, True]}
    assert r != [1]
    assert r["a"] != [1, 2.0, "x", None]
    other = roving.open(roving.dumps({"a": [1, 2.0, "x", None, True], "b": {"c": b"z"}})).root
    assert r == other


def test_iteration_protocols() -> None:
    r = roving.open(roving.dumps({"k": list(range(10))})).root
    it = iter(r["k"])
    assert next(it) == 0
    assert it.__length_hint__() == 9
    assert list(it) == list(range(1, 10))
    assert list(it) == []
    assert sorted(r) == ["k"]


def test_offsets_identify_shared_values() -> None:
    shared = {"x": 1}
    r = roving.open(roving.dumps([shared, shared, {"x": 1}])).root
    assert r[0].offset == r[1].offset != r[2].offset


def test_path_like_objects(tmp_path: Path) -> None:
    f = tmp_path / "a.rov"
    f.write_bytes(roving.dumps([1, 2]))

    class P(os.PathLike):  # type: ignore[type-arg]
        def __fspath__(self) -> str:
            return str(f)

    assert roving.open(P()).root == [1, 2]


def test_views_can_be_encoded() -> None:
    r = roving.open(roving.dumps({"a": [1, {"b": 2}]})).root
    assert roving.loads(roving.dumps({"copy": r["a"]})) == {"copy": [1, {"b": 2}]}


def test_keys_values_and_items_are_views_like_a_dicts() -> None:
    d = {"a": 1, "b": [1, 2], "c": {"x": None}, "é": "text"}
    for doc in (roving.open(roving.dumps(d)), roving.open(roving.dumps(d), validate=True)):
        v = doc.root

        def plain(x: Any) -> Any:
            if isinstance(x, roving.View):
                return x.to_python()
            if isinstance(x, tuple):
                return tuple(plain(y) for y in x)
            return x

        for got, want in (
            (v.keys(), d.keys()),
            (v.values(), d.values()),
            (v.items(), d.items()),
        ):
            assert len(got) == len(want) == 4
            # Iterable again and again, in order, like the dict's view.
            assert [plain(x) for x in got] == list(want)
            assert [plain(x) for x in got] == list(want)
        assert "a" in v.keys() and "z" not in v.keys() and 1 not in v.keys()
        assert 1 in v.values() and [1, 2] in v.values() and {"x": None} in v.values()
        assert 2 not in v.values() and "a" not in v.values()
        assert ("a", 1) in v.items() and ("b", [1, 2]) in v.items()
        assert ("a", 2) not in v.items() and ("z", 1) not in v.items()
        assert ("a",) not in v.items() and "a" not in v.items() and (1, 1) not in v.items()
        assert repr(v.keys()) == "roving.MapView.keys(['a', 'b', 'c', 'é'])"
        assert isinstance(v.items(), roving.MapView)
    empty = roving.open(roving.dumps({})).root
    assert len(empty.keys()) == 0 and list(empty.items()) == []
    with pytest.raises(TypeError, match="keys"):
        roving.open(roving.dumps([1])).root.keys()


def test_numpy_asarray_of_a_view_is_the_array_of_its_value() -> None:
    np = pytest.importorskip("numpy")
    # Views were no sequence numpy knew: np.asarray gave a 0-d object array
    # holding the view.
    v = roving.open(roving.dumps([1, 2, 3])).root
    a = np.asarray(v)
    assert a.shape == (3,) and a.tolist() == [1, 2, 3]
    assert np.asarray(v, dtype=np.float32).dtype == np.float32
    rows = np.arange(6.0).reshape(2, 3)
    assert np.array_equal(np.asarray(roving.open(roving.dumps(rows)).root), rows)
    assert np.array(roving.open(roving.dumps([[1, 2], [3, 4]])).root).shape == (2, 2)
    # A map gives what numpy makes of a dict: a 0-d object array.
    m = np.asarray(roving.open(roving.dumps({"a": 1})).root)
    assert m.shape == () and m.item() == {"a": 1}
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(v, copy=False)


@dataclasses.dataclass
class _Friend:
    name: str
    age: int


@dataclasses.dataclass
class _Person:
    name: str
    friends: list[_Friend]
    tags: tuple[str, ...] = ()


def test_to_python_with_a_type_decodes_as_loads_does(tmp_path: Path) -> None:
    """``View.to_python(type=T)`` and ``Doc.to_python(type=T)`` decode as
    ``roving.loads(b, type=T)``: the whole document, or a view of a
    sub-map or sub-array (nested views), lazily opened or not."""
    people = [
        {"name": f"p{i}", "friends": [{"name": f"f{i}{j}", "age": j} for j in range(3)]}
        for i in range(4)
    ]
    data = roving.dumps({"people": people, "lead": people[2]})
    expected = [_Person(p["name"], [_Friend(**f) for f in p["friends"]]) for p in people]  # type: ignore[arg-type]
    for validate in (True, False):
        doc = roving.open(data, validate=validate)
        whole = doc.to_python(type=dict[str, Any])
        assert whole == roving.loads(data, type=dict[str, Any])
        lead = doc["lead"]
        assert isinstance(lead, roving.View)
        assert lead.to_python(type=_Person) == expected[2]
        assert lead.to_python(type=_Person) == roving.loads(roving.dumps(people[2]), type=_Person)
        assert doc["people"].to_python(type=list[_Person]) == expected
        assert doc["people"][1]["friends"][2].to_python(type=_Friend) == _Friend("f12", 2)
        assert doc["people"][3].to_python(type=None) == people[3]
        assert doc["people"][3].to_python() == people[3]
        with pytest.raises(roving.ValidationError):
            lead.to_python(type=_Friend)
        with pytest.raises(roving.ValidationError):
            doc["people"].to_python(type=list[int])

    # A lazily opened file whose sub-map is damaged: a DecodeError, never
    # a wrong value.
    bad = bytearray(data)
    at = bytes(bad).rindex(b"f31")
    bad[at : at + 3] = b"\xff\xfe\xfd"
    path = tmp_path / "bad.rv"
    path.write_bytes(bytes(bad))
    with roving.open(path, validate=False) as doc:
        with pytest.raises(roving.DecodeError):
            doc["people"].to_python(type=list[_Person])
