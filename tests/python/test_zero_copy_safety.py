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

import pytest
import roving

ROOT = Path(__file__).resolve().parents[2]


def run_isolated(code: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Runs `code` in a fresh interpreter; fails on a crash (a signal), a
    non-zero exit or a Rust panic (which PyO3 turns into PanicException)."""
    env = dict(os.environ)
    env.setdefault("ROVING_DATA", str(ROOT.parent / "shared" / "data"))
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


def _damaged_store_script(kind: str) -> str:
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

        value = [
            {{"name": f"p{{i}}", "friends": [{{"id": j, "name": f"f{{j}}"}} for j in range(i % 4)],
             "extra": {{"a": i, "b": -i}}}}
            for i in range(40)
        ]
        raw = roving.dumps(value)
        d = tempfile.mkdtemp()
        path = os.path.join(d, "s.db")
        with roving.Store(path) as s:
            s["k"] = value
        good = open(path, "rb").read()
        at = good.find(raw)
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
