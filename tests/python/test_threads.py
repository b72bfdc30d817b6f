"""Thread safety: concurrent dumps, loads, typed loads and views."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import roving


@dataclasses.dataclass
class Friend:
    id: int
    name: str


def test_concurrent_everything(people: Any, people_bytes: bytes) -> None:
    errors: list[BaseException] = []
    small = people[:50]
    small_bytes = roving.dumps(small)
    doc = roving.open(people_bytes)
    shared_root = doc.root

    def worker(seed: int) -> None:
        try:
            for i in range(30):
                j = (seed * 31 + i) % len(small)
                assert roving.loads(roving.dumps(small[j])) == small[j]
                assert roving.loads(small_bytes) == small
                fr = roving.loads(roving.dumps(small[j]["friends"]), type=list[Friend])
                assert fr[0].name == small[j]["friends"][0]["name"]
                assert shared_root[j * 7]["name"] == people[j * 7]["name"]
                assert roving.open(small_bytes)[j]["tags"] == small[j]["tags"]
                if i % 10 == 0:
                    assert roving.loads(people_bytes)[seed] == people[seed]
                    assert roving.from_json(roving.to_json(small_bytes)) == small_bytes
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_views_shared_between_threads_after_close(people: Any, people_bytes: bytes) -> None:
    doc = roving.open(people_bytes)
    views = [doc.root[i] for i in range(100)]
    doc.close()
    out: list[Any] = []

    def reader() -> None:
        out.append([v["name"] for v in views])

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [[p["name"] for p in people[:100]]] * 4


def test_default_hook_calling_roving_from_threads() -> None:
    def default(o: Any) -> Any:
        return roving.loads(roving.dumps({"wrapped": repr(type(o).__name__)}))

    results: list[Any] = []

    def worker() -> None:
        for _ in range(200):
            results.append(roving.loads(roving.dumps({"x": object()}, default=default)))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 800 and all(r == {"x": {"wrapped": "'object'"}} for r in results)
