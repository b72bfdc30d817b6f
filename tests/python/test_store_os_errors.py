"""roving.Store's errors of the file system are also the OSErrors Python code
catches (``except FileNotFoundError``, ``except PermissionError``), as
``open()``, ``dbm`` and ``sqlite3`` users expect, and still ``StoreError``s."""

from __future__ import annotations

import errno
import os
import pickle
import tempfile
from pathlib import Path

import pytest
import roving
from conftest import run_as_nobody
from roving import Store, StoreError


def test_a_missing_store_opened_read_only_is_a_file_not_found_error(tmp_path: Path) -> None:
    path = tmp_path / "missing.rvs"
    with pytest.raises(FileNotFoundError) as ei:
        Store(path, readonly=True)
    e = ei.value
    assert isinstance(e, StoreError) and isinstance(e, roving.StoreNotFoundError)
    assert e.kind == "not-found"
    assert e.errno == errno.ENOENT and e.filename == path
    # The message is the StoreError's one line, not OSError's "[Errno 2] ...".
    assert str(e) == f"store {path}: no store at this path"
    assert not (tmp_path / "missing.rvs").exists()


def test_a_store_in_a_missing_directory_is_a_file_not_found_error(tmp_path: Path) -> None:
    for readonly in (False, True):
        with pytest.raises(FileNotFoundError) as ei:
            Store(tmp_path / "no" / "s.rvs", readonly=readonly)
        assert isinstance(ei.value, StoreError) and ei.value.kind == "not-found"
        assert "no" in str(ei.value)


def test_other_store_errors_are_not_os_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.rvs"
    path.write_bytes(b"not a store at all, just some bytes" * 10)
    with pytest.raises(StoreError) as ei:
        Store(path)
    assert ei.value.kind == "not-a-store" and not isinstance(ei.value, OSError)


def test_an_empty_file_opened_read_only_is_not_a_store_not_a_missing_one(tmp_path: Path) -> None:
    # The file exists: FileNotFoundError would send the user looking for it.
    path = tmp_path / "empty.rvs"
    path.write_bytes(b"")
    with pytest.raises(StoreError) as ei:
        Store(path, readonly=True)
    assert ei.value.kind == "not-a-store" and not isinstance(ei.value, OSError)
    assert "empty" in str(ei.value)
    # Opened read-write, the empty file becomes a new store.
    with Store(path) as s:
        s["k"] = 1
    with Store(path, readonly=True) as s:
        assert s["k"] == 1


def test_store_os_errors_pickle(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as ei:
        Store(tmp_path / "missing.rvs", readonly=True)
    e = pickle.loads(pickle.dumps(ei.value))
    assert type(e) is roving.StoreNotFoundError and str(e) == str(ei.value)


def _open_denied(path: Path) -> None:
    for readonly in (False, True):
        try:
            Store(path, readonly=readonly)
        except PermissionError as e:
            assert isinstance(e, StoreError), type(e)
            assert e.kind == "permission-denied", e.kind
            assert e.errno == errno.EACCES and e.filename == path, (e.errno, e.filename)
            assert str(e).startswith(f"store {path}: "), str(e)
            # It says what access a store needs (LMDB writes its lock file
            # even to read).
            assert f"{path}-lock" in str(e) and "read-write access" in str(e), str(e)
        else:
            raise AssertionError("opened a store it may not read")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_store_that_may_not_be_read_is_a_permission_error() -> None:
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)
        path = Path(d) / "s.rvs"
        with Store(path) as s:
            s["a"] = 1
        os.chmod(path, 0)

        # Root reads any file: as root, the check runs as user "nobody".
        def check() -> int:
            _open_denied(path)
            return 0

        assert run_as_nobody(check) == 0
