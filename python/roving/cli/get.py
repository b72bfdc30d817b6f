"""``roving get FILE PATH``: the value at a path, as JSON."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .._argtypes import spaces
from .documents import (
    add_dictionary_option,
    add_from_option,
    article,
    damaged,
    ext_kind,
    from_json,
    kind_of,
    load_dictionary,
    load_document,
    sniff,
    value_json,
)
from .errors import CliError, api, is_roving_error
from .files import check_file, read_head, read_input, write_stdout
from .progress import Progress


def register(sub: Any) -> None:
    """Adds the ``get`` command to the subparsers ``sub``."""
    g = sub.add_parser(
        "get",
        help="print the value at a path as JSON",
        description='Print the value at PATH as JSON. Paths: [123].name, $.friends[0], ["odd key"], '
        "[-1] (the last item), as the package's get_path reads them. A roving FILE is "
        "memory-mapped and read in place; a JSON FILE is converted first.",
    )
    g.add_argument("file", metavar="FILE")
    g.add_argument("path", metavar="PATH", help="e.g. '[123].name'")
    g.add_argument("--indent", type=spaces, metavar="N", help="indent the JSON by N spaces")
    add_from_option(g)
    add_dictionary_option(g)
    g.set_defaults(func=run)


def parse_path(path: str) -> list[Any]:
    """Parses ``[123].name``, ``$.a["odd.key"][0]``, ``name`` with the
    core's path parser (the one the package's ``get_path`` uses): ints are
    indexes (negative ones count from the end), strings keys. Raises
    CliError on a malformed path."""
    from roving._roving import _parse_path

    try:
        return _parse_path(path)
    except UnicodeEncodeError:
        # Bytes of the command line that are not UTF-8 (os.fsdecode's
        # surrogates): keys are UTF-8, so no key has them.
        raise CliError(f"bad path: {ascii(path)} is not UTF-8 text", 2) from None
    except ValueError as e:
        raise CliError(str(e), 2) from None


def _fmt_path(steps: list[Any]) -> str:
    s = "$"
    for st in steps:
        if isinstance(st, int):
            s += f"[{st}]"
        elif st.isidentifier():
            s += f".{st}"
        else:
            s += "[" + json.dumps(st, ensure_ascii=False) + "]"
    return s


def _walk(root: Any, steps: list[Any]) -> Any:
    v = root
    for k, st in enumerate(steps):
        here = _fmt_path(steps[:k]) if k else "the root"
        kind = kind_of(v)
        if isinstance(st, int):
            if kind != "array":
                raise CliError(
                    f"path not found: {_fmt_path(steps)}: {here} is {article(kind)}, not an array"
                )
            length = len(v)
            idx = st + length if st < 0 else st
            if not 0 <= idx < length:
                raise CliError(
                    f"path not found: {_fmt_path(steps)}: index {st} out of range at {here} ({length} items)"
                )
            v = v[idx]
        else:
            if kind != "map":
                raise CliError(
                    f"path not found: {_fmt_path(steps)}: {here} is {article(kind)}, not a map"
                )
            if st not in v:
                raise CliError(f"path not found: {_fmt_path(steps)}: no key {st!r} at {here}")
            v = v[st]
    return v


def run(args: argparse.Namespace) -> int:
    rv = api()
    steps = parse_path(args.path)
    check_file(args.file)
    kind = args.from_ or ("json" if args.file != "-" and ext_kind(args.file) == "json" else None)
    dictionary = load_dictionary(args.dictionary)
    if (
        args.file != "-"
        and kind != "json"
        and dictionary is None
        and hasattr(rv, "open")
        and os.path.isfile(args.file)
    ):
        # Memory-map the file: only the bytes on the path are read (after validation).
        # Not a pipe (a FIFO, /dev/stdin, a shell's <(...)): it cannot be mapped
        # and reads only once, so it is read whole below.
        try:
            with Progress(f"opening {args.file}"):
                doc = rv.open(args.file)
        except Exception as e:
            if is_roving_error(e) or isinstance(e, (ValueError, OSError)):
                head = read_head(args.file)
                if (
                    head[:2] != b"RV"
                    and sniff(head) == "json"
                    and kind is None
                    and head.strip()[:1] in (b"{", b"[")
                ):
                    data = from_json(rv, args.file, read_input(args.file))
                    doc = rv.open(data)
                else:
                    raise CliError(f"{args.file}: {damaged(e, head)}") from None
            else:
                raise
    else:
        data, _ = load_document(args.file, kind, dictionary)
        doc = rv.open(data)
    value = _walk(doc.root, steps)
    write_stdout(value_json(rv, value, args.indent) + b"\n")
    return 0
