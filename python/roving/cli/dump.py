"""``roving dump FILE``: a readable, typed view of a document (``--json``:
JSON). The records come from the core's walker (``roving::walk``) and
their values from the package (extension values as the date, UUID,
Decimal, time or timedelta ``loads`` gives): this module knows no byte
positions."""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import json
import math
import sys
import uuid
from collections.abc import Iterable
from typing import IO, Any

from .._argtypes import count, spaces
from .documents import (
    add_dictionary_option,
    add_from_option,
    load_dictionary,
    load_input,
    stream_frames,
    stream_records,
    to_json,
    warn_torn,
)
from .errors import CliError, api
from .files import check_file, write_stdout

#: A slot as the walker gives it: ("ref", offset), ("int", n) or
#: ("special", k); and ("more", n) for the line "… n more".
Slot = tuple[str, int]
#: A record as the walker gives it: (offset, end, kind, encoding, width,
#: count, shape, slots, value).
Record = tuple[int, int, str, str, int, int, int | None, tuple[Slot, ...], Any]

#: Special constants, as dump prints them.
_SPECIALS = {0: "null", 1: "bool false", 2: "bool true", 3: 'str ""', 4: "array[0]", 5: "map{0}"}


def register(sub: Any) -> None:
    """Adds the ``dump`` command to the subparsers ``sub``."""
    d = sub.add_parser(
        "dump",
        help="print a readable, typed view of a document",
        description="Print the document as an indented tree with the type of every value "
        "(shared containers are printed once). --json prints JSON instead. A record stream "
        "prints each of its records (--json: the array of them).",
    )
    d.add_argument("file", metavar="FILE")
    d.add_argument("--json", action="store_true", help="print JSON instead of the typed view")
    d.add_argument("--indent", type=spaces, metavar="N", help="JSON indent with --json (default 2)")
    d.add_argument(
        "--max-items",
        type=count,
        metavar="N",
        help="show at most N items of each array or map",
    )
    d.add_argument(
        "--depth",
        type=count,
        metavar="N",
        help="expand at most N levels of containers (1: the root only; 0: not even the root)",
    )
    d.add_argument(
        "--offsets",
        action="store_true",
        help="show each record's byte offset and encoding",
    )
    add_from_option(d)
    add_dictionary_option(d)
    d.set_defaults(func=run)


class _Dumper:
    def __init__(
        self,
        records: list[Record],
        out: IO[str],
        *,
        max_items: int | None,
        max_depth: int | None,
        offsets: bool,
    ) -> None:
        self.recs = {r[0]: r for r in records}
        self.root = records[-1]
        self.out = out
        self.max_items = max_items
        self.max_depth = max_depth
        self.offsets = offsets
        self.seen: set[int] = set()
        self.lines = 0
        #: Elements of string arrays to print, by the index a ("text", i) slot holds.
        self.texts: list[str] = []
        #: Values of maps of numbers to print, by the index a ("number", i) slot holds.
        self.numbers: list[float] = []

    def write(self, indent: int, label: str, text: str) -> None:
        self.out.write("  " * indent + label + text + "\n")
        self.lines += 1

    def run(self) -> None:
        # An explicit stack: no recursion, whatever the depth.
        stack: list[tuple[int, str, Slot]] = [(0, "", self.root[7][0])]
        while stack:
            indent, label, slot = stack.pop()
            if slot[0] == "more":
                self.write(indent, label, f"… {slot[1]:,} more")
                continue
            children = self.value(indent, label, slot)
            if children:
                stack.extend(reversed(children))

    def map_keys(self, shape: int) -> list[str]:
        if self.recs[shape][2] == "packed shape":
            # A packed shape (format version 2): its keys are its value.
            return list(self.recs[shape][8])
        keys = []
        for kind, v in self.recs[shape][7]:
            keys.append(self.recs[v][8] if kind == "ref" else "")
        return keys

    def value(self, indent: int, label: str, slot: Slot) -> list[tuple[int, str, Slot]]:
        kind, v = slot
        if kind == "int":
            self.write(indent, label, f"int {v}" + (" (inline)" if self.offsets else ""))
            return []
        if kind == "special":
            self.write(indent, label, _SPECIALS.get(v, "null"))
            return []
        if kind == "text":
            self.write(indent, label, "str " + json.dumps(self.texts[v], ensure_ascii=False))
            return []
        if kind == "number":
            x = self.numbers[v]
            self.write(
                indent, label, f"float {_fmt_float(x)}" if isinstance(x, float) else f"int {x}"
            )
            return []
        pos, _, rkind, enc, _, count, shape, slots, val = self.recs[v]
        at = f"  @{pos} {enc}" if self.offsets else ""
        items: Iterable[Slot] = slots
        if rkind == "strings":
            # A string array record (format version 2): printed as an
            # array of string records is.
            rkind, count = "array", len(val)
            items = (self.text(s) for s in val)
        if rkind == "stride":
            # A stride array record (format version 2): its elements, the
            # records right before it, as an array's slots.
            rkind, count = "array", len(slots)
        if rkind == "map of numbers":
            # A map of numbers (format version 2): its values, the elements
            # of a number array, as a map's slots.
            if val is None:
                # Another map of numbers of the same values, given once.
                assert shape is not None
                n, values = len(self.map_keys(shape)), slots[0][1]
                self.write(
                    indent, label, f"map{{{n}}} of the values @{values} (shared, shown above)"
                )
                return []
            rkind, count = "map", len(val)
            items = (self.number(x) for x in val)
        if rkind in ("array", "map"):
            if pos in self.seen:
                what = f"array[{count}]" if rkind == "array" else f"map{{{count}}}"
                self.write(indent, label, f"{what} = @{pos} (shared, shown above)")
                return []
            self.seen.add(pos)
            if rkind == "array":
                self.write(indent, label, f"array[{count}]{at}")
            else:
                self.write(indent, label, f"map{{{count}}}{at}")
            if self.max_depth is not None and indent >= self.max_depth:
                if count:
                    self.write(indent + 1, "", "…")
                return []
            shown = count if self.max_items is None else min(count, self.max_items)
            kids: list[tuple[int, str, Slot]] = []
            keys = None
            if rkind == "map":
                assert shape is not None  # the walker gives every map its shape
                keys = self.map_keys(shape)
            for i, s in zip(range(shown), items, strict=False):
                lab = f"[{i}]: " if keys is None else f"{_key_label(keys[i])}: "
                kids.append((indent + 1, lab, s))
            if shown < count:
                kids.append((indent + 1, "", ("more", count - shown)))
            return kids
        if rkind == "str":
            text = "str " + json.dumps(val, ensure_ascii=False)
        elif rkind in ("int", "uint", "bigint"):
            text = "int " + _fmt_int(val)
        elif rkind == "float":
            text = f"float {_fmt_float(val)}"
        elif rkind == "timestamp":
            text = f"timestamp {_fmt_timestamp(*val)}"
        elif rkind == "bytes":
            text = f"bytes[{len(val)}] {val[:24].hex()}" + ("…" if len(val) > 24 else "")
        elif rkind == "ext":
            text = _ext_value_text(val)
        elif rkind in ("vector", "numbers"):
            n, first, shape = val
            dims = "x".join(str(d) for d in shape)  # [2x3] for a shaped vector
            text = (
                f"{enc}[{dims}] ["
                + ", ".join(_fmt_float(x) if isinstance(x, float) else str(x) for x in first)
                + (", …" if n > len(first) else "")
                + "]"
            )
        else:
            text = rkind
        self.write(indent, label, text + at)
        return []

    def number(self, x: float) -> Slot:
        """A slot standing for the number ``x`` (a value of a map of numbers)."""
        self.numbers.append(x)
        return ("number", len(self.numbers) - 1)

    def text(self, s: str) -> Slot:
        """A slot standing for the string ``s`` (an element of a string array)."""
        self.texts.append(s)
        return ("text", len(self.texts) - 1)


def _ext_value_text(v: Any) -> str:
    """An extension value, as the package decoded it: its own types spelled
    out, others (roving.Ext) as their type id and payload."""
    if isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        return f"date {v}"
    if isinstance(v, uuid.UUID):
        return f"uuid {v}"
    if isinstance(v, decimal.Decimal):
        return f"decimal {v}"
    if isinstance(v, dt.time):
        return f"time {v.isoformat()}" + (" fold=1" if v.fold else "")
    if isinstance(v, dt.timedelta):
        return f"timedelta {v}"
    data = bytes(v.data)
    more = "…" if len(data) > 24 else ""
    return f"ext(type {v.type_id})[{len(data)}] {data[:24].hex()}{more}"


def _key_label(k: str) -> str:
    if k and k.isprintable() and not any(c in k for c in ":\"' ") and k.strip() == k:
        return k
    return json.dumps(k, ensure_ascii=False)


def _fmt_int(n: int) -> str:
    """Decimal text of ``n``; past Python's limit on int-to-text conversion
    (4300 digits, which also guards against its quadratic cost) only the
    sign and the approximate length."""
    try:
        return str(n)
    except ValueError:
        digits = int(n.bit_length() * math.log10(2)) + 1
        return f"{'-' if n < 0 else ''}… (about {digits:,} digits; --json prints them all)"


def _fmt_float(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(x)


def _fmt_timestamp(secs: int, nanos: int, off: int | None) -> str:
    try:
        tz = dt.timezone(dt.timedelta(seconds=off)) if off is not None else dt.UTC
        d = dt.datetime.fromtimestamp(secs, tz)
        frac = f".{nanos:09d}".rstrip("0") if nanos else ""
        base = d.strftime("%Y-%m-%dT%H:%M:%S") + (frac if frac != "." else "")
        if off is None:
            return base  # no offset recorded: none shown (it is not UTC)
        if off == 0:
            return base + "Z"
        h, rest = divmod(abs(off), 3600)
        m, s = divmod(rest, 60)
        return base + f"{'-' if off < 0 else '+'}{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")
    except (OverflowError, OSError, ValueError):
        return f"{secs}s+{nanos}ns" + (f" offset {off}s" if off is not None else "")


def run(args: argparse.Namespace) -> int:
    if args.indent is not None and not args.json:
        raise CliError("--indent applies to JSON output: add --json", status=2)
    check_file(args.file)
    data, kind = load_input(args.file, args.from_, load_dictionary(args.dictionary))
    rv = api()
    if kind == "stream":
        return _run_stream(rv, args, data)
    if args.json:
        js = to_json(rv, args.file, data, args.indent if args.indent is not None else 2)
        write_stdout(js + b"\n")
        return 0
    out = sys.stdout
    _dump_tree(data, out, args)
    out.flush()
    return 0


def _dump_tree(data: bytes, out: IO[str], args: argparse.Namespace) -> None:
    """Writes the typed view of the document ``data`` to ``out``."""
    from roving._roving import _records

    _Dumper(
        _records(data, values=True),
        out,
        max_items=args.max_items,
        max_depth=args.depth,
        offsets=args.offsets,
    ).run()


def _run_stream(rv: Any, args: argparse.Namespace, data: bytes) -> int:
    """``dump`` of a record stream: each record under a line that gives its
    number, offset and size (``--max-items`` also limits the records); with
    ``--json``, the JSON array of the records."""
    import io

    frames, torn = stream_frames(args.file, data)
    warn_torn(args.file, torn)
    records = stream_records(frames)
    shown = records if args.max_items is None else records[: args.max_items]
    if args.json:
        indent = args.indent if args.indent is not None else 2
        parts = [to_json(rv, args.file, f[4], indent).decode() for f in shown]
        pad = " " * indent
        body = ",\n".join(pad + p.replace("\n", "\n" + pad) for p in parts)
        write_stdout(("[\n" + body + "\n]\n" if parts else "[]\n").encode())
        return 0
    out = sys.stdout
    for i, (_, offset, _, payload, doc) in enumerate(shown):
        out.write(f"record [{i}] @{offset} ({len(payload):,} bytes)\n")
        buf = io.StringIO()
        _dump_tree(doc, buf, args)
        out.write("".join("  " + line + "\n" for line in buf.getvalue().splitlines()))
    if len(shown) < len(records):
        out.write(f"… {len(records) - len(shown):,} more records\n")
    out.flush()
    return 0
