"""Migrating to roving from pickle, shelve, json/orjson and msgpack/msgspec.

Each snippet is the old code beside its roving equivalent, checked for equal
results; then what a migration meets on the way: file objects of every kind,
streams of several documents, the exceptions the old code catches, and the
stubs under ``mypy --strict``. README.md's "Migrating" section says the same
in short.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import gzip
import io
import json
import os
import pickle
import shelve
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import roving
from conftest import mypy_strict


@dataclasses.dataclass
class Item:
    name: str
    qty: int
    tags: list[str] = dataclasses.field(default_factory=list)


ITEMS = [Item("apple", 3, ["fruit"]), Item("pear", 0)]
# The part of the data model every one of the old libraries shares.
PLAIN = {"id": 7, "name": "Ada", "scores": [1.5, -2.0], "ok": True, "none": None, "nested": {}}


# ---- pickle ----------------------------------------------------------------------------------


def test_pickle_dump_load_on_a_binary_file(tmp_path: Path) -> None:
    obj = {
        **PLAIN,
        "when": dt.datetime(2024, 5, 1, 12, tzinfo=dt.UTC),
        "day": dt.date(2024, 5, 1),
        "u": uuid.UUID(int=5),
        "price": decimal.Decimal("1.10"),
        "blob": b"\x00\xff",
        "big": 2**100,
    }
    with open(tmp_path / "old.pkl", "wb") as f:
        pickle.dump(obj, f)
    with open(tmp_path / "old.pkl", "rb") as f:
        old = pickle.load(f)
    with open(tmp_path / "new.rov", "wb") as f:
        roving.dump(obj, f)
    with open(tmp_path / "new.rov", "rb") as f:
        new = roving.load(f)
    assert new == old == obj


def test_pickle_of_dataclasses_becomes_a_typed_load() -> None:
    # pickle stores the class; roving stores the fields, and type= names the class.
    old = pickle.loads(pickle.dumps(ITEMS))
    new = roving.loads(roving.dumps(ITEMS), type=list[Item])
    assert new == old == ITEMS
    # Without type=, the fields come back as dicts (as json's would).
    assert roving.loads(roving.dumps(ITEMS))[0] == dataclasses.asdict(ITEMS[0])


@dataclasses.dataclass
class Pair:
    t: tuple[int, int]
    s: set[int]


def test_pickle_tuples_and_sets_come_back_as_lists_unless_typed() -> None:
    obj = {"t": (1, 2), "s": {3}}
    assert pickle.loads(pickle.dumps(obj)) == obj
    assert roving.loads(roving.dumps(obj)) == {"t": [1, 2], "s": [3]}
    assert roving.loads(roving.dumps(Pair(**obj)), type=Pair) == Pair((1, 2), {3})


def test_pickle_shared_references_are_kept() -> None:
    shared = [1, 2]
    old = pickle.loads(pickle.dumps([shared, shared]))
    new = roving.loads(roving.dumps([shared, shared]))
    assert old[0] is old[1] and new[0] is new[1]


# ---- shelve ----------------------------------------------------------------------------------


def test_shelve_open_becomes_store(tmp_path: Path) -> None:
    def use(db: Any) -> list[Any]:
        db["a"] = {"x": [1, 2]}
        db["b"] = "two"
        del db["b"]
        db.update({"c": 3})
        return [sorted(db.keys()), db["a"], "b" in db, db.get("zz", 0), len(db)]

    with shelve.open(str(tmp_path / "old")) as db:
        old = use(db)
    with roving.Store(tmp_path / "new.rov") as s:
        new = use(s)
    assert new == old
    # Reopened: what was written is there, as with shelve.
    with shelve.open(str(tmp_path / "old"), flag="r") as db:
        old = dict(db)
    with roving.Store(tmp_path / "new.rov", readonly=True) as s:
        new = dict(s)
    assert new == old == {"a": {"x": [1, 2]}, "c": 3}


def test_existing_data_converts_once(tmp_path: Path) -> None:
    # The README's one-liners: a shelf, a pickle file and a JSON file.
    with shelve.open(str(tmp_path / "old")) as db:
        db.update({"a": [1], "b": {"c": "d"}})
    with shelve.open(str(tmp_path / "old"), flag="r") as old, roving.Store(tmp_path / "s.rov") as s:
        s.update(old)
    with roving.Store(tmp_path / "s.rov", readonly=True) as s:
        assert dict(s) == {"a": [1], "b": {"c": "d"}}
    (tmp_path / "old.pkl").write_bytes(pickle.dumps(PLAIN))
    with open(tmp_path / "old.pkl", "rb") as f:
        roving.dump(pickle.load(f), tmp_path / "p.rov")
    assert roving.load(tmp_path / "p.rov") == PLAIN
    (tmp_path / "data.json").write_text(json.dumps(PLAIN))
    subprocess.run(
        [sys.executable, "-m", "roving", "convert", "data.json", "data.rov"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    assert roving.load(tmp_path / "data.rov") == PLAIN


def test_shelve_sync_is_store_sync(tmp_path: Path) -> None:
    # shelve code calls db.sync() to write what it has so far.
    with shelve.open(str(tmp_path / "old")) as db:
        db["k"] = 1
        db.sync()
    s = roving.Store(tmp_path / "new.rov")
    s["k"] = 1
    s.sync()
    assert s.pending == 0
    with roving.Store(tmp_path / "new.rov", readonly=True) as other:
        assert other["k"] == 1
    s.close()


def test_shelve_missing_key_and_readonly_errors_are_the_same_kinds(tmp_path: Path) -> None:
    with shelve.open(str(tmp_path / "old")) as db, pytest.raises(KeyError):
        db["missing"]
    with roving.Store(tmp_path / "new.rov") as s, pytest.raises(KeyError):
        s["missing"]
    # shelve.open(p, flag="r") of a missing file raises dbm.error; a readonly
    # Store raises StoreNotFoundError, also a FileNotFoundError.
    with pytest.raises(FileNotFoundError):
        roving.Store(tmp_path / "absent.rov", readonly=True)


# ---- json ------------------------------------------------------------------------------------


def test_json_dump_load_on_a_text_file_becomes_binary(tmp_path: Path) -> None:
    with open(tmp_path / "old.json", "w") as f:
        json.dump(PLAIN, f)
    with open(tmp_path / "old.json") as f:
        old = json.load(f)
    with open(tmp_path / "new.rov", "wb") as f:  # "wb", not "w"
        roving.dump(PLAIN, f)
    with open(tmp_path / "new.rov", "rb") as f:  # "rb", not "r"
        new = roving.load(f)
    assert new == old == PLAIN


def test_json_default_hook_is_the_same() -> None:
    class Money:
        def __init__(self, cents: int) -> None:
            self.cents = cents

    def default(o: object) -> object:
        if isinstance(o, Money):
            return {"cents": o.cents}
        raise TypeError(f"unsupported: {type(o).__name__}")

    obj = {"price": Money(150)}
    old = json.loads(json.dumps(obj, default=default))
    new = roving.loads(roving.dumps(obj, default=default))
    assert new == old == {"price": {"cents": 150}}


def test_json_text_converts_both_ways() -> None:
    text = json.dumps(PLAIN)
    doc = roving.from_json(text)
    assert roving.loads(doc) == json.loads(text)
    assert json.loads(roving.to_json(doc)) == PLAIN


# ---- orjson ----------------------------------------------------------------------------------


def test_orjson_dumps_loads_with_default() -> None:
    orjson = pytest.importorskip("orjson")
    obj = {**PLAIN, "tags": {"a"}, "items": ITEMS}
    old = orjson.loads(orjson.dumps(obj, default=sorted))
    new = roving.loads(roving.dumps(obj, default=sorted))
    assert new == old


def test_orjson_json_bytes_read_by_roving() -> None:
    orjson = pytest.importorskip("orjson")
    data = orjson.dumps(PLAIN)
    assert roving.loads(roving.from_json(data)) == orjson.loads(data)
    assert orjson.loads(roving.to_json(roving.from_json(data))) == orjson.loads(data)


# ---- msgpack and msgspec ---------------------------------------------------------------------


def test_msgpack_packb_unpackb() -> None:
    msgpack = pytest.importorskip("msgpack")
    obj = {**PLAIN, "blob": b"\x01", "t": (1, 2)}
    old = msgpack.unpackb(msgpack.packb(obj))
    new = roving.loads(roving.dumps(obj))
    assert new == old


def test_msgspec_typed_decode() -> None:
    msgspec = pytest.importorskip("msgspec")
    b_old = msgspec.msgpack.encode(ITEMS)
    old = msgspec.msgpack.decode(b_old, type=list[Item])
    new = roving.loads(roving.dumps(ITEMS), type=list[Item])
    assert new == old == ITEMS


def test_msgspec_validation_errors_are_value_errors_with_a_path() -> None:
    msgspec = pytest.importorskip("msgspec")
    bad = [{"name": "x", "qty": "three"}]
    with pytest.raises(ValueError, match=r"\$\[0\]\.qty") as old:
        msgspec.msgpack.decode(msgspec.msgpack.encode(bad), type=list[Item])
    with pytest.raises(ValueError, match=r"\$\[0\]\.qty") as new:
        roving.loads(roving.dumps(bad), type=list[Item])
    assert isinstance(old.value, msgspec.ValidationError)
    assert isinstance(new.value, roving.ValidationError)
    assert new.value.path == "$[0].qty"


def test_msgspec_struct_becomes_a_dataclass() -> None:
    # roving reads and writes dataclasses, not msgspec.Struct: a Struct is
    # written through default= and declared as a dataclass to be read back.
    msgspec = pytest.importorskip("msgspec")

    class Point(msgspec.Struct):
        x: int
        y: int

    @dataclasses.dataclass
    class PointDC:
        x: int
        y: int

    b = roving.dumps([Point(1, 2)], default=msgspec.structs.asdict)
    assert roving.loads(b, type=list[PointDC]) == [PointDC(1, 2)]
    # Or the Struct itself comes back through msgspec.convert (README).
    assert msgspec.convert(roving.loads(b), list[Point]) == [Point(1, 2)]


# ---- the exceptions old code catches ---------------------------------------------------------


def test_except_clauses_of_json_and_orjson_still_catch() -> None:
    # json/orjson raise TypeError on encoding and ValueError on decoding;
    # roving's EncodeError and DecodeError are those too.
    with pytest.raises(TypeError):
        roving.dumps({"x": object()})
    with pytest.raises(ValueError):
        roving.loads(b"RV\x01garbage")
    with pytest.raises(ValueError):
        roving.loads(roving.dumps("x"), type=int)


def test_pickle_except_clauses_need_rovings_exceptions() -> None:
    # pickle's UnpicklingError is neither: catch roving.DecodeError (or ValueError).
    assert not issubclass(pickle.UnpicklingError, ValueError)
    with pytest.raises(roving.DecodeError):
        roving.loads(pickle.dumps(1))
    # An empty file: pickle raises EOFError, roving a DecodeError.
    with pytest.raises(EOFError):
        pickle.load(io.BytesIO())
    with pytest.raises(roving.DecodeError, match=r"^truncated input: the input is empty"):
        roving.load(io.BytesIO())


def test_an_old_file_not_yet_converted_says_what_it_looks_like(tmp_path: Path) -> None:
    # A data file the old code wrote, read by the migrated code: it said
    # only "not a roving document (bad magic)".
    (tmp_path / "a.json").write_text(json.dumps(PLAIN, indent=2))
    (tmp_path / "a.pkl").write_bytes(pickle.dumps(PLAIN))
    (tmp_path / "a.gz").write_bytes(gzip.compress(roving.dumps(PLAIN)))
    for name, what in [
        ("a.json", "JSON text, which from_json converts"),
        ("a.pkl", "a Python pickle"),
        ("a.gz", "gzip-compressed data"),
    ]:
        with pytest.raises(roving.DecodeError, match=f"bad magic\\): it looks like {what}"):
            roving.load(tmp_path / name)
        with pytest.raises(roving.DecodeError, match=f"it looks like {what}"):
            roving.open(tmp_path / name)


# ---- file objects of every kind --------------------------------------------------------------


def test_bytesio_and_paths(tmp_path: Path) -> None:
    buf = io.BytesIO()
    roving.dump(PLAIN, buf)
    buf.seek(0)
    assert roving.load(buf) == PLAIN
    for p in [tmp_path / "p.rov", str(tmp_path / "s.rov")]:
        roving.dump(PLAIN, p)
        assert roving.load(p) == PLAIN
        assert roving.open(p).to_python() == PLAIN


def test_gzip_files(tmp_path: Path) -> None:
    with gzip.open(tmp_path / "x.rov.gz", "wb") as f:
        roving.dump(ITEMS, f)
    with gzip.open(tmp_path / "x.rov.gz", "rb") as f:
        assert roving.load(f, type=list[Item]) == ITEMS


@pytest.mark.parametrize("buffering", [0, -1])
def test_pipes(buffering: int) -> None:
    big = {"s": "x" * 200_000, "n": list(range(10_000))}  # more than a pipe holds
    r, w = os.pipe()
    with os.fdopen(r, "rb", buffering=buffering) as rf, os.fdopen(w, "wb", buffering) as wf:

        def write() -> None:
            roving.dump(big, wf)
            wf.close()

        t = threading.Thread(target=write)
        t.start()
        got = roving.load(rf)
        t.join()
    assert got == big


def test_subprocess_pipe() -> None:
    code = "import sys, roving; roving.dump({'a': [1, 2]}, sys.stdout.buffer)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout
    assert roving.loads(out) == {"a": [1, 2]}
    # ... and read back from a pipe the other way.
    p = subprocess.Popen(
        [sys.executable, "-c", "import sys, roving; print(roving.load(sys.stdin.buffer))"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    out, _ = p.communicate(roving.dumps([3]))
    assert out.strip() == b"[3]"


class DribbleWriter(io.RawIOBase):
    """A raw binary file that takes at most 3 bytes per write(), as a
    non-blocking pipe or socket may."""

    def __init__(self) -> None:
        self.got = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        chunk = bytes(b[:3])
        self.got += chunk
        return len(chunk)


def test_dump_writes_all_through_short_writes() -> None:
    # Raw files (open(p, "wb", buffering=0), sockets) may write fewer bytes
    # than given and say so: dump writes the rest instead of leaving a
    # truncated document.
    f = DribbleWriter()
    roving.dump(PLAIN, f)
    assert roving.loads(bytes(f.got)) == PLAIN


def test_dump_to_a_full_non_blocking_raw_file_is_a_blocking_io_error() -> None:
    # A raw file's write() returns None when a non-blocking file takes
    # nothing: dump took None for "all written" and returned, leaving a
    # truncated document with no error (BufferedWriter raises instead).
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)
        with open(w, "wb", buffering=0, closefd=False) as f:
            with pytest.raises(BlockingIOError) as e:
                roving.dump(list(range(100_000)), f)
        assert 0 < e.value.characters_written < len(roving.dumps(list(range(100_000))))
    finally:
        os.close(r)
        os.close(w)
    # Other writers' None means all was written.
    got: list[bytes] = []

    class Appender:
        def write(self, b: bytes) -> None:
            got.append(bytes(b))

    roving.dump(PLAIN, Appender())
    assert roving.loads(b"".join(got)) == PLAIN


def test_a_text_file_given_by_mistake_says_to_open_it_in_binary_mode(tmp_path: Path) -> None:
    p = tmp_path / "x.rov"
    roving.dump(PLAIN, p)
    # load read it as UTF-8 text (UnicodeDecodeError), or said
    # "expected a bytes-like object, got str".
    for encoding in ["utf-8", "latin-1"]:
        with (
            open(p, encoding=encoding) as f,
            pytest.raises(TypeError, match=r"roving\.load\(\) needs a binary file.*'rb'"),
        ):
            roving.load(f)
    with pytest.raises(TypeError, match=r"roving\.load\(\) needs a binary file.*'rb'"):
        roving.load(io.StringIO("text"))
    # dump said "write() argument must be str, not bytes".
    with (
        open(tmp_path / "y.rov", "w") as f,
        pytest.raises(TypeError, match=r"roving\.dump\(\) needs a binary file.*'wb'"),
    ):
        roving.dump(PLAIN, f)
    with pytest.raises(TypeError, match=r"roving\.dump\(\) needs a binary file.*'wb'"):
        roving.dump(PLAIN, io.StringIO())
    with pytest.raises(TypeError, match=r"roving\.dump\(\) needs a binary file.*'wb'"):
        roving.dump(PLAIN, sys.stdout)


def test_neither_a_file_nor_a_path_is_a_clear_type_error() -> None:
    # These raised AttributeError: 'bytes' object has no attribute 'read'.
    doc = roving.dumps(PLAIN)
    with pytest.raises(TypeError, match=r"not bytes; to decode bytes, use roving\.loads\(\)"):
        roving.load(doc)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"binary file object .* or a path .*, not int"):
        roving.load(0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"binary file object .* or a path .*, not NoneType"):
        roving.dump(PLAIN, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"binary file object .* or a path .*, not bytes"):
        roving.dump(PLAIN, b"x.rov")  # type: ignore[arg-type]


def test_open_of_a_file_object_says_what_to_pass(tmp_path: Path) -> None:
    # roving.open(f), as pickle.load(f) is called, said "expected a
    # bytes-like object, got BufferedReader".
    p = tmp_path / "x.rov"
    roving.dump(PLAIN, p)
    for f in [open(p, "rb"), io.BytesIO(p.read_bytes())]:
        with (
            f,
            pytest.raises(
                TypeError,
                match=r"takes a path or a bytes-like object, not a file object "
                r"\((BufferedReader|BytesIO)\): pass the file's path .* roving\.load\(f\)",
            ),
        ):
            roving.open(f)
    with pytest.raises(TypeError, match=r"^expected a bytes-like object, got int$"):
        roving.open(3)


def test_dump_to_a_path_keeps_a_mapped_old_file_readable(tmp_path: Path) -> None:
    # roving.open(path) maps the file; dump(obj, path) truncated it in place,
    # and the next read through the map killed the process with SIGBUS.
    # dump now writes a new file and renames it over the old one.
    p = tmp_path / "state.rov"
    code = f"""
import roving
p = {str(p)!r}
roving.dump({{"s": "x" * 100_000, "n": list(range(5000))}}, p)
doc = roving.open(p)
roving.dump({{"s": "new"}}, p)
assert doc.root["s"][:3] == "xxx", doc.root["s"][:3]
assert doc.root["n"][4999] == 4999
assert roving.load(p) == {{"s": "new"}}
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (r.returncode, r.stdout.strip(), r.stderr) == (0, "ok", "")


def test_dump_to_a_path_keeps_the_mode_and_symlinks(tmp_path: Path) -> None:
    p = tmp_path / "data.rov"
    roving.dump([1], p)
    os.chmod(p, 0o640)
    link = tmp_path / "link.rov"
    link.symlink_to(p)
    roving.dump([2], link)
    assert link.is_symlink() and roving.load(p) == [2]
    assert (p.stat().st_mode & 0o777) == 0o640
    assert sorted(x.name for x in tmp_path.iterdir()) == ["data.rov", "link.rov"]  # no temp left


def test_dump_to_a_path_that_is_not_a_regular_file_writes_in_place(tmp_path: Path) -> None:
    # /dev/stdout, a FIFO... are written to, not replaced by a regular file.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[Any] = []
    t = threading.Thread(target=lambda: got.append(roving.load(fifo)))
    t.start()
    roving.dump([1, 2], fifo)
    t.join()
    assert got == [[1, 2]] and fifo.is_fifo()


def test_dump_to_a_path_fails_as_builtins_open_would(tmp_path: Path) -> None:
    p = tmp_path / "missing" / "x.rov"
    with pytest.raises(FileNotFoundError) as e:
        roving.dump([1], p)
    assert e.value.filename == str(p)  # not a temporary file's name
    with pytest.raises(IsADirectoryError):
        roving.dump([1], tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file")
def test_dump_over_a_read_only_file_is_refused(tmp_path: Path) -> None:
    # Renaming over it would succeed (the folder is writable): refused as
    # builtins.open(p, "wb") refuses it.
    p = tmp_path / "ro.rov"
    roving.dump([1], p)
    os.chmod(p, 0o444)
    with pytest.raises(PermissionError):
        roving.dump([2], p)
    assert roving.load(p) == [1]


def test_dump_to_dev_stdout_redirected_to_a_file_writes_to_stdout(tmp_path: Path) -> None:
    # /dev/stdout leads to the file stdout was redirected to (`>> out`):
    # replacing that file lost what the process printed afterwards (its
    # stdout was the old file).
    out = tmp_path / "out"
    code = "import roving; roving.dump([1], '/dev/stdout'); print('after', flush=True)"
    with open(out, "ab") as f:
        subprocess.run([sys.executable, "-c", code], stdout=f, check=True)
    data = out.read_bytes()
    assert data.endswith(b"after\n") and roving.loads(data[: -len(b"after\n")]) == [1]


def test_a_failed_dump_to_a_path_leaves_the_old_file(tmp_path: Path) -> None:
    p = tmp_path / "x.rov"
    roving.dump([1], p)
    with pytest.raises(roving.EncodeError):
        roving.dump([object()], p)
    assert roving.load(p) == [1]
    assert [x.name for x in tmp_path.iterdir()] == ["x.rov"]


# ---- several documents in one stream ---------------------------------------------------------


def test_pickle_stream_of_several_dumps_is_a_clear_error_in_roving() -> None:
    old = io.BytesIO()
    pickle.dump(1, old)
    pickle.dump(2, old)
    old.seek(0)
    assert [pickle.load(old), pickle.load(old)] == [1, 2]

    new = io.BytesIO()
    roving.dump(1, new)
    roving.dump(2, new)
    new.seek(0)
    # It said "unknown tag 0x52 (byte offset 6)".
    with pytest.raises(roving.DecodeError, match="another document starts here") as e:
        roving.load(new)
    assert e.value.offset == 6
    with pytest.raises(roving.DecodeError, match="another document starts here"):
        roving.validate(roving.dumps({"a": 1}) + roving.dumps([1, 2]))
    # A lazy open reads only what it touches, so it cannot tell (the second
    # document's references land in the first: wrong values, as documented);
    # validate=True and whole-value operations do.
    two = roving.dumps(["x" * 100]) + roving.dumps(["y" * 100])
    assert roving.open(two)[0] == "x" * 100
    with pytest.raises(roving.DecodeError, match="another document starts here"):
        roving.open(two, validate=True)
    with pytest.raises(roving.DecodeError, match="another document starts here"):
        roving.open(two).to_python()


def test_several_records_in_one_file_the_documented_ways(tmp_path: Path) -> None:
    records = [{"n": i, "s": "x" * i} for i in range(5)]
    # 1. One document holding the list.
    roving.dump(records, tmp_path / "all.rov")
    assert roving.load(tmp_path / "all.rov") == records
    # 2. An append-only log: each document after its length (8 bytes, little endian).
    with open(tmp_path / "log", "ab") as f:
        for r in records:
            b = roving.dumps(r)
            f.write(len(b).to_bytes(8, "little") + b)
    got = []
    with open(tmp_path / "log", "rb") as f:
        while head := f.read(8):
            got.append(roving.loads(f.read(int.from_bytes(head, "little"))))
    assert got == records
    # 3. A Store, keyed.
    with roving.Store(tmp_path / "store.rov") as s:
        s.update({f"{r['n']:08}": r for r in records})
    with roving.Store(tmp_path / "store.rov", readonly=True) as s:
        assert list(s.values()) == records


# ---- typing: migrated code under mypy --strict -----------------------------------------------

MIGRATED = """
import gzip
import io
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import roving


@dataclass
class Item:
    name: str


def gz_read(p: Path) -> list[Item]:
    with gzip.open(p, "rb") as f:
        return roving.load(f, type=list[Item])


def gz_write(p: Path, items: list[Item]) -> None:
    with gzip.open(p, "wb") as f:
        roving.dump(items, f)


def zip_read(z: zipfile.ZipFile) -> Any:
    with z.open("x.rov") as f:
        return roving.load(f)


def pipes(f: BinaryIO) -> int:
    roving.dump([1], sys.stdout.buffer)
    proc = subprocess.Popen(["cat"], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    n: int = roving.load(proc.stdout, type=int)
    roving.dump(n, f)
    return n


def files(p: Path) -> dict[str, int]:
    buf = io.BytesIO()
    roving.dump({"a": 1}, buf)
    roving.dump({"a": 1}, str(p))
    roving.dump({"a": 1}, p, default=str)
    with open(p, "rb") as f:
        first: dict[str, int] = roving.load(f, type=dict[str, int])
    with open(p, "wb", buffering=0) as raw:
        roving.dump(first, raw)
    return roving.load(p, type=dict[str, int])


def shelf(p: Path) -> None:
    with roving.Store(p) as s:
        s["a"] = 1
        s.sync()
        for k, v in s.items():
            print(k.upper(), v)


def mapped(p: Path, b: bytes) -> list[Any]:
    import mmap

    import numpy as np

    docs = [roving.open(p), roving.open(str(p)), roving.open(b), roving.open(bytearray(b))]
    docs.append(roving.open(memoryview(b), validate=True))
    docs.append(roving.open(np.frombuffer(b, dtype=np.uint8)))
    with open(p, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        docs.append(roving.open(m))
    return [d.root for d in docs]


def errors(b: bytes) -> Any:
    try:
        return roving.loads(b)
    except roving.ValidationError as e:
        return e.path
    except (roving.DecodeError, ValueError) as e:
        return str(e)
"""

MIGRATED_WRONG = """
import io
import roving

with open("x.rov", "w") as f:
    roving.dump([1], f)
with open("x.rov") as g:
    roving.load(g)
roving.dump([1], io.StringIO())
roving.load(b"RV")
"""


def test_mypy_strict_accepts_migrated_code(tmp_path: Path) -> None:
    # gzip, bz2, lzma files are binary files that are not typing.IO[bytes]:
    # the stubs rejected roving.load(gzip.open(p, "rb")).
    r = mypy_strict(tmp_path, MIGRATED)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict_rejects_text_files_and_bytes(tmp_path: Path) -> None:
    r = mypy_strict(tmp_path, MIGRATED_WRONG)
    errors = [line for line in r.stdout.splitlines() if ": error:" in line]
    assert [e.split(":")[1] for e in errors] == ["6", "8", "9", "10"], r.stdout


def test_json_text_given_to_loads_points_to_from_json() -> None:
    # json.loads(text) becomes roving.loads(text) by habit: the TypeError
    # said only "expected a bytes-like object, got str".
    text = json.dumps(PLAIN)
    takes_documents: list[Any] = [roving.loads, roving.validate, roving.to_json]
    for fn in takes_documents:
        with pytest.raises(
            TypeError, match=r"got str; JSON text converts with roving\.from_json\(\)"
        ):
            fn(text)
    assert roving.loads(roving.from_json(text)) == json.loads(text)
