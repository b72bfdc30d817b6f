"""Hypothesis-driven fuzz targets for the Python surface (issue 6): damaged
roving documents through typed decoding, and damaged store files through
`Store(..., verify_pages=True)`. Each example must give a value or a roving
error; a crash (SIGSEGV/SIGBUS) would kill the test run.

The byte-level targets for `loads`, `open` and view walking are in
test_badbytes.py; these add the typed decoder and the store."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest
import roving
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    from roving import Store, StoreError  # type: ignore[attr-defined]
except ImportError:
    from roving._store import Store, StoreError


@dataclasses.dataclass
class Friend:
    id: int
    name: str


@dataclasses.dataclass
class Person:
    name: str
    age: int
    tags: list[str]
    friends: list[Friend]
    balance: float | None = None
    seen: dt.datetime | None = None
    extra: dict[str, int] = dataclasses.field(default_factory=dict)


def people(n: int) -> list[Person]:
    return [
        Person(
            name=f"person {i}",
            age=20 + i % 50,
            tags=["a", "b", f"t{i % 7}"],
            friends=[Friend(j, f"friend {j}") for j in range(i % 4)],
            balance=None if i % 3 == 0 else i * 1.25,
            seen=dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(minutes=i),
            extra={"k": i} if i % 2 else {},
        )
        for i in range(n)
    ]


GOOD_DOC = roving.dumps(people(12))


def decode_typed(data: bytes) -> None:
    """Typed decoding of any bytes: a value of the type or a roving error."""
    try:
        out = roving.loads(data, type=list[Person])
    except roving.RovingError:
        return
    assert isinstance(out, list)
    assert all(isinstance(p, Person) for p in out)


def test_the_typed_target_decodes_the_good_document() -> None:
    assert roving.loads(GOOD_DOC, type=list[Person]) == people(12)


@settings(max_examples=2000, deadline=None)
@given(st.integers(0, len(GOOD_DOC) - 1), st.integers(0, 255), st.integers(1, 4))
def test_typed_decoding_of_damaged_documents(at: int, byte: int, run: int) -> None:
    b = bytearray(GOOD_DOC)
    for i in range(at, min(at + run, len(b))):
        b[i] = byte
    decode_typed(bytes(b))


@settings(max_examples=1000, deadline=None)
@given(st.integers(0, len(GOOD_DOC)), st.binary(max_size=32))
def test_typed_decoding_of_spliced_documents(at: int, junk: bytes) -> None:
    decode_typed(GOOD_DOC[:at] + junk + GOOD_DOC[at:])


@pytest.fixture(scope="module")
def good_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "good.rvs"
    with Store(path) as s:
        for p in people(300):
            s[p.name] = dataclasses.asdict(p)
        s["big"] = {"blob": "x" * 20_000}  # an overflow page
    assert path.stat().st_size > 8 * 4096
    return path


def open_damaged(path: Path, data: bytes) -> None:
    """Opens a damaged store file and reads every record: data or a
    StoreError/DecodeError, never a crash."""
    path.write_bytes(data)
    lock = path.with_name(path.name + "-lock")
    lock.unlink(missing_ok=True)
    try:
        with Store(path, readonly=True, verify_pages=True) as s:
            for k in list(s):
                # A damaged key order may hide a listed key: None, not a crash.
                try:
                    s.get(k)
                except roving.RovingError:
                    pass
    except (StoreError, roving.RovingError):
        pass


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.data(),
    st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 255)), min_size=1, max_size=8),
)
def test_store_opening_damaged_files(
    tmp_path: Path, good_store: Path, data: st.DataObject, changes: list[tuple[int, int]]
) -> None:
    b = bytearray(good_store.read_bytes())
    # Damage: a few bytes, half of them in the headers and node offsets at
    # the start of a page (where LMDB's structure is), and one time in four
    # a truncation.
    pages = len(b) // 4096
    for at, byte in changes:
        if at % 2:
            at = (at // 2 % pages) * 4096 + at % 64
        b[at % len(b)] = byte
    if data.draw(st.integers(0, 3)) == 0:
        del b[data.draw(st.integers(0, len(b) - 1)) :]
    open_damaged(tmp_path / "damaged.rvs", bytes(b))


def test_store_target_opens_the_good_store(tmp_path: Path, good_store: Path) -> None:
    p = tmp_path / "good.rvs"
    p.write_bytes(good_store.read_bytes())
    with Store(p, readonly=True, verify_pages=True) as s:
        assert len(s) == 301 and s["person 7"]["age"] == 27
