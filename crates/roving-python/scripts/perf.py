"""Quick ratios of roving against orjson, msgspec and pickle on 1000people.json.

Not a test: run by hand after building (``maturin develop --release`` or
``pip install .``)::

    python crates/roving-python/scripts/perf.py [path/to/1000people.json]

Prints the best of N runs per operation and the ratios the issue targets.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import tempfile
import timeit

import roving

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "..", "..", "data", "1000people.json")


def best_all(fns: dict, repeat: int) -> dict:
    """Best time per call (seconds) of each (fn, number), measured round-robin
    so that load changes on the machine hit every contender alike."""
    out = {k: float("inf") for k in fns}
    for _ in range(repeat):
        for k, (fn, number) in fns.items():
            t = timeit.timeit(fn, number=number) / number
            out[k] = min(out[k], t)
    return out


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(DEFAULT)
    with open(path, "rb") as f:
        raw = f.read()
    obj = json.loads(raw)
    rv = roving.dumps(obj)
    rows = {}
    rows["roving.dumps"] = (lambda: roving.dumps(obj), 20)
    rows["roving.loads"] = (lambda: roving.loads(rv), 10)
    try:
        import orjson

        oj = orjson.dumps(obj)
        rows["orjson.dumps"] = (lambda: orjson.dumps(obj), 20)
        rows["orjson.loads"] = (lambda: orjson.loads(oj), 10)
    except ImportError:
        pass
    try:
        import msgspec

        mp = msgspec.msgpack.encode(obj)
        rows["msgspec.msgpack.encode"] = (lambda: msgspec.msgpack.encode(obj), 20)
        rows["msgspec.msgpack.decode"] = (lambda: msgspec.msgpack.decode(mp), 10)
    except ImportError:
        pass
    pk = pickle.dumps(obj, protocol=5)
    rows["pickle.dumps"] = (lambda: pickle.dumps(obj, protocol=5), 10)
    rows["pickle.loads"] = (lambda: pickle.loads(pk), 10)
    rows["roving.open(bytes)+[123]['name']"] = (lambda: roving.open(rv)[123]["name"], 20)
    rows["roving.open(bytes, trusted)+[123]['name']"] = (
        lambda: roving.open(rv, trusted=True)[123]["name"],
        2000,
    )
    with tempfile.TemporaryDirectory() as d:
        fp = os.path.join(d, "people.rov")
        with open(fp, "wb") as f:
            f.write(rv)
        rows["roving.open(path)+[123]['name']"] = (lambda: roving.open(fp)[123]["name"], 20)
        rows["roving.open(path, trusted)+[123]['name']"] = (
            lambda: roving.open(fp, trusted=True)[123]["name"],
            500,
        )
        rows = best_all(rows, int(os.environ.get("REPEAT", "15")))
    for k, v in rows.items():
        print(f"{k:45s} {v * 1e6:10.2f} us")
    print(f"{'size roving':45s} {len(rv):10,d} bytes (pickle 5: {len(pk):,d})")
    if "orjson.dumps" in rows:
        print(f"dumps / orjson.dumps          = {rows['roving.dumps'] / rows['orjson.dumps']:.2f}  (target <= 0.8)")
        print(f"loads / orjson.loads          = {rows['roving.loads'] / rows['orjson.loads']:.2f}  (target <= 0.8)")
    if "msgspec.msgpack.decode" in rows:
        print(
            f"loads / msgspec.msgpack.decode = {rows['roving.loads'] / rows['msgspec.msgpack.decode']:.2f}  (target <= 1.0)"
        )
    print(f"size / pickle                 = {len(rv) / len(pk):.3f}  (target <= 1.0)")


if __name__ == "__main__":
    main()
