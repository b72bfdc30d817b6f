"""``roving bench``: the seed experiments (see :mod:`roving.bench`)."""

from __future__ import annotations

import argparse
from typing import Any

from .errors import CliError
from .progress import Progress


def register(sub: Any) -> None:
    """Adds the ``bench`` command to the subparsers ``sub``."""
    from roving.bench import add_arguments

    b = sub.add_parser(
        "bench",
        help="run the seed experiments side by side",
        description="Run the five seed experiments (fleece, repository, archiver-20000-ints, simpleobject, "
        "contacts), record streams (stream) and the corpus of JSON files with roving beside Python's defaults and the fastest peers; print markdown tables and "
        "write bench/results/<experiment>.md, .json and .png.",
    )
    add_arguments(b)
    b.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from roving import bench

    prog = Progress("bench", delay=0.0)
    try:
        with prog:
            return bench.run(args, progress=prog.update if prog.enabled else None)
    except ValueError as e:
        raise CliError(str(e), 2) from None
    except bench.BenchError as e:
        raise CliError(str(e)) from None
