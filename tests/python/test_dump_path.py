"""roving.dump(obj, path) on paths that are not a plain new or old file:
files this process has mapped, symlink loops, names ending in a separator,
os.PathLike of bytes, several threads dumping to one path. Each gives the
file it should or builtins.open's error, never SIGBUS or a file other than
the one named."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
import roving
from conftest import run_as_nobody


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_dump_in_place_refuses_to_truncate_a_mapped_file(tmp_path: Path) -> None:
    # A path under /proc/ is written in place (as /dev/stdout is): dump
    # truncated the file a roving.open() Doc had mapped, and the next read
    # of the Doc killed the process with SIGBUS (return code -7).
    p = tmp_path / "mapped.rov"
    code = f"""
import errno, os, roving
p = {str(p)!r}
roving.dump(list(range(20_000)), p)
doc = roving.open(p)
fd = os.open(p, os.O_RDONLY)
try:
    roving.dump([1], f"/proc/self/fd/{{fd}}")
except OSError as e:
    assert e.errno == errno.EBUSY and "maps it" in str(e), e
else:
    raise AssertionError("dump truncated a mapped file")
assert doc.root[19_999] == 19_999 and roving.load(p)[19_999] == 19_999
del doc  # released: the file may be written in place again
roving.dump([1], f"/proc/self/fd/{{fd}}")
assert roving.load(p) == [1]
print("ok")
"""
    r = _run(code)
    assert (r.returncode, r.stdout.strip(), r.stderr) == (0, "ok", "")


def test_dump_to_a_name_too_long_for_the_temporary_file_keeps_a_mapped_file(
    tmp_path: Path,
) -> None:
    # The temporary file's name (".NAME.<hex>.tmp") is too long for a name
    # of 250 bytes, so dump fell back to writing in place, truncating the
    # mapped file: SIGBUS at the next read.
    p = tmp_path / ("n" * 250)
    code = f"""
import errno, roving
p = {str(p)!r}
roving.dump(list(range(20_000)), p)
doc = roving.open(p)
try:
    roving.dump([1], p)
except OSError as e:
    assert e.errno == errno.EBUSY and e.filename == p, e
else:
    raise AssertionError("dump truncated a mapped file")
assert doc.root[19_999] == 19_999
doc.close()  # no view was kept: the map is released
roving.dump([1], p)
assert roving.load(p) == [1]
print("ok")
"""
    r = _run(code)
    assert (r.returncode, r.stdout.strip(), r.stderr) == (0, "ok", "")


def test_a_view_keeps_the_file_counted_as_mapped(tmp_path: Path) -> None:
    p = tmp_path / ("v" * 250)
    roving.dump({"a": list(range(10_000))}, p)
    doc = roving.open(p)
    view = doc.root["a"]
    doc.close()
    del doc
    with pytest.raises(OSError) as e:
        roving.dump([1], p)
    assert e.value.errno == errno.EBUSY
    assert view[9_999] == 9_999
    del view
    roving.dump([1], p)
    assert roving.load(p) == [1]


def test_dump_through_a_symlink_loop_fails_as_builtins_open(tmp_path: Path) -> None:
    # realpath() of a loop ends at one of its links, which dump replaced by
    # a regular file (open(path, "wb") fails with ELOOP).
    a, b = tmp_path / "a", tmp_path / "b"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(OSError) as e:
        roving.dump([1], a)
    assert e.value.errno == errno.ELOOP
    assert a.is_symlink() and b.is_symlink()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a", "b"]


def test_dump_to_a_name_ending_in_a_slash_fails_as_builtins_open(tmp_path: Path) -> None:
    # "new/" names a folder: dump made a file "new" (and replaced "old" for
    # "old/"), where open(path, "wb") raises IsADirectoryError.
    old = tmp_path / "old"
    roving.dump([1], old)
    for name in ("new/", "old/"):
        with pytest.raises(IsADirectoryError):
            roving.dump([2], f"{tmp_path}/{name}")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["old"]
    assert roving.load(old) == [1]


class _BytesPath(os.PathLike[bytes]):
    def __init__(self, path: bytes) -> None:
        self.path = path

    def __fspath__(self) -> bytes:
        return self.path


def test_dump_and_load_take_a_bytes_path_like(tmp_path: Path) -> None:
    # dump raised "TypeError: a bytes-like object is required, not 'str'".
    p = _BytesPath(os.fsencode(tmp_path) + b"/b\xffytes.rov")
    roving.dump({"x": 1}, p)
    assert roving.load(p) == {"x": 1}
    assert os.listdir(os.fsencode(tmp_path)) == [b"b\xffytes.rov"]


def test_threads_dumping_to_one_path_leave_one_whole_document(tmp_path: Path) -> None:
    p = tmp_path / "shared.rov"
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for j in range(30):
                roving.dump({"i": i, "j": j, "pad": "x" * (i * 500)}, p)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    got = roving.load(p)
    assert got["j"] == 29 and got["pad"] == "x" * (got["i"] * 500)
    assert [x.name for x in tmp_path.iterdir()] == ["shared.rov"]  # no temporary file left


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to give the file to another user")
def test_dump_over_another_users_writable_file_in_a_sticky_folder() -> None:
    # In a sticky folder (/tmp) only a file's owner may rename over it:
    # dump's os.replace raised PermissionError (naming its temporary file),
    # where open(path, "wb") writes the file, which is writable by all.
    folder = Path(tempfile.mkdtemp())  # in /tmp, which user nobody can reach
    try:
        os.chmod(folder, 0o1777)
        p = folder / "shared.rov"
        roving.dump([1], p)
        os.chmod(p, 0o666)

        def child() -> int:
            roving.dump([2], p)
            return 0 if os.listdir(folder) == ["shared.rov"] else 3

        assert run_as_nobody(child) == 0
        assert roving.load(p) == [2] and p.stat().st_uid == 0
    finally:
        shutil.rmtree(folder)
