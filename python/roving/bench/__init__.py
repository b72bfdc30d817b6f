"""``roving bench``: the seed experiments, reproduced side by side.

Five experiments, one per seed (the write-ups the project started from), the
shared dictionary's, the corpus of JSON files and generated shapes, and the
scaling runs:

========================  ====  ==========================================
name                      seed  what
========================  ====  ==========================================
fleece                    004   1000people.json: size, convert, parse, look up
repository                000   BBItem flush/reload; issue 4's Store rows
archiver-20000-ints       001   20,000 ints, keyless and keyed
simpleobject              002   100,000 small objects, each to its own bytes
dictionary                002   SimpleObject and records with a shared dictionary
contacts                  003   two sets of strings
corpus                    -     JSON files and generated shapes vs peers
scaling                   -     cost per MB from 1 MB to 1 GB; the Store to 5M
========================  ====  ==========================================

Each experiment checks that every contender round-trips its data exactly,
then times it (warm-up, several repeats, median and min-max), prints
markdown tables and writes ``<out>/<name>.md``, ``.json`` and ``.png``.
``--rust`` also runs the Rust criterion benches and folds them in.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from .._argtypes import int_at_least
from . import (
    exp_archiver,
    exp_contacts,
    exp_corpus,
    exp_dictionary,
    exp_fleece,
    exp_repository,
    exp_scaling,
    exp_simpleobject,
)
from .harness import Config, Experiment, machine_info, quick_config
from .report import write_experiment

#: Experiment name -> run function, in the order they run.
EXPERIMENTS: dict[str, Callable[[Config], Experiment]] = {
    exp_fleece.NAME: exp_fleece.run,
    exp_repository.NAME: exp_repository.run,
    exp_archiver.NAME: exp_archiver.run,
    exp_simpleobject.NAME: exp_simpleobject.run,
    exp_dictionary.NAME: exp_dictionary.run,
    exp_contacts.NAME: exp_contacts.run,
    exp_corpus.NAME: exp_corpus.run,
    exp_scaling.NAME: exp_scaling.run,
}

ALIASES = {
    "archiver": exp_archiver.NAME,
    "ints": exp_archiver.NAME,
    "people": exp_fleece.NAME,
    "store": exp_repository.NAME,
    "simple": exp_simpleobject.NAME,
    "seed000": exp_repository.NAME,
    "seed001": exp_archiver.NAME,
    "seed002": exp_simpleobject.NAME,
    "dict": exp_dictionary.NAME,
    "seed003": exp_contacts.NAME,
    "seed004": exp_fleece.NAME,
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``roving bench``."""
    p.add_argument(
        "--quick",
        action="store_true",
        help="small sizes and few repeats: everything in under a minute",
    )
    p.add_argument(
        "--only",
        metavar="NAME",
        action="append",
        help="run only this experiment (repeatable): " + ", ".join(EXPERIMENTS) + ", or rust",
    )
    p.add_argument("--list", action="store_true", help="list the experiments and exit")
    p.add_argument(
        "--rust",
        action="store_true",
        help="also run the Rust criterion benches (cargo bench -p roving-bench) and fold them in",
    )
    p.add_argument(
        "--rust-existing",
        action="store_true",
        help="fold the existing docs/BENCHMARKS.md into the results without running cargo bench",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="where to write the results (default: bench/results under the repository, else ./bench-results)",
    )
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        default=None,
        help="directory holding 1000people.json (default: the repository's data/)",
    )
    p.add_argument(
        "--corpus",
        metavar="DIR",
        default=None,
        help="run the corpus experiment on the JSON files of DIR instead of the repository's "
        "corpus and generated shapes (an entry that is not a JSON file is skipped with its reason)",
    )
    p.add_argument(
        "--large",
        action="store_true",
        help="the scaling experiment also runs 1 GB documents and 5,000,000 Store records "
        "(needs about 20 GB of memory and tens of minutes)",
    )
    p.add_argument(
        "--repeats",
        type=int_at_least(1),
        default=None,
        metavar="N",
        help="timed repeats per measurement (default 7, quick 3)",
    )
    p.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with this process's CPU time instead of wall time (steadier on a busy machine; "
        "leaves out disk waits such as fsync)",
    )
    p.add_argument("--no-chart", action="store_true", help="do not draw the PNG charts")
    p.add_argument(
        "--readme",
        action="store_true",
        help="afterwards, write the tables into docs/BENCHMARKS.md between the bench markers",
    )


class BenchError(Exception):
    """A failure of the run itself, not of one experiment (one line of text)."""


def _check_out_dir(out: str) -> None:
    """Creates ``out`` and checks a file can be written there, before any
    experiment runs; raises BenchError if not."""
    try:
        os.makedirs(out, exist_ok=True)
        with tempfile.TemporaryFile(dir=out, prefix=".roving-bench-"):
            pass
    except OSError as e:
        raise BenchError(f"{out}: cannot write the results there: {e.strerror or e}") from None


def repo_root() -> str | None:
    """The roving repository this package runs from (editable install or
    the current directory), or None."""
    here = os.path.dirname(os.path.abspath(__file__))
    for start in (os.getcwd(), os.path.normpath(os.path.join(here, "..", "..", ".."))):
        d = os.path.abspath(start)
        while True:
            if os.path.isfile(os.path.join(d, "Cargo.toml")) and os.path.isdir(
                os.path.join(d, "crates", "roving")
            ):
                return d
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return None


def default_out_dir() -> str:
    root = repo_root()
    if root is not None:
        return os.path.join(root, "bench", "results")
    return os.path.join(os.getcwd(), "bench-results")


def resolve_names(only: list[str] | None) -> tuple[list[str], bool]:
    """Experiment names to run and whether ``rust`` was asked for; raises
    ValueError for an unknown name."""
    if not only:
        return list(EXPERIMENTS), False
    names, rust = [], False
    for raw in only:
        for part in raw.split(","):
            n = part.strip().lower()
            if not n:
                continue
            if n == "rust":
                rust = True
                continue
            n = ALIASES.get(n, n)
            if n not in EXPERIMENTS:
                raise ValueError(
                    f"unknown experiment {part!r} (choose from {', '.join(EXPERIMENTS)}, rust)"
                )
            if n not in names:
                names.append(n)
    return names, rust


def run(args: argparse.Namespace, progress: Callable[[str], None] | None = None) -> int:
    """Runs the benchmark as ``roving bench`` was told; returns the exit code."""
    if args.list:
        for name, fn in EXPERIMENTS.items():
            mod = sys.modules[fn.__module__]
            print(f"{name:22} {(mod.__doc__ or '').strip().splitlines()[0]}")
        print(f"{'rust':22} the Rust criterion benches (cargo bench -p roving-bench)")
        return 0
    names, rust = resolve_names(args.only)
    rust = rust or args.rust or args.rust_existing
    out = args.out or default_out_dir()
    if args.quick:
        cfg = quick_config()
    else:
        cfg = Config()
    if args.repeats:
        cfg.repeats = args.repeats
    cfg.out_dir = out
    cfg.data_dir = args.data_dir
    if args.corpus is not None:
        if not os.path.isdir(args.corpus):
            raise BenchError(f"{args.corpus}: --corpus needs a folder of JSON files")
        cfg.corpus_dir = args.corpus
    cfg.charts = not args.no_chart
    cfg.large = args.large
    if args.cpu_time:
        cfg.clock = time.process_time
        cfg.clock_name = "cpu"
    cfg.progress = progress
    _check_out_dir(out)
    machine = machine_info()
    print(f"# roving bench{' --quick' if args.quick else ''}\n")
    print(f"Machine: {_machine_line(machine)}. Date: {machine['date']}.\n")
    t0 = time.perf_counter()
    failed = []
    for name in names:
        cfg.note(f"{name}: starting")
        started = time.perf_counter()
        try:
            exp = EXPERIMENTS[name](cfg)
        except KeyboardInterrupt:
            raise
        except Exception as e:
            failed.append(name)
            print(f"## {name}\n\nFAILED: {type(e).__name__}: {e}\n", flush=True)
            if os.environ.get("ROVING_DEBUG"):
                raise
            continue
        exp.elapsed = time.perf_counter() - started
        paths = write_experiment(exp, machine, out, chart=cfg.charts)
        print(exp.markdown(machine), flush=True)
        cfg.note(
            f"{name}: done in {exp.elapsed:.1f} s, wrote {', '.join(os.path.basename(p) for p in paths.values())}"
        )
    if rust:
        from . import rust as rust_mod

        cfg.note("rust: cargo bench -p roving-bench")
        ok, text = rust_mod.run_rust(
            out, machine, quick=args.quick, run_cargo=not args.rust_existing
        )
        print(text, flush=True)
        if not ok:
            failed.append("rust")
    from . import readme

    summary = readme.write_summary(out)
    cfg.note(f"wrote {summary}")
    if args.readme:
        where = readme.update_readme(out)
        print(f"\nTables written to {where}", file=sys.stderr)
    total = time.perf_counter() - t0
    print(f"\n_Total time: {total:.1f} s. Results in {out}._")
    if failed:
        print(f"roving bench: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _machine_line(m: dict[str, Any]) -> str:
    from .harness import machine_line

    return machine_line(m)


def main(argv: list[str] | None = None) -> int:
    """``python -m roving.bench``: the same as ``roving bench``."""
    p = argparse.ArgumentParser(prog="roving bench", description=__doc__.split("\n\n")[0])
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return run(args)
    except ValueError as e:
        print(f"roving bench: error: {e}", file=sys.stderr)
        return 2
    except BenchError as e:
        print(f"roving bench: error: {e}", file=sys.stderr)
        return 1


def load_results(out_dir: str) -> list[dict[str, Any]]:
    """The experiment results found in ``out_dir``, in the standard order."""
    res = []
    for name in list(EXPERIMENTS) + ["rust"]:
        p = os.path.join(out_dir, f"{name}.json")
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as f:
                try:
                    res.append(json.load(f))
                except json.JSONDecodeError:
                    continue
    return res
