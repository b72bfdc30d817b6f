"""Record streams: ``roving.Writer`` and ``roving.iter_load`` (FORMAT.md
section 24): round trips (hypothesis), typed reading, appending, torn
tails (one warning, never read), damage in the middle (``DecodeError`` at
the frame's offset), file objects and paths, and the one-line error of
``load`` on a stream."""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import pytest
import roving
from hypothesis import given, settings
from hypothesis import strategies as st
from roving.bench.exp_simpleobject import SimpleObject


def simple(i: int = 100000) -> SimpleObject:
    return SimpleObject(Id=i, Name="Simple", Address="Planet Earth", Scores=list(range(10)))


def write_stream(records: list[Any]) -> bytes:
    f = io.BytesIO()
    with roving.Writer(f) as w:
        for r in records:
            w.write(r)
    return f.getvalue()


def read(source: Any, **kw: Any) -> tuple[list[Any], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = list(roving.iter_load(source, **kw))
    return out, [str(w.message) for w in caught if issubclass(w.category, roving.TornRecordWarning)]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.binary(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=10,
)


@given(st.lists(json_values, max_size=20))
@settings(max_examples=80, deadline=None)
def test_round_trip(records: list[Any]) -> None:
    data = write_stream(records)
    assert read(data) == (records, [])


@given(st.lists(json_values, min_size=1, max_size=8), st.data())
@settings(max_examples=80, deadline=None)
def test_any_truncation_reads_whole_records_and_flags_the_torn_one(
    records: list[Any], data: st.DataObject
) -> None:
    full = write_stream(records)
    frames, _ = roving._roving._frames(full)
    ends = [f[2] for f in frames]
    cut = data.draw(st.integers(0, len(full)))
    got, torn = read(full[:cut])
    whole = sum(1 for f in frames if f[0] == "document" and f[2] <= cut)
    assert got == records[:whole]
    boundary = cut in (0, 5) or cut in ends
    assert len(torn) == (0 if boundary else 1), (cut, torn)


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=10), st.data())
@settings(max_examples=100, deadline=None)
def test_any_byte_flip_raises_or_reads_valid_records(
    values: list[int], data: st.DataObject
) -> None:
    full = bytearray(write_stream([{"n": v, "s": "x" * (v % 40)} for v in values]))
    pos = data.draw(st.integers(0, len(full) - 1))
    full[pos] ^= data.draw(st.integers(1, 255))
    try:
        got, _ = read(bytes(full))
    except roving.DecodeError as e:
        assert e.offset is not None and 0 <= e.offset <= len(full)
    else:
        assert len(got) <= len(values)


def test_typed_records() -> None:
    objs = [simple(i) for i in range(50)]
    data = write_stream(objs)
    assert read(data, type=SimpleObject) == (objs, [])
    # The first record is a plain document (it carries its shape); the
    # writer's own dictionary learns the shape and a dictionary frame
    # carries it; the next records refer to it (19 bytes fewer: its keys
    # and shape record replaced by a 10-byte binding, FORMAT.md 23.3).
    # Once three records have written "Simple" and "Planet Earth", they are
    # learnt too (a second dictionary frame), and every later record refers
    # to them: 20 bytes fewer again (their string records).
    frames, torn = roving._roving._frames(data)
    assert torn is None
    kinds = ["document", "dictionary", "document", "document", "dictionary"]
    assert [f[0] for f in frames] == kinds + ["document"] * 47
    assert len(frames[0][3]) == len(roving.dumps(objs[0]))
    docs = [f for f in frames if f[0] == "document"]
    for i, (f, o) in enumerate(zip(docs, objs, strict=True)):
        saved = 0 if i == 0 else 19 if i < 3 else 39
        assert len(f[3]) == len(roving.dumps(o)) - saved, i
        assert roving.loads(f[4], type=SimpleObject) == o  # the document readers read


def test_typed_mismatch_names_the_record() -> None:
    data = write_stream([simple(), {"Id": "x"}])
    it = roving.iter_load(data, type=SimpleObject)
    assert next(it) == simple()
    with pytest.raises(roving.ValidationError, match="record at byte"):
        next(it)


def test_path_appends_and_continues(tmp_path: Path) -> None:
    p = tmp_path / "log.rvs"
    with roving.Writer(p) as w:
        w.write(1)
        w.write({"a": [1, 2]})
        assert w.records == 2
    assert w.closed
    with roving.Writer(str(p)) as w:
        w.write("three")
    assert read(p) == ([1, {"a": [1, 2]}, "three"], [])
    assert read(str(p)) == read(p.read_bytes()) == read(open(p, "rb"))  # noqa: SIM115


def test_append_after_a_torn_tail_cuts_it_off(tmp_path: Path) -> None:
    p = tmp_path / "log.rvs"
    with roving.Writer(p) as w:
        for i in range(3):
            w.write({"i": i})
    whole = p.read_bytes()
    p.write_bytes(whole + write_stream([{"i": 99, "pad": "x" * 100}])[5:40])
    got, torn = read(p)
    assert got == [{"i": i} for i in range(3)]
    assert len(torn) == 1 and f"byte {len(whole)}" in torn[0]
    with roving.Writer(p) as w:
        w.write({"i": 3})
    assert read(p) == ([{"i": i} for i in range(4)], [])
    assert p.read_bytes()[: len(whole)] == whole


def test_zero_filled_tail_is_torn(tmp_path: Path) -> None:
    data = write_stream([1, 2]) + bytes(100)
    assert read(data) == ([1, 2], [read(data)[1][0]])
    assert len(read(data)[1]) == 1


def test_damage_in_the_middle_is_a_decode_error_at_the_frame() -> None:
    recs = [{"n": i, "s": "abc"} for i in range(5)]
    data = bytearray(write_stream(recs))
    frames, _ = roving._roving._frames(bytes(data))
    assert [f[0] for f in frames] == ["document", "dictionary"] + ["document"] * 4
    for damaged, before in ((2, 1), (1, 1), (4, 3)):  # frame index, records read before it
        bad = bytearray(data)
        _, off, end, payload, _ = frames[damaged]
        bad[end - len(payload) + 5] ^= 0xFF  # inside the frame's document
        it = roving.iter_load(bytes(bad))
        assert [next(it) for _ in range(before)] == recs[:before]
        with pytest.raises(roving.DecodeError) as e:
            next(it)
        assert e.value.offset == off, (damaged, str(e.value))
        assert f"at byte {off}" in str(e.value)
        assert list(it) == []  # the iteration ended


def test_reserved_frame_kind_is_an_error() -> None:
    data = bytearray(write_stream([1, 2]))
    data[5] |= 2
    with pytest.raises(roving.DecodeError) as e:
        list(roving.iter_load(bytes(data)))
    assert e.value.offset == 5


def test_load_of_a_stream_names_iter_load(tmp_path: Path) -> None:
    p = tmp_path / "log.rvs"
    with roving.Writer(p) as w:
        w.write(1)
    for f in (lambda: roving.load(p), lambda: roving.loads(p.read_bytes())):
        with pytest.raises(roving.DecodeError) as e:
            f()
        msg = str(e.value)
        assert "iter_load" in msg and "\n" not in msg


def test_iter_load_of_a_document_says_so() -> None:
    with pytest.raises(roving.DecodeError, match="not a record stream"):
        roving.iter_load(roving.dumps([1, 2]))
    with pytest.raises(roving.DecodeError, match="not a roving record stream"):
        roving.iter_load(b"hello world")


def test_empty_and_header_only() -> None:
    assert read(b"") == ([], [])
    assert read(write_stream([])) == ([], [])
    got, torn = read(write_stream([])[:3])
    assert got == [] and len(torn) == 1


def test_not_a_stream_file_is_not_appended_to(tmp_path: Path) -> None:
    p = tmp_path / "doc.rv"
    roving.dump({"a": 1}, p)
    before = p.read_bytes()
    with pytest.raises(roving.DecodeError):
        roving.Writer(p)
    assert p.read_bytes() == before


def test_file_object_rules(tmp_path: Path) -> None:
    f = io.BytesIO(b"xx")
    f.seek(2)
    with pytest.raises(ValueError, match="pass its path"):
        roving.Writer(f)
    with pytest.raises(TypeError, match="binary"):
        roving.Writer(io.StringIO())
    with pytest.raises(TypeError, match="binary"):
        roving.iter_load(io.StringIO())
    w = roving.Writer(io.BytesIO())
    w.close()
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.write(1)
    with pytest.raises(FileNotFoundError):
        roving.iter_load(tmp_path / "missing.rvs")


def test_large_records_across_read_chunks(tmp_path: Path) -> None:
    p = tmp_path / "big.rvs"
    recs = [{"i": i, "s": "y" * (i * 100_000)} for i in range(8)]
    with roving.Writer(p) as w:
        for r in recs:
            w.write(r)
    assert read(p) == (recs, [])
    # Torn inside a record larger than a read chunk.
    data = p.read_bytes()
    p.write_bytes(data[:-300_000])
    got, torn = read(p)
    assert got == recs[:7] and len(torn) == 1


def test_default_and_non_str_keys() -> None:
    f = io.BytesIO()
    with roving.Writer(f, default=str, non_str_keys=True) as w:
        w.write({1: complex(1, 2)})
    assert read(f.getvalue()) == ([{"1": "(1+2j)"}], [])


def test_a_shared_dictionary(tmp_path: Path) -> None:
    d = roving.Dictionary()
    objs = [simple(i) for i in range(20)]
    p = tmp_path / "log.rvs"
    with roving.Writer(p, dictionary=d) as w:
        for o in objs[:10]:
            w.write(o)
    # It learnt the SimpleObject shape, then "Simple" and "Planet Earth",
    # which recur (as dumps with it learns).
    assert len(d) == 3
    with roving.Writer(p, dictionary=d) as w:  # appending with the same dictionary
        for o in objs[10:]:
            w.write(o)
    # The stream carries the entries: no dictionary is needed to read it.
    assert read(p, type=SimpleObject) == (objs, [])
    frames, _ = roving._roving._frames(p.read_bytes())
    # Two dictionary frames: the shape before the first record, the two
    # strings before the first record after they were learnt.
    assert [f[0] for f in frames].count("dictionary") == 2
    # Its records are documents written against d.
    assert roving.loads(frames[-1][3], dictionary=d, type=SimpleObject) == objs[-1]
    with pytest.raises(roving.DecodeError, match="another dictionary"):
        other = roving.Dictionary()
        roving.dumps({"x": 1, "y": 2}, dictionary=other)
        roving.Writer(p, dictionary=other)
    with pytest.raises(TypeError, match="roving.Dictionary"):
        roving.Writer(io.BytesIO(), dictionary=object())  # type: ignore[arg-type]


def test_many_simple_objects_beat_the_length_prefix_size(tmp_path: Path) -> None:
    p = tmp_path / "many.rvs"
    with roving.Writer(p) as w:
        for _ in range(1000):
            w.write(simple())
    got, torn = read(p, type=SimpleObject)
    assert got == [simple()] * 1000 and torn == []
    # msgspec.msgpack's 60 bytes and a 4-byte length: 64 per object.
    per_record = p.stat().st_size / 1000
    assert per_record < 62, per_record


def test_appending_continues_the_streams_dictionary(tmp_path: Path) -> None:
    p = tmp_path / "log.rvs"
    for i in range(3):
        with roving.Writer(p) as w:
            w.write(simple(i))
            w.write({"other": i})
    frames, _ = roving._roving._frames(p.read_bytes())
    kinds = [f[0] for f in frames]
    # Each shape's dictionary entry is written once, however many writers.
    assert kinds.count("dictionary") == 2, kinds
    want = [x for i in range(3) for x in (simple(i), {"other": i})]
    got, _ = read(p)
    assert got == [x if isinstance(x, dict) else vars(x) for x in want]


def test_many_shapes_stop_growing_the_writers_dictionary() -> None:
    recs = [{f"{k}{i}": i for k in "abcd"} for i in range(200)]
    recs.append(recs[3])
    data = write_stream(recs)
    assert read(data) == (recs, [])
    frames, _ = roving._roving._frames(data)
    assert sum(1 for f in frames if f[0] == "dictionary") <= 64
    # The dictionary keeps its first shapes: the last record refers to one.
    assert len(frames[-1][3]) < len(roving.dumps(recs[3]))
    # A shape met after the dictionary stopped growing is written in full.
    assert len(frames[-2][3]) > len(roving.dumps(recs[-2]))


def test_scalars_are_written_plain() -> None:
    recs = [{"a": 1, "b": 2}, {"a": 3, "b": 4}, 5, "six", None]
    data = write_stream(recs)
    assert read(data) == (recs, [])
    frames, _ = roving._roving._frames(data)
    for f, r in zip([f for f in frames if f[0] == "document"][2:], recs[2:], strict=True):
        assert f[3] == roving.dumps(r)


def test_writer_and_iterator_move_between_threads() -> None:
    import threading

    f = io.BytesIO()
    w = roving.Writer(f)
    t = threading.Thread(target=lambda: [w.write({"i": i}) for i in range(100)])
    t.start()
    t.join()
    w.close()
    it = roving.iter_load(f.getvalue())
    got: list[Any] = []
    t = threading.Thread(target=lambda: got.extend(it))
    t.start()
    t.join()
    assert got == [{"i": i} for i in range(100)]
