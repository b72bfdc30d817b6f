"""Reading input files and stdin, writing output files and stdout.

An output file is written by the package's writer (``roving.dump``'s):
replaced atomically where it can be (a new file, with the old one's
permissions, renamed over it), and never truncated while a ``roving.open()``
Doc of this process maps it (whose next read would die of SIGBUS).
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys

from .errors import CliError, api


def display_name(path: str) -> str:
    """How a path is named in messages: ``-`` is ``<stdin>``."""
    return "<stdin>" if path == "-" else path


def read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory") from None
    except PermissionError:
        raise CliError(f"{path}: permission denied") from None
    except OSError as e:
        raise CliError(f"{path}: {e.strerror or e}") from None


def read_head(path: str, n: int = 64) -> bytes:
    """The first ``n`` bytes of a file (none if it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return b""


def check_file(path: str) -> None:
    if path == "-":
        return
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory")
    if not os.access(path, os.R_OK):
        raise CliError(f"{path}: permission denied")


def write_stdout(data: bytes) -> None:
    """Writes all of ``data`` to stdout. Under ``python -u`` (or
    ``PYTHONUNBUFFERED``) ``sys.stdout.buffer`` is the raw file, whose
    ``write`` may write part of what it is given (a pipe whose reader went
    away, a signal): the rest is written too, and a reader gone is then the
    ``BrokenPipeError`` it should be."""
    sys.stdout.flush()  # text written before, in order
    out = sys.stdout.buffer
    try:
        # roving.dump's loop over short writes (one helper for both).
        api()._write_all(out.write, data, isinstance(out, io.RawIOBase))
    except BlockingIOError as e:  # a non-blocking stdout that is full
        left = len(data) - e.characters_written
        raise CliError(f"stdout: cannot write ({left:,} bytes left unwritten)") from None
    except BrokenPipeError:
        raise
    except OSError as e:  # a write() of 0 bytes, a full disk...
        raise CliError(f"stdout: cannot write: {e.strerror or e}") from None
    out.flush()


def write_output(path: str, data: bytes) -> None:
    """Writes ``data`` to the file ``path`` (``-``: stdout) through the
    package's writer, after the checks that make its errors the CLI's."""
    if path == "-":
        write_stdout(data)
        return
    if path.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        # "out/" names a directory (a shell's `> out/` fails too): never a
        # file "out" made or replaced.
        raise CliError(f"{path}: is a directory name (it ends in {path[-1]})")
    try:
        st: os.stat_result | None = os.stat(path)  # through symlinks
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise CliError(f"{path}: cannot write: {e.strerror or e}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise CliError(f"{path}: is a directory")
    if st is not None and not os.access(path, os.W_OK):
        # A file the user may not write is not replaced (cp, sort -o and a
        # shell's > refuse it too), although the directory would allow it.
        raise CliError(f"{path}: cannot write: permission denied (the file is read-only)")
    if st is None or stat.S_ISREG(st.st_mode):
        d = os.path.dirname(os.path.realpath(path))
        if not os.path.isdir(d):
            raise CliError(f"{path}: directory {d} does not exist")
    # A regular file (or a new one) is replaced atomically, through a
    # symlink the file it points to (the link stays); a device, FIFO or
    # socket (/dev/null, /dev/stdout, a named pipe) is written into, as a
    # shell's `>` does.
    try:
        api()._write_path(path, data)
    except BrokenPipeError:
        raise
    except OSError as e:
        if e.errno == errno.EBUSY:
            raise CliError(
                f"{path}: cannot write: a roving.open() document of this process maps the "
                "file, and it cannot be replaced here but only truncated, which would crash "
                "that document's next read (SIGBUS); write to another path"
            ) from None
        raise CliError(f"{path}: cannot write: {e.strerror or e}") from None
