"""Keyed maps (format version 2, FORMAT.md section 6.16): the first map of
each key list carries its keys, later maps with the same keys refer to it.
Lists of dicts with repeated and unique key lists round-trip through
``loads``, lazy views, typed decoding, JSON, and the reference reader."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import roving
from conftest import json_to_neutral, load_reference_reader, same
from hypothesis import given, settings
from hypothesis import strategies as st

ref = load_reference_reader()

KEYS = ["", "a", "b", "id", "name", "k1", "k2", "k3", "k4", "k5", "a_longer_key_name"]

# A value that is not a map: ints of every slot width, strings, None.
leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(max_size=8),
)


@st.composite
def maps_with_key_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Dicts whose key lists repeat (drawn from a few, some of more than 8
    keys) or are unique, with nested dicts of the same kind."""
    lists = draw(
        st.lists(st.lists(st.sampled_from(KEYS), max_size=12, unique=True), min_size=1, max_size=3)
    )
    out = []
    for n in range(draw(st.integers(0, 20))):
        which = draw(st.integers(0, len(lists)))
        keys = list(lists[which % len(lists)])
        if which == len(lists):
            keys.append(f"unique{n}")  # a key list of its own
        d: dict[str, Any] = {}
        for k in keys:
            d[k] = {k: draw(leaf)} if draw(st.integers(0, 4)) == 0 else draw(leaf)
        out.append(d)
    return out


@settings(max_examples=150, deadline=None)
@given(maps_with_key_lists())
def test_lists_of_maps_round_trip(value: list[dict[str, Any]]) -> None:
    data = roving.dumps(value)
    assert data[2] == (2 if any(value) else 1)  # version 2 once a map is written
    assert roving.loads(data) == value
    # Key order is kept.
    assert [list(d) for d in roving.loads(data)] == [list(d) for d in value]
    doc = roving.open(data)
    root = doc.root
    for i, d in enumerate(value):
        view = root[i]
        assert view == d
        assert list(view.keys()) == list(d)
        for k, v in d.items():
            assert k in view
            got = view[k]
            assert got == v or (hasattr(got, "to_python") and got.to_python() == v)
        assert "\x01absent" not in view
    assert json.loads(roving.to_json(data)) == value
    # The reference reader decodes what roving wrote.
    same(ref.validate_and_decode(data), json_to_neutral(json.dumps(value)))


@settings(max_examples=100, deadline=None)
@given(maps_with_key_lists())
def test_the_reference_encoder_writes_the_same_bytes(value: list[dict[str, Any]]) -> None:
    """Section 14's choices for keyed maps, from the JSON text."""
    text = json.dumps(value)
    assert ref.encode(json_to_neutral(text)).hex() == roving.from_json(text).hex()


@dataclasses.dataclass
class Point:
    x: int
    y: int
    label: str = ""


def test_typed_decoding_of_keyed_maps_and_maps_of_their_shape() -> None:
    """The first Point is a keyed map, the others maps that refer to it; a
    map of other keys in between is a keyed map of its own."""
    value = [
        {"x": 1, "y": 2},
        {"y": 5, "x": 4, "label": "b"},
        {"x": 3, "y": 4},
        {"x": -1, "y": 1 << 40},
    ]
    data = roving.dumps(value)
    assert data[2] == 2
    got = roving.loads(data, type=list[Point])
    assert got == [Point(1, 2), Point(4, 5, "b"), Point(3, 4), Point(-1, 1 << 40)]
    assert roving.loads(data, type=list[dict[str, int | str]]) == value


def test_a_config_tree_of_unique_maps() -> None:
    """Maps whose key lists never repeat: every one a keyed map."""

    def node(depth: int, i: int) -> dict[str, Any]:
        if depth == 0:
            return {f"opt_{i}_{j}": j for j in range(3)}
        return {f"sect_{depth}_{i}_{j}": node(depth - 1, i * 4 + j) for j in range(4)}

    tree = node(3, 0)
    data = roving.dumps(tree)
    assert roving.loads(data) == tree
    assert roving.open(data).get_path("sect_3_0_2.sect_2_2_1.sect_1_9_3.opt_39_2") == 2
    kinds = [r[2] for r in roving._roving._records(data)]
    assert "keyed map" in kinds and "shape" not in kinds and "map" not in kinds


def test_one_big_map_of_unique_keys() -> None:
    value = {str(i): i for i in range(20000)}
    data = roving.dumps(value)
    assert roving.loads(data) == value
    view = roving.open(data).root
    assert view["12345"] == 12345 and "20000" not in view and len(view) == 20000


def test_dump_and_stats_show_keyed_maps(tmp_path: Any) -> None:
    """`roving dump` prints a keyed map and a map of its shape with their
    keys; `roving stats` counts the keys as shared key strings, not the
    keyed map as a shared container."""
    import subprocess
    import sys

    path = tmp_path / "k.json"
    path.write_text('[{"a":1,"b":"x"},{"a":2,"b":"y"},{"c":[]}]', encoding="utf-8")
    run = [sys.executable, "-m", "roving"]
    out = subprocess.run([*run, "dump", "--offsets", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "keyed/1/1" in lines[1] and "map{2}" in lines[1]
    assert lines[2].strip() == "a: int 1 (inline)" and lines[3].strip().startswith('b: str "x"')
    assert "map/1" in lines[4] and lines[5].strip() == "a: int 2 (inline)"
    assert lines[7].strip().startswith("[2]: map{1}") and lines[8].strip() == "c: array[0]"
    out = subprocess.run([*run, "stats", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "keyed/1/1 2 (10 B)" in out.stdout
    assert "key strings" in out.stdout and "containers   " not in out.stdout.split("dedup")[1]
