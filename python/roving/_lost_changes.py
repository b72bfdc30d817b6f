"""Unsaved changes of both Store backends (``roving._store`` and
``roving._cluster_store``): :class:`FlushesUnsaved` flushes them when a
store is collected, at interpreter exit, or at the end of a ``with`` block,
and :func:`warn_lost` says when that failed and they are lost."""

from __future__ import annotations

import atexit
import os
import sys
import warnings
import weakref
from types import TracebackType
from typing import Protocol, Self, cast


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


class _Backend(Protocol):
    """What :class:`FlushesUnsaved` uses of the extension types."""

    @property
    def closed(self) -> bool: ...
    @property
    def readonly(self) -> bool: ...
    def flush(self) -> None: ...
    def _close(self, *, commit: bool = True) -> None: ...
    def _has_unsaved(self) -> bool:
        """True if there are changes to flush (each backend says)."""
        ...

    def _display_name(self) -> str:
        """How the warning names the store: ``roving.Store(...)``."""
        ...


class FlushesUnsaved:
    """Both Store backends' way with unsaved changes, as a shelf's: a
    writable store opened by this process (not a forked child's inherited
    copy) flushes its pending changes when it is garbage-collected or at
    interpreter exit (even if something still refers to it), warning
    (:func:`warn_lost`) if that fails; a ``with`` block commits when it
    ends without an exception and drops them when it raises. A subclass
    defines ``_has_unsaved()`` and ``_display_name()`` (see ``_Backend``)."""

    __slots__ = ()
    #: The process that opened the store.
    _pid: int

    def _track(self) -> None:
        """Flush this store at exit (``_pid``, the opening process, is set
        by the subclass, which holds its slot)."""
        if not cast(_Backend, self).readonly:
            _open_stores[id(self)] = self

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Commit on success; on an exception drop the pending changes.
        cast(_Backend, self)._close(commit=exc_type is None)

    def __del__(self) -> None:
        self._flush_unsaved("when it was garbage-collected")

    def _flush_unsaved(self, when: str) -> None:
        store = cast(_Backend, self)
        try:
            if store.closed or store.readonly or getattr(self, "_pid", None) != os.getpid():
                return
            if not store._has_unsaved():
                return
            store.flush()
        except Exception as e:
            try:
                name = store._display_name()
            except Exception:
                name = "roving.Store(?)"
            # (stacklevel 2: the warning names __del__, or the exit hook.)
            warn_lost(self, name, when, e, stacklevel=2)


# Writable stores opened by this process and not yet collected, of both
# backends: flushed at interpreter exit even if something still refers to
# them (a global, a cycle). (By id: a store is unhashable, as a mutable
# mapping.)
_open_stores: weakref.WeakValueDictionary[int, FlushesUnsaved] = weakref.WeakValueDictionary()


@atexit.register
def _flush_at_exit() -> None:
    for store in list(_open_stores.values()):
        store._flush_unsaved("at interpreter exit")
