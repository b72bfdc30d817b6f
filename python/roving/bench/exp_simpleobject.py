"""Experiment 4, seed 002: 100,000 small objects, each to its own bytes and back.

The seed compared .NET's BinaryFormatter with protobuf-net and a hand
written BinaryWriter on 100,000 identical ``SimpleObject`` instances. Here:
pickle (the default archiver, like BinaryFormatter), the JSON and msgpack
families, protobuf (the Python package, with a message class built from
the ``.proto`` below at run time), ``struct.pack`` of the fields (the seed's
BinaryWriter floor) and roving (dataclass and dict).
"""

from __future__ import annotations

import json
import pickle
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .harness import (
    Config,
    Experiment,
    Table,
    Timing,
    fmt_bytes,
    fmt_ratio,
    fmt_time,
    fmt_timing,
)
from .peers import RovingMissing, optional, roving_module

NAME = "simpleobject"

PROTO = """syntax = "proto3";
package rovingbench;
message SimpleObject {
  int32 Id = 1;
  string Name = 2;
  string Address = 3;
  repeated int32 Scores = 4;  // packed (proto3 default)
}"""


@dataclass
class SimpleObject:
    """The seed's SimpleObject."""

    Id: int
    Name: str
    Address: str
    Scores: list[int]


def make_object() -> SimpleObject:
    return SimpleObject(Id=100000, Name="Simple", Address="Planet Earth", Scores=list(range(10)))


def protobuf_class() -> Any:
    """The message class of ``PROTO``, built with the descriptor APIs (no protoc step)."""
    from google.protobuf import descriptor_pb2, descriptor_pool

    try:
        from google.protobuf.message_factory import GetMessageClass
    except ImportError:  # protobuf < 4.21
        from google.protobuf import message_factory

        def GetMessageClass(desc: Any) -> Any:
            return message_factory.MessageFactory().GetPrototype(desc)

    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(
        name="rovingbench/simpleobject.proto", package="rovingbench", syntax="proto3"
    )
    m = fdp.message_type.add(name="SimpleObject")
    m.field.add(name="Id", number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL, json_name="Id")
    m.field.add(
        name="Name",
        number=2,
        type=F.TYPE_STRING,
        label=F.LABEL_OPTIONAL,
        json_name="Name",
    )
    m.field.add(
        name="Address",
        number=3,
        type=F.TYPE_STRING,
        label=F.LABEL_OPTIONAL,
        json_name="Address",
    )
    m.field.add(
        name="Scores",
        number=4,
        type=F.TYPE_INT32,
        label=F.LABEL_REPEATED,
        json_name="Scores",
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return GetMessageClass(pool.FindMessageTypeByName("rovingbench.SimpleObject"))


def struct_encode(o: SimpleObject) -> bytes:
    """BinaryWriter-style: int32 Id, length-prefixed UTF-8 strings, count + int32 scores."""
    n = o.Name.encode()
    a = o.Address.encode()
    s = o.Scores
    if len(n) > 127 or len(a) > 127 or len(s) > 255:
        raise ValueError("the struct floor handles short strings and lists only")
    return struct.pack(f"<iB{len(n)}sB{len(a)}sB{len(s)}i", o.Id, len(n), n, len(a), a, len(s), *s)


_HEAD = struct.Struct("<iB")


def struct_decode(b: bytes) -> SimpleObject:
    id_, ln = _HEAD.unpack_from(b, 0)
    p = 5
    name = b[p : p + ln].decode()
    p += ln
    la = b[p]
    p += 1
    addr = b[p : p + la].decode()
    p += la
    ns = b[p]
    p += 1
    return SimpleObject(id_, name, addr, list(struct.unpack_from(f"<{ns}i", b, p)))


def run(cfg: Config) -> Experiment:
    n = 5_000 if cfg.quick else 100_000
    exp = Experiment(
        NAME,
        f"simpleobject (seed 002): {n:,} small objects, each to its own bytes",
        "002",
        f'{n:,} identical `SimpleObject(Id=100000, Name="Simple", Address="Planet Earth", Scores=[0..9])`, '
        "each serialized to its own bytes, then each deserialized back to a `SimpleObject`; "
        "times are for all objects. Seed 002 (.NET): protobuf-net 12x faster than BinaryFormatter at "
        "serializing, with a payload under 1/15 of its size.",
        cfg,
    )
    exp.params = {"objects": n}
    one = make_object()

    cands: list[
        tuple[str, Callable[[SimpleObject], bytes], Callable[[bytes], SimpleObject], str]
    ] = []
    cands.append(
        (
            "pickle",
            lambda o: pickle.dumps(o, protocol=5),
            pickle.loads,
            "the dataclass (like BinaryFormatter)",
        )
    )
    cands.append(
        (
            "json",
            lambda o: json.dumps(vars(o), separators=(",", ":")).encode(),
            lambda b: SimpleObject(**json.loads(b)),
            "vars(o) / SimpleObject(**d)",
        )
    )
    orjson = optional("orjson")
    if orjson is not None:
        cands.append(
            (
                "orjson",
                orjson.dumps,
                lambda b: SimpleObject(**orjson.loads(b)),
                "dataclass native / SimpleObject(**d)",
            )
        )
    else:
        exp.skip("orjson", "not installed (pip install orjson)")
    msgspec = optional("msgspec")
    if msgspec is not None:
        je, jd = msgspec.json.Encoder(), msgspec.json.Decoder(SimpleObject)
        me, md = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(SimpleObject)
        cands.append(("msgspec.json", je.encode, jd.decode, "typed dataclass"))
        cands.append(("msgspec.msgpack", me.encode, md.decode, "typed dataclass"))
        ae = msgspec.msgpack.Encoder()
        ad = msgspec.msgpack.Decoder(SimpleStructArray)
        cands.append(
            (
                "msgspec.msgpack array_like",
                lambda o: ae.encode(SimpleStructArray(o.Id, o.Name, o.Address, o.Scores)),
                lambda b: _from_struct(ad.decode(b)),
                "Struct(array_like=True): positional, no keys",
            )
        )
    else:
        exp.skip("msgspec", "not installed (pip install msgspec)")
    msgpack = optional("msgpack")
    if msgpack is not None:
        cands.append(
            (
                "msgpack",
                lambda o: msgpack.packb(vars(o)),
                lambda b: SimpleObject(**msgpack.unpackb(b)),
                "vars(o) / SimpleObject(**d)",
            )
        )
    else:
        exp.skip("msgpack", "not installed (pip install msgpack)")
    ormsgpack = optional("ormsgpack")
    if ormsgpack is not None:
        cands.append(
            (
                "ormsgpack",
                ormsgpack.packb,
                lambda b: SimpleObject(**ormsgpack.unpackb(b)),
                "dataclass native / SimpleObject(**d)",
            )
        )
    else:
        exp.skip("ormsgpack", "not installed (pip install ormsgpack)")
    cbor2 = optional("cbor2")
    if cbor2 is not None:
        cands.append(
            (
                "cbor2",
                lambda o: cbor2.dumps(vars(o)),
                lambda b: SimpleObject(**cbor2.loads(b)),
                "vars(o) / SimpleObject(**d)",
            )
        )
    else:
        exp.skip("cbor2", "not installed (pip install cbor2)")
    try:
        P = protobuf_class()
    except ImportError:
        exp.skip("protobuf", "not installed (pip install protobuf)")
    except Exception as e:  # noqa: BLE001
        exp.skip("protobuf", f"cannot build the message class: {type(e).__name__}: {e}")
    else:
        from google.protobuf.internal import api_implementation

        def pb_enc(o: SimpleObject) -> bytes:
            # P is made at run time (Any): a typed local, not a cast() call, in the timed path.
            b: bytes = P(
                Id=o.Id, Name=o.Name, Address=o.Address, Scores=o.Scores
            ).SerializeToString()
            return b

        def pb_dec(b: bytes) -> SimpleObject:
            m = P.FromString(b)
            return SimpleObject(m.Id, m.Name, m.Address, list(m.Scores))

        cands.append(
            (
                "protobuf",
                pb_enc,
                pb_dec,
                f"message class from the .proto ({api_implementation.Type()} backend)",
            )
        )
    cands.append(
        (
            "struct.pack floor",
            struct_encode,
            struct_decode,
            "fields only, no names or tags (BinaryWriter)",
        )
    )

    try:
        rv = roving_module()
    except RovingMissing as e:
        exp.skip("roving", str(e))
        rv = None
    if rv is not None:
        # Encoder / Decoder objects, as msgspec's rows use msgspec's.
        cands.append(
            (
                "roving (dataclass)",
                rv.Encoder().encode,
                rv.Decoder(SimpleObject).decode,
                "Encoder().encode(o) / Decoder(SimpleObject).decode(b)",
            )
        )
        cands.append(
            (
                "roving (dataclass, functions)",
                rv.dumps,
                lambda b: rv.loads(b, type=SimpleObject),
                "dumps(o) / loads(b, type=SimpleObject)",
            )
        )
        shared = rv.Dictionary()
        rv.dumps(one, dictionary=shared)  # learns the shape
        shared.freeze()
        cands.append(
            (
                "roving (dataclass, dictionary)",
                rv.Encoder(dictionary=shared).encode,
                rv.Decoder(SimpleObject, dictionary=shared).decode,
                "a roving.Dictionary holding the shape (issue 25), bound to an Encoder and a Decoder",
            )
        )
        cands.append(
            (
                "roving (dict)",
                lambda o: rv.dumps(vars(o)),
                lambda b: SimpleObject(**rv.loads(b)),
                "vars(o) / SimpleObject(**d)",
            )
        )

    rows: list[tuple[str, Timing | None, Timing | None, float, str]] = []
    for name, enc, dec, how in cands:
        if not exp.verify(name, one, lambda enc=enc, dec=dec: dec(enc(one))):  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
            continue
        # Objects of this contender's own: some (pickle, vars(o), msgspec)
        # make each instance's `__dict__`, which CPython 3.11 otherwise
        # leaves unmade, and that would change how the next ones read them.
        objs = [make_object() for _ in range(n)]

        def ser(
            enc: Callable[[SimpleObject], bytes] = enc, objs: list[SimpleObject] = objs
        ) -> list[bytes]:
            return [enc(o) for o in objs]

        try:
            blobs = ser()
        except Exception as e:  # noqa: BLE001
            exp.skip(name, f"serialize failed: {type(e).__name__}: {e}")
            continue
        if not exp.verify(
            name,
            objs,
            lambda dec=dec, blobs=blobs: [dec(b) for b in blobs],  # type: ignore[misc]  # python/mypy#15459: lambda with a default arg
        ):
            continue

        def de(
            dec: Callable[[bytes], SimpleObject] = dec, blobs: list[bytes] = blobs
        ) -> list[SimpleObject]:
            return [dec(b) for b in blobs]

        # 5 runs, as the seed did.
        reps = min(cfg.repeats, 5)
        ts = exp.time(name, "serialize", ser, single=True, repeats=reps)
        td = exp.time(name, "deserialize", de, single=True, repeats=reps)
        avg = sum(map(len, blobs)) / len(blobs)
        exp.size(name, "avg payload", avg)
        rows.append((name, ts, td, avg, how))

    base = next((r for r in rows if r[0] == "pickle"), None)
    t = Table(
        f"{n:,} objects: serialize each, deserialize each",
        [
            "contender",
            "serialize all",
            "deserialize all",
            "per object (ser + deser)",
            "avg payload bytes",
            "ser vs pickle",
            "deser vs pickle",
            "how",
        ],
        align=["l", "r", "r", "r", "r", "r", "r", "l"],
    )
    for name, ts, td, avg, how in rows:
        per = (ts.median + td.median) / n if ts and td else None
        rs = base[1].median / ts.median if base and base[1] and ts else None
        rd = base[2].median / td.median if base and base[2] and td else None
        t.add(
            name,
            fmt_timing(ts),
            fmt_timing(td),
            fmt_time(per),
            fmt_bytes(round(avg, 1)),
            fmt_ratio(rs),
            fmt_ratio(rd),
            how,
        )
    t.notes.append(
        f"Median of {min(cfg.repeats, 5)} runs of all {n:,} objects (min–max in brackets)."
    )
    t.notes.append(
        "Ratios are pickle's time divided by the contender's (above 1x is faster than pickle)."
    )
    t.notes.append(
        "protobuf's message class is built at run time from this .proto: `"
        + " ".join(PROTO.split())
        + "`"
    )
    exp.tables.append(t)
    exp.chart.append(("serialize all", [(r[0], r[1].median if r[1] else None) for r in rows]))
    exp.chart.append(("deserialize all", [(r[0], r[2].median if r[2] else None) for r in rows]))
    return exp


try:  # msgspec's positional struct, the closest peer to the seed's BinaryWriter
    import msgspec as _msgspec

    # Without msgspec installed its Struct is Any to mypy, which then checks
    # array_like against object.__init_subclass__ and (strict) refuses to
    # subclass Any: false errors, there only.
    class SimpleStructArray(_msgspec.Struct, array_like=True):  # type: ignore[call-arg,misc,unused-ignore]
        """SimpleObject as a positional msgspec Struct."""

        Id: int
        Name: str
        Address: str
        Scores: list[int]

except ImportError:  # pragma: no cover
    SimpleStructArray = None  # type: ignore[assignment,misc]


def _from_struct(s: Any) -> SimpleObject:
    return SimpleObject(s.Id, s.Name, s.Address, s.Scores)
