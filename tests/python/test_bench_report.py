"""scripts/bench_report.py on a made-up criterion directory (no benchmark is run)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_report.py"


def _criterion_dir(tmp_path: Path, meta: dict) -> Path:
    crit = tmp_path / "criterion"
    crit.mkdir()
    meta = {"started_unix": time.time() - 5, "clock": "cpu", **meta}
    (crit / "roving-bench-sizes.json").write_text(json.dumps(meta))
    for name, ns in (("roving", 100_000.0), ("serde_json", 400_000.0)):
        new = crit / "validate" / name / "new"
        new.mkdir(parents=True)
        est = {
            "median": {
                "point_estimate": ns,
                "confidence_interval": {"lower_bound": ns, "upper_bound": ns},
            }
        }
        (new / "estimates.json").write_text(json.dumps(est))
        (new / "benchmark.json").write_text(json.dumps({"function_id": name}))
    return crit


def _report(tmp_path: Path, meta: dict) -> str:
    crit = _criterion_dir(tmp_path, meta)
    out = tmp_path / "BENCHMARKS.md"
    p = subprocess.run(
        [sys.executable, str(SCRIPT), "--criterion-dir", str(crit), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("quick", [True, False])
def test_a_quick_criterion_run_is_marked(tmp_path: Path, quick: bool) -> None:
    # `roving bench --quick --rust` runs `cargo bench -- --quick`: its few
    # samples must not pass for the reference figures in docs/BENCHMARKS.md.
    args = ["--bench", "validate/roving"] + (["--quick"] if quick else [])
    text = _report(tmp_path, {"quick": quick, "args": args})
    assert "| **roving `validate`** |" in text
    if quick:
        assert "**Quick run**" in text
        assert "20 flat samples" not in text
    else:
        assert "Quick run" not in text
        assert "20 flat samples" in text
