"""The CLI on record streams (FORMAT.md section 24): ``roving validate``,
``dump``, ``get`` and ``stats`` read every record, report a torn last
record and name the offset of a damaged one; run as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import roving
from test_cli import one_error_line, run

RECORDS = [{"id": i, "name": f"n{i}", "tags": ["a", "b"][: i % 3]} for i in range(5)]


@pytest.fixture()
def stream(tmp_path: Path) -> Path:
    p = tmp_path / "log.rvs"
    with roving.Writer(p) as w:
        for r in RECORDS:
            w.write(r)
    return p


@pytest.fixture()
def torn(stream: Path) -> Path:
    data = stream.read_bytes()
    stream.write_bytes(data + data[5:12])  # the start of a frame: torn
    return stream


def test_validate(stream: Path) -> None:
    p = run("validate", str(stream))
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "ok" in out and "record stream of 5 records" in out
    assert run("validate", "-q", str(stream)).stdout == b""


def test_validate_reports_a_torn_record(torn: Path) -> None:
    p = run("validate", "-q", str(torn))
    assert p.returncode == 0, p.stderr
    assert "torn" in p.stdout.decode()


def test_validate_names_the_damaged_frame(stream: Path) -> None:
    data = bytearray(stream.read_bytes())
    frames, _ = roving._roving._frames(bytes(data))
    third = frames[2][1]
    data[third + 5] ^= 0xFF
    stream.write_bytes(bytes(data))
    line = one_error_line(run("validate", str(stream)))
    assert "damaged record stream" in line and f"byte {third}" in line


def test_dump(stream: Path) -> None:
    p = run("dump", str(stream))
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert out.count("record [") == 5 and "record [0] @5" in out
    assert 'name: str "n3"' in out
    p = run("dump", "--max-items", "2", str(stream))
    assert "… 3 more records" in p.stdout.decode()


def test_dump_json(stream: Path) -> None:
    p = run("dump", "--json", str(stream))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == RECORDS
    p = run("dump", "--json", "--indent", "0", str(stream))
    assert json.loads(p.stdout) == RECORDS


def test_dump_warns_of_a_torn_record(torn: Path) -> None:
    p = run("dump", "--json", str(torn))
    assert p.returncode == 0
    assert json.loads(p.stdout) == RECORDS
    err = p.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "torn" in err[0]


def test_get(stream: Path) -> None:
    p = run("get", str(stream), "[3].name")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == "n3"
    assert json.loads(run("get", str(stream), "[-1]").stdout) == RECORDS[-1]
    assert json.loads(run("get", str(stream), "$").stdout) == RECORDS
    line = one_error_line(run("get", str(stream), "[9]"))
    assert "out of range" in line and "5 records" in line
    line = one_error_line(run("get", str(stream), "name"))
    assert "record number" in line
    line = one_error_line(run("get", str(stream), "[1].nope"))
    assert "record [1]" in line and "nope" in line


def test_get_from_stdin(stream: Path) -> None:
    p = run("get", "-", "[2].id", stdin=stream.read_bytes())
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == 2


def test_stats(stream: Path) -> None:
    p = run("stats", str(stream))
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "record stream of 5 records" in out and "frame heads" in out
    st = json.loads(run("stats", "--json", str(stream)).stdout)
    frames, _ = roving._roving._frames(stream.read_bytes())
    heads = sum(end - off - len(p) for _, off, end, p, _ in frames)
    sizes = [len(f[3]) for f in frames if f[0] == "document"]
    dicts = sum(len(f[3]) for f in frames if f[0] == "dictionary")
    assert st["records"] == 5 and st["header"] == 5 and st["frame_heads"] == heads
    assert heads == sum(1 if len(f[3]) < 32 else 2 for f in frames)  # FORMAT.md 24.1
    assert st["record_bytes"]["total"] == sum(sizes)
    assert st["dictionary_frames"]["bytes"] == dicts
    assert st["bytes"] == 5 + heads + sum(sizes) + dicts
    assert st["torn"] is None


def test_stats_of_a_torn_stream(torn: Path) -> None:
    st = json.loads(run("stats", "--json", str(torn)).stdout)
    assert st["torn"] == {"offset": torn.stat().st_size - 7, "bytes": 7}


def test_get_from_a_pipe(stream: Path) -> None:
    # A FIFO is read once: get must not peek at its first bytes first.
    import os
    import threading

    fifo = stream.parent / "pipe"
    os.mkfifo(fifo)
    t = threading.Thread(target=fifo.write_bytes, args=(stream.read_bytes(),), daemon=True)
    t.start()
    p = run("get", str(fifo), "[1].name")
    t.join(timeout=30)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == "n1"
