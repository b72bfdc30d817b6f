"""roving.Store: seed 000's repository test, the mapping API, views, bad inputs."""

from __future__ import annotations

import dataclasses
import datetime as dt
import gc
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
import roving

try:
    from roving import Store, StoreError  # type: ignore[attr-defined]
except ImportError:  # until roving/__init__.py exports it
    from roving._store import Store, StoreError


# --------------------------------------------------------------- seed 000


@dataclasses.dataclass
class BBItem:
    identifier: str
    createdAt: dt.datetime
    hash: str
    data: bytes
    views: int
    displayInRect: tuple[float, float, float, float]
    optionalString: str | None = None


def dummy(i: int) -> BBItem:
    return BBItem(
        identifier=f"item {i}",
        createdAt=dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=i, microseconds=i),
        hash="someHash120djas!hf0410AjsifhsFjsd",
        data=b"some dummy data",
        views=i,
        displayInRect=(float(i), float(i), float(i), float(i)),
        optionalString="optional string!" if i % 2 == 0 else None,
    )


class Repository:
    """Seed 000's BBItemRepository on a roving.Store."""

    def __init__(self, path: Path) -> None:
        self.store = Store(path, type=BBItem)

    def item_count(self) -> int:
        return len(self.store)

    def item_with_identifier(self, identifier: str) -> BBItem | None:
        return self.store.get(identifier)

    def add_item(self, item: BBItem) -> None:
        self.store[item.identifier] = item

    def remove_item(self, item: BBItem) -> None:
        self.remove_item_with_identifier(item.identifier)

    def remove_item_with_identifier(self, identifier: str) -> None:
        self.store.pop(identifier, None)

    def flush(self) -> None:
        self.store.flush()

    def reload(self) -> None:
        self.store.reload()


def test_seed000_repository_correctness(tmp_path: Path) -> None:
    path = tmp_path / "items.rvs"
    repo = Repository(path)
    assert repo.item_count() == 0
    items = [dummy(i) for i in range(100)]
    for n, item in enumerate(items, 1):
        repo.add_item(item)
        assert repo.item_count() == n
    repo.add_item(items[5])  # same identifier: replaced
    assert repo.item_count() == 100

    repo.remove_item(items[0])
    assert repo.item_count() == 99
    assert repo.item_with_identifier("item 0") is None
    repo.remove_item_with_identifier("item 1")
    assert repo.item_count() == 98
    repo.remove_item_with_identifier("item 1")
    repo.remove_item_with_identifier("no such item")
    assert repo.item_count() == 98

    repo.flush()
    assert repo.item_count() == 98
    repo.reload()
    assert repo.item_count() == 98
    for item in items[2:]:
        got = repo.item_with_identifier(item.identifier)
        assert isinstance(got, BBItem)
        assert got == item  # every field

    # reload drops what was not flushed
    repo.remove_item(items[2])
    repo.add_item(dummy(1000))
    assert repo.item_count() == 98
    repo.reload()
    assert repo.item_count() == 98
    assert repo.item_with_identifier("item 2") == items[2]
    assert repo.item_with_identifier("item 1000") is None

    repo.remove_item_with_identifier("item 2")
    assert repo.item_count() == 97
    repo.flush()
    repo.store.close()

    # a new process would see the same: reopen from scratch
    repo = Repository(path)
    assert repo.item_count() == 97
    for item in items[3:]:
        assert repo.item_with_identifier(item.identifier) == item
    assert list(repo.store) == sorted(i.identifier for i in items[3:])
    assert list(repo.store.values()) == sorted(items[3:], key=lambda i: i.identifier)
    repo.store.close()


# ------------------------------------------------------------- mapping API


VALUES: dict[str, Any] = {
    "none": None,
    "bools": [True, False],
    "ints": [0, -1, 2**63 - 1, -(2**63), 2**64 + 5, -(10**40)],
    "float": 1.5,
    "str": "héllo, wörld ✓",
    "bytes": b"\x00\x01\xff",
    "nested": {"a": [1, {"b": None}], "c": {}},
    "when": dt.datetime(2020, 5, 17, 12, 30, tzinfo=dt.timezone(dt.timedelta(hours=2))),
    "empty list": [],
}


def test_bare_file_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Store("cache.rvs"), as shelve.open("cache"): created in the current directory.
    monkeypatch.chdir(tmp_path)
    with Store("cache.rvs") as s:
        s["a"] = 1
    assert (tmp_path / "cache.rvs").is_file()
    with Store("cache.rvs", readonly=True) as s:
        assert dict(s) == {"a": 1}


POST_INITS: list[int] = []
SETATTRS: list[str] = []


@dataclasses.dataclass
class Counted:
    n: int
    tags: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        POST_INITS.append(self.n)
        if self.n < 0:
            raise ValueError("n must be >= 0")


@dataclasses.dataclass
class CountedChild(Counted):
    extra: str = "x"


@dataclasses.dataclass
class Watched:
    a: int
    b: str = ""

    def __setattr__(self, name: str, value: Any) -> None:
        SETATTRS.append(name)
        object.__setattr__(self, name, value)


@dataclasses.dataclass(init=False)
class OwnInit:
    a: int
    b: int = 0

    def __init__(self, a: int) -> None:  # never called by decoding
        raise AssertionError("decoding does not call a user-defined __init__")


@dataclasses.dataclass(kw_only=True)
class KwOnly:
    a: int
    b: str = "b"


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int
    b: tuple[int, ...] = ()


def test_typed_store_dataclass_construction(tmp_path: Path) -> None:
    # Records are built as the dataclass's generated __init__ would build
    # them (whatever the shortcut taken): __post_init__ runs exactly once,
    # a class's own __setattr__ and own __init__ are bypassed as before,
    # keyword-only, inherited and frozen fields all land where they belong.
    path = tmp_path / "s.rvs"
    with Store(path) as s:
        s["c"] = {"n": 3, "tags": [1, 2]}
        s["neg"] = {"n": -1}
        s["child"] = {"n": 4, "tags": [5, 6], "extra": "y"}
        s["w"] = {"a": 1, "b": "z"}
        s["own"] = {"a": 7, "b": 8}
        s["kw"] = {"a": 9}
        s["fz"] = {"a": 1, "b": [2, 3]}
    POST_INITS.clear()
    with Store(path, type=Counted, readonly=True) as s:
        for _ in range(3):
            assert s["c"] == Counted(3, (1, 2))
        assert POST_INITS == [3, 3, 3, 3, 3, 3]  # 3 gets + 3 comparisons
        with pytest.raises(roving.ValidationError, match="n must be >= 0"):
            s["neg"]
    with Store(path, type=CountedChild, readonly=True) as s:
        got = s["child"]
        assert (got.n, got.tags, got.extra) == (4, (5, 6), "y")
    SETATTRS.clear()
    with Store(path, type=Watched, readonly=True) as s:
        got = s["w"]
        assert (got.a, got.b) == (1, "z")
        assert SETATTRS == []
    with Store(path, type=OwnInit, readonly=True) as s:
        got = s["own"]
        assert (got.a, got.b) == (7, 8)
    with Store(path, type=KwOnly, readonly=True) as s:
        assert s["kw"] == KwOnly(a=9)
    with Store(path, type=Frozen, readonly=True) as s:
        assert s["fz"] == Frozen(1, (2, 3))
        with pytest.raises(dataclasses.FrozenInstanceError):
            s["fz"].a = 2  # type: ignore[misc]


def test_a_read_only_store_must_exist(tmp_path: Path) -> None:
    # (What a read-only store refuses, on both backends: test_store_backends.)
    with pytest.raises(StoreError) as ei:
        Store(tmp_path / "s.rvs", readonly=True)
    assert ei.value.kind == "not-found"
    assert not (tmp_path / "s.rvs").exists()


def test_map_grows_by_itself(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    s = Store(path, map_size=1 << 20)
    blob = "y" * 50_000
    for round_ in range(3):
        for i in range(100):
            s[f"{round_}-{i}"] = {"i": i, "blob": blob}
        s.flush()
    s.close()
    s = Store(path, map_size=1 << 20)
    assert len(s) == 300
    assert s["2-99"]["blob"] == blob
    s.close()


def _store_with_a_view(path: Path) -> tuple[Store, Any]:
    """A store with a 1 MiB map holding {"first": {"n": 1}} (flushed), and
    a view of that record, which pins the map."""
    s = Store(path, map_size=1 << 20)
    s["first"] = {"n": 1}
    s.flush()
    return s, s.view("first")


def test_growth_with_views_open(tmp_path: Path) -> None:
    s, view = _store_with_a_view(tmp_path / "s.rvs")
    for i in range(40):
        s[f"big{i}"] = "z" * 100_000
    with pytest.raises(StoreError) as ei:
        s.flush()  # the map must move, but a view points into it
    assert ei.value.kind == "busy" and "view" in str(ei.value)
    assert s.pending == 40 and len(s) == 41  # nothing lost
    assert view["n"] == 1
    del view
    gc.collect()
    s.flush()
    s.reload()
    assert len(s) == 41
    s.close()


def test_failed_reload_changes_nothing(tmp_path: Path) -> None:
    # Another process grows the map while a view is open here: reload()
    # cannot move the map; it raises and the store stays as it was.
    path = tmp_path / "s.rvs"
    s, view = _store_with_a_view(path)
    s["pending"] = 2
    assert len(s) == 2
    grow = (
        "import sys\n"
        "from roving import Store\n"
        "with Store(sys.argv[1], map_size=1 << 20) as s:\n"
        "    for i in range(40):\n"
        "        s[f'big{i}'] = 'z' * 100_000\n"
    )
    subprocess.run([sys.executable, "-c", grow, str(path)], check=True)
    with pytest.raises(StoreError) as ei:
        s.reload()
    assert ei.value.kind == "busy" and "view" in str(ei.value)
    assert s.pending == 1 and len(s) == 2
    assert s["first"] == {"n": 1} and s["pending"] == 2
    assert list(s) == ["first", "pending"]
    assert view["n"] == 1
    del view
    gc.collect()
    s.reload()
    assert s.pending == 0 and len(s) == 41 and "pending" not in s
    s.close()


# -------------------------------------------------------------- bad inputs


def snapshot_of(s: Store) -> tuple[int, int, dict[str, Any]]:
    return (len(s), s.pending, dict(s))


def test_key_errors_name_the_store(tmp_path: Path) -> None:
    # Every error for a bad key starts with "store PATH: ", as the Store's
    # other errors do; the classes are those of the mapping protocol.
    path = tmp_path / "s.rvs"
    s = Store(path)
    prefix = f"store {path}: "
    for op in (
        lambda: s.__setitem__(1, 1),
        lambda: s[1],
        lambda: s.get(1),
        lambda: s.__delitem__(1),
        lambda: s.view(1),
        lambda: s.pop(1),
    ):
        with pytest.raises(TypeError) as ei:
            op()
        assert str(ei.value) == prefix + "keys must be str, not int"
    for key, n in [("", 0), ("k" * 512, 512), ("\u00e9" * 256, 512)]:
        with pytest.raises(StoreError) as ei:
            s[key] = 1
        assert ei.value.kind == "invalid-key"
        assert (
            str(ei.value) == prefix + f"keys must be 1 to 511 bytes of UTF-8, this one is {n} bytes"
        )
    for write in (lambda: s.__setitem__("a\ud800", 1), lambda: s.setdefault("a\ud800", 1)):
        with pytest.raises(UnicodeEncodeError) as ue:
            write()
        e = ue.value
        assert (e.encoding, e.object, e.start, e.end) == ("utf-8", "a\ud800", 1, 2)
        assert e.reason == prefix + "surrogates not allowed"
        assert str(e).endswith(": " + prefix + "surrogates not allowed"), str(e)
    assert s.pending == 0 and len(s) == 0
    s.close()


class Unencodable:
    pass


def test_unencodable_values_change_nothing(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.rvs")
    s["a"] = {"x": 1}
    s.flush()
    s["b"] = 2
    before = snapshot_of(s)
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    for bad in [
        Unencodable(),
        {"nested": [1, Unencodable()]},
        {1: "non-str key"},
        cyclic,
    ]:
        with pytest.raises(roving.EncodeError):
            s["a"] = bad
        with pytest.raises(roving.EncodeError):
            s["new"] = bad
        assert snapshot_of(s) == before
    with pytest.raises(roving.EncodeError):
        s.update({"c": 3, "d": Unencodable()})
    s.pop("c", None)
    s.flush()
    s.reload()
    assert dict(s) == {"a": {"x": 1}, "b": 2}
    s.close()


def test_garbage_and_truncated_files(tmp_path: Path) -> None:
    assert issubclass(StoreError, roving.RovingError)
    garbage = tmp_path / "garbage.rvs"
    for content in [b"not a store at all\n", os.urandom(20_000), b"\0" * 8192]:
        garbage.write_bytes(content)
        for ro in (False, True):
            with pytest.raises(StoreError) as ei:
                Store(garbage, readonly=ro)
            assert ei.value.kind == "not-a-store"
            assert "not a roving store" in str(ei.value)
        assert garbage.read_bytes() == content  # left alone

    good = tmp_path / "good.rvs"
    with Store(good) as s:
        for i in range(3000):
            s[f"item {i}"] = dataclasses.asdict(dummy(i))
    full = good.read_bytes()
    assert len(full) > 100_000
    for cut in [
        10,
        4096,
        8192,
        3 * 4096,
        len(full) // 2,
        len(full) - 4096,
        len(full) - 1,
    ]:
        p = tmp_path / f"cut{cut}.rvs"
        p.write_bytes(full[:cut])
        with pytest.raises(StoreError) as ei:
            Store(p)
        assert ei.value.kind in ("corrupt", "not-a-store"), ei.value


def test_damaged_record(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    marker = "UNIQUE-MARKER-0123456789-abcdefghij"
    with Store(path) as s:
        s["victim"] = marker
        s["other"] = 5
    data = bytearray(path.read_bytes())
    enc = roving.dumps(marker)
    at = data.find(enc)
    assert at >= 0
    data[at] ^= 0xFF  # break the record's magic
    path.write_bytes(bytes(data))
    s = Store(path)
    assert s["other"] == 5
    with pytest.raises(StoreError) as ei:
        s["victim"]
    assert ei.value.kind == "corrupt" and "victim" in str(ei.value)
    with pytest.raises(StoreError):
        s.view("victim")
    with pytest.raises(StoreError):
        list(s.items())
    s.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_forked_child_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    s = Store(path)
    s["a"] = 1
    s.flush()
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        code = 10
        try:
            code = 11 if s["a"] != 1 else 12  # the inherited snapshot still reads
            s["b"] = 2
            try:
                s.flush()
            except StoreError as e:
                code = 13 if e.kind != "busy" else 14
            try:
                Store(path)
            except StoreError as e:
                code = 0 if (code == 14 and e.kind == "busy" and "fork" in str(e)) else 15
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    s["c"] = 3  # the parent is unaffected
    s.flush()
    assert dict(s) == {"a": 1, "c": 3}
    s.close()


def test_forked_child_dropping_its_store_keeps_the_parents_snapshot(tmp_path: Path) -> None:
    # The child lets go of the Store (and a view) it inherited. That must not
    # end the parent's read transaction in LMDB's shared reader table: the
    # parent's snapshot must stay intact while another process rewrites
    # every record (which reuses the pages of states no reader holds).
    path = tmp_path / "s.rvs"
    s = Store(path)
    for i in range(20):
        s[f"a{i}"] = {"v": "A" * 3000}
    s.flush()
    view = s.view("a5")
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        code = 10
        try:
            del view, s
            gc.collect()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    rewrite = (
        "import sys\n"
        "from roving import Store\n"
        "for j in range(30):\n"
        "    with Store(sys.argv[1]) as s:\n"
        "        for i in range(20):\n"
        "            s[f'a{i}'] = {'v': chr(66 + j % 20) * 3000}\n"
    )
    subprocess.run([sys.executable, "-c", rewrite, str(path)], check=True)
    assert view["v"] == "A" * 3000
    assert s["a5"] == {"v": "A" * 3000} and len(s) == 20
    del view
    s.reload()
    assert s["a5"]["v"][0] != "A"
    s.close()


def test_trusted_store_reads_without_validating(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    with Store(path) as s:
        for i in range(600):
            s[f"item {i:03d}"] = dataclasses.asdict(dummy(i))
    t = Store(path, type=BBItem, trusted=True, readonly=True)
    assert t.trusted
    assert t["item 007"] == dummy(7)
    assert t.get("nope") is None
    assert list(t.values()) == [dummy(i) for i in range(600)]
    t.close()
    # A plain record (not written against the store's dictionary), to
    # find its bytes in the file.
    with Store(path, dictionary=False) as s:
        s["victim"] = "UNIQUE-MARKER-0123456789-abcdefghij"
    # A damaged record is still an exception, not a crash.
    data = bytearray(path.read_bytes())
    at = data.find(roving.dumps("UNIQUE-MARKER-0123456789-abcdefghij"))
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    t = Store(path, trusted=True)
    with pytest.raises(roving.RovingError):
        t["victim"]
    with pytest.raises(roving.RovingError):
        list(t.values())
    assert list(t)[-1] == "victim"  # keys alone do not read values
    t.close()


def _write_500(p: Path) -> None:
    """A store of 500 records, some with values that span several pages."""
    with Store(p) as s:
        for i in range(500):
            s[f"k{i}"] = {"i": i, "blob": "b" * (5000 if i % 50 == 0 else i)}


def test_populate(tmp_path: Path) -> None:
    p = tmp_path / "pop.rvs"
    _write_500(p)
    with Store(p, populate=True, readonly=True) as s:
        assert len(s) == 500 and s["k250"]["i"] == 250 and s["k0"]["blob"] == "b" * 5000
    with Store(p, populate=True) as s:
        s["new"] = {"i": -1}
        s.flush()
        assert s["new"] == {"i": -1} and s["k499"]["i"] == 499


def test_verify_pages(tmp_path: Path) -> None:
    good = tmp_path / "good.rvs"
    _write_500(good)
    with Store(good, verify_pages=True, readonly=True) as s:
        assert len(s) == 500 and s["k250"]["i"] == 250
    # A store whose B-tree page points past the end of the file (a fuzz
    # finding: LMDB alone dies of SIGBUS on it) is an error with the walk.
    finding = (
        Path(__file__).resolve().parents[2]
        / "crates/roving-store/tests/data/damaged-node-offsets.rvs"
    )
    bad = tmp_path / "bad.rvs"
    bad.write_bytes(finding.read_bytes())
    with pytest.raises(StoreError) as ei:
        Store(bad, verify_pages=True, readonly=True)
    assert ei.value.kind == "corrupt"


def test_a_store_collected_with_pending_changes_flushes_them(tmp_path: Path) -> None:
    # As shelve.Shelf.__del__ closes (and so syncs) the shelf, a Store
    # garbage-collected without close() flushes its pending changes (they
    # used to be dropped, with a ResourceWarning), and warns of nothing.
    path = tmp_path / "s.rvs"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = Store(path)
        s["a"] = 1
        s["b"] = 2
        del s
        gc.collect()
    assert caught == []
    with Store(path) as s:
        assert dict(s) == {"a": 1, "b": 2}
        del s["a"], s["b"]

    # No warning when nothing is pending: flushed, closed, read-only,
    # or changes dropped on purpose with reload().
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for finish in ("flush", "close", "reload"):
            s = Store(path)
            s[finish] = 1
            getattr(s, finish)()
            del s
            gc.collect()
        for readonly in (False, True):
            s = Store(path, readonly=readonly)
            assert s["flush"] == 1
            del s
            gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []
    assert caught == []
    with Store(path) as s:
        assert dict(s) == {"flush": 1, "close": 1}


def test_a_flush_that_fails_when_collected_or_at_exit_warns(tmp_path: Path) -> None:
    # The changes of a Store collected without close() are flushed; if
    # that fails, the loss is not silent: a RuntimeWarning says so.
    path = tmp_path / "s.rvs"
    s = Store(path, writeback=True)
    s["ok"] = [1]
    s["k"] = [1]
    s["k"].append(object())  # written back at the flush: EncodeError
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del s
        gc.collect()
    [w] = caught
    assert issubclass(w.category, RuntimeWarning)
    message = str(w.message)
    assert "s.rvs" in message and "garbage-collected" in message, message
    assert "EncodeError" in message and "lost" in message, message
    with Store(path) as s:
        assert len(s) == 0

    # At interpreter exit, the same (on stderr), for a store still
    # referenced by a global.
    import subprocess
    import sys

    code = (
        "import roving\n"
        f"s = roving.Store({str(path)!r}, writeback=True)\n"
        "s['k'] = [1]\n"
        "s['k'].append(object())\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "RuntimeWarning" in r.stderr and "at interpreter exit" in r.stderr, r.stderr
    assert "EncodeError" in r.stderr, r.stderr
    with Store(path) as s:
        assert len(s) == 0


def test_stores_left_open_at_exit_are_flushed(tmp_path: Path) -> None:
    # Still referenced at exit (a global, a cycle, a list): flushed by the
    # atexit hook, as a shelf would be when collected; a read-only store
    # has nothing to flush; a process killed by a signal loses what it
    # never flushed (and only that).
    import subprocess
    import sys

    path = tmp_path / "s.rvs"
    code = (
        "import roving, sys\n"
        f"s = roving.Store({str(path)!r})\n"
        "s['global'] = 1\n"
        f"w = roving.Store({str(path)!r}, writeback=True)\n"
        "w['cached'] = [1]\n"
        "w['cached'].append(2)\n"
        f"kept = [roving.Store({str(path)!r})]\n"
        "kept[0]['in a list'] = 3\n"
        "cycle = {}\n"
        f"cycle['s'] = roving.Store({str(path)!r})\n"
        "cycle['self'] = cycle\n"
        "cycle['s']['cycle'] = 4\n"
        f"r = roving.Store({str(path)!r}, readonly=True)\n"
        "sys.exit(0)\n"
    )
    r = subprocess.run([sys.executable, "-X", "dev", "-c", code], capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (0, "")
    with Store(path) as s:
        assert dict(s) == {"global": 1, "cached": [1, 2], "in a list": 3, "cycle": 4}

    killed = (
        "import os, signal, roving\n"
        f"s = roving.Store({str(path)!r})\n"
        "s['flushed'] = 5\n"
        "s.flush()\n"
        "s['never flushed'] = 6\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    if sys.platform != "win32":
        r = subprocess.run([sys.executable, "-c", killed], capture_output=True, text=True)
        assert r.returncode == -9
        with Store(path) as s:
            assert s["flushed"] == 5 and "never flushed" not in s


def test_read_only_then_read_write_in_one_process(tmp_path: Path) -> None:
    # LMDB opens a file once per process, read-only or not: a read-write
    # Store cannot join a read-only one; the message says why and what to do.
    path = tmp_path / "s.rvs"
    with Store(path) as s:
        s["a"] = 1
    r = Store(path, readonly=True)
    with pytest.raises(StoreError) as ei:
        Store(path)
    msg = str(ei.value)
    assert ei.value.kind == "busy"
    assert "open read-only" in msg and "in this process" in msg, msg
    assert "close" in msg and "open the read-write Store first" in msg, msg
    r.close()
    # The other order works: read-only Stores share the read-write one.
    w = Store(path)
    r = Store(path, readonly=True)
    w["b"] = 2
    w.flush()
    r.reload()
    assert dict(r) == {"a": 1, "b": 2}
    with pytest.raises(StoreError):
        r["c"] = 3
    r.close()
    w.close()


def test_type_checks_reads_not_writes_and_names_the_key(tmp_path: Path) -> None:
    # As documented: with type=, writes are not checked (as in Python's
    # typed containers and msgspec's encoders); a value that does not fit
    # raises ValidationError when read, and the message names the key (a
    # typed read may be far from the write, in another process).
    path = tmp_path / "s.rvs"
    s = Store(path, type=Counted)
    s["ok"] = Counted(1)
    s["bad"] = {"n": "x"}  # accepted
    s["neg"] = {"n": -1}  # the constructor refuses it on read
    s.flush()
    for read in (lambda: s["bad"], lambda: s.get("bad"), lambda: list(s.values())):
        with pytest.raises(roving.ValidationError) as ei:
            read()
        msg = str(ei.value)
        assert msg.startswith(f'store {path}, key "bad": '), msg
        assert "expected int, got str" in msg and ei.value.path == "$.n", msg
    with pytest.raises(roving.ValidationError, match="n must be >= 0") as ei:
        s["neg"]
    assert 'key "neg"' in str(ei.value)
    assert isinstance(ei.value.__cause__, ValueError)
    assert s["ok"] == Counted(1)
    assert s.view("bad")["n"] == "x"  # views are not typed
    s.close()


def test_a_full_reader_table_says_what_holds_it(tmp_path: Path) -> None:
    # LMDB's reader table (510 slots over all processes) holds one slot per
    # open Store: the 511th at once fails, and the message says the limit
    # and what to release.
    path = tmp_path / "s.rvs"
    Store(path).close()
    stores = []
    with pytest.raises(StoreError) as ei:
        for _ in range(600):
            stores.append(Store(path, readonly=True))
    assert len(stores) == 510
    msg = str(ei.value)
    assert ei.value.kind == "busy"
    assert "510" in msg and "close" in msg and "view" in msg, msg
    for s in stores:
        s.close()
    Store(path, readonly=True).close()


def test_path_is_a_pathlib_path(tmp_path: Path) -> None:
    # As the stub says: str or os.PathLike in, pathlib.Path out (bytes:
    # test_store_paths.py).
    for given in (str(tmp_path / "s.rvs"), tmp_path / "s.rvs"):
        with Store(given) as s:
            assert isinstance(s.path, Path) and s.path == tmp_path / "s.rvs"
            assert repr(s) == f"roving.Store({str(tmp_path / 's.rvs')!r})".replace("'", '"')
