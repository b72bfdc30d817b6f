"""roving.Store durability: a writer process is killed with SIGKILL at random
moments, over and over; after each kill every record whose flush (or
transaction) returned is present and intact, and every flush and
transaction is all-or-nothing."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest
from conftest import kill_writer

try:
    from roving import Store  # type: ignore[attr-defined]
except ImportError:  # until roving/__init__.py exports it
    from roving._store import Store

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

KILLS = 200
BATCH = 7  # records per flush
SHAPE = 5 * BATCH  # records per map shape
# Distinct shapes, used in turn: few enough that the store's dictionary
# (which stops growing at a 1 KiB base) takes every one of them.
SHAPES = 40
# A value that 3 batches of records repeat ("state <n>", n cycling through
# STATES values): the dictionary learns each as a string entry, in the
# commit of the batch whose records have written it three times.
STATE = 3 * BATCH
STATES = 30

# The writer: continues from what is committed, flushes batches of BATCH
# records plus a "meta" record (every other batch in a transaction), and
# prints the number of records after each flush or commit has returned.
# Every fifth batch has another shape (a key "shape<n>", n cycling through
# SHAPES values), which the store's dictionary learns in the commit of the
# first batch of it.
WRITER = r"""
import sys
sys.path[:0] = {paths!r}
from roving._store import Store

def record(i):
    return {{"i": i, "payload": ("%d:" % i) * (i % 97), "big": "b" * (5000 if i % 13 == 0 else 0), "state": "state %02d" % (i // {state} % {states}), "shape%d" % (i // {shape} % {shapes}): i}}

s = Store(sys.argv[1])
n = len(s) - (1 if "meta" in s else 0)
assert n % {batch} == 0, n
print("ready", n, flush=True)
while True:
    if (n // {batch}) % 2:
        # Every other batch in a transaction, which reads the count under
        # the write lock and commits with the records.
        with s.transaction():
            n = s.get("meta", {{"count": 0}})["count"]
            for i in range(n, n + {batch}):
                s["r" + str(i).zfill(7)] = record(i)
            n += {batch}
            s["meta"] = {{"count": n}}
    else:
        for i in range(n, n + {batch}):
            s["r" + str(i).zfill(7)] = record(i)
        n += {batch}
        s["meta"] = {{"count": n}}
        s.flush()
    print(n, flush=True)
"""


def record(i: int) -> dict[str, object]:
    return {
        "i": i,
        "payload": f"{i}:" * (i % 97),
        "big": "b" * (5000 if i % 13 == 0 else 0),
        "state": f"state {i // STATE % STATES:02d}",
        f"shape{i // SHAPE % SHAPES}": i,
    }


def test_sigkill_never_loses_a_flushed_record(tmp_path: Path) -> None:
    path = tmp_path / "durable.rvs"
    import roving

    pkg_dir = str(Path(roving.__file__).parent.parent)
    script = tmp_path / "writer.py"
    script.write_text(
        WRITER.format(
            paths=[pkg_dir], batch=BATCH, shape=SHAPE, shapes=SHAPES, state=STATE, states=STATES
        )
    )
    rng = random.Random(20240611)
    start = time.monotonic()
    checked_up_to = 0  # records verified in earlier rounds (they never change)
    for round_ in range(KILLS):
        # Kill at a random moment of the write loop, within about three
        # flushes after the first.
        flushed = kill_writer(script, path, rng.uniform(0, 0.03))

        s = Store(path, readonly=True)
        try:
            meta = s.get("meta")
            count = meta["count"] if meta else 0
            # Every flush that returned is there; at most the flush that was
            # under way when the signal came was committed on top of it.
            assert count in (flushed, flushed + BATCH), (round_, count, flushed)
            # All or nothing: exactly the records of whole flushes, no more.
            assert len(s) == count + (1 if meta else 0), (round_, len(s), count)
            for i in range(checked_up_to, count):
                assert s[f"r{i:07d}"] == record(i), (round_, i)
            assert f"r{count:07d}" not in s
            checked_up_to = max(0, count - 3 * BATCH)  # recheck the tail next time
        finally:
            s.close()
    elapsed = time.monotonic() - start
    s = Store(path, readonly=True)
    n = s["meta"]["count"]
    assert all(s[f"r{i:07d}"] == record(i) for i in range(n))
    # The shapes (and states) were committed to the store's dictionary with
    # the records (those of the batches under way when killed may be there
    # too).
    entries = s._dictionary_len
    # Once three records were flushed, "state 00" (their value) is one.
    shapes, states = min((n - 1) // SHAPE + 1, SHAPES), (1 if n >= 3 else 0)
    assert shapes + states <= entries, (n, entries)
    s.close()
    print(f"{KILLS} kills in {elapsed:.1f} s, {n} records flushed, {entries} dictionary entries")
