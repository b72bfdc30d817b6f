"""The contenders: Python's defaults and the fastest peers from PyPI.

Every peer import is optional: a library that is not installed becomes a
skip note in the results. ``make bench`` installs them all (see
``PEER_PACKAGES``).
"""

from __future__ import annotations

import importlib
import json
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: The pip packages of the peers (and of the chart), as ``make bench`` installs them.
PEER_PACKAGES = [
    "orjson",
    "msgspec",
    "msgpack",
    "ormsgpack",
    "cbor2",
    "pyfory",
    "protobuf",
    "matplotlib",
]


def optional(module: str) -> Any | None:
    """Imports ``module``, or returns None if it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def missing_note(module: str, package: str | None = None) -> str:
    return f"not installed (pip install {package or module})"


@dataclass
class Codec:
    """A generic ``bytes <-> Python objects`` serializer."""

    name: str
    encode: Callable[[Any], bytes]
    decode: Callable[[bytes], Any]
    note: str = ""


def _json_dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def generic_codecs(*, cbor: bool = True) -> tuple[list[Codec], dict[str, str]]:
    """The peers for JSON-like data (dicts, lists, str, int, float, bool, None).

    Returns the available codecs and a ``{name: reason}`` dict of the
    missing ones. roving is added by each experiment, not here.
    """
    out: list[Codec] = []
    missing: dict[str, str] = {}
    out.append(Codec("json", _json_dumps, json.loads, "stdlib"))
    orjson = optional("orjson")
    if orjson is not None:
        out.append(Codec("orjson", orjson.dumps, orjson.loads))
    else:
        missing["orjson"] = missing_note("orjson")
    msgspec = optional("msgspec")
    if msgspec is not None:
        je, jd = msgspec.json.Encoder(), msgspec.json.Decoder()
        me, md = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder()
        out.append(Codec("msgspec.json", je.encode, jd.decode))
        out.append(Codec("msgspec.msgpack", me.encode, md.decode))
    else:
        missing["msgspec"] = missing_note("msgspec")
    msgpack = optional("msgpack")
    if msgpack is not None:
        out.append(Codec("msgpack", msgpack.packb, msgpack.unpackb))
    else:
        missing["msgpack"] = missing_note("msgpack")
    ormsgpack = optional("ormsgpack")
    if ormsgpack is not None:
        out.append(Codec("ormsgpack", ormsgpack.packb, ormsgpack.unpackb))
    else:
        missing["ormsgpack"] = missing_note("ormsgpack")
    if cbor:
        cbor2 = optional("cbor2")
        if cbor2 is not None:
            out.append(Codec("cbor2", cbor2.dumps, cbor2.loads))
        else:
            missing["cbor2"] = missing_note("cbor2")
    out.append(
        Codec(
            "pickle",
            lambda o: pickle.dumps(o, protocol=5),
            pickle.loads,
            "protocol 5",
        )
    )
    return out, missing


def fastest_json_loads() -> tuple[Callable[[bytes], Any], str]:
    """The fastest JSON parser installed (for converting JSON to another format)."""
    orjson = optional("orjson")
    if orjson is not None:
        return orjson.loads, "orjson.loads"
    return json.loads, "json.loads"


# ---------------------------------------------------------------------------
# roving


class RovingMissing(Exception):
    """The roving extension is not importable (not built yet)."""


def roving_module() -> Any:
    """The ``roving`` package with its compiled core, or raises RovingMissing."""
    try:
        import roving
    except ImportError as e:  # pragma: no cover - depends on the build
        raise RovingMissing(f"roving is not importable: {e}") from e
    for name in ("dumps", "loads"):
        if not hasattr(roving, name):
            raise RovingMissing(
                "the roving extension is not built (run `maturin develop --release` or `pip install .`)"
            )
    return roving


def has_kw(fn: Callable[..., Any], name: str) -> bool:
    """True if ``fn`` accepts keyword ``name`` (builtins may not say; then False)."""
    import inspect

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        text = getattr(fn, "__text_signature__", None) or (fn.__doc__ or "").split("\n", 1)[0]
        return name in text
    return name in sig.parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()
    )
