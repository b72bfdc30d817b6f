#!/usr/bin/env python3
"""Writes the Rust section of docs/BENCHMARKS.md from `cargo bench -p roving-bench`.

The section is the text between `<!-- bench-rust:start -->` and
`<!-- bench-rust:end -->`; the rest of the file (the tables of `roving
bench`, between the `bench` markers) is kept. A file without the markers
is replaced by a new one that has them.

Reads criterion's `<criterion dir>/<group>/<contender>/new/estimates.json`
(the median) and `<criterion dir>/roving-bench-sizes.json` (written by the
`peers` benchmark at the start of its run); the corpus section (target 5:
canada, citm_catalog and twitter as typed records) comes from the `corpus`
benchmark's groups and `<criterion dir>/roving-bench-corpus.json`, when
present. Standard library only.

    cargo bench -p roving-bench && python3 scripts/bench_report.py

Options: --criterion-dir DIR (default: target/criterion, or
$CARGO_TARGET_DIR/criterion), --out FILE (default docs/BENCHMARKS.md),
--allow-stale (also use results older than the last run's start).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "cargo bench -p roving-bench && python3 scripts/bench_report.py"
# (`cargo bench -p roving-bench` runs both benches: `peers` and `corpus`.)
RUST_START = "<!-- bench-rust:start -->"
RUST_END = "<!-- bench-rust:end -->"
NEW_FILE = """# Benchmarks

`make bench` runs both suites and rewrites the text between the markers
below: the seed experiments of `roving bench` (Python, beside the Python
peers; `python/roving/bench/readme.py`) and the Rust criterion benches
beside the Rust peers (`scripts/bench_report.py`). Do not edit them by hand.

## Python

<!-- bench:start -->
_No results yet: run `make bench`._
<!-- bench:end -->

## Rust

{start}
{rust}
{end}
"""


JSON_LEN = 1_010_316

# Fleece's own C++ figures, measured on this machine kind and quoted in the
# core issue (not measured by this benchmark).
FLEECE = {
    "size": 819_942,
    "json_to_format": 4.99e6,
    "validate": 259e3,
    "open_trusted": 2.9,
    "lookup_name": 48.0,
    "lookup_name_handle": 34.0,
}
FLEECE_LABEL = "Fleece (C++) — quoted from the issue, not measured here"

# group id -> (title, what is timed, {contender id: label})
GROUPS: list[tuple[str, str, str, dict[str, str]]] = [
    (
        "json_to_format",
        "JSON → format",
        "Minified JSON bytes in, the format's bytes out. Peers without a JSON "
        "path of their own parse into `serde_json::Value` (typed `Vec<Person>` "
        "for bitcode and rkyv, which have no dynamic value) and serialize that.",
        {
            "roving": "roving `json::from_json`",
            "roving_reuse": "roving `json::from_json_into` + `finish_reset` (encoder reused)",
            "serde_json_value": "serde_json `from_slice::<Value>` (parse only)",
            "simd-json": "simd-json `to_owned_value_with_buffers` (parse only; buffers reused, incl. copying the input)",
            "rmp-serde": "rmp-serde (via `serde_json::Value`)",
            "ciborium": "ciborium (via `serde_json::Value`)",
            "flexbuffers": "flexbuffers (via `serde_json::Value`)",
            "bitcode": "bitcode (via typed `Vec<Person>`)",
            "rkyv": "rkyv (via typed `Vec<Person>`)",
        },
    ),
    (
        "validate",
        "Validate",
        "The closest check each format has that does not build a tree: roving's "
        "linear validator (structure, and every string's UTF-8); `IgnoredAny` "
        "deserialization for the self-describing serde formats (a syntax check: "
        "serde_json's skips the bytes of each string without checking their UTF-8, "
        "rmp-serde's takes invalid UTF-8 as bytes); simd-json's tape (UTF-8 checked); rkyv's bytecheck "
        "(`rkyv::access`). FlexBuffers' `Reader::get_root` only checks the root, "
        "so it is listed under trusted open. bitcode has no check apart from decoding.",
        {
            "roving": "roving `validate`",
            "serde_json": "serde_json `from_slice::<IgnoredAny>` (JSON syntax; strings' UTF-8 not checked)",
            "simd-json": "simd-json `to_tape_with_buffers` (JSON; buffers reused, incl. copying the input)",
            "rmp-serde": "rmp-serde `from_slice::<IgnoredAny>`",
            "ciborium": "ciborium `from_reader::<IgnoredAny>`",
            "rkyv": "rkyv `access` (bytecheck)",
        },
    ),
    (
        "open_trusted",
        "Trusted open",
        "Reach the root of a buffer known to be good, without validating.",
        {
            "roving": "roving `unsafe Document::open_trusted` + `root()`",
            "flexbuffers": "flexbuffers `Reader::get_root` (+ root length)",
            "rkyv": "rkyv `unsafe access_unchecked` (+ len)",
        },
    ),
    (
        "lookup_name",
        "`[123].name` (plain)",
        "From an open document: element 123 of the root array, then key `name`, as `&str`.",
        {
            "roving": 'roving `root().index(123)?.get("name")`',
            "flexbuffers": 'flexbuffers `as_vector().idx(123).as_map().idx("name")`',
            "rkyv": "rkyv `archived[123].name` (typed field, no key lookup)",
            "serde_json_value": '`serde_json::Value` tree already in memory (`v[123]["name"]`)',
        },
    ),
    (
        "lookup_name_handle",
        "`[123].name` with a key handle",
        '`roving::KeyHandle::new("name")` is made once outside the loop; each '
        "iteration does `index(123)` then `map.get_with(&handle)`.",
        {
            "roving": "roving `get_with(&KeyHandle)`",
        },
    ),
    (
        "decode_value",
        "Full decode into `serde_json::Value`",
        "The whole document into a `serde_json::Value`. roving's `from_slice` "
        "validates first (included).",
        {
            "roving": "roving `from_slice::<Value>` (validates)",
            "serde_json": "serde_json `from_slice::<Value>` (JSON)",
            "simd-json": "simd-json `serde::from_slice_with_buffers::<Value>` (JSON; buffers reused, incl. copy)",
            "rmp-serde": "rmp-serde `from_slice::<Value>`",
            "ciborium": "ciborium `from_reader::<Value>`",
            "flexbuffers": "flexbuffers `from_slice::<Value>`",
        },
    ),
    (
        "decode_typed",
        "Full decode into typed structs (owned `String`s)",
        "`Vec<Person>` with serde field renames (bitcode and rkyv: their own "
        "derives). roving's `from_slice` validates first (included); rkyv's "
        "`from_bytes` checks and deserializes.",
        {
            "roving": "roving `from_slice::<Vec<Person>>` (validates)",
            "serde_json": "serde_json `from_slice` (JSON)",
            "simd-json": "simd-json `serde::from_slice_with_buffers` (JSON; buffers reused, incl. copy)",
            "rmp-serde": "rmp-serde `from_slice` (structs as arrays)",
            "ciborium": "ciborium `from_reader`",
            "flexbuffers": "flexbuffers `from_slice`",
            "bitcode": "bitcode `decode` (derive)",
            "rkyv": "rkyv `from_bytes` (bytecheck + deserialize)",
        },
    ),
    (
        "decode_typed_borrowed",
        "Full decode into typed structs (borrowed `&str`)",
        "`Vec<PersonRef<'_>>` whose strings point into the buffer, where the "
        "format allows it (JSON does not: `about` has escapes). rkyv: `access` "
        "with bytecheck gives the zero-copy archived records.",
        {
            "roving": "roving `from_slice::<Vec<PersonRef>>` (validates)",
            "rmp-serde": "rmp-serde `from_slice`",
            "flexbuffers": "flexbuffers `from_slice`",
            "bitcode": "bitcode `decode` (derive)",
            "rkyv": "rkyv `access` (bytecheck, zero-copy)",
        },
    ),
    (
        "encode_typed",
        "Encode from typed structs",
        "`&Vec<Person>` to a fresh `Vec<u8>`.",
        {
            "roving": "roving `to_vec`",
            "roving_reuse": "roving `serde::Serializer` + `finish_reset` (encoder reused)",
            "serde_json": "serde_json `to_vec`",
            "simd-json": "simd-json `serde::to_vec`",
            "rmp-serde": "rmp-serde `to_vec` (structs as arrays)",
            "rmp-serde_named": "rmp-serde `to_vec_named` (structs as maps)",
            "ciborium": "ciborium `into_writer`",
            "flexbuffers": "flexbuffers `to_vec`",
            "bitcode": "bitcode `encode` (derive)",
            "bitcode_reuse": "bitcode `Buffer::encode` + `to_vec` (derive, buffer reused)",
            "rkyv": "rkyv `to_bytes`",
        },
    ),
]

# The corpus benchmark (benches/corpus.rs): its files, and per operation the
# group prefix, title, roving's label, the peer of the target, how roving must
# compare ("<" faster, "<=" at most as slow), and the reference contenders.
CORPUS_META = "roving-bench-corpus.json"
CORPUS_FILES = ["canada", "citm_catalog", "twitter"]
CORPUS_OPS: list[tuple[str, str, str, str, str, str, dict[str, str]]] = [
    (
        "corpus_json",
        "JSON → roving",
        "`json::from_json`",
        "serde_json_value",
        "serde_json `from_slice::<Value>`",
        "<",
        {},
    ),
    (
        "corpus_encode",
        "typed encode",
        "`to_vec`",
        "rmp-serde_named",
        "rmp-serde `to_vec_named`",
        "<=",
        {"serde_json": "serde_json `to_vec`"},
    ),
    (
        "corpus_decode",
        "typed decode",
        "`from_slice` (validates)",
        "rmp-serde_named",
        "rmp-serde `from_slice` (named)",
        "<",
        {"serde_json": "serde_json `from_slice`"},
    ),
]


def corpus_groups() -> list[str]:
    return [f"{op[0]}_{f}" for op in CORPUS_OPS for f in CORPUS_FILES]


# "group/contender" -> 95% confidence interval of the median (ns), filled by load_results.
spread: dict[str, tuple[float, float]] = {}

PEERS = [
    "serde_json",
    "simd-json",
    "rmp-serde",
    "ciborium",
    "flexbuffers",
    "bitcode",
    "rkyv",
    "criterion",
]


def fmt_time(ns: float) -> str:
    if ns < 1e3:
        return f"{ns:.1f} ns" if ns < 100 else f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.1f} µs" if ns < 1e5 else f"{ns / 1e3:.0f} µs"
    if ns < 1e9:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.2f} s"


def fmt_ratio(r: float) -> str:
    return f"{r:.2f}×" if r < 100 else f"{r:.0f}×"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run(cmd: list[str]) -> str:
    try:
        return subprocess.run(
            cmd, capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def release_profile() -> str:
    """The workspace's `[profile.release]` settings (the bench profile inherits them)."""
    try:
        with open(ROOT / "Cargo.toml", "rb") as f:
            prof = tomllib.load(f).get("profile", {}).get("release", {})
    except OSError:
        return "release"
    return "release" + "".join(
        f", `{k} = {json.dumps(v)}`" for k, v in prof.items() if k != "debug"
    )


def lock_versions() -> dict[str, str]:
    """Versions of the peers from Cargo.lock."""
    out: dict[str, str] = {}
    try:
        text = (ROOT / "Cargo.lock").read_text()
    except OSError:
        return out
    for m in re.finditer(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"', text):
        if m.group(1) in PEERS:
            out.setdefault(m.group(1), m.group(2))
    return out


def load_results(
    crit: Path, started: float, allow_stale: bool, groups: list[str] | None = None
) -> tuple[dict, list[str]]:
    """{group: {contender: median ns}} and a list of stale results skipped
    (of ``groups``, by default those of GROUPS)."""
    results: dict[str, dict[str, float]] = {}
    stale: list[str] = []
    for group in groups if groups is not None else [g[0] for g in GROUPS]:
        gdir = crit / group
        if not gdir.is_dir():
            continue
        for bdir in sorted(gdir.iterdir()):
            est = bdir / "new" / "estimates.json"
            meta = bdir / "new" / "benchmark.json"
            if not est.is_file():
                continue
            try:
                name = json.loads(meta.read_text()).get("function_id") or bdir.name
            except (OSError, ValueError):
                name = bdir.name
            if est.stat().st_mtime + 1 < started and not allow_stale:
                stale.append(f"{group}/{name}")
                continue
            try:
                med = json.loads(est.read_text())["median"]
                point = float(med["point_estimate"])
                ci = med.get("confidence_interval", {})
                lo, hi = float(ci.get("lower_bound", point)), float(ci.get("upper_bound", point))
            except (OSError, ValueError, KeyError, TypeError) as e:
                sys.exit(f"bench_report: cannot read {est}: {e}")
            results.setdefault(group, {})[name] = point
            spread[f"{group}/{name}"] = (lo, hi)
    return results, stale


def table_for(
    group: str, labels: dict[str, str], res: dict[str, float], fleece: float | None
) -> list[str]:
    base = res.get("roving")
    lines = ["| contender | median | 95% CI of median | × roving |", "| --- | ---: | ---: | ---: |"]
    order = [k for k in labels if k in res] + sorted(k for k in res if k not in labels)
    for k in order:
        t = res[k]
        ratio = fmt_ratio(t / base) if base else "–"
        name = labels.get(k, k)
        if k == "roving":
            name = f"**{name}**"
        lo, hi = spread.get(f"{group}/{k}", (t, t))
        lines.append(f"| {name} | {fmt_time(t)} | {fmt_time(lo)} – {fmt_time(hi)} | {ratio} |")
    if fleece is not None:
        ratio = fmt_ratio(fleece / base) if base else "–"
        lines.append(f"| _{FLEECE_LABEL}_ | _{fmt_time(fleece)}_ | | _{ratio}_ |")
    return lines


def clock_line(meta: dict) -> str:
    clock = meta.get("clock", "wall")
    what = (
        "the benchmark thread's CPU time (user + system, `CLOCK_THREAD_CPUTIME_ID`), which leaves out "
        "time spent waiting for a CPU on a shared machine; every contender is single-threaded "
        "(`ROVING_BENCH_CLOCK=wall` measures wall time instead)"
        if clock == "cpu"
        else "wall time"
    )
    if meta.get("quick"):
        return (
            f"- Timings: criterion medians of {what}. **Quick run** (criterion `--quick`, as "
            "`roving bench --quick --rust` runs it): a few samples per benchmark, so medians are "
            "rough and intervals wide; these are not the reference figures (`make bench` makes those). "
            "`× roving` is the contender's time over roving's (above 1 = slower than roving)."
        )
    return (
        f"- Timings: criterion medians of {what}; 20 flat samples for millisecond work, 50 for "
        "nanosecond work. `× roving` is the contender's time over roving's (above 1 = slower than roving)."
    )


def load_line(meta: dict) -> str:
    """How busy the machine was during the run (other processes skew timings)."""
    parts = []
    other = meta.get("other_load")
    if isinstance(other, (int, float)):
        cpus = meta.get("cpus") or os.cpu_count() or 1
        parts.append(f"other processes used {other:.2f} of {cpus} cores on average during the run")
        if other > 0.25:
            parts.append(
                "**the machine was shared: timings are noisier and slower than on an idle machine "
                "(caches and memory bandwidth are shared even when the benchmark has a core of its own)**"
            )
    share = meta.get("self_share")
    if isinstance(share, (int, float)):
        parts.append(
            f"the benchmark process was on a CPU {min(share, 1.0) * 100:.0f}% of the wall time"
        )
    nice = meta.get("nice")
    if isinstance(nice, int) and nice != 0:
        parts.append(f"the benchmark ran at nice {nice}")
    la, lb = meta.get("loadavg_start"), meta.get("loadavg_end")
    if la or lb:
        parts.append(f"load average {la or '?'} at the start, {lb or '?'} at the end")
    return "- Load: " + "; ".join(parts) if parts else "- Load: unknown"


def verdict(ok: bool) -> str:
    return "**met**" if ok else "**missed**"


def targets(sizes: dict[str, int], r: dict[str, dict[str, float]]) -> list[str]:
    rows = ["| target | measured | verdict |", "| --- | --- | --- |"]

    def get(group: str, name: str) -> float | None:
        return r.get(group, {}).get(name)

    size = sizes.get("roving")
    if size:
        ratio = size / JSON_LEN
        limit = 0.70 * JSON_LEN
        rows.append(
            f"| size ≤ 0.70 × minified JSON ({limit:,.0f} B) | {size:,} B = {ratio:.3f} × JSON "
            f"({(limit - size) / JSON_LEN * 100:+.1f} points of JSON to spare) | {verdict(size <= limit)} |"
        )
    v = get("validate", "roving")
    if v is not None:
        limit = FLEECE["validate"] / 2
        rows.append(
            f"| validate ≤ ½ Fleece's 259 µs (≤ {fmt_time(limit)}) | {fmt_time(v)} = "
            f"{v / FLEECE['validate']:.2f} × Fleece | {verdict(v <= limit)} |"
        )
    h = get("lookup_name_handle", "roving")
    if h is not None:
        rows.append(
            f"| `[123].name` with a key handle ≤ 30 ns | {fmt_time(h)} | {verdict(h <= 30)} |"
        )
    p = get("lookup_name", "roving")
    if p is not None:
        rows.append(f"| `[123].name` plain ≤ 50 ns | {fmt_time(p)} | {verdict(p <= 50)} |")
    j, s = get("json_to_format", "roving"), get("json_to_format", "serde_json_value")
    if j is not None and s is not None:
        rows.append(
            f"| JSON → roving faster than `serde_json::from_slice::<Value>` | {fmt_time(j)} vs "
            f"{fmt_time(s)} ({s / j:.2f}× as fast) | {verdict(j < s)} |"
        )
    for group, what in (("encode_typed", "typed encode"), ("decode_typed", "typed decode")):
        me, rmp, bc = get(group, "roving"), get(group, "rmp-serde"), get(group, "bitcode")
        if me is None:
            continue
        if rmp is not None:
            rows.append(
                f"| {what} faster than rmp-serde | {fmt_time(me)} vs {fmt_time(rmp)} "
                f"({rmp / me:.2f}× as fast) | {verdict(me < rmp)} |"
            )
        if bc is not None:
            rows.append(
                f"| {what} within 2× of bitcode | {fmt_time(me)} vs {fmt_time(bc)} "
                f"({me / bc:.2f}× bitcode's time) | {verdict(me <= 2 * bc)} |"
            )
    b = get("decode_typed_borrowed", "roving")
    bb, br = get("decode_typed_borrowed", "bitcode"), get("decode_typed_borrowed", "rmp-serde")
    if b is not None and bb is not None and br is not None:
        rows.append(
            f"| (also) borrowed typed decode: faster than rmp-serde, within 2× of bitcode | "
            f"{fmt_time(b)} vs rmp-serde {fmt_time(br)}, bitcode {fmt_time(bb)} "
            f"({b / bb:.2f}× bitcode's time) | {verdict(b < br and b <= 2 * bb)} |"
        )
    return rows


def corpus_section(meta: dict, r: dict[str, dict[str, float]]) -> tuple[list[str], list[str]]:
    """The target rows and the section of the corpus benchmark (target 5)."""

    def rel(me: float, peer: float, op: str) -> bool:
        return me < peer if op == "<" else me <= peer

    target_rows: list[str] = []
    lines = [
        "### Corpus files, typed (target 5)",
        "",
        "`canada.json`, `citm_catalog.json` and `twitter.json` (serde-rs/json-benchmark's files, "
        "`data/corpus/`), minified, and as typed records with named fields "
        "(`crates/roving-bench/src/corpus/`, written from the data as json-benchmark defines them: "
        "canada's coordinates `Vec<Vec<(f64, f64)>>`, citm's maps keyed by id, twitter's optional "
        "fields as `Option`). From `cargo bench -p roving-bench --bench corpus`; the bench first "
        "checks that every timed decode gives the data back. serde_json runs with its default "
        "features (no `float_roundtrip`: its floats may be one ulp off; roving's are correctly rounded).",
        "",
        "| file | operation | roving | peer | peer ÷ roving | verdict | for reference |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for prefix, what, label, peer, peer_label, op, refs in CORPUS_OPS:
        verdicts: list[tuple[str, bool]] = []
        for f in CORPUS_FILES:
            res = r.get(f"{prefix}_{f}", {})
            me, other = res.get("roving"), res.get(peer)
            if me is None or other is None:
                continue
            ok = rel(me, other, op)
            verdicts.append((f, ok))
            ref = ", ".join(
                f"{lab} {fmt_time(res[k])} ({res[k] / me:.2f}×)"
                for k, lab in refs.items()
                if k in res
            )
            lines.append(
                f"| {f} | {what}: roving {label} vs {peer_label} | {fmt_time(me)} | "
                f"{fmt_time(other)} | {fmt_ratio(other / me)} | {verdict(ok)} | {ref} |"
            )
        if verdicts:
            cmp = "faster than" if op == "<" else "at most as slow as"
            target_rows.append(
                f"| {what} {cmp} {peer_label} on every corpus file (target 5) | "
                + ", ".join(f"{f}: {'met' if ok else 'missed'}" for f, ok in verdicts)
                + f" | {verdict(all(ok for _, ok in verdicts) and len(verdicts) == len(CORPUS_FILES))} |"
            )
    sizes = meta.get("sizes", {})
    if sizes:
        cols = [
            ("json", "minified JSON"),
            ("roving_json", "roving `from_json`"),
            ("roving_typed", "roving `to_vec`"),
            ("rmp-serde_named", "rmp-serde `to_vec_named`"),
            ("serde_json_typed", "serde_json `to_vec`"),
        ]
        lines += [
            "",
            "Sizes in bytes (× minified JSON):",
            "",
            "| file | " + " | ".join(lab for _, lab in cols) + " |",
            "| --- |" + " ---: |" * len(cols),
        ]
        for f in CORPUS_FILES:
            row = sizes.get(f)
            if not row:
                continue
            base = row.get("json") or 0
            cells = []
            for k, _ in cols:
                n = row.get(k)
                if n is None:
                    cells.append("–")
                else:
                    cells.append(f"{n:,} ({n / base:.3f})" if base else f"{n:,}")
            lines.append(f"| {f} | " + " | ".join(cells) + " |")
    lines.append("")
    return target_rows, lines


def with_rust_section(old: str | None, rust: str) -> str:
    """``old`` with the text between the Rust markers replaced by ``rust``,
    or a new file when ``old`` is None or has no markers."""
    i = old.find(RUST_START) if old else -1
    j = old.find(RUST_END, i) if old and i >= 0 else -1
    if old is None or i < 0 or j < 0:
        return NEW_FILE.format(start=RUST_START, rust=rust.rstrip(), end=RUST_END)
    return old[: i + len(RUST_START)] + "\n" + rust.rstrip() + "\n" + old[j:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_crit = (
        Path(os.environ["CARGO_TARGET_DIR"]) / "criterion"
        if os.environ.get("CARGO_TARGET_DIR")
        else ROOT / "target" / "criterion"
    )
    ap.add_argument(
        "--criterion-dir", type=Path, default=Path(os.environ.get("CRITERION_HOME", default_crit))
    )
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument(
        "--allow-stale", action="store_true", help="use results older than the last run's start too"
    )
    a = ap.parse_args()

    sizes_path = a.criterion_dir / "roving-bench-sizes.json"
    try:
        corpus_meta = json.loads((a.criterion_dir / CORPUS_META).read_text())
    except (OSError, ValueError):
        corpus_meta = None
    try:
        meta = json.loads(sizes_path.read_text())
    except (OSError, ValueError) as e:
        if corpus_meta is None:
            print(
                f"bench_report: cannot read {sizes_path} ({e}); run `cargo bench -p roving-bench` first",
                file=sys.stderr,
            )
            return 1
        # Only the corpus bench ran (`cargo bench -p roving-bench --bench corpus`).
        meta = {**corpus_meta, "sizes": []}
    started = float(meta.get("started_unix", 0))
    size_rows = meta.get("sizes", [])
    sizes = {row["id"]: int(row["bytes"]) for row in size_rows}
    spread.clear()
    results, stale = load_results(a.criterion_dir, started, a.allow_stale)
    corpus_rows: list[str] = []
    corpus_lines: list[str] = []
    if corpus_meta is not None:
        corpus_results, corpus_stale = load_results(
            a.criterion_dir,
            float(corpus_meta.get("started_unix", 0)),
            a.allow_stale,
            corpus_groups(),
        )
        results.update(corpus_results)
        stale += corpus_stale
        corpus_rows, corpus_lines = corpus_section(corpus_meta, corpus_results)
    if not results:
        print(f"bench_report: no results under {a.criterion_dir}", file=sys.stderr)
        return 1
    if stale:
        print(
            "bench_report: skipped results older than the last run (use --allow-stale to keep): "
            + ", ".join(stale),
            file=sys.stderr,
        )

    run_date = _dt.datetime.fromtimestamp(started or _dt.datetime.now().timestamp(), _dt.UTC)
    versions = lock_versions()
    out: list[str] = [
        "Generated by `scripts/bench_report.py` from the criterion results of `crates/roving-bench`; "
        "do not edit by hand. Every measured figure comes from one run, all contenders side by side.",
        "",
        f"- Command: `{COMMAND}` (the `bench-rust` make target)",
        f"- Run: {run_date:%Y-%m-%d %H:%M} UTC, commit `{meta.get('commit') or 'unknown'}`"
        + (" with uncommitted changes to the benchmarked code" if meta.get("dirty") else ""),
        f"- Machine: {os.cpu_count()} CPUs (nproc {run(['nproc'])}), {cpu_model()}, {platform.system()} {platform.release()}",
        f"- Toolchain: {run(['rustc', '--version'])}; bench profile ({release_profile()})",
        "- Peers: " + ", ".join(f"{k} {versions[k]}" for k in PEERS if k in versions),
        load_line(meta),
        f"- Data: `1000people.json` (1,000 records), minified to {JSON_LEN:,} bytes; "
        "every JSON benchmark starts from the minified bytes.",
        clock_line(meta),
        "- Fleece rows are Fleece's own C++ figures measured on this machine kind and quoted from the "
        "core issue, **not measured by this benchmark**. There is no Rust Fleece peer: the crates.io "
        "crate named `fleece` is an unrelated HTML tool, and the real bindings (`serde-fleece`, "
        "`couchbase-lite`, both on `couchbase-lite-core-sys`) do not build from crates.io alone: "
        "their build script clones the C++ sources from GitHub.",
        "",
        "### Targets (core issue)",
        "",
        *targets(sizes, results),
        *corpus_rows,
        "",
        "### Size",
        "",
        "| encoding | bytes | × minified JSON | × roving |",
        "| --- | ---: | ---: | ---: |",
    ]
    rv = sizes.get("roving")
    for row in size_rows:
        n = int(row["bytes"])
        if n <= 0:
            continue
        label = row.get("label", row["id"])
        if row["id"] == "roving":
            label = f"**{label}**"
        out.append(
            f"| {label} | {n:,} | {n / JSON_LEN:.3f} | {n / rv:.3f} |"
            if rv
            else f"| {label} | {n:,} | {n / JSON_LEN:.3f} | – |"
        )
    fl = FLEECE["size"]
    out.append(
        f"| _{FLEECE_LABEL}_ | _{fl:,}_ | _{fl / JSON_LEN:.3f}_ | _{fl / rv:.3f}_ |" if rv else ""
    )
    out.append("")
    for group, title, desc, labels in GROUPS:
        res = results.get(group)
        if not res:
            continue
        out += [f"### {title}", "", desc, "", *table_for(group, labels, res, FLEECE.get(group)), ""]
    out += corpus_lines
    if stale:
        out += ["", "Skipped (older than this run): " + ", ".join(f"`{s}`" for s in stale), ""]

    a.out.parent.mkdir(parents=True, exist_ok=True)
    old = a.out.read_text(encoding="utf-8") if a.out.exists() else None
    a.out.write_text(with_rust_section(old, "\n".join(out)), encoding="utf-8")
    print(f"bench_report: wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
