"""roving.Store takes its path as ``open()``, ``sqlite3.connect`` and
``dbm.open`` do: a ``str``, ``bytes`` or ``os.PathLike`` of either (decoded
as ``os.fsdecode`` does), non-UTF-8 file names included on Linux."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import roving
from roving import Store, StoreNotFoundError


class BytesPath:
    """An os.PathLike whose fspath is bytes."""

    def __init__(self, path: bytes) -> None:
        self.path = path

    def __fspath__(self) -> bytes:
        return self.path


class BadPath:
    def __fspath__(self) -> int:
        return 1


def test_bytes_and_bytes_pathlike_paths(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    with Store(os.fsencode(path)) as s:
        assert isinstance(s.path, Path) and s.path == path
        s["a"] = 1
    with Store(BytesPath(os.fsencode(path))) as s:
        assert s.path == path and s["a"] == 1
        s["b"] = 2
    with Store(str(path), readonly=True) as s:
        assert dict(s) == {"a": 1, "b": 2}
    assert sorted(os.listdir(tmp_path)) == ["s.rvs", "s.rvs-lock"]


def test_a_directory_store_given_as_bytes(tmp_path: Path) -> None:
    d = tmp_path / "db"
    d.mkdir()
    with Store(os.fsencode(d)) as s:
        s["a"] = 1
    assert sorted(os.listdir(d)) == ["data.mdb", "lock.mdb"]
    with Store(os.fsencode(d / "data.mdb"), readonly=True) as s:
        assert s["a"] == 1


def test_a_missing_store_given_as_bytes(tmp_path: Path) -> None:
    path = tmp_path / "missing.rvs"
    with pytest.raises(StoreNotFoundError) as ei:
        Store(os.fsencode(path), readonly=True)
    assert ei.value.filename == path
    assert str(ei.value) == f"store {path}: no store at this path"


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes on Linux")
def test_a_non_utf8_file_name(tmp_path: Path) -> None:
    name = b"caf\xe9-\xff.rvs"  # Latin-1, not UTF-8
    path = os.fsencode(tmp_path) + b"/" + name
    with Store(path) as s:
        # The path as os.fsdecode gives it (surrogate escapes).
        assert s.path == Path(os.fsdecode(path))
        s["a"] = 1
    assert sorted(os.listdir(os.fsencode(tmp_path))) == [name, name + b"-lock"]
    # The str form of the same name opens the same store.
    with Store(os.fsdecode(path), readonly=True) as s:
        assert s["a"] == 1
    with Store(Path(os.fsdecode(path)), readonly=True) as s:
        assert s["a"] == 1
    missing = os.fsencode(tmp_path) + b"/\xff-missing.rvs"
    with pytest.raises(StoreNotFoundError) as ei:
        Store(missing, readonly=True)
    assert ei.value.filename == Path(os.fsdecode(missing))
    # Messages show the name as its repr does: each byte that is not UTF-8
    # as the escape of its surrogate (U+FFFD lost which byte it was).
    shown = os.fsdecode(missing).encode("utf-8", "backslashreplace").decode()
    assert shown.endswith("/\\udcff-missing.rvs")
    assert str(ei.value) == f"store {shown}: no store at this path"
    s = Store(path)
    shown = os.fsdecode(path).encode("utf-8", "backslashreplace").decode()
    assert repr(s) == f'roving.Store("{shown}")'
    with pytest.raises(TypeError) as te:
        s[1] = 1  # type: ignore[index]
    assert str(te.value) == f"store {shown}: keys must be str, not int"
    s.close()
    with pytest.raises(roving.StoreError) as se:
        s["a"]
    assert str(se.value) == f"store {shown}: the store is closed"


@pytest.mark.parametrize("bad", [1, None, 1.5, bytearray(b"s.rvs"), BadPath()])
def test_paths_of_other_types_are_type_errors(bad: object) -> None:
    # os.fspath's messages, as open() gives them.
    with pytest.raises(TypeError, match=r"str,? (or )?bytes"):
        Store(bad)  # type: ignore[arg-type]


def test_a_nul_byte_in_a_bytes_path(tmp_path: Path) -> None:
    with pytest.raises(roving.StoreError, match="NUL"):
        Store(os.fsencode(tmp_path) + b"/a\x00b.rvs")
    assert os.listdir(tmp_path) == []


def test_roving_open_of_bytes_is_still_a_document() -> None:
    # Only the Store's path changed: roving.open(bytes) reads a document.
    assert roving.open(roving.dumps({"a": 1}))["a"] == 1
