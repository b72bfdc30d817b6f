"""roving.Store: a persistent dict of roving documents on LMDB.

The work is done by the extension type ``roving._roving._Store``; this module
adds the :class:`collections.abc.MutableMapping` mixins (``pop``,
``setdefault``, ``update``, ``==``, ...), fast ``items()``/``values()`` views
and the context manager.
"""

from __future__ import annotations

import builtins
import functools
import os
from collections.abc import Callable, ItemsView, Iterator, MutableMapping, ValuesView
from typing import Any, Self, cast

from roving._cluster_store import ClusterStore, is_cluster_target
from roving._lost_changes import FlushesUnsaved
from roving._roving import (
    RovingError,
    StoreError,
    StoreNotFoundError,
    StorePermissionError,
    _Store,
)
from roving._store_flag import check_flag
from roving._transaction import Transaction

__all__ = ["Store", "StoreError", "StoreNotFoundError", "StorePermissionError"]


class _StoreItems(ItemsView):  # type: ignore[type-arg]
    __slots__ = ()

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return self._mapping._iter_items()  # type: ignore[attr-defined,no-any-return]


class _StoreValues(ValuesView):  # type: ignore[type-arg]
    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        return self._mapping._iter_values()  # type: ignore[attr-defined,no-any-return]


class Store(_Store, FlushesUnsaved, MutableMapping):  # type: ignore[type-arg]
    """A persistent mapping of ``str`` keys to Python values, stored as roving
    documents in an LMDB file (Python's ``shelve``, done right).

    ``Store(path, flag="c", *, writeback=False, type=None, readonly=False,
    trusted=False, verify_pages=False, map_size=None, sync=True, populate=False,
    max_readers=None, default=None, non_str_keys=False, dictionary=True)``

    * ``path``: the data file (LMDB's lock file is ``path + "-lock"``), created
      if missing; an existing directory is opened as an LMDB directory
      (``data.mdb``, ``lock.mdb``), and so is the path of its ``data.mdb``.
      A ``str``, ``bytes`` or ``os.PathLike``, as for ``open()`` (bytes are
      the file name as it is, non-UTF-8 included; ``.path`` gives it back
      as a ``pathlib.Path``, decoded as ``os.fsdecode`` does).
    * ``flag``: as ``shelve.open``'s (and ``dbm``'s), so that
      ``shelve.open(path, flag)`` becomes ``roving.Store(path, flag)``:
      ``"c"`` (the default) opens the store and makes it if missing, ``"w"``
      opens an existing store for reading and writing (a missing one raises
      ``StoreNotFoundError``), ``"r"`` opens it read-only (``readonly=True``)
      and ``"n"`` opens it emptied: a new store if missing, else every
      record is deleted, committed at once.
    * ``writeback``: as ``shelve``'s: every value read or assigned is also
      kept in a cache, and read from it again, so that changing it in place
      (``s["k"].append(1)``) is saved: ``flush()``, ``sync()``, ``close()``
      and a ``with`` block that ends without an exception write every cached
      value back first, then empty the cache. It costs memory for
      everything read, and a flush re-encodes it all, as assignments are
      encoded: with a ``type=`` that reads values ``dumps`` refuses
      (``dict[int, T]``: int keys), a flush after a read raises
      ``EncodeError`` unless the store has ``non_str_keys=True``. ``reload()`` and
      leaving a ``with`` block by an exception drop the cache with the
      pending changes. ``view()`` reads the record as assigned or
      committed, not the cache (a change made in place shows there after a
      flush). On a read-only
      store (flag ``"r"``) values read are cached too, and written back
      only if changed in place, which raises ``StoreError`` (kind
      ``"read-only"``) as an assignment would (``reload()`` drops them).
    * ``type``: decode values read as this type (e.g. a dataclass), like
      ``roving.loads(..., type=)``; writes are not checked (see below);
      ``None`` gives plain Python values.
    * ``readonly``: refuse writes; a missing store raises
      ``StoreNotFoundError``.
    * ``trusted``: skip validating records read from the file (like
      ``roving.open(trusted=True)``): faster reads, only for stores that roving
      wrote and nothing else modified; a damaged record then gives a
      ``DecodeError`` (``UnicodeDecodeError`` for a damaged string) or wrong
      values instead of a ``StoreError``.
    * ``verify_pages``: before anything is read, walk every page of the file
      (time proportional to its size, ~40 ms for 200 MB): for store files that
      come from elsewhere. LMDB keeps no checksums and trusts its pages, so
      without it bytes written over a B-tree page can crash the process; with
      it they raise ``StoreError`` (kind ``"corrupt"``).
    * ``map_size``: initial size of the memory map in bytes (default 1 GiB,
      at most 64 TiB; it grows by itself, see below); ``sync=False`` skips the
      fsync on commit (a machine crash may lose recent flushes and, on a file
      system that does not keep the order of writes, damage the store; a
      crash of the process alone loses nothing flushed).
    * ``populate``: map every page of the file into memory at open (Linux
      ``MADV_POPULATE_READ``; ignored elsewhere): the first random reads after
      open then cost what warm ones do, for an open that reads the whole file
      (~30 ms for 420 MB in the page cache).
    * ``max_readers``: the slots of LMDB's reader table, i.e. snapshots open
      at once over all processes (see below): an ``int`` from 1 to 1048576
      (``None``: 510). The table lives in the lock file, which keeps it
      after the store is closed, and is sized only by an open while no other
      process has the store open: it grows to ``max_readers`` if smaller,
      and a larger table already there is kept. While another process has
      the store open, or this process has it open already (its ``Store``
      objects of one file share LMDB's environment), an open uses the table
      in place, whatever it asks: the error of a full table says how many
      slots that is.
    * ``dictionary``: write values against the store's dictionary (kept in
      the file, committed with the records that need it): the keys of each
      map shape are stored once per store, not once per record, and so is
      a string value of 4 to 96 bytes once three records have repeated it
      (a status, a type name), while the dictionary takes under 512 bytes.
      Stores written before it existed read as before; ``compact()``
      rewrites their records against it. ``False`` writes self-contained records. A flush
      commits the dictionary entries its records need with them; two
      processes that add entries at once both do so correctly. Reading a
      record copies and checks the dictionary's bytes too, so it stops
      growing at 1 KiB (a few record kinds' shapes); values of shapes met
      after that carry their own keys.

    ``s[k] = v``, ``del s[k]``, ``update()``... are pending changes (visible
    to this ``Store``) until ``flush()`` commits all of them atomically in one
    durable transaction (``sync()``, ``shelve``'s name for it, does the
    same); ``reload()`` drops them and reads the newest committed state.
    They are kept in memory up to about 64 MiB, and past that in unnamed
    temporary files beside the store (the system deletes them when the
    changes are flushed or dropped, or the process dies), so that millions
    of unflushed records take little memory (3M small ones: 90 MB in all,
    against 530 MB in memory); the ``writeback`` cache, which holds Python
    objects, is not bounded. A ``flush()`` of many records still holds the
    pages it writes in memory until it commits (211 MB for those 3M).
    Flushing often costs little room: new keys written between committed
    ones keep the file's pages full (flushing every 10,000 of 1M records
    leaves a file 1.07x the size one flush leaves). Reads see the state committed at the
    last open/flush/reload plus the pending changes (other processes' commits
    appear on ``reload()``). ``len``, ``in`` and ``del`` decode nothing
    (``s[k]``, ``get`` and ``values()`` decode the values they return);
    iteration is in key order (by code point). The state an open
    ``Store`` reads (and every view of it) keeps the pages it sees from being
    reused: a long-lived ``Store`` should ``reload()`` now and then, or the
    file grows while other processes write.

    ``s.view(k)`` returns the record as a lazy :class:`roving.Doc` read in
    place from the memory map (no copy; a numpy vector whose data LMDB left
    misaligned for its type is the one thing copied, into an aligned
    array). ``close()`` flushes and closes; as a context manager the store
    is flushed and closed on success, and its pending changes are dropped on
    an exception.

    As with ``shelve`` (whose ``Shelf.__del__`` closes, and so syncs, the
    shelf), pending changes are not lost when a writable ``Store`` is
    garbage-collected without ``close()``, or is still open at interpreter
    exit (an ``atexit`` hook flushes every writable ``Store`` this process
    opened and has not collected, even one still referenced): they are
    flushed then, the ``writeback`` cache written back first; if that flush
    fails, a ``RuntimeWarning`` says that they are lost, and why. Only a
    process that is killed (or ends with ``os._exit``, as a forked
    ``multiprocessing`` child does) loses what it never flushed, and a
    ``Store`` inherited across ``fork()`` is left to the process that opened
    it. Leaving a ``with`` block by an exception drops the pending changes
    on purpose (as an uncommitted ``sqlite3`` transaction is).

    Many processes may read while one writes; a second writer waits for the
    first one's ``flush()`` to finish (the write lock is held only inside
    ``flush()`` and :meth:`transaction` blocks, never while changes are
    pending). Flushes are last-writer-wins, key by key: a read-modify-write
    such as ``s["n"] = s.get("n", 0) + 1; s.flush()`` run by two processes
    at once loses updates (each reads the state of its own last flush), so
    write it as ``with s.transaction(): s["n"] = s.get("n", 0) + 1``, which
    reads the newest state under the write lock and commits at once. At
    most ``max_readers`` (510 by
    default) snapshots may be open at once over all processes (LMDB's
    reader table: one per open ``Store``, and one per earlier state of a
    ``Store`` that views taken before its ``flush()`` or ``reload()``
    still hold); opening one more raises
    ``StoreError`` (kind ``"busy"``). Within a process, use one ``Store``
    object per thread (they share the open file): a thread touching a
    ``Store`` while another thread is inside its ``flush()`` gets a
    ``RuntimeError``. Open stores after ``fork()``, not before: a child may
    read a ``Store`` it inherited only while the parent keeps that ``Store``
    as it is (once the parent closes, flushes or reloads it, the child's
    reads may see other data, or crash), and cannot write it. LMDB opens a
    file once per process: a store opened ``readonly=True`` (or a view of
    it) must be closed before the same file is opened for writing in the
    same process (``StoreError``, kind ``"busy"``); the other order works
    (read-only ``Store`` objects opened while a writable one is open share
    it). A ``Store`` of a file already open in this process shares that
    open: ``map_size``, ``max_readers`` and ``verify_pages`` of the first
    open hold for all, and so does ``sync=False`` except for a ``Store``
    opened with ``sync=True``, whose own flushes are then synced to disk
    one by one (a ``sync=True`` first open syncs every flush).

    The map grows when a ``flush()`` needs more room, which needs every
    other snapshot of the file in this process to be released first: views
    from ``view()`` and every other open ``Store`` of the same file (each
    holds one). Otherwise ``flush()`` raises ``StoreError`` (kind ``"busy"``)
    and keeps the pending changes (``reload()`` after another process grew
    the map likewise raises and changes nothing). With several ``Store``
    objects of one file open at once, give ``map_size`` above the size the
    store will reach: the map is address space only, the file grows with its
    contents.

    Keys are ``str`` of 1 to 511 bytes of UTF-8 (LMDB's limit): ``""`` and
    longer keys raise :class:`StoreError` (kind ``"invalid-key"``) on
    writes and are never found on reads; so is a ``str`` with no UTF-8 form
    (a lone surrogate such as ``"\\ud800"``), which raises
    ``UnicodeEncodeError`` on writes, as in ``dbm`` and ``sqlite3``;
    non-``str`` keys raise ``TypeError``, except ``in``, which answers
    ``False``. These errors name the store as its others do: their message
    (the ``UnicodeEncodeError``'s ``reason``) begins with ``store PATH: ``.
    Values are what
    ``roving.dumps`` encodes (tuples and sets come back as lists), with the
    store's ``default`` and ``non_str_keys`` given to it (as ``dumps``'s: a
    function for objects of other types, say ``vars`` for plain classes that
    ``shelve`` pickled, and whether dict keys that are ints, enums, UUIDs,
    Decimals or dates are written as their text, which ``type=`` reads back,
    e.g. ``dict[int, Item]``); values
    that cannot be encoded raise ``roving.EncodeError``, and values whose
    encoding is longer than 4 GiB - 1 bytes (LMDB's limit) raise
    ``StoreError`` (kind ``"too-large"``), both on assignment and changing
    nothing.
    With ``type=``, values are decoded as that type on read (``s[k]``,
    ``get``, ``values()``, ``items()``; not ``view()``, which gives the
    record as it is), but writes are not checked against it (as Python's
    type hints are not, and ``msgspec`` encoders do not): a value that does
    not fit is stored, and raises ``roving.ValidationError`` when read, with
    the store's path and the key in its message. Damaged or foreign files and
    writes to a read-only or closed store raise :class:`StoreError`
    (``.kind`` says which). Opening a store that is not there without
    creating it (``readonly=True``, flag ``"r"`` or ``"w"``, or a directory
    that does not exist)
    raises ``StoreNotFoundError``, and one the operating system refuses
    (permissions) ``StorePermissionError``: each is a ``StoreError`` and
    also a ``FileNotFoundError`` / ``PermissionError`` (with ``errno`` and
    ``filename``), so ``except FileNotFoundError`` works as for ``open()``.
    """

    # The writeback cache (None without writeback=True); the process that
    # opened the store (its own to flush when collected or at exit).
    __slots__ = ("_cache", "_pid", "__weakref__")
    _cache: dict[str, Any] | None
    _pid: int

    def __new__(
        cls,
        path: str | bytes | os.PathLike[str] | os.PathLike[bytes] | list[str] | tuple[str, ...],
        flag: str = "c",
        *,
        writeback: bool = False,
        type: Any = None,  # noqa: A002 - the name loads() uses
        readonly: bool = False,
        trusted: bool = False,
        verify_pages: bool = False,
        map_size: int | None = None,
        sync: bool = True,
        populate: bool = False,
        max_readers: int | None = None,
        default: Callable[[Any], Any] | None = None,
        non_str_keys: bool = False,
        dictionary: bool = True,
        **cluster: Any,
    ) -> Self:
        if is_cluster_target(path) or cluster:
            return cast(Self, _open_cluster(**locals()))
        check_flag(flag, readonly)
        kind: builtins.type[Store] = cls
        if writeback and not issubclass(kind, _Writeback):
            kind = _with_writeback(kind)
        elif not writeback and issubclass(kind, _Writeback):
            # type(s) of a writeback store, opened with writeback=False.
            kind = _without_writeback(kind)
        self = cast(
            Self,
            super().__new__(
                kind,
                cast(Any, path),
                type=type,
                readonly=readonly or flag == "r",
                trusted=trusted,
                verify_pages=verify_pages,
                map_size=map_size,
                sync=sync,
                populate=populate,
                max_readers=max_readers,
                create=flag != "w",
                default=default,
                non_str_keys=non_str_keys,
                dictionary=dictionary,
            ),
        )
        self._cache = {} if isinstance(self, _Writeback) else None
        self._pid = os.getpid()
        self._track()
        if flag == "n" and len(self):
            try:
                _Store.clear(self)
                _Store.flush(self)
            except BaseException:
                _Store._close(self, commit=False)
                raise
        return self

    def items(self) -> ItemsView[str, Any]:
        """A view of the (key, value) pairs, iterated in key order."""
        return _StoreItems(self)

    def values(self) -> ValuesView[Any]:
        """A view of the values, iterated in key order."""
        return _StoreValues(self)

    def sync(self) -> None:
        """Commit the pending changes: :meth:`flush` under ``shelve``'s name,
        so that code written for ``shelve.Shelf.sync()`` runs unchanged."""
        self.flush()

    def transaction(self) -> Transaction[Store]:
        """A read-modify-write that no other writer, in this process or
        another, can interleave with: ``with s.transaction(): s["n"] =
        s.get("n", 0) + 1``.

        The block is one LMDB write transaction. Entering it flushes the
        changes pending before it (a commit of their own; with
        ``writeback=True``, the cache is written back first and emptied),
        then takes LMDB's write lock, waiting while another process or
        ``Store`` flushes or holds a transaction. Inside, reads see the
        newest committed state (other processes' commits included, and no
        one can commit until the block ends) with the block's own changes
        on top. The block's changes commit together, in one durable commit,
        when it ends without an exception, and are all dropped when it
        raises (or when the commit fails: run it again). Inside the block,
        ``flush()``, ``sync()``, ``reload()``, ``close()`` and another
        ``transaction()`` raise :class:`StoreError` (kind
        ``"transaction"``: transactions do not nest), and so does a flush
        or a transaction of another ``Store`` of the same file in the same
        thread (it would wait for this one forever). A read-only store
        raises ``StoreError`` (kind ``"read-only"``). Keep the block short:
        every other writer of the file waits for it.
        """
        return Transaction(self)

    # (Flushing at collection and exit, and `with` blocks: FlushesUnsaved,
    # as shelve.Shelf.__del__ closes, and so syncs, the shelf.)
    def _has_unsaved(self) -> bool:
        return bool(self.pending or self._cache)

    def _display_name(self) -> str:
        return f"roving.Store({str(self.path)!r})"

    # Mapping sets __hash__ = None (mutable); keep identity semantics explicit.
    __hash__ = None  # type: ignore[assignment]


# roving.Store("redis://...") is a ClusterStore: isinstance(s, Store) holds.
Store.register(ClusterStore)


def _open_cluster(path: Any, flag: str, cluster: dict[str, Any], **given: Any) -> ClusterStore:
    """``Store(...)`` of Redis Cluster nodes: a :class:`ClusterStore`
    (``roving._cluster_store``), refusing the options only LMDB has."""
    if not is_cluster_target(path):
        names = ", ".join(sorted(cluster))
        raise TypeError(f"{names}: options of a store on a Redis Cluster (redis:// URLs)")
    defaults = {"writeback": False, "trusted": False, "verify_pages": False, "map_size": None}
    defaults |= {"sync": True, "populate": False, "max_readers": None}
    lmdb = [k for k, v in defaults.items() if given[k] != v]
    if lmdb:
        raise TypeError(f"{', '.join(lmdb)}: options of LMDB stores, not of a Redis Cluster store")
    keep = ("type", "readonly", "default", "non_str_keys", "dictionary")
    return ClusterStore(path, flag, **{k: given[k] for k in keep}, **cluster)


class _Writeback(Store):
    """A :class:`Store` opened with ``writeback=True``: values read or
    assigned are cached, and written back by ``flush()``/``sync()``/``close()``
    (``shelve``'s ``writeback``)."""

    __slots__ = ()
    _cache: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        try:
            return self._cache[key]
        except (KeyError, TypeError):  # not cached, or not a key at all
            pass
        value = super().__getitem__(key)
        self._cache[key] = value
        return value

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self._cache[key]
        except (KeyError, TypeError):
            pass
        # Through the class's get (a subclass's own get too, as without
        # writeback), then cached.
        value = super().get(key, _MISSING)
        if value is _MISSING:
            return default
        self._cache[key] = value
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self._cache[key] = value

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._cache.pop(key, None)

    def items(self) -> ItemsView[str, Any]:
        """A view of the (key, value) pairs, iterated in key order (values
        read through the cache, and cached)."""
        return ItemsView(self)

    def values(self) -> ValuesView[Any]:
        """A view of the values, iterated in key order (read through the
        cache, and cached)."""
        return ValuesView(self)

    def _write_back(self) -> None:
        # Over a copy: a subclass's __setitem__ may assign more keys (an
        # index) while the values are written back; those are pending
        # changes already.
        for key, value in list(self._cache.items()):
            # A read-only store's cache holds values read (it refuses
            # assignments): only one changed in place needs writing, which
            # fails as any write to a read-only store does.
            if self.readonly and self._as_stored(key, value):
                continue
            super().__setitem__(key, value)

    def _as_stored(self, key: str, value: Any) -> bool:
        """True if ``value`` encodes as the committed record of ``key``
        decodes and encodes (it was read and not changed since). Keys
        that are not ``str`` (``type=dict[int, T]`` reads ints) are
        compared as the text they are stored as."""
        try:
            stored = super().__getitem__(key)
            return self._encode(value, non_str_keys=True) == self._encode(stored, non_str_keys=True)
        except (KeyError, RovingError):
            return False

    def flush(self) -> None:
        """Write every cached value back, then commit (see :class:`Store`)."""
        self._write_back()
        super().flush()
        self._cache.clear()

    def _close(self, *, commit: bool = True) -> None:
        if commit and not self.closed:
            self._write_back()
        super()._close(commit=commit)
        self._cache.clear()

    def close(self) -> None:
        """Write every cached value back, commit and close."""
        if not self.closed:
            self._write_back()
        super().close()  # a subclass's close() too, as without writeback
        self._cache.clear()

    def _begin_transaction(self) -> None:
        # The cache written back and emptied: reads in the transaction see
        # the newest state, and cache what they read.
        self.flush()
        super()._begin_transaction()

    def _commit_transaction(self) -> None:
        try:
            self._write_back()
        except BaseException:
            self._abort_transaction()
            raise
        try:
            super()._commit_transaction()
        finally:
            self._cache.clear()

    def _abort_transaction(self) -> None:
        try:
            super()._abort_transaction()
        finally:
            self._cache.clear()

    def reload(self) -> None:
        """Drop the pending changes and the cache; read the newest committed state."""
        super().reload()
        self._cache.clear()

    def clear(self) -> None:
        """Delete every record (a pending change) and empty the cache."""
        super().clear()
        self._cache.clear()


_MISSING: Any = object()


@functools.cache
def _with_writeback(cls: type[Store]) -> type[Store]:
    """``cls`` (:class:`Store` or a subclass) with the writeback methods."""
    if cls is Store:
        return _Writeback
    return type(cls.__name__, (_Writeback, cls), {"__slots__": (), "__module__": cls.__module__})


def _without_writeback(cls: type[Store]) -> type[Store]:
    """The class that :func:`_with_writeback` made ``cls`` from (the first
    :class:`Store` class in its MRO without the writeback methods)."""
    return next(c for c in cls.__mro__ if issubclass(c, Store) and not issubclass(c, _Writeback))
