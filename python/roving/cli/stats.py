"""``roving stats FILE``: where the bytes of a document go, by record kind
and encoding, and what sharing (deduplication) saved. The records come
from the core's walker (``roving::walk``): this module knows no byte
positions."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .documents import (
    add_dictionary_option,
    add_from_option,
    load_dictionary,
    load_input,
    stream_frames,
    stream_records,
    torn_text,
)
from .files import check_file, display_name
from .progress import Progress

HEADER_LEN = 3  # the bytes before the first record: "RV" and the version

#: Record kind -> stats section.
SECTIONS = {
    "str": "strings",
    "strings": "strings",
    "int": "numbers",
    "uint": "numbers",
    "bigint": "numbers",
    "float": "numbers",
    "timestamp": "other scalars",
    "bytes": "other scalars",
    "ext": "other scalars",
    "vector": "vectors",
    "numbers": "numbers",
    "array": "containers",
    "stride": "containers",
    "map": "containers",
    "map of numbers": "containers",
    "shape": "shapes",
    "packed shape": "shapes",
    "root": "root",
}

#: Special constant (slot) -> kind of value, for the value counts.
_SPECIAL_KIND = {0: "null", 1: "bool", 2: "bool", 3: "str", 4: "array", 5: "map"}
#: Record kind -> kind of value, for the value counts.
_VALUE_KIND = {
    "str": "str",
    "int": "int",
    "uint": "int",
    "bigint": "int",
    "float": "float",
    "array": "array",
    "numbers": "array",
    "strings": "array",
    "stride": "array",
    "map": "map",
    "map of numbers": "map",
}


#: Encodings of number arrays whose elements are floats.
_FLOAT_NUMBERS = ("numbers<f32>", "numbers<f64>", "numbers<decimal>")


def register(sub: Any) -> None:
    """Adds the ``stats`` command to the subparsers ``sub``."""
    s = sub.add_parser(
        "stats",
        help="show where the bytes of a document go",
        description="Break the size of a document down: strings (and map keys), numbers, containers, "
        "shapes (shared key lists), and what sharing repeated values saved. A .json FILE is converted first. "
        "A record stream: its records, their sizes, the bytes of its framing and of its documents' sections.",
    )
    s.add_argument("file", metavar="FILE")
    s.add_argument("--json", action="store_true", help="print the numbers as JSON")
    add_from_option(s)
    add_dictionary_option(s)
    s.set_defaults(func=run)


def compute_stats(buf: bytes) -> dict[str, Any]:
    """Where the bytes of a document go, by record kind, and what sharing
    (deduplication) saved. Validates ``buf`` (a DecodeError if invalid)."""
    from roving._roving import _records

    recs = _records(buf)
    sections: dict[str, dict[str, int]] = {}
    encodings: dict[str, dict[str, int]] = {}
    #: offset -> record index; child references per record (shape first for maps)
    index = {r[0]: i for i, r in enumerate(recs)}
    kinds = [r[2] for r in recs]
    children: list[list[int]] = []
    key_strings: set[int] = set()
    n_slots = n_refs = n_ints = n_consts = slot_bytes = 0
    values = dict.fromkeys(("null", "bool", "int", "float", "str", "array", "map", "other"), 0)

    #: encoding -> [kind, records, bytes], in the order first met
    by_enc: dict[str, list[Any]] = {}
    for pos, end, kind, enc, width, count, shape, slots, _ in recs:
        e = by_enc.get(enc)
        if e is None:
            e = by_enc[enc] = [kind, 0, 0]
        e[1] += 1
        e[2] += end - pos
        if kind == "numbers":  # a number array: its elements are in the record
            values["float" if enc in _FLOAT_NUMBERS else "int"] += count
        kids: list[int] = []
        if shape is not None:
            kids.append(shape)
        if kind == "map of numbers":
            # Its values are a number array's elements (counted there),
            # which it refers to with no slot.
            kids.extend(v for _, v in slots)
        elif slots:
            # (A stride array's elements come as references, in no slot:
            # counted, with no bytes.)
            slot_bytes += count * width
            n_slots += len(slots)
            is_shape = kind == "shape"
            for skind, v in slots:
                if skind == "ref":
                    n_refs += 1
                    kids.append(v)
                    if is_shape:
                        key_strings.add(v)
                    else:
                        values[_VALUE_KIND.get(kinds[index[v]], "other")] += 1
                elif skind == "int":
                    n_ints += 1
                    if not is_shape:
                        values["int"] += 1
                else:
                    n_consts += 1
                    if not is_shape:
                        values[_SPECIAL_KIND.get(v, "other")] += 1
        children.append(kids)

    # Each encoding is of one kind, so sections come in the order first met too.
    for enc, (kind, n, nbytes) in by_enc.items():
        encodings[enc] = {"records": n, "bytes": nbytes}
        sec = sections.setdefault(SECTIONS[kind], {"records": 0, "bytes": 0})
        sec["records"] += n
        sec["bytes"] += nbytes

    # Dedup: how many times each record would be written if every shared
    # reference were a copy: the number of paths from the root to it.
    paths = [0] * len(recs)
    if recs:
        paths[-1] = 1
    for i in range(len(recs) - 1, -1, -1):
        m = paths[i]
        if m:
            for c in children[i]:
                paths[index[c]] += m
    saved_by: dict[str, int] = {}
    shared_records = 0
    unreached = 0
    for i, r in enumerate(recs):
        m = paths[i]
        if m > 1:
            shared_records += 1
            kind = "key strings" if (r[2] == "str" and r[0] in key_strings) else SECTIONS[r[2]]
            saved_by[kind] = saved_by.get(kind, 0) + (m - 1) * (r[1] - r[0])
        elif m == 0:
            unreached += 1

    key_bytes = sum(recs[index[p]][1] - p for p in key_strings)
    total = len(buf)
    saved = sum(saved_by.values())
    return {
        "bytes": total,
        "header": HEADER_LEN,
        "records": len(recs),
        "sections": sections,
        "encodings": encodings,
        "key_strings": {"records": len(key_strings), "bytes": key_bytes},
        "slots": {
            "total": n_slots,
            "inline ints": n_ints,
            "constants": n_consts,
            "references": n_refs,
            "slot bytes": slot_bytes,
        },
        "values": values,
        "dedup": {
            "shared_records": shared_records,
            "saved_bytes": saved,
            "saved_by": saved_by,
            "expanded_bytes": total + saved,
            "unreachable_records": unreached,
        },
    }


def run(args: argparse.Namespace) -> int:
    check_file(args.file)
    data, kind = load_input(args.file, args.from_, load_dictionary(args.dictionary))
    if kind == "stream":
        return _run_stream(args, data)
    with Progress(f"scanning {display_name(args.file)}"):
        st = compute_stats(data)
    st["file"] = display_name(args.file)
    st["input"] = kind
    if kind == "json":
        st["json_bytes"] = os.path.getsize(args.file) if args.file != "-" else None
    if args.json:
        print(json.dumps(st, indent=2))
        return 0
    _print_stats(st)
    return 0


def _pct(n: float, total: float) -> str:
    return f"{100.0 * n / total:5.1f}%" if total else "    -"


def _print_stats(st: dict[str, Any]) -> None:
    total = st["bytes"]
    out = []
    src = (
        f" (converted from JSON, {st['json_bytes']:,} bytes)"
        if st.get("input") == "json" and st.get("json_bytes")
        else ""
    )
    out.append(f"{st['file']}: {total:,} bytes as roving{src}, {st['records']:,} records")
    if st.get("input") == "json" and st.get("json_bytes"):
        out.append(f"  roving / JSON size: {total / st['json_bytes']:.3f}")
    out.append("")
    out.append(f"  {'section':<16}{'bytes':>12}{'share':>8}{'records':>10}")
    order = [
        "strings",
        "numbers",
        "containers",
        "shapes",
        "vectors",
        "other scalars",
        "root",
    ]
    out.append(f"  {'header':<16}{st['header']:>12,}{_pct(st['header'], total):>8}{'':>10}")
    for k in order:
        s = st["sections"].get(k)
        if not s:
            continue
        out.append(f"  {k:<16}{s['bytes']:>12,}{_pct(s['bytes'], total):>8}{s['records']:>10,}")
    ks = st["key_strings"]
    if ks["records"]:
        out.append(
            f"    of the strings, map keys: {ks['bytes']:,} bytes in {ks['records']:,} records (stored once, shared by the shapes)"
        )
    sl = st["slots"]
    out.append(
        f"    of the containers, shapes and root, slots: {sl['slot bytes']:,} bytes in {sl['total']:,} slots "
        f"({sl['references']:,} references, {sl['inline ints']:,} inline ints, {sl['constants']:,} inline constants)"
    )
    out.append("")
    v = st["values"]
    out.append("  values: " + ", ".join(f"{n:,} {k}" for k, n in v.items() if n))
    out.append(
        "  encodings: "
        + ", ".join(
            f"{k} {e['records']:,} ({e['bytes']:,} B)"
            for k, e in sorted(st["encodings"].items(), key=lambda kv: -kv[1]["bytes"])
        )
    )
    out.append("")
    d = st["dedup"]
    if d["saved_bytes"]:
        out.append(
            f"  dedup: {d['shared_records']:,} {'record is' if d['shared_records'] == 1 else 'records are'}"
            " shared; written once each instead of at every use,"
        )
        out.append(
            f"         they save ~{d['saved_bytes']:,} bytes (the document would be ~{d['expanded_bytes']:,} bytes, "
            f"{d['expanded_bytes'] / total:.2f}x, without sharing)"
        )
        for k, n in sorted(d["saved_by"].items(), key=lambda kv: -kv[1]):
            out.append(f"         {k:<16}{n:>14,} bytes saved")
    else:
        out.append("  dedup: nothing is shared")
    if d["unreachable_records"]:
        out.append(f"  note: {d['unreachable_records']:,} records are not reachable from the root")
    print("\n".join(out))


def compute_stream_stats(
    frames: list[Any], total: int, torn: tuple[int, int] | None
) -> dict[str, Any]:
    """Where the bytes of a record stream go: its header, the frame heads,
    the records (their sections summed over every record, as
    :func:`compute_stats` counts them: a record written against the
    stream's dictionary with the dictionary's records it reads with, so
    the sections may add up to more than the records' bytes), dictionary
    frames and a torn tail.
    Offsets come from the package (``_frames``)."""
    records = stream_records(frames)
    sizes = [len(f[3]) for f in records]
    header = frames[0][1] if frames else (torn[0] if torn else total)
    sections: dict[str, dict[str, int]] = {}
    values: dict[str, int] = {}
    doc_headers = 0
    for f in records:
        st = compute_stats(f[4])
        doc_headers += st["header"]
        for k, v in st["sections"].items():
            sec = sections.setdefault(k, {"records": 0, "bytes": 0})
            sec["records"] += v["records"]
            sec["bytes"] += v["bytes"]
        for k, n in st["values"].items():
            values[k] = values.get(k, 0) + n
    return {
        "bytes": total,
        "stream": True,
        "header": header,
        "records": len(records),
        "frame_heads": sum(end - off - len(p) for _, off, end, p, _ in frames),
        "record_bytes": {
            "total": sum(sizes),
            "min": min(sizes, default=0),
            "max": max(sizes, default=0),
            "mean": sum(sizes) / len(sizes) if sizes else 0,
        },
        "document_headers": doc_headers,
        "sections": sections,
        "values": values,
        "dictionary_frames": {
            "frames": len(frames) - len(records),
            "bytes": sum(len(f[3]) for f in frames if f[0] == "dictionary"),
        },
        "torn": None if torn is None else {"offset": torn[0], "bytes": torn[1]},
    }


def _run_stream(args: argparse.Namespace, data: bytes) -> int:
    frames, torn = stream_frames(args.file, data)
    with Progress(f"scanning {display_name(args.file)}"):
        st = compute_stream_stats(frames, len(data), torn)
    st["file"] = display_name(args.file)
    if args.json:
        print(json.dumps(st, indent=2))
        return 0
    total = st["bytes"]
    rb = st["record_bytes"]
    out = [
        f"{st['file']}: {total:,} bytes, a record stream of {st['records']:,} records "
        f"({rb['mean']:,.1f} bytes each on average, {rb['min']:,} to {rb['max']:,})",
        "",
        f"  {'part':<20}{'bytes':>12}{'share':>8}",
        f"  {'stream header':<20}{st['header']:>12,}{_pct(st['header'], total):>8}",
        f"  {'frame heads':<20}{st['frame_heads']:>12,}{_pct(st['frame_heads'], total):>8}"
        f"   ({st['frame_heads'] / max(1, len(frames)):.2f} per frame)",
        f"  {'records':<20}{rb['total']:>12,}{_pct(rb['total'], total):>8}",
        f"    {'document headers':<18}{st['document_headers']:>12,}{_pct(st['document_headers'], total):>8}",
    ]
    for k, sec in st["sections"].items():
        out.append(f"    {k:<18}{sec['bytes']:>12,}{_pct(sec['bytes'], total):>8}")
    d = st["dictionary_frames"]
    if d["frames"]:
        out.append(f"  {'dictionary frames':<20}{d['bytes']:>12,}{_pct(d['bytes'], total):>8}")
    if torn is not None:
        out.append(f"  {'torn tail':<20}{torn[1]:>12,}{_pct(torn[1], total):>8}")
        out.append("")
        out.append(f"  note: {torn_text(torn)}")
    out.append("")
    out.append("  values: " + ", ".join(f"{n:,} {k}" for k, n in st["values"].items() if n))
    print("\n".join(out))
    return 0
