"""Argument types shared by the command line (:mod:`roving.cli`) and the
bench (:mod:`roving.bench`), which do not import each other."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def int_at_least(minimum: int, unit: str = "") -> Callable[[str], int]:
    """An argparse ``type=``: an int of ``minimum`` or more (``unit`` names
    what it counts in the error, e.g. ``" spaces"``)."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more{unit}, not {n}")
        return n

    return parse


#: --indent: a number of spaces.
spaces = int_at_least(0, " spaces")
#: --max-items, --depth: a count.
count = int_at_least(0)
