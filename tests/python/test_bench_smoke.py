"""`roving bench --quick` runs every experiment and writes its results (no timing assertions)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = [
    "fleece",
    "repository",
    "archiver-20000-ints",
    "simpleobject",
    "dictionary",
    "contacts",
    "corpus",
]


def test_bench_quick(tmp_path: Path) -> None:
    out = tmp_path / "results"
    env = dict(os.environ)
    env["ROVING_NO_PROGRESS"] = "1"
    p = subprocess.run(
        [sys.executable, "-m", "roving", "bench", "--quick", "--out", str(out)],
        capture_output=True,
        env=env,
        cwd=ROOT,  # the fleece experiment finds the repository's data/ from here
        timeout=600,
        check=False,
    )
    stdout = p.stdout.decode("utf-8", "replace")
    stderr = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr
    assert "FAILED" not in stdout

    for name in EXPERIMENTS:
        md = out / f"{name}.md"
        js = out / f"{name}.json"
        assert md.is_file(), name
        assert js.is_file(), name
        res = json.loads(js.read_text(encoding="utf-8"))
        assert res["experiment"] == name
        assert res["quick"] is True
        assert res["tables"], name
        # roving itself ran in every experiment (a peer may be missing, roving may not).
        roving_skips = {k: v for k, v in res["skipped"].items() if k.startswith("roving")}
        assert not roving_skips, (name, roving_skips)
        names = {row[0] for t in res["tables"] for row in t["rows"]}
        assert any(n.startswith("roving") for n in names), (name, names)
        assert any(
            m["contender"].startswith("roving") and "median_s" in m for m in res["measurements"]
        ), name
        text = md.read_text(encoding="utf-8")
        assert "| contender" in text or "| target" in text or "|  |" in text
        if name == "fleece":
            # Issue 3's targets, with roving's own dumps timed.
            assert "| dumps vs orjson.dumps |" in text
            assert any(
                m["contender"] == "roving (loads)" and m.get("op") == "dumps"
                for m in res["measurements"]
            ), [m for m in res["measurements"] if m["contender"].startswith("roving")][:3]
            if importlib.util.find_spec("orjson") is not None:
                # The ratio targets are timed paired with the peer.
                ops = {(m["contender"], m["op"]) for m in res["measurements"]}
                assert ("roving (loads)", "dumps (paired with orjson)") in ops, ops
                assert ("orjson", "loads (paired with roving (loads))") in ops, ops
                assert "), paired;" in text
        if name == "repository":
            # The big store is also opened with populate=True (open and
            # first gets), beside the plain open.
            ops = {(m["contender"], m["op"]) for m in res["measurements"]}
            populated = {op for c, op in ops if c == "roving.Store (populate=True)"}
            assert any(op.startswith("open") for op in populated), ops
            assert any(op.startswith("random get") for op in populated), ops
            assert "roving.Store (populate=True)" in text
        assert name.split("-")[0] in stdout
    summary = out / "SUMMARY.md"
    assert summary.is_file()
    assert "###" in summary.read_text(encoding="utf-8")


def test_readme_tables(tmp_path: Path) -> None:
    """scripts/readme_tables.py replaces only the text between the markers."""
    from roving.bench import readme

    res = tmp_path / "results"
    res.mkdir()
    (res / "contacts.json").write_text(
        json.dumps(
            {
                "experiment": "contacts",
                "title": "contacts (seed 003)",
                "machine": {
                    "date": "2026-01-01 00:00 UTC",
                    "cpu": "cpu",
                    "cores": 2,
                    "os": "Linux",
                    "python": "CPython 3.11",
                },
                "quick": False,
                "tables": [
                    {
                        "title": "T",
                        "columns": ["contender", "x"],
                        "rows": [["roving", "1 ms"]],
                        "notes": [],
                    }
                ],
                "skipped": {},
            }
        )
    )
    rd = tmp_path / "README.md"
    rd.write_text("# Title\n\nbefore\n\n<!-- bench:start -->\nold\n<!-- bench:end -->\n\nafter\n")
    where = readme.update_readme(str(res), str(rd))
    assert where == str(rd)
    text = rd.read_text()
    assert text.startswith("# Title\n\nbefore\n\n<!-- bench:start -->\n")
    assert text.endswith("<!-- bench:end -->\n\nafter\n")
    assert "old" not in text
    assert "| roving | 1 ms |" in text
    assert "2026-01-01" in text
    # Idempotent.
    readme.update_readme(str(res), str(rd))
    assert rd.read_text() == text
    # Without markers: README untouched, SUMMARY.md written.
    rd.write_text("# no markers\n")
    where = readme.update_readme(str(res), str(rd))
    assert "SUMMARY.md" in where
    assert rd.read_text() == "# no markers\n"
    assert "| roving | 1 ms |" in (res / "SUMMARY.md").read_text()
