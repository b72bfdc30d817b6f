"""``roving validate FILE...``: whether files are valid roving documents."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .documents import add_dictionary_option, load_dictionary, resolve, validate_document
from .errors import PROG, CliError, api, is_roving_error
from .files import check_file, display_name, read_input


def register(sub: Any) -> None:
    """Adds the ``validate`` command to the subparsers ``sub``."""
    v = sub.add_parser(
        "validate",
        help="check that files are valid roving documents",
        description="Check each FILE completely. Exit 0 if all are valid; otherwise print the reason "
        "and byte offset of each invalid one and exit 1.",
    )
    v.add_argument("files", metavar="FILE", nargs="+")
    v.add_argument("-q", "--quiet", action="store_true", help="print nothing for valid files")
    add_dictionary_option(v)
    v.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.files.count("-") > 1:
        raise CliError("'-' (stdin) can be given only once: stdin is read once", status=2)
    rv = api()
    dictionary = load_dictionary(args.dictionary)
    status = 0
    for path in args.files:
        try:
            check_file(path)
            data = read_input(path)
            plain = resolve(rv, path, data, dictionary)
            validate_document(rv, path, plain)
        except CliError as e:
            print(f"{PROG} validate: error: {e}", file=sys.stderr)
            status = 1
            continue
        if not args.quiet:
            print(
                f"{display_name(path)}: ok ({len(data):,} bytes, roving v{data[2] if len(data) > 2 else '?'}, root: {_root_desc(plain)})"
            )
    return status


def _root_desc(data: bytes) -> str:
    """What the root of a (valid) document is: ``array of 3``, ``str``..."""
    from roving._roving import _root

    try:
        (kind, v), rec = _root(data)
    except Exception as e:
        if is_roving_error(e):
            return "?"
        raise
    if kind == "int":
        return "int"
    if kind == "special":
        return _SPECIALS.get(v, "null")
    assert rec is not None  # a reference
    rkind, count = rec[2], rec[5]
    if rkind == "array":
        return f"array of {count:,}"
    if rkind == "map":
        return f"map of {count:,} keys"
    return {"uint": "int", "bigint": "int"}.get(rkind, rkind)


#: Special constants, as the root's description names them.
_SPECIALS = {
    0: "null",
    1: "bool",
    2: "bool",
    3: "empty string",
    4: "empty array",
    5: "empty map",
}
