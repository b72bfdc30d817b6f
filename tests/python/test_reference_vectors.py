"""The golden vectors against an independent reader written from docs/FORMAT.md
alone (tests/reference/roving_ref.py): a test of the specification, not of the
Rust implementation. Needs neither the compiled extension nor ``roving``,
except ``test_well_known_ext_in_the_package``, which checks the package's
reading of the well-known extension types against the vectors.

Every tests/vectors/*.json: a ``valid: true`` vector must decode to exactly
its ``value`` (``share``/``again`` expanded to the shared value), and have
the JSON text of its ``json`` field and the well-known extension text or
error of its ``ext_text`` / ``ext_error`` field when it has one; a
``valid: false`` vector must be rejected with RefError of the vector's
``error`` kind.
"""

from __future__ import annotations

import json
import random
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from conftest import json_to_neutral, load_reference_reader

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"


ref = load_reference_reader()

VECTOR_FILES = sorted(p.name for p in VECTORS.glob("*.json"))

# Vectors whose expected result contradicts the reader's reading of the spec:
# file name -> reason (with the FORMAT.md section). Each is xfail(strict=True).
DISAGREEMENTS: dict[str, str] = {}


def expand(value: Any, shared: dict[str, Any]) -> Any:
    """The neutral value with {"share": name, "value": v} replaced by v and
    {"again": name} by the v remembered under that name."""
    if isinstance(value, list):
        return [expand(v, shared) for v in value]
    if isinstance(value, dict):
        if "share" in value:
            v = expand(value["value"], shared)
            shared[value["share"]] = v
            return v
        if "again" in value:
            return shared[value["again"]]
        if "map" in value:
            return {"map": [[k, expand(v, shared)] for k, v in value["map"]]}
    return value


def same(got: Any, want: Any, path: str = "$") -> None:
    """Equal and of the same Python types all the way down (so True is not 1)."""
    assert type(got) is type(want), f"{path}: {got!r} is not {want!r}"
    if isinstance(want, list):
        assert len(got) == len(want), f"{path}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            same(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert list(got) == list(want) or sorted(got) == sorted(want), (
            f"{path}: {got!r} != {want!r}"
        )
        for k in want:
            same(got[k], want[k], f"{path}.{k}")
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"


def _params() -> list[Any]:
    params = []
    for name in VECTOR_FILES:
        marks = []
        if name in DISAGREEMENTS:
            marks.append(pytest.mark.xfail(strict=True, reason=DISAGREEMENTS[name]))
        params.append(pytest.param(name, id=name.removesuffix(".json"), marks=marks))
    return params


def test_vectors_exist() -> None:
    assert len(VECTOR_FILES) > 100


@pytest.mark.parametrize("name", _params())
def test_vector(name: str) -> None:
    case = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    data = bytes.fromhex(case["hex"])
    dictionary = bytes.fromhex(case["dictionary"]) if case.get("dictionary") else None
    if dictionary is not None:  # section 23.4: the bytes hold the entries
        assert ref.dictionary_entries(dictionary) == case["entries"]
    if case["valid"]:
        got = ref.validate_and_decode(data, dictionary)
        same(got, expand(case["value"], {}))
        if "json" in case:  # section 17.2
            assert ref.json_text(got) == case["json"]
        if "ext_text" in case:  # section 13.1
            payload = bytes.fromhex(got["data"])
            assert ref.well_known_ext_text(got["ext"], payload) == case["ext_text"]
        if "ext_error" in case:
            with pytest.raises(ref.RefError):
                ref.well_known_ext_text(got["ext"], bytes.fromhex(got["data"]))
    else:
        with pytest.raises(ref.RefError) as e:
            ref.validate_and_decode(data, dictionary)
        assert e.value.kind == case["error"], str(e.value)


EXT_VECTORS = [
    name
    for name in VECTOR_FILES
    if {"ext_text", "ext_error"} & set(json.loads((VECTORS / name).read_text(encoding="utf-8")))
]


def test_ext_vectors_exist() -> None:
    assert len(EXT_VECTORS) >= 20


@pytest.mark.parametrize("name", EXT_VECTORS)
def test_well_known_ext_in_the_package(name: str) -> None:
    """The Python package, which interprets ids 1 to 5, agrees with section
    13.1: the text form of a valid payload is the vector's ``ext_text``, and
    ``loads`` refuses a payload the vector marks ``ext_error``. (The only
    test here that needs the compiled package.)"""
    roving = pytest.importorskip("roving")
    case = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    data = bytes.fromhex(case["hex"])
    if "ext_text" in case:
        assert json.loads(roving.to_json(data)) == case["ext_text"]
        roving.loads(data)
    else:
        with pytest.raises(roving.DecodeError):
            roving.loads(data)


# Section 22, "Key hash test values".
KEY_HASHES = {
    "": 0x44864E3DB0F4548B,
    "a": 0x420B92255B73745B,
    "j": 0x408AA8797B64D380,
    "name": 0xAFC81382D42AB079,
    "abcdefgh": 0xC47650070EB14093,
    "abcdefghi": 0xC5705C16F44CEF64,
    "été": 0x906751FD5749006A,
}


@pytest.mark.parametrize("key", list(KEY_HASHES))
def test_key_hash(key: str) -> None:
    assert ref.key_hash(key.encode("utf-8")) == KEY_HASHES[key]


# Section 22, "Index sizes".
@pytest.mark.parametrize(
    ("n", "table", "entry"),
    [
        (9, 16, 1),
        (10, 16, 1),
        (11, 32, 1),
        (20, 32, 1),
        (21, 32, 1),
        (100, 256, 1),
        (254, 512, 1),
        (255, 512, 2),
        (65534, 131072, 2),
        (65535, 131072, 4),
    ],
)
def test_index_size(n: int, table: int, entry: int) -> None:
    assert ref.index_size(n) == (table, entry)


def test_f32_widening_matches_the_hardware_on_non_nan() -> None:
    for bits in (
        0,
        1,
        0x7FFFFF,
        0x800000,
        0x3F800000,
        0x7F7FFFFF,
        0x7F800000,
        0x80000001,
        0xFF800000,
    ):
        f = struct.unpack("<f", struct.pack("<I", bits))[0]
        want = struct.unpack("<Q", struct.pack("<d", f))[0]
        assert ref.widen_f32_bits(bits) == want, hex(bits)


def _encode_params() -> list[Any]:
    params = []
    for name in VECTOR_FILES:
        case = json.loads((VECTORS / name).read_text(encoding="utf-8"))
        if not case["valid"] or case.get("decode_only"):
            continue
        marks = []
        if name in ENCODE_DISAGREEMENTS:
            marks.append(pytest.mark.xfail(strict=True, reason=ENCODE_DISAGREEMENTS[name]))
        params.append(pytest.param(name, id=name.removesuffix(".json"), marks=marks))
    return params


# Vectors the section-14 encoder does not reproduce byte for byte although it
# follows the spec: file name -> reason. Each is xfail(strict=True).
ENCODE_DISAGREEMENTS: dict[str, str] = {}


@pytest.mark.parametrize("name", _encode_params())
def test_encoder_reproduces_vector(name: str) -> None:
    """Section 14's choices, from the neutral value, give exactly ``hex``."""
    case = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    data = bytes.fromhex(case["hex"])
    entries = None
    if "dictionary" in case:  # bound to the first n entries (section 23.3)
        n = data[4]  # the vectors' counts are below 128: a one-byte varint
        entries = case["entries"][:n]
    got = ref.encode(case["value"], entries).hex()
    assert got == case["hex"]
    dictionary = bytes.fromhex(case["dictionary"]) if case.get("dictionary") else None
    same(ref.validate_and_decode(bytes.fromhex(got), dictionary), expand(case["value"], {}))


# The worked examples of FORMAT.md section 22, another source of golden bytes.


def _examples() -> list[Any]:
    text = (ROOT / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    text = text[text.index("<!-- BEGIN GENERATED EXAMPLES") :]
    params = []
    for block in text.split("\n### ")[1:]:
        title = block.splitlines()[0]
        fields = {}
        for line in block.splitlines():
            if line.startswith("Value: "):
                fields["Value: "] = line.partition(": ")[2].strip()
            elif line.startswith("JSON form"):  # also "JSON form after the update: "
                fields["JSON form: "] = line.partition(": ")[2].strip()
            elif re.fullmatch(r"\d+ bytes: `[0-9a-f ]+`", line):
                fields["bytes: "] = line.partition(": ")[2]
        if "bytes: " not in fields:
            continue  # a table, not an example
        params.append(pytest.param(title, fields, id=title))
    return params


EXAMPLES = _examples()


def test_examples_exist() -> None:
    assert len(EXAMPLES) > 25


@pytest.mark.parametrize(("title", "fields"), EXAMPLES)
def test_worked_example(title: str, fields: dict[str, str]) -> None:
    """Each example validates; its bytes decode to its JSON form when the
    value is plain JSON; and when it is given as JSON, section 14's encoder
    writes exactly its bytes."""
    data = bytes.fromhex(fields["bytes: "].strip("`").replace(" ", ""))
    value = ref.validate_and_decode(data)
    given = fields.get("Value: ", "")
    if given.startswith("JSON `") or not given:
        json_form = fields["JSON form: "].strip("`")
        same(value, json_to_neutral(json_form))
    if given.startswith("JSON `"):
        assert ref.encode(json_to_neutral(given[len("JSON `") : -1])).hex() == data.hex()


# The reader on hostile bytes, and the encoder on values the vectors lack.


def test_mutated_vectors_give_a_value_or_ref_error() -> None:
    """Bit flips, truncations and insertions of every vector: the reader
    returns a value or raises RefError, nothing else (no IndexError...)."""
    rng = random.Random(1234)
    for name in VECTOR_FILES:
        data = bytes.fromhex(json.loads((VECTORS / name).read_text(encoding="utf-8"))["hex"])
        for _ in range(30):
            b = bytearray(data)
            op = rng.randrange(3)
            if op == 0 and b:
                i = rng.randrange(len(b))
                b[i] ^= 1 << rng.randrange(8)
            elif op == 1:
                del b[rng.randrange(len(b) + 1) :]
            else:
                b.insert(rng.randrange(len(b) + 1), rng.randrange(256))
            try:
                ref.validate_and_decode(bytes(b))
            except ref.RefError:
                pass


def test_deep_nesting_needs_no_recursion() -> None:
    """100,000 nested arrays: the reader is one forward pass, no recursion."""
    depth = 100_000
    out = bytearray(b"RV\x01\x10\x01\x13")  # [[]] ... innermost [ [] ] at @3
    for _ in range(depth - 1):
        out += b"\x10\x01\x0c"  # an array of one slot: rel 3 -> the previous array
    out += b"\x1c\x0c\x1c"
    v = ref.validate_and_decode(bytes(out))
    for _ in range(depth):
        assert isinstance(v, list) and len(v) == 1
        v = v[0]
    assert v == []


def _random_value(rng: random.Random, depth: int) -> Any:
    """A random neutral value (no share/again)."""
    kind = rng.randrange(12 if depth < 3 else 9)
    if kind == 0:
        return rng.choice([None, True, False, "", [], {"map": []}])
    if kind == 1:
        bits = rng.choice([2, 6, 14, 30, 62, 64, 65, 100])
        return {"int": str(rng.randrange(-(1 << bits), 1 << bits))}
    if kind == 2:
        f = rng.choice(
            [rng.random(), round(rng.uniform(-180, 180), 6), float(rng.randrange(10**9))]
        )
        bits = rng.choice([struct.pack(">d", f).hex(), f"{rng.getrandbits(64):016x}"])
        return {"float": bits}
    if kind in (3, 4):
        return "".join(rng.choice("abcé✓\U0001d11e") for _ in range(rng.choice([1, 2, 5, 70])))
    if kind == 5:
        return {"bytes": rng.randbytes(rng.randrange(5)).hex()}
    if kind == 6:
        offset = rng.choice([None, 0, -86_399, 3600])
        secs = str(rng.randrange(-(1 << 63), 1 << 63))
        return {"timestamp": {"seconds": secs, "nanos": rng.randrange(10**9), "offset": offset}}
    if kind == 7:
        name, size = rng.choice(ref.VECTOR_TYPES)
        return {"vector": name, "data": rng.randbytes(size * rng.randrange(4)).hex()}
    if kind == 8:
        return {"ext": rng.getrandbits(rng.choice([3, 64])), "data": rng.randbytes(2).hex()}
    n = rng.choice([1, 3, 9, 40, 120])
    if kind in (9, 10):
        return [_random_value(rng, depth + 1) for _ in range(n)]
    keys = list(dict.fromkeys(f"k{rng.randrange(2 * n)}" for _ in range(n)))
    return {"map": [[k, _random_value(rng, depth + 1)] for k in keys]}


def test_encoder_round_trips_random_values() -> None:
    """Everything the encoder writes validates and decodes to the value
    (wide slots, absolute references, indexes, spilled integers...)."""
    rng = random.Random(99)
    for _ in range(60):
        value = _random_value(rng, 0)
        same(ref.validate_and_decode(ref.encode(value)), value)


@pytest.mark.parametrize(
    ("bits", "tag"),
    [
        ("7ff8000000000000", 0x08),  # the default quiet NaN: exact in binary32
        ("7ff8000020000000", 0x08),  # quiet, payload fits 23 bits
        ("7ff0000020000000", 0x09),  # signalling: `v as f32` quiets it (IEEE 754 6.2)
        ("7ff4000000000000", 0x09),  # signalling
        ("7ff80000deadbeef", 0x09),  # payload does not fit 23 bits
    ],
)
def test_encoder_nan_records(bits: str, tag: int) -> None:
    """Section 14: `08` only if widening `v as f32` gives back the bits of v;
    whatever the record, the reader gives back the exact bits (section 12)."""
    data = ref.encode({"float": bits})
    assert data[3] == tag
    assert ref.validate_and_decode(data) == {"float": bits}


@pytest.mark.parametrize(
    "hex_",
    [
        "52560114081c081c",  # map @3, relative shape distance 4: offset -1
        "5256018161140c1c081c",  # map @5, relative shape distance 6: offset -1
        "52560114061c081c",  # distance 3: offset 0, the header
        "52560114071c081c",  # absolute 3: the map itself
    ],
)
def test_map_shape_reference_before_the_document(hex_: str) -> None:
    """Sections 6.11 and 16.1 rule 16: a map's shape starts strictly before
    the map at the start of a record; an offset before the document start is
    neither. (The Rust validator accepted the first two as {} when this was
    written: found by comparing it with this reader on mutated vectors.)"""
    with pytest.raises(ref.RefError):
        ref.validate_and_decode(bytes.fromhex(hex_))


def test_people_json_size_is_the_one_section_21_quotes(people_path: Path) -> None:
    """Section 21.2: roving gives 700,943 bytes on 1000people.json. The
    section-14 encoder, from the JSON mapping of section 17.1, gives exactly
    that many, and the reader decodes them back to the same value."""
    value = json_to_neutral(people_path.read_text(encoding="utf-8"))
    data = ref.encode(value)
    assert len(data) == 700_943
    same(ref.validate_and_decode(data), value)
