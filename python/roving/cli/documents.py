"""Documents from files: which format a file is in, JSON converted in
memory, roving validated, and values written as JSON text."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from .errors import CliError, api, error_text, is_roving_error
from .files import display_name, read_input
from .progress import Progress

JSON_EXTS = {".json", ".geojson", ".jsonl"}
ROVING_EXTS = {".rov", ".roving", ".rv"}


def add_from_option(p: argparse.ArgumentParser, default: str = "by extension or content") -> None:
    """Adds ``--from json|roving``, the input format (else found as ``default`` says)."""
    p.add_argument(
        "--from",
        dest="from_",
        choices=["json", "roving"],
        help=f"input format (default: {default})",
    )


def add_dictionary_option(p: argparse.ArgumentParser) -> None:
    """Adds ``--dictionary FILE``: the shared dictionary (``bytes(d)`` of a
    ``roving.Dictionary``) that documents were written against."""
    p.add_argument(
        "--dictionary",
        metavar="DICT",
        help="the shared dictionary (bytes(roving.Dictionary) in a file) the documents "
        "were written against; a document is then read after the dictionary's base "
        "(FORMAT.md section 23), and offsets are counted in that",
    )


def load_dictionary(path: str | None) -> Any:
    """The ``roving.Dictionary`` in the file ``path`` (None for None)."""
    if path is None:
        return None
    rv = api()
    data = read_input(path)
    try:
        return rv.Dictionary.from_bytes(data)
    except Exception as e:
        if is_roving_error(e) or isinstance(e, ValueError):
            raise CliError(
                f"{display_name(path)}: not a roving dictionary: {error_text(e)}"
            ) from None
        raise


def resolve(rv: Any, path: str, data: bytes, dictionary: Any) -> bytes:
    """The plain document ``data`` reads as with ``dictionary`` (``data``
    itself without one, or for a document written without one)."""
    if dictionary is None or data[:2] != b"RV":
        return data
    try:
        out: bytes = dictionary.resolve(data)
    except Exception as e:
        if is_roving_error(e) or isinstance(e, ValueError):
            raise CliError(f"{display_name(path)}: {damaged(e, data)}") from None
        raise
    return out


def ext_kind(path: str) -> str | None:
    ext = os.path.splitext(path)[1].lower()
    if ext in JSON_EXTS:
        return "json"
    if ext in ROVING_EXTS:
        return "roving"
    return None


def sniff(data: bytes) -> str:
    return "roving" if data[:2] == b"RV" else "json"


def input_kind(path: str, data: bytes, forced: str | None) -> str:
    return forced or (None if path == "-" else ext_kind(path)) or sniff(data)


def load_document(
    path: str, forced: str | None = None, dictionary: Any = None
) -> tuple[bytes, str]:
    """Reads FILE as a roving document (converting JSON input in memory;
    a document written against ``dictionary`` read as the plain document
    it stands for). Returns the roving bytes and the input kind."""
    rv = api()
    data = read_input(path)
    kind = input_kind(path, data, forced)
    if kind == "json":
        return from_json(rv, path, data), kind
    data = resolve(rv, path, data, dictionary)
    validate_document(rv, path, data)
    return data, kind


def is_json_lines(path: str) -> bool:
    """A .jsonl file: JSON Lines, one document per line, read and written as
    an array of those documents."""
    return path != "-" and os.path.splitext(path)[1].lower() == ".jsonl"


def from_json(rv: Any, path: str, data: bytes) -> bytes:
    with Progress(f"converting {display_name(path)}"):
        try:
            if is_json_lines(path):
                return from_json_lines(rv, path, data)
            out: bytes = rv.from_json(data)
            return out
        except Exception as e:
            if is_roving_error(e) or isinstance(e, ValueError):
                raise CliError(f"{display_name(path)}: invalid JSON: {error_text(e)}") from None
            raise


def from_json_lines(rv: Any, path: str, data: bytes) -> bytes:
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
        if not (is_roving_error(e) or isinstance(e, ValueError)):
            raise
        failure = e
    for n, line in lines:
        try:
            rv.from_json(line)
        except Exception as e:
            if is_roving_error(e) or isinstance(e, ValueError):
                text = re.sub(r"\(line 1, column (\d+)\)", r"(column \1)", error_text(e))
                raise CliError(f"{display_name(path)}: line {n}: invalid JSON: {text}") from None
            raise
    # (Unreachable: lines that each hold one value join into an array of
    # one item per line.)
    raise CliError(f"{display_name(path)}: invalid JSON Lines: {failure}")


def validate_document(rv: Any, path: str, data: bytes) -> None:
    """Raises CliError unless ``data`` is a valid roving document."""
    with Progress(f"validating {display_name(path)}"):
        try:
            if hasattr(rv, "validate"):
                rv.validate(data)
            else:
                rv.open(data)
        except Exception as e:
            if is_roving_error(e) or isinstance(e, ValueError):
                raise CliError(f"{display_name(path)}: {damaged(e, data)}") from None
            raise


def damaged(e: BaseException, data: bytes) -> str:
    text = error_text(e)
    off = getattr(e, "offset", None)
    if off is not None and "offset" not in text:
        text += f" (byte offset {off})"
    if not data:
        return "empty file, not a roving document"
    if data[:2] != b"RV":
        return f"not a roving file: {text}"
    rv = sys.modules.get("roving")
    if rv is not None and isinstance(e, getattr(rv, "DictionaryError", ())):
        if "needs a shared dictionary" in text or "needed to read it" in text:
            return f"{text}: give it with --dictionary FILE"
        return text
    return f"damaged roving file: {text}"


def to_json(rv: Any, path: str, doc: bytes, indent: int | None) -> bytes:
    with Progress(f"writing JSON for {display_name(path)}"):
        try:
            out = rv.to_json(doc, indent=indent) if indent is not None else rv.to_json(doc)
        except Exception as e:
            if is_roving_error(e) or isinstance(e, ValueError):
                raise CliError(
                    f"{display_name(path)}: cannot write as JSON: {error_text(e)}"
                ) from None
            raise
    return out.encode("utf-8") if isinstance(out, str) else bytes(out)


def value_json(rv: Any, value: Any, indent: int | None) -> bytes:
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
        if is_roving_error(e) or isinstance(e, (ValueError, TypeError)):
            raise CliError(f"cannot write the value as JSON: {error_text(e)}") from None
        raise
    return out.encode("utf-8") if isinstance(out, str) else bytes(out)


def article(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def kind_of(v: Any) -> str:
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
