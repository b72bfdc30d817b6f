"""The type stubs match the extension module (mypy.stubtest)."""

from __future__ import annotations

import json
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


def test_namespace_is_the_public_api() -> None:
    # A fresh interpreter: other tests import submodules (roving.cli, ...).
    code = (
        "import json, roving; "
        "print(json.dumps([sorted(n for n in dir(roving) if not n.startswith('_')), "
        "sorted(roving.__all__)]))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    public, all_ = json.loads(r.stdout)
    assert public == all_
    for leaked in ["Any", "Callable", "IO", "Union", "os", "builtins", "annotations"]:
        assert leaked not in public
