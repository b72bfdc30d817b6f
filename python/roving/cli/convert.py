"""``roving convert IN OUT``: JSON <-> roving."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._argtypes import spaces
from .documents import (
    add_from_option,
    article,
    ext_kind,
    from_json,
    input_kind,
    is_json_lines,
    kind_of,
    to_json,
    validate_document,
    value_json,
)
from .errors import CliError, api
from .files import check_file, display_name, read_input, write_output
from .progress import Progress


def register(sub: Any) -> None:
    """Adds the ``convert`` command to the subparsers ``sub``."""
    c = sub.add_parser(
        "convert",
        help="convert JSON <-> roving",
        description="Convert JSON to roving or roving to JSON. The direction comes from the file "
        "extensions (.json, .jsonl, .geojson; .rov, .roving, .rv) or --to; '-' reads stdin or writes stdout. A .jsonl file is JSON "
        "Lines: an array, one item per line. OUT is replaced atomically; a read-only OUT is an error.",
    )
    c.add_argument("input", metavar="IN", help="input file, or - for stdin")
    c.add_argument("output", metavar="OUT", help="output file, or - for stdout")
    c.add_argument(
        "--to",
        choices=["json", "roving"],
        help="output format (default: from OUT's extension, else the other format)",
    )
    add_from_option(c, "from IN's extension or content")
    c.add_argument(
        "--indent",
        type=spaces,
        metavar="N",
        help="indent JSON output by N spaces (default: compact; not for roving or .jsonl output)",
    )
    c.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="say what was converted, with sizes",
    )
    c.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rv = api()
    if args.input != "-":
        check_file(args.input)
    data = read_input(args.input)
    src = input_kind(args.input, data, args.from_)
    dst = args.to or (None if args.output == "-" else ext_kind(args.output))
    if dst is None:
        dst = "json" if src == "roving" else "roving"
    lines = dst == "json" and is_json_lines(args.output)
    if args.indent is not None and dst == "roving":
        raise CliError("--indent applies to JSON output, not to roving output", status=2)
    if args.indent is not None and lines:
        raise CliError(
            f"--indent does not apply to JSON Lines output ({args.output}: one document per line)",
            status=2,
        )
    if src == "json":
        doc = from_json(rv, args.input, data)
    else:
        validate_document(rv, args.input, data)
        doc = data
    if dst == "roving":
        out = doc
    elif lines:
        out = _to_json_lines(rv, args.output, doc)
    else:
        out = to_json(rv, args.input, doc, args.indent)
        if args.output == "-" or args.indent is not None:
            out += b"\n"
    write_output(args.output, out)
    if args.verbose:
        print(
            f"{display_name(args.input)} ({src}, {len(data):,} bytes) -> {display_name(args.output)} ({dst}, {len(out):,} bytes)",
            file=sys.stderr,
        )
    return 0


def _to_json_lines(rv: Any, out_path: str, doc: bytes) -> bytes:
    """JSON Lines of a document whose root is an array: one line per item."""
    root = rv.open(doc).root
    kind = kind_of(root)
    if kind != "array":
        raise CliError(
            f"{out_path}: JSON Lines output needs an array at the root (one line per item), "
            f"this document's root is {article(kind)}"
        )
    with Progress(f"writing JSON Lines to {out_path}"):
        return b"".join(value_json(rv, item, None) + b"\n" for item in root)
