"""``roving bench --rust``: the Rust criterion benches, folded into the results.

Runs ``cargo bench -p roving-bench`` (its two benches: ``peers``, roving
beside the Rust serializers on 1000people.json, and ``corpus``, target 5 on
canada, citm_catalog and twitter as typed records) and
``scripts/bench_report.py`` (which writes ``docs/BENCHMARKS.md`` from
criterion's estimates, with each target's verdict), then copies that report
into ``<out>/rust.md`` and ``rust.json`` beside the Python experiments.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from typing import Any

from . import repo_root


def run_rust(
    out_dir: str, machine: dict[str, Any], *, quick: bool = False, run_cargo: bool = True
) -> tuple[bool, str]:
    """Returns (ok, markdown to print)."""
    root = repo_root()
    if root is None:
        return (
            False,
            "## rust\n\nSkipped: not run from a roving source tree (no Cargo.toml with crates/roving).\n",
        )
    log = []
    ok = True
    t0 = time.perf_counter()
    if run_cargo:
        cmd = ["cargo", "bench", "-p", "roving-bench"]
        if quick:
            # criterion's own quick mode; the report is still written.
            cmd += ["--", "--quick"]
        rc, tail = _run(cmd, root)
        log.append(f"`{' '.join(cmd)}` exited {rc}")
        if rc != 0:
            ok = False
            return (
                False,
                f"## rust\n\n`{' '.join(cmd)}` failed (exit {rc}):\n\n```\n{tail}\n```\n",
            )
        report = os.path.join(root, "scripts", "bench_report.py")
        if os.path.isfile(report):
            rc, tail = _run([sys.executable, report], root)
            log.append(f"`scripts/bench_report.py` exited {rc}")
            if rc != 0:
                ok = False
                return (
                    False,
                    f"## rust\n\n`scripts/bench_report.py` failed (exit {rc}):\n\n```\n{tail}\n```\n",
                )
    md_path = os.path.join(root, "docs", "BENCHMARKS.md")
    if not os.path.isfile(md_path):
        return (
            False,
            "## rust\n\ndocs/BENCHMARKS.md was not written: nothing to fold in.\n",
        )
    with open(md_path, encoding="utf-8") as f:
        text = f.read()
    body = fold(text)
    elapsed = time.perf_counter() - t0
    md = (
        "## rust (criterion): roving beside Rust's serializers\n\n"
        "Folded from `docs/BENCHMARKS.md` (written by `scripts/bench_report.py` from `cargo bench -p roving-bench`).\n\n"
        + body
    )
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "rust.md"), "w", encoding="utf-8") as f:
        f.write(md)
    data = {
        "experiment": "rust",
        "title": "rust (criterion): roving beside Rust's serializers",
        "machine": machine,
        "source": "docs/BENCHMARKS.md",
        "elapsed_s": round(elapsed, 1),
        "log": log,
        "tables": tables_of(body),
        "markdown": body,
    }
    with open(os.path.join(out_dir, "rust.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return ok, md


RUST_START = "<!-- bench-rust:start -->"
RUST_END = "<!-- bench-rust:end -->"


def fold(text: str) -> str:
    """The Rust section of BENCHMARKS.md (between the bench-rust markers,
    its headings already at the results' level); a file without the markers
    whole, with its headings pushed one level down and its title dropped."""
    i = text.find(RUST_START)
    j = text.find(RUST_END, i) if i >= 0 else -1
    if i >= 0 and j >= 0:
        return text[i + len(RUST_START) : j].strip() + "\n"
    lines = text.splitlines()
    out = []
    for line in lines:
        if line.startswith("# "):
            continue
        if line.startswith("#"):
            line = "#" + line
        out.append(line)
    return "\n".join(out).strip() + "\n"


def tables_of(md: str) -> list[dict[str, Any]]:
    """The markdown tables of ``md`` (title = the heading above each)."""
    tables = []
    title: str | None = None
    cur: dict[str, Any] | None = None
    for line in md.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            cur = None
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = {"title": title or "", "columns": cells, "rows": []}
                tables.append(cur)
            elif all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                continue
            else:
                cur["rows"].append(cells)
        else:
            cur = None
    return tables


def _run(cmd: list[str], cwd: str) -> tuple[int, str]:
    try:
        p = subprocess.run(
            cmd,
            check=False,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
    except FileNotFoundError:
        return 127, f"{cmd[0]}: not found"
    lines = p.stdout.splitlines()
    return p.returncode, "\n".join(lines[-30:])
