"""The profile-guided build: its training script still runs (and its round
trips hold) on the installed build, whichever kind it is, so that a change
of the API cannot break `make py-build` unnoticed under `PGO=0`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import roving

ROOT = Path(__file__).resolve().parent.parent.parent


def test_training_script_runs() -> None:
    env = dict(os.environ, ROVING_PGO_ROUNDS="1")
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pgo_train.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]


def test_build_kind_is_reported() -> None:
    from roving import _roving

    assert _roving._build in {"pgo", "plain", "instrumented"}
    # The bench reports say which build they timed.
    from roving.bench.harness import machine_info, machine_line

    info = machine_info()
    assert info["roving_build"] == _roving._build
    assert ("profile-guided" in machine_line(info)) == (_roving._build == "pgo")
    assert roving.loads(roving.dumps([1])) == [1]
