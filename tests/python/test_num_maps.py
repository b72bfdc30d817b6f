"""Dicts keyed by ids whose values are all numbers, written as a number
array and a map of numbers (format version 2, FORMAT.md section 6.19) when
that is smaller: every reader gives back the same dicts."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import roving
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import run
from test_packed_maps import stored_and_streamed
from test_zero_copy_safety import run_isolated


def kinds(data: bytes) -> list[str]:
    """The record kinds of a document, from the core's walker."""
    return [r[2] for r in roving._roving._records(data)]


def keyed(n: int, value: object) -> dict[str, object]:
    """A dict keyed by ids made from data (each key object only the dict
    holds), the value of key i ``value(i)``."""
    return {str(i): value(i) for i in range(n)}  # type: ignore[operator]


CASES = {
    "ints needing 4-byte slots": (20_000, lambda i: i),
    "negative ints": (500, lambda i: -40 * i),
    "binary32 floats": (300, lambda i: i + 0.5),
    "decimal floats": (300, lambda i: i / 100),
    "any floats": (300, lambda i: 1 / (i + 3)),
    "big ints": (100, lambda i: (1 << 62) + i),
}


@pytest.mark.parametrize("case", list(CASES))
def test_maps_of_numbers_read_back_through_every_reader(case: str) -> None:
    n, value = CASES[case]
    d = keyed(n, value)
    data = roving.dumps(d)
    assert "map of numbers" in kinds(data), case
    back = roving.loads(data)
    assert back == d and list(back) == list(d)
    typ = dict[str, float] if isinstance(d["1"], float) else dict[str, int]
    assert roving.loads(data, type=typ) == d
    assert json.loads(roving.to_json(data)) == d
    view = roving.open(data)
    assert len(view.root) == n
    assert view.root[str(n - 1)] == d[str(n - 1)]
    assert view.root.get("absent") is None
    assert list(view.root.keys()) == list(d)
    assert list(view.root.values()) == list(d.values())
    assert view.root.to_python() == d
    assert roving.open(data, trusted=True).to_python() == d


def test_a_map_of_numbers_is_smaller_than_its_slots() -> None:
    d = keyed(20_000, lambda i: i)
    data = roving.dumps(d)
    # Keys and index as before; the values take 2 bytes each, not 4.
    assert len(data) < 204_000, len(data)
    stats = run("stats", "-", stdin=data)
    assert stats.returncode == 0, stats.stderr
    assert b"map<numbers> 1" in stats.stdout, stats.stdout
    assert b"values: 20,000 int, 1 map" in stats.stdout, stats.stdout


def test_small_ints_and_mixed_values_keep_their_slots() -> None:
    for d in (
        keyed(100, lambda i: i % 7),
        keyed(100, lambda i: i if i % 2 else float(i) + 0.5),
        keyed(100, lambda i: str(i)),
    ):
        data = roving.dumps(d)
        assert "map of numbers" not in kinds(data)
        assert roving.loads(data) == d


def test_the_cli_dumps_a_map_of_numbers(tmp_path: Path) -> None:
    p = tmp_path / "ids.rv"
    p.write_bytes(roving.dumps(keyed(40, lambda i: i * 1000)))
    assert "map of numbers" in kinds(p.read_bytes())
    out = run("dump", str(p))
    assert out.returncode == 0, out.stderr
    assert b"\n  39: int 39000\n" in out.stdout, out.stdout
    out = run("dump", "--offsets", str(p))
    assert out.returncode == 0, out.stderr
    assert b"map<numbers>" in out.stdout, out.stdout
    floats = tmp_path / "f.rv"
    floats.write_bytes(roving.dumps(keyed(40, lambda i: i + 0.5)))
    out = run("dump", str(floats))
    assert b"\n  39: float 39.5\n" in out.stdout, out.stdout
    out = run("get", str(p), "7")
    assert out.returncode == 0 and out.stdout.strip() == b"7000", out


def test_typed_loads_of_a_dataclass_from_a_map_of_numbers() -> None:
    Wide = dataclasses.make_dataclass("Wide", [(f"f{i}", float) for i in range(20)])
    d = {"".join(["f", str(i)]): i + 0.25 for i in range(20)}
    data = roving.dumps(d)
    assert "map of numbers" in kinds(data)
    want = Wide(*(i + 0.25 for i in range(20)))
    assert roving.loads(data, type=Wide) == want
    assert roving.open(data).root.to_python(type=Wide) == want


def test_stores_and_streams_read_maps_of_numbers(tmp_path: Path) -> None:
    records = {f"r{i}": {"counts": keyed(40, lambda j: j * 997)} for i in range(10)}
    assert "map of numbers" in kinds(roving.dumps(records["r0"]))
    stored_and_streamed(tmp_path, records)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(-(2**63), 2**64 - 1), min_size=16, max_size=120),
        st.lists(st.integers(-70_000, 70_000), min_size=16, max_size=120),
        st.lists(st.floats(allow_nan=False), min_size=16, max_size=120),
        st.lists(st.integers(-9999, 9999).map(lambda m: m / 100), min_size=16, max_size=120),
    )
)
def test_any_numbers_round_trip(values: list[float]) -> None:
    d = {str(i): v for i, v in enumerate(values)}
    data = roving.dumps(d)
    back = roving.loads(data)
    assert back == d
    assert [type(x) for x in back.values()] == [type(x) for x in values]
    assert roving.open(data).root.to_python() == d


def test_damaged_maps_of_numbers_read_trusted_never_crash(tmp_path: Path) -> None:
    # trusted=True skips validation: maps of numbers changed at random,
    # read every way, in a subprocess so that a crash fails the test.
    value = {
        "a": {str(i): i * 1000 for i in range(60)},
        "b": {f"x{i}": i + 0.5 for i in range(40)},
    }
    src = tmp_path / "doc.rov"
    data = roving.dumps(value)
    assert kinds(data).count("map of numbers") == 2
    src.write_bytes(data)
    code = f"""
        import random
        import roving

        base = open({str(src)!r}, "rb").read()
        rng = random.Random(11)
        # (A damaged document may hold other values where the maps were.)
        ok = (roving.RovingError, UnicodeDecodeError, KeyError, IndexError, TypeError,
              ValueError, OverflowError, AttributeError)
        for _ in range(400):
            b = bytearray(base)
            for _ in range(rng.choice([1, 2, 8])):
                i = 3 + rng.randrange(len(b) - 3)
                b[i] = rng.randrange(256) if rng.random() < 0.5 else b[i] ^ (1 << rng.randrange(8))
            b = bytes(b)
            for op in ("items", "to_python", "to_json", "typed", "get", "validated"):
                try:
                    if op == "validated":
                        roving.loads(b)
                        continue
                    doc = roving.open(b, trusted=True)
                    if op == "items":
                        for m in doc.root.values():
                            list(m.items())
                    elif op == "to_python":
                        doc.to_python()
                    elif op == "to_json":
                        doc.to_json()
                    elif op == "typed":
                        doc.to_python(type=dict[str, dict[str, float]])
                    else:
                        doc.root["a"]["59"]
                        doc.root["b"].get("x3")
                except ok:
                    pass
    """
    run_isolated(code)


def test_maps_of_numbers_sharing_their_values_are_listed_once(tmp_path: Path) -> None:
    # Two maps of numbers of one number array (the encoder writes one per
    # map; any writer may share it): the records list its values once, so
    # that many small maps of one large array cost no more than the array.
    data = bytes.fromhex("525602 8161 180108 310107 260c06 26120c 1002180c 1c101c".replace(" ", ""))
    assert roving.loads(data) == [{"a": 7}, {"a": 7}]
    recs = roving._roving._records(data, values=True)
    assert [r[8] for r in recs if r[2] == "map of numbers"] == [[7], None]
    p = tmp_path / "shared.rv"
    p.write_bytes(data)
    out = run("dump", str(p))
    assert out.returncode == 0, out.stderr
    assert b"\n    a: int 7\n" in out.stdout, out.stdout
    assert b"map{1} of the values @8 (shared, shown above)" in out.stdout, out.stdout
