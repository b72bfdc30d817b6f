"""The key strings and dict templates of a dictionary's shapes are kept from
one read to the next (a Store's gets and iteration, ``loads`` and
``Decoder.decode`` with a dictionary, ``iter_load``): every read gives what
reading the document alone gives, each result is a dict of its own, and a
dictionary base that changed under the kept shapes is read afresh."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import roving
from roving import Store


def shaped(i: int, shape: int) -> dict[str, Any]:
    """A record of one of several shapes, whose keys depend on ``shape``."""
    return {f"s{shape}k{j}": i * 10 + j for j in range(3 + shape)}


def test_store_gets_of_several_shapes_read_as_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    with Store(path) as s:
        for i in range(300):
            s[f"k{i:04}"] = shaped(i, i % 4)
    with Store(path) as s:
        assert s._dictionary_len >= 4
        for _ in range(2):
            for i in range(0, 300, 7):
                assert s[f"k{i:04}"] == shaped(i, i % 4)
        assert dict(s.items()) == {f"k{i:04}": shaped(i, i % 4) for i in range(300)}
    with Store(path, trusted=True, readonly=True) as s:
        assert [s[f"k{i:04}"] for i in range(20)] == [shaped(i, i % 4) for i in range(20)]


def test_each_get_is_a_dict_of_its_own(tmp_path: Path) -> None:
    with Store(tmp_path / "s.rvs") as s:
        for i in range(5):
            s[f"k{i}"] = shaped(i, 0)
        s.flush()
        first = s["k3"]
        first["s0k0"] = "changed"
        first["added"] = 1
        del first["s0k1"]
        assert s["k3"] == shaped(3, 0)
        assert s["k4"] == shaped(4, 0)
        assert s["k3"] is not s["k3"]


def test_a_base_that_changed_under_the_kept_shapes_reads_afresh(tmp_path: Path) -> None:
    # Two handles grow the dictionary at once: the first reads its own
    # pending records, whose shape is then kept at some offset of its
    # dictionary's base; the second commits first, so after the first
    # one's flush the other's shape is at that offset, and its own later.
    path = tmp_path / "s.rvs"
    first = Store(path)
    first["x"] = {"id": 1}
    first.flush()
    second = Store(path)
    first["a1"] = {"p": 1, "q": 2, "r": 3}
    first["a2"] = {"p": 4, "q": 5, "r": 6}
    assert first["a2"] == {"p": 4, "q": 5, "r": 6}
    second["b1"] = {"u": 1, "v": 2, "w": 3}
    second["b2"] = {"u": 4, "v": 5, "w": 6}
    second.flush()
    first.flush()
    assert first["b2"] == {"u": 4, "v": 5, "w": 6}
    assert first["a2"] == {"p": 4, "q": 5, "r": 6}
    assert first["b1"] == {"u": 1, "v": 2, "w": 3}
    first.close()
    second.close()


def test_loads_with_a_growing_dictionary_reads_old_and_new_documents() -> None:
    d = roving.Dictionary()
    docs = []
    for i in range(40):
        obj = shaped(i, i % 5)
        docs.append((roving.dumps(obj, dictionary=d), obj))
    decoder = roving.Decoder(dictionary=d)
    # Newest first, then oldest first: documents bound to fewer entries
    # (shorter bases) after documents bound to more, and back.
    for b, obj in [*reversed(docs), *docs]:
        assert roving.loads(b, dictionary=d) == obj
        assert decoder.decode(b) == obj
    a = roving.loads(docs[-1][0], dictionary=d)
    a.clear()
    assert roving.loads(docs[-1][0], dictionary=d) == docs[-1][1]


def test_two_dictionaries_with_shapes_at_the_same_offsets() -> None:
    d1, d2 = roving.Dictionary(), roving.Dictionary()
    d1.add_shape(["a", "b", "c"])
    d2.add_shape(["x", "y", "z"])
    b1 = roving.dumps({"a": 1, "b": 2, "c": 3}, dictionary=d1)
    b2 = roving.dumps({"x": 1, "y": 2, "z": 3}, dictionary=d2)
    for _ in range(3):
        assert roving.loads(b1, dictionary=d1) == {"a": 1, "b": 2, "c": 3}
        assert roving.loads(b2, dictionary=d2) == {"x": 1, "y": 2, "z": 3}


def test_iter_load_of_a_stream_of_several_shapes() -> None:
    f = io.BytesIO()
    w = roving.Writer(f, dictionary=roving.Dictionary())
    objs = [shaped(i, i % 3) for i in range(50)]
    for o in objs:
        w.write(o)
    w.close()
    assert list(roving.iter_load(io.BytesIO(f.getvalue()))) == objs


def test_a_document_s_own_shapes_are_not_kept() -> None:
    # Documents written against a frozen dictionary carry the shapes it
    # lacks themselves, right after its base: at the same offsets in each.
    d = roving.Dictionary()
    d.add_shape(["id", "body"])
    d.freeze()
    objs = [{"id": i, "body": {f"{c}1": i, f"{c}2": -i}} for i, c in enumerate("pqrpqr")]
    docs = [roving.dumps(o, dictionary=d) for o in objs]
    for _ in range(2):
        for b, o in zip(docs, objs, strict=True):
            assert roving.loads(b, dictionary=d) == o


def test_the_dictionary_s_strings_are_one_str_from_read_to_read() -> None:
    d = roving.Dictionary()
    d.add_string("Planet Earth")
    d.add_shape(["name", "where"])
    d.freeze()
    b = roving.dumps({"name": "Ada", "where": "Planet Earth"}, dictionary=d)
    first, second = roving.loads(b, dictionary=d), roving.loads(b, dictionary=d)
    assert first == second == {"name": "Ada", "where": "Planet Earth"}
    assert first["where"] is second["where"]
    # A string of the document's own is made for each read.
    assert first["name"] == second["name"] == "Ada"
    assert first["name"] is not second["name"]
    # Other dictionaries whose strings sit at the same offsets read theirs.
    for text in ["Planet Mars", "Planet Earth", "P"]:
        other = roving.Dictionary()
        other.add_string(text)
        other.add_shape(["name", "where"])
        bo = roving.dumps({"name": "Ada", "where": text}, dictionary=other)
        for dic, doc, where in [(other, bo, text), (d, b, "Planet Earth")] * 2:
            assert roving.loads(doc, dictionary=dic)["where"] == where
            assert roving.Decoder(dictionary=dic).decode(doc)["where"] == where
