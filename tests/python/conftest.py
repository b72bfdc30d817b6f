"""Shared fixtures of the Python tests.

The extension must be built first (``maturin develop --release`` or
``pip install .``). The real-world document is ``1000people.json`` from
the repository's ``data/`` (or ``$ROVING_DATA``, a directory laid out the
same way).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _data_dir() -> Path:
    env = os.environ.get("ROVING_DATA")
    if env:
        return Path(env)
    return ROOT / "data"


DATA_DIR = _data_dir()


def json_to_neutral(text: str) -> Any:
    """Section 17.1's JSON mapping into the neutral notation: integers of any
    size, ``-0`` and numbers with a fraction or exponent as the nearest
    binary64, objects as maps with their keys in input order (duplicates
    kept: merging them is the encoder's job, section 8.5)."""

    def number(s: str) -> Any:
        if s == "-0":
            return float_neutral(-0.0)
        return {"int": str(int(s))}

    def float_neutral(f: float) -> Any:
        return {"float": struct.pack(">d", f).hex()}

    def obj(pairs: list[tuple[str, Any]]) -> Any:
        return {"map": [[k, v] for k, v in pairs]}

    return json.loads(
        text,
        parse_int=number,
        parse_float=lambda s: float_neutral(float(s)),
        object_pairs_hook=obj,
    )


def load_reference_reader() -> Any:
    """tests/reference/roving_ref.py, the outsider implementation of the
    format written from docs/FORMAT.md alone, as a module (loaded once)."""
    if "roving_ref" in sys.modules:
        return sys.modules["roving_ref"]
    path = ROOT / "tests" / "reference" / "roving_ref.py"
    spec = importlib.util.spec_from_file_location("roving_ref", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["roving_ref"] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def people_path() -> Path:
    p = DATA_DIR / "1000people.json"
    assert p.is_file(), f"{p} not found"
    return p


@pytest.fixture(scope="session")
def people(people_path: Path) -> Any:
    return json.loads(people_path.read_bytes())


@pytest.fixture(scope="session")
def people_bytes(people: Any) -> bytes:
    import roving

    return roving.dumps(people)


def same(a: Any, b: Any, path: str = "$") -> None:
    """Asserts ``a`` and ``b`` are equal *and* of the same types, floats
    compared by bits (NaN == NaN, 0.0 != -0.0)."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__} ({a!r} vs {b!r})"
    if isinstance(a, float):
        assert struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b)), (
            f"{path}: {a!r} != {b!r}"
        )
    elif isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: len {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{i}]")
    elif type(a).__name__ == "Decimal":
        assert str(a) == str(b), f"{path}: {a!r} != {b!r}"
    elif type(a).__name__ == "datetime":
        assert a.replace(tzinfo=None) == b.replace(tzinfo=None), f"{path}: {a!r} != {b!r}"
        assert a.utcoffset() == b.utcoffset(), f"{path}: {a!r} != {b!r}"
    elif type(a).__name__ == "time":
        # (Aware times compare by their UTC value, and fold is not compared.)
        assert a.replace(tzinfo=None) == b.replace(tzinfo=None), f"{path}: {a!r} != {b!r}"
        assert a.utcoffset() == b.utcoffset(), f"{path}: {a!r} != {b!r}"
        assert a.fold == b.fold, f"{path}: {a!r} != {b!r} (fold)"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def run_as_nobody(fn: Callable[[], int]) -> int:
    """Runs ``fn`` in a forked child, as user nobody when run as root (root
    may read and write any file), and returns the child's exit status: what
    ``fn`` returns, or 70 if it raised (written to stderr). A fork, not a new
    interpreter: nobody may not be able to read Python's library."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        status = 70
        try:
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            status = fn()
        except BaseException as e:
            sys.stderr.write(f"child: {type(e).__name__}: {e}\n")
        finally:
            os._exit(status)
    _, st = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(st)


def mypy_strict(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    """mypy --strict (no config file, no cache) of `source`, written to a
    file in `tmp_path`; skips the test where mypy is not installed."""
    pytest.importorskip("mypy")
    src = tmp_path / "checked.py"
    src.write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file=", str(src)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=tmp_path,
    )


def kill_writer(script: Path, store: Path, delay: float) -> int:
    """Runs the writer ``script`` on ``store`` (it prints ``ready`` once
    open, then a number after each flush has returned), kills it with
    SIGKILL ``delay`` seconds after its first flush returned, and returns
    the last number it printed."""
    import signal
    import time

    # Unbuffered pipes: `readline` on a raw pipe reads no further than the
    # newline, so the flushes printed after "ready" all reach
    # `communicate` (a buffered reader would keep some of them).
    child = subprocess.Popen(
        [sys.executable, str(script), str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    assert child.stdout is not None
    ready = child.stdout.readline().decode()
    assert ready.startswith("ready"), (ready, child.stderr.read() if child.stderr else "")
    # Kill after the writer's first flush has returned (so a loaded machine
    # cannot make every kill land during start-up).
    first = child.stdout.readline().decode()
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    out_b, err = child.communicate()
    assert child.returncode == -signal.SIGKILL, err
    lines = (first + out_b.decode()).split()
    assert lines, ("the writer never flushed", err)
    return int(lines[-1])


@pytest.fixture(scope="session")
def redis_cluster() -> Any:
    """A 3-master, 3-replica Redis Cluster on loopback ports for the whole
    session (``roving.bench.redis_cluster``). One that cannot start fails
    the tests that use it: they are never skipped."""
    from roving.bench.redis_cluster import RedisCluster

    cluster = RedisCluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()


def run_at_once(script: Path, argvs: list[list[str]], go: Path) -> None:
    """Runs `script` once per argument list, in processes that print
    "ready" and then wait for the file `go` (made here once all are ready,
    so that they run at once); fails if one fails."""
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for argv in argvs
    ]
    for p in procs:
        assert p.stdout is not None and p.stderr is not None
        line = p.stdout.readline()
        assert line == b"ready\n", (line, p.stderr.read().decode())
    go.touch()
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
