"""Experiment 3, seed 001: one root object holding 20,000 ints, keyed and keyless.

The seed timed NSKeyedArchiver (keyed, random access), a keyless archiver
and NSArchiver on "a simple root object with 20000 ints", encoding and
decoding. Here: a list of the ints 0..19999 (keyless) and a dict of 20,000
entries ``{"0": 0, ..., "19999": 19999}`` (keyed). Each decode checks every
value (it is compared with the original, inside the timing).
"""

from __future__ import annotations

import array
import sys
from collections.abc import Callable
from typing import Any

from .harness import Config, Experiment, Table, fmt_bytes, fmt_ratio, fmt_timing
from .peers import RovingMissing, generic_codecs, optional, roving_module

NAME = "archiver-20000-ints"
N = 20_000


def run(cfg: Config) -> Experiment:
    exp = Experiment(
        NAME,
        "archiver-20000-ints (seed 001): 20,000 ints, keyless vs keyed",
        "001",
        "One root object holding the ints 0..19999: keyless (a list) and keyed (a dict of 20,000 "
        'entries, keys `"0"`..`"19999"`). Encode, then decode with every value checked '
        "(the check is inside the decode timing). Seed 001 measured NSKeyedArchiver at 217 ms encode / "
        "6.9 s decode, NSArchiver at 10 ms / 2 ms (iPhone 5S).",
        cfg,
    )
    n = 5_000 if cfg.quick else N
    exp.params = {"n": n}
    keyless = list(range(n))
    keyed = {str(i): i for i in range(n)}

    # contender -> {"keyless": (encode, decode_and_check, roundtrip), "keyed": (...)}
    contenders: dict[
        str, dict[str, tuple[Callable[[], Any], Callable[[], Any], Callable[[], Any]]]
    ] = {}

    def plain(
        name: str,
        enc: Callable[[Any], bytes],
        dec: Callable[[bytes], Any],
        variants: tuple[str, ...] = ("keyless", "keyed"),
    ) -> None:
        for variant in variants:
            data = keyless if variant == "keyless" else keyed
            try:
                blob = enc(data)
            except Exception as e:  # noqa: BLE001 - a failing contender is reported
                exp.skip(f"{name} ({variant})", f"encode failed: {type(e).__name__}: {e}")
                continue

            def encode(
                enc: Callable[[Any], bytes] = enc, data: list[int] | dict[str, int] = data
            ) -> bytes:
                return enc(data)

            def decode(
                dec: Callable[[bytes], Any] = dec,
                blob: bytes = blob,
                data: list[int] | dict[str, int] = data,
            ) -> None:
                if dec(blob) != data:
                    raise AssertionError("decoded values differ")

            def roundtrip(
                enc: Callable[[Any], bytes] = enc,
                dec: Callable[[bytes], Any] = dec,
                data: list[int] | dict[str, int] = data,
            ) -> Any:
                return dec(enc(data))

            contenders.setdefault(name, {})[variant] = (encode, decode, roundtrip)

    codecs, missing = generic_codecs()
    for k, v in missing.items():
        exp.skip(k, v)
    for c in codecs:
        plain(c.name, c.encode, c.decode)

    msgspec = optional("msgspec")
    if msgspec is not None:
        me = msgspec.msgpack.Encoder()
        d1 = msgspec.msgpack.Decoder(list[int])
        d2 = msgspec.msgpack.Decoder(dict[str, int])
        plain("msgspec.msgpack typed", me.encode, d1.decode, ("keyless",))
        plain("msgspec.msgpack typed", me.encode, d2.decode, ("keyed",))

    # The "NSArchiver" floor: the ints as raw little-endian int64s, no framing.
    if sys.byteorder == "little":
        plain(
            "array('q') raw floor",
            lambda x: array.array("q", x).tobytes(),
            lambda b: array.array("q", b).tolist(),
            ("keyless",),
        )

    try:
        rv = roving_module()
    except RovingMissing as e:
        exp.skip("roving", str(e))
        rv = None
    if rv is not None:
        plain("roving", rv.dumps, rv.loads)
        plain(
            "roving typed",
            rv.dumps,
            lambda b: rv.loads(b, type=list[int]),
            ("keyless",),
        )
        plain(
            "roving typed",
            rv.dumps,
            lambda b: rv.loads(b, type=dict[str, int]),
            ("keyed",),
        )
        _lazy(rv, exp, contenders, keyless, keyed)

    # ---- verify and time ------------------------------------------------
    results: dict[str, dict[str, Any]] = {}
    for name, variants in contenders.items():
        for variant, (encode, decode, roundtrip) in variants.items():
            label = f"{name} ({variant})"
            expected = keyless if variant == "keyless" else keyed
            if not exp.verify(label, expected, roundtrip):
                continue
            blob = None
            try:
                blob = encode()
            except Exception:  # noqa: BLE001
                blob = None
            te = exp.time(label, "encode", encode, params={"variant": variant})
            td = exp.time(label, "decode+check", decode, params={"variant": variant})
            if blob is not None and isinstance(blob, (bytes, bytearray)):
                exp.size(label, "size", len(blob), {"variant": variant})
            results.setdefault(name, {})[variant] = (
                te,
                td,
                len(blob) if blob is not None else None,
            )

    t = Table(
        f"{n:,} ints: encode and decode (with every value checked)"
        + (" — quick mode: 5,000, not 20,000" if cfg.quick else ""),
        [
            "contender",
            "keyless encode",
            "keyless decode",
            "keyless bytes",
            "keyed encode",
            "keyed decode",
            "keyed bytes",
            "keyed / keyless decode",
        ],
    )
    for name, r in results.items():
        kl = r.get("keyless", (None, None, None))
        kd = r.get("keyed", (None, None, None))
        ratio = None
        if kl[1] is not None and kd[1] is not None:
            ratio = kd[1].median / kl[1].median
        t.add(
            name,
            fmt_timing(kl[0]),
            fmt_timing(kl[1]),
            fmt_bytes(kl[2]),
            fmt_timing(kd[0]),
            fmt_timing(kd[1]),
            fmt_bytes(kd[2]),
            fmt_ratio(ratio),
        )
    t.notes.append(
        "`roving lazy` opens the document with `roving.open` (O(1), not validated as a whole: each value "
        "read is checked as it is read) and compares each value through the lazy view, without building "
        "the list or dict first."
    )
    t.notes.append(
        "`typed` rows decode with a target type (`list[int]` / `dict[str, int]`) that the decoder enforces."
    )
    exp.tables.append(t)

    for variant in ("keyless", "keyed"):
        for op_i, op in ((0, "encode"), (1, "decode")):
            bars = []
            for name, r in results.items():
                if variant in r and r[variant][op_i] is not None:
                    bars.append((name, r[variant][op_i].median))
            exp.chart.append((f"{variant} {op}", bars))
    return exp


def _lazy(
    rv: Any,
    exp: Experiment,
    contenders: dict[
        str, dict[str, tuple[Callable[[], Any], Callable[[], Any], Callable[[], Any]]]
    ],
    keyless: list[int],
    keyed: dict[str, int],
) -> None:
    """roving's lazy views: open (O(1), each read checked) and compare each value in place."""
    if not hasattr(rv, "open"):
        exp.skip("roving lazy", "roving.open is missing from the installed roving")
        return
    n = len(keyless)
    try:
        b1 = rv.dumps(keyless)
        b2 = rv.dumps(keyed)
    except Exception as e:  # noqa: BLE001
        exp.skip("roving lazy", f"dumps failed: {type(e).__name__}: {e}")
        return

    def enc1() -> Any:
        return rv.dumps(keyless)

    def enc2() -> Any:
        return rv.dumps(keyed)

    def dec1() -> None:
        i = 0
        for v in rv.open(b1).root:
            if v != i:
                raise AssertionError(f"value {i} differs")
            i += 1
        if i != n:
            raise AssertionError("wrong count")

    def dec2() -> None:
        i = 0
        for k, v in rv.open(b2).root.items():
            if v != i or k != str(i):
                raise AssertionError(f"entry {i} differs")
            i += 1
        if i != n:
            raise AssertionError("wrong count")

    def rt1() -> Any:
        dec1()
        return rv.open(rv.dumps(keyless)).root.to_python()

    def rt2() -> Any:
        dec2()
        return rv.open(rv.dumps(keyed)).root.to_python()

    contenders["roving lazy"] = {
        "keyless": (enc1, dec1, rt1),
        "keyed": (enc2, dec2, rt2),
    }
