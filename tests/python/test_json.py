"""from_json / to_json on the core's streaming converter."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import json
import math
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import roving
from conftest import DATA_DIR

SUITE = DATA_DIR / "jsontestsuite" / "test_parsing"


def test_people_json_round_trip(people_path: Path, people: Any) -> None:
    raw = people_path.read_bytes()
    b = roving.from_json(raw)
    assert roving.loads(b) == people
    assert b == roving.dumps(people)
    assert json.loads(roving.to_json(b)) == people
    assert roving.from_json(raw.decode()) == b
    assert roving.from_json(bytearray(raw)) == b
    assert roving.from_json(memoryview(raw)) == b
    pretty = roving.to_json(b, indent=2)
    assert b"\n  " in pretty and json.loads(pretty) == people


def test_json_details() -> None:
    assert roving.loads(roving.from_json(b'{"big": 123456789012345678901234567890}')) == {
        "big": 123456789012345678901234567890
    }
    assert math.copysign(1.0, roving.loads(roving.from_json(b"-0"))) == -1.0
    assert roving.loads(roving.from_json('[1.5, "\\u00e9", null, true]')) == [1.5, "é", None, True]
    assert json.loads(roving.to_json(roving.dumps({"b": b"\x00\x01"}))) == {
        "b": {"$base64": "AAE="}
    }
    assert json.loads(roving.to_json(roving.dumps([math.nan, math.inf]))) == [None, None]


def test_json_errors_are_decode_errors() -> None:
    for bad in [b"", b"[1,", b'{"a" 1}', b"[1,]", b"nul", b"\xff", b"[1] x", b"01"]:
        with pytest.raises(roving.DecodeError) as ei:
            roving.from_json(bad)
        assert isinstance(ei.value.offset, int)
    with pytest.raises(roving.DecodeError):
        roving.to_json(b"not roving")


def test_json_integers_stop_at_pythons_digit_limit() -> None:
    # As json.loads and str(int) do past 4300 digits (their cost grows with
    # the square of the digits): a ValueError, before any conversion work.
    nines = 10**4300 - 1
    text = str(nines).encode()
    assert roving.loads(roving.from_json(text)) == nines
    assert roving.to_json(roving.dumps(-nines)) == b"-" + text
    with pytest.raises(roving.DecodeError, match="4301 digits"):
        roving.from_json(b"1" * 4301)
    with pytest.raises(ValueError, match="more than 4300 digits"):
        roving.to_json(roving.dumps(nines + 1))
    # In binary there is no limit.
    huge = 1 << 100_000
    assert roving.loads(roving.dumps(huge)) == huge


def test_json_test_suite() -> None:
    for f in sorted(SUITE.iterdir()):
        data = f.read_bytes()
        if f.name.startswith("y_"):
            b = roving.from_json(data)
            assert roving.loads(b) == json.loads(data) or f.name.startswith("y_number"), f.name
        elif f.name.startswith("n_"):
            with pytest.raises(roving.DecodeError):
                roving.from_json(data)
        else:
            try:
                roving.from_json(data)
            except roving.DecodeError:
                pass


def test_to_json_writes_dates_uuids_and_decimals_as_their_text() -> None:
    @dataclass
    class Row:
        day: dt.date
        id: uuid.UUID
        price: decimal.Decimal
        at: dt.datetime
        other: Any

    u = uuid.UUID("12345678-1234-5678-9abc-def012345678")
    row = Row(
        dt.date(2020, 1, 2),
        u,
        decimal.Decimal("-1.250"),
        dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
        roving.Ext(9, b"\x00"),
    )
    b = roving.dumps(row)
    text = roving.to_json(b)
    assert json.loads(text) == {
        "day": "2020-01-02",
        "id": "12345678-1234-5678-9abc-def012345678",
        "price": "-1.250",
        "at": "2020-01-02T03:04:05Z",  # aware UTC: Z
        "other": {"$ext": 9, "$base64": "AA=="},
    }
    assert roving.open(b).to_json() == text
    assert roving.open(b).root.to_json(indent=2) == roving.to_json(b, indent=2)
    # Through JSON and back, typed loads restores every typed field (an
    # unknown extension stays the JSON object it became).
    back = roving.loads(roving.from_json(text), type=Row)
    assert back == dataclasses.replace(row, other={"$ext": 9, "$base64": "AA=="})


def test_to_json_writes_naive_datetimes_without_an_offset() -> None:
    # A naive datetime has no offset (record 0A): its text has none either,
    # so that no JSON reader takes it for UTC. Aware UTC is `Z` (record 0B,
    # offset 0); another offset is written as it is.
    naive = dt.datetime(2024, 1, 1, 9, 0, 0)
    utc = dt.datetime(2024, 1, 1, 9, 0, 0, tzinfo=dt.UTC)
    tokyo = dt.datetime(2024, 1, 1, 9, 0, 0, 500000, tzinfo=dt.timezone(dt.timedelta(hours=9)))
    zero = dt.datetime(2024, 1, 1, 9, 0, 0, tzinfo=dt.timezone(dt.timedelta(0), "GMT"))
    b = roving.dumps([naive, utc, tokyo, zero])
    assert b[3] == 0x0A  # the naive one: a timestamp without offset
    want = b'["2024-01-01T09:00:00","2024-01-01T09:00:00Z","2024-01-01T09:00:00.500+09:00","2024-01-01T09:00:00Z"]'
    assert roving.to_json(b) == want
    assert roving.open(b).to_json() == want
    # Python reads each text back as the datetime it came from, naive or not.
    texts = json.loads(want)
    assert [dt.datetime.fromisoformat(t) for t in texts] == [naive, utc, tokyo, zero]
    assert dt.datetime.fromisoformat(texts[0]).tzinfo is None
    # So does typed loads of the text, and loads of the document itself.
    back = roving.loads(roving.from_json(want), type=list[dt.datetime])
    assert back == [naive, utc, tokyo, zero]
    assert [x.utcoffset() for x in back] == [
        None,
        dt.timedelta(0),
        dt.timedelta(hours=9),
        dt.timedelta(0),
    ]
    assert [x.utcoffset() for x in roving.loads(b)] == [x.utcoffset() for x in back]


def test_from_json_of_a_str_with_a_lone_surrogate_is_a_decode_error() -> None:
    with pytest.raises(roving.DecodeError, match="lone surrogate"):
        roving.from_json('"\ud800"')
    # The escaped form is JSON's, and refused the same way.
    with pytest.raises(roving.DecodeError):
        roving.from_json('"\\ud800"')
    assert roving.loads(roving.from_json('"\\ud83d\\ude00"')) == "\U0001f600"
