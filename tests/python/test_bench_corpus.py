"""The corpus experiment: ``roving bench --corpus DIR`` on a user's folder,
its summary ratios, the harness's garbage collector (on), and the quick
run's verdicts for targets measured at another size."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from roving.bench import exp_corpus, exp_repository
from roving.bench.harness import (
    Config,
    Experiment,
    Timing,
    fmt_verdict,
    measure,
    measure_pair,
    quick_config,
)

ROOT = Path(__file__).resolve().parents[2]


def _bench(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env["ROVING_NO_PROGRESS"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "roving", "bench", *args],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )


def test_bench_corpus_dir_runs_the_good_files_and_skips_the_bad(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "small.json").write_text(json.dumps({"a": [1, 2.5, "x", None, True], "b": {}}))
    (corpus / "list.json").write_text(json.dumps([{"id": i, "name": f"n{i}"} for i in range(50)]))
    (corpus / "broken.json").write_text('{"a": [1, 2,')
    (corpus / "latin1.json").write_bytes(b'{"caf\xe9": 1}')
    (corpus / "empty.json").write_bytes(b"")
    (corpus / "sub").mkdir()
    out = tmp_path / "results"
    p = _bench(
        "--only", "corpus", "--corpus", str(corpus), "--quick", "--no-chart", "--out", str(out)
    )
    stdout = p.stdout.decode("utf-8", "replace")
    stderr = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr + stdout
    assert "FAILED" not in stdout

    res = json.loads((out / "corpus.json").read_text(encoding="utf-8"))
    assert res["params"]["files"] == ["list.json", "small.json"]
    titles = [t["title"] for t in res["tables"]]
    assert any(t.startswith("list.json") for t in titles), titles
    assert any(t.startswith("small.json") for t in titles), titles
    measured = {(m["contender"], m["op"]) for m in res["measurements"] if "median_s" in m}
    assert ("roving (small.json)", "loads") in measured, measured
    assert ("roving (list.json)", "dumps") in measured, measured
    # The generated shapes belong to the default corpus only.
    assert not any("generated" in t for t in titles), titles

    both = stdout + stderr
    for name, reason in (
        ("broken.json", "not JSON"),
        ("latin1.json", "not UTF-8"),
        ("empty.json", "empty"),
        ("sub", "not a regular file"),
    ):
        lines = [ln for ln in both.splitlines() if ln.startswith(f"corpus: skipped {name}: ")]
        assert len(lines) == 1, (name, both[-2000:])
        assert reason in lines[0], lines


def test_bench_corpus_dir_that_is_not_a_folder(tmp_path: Path) -> None:
    p = _bench(
        "--only", "corpus", "--corpus", str(tmp_path / "nope"), "--quick", "--out", str(tmp_path)
    )
    stderr = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 1
    assert "Traceback" not in stderr
    assert "--corpus needs a folder" in stderr


def _t(median: float) -> Timing:
    return Timing(median, median, median, 1, 1)


def test_ratios_and_targets_use_the_best_peer_and_the_worst_file() -> None:
    doc = exp_corpus.CorpusFile("f.json", [], "test")
    fr = exp_corpus._FileResults(doc)
    fr.rows["roving"] = exp_corpus._Result(size=105, dumps=_t(2.5), loads=_t(3.0))
    fr.rows["orjson"] = exp_corpus._Result(size=300, dumps=_t(2.0), loads=_t(4.0))
    fr.rows["msgspec.msgpack"] = exp_corpus._Result(size=100, dumps=_t(1.0), loads=_t(2.0))
    r = exp_corpus.ratios(fr)
    assert r == {"size": 1.05, "loads": 1.5, "dumps": 1.25}

    fr2 = exp_corpus._FileResults(exp_corpus.CorpusFile("g.json", [], "test"))
    fr2.rows["roving"] = exp_corpus._Result(size=50, dumps=_t(1.0), loads=_t(1.0))
    fr2.rows["orjson"] = exp_corpus._Result(size=300, dumps=_t(2.0), loads=_t(4.0))
    fr2.rows["msgspec.msgpack"] = exp_corpus._Result(size=100, dumps=_t(1.0), loads=_t(2.0))
    exp = Experiment("corpus", "t", "-", "d", Config(charts=False))
    exp_corpus._targets(exp, [fr, fr2])
    per, targets = exp.tables
    assert [row[0] for row in per.rows][-2:] == ["**worst file**", "**geometric mean**"]
    assert per.rows[-2][1] == "1.05x (f.json)"
    assert per.rows[-1][1] == "0.72x"  # sqrt(1.05 * 0.5)
    verdicts = {row[0]: row[-1] for row in targets.rows}
    assert verdicts["size vs msgspec.msgpack"] == "met"
    assert verdicts["dumps vs orjson.dumps"] == "met"
    assert (
        verdicts["loads vs the faster of orjson.loads and msgspec.msgpack.decode"] == "**missed**"
    )


def test_a_peer_that_fails_one_file_is_a_note_not_a_crash() -> None:
    exp = Experiment("corpus", "t", "-", "d", quick_config(charts=False))
    doc = exp_corpus.CorpusFile("f.json", {"x": 1.5}, "test")

    def bad_loads(b: bytes) -> object:
        return {"x": 1}

    res = exp_corpus._measure(exp, doc, "peer", lambda o: b"", bad_loads)
    assert res.size is None and res.dumps is None
    assert "round trip is not exact" in res.note
    ok = exp_corpus._measure(exp, doc, "same", lambda o: b"x", lambda b: {"x": 1.5})
    assert ok.size == 1 and ok.loads is not None


def test_measure_keeps_the_garbage_collector_on() -> None:
    """Every experiment times with the collector on, as users run: the
    warm-up, the calibration and the timed repeats, whatever the caller's
    setting, which is restored after; paired timings too."""
    seen: list[bool] = []
    cfg = quick_config(repeats=2)
    was = gc.isenabled()
    try:
        gc.disable()
        measure(lambda: seen.append(gc.isenabled()), cfg, single=True)
        assert not gc.isenabled()  # restored
        n = len(seen)
        measure_pair(lambda: seen.append(gc.isenabled()), lambda: None, cfg)
        assert not gc.isenabled()
        assert len(seen) > n
        gc.enable()
        measure(lambda: seen.append(gc.isenabled()), cfg, single=True, warmup=0)
        assert gc.isenabled()
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()
    assert seen and all(seen), seen


def test_fmt_verdict_at_another_size() -> None:
    assert fmt_verdict(False) == "**missed**"
    assert fmt_verdict(True) == "met"
    assert fmt_verdict(None) == "not measured"
    assert fmt_verdict(False, at_size=False) == "not measured at this size"
    assert fmt_verdict(True, at_size=False) == "not measured at this size"


def test_repository_quick_targets_are_not_missed_at_a_smaller_size() -> None:
    """Quick mode measures 1,000 items and a 20,000-item store: its target
    rows say so instead of **missed**; the full sizes still get verdicts."""

    def table(n: int, big: int) -> list[list[str]]:
        slow, fast = _t(1.0), _t(1e-3)
        res = {
            "roving.Store": {n: (slow, slow, None)},
            "shelve": {n: (fast, fast, None)},
            "plistlib (binary plist)": {n: (fast, fast, None)},
            "pickle file": {n: (fast, fast, None)},
        }
        one = {"roving.Store": (slow, slow), "pickle file": (fast, fast)}
        big_rows = {"roving.Store": {"open": slow, "get typed": slow, "get typed warm": slow}}
        exp = Experiment("repository", "t", "000", "d", quick_config(charts=False))
        exp_repository._targets(exp, res, one, big_rows, n, big, [100, n])
        return exp.tables[-1].rows

    quick = table(1_000, 20_000)
    assert all(row[-1] == "not measured at this size" for row in quick), quick
    full = table(10_000, 1_000_000)
    assert all(row[-1] == "**missed**" for row in full), full
