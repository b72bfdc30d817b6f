"""The latest benchmark tables, for docs/BENCHMARKS.md and bench/results/SUMMARY.md.

``python scripts/readme_tables.py`` (or ``python -m roving.bench.readme``,
or ``roving bench --readme`` after a run) reads ``bench/results/*.json``
and writes the tables into ``docs/BENCHMARKS.md`` between the markers
``<!-- bench:start -->`` and ``<!-- bench:end -->``; nothing else in that
file is touched (``scripts/bench_report.py`` writes its Rust section).
Without the markers it writes ``bench/results/SUMMARY.md`` only and says so.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

START = "<!-- bench:start -->"
END = "<!-- bench:end -->"

REPRODUCE = (
    "`make bench` on a fresh clone (it builds roving, installs the peers from "
    "`requirements-bench.txt` and runs `roving bench --rust`); or, with roving installed, "
    "`pip install -r requirements-bench.txt && roving bench` (`--quick` for a one-minute run, "
    "`--only NAME` for one experiment)"
)


def _table_md(t: dict[str, Any], *, notes: bool) -> str:
    cols = t["columns"]
    out = [f"#### {t['title']}", ""]
    out.append("| " + " | ".join(c.replace("|", "\\|") for c in cols) + " |")
    out.append("|" + "|".join([":---"] + ["---:"] * (len(cols) - 1)) + "|")
    for r in t["rows"]:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    if notes and t.get("notes"):
        out.append("")
        out.extend(f"- {n}" for n in t["notes"])
    return "\n".join(out) + "\n"


def render(
    results: list[dict[str, Any]],
    *,
    notes: bool,
    results_link: str = "bench/results",
    charts: bool = True,
    rust_tables: bool = True,
) -> str:
    """Markdown for every experiment in ``results`` (as ``load_results`` gives).
    Without ``rust_tables`` the Rust experiment is one line pointing to the
    Rust section that docs/BENCHMARKS.md has below the tables."""
    if not results:
        return "_No benchmark results yet: run `roving bench`._\n"
    from .harness import machine_line

    first = next((r for r in results if r.get("machine")), results[0])
    m = first.get("machine", {})
    dates = sorted({r["machine"]["date"] for r in results if r.get("machine")})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    quick = any(r.get("quick") for r in results)
    loads = [r["load_average"] for r in results if r.get("load_average") is not None]
    cpu = any(r.get("clock") == "cpu" for r in results)
    parts = [
        f"_Measured on {machine_line(m) if m else 'an unknown machine'}, {when}"
        + (
            " — **quick mode** (small sizes, few repeats): not the reference figures"
            if quick
            else ""
        )
        + (
            f"; load average {min(loads):.1f}–{max(loads):.1f} during the run "
            + (
                # The bench's own process counts about 1 in the load
                # average taken at each experiment's start.
                f"({m.get('cores', '?')} cores: other work was running, so spreads are wide)"
                if max(loads) > 1.5
                else "(about 1 of it is the bench itself)"
            )
            if loads
            else ""
        )
        + ("; times are this process's CPU time (`--cpu-time`), not wall time" if cpu else "")
        + f". Each cell: median of the repeats (min–max). Reproduce: {REPRODUCE}. "
        f"Details and notes: [{results_link}]({results_link}) (each run also draws a PNG chart per "
        "experiment there)._",
        "",
    ]
    pk = m.get("packages") if m else None
    if pk:
        parts.append("_Versions: " + ", ".join(f"{k} {v}" for k, v in pk.items()) + "._\n")
    for r in results:
        name = r.get("experiment", "?")
        title = r.get("title", name)
        parts.append(f"### {title}\n")
        if name == "rust":
            if not rust_tables:
                parts.append("In [the Rust section](#rust) below.\n")
                continue
            tabs = r.get("tables", [])[:2]
            for t in tabs:
                parts.append(_table_md(t, notes=False))
            parts.append("Full Rust results: [docs/BENCHMARKS.md](docs/BENCHMARKS.md).\n")
            continue
        for t in r.get("tables", []):
            parts.append(_table_md(t, notes=notes))
        if r.get("skipped"):
            parts.append(
                "Skipped: " + "; ".join(f"{k} ({v})" for k, v in r["skipped"].items()) + ".\n"
            )
        if charts and r.get("chart"):
            parts.append(f"Chart: [{results_link}/{r['chart']}]({results_link}/{r['chart']}).\n")
    return "\n".join(parts)


def write_summary(out_dir: str) -> str:
    """Writes ``<out_dir>/SUMMARY.md`` from the results there; returns its path."""
    from . import load_results

    results = load_results(out_dir)
    text = "# roving bench: latest results\n\nGenerated from the `.json` files beside this one; do not edit by hand.\n\n"
    text += render(results, notes=True, results_link=".")
    path = os.path.join(out_dir, "SUMMARY.md")
    os.makedirs(out_dir, exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return path


def replace_block(text: str, block: str) -> str | None:
    """``text`` with the bench block replaced, or None without markers."""
    i = text.find(START)
    j = text.find(END, i + len(START)) if i >= 0 else -1
    if i < 0 or j < 0:
        return None
    return text[: i + len(START)] + "\n" + block.rstrip("\n") + "\n" + text[j:]


def update_readme(out_dir: str, readme_path: str | None = None) -> str:
    """Writes the tables between the markers of ``readme_path`` (default
    docs/BENCHMARKS.md, the target of ``roving bench --readme``); returns
    what was written (that file, or SUMMARY.md when the markers are absent)."""
    from . import load_results, repo_root

    summary = write_summary(out_dir)
    if readme_path is None:
        root = repo_root() or os.getcwd()
        readme_path = os.path.join(root, "docs", "BENCHMARKS.md")
    results = load_results(out_dir)
    rel = os.path.relpath(out_dir, os.path.dirname(os.path.abspath(readme_path)))
    # The PNG charts are not committed (.gitignore): no links to them.
    block = render(
        results,
        notes=False,
        results_link=rel.replace(os.sep, "/"),
        charts=False,
        rust_tables=False,
    )
    try:
        with open(readme_path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return f"{summary} ({readme_path} does not exist)"
    new = replace_block(text, block)
    if new is None:
        return f"{summary} ({readme_path} has no {START} / {END} markers)"
    if new != text:
        with open(readme_path + ".tmp", "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(readme_path + ".tmp", readme_path)
    return readme_path


def main(argv: list[str] | None = None) -> int:
    from . import default_out_dir

    p = argparse.ArgumentParser(
        prog="readme_tables",
        description="Write the latest roving bench tables into docs/BENCHMARKS.md between "
        f"{START} and {END} (and bench/results/SUMMARY.md).",
    )
    p.add_argument(
        "--results",
        metavar="DIR",
        default=None,
        help="results directory (default: bench/results)",
    )
    p.add_argument(
        "--readme",
        metavar="FILE",
        default=None,
        help="file to update (default: docs/BENCHMARKS.md of the repository)",
    )
    args = p.parse_args(argv)
    out = args.results or default_out_dir()
    if not os.path.isdir(out):
        print(
            f"readme_tables: error: {out}: no results (run `roving bench` first)",
            file=sys.stderr,
        )
        return 1
    where = update_readme(out, args.readme)
    print(f"wrote {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
