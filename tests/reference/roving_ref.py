"""An independent validating reader of roving v1, written from docs/FORMAT.md alone.

Pure Python 3.11, standard library only, and deliberately plain: it exists to
check that the specification is enough to build a second implementation, not
to be fast. It does not import the ``roving`` package.

``validate_and_decode(data)`` checks every rule of FORMAT.md section 16.1 and
returns the root value in the neutral notation of ``tests/vectors/README.md``:

* ``None``, ``True``, ``False``, ``str`` and ``list`` stand for themselves;
* ``{"int": "<decimal>"}``, ``{"float": "<16 hex digits of the bits>"}``,
  ``{"bytes": "<hex>"}``, ``{"map": [[key, value], ...]}``,
  ``{"timestamp": {"seconds": "<decimal>", "nanos": n, "offset": s | None}}``,
  ``{"vector": "<type>", "data": "<hex>"}`` (a shaped vector, section 6.17,
  also has ``"shape": [d0, d1, ...]``), ``{"ext": id, "data": "<hex>"}``.

A shared subtree decodes to its value (the same Python object in each place).

Any input the specification says a validator must reject raises
``RefError(kind, offset, message)``; ``kind`` is the error kind FORMAT.md
gives in brackets (a hint only, as the spec says).

No recursion anywhere: the document is read in the one forward pass of
section 16.2, and because every reference points strictly backward, each
record's value can be built as soon as the record is scanned, from the values
of earlier records. The root value is the value of the last record. So any
nesting depth is fine, and a shared subtree is decoded once.

``encode(value)`` goes the other way, following the reference encoder's
choices that section 14 describes (informative there), so that its output can
be compared byte for byte with the golden vectors. It too is iterative (an
explicit stack of open containers).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "RefError",
    "encode",
    "float_text",
    "json_text",
    "key_hash",
    "validate_and_decode",
    "well_known_ext_text",
]

MAGIC = b"RV"
VERSION = 1  # what encode() writes
VERSIONS = (1, 2)  # what validate_and_decode() reads (section 19)
WIDTHS = (1, 2, 4, 8)  # section 3: slot width by width code (tag & 3)

# Section 6.1, the tag table.
T_I8, T_I16, T_I32, T_I64, T_U64 = 0x01, 0x02, 0x03, 0x04, 0x05
T_BIG_POS, T_BIG_NEG = 0x06, 0x07
T_F32, T_F64, T_FDEC = 0x08, 0x09, 0x20
T_TS, T_TS_OFF = 0x0A, 0x0B
T_STR, T_BYTES, T_EXT, T_VECTOR = 0x0C, 0x0D, 0x0E, 0x0F
T_ARRAY, T_MAP, T_SHAPE, T_ROOT = 0x10, 0x14, 0x18, 0x1C  # each + width code
T_SHAPED_VECTOR = 0x23  # version 2 (section 6.17)
SHAPED_VECTOR_MAX_NDIM = 64
SHAPED_VECTOR_MAX_EMPTY_ROWS = 4096  # rows of a shaped vector with no elements
T_SHORT_STR = 0x80  # 0x80..=0xBF, length in the tag
T_NUMS, T_NUMS_DEC = 0x30, 0x3A  # section 6.14 (version 2): 0x30 + vector type, decimal
T_STR_ARRAY = 0x22  # section 6.15, version 2 only
T_PACKED_SHAPE = 0x25  # section 6.18, version 2 only
T_STRIDE_ARRAY = 0x3B  # section 6.16, version 2 only
T_NUM_MAP = 0x26  # section 6.19, version 2 only
STRIDE_MAX = (1 << 32) - 1  # the largest stride
STR_BLOCK = 16  # strings per block of a string array
KEYS_BY_LENGTH = 0x10  # packed shape widths bit 4: keys by length, then bytes
KEYS_BY_BYTES = 0x20  # packed shape widths bit 5: keys by bytes
KEYS_ORDER_BITS = KEYS_BY_LENGTH | KEYS_BY_BYTES  # at most one set; no index

# Section 9: vector element types by type byte: (name, element size).
VECTOR_TYPES = (
    ("i8", 1),
    ("u8", 1),
    ("i16", 2),
    ("u16", 2),
    ("i32", 4),
    ("u32", 4),
    ("i64", 8),
    ("u64", 8),
    ("f32", 4),
    ("f64", 8),
)

MASK64 = (1 << 64) - 1
HASH_SEED = 0x243F6A8885A308D3
HASH_MUL = 0x9E3779B97F4A7C15


class RefError(ValueError):
    """The input is not a valid roving v1 document."""

    def __init__(self, kind: str, offset: int, message: str) -> None:
        super().__init__(f"{kind} at offset {offset}: {message}")
        self.kind = kind
        self.offset = offset
        self.message = message


def is_string_tag(tag: int) -> bool:
    return tag == T_STR or 0x80 <= tag <= 0xBF


def is_shape_tag(tag: int) -> bool:
    return 0x18 <= tag <= 0x1B


def is_any_shape_tag(tag: int) -> bool:
    """A shape of key slots (18-1B) or a packed shape (25, section 6.18)."""
    return is_shape_tag(tag) or tag == T_PACKED_SHAPE


def key_order(order: int) -> Callable[[str], Any]:
    """The sort key of a packed shape's key order bit (section 6.18): bit 4,
    by length then bytes; bit 5, by bytes (unsigned, a prefix first: Python's
    ``bytes`` comparison). Lengths and bytes are the keys' UTF-8 bytes."""
    if order == KEYS_BY_LENGTH:
        return lambda k: (len(k.encode("utf-8")), k.encode("utf-8"))
    return lambda k: k.encode("utf-8")


def is_root_tag(tag: int) -> bool:
    return 0x1C <= tag <= 0x1F


def key_hash(key: bytes) -> int:
    """The 64-bit key hash of section 8.2."""
    h = HASH_SEED
    for i in range(0, len(key), 8):
        chunk = int.from_bytes(key[i : i + 8].ljust(8, b"\0"), "little")
        x = h ^ chunk
        h = (((x << 23) | (x >> 41)) & MASK64) * HASH_MUL & MASK64
    h ^= len(key)
    h ^= h >> 32
    h = h * HASH_MUL & MASK64
    h ^= h >> 29
    return h


def index_size(n: int) -> tuple[int, int]:
    """(table entries T, entry width E) of the index of a shape of n > 8 keys (section 8.3)."""
    need = n + n // 2 + 1
    table = 1
    while table < need:
        table *= 2
    entry = 1 if n < 255 else 2 if n < 65535 else 4
    return table, entry


def widen_f32_bits(b: int) -> int:
    """The binary64 bits of the exact widening of the binary32 with bits ``b``
    (section 12): sign kept, exponent rebiased, fraction moved to the top.
    Done on bits so that NaN payloads (signalling ones too) survive as the
    spec says, which a hardware conversion might not guarantee."""
    sign = b >> 31
    exp = (b >> 23) & 0xFF
    frac = b & 0x7FFFFF
    if exp == 0xFF:  # infinity or NaN
        return (sign << 63) | (0x7FF << 52) | (frac << 29)
    if exp == 0:
        if frac == 0:
            return sign << 63  # +-0.0
        # A binary32 subnormal is a binary64 normal: normalise it.
        e = -126
        while not frac & 0x800000:
            frac <<= 1
            e -= 1
        return (sign << 63) | ((e + 1023) << 52) | ((frac & 0x7FFFFF) << 29)
    return (sign << 63) | ((exp - 127 + 1023) << 52) | (frac << 29)


def float_value(bits: int) -> dict[str, str]:
    return {"float": format(bits, "016x")}


def int_value(v: int) -> dict[str, str]:
    return {"int": str(v)}


@dataclass
class Record:
    """What the scan remembers of a record: its tag and its decoded value
    (for a string its text, for a shape the list of its keys' texts)."""

    tag: int
    value: Any


class _Scanner:
    """The single forward pass of section 16.2."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.n = len(data)
        # The "record starts here" set of section 16.2, with each record's value.
        self.records: dict[int, Record] = {}
        self.hashes: dict[int, int] = {}  # key hash memoized per string record
        self.ends: dict[int, int] = {}  # where each record scanned so far ends

    # -- bounds and primitive reads --------------------------------------

    def take(self, pos: int, size: int, what: str) -> bytes:
        """The ``size`` bytes at ``pos``, which must all be in the input (rule 6).
        Python integers do not overflow, so a huge length or count x width is
        simply larger than the input. Rule 6 allows "Truncated or BadLength"
        without saying which; like the vectors' hints, a size that could not fit
        in the whole input is BadLength, one that runs past its end Truncated."""
        if pos + size > self.n:
            kind = "BadLength" if size > self.n else "Truncated"
            raise RefError(kind, pos, f"{what}: {size} bytes needed, input ends at {self.n}")
        return self.data[pos : pos + size]

    def uint(self, pos: int, size: int, what: str) -> int:
        return int.from_bytes(self.take(pos, size, what), "little")

    def sint(self, pos: int, size: int, what: str) -> int:
        return int.from_bytes(self.take(pos, size, what), "little", signed=True)

    def varint(self, pos: int, what: str) -> tuple[int, int]:
        """A canonical unsigned LEB128 (section 3, rule 5): (value, offset after it)."""
        value = 0
        for i in range(10):
            if pos + i >= self.n:
                raise RefError("Truncated", pos, f"{what}: input ends inside a varint")
            byte = self.data[pos + i]
            value |= (byte & 0x7F) << (7 * i)
            if not byte & 0x80:
                if i > 0 and byte == 0:
                    raise RefError("BadVarint", pos, f"{what}: non-minimal varint")
                if i == 9 and byte != 0x01:
                    raise RefError("BadVarint", pos, f"{what}: varint beyond 64 bits")
                return value, pos + i + 1
        raise RefError("BadVarint", pos, f"{what}: varint longer than 10 bytes")

    # -- slots (section 5, rules 12 and 13) ------------------------------

    def reference(self, base: int, kind: int, payload: int, at: int) -> int:
        """The target of a reference slot, checked to be a record start before ``base``."""
        # Section 5.1: the target lies in 3 ..= base - 1, before the container
        # and after the header.
        if kind == 0:
            if payload < 1 or payload > base - 3:
                raise RefError("BadReference", at, f"relative distance {payload} from base {base}")
            target = base - payload
        else:
            if payload < 3 or payload >= base:
                raise RefError("BadReference", at, f"absolute offset {payload} not in 3..{base}")
            target = payload
        # Every record before `base` has been scanned, so this is exact.
        if target not in self.records:
            raise RefError("BadReference", at, f"offset {target} is not the start of a record")
        return target

    def value_slot(self, base: int, at: int, w: int) -> Any:
        """The value of the slot of ``w`` bytes at ``at`` of the container at ``base`` (rule 12)."""
        r = self.uint(at, w, "slot")
        kind, payload = r & 3, r >> 2
        if kind == 1:  # small integer, sign-extended from 8w - 2 bits (section 5.2)
            bits = 8 * w - 2
            if payload >= 1 << (bits - 1):
                payload -= 1 << bits
            return int_value(payload)
        if kind == 3:  # special constant (section 5.3)
            if payload > 5:
                raise RefError("BadImmediate", at, f"undefined special constant {payload}")
            return (None, False, True, "", [], {"map": []})[payload]
        target = self.reference(base, kind, payload, at)
        rec = self.records[target]
        if is_any_shape_tag(rec.tag) or is_root_tag(rec.tag):
            raise RefError(
                "WrongTarget", at, f"value slot refers to tag {rec.tag:#04x} at {target}"
            )
        return rec.value

    def key_slot(self, base: int, at: int, w: int) -> tuple[str, int]:
        """A shape's key slot (rule 13): (key text, key hash)."""
        r = self.uint(at, w, "key slot")
        kind, payload = r & 3, r >> 2
        if kind == 3 and payload == 3:
            return "", key_hash(b"")
        if kind in (1, 3):
            raise RefError(
                "WrongTarget", at, "a key slot holds an integer or a constant other than 3"
            )
        target = self.reference(base, kind, payload, at)
        rec = self.records[target]
        if not is_string_tag(rec.tag):
            raise RefError(
                "WrongTarget", at, f"key slot refers to tag {rec.tag:#04x}, not a string"
            )
        if target not in self.hashes:
            self.hashes[target] = key_hash(rec.value.encode("utf-8"))
        return rec.value, self.hashes[target]

    # -- records (sections 6 to 13) --------------------------------------

    def record(self, start: int) -> tuple[int, Record]:
        """Checks the record at ``start``: (offset after it, Record)."""
        tag = self.data[start]
        p = start + 1
        if T_I8 <= tag <= T_I64:
            size = (1, 2, 4, 8)[tag - T_I8]
            return p + size, Record(tag, int_value(self.sint(p, size, "integer")))
        if tag == T_U64:
            return p + 8, Record(tag, int_value(self.uint(p, 8, "u64")))
        if tag in (T_BIG_POS, T_BIG_NEG):
            return self.big_integer(start, tag)
        if tag == T_F32:
            return p + 4, Record(tag, float_value(widen_f32_bits(self.uint(p, 4, "f32"))))
        if tag == T_F64:
            return p + 8, Record(tag, float_value(self.uint(p, 8, "f64")))
        if tag == T_FDEC:
            return self.decimal_float(start)
        if tag in (T_TS, T_TS_OFF):
            return self.timestamp(start, tag)
        if tag == T_STR or 0x80 <= tag <= 0xBF:
            return self.string(start, tag)
        if tag in (T_BYTES, T_EXT):
            return self.bytes_or_ext(start, tag)
        if tag == T_VECTOR:
            return self.vector(start)
        if 0x10 <= tag <= 0x13:
            return self.array(start, tag)
        if 0x14 <= tag <= 0x17:
            return self.map(start, tag)
        if is_shape_tag(tag):
            return self.shape(start, tag)
        if is_root_tag(tag):
            return self.root(start, tag)
        if T_NUMS <= tag <= T_NUMS_DEC and self.data[2] >= 2:
            return self.number_array(start, tag)
        if tag == T_SHAPED_VECTOR:
            return self.shaped_vector(start)
        if tag == T_STR_ARRAY and self.data[2] >= 2:
            return self.str_array(start)
        if tag == T_STRIDE_ARRAY and self.data[2] >= 2:
            return self.stride_array(start)
        if tag == T_PACKED_SHAPE and self.data[2] >= 2:
            return self.packed_shape(start)
        if tag == T_NUM_MAP and self.data[2] >= 2:
            return self.num_map(start)
        raise RefError("UnknownTag", start, f"tag {tag:#04x} is not defined in v1")

    def big_integer(self, start: int, tag: int) -> tuple[int, Record]:
        """Section 11: sign and magnitude, canonical (rule 8)."""
        n, p = self.varint(start + 1, "big integer length")
        mag = self.take(p, n, "big integer magnitude")
        if n == 0 or mag[-1] == 0:
            raise RefError("NonCanonical", start, "big integer: empty magnitude or zero high byte")
        m = int.from_bytes(mag, "little")
        if tag == T_BIG_POS:
            if n <= 8:  # the value fits u64
                raise RefError("NonCanonical", start, "positive big integer that fits 64 bits")
            value = m
        else:
            if n < 8 or (n == 8 and m <= 1 << 63):  # the value fits i64
                raise RefError("NonCanonical", start, "negative big integer that fits 64 bits")
            value = -m
        return p + n, Record(tag, int_value(value))

    def decimal_float(self, start: int) -> tuple[int, Record]:
        """Section 12: the binary64 nearest to m x 10^e (rule 9)."""
        e = self.sint(start + 1, 1, "decimal exponent")
        m = self.sint(start + 2, 4, "decimal mantissa")
        if abs(e) > 22:
            raise RefError("NonCanonical", start, f"decimal float exponent {e}")
        # Python's float() of a decimal string is correctly rounded (ties to even).
        bits = struct.unpack("<Q", struct.pack("<d", float(f"{m}e{e}")))[0]
        return start + 6, Record(T_FDEC, float_value(bits))

    def timestamp(self, start: int, tag: int) -> tuple[int, Record]:
        """Section 10 (rule 10)."""
        seconds = self.sint(start + 1, 8, "timestamp seconds")
        nanos = self.uint(start + 9, 4, "timestamp nanos")
        if nanos > 999_999_999:
            raise RefError("NonCanonical", start, f"timestamp nanos {nanos}")
        offset = None
        end = start + 13
        if tag == T_TS_OFF:
            offset = self.sint(start + 13, 4, "timestamp offset")
            if not -86_399 <= offset <= 86_399:
                raise RefError("NonCanonical", start, f"timestamp offset {offset}")
            end = start + 17
        ts = {"seconds": str(seconds), "nanos": nanos, "offset": offset}
        return end, Record(tag, {"timestamp": ts})

    def string(self, start: int, tag: int) -> tuple[int, Record]:
        """Section 7 (rule 7): valid UTF-8, surrogates and overlong forms rejected."""
        if tag == T_STR:
            n, p = self.varint(start + 1, "string length")
        else:
            n, p = tag - T_SHORT_STR, start + 1
        raw = self.take(p, n, "string")
        try:
            text = raw.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            raise RefError("InvalidUtf8", p + e.start, "string is not valid UTF-8") from None
        return p + n, Record(tag, text)

    def str_array(self, start: int) -> tuple[int, Record]:
        """Section 6.15 (rule 19): n strings packed in blocks of 16, each
        block's start in the data, each string's end from its block's start."""
        end, items, _ = self.strings(start, packed=False)
        return end, Record(T_STR_ARRAY, items)

    def strings(self, start: int, packed: bool) -> tuple[int, list[str], int]:
        """The layout of a string array (rule 19), or of a packed shape's keys
        (``packed``, rule 22: bits 4 and 5 of the widths byte, reserved in a
        string array, are its key order bits, at most one set). Returns the
        end of the strings, the strings and the key order bits (0 if none)."""
        n, p = self.varint(start + 1, "string array count")
        total, p = self.varint(p, "string array data length")
        widths = self.uint(p, 1, "string array widths")
        order = widths & KEYS_ORDER_BITS if packed else 0
        if order == KEYS_ORDER_BITS:
            raise RefError("NonCanonical", p, "both key order bits of the widths byte are set")
        if widths & 0xF0 & ~order:
            raise RefError("NonCanonical", p, "a reserved bit of the widths byte is set")
        w, v = WIDTHS[widths & 3], WIDTHS[(widths >> 2) & 3]
        p += 1
        blocks = (n + STR_BLOCK - 1) // STR_BLOCK
        self.take(p, blocks * w + n * v + total, "string array")  # rule 6 first
        q = p + blocks * w
        d = q + n * v
        raw = self.data[d : d + total]
        try:
            raw.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            raise RefError("InvalidUtf8", d + e.start, "string array data is not UTF-8") from None
        items: list[str] = []
        tiled = 0  # where the strings so far end: the next block starts there
        for b in range(blocks):
            base = self.uint(p + b * w, w, "block start")
            if base != tiled:
                raise RefError("BadLength", p + b * w, f"block {b} starts at {base}, not {tiled}")
            prev = 0
            for i in range(b * STR_BLOCK, min(n, (b + 1) * STR_BLOCK)):
                end = self.uint(q + i * v, v, "string end")
                if end < prev or base + end > total:
                    raise RefError("BadLength", q + i * v, f"string {i} ends at {end}")
                try:
                    items.append(raw[base + prev : base + end].decode("utf-8", errors="strict"))
                except UnicodeDecodeError:
                    raise RefError(
                        "InvalidUtf8", d + base + end, f"string {i} ends inside a character"
                    ) from None
                prev = end
            tiled = base + prev
        if tiled != total:
            raise RefError("BadLength", d + tiled, "the strings do not cover the data")
        return d + total, items, order

    def stride_array(self, start: int) -> tuple[int, Record]:
        """Section 6.16 (rule 21): n elements, the records that start at
        ``start - (n - i) * s``, each a value record scanned already, other
        than a stride array, and exactly s bytes long."""
        n, p = self.varint(start + 1, "stride array count")
        s, end = self.varint(p, "stride")
        if not 1 <= s <= STRIDE_MAX:
            raise RefError("BadLength", p, f"stride {s} not in 1..2^32-1")
        first = start - n * s
        if first < 3:
            raise RefError("BadReference", start + 1, "the elements would start in the header")
        items: list[Any] = []
        for i in range(n):
            t = first + i * s
            rec = self.records.get(t)
            if rec is None or rec.tag == T_STRIDE_ARRAY or is_any_shape_tag(rec.tag):
                raise RefError(
                    "BadReference", start + 1, f"element {i} is not a value record or is a stride"
                )
            if is_root_tag(rec.tag):
                raise RefError("BadReference", start + 1, f"element {i} is a root record")
            if self.ends[t] != t + s:
                raise RefError("BadLength", t, f"element {i} is not {s} bytes long")
            items.append(rec.value)
        return end, Record(T_STRIDE_ARRAY, items)

    def bytes_or_ext(self, start: int, tag: int) -> tuple[int, Record]:
        """Sections 6.7 and 13."""
        p = start + 1
        if tag == T_EXT:
            type_id, p = self.varint(p, "extension type id")
        n, p = self.varint(p, "length")
        raw = self.take(p, n, "payload")
        value = {"bytes": raw.hex()} if tag == T_BYTES else {"ext": type_id, "data": raw.hex()}
        return p + n, Record(tag, value)

    def vector(self, start: int) -> tuple[int, Record]:
        """Section 9 (rule 11)."""
        etype = self.uint(start + 1, 1, "vector element type")
        if etype >= len(VECTOR_TYPES):
            raise RefError("UnknownTag", start + 1, f"vector element type {etype}")
        name, size = VECTOR_TYPES[etype]
        count, p = self.varint(start + 2, "vector count")
        pad = -p % size  # to a multiple of the element size from the document start
        if any(self.take(p, pad, "vector padding")):
            raise RefError("NonCanonical", p, "vector padding is not zero")
        p += pad
        raw = self.take(p, count * size, "vector data")
        return p + count * size, Record(T_VECTOR, {"vector": name, "data": raw.hex()})

    def number_array(self, start: int, tag: int) -> tuple[int, Record]:
        """Section 6.14 (version 2): varint n, then n packed numbers of one
        vector element type, or an i8 exponent and n i32 decimal mantissas."""
        count, p = self.varint(start + 1, "number array count")
        if tag == T_NUMS_DEC:
            e = self.sint(p, 1, "decimal exponent")
            if abs(e) > 22:
                raise RefError("NonCanonical", p, f"decimal number array exponent {e}")
            raw = self.take(p + 1, count * 4, "decimal mantissas")
            items: list[Any] = []
            for i in range(count):
                m = int.from_bytes(raw[4 * i : 4 * i + 4], "little", signed=True)
                bits = struct.unpack("<Q", struct.pack("<d", float(f"{m}e{e}")))[0]
                items.append(float_value(bits))
            return p + 1 + count * 4, Record(tag, items)
        name, size = VECTOR_TYPES[tag - T_NUMS]
        raw = self.take(p, count * size, "number array elements")
        items = []
        for i in range(count):
            b = raw[size * i : size * i + size]
            if name == "f32":
                items.append(float_value(widen_f32_bits(int.from_bytes(b, "little"))))
            elif name == "f64":
                items.append(float_value(int.from_bytes(b, "little")))
            else:
                items.append(int_value(int.from_bytes(b, "little", signed=name[0] == "i")))
        return p + count * size, Record(tag, items)

    def shaped_vector(self, start: int) -> tuple[int, Record]:
        """Section 6.17 (rule 11): a version 2 record; element types and
        padding as section 9; 2 to 64 dimensions, row-major data."""
        if self.data[2] < 2:
            raise RefError("UnknownTag", start, "tag 0x23 (version 2) in a version 1 document")
        etype = self.uint(start + 1, 1, "shaped vector element type")
        if etype >= len(VECTOR_TYPES):
            raise RefError("UnknownTag", start + 1, f"vector element type {etype}")
        name, size = VECTOR_TYPES[etype]
        ndim, p = self.varint(start + 2, "shaped vector ndim")
        if ndim < 2:
            raise RefError("NonCanonical", start + 2, f"a shaped vector of {ndim} dimensions")
        if ndim > SHAPED_VECTOR_MAX_NDIM:
            raise RefError("BadLength", start + 2, f"a shaped vector of {ndim} dimensions")
        shape = []
        for _ in range(ndim):
            d, p = self.varint(p, "shaped vector dimension")
            shape.append(d)
        count = 1
        for d in shape:
            count *= d
        if count * size >= 1 << 64:
            raise RefError("BadLength", start, "the data size of a shaped vector overflows")
        if count == 0:
            rows = 1
            for d in shape:
                if d == 0:
                    break
                rows *= d
            if rows > SHAPED_VECTOR_MAX_EMPTY_ROWS:
                raise RefError("BadLength", start, f"an empty shaped vector of {rows} rows")
        pad = -p % size  # to a multiple of the element size from the document start
        if any(self.take(p, pad, "shaped vector padding")):
            raise RefError("NonCanonical", p, "shaped vector padding is not zero")
        p += pad
        raw = self.take(p, count * size, "shaped vector data")
        value = {"vector": name, "shape": shape, "data": raw.hex()}
        return p + count * size, Record(T_SHAPED_VECTOR, value)

    def array(self, start: int, tag: int) -> tuple[int, Record]:
        """Section 6.10: varint count, count slots; base = the array's tag."""
        w = WIDTHS[tag & 3]
        count, p = self.varint(start + 1, "array count")
        self.take(p, count * w, "array slots")  # rule 6 before reading any slot
        items = [self.value_slot(start, p + i * w, w) for i in range(count)]
        return p + count * w, Record(tag, items)

    def record_ref(self, start: int, r: int, what: str) -> int:
        """The record that the varint reference ``r`` of the record at
        ``start`` locates (section 6.11's shape reference, also section
        6.19's values reference): even, ``r >> 1`` back from ``start``, at
        least 1; odd, the absolute offset ``r >> 1``, at least 3 and below
        ``start``; a record start [BadReference]."""
        if r & 1:
            target = r >> 1
            if not 3 <= target < start:
                raise RefError(
                    "BadReference", start, f"absolute {what} offset {target} not in 3..{start}"
                )
        else:
            if r >> 1 < 1 or r >> 1 > start - 3:
                raise RefError("BadReference", start, f"relative {what} distance {r >> 1}")
            target = start - (r >> 1)
        if target not in self.records:
            raise RefError(
                "BadReference", start, f"{what} offset {target} is not the start of a record"
            )
        return target

    def map_keys(self, start: int, s: int) -> list[str]:
        """The keys of the shape that the shape reference ``s`` of the map at
        ``start`` locates (rule 16): in range, a record start, a shape of
        either kind (18-1B or a packed shape 25) [WrongTarget]."""
        rec = self.records[self.record_ref(start, s, "shape")]
        if not is_any_shape_tag(rec.tag):
            raise RefError(
                "WrongTarget", start, f"map's shape reference points to tag {rec.tag:#04x}"
            )
        keys: list[str] = rec.value
        return keys

    def map(self, start: int, tag: int) -> tuple[int, Record]:
        """Section 6.11 (rule 16): shape reference, one value slot per key.
        Rule 16's order: the reference is checked (in range, a record start,
        a shape) before the key count that gives the map's length is read."""
        w = WIDTHS[tag & 3]
        s, p = self.varint(start + 1, "shape reference")
        keys = self.map_keys(start, s)
        self.take(p, len(keys) * w, "map slots")
        entries = [[key, self.value_slot(start, p + i * w, w)] for i, key in enumerate(keys)]
        return p + len(keys) * w, Record(tag, {"map": entries})

    def num_map(self, start: int) -> tuple[int, Record]:
        """Section 6.19 (rule 23, version 2): a shape reference as a map's,
        then a values reference encoded the same way to a number array
        record (30-3A) of one element per key; value i is its element i."""
        s, p = self.varint(start + 1, "shape reference")
        v, end = self.varint(p, "values reference")
        keys = self.map_keys(start, s)
        rec = self.records[self.record_ref(start, v, "values")]
        if not T_NUMS <= rec.tag <= T_NUMS_DEC:
            raise RefError("WrongTarget", start, f"values reference points to tag {rec.tag:#04x}")
        if len(rec.value) != len(keys):
            raise RefError(
                "BadLength",
                start,
                f"{len(rec.value)} numbers for the {len(keys)} keys of the shape",
            )
        entries = [[key, value] for key, value in zip(keys, rec.value, strict=True)]
        return end, Record(T_NUM_MAP, {"map": entries})

    def shape(self, start: int, tag: int) -> tuple[int, Record]:
        """Section 8 (rules 13, 14, 15): key slots, then the index if n > 8."""
        w = WIDTHS[tag & 3]
        n, p = self.varint(start + 1, "shape key count")
        self.take(p, n * w, "key slots")
        keys: list[str] = []
        hashes: list[int] = []
        seen: set[str] = set()
        for i in range(n):
            key, h = self.key_slot(start, p + i * w, w)
            if key in seen:  # equal text <=> equal UTF-8 bytes
                raise RefError("DuplicateKey", p + i * w, f"key {key!r} appears twice")
            seen.add(key)
            keys.append(key)
            hashes.append(h)
        p += n * w
        if n > 8:
            p = self.index(p, hashes)
        return p, Record(tag, keys)

    def packed_shape(self, start: int) -> tuple[int, Record]:
        """Section 6.18 (rule 22): keys laid out as a string array's, distinct,
        then the dense index if n > 8; or, with a key order bit (bit 4: by
        length then bytes, bit 5: by bytes), no index whatever n and each key
        after the one before it in that order [BadIndex; DuplicateKey if equal]."""
        p, keys, order = self.strings(start, packed=True)
        if order:
            sort_key = key_order(order)
            for i in range(1, len(keys)):
                a, b = sort_key(keys[i - 1]), sort_key(keys[i])
                if a == b:
                    raise RefError("DuplicateKey", start, f"key {keys[i]!r} appears twice")
                if a > b:
                    raise RefError(
                        "BadIndex",
                        start,
                        f"keys said to be in order are not: {keys[i - 1]!r} before {keys[i]!r}",
                    )
            return p, Record(T_PACKED_SHAPE, keys)
        seen: set[str] = set()
        for key in keys:
            if key in seen:
                raise RefError("DuplicateKey", start, f"key {key!r} appears twice")
            seen.add(key)
        if len(keys) > 8:
            p = self.index(p, [key_hash(k.encode("utf-8")) for k in keys], dense=True)
        return p, Record(T_PACKED_SHAPE, keys)

    def index(self, p: int, hashes: list[int], dense: bool = False) -> int:
        """Rule 15: the hash index of a shape of n > 8 keys; returns the offset
        after it. ``dense``: a packed shape's (section 6.18: n + n // 4 + 1
        entries, home = hash * T >> 64)."""
        n = len(hashes)
        size, ew = index_size(n)
        if dense:
            size = n + n // 4 + 1
        raw = self.take(p, size * ew, "index")
        entries = [int.from_bytes(raw[i * ew : (i + 1) * ew], "little") for i in range(size)]
        where = [-1] * n  # the position of each key
        for pos, e in enumerate(entries):
            if e > n:
                raise RefError("BadIndex", p, f"entry {pos} names key {e - 1} of {n}")
            if e:
                if where[e - 1] >= 0:
                    raise RefError("BadIndex", p, f"key {e - 1} appears twice")
                where[e - 1] = pos
        if -1 in where:
            raise RefError("BadIndex", p, f"key {where.index(-1)} is missing")
        if 0 not in entries:
            raise RefError("BadIndex", p, "no empty entry")
        # Linear probing: no empty entry strictly between a key's home and its
        # position. Walk once around from just after an empty entry, keeping
        # `run` = the first position of the current run of full entries; a key
        # at `pos` is reachable iff its home lies in [run, pos] (cyclically).
        empty = entries.index(0)
        run = (empty + 1) % size
        for step in range(1, size + 1):
            pos = (empty + step) % size
            e = entries[pos]
            if e == 0:
                run = (pos + 1) % size
                continue
            h = hashes[e - 1]
            home = (h * size) >> 64 if dense else h & (size - 1)
            if (pos - home) % size > (pos - run) % size:
                raise RefError("BadIndex", p, f"key {e - 1} (home {home}) unreachable at {pos}")
        return p + size * ew

    def root(self, start: int, tag: int) -> tuple[int, Record]:
        """Sections 4.3 and 6.13 (rule 17): tag, one value slot, the tag again."""
        w = WIDTHS[tag & 3]
        self.take(start, w + 2, "root record")
        value = self.value_slot(start, start + 1, w)
        if self.data[start + 1 + w] != tag:
            raise RefError("BadTrailer", start, "root record does not end with its tag")
        return start + w + 2, Record(tag, value)


def validate_and_decode(data: bytes, dictionary: bytes | None = None) -> Any:
    """Validates ``data`` as a roving v1 document (FORMAT.md section 16.1) and
    returns its root value in the neutral notation; raises RefError if invalid.
    A document bound to a shared dictionary (section 23) is read with
    ``dictionary``, the dictionary's bytes (section 23.4)."""
    data = bytes(data)
    plain = _unbind(data, dictionary)
    if plain is not None:
        return validate_and_decode(plain)
    n = len(data)
    # Rule 1: header.
    if n < 3:
        if MAGIC.startswith(data):
            raise RefError("Truncated", n, "input shorter than the header")
        raise RefError("BadMagic", 0, "not RV")
    if data[:2] != MAGIC:
        raise RefError("BadMagic", 0, "not RV")
    if data[2] not in VERSIONS:
        raise RefError("UnsupportedVersion", 2, f"version {data[2]}")
    # Rule 2: trailer (section 4.3).
    if n <= 3:
        raise RefError("BadTrailer", n, "no root record")
    last = data[-1]
    if not is_root_tag(last):
        raise RefError("BadTrailer", n - 1, f"last byte {last:#04x} is not a root tag")
    w = WIDTHS[last & 3]
    root_pos = n - w - 2
    if root_pos < 3 or data[root_pos] != last:
        raise RefError("BadTrailer", max(root_pos, 0), "root record tags disagree")
    # Rules 3 to 17: one forward scan over the records (section 16.2).
    scan = _Scanner(data)
    pos = 3
    start = pos
    while pos < n:
        start = pos
        pos, rec = scan.record(start)
        scan.records[start] = rec
        scan.ends[start] = pos
    if start != root_pos or pos != n:
        raise RefError("BadTrailer", start, "the records do not end with the root record")
    return scan.records[root_pos].value


# ---------------------------------------------------------------------------
# Shared dictionaries (section 23).
# ---------------------------------------------------------------------------

T_BINDING = 0x24
DICT_ID_START = 0xC8A344938C3FDE43  # key_hash(b"roving dictionary")


def dictionary_id(entries: list[Any], n: int) -> int:
    """Section 23.2: id_at(n) of ``entries`` (a str per string entry, a list
    of keys per shape entry)."""
    h = DICT_ID_START
    for e in entries[:n]:
        if isinstance(e, str):
            canon = b"\x00" + e.encode("utf-8")
        else:
            canon = b"\x01" + b"".join(varint(len(k.encode())) + k.encode() for k in e)
        h = key_hash(h.to_bytes(8, "little") + canon)
    return h


def dictionary_entries(data: bytes) -> list[Any]:
    """Section 23.4: the entries of a whole dictionary's bytes."""
    root = validate_and_decode(data)
    fields = dict(root["map"]) if isinstance(root, dict) and "map" in root else {}
    if sorted(fields) != ["base", "entries", "from"] or len(root["map"]) != 3:
        raise RefError("BadDictionary", 0, "not a dictionary")
    if fields["from"] != {"int": "0"} or fields["base"] != {"int": str(DICT_ID_START)}:
        raise RefError("BadDictionary", 0, "a delta, not a whole dictionary")
    entries = fields["entries"]
    if not isinstance(entries, list):
        raise RefError("BadDictionary", 0, "entries is not an array")
    for e in entries:
        ok = (isinstance(e, str) and e) or (
            isinstance(e, list)
            and e
            and all(isinstance(k, str) for k in e)
            and len(set(e)) == len(e)
        )
        if not ok:
            raise RefError("BadDictionary", 0, f"bad entry {e!r}")
    return entries


def dictionary_base(entries: list[Any], n: int) -> bytes:
    """Section 23.3: the base B(n), written by the section-14 string and
    shape rules."""
    enc = _Encoder()
    enc.out[2] = 2
    for e in entries[:n]:
        if isinstance(e, str):
            enc.string(e)
        else:
            enc.shape([None if k == "" else enc.string(k)[1] for k in e])
    return bytes(enc.out)


def _unbind(data: bytes, dictionary: bytes | None) -> bytes | None:
    """The plain document a bound document reads as (section 23.3), or None
    for a document without a binding."""
    if len(data) <= 3 or data[:2] != MAGIC or data[2] not in VERSIONS or data[3] != T_BINDING:
        return None
    if data[2] == 1:
        raise RefError("UnknownTag", 3, "a binding record in a version 1 document")
    scan = _Scanner(data)
    count, p = scan.varint(4, "binding count")
    ident = scan.uint(p, 8, "binding id")
    if dictionary is None:
        raise RefError("DictionaryRequired", 3, f"needs dictionary {ident:016x} ({count} entries)")
    entries = dictionary_entries(dictionary)
    if count > len(entries) or dictionary_id(entries, count) != ident:
        raise RefError("DictionaryMismatch", 3, f"needs dictionary {ident:016x} ({count} entries)")
    return dictionary_base(entries, count) + data[p + 8 :]


def binding(entries: list[Any], n: int) -> bytes:
    """The header and binding record of a document bound to ``entries[:n]``."""
    return (
        MAGIC + bytes([2, T_BINDING]) + varint(n) + dictionary_id(entries, n).to_bytes(8, "little")
    )


# ---------------------------------------------------------------------------
# Encoder: the choices of section 14 ("How the reference encoder chooses an
# encoding", informative), from the neutral notation. Also recursion-free on
# the value: an explicit stack of open containers.
# ---------------------------------------------------------------------------

INLINE_MIN = {w: -(1 << (8 * w - 3)) for w in WIDTHS}  # section 5.2
INLINE_MAX = {w: (1 << (8 * w - 3)) - 1 for w in WIDTHS}
VECTOR_SIZES = {name: (code, size) for code, (name, size) in enumerate(VECTOR_TYPES)}


def varint(v: int) -> bytes:
    """Unsigned LEB128, minimal (section 3)."""
    out = bytearray()
    while True:
        byte = v & 0x7F
        v >>= 7
        if v:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def int_record(v: int) -> bytes:
    """The narrowest of the records 01..04 holding v (v in i64)."""
    for tag, size in ((T_I8, 1), (T_I16, 2), (T_I32, 4), (T_I64, 8)):
        if -(1 << (8 * size - 1)) <= v < 1 << (8 * size - 1):
            return bytes([tag]) + v.to_bytes(size, "little", signed=True)
    raise AssertionError(v)


def narrow_f64_bits(bits: int) -> int | None:
    """Section 14's test for an 08 record: the binary32 ``v as f32``, if
    widening it gives back the binary64 ``bits``; else None.

    ``v as f32`` is an IEEE 754 format conversion, which turns a signalling
    NaN into a quiet one (IEEE 754-2008 section 6.2), so a signalling NaN
    never gets an 08 record even when its payload fits 23 bits, although the
    bit-level widening that section 12 specifies for readers would give it
    back exactly. FORMAT.md does not say so (see the findings)."""
    if (bits >> 52) & 0x7FF == 0x7FF:  # infinity or NaN: the payload must fit 23 bits
        is_nan = bits & ((1 << 52) - 1) != 0
        if bits & ((1 << 29) - 1) or (is_nan and not bits & (1 << 51)):
            return None
        return ((bits >> 63) << 31) | (0xFF << 23) | ((bits >> 29) & 0x7FFFFF)
    v = struct.unpack("<d", bits.to_bytes(8, "little"))[0]
    try:
        b32 = struct.unpack("<I", struct.pack("<f", v))[0]
    except OverflowError:
        return None
    return b32 if widen_f32_bits(b32) == bits else None


def decimal_of(bits: int) -> tuple[int, int] | None:
    """(m, e) for the 20 record of section 14, or None: the shortest round-trip
    digits of v (Python's repr, like Ryu, gives the shortest digits that read
    back as v, the nearest to v if several), trailing zeros removed, with m in
    i32, |e| <= 22, and m x 10^e decoding to the exact bits."""
    v = struct.unpack("<d", bits.to_bytes(8, "little"))[0]
    if v != v or v in (float("inf"), float("-inf")):
        return None
    text = repr(v)
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("-")
    e = int(exp or 0) - len(frac)
    stripped = digits.rstrip("0")
    if not stripped:
        return None  # zero: always an 08 record
    e += len(digits) - len(stripped)
    m = int(stripped) * (-1 if text.startswith("-") else 1)
    if not (-(1 << 31) <= m < 1 << 31 and abs(e) <= 22):
        return None
    if struct.unpack("<Q", struct.pack("<d", float(f"{m}e{e}")))[0] != bits:
        return None
    return m, e


def string_head(raw: bytes) -> bytes:
    """The tag (and length) of the string record of ``raw`` (section 14)."""
    return bytes([T_SHORT_STR + len(raw)]) if len(raw) <= 63 else bytes([T_STR]) + varint(len(raw))


def str_array_record(texts: list[bytes]) -> bytes:
    """The string array record of ``texts`` (section 6.15) at the narrowest
    widths: W holds the last block's start, V the longest block."""
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for b in range(0, len(texts), STR_BLOCK):
        starts.append(at)
        end = 0
        for t in texts[b : b + STR_BLOCK]:
            end += len(t)
            ends.append(end)
        at += end
    w = next(w for w in WIDTHS if starts[-1] < 1 << (8 * w))
    v = next(w for w in WIDTHS if max(ends) < 1 << (8 * w))
    rec = bytearray([T_STR_ARRAY]) + varint(len(texts)) + varint(at)
    rec.append(WIDTHS.index(w) | WIDTHS.index(v) << 2)
    for s in starts:
        rec += s.to_bytes(w, "little")
    for e in ends:
        rec += e.to_bytes(v, "little")
    return bytes(rec) + b"".join(texts)


@dataclass
class _Open:
    """A container being encoded: its kind, the neutral value's items still
    to encode (reversed, so that the next one is popped from the end), and
    the slot items of those already encoded."""

    kind: str  # "array", "map" or "root"
    todo: list[Any]
    items: list[tuple[str, int]]
    keys: list[int | None]  # map: key string record offset (None: the empty key)
    share: str | None  # the name to remember the container under, if shared
    start: int = 0  # the output's length when it opened (section 14, number and string arrays)


class _Encoder:
    def __init__(self) -> None:
        self.out = bytearray(MAGIC + bytes([VERSION]))
        self.strings: dict[bytes, int] = {}  # each distinct string once (section 7)
        self.string_at: dict[int, bytes] = {}  # and back, for key hashes
        self.shapes: dict[tuple[int | None, ...], int] = {}  # key records -> shape
        self.shared: dict[str, tuple[str, int]] = {}  # share name -> slot item
        self.version = VERSION  # 2 once a number array record is written
        self.marked = 0  # one past the last record remembered under a share name

    @property
    def here(self) -> int:
        return len(self.out)

    def write(self, record: bytes) -> int:
        at = self.here
        self.out += record
        return at

    # Slot items: ("ref", offset of a record), ("int", pending inline-range
    # integer), ("special", P).

    def string(self, text: str) -> tuple[str, int]:
        raw = text.encode("utf-8")
        if not raw:
            return ("special", 3)
        if raw not in self.strings:
            self.strings[raw] = self.write(string_head(raw) + raw)
            self.string_at[self.strings[raw]] = raw
        return ("ref", self.strings[raw])

    def scalar(self, value: Any) -> tuple[str, int]:
        """The slot item of a value that is not a non-empty array or map."""
        if value is None or isinstance(value, bool):
            return ("special", {None: 0, False: 1, True: 2}[value])
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, list):
            assert not value
            return ("special", 4)
        if "map" in value:
            assert not value["map"]
            return ("special", 5)
        if "int" in value:
            v = int(value["int"])
            if INLINE_MIN[8] <= v <= INLINE_MAX[8]:
                return ("int", v)
            if -(1 << 63) <= v < 1 << 63:
                return ("ref", self.write(int_record(v)))
            if 0 <= v < 1 << 64:
                return ("ref", self.write(bytes([T_U64]) + v.to_bytes(8, "little")))
            mag = abs(v).to_bytes((abs(v).bit_length() + 7) // 8, "little")
            tag = T_BIG_POS if v > 0 else T_BIG_NEG
            return ("ref", self.write(bytes([tag]) + varint(len(mag)) + mag))
        if "float" in value:
            bits = int(value["float"], 16)
            b32 = narrow_f64_bits(bits)
            if b32 is not None:
                return ("ref", self.write(bytes([T_F32]) + b32.to_bytes(4, "little")))
            dec = decimal_of(bits)
            if dec is not None:
                m, e = dec
                rec = bytes([T_FDEC]) + e.to_bytes(1, "little", signed=True)
                return ("ref", self.write(rec + m.to_bytes(4, "little", signed=True)))
            return ("ref", self.write(bytes([T_F64]) + bits.to_bytes(8, "little")))
        if "bytes" in value:
            raw = bytes.fromhex(value["bytes"])
            return ("ref", self.write(bytes([T_BYTES]) + varint(len(raw)) + raw))
        if "ext" in value:
            raw = bytes.fromhex(value["data"])
            rec = bytes([T_EXT]) + varint(value["ext"]) + varint(len(raw)) + raw
            return ("ref", self.write(rec))
        if "timestamp" in value:
            ts = value["timestamp"]
            rec = int(ts["seconds"]).to_bytes(8, "little", signed=True)
            rec += ts["nanos"].to_bytes(4, "little")
            if ts["offset"] is None:
                return ("ref", self.write(bytes([T_TS]) + rec))
            rec += ts["offset"].to_bytes(4, "little", signed=True)
            return ("ref", self.write(bytes([T_TS_OFF]) + rec))
        if "vector" in value and "shape" in value:
            # Section 6.17: a version 2 record, so the document is version 2.
            code, size = VECTOR_SIZES[value["vector"]]
            raw = bytes.fromhex(value["data"])
            head = bytes([T_SHAPED_VECTOR, code]) + varint(len(value["shape"]))
            head += b"".join(varint(d) for d in value["shape"])
            pad = -(self.here + len(head)) % size
            self.out[2] = max(self.out[2], 2)
            return ("ref", self.write(head + bytes(pad) + raw))
        if "vector" in value:
            code, size = VECTOR_SIZES[value["vector"]]
            raw = bytes.fromhex(value["data"])
            head = bytes([T_VECTOR, code]) + varint(len(raw) // size)
            pad = -(self.here + len(head)) % size
            return ("ref", self.write(head + bytes(pad) + raw))
        raise ValueError(f"not a neutral value: {value!r}")

    @staticmethod
    def fits(w: int, distance: int, target: int) -> bool:
        limit = 1 << (8 * w - 2)
        return distance < limit or target < limit

    @staticmethod
    def ref_slot(w: int, base: int, target: int) -> int:
        """A reference slot: relative if ``distance << 2`` fits w bytes, else absolute."""
        if base - target < 1 << (8 * w - 2):
            return (base - target) << 2
        return (target << 2) | 2

    def follows_f64_row(self, c: _Open, parent: _Open | None) -> bool:
        """Section 14, "Stride arrays": whether the array ``c`` of floats
        has, just before it in the array ``parent``, an f64 number array of
        as many elements that ends where ``c`` starts, or an array record of
        as many elements that ends there in an array whose first element is
        such an f64 number array."""
        if parent is None or parent.kind != "array" or not parent.items:
            return False
        kind, prev = parent.items[-1]
        if kind != "ref":
            return False
        if self.out[prev] == T_NUMS + 9:
            size = 8
        elif self.out[prev] & ~3 == T_ARRAY:  # a row with integers among its floats
            size = WIDTHS[self.out[prev] & 3]
            kind, first = parent.items[0]
            n = len(c.items)
            if kind != "ref" or self.out[first] != T_NUMS + 9:
                return False
            if self.out[first + 1 : first + 1 + len(varint(n))] != varint(n):
                return False
        else:
            return False
        n = len(c.items)
        return self.out[prev + 1 : prev + 1 + len(varint(n))] == varint(n) and (
            prev + 1 + len(varint(n)) + size * n == c.start
        )

    def read_varint(self, at: int) -> tuple[int, int]:
        """The varint written at ``at`` of the output: (value, offset after it)."""
        value, shift = 0, 0
        while True:
            b = self.out[at]
            value |= (b & 0x7F) << shift
            at += 1
            if not b & 0x80:
                return value, at
            shift += 7

    def stride_array(self, c: _Open) -> bytes | None:
        """Section 14, "Stride arrays": the stride array record of an array
        of at least 2 elements that are number array records at equal steps
        ending where the array starts; else None."""
        n = len(c.items)
        if n < 2 or any(kind != "ref" for kind, _ in c.items):
            return None
        first = c.items[0][1]
        stride = c.items[1][1] - first
        if not 1 <= stride <= STRIDE_MAX or first + n * stride != self.here:
            return None
        for i, (_, t) in enumerate(c.items):
            if t != first + i * stride or not T_NUMS <= self.out[t] <= T_NUMS_DEC:
                return None
            count, p = self.read_varint(t + 1)
            size = 4 if self.out[t] == T_NUMS_DEC else VECTOR_TYPES[self.out[t] - T_NUMS][1]
            if p + (self.out[t] == T_NUMS_DEC) + count * size != t + stride:
                return None  # not exactly `stride` bytes long
        return bytes([T_STRIDE_ARRAY]) + varint(n) + varint(stride)

    def matrix_rows(self, c: _Open) -> bytes | None:
        """Section 14, "Rows with integers among their floats": if the
        elements of the array ``c`` are f64 rows of m numbers and array
        records of m slots (inline integers, references into the number
        records of their gap), and laying them out again with a stride
        array is smaller than the array record of slots, does it (gaps
        first, then the rows at one size) and returns the stride array
        record to write; else None."""
        sizes = {T_I8: 1, T_I16: 2, T_I32: 4, T_I64: 8, T_U64: 8, T_F32: 4, T_F64: 8, T_FDEC: 5}
        n = len(c.items)
        if n < 2 or self.marked > c.start or any(kind != "ref" for kind, _ in c.items):
            return None
        first = c.items[0][1]
        if self.out[first] != T_NUMS + 9 and self.out[first] & ~3 != T_ARRAY:
            return None
        m, _ = self.read_varint(first + 1)
        stride = 1 + len(varint(m)) + 8 * m
        if m == 0 or stride > STRIDE_MAX:
            return None
        here = self.here
        rows: list[tuple[int, int, int, int]] = []  # gap, row, slot width (0: f64 row), slots
        at, gaps, far = c.start, 0, 0
        for _, r in c.items:
            if r < at:
                return None
            far = max(far, min(here - r, r))
            tag = self.out[r]
            count, slots = self.read_varint(r + 1)
            if count != m:
                return None
            if tag == T_NUMS + 9:
                if r != at:
                    return None
                rows.append((at, r, 0, slots))
                at = r + stride
                continue
            if tag & ~3 != T_ARRAY:
                return None
            nxt = at
            while nxt < r:
                if self.out[nxt] not in sizes:
                    return None
                nxt += 1 + sizes[self.out[nxt]]
            w = WIDTHS[tag & 3]
            for i in range(m):
                raw = int.from_bytes(self.out[slots + i * w : slots + (i + 1) * w], "little")
                if raw & 3 == 1:
                    continue  # an inline integer
                if raw & 3 == 3:
                    return None  # a special constant
                target = r - (raw >> 2) if raw & 2 == 0 else raw >> 2
                if not at <= target < r:
                    return None
            if nxt != r:
                return None
            gaps += r - at
            rows.append((at, r, w, slots))
            at = slots + m * w
        if at != here or all(w == 0 for _, _, w, _ in rows):
            return None
        reach = next(w for w in WIDTHS if far < 1 << (8 * w - 2))
        slots_form = (here - c.start) + 1 + len(varint(n)) + n * reach
        stride_form = gaps + n * stride + 1 + len(varint(n)) + len(varint(stride))
        if stride_form >= slots_form:
            return None
        gap_bytes = b"".join(bytes(self.out[g:r]) for g, r, w, _ in rows if w)
        body = bytearray()
        gap_to = c.start
        for i, (g, r, w, slots) in enumerate(rows):
            if w == 0:
                body += self.out[r : r + stride]
                continue
            pos = c.start + gaps + i * stride
            body += bytes([T_ARRAY + 3]) + varint(m)
            for k in range(m):
                raw = int.from_bytes(self.out[slots + k * w : slots + (k + 1) * w], "little")
                if raw & 3 == 1:
                    v = raw - (1 << 8 * w) if raw >> (8 * w - 1) else raw
                    slot = (((v >> 2) << 2) | 1) % (1 << 64)
                else:
                    target = r - (raw >> 2) if raw & 2 == 0 else raw >> 2
                    slot = (pos - (gap_to + target - g)) << 2
                body += slot.to_bytes(8, "little")
            gap_to += r - g
        del self.out[c.start :]
        self.out += gap_bytes + body
        return bytes([T_STRIDE_ARRAY]) + varint(n) + varint(stride)

    def number_array(self, c: _Open, parent: _Open | None = None) -> bytes | None:
        """Section 14, "Number arrays": the number array record of an array
        whose items are only integers (inline, or records 01..05) or only
        float records (08, 09, 20), laid one after the other from where the
        array opened, none of them shared; else None. Floats after an f64
        row of as many elements in the same array are f64 (section 14,
        "Stride arrays")."""
        if not c.items or self.marked > c.start:
            return None
        sizes = {T_I8: 1, T_I16: 2, T_I32: 4, T_I64: 8, T_U64: 8, T_F32: 4, T_F64: 8, T_FDEC: 5}
        ints: list[int] = []
        floats: list[tuple[int, bytes]] = []
        at = c.start
        for kind, v in c.items:
            if kind == "int":
                ints.append(v)
                continue
            if kind != "ref" or v != at or self.out[at] not in sizes:
                return None
            tag = self.out[at]
            payload = bytes(self.out[at + 1 : at + 1 + sizes[tag]])
            at += 1 + sizes[tag]
            if tag in (T_F32, T_F64, T_FDEC):
                floats.append((tag, payload))
            else:
                ints.append(int.from_bytes(payload, "little", signed=tag != T_U64))
        if at != self.here or (ints and floats):
            return None
        n = varint(len(c.items))
        if ints:
            lo, hi = min(ints), max(ints)
            for code, (name, size) in enumerate(VECTOR_TYPES[:8]):
                signed = name[0] == "i"
                low = -(1 << (8 * size - 1)) if signed else 0
                high = (1 << (8 * size - (1 if signed else 0))) - 1
                if low <= lo and hi <= high:
                    data = b"".join(v.to_bytes(size, "little", signed=signed) for v in ints)
                    return bytes([T_NUMS + code]) + n + data
            return None  # negative and above 2^63 - 1
        if all(tag == T_F32 for tag, _ in floats) and not self.follows_f64_row(c, parent):
            return bytes([T_NUMS + 8]) + n + b"".join(p for _, p in floats)

        def bits_of(tag: int, p: bytes) -> int:
            if tag == T_F32:
                return widen_f32_bits(int.from_bytes(p, "little"))
            if tag == T_F64:
                return int.from_bytes(p, "little")
            m, e = (
                int.from_bytes(p[1:], "little", signed=True),
                int.from_bytes(p[:1], "little", signed=True),
            )
            return struct.unpack("<Q", struct.pack("<d", float(f"{m}e{e}")))[0]

        all_bits = [bits_of(tag, p) for tag, p in floats]
        f64 = bytes([T_NUMS + 9]) + n + b"".join(b.to_bytes(8, "little") for b in all_bits)
        if any(tag == T_F64 for tag, _ in floats) or self.follows_f64_row(c, parent):
            return f64
        decs: list[tuple[int, int] | None] = []  # None: +0.0, at any exponent
        for bits in all_bits:
            if bits == 0:
                decs.append(None)
                continue
            d = decimal_of(bits)
            if d is None:  # -0.0, NaN, infinities, or too many digits
                return f64
            decs.append(d)
        e = min(d[1] for d in decs if d is not None)
        ms = [0 if d is None else d[0] * 10 ** (d[1] - e) for d in decs]
        if not all(-(1 << 31) <= m < 1 << 31 for m in ms):
            return f64
        data = b"".join(m.to_bytes(4, "little", signed=True) for m in ms)
        return bytes([T_NUMS_DEC]) + n + e.to_bytes(1, "little", signed=True) + data

    def close(self, c: _Open, parent: _Open | None = None) -> tuple[str, int]:
        """Ends a container (an element of ``parent``, if any): chooses its
        width (section 14, "Containers") and writes its integer records and
        then the container record."""
        if c.kind == "array":
            packed = self.number_array(c, parent)
            if packed is not None:
                del self.out[c.start :]
                self.version = 2
                return ("ref", self.write(packed))
            packed_strs = self.str_array(c)
            if packed_strs is not None:
                return packed_strs
            strided = self.stride_array(c)
            if strided is None:
                strided = self.matrix_rows(c)
            if strided is not None:
                self.version = 2
                return ("ref", self.write(strided))
        shape = None
        if c.kind == "map":
            # Section 8.5: a repeated key keeps its first position and its last
            # value. The values given first were already written (streaming).
            merged: dict[int | None, tuple[str, int]] = {}
            for key, item in zip(c.keys, c.items, strict=True):
                merged[key] = item  # a dict keeps the first insertion position
            c.keys, c.items = list(merged), list(merged.values())
            shape = self.shape(c.keys)
        n = len(c.items)
        here = self.here
        best = None
        # The narrowest feasible width that needs no integer record.
        plain = None
        for w in WIDTHS:
            spilled = [
                len(int_record(v))
                for kind, v in c.items
                if kind == "int" and not INLINE_MIN[w] <= v <= INLINE_MAX[w]
            ]
            extra = sum(spilled)
            pos = here + extra
            feasible = all(self.fits(w, pos - t, t) for kind, t in c.items if kind == "ref")
            # The integer records themselves, at here, here + s0, ...
            t = here
            for size in spilled:
                feasible = feasible and self.fits(w, pos - t, t)
                t += size
            if not feasible:
                continue
            if c.kind == "array":
                size = 1 + len(varint(n)) + n * w
            elif c.kind == "map":
                size = 3 + n * w
            else:
                size = 2 + w
            cost = extra + size
            if best is None or cost < best[0]:
                best = (cost, w)
            if plain is None and not spilled:
                plain = (cost, w)
        assert best is not None, "no slot width reaches every target"
        w = best[1]
        # Section 14: no integer records if that costs at most an eighth more.
        if plain is not None and plain[0] <= best[0] + best[0] // 8:
            w = plain[1]
        targets = []
        for kind, v in c.items:
            if kind == "int" and not INLINE_MIN[w] <= v <= INLINE_MAX[w]:
                targets.append(("ref", self.write(int_record(v))))
            else:
                targets.append((kind, v))
        base = self.here
        if c.kind == "array":
            rec = bytearray([T_ARRAY | WIDTHS.index(w)]) + varint(n)
        elif c.kind == "map":
            assert shape is not None
            rel, absolute = varint((base - shape) << 1), varint((shape << 1) | 1)
            rec = bytearray([T_MAP | WIDTHS.index(w)]) + (
                absolute if len(absolute) < len(rel) else rel
            )
        else:
            rec = bytearray([T_ROOT | WIDTHS.index(w)])
        for kind, v in targets:
            if kind == "ref":
                r = self.ref_slot(w, base, v)
            elif kind == "int":
                r = (v << 2 | 1) & ((1 << (8 * w)) - 1)
            else:
                r = (v << 2) | 3
            rec += r.to_bytes(w, "little")
        if c.kind == "root":
            rec.append(rec[0])
        return ("ref", self.write(bytes(rec)))

    def str_array(self, c: _Open) -> tuple[str, int] | None:
        """Section 14, "String arrays": an array of at least 8 non-empty
        strings, each a record written inside it (a string's first
        occurrence there, in order with nothing else between) or before it,
        becomes one string array record of every element's bytes if that is
        smaller than the string records written inside and the array; the
        strings written inside are then forgotten."""
        n = len(c.items)
        if n < 8:
            return None
        texts: list[bytes] = []
        news: list[int] = []
        at = c.start
        for kind, t in c.items:
            if kind != "ref" or t not in self.string_at:
                return None
            raw = self.string_at[t]
            if t == at:
                news.append(t)
                at += len(string_head(raw)) + len(raw)
            elif t >= c.start and t not in news:
                return None
            texts.append(raw)
        if at != self.here:
            return None
        here = self.here
        w = next(w for w in WIDTHS if all(self.fits(w, here - t, t) for _, t in c.items))
        record = str_array_record(texts)
        if len(record) >= (here - c.start) + 1 + len(varint(n)) + n * w:
            return None
        for t in news:
            del self.strings[self.string_at[t]], self.string_at[t]
        del self.out[c.start :]
        self.out[2] = 2  # a version 2 record (section 19)
        return ("ref", self.write(record))

    def shape(self, keys: list[int | None]) -> int:
        """The shape of a key sequence, written now if it is new (section 14, "Maps")."""
        seq = tuple(keys)
        if seq in self.shapes:
            return self.shapes[seq]
        base = self.here
        w = next(w for w in WIDTHS if all(self.fits(w, base - t, t) for t in keys if t is not None))
        rec = bytearray([T_SHAPE | WIDTHS.index(w)]) + varint(len(keys))
        for t in keys:
            r = (3 << 2) | 3 if t is None else self.ref_slot(w, base, t)
            rec += r.to_bytes(w, "little")
        if len(keys) > 8:
            table, ew = index_size(len(keys))
            entries = [0] * table
            for k, t in enumerate(keys):
                raw = b"" if t is None else self.string_at[t]
                i = key_hash(raw) & (table - 1)
                while entries[i]:
                    i = (i + 1) & (table - 1)
                entries[i] = k + 1
            for e in entries:
                rec += e.to_bytes(ew, "little")
        self.shapes[seq] = self.write(bytes(rec))
        return self.shapes[seq]


def encode(value: Any, entries: list[Any] | None = None) -> bytes:
    """The bytes section 14's reference encoder writes for a neutral value
    (``{"share": name, "value": v}`` writes v and remembers it under name,
    ``{"again": name}`` refers to it again); with ``entries`` (a shared
    dictionary's, section 23), the document bound to all of them."""
    enc = _Encoder()
    base_len = 0
    if entries:
        base = dictionary_base(entries, len(entries))
        for e in entries:  # the base's strings and shapes, as the encoder wrote them
            if isinstance(e, str):
                enc.string(e)
            else:
                enc.shape([None if k == "" else enc.string(k)[1] for k in e])
        assert bytes(enc.out[3:]) == base[3:]
        enc.version = 2
        enc.marked = base_len = len(enc.out)
    stack = [_Open("root", [value], [], [], None)]  # the root: a container of one slot
    while True:
        top = stack[-1]
        if not top.todo:
            item = enc.close(top, stack[-2] if len(stack) > 1 else None)
            stack.pop()
            if top.share is not None:
                enc.shared[top.share] = item
            if not stack:
                enc.out[2] = max(enc.out[2], enc.version)
                if entries:
                    return binding(entries, len(entries)) + bytes(enc.out[base_len:])
                return bytes(enc.out)
            stack[-1].items.append(item)
            continue
        v = top.todo.pop()
        if top.kind == "map":
            key, v = v
            top.keys.append(None if key == "" else enc.string(key)[1])
        share = None
        if isinstance(v, dict) and "share" in v:
            share, v = v["share"], v["value"]
        if isinstance(v, dict) and "again" in v:
            top.items.append(enc.shared[v["again"]])
            continue
        if isinstance(v, list) and v:
            stack.append(_Open("array", v[::-1], [], [], share, enc.here))
        elif isinstance(v, dict) and "map" in v and v["map"]:
            stack.append(_Open("map", v["map"][::-1], [], [], share))
        else:
            item = enc.scalar(v)
            if share is not None:
                enc.shared[share] = item
                if item[0] == "ref":  # its record stays where it is
                    enc.marked = max(enc.marked, item[1] + 1)
            top.items.append(item)


# ---------------------------------------------------------------------------
# JSON text (section 17.2) of values of the JSON kinds: null, booleans,
# integers, floats, strings, arrays and maps.
# ---------------------------------------------------------------------------


def float_text(bits: int) -> str:
    """Section 17.2, "Float text": the JSON text of the binary64 ``bits``
    (``null`` for NaN and infinities)."""
    v = struct.unpack("<d", bits.to_bytes(8, "little"))[0]
    if v != v or v in (float("inf"), float("-inf")):
        return "null"
    sign = "-" if bits >> 63 else ""
    if v == 0:
        return sign + "0.0"
    # Python's repr has the shortest digits (the nearest if several), as Ryu.
    mantissa, _, exp = repr(abs(v)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    # value = int(whole + frac) x 10^(exp - len(frac)); p = the position of
    # the decimal point before the first significant digit.
    scale = int(exp or 0) - len(frac)
    k = len(digits.rstrip("0"))
    p = len(digits) + scale
    digits = digits[:k]
    if 1 <= p <= 16:
        if p >= k:
            return sign + digits + "0" * (p - k) + ".0"
        return sign + digits[:p] + "." + digits[p:]
    if -4 <= p <= 0:
        return sign + "0." + "0" * -p + digits
    rest = "." + digits[1:] if k > 1 else ""
    return f"{sign}{digits[0]}{rest}e{p - 1}"


def _json_string(s: str) -> str:
    """Section 17.2: `"` and `\\` and controls below U+0020 escaped, the rest raw."""
    out = ['"']
    short = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b"}
    short["\f"] = "\\f"
    for c in s:
        if c in short:
            out.append(short[c])
        elif c < " ":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def json_text(value: Any) -> str:
    """The compact JSON text (section 17.2) of a neutral value of the JSON
    kinds (``share``/``again`` expanded). Iterative: an explicit stack."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, _Text):
            out.append(v.text)
        elif v is None:
            out.append("null")
        elif v is True or v is False:
            out.append("true" if v else "false")
        elif isinstance(v, str):
            out.append(_json_string(v))
        elif isinstance(v, list):
            parts: list[Any] = [_Text("[")]
            for i, x in enumerate(v):
                parts += [_Text(",")] * (i > 0) + [x]
            stack += reversed(parts + [_Text("]")])
        elif "map" in v:
            parts = [_Text("{")]
            for i, (key, x) in enumerate(v["map"]):
                parts += [_Text(("," if i else "") + _json_string(key) + ":"), x]
            stack += reversed(parts + [_Text("}")])
        elif "int" in v:
            out.append(str(int(v["int"])))
        elif "float" in v:
            out.append(float_text(int(v["float"], 16)))
        else:
            raise ValueError(f"not a value of a JSON kind: {v!r}")
    return "".join(out)


@dataclass
class _Text:
    text: str


# ---------------------------------------------------------------------------
# The well-known extension types of section 13.1.
# ---------------------------------------------------------------------------

EXT_DATE, EXT_UUID, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA = 1, 2, 3, 4, 5
US_PER_DAY = 86_400_000_000
DATE_MIN_DAYS, DATE_MAX_DAYS = -719_162, 2_932_896  # 0001-01-01, 9999-12-31
DELTA_MIN_SECONDS = -999_999_999 * 86_400
DELTA_MAX_SECONDS = 999_999_999 * 86_400 + 86_399

_DIGITS = "[0-9]+"
_DECIMAL = re.compile(
    rf"[+-]?(?:(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"
    rf"|(?i:inf|infinity|s?nan(?:{_DIGITS})?))"
)


def _civil(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a count of days since 1970-01-01 (proleptic
    Gregorian), H. Hinnant's civil_from_days."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def _hms(us: int, short: bool) -> str:
    s, frac = divmod(us, 1_000_000)
    out = f"{s // 3600:02}:{s // 60 % 60:02}"
    if not short or s % 60 or frac:
        out += f":{s % 60:02}"
    if frac:
        out += f".{frac:06}"
    return out


def well_known_ext_text(type_id: int, data: bytes) -> str | None:
    """Section 13.1: the text form of a well-known extension value (ids 1 to
    5), None for other ids; raises RefError("BadExt") for a payload a reader
    that interprets the id must reject."""

    def bad(why: str) -> RefError:
        return RefError("BadExt", 0, f"extension type {type_id}: {why}")

    n = len(data)
    if type_id == EXT_DATE:
        if n != 4:
            raise bad("date payload is not 4 bytes")
        days = int.from_bytes(data, "little", signed=True)
        if not DATE_MIN_DAYS <= days <= DATE_MAX_DAYS:
            raise bad("date outside years 1 to 9999")
        y, m, d = _civil(days)
        return f"{y:04}-{m:02}-{d:02}"
    if type_id == EXT_UUID:
        if n != 16:
            raise bad("UUID payload is not 16 bytes")
        h = data.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    if type_id == EXT_DECIMAL:
        if not data or any(not 0x21 <= b <= 0x7E for b in data):
            raise bad("Decimal payload empty or not printable ASCII without spaces")
        text = data.decode("ascii")
        if not _DECIMAL.fullmatch(text):
            raise bad(f"{text!r} is not a decimal number")
        return text
    if type_id == EXT_TIME:
        if n not in (9, 17):
            raise bad("time payload is not 9 or 17 bytes")
        us = int.from_bytes(data[:8], "little")
        if us >= US_PER_DAY:
            raise bad("time of a day or more")
        if data[8] > 1:
            raise bad("fold is not 0 or 1")
        text = _hms(us, False)
        if n == 17:
            off = int.from_bytes(data[9:], "little", signed=True)
            if abs(off) >= US_PER_DAY:
                raise bad("UTC offset of a day or more")
            text += ("-" if off < 0 else "+") + _hms(abs(off), True)
        return text
    if type_id == EXT_TIMEDELTA:
        if n != 12:
            raise bad("timedelta payload is not 12 bytes")
        seconds = int.from_bytes(data[:8], "little", signed=True)
        us = int.from_bytes(data[8:], "little")
        if us >= 1_000_000:
            raise bad("microseconds of a second or more")
        if not DELTA_MIN_SECONDS <= seconds <= DELTA_MAX_SECONDS:
            raise bad("outside the range of a timedelta")
        total = seconds * 1_000_000 + us
        if total == 0:
            return "P0D"
        days, rest = divmod(abs(total), US_PER_DAY)
        text = ("-" if total < 0 else "") + "P" + (f"{days}D" if days else "")
        if rest:
            whole, frac = divmod(rest, 1_000_000)
            text += f"T{whole}" + (f".{frac:06}".rstrip("0") if frac else "") + "S"
        return text
    return None
