"""Errors of the command line: one line on stderr and an exit status."""

from __future__ import annotations

import sys
from typing import Any

PROG = "roving"


class CliError(Exception):
    """A failure reported as one line on stderr, with an exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def api() -> Any:
    """The roving package, with its extension built."""
    try:
        import roving
    except ImportError as e:  # pragma: no cover - the package itself is here
        raise CliError(f"cannot import roving: {e}") from e
    if not hasattr(roving, "loads"):
        raise CliError(
            "the roving extension is not built (run `pip install .` or `maturin develop --release`)"
        )
    return roving


def is_roving_error(e: BaseException) -> bool:
    rv = sys.modules.get("roving")
    base = getattr(rv, "RovingError", None) if rv is not None else None
    return base is not None and isinstance(e, base)


def error_text(e: BaseException) -> str:
    text = str(e).strip().replace("\n", " ")
    return text or type(e).__name__


def fail(line: str) -> None:
    """Writes ``line`` (one line) to stderr, whatever stderr is."""
    try:
        sys.stderr.write(line.replace("\n", " ") + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
