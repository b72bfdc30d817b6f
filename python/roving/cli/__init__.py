"""The ``roving`` command line.

::

    roving convert IN OUT        JSON <-> roving (by extension, or --to); '-' is stdin/stdout
    roving get FILE PATH         the value at PATH (e.g. '[123].name') as JSON
    roving dump FILE             a readable, typed view of the document (--json for JSON)
    roving validate FILE         exit 0 if FILE is a valid roving document, else 1 with the reason and byte offset
    roving stats FILE            where the bytes go: strings, containers, shapes, numbers, what dedup saved
    roving bench                 the seed experiments, side by side (see roving bench --help)

A ``.jsonl`` file is JSON Lines: read as an array of its lines' documents
(blank lines skipped), and written from an array, one item per line.
An output file is replaced atomically (a new file, with the old one's
permissions, renamed over it); an existing one the user may not write is an
error, as for ``cp`` and ``sort -o``; a file that a ``roving.open()``
document of this process maps is never truncated (as ``roving.dump``
guarantees: the CLI writes through the package's writer).

Errors are one line on stderr and a non-zero exit status: 1 for bad data
or a failed operation, 2 for a bad command line (an option that does not
apply, such as ``--indent`` without JSON output, is one).

One module per job: :mod:`.files` reads and writes files and stdout,
:mod:`.documents` loads, converts and validates documents, and each
command has its module (:mod:`.convert`, :mod:`.get`, :mod:`.dump`,
:mod:`.validate`, :mod:`.stats`, :mod:`.bench`), which adds its parser.
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import sys
from typing import NoReturn

from . import bench, convert, dump, get, stats, validate
from .errors import PROG, CliError, error_text, fail, is_roving_error

__all__ = ["PROG", "CliError", "build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description="roving: a binary object format read in place. Convert, inspect, validate and benchmark roving files.",
        epilog="Run `roving COMMAND --help` for the options of a command.",
    )
    try:
        from importlib.metadata import PackageNotFoundError, version

        try:
            ver = version("roving")
        except PackageNotFoundError:
            ver = getattr(sys.modules.get("roving"), "__version__", "(not installed)")
    except ImportError:  # pragma: no cover
        ver = "?"
    p.add_argument("--version", action="version", version=f"roving {ver}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    for command in (convert, get, dump, validate, stats, bench):
        command.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``roving`` command; returns the exit status."""
    _forgiving_stdout()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CliError as e:
        fail(f"{PROG} {args.command}: error: {e}")
        return e.status
    except KeyboardInterrupt:
        fail(f"{PROG} {args.command}: interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 141
    except MemoryError:
        fail(f"{PROG} {args.command}: error: out of memory")
        return 1
    except Exception as e:
        if is_roving_error(e):
            fail(f"{PROG} {args.command}: error: {error_text(e)}")
            return 1
        if os.environ.get("ROVING_DEBUG"):
            raise
        fail(
            f"{PROG} {args.command}: internal error: {type(e).__name__}: {error_text(e)} (set ROVING_DEBUG=1 for a traceback)"
        )
        return 70


def _forgiving_stdout() -> None:
    """Text on stdout never fails to encode: a file name that is not UTF-8
    is written back as its own bytes (as ``ls`` does) on a UTF-8 stdout,
    which Python makes strict outside the C locale, and characters that
    another encoding lacks are escaped (``\\xe9``). JSON output is bytes
    and does not go through this."""
    out = sys.stdout
    if not isinstance(out, io.TextIOWrapper):
        return
    try:
        utf8 = codecs.lookup(out.encoding).name == "utf-8"
        out.reconfigure(errors="surrogateescape" if utf8 else "backslashreplace")
    except (LookupError, ValueError, OSError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
