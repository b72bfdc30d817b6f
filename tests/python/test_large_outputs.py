"""Outputs past 4 MiB: ``dumps`` and ``from_json`` copy them into a fresh
``bytes`` object with a huge-page hint; every byte must still be the
encoder's (the documents validate and read back equal)."""

from __future__ import annotations

import json

import roving

#: Past the size from which outputs get the huge-page hint (4 MiB).
RECORDS = 80_000


def _records() -> list[dict[str, object]]:
    # Distinct strings, so that the output is about as large as the JSON.
    return [
        {"id": i, "name": f"person number {i} of the large output test", "score": i / 7}
        for i in range(RECORDS)
    ]


def test_dumps_of_a_large_document_reads_back() -> None:
    obj = _records()
    b = roving.dumps(obj)
    assert len(b) > 4 << 20
    assert roving.open(b, validate=True).to_python() == obj
    assert roving.loads(b) == obj
    assert roving.dumps(obj) == b


def test_from_json_of_a_large_document_reads_back() -> None:
    obj = _records()
    text = json.dumps(obj)
    b = roving.from_json(text)
    assert len(b) > 4 << 20
    assert roving.loads(b) == obj
    assert roving.from_json(text.encode()) == b
