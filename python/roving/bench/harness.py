"""Timing, exact round-trip checks and result tables for ``roving bench``.

Every experiment builds an :class:`Experiment`: it verifies each contender
first (the decoded data must equal the original exactly, types included),
then times the operations with :func:`measure` and fills markdown tables.
A contender that cannot run (a missing library, a failed round trip, an
API the installed ``roving`` lacks) is skipped with a note instead of
stopping the run.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gc
import math
import os
import platform
import statistics
import struct
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

# ---------------------------------------------------------------------------
# configuration


@dataclass
class Config:
    """Settings shared by all experiments of one run."""

    quick: bool = False
    repeats: int = 7
    #: A repeat of a fast operation loops until it has run at least this long.
    min_time: float = 0.05
    #: A repeat is never longer than this many calls.
    max_number: int = 1_000_000
    out_dir: str = "bench/results"
    data_dir: str | None = None
    #: ``--corpus DIR``: the corpus experiment's JSON files (default: the repository's).
    corpus_dir: str | None = None
    #: ``--large``: the scaling experiment adds 1 GB documents and 5M Store records.
    large: bool = False
    charts: bool = True
    #: The clock: wall time (default), or this process's CPU time (``--cpu-time``),
    #: which other work on a shared machine disturbs less but which leaves out
    #: waiting for the disk (fsync) and for other processes.
    clock: Callable[[], float] = time.perf_counter
    clock_name: str = "wall"
    progress: Callable[[str], None] | None = None

    def note(self, msg: str) -> None:
        """Reports progress (stderr on a terminal), if a reporter is set."""
        if self.progress is not None:
            self.progress(msg)


def quick_config(**kw: Any) -> Config:
    """A configuration for ``--quick``: few repeats, short loops."""
    base: dict[str, Any] = {
        "quick": True,
        "repeats": 3,
        "min_time": 0.005,
        "max_number": 20_000,
    }
    base.update(kw)
    return Config(**base)


# ---------------------------------------------------------------------------
# timing


@dataclass
class Timing:
    """Seconds per call: median of the repeats, and their min and max."""

    median: float
    min: float
    max: float
    repeats: int
    number: int

    @staticmethod
    def of(times: list[float], number: int) -> Timing:
        """The timing of ``times`` (seconds per call, one per repeat)."""
        return Timing(
            median=statistics.median(times),
            min=min(times),
            max=max(times),
            repeats=len(times),
            number=number,
        )

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class Skip(Exception):
    """Raised by a contender that cannot run here; the message says why."""


def measure(
    fn: Callable[[], Any],
    cfg: Config,
    *,
    setup: Callable[[], Any] | None = None,
    repeats: int | None = None,
    warmup: int = 1,
    single: bool = False,
) -> Timing:
    """Times ``fn()``: warm-up, then ``repeats`` timed repeats.

    Fast calls are looped (``number`` calls per repeat, chosen so that a
    repeat lasts at least ``cfg.min_time``) and reported per call. With
    ``setup`` (run before every call, outside the timing) or ``single``,
    each repeat is exactly one call. The garbage collector is collected
    before each repeat and stays enabled during it, as in a user's program
    (unlike :mod:`timeit`): the collections that the allocations trigger
    are part of the time, for roving and the peers alike.
    """
    repeats = repeats or cfg.repeats
    if setup is not None:
        single = True
    number = _loop_number(fn, cfg, setup=setup, warmup=warmup, single=single)
    times = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        times.append(_time_batch(fn, number, cfg.clock) / number)
    return Timing.of(times, number)


def _loop_number(
    fn: Callable[[], Any],
    cfg: Config,
    *,
    setup: Callable[[], Any] | None = None,
    warmup: int = 1,
    single: bool = False,
) -> int:
    """Runs the warm-up calls of ``fn`` and returns how many calls a repeat
    loops over: enough to last ``cfg.min_time`` (at most ``cfg.max_number``),
    or 1 if ``single``."""
    # The warm-up calls are timed too: the last one sizes the loop.
    t = 0.0
    for _ in range(max(1, warmup)):
        if setup is not None:
            setup()
        t = _time_batch(fn, 1, cfg.clock)
    number = 1
    if not single and t < cfg.min_time:
        number = int(min(cfg.max_number, max(1, math.ceil(cfg.min_time / max(t, 1e-9)))))
        # A better estimate once the loop is longer.
        if number > 10:
            t10 = _time_batch(fn, 10, cfg.clock) / 10
            number = int(min(cfg.max_number, max(1, math.ceil(cfg.min_time / max(t10, 1e-9)))))
    return number


@dataclass
class Paired:
    """Two operations timed in alternation (see :func:`measure_pair`).

    ``ratio`` is the median over the repeats of (time of ``a``) / (time of
    ``b``) within the repeat; ``min`` and ``max`` are the extreme ratios.
    """

    ratio: float
    min: float
    max: float
    a: Timing
    b: Timing


def measure_pair(
    a: Callable[[], Any],
    b: Callable[[], Any],
    cfg: Config,
    *,
    repeats: int | None = None,
) -> Paired:
    """Times ``a`` and ``b`` in alternation, for the ratio of their times.

    Each repeat times one loop of ``a`` and one of ``b``, back to back, in
    an order that alternates (a b, b a, ...), and takes the ratio within the
    repeat. On a shared, noisy machine a disturbance then falls on both
    loops of a repeat rather than on whichever operation was being timed
    when it came, as happens when one is timed after the other; the median
    of the ratios discounts the repeats it hit unevenly.
    """
    repeats = repeats or cfg.repeats
    na = _loop_number(a, cfg)
    nb = _loop_number(b, cfg)
    ta: list[float] = []
    tb: list[float] = []
    for r in range(repeats):
        if r % 2 == 0:
            ta.append(_time_batch(a, na, cfg.clock) / na)
            tb.append(_time_batch(b, nb, cfg.clock) / nb)
        else:
            tb.append(_time_batch(b, nb, cfg.clock) / nb)
            ta.append(_time_batch(a, na, cfg.clock) / na)
    ratios = [x / y for x, y in zip(ta, tb, strict=True)]
    return Paired(
        ratio=statistics.median(ratios),
        min=min(ratios),
        max=max(ratios),
        a=Timing.of(ta, na),
        b=Timing.of(tb, nb),
    )


def _time_batch(
    fn: Callable[[], Any],
    number: int,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Times ``number`` calls of ``fn`` after a collection, with the garbage
    collector enabled (whatever the caller's setting, restored after)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        if number == 1:
            t0 = clock()
            fn()
            return clock() - t0
        rng = range(number)
        t0 = clock()
        for _ in rng:
            fn()
        return clock() - t0
    finally:
        if not was_enabled:
            gc.disable()


# ---------------------------------------------------------------------------
# exact equality


class Mismatch(Exception):
    """Raised by :func:`check_equal` with the path of the first difference."""


def check_equal(expected: Any, actual: Any, path: str = "$") -> None:
    """Checks ``actual`` is exactly ``expected``: same types (bool is not int,
    tuple is not list), floats bit for bit, dict keys in the same order.
    Raises :class:`Mismatch` naming the path of the first difference."""
    _check_equal(expected, actual, (path,))


#: A path into the data, built only when a difference is reported:
#: ``(text,)`` or ``(parent, text)``.
_Path = tuple[Any, ...]

#: Types compared with ``==`` alone once their types are the same.
_PLAIN = frozenset({str, int, bool, type(None), bytes})


def _path_text(p: _Path) -> str:
    parts: list[str] = []
    while len(p) == 2:
        p, text = p
        parts.append(text)
    parts.append(p[0])
    return "".join(reversed(parts))


def _check_equal(expected: Any, actual: Any, where: _Path) -> None:
    te, ta = type(expected), type(actual)
    if te is not ta:
        raise Mismatch(f"{_path_text(where)}: expected {te.__name__}, got {ta.__name__}")
    if te in _PLAIN:
        if expected != actual:
            e, a = repr(expected), repr(actual)
            raise Mismatch(f"{_path_text(where)}: expected {e[:60]}, got {a[:60]}")
    elif te is float:
        if struct.pack("<d", expected) != struct.pack("<d", actual):
            raise Mismatch(f"{_path_text(where)}: expected {expected!r}, got {actual!r}")
    elif te is dict:
        ke, ka = list(expected), list(actual)
        if ke != ka:
            path = _path_text(where)
            if set(ke) == set(ka):
                raise Mismatch(f"{path}: same keys, different order")
            missing = [k for k in ke if k not in actual][:3]
            extra = [k for k in ka if k not in expected][:3]
            raise Mismatch(f"{path}: keys differ (missing {missing}, extra {extra})")
        for k in ke:
            _check_equal(expected[k], actual[k], (where, f".{k}"))
    elif te in (list, tuple):
        if len(expected) != len(actual):
            raise Mismatch(
                f"{_path_text(where)}: expected {len(expected)} items, got {len(actual)}"
            )
        for i, (a, b) in enumerate(zip(expected, actual, strict=False)):
            _check_equal(a, b, (where, f"[{i}]"))
    elif te in (set, frozenset):
        if expected != actual:
            raise Mismatch(
                f"{_path_text(where)}: sets differ ({len(expected)} vs {len(actual)} items)"
            )
    elif dataclasses.is_dataclass(expected):
        for f in dataclasses.fields(expected):
            _check_equal(getattr(expected, f.name), getattr(actual, f.name), (where, f".{f.name}"))
    elif isinstance(expected, _dt.datetime):
        if (
            expected != actual
            or expected.tzinfo != actual.tzinfo
            or expected.utcoffset() != actual.utcoffset()
        ):
            raise Mismatch(f"{_path_text(where)}: expected {expected!r}, got {actual!r}")
    else:
        if expected != actual:
            e, a = repr(expected), repr(actual)
            raise Mismatch(f"{_path_text(where)}: expected {e[:60]}, got {a[:60]}")


def verify(name: str, expected: Any, roundtrip: Callable[[], Any]) -> None:
    """Runs ``roundtrip()`` and checks its result equals ``expected`` exactly.

    Raises :class:`Skip` with the reason if it does not (or if it raises)."""
    try:
        got = roundtrip()
    except Skip:
        raise
    except Exception as e:  # a contender failing is a result, not a crash
        raise Skip(f"round trip failed: {type(e).__name__}: {_one_line(e)}") from e
    try:
        check_equal(expected, got)
    except Mismatch as e:
        raise Skip(f"round trip is not exact: {e}") from e


def _one_line(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return (s[0] if s else "")[:200]


# ---------------------------------------------------------------------------
# formatting


def fmt_time(seconds: float | None) -> str:
    """``1.23 ms``-style text with three significant digits."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{_sig(seconds / scale)} {unit}"
    return "-"


def fmt_timing(t: Timing | None, *, spread: bool = True) -> str:
    """Median with the min-max range, e.g. ``2.56 ms (2.51–2.70)``."""
    if t is None:
        return "-"
    text = fmt_time(t.median)
    if not spread or t.repeats < 2:
        return text
    unit = text.split(" ")[1]
    scale = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}[unit]
    return f"{text} ({_sig(t.min / scale)}–{_sig(t.max / scale)})"


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "-"
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,.1f}"
    return f"{int(n):,}"


def fmt_ratio(x: float | None) -> str:
    if x is None or math.isnan(x) or math.isinf(x):
        return "-"
    if x >= 100:
        return f"{x:,.0f}x"
    if x >= 10:
        return f"{x:.1f}x"
    return f"{x:.2f}x"


def fmt_verdict(ok: bool | None, *, at_size: bool = True) -> str:
    """A target's verdict in a results table. ``at_size=False``: measured at
    another size than the target names (``--quick``), so no verdict."""
    if not at_size:
        return "not measured at this size"
    if ok is None:
        return "not measured"
    return "met" if ok else "**missed**"


def _sig(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


# ---------------------------------------------------------------------------
# results


@dataclass
class Table:
    """One markdown table of an experiment's results."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Column alignment: "l" or "r" per column (default: first left, rest right).
    align: list[str] | None = None

    def add(self, *cells: Any) -> None:
        row = [str(c) for c in cells]
        if len(row) != len(self.columns):
            raise ValueError(
                f"table {self.title!r}: {len(row)} cells for {len(self.columns)} columns"
            )
        self.rows.append(row)

    def markdown(self) -> str:
        align = self.align or (["l"] + ["r"] * (len(self.columns) - 1))
        esc = [c.replace("|", "\\|") for c in self.columns]
        out = ["| " + " | ".join(esc) + " |"]
        out.append("|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|")
        for r in self.rows:
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
        text = f"### {self.title}\n\n" + "\n".join(out) + "\n"
        if self.notes:
            text += "\n" + "\n".join(f"- {n}" for n in self.notes) + "\n"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "columns": self.columns,
            "rows": self.rows,
            "notes": self.notes,
        }


@dataclass
class Measurement:
    """One timed (or sized) operation of one contender, kept in the .json."""

    contender: str
    op: str
    timing: Timing | None = None
    size: float | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"contender": self.contender, "op": self.op}
        if self.timing is not None:
            d.update(
                median_s=self.timing.median,
                min_s=self.timing.min,
                max_s=self.timing.max,
                repeats=self.timing.repeats,
                number=self.timing.number,
            )
        if self.size is not None:
            d["size_bytes"] = self.size
        if self.params:
            d["params"] = self.params
        return d


#: One bar of a chart panel: (label, value), the value None where not measured.
ChartBar = tuple[str, float | None]
#: One chart panel: (title, bars) in seconds, or (title, bars, unit) with the
#: unit "s" or "bytes" (see :func:`roving.bench.report.draw_chart`).
ChartPanel = tuple[str, list[ChartBar]] | tuple[str, list[ChartBar], str]
#: A line chart: title, series name -> [(x, y)], x label, y label (both axes log).
LinePanel = tuple[str, dict[str, list[tuple[float, float]]], str, str]


@dataclass
class Experiment:
    """The results of one experiment: tables, raw measurements, skips."""

    name: str
    title: str
    seed: str
    description: str
    cfg: Config
    tables: list[Table] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    #: Chart spec: the panels (:data:`ChartPanel`), filled by the experiment.
    chart: list[ChartPanel] = field(default_factory=list)
    chart_unit: str = "time (lower is better)"
    #: Line charts (:data:`LinePanel`), drawn below the bar panels.
    lines: list[LinePanel] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    #: 1-minute load average when the experiment started (None where unknown).
    load: float | None = field(default_factory=lambda: load_average())
    elapsed: float = 0.0

    def skip(self, contender: str, reason: str) -> None:
        """Records that ``contender`` was skipped, with the reason."""
        if contender not in self.skipped:
            self.skipped[contender] = reason
            self.cfg.note(f"  {self.name}: skipped {contender}: {reason}")

    def time(
        self,
        contender: str,
        op: str,
        fn: Callable[[], Any],
        *,
        params: dict[str, Any] | None = None,
        **kw: Any,
    ) -> Timing | None:
        """Measures ``fn`` and records it; a failure skips the contender."""
        if contender in self.skipped:
            return None
        self.cfg.note(f"  {self.name}: {contender}: {op}")
        try:
            t = measure(fn, self.cfg, **kw)
        except Skip as e:
            self.skip(contender, str(e))
            return None
        except Exception as e:  # noqa: BLE001 - a failing contender is a result
            self.skip(contender, f"{op} failed: {type(e).__name__}: {_one_line(e)}")
            return None
        self.measurements.append(Measurement(contender, op, timing=t, params=params or {}))
        return t

    def pair(
        self,
        op: str,
        a: tuple[str, Callable[[], Any]],
        b: tuple[str, Callable[[], Any]],
    ) -> Paired | None:
        """Times contender ``a``'s and ``b``'s ``op`` in alternation
        (:func:`measure_pair`) and records both; None if either is skipped
        or fails (with a note)."""
        (an, af), (bn, bf) = a, b
        if an in self.skipped or bn in self.skipped:
            return None
        self.cfg.note(f"  {self.name}: {an} / {bn}: {op}, paired")
        try:
            p = measure_pair(af, bf, self.cfg)
        except Exception as e:  # noqa: BLE001 - a failing contender is a result
            self.notes.append(
                f"{an} / {bn}: paired {op} failed: {type(e).__name__}: {_one_line(e)}"
            )
            return None
        for name, other, t in ((an, bn, p.a), (bn, an, p.b)):
            self.measurements.append(Measurement(name, f"{op} (paired with {other})", timing=t))
        return p

    def size(self, contender: str, op: str, n: float, params: dict[str, Any] | None = None) -> None:
        self.measurements.append(Measurement(contender, op, size=n, params=params or {}))

    def verify(self, contender: str, expected: Any, roundtrip: Callable[[], Any]) -> bool:
        """Checks a contender's exact round trip; records a skip if it fails."""
        if contender in self.skipped:
            return False
        try:
            verify(contender, expected, roundtrip)
        except Skip as e:
            self.skip(contender, str(e))
            return False
        return True

    def markdown(self, machine: dict[str, Any]) -> str:
        parts = [f"## {self.title}\n"]
        parts.append(f"{self.description}\n")
        parts.append(
            f"_Machine: {machine_line(machine)}. Date: {machine['date']}. "
            f"Mode: {'quick (small sizes, few repeats)' if self.cfg.quick else 'full'}; "
            f"median of {self.cfg.repeats} repeats (min–max in brackets)"
            + (
                "; **CPU time** of this process, not wall time"
                if self.cfg.clock_name == "cpu"
                else ""
            )
            + (f"; load average {self.load:.1f} at the start" if self.load is not None else "")
            + "._\n"
        )
        for t in self.tables:
            parts.append(t.markdown())
        if self.notes:
            parts.append("Notes:\n\n" + "\n".join(f"- {n}" for n in self.notes) + "\n")
        if self.skipped:
            parts.append(
                "Skipped:\n\n" + "\n".join(f"- {k}: {v}" for k, v in self.skipped.items()) + "\n"
            )
        return "\n".join(parts)

    def to_json(self, machine: dict[str, Any]) -> dict[str, Any]:
        return {
            "experiment": self.name,
            "title": self.title,
            "seed": self.seed,
            "description": self.description,
            "machine": machine,
            "quick": self.cfg.quick,
            "repeats": self.cfg.repeats,
            "params": self.params,
            "elapsed_s": round(self.elapsed, 3),
            "load_average": self.load,
            "clock": self.cfg.clock_name,
            "tables": [t.to_json() for t in self.tables],
            "measurements": [m.to_json() for m in self.measurements],
            "skipped": self.skipped,
            "notes": self.notes,
        }


# ---------------------------------------------------------------------------
# machine


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = round(int(line.split()[1]) / 1024 / 1024, 1)
    except (OSError, ValueError):
        pass
    info = {
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": mem,
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "packages": package_versions(),
        "roving_build": roving_build(),
    }
    return info


def roving_build() -> str:
    """How the roving extension was built: "pgo" (`make py-build`: profile-guided), "plain"."""
    try:
        from roving import _roving
    except ImportError:
        return "not installed"
    return str(getattr(_roving, "_build", "plain"))


def load_average() -> float | None:
    """The 1-minute load average (other work on the machine skews timings)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


def machine_line(m: dict[str, Any]) -> str:
    mem = f", {m['memory_gib']} GiB" if m.get("memory_gib") else ""
    build = {"pgo": "profile-guided build", "plain": "plain release build"}.get(
        m.get("roving_build", ""), m.get("roving_build", "")
    )
    tail = f", roving: {build}" if build else ""
    return f"{m['cpu']}, {m['cores']} cores{mem}, {m['os']}, {m['python']}{tail}"


def package_versions() -> dict[str, str]:
    """Versions of roving and of the peer libraries that are installed."""
    from importlib import metadata

    out = {}
    for dist in (
        "roving",
        "orjson",
        "msgspec",
        "msgpack",
        "ormsgpack",
        "cbor2",
        "protobuf",
        "matplotlib",
    ):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return out


def iter_chunks(seq: Iterable[Any], n: int) -> Iterable[list[Any]]:
    """Yields lists of at most ``n`` items of ``seq``."""
    buf: list[Any] = []
    for x in seq:
        buf.append(x)
        if len(buf) >= n:
            yield buf
            buf = []
    if buf:
        yield buf


def python_is_debug() -> bool:
    return hasattr(sys, "gettotalrefcount")
