"""The type stubs match the extension module (mypy.stubtest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ALLOWLIST = Path(__file__).with_name("stubtest-allowlist.txt")


def test_stubtest() -> None:
    pytest.importorskip("mypy")
    env = dict(os.environ)
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "roving._roving", "--allowlist", str(ALLOWLIST)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
