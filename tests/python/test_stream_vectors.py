"""The record stream vectors (tests/vectors/stream/*.json) against a stream
reader written here from docs/FORMAT.md section 24 alone, on top of the
independent document reader tests/reference/roving_ref.py (which reads the
documents and applies section 23's dictionaries): a test of the
specification, not of the Rust implementation. Needs neither the compiled
extension nor ``roving``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import load_reference_reader

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors" / "stream"

ref = load_reference_reader()
RefError = ref.RefError

HEADER = b"RVS\x01\x00"


def _head(data: bytes, pos: int) -> tuple[int, int] | None:
    """Section 24.1: the frame head varint at ``pos``, or None if the bytes
    end inside it (a torn frame). Malformed: RefError at ``pos``."""
    value = 0
    for i in range(10):
        if pos + i >= len(data):
            return None
        b = data[pos + i]
        value |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            if (i > 0 and b == 0) or (i == 9 and b != 1):
                raise RefError("BadVarint", pos, "frame head not minimal")
            return value, pos + i + 1
    raise RefError("BadVarint", pos, "frame head longer than 10 bytes")


def _apply_delta(entries: list[Any], payload: bytes, offset: int) -> None:
    """Section 23.4: a delta's entries appended to ``entries``."""
    try:
        root = ref.validate_and_decode(payload)
    except RefError as e:
        raise RefError(e.kind, offset, str(e)) from None
    fields = dict(root["map"]) if isinstance(root, dict) and "map" in root else {}
    if sorted(fields) != ["base", "entries", "from"]:
        raise RefError("BadDictionary", offset, "not a dictionary delta")
    start = int(fields["from"]["int"])
    if start > len(entries) or ref.dictionary_id(entries, start) != int(fields["base"]["int"]):
        raise RefError("BadDictionary", offset, "the delta extends another dictionary")
    for i, e in enumerate(fields["entries"]):
        if start + i < len(entries):
            if entries[start + i] != e:
                raise RefError("BadDictionary", offset, "the delta disagrees")
        else:
            entries.append(e)


def _read_document(entries: list[Any], payload: bytes, offset: int) -> Any:
    """Section 23.3: a (possibly bound) document read with the entries."""
    try:
        if len(payload) > 3 and payload[3] == ref.T_BINDING and payload[:2] == b"RV":
            scan = ref._Scanner(payload)
            count, p = scan.varint(4, "binding count")
            ident = scan.uint(p, 8, "binding id")
            # A stream's reader always has a dictionary (empty at first).
            if count > len(entries) or ref.dictionary_id(entries, count) != ident:
                raise RefError("DictionaryMismatch", 3, "another dictionary")
            plain = ref.dictionary_base(entries, count) + payload[p + 8 :]
            return ref.validate_and_decode(plain)
        return ref.validate_and_decode(payload)
    except RefError as e:
        raise RefError(e.kind, offset, str(e)) from None


def read_stream(data: bytes) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
    """Section 24.2: the whole frames of a stream and its torn tail; a bad
    frame raises RefError at the frame's offset."""
    if not data or (len(data) < len(HEADER) and HEADER.startswith(data)):
        return [], ({"offset": 0, "len": len(data)} if data else None)
    if data[:3] != HEADER[:3]:
        raise RefError("BadMagic", 0, "not a record stream")
    if len(data) < len(HEADER):
        raise RefError("Truncated", len(data), "header")
    if data[3] != 1:
        raise RefError("UnsupportedVersion", 3, "stream version")
    if data[4] != 0:
        raise RefError("NonCanonical", 4, "flags")
    frames: list[dict[str, Any]] = []
    entries: list[Any] = []
    pos = len(HEADER)
    while pos < len(data):
        torn = {"offset": pos, "len": len(data) - pos}
        if data[pos] == 0 and not any(data[pos:]):
            return frames, torn
        head = _head(data, pos)
        if head is None:
            return frames, torn
        value, start = head
        kind, length = value & 3, value >> 2
        if kind > 1:
            raise RefError("UnknownTag", pos, "reserved frame kind")
        if start + length > len(data):
            return frames, torn
        payload = data[start : start + length]
        frame: dict[str, Any] = {
            "kind": "document" if kind == 0 else "dictionary",
            "offset": pos,
            "hex": payload.hex(),
        }
        if kind == 1:
            _apply_delta(entries, payload, pos)
        else:
            frame["json"] = ref.json_text(_read_document(entries, payload, pos))
        frames.append(frame)
        pos = start + length
    return frames, None


FILES = sorted(p.name for p in VECTORS.glob("*.json"))


def test_there_are_vectors() -> None:
    assert len(FILES) >= 15


@pytest.mark.parametrize("name", FILES)
def test_vector(name: str) -> None:
    case = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    data = bytes.fromhex(case["hex"])
    if case["valid"]:
        frames, torn = read_stream(data)
        assert frames == case["frames"]
        assert torn == case["torn"]
    else:
        with pytest.raises(RefError) as e:
            read_stream(data)
        assert e.value.kind == case["error"]["kind"], str(e.value)
        assert e.value.offset == case["error"]["offset"], str(e.value)
