"""roving.Store's shelve compatibility: ``flag`` and ``writeback``, run side by
side with ``shelve`` itself, so that ``shelve.open(path, flag, writeback=...)``
becomes ``roving.Store(path, flag, writeback=...)``."""

from __future__ import annotations

import dataclasses
import dbm
import gc
import shelve
import warnings
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

import pytest
import roving

Store: Any = getattr(roving, "Store", None)
pytestmark = pytest.mark.skipif(Store is None, reason="built without the store")

Opener = Callable[..., Any]


def open_shelf(path: Path, flag: str = "c", writeback: bool = False) -> Any:
    return shelve.open(str(path), flag, writeback=writeback)


def open_store(path: Path, flag: str = "c", writeback: bool = False) -> Any:
    return Store(path, flag, writeback=writeback)


BOTH = pytest.mark.parametrize("opener", [open_shelf, open_store], ids=["shelve", "roving"])


def contents(opener: Opener, path: Path) -> dict[str, Any]:
    s = opener(path, "r")
    try:
        return dict(s)
    finally:
        s.close()


@BOTH
@pytest.mark.parametrize("flag", ["r", "w"])
def test_flags_r_and_w_need_an_existing_store(opener: Opener, flag: str, tmp_path: Path) -> None:
    path = tmp_path / "db"
    # shelve raises one of dbm.error; roving StoreNotFoundError, which is
    # also a FileNotFoundError.
    missing = dbm.error if opener is open_shelf else roving.StoreNotFoundError
    with pytest.raises(missing):
        opener(path, flag)
    assert list(tmp_path.iterdir()) == []


@BOTH
@pytest.mark.parametrize("flag", ["c", "n"])
def test_flags_c_and_n_make_a_missing_store(opener: Opener, flag: str, tmp_path: Path) -> None:
    path = tmp_path / "db"
    s = opener(path, flag)
    s["k"] = [1, "x"]
    s.close()
    assert contents(opener, path) == {"k": [1, "x"]}


@BOTH
def test_flags_on_an_existing_store(opener: Opener, tmp_path: Path) -> None:
    path = tmp_path / "db"
    s = opener(path)
    s["a"] = 1
    s["b"] = {"x": [2]}
    s.close()
    want: dict[str, Any] = {"a": 1, "b": {"x": [2]}}
    for flag in ("c", "w"):
        s = opener(path, flag)
        assert dict(s) == want
        s["c"] = want["c"] = flag
        s.close()
    s = opener(path, "r")
    assert dict(s) == {"a": 1, "b": {"x": [2]}, "c": "w"}
    with pytest.raises(Exception):  # noqa: B017 - dbm and roving raise their own
        s["d"] = 1
    s.close()
    s = opener(path, "n")
    assert dict(s) == {}
    s.close()
    assert contents(opener, path) == {}


def test_flag_n_empties_the_store_at_open_in_one_commit(tmp_path: Path) -> None:
    path = tmp_path / "db"
    with Store(path) as s:
        s.update({f"k{i}": i for i in range(100)})
    s = Store(path, "n")
    # Committed at open: another Store sees it empty before any flush.
    with Store(path, "r") as other:
        assert len(other) == 0
    assert s.pending == 0 and len(s) == 0
    s.close()


def test_bad_flags_and_contradictions(tmp_path: Path) -> None:
    path = tmp_path / "db"
    for flag in ("x", "", "cf", "C", "rw"):
        with pytest.raises(ValueError, match="flag must be 'r', 'w', 'c' or 'n'"):
            Store(path, flag)
    for flag in ("w", "n"):
        with pytest.raises(ValueError, match="contradicts"):
            Store(path, flag, readonly=True)
    assert list(tmp_path.iterdir()) == []
    # readonly=True with flag "r" or the default "c" is a read-only open.
    with pytest.raises(roving.StoreNotFoundError):
        Store(path, readonly=True)
    Store(path).close()
    for flag in ("r", "c"):
        s = Store(path, flag=flag, readonly=True)
        assert s.readonly
        s.close()


def script(s: MutableMapping[str, Any]) -> None:
    """Changes made in place to values read back, and the usual mapping calls."""
    s["list"] = [1]
    s["list"].append(2)
    s.get("list").append(3)
    s.setdefault("map", {})["x"] = 1
    s["map"]["y"] = [s["list"][0]]
    s["gone"] = [0]
    s["gone"].append(1)
    del s["gone"]
    s["popped"] = {"n": 1}
    s.pop("popped")["n"] = 2
    for value in s.values():
        if isinstance(value, list):
            value.append("via values()")
    for key, value in s.items():
        if key == "map":
            value["z"] = "via items()"


@BOTH
@pytest.mark.parametrize("writeback", [False, True])
def test_writeback_saves_changes_made_in_place(
    opener: Opener, writeback: bool, tmp_path: Path
) -> None:
    path = tmp_path / "db"
    s = opener(path, writeback=writeback)
    script(s)
    s.close()
    got = contents(opener, path)
    if writeback:
        assert got == {
            "list": [1, 2, 3, "via values()"],
            "map": {"x": 1, "y": [1], "z": "via items()"},
        }
    else:
        assert got == {"list": [1], "map": {}}


def test_roving_and_shelve_agree_on_writeback(tmp_path: Path) -> None:
    for writeback in (False, True):
        a, b = tmp_path / f"shelf{writeback}", tmp_path / f"store{writeback}"
        for opener, path in ((open_shelf, a), (open_store, b)):
            s = opener(path, writeback=writeback)
            script(s)
            s.sync()
            s["after_sync"] = [1]
            s["after_sync"].append(2)
            s.close()
        assert contents(open_store, b) == contents(open_shelf, a)


@BOTH
def test_sync_writes_back_and_empties_the_cache(opener: Opener, tmp_path: Path) -> None:
    path = tmp_path / "db"
    s = opener(path, writeback=True)
    s["k"] = [1]
    first = s["k"]
    assert s["k"] is first  # read from the cache
    s.sync()
    assert contents(opener, path) == {"k": [1]}
    again = s["k"]
    assert again == [1] and again is not first  # read again from the store
    first.append("lost")  # no longer cached: as in shelve, not saved
    again.append("saved")
    s.close()
    assert contents(opener, path) == {"k": [1, "saved"]}


def test_writeback_dropped_with_the_pending_changes(tmp_path: Path) -> None:
    path = tmp_path / "db"
    with Store(path) as s:
        s["k"] = [1]
    s = Store(path, writeback=True)
    s["k"].append(2)
    s.reload()
    assert s["k"] == [1]  # the cache went with reload()
    s.close()
    assert contents(open_store, path) == {"k": [1]}
    with pytest.raises(RuntimeError):
        with Store(path, writeback=True) as s:
            s["k"].append(3)
            raise RuntimeError
    assert contents(open_store, path) == {"k": [1]}
    s = Store(path, writeback=True)
    s["k"].append(4)
    s._close(commit=False)
    assert contents(open_store, path) == {"k": [1]}
    with Store(path, writeback=True) as s:
        s["k"].append(5)
        s.clear()
    assert contents(open_store, path) == {}


def test_a_value_that_no_longer_encodes_fails_the_flush_and_stays(tmp_path: Path) -> None:
    path = tmp_path / "db"
    s = Store(path, writeback=True)
    s["k"] = [1]
    s.flush()
    s["k"].append(object())
    with pytest.raises(roving.EncodeError):
        s.flush()
    with pytest.raises(roving.EncodeError):
        s.close()
    assert not s.closed
    s["k"].pop()
    s["k"].append(2)
    s.close()
    assert contents(open_store, path) == {"k": [1, 2]}


@dataclasses.dataclass
class Counter:
    name: str
    hits: list[int] = dataclasses.field(default_factory=list)


def test_writeback_with_type(tmp_path: Path) -> None:
    path = tmp_path / "db"
    with Store(path, type=Counter, writeback=True) as s:
        s["a"] = Counter("a")
        s["a"].hits.append(1)
    with Store(path, type=Counter, writeback=True) as s:
        s["a"].hits.append(2)
        s["a"].name = "A"
    with Store(path, "r", type=Counter) as s:
        assert s["a"] == Counter("A", [1, 2])


def test_writeback_with_a_subclass(tmp_path: Path) -> None:
    class Audited(Store):  # type: ignore[misc,valid-type]
        reads: list[str] = []

        def __getitem__(self, key: str) -> Any:
            Audited.reads.append(key)
            return super().__getitem__(key)

    path = tmp_path / "db"
    s = Audited(path, writeback=True)
    assert isinstance(s, Audited) and isinstance(s, Store)
    assert type(s).__name__ == "Audited"
    s["k"] = [1]
    s["k"].append(2)  # from the cache: the subclass is not asked
    assert Audited.reads == []
    s.close()
    s = Audited(path, "r")
    assert type(s) is Audited
    assert s["k"] == [1, 2] and Audited.reads == ["k"]
    s.close()
    # One class per subclass, made once.
    assert type(Audited(path, writeback=True)) is type(Audited(path, writeback=True))


def test_writeback_keeps_a_subclass_close_and_get(tmp_path: Path) -> None:
    # The writeback class comes first in the MRO, and its close() and get()
    # did not call the subclass's: with writeback=True a subclass's close()
    # (releasing a lock, logging) never ran.
    calls: list[str] = []

    class Logged(Store):  # type: ignore[misc,valid-type]
        def close(self) -> None:
            calls.append("close")
            super().close()

        def get(self, key: str, default: Any = None) -> Any:
            calls.append(f"get {key}")
            return super().get(key, default)

    for writeback in (False, True):
        calls.clear()
        s = Logged(tmp_path / f"db{writeback}", writeback=writeback)
        s["k"] = [1]
        assert s.get("k") == [1] and s.get("nope", 5) == 5
        s.get("k").append(2)  # type: ignore[union-attr]
        s.close()
        # (With writeback, "k" is read from the cache: assigned, then read.)
        asked = ["get nope"] if writeback else ["get k", "get nope", "get k"]
        assert s.closed and calls == [*asked, "close"]
        want = [1, 2] if writeback else [1]
        assert contents(open_store, tmp_path / f"db{writeback}") == {"k": want}


def test_writeback_with_a_subclass_that_assigns_while_written_back(tmp_path: Path) -> None:
    # A subclass whose __setitem__ also assigns an index key: during the
    # write-back that added to the cache being iterated, and close() raised
    # "RuntimeError: dictionary changed size during iteration" (shelve,
    # which turns writeback off while it syncs, closes).
    class Indexed(Store):  # type: ignore[misc,valid-type]
        def __setitem__(self, key: str, value: Any) -> None:
            super().__setitem__(key, value)
            if not key.startswith("idx:"):
                self[f"idx:{key}:{len(value)}"] = True

    path = tmp_path / "db"
    s = Indexed(path, writeback=True)
    s["a"] = [1]
    s["a"].append(2)
    s.close()
    assert s.closed
    assert contents(open_store, path) == {"a": [1, 2], "idx:a:1": True, "idx:a:2": True}


def test_non_str_keys_with_writeback(tmp_path: Path) -> None:
    s = Store(tmp_path / "db", writeback=True)
    with pytest.raises(TypeError):
        s[1]
    with pytest.raises(TypeError):
        s[[1]]
    with pytest.raises(KeyError):
        s["missing"]
    assert s.get("missing", 7) == 7
    assert s.get("", 7) == 7
    s.close()


def test_garbage_collected_writeback_store_writes_its_cache_back(tmp_path: Path) -> None:
    # As a shelf collected is closed (and so synced): the value changed
    # in place is written back and flushed (it used to be dropped, with a
    # ResourceWarning), with no warning; so for a shelf.
    for opener in (open_store, shelve.open):
        path = tmp_path / f"db-{opener.__name__}"
        with opener(str(path)) as s:
            s["k"] = [1]
        s = opener(str(path), writeback=True)
        s["k"].append(2)
        if isinstance(s, Store):
            assert s.pending == 0  # a read, cached, not a pending change
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            del s
            gc.collect()
        assert caught == []
        assert contents(opener, path) == {"k": [1, 2]}


def test_writeback_on_a_read_only_store_closes_after_reads(tmp_path: Path) -> None:
    # flag "r" with writeback=True: close() and the end of a with block
    # wrote every value read back, so a store that had only been read
    # raised StoreError (read-only) and stayed open.
    path = tmp_path / "db"
    with Store(path) as s:
        s["k"] = {"a": [1, 2.5, None], "t": (1, 2)}
        s["c"] = Counter("c", [1])
    with Store(path, "r", writeback=True) as s:
        assert s["k"]["a"] == [1, 2.5, None]
        assert s["k"] is s["k"]  # cached
        assert [v for v in s.values()] == [Counter("c", [1]).__dict__, s["k"]]
    assert s.closed
    with Store(path, "r", writeback=True, type=Counter) as s:
        assert s["c"] == Counter("c", [1])
        s.sync()
    s = Store(path, "r", writeback=True)
    s["k"]["a"].append("changed")  # cannot be saved: an error, as a write
    with pytest.raises(roving.StoreError) as e:
        s.close()
    assert e.value.kind == "read-only" and not s.closed
    s.reload()  # drops the cache
    s.close()
    assert contents(open_store, path) == {
        "c": {"name": "c", "hits": [1]},
        "k": {"a": [1, 2.5, None], "t": [1, 2]},
    }


def test_a_store_left_open_at_exit_prints_no_traceback(tmp_path: Path) -> None:
    # Store.__del__ warned at interpreter exit, when warnings.warn raises
    # "ImportError: sys.meta_path is None": "Exception ignored in
    # Store.__del__" and a traceback on stderr.
    import subprocess
    import sys

    for writeback in (False, True):
        code = (
            "import roving\n"
            f"s = roving.Store({str(tmp_path / 'db')!r}, writeback={writeback})\n"
            "s['k'] = [1]\n"
        )
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert (r.returncode, r.stderr) == (0, "")
        # and the change is not lost: flushed at exit
        assert contents(open_store, tmp_path / "db") == {"k": [1]}


def test_garbage_collected_read_only_writeback_store_does_not_warn(tmp_path: Path) -> None:
    # Its cache holds values read, which a read-only store cannot write:
    # the ResourceWarning said "1 unflushed change(s) or writeback value(s),
    # now dropped" for a store that had only been read.
    path = tmp_path / "db"
    with Store(path) as s:
        s["k"] = [1]
    s = Store(path, "r", writeback=True)
    assert s["k"] == [1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del s
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []
    assert caught == []


class Account:  # a plain class, as shelve users pickle them
    def __init__(self, owner: str, ledger: dict[int, float]) -> None:
        self.owner = owner
        self.ledger = ledger


@dataclasses.dataclass
class AccountDC:
    owner: str
    ledger: dict[int, float]


def test_default_and_non_str_keys_take_what_shelve_pickled(tmp_path: Path) -> None:
    path = tmp_path / "db"
    acct = Account("ada", {2024: 1.5, 2025: -2.0})
    with shelve.open(str(tmp_path / "shelf")) as shelf:
        shelf["ada"] = acct
    # Without them: the class and the int keys are refused, as by dumps.
    with Store(path) as s:
        with pytest.raises(roving.EncodeError, match="cannot encode object of type 'Account'"):
            s["ada"] = acct
        with pytest.raises(roving.EncodeError, match="dict keys must be str, got int"):
            s["ledger"] = acct.ledger
        assert len(s) == 0
    # With them, as dumps(obj, default=vars, non_str_keys=True) writes it.
    with (
        Store(path, default=vars, non_str_keys=True) as s,
        shelve.open(str(tmp_path / "shelf")) as shelf,
    ):
        s.update(shelf)
    assert contents(open_store, path) == {
        "ada": {"owner": "ada", "ledger": {"2024": 1.5, "2025": -2.0}}
    }
    with Store(path, "r", type=AccountDC) as s:
        assert s["ada"] == AccountDC("ada", {2024: 1.5, 2025: -2.0})


def test_writeback_with_non_str_keys(tmp_path: Path) -> None:
    path = tmp_path / "db"
    with Store(path, type=dict[int, str], writeback=True, non_str_keys=True) as s:
        s["names"] = {1: "a"}
        s["names"][2] = "b"
    with Store(path, "r", type=dict[int, str], writeback=True, non_str_keys=True) as s:
        assert s["names"] == {1: "a", 2: "b"}  # read, unchanged: nothing to write back


def test_the_class_of_a_writeback_store_opens_without_writeback(tmp_path: Path) -> None:
    # type(s) of a writeback store is its writeback class: opening through it
    # with writeback=False (type(s)(path), as copy-like code does) cached
    # and wrote back every value read all the same.
    class Audited(Store):  # type: ignore[misc,valid-type]
        pass

    path = tmp_path / "db"
    with Store(path) as s:
        s["k"] = [1]
    for cls in (Store, Audited):
        wb = cls(path, writeback=True)
        plain = type(wb)(path)
        plain["k"].append(2)  # not kept: no writeback
        assert plain["k"] == [1]
        assert type(plain) is cls
        plain.close()
        wb.close()
        assert contents(open_store, path) == {"k": [1]}
        again = type(wb)(path, writeback=True)
        again["k"].append(3)
        again.close()
        assert contents(open_store, path) == {"k": [1, 3]}
        with Store(path) as s:
            s["k"] = [1]


def test_a_read_only_writeback_store_of_int_keyed_dicts_closes_after_reads(
    tmp_path: Path,
) -> None:
    # With type=dict[int, T] the values read have int keys, which dumps()
    # refuses without non_str_keys: the check for "changed in place" took
    # every such value for changed, and close() raised StoreError
    # (read-only), leaving the store open.
    path = tmp_path / "db"
    with Store(path) as s:
        s["k"] = {"1": [2], "-3": [4]}
    with Store(path, "r", writeback=True, type=dict[int, list[int]]) as s:
        assert s["k"] == {1: [2], -3: [4]}
    assert s.closed
    s = Store(path, "r", writeback=True, type=dict[int, list[int]])
    s["k"][1].append(5)  # changed in place: cannot be saved
    with pytest.raises(roving.StoreError) as e:
        s.close()
    assert e.value.kind == "read-only" and not s.closed
    s.reload()
    s.close()
