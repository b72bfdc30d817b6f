"""The ``roving`` command line.

::

    roving convert IN OUT        JSON <-> roving (by extension, or --to); '-' is stdin/stdout
    roving get FILE PATH         the value at PATH (e.g. '[123].name') as JSON
    roving dump FILE             a readable, typed view of the document (--json for JSON)
    roving validate FILE         exit 0 if FILE is a valid roving document, else 1 with the reason and byte offset
    roving stats FILE            where the bytes go: strings, containers, shapes, numbers, what dedup saved
    roving bench                 the seed experiments, side by side (see roving bench --help)

A ``.jsonl`` file is JSON Lines: read as an array of its lines' documents
(blank lines skipped), and written from an array, one item per line.
An output file is replaced atomically (a new file, with the old one's
permissions, renamed over it); an existing one the user may not write is an
error, as for ``cp`` and ``sort -o``.

Errors are one line on stderr and a non-zero exit status: 1 for bad data
or a failed operation, 2 for a bad command line (an option that does not
apply, such as ``--indent`` without JSON output, is one).
"""

from __future__ import annotations

import argparse
import codecs
import io
import json
import math
import os
import re
import stat
import struct
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO, Any, Literal, NoReturn, Self

PROG = "roving"

JSON_EXTS = {".json", ".geojson", ".jsonl"}
ROVING_EXTS = {".rov", ".roving", ".rv"}


class CliError(Exception):
    """A failure reported as one line on stderr, with an exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------
# progress


class Progress:
    """A status line on stderr, only when stderr is a terminal, and only
    for work that has already taken ``delay`` seconds."""

    def __init__(self, label: str, *, delay: float = 2.0, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _isatty(self.stream) and not os.environ.get("ROVING_NO_PROGRESS")
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


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# ---------------------------------------------------------------------------
# the roving API


def _api() -> Any:
    try:
        import roving
    except ImportError as e:  # pragma: no cover - the package itself is here
        raise CliError(f"cannot import roving: {e}") from e
    if not hasattr(roving, "loads"):
        raise CliError(
            "the roving extension is not built (run `pip install .` or `maturin develop --release`)"
        )
    return roving


def _is_roving_error(e: BaseException) -> bool:
    rv = sys.modules.get("roving")
    base = getattr(rv, "RovingError", None) if rv is not None else None
    return base is not None and isinstance(e, base)


def _error_text(e: BaseException) -> str:
    text = str(e).strip().replace("\n", " ")
    return text or type(e).__name__


# ---------------------------------------------------------------------------
# input and output


def _read_input(path: str) -> bytes:
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


def _check_file(path: str) -> None:
    if path == "-":
        return
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory")
    if not os.access(path, os.R_OK):
        raise CliError(f"{path}: permission denied")


def _write_stdout(data: bytes) -> None:
    """Writes all of ``data`` to stdout. Under ``python -u`` (or
    ``PYTHONUNBUFFERED``) ``sys.stdout.buffer`` is the raw file, whose
    ``write`` may write part of what it is given (a pipe whose reader went
    away, a signal): the rest is written too, and a reader gone is then the
    ``BrokenPipeError`` it should be."""
    sys.stdout.flush()  # text written before, in order
    out = sys.stdout.buffer
    try:
        # roving.dump's loop over short writes (one helper for both).
        _api()._write_all(out.write, data, isinstance(out, io.RawIOBase))
    except BlockingIOError as e:  # a non-blocking stdout that is full
        left = len(data) - e.characters_written
        raise CliError(f"stdout: cannot write ({left:,} bytes left unwritten)") from None
    except BrokenPipeError:
        raise
    except OSError as e:  # a write() of 0 bytes, a full disk...
        raise CliError(f"stdout: cannot write: {e.strerror or e}") from None
    out.flush()


def _write_output(path: str, data: bytes) -> None:
    if path == "-":
        _write_stdout(data)
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
    if st is not None and not stat.S_ISREG(st.st_mode):
        # A device, FIFO or socket (/dev/null, /dev/stdout, a named pipe):
        # written into, as a shell's `>` does; the atomic replace below
        # would put a plain file in its place.
        try:
            with open(path, "wb") as f:
                f.write(data)
        except OSError as e:
            if isinstance(e, BrokenPipeError):
                raise
            raise CliError(f"{path}: cannot write: {e.strerror or e}") from None
        return
    # A regular file (or a new one) is replaced atomically; through a
    # symlink, the file it points to is, and the link stays.
    target = os.path.realpath(path)
    d = os.path.dirname(target)
    if not os.path.isdir(d):
        raise CliError(f"{path}: directory {d} does not exist")
    mode = _output_mode(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".roving-", dir=d)
    except OSError as e:
        raise CliError(f"{path}: cannot write: {e.strerror or e}") from None
    try:
        # mkstemp makes the file 0600: give it the mode open() would.
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CliError(f"{path}: cannot write: {e.strerror or e}") from None


def _output_mode(path: str) -> int:
    """The permissions of an output file: an existing file's own (it is
    replaced, e.g. converted in place), else 0666 less the umask, as open()
    gives a new file."""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    mask = os.umask(0o022)  # the only way to read it; set back at once
    os.umask(mask)
    return 0o666 & ~mask


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


# --indent: a number of spaces; --max-items and --depth: a count.
_indent = int_at_least(0, " spaces")
_count = int_at_least(0)


def _ext_kind(path: str) -> str | None:
    ext = os.path.splitext(path)[1].lower()
    if ext in JSON_EXTS:
        return "json"
    if ext in ROVING_EXTS:
        return "roving"
    return None


def _sniff(data: bytes) -> str:
    return "roving" if data[:2] == b"RV" else "json"


def _input_kind(path: str, data: bytes, forced: str | None) -> str:
    return forced or (None if path == "-" else _ext_kind(path)) or _sniff(data)


def _load_document(path: str, forced: str | None = None) -> tuple[bytes, str]:
    """Reads FILE as a roving document (converting JSON input in memory).
    Returns the roving bytes and the input kind."""
    rv = _api()
    data = _read_input(path)
    kind = _input_kind(path, data, forced)
    if kind == "json":
        return _from_json(rv, path, data), kind
    _validate(rv, path, data)
    return data, kind


def _is_json_lines(path: str) -> bool:
    """A .jsonl file: JSON Lines, one document per line, read and written as
    an array of those documents."""
    return path != "-" and os.path.splitext(path)[1].lower() == ".jsonl"


def _from_json(rv: Any, path: str, data: bytes) -> bytes:
    with Progress(f"converting {_name(path)}"):
        try:
            if _is_json_lines(path):
                return _from_json_lines(rv, path, data)
            out: bytes = rv.from_json(data)
            return out
        except Exception as e:
            if _is_roving_error(e) or isinstance(e, ValueError):
                raise CliError(f"{_name(path)}: invalid JSON: {_error_text(e)}") from None
            raise


def _from_json_lines(rv: Any, path: str, data: bytes) -> bytes:
    """The documents of a JSON Lines file (blank lines skipped) as one
    roving array, parsed in one pass. A line holding more or less than one
    value (``1, 2``) is an error, not array items: when the array is not one
    item per line, or does not parse, the lines are parsed one by one to
    name the first bad one."""
    lines = [(n, line) for n, line in enumerate(data.split(b"\n"), 1) if line.strip()]
    try:
        out: bytes = rv.from_json(b"[" + b",".join(line for _, line in lines) + b"]")
        if len(rv.open(out).root) == len(lines):
            return out
        failure: Exception | None = None
    except Exception as e:
        if not (_is_roving_error(e) or isinstance(e, ValueError)):
            raise
        failure = e
    for n, line in lines:
        try:
            rv.from_json(line)
        except Exception as e:
            if _is_roving_error(e) or isinstance(e, ValueError):
                text = re.sub(r"\(line 1, column (\d+)\)", r"(column \1)", _error_text(e))
                raise CliError(f"{_name(path)}: line {n}: invalid JSON: {text}") from None
            raise
    # (Unreachable: lines that each hold one value join into an array of
    # one item per line.)
    raise CliError(f"{_name(path)}: invalid JSON Lines: {failure}")


def _validate(rv: Any, path: str, data: bytes) -> None:
    """Raises CliError unless ``data`` is a valid roving document."""
    with Progress(f"validating {_name(path)}"):
        try:
            if hasattr(rv, "validate"):
                rv.validate(data)
            else:
                rv.open(data)
        except Exception as e:
            if _is_roving_error(e) or isinstance(e, ValueError):
                raise CliError(f"{_name(path)}: {_damaged(e, data)}") from None
            raise


def _damaged(e: BaseException, data: bytes) -> str:
    text = _error_text(e)
    off = getattr(e, "offset", None)
    if off is not None and "offset" not in text:
        text += f" (byte offset {off})"
    if not data:
        return "empty file, not a roving document"
    if data[:2] != b"RV":
        return f"not a roving file: {text}"
    return f"damaged roving file: {text}"


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


# ---------------------------------------------------------------------------
# convert


def cmd_convert(args: argparse.Namespace) -> int:
    rv = _api()
    if args.input != "-":
        _check_file(args.input)
    data = _read_input(args.input)
    src = _input_kind(args.input, data, args.from_)
    dst = args.to or (None if args.output == "-" else _ext_kind(args.output))
    if dst is None:
        dst = "json" if src == "roving" else "roving"
    lines = dst == "json" and _is_json_lines(args.output)
    if args.indent is not None and dst == "roving":
        raise CliError("--indent applies to JSON output, not to roving output", status=2)
    if args.indent is not None and lines:
        raise CliError(
            f"--indent does not apply to JSON Lines output ({args.output}: one document per line)",
            status=2,
        )
    if src == "json":
        doc = _from_json(rv, args.input, data)
    else:
        _validate(rv, args.input, data)
        doc = data
    if dst == "roving":
        out = doc
    elif lines:
        out = _to_json_lines(rv, args.output, doc)
    else:
        out = _to_json(rv, args.input, doc, args.indent)
        if args.output == "-" or args.indent is not None:
            out += b"\n"
    _write_output(args.output, out)
    if args.verbose:
        print(
            f"{_name(args.input)} ({src}, {len(data):,} bytes) -> {_name(args.output)} ({dst}, {len(out):,} bytes)",
            file=sys.stderr,
        )
    return 0


def _to_json_lines(rv: Any, out_path: str, doc: bytes) -> bytes:
    """JSON Lines of a document whose root is an array: one line per item."""
    root = rv.open(doc).root
    kind = _kind_of(root)
    if kind != "array":
        raise CliError(
            f"{out_path}: JSON Lines output needs an array at the root (one line per item), "
            f"this document's root is {_a(kind)}"
        )
    with Progress(f"writing JSON Lines to {out_path}"):
        return b"".join(_value_json(rv, item, None) + b"\n" for item in root)


def _to_json(rv: Any, path: str, doc: bytes, indent: int | None) -> bytes:
    with Progress(f"writing JSON for {_name(path)}"):
        try:
            out = rv.to_json(doc, indent=indent) if indent is not None else rv.to_json(doc)
        except Exception as e:
            if _is_roving_error(e) or isinstance(e, ValueError):
                raise CliError(f"{_name(path)}: cannot write as JSON: {_error_text(e)}") from None
            raise
    return out.encode("utf-8") if isinstance(out, str) else bytes(out)


# ---------------------------------------------------------------------------
# get


def parse_path(path: str) -> list[Any]:
    """Parses ``[123].name``, ``$.a["odd.key"][0]``, ``name`` with the
    core's path parser (the one the package's ``get_path`` uses): ints are
    indexes (negative ones count from the end), strings keys. Raises
    CliError on a malformed path."""
    from roving._roving import _parse_path

    try:
        return _parse_path(path)
    except UnicodeEncodeError:
        # Bytes of the command line that are not UTF-8 (os.fsdecode's
        # surrogates): keys are UTF-8, so no key has them.
        raise CliError(f"bad path: {ascii(path)} is not UTF-8 text", 2) from None
    except ValueError as e:
        raise CliError(str(e), 2) from None


def _fmt_path(steps: list[Any]) -> str:
    s = "$"
    for st in steps:
        if isinstance(st, int):
            s += f"[{st}]"
        elif st.isidentifier():
            s += f".{st}"
        else:
            s += "[" + json.dumps(st, ensure_ascii=False) + "]"
    return s


def _walk(root: Any, steps: list[Any]) -> Any:
    v = root
    for k, st in enumerate(steps):
        here = _fmt_path(steps[:k]) if k else "the root"
        kind = _kind_of(v)
        if isinstance(st, int):
            if kind != "array":
                raise CliError(
                    f"path not found: {_fmt_path(steps)}: {here} is {_a(kind)}, not an array"
                )
            length = len(v)
            idx = st + length if st < 0 else st
            if not 0 <= idx < length:
                raise CliError(
                    f"path not found: {_fmt_path(steps)}: index {st} out of range at {here} ({length} items)"
                )
            v = v[idx]
        else:
            if kind != "map":
                raise CliError(
                    f"path not found: {_fmt_path(steps)}: {here} is {_a(kind)}, not a map"
                )
            if st not in v:
                raise CliError(f"path not found: {_fmt_path(steps)}: no key {st!r} at {here}")
            v = v[st]
    return v


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _kind_of(v: Any) -> str:
    """'array', 'map' or a scalar kind, for a plain Python value or a lazy view."""
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, dict):
        return "map"
    k = getattr(v, "kind", None)  # lazy views say "array" or "map"
    if isinstance(k, str) and not isinstance(v, (str, bytes)):
        return k
    if v is None:
        return "null"
    if isinstance(v, (bool, int, float, str, bytes, bytearray, memoryview)):
        return {bool: "bool", int: "int", float: "float", str: "string"}.get(type(v), "bytes")
    if hasattr(v, "keys") and hasattr(v, "items"):
        return "map"
    if hasattr(v, "__len__") and hasattr(v, "__getitem__"):
        return "array"
    return type(v).__name__


def cmd_get(args: argparse.Namespace) -> int:
    rv = _api()
    steps = parse_path(args.path)
    _check_file(args.file)
    kind = args.from_ or ("json" if args.file != "-" and _ext_kind(args.file) == "json" else None)
    if args.file != "-" and kind != "json" and hasattr(rv, "open") and os.path.isfile(args.file):
        # Memory-map the file: only the bytes on the path are read (after validation).
        # Not a pipe (a FIFO, /dev/stdin, a shell's <(...)): it cannot be mapped
        # and reads only once, so it is read whole below.
        try:
            with Progress(f"opening {args.file}"):
                doc = rv.open(args.file)
        except Exception as e:
            if _is_roving_error(e) or isinstance(e, (ValueError, OSError)):
                head = _read_head(args.file)
                if (
                    head[:2] != b"RV"
                    and _sniff(head) == "json"
                    and kind is None
                    and head.strip()[:1] in (b"{", b"[")
                ):
                    data = _from_json(rv, args.file, _read_input(args.file))
                    doc = rv.open(data)
                else:
                    raise CliError(f"{args.file}: {_damaged(e, head)}") from None
            else:
                raise
    else:
        data, _ = _load_document(args.file, kind)
        doc = rv.open(data)
    value = _walk(doc.root, steps)
    _write_stdout(_value_json(rv, value, args.indent) + b"\n")
    return 0


def _read_head(path: str, n: int = 64) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return b""


def _value_json(rv: Any, value: Any, indent: int | None) -> bytes:
    """JSON text of a view or a plain value, written by the core's JSON
    writer so every type is spelled the same as `roving convert`."""
    if hasattr(value, "to_json") and not isinstance(value, (str, bytes)):
        try:
            out = value.to_json(indent=indent) if indent is not None else value.to_json()
        except TypeError:
            out = value.to_json()
        return out.encode("utf-8") if isinstance(out, str) else bytes(out)
    if hasattr(value, "to_python"):
        value = value.to_python()
    try:
        doc = rv.dumps(value)
        out = rv.to_json(doc, indent=indent) if indent is not None else rv.to_json(doc)
    except Exception as e:
        if _is_roving_error(e) or isinstance(e, (ValueError, TypeError)):
            raise CliError(f"cannot write the value as JSON: {_error_text(e)}") from None
        raise
    return out.encode("utf-8") if isinstance(out, str) else bytes(out)


# ---------------------------------------------------------------------------
# the record scanner (stats and dump)
#
# A validated document is a run of records from the header to the root
# record, every reference pointing backward. The scanner mirrors the core's
# format module (crates/roving/src/format.rs); it runs only on documents
# the core has validated first.

TAG_I8, TAG_I16, TAG_I32, TAG_I64, TAG_U64 = 0x01, 0x02, 0x03, 0x04, 0x05
TAG_BIGINT_POS, TAG_BIGINT_NEG, TAG_F32, TAG_F64 = 0x06, 0x07, 0x08, 0x09
TAG_TIMESTAMP, TAG_TIMESTAMP_OFFSET, TAG_STR, TAG_BYTES, TAG_EXT, TAG_VECTOR = (
    0x0A,
    0x0B,
    0x0C,
    0x0D,
    0x0E,
    0x0F,
)
TAG_ARRAY, TAG_MAP, TAG_SHAPE, TAG_ROOT, TAG_F_DEC, TAG_SHORT_STR = (
    0x10,
    0x14,
    0x18,
    0x1C,
    0x20,
    0x80,
)
HEADER_LEN = 3
SHAPE_LINEAR_MAX = 8
WIDTHS = (1, 2, 4, 8)
SPECIALS: dict[int, None | bool | str | list[Any] | dict[str, Any]] = {
    0: None,
    1: False,
    2: True,
    3: "",
    4: [],
    5: {},
}
ELEM_TYPES = {
    0: ("i8", "b"),
    1: ("u8", "B"),
    2: ("i16", "h"),
    3: ("u16", "H"),
    4: ("i32", "i"),
    5: ("u32", "I"),
    6: ("i64", "q"),
    7: ("u64", "Q"),
    8: ("f32", "f"),
    9: ("f64", "d"),
}

#: Record kind -> (stats section, type name)
_KINDS = {
    "str": ("strings", "str"),
    "int": ("numbers", "int"),
    "uint": ("numbers", "int"),
    "bigint": ("numbers", "int"),
    "float": ("numbers", "float"),
    "timestamp": ("other scalars", "timestamp"),
    "bytes": ("other scalars", "bytes"),
    "ext": ("other scalars", "ext"),
    "vector": ("vectors", "vector"),
    "array": ("containers", "array"),
    "map": ("containers", "map"),
    "shape": ("shapes", "shape"),
    "root": ("root", "root"),
}


#: Fixed-size records: tag -> (payload length, kind, encoding name).
_FIXED = {
    TAG_I8: (1, "int", "i8"),
    TAG_I16: (2, "int", "i16"),
    TAG_I32: (4, "int", "i32"),
    TAG_I64: (8, "int", "i64"),
    TAG_U64: (8, "uint", "u64"),
    TAG_F32: (4, "float", "f32"),
    TAG_F64: (8, "float", "f64"),
    TAG_F_DEC: (5, "float", "decimal"),
    TAG_TIMESTAMP: (12, "timestamp", "timestamp"),
    TAG_TIMESTAMP_OFFSET: (16, "timestamp", "timestamp+offset"),
}
_CAST: dict[int, Literal["B", "H", "I", "Q"]] = {1: "B", 2: "H", 4: "I", 8: "Q"}


class FormatDrift(Exception):
    """The scanner met bytes it does not know: the format has moved on."""


def _varint(b: bytes, p: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        if p >= len(b):
            raise FormatDrift(f"varint runs past the end at {p}")
        x = b[p]
        p += 1
        v |= (x & 0x7F) << shift
        if x < 0x80:
            return v, p
        shift += 7
        if shift > 63:
            raise FormatDrift("varint too long")


def _table_size(count: int) -> int:
    n = count + count // 2 + 1
    return 1 << (n - 1).bit_length()


def _entry_width(count: int) -> int:
    return 1 if count < 0xFF else 2 if count < 0xFFFF else 4


class Record:
    """One record of a document, as the scanner sees it."""

    __slots__ = ("enc", "end", "kind", "pos", "shape", "slots", "tag", "width")

    def __init__(self, pos: int, end: int, tag: int, kind: str, enc: str, width: int = 0) -> None:
        self.pos = pos
        self.end = end
        self.tag = tag
        self.kind = kind
        self.enc = enc
        self.width = width
        self.slots: tuple[int, int] | None = None  # (first slot position, count)
        self.shape: int | None = None


class Scanner:
    """Walks the records of a (validated) document."""

    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        self._mv = memoryview(buf)
        self._shape_cache: dict[int, int] = {}

    def records(self) -> Iterator[Record]:
        b = self.buf
        pos = HEADER_LEN
        n = len(b)
        while pos < n:
            r = self.record(pos)
            yield r
            pos = r.end

    def record(self, pos: int) -> Record:
        b = self.buf
        t = b[pos]
        p = pos + 1
        if t & 0xC0 == TAG_SHORT_STR:
            return Record(pos, p + (t & 0x3F), t, "str", "short str")
        if t == TAG_STR:
            ln, q = _varint(b, p)
            return Record(pos, q + ln, t, "str", "str")
        fx = _FIXED.get(t)
        if fx is not None:
            ln, kind, enc = fx
            return Record(pos, p + ln, t, kind, enc)
        if t in (TAG_BIGINT_POS, TAG_BIGINT_NEG):
            ln, q = _varint(b, p)
            return Record(pos, q + ln, t, "bigint", "bigint")
        if t == TAG_BYTES:
            ln, q = _varint(b, p)
            return Record(pos, q + ln, t, "bytes", "bytes")
        if t == TAG_EXT:
            _, q = _varint(b, p)
            ln, q = _varint(b, q)
            return Record(pos, q + ln, t, "ext", "ext")
        if t == TAG_VECTOR:
            code = b[p]
            if code not in ELEM_TYPES:
                raise FormatDrift(f"unknown vector element type {code}")
            size = struct.calcsize(ELEM_TYPES[code][1])
            count, q = _varint(b, p + 1)
            start = -(-q // size) * size
            return Record(pos, start + count * size, t, "vector", f"vector<{ELEM_TYPES[code][0]}>")
        base = t & ~3
        w = WIDTHS[t & 3]
        if base == TAG_ARRAY:
            count, q = _varint(b, p)
            r = Record(pos, q + count * w, t, "array", f"array/{w}", w)
            r.slots = (q, count)
            return r
        if base == TAG_MAP:
            ref, q = _varint(b, p)
            x = ref >> 1
            shape = x if ref & 1 else pos - x
            count = self.shape_count(shape)
            r = Record(pos, q + count * w, t, "map", f"map/{w}", w)
            r.slots = (q, count)
            r.shape = shape
            return r
        if base == TAG_SHAPE:
            count, q = _varint(b, p)
            end = q + count * w
            if count > SHAPE_LINEAR_MAX:
                end += _table_size(count) * _entry_width(count)
            r = Record(pos, end, t, "shape", f"shape/{w}", w)
            r.slots = (q, count)
            return r
        if base == TAG_ROOT:
            r = Record(pos, p + w + 1, t, "root", f"root/{w}", w)
            r.slots = (p, 1)
            return r
        raise FormatDrift(f"unknown tag 0x{t:02x} at {pos}")

    def shape_count(self, pos: int) -> int:
        c = self._shape_cache.get(pos)
        if c is None:
            if self.buf[pos] & ~3 != TAG_SHAPE:
                raise FormatDrift(f"map shape at {pos} is not a shape")
            c, _ = _varint(self.buf, pos + 1)
            self._shape_cache[pos] = c
        return c

    def slot(self, p: int, w: int, base: int) -> tuple[str, Any]:
        """Decodes the slot at ``p``: ('int', n), ('special', k) or ('ref', pos)."""
        raw = int.from_bytes(self.buf[p : p + w], "little")
        low = raw & 3
        if low == 1:
            bits = w * 8
            v = raw
            if v >> (bits - 1):
                v -= 1 << bits
            return "int", v >> 2
        if low == 3:
            return "special", raw >> 2
        if low == 0:
            return "ref", base - (raw >> 2)
        return "ref", raw >> 2

    def slots_of(self, r: Record) -> list[tuple[str, Any]]:
        """The decoded slots of a container, shape or root record."""
        if r.slots is None:
            return []
        q, count = r.slots
        w = r.width
        if count == 0:
            return []
        raws = self._raws(q, count, w)
        base = r.pos
        bits = w * 8
        sign = 1 << (bits - 1)
        full = 1 << bits
        out: list[tuple[str, Any]] = []
        for raw in raws:
            low = raw & 3
            if low == 0:
                out.append(("ref", base - (raw >> 2)))
            elif low == 2:
                out.append(("ref", raw >> 2))
            elif low == 1:
                v = raw - full if raw & sign else raw
                out.append(("int", v >> 2))
            else:
                out.append(("special", raw >> 2))
        return out

    def _raws(self, q: int, count: int, w: int) -> list[int]:
        mv = self._mv[q : q + count * w]
        if sys.byteorder == "little":
            return mv.cast(_CAST[w]).tolist()
        return [int.from_bytes(mv[i * w : (i + 1) * w], "little") for i in range(count)]

    def root_slot(self) -> tuple[str, Any]:
        b = self.buf
        w = WIDTHS[b[-1] & 3]
        pos = len(b) - w - 2
        return self.slot(pos + 1, w, pos)

    # -- scalar values ---------------------------------------------------

    def scalar(self, r: Record) -> Any:
        b, p, t = self.buf, r.pos + 1, r.tag
        if r.kind == "str":
            start = p if t != TAG_STR else _varint(b, p)[1]
            return b[start : r.end].decode("utf-8", errors="replace")
        if t in (TAG_I8, TAG_I16, TAG_I32, TAG_I64):
            return int.from_bytes(b[p : r.end], "little", signed=True)
        if t == TAG_U64:
            return int.from_bytes(b[p : r.end], "little")
        if t in (TAG_BIGINT_POS, TAG_BIGINT_NEG):
            ln, q = _varint(b, p)
            mag = int.from_bytes(b[q : q + ln], "little")
            return -mag if t == TAG_BIGINT_NEG else mag
        if t == TAG_F32:
            return struct.unpack_from("<f", b, p)[0]
        if t == TAG_F64:
            return struct.unpack_from("<d", b, p)[0]
        if t == TAG_F_DEC:
            e = struct.unpack_from("<b", b, p)[0]
            m = struct.unpack_from("<i", b, p + 1)[0]
            scale = float(10 ** min(abs(e), 22))
            return m / scale if e < 0 else m * scale
        if r.kind == "timestamp":
            secs, nanos = struct.unpack_from("<qI", b, p)
            off = struct.unpack_from("<i", b, p + 12)[0] if t == TAG_TIMESTAMP_OFFSET else None
            return _fmt_timestamp(secs, nanos, off)
        if r.kind == "bytes":
            ln, q = _varint(b, p)
            return bytes(b[q : q + ln])
        if r.kind == "ext":
            tid, q = _varint(b, p)
            ln, q = _varint(b, q)
            return (tid, bytes(b[q : q + ln]))
        if r.kind == "vector":
            code = b[p]
            name, fmt = ELEM_TYPES[code]
            size = struct.calcsize(fmt)
            count, q = _varint(b, p + 1)
            start = -(-q // size) * size
            shown = min(count, 8)
            vals = list(struct.unpack_from(f"<{shown}{fmt}", b, start)) if shown else []
            return (name, count, vals)
        raise FormatDrift(f"not a scalar record: {r.enc}")

    def map_keys(self, shape_pos: int) -> list[str]:
        sh = self.record(shape_pos)
        keys = []
        for kind, v in self.slots_of(sh):
            if kind == "special":
                keys.append("")
            else:
                keys.append(self.scalar(self.record(v)))
        return keys


def _fmt_timestamp(secs: int, nanos: int, off: int | None) -> str:
    import datetime as dt

    try:
        tz = dt.timezone(dt.timedelta(seconds=off)) if off is not None else dt.UTC
        d = dt.datetime.fromtimestamp(secs, tz)
        frac = f".{nanos:09d}".rstrip("0") if nanos else ""
        base = d.strftime("%Y-%m-%dT%H:%M:%S") + (frac if frac != "." else "")
        if off is None:
            return base + "Z"
        return base + d.strftime("%z")[:3] + ":" + d.strftime("%z")[3:]
    except (OverflowError, OSError, ValueError):
        return f"{secs}s+{nanos}ns" + (f" offset {off}s" if off is not None else "")


# ---------------------------------------------------------------------------
# stats


def compute_stats(buf: bytes) -> dict[str, Any]:
    """Where the bytes of a validated document go, by record kind, and
    what sharing (deduplication) saved."""
    sc = Scanner(buf)
    sections: dict[str, dict[str, int]] = {}
    encodings: dict[str, dict[str, int]] = {}
    recs: list[Record] = []
    #: position -> record index; child references per record (shape first for maps)
    index: dict[int, int] = {}
    children: list[list[int]] = []
    key_strings: set[int] = set()
    slots = {
        "total": 0,
        "inline ints": 0,
        "constants": 0,
        "references": 0,
        "slot bytes": 0,
    }
    values = dict.fromkeys(("null", "bool", "int", "float", "str", "array", "map", "other"), 0)
    special_kind = {0: "null", 1: "bool", 2: "bool", 3: "str", 4: "array", 5: "map"}
    value_kind = {
        "str": "str",
        "int": "int",
        "uint": "int",
        "bigint": "int",
        "float": "float",
        "array": "array",
        "map": "map",
    }

    def add(d: dict[str, dict[str, int]], k: str, nbytes: int) -> None:
        e = d.get(k)
        if e is None:
            e = d[k] = {"records": 0, "bytes": 0}
        e["records"] += 1
        e["bytes"] += nbytes

    for r in sc.records():
        index[r.pos] = len(recs)
        recs.append(r)
        size = r.end - r.pos
        add(sections, _KINDS[r.kind][0], size)
        add(encodings, r.enc, size)
        kids: list[int] = []
        if r.shape is not None:
            kids.append(r.shape)
        if r.slots is not None:
            slots["slot bytes"] += r.slots[1] * r.width
            is_shape = r.kind == "shape"
            for kind, v in sc.slots_of(r):
                slots["total"] += 1
                if kind == "ref":
                    slots["references"] += 1
                    kids.append(v)
                    if is_shape:
                        key_strings.add(v)
                    else:
                        values[value_kind.get(recs[index[v]].kind, "other")] += 1
                elif kind == "int":
                    slots["inline ints"] += 1
                    if not is_shape:
                        values["int"] += 1
                else:
                    slots["constants"] += 1
                    if not is_shape:
                        values[special_kind.get(v, "other")] += 1
        children.append(kids)

    # Dedup: how many times each record would be written if every shared
    # reference were a copy: the number of paths from the root to it.
    paths = [0] * len(recs)
    if recs:
        paths[-1] = 1
    for i in range(len(recs) - 1, -1, -1):
        m = paths[i]
        if m:
            for c in children[i]:
                paths[index[c]] += m
    saved_by: dict[str, int] = {}
    shared_records = 0
    unreached = 0
    for i, r in enumerate(recs):
        m = paths[i]
        if m > 1:
            shared_records += 1
            kind = (
                "key strings" if (r.kind == "str" and r.pos in key_strings) else _KINDS[r.kind][0]
            )
            saved_by[kind] = saved_by.get(kind, 0) + (m - 1) * (r.end - r.pos)
        elif m == 0:
            unreached += 1

    key_bytes = sum(recs[index[p]].end - p for p in key_strings)
    total = len(buf)
    saved = sum(saved_by.values())
    return {
        "bytes": total,
        "header": HEADER_LEN,
        "records": len(recs),
        "sections": sections,
        "encodings": encodings,
        "key_strings": {"records": len(key_strings), "bytes": key_bytes},
        "slots": slots,
        "values": values,
        "dedup": {
            "shared_records": shared_records,
            "saved_bytes": saved,
            "saved_by": saved_by,
            "expanded_bytes": total + saved,
            "unreachable_records": unreached,
        },
    }


def cmd_stats(args: argparse.Namespace) -> int:
    _check_file(args.file)
    data, kind = _load_document(args.file, args.from_)
    try:
        with Progress(f"scanning {_name(args.file)}"):
            st = compute_stats(data)
    except (FormatDrift, IndexError, KeyError, UnicodeDecodeError, struct.error) as e:
        raise CliError(
            f"{_name(args.file)}: the document is valid but `stats` does not understand its layout "
            f"({e}); this roving CLI is older than the format"
        ) from None
    st["file"] = _name(args.file)
    st["input"] = kind
    if kind == "json":
        st["json_bytes"] = os.path.getsize(args.file) if args.file != "-" else None
    if args.json:
        print(json.dumps(st, indent=2))
        return 0
    _print_stats(st)
    return 0


def _pct(n: float, total: float) -> str:
    return f"{100.0 * n / total:5.1f}%" if total else "    -"


def _print_stats(st: dict[str, Any]) -> None:
    total = st["bytes"]
    out = []
    src = (
        f" (converted from JSON, {st['json_bytes']:,} bytes)"
        if st.get("input") == "json" and st.get("json_bytes")
        else ""
    )
    out.append(f"{st['file']}: {total:,} bytes as roving{src}, {st['records']:,} records")
    if st.get("input") == "json" and st.get("json_bytes"):
        out.append(f"  roving / JSON size: {total / st['json_bytes']:.3f}")
    out.append("")
    out.append(f"  {'section':<16}{'bytes':>12}{'share':>8}{'records':>10}")
    order = [
        "strings",
        "numbers",
        "containers",
        "shapes",
        "vectors",
        "other scalars",
        "root",
    ]
    out.append(f"  {'header':<16}{st['header']:>12,}{_pct(st['header'], total):>8}{'':>10}")
    for k in order:
        s = st["sections"].get(k)
        if not s:
            continue
        out.append(f"  {k:<16}{s['bytes']:>12,}{_pct(s['bytes'], total):>8}{s['records']:>10,}")
    ks = st["key_strings"]
    if ks["records"]:
        out.append(
            f"    of the strings, map keys: {ks['bytes']:,} bytes in {ks['records']:,} records (stored once, shared by the shapes)"
        )
    sl = st["slots"]
    out.append(
        f"    of the containers, shapes and root, slots: {sl['slot bytes']:,} bytes in {sl['total']:,} slots "
        f"({sl['references']:,} references, {sl['inline ints']:,} inline ints, {sl['constants']:,} inline constants)"
    )
    out.append("")
    v = st["values"]
    out.append("  values: " + ", ".join(f"{n:,} {k}" for k, n in v.items() if n))
    out.append(
        "  encodings: "
        + ", ".join(
            f"{k} {e['records']:,} ({e['bytes']:,} B)"
            for k, e in sorted(st["encodings"].items(), key=lambda kv: -kv[1]["bytes"])
        )
    )
    out.append("")
    d = st["dedup"]
    if d["saved_bytes"]:
        out.append(
            f"  dedup: {d['shared_records']:,} {'record is' if d['shared_records'] == 1 else 'records are'}"
            " shared; written once each instead of at every use,"
        )
        out.append(
            f"         they save ~{d['saved_bytes']:,} bytes (the document would be ~{d['expanded_bytes']:,} bytes, "
            f"{d['expanded_bytes'] / total:.2f}x, without sharing)"
        )
        for k, n in sorted(d["saved_by"].items(), key=lambda kv: -kv[1]):
            out.append(f"         {k:<16}{n:>14,} bytes saved")
    else:
        out.append("  dedup: nothing is shared")
    if d["unreachable_records"]:
        out.append(f"  note: {d['unreachable_records']:,} records are not reachable from the root")
    print("\n".join(out))


# ---------------------------------------------------------------------------
# dump


class _Dumper:
    def __init__(
        self,
        sc: Scanner,
        out: IO[str],
        *,
        max_items: int | None,
        max_depth: int | None,
        offsets: bool,
    ) -> None:
        self.sc = sc
        self.out = out
        self.max_items = max_items
        self.max_depth = max_depth
        self.offsets = offsets
        self.seen: set[int] = set()
        self.lines = 0

    def write(self, indent: int, label: str, text: str) -> None:
        self.out.write("  " * indent + label + text + "\n")
        self.lines += 1

    def run(self) -> None:
        # An explicit stack: no recursion, whatever the depth.
        stack: list[tuple[int, str, tuple[str, Any]]] = [(0, "", self.sc.root_slot())]
        while stack:
            indent, label, slot = stack.pop()
            if slot[0] == "more":
                self.write(indent, label, f"… {slot[1]:,} more")
                continue
            children = self.value(indent, label, slot)
            if children:
                stack.extend(reversed(children))

    def value(
        self, indent: int, label: str, slot: tuple[str, Any]
    ) -> list[tuple[int, str, tuple[str, Any]]]:
        kind, v = slot
        if kind == "int":
            self.write(indent, label, f"int {v}" + (" (inline)" if self.offsets else ""))
            return []
        if kind == "special":
            c = SPECIALS.get(v, "?")
            if c is None:
                self.write(indent, label, "null")
            elif isinstance(c, bool):
                self.write(indent, label, f"bool {'true' if c else 'false'}")
            elif c == "":
                self.write(indent, label, 'str ""')
            elif c == []:
                self.write(indent, label, "array[0]")
            else:
                self.write(indent, label, "map{0}")
            return []
        r = self.sc.record(v)
        at = f"  @{r.pos} {r.enc}" if self.offsets else ""
        if r.kind in ("array", "map"):
            assert r.slots is not None  # record() sets slots on arrays and maps
            count = r.slots[1]
            if r.pos in self.seen:
                what = f"array[{count}]" if r.kind == "array" else f"map{{{count}}}"
                self.write(indent, label, f"{what} = @{r.pos} (shared, shown above)")
                return []
            self.seen.add(r.pos)
            if r.kind == "array":
                self.write(indent, label, f"array[{count}]{at}")
            else:
                self.write(indent, label, f"map{{{count}}}{at}")
            if self.max_depth is not None and indent >= self.max_depth:
                if count:
                    self.write(indent + 1, "", "…")
                return []
            shown = count if self.max_items is None else min(count, self.max_items)
            kids = []
            slots = self.sc.slots_of(r)
            keys = None
            if r.kind == "map":
                assert r.shape is not None  # record() sets shape on maps
                keys = self.sc.map_keys(r.shape)
            for i, s in zip(range(shown), slots, strict=False):
                lab = f"[{i}]: " if keys is None else f"{_key_label(keys[i])}: "
                kids.append((indent + 1, lab, s))
            if shown < count:
                kids.append((indent + 1, "", ("more", count - shown)))
            return kids
        val = self.sc.scalar(r)
        if r.kind == "str":
            text = "str " + json.dumps(val, ensure_ascii=False)
        elif r.kind in ("int", "uint", "bigint"):
            text = "int " + _fmt_int(val)
        elif r.kind == "float":
            text = f"float {_fmt_float(val)}"
        elif r.kind == "timestamp":
            text = f"timestamp {val}"
        elif r.kind == "bytes":
            text = f"bytes[{len(val)}] {val[:24].hex()}" + ("…" if len(val) > 24 else "")
        elif r.kind == "ext":
            tid, data = val
            text = _ext_text(tid, data)
        elif r.kind == "vector":
            name, count, vals = val
            text = (
                f"vector<{name}>[{count}] ["
                + ", ".join(_fmt_float(x) if isinstance(x, float) else str(x) for x in vals)
                + (", …" if count > len(vals) else "")
                + "]"
            )
        else:
            text = r.kind
        self.write(indent, label, text + at)
        return []


def _ext_text(tid: int, data: bytes) -> str:
    """An ext value; the Python package's own ext types are spelled out."""
    rv = sys.modules.get("roving")
    known = {
        getattr(rv, "EXT_DATE", 1): "date",
        getattr(rv, "EXT_UUID", 2): "uuid",
        getattr(rv, "EXT_DECIMAL", 3): "decimal",
        getattr(rv, "EXT_TIME", 4): "time",
        getattr(rv, "EXT_TIMEDELTA", 5): "timedelta",
    }
    kind = known.get(tid)
    try:
        if kind == "date" and len(data) == 4:
            import datetime as dt

            days = int.from_bytes(data, "little", signed=True)
            return f"date {dt.date(1970, 1, 1) + dt.timedelta(days=days)}"
        if kind == "uuid" and len(data) == 16:
            import uuid

            return f"uuid {uuid.UUID(bytes=bytes(data))}"
        if kind == "decimal" and data.isascii():
            return f"decimal {data.decode('ascii')}"
        if kind == "time" and len(data) in (9, 17) and data[8] in (0, 1):
            import datetime as dt

            us = int.from_bytes(data[:8], "little")
            tz = None
            if len(data) == 17:
                off = int.from_bytes(data[9:], "little", signed=True)
                tz = dt.timezone(dt.timedelta(microseconds=off))
            s, us = divmod(us, 10**6)
            t = dt.time(s // 3600, s // 60 % 60, s % 60, us, tz, fold=data[8])
            return f"time {t.isoformat()}" + (" fold=1" if t.fold else "")
        if kind == "timedelta" and len(data) == 12:
            import datetime as dt

            us = int.from_bytes(data[8:], "little")
            if us < 10**6:
                secs = int.from_bytes(data[:8], "little", signed=True)
                return f"timedelta {dt.timedelta(seconds=secs, microseconds=us)}"
    except (OverflowError, ValueError):
        pass
    more = "…" if len(data) > 24 else ""
    return f"ext(type {tid})[{len(data)}] {data[:24].hex()}{more}"


def _key_label(k: str) -> str:
    if k and k.isprintable() and not any(c in k for c in ":\"' ") and k.strip() == k:
        return k
    return json.dumps(k, ensure_ascii=False)


def _fmt_int(n: int) -> str:
    """Decimal text of ``n``; past Python's limit on int-to-text conversion
    (4300 digits, which also guards against its quadratic cost) only the
    sign and the approximate length."""
    try:
        return str(n)
    except ValueError:
        digits = int(n.bit_length() * math.log10(2)) + 1
        return f"{'-' if n < 0 else ''}… (about {digits:,} digits; --json prints them all)"


def _fmt_float(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(x)


def cmd_dump(args: argparse.Namespace) -> int:
    if args.indent is not None and not args.json:
        raise CliError("--indent applies to JSON output: add --json", status=2)
    _check_file(args.file)
    data, _ = _load_document(args.file, args.from_)
    rv = _api()
    if args.json:
        js = _to_json(rv, args.file, data, args.indent if args.indent is not None else 2)
        _write_stdout(js + b"\n")
        return 0
    out = sys.stdout
    try:
        _Dumper(
            Scanner(data),
            out,
            max_items=args.max_items,
            max_depth=args.depth,
            offsets=args.offsets,
        ).run()
    except (FormatDrift, IndexError, KeyError, struct.error) as e:
        raise CliError(
            f"{_name(args.file)}: the document is valid but `dump` does not understand its layout ({e}); "
            "use --json"
        ) from None
    out.flush()
    return 0


# ---------------------------------------------------------------------------
# validate


def cmd_validate(args: argparse.Namespace) -> int:
    if args.files.count("-") > 1:
        raise CliError("'-' (stdin) can be given only once: stdin is read once", status=2)
    rv = _api()
    status = 0
    for path in args.files:
        try:
            _check_file(path)
            data = _read_input(path)
            _validate(rv, path, data)
        except CliError as e:
            print(f"{PROG} validate: error: {e}", file=sys.stderr)
            status = 1
            continue
        if not args.quiet:
            print(
                f"{_name(path)}: ok ({len(data):,} bytes, roving v{data[2] if len(data) > 2 else '?'}, root: {_root_desc(data)})"
            )
    return status


def _root_desc(data: bytes) -> str:
    try:
        sc = Scanner(data)
        kind, v = sc.root_slot()
        if kind == "int":
            return "int"
        if kind == "special":
            c = SPECIALS.get(v)
            return (
                "null"
                if c is None
                else "bool"
                if isinstance(c, bool)
                else "empty " + {str: "string", list: "array", dict: "map"}[type(c)]
            )
        r = sc.record(v)
        if r.kind in ("array", "map"):
            assert r.slots is not None  # record() sets slots on arrays and maps
            if r.kind == "array":
                return f"array of {r.slots[1]:,}"
            return f"map of {r.slots[1]:,} keys"
        return _KINDS.get(r.kind, ("", r.kind))[1]
    except (FormatDrift, IndexError, KeyError, struct.error):
        return "?"


# ---------------------------------------------------------------------------
# bench


def cmd_bench(args: argparse.Namespace) -> int:
    from roving import bench

    prog = Progress("bench", delay=0.0)
    try:
        with prog:
            return bench.run(args, progress=prog.update if prog.enabled else None)
    except ValueError as e:
        raise CliError(str(e), 2) from None
    except bench.BenchError as e:
        raise CliError(str(e)) from None


# ---------------------------------------------------------------------------
# main


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description="roving: a binary object format read in place. Convert, inspect, validate and benchmark roving files.",
        epilog="Run `roving COMMAND --help` for the options of a command.",
    )
    try:
        from importlib.metadata import PackageNotFoundError, version

        try:
            ver = version("roving")
        except PackageNotFoundError:
            ver = getattr(sys.modules.get("roving"), "__version__", "(not installed)")
    except ImportError:  # pragma: no cover
        ver = "?"
    p.add_argument("--version", action="version", version=f"roving {ver}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    c = sub.add_parser(
        "convert",
        help="convert JSON <-> roving",
        description="Convert JSON to roving or roving to JSON. The direction comes from the file "
        "extensions (.json, .jsonl, .geojson; .rov, .roving, .rv) or --to; '-' reads stdin or writes stdout. A .jsonl file is JSON "
        "Lines: an array, one item per line. OUT is replaced atomically; a read-only OUT is an error.",
    )
    c.add_argument("input", metavar="IN", help="input file, or - for stdin")
    c.add_argument("output", metavar="OUT", help="output file, or - for stdout")
    c.add_argument(
        "--to",
        choices=["json", "roving"],
        help="output format (default: from OUT's extension, else the other format)",
    )
    c.add_argument(
        "--from",
        dest="from_",
        choices=["json", "roving"],
        help="input format (default: from IN's extension or content)",
    )
    c.add_argument(
        "--indent",
        type=_indent,
        metavar="N",
        help="indent JSON output by N spaces (default: compact; not for roving or .jsonl output)",
    )
    c.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="say what was converted, with sizes",
    )
    c.set_defaults(func=cmd_convert)

    g = sub.add_parser(
        "get",
        help="print the value at a path as JSON",
        description='Print the value at PATH as JSON. Paths: [123].name, $.friends[0], ["odd key"], '
        "[-1] (the last item), as the package's get_path reads them. A roving FILE is "
        "memory-mapped and read in place; a JSON FILE is converted first.",
    )
    g.add_argument("file", metavar="FILE")
    g.add_argument("path", metavar="PATH", help="e.g. '[123].name'")
    g.add_argument("--indent", type=_indent, metavar="N", help="indent the JSON by N spaces")
    g.add_argument(
        "--from",
        dest="from_",
        choices=["json", "roving"],
        help="input format (default: by extension or content)",
    )
    g.set_defaults(func=cmd_get)

    d = sub.add_parser(
        "dump",
        help="print a readable, typed view of a document",
        description="Print the document as an indented tree with the type of every value "
        "(shared containers are printed once). --json prints JSON instead.",
    )
    d.add_argument("file", metavar="FILE")
    d.add_argument("--json", action="store_true", help="print JSON instead of the typed view")
    d.add_argument(
        "--indent", type=_indent, metavar="N", help="JSON indent with --json (default 2)"
    )
    d.add_argument(
        "--max-items",
        type=_count,
        metavar="N",
        help="show at most N items of each array or map",
    )
    d.add_argument(
        "--depth",
        type=_count,
        metavar="N",
        help="expand at most N levels of containers (1: the root only; 0: not even the root)",
    )
    d.add_argument(
        "--offsets",
        action="store_true",
        help="show each record's byte offset and encoding",
    )
    d.add_argument(
        "--from",
        dest="from_",
        choices=["json", "roving"],
        help="input format (default: by extension or content)",
    )
    d.set_defaults(func=cmd_dump)

    v = sub.add_parser(
        "validate",
        help="check that files are valid roving documents",
        description="Check each FILE completely. Exit 0 if all are valid; otherwise print the reason "
        "and byte offset of each invalid one and exit 1.",
    )
    v.add_argument("files", metavar="FILE", nargs="+")
    v.add_argument("-q", "--quiet", action="store_true", help="print nothing for valid files")
    v.set_defaults(func=cmd_validate)

    s = sub.add_parser(
        "stats",
        help="show where the bytes of a document go",
        description="Break the size of a document down: strings (and map keys), numbers, containers, "
        "shapes (shared key lists), and what sharing repeated values saved. A .json FILE is converted first.",
    )
    s.add_argument("file", metavar="FILE")
    s.add_argument("--json", action="store_true", help="print the numbers as JSON")
    s.add_argument(
        "--from",
        dest="from_",
        choices=["json", "roving"],
        help="input format (default: by extension or content)",
    )
    s.set_defaults(func=cmd_stats)

    from roving.bench import add_arguments

    b = sub.add_parser(
        "bench",
        help="run the seed experiments side by side",
        description="Run the five seed experiments (fleece, repository, archiver-20000-ints, simpleobject, "
        "contacts) with roving beside Python's defaults and the fastest peers; print markdown tables and "
        "write bench/results/<experiment>.md, .json and .png.",
    )
    add_arguments(b)
    b.set_defaults(func=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``roving`` command; returns the exit status."""
    _forgiving_stdout()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CliError as e:
        _fail(f"{PROG} {args.command}: error: {e}")
        return e.status
    except KeyboardInterrupt:
        _fail(f"{PROG} {args.command}: interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 141
    except MemoryError:
        _fail(f"{PROG} {args.command}: error: out of memory")
        return 1
    except Exception as e:
        if _is_roving_error(e):
            _fail(f"{PROG} {args.command}: error: {_error_text(e)}")
            return 1
        if os.environ.get("ROVING_DEBUG"):
            raise
        _fail(
            f"{PROG} {args.command}: internal error: {type(e).__name__}: {_error_text(e)} (set ROVING_DEBUG=1 for a traceback)"
        )
        return 70


def _forgiving_stdout() -> None:
    """Text on stdout never fails to encode: a file name that is not UTF-8
    is written back as its own bytes (as ``ls`` does) on a UTF-8 stdout,
    which Python makes strict outside the C locale, and characters that
    another encoding lacks are escaped (``\\xe9``). JSON output is bytes
    and does not go through this."""
    out = sys.stdout
    if not isinstance(out, io.TextIOWrapper):
        return
    try:
        utf8 = codecs.lookup(out.encoding).name == "utf-8"
        out.reconfigure(errors="surrogateescape" if utf8 else "backslashreplace")
    except (LookupError, ValueError, OSError):
        pass


def _fail(line: str) -> None:
    try:
        sys.stderr.write(line.replace("\n", " ") + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
