"""The scaling experiment: its documents, its Store measurements and its targets table."""

from __future__ import annotations

import json
import random
from pathlib import Path

from roving.bench import exp_scaling
from roving.bench.harness import quick_config

PEOPLE = [
    {"name": "Ada", "age": 36, "tags": ["x", "y"], "score": 1.5, "ok": True, "none": None},
    {"name": "Bob", "age": 41, "tags": [], "score": -2.0, "ok": False, "none": None},
]


def test_a_perturbed_copy_adds_k_to_ints_and_appends_it_to_about_half_the_strings() -> None:
    rng = random.Random(0)
    strings = [f"s{i}" for i in range(2000)]
    copy = exp_scaling.perturbed_copy({"n": 5, "b": True, "f": 1.5, "s": strings}, 7, rng)
    assert copy["n"] == 12
    assert copy["b"] is True and copy["f"] == 1.5
    changed = sum(1 for a, b in zip(strings, copy["s"], strict=True) if a != b)
    assert all(b in (a, a + "7") for a, b in zip(strings, copy["s"], strict=True))
    assert 800 < changed < 1200


def test_scaled_people_reaches_the_size_and_starts_with_the_original() -> None:
    target = 20_000
    data = exp_scaling.scaled_people(PEOPLE, target)
    assert data[: len(PEOPLE)] == PEOPLE
    size = len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
    assert target <= size < target + 200
    assert data == exp_scaling.scaled_people(PEOPLE, target)  # deterministic


def test_pending_memory_is_measured_in_a_child(tmp_path: Path) -> None:
    n = exp_scaling.pending_memory(str(tmp_path / "p.rv"), 2_000)
    assert n is None or n >= 0


def test_the_quick_run_has_the_tables_and_targets() -> None:
    cfg = quick_config(charts=False)
    exp = exp_scaling.run(cfg)
    titles = [t.title for t in exp.tables]
    assert titles[0].startswith("ms per MB")
    assert "the Store against the number of records" in titles
    targets = exp.tables[-1]
    assert targets.title == "targets"
    flat = [r for r in targets.rows if "cost per MB" in r[0]]
    assert len(flat) == 4
    # --quick stops at 2 MB: the 1 GB targets are not judged.
    assert all(r[-1] == "not measured at this size" for r in flat), flat
    assert exp.lines and exp.lines[0][1]["roving.dumps"]
