"""roving.Store across processes: readers see only committed states while a
writer works; a second writer waits for the first and loses nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

try:
    from roving import Store  # type: ignore[attr-defined]
except ImportError:  # until roving/__init__.py exports it
    from roving._store import Store

KEYS = 30
BATCHES = 150

PRELUDE = r"""
import sys
sys.path[:0] = {paths!r}
from roving._store import Store
path = sys.argv[1]
"""

# Each flush rewrites every key with the batch number (and a payload whose
# size changes) and sets "batch": a reader must never see two batches mixed.
WRITER = (
    PRELUDE
    + r"""
s = Store(path)
for b in range(1, {batches} + 1):
    for k in range({keys}):
        s["k%02d" % k] = {{"batch": b, "pad": "x" * ((b * 37 + k) % 3000)}}
    s["batch"] = b
    s.flush()
s.close()
print("done", flush=True)
"""
)

READER = (
    PRELUDE
    + r"""
s = Store(path, readonly=True)
last = 0
states = 0
while True:
    s.reload()
    b = s.get("batch", 0)
    assert b >= last, ("went back", b, last)
    if b == 0:
        assert len(s) == 0, len(s)
    else:
        assert len(s) == {keys} + 1, len(s)
        for k, v in s.items():
            if k != "batch":
                assert v["batch"] == b, ("torn state", k, v["batch"], b)
                assert v["pad"] == "x" * ((b * 37 + int(k[1:])) % 3000)
        states += b != last
    last = b
    if b == {batches}:
        break
print("ok", states, flush=True)
"""
)


def script(tmp_path: Path, name: str, body: str) -> Path:
    import roving

    p = tmp_path / name
    p.write_text(
        body.format(paths=[str(Path(roving.__file__).parent.parent)], keys=KEYS, batches=BATCHES)
    )
    return p


def test_readers_see_only_committed_states(tmp_path: Path) -> None:
    path = tmp_path / "shared.rvs"
    Store(path).close()  # exists before the readers open it read-only
    reader = script(tmp_path, "reader.py", READER)
    writer = script(tmp_path, "writer.py", WRITER)
    readers = [
        subprocess.Popen(
            [sys.executable, str(reader), str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    w = subprocess.Popen(
        [sys.executable, str(writer), str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = w.communicate(timeout=120)
    assert w.returncode == 0, err
    seen = []
    for r in readers:
        out, err = r.communicate(timeout=120)
        assert r.returncode == 0, err
        assert out.startswith("ok"), out
        seen.append(int(out.split()[1]))
    print("states seen by each reader:", seen)
    assert all(n >= 1 for n in seen), seen
    with Store(path, readonly=True) as s:
        assert s["batch"] == BATCHES
    # this process, as a reader too
    s = Store(path, readonly=True)
    assert len(s) == KEYS + 1
    s.close()


SECOND_WRITER = (
    PRELUDE
    + r"""
tag = sys.argv[2]
s = Store(path)
for b in range(60):
    for k in range(10):
        s["%s-%02d-%02d" % (tag, b, k)] = {{"tag": tag, "b": b}}
    s.flush()
s.close()
print("done", flush=True)
"""
)


def test_two_writers_wait_for_each_other(tmp_path: Path) -> None:
    path = tmp_path / "shared.rvs"
    Store(path).close()
    prog = script(tmp_path, "w2.py", SECOND_WRITER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(prog), str(path), tag],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b", "c")
    ]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    with Store(path, readonly=True) as s:
        assert len(s) == 3 * 60 * 10
        assert s["b-59-09"] == {"tag": "b", "b": 59}


def test_processes_making_one_new_store_at_once_all_open_it(tmp_path: Path) -> None:
    # LMDB's set-up of a new file raced with another process's open of it:
    # that one could read the state before the first commit and fail with
    # "not a roving store (an LMDB file of another program)" (2 of 80 opens
    # by two processes at once). The store's making is now serialized.
    import roving

    pkg_dir = str(Path(roving.__file__).parent.parent)
    code = (
        f"import sys; sys.path[:0] = {[pkg_dir]!r}\n"
        "from roving._store import Store\n"
        "s = Store(sys.argv[1]); s[sys.argv[2]] = 1; s.close()\n"
    )
    for round_ in range(16):
        path = tmp_path / f"new{round_}.rvs"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, str(path), f"p{i}"],
                stderr=subprocess.PIPE,
            )
            for i in range(3)
        ]
        for p in procs:
            _, err = p.communicate(timeout=60)
            assert p.returncode == 0, (round_, err.decode())
        with Store(path, readonly=True) as s:
            assert dict(s) == {"p0": 1, "p1": 1, "p2": 1}
