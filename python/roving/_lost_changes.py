"""Saying that a store's pending changes were lost, for both Store
backends (``roving._store`` and ``roving._cluster_store``), which flush
them when collected or at interpreter exit."""

from __future__ import annotations

import sys
import warnings


def warn_lost(
    store: object, name: str, when: str, error: BaseException, *, stacklevel: int
) -> None:
    """Say that ``store`` (shown as ``name``, e.g. ``roving.Store('x.rvs')``)
    could not flush its pending changes ``when``, and lost them: a
    ``RuntimeWarning``, or a line on stderr once the warning machinery is
    gone, at exit. ``stacklevel`` counts from the caller, as
    ``warnings.warn``'s does."""
    message = (
        f"{name} could not flush its pending changes {when}; "
        f"they are lost: {type(error).__name__}: {error}"
    )
    try:
        warnings.warn(message, RuntimeWarning, source=store, stacklevel=stacklevel + 1)
    except Exception:
        # At interpreter exit the warning machinery may be half gone
        # ("ImportError: sys.meta_path is None").
        try:
            sys.stderr.write(f"RuntimeWarning: {message}\n")
        except Exception:
            pass
