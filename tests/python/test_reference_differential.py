"""roving (the Rust validator and decoder, through the package) against the
outsider reader of tests/reference, written from docs/FORMAT.md alone.

On mutated golden vectors and mutated encodings of random values, both must
accept or both reject the bytes, and bytes both accept must decode to the
same value. A disagreement is a bug in one of them or a gap in the spec: this
is how the validator's acceptance of a map whose shape lies before the
document start was found.
"""

from __future__ import annotations

import json
import math
import random
import struct
from typing import Any

import pytest
from conftest import ROOT, json_to_neutral, load_reference_reader

roving = pytest.importorskip("roving")
ref = load_reference_reader()

VECTORS = ROOT / "tests" / "vectors"


class _Other:
    """A decoded value with no neutral form compared here (timestamp,
    extension, vector): the two decoders are compared on verdicts only."""


def neutral(v: Any) -> Any:
    """roving's Python value in the neutral notation of tests/vectors, or
    _Other for kinds this comparison leaves out."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": struct.pack("<d", v)[::-1].hex()}
    if isinstance(v, bytes):
        return {"bytes": v.hex()}
    if isinstance(v, list):
        items = [neutral(x) for x in v]
        return _Other() if any(isinstance(x, _Other) for x in items) else items
    if isinstance(v, dict):
        pairs = [[k, neutral(x)] for k, x in v.items()]
        return _Other() if any(isinstance(x, _Other) for _, x in pairs) else {"map": pairs}
    return _Other()


def _verdict_roving(data: bytes) -> tuple[bool, Any]:
    try:
        roving.validate(data)
    except roving.RovingError:
        return False, None
    try:
        return True, neutral(roving.loads(data))
    except roving.DecodeError:
        # A valid document whose extension payload the package's own
        # types reject (e.g. a date of the wrong size): Python semantics,
        # not the format's, so only the verdicts are compared.
        return True, _Other()


def _verdict_ref(data: bytes) -> tuple[bool, Any]:
    try:
        return True, ref.validate_and_decode(data)
    except ref.RefError:
        return False, None


def _check(data: bytes) -> None:
    ok_rv, v_rv = _verdict_roving(data)
    ok_ref, v_ref = _verdict_ref(data)
    assert ok_rv == ok_ref, (data.hex(), "roving accepts" if ok_rv else "reference accepts")
    if ok_rv and not isinstance(v_rv, _Other):
        assert v_rv == v_ref, data.hex()


def _mutations(data: bytes, rng: random.Random, n: int) -> list[bytes]:
    out = []
    for _ in range(n):
        b = bytearray(data)
        for _ in range(rng.choice((1, 1, 2, 3))):
            op = rng.randrange(4)
            if op == 0 and b:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            elif op == 1 and b:
                b[rng.randrange(len(b))] = rng.randrange(256)
            elif op == 2:
                del b[rng.randrange(len(b) + 1) :]
            else:
                b.insert(rng.randrange(len(b) + 1), rng.randrange(256))
        out.append(bytes(b))
    return out


VECTOR_FILES = sorted(p.name for p in VECTORS.glob("*.json"))


@pytest.mark.parametrize("name", VECTOR_FILES)
def test_vector_and_its_mutations(name: str) -> None:
    data = bytes.fromhex(json.loads((VECTORS / name).read_text(encoding="utf-8"))["hex"])
    _check(data)
    rng = random.Random(name)
    for m in _mutations(data, rng, 150):
        _check(m)


def _random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(10 if depth < 3 else 7)
    if kind == 0:
        return rng.choice([None, True, False, "", "a", "key"])
    if kind == 1:
        return rng.choice([0, 1, -1, 31, -32, 8191, -8193, 2**31, -(2**63), 2**64 - 1, 2**70])
    if kind == 2:
        return rng.choice([0.0, -0.0, 1.5, 0.1, -45.848157, 1e300, math.inf, 2.0**-149])
    if kind == 3:
        return "".join(rng.choice("abcé€😀") for _ in range(rng.randrange(70)))
    if kind == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(5)))
    if kind in (5, 6):
        return rng.choice(["x", "shared", "é"])
    if kind in (7, 8):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(12))]
    keys = ["a", "b", "", "name", "é", "k9", "z"]
    return {rng.choice(keys): _random_value(rng, depth + 1) for _ in range(rng.randrange(12))}


def test_random_documents_and_their_mutations() -> None:
    rng = random.Random(2026)
    for _ in range(300):
        data = roving.dumps(_random_value(rng, 0))
        _check(data)
        for m in _mutations(data, rng, 20):
            _check(m)


def test_real_document_prefixes_and_flips(people_bytes: bytes) -> None:
    """A real document: the first three people of 1000people.json, whole
    and mutated."""
    doc = roving.dumps(json.loads(roving.to_json(people_bytes))[:3])
    _check(doc)
    rng = random.Random(7)
    for m in _mutations(doc, rng, 400):
        _check(m)


def test_the_found_hole_stays_closed() -> None:
    """The inputs that the fast path took for {} (FORMAT.md rule 16)."""
    for hx in ("52560114081c081c", "5256018161140c1c081c"):
        _check(bytes.fromhex(hx))
        assert not _verdict_roving(bytes.fromhex(hx))[0]


@pytest.mark.parametrize("packed", [False, True], ids=["slots", "packed"])
@pytest.mark.parametrize("n", [254, 255, 65_534, 65_535])
def test_shapes_at_each_index_entry_width(n: int, packed: bool) -> None:
    """Maps with 1-, 2- and 4-byte index entries (FORMAT.md sections 8.3
    and 6.18; the golden vectors stop at 2-byte entries), in a shape of key
    slots and in a packed shape, whole and with a few mutations in their
    index."""
    if packed:
        # Keys that only the dict holds: `dumps` packs them (section 14).
        d = {f"k{i}": i for i in range(n)}
    else:
        # Keys that other objects hold too (a record's field names): a
        # shape of slots.
        keys = [f"k{i}" for i in range(n)]
        also = list(keys)
        d = {k: i for i, k in enumerate(also)}
    doc = roving.dumps(d)
    kinds = {r[2] for r in roving._roving._records(doc)}
    assert ("packed shape" in kinds) == packed, kinds
    _check(doc)
    rng = random.Random(n)
    # Most of a big shape's bytes are its index: random positions hit it.
    for m in _mutations(doc, rng, 8):
        _check(m)


def _random_json(rng: random.Random, depth: int) -> Any:
    """A random JSON value rich in integers around the inline limits of
    each slot width (so that containers choose among widths and integer
    records), with shared strings and repeated key sets."""
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind in (0, 1, 2):
        bits = rng.choice([3, 5, 6, 7, 12, 13, 14, 15, 28, 29, 30, 31, 60, 61, 62, 63, 64, 80])
        edge = 1 << bits
        return rng.choice([edge - 1, edge, edge + 1, -edge, -edge - 1, rng.randrange(-edge, edge)])
    if kind == 3:
        return rng.choice(["", "a", "shared", "é✓", "x" * rng.randrange(1, 90)])
    if kind == 4:
        return rng.choice([None, True, False, 0.5, -1.25, 1e300, 3.141592653589793])
    if kind == 5:
        return rng.randrange(-40, 40)
    n = rng.choice([1, 2, 4, 7, 9, 30] if depth else [9, 30, 300])
    if kind in (6, 7):
        return [_random_json(rng, depth + 1) for _ in range(n)]
    keys = rng.choice([["id", "n"], ["a", "b", "c", "d"], [f"k{i}" for i in range(n)]])
    return {k: _random_json(rng, depth + 1) for k in keys}


def test_roving_and_section_14_write_the_same_bytes() -> None:
    """roving's encoder (JSON in) and this section-14 encoder, written from
    the spec alone, give the same bytes for random documents: the choices
    of slot widths, integer records, float forms and references agree."""
    rng = random.Random(314)
    for _ in range(400):
        text = json.dumps(_random_json(rng, 0))
        assert ref.encode(json_to_neutral(text)).hex() == roving.from_json(text).hex(), text
