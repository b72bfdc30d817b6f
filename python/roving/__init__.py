"""roving: a binary object format read in place.

Fast and compact like the best binary formats, safe on untrusted bytes
(a document is validated in one linear pass before it is decoded, or
checked piece by piece as it is read in place), and the only one that can
read one field of a large document without loading it (:func:`open`).

Functions
---------
``dumps(obj, *, default=None, non_str_keys=False) -> bytes``
    Encode a Python object. Dict keys must be ``str``; with
    ``non_str_keys=True`` (orjson's ``OPT_NON_STR_KEYS``), keys that are
    ints, enum members, UUIDs, Decimals or dates are written as their text,
    the text typed ``loads`` reads them back from (``dict[int, T]``:
    ``str(n)``; an enum member: its value's text, read back as the enum
    when its members' values are all ``str`` or all ``int``; ``str()`` of a
    UUID or a Decimal; ``date.isoformat()``; a subclass's as its base
    class's), and
    two keys of one dict written as the same text (``1`` and ``"1"``) or an
    int key of more than 4300 digits (typed ``loads``'s limit) raise
    :class:`EncodeError`.
``loads(data, *, type=None)``
    Validate and decode any bytes-like object; with ``type`` (e.g.
    ``list[Item]`` for a dataclass ``Item``) build and check that type.
``dump(obj, file_or_path, *, default=None, non_str_keys=False, dictionary=None)``, ``load(file_or_path, *, type=None, dictionary=None)``
    The same through a binary file object (anything with ``write()`` or
    ``read()``: ``open(p, "wb")``/``"rb"``, ``io.BytesIO``, ``gzip.open``,
    ``sys.stdout.buffer``, pipes; a text file is a ``TypeError``) or a path
    (``str`` or ``os.PathLike``). ``dump`` to a path writes a new file and
    renames it over the old one (``os.replace``), so that a ``Doc`` mapped
    from the old file stays valid. ``load`` reads one document to the end of
    the file (see ``load`` for several in one file).
``open(path_or_buffer, *, trusted=False, validate=False) -> Doc``
    Lazy, zero-copy access; a path is memory-mapped, not read (a path that
    cannot be opened raises the ``OSError`` builtins.open would, e.g.
    ``FileNotFoundError``, ``IsADirectoryError``, with errno and filename).
    ``doc.root`` (or ``doc[...]``) gives views: ``view[123]["name"]``,
    ``.get()``, ``len()``, iteration, ``keys()/values()/items()`` (views
    like a dict's: iterable again and again, with ``len()`` and ``in``), ``in``,
    ``==`` against plain Python values, ``.to_python()``, ``.to_json()``,
    ``numpy.asarray(view)`` (the array of ``.to_python()``).
    Maps and arrays come back as views, everything else as Python values.
    Views keep their buffer alive: they stay valid after ``doc.close()``
    (the buffer, e.g. a memory map, is released when the last view goes).
    Opening is O(1) and safe on untrusted bytes: it checks the header and
    the root, and each read then checks what it touches (indexing,
    ``get``, ``in``, ``len``, iteration and ``get_path`` raise
    :class:`DecodeError` on the malformed bytes they meet; what only a
    whole pass can tell, such as a reference into the middle of a record or
    into another document written before this one in the same file, reads
    as a wrong value, so open files that may not be roving's own output
    with ``validate=True``); operations on whole values
    (``to_python``, ``to_json``, ``==``, encoding a view) validate the
    whole document first, once per document (``doc.validate()`` does it
    explicitly). ``validate=True`` validates fully at open instead (O(n),
    rejecting a bad document up front). ``trusted=True`` skips every check
    (O(1)): only for bytes roving wrote itself (on other bytes, reads stay
    inside the buffer but give wrong values or raise ``DecodeError`` or
    ``UnicodeDecodeError``). ``bytes`` are read in place; other buffers
    (``bytearray``, ``memoryview``, ``mmap``, numpy arrays...) are copied at
    open, so changing them later does not affect the ``Doc``. A mapped file
    must not change while the ``Doc`` or any view or numpy array from it is
    alive: if it is truncated (by another process, or by this one with
    ``open(p, "wb")`` or ``Path.write_bytes``), the next read past the new
    end kills the process with ``SIGBUS`` (no exception is possible); if it
    is rewritten in place, reads see the new bytes unchecked (wrong values
    or errors). Update such a file by writing a new one and ``os.replace()``
    it over the old (the map keeps the old file), as ``dump(obj, path)``
    does. For a file another process
    may change, open its bytes instead:
    ``roving.open(pathlib.Path(p).read_bytes())``.
``from_json(bytes | str) -> bytes``, ``to_json(data, *, indent=None) -> bytes``
    JSON conversion on the core's streaming converter. ``to_json`` writes
    timestamps as RFC 3339 text (aware UTC with ``Z``, other offsets as
    ``+HH:MM``, a naive datetime with no offset: ``"2024-01-01T09:00:00"``,
    which no JSON reader takes for UTC), dates as ``"YYYY-MM-DD"``, UUIDs and
    Decimals as their text, times as ``time.isoformat()`` does
    (``"01:02:03.000004+05:30"``, without ``fold``), timedeltas as ISO 8601
    durations in msgspec's form (``"P1DT2.5S"``, ``"-PT0.000001S"``,
    ``"P0D"``) (the forms typed ``loads`` reads back), bytes
    as ``{"$base64": ...}`` and other extension values as
    ``{"$ext": id, "$base64": ...}``. ``indent`` (here and on views) is a
    number of spaces, 0 or more (a negative one is a ``ValueError``).
``validate(data)``
    Raise :class:`DecodeError` unless ``data`` is a valid document. This
    checks the format: :func:`loads` may still reject a valid document
    holding values Python cannot represent (a timestamp or date outside
    Python's datetime range, nesting deeper than ``MAX_DEPTH``, an
    ``EXT_DATE``/``EXT_UUID``/``EXT_DECIMAL``/``EXT_TIME``/``EXT_TIMEDELTA``
    value with a malformed payload from another writer, a
    :class:`DecodeError` whose ``.offset`` is the payload's; :func:`dumps`
    refuses to write such an ``Ext``).
``Encoder(*, default=None, non_str_keys=False, dictionary=None)``, ``Decoder(type=None, *, dictionary=None)``
    ``dumps`` and ``loads`` with their keyword arguments bound once, as
    msgspec's ``Encoder`` and ``Decoder``: ``Encoder(...).encode(obj)``
    writes the bytes of ``dumps(obj, ...)`` and
    ``Decoder(T, dictionary=d).decode(data)`` reads what
    ``loads(data, type=T, dictionary=d)`` reads. For loops over many
    documents: a call parses no keyword arguments, and a ``Decoder``
    compiles its type once, when it is made (an unsupported type raises
    there).
``Writer(file_or_path, dictionary=None, *, default=None, non_str_keys=False)``, ``iter_load(file_or_path, *, type=None)``
    Record streams: many documents in one file, such as a log (FORMAT.md
    section 24). ``w.write(obj)`` appends one record (``dumps``'s encoding,
    framed by 1 or 2 bytes; a record's map shapes go into the stream's own
    dictionary once, and later records of those shapes refer to it: a
    seed-002 SimpleObject takes 61 bytes instead of 80; with
    ``dictionary=d``, a :class:`Dictionary`, they are written against ``d``
    instead, whose entries the stream carries); ``flush()``,
    ``close()`` and the end of a
    ``with`` block write the buffered records out. A path is appended to
    (an existing stream continues; a record torn by a crash at its end is
    cut off first); a file object gets a new stream at its start.
    ``iter_load`` yields the records one at a time (with ``type``, each as
    that type), reading a path a piece at a time. A last record torn by a
    crash is never read: :class:`TornRecordWarning` (a ``RuntimeWarning``)
    says so once, after every whole record; a damaged record anywhere else
    raises :class:`DecodeError` whose ``.offset`` is its frame's. ``load``
    and ``loads`` of a stream raise a :class:`DecodeError` naming
    ``iter_load``.
``Store(path, flag="c", *, writeback=False, type=None, readonly=False, ...)``
    A persistent dict of ``str`` keys to documents in one LMDB file, in
    ``shelve``'s place (``flag`` and ``writeback`` as ``shelve.open``'s):
    ``s[k] = v`` is pending until ``flush()`` (or ``sync()``, ``close()``,
    the end of a ``with`` block). See ``help(roving.Store)``.

Types
-----
================================  =========================================  ======================
Python                            roving                                     back from ``loads``
================================  =========================================  ======================
None, bool, str                   null, bool, string                         same
int (any size)                    integer (64-bit inline, else big integer)  int
float                             float, bit-exact (binary32 when lossless)  float
bytes, bytearray, memoryview      byte string                                bytes
list, tuple                       array                                      list
set, frozenset                    array (in iteration order)                 list (or the set with
                                                                             ``type=set[T]``)
dict (str keys, any order kept)   map (insertion order)                      dict
dataclass instance                map of its fields                          dict (or the class
                                                                             with ``type=``)
enum member                       its ``.value``                             the value (or the
                                                                             member with ``type=``)
datetime, aware                   timestamp with its UTC offset (seconds)    datetime with a fixed
                                                                             ``timezone`` offset
datetime, naive                   timestamp without offset (the wall         naive datetime
                                  clock read as UTC)
numpy.datetime64 scalar (units    timestamp without offset, exact to the     naive datetime
years to nanoseconds)             nanosecond
datetime.date                     ext ``EXT_DATE`` = 1: days since           date
                                  1970-01-01, int32 little endian
uuid.UUID                         ext ``EXT_UUID`` = 2: the 16 bytes         UUID
decimal.Decimal                   ext ``EXT_DECIMAL`` = 3: ``str(d)``, ASCII Decimal
datetime.time                     ext ``EXT_TIME`` = 4: microseconds since   time (aware: with a
                                  midnight, uint64 LE; ``fold``, uint8;      fixed ``timezone``
                                  if aware, the UTC offset in microseconds,  offset)
                                  int64 LE (9 or 17 bytes)
datetime.timedelta                ext ``EXT_TIMEDELTA`` = 5: seconds,        timedelta
                                  rounded down, int64 LE; microseconds
                                  0..999999, uint32 LE (12 bytes)
numpy 1-D int8..uint64, float32,  typed vector (little endian, aligned)      numpy array (if numpy
float64 arrays; array.array                                                  is installed, else
                                                                             array.array)
numpy arrays of 2 or more         shaped vector (format version 2): its      numpy array of that
dimensions (same dtypes)          shape, then its data row-major (a          shape (without numpy,
                                  C-contiguous copy if needed)               nested lists of
                                                                             array.array rows)
roving.Ext(type_id, data)         ext value (other type ids)                 roving.Ext
================================  =========================================  ======================

Time zones keep their offset, not their name (a ``ZoneInfo`` comes back as
a fixed offset). A ``time`` keeps its ``fold`` and its offset to the
microsecond; a ``time`` whose tzinfo gives no offset (``utcoffset()`` is
None, as for a ``ZoneInfo``, whose offset depends on a date) is naive, as
Python defines it, and is written as such (as msgspec does), and a tzinfo
whose ``utcoffset(None)`` raises (one that needs a datetime) makes
:func:`dumps` raise that error. Subclasses of ``date``, ``datetime``,
``time``, ``timedelta``, ``Decimal`` and ``UUID`` are written as their value
(a ``Decimal``'s text is ``Decimal.__str__``'s, whatever a subclass's own
``__str__`` gives) and come back as the base type. Timestamps keep nanoseconds but datetime has microseconds,
so finer timestamps (a ``datetime64[ns]``'s, or other tools') are
truncated. ``numpy.datetime64`` NaT, units finer than nanoseconds,
``numpy.timedelta64`` and datetime64/timedelta64 arrays are not supported
(never silently written as integers), and neither are bool, float16,
complex, object or 0-d arrays: they
go to ``default=`` (``default=lambda a: a.tolist()`` writes lists), as
do masked arrays (their data alone would lose the mask); other ndarray
subclasses (``numpy.matrix``) are written as their plain ndarray. An array
of 2 or more dimensions keeps its shape (empty axes too) and dtype: one
record, its data aligned, read back in place by views
(``roving.open(b).root`` is a read-only numpy view of the bytes); typed
``loads`` reads it as ``numpy.ndarray``, or as nested lists or tuples
(``list[list[float]]``), or ``list[numpy.ndarray]`` of its rows. Type ids 1 to 63 are reserved for
this package's own types (1 to 5 are used; later versions may give the
others a meaning): applications should choose ids of 64 and up for their
``roving.Ext`` values, which come back as ``roving.Ext``. A ``roving.Ext``
with a type id in use (1 to 5) is written only if its payload is valid (it
then comes back as the date, UUID, Decimal, time or timedelta). Anything else
goes to ``default=`` (whose result is encoded instead) or raises
:class:`EncodeError` naming the type and the path (``$[3].when``; a dict
key that is not a str shows as ``[<key 1>]``: ``$.a[<key 1>]``). A
result of ``default`` that cannot be encoded either goes to ``default``
again, unless it is of the type ``default`` was given (an
:class:`EncodeError` at once: ``default() returned an unencodable object
of type 'C' at $[0]``) or it is the 254th call in a row (as in orjson).

Shared references: an object (list, dict, tuple, set, dataclass, array) that
appears twice in one ``dumps`` is written once and comes back as one
object, like pickle's memo; a cycle raises :class:`EncodeError` with the
path. Nesting deeper than ``MAX_DEPTH`` (10,000) raises a clean error on
both sides, and decoding documents whose shared subtrees would expand
beyond ``max(16 x size, 10,000,000)`` values raises :class:`DecodeError`.

Typed decoding (``type=``) supports dataclasses (nested, recursive,
generic: ``Box[int]``; fields with defaults may be missing, unknown fields
are ignored so old readers accept new data), ``TypedDict`` (a checked dict),
``NamedTuple`` (from an array), ``list/tuple/set/frozenset/dict[str, T]``
(and their ``collections.abc`` kinds; dict keys may also be of a type read
from str: a str enum, a ``Literal`` of str, ``UUID``...; or ``int``, an
int enum, a ``Literal`` of ints, read from a key's decimal text as msgspec
does, in canonical form only, ``str(n)``: ``"-12"``, not ``"012"``,
``"+12"``, ``" 12"``, ``"-0"`` or more than 4300 digits, which are a
:class:`ValidationError` naming the key. :func:`dumps` refuses non-str
keys, so write such a dict with str keys: ``{str(k): v for k, v in
d.items()}``),
``Optional``/unions (``T | None``; the first member that takes the value
wins, but an integer goes to ``int`` ahead of ``float``, and a map to the
dataclass or ``TypedDict`` member with the fewest keys that are not its
fields, the first written on a tie), ``Literal``,
enums, ``NewType``, ``Annotated``, ``Any`` and the scalar types above. A
bool is not an int here (``True`` is not accepted for ``int``,
``Literal[1]`` or an int enum). A mismatch raises :class:`ValidationError` whose
message and ``.path`` say where: ``expected int, got str at $[3].views``
(for a union that several members could have taken, each member's reason:
``no member of A | B matches (A: missing required field 'x'; B: ...)``).
``float`` accepts integers; ``UUID`` and ``Decimal`` also accept strings,
``datetime`` RFC 3339 text (what ``to_json`` writes for a timestamp;
text without an offset gives a naive datetime, ``Z`` an aware UTC one),
``date`` ``YYYY-MM-DD`` text, ``time`` ``HH:MM:SS[.ffffff]`` text with
an optional ``Z`` or ``+HH:MM[:SS[.ffffff]]`` offset (``isoformat()``'s
and RFC 3339's forms; 1 to 6 fraction digits), ``timedelta`` an ISO 8601
duration ``[-]P[nD][T[nH][nM][n[.ffffff]S]]`` (msgspec's form and its
hours and minutes; no years, months or weeks) and ``bytes``/``bytearray``
the ``{"$base64": ...}`` map ``to_json`` writes for bytes.

Errors
------
``RovingError`` is the base of ``EncodeError`` (also a ``TypeError``, as
json's and orjson's encoding errors are), ``DecodeError`` (also a
``ValueError``; ``.offset`` is the byte offset or None) and
``ValidationError`` (a ``DecodeError`` with ``.path``). Any bytes at all
given to :func:`loads` or :func:`open` give a value or an exception, never
a crash. All functions are thread-safe and release the GIL while
validating or converting large immutable buffers.
"""

# Helpers under private names (and no `from __future__ import annotations`,
# which binds `annotations`): dir(roving) shows the public API only.
import builtins as _builtins
import errno as _errno
import io as _io
import os as _os
import secrets as _secrets
import stat as _stat
from collections.abc import Callable as _Callable
from typing import Any as _Any
from typing import Protocol as _Protocol
from typing import TypeVar as _TypeVar
from typing import overload as _overload

from roving._roving import (
    EXT_DATE,
    EXT_DECIMAL,
    EXT_TIME,
    EXT_TIMEDELTA,
    EXT_UUID,
    MAX_DEPTH,
    DecodeError,
    Decoder,
    Dictionary,
    DictionaryError,
    Doc,
    EncodeError,
    Encoder,
    Ext,
    MapView,
    RovingError,
    StreamIterator,
    TornRecordWarning,
    ValidationError,
    View,
    ViewIter,
    Writer,
    _is_mapped,
    dumps,
    from_json,
    iter_load,
    loads,
    open,
    to_json,
    validate,
)

try:  # roving.Store (crates/roving-store), when the extension was built with it.
    from roving._store import Store, StoreError, StoreNotFoundError, StorePermissionError
except ImportError:  # pragma: no cover
    pass

__all__ = [
    "EXT_DATE",
    "EXT_DECIMAL",
    "EXT_TIME",
    "EXT_TIMEDELTA",
    "EXT_UUID",
    "MAX_DEPTH",
    "DecodeError",
    "Decoder",
    "Dictionary",
    "DictionaryError",
    "Doc",
    "EncodeError",
    "Encoder",
    "Ext",
    "MapView",
    "RovingError",
    "StreamIterator",
    "TornRecordWarning",
    "ValidationError",
    "View",
    "ViewIter",
    "Writer",
    "dump",
    "dumps",
    "from_json",
    "iter_load",
    "load",
    "loads",
    "open",
    "to_json",
    "validate",
]
if "Store" in globals():
    __all__ += ["Store", "StoreError", "StoreNotFoundError", "StorePermissionError"]

__version__ = "0.1.0"

_PathLike = str | _os.PathLike[str] | _os.PathLike[bytes]


class _BinaryReader(_Protocol):
    """What :func:`load` reads from: a binary file object (``open(p, "rb")``,
    ``io.BytesIO``, ``gzip.open(p, "rb")``, ``sys.stdin.buffer``...)."""

    def read(self) -> bytes: ...


class _BinaryWriter(_Protocol):
    """What :func:`dump` writes to: a binary file object (``open(p, "wb")``,
    ``io.BytesIO``, ``gzip.open(p, "wb")``, ``sys.stdout.buffer``...)."""

    def write(self, data: bytes, /) -> object: ...


def _not_a_file(fn: str, file: object, method: str) -> TypeError:
    what = type(file).__name__
    hint = (
        "; to decode bytes, use roving.loads()" if fn == "load" and isinstance(file, bytes) else ""
    )
    return TypeError(
        f"roving.{fn}() takes a binary file object (with a {method}() method) or a path "
        f"(str or os.PathLike), not {what}{hint}"
    )


def _text_file(fn: str, mode: str) -> TypeError:
    return TypeError(
        f"roving.{fn}() needs a binary file: open it in binary mode ({mode!r}), "
        "not as text (roving documents are bytes)"
    )


def _file_method(fn: str, file: object, method: str) -> _Callable[..., _Any]:
    # The types say binary; a text file is a common mistake.
    if isinstance(file, _io.TextIOBase):
        raise _text_file(fn, "wb" if method == "write" else "rb")
    m = getattr(file, method, None)
    if m is None:
        raise _not_a_file(fn, file, method)
    return m  # type: ignore[no-any-return]


def _write_all(write: _Callable[[_Any], object], data: bytes, raw: bool) -> None:
    # A raw file (buffering=0, a socket's) may write fewer bytes than given
    # and return how many: write the rest, as BufferedWriter does. The
    # first write gets the bytes object itself (what any write() takes).
    # A raw file's None means that nothing was written (a non-blocking file
    # that is full): BlockingIOError, as BufferedWriter raises; another
    # writer's None means all was written.
    n = write(data)
    view = memoryview(data)
    while True:
        if n is None and raw:
            raise BlockingIOError(
                _errno.EAGAIN,
                "write could not complete without blocking",
                len(data) - len(view),
            )
        if not isinstance(n, int) or n >= len(view):
            return
        if n <= 0:  # would loop forever
            raise OSError(f"write() wrote {n} of {len(view)} bytes")
        view = view[n:]
        n = write(view)


def _write_path(file: _PathLike, data: bytes) -> None:
    # A new file renamed over the old one (os.replace), never the old one
    # truncated: a Doc that roving.open() mapped from the old file keeps
    # reading it (truncating a mapped file makes the next read SIGBUS), and
    # a failure leaves the old file whole.
    path = _os.fsdecode(file)  # of an os.PathLike[bytes] too: the same name as str
    if path.endswith(_SEPARATORS):
        # "name/" names a folder: builtins.open's error, never a file "name".
        _write_in_place(path, data)
        return
    try:
        target = _os.path.realpath(path, strict=True)  # a symlink stays; its target is replaced
    except FileNotFoundError:
        target = _os.path.realpath(path)  # a new file (or a dangling symlink's target)
    except OSError:
        # A symlink loop, a file used as a folder...: builtins.open's error.
        _write_in_place(path, data)
        return
    try:
        st = _os.stat(target)
    except OSError:
        st = None
    if (
        _os.path.abspath(path).startswith(("/dev/", "/proc/"))
        or (st is not None and not _stat.S_ISREG(st.st_mode))
        or (st is not None and not _os.access(target, _os.W_OK))
    ):
        # /dev/stdout (whose link leads to whatever stdout is, a redirected
        # file too), a FIFO, a device: written to, not replaced; a file we
        # may not write: the PermissionError of builtins.open.
        _write_in_place(path, data)
        return
    folder, name = _os.path.split(target)
    tmp = _os.path.join(folder, f".{name}.{_secrets.token_hex(6)}.tmp")
    flags = _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL | _O_CLOEXEC_BINARY
    try:
        fd = _os.open(tmp, flags, 0o666)  # less the umask, as builtins.open creates
    except OSError:
        # A folder that cannot take a new file (or is missing), a name too
        # long for the temporary name: written in place, which works or
        # raises builtins.open's error for `path`.
        _write_in_place(path, data)
        return
    try:
        with _builtins.open(fd, "wb") as f:
            if st is not None:
                _os.chmod(fd, _stat.S_IMODE(st.st_mode))
                if (st.st_uid, st.st_gid) != (_os.geteuid(), _os.getegid()):
                    try:  # only root may give the file back to its owner
                        _os.chown(fd, st.st_uid, st.st_gid)
                    except OSError:
                        pass
            f.write(data)
        _os.replace(tmp, target)
    except PermissionError:
        # A sticky folder (/tmp) lets only the owner of a file rename over
        # it, though others may write it: written in place, as
        # builtins.open would (or its PermissionError).
        _unlink_quietly(tmp)
        _write_in_place(path, data)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def _unlink_quietly(path: str) -> None:
    try:
        _os.unlink(path)
    except OSError:
        pass


_SEPARATORS = tuple(sep for sep in (_os.sep, _os.altsep) if sep)
_O_CLOEXEC_BINARY = getattr(_os, "O_CLOEXEC", 0) | getattr(_os, "O_BINARY", 0)


def _write_in_place(path: str, data: bytes) -> None:
    # As builtins.open(path, "wb"), except that a regular file that a Doc of
    # this process has mapped (roving.open(path)) is refused before it is
    # truncated: reading that Doc would kill the process with SIGBUS.
    fd = _os.open(path, _os.O_WRONLY | _os.O_CREAT | _O_CLOEXEC_BINARY, 0o666)
    with _builtins.open(fd, "wb") as f:
        st = _os.fstat(fd)
        if _stat.S_ISREG(st.st_mode):
            if _is_mapped(st.st_dev, st.st_ino):
                raise OSError(
                    _errno.EBUSY,
                    "roving.dump() cannot replace this file (it writes in place here, "
                    "as builtins.open would) and will not truncate it: a roving.open() "
                    "Doc of this process maps it, whose next read would then kill the "
                    "process with SIGBUS; release the Doc and its views first, or dump "
                    "to another path",
                    path,
                )
            _os.ftruncate(fd, 0)
        f.write(data)


def dump(
    obj: _Any,
    file: _BinaryWriter | _PathLike,
    *,
    default: _Callable[[_Any], _Any] | None = None,
    non_str_keys: bool = False,
    dictionary: Dictionary | None = None,
) -> None:
    """Encode ``obj`` and write it to a binary file object or a path.

    ``default``, ``non_str_keys`` and ``dictionary`` are :func:`dumps`'s (a
    document written against a :class:`Dictionary` is read with it:
    ``load(path, dictionary=d)``).

    A path (``str`` or ``os.PathLike``, of ``str`` or ``bytes``) is written as a new file renamed over
    the old one (``os.replace``): a ``Doc`` that :func:`open` mapped from the
    old file keeps reading it, and an error leaves the old file as it was.
    The file keeps its permission bits (and its owner, where allowed), a
    symlink stays a symlink (its target is replaced), and hard links to the
    old file keep the old contents. A path that is not a regular file (a
    FIFO, a device), a path under ``/dev/`` or ``/proc/`` (``/dev/stdout``,
    even where it leads to a file), a file in a folder that cannot take a
    new file, or one that may not be renamed over (another user's file in a
    sticky folder such as ``/tmp``), is written in place (truncated first, as ``open(path, "wb")``
    does), except a file that a ``Doc`` of this process maps (a truncated
    mapped file kills the process with ``SIGBUS`` when read): that raises
    ``OSError`` (``errno.EBUSY``) and the file is left as it was. A file that
    may not be written raises ``PermissionError``, and a path that
    ``open(path, "wb")`` refuses (a symlink loop, a name ending in ``/``)
    raises its error.
    """
    data = dumps(obj, default=default, non_str_keys=non_str_keys, dictionary=dictionary)
    if isinstance(file, (str, _os.PathLike)):
        _write_path(file, data)
        return
    _write_all(_file_method("dump", file, "write"), data, isinstance(file, _io.RawIOBase))


_T = _TypeVar("_T")


@_overload
def load(
    file: _BinaryReader | _PathLike, *, type: None = None, dictionary: Dictionary | None = None
) -> _Any: ...
@_overload
def load(
    file: _BinaryReader | _PathLike, *, type: type[_T], dictionary: Dictionary | None = None
) -> _T: ...
@_overload
def load(
    file: _BinaryReader | _PathLike, *, type: _Any, dictionary: Dictionary | None = None
) -> _Any: ...
def load(
    file: _BinaryReader | _PathLike, *, type: _Any = None, dictionary: Dictionary | None = None
) -> _Any:
    """Read a whole document from a binary file object or a path and decode it.

    ``type`` and ``dictionary`` are :func:`loads`'s.

    A file object is read to its end: it holds one document. Unlike
    ``pickle.load``, which reads one of several pickles written one after
    another, ``load`` of documents written one after another raises
    :class:`DecodeError` ("another document starts here"): write a list as
    one document, or write a record stream (:class:`Writer`, read with
    :func:`iter_load`), or use a :class:`Store` (README.md, "Migrating").
    A record stream given to ``load`` raises :class:`DecodeError` naming
    ``iter_load``.
    """
    if isinstance(file, (str, _os.PathLike)):
        with _builtins.open(file, "rb") as f:
            data = f.read()
    else:
        data = _file_method("load", file, "read")()
        if isinstance(data, str):
            raise _text_file("load", "rb")
    return loads(data, type=type, dictionary=dictionary)
