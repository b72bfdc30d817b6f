"""Quick figures for roving.Store from Python (not the benchmark: see
python/roving/bench). Usage: python3 crates/roving-store/examples/store_quick.py [DIR]

Prints: seed 000's 10,000 BBItems (add all + flush, reload + read all) for
roving.Store (plain and typed) and shelve; opening a 1,000,000-item store
and one random get; change one + flush; reload + read one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import random
import shelve
import shutil
import sys
import tempfile
import time
from pathlib import Path

try:
    from roving import Store  # type: ignore[attr-defined]
except ImportError:
    from roving._store import Store


@dataclasses.dataclass
class BBItem:
    identifier: str
    createdAt: dt.datetime
    hash: str
    data: bytes
    views: int
    displayInRect: tuple[float, float, float, float]
    optionalString: str | None = None


def items(n: int) -> list[BBItem]:
    now = dt.datetime.now(dt.UTC)
    return [
        BBItem(
            f"item {i}",
            now,
            "someHash120djas!hf0410AjsifhsFjsd",
            b"some dummy data",
            i,
            (float(i),) * 4,
            "optional string!" if i % 2 == 0 else None,
        )
        for i in range(n)
    ]


def best(f, repeat: int = 5) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return min(out)


def main() -> None:
    base = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    data = items(10_000)

    def roving_round(typed: bool, trusted: bool = False) -> tuple[float, float]:
        d = Path(tempfile.mkdtemp(dir=base))
        s = Store(d / "s.rvs", type=BBItem if typed else None, trusted=trusted)
        t = time.perf_counter()
        for it in data:
            s[it.identifier] = it
        s.flush()
        t_flush = time.perf_counter() - t
        t = time.perf_counter()
        s.reload()
        got = list(s.values())
        t_read = time.perf_counter() - t
        assert len(got) == len(data)
        s.close()
        shutil.rmtree(d)
        return t_flush, t_read

    def shelve_round() -> tuple[float, float]:
        d = Path(tempfile.mkdtemp(dir=base))
        t = time.perf_counter()
        with shelve.open(str(d / "s")) as sh:
            for it in data:
                sh[it.identifier] = it
        t_flush = time.perf_counter() - t
        t = time.perf_counter()
        with shelve.open(str(d / "s")) as sh:
            got = [sh[k] for k in sh]
        t_read = time.perf_counter() - t
        assert len(got) == len(data)
        shutil.rmtree(d)
        return t_flush, t_read

    for name, f in [  # best of 5 each
        ("roving.Store", lambda: roving_round(False)),
        ("roving.Store type=BBItem", lambda: roving_round(True)),
        ("roving.Store type, trusted", lambda: roving_round(True, True)),
        ("shelve", shelve_round),
    ]:
        runs = [f() for _ in range(5)]
        fl = min(r[0] for r in runs) * 1e3
        rd = min(r[1] for r in runs) * 1e3
        print(
            f"10k BBItems {name:26s} add all + flush {fl:7.1f} ms   reload + read all {rd:7.1f} ms   total {fl + rd:7.1f} ms"
        )

    # change one + flush; reload + read one
    p = base / "10k.rvs"
    with Store(p) as s:
        for it in data:
            s[it.identifier] = it
    s = Store(p, type=BBItem)
    one = data[1234]

    def change_one() -> None:
        one.views += 1
        s[one.identifier] = one
        s.flush()

    def reload_one() -> None:
        s.reload()
        s["item 77"]

    print(
        f"10k: change one + flush {best(change_one, 20) * 1e3:.3f} ms; reload + read one {best(reload_one, 20) * 1e6:.1f} us"
    )
    s.close()

    # 1,000,000 items
    p = base / "1m.rvs"
    if not p.exists():
        t = time.perf_counter()
        with Store(p) as s:
            for i in range(1_000_000):
                s[f"item {i}"] = {
                    "identifier": f"item {i}",
                    "views": i,
                    "hash": "someHash120djas!hf0410AjsifhsFjsd",
                    "data": b"some dummy data",
                    "displayInRect": [float(i)] * 4,
                }
        print(
            f"1M: built in {time.perf_counter() - t:.1f} s ({os.path.getsize(p) / 1e6:.0f} MB)"
        )
    opens = []
    for _ in range(20):
        t = time.perf_counter()
        s = Store(p)
        opens.append(time.perf_counter() - t)
        if _ < 19:
            s.close()
    print(
        f"1M: open {min(opens) * 1e3:.3f} ms (median {sorted(opens)[10] * 1e3:.3f} ms), len {len(s)}"
    )
    rng = random.Random(1)
    keys = [f"item {rng.randrange(1_000_000)}" for _ in range(200_000)]
    for k in keys[:50_000]:  # warm the page cache and the map
        s[k]
    get = s.__getitem__
    contains = s.__contains__
    chunks = [keys[i : i + 20_000] for i in range(0, len(keys), 20_000)]

    def per_op(f) -> float:
        times = []
        for ch in chunks:
            t = time.perf_counter()
            for k in ch:
                f(k)
            times.append((time.perf_counter() - t) / len(ch))
        return min(times)

    print(
        f"1M: one random get s[k] {per_op(get) * 1e6:.2f} us; k in s {per_op(contains) * 1e6:.2f} us"
        f" (best of {len(chunks)} x 20,000)"
    )
    st = Store(p, trusted=True)
    print(
        f"1M: one random get s[k], trusted=True {per_op(st.__getitem__) * 1e6:.2f} us"
    )
    st.close()
    first = []
    for k in keys[:5]:
        s.close()
        t = time.perf_counter()
        s = Store(p)
        s[k]
        first.append(time.perf_counter() - t)
    print(f"1M: open + first get {min(first) * 1e3:.3f} ms")
    s.close()


if __name__ == "__main__":
    main()
