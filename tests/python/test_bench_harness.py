"""The bench harness's paired timing, on a fake clock (no real timing).

Times are powers of two, so that the clock's sums are exact."""

from __future__ import annotations

import pytest
from roving.bench.harness import (
    Config,
    Experiment,
    Mismatch,
    check_equal,
    measure,
    measure_pair,
)

A = 2.0**-11
B = 2.0**-12


class FakeClock:
    """A clock that only moves when a timed function says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _cfg(clock: FakeClock, repeats: int = 5) -> Config:
    return Config(repeats=repeats, min_time=2**-6, max_number=1000, clock=clock, charts=False)


def test_measure_pair_alternates_and_takes_the_ratio_per_repeat() -> None:
    clock = FakeClock()
    calls: list[str] = []

    def a() -> None:
        calls.append("a")
        clock.now += A

    def b() -> None:
        calls.append("b")
        clock.now += B

    p = measure_pair(a, b, _cfg(clock))
    assert p.ratio == p.min == p.max == 2.0
    assert p.a.median == A and p.b.median == B
    assert p.a.repeats == p.b.repeats == 5
    # Loops sized to last min_time: 32 calls of a, 64 of b.
    assert (p.a.number, p.b.number) == (32, 64)
    # After the sizing calls, the repeats' loops alternate: a b, b a, a b, ...
    timed = "".join(calls[-5 * (32 + 64) :])
    i = 0
    for r in range(5):
        first, second = ("a", "b") if r % 2 == 0 else ("b", "a")
        n1 = 32 if first == "a" else 64
        n2 = 32 if second == "a" else 64
        assert timed[i : i + n1] == first * n1, (r, timed[i : i + n1])
        assert timed[i + n1 : i + n1 + n2] == second * n2, r
        i += n1 + n2
    assert i == len(timed)


def test_measure_pair_median_discounts_an_uneven_repeat() -> None:
    """A disturbance that hits one loop of one repeat moves the ratio of
    that repeat only; the median ratio stays that of the others."""
    clock = FakeClock()
    state = {"a_calls": 0}

    def a() -> None:
        state["a_calls"] += 1
        # Calls 80..95 of a are four times slower: half of the loop of a
        # in the second repeat (after 1 + 10 sizing calls and one loop of
        # 32) is disturbed.
        clock.now += 4 * B if 80 <= state["a_calls"] < 96 else B

    def b() -> None:
        clock.now += B

    p = measure_pair(a, b, _cfg(clock, repeats=7))
    assert p.ratio == 1.0
    assert p.max > 1.0 and p.min == 1.0


def test_measure_still_times_one_function() -> None:
    clock = FakeClock()

    def f() -> None:
        clock.now += B

    t = measure(f, _cfg(clock))
    assert t.median == t.min == t.max == B
    assert t.number == 64 and t.repeats == 5


def test_experiment_pair_records_both_and_survives_a_failure() -> None:
    clock = FakeClock()
    exp = Experiment("x", "x", "000", "", _cfg(clock))

    def a() -> None:
        clock.now += B

    def bad() -> None:
        raise ValueError("no")

    p = exp.pair("dumps", ("A", a), ("B", a))
    assert p is not None and p.ratio == 1.0
    ops = {(m.contender, m.op) for m in exp.measurements}
    assert ops == {("A", "dumps (paired with B)"), ("B", "dumps (paired with A)")}
    assert exp.pair("dumps", ("A", a), ("C", bad)) is None
    assert any("paired dumps failed: ValueError: no" in n for n in exp.notes)
    exp.skip("D", "missing")
    assert exp.pair("dumps", ("A", a), ("D", a)) is None


def test_check_equal_names_the_path_of_the_first_difference() -> None:
    check_equal({"a": [1, 2.5, None, True, "x", b"y"]}, {"a": [1, 2.5, None, True, "x", b"y"]})
    cases = [
        ({"a": [1, {"b": 2.0}]}, {"a": [1, {"b": 2}]}, "$.a[1].b: expected float, got int"),
        ({"a": [{"b": -0.0}]}, {"a": [{"b": 0.0}]}, "$.a[0].b: expected -0.0, got 0.0"),
        ([True], [1], "$[0]: expected bool, got int"),
        ({"x": {"y": "a"}}, {"x": {"y": "b"}}, "$.x.y: expected 'a', got 'b'"),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, "$: same keys, different order"),
        ([[1, 2]], [[1]], "$[0]: expected 2 items, got 1"),
    ]
    for expected, actual, message in cases:
        with pytest.raises(Mismatch) as e:
            check_equal(expected, actual)
        assert str(e.value) == message
