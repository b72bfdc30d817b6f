"""Hostile and careless use of the zero-copy paths: buffers changed while
they are read, damaged bytes read trusted, views outliving their owners,
alignment of numpy vectors. Anything that might crash the interpreter runs
in a subprocess, so that a crash fails the test instead of killing pytest."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest
import roving

ROOT = Path(__file__).resolve().parents[2]


def run_isolated(code: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Runs `code` in a fresh interpreter; fails on a crash (a signal), a
    non-zero exit or a Rust panic (which PyO3 turns into PanicException)."""
    env = dict(os.environ)
    env.setdefault("ROVING_DATA", str(ROOT / "data"))
    env["RUST_BACKTRACE"] = "0"
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, f"exit {r.returncode}:\n{out[-3000:]}"
    assert "panicked" not in out and "PanicException" not in out, out[-3000:]
    return r


def test_typed_loads_of_a_buffer_changed_while_decoding() -> None:
    # A dataclass hook (or another thread while it runs) writes into the
    # bytearray being decoded, after loads validated it: no panic, no crash.
    run_isolated(
        """
        import dataclasses, random
        import roving

        rng = random.Random(2)
        ba = bytearray()

        @dataclasses.dataclass
        class Friend:
            id: int
            name: str

            def __post_init__(self) -> None:
                for _ in range(rng.choice([1, 4, 32]) if ba else 0):
                    ba[rng.randrange(len(ba))] = rng.randrange(256)

        @dataclasses.dataclass
        class P:
            name: str
            tags: list[str]
            friends: list[Friend]
            extra: dict[str, int]

        raw = roving.dumps([
            {"name": f"p{i}", "tags": ["a", "b"][: i % 3],
             "friends": [{"id": j, "name": f"f{j}"} for j in range(i % 4)],
             "extra": {"a": i, "b": -i}}
            for i in range(60)
        ])
        expected = roving.loads(raw, type=list[P])
        bad = (roving.RovingError, UnicodeDecodeError, KeyError, IndexError,
               TypeError, ValueError, OverflowError)
        for _ in range(400):
            ba[:] = raw
            try:
                got = roving.loads(ba, type=list[P])
            except bad:
                continue
            # The decoded value is that of the bytes as they were at the call.
            assert got == expected
        """
    )


#: The value `_damaged_store_script` stores by default: records of
#: dataclasses `P` (the script defines them) with nested `Friend`s.
_PEOPLE_VALUE = """[
    {"name": f"p{i}", "friends": [{"id": j, "name": f"f{j}"} for j in range(i % 4)],
     "extra": {"a": i, "b": -i}}
    for i in range(40)
]"""


def _damaged_store_script(
    kind: str, value: str = _PEOPLE_VALUE, start: str = "good.find(raw)"
) -> str:
    """A script that stores `value` (Python source) in a Store, then reads
    it trusted (`kind`: the Store's `type=`) from copies of the file
    damaged at random within the record, which starts at `start` (an
    expression of the file's bytes `good` and the document `raw`)."""
    return f"""
        import dataclasses, os, random, tempfile
        import roving

        @dataclasses.dataclass
        class Friend:
            id: int
            name: str

        @dataclasses.dataclass
        class P:
            name: str
            friends: list[Friend]
            extra: dict[str, int]

        value = {textwrap.indent(value, " " * 8).strip()}
        raw = roving.dumps(value)
        d = tempfile.mkdtemp()
        path = os.path.join(d, "s.db")
        with roving.Store(path) as s:
            s["k"] = value
        good = open(path, "rb").read()
        at = {start}
        assert at > 0
        rng = random.Random(5)
        bad = (roving.RovingError, UnicodeDecodeError, KeyError, IndexError,
               TypeError, ValueError, OverflowError)
        for _ in range(300):
            b = bytearray(good)
            for _ in range(rng.choice([1, 2, 4])):
                i = at + 3 + rng.randrange(len(raw) - 3)
                b[i] = rng.randrange(256)
            with open(path, "wb") as f:
                f.write(b)
            s = roving.Store(path, readonly=True, trusted=True, {kind})
            try:
                s["k"]
            except bad:
                pass
            s.close()
        """


@pytest.mark.parametrize("kind", ["type=list[P]", "type=list[dict[str, object]]", "type=None"])
def test_trusted_store_records_damaged_in_the_file(kind: str) -> None:
    # Store(trusted=True) reads records without validating them (documented:
    # a damaged record gives DecodeError or wrong values): never a panic.
    run_isolated(_damaged_store_script(kind))


def test_mapped_file_rewritten_while_decoding() -> None:
    # A file opened with validate=True is then read without checks; here it
    # is rewritten in place (as by another process) in the middle of
    # to_python(), at each Python call the decoder makes (uuid.UUID's
    # __init__), through a shared writable map: wrong values or a
    # DecodeError, never a panic or a crash.
    run_isolated(
        """
        import mmap, os, random, sys, tempfile, uuid
        import roving

        rng = random.Random(1)
        value = [{"id": uuid.UUID(int=i), "name": f"p{i}", "n": {"a": i, "b": [i, {"c": i}]}}
                 for i in range(80)]
        raw = roving.dumps(value)
        path = os.path.join(tempfile.mkdtemp(), "x.rov")
        bad = (roving.RovingError, UnicodeDecodeError, KeyError, IndexError,
               TypeError, ValueError, OverflowError)
        for _ in range(600):
            with open(path, "wb") as f:
                f.write(raw)
            doc = roving.open(path, validate=True)
            fd = os.open(path, os.O_RDWR)
            w = mmap.mmap(fd, 0)
            os.close(fd)
            budget = [rng.choice([1, 3, 10])]

            def hook(frame, event, arg):
                if event == "call" and budget[0] > 0 and frame.f_code.co_name == "__init__":
                    budget[0] -= 1
                    for _ in range(rng.choice([1, 4, 16])):
                        w[rng.randrange(3, len(raw) - 4)] = rng.randrange(256)

            sys.setprofile(hook)
            try:
                doc.to_python()
            except bad:
                pass
            finally:
                sys.setprofile(None)
            w.close()
            doc.close()
        """
    )


def test_vectors_of_store_views_are_aligned(tmp_path: Path) -> None:
    # LMDB places a record at any even (or odd) address, so a vector's data
    # in the map may be misaligned for its type: the numpy array must then
    # be an aligned (read-only) copy, never a misaligned view (section 9).
    np = pytest.importorskip("numpy")
    with roving.Store(tmp_path / "s.db") as s:
        for i in range(24):
            s[f"k{i}"] = {
                "pad": "x" * i,
                "f8": np.arange(5, dtype="<f8") + i,
                "i2": np.arange(3, dtype="<i2") - i,
                "u4": np.arange(4, dtype="<u4") * i,
            }
    with roving.Store(tmp_path / "s.db", readonly=True) as s:
        for i in range(24):
            doc = s.view(f"k{i}")
            for k, want in (
                ("f8", np.arange(5, dtype="<f8") + i),
                ("i2", np.arange(3, dtype="<i2") - i),
                ("u4", np.arange(4, dtype="<u4") * i),
            ):
                v = doc[k]
                assert v.flags.aligned, (i, k, v.ctypes.data)
                assert v.ctypes.data % v.itemsize == 0
                assert not v.flags.writeable
                assert np.array_equal(v, want)


@pytest.mark.parametrize(
    "ty, vals",
    [
        ("list[uuid.UUID]", [str(uuid.UUID(int=i)) for i in range(3)]),
        ("list[decimal.Decimal]", ["1.5", "2.25"]),
        ("list[datetime.date]", ["2020-01-02"]),
        ("list[datetime.datetime]", ["2020-01-02T03:04:05Z"]),
    ],
)
def test_trusted_store_strings_damaged_into_invalid_utf8(ty: str, vals: list[str]) -> None:
    # Typed reads parse these types from text; a trusted record whose text is
    # not UTF-8 any more must give an exception (UnicodeDecodeError), not a
    # PanicException or an abort.
    run_isolated(
        f"""
        import datetime, decimal, os, tempfile, uuid
        import roving

        vals = {vals!r}
        path = os.path.join(tempfile.mkdtemp(), "s.db")
        raw = roving.dumps(vals)
        with roving.Store(path) as s:
            s["k"] = vals
        good = open(path, "rb").read()
        at = good.find(raw)
        assert at > 0
        for where, byte in ((len(vals[0]) - 1, 0xE2), (0, 0xFF), (1, 0xC3)):
            b = bytearray(good)
            b[at + raw.find(vals[0].encode()) + where] = byte
            with open(path, "wb") as f:
                f.write(b)
            with roving.Store(path, readonly=True, trusted=True, type={ty}) as s:
                try:
                    s["k"]
                except (roving.RovingError, UnicodeDecodeError):
                    pass
                else:
                    raise AssertionError("damaged text decoded")
        """
    )


def test_trusted_open_of_a_damaged_real_document(tmp_path: Path, people_bytes: bytes) -> None:
    # The documented promise of trusted=True on bytes that are not a valid
    # document: reads stay inside the buffer and give wrong values or
    # DecodeError/UnicodeDecodeError (here: no crash, no panic, no other
    # exception), through views, numpy vectors and whole-value operations.
    np = pytest.importorskip("numpy")
    people = roving.loads(people_bytes)
    src = tmp_path / "doc.rov"
    src.write_bytes(
        roving.dumps(
            {"p": people[:150], "v": np.arange(40.0), "w": [np.arange(5, dtype="<i2")] * 3}
        )
    )
    run_isolated(
        f"""
        import random
        import numpy as np
        import roving

        base = open({str(src)!r}, "rb").read()
        rng = random.Random(11)
        ok = (roving.RovingError, UnicodeDecodeError, KeyError, IndexError, TypeError,
              ValueError)

        def walk(v, depth=0):
            if depth > 40:
                return
            if isinstance(v, roving.View):
                if v.kind == "map":
                    for _, x in v.items():
                        walk(x, depth + 1)
                else:
                    for x in v:
                        walk(x, depth + 1)
            elif isinstance(v, np.ndarray):
                assert v.flags.aligned and not v.flags.writeable
                v.sum()

        for _ in range(250):
            b = bytearray(base)
            for _ in range(rng.choice([1, 2, 8])):
                i = rng.randrange(len(b))
                b[i] = rng.randrange(256) if rng.random() < 0.5 else b[i] ^ (1 << rng.randrange(8))
            b = bytes(b)
            for op in ("walk", "to_python", "to_json", "eq", "path"):
                try:
                    doc = roving.open(b, trusted=True)
                    if op == "walk":
                        walk(doc.root)
                    elif op == "to_python":
                        doc.to_python()
                    elif op == "to_json":
                        doc.to_json()
                    elif op == "eq":
                        doc.root == {{"p": []}}
                    else:
                        doc.get_path("p[3].friends[1].name")
                except ok:
                    pass
        """
    )


def test_other_buffers_are_copied_at_open() -> None:
    np = pytest.importorskip("numpy")
    import array
    import mmap

    good = roving.dumps({"v": np.arange(6.0), "s": "text"})
    sources = [bytearray(good), array.array("B", good), np.frombuffer(good, "u1").copy()]
    m = mmap.mmap(-1, len(good))
    m[:] = good
    sources.append(m)
    for src in sources:
        doc = roving.open(src)
        v = doc["v"]
        view = memoryview(src).cast("B")
        view[:] = b"\x00" * len(good)  # the Doc has its own copy
        view.release()
        if isinstance(src, bytearray):
            src.extend(b"more")  # no export is held: resizing is allowed
            del src[:]
        assert doc["s"] == "text" and v.tolist() == list(range(6))
        assert doc.to_python()["s"] == "text"
    m.close()  # closing the mmap under the views is fine too
    assert v.sum() == 15.0


def test_zero_copy_exports_are_read_only(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    import ctypes

    path = tmp_path / "v.rov"
    path.write_bytes(roving.dumps({"v": np.arange(8.0)}))
    for doc in (roving.open(path), roving.open(path.read_bytes())):
        v = doc["v"]
        with pytest.raises(ValueError):
            v.flags.writeable = True
        with pytest.raises(ValueError):
            v[0] = 1.0
        buf = doc.buffer()
        assert buf.readonly
        with pytest.raises(TypeError):
            buf[0] = 0
        with pytest.raises(TypeError):
            ctypes.c_char.from_buffer(buf)
        with pytest.raises(ValueError):
            np.frombuffer(buf, "u1").setflags(write=True)  # numpy refuses too
        assert not np.frombuffer(v, "u1").flags.writeable


def test_views_and_vectors_outlive_their_store(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    import gc

    s = roving.Store(tmp_path / "s.db")
    s["k"] = {"v": np.arange(100.0), "m": {"a": [1, 2, 3]}}
    s.flush()
    doc = s.view("k")
    v, m = doc["v"], doc["m"]
    for i in range(20):  # rewrite the record and commit: the view keeps its snapshot
        s["k"] = {"v": np.zeros(100), "m": {"a": [i]}}
        s[f"x{i}"] = list(range(1000))
        s.flush()
    s.reload()
    s.close()
    del s, doc
    gc.collect()
    assert v.sum() == 4950.0 and m["a"].to_python() == [1, 2, 3]


def test_views_used_from_threads_while_others_drop_them(people_bytes: bytes) -> None:
    import threading

    errors: list[BaseException] = []
    start = threading.Barrier(5)

    def reader(holder: list[Any]) -> None:
        try:
            root = holder.pop()
            start.wait()
            for i in range(300):
                p = root[(i * 7) % 1000]
                assert p["index"] == (i * 7) % 1000
                it = iter(p["friends"])
                del p
                next(it)
            del root  # the last of the four references goes in some thread
        except BaseException as e:
            errors.append(e)

    root = roving.open(people_bytes).root
    threads = [threading.Thread(target=reader, args=([root],)) for _ in range(4)]
    del root
    for t in threads:
        t.start()
    start.wait()
    for t in threads:
        t.join()
    assert not errors


def test_the_safe_alternative_to_a_mapped_file_survives_truncation(tmp_path: Path) -> None:
    # roving.open(path) maps the file: truncating it under live views kills
    # the process with SIGBUS (documented). The documented alternative reads
    # the bytes once and is immune.
    assert "SIGBUS" in (roving.open.__doc__ or "")
    assert "read_bytes()" in (roving.open.__doc__ or "")
    run_isolated(
        f"""
        import os, pathlib
        import roving

        p = pathlib.Path({str(tmp_path / "t.rov")!r})
        p.write_bytes(roving.dumps({{"a": list(range(100000)), "b": "x" * 100000}}))
        doc = roving.open(p.read_bytes())
        a = doc["a"]
        os.truncate(p, 10)
        p.write_bytes(b"junk")
        assert a[99999] == 99999 and doc["b"] == "x" * 100000
        """
    )


def test_python_code_run_by_a_doc_operation_may_use_the_doc() -> None:
    # doc[key] runs key.__index__ (Python code): if that code uses or closes
    # the same Doc (or another thread does meanwhile), the Doc must not be
    # locked against it (a self-deadlock hung the interpreter).
    run_isolated(
        """
        import threading
        import roving

        doc = roving.open(roving.dumps([10, 20, 30]))

        class Closes:
            def __index__(self):
                assert doc[0] == 10 and len(doc) == 3
                doc.close()
                return 1

        assert doc[Closes()] == 20  # the operation started before close()
        assert doc.closed

        doc2 = roving.open(roving.dumps(list(range(100))))
        ev = threading.Event()

        class Waits:
            def __index__(self):
                ev.set()
                for _ in range(1000):  # runs bytecode: other threads get the GIL
                    pass
                return 5

        def other():
            ev.wait()
            for _ in range(200):
                doc2.get(1)
            doc2.close()

        t = threading.Thread(target=other)
        t.start()
        for _ in range(200):
            try:
                doc2[Waits()]
            except ValueError:  # closed by the other thread
                break
        t.join()
        """,
        timeout=60,
    )


def test_comparing_a_trusted_map_whose_key_is_not_utf8() -> None:
    # == walks the map's keys; a damaged key of a trusted document (or of a
    # mapped file rewritten after validation) must raise or compare unequal,
    # not panic in the str conversion.
    run_isolated(
        """
        import roving

        b = bytearray(roving.dumps({"ab": 1, "cd": [{"ef": 2}]}))
        for key, byte in ((b"ab", 0xFF), (b"ef", 0xC3), (b"cd", 0x80)):
            d = bytearray(b)
            d[d.find(key)] = byte
            doc = roving.open(bytes(d), trusted=True)
            try:
                assert not (doc.root == {"ab": 1, "cd": [{"ef": 2}]})
            except UnicodeDecodeError:
                pass
            try:
                assert doc.root != {"ab": 1, "cd": [{"ef": 2}]}
            except UnicodeDecodeError:
                pass
        """
    )


def test_replacing_a_mapped_file_keeps_its_views(tmp_path: Path) -> None:
    # The documented way to update a file that is open: write a new file and
    # os.replace() it over the old; the views keep reading the old one.
    assert "os.replace()" in (roving.open.__doc__ or "")
    run_isolated(
        f"""
        import os, pathlib
        import roving

        p = pathlib.Path({str(tmp_path / "r.rov")!r})
        p.write_bytes(roving.dumps({{"a": list(range(100000))}}))
        doc = roving.open(p)
        a = doc["a"]
        tmp = p.with_suffix(".new")
        tmp.write_bytes(roving.dumps({{"a": [1]}}))
        os.replace(tmp, p)
        assert a[99999] == 99999 and len(doc["a"]) == 100000
        assert roving.open(p)["a"].to_python() == [1]
        """
    )
