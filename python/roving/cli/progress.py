"""A status line on stderr for long work (when stderr is a terminal)."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import IO, Any, Self


class Progress:
    """A status line on stderr, only when stderr is a terminal, and only
    for work that has already taken ``delay`` seconds."""

    def __init__(self, label: str, *, delay: float = 2.0, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = isatty(self.stream) and not os.environ.get("ROVING_NO_PROGRESS")
        self.label = label
        self.status = ""
        self.delay = delay
        self.t0 = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._shown = False
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        if self.enabled:
            self._thread = threading.Thread(target=self._tick, name="roving-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, status: str) -> None:
        self.status = status
        if self.enabled and time.monotonic() - self.t0 >= self.delay:
            self._draw()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
            self._thread = None
        if self._shown:
            with self._lock:
                self.stream.write("\r\033[K")
                self.stream.flush()
                self._shown = False

    def _tick(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            self._draw()
            self._stop.wait(0.25)

    def _draw(self) -> None:
        spin = "|/-\\"[int(time.monotonic() * 4) % 4]
        elapsed = time.monotonic() - self.t0
        text = f"{spin} {self.label} {elapsed:5.1f}s {self.status}"
        try:
            width = os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            width = 0
        if width < 20:
            width = 100
        with self._lock:
            self.stream.write("\r\033[K" + text[: max(10, width - 1)])
            self.stream.flush()
            self._shown = True


def isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
