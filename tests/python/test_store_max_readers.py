"""roving.Store(max_readers=): the size of LMDB's reader table (snapshots
open at once over all processes), as the Rust ``StoreOptions::max_readers``.

LMDB keeps the table in the lock file: it is sized by a process that opens
the store while no other process has it open, and only grows; an open while
the store is open elsewhere (another process, or this one) uses the table
in place, whatever it asks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from roving import Store, StoreError


def open_until_full(path: Path, **kw: Any) -> tuple[list[Store], StoreError]:
    """Opens read-only Stores of `path` until one fails; returns them and
    the error."""
    stores: list[Store] = []
    with pytest.raises(StoreError) as ei:
        for _ in range(2000):
            stores.append(Store(path, readonly=True, **kw))
    return stores, ei.value


def close_all(stores: list[Store]) -> None:
    for s in stores:
        s.close()


def test_a_small_table_is_full_at_its_size(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    s = Store(path, max_readers=2)
    s["a"] = 1
    s.flush()
    r = Store(path, readonly=True)  # the second snapshot: the table is full
    with pytest.raises(StoreError) as ei:
        Store(path, readonly=True)
    e = ei.value
    assert e.kind == "busy"
    assert str(e).startswith(f"store {path}: too many snapshots of the store are open at once")
    assert "all 2 slots of LMDB's reader table" in str(e)
    assert "max_readers" in str(e)
    r.close()
    # A view keeps the state it reads: after a reload, that state and the
    # new one take both slots.
    v = s.view("a")
    s.reload()
    with pytest.raises(StoreError, match="all 2 slots"):
        Store(path, readonly=True)
    del v
    Store(path, readonly=True).close()
    s.close()


def test_a_table_larger_than_the_default(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    Store(path, max_readers=520).close()
    stores, e = open_until_full(path, max_readers=520)
    assert len(stores) == 520 and e.kind == "busy"
    assert "all 520 slots" in str(e)
    close_all(stores)


def test_the_table_only_grows(tmp_path: Path) -> None:
    # The lock file keeps its table after every Store is closed: a smaller
    # max_readers later keeps the larger table, a larger one enlarges it.
    path = tmp_path / "s.rvs"
    Store(path, max_readers=3).close()
    stores, e = open_until_full(path, max_readers=3)
    assert len(stores) == 3 and "all 3 slots" in str(e)
    close_all(stores)
    stores, e = open_until_full(path, max_readers=6)
    assert len(stores) == 6 and "all 6 slots" in str(e)
    close_all(stores)
    stores, e = open_until_full(path, max_readers=2)
    assert len(stores) == 6 and "all 6 slots" in str(e)
    close_all(stores)


def test_later_opens_in_a_process_share_the_first_ones_table(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    first = Store(path, max_readers=2)
    second = Store(path, readonly=True, max_readers=100)
    with pytest.raises(StoreError, match="all 2 slots"):
        Store(path, readonly=True, max_readers=100)
    second.close()
    first.close()


HOLDER = r"""
import sys
sys.path[:0] = {paths!r}
from roving._store import Store
s = Store(sys.argv[1], max_readers=int(sys.argv[2]))
print("open", flush=True)
sys.stdin.readline()
s.close()
"""


def test_another_process_holding_the_store_decides(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    code = HOLDER.format(paths=sys.path)
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(path), "3"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline() == "open\n"
        # The child's Store holds one of its 3 slots; asking for more here
        # changes nothing while the child has the store open.
        stores, e = open_until_full(path, max_readers=100)
        assert len(stores) == 2 and "all 3 slots" in str(e)
        close_all(stores)
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # Now no process has it open: the larger table is made.
    stores, e = open_until_full(path, max_readers=10)
    assert len(stores) == 10 and "all 10 slots" in str(e)
    close_all(stores)


@pytest.mark.parametrize("bad", ["2", 2.5, True, [2]])
def test_max_readers_must_be_an_int(tmp_path: Path, bad: object) -> None:
    with pytest.raises(TypeError, match=f"max_readers must be an int, not {type(bad).__name__}"):
        Store(tmp_path / "s.rvs", max_readers=bad)  # type: ignore[arg-type]
    assert not (tmp_path / "s.rvs").exists()


@pytest.mark.parametrize("bad", [0, -1, 2**20 + 1, 2**64, -(2**100)])
def test_max_readers_out_of_range(tmp_path: Path, bad: int) -> None:
    with pytest.raises(ValueError, match=f"max_readers must be 1 to 1048576, not {bad}$"):
        Store(tmp_path / "s.rvs", max_readers=bad)
    assert not (tmp_path / "s.rvs").exists()


def test_max_readers_bounds_and_default(tmp_path: Path) -> None:
    Store(tmp_path / "one.rvs", max_readers=1).close()
    stores, e = open_until_full(tmp_path / "one.rvs", max_readers=1)
    assert len(stores) == 1 and "all 1 slots" in str(e)
    close_all(stores)
    Store(tmp_path / "big.rvs", max_readers=2**20).close()
    Store(tmp_path / "default.rvs", max_readers=None).close()
    stores, e = open_until_full(tmp_path / "default.rvs")
    assert len(stores) == 510 and "all 510 slots" in str(e)
    close_all(stores)
