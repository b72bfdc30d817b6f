"""datetime.time and datetime.timedelta: their extension payloads (EXT_TIME,
EXT_TIMEDELTA), strict decoding of those payloads, their JSON text, and
typed decoding from either form."""

from __future__ import annotations

import dataclasses
import datetime as dt
import struct
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import roving
from conftest import same

US_PER_DAY = 86_400_000_000


def rt(x: Any) -> Any:
    return roving.loads(roving.dumps(x))


def tz(us: int) -> dt.timezone:
    return dt.timezone(dt.timedelta(microseconds=us))


TIMES = [
    dt.time(),
    dt.time(1, 2),
    dt.time(1, 2, 3, 4),
    dt.time(23, 59, 59, 999_999),
    dt.time(1, 2, fold=1),
    dt.time(12, tzinfo=dt.UTC),
    dt.time(12, 30, tzinfo=tz(-(5 * 3600 + 30 * 60) * 10**6)),
    dt.time(0, 0, 1, tzinfo=tz(US_PER_DAY - 1)),
    dt.time(0, 0, 1, tzinfo=tz(-(US_PER_DAY - 1))),
    dt.time(7, tzinfo=tz(1)),
    dt.time(7, tzinfo=tz(3661 * 10**6)),
    dt.time(7, 8, 9, 10, tzinfo=tz(-1), fold=1),
    dt.time.min,
    dt.time.max,
]

TIMEDELTAS = [
    dt.timedelta(0),
    dt.timedelta(microseconds=1),
    dt.timedelta(microseconds=-1),
    dt.timedelta(days=1, seconds=2, microseconds=3),
    dt.timedelta(days=-1, seconds=5),
    dt.timedelta(seconds=90061),
    dt.timedelta(microseconds=100_000),
    dt.timedelta.max,
    dt.timedelta.min,
    dt.timedelta.min + dt.timedelta(microseconds=1),
    dt.timedelta.max - dt.timedelta(microseconds=1),
    dt.timedelta(days=-999_999_999, seconds=86399, microseconds=999_999),
]


def time_payload(t: dt.time) -> bytes:
    """The documented EXT_TIME payload of a time."""
    us = ((t.hour * 60 + t.minute) * 60 + t.second) * 10**6 + t.microsecond
    out = struct.pack("<QB", us, t.fold)
    off = t.utcoffset()
    if off is not None:
        out += struct.pack("<q", off // dt.timedelta(microseconds=1))
    return out


def timedelta_payload(d: dt.timedelta) -> bytes:
    """The documented EXT_TIMEDELTA payload of a timedelta."""
    return struct.pack("<qI", d.days * 86400 + d.seconds, d.microseconds)


def test_ids() -> None:
    assert (roving.EXT_TIME, roving.EXT_TIMEDELTA) == (4, 5)


@pytest.mark.parametrize("t", TIMES, ids=repr)
def test_time_round_trips_exactly(t: dt.time) -> None:
    back = rt(t)
    same(back, t)
    assert back.fold == t.fold and back.utcoffset() == t.utcoffset()
    if t.utcoffset() == dt.timedelta(0):
        assert back.tzinfo is dt.UTC
    # The payload is the documented one.
    assert roving.dumps(t) == roving.dumps(roving.Ext(roving.EXT_TIME, time_payload(t)))
    same(rt(roving.Ext(roving.EXT_TIME, time_payload(t))), t)


@pytest.mark.parametrize("d", TIMEDELTAS, ids=repr)
def test_timedelta_round_trips_exactly(d: dt.timedelta) -> None:
    same(rt(d), d)
    assert roving.dumps(d) == roving.dumps(roving.Ext(roving.EXT_TIMEDELTA, timedelta_payload(d)))
    same(rt([d, {"d": d}]), [d, {"d": d}])


def test_subclasses_are_written_as_the_base_type() -> None:
    # As for date and datetime subclasses: the value, read back as the base type.
    class MyTime(dt.time):
        pass

    class MyDelta(dt.timedelta):
        pass

    same(rt(MyTime(1, 2, tzinfo=dt.UTC)), dt.time(1, 2, tzinfo=dt.UTC))
    same(rt(MyDelta(days=3, microseconds=5)), dt.timedelta(days=3, microseconds=5))


class NoOffset(dt.tzinfo):
    def utcoffset(self, d: Any) -> None:
        return None


class NeedsDatetime(dt.tzinfo):
    def utcoffset(self, d: Any) -> dt.timedelta:
        if d is None:
            raise ValueError("this zone needs a datetime")
        return dt.timedelta(hours=1)


def test_time_whose_tzinfo_has_no_offset_is_naive() -> None:
    # Python calls such a time naive (utcoffset() is None), as it does a
    # datetime; a ZoneInfo gives a time no offset (it depends on the date).
    for t in [dt.time(1, 2, tzinfo=NoOffset()), dt.time(1, 2, tzinfo=ZoneInfo("Europe/Paris"))]:
        assert t.utcoffset() is None
        same(rt(t), dt.time(1, 2))
    with pytest.raises(ValueError, match="needs a datetime"):
        roving.dumps(dt.time(1, tzinfo=NeedsDatetime()))


def test_reserved_ext_needs_a_valid_payload() -> None:
    ok = time_payload(dt.time(1))
    bad = [
        roving.Ext(roving.EXT_TIME, b""),
        roving.Ext(roving.EXT_TIME, ok[:-1]),
        roving.Ext(roving.EXT_TIME, ok + b"\x00"),
        roving.Ext(roving.EXT_TIME, ok + b"\x00" * 7),
        roving.Ext(roving.EXT_TIME, struct.pack("<QB", US_PER_DAY, 0)),
        roving.Ext(roving.EXT_TIME, struct.pack("<QB", 2**64 - 1, 0)),
        roving.Ext(roving.EXT_TIME, struct.pack("<QB", 0, 2)),
        roving.Ext(roving.EXT_TIME, struct.pack("<QBq", 0, 0, US_PER_DAY)),
        roving.Ext(roving.EXT_TIME, struct.pack("<QBq", 0, 0, -US_PER_DAY)),
        roving.Ext(roving.EXT_TIME, struct.pack("<QBq", 0, 0, -(2**63))),
        roving.Ext(roving.EXT_TIMEDELTA, b""),
        roving.Ext(roving.EXT_TIMEDELTA, b"\x00" * 11),
        roving.Ext(roving.EXT_TIMEDELTA, b"\x00" * 13),
        roving.Ext(roving.EXT_TIMEDELTA, struct.pack("<qI", 0, 1_000_000)),
        roving.Ext(roving.EXT_TIMEDELTA, struct.pack("<qI", -1, 2**32 - 1)),
        roving.Ext(roving.EXT_TIMEDELTA, struct.pack("<qI", 86_399_999_999_999 + 1, 0)),
        roving.Ext(roving.EXT_TIMEDELTA, struct.pack("<qI", -86_399_999_913_600 - 1, 999_999)),
        roving.Ext(roving.EXT_TIMEDELTA, struct.pack("<qI", 2**63 - 1, 0)),
        roving.Ext(roving.EXT_TIMEDELTA, struct.pack("<qI", -(2**63), 0)),
    ]
    for e in bad:
        with pytest.raises(roving.EncodeError, match=r"reserved type id [45] .* at \$\.e\[0\]$"):
            roving.dumps({"e": [e]})
    # The edges of the ranges are valid.
    for payload, want in [
        (struct.pack("<QB", US_PER_DAY - 1, 1), dt.time.max.replace(fold=1)),
        (struct.pack("<QBq", 0, 0, US_PER_DAY - 1), dt.time(tzinfo=tz(US_PER_DAY - 1))),
    ]:
        same(rt(roving.Ext(roving.EXT_TIME, payload)), want)
    for payload, want in [
        (struct.pack("<qI", 86_399_999_999_999, 999_999), dt.timedelta.max),
        (struct.pack("<qI", -86_399_999_913_600, 0), dt.timedelta.min),
    ]:
        same(rt(roving.Ext(roving.EXT_TIMEDELTA, payload)), want)


def document_with_ext(type_id: int, payload: bytes) -> tuple[bytes, int]:
    """A valid document ``[ext]`` holding this payload under a reserved
    type id (which dumps refuses to write when the payload is bad), and the
    payload's offset."""
    doc = bytearray(roving.dumps([roving.Ext(77, payload)]))
    head = bytes([0x0E, 77, len(payload)])
    at = doc.index(head + payload)
    doc[at + 1] = type_id
    roving.validate(bytes(doc))
    return bytes(doc), at + 3


@pytest.mark.parametrize(
    ("type_id", "payload"),
    [
        (4, b"\x00" * 8),
        (4, b"\x00" * 10),
        (4, struct.pack("<QB", US_PER_DAY, 0)),
        (4, struct.pack("<QB", 5, 9)),
        (4, struct.pack("<QBq", 5, 0, US_PER_DAY)),
        (5, b"\x00" * 4),
        (5, struct.pack("<qI", 0, 1_000_000)),
        (5, struct.pack("<qI", 2**63 - 1, 0)),
        (5, struct.pack("<qI", -(2**63), 0)),
    ],
)
def test_loads_rejects_bad_payloads_with_their_offset(type_id: int, payload: bytes) -> None:
    doc, off = document_with_ext(type_id, payload)
    readers = [
        roving.loads,
        lambda b: roving.open(b).root[0],
        lambda b: roving.open(b).root.to_python(),
        lambda b: roving.loads(b, type=list[dt.time] if type_id == 4 else list[dt.timedelta]),
        lambda b: roving.loads(b, type=list[Any]),
    ]
    for read in readers:
        with pytest.raises(roving.DecodeError, match=r"time|timedelta") as e:
            read(doc)
        assert not isinstance(e.value, roving.ValidationError)
        assert e.value.offset == off, (e.value, e.value.offset, off)


def test_json_text() -> None:
    cases: list[tuple[Any, str]] = [
        (dt.time(1, 2), "01:02:00"),
        (dt.time(1, 2, 3, 4), "01:02:03.000004"),
        (dt.time(1, 2, fold=1), "01:02:00"),
        (dt.time(1, 2, tzinfo=dt.UTC), "01:02:00+00:00"),
        (dt.time(1, 2, tzinfo=tz(-(5 * 3600 + 30 * 60) * 10**6)), "01:02:00-05:30"),
        (dt.time(1, 2, tzinfo=tz(3661 * 10**6)), "01:02:00+01:01:01"),
        (dt.time(1, 2, tzinfo=tz(-1)), "01:02:00-00:00:00.000001"),
        (dt.timedelta(0), "P0D"),
        (dt.timedelta(1), "P1D"),
        (dt.timedelta(-1), "-P1D"),
        (dt.timedelta(seconds=1), "PT1S"),
        (dt.timedelta(microseconds=1), "PT0.000001S"),
        (dt.timedelta(microseconds=-1), "-PT0.000001S"),
        (dt.timedelta(days=1, seconds=2, microseconds=3), "P1DT2.000003S"),
        (dt.timedelta(days=-1, seconds=5), "-PT86395S"),
        (dt.timedelta(microseconds=100_000), "PT0.1S"),
        (dt.timedelta.max, "P999999999DT86399.999999S"),
        (dt.timedelta.min, "-P999999999D"),
    ]
    for v, text in cases:
        if isinstance(v, dt.time):
            assert v.isoformat() == text
        want = f'["{text}"]'.encode()
        b = roving.dumps([v])
        assert roving.to_json(b) == want, v
        assert roving.open(b).root.to_json() == want
        assert roving.open(b).root[0] == v


def test_timedelta_json_text_is_msgspecs() -> None:
    msgspec = pytest.importorskip("msgspec")
    for d in [
        *TIMEDELTAS,
        *(dt.timedelta(microseconds=10**k) for k in range(12)),
        *(-dt.timedelta(microseconds=10**k + 7) for k in range(12)),
        dt.timedelta(days=3, microseconds=120),
    ]:
        assert roving.to_json(roving.dumps(d)) == msgspec.json.encode(d), d
        assert msgspec.json.decode(roving.to_json(roving.dumps(d)), type=dt.timedelta) == d


@dataclasses.dataclass
class Shift:
    start: dt.time
    length: dt.timedelta
    pause: dt.timedelta | None = None
    end: dt.time | int | None = None


def test_typed_from_the_ext_values() -> None:
    for t in TIMES:
        same(roving.loads(roving.dumps(t), type=dt.time), t)
        same(roving.loads(roving.dumps([t]), type=list[dt.time | None]), [t])
    for d in TIMEDELTAS:
        same(roving.loads(roving.dumps(d), type=dt.timedelta), d)
        same(roving.loads(roving.dumps({"x": d}), type=dict[str, dt.timedelta | None]), {"x": d})
    s = Shift(dt.time(9, tzinfo=dt.UTC), dt.timedelta(hours=8), dt.timedelta(minutes=30), 5)
    assert roving.loads(roving.dumps(s), type=Shift) == s
    s = Shift(dt.time(9), dt.timedelta(hours=8), None, dt.time(17, fold=1))
    back = roving.loads(roving.dumps(s), type=Shift)
    assert back == s and back.end is not None and back.end.fold == 1  # type: ignore[union-attr]


def test_typed_from_the_json_text() -> None:
    # What to_json writes reads back with type=, as for date, UUID and Decimal.
    for t in TIMES:
        back = roving.loads(roving.from_json(roving.to_json(roving.dumps(t))), type=dt.time)
        same(back, t.replace(fold=0))
    for d in TIMEDELTAS:
        back = roving.loads(roving.from_json(roving.to_json(roving.dumps(d))), type=dt.timedelta)
        same(back, d)
    s = Shift(dt.time(9, 30, 15, 250_000, tzinfo=tz(-3_600_000_000)), dt.timedelta(-3, 7, 8))
    assert roving.loads(roving.from_json(roving.to_json(roving.dumps(s))), type=Shift) == s
    # Other ISO forms: Z, fewer fraction digits, hours and minutes of a duration.
    for text, want in [
        ("01:02:03Z", dt.time(1, 2, 3, tzinfo=dt.UTC)),
        ("01:02:03.5", dt.time(1, 2, 3, 500_000)),
        ("01:02:03.123+23:59", dt.time(1, 2, 3, 123_000, tzinfo=tz(86_340_000_000))),
    ]:
        same(roving.loads(roving.dumps(text), type=dt.time), want)
    for text, wd in [
        ("PT1H30M", dt.timedelta(minutes=90)),
        ("P2DT3H4M5.6S", dt.timedelta(days=2, hours=3, minutes=4, seconds=5.6)),
        ("-PT0.5S", dt.timedelta(seconds=-0.5)),
        ("PT86400S", dt.timedelta(days=1)),
    ]:
        same(roving.loads(roving.dumps(text), type=dt.timedelta), wd)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1:02:03",
        "01:02",
        "24:00:00",
        "01:60:00",
        "01:02:60",
        "01:02:03.",
        "01:02:03.1234567",
        "01:02:03+24:00",
        "01:02:03+01",
        "01:02:03z",
        "01:02:03 ",
        "T01:02:03",
        "01:02:03+01:00:60",
        "01:02:03+01:00:00.",
        "０1:02:03",
    ],
)
def test_typed_time_rejects_bad_text(text: str) -> None:
    with pytest.raises(roving.ValidationError, match=r"invalid time .* at \$\[0\]$"):
        roving.loads(roving.dumps([text]), type=list[dt.time])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "P",
        "-P",
        "PT",
        "P1DT",
        "1D",
        "p1d",
        "P1Y",
        "P1M",
        "P1W",
        "P-1D",
        "+P1D",
        "PT1.S",
        "PT.5S",
        "PT0.0000001S",
        "PT1,5S",
        "P1.5D",
        "PT1S2M",
        "PT1H1H",
        "P1000000000D",
        "-P999999999DT0.000001S",
        "PT" + "9" * 40 + "S",
        "P1D ",
    ],
)
def test_typed_timedelta_rejects_bad_text(text: str) -> None:
    with pytest.raises(roving.ValidationError, match=r"invalid timedelta .* at \$\.d$"):
        roving.loads(roving.dumps({"d": text}), type=dict[str, dt.timedelta])


def test_typed_mismatches_name_the_path() -> None:
    with pytest.raises(roving.ValidationError, match=r"expected time, got timedelta at \$\[1\]$"):
        roving.loads(roving.dumps([dt.time(1), dt.timedelta(1)]), type=list[dt.time])
    with pytest.raises(roving.ValidationError, match=r"expected timedelta, got int at \$\.length$"):
        roving.loads(roving.dumps({"start": dt.time(1), "length": 5}), type=Shift)
    with pytest.raises(roving.ValidationError, match=r"expected time, got date at \$\.start$"):
        roving.loads(roving.dumps({"start": dt.date(2020, 1, 1), "length": 5}), type=Shift)
    with pytest.raises(roving.ValidationError, match=r"expected timedelta, got time at \$$"):
        roving.loads(roving.dumps(dt.time(1)), type=dt.timedelta)
    with pytest.raises(roving.ValidationError, match=r"expected time \| int \| None, got float"):
        roving.loads(
            roving.dumps({"start": dt.time(1), "length": dt.timedelta(), "end": 1.5}), type=Shift
        )
