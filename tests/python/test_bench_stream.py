"""`roving bench --only stream --quick`: the record stream experiment runs,
round-trips every contender and gives its target rows (no timing asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_stream_quick(tmp_path: Path) -> None:
    out = tmp_path / "results"
    env = dict(os.environ)
    env["ROVING_NO_PROGRESS"] = "1"
    p = subprocess.run(
        [sys.executable, "-m", "roving", "bench", "--only", "stream", "--quick", "--no-chart"]
        + ["--out", str(out)],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")[-3000:]
    res = json.loads((out / "stream.json").read_text(encoding="utf-8"))
    assert res["experiment"] == "stream" and res["quick"] is True
    assert not {k: v for k, v in res["skipped"].items() if k.startswith("roving")}
    rows = {row[0]: row for t in res["tables"] for row in t["rows"]}
    assert "roving Writer / iter_load" in rows
    # 59-byte documents written against the stream's dictionary, 2-byte frames.
    assert float(rows["roving Writer / iter_load"][4]) < 62
    targets = [t for t in res["tables"] if t["title"].startswith("Target")]
    assert targets and len(targets[0]["rows"]) == 2
    assert all("not measured at this size" in r[-1] for r in targets[0]["rows"])
