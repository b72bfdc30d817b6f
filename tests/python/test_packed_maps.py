"""Dicts whose keys are their own (a dict keyed by ids) written with a
packed shape (format version 2, FORMAT.md section 6.18): every reader gives
back the same dicts, and dicts whose keys recur keep shapes of slots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import roving
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import run
from test_zero_copy_safety import _damaged_store_script, run_isolated


def kinds(data: bytes) -> list[str]:
    """The record kinds of a document, from the core's walker."""
    return [r[2] for r in roving._roving._records(data)]


def keyed(n: int, start: int = 0) -> dict[str, int]:
    """A dict keyed by ids made from data: each key object only the dict holds."""
    return {str(start + i): i for i in range(n)}


@pytest.mark.parametrize("n", [16, 17, 100, 254, 255, 1000, 20_000])
def test_dicts_keyed_by_ids_round_trip_through_every_reader(n: int) -> None:
    d = keyed(n)
    data = roving.dumps(d)
    assert kinds(data).count("packed shape") == 1
    assert data[2] == 2  # a version 2 record
    back = roving.loads(data)
    assert back == d and list(back) == list(d)
    assert roving.loads(data, type=dict[str, int]) == d
    assert roving.loads(data, type=dict[int, int]) == {int(k): v for k, v in d.items()}
    assert json.loads(roving.to_json(data)) == d
    view = roving.open(data)
    assert len(view.root) == n
    assert view.root[str(n - 1)] == n - 1
    assert str(n // 2) in view.root and "absent" not in view.root
    assert list(view.root.keys()) == list(d)
    assert view.root.to_python() == d


def test_packed_keys_are_smaller_than_a_shape_of_string_records() -> None:
    d = keyed(20_000)
    packed = roving.dumps(d)
    # The same keys held by a second object too: a shape of slots.
    also = list(d)
    slots = roving.dumps({k: d[k] for k in also})
    assert "packed shape" not in kinds(slots)
    assert roving.loads(slots) == roving.loads(packed) == d
    assert len(packed) < 0.75 * len(slots), (len(packed), len(slots))


def test_records_of_shared_keys_keep_one_shape() -> None:
    # Field names that every record holds (json.loads makes each key once).
    rows = json.loads(json.dumps([{f"field{j}": i * j for j in range(20)} for i in range(50)]))
    data = roving.dumps(rows)
    assert "packed shape" not in kinds(data)
    assert roving.loads(data) == rows
    # Each record with keys of its own objects (as from a decoder that
    # does not share keys): the first packed, then one shape for the rest.
    fresh = [{f"field{j}": i * j for j in range(20)} for i in range(50)]
    data = roving.dumps(fresh)
    k = kinds(data)
    assert k.count("packed shape") == 1 and k.count("shape") == 1, k
    assert roving.loads(data) == fresh


def test_small_dicts_and_other_keys_are_not_packed() -> None:
    for d in (keyed(15), {7000: "int key", **keyed(20)}):
        data = roving.dumps(d, non_str_keys=True)
        assert "packed shape" not in kinds(data)
        assert roving.loads(data, type=dict[str, object]) == {str(k): v for k, v in d.items()}


def test_nested_values_and_empty_and_unicode_keys() -> None:
    d = {f"é{i}✓": {"inner": [i, str(i)], "n": None} for i in range(30)}
    d[""] = {"empty": True}
    data = roving.dumps(d)
    assert "packed shape" in kinds(data)
    assert roving.loads(data) == d
    assert roving.open(data).root[""]["empty"] is True


def test_a_dict_changed_while_it_is_written_is_an_error_not_a_crash() -> None:
    d = keyed(40)

    class Grow:
        pass

    def default(o: object) -> object:
        d.pop(next(iter(d)), None)
        d.update(keyed(5, start=10_000))
        return "grown"

    d["x" * 3] = Grow()  # type: ignore[assignment]
    with pytest.raises(roving.EncodeError, match="changed size"):
        roving.dumps(d, default=default)


def stored_and_streamed(tmp_path: Path, records: dict[str, dict[str, object]]) -> None:
    """Checks that ``records`` read back from a Store and from a stream."""
    with roving.Store(tmp_path / "s") as s:
        s.update(records)
    with roving.Store(tmp_path / "s", readonly=True) as s:
        assert dict(s.items()) == records
    p = tmp_path / "log.rv"
    with roving.Writer(p) as w:
        for r in records.values():
            w.write(r)
    assert list(roving.iter_load(p)) == list(records.values())


def test_stores_and_streams_with_a_dictionary_read_packed_maps(tmp_path: Path) -> None:
    records = {f"r{i}": {"users": keyed(30, start=i * 100), "kind": "batch"} for i in range(20)}
    stored_and_streamed(tmp_path, records)
    d = roving.Dictionary()
    blobs = [roving.dumps(r, dictionary=d) for r in records.values()]
    assert [roving.loads(b, dictionary=d) for b in blobs] == list(records.values())


def test_the_cli_dumps_a_packed_map(tmp_path: Path) -> None:
    p = tmp_path / "ids.rv"
    p.write_bytes(roving.dumps(keyed(20)))
    out = run("dump", str(p))
    assert out.returncode == 0, out.stderr
    assert b"\n  19: int 19\n" in out.stdout, out.stdout
    stats = run("stats", str(p))
    assert stats.returncode == 0, stats.stderr


KEYS = st.text(max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(KEYS, min_size=16, max_size=80, unique=True), st.integers(0, 2))
def test_any_keys_round_trip(keys: list[str], nest: int) -> None:
    # Keys made anew (each only the dict holds), values of a few kinds.
    d: dict[str, object] = {}
    for i, k in enumerate(keys):
        key = "".join(k)  # a new object for each key
        d[key] = [i] * nest if nest else i
    data = roving.dumps(d)
    assert roving.loads(data) == d
    assert list(roving.loads(data)) == list(d)
    view = roving.open(data).root
    for k in keys[:5]:
        assert view[k] == d[k]


def test_typed_loads_of_a_dataclass_from_a_packed_map() -> None:
    import dataclasses

    fields = [(f"f{i}", int) for i in range(20)]
    Wide = dataclasses.make_dataclass("Wide", fields)
    # A dict with keys of its own objects: written packed, read as Wide.
    d = {"".join(["f", str(i)]): i for i in range(20)}
    data = roving.dumps(d)
    assert "packed shape" in kinds(data)
    want = Wide(*range(20))
    assert roving.loads(data, type=Wide) == want
    assert roving.open(data).root.to_python(type=Wide) == want
    dec = roving.Decoder(list[Wide])
    two = roving.dumps([d, {"".join(["f", str(i)]): i for i in range(20)}])
    assert dec.decode(two) == [want, want]


def test_damaged_packed_maps_read_trusted_never_crash(tmp_path: Path) -> None:
    # trusted=True skips validation (documented: damaged bytes give wrong
    # values or DecodeError): packed shapes changed at random, read every
    # way, in a subprocess so that a crash fails the test.

    value = {
        "users": {
            f"u{i}": {"id": i, "tags": {f"t{i}{j}": j for j in range(17)}} for i in range(40)
        },
        "ids": {str(i): i * i for i in range(300)},
    }
    src = tmp_path / "doc.rov"
    data = roving.dumps(value)
    assert kinds(data).count("packed shape") >= 3
    src.write_bytes(data)
    code = f"""
        import dataclasses, random
        import roving

        base = open({str(src)!r}, "rb").read()
        rng = random.Random(7)
        ok = (roving.RovingError, UnicodeDecodeError, KeyError, IndexError, TypeError,
              ValueError, OverflowError)

        def walk(v, depth=0):
            if depth > 40:
                return
            if isinstance(v, roving.View):
                if v.kind == "map":
                    for k, x in v.items():
                        v.get(k)
                        walk(x, depth + 1)
                elif v.kind == "array":
                    for x in v:
                        walk(x, depth + 1)

        for _ in range(300):
            b = bytearray(base)
            for _ in range(rng.choice([1, 2, 8])):
                i = 3 + rng.randrange(len(b) - 3)
                b[i] = rng.randrange(256) if rng.random() < 0.5 else b[i] ^ (1 << rng.randrange(8))
            b = bytes(b)
            for op in ("walk", "to_python", "to_json", "typed", "get"):
                try:
                    doc = roving.open(b, trusted=True)
                    if op == "walk":
                        walk(doc.root)
                    elif op == "to_python":
                        doc.to_python()
                    elif op == "to_json":
                        doc.to_json()
                    elif op == "typed":
                        doc.to_python(type=dict[str, dict[str, object]])
                    else:
                        doc.root["ids"]["299"]
                        doc.get_path("users.u3.tags")
                except ok:
                    pass
    """
    run_isolated(code)


@pytest.mark.parametrize("kind", ["type=dict[str, dict[str, int]]", "type=None"])
def test_trusted_store_records_of_packed_maps_damaged_in_the_file(kind: str) -> None:
    # Store(trusted=True) reads records without validating them: a damaged
    # packed map gives DecodeError or wrong values, never a crash. (The
    # stored record is bound to the store's dictionary: it is found by its
    # packed shape, which starts 3 bytes into the plain document.)
    value = '{"a": {str(i): i for i in range(200)}, "b": {f"x{i}": i for i in range(20)}}'
    run_isolated(_damaged_store_script(kind, value, start="good.find(raw[3:40]) - 3"))
