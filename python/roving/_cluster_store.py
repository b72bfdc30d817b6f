"""roving.Store on a Redis Cluster: ``roving.Store("redis://host:port", ...)``.

The work is done by the extension type ``roving._roving._ClusterStore``
(``crates/roving-python/src/cluster_store.rs`` over
``roving_store::ClusterStore``); this module adds the
:class:`collections.abc.MutableMapping` mixins, iteration, ``items()`` /
``values()`` read in pipelined batches, and the context manager.
"""

from __future__ import annotations

import os
from collections.abc import Callable, ItemsView, Iterator, MutableMapping, ValuesView
from typing import Any, Self

from roving._lost_changes import FlushesUnsaved
from roving._roving import _ClusterStore
from roving._store_flag import check_flag
from roving._transaction import Transaction

__all__ = ["ClusterStore", "is_cluster_target"]

#: Records read per pipelined batch while iterating values or items.
_BATCH = 1024


def is_cluster_target(path: object) -> bool:
    """True if ``path`` names Redis Cluster nodes: a ``redis://`` URL, or a
    list or tuple of them."""
    if isinstance(path, str):
        return path.startswith("redis://")
    if isinstance(path, (list, tuple)):
        return bool(path) and all(isinstance(p, str) and p.startswith("redis://") for p in path)
    return False


class _Items(ItemsView):
    __slots__ = ()

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return self._mapping._iter_read(values_only=False)  # type: ignore[attr-defined]


class _Values(ValuesView):
    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        return self._mapping._iter_read(values_only=True)  # type: ignore[attr-defined]


class ClusterStore(_ClusterStore, FlushesUnsaved, MutableMapping):
    """``roving.Store`` on a Redis Cluster: the same mapping of ``str`` keys to
    roving documents, kept under a key prefix of a cluster shared by many
    stores and clients.

    ``roving.Store(nodes, flag="c", *, prefix="", type=None, readonly=False,
    default=None, non_str_keys=False, dictionary=True, replicas=1,
    timeout=2.0, wait_timeout=1.0, retries=8)``

    * ``nodes``: ``"redis://host:port"`` of one node, or a list of them
      (tried in turn to read the cluster's slot map).
    * ``prefix``: the Redis key of record ``k`` is ``prefix + k``; stores
      with different prefixes share the cluster without seeing each other.
      Keep braces out of it (a hash tag in the prefix puts the whole store
      in one slot, on one master). Keys may not begin with ``"\\0"`` nor
      end with ``"\\0dict"`` (reserved for the stores' own keys).
    * ``flag``: ``"c"`` and ``"w"`` open for writing, ``"r"`` read-only,
      ``"n"`` deletes every record of the prefix first.
    * ``type``, ``default``, ``non_str_keys``: as for an LMDB store.
    * ``dictionary``: write values against the store-wide dictionary (as
      an LMDB store does): the shapes of records are kept once, in one
      append-only Redis list beside them (key ``prefix + "\\0dict"``),
      grown atomically by a Lua script, cached by each client, and read
      again when a record needs entries a client lacks. ``flush()``
      appends the entries its records need, acknowledged by the replicas,
      before writing the records. With ``False``, records carry their own
      shapes (and records written by others against it still read).
    * ``replicas``: how many replicas of each master written to must
      acknowledge a ``flush()`` (``WAIT``; 0: none); ``wait_timeout``: how
      long a master waits for them (seconds); ``timeout``: how long to wait
      for a node to connect or answer; ``retries``: how many times commands
      are sent again after a redirection (``MOVED``, ``ASK``), a node that
      does not answer or too few acknowledgements.

    Semantics: each key is atomic; there is no snapshot (a read sees the
    cluster's current value, this store's pending changes first; several
    writers are last writer wins, key by key). Assignments and deletions
    are pending until ``flush()``, which pipelines them to each master and
    returns only when every master written to has them acknowledged by
    ``replicas`` replicas: a write ``flush()`` returned for survives the
    loss of a master. A flush is not atomic across keys: if it raises
    ``StoreError`` (kind ``"cluster"``, naming the node that failed), the
    changes stay pending and some may be written; flush again. ``reload()``
    drops pending changes. ``len()`` and iteration ``SCAN`` every master
    (O(records)); iteration is in key order over the keys present when it
    starts; ``values()`` and ``items()`` read them in pipelined batches.
    ``view(k)`` is a lazy ``roving.Doc`` over a copy of the record's bytes.
    Records are validated when read. :meth:`transaction` is an optimistic
    read-modify-write over keys of one hash slot. ``writeback`` is not
    supported.
    """

    # The process that opened the store (its own to flush when collected
    # or at exit).
    __slots__ = ("_pid", "__weakref__")
    _pid: int

    def __new__(
        cls,
        nodes: str | list[str] | tuple[str, ...],
        flag: str = "c",
        *,
        prefix: str = "",
        type: Any = None,  # noqa: A002 - the name loads() uses
        readonly: bool = False,
        default: Callable[[Any], Any] | None = None,
        non_str_keys: bool = False,
        dictionary: bool = True,
        replicas: int = 1,
        timeout: float = 2.0,
        wait_timeout: float = 1.0,
        retries: int = 8,
    ) -> Self:
        check_flag(flag, readonly)
        self = super().__new__(
            cls,
            nodes,
            prefix=prefix,
            type=type,
            readonly=readonly or flag == "r",
            default=default,
            non_str_keys=non_str_keys,
            dictionary=dictionary,
            replicas=replicas,
            timeout=timeout,
            wait_timeout=wait_timeout,
            retries=retries,
        )
        self._pid = os.getpid()
        self._track()
        if flag == "n":
            _ClusterStore.clear(self)
            _ClusterStore.flush(self)
        return self

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def _iter_read(self, *, values_only: bool) -> Iterator[Any]:
        keys = self._keys()
        for i in range(0, len(keys), _BATCH):
            yield from self._read_many(keys[i : i + _BATCH], values_only=values_only)

    def items(self) -> ItemsView[str, Any]:
        """A view of the (key, value) pairs, iterated in key order."""
        return _Items(self)

    def values(self) -> ValuesView[Any]:
        """A view of the values, iterated in key order."""
        return _Values(self)

    def sync(self) -> None:
        """:meth:`flush` under ``shelve``'s name."""
        self.flush()

    def transaction(self) -> Transaction[ClusterStore]:
        """An optimistic read-modify-write over keys of one hash slot:
        ``with s.transaction(): s["{c}n"] = s.get("{c}n", 0) + 1``.

        Entering it flushes the changes pending before it. Keys read in the
        block are ``WATCH``ed on the slot's master; its writes are pending
        until it ends without an exception, then sent as one ``MULTI`` ...
        ``EXEC`` (and acknowledged by ``replicas`` replicas). If another
        client changed a key the block read, nothing is written and the end
        of the block raises :class:`StoreError` (kind ``"transaction"``): run
        it again. A key of another hash slot than the block's first key
        raises the same at once (give the keys one hash tag, ``{user:1}:a``
        and ``{user:1}:b``), and so do ``flush()``, ``reload()`` and a
        nested ``transaction()`` inside the block. An exception drops the
        block's changes."""
        return Transaction(self)

    # (Flushing at collection and exit, and `with` blocks: FlushesUnsaved,
    # as for an LMDB store.)
    def _has_unsaved(self) -> bool:
        return bool(self.pending)

    def _display_name(self) -> str:
        return f"roving.Store({self.nodes[0]!r}, prefix={self.prefix!r})"

    __hash__ = None  # type: ignore[assignment]
