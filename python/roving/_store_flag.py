"""The ``flag`` argument of both Store backends (``roving._store`` and
``roving._cluster_store``), as ``shelve.open`` takes it."""

from __future__ import annotations


def check_flag(flag: str, readonly: bool) -> None:
    """Raise ``ValueError`` unless ``flag`` is one of shelve's flags and
    agrees with ``readonly``."""
    if flag not in ("r", "w", "c", "n"):
        raise ValueError(f"flag must be 'r', 'w', 'c' or 'n' (as for shelve), not {flag!r}")
    if readonly and flag in ("w", "n"):
        raise ValueError(f"readonly=True contradicts flag={flag!r}: use flag='r'")
