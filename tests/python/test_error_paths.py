"""An EncodeError and a ValidationError show the same path the same way."""

from typing import Any

import pytest
import roving


def test_odd_key_quoted_as_json_in_both_errors() -> None:
    key = 'a "b"\n\\'
    with pytest.raises(roving.EncodeError) as enc:
        roving.dumps({"x": [{key: object()}]})
    with pytest.raises(roving.ValidationError) as val:
        roving.loads(roving.dumps({"x": [{key: "s"}]}), type=dict[str, list[dict[str, int]]])
    want = '$.x[0]["a \\"b\\"\\u000a\\\\"]'
    assert str(enc.value).endswith(" at " + want)
    assert val.value.path == want
    assert str(val.value).endswith(" at " + want)


def test_long_path_elided_alike_in_both_errors() -> None:
    value: Any = object()
    typ: Any = int
    for _ in range(50):
        value = [value]
        typ = list[typ]
    with pytest.raises(roving.EncodeError) as enc:
        roving.dumps(value)
    want = str(enc.value).split(" at ")[-1]
    assert want.startswith("$[0][0]") and "more)...[0]" in want and len(want) < 200
    doc = roving.dumps(value, default=lambda o: "s")
    with pytest.raises(roving.ValidationError) as val:
        roving.loads(doc, type=typ)
    assert val.value.path == want
    assert str(val.value).endswith(" at " + want)
