"""Record stream durability: a process appending records with
``roving.Writer`` is killed with SIGKILL at random moments, 100 times; after
each kill ``iter_load`` returns every record whose ``flush()`` returned,
in order and intact, flags a torn last record with one
``TornRecordWarning`` (never reading it), and the next writer appends
after it (cutting the torn bytes off first)."""

from __future__ import annotations

import random
import sys
import time
import warnings
from pathlib import Path

import pytest
import roving
from conftest import kill_writer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

KILLS = 100
ROUNDS_PER_FILE = 10  # a new stream every 10 kills keeps the files small

# The writer: counts the records there, then appends record(i), i = n, n+1,
# ..., flushing each and printing how many records are flushed. Every
# fourth record is large, so that kills often land inside a write.
WRITER = r"""
import sys, warnings
sys.path[:0] = {paths!r}
import roving

def record(i):
    return {{"i": i, "pad": ("%d:" % i) * (40000 if i % 4 == 0 else i % 50)}}

path = sys.argv[1]
with warnings.catch_warnings():
    warnings.simplefilter("ignore", roving.TornRecordWarning)
    try:
        n = sum(1 for _ in roving.iter_load(path))
    except FileNotFoundError:
        n = 0
w = roving.Writer(path)
print("ready", n, flush=True)
while True:
    w.write(record(n))
    w.flush()
    n += 1
    print(n, flush=True)
"""


def record(i: int) -> dict[str, object]:
    return {"i": i, "pad": f"{i}:" * (40000 if i % 4 == 0 else i % 50)}


def read_back(path: Path) -> tuple[list[object], list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = list(roving.iter_load(path))
    return records, list(caught)


def test_sigkill_mid_write_loses_no_flushed_record(tmp_path: Path) -> None:
    pkg_dir = str(Path(roving.__file__).parent.parent)
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(paths=[pkg_dir]))
    rng = random.Random(20261127)
    start = time.monotonic()
    torn = 0
    path = tmp_path / "log-0.rvs"
    for round_ in range(KILLS):
        if round_ % ROUNDS_PER_FILE == 0:
            # The finished stream is checked: remove it, so that the test
            # holds one file (tens of MB) on disk at a time, not ten.
            path.unlink(missing_ok=True)
            path = tmp_path / f"log-{round_ // ROUNDS_PER_FILE}.rvs"
        flushed = kill_writer(script, path, rng.uniform(0, 0.01))
        records, caught = read_back(path)
        # Every flushed record is there, in order, intact; at most the one
        # being written when the signal came is there too, whole.
        assert len(records) in (flushed, flushed + 1), (round_, len(records), flushed)
        assert records == [record(i) for i in range(len(records))], round_
        # A torn last record: one warning, naming its offset; never read.
        assert len(caught) <= 1, [str(w.message) for w in caught]
        for w in caught:
            assert issubclass(w.category, roving.TornRecordWarning)
            assert issubclass(w.category, RuntimeWarning)
            assert "torn" in str(w.message)
        torn += len(caught)
    elapsed = time.monotonic() - start
    # Kills land inside the write of a large record often (about half of
    # them here): the torn records were met, flagged and cut off.
    assert torn > 0
    # Appending after the last kill: the torn tail (if any) is cut first.
    records, _ = read_back(path)
    with roving.Writer(path) as w:
        w.write(record(len(records)))
    again, caught = read_back(path)
    assert again == [record(i) for i in range(len(records) + 1)]
    assert caught == []
    print(f"{KILLS} kills in {elapsed:.1f} s, {torn} torn records flagged")
