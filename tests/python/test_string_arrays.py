"""Lists of strings written as string array records (format version 2):
every reader gives back the same lists as for the slot form."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import roving
from hypothesis import given, settings
from hypothesis import strategies as st

#: Short ASCII, any text, long strings, the empty string and three common
#: repeats (a list of many packs only while the record stays smaller).
STRINGS = st.one_of(
    st.text(alphabet="abcdefxyz0123456789+.@", min_size=1, max_size=12),
    st.text(max_size=6),
    st.text(alphabet="ab", min_size=60, max_size=120),
    st.sampled_from(["", "dup", "x", "again"]),
)


def packable(items: list[str]) -> bool:
    return len(items) >= 8 and all(items)


@settings(max_examples=300, deadline=None)
@given(st.lists(STRINGS, max_size=60), st.lists(STRINGS, max_size=3))
def test_lists_of_str_round_trip(items: list[str], around: list[str]) -> None:
    data = roving.dumps(items)
    if not packable(items):
        assert data[2] == 1
    # `dumps` decides in one step what the element-by-element path (JSON's)
    # decides after writing each string: the same bytes.
    assert data == roving.from_json(json.dumps(items))
    assert roving.loads(data) == items
    assert roving.loads(data, type=list[str]) == items
    assert roving.loads(data, type=set[str]) == set(items)
    assert roving.loads(data, type=tuple[str, ...]) == tuple(items)
    assert json.loads(roving.to_json(data)) == items
    view = roving.open(data)
    assert len(view) == len(items)
    assert [view[i] for i in range(len(items))] == items
    if items:
        assert view[-1] == items[-1]
    # In a map, next to strings equal to some of its elements.
    doc = {"before": around, "items": items, "after": around + items[:2]}
    data = roving.dumps(doc)
    assert data == roving.from_json(json.dumps(doc))
    assert roving.loads(data) == doc


def test_lists_of_strings_are_packed_where_smaller() -> None:
    items = [f"name {i}" for i in range(100)]
    data = roving.dumps(items)
    assert data[2] == 2
    # A repeat in the list, at its end or in its middle, costs its bytes
    # again in the record (and its end), not a record per string.
    for doc, extra in (
        ([*items, items[0]], len(items[0]) + 1),
        ([*items[:50], items[7], *items[50:]], len(items[7]) + 1),
    ):
        repeat = roving.dumps(doc)
        assert repeat[2] == 2
        assert len(data) < len(repeat) <= len(data) + extra + 2
        assert roving.loads(repeat) == doc
    # A few words many times: slots, smaller than the record would be.
    words = ["alpha", "beta", "gamma"] * 40
    slots = roving.dumps(words)
    assert slots[2] == 1
    assert len(slots) < sum(len(w) + 1 for w in words)
    assert roving.loads(slots) == words
    # The same strings again after the list: each written anew, still read.
    doc = [items, items[5], items[5]]
    assert roving.loads(roving.dumps(doc)) == doc


def test_sets_of_a_dataclass_are_packed() -> None:
    @dataclass
    class Contacts:
        emails: set[str]
        phones: set[str]

    c = Contacts({f"e{i}@x.org" for i in range(20)}, {str(600000000 + i) for i in range(500)})
    data = roving.dumps(c)
    assert data[2] == 2
    assert roving.loads(data, type=Contacts) == c


def test_a_shared_list_of_strings_is_one_record() -> None:
    items = [f"s{i}" for i in range(10)]
    doc = [items, items]
    out = roving.loads(roving.dumps(doc))
    assert out == doc and out[0] is out[1]


def test_dump_and_stats_show_a_string_array(tmp_path: Path) -> None:
    path = tmp_path / "tags.rv"
    path.write_bytes(roving.dumps({"tags": [f"tag{i}" for i in range(10)]}))
    run = [sys.executable, "-m", "roving"]
    dump = subprocess.run(
        [*run, "dump", "--max-items", "2", str(path)], capture_output=True, text=True, check=True
    )
    assert dump.stdout.splitlines() == [
        "map{1}",
        "  tags: array[10]",
        '    [0]: str "tag0"',
        '    [1]: str "tag1"',
        "    … 8 more",
    ]
    stats = subprocess.run(
        [*run, "stats", "--json", str(path)], capture_output=True, text=True, check=True
    )
    report = json.loads(stats.stdout)
    assert "str array" in json.dumps(report)


def strings_of_every_short_length() -> list[str]:
    """ASCII strings of 1 to 70 characters, and for 1 to 34 characters one
    non-ASCII character (of 2, 3 or 4 UTF-8 bytes) at each place: the
    lengths where ``loads`` copies a string as a few words, and around."""
    out = [("abcdefghij" * 8)[:n] for n in range(1, 71)]
    for n in range(1, 35):
        for at in range(n):
            for ch in ("é", "€", "𝄞", "\x7f"):
                s = ("klmnopqrst" * 4)[:n]
                out.append(s[:at] + ch + s[at + 1 :])
    return out


def test_short_strings_read_back_at_every_length() -> None:
    strings = strings_of_every_short_length()
    assert len(set(strings)) == len(strings)
    packed = roving.dumps(strings)
    assert packed[2] == 2
    # In slots (each a string record of its own), as map values.
    as_values = {str(i): s for i, s in enumerate(strings)}
    for data, want in ((packed, strings), (roving.dumps(as_values), as_values)):
        for buf in (data, bytearray(data), memoryview(data)):
            got = roving.loads(buf)
            assert got == want
            items = got if isinstance(got, list) else list(got.values())
            assert all(type(s) is str and s.isascii() == all(c < "\x80" for c in s) for s in items)
