"""The context manager of ``Store.transaction()``, for both backends (the
LMDB ``Store`` of ``roving._store`` and the Redis Cluster's
``ClusterStore`` of ``roving._cluster_store``)."""

from __future__ import annotations

from types import TracebackType
from typing import Generic, Protocol, TypeVar


class _Transactional(Protocol):
    def _begin_transaction(self) -> None: ...
    def _commit_transaction(self) -> None: ...
    def _abort_transaction(self) -> None: ...


S = TypeVar("S", bound=_Transactional)


class Transaction(Generic[S]):
    """``with store.transaction():`` begins a transaction of ``store`` on
    entry, commits it at the end of the block, or aborts it (dropping its
    changes) if the block raises."""

    __slots__ = ("_store",)

    def __init__(self, store: S) -> None:
        self._store = store

    def __enter__(self) -> S:
        self._store._begin_transaction()
        return self._store

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self._store._commit_transaction()
        else:
            self._store._abort_transaction()
