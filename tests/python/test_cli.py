"""The `roving` command line, run as a user runs it: `python -m roving ...` in a subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import roving
from conftest import run_as_nobody

PEOPLE = [
    {
        "name": "Alice",
        "age": 30,
        "score": 1.5,
        "tags": ["a", "b"],
        "active": True,
        "nick": None,
        "address": {"city": "Paris", "zip": "75001"},
    },
    {
        "name": "Bob",
        "age": 41,
        "score": -2.25,
        "tags": [],
        "active": False,
        "nick": "bobby",
        "address": {"city": "Lyon", "zip": "69001"},
    },
    {
        "name": "Chloé \u00e9\u4e2d",
        "age": 12345678901234,
        "score": 1e300,
        "tags": ["a"],
        "active": True,
        "nick": "",
        "address": {},
    },
]


def run(
    *args: str,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    umask: int = -1,
    env_extra: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["ROVING_NO_PROGRESS"] = "1"
    env.pop("ROVING_DEBUG", None)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "roving", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
        umask=umask,
    )


def one_error_line(p: subprocess.CompletedProcess) -> str:
    """Asserts the process failed with exactly one line on stderr, no traceback."""
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode != 0, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    j = tmp_path / "people.json"
    j.write_text(json.dumps(PEOPLE, ensure_ascii=False, indent=2), encoding="utf-8")
    r = tmp_path / "people.rov"
    p = run("convert", str(j), str(r))
    assert p.returncode == 0, p.stderr
    return {"json": j, "rov": r, "dir": tmp_path}


# ---------------------------------------------------------------------------
# help


@pytest.mark.parametrize(
    "cmd", [[], ["convert"], ["get"], ["dump"], ["validate"], ["stats"], ["bench"]]
)
def test_help(cmd: list[str]) -> None:
    p = run(*cmd, "--help")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert out.startswith("usage: roving")
    assert " ".join(["roving", *cmd]) in out


def test_no_command_is_a_usage_error() -> None:
    p = run()
    line = one_error_line(p)
    assert p.returncode == 2
    assert "roving" in line


def test_unknown_command() -> None:
    p = run("frobnicate")
    line = one_error_line(p)
    assert p.returncode == 2
    assert "frobnicate" in line


# ---------------------------------------------------------------------------
# convert


def test_convert_json_to_roving_and_back(files: dict[str, Path]) -> None:
    rov = files["rov"].read_bytes()
    assert rov[:2] == b"RV"
    back = files["dir"] / "back.json"
    p = run("convert", str(files["rov"]), str(back))
    assert p.returncode == 0, p.stderr
    assert json.loads(back.read_bytes()) == PEOPLE


def test_convert_to_flag_and_unknown_extensions(files: dict[str, Path]) -> None:
    out = files["dir"] / "people.bin"
    p = run("convert", str(files["json"]), str(out), "--to", "roving")
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() == files["rov"].read_bytes()
    # No extension to go by: the input is sniffed, the output is the other format.
    out2 = files["dir"] / "people.out"
    p = run("convert", str(out), str(out2))
    assert p.returncode == 0, p.stderr
    assert json.loads(out2.read_bytes()) == PEOPLE


def test_convert_stdin_stdout(files: dict[str, Path]) -> None:
    src = files["json"].read_bytes()
    p = run("convert", "-", "-", "--to", "roving", stdin=src)
    assert p.returncode == 0, p.stderr
    assert p.stdout == files["rov"].read_bytes()
    p = run("convert", "-", "-", stdin=p.stdout)  # roving in (sniffed) -> JSON out
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == PEOPLE


def test_convert_indent(files: dict[str, Path]) -> None:
    p = run("convert", str(files["rov"]), "-", "--indent", "2")
    assert p.returncode == 0, p.stderr
    text = p.stdout.decode()
    assert "\n  " in text
    assert json.loads(text) == PEOPLE


def test_negative_indent_is_a_usage_error(files: dict[str, Path]) -> None:
    for args in [
        ["convert", str(files["rov"]), "-", "--indent", "-3"],
        ["convert", str(files["rov"]), "-", "--indent=-1"],
        ["get", str(files["rov"]), "[0]", "--indent", "-3"],
        ["dump", str(files["rov"]), "--json", "--indent", "-3"],
    ]:
        p = run(*args)
        line = one_error_line(p)
        assert p.returncode == 2
        assert "--indent" in line and "0 or more" in line
        assert p.stdout == b""
    p = run("get", str(files["rov"]), "[0].age", "--indent", "0")
    assert p.returncode == 0, p.stderr
    assert p.stdout == b"30\n"


def test_convert_verbose(files: dict[str, Path]) -> None:
    p = run("convert", "-v", str(files["json"]), str(files["dir"] / "v.rov"))
    assert p.returncode == 0
    assert "bytes" in p.stderr.decode()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002, 0o027])
def test_convert_new_file_mode_follows_the_umask(files: dict[str, Path], umask: int) -> None:
    for src, name in [(files["json"], "new.rov"), (files["rov"], "new.json")]:
        out = files["dir"] / f"{umask:o}-{name}"
        p = run("convert", str(src), str(out), umask=umask)
        assert p.returncode == 0, p.stderr
        assert out.stat().st_mode & 0o777 == 0o666 & ~umask, oct(out.stat().st_mode)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_convert_keeps_an_existing_files_mode(files: dict[str, Path]) -> None:
    # Replaced by another file's conversion.
    out = files["dir"] / "existing.rov"
    out.write_bytes(b"old")
    for mode in [0o644, 0o640, 0o604, 0o755]:
        out.chmod(mode)
        p = run("convert", str(files["json"]), str(out), umask=0o077)
        assert p.returncode == 0, p.stderr
        assert out.read_bytes() == files["rov"].read_bytes()
        assert out.stat().st_mode & 0o777 == mode, oct(out.stat().st_mode)
    # Converted in place.
    inplace = files["dir"] / "inplace.json"
    inplace.write_bytes(files["json"].read_bytes())
    inplace.chmod(0o644)
    p = run("convert", str(inplace), str(inplace), "--to", "roving", umask=0o077)
    assert p.returncode == 0, p.stderr
    assert inplace.read_bytes() == files["rov"].read_bytes()
    assert inplace.stat().st_mode & 0o777 == 0o644


@pytest.mark.skipif(os.name != "posix", reason="symlinks and FIFOs")
def test_convert_writes_through_a_symlink(files: dict[str, Path]) -> None:
    # The link stays a link; the file it points to gets the output.
    real = files["dir"] / "real.rov"
    real.write_bytes(b"old")
    link = files["dir"] / "link.rov"
    link.symlink_to(real)
    p = run("convert", str(files["json"]), str(link))
    assert p.returncode == 0, p.stderr
    assert link.is_symlink()
    assert real.read_bytes() == files["rov"].read_bytes()


@pytest.mark.skipif(os.name != "posix", reason="FIFOs")
def test_convert_writes_into_a_fifo(files: dict[str, Path]) -> None:
    # A named pipe (like /dev/stdout or /dev/null, which are not regular
    # files either) is written to, never replaced by a new file.
    import stat
    import threading

    fifo = files["dir"] / "pipe.rov"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    p = run("convert", str(files["json"]), str(fifo))
    assert p.returncode == 0, p.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
    t.join(timeout=30)
    assert got == [files["rov"].read_bytes()]


def test_convert_json_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('[\n  {"a": 1},\n  {"b": tru}\n]\n')
    p = run("convert", str(bad), str(tmp_path / "out.rov"))
    line = one_error_line(p)
    assert p.returncode == 1
    assert "bad.json" in line
    assert "line 3" in line and "column" in line, line
    assert not (tmp_path / "out.rov").exists()


def test_convert_missing_input(tmp_path: Path) -> None:
    p = run("convert", str(tmp_path / "nope.json"), str(tmp_path / "out.rov"))
    line = one_error_line(p)
    assert p.returncode == 1
    assert "nope.json" in line and "no such file" in line


def test_convert_damaged_roving(files: dict[str, Path]) -> None:
    data = files["rov"].read_bytes()
    bad = files["dir"] / "bad.rov"
    bad.write_bytes(data[: len(data) // 2])
    p = run("convert", str(bad), str(files["dir"] / "out.json"))
    line = one_error_line(p)
    assert p.returncode == 1
    assert "bad.rov" in line and "damaged roving file" in line


def test_convert_output_ending_in_a_slash_is_refused(files: dict[str, Path]) -> None:
    # "new/" made a file "new" (and "old/" failed as "Not a directory").
    for name in ("new/", "people.json/"):
        p = run("convert", str(files["rov"]), str(files["dir"]) + "/" + name)
        assert "is a directory name (it ends in /)" in one_error_line(p)
    assert sorted(x.name for x in files["dir"].iterdir()) == ["people.json", "people.rov"]


def test_convert_output_directory_missing(files: dict[str, Path]) -> None:
    p = run(
        "convert",
        str(files["json"]),
        str(files["dir"] / "no" / "such" / "dir" / "x.rov"),
    )
    line = one_error_line(p)
    assert "does not exist" in line


def test_convert_empty_input(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    p = run("convert", str(empty), str(tmp_path / "e.rov"))
    line = one_error_line(p)
    assert p.returncode == 1
    assert "empty.json" in line


def test_convert_input_is_a_directory(tmp_path: Path) -> None:
    p = run("convert", str(tmp_path), str(tmp_path / "x.rov"))
    line = one_error_line(p)
    assert "is a directory" in line


def test_convert_bad_usage(tmp_path: Path) -> None:
    p = run("convert", "only-one-arg")
    line = one_error_line(p)
    assert p.returncode == 2
    assert "OUT" in line
    p = run("convert", "a.json", "b.rov", "--to", "xml")
    one_error_line(p)
    assert p.returncode == 2


# ---------------------------------------------------------------------------
# get


def test_get(files: dict[str, Path]) -> None:
    rov = str(files["rov"])
    p = run("get", rov, "[1].name")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == "Bob"
    assert run("get", rov, "$[0].address.city").stdout.strip() == b'"Paris"'
    assert json.loads(run("get", rov, "[0].tags").stdout) == ["a", "b"]
    assert json.loads(run("get", rov, "[2]").stdout) == PEOPLE[2]
    assert json.loads(run("get", rov, "[-1].age").stdout) == PEOPLE[-1]["age"]
    assert json.loads(run("get", rov, '[1]["nick"]').stdout) == "bobby"
    assert json.loads(run("get", rov, "[0].nick").stdout) is None
    assert json.loads(run("get", rov, "[2].score").stdout) == 1e300
    assert json.loads(run("get", rov, "").stdout) == PEOPLE


@pytest.mark.skipif(os.name != "posix", reason="FIFOs")
@pytest.mark.parametrize("kind", ["rov", "json"])
def test_get_from_a_pipe(files: dict[str, Path], kind: str) -> None:
    # A FIFO (or /dev/stdin, or the shell's <(...)) cannot be memory-mapped
    # and can be read only once: get reads it whole, roving or JSON.
    import threading

    fifo = files["dir"] / f"pipe-{kind}"
    os.mkfifo(fifo)
    data = files[kind].read_bytes()

    def writer() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    p = run("get", str(fifo), "[1].name")
    t.join(timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout == b'"Bob"\n'


def test_get_from_json_file(files: dict[str, Path]) -> None:
    p = run("get", str(files["json"]), "[2].name")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == PEOPLE[2]["name"]


def test_get_paths_read_as_the_package_reads_them(tmp_path: Path) -> None:
    # The help promises the path syntax of `get_path` (the core's): `$` is
    # the root only alone or before `.` or `[`, so `$ref` is the key
    # "$ref"; `[-0]` is no index. The CLI had its own parser, which took
    # `$ref` for the key "ref" and `[-0]` for `[0]`.
    data = {"$ref": 5, "ref": 6, "a": [1, 2], "$": {"x": 7}}
    rov = tmp_path / "d.rov"
    rov.write_bytes(roving.dumps(data))
    doc = roving.open(rov.read_bytes())
    for path in ["$ref", "$.$ref", '$["$ref"]', "ref", "$.a[-1]", '$["$"].x', "a[1]"]:
        p = run("get", str(rov), path)
        assert p.returncode == 0, (path, p.stderr)
        assert json.loads(p.stdout) == doc.root.get_path(path), path
    p = run("get", str(rov), "a[-0]")
    assert p.returncode == 2
    assert "bad path" in one_error_line(p)


def test_get_indent(files: dict[str, Path]) -> None:
    p = run("get", str(files["rov"]), "[0].address", "--indent", "2")
    assert p.returncode == 0
    assert b"\n  " in p.stdout
    assert json.loads(p.stdout) == PEOPLE[0]["address"]


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("[7].name", ["out of range"]),
        ("[0].nope", ["no key", "nope"]),
        ("[0].name.first", ["not a map"]),
        ("name", ["not a map"]),
        ("[0][1]", ["not an array"]),
    ],
)
def test_get_path_not_found(files: dict[str, Path], path: str, words: list[str]) -> None:
    p = run("get", str(files["rov"]), path)
    line = one_error_line(p)
    assert p.returncode == 1
    assert "path not found" in line
    for w in words:
        assert w in line, line


@pytest.mark.parametrize(
    # "[²]": a digit to str.isdigit, not to int(): it was an internal error.
    "path",
    # An index past 2**64 - 1 is a bad path, as the core's get_path says
    # ("index too large"); the CLI said "path not found".
    [
        "[abc]",
        "[1",
        '["unterminated',
        "[0]..x",
        "[0]x",
        "[²]",
        "[-0]",
        "[-00]",
        "[18446744073709551616]",
        "[-18446744073709551616]",
    ],
)
def test_get_bad_path(files: dict[str, Path], path: str) -> None:
    p = run("get", str(files["rov"]), path)
    line = one_error_line(p)
    assert p.returncode == 2
    assert "bad path" in line


def test_get_path_that_is_not_utf8_is_a_bad_path(files: dict[str, Path]) -> None:
    # A path argument with bytes that are not UTF-8 said only "'utf-8' codec
    # can't encode character '\\udcff' in position 2: surrogates not allowed".
    p = subprocess.run(
        [sys.executable, "-m", "roving", "get", str(files["rov"]), b"$[0].\xff"],
        capture_output=True,
        check=False,
    )
    assert p.returncode == 2
    assert one_error_line(p) == "roving get: error: bad path: '$[0].\\udcff' is not UTF-8 text"


def test_get_missing_and_damaged(files: dict[str, Path]) -> None:
    p = run("get", str(files["dir"] / "missing.rov"), "[0]")
    assert "no such file" in one_error_line(p)
    bad = files["dir"] / "bad.rov"
    data = bytearray(files["rov"].read_bytes())
    data[-1] ^= 0xFF
    bad.write_bytes(bytes(data))
    p = run("get", str(bad), "[0]")
    line = one_error_line(p)
    assert p.returncode == 1
    assert "damaged roving file" in line


# ---------------------------------------------------------------------------
# dump


def test_dump_typed_view(files: dict[str, Path]) -> None:
    p = run("dump", str(files["rov"]))
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    lines = out.splitlines()
    assert lines[0] == "array[3]"
    assert "  [0]: map{7}" in lines
    assert '    name: str "Alice"' in lines
    assert "    age: int 30" in lines
    assert "    score: float 1.5" in lines
    assert "    active: bool true" in lines
    assert "    nick: null" in lines
    assert "    tags: array[2]" in lines
    assert '      [0]: str "a"' in lines
    assert "    tags: array[0]" in lines
    assert "    address: map{0}" in lines
    assert "    age: int 12345678901234" in lines
    assert '    name: str "Chloé é中"' in lines


def test_dump_limits_and_offsets(files: dict[str, Path]) -> None:
    p = run("dump", str(files["rov"]), "--max-items", "1")
    assert p.returncode == 0
    out = p.stdout.decode()
    assert "… 2 more" in out
    assert "Bob" not in out
    p = run("dump", str(files["rov"]), "--depth", "1")
    out = p.stdout.decode()
    assert "  [0]: map{7}" in out and "Alice" not in out
    p = run("dump", str(files["rov"]), "--offsets")
    assert "@" in p.stdout.decode()


def test_dump_negative_limits_are_usage_errors(files: dict[str, Path]) -> None:
    for opt in ("--max-items", "--depth"):
        p = run("dump", str(files["rov"]), opt, "-1")
        line = one_error_line(p)
        assert p.returncode == 2
        assert opt in line and "0 or more" in line, line
        assert p.stdout == b""
    p = run("dump", str(files["rov"]), "--max-items", "0", "--depth", "0")
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().splitlines() == ["array[3]", "  …"]


def test_dump_json(files: dict[str, Path]) -> None:
    p = run("dump", "--json", str(files["rov"]))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == PEOPLE


def test_dump_shared_values_printed_once(tmp_path: Path) -> None:
    import roving

    shared = {"x": [1, 2, 3]}
    data = roving.dumps([shared, shared])
    f = tmp_path / "shared.rov"
    f.write_bytes(data)
    p = run("dump", str(f))
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    if out.count("map{1}") == 1:  # the encoder shared the map
        assert "shared, shown above" in out
    assert json.loads(run("dump", "--json", str(f)).stdout) == [shared, shared]


def test_dump_rich_types(tmp_path: Path) -> None:
    import array
    import datetime as dt
    import decimal
    import uuid

    import roving

    obj = {
        "big": 2**100,
        "neg": -(2**70),
        "u64": 2**63 + 5,
        "ts": dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        "day": dt.date(2024, 1, 2),
        "id": uuid.UUID(int=5),
        "price": decimal.Decimal("1.25"),
        "raw": b"\x00\x01abc",
        "vec": array.array("d", [0.5, 1.5]),
        "nan": float("nan"),
        "clock": dt.time(1, 2, 3, 4, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)), fold=1),
        "naive": dt.datetime(2024, 5, 6, 7, 8, 9),
        "utc": dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.UTC),
        "west": dt.datetime(
            2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone(-dt.timedelta(hours=3, seconds=5))
        ),
        "span": dt.timedelta(days=-1, seconds=5, microseconds=6),
    }
    f = tmp_path / "types.rov"
    f.write_bytes(roving.dumps(obj))
    p = run("dump", str(f))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    assert lines[0] == "map{15}"
    for want in [
        "  big: int 1267650600228229401496703205376",
        "  neg: int -1180591620717411303424",
        "  u64: int 9223372036854775813",
        "  ts: timestamp 2024-05-06T07:08:09.123456+02:00",
        "  day: date 2024-01-02",
        "  id: uuid 00000000-0000-0000-0000-000000000005",
        "  price: decimal 1.25",
        "  raw: bytes[5] 0001616263",
        "  vec: vector<f64>[2] [0.5, 1.5]",
        "  nan: float NaN",
        "  clock: time 01:02:03.000004+05:30 fold=1",
        # A naive datetime has no offset, and none is shown (not `Z`, UTC).
        "  naive: timestamp 2024-05-06T07:08:09",
        "  utc: timestamp 2024-05-06T07:08:09Z",
        "  west: timestamp 2024-05-06T07:08:09-03:00:05",
        "  span: timedelta -1 day, 0:00:05.000006",
    ]:
        assert want in lines, (want, lines)
    # get and convert write them as JSON text, as to_json does.
    assert run("get", str(f), "span").stdout.strip() == b'"-PT86394.999994S"'
    assert run("get", str(f), "clock").stdout.strip() == b'"01:02:03.000004+05:30"'
    assert run("get", str(f), "naive").stdout.strip() == b'"2024-05-06T07:08:09"'
    assert run("get", str(f), "utc").stdout.strip() == b'"2024-05-06T07:08:09Z"'
    st = json.loads(run("stats", "--json", str(f)).stdout)
    assert st["header"] + sum(s["bytes"] for s in st["sections"].values()) == f.stat().st_size


def test_dump_and_stats_of_a_shaped_vector(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    f = tmp_path / "m.rov"
    f.write_bytes(roving.dumps({"m": np.arange(6, dtype="<u2").reshape(2, 3)}))
    p = run("dump", str(f))
    assert p.returncode == 0, p.stderr
    assert "  m: shaped vector<u16>[2x3] [0, 1, 2, 3, 4, 5]" in p.stdout.decode().splitlines()
    assert json.loads(run("get", str(f), "m").stdout) == [[0, 1, 2], [3, 4, 5]]
    st = json.loads(run("stats", "--json", str(f)).stdout)
    assert st["header"] + sum(s["bytes"] for s in st["sections"].values()) == f.stat().st_size


def test_dump_integer_too_long_for_decimal_text(tmp_path: Path) -> None:
    # Python refuses str() of an int over 4300 digits; dump must not fail on
    # one. (JSON text cannot carry one: from_json stops at 4300 digits too.)
    big = tmp_path / "big.rv"
    big.write_bytes(roving.dumps([10**5000 - 1, -(7 * (10**20000 - 1) // 9), 5]))
    p = run("dump", str(big))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    assert lines[0] == "array[3]"
    assert lines[1].startswith("  [0]: int ") and "digits" in lines[1], lines[1]
    assert lines[2].startswith("  [1]: int -") and "digits" in lines[2], lines[2]
    assert lines[3] == "  [2]: int 5"
    assert len(p.stdout) < 2000
    # As JSON text, such an integer is a one-line error.
    big_json = tmp_path / "big.json"
    big_json.write_text("[" + "9" * 5000 + "]")
    p = run("dump", str(big_json))
    assert p.returncode == 1 and b"4300" in p.stderr and p.stderr.count(b"\n") == 1, p.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes on Linux")
def test_text_output_on_a_strict_or_narrow_stdout(files: dict[str, Path]) -> None:
    # A file name that is not UTF-8 comes back as its own bytes, as `ls`
    # prints it, even where Python's stdout is strict (a UTF-8 locale other
    # than C.UTF-8); characters the stdout encoding lacks are escaped.
    odd = files["dir"] / os.fsdecode(b"odd\xff.rov")
    odd.write_bytes(files["rov"].read_bytes())
    strict = {"PYTHONIOENCODING": "utf-8:strict"}
    p = run("validate", str(odd), env_extra=strict)
    assert p.returncode == 0, p.stderr
    assert b"odd\xff.rov: ok" in p.stdout
    p = run("stats", str(odd), env_extra=strict)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(os.fsencode(str(odd)))
    p = run("dump", str(files["rov"]), env_extra={"PYTHONIOENCODING": "ascii"})
    assert p.returncode == 0, p.stderr
    assert b'name: str "Chlo\\xe9' in p.stdout


def test_dump_errors(files: dict[str, Path]) -> None:
    p = run("dump", str(files["dir"] / "missing.rov"))
    assert "no such file" in one_error_line(p)
    bad = files["dir"] / "bad.rov"
    bad.write_bytes(b"RV\x01garbage")
    p = run("dump", str(bad))
    assert "damaged roving file" in one_error_line(p)


# ---------------------------------------------------------------------------
# validate


def test_validate_ok(files: dict[str, Path]) -> None:
    p = run("validate", str(files["rov"]))
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "ok" in out and "array of 3" in out
    assert run("validate", "-q", str(files["rov"])).stdout == b""


def test_validate_truncated_gives_reason_and_offset(files: dict[str, Path]) -> None:
    data = files["rov"].read_bytes()
    bad = files["dir"] / "trunc.rov"
    bad.write_bytes(data[:-3])
    p = run("validate", str(bad))
    line = one_error_line(p)
    assert p.returncode == 1
    assert "trunc.rov" in line and "damaged roving file" in line
    assert "offset" in line, line


def test_validate_every_truncation_and_bit_flip_is_one_line(
    files: dict[str, Path],
) -> None:
    data = files["rov"].read_bytes()
    d = files["dir"]
    names = []
    for i in range(0, len(data), max(1, len(data) // 12)):
        f = d / f"cut{i}.rov"
        f.write_bytes(data[:i])
        names.append(str(f))
    for i in range(3, len(data), max(1, len(data) // 12)):
        b = bytearray(data)
        b[i] ^= 0x41
        f = d / f"flip{i}.rov"
        f.write_bytes(bytes(b))
        names.append(str(f))
    p = run("validate", "-q", *names)
    err = p.stderr.decode()
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    # Every file either validates (a flip can leave a valid document) or gets one line.
    assert p.returncode == (1 if lines else 0)
    for line in lines:
        assert line.startswith("roving validate: error: ")
        assert "offset" in line or "not a roving" in line, line


def test_validate_not_roving(files: dict[str, Path]) -> None:
    p = run("validate", str(files["json"]))
    line = one_error_line(p)
    assert p.returncode == 1
    assert "not a roving file" in line


def test_validate_missing_and_mixed(files: dict[str, Path]) -> None:
    p = run("validate", str(files["dir"] / "missing.rov"))
    assert "no such file" in one_error_line(p)
    p = run("validate", str(files["rov"]), str(files["dir"] / "missing.rov"))
    assert p.returncode == 1
    assert b"ok" in p.stdout
    assert p.stderr.decode().count("\n") == 1


def test_validate_stdin(files: dict[str, Path]) -> None:
    p = run("validate", "-", stdin=files["rov"].read_bytes())
    assert p.returncode == 0
    p = run("validate", "-", stdin=b"RV\x01")
    assert "<stdin>" in one_error_line(p)


# ---------------------------------------------------------------------------
# stats


def test_stats(files: dict[str, Path]) -> None:
    p = run("stats", str(files["rov"]))
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    for word in (
        "strings",
        "containers",
        "shapes",
        "numbers",
        "dedup",
        "map keys",
        "slots",
    ):
        assert word in out, out


def test_stats_json_accounts_for_every_byte(files: dict[str, Path]) -> None:
    p = run("stats", "--json", str(files["rov"]))
    assert p.returncode == 0, p.stderr
    st = json.loads(p.stdout)
    total = files["rov"].stat().st_size
    assert st["bytes"] == total
    assert st["header"] + sum(s["bytes"] for s in st["sections"].values()) == total
    assert sum(e["bytes"] for e in st["encodings"].values()) == total - st["header"]
    assert st["values"]["map"] == 6  # three people and their three addresses (one empty)
    assert st["values"]["array"] == 4  # the root and three tag lists (one empty)
    assert st["dedup"]["saved_bytes"] >= 0
    assert st["dedup"]["unreachable_records"] == 0


def test_stats_sees_dedup(tmp_path: Path) -> None:
    rows = [{"first": "x" * 40, "second": "same value everywhere", "n": i} for i in range(50)]
    src = tmp_path / "rows.json"
    src.write_text(json.dumps(rows))
    p = run("stats", "--json", str(src))  # a JSON file is converted in memory first
    assert p.returncode == 0, p.stderr
    st = json.loads(p.stdout)
    assert st["input"] == "json"
    d = st["dedup"]
    # One shape for 50 maps, and the repeated strings written once.
    assert d["shared_records"] >= 3
    assert d["saved_bytes"] > 49 * 40
    assert d["expanded_bytes"] == st["bytes"] + d["saved_bytes"]
    assert st["values"]["map"] == 50


def test_stats_errors(files: dict[str, Path]) -> None:
    p = run("stats", str(files["dir"] / "missing.rov"))
    assert "no such file" in one_error_line(p)
    bad = files["dir"] / "bad.rov"
    bad.write_bytes(files["rov"].read_bytes()[:-1])
    p = run("stats", str(bad))
    line = one_error_line(p)
    assert p.returncode == 1
    assert "damaged roving file" in line
    badjson = files["dir"] / "bad.json"
    badjson.write_text('{"a": [1, 2,, 3]}')
    p = run("stats", str(badjson))
    line = one_error_line(p)
    assert "line 1" in line and "column" in line


# ---------------------------------------------------------------------------
# bench (the run itself is in test_bench_smoke.py)


def test_bench_list() -> None:
    p = run("bench", "--list")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    for name in (
        "fleece",
        "repository",
        "archiver-20000-ints",
        "simpleobject",
        "contacts",
        "rust",
    ):
        assert name in out


def test_bench_unknown_experiment(tmp_path: Path) -> None:
    p = run("bench", "--only", "nope", "--out", str(tmp_path))
    line = one_error_line(p)
    assert p.returncode == 2
    assert "unknown experiment" in line


def test_bench_unwritable_out_fails_before_running(tmp_path: Path) -> None:
    # --out names a file: nothing can be written there. One line, at once,
    # before any experiment runs (not an internal error after all of them).
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    p = run("bench", "--quick", "--only", "contacts", "--no-chart", "--out", str(blocker / "out"))
    line = one_error_line(p)
    assert p.returncode == 1
    assert "internal error" not in line
    assert str(blocker / "out") in line
    assert p.stdout == b""


@pytest.mark.parametrize("n", ["0", "-3", "x"])
def test_bench_repeats_must_be_positive(tmp_path: Path, n: str) -> None:
    p = run("bench", "--quick", "--only", "contacts", "--repeats", n, "--out", str(tmp_path))
    line = one_error_line(p)
    assert p.returncode == 2
    assert "--repeats" in line
    assert p.stdout == b""


# ---------------------------------------------------------------------------
# options that would be ignored, stdin twice, JSON Lines, read-only outputs


def test_indent_without_json_output_is_a_usage_error(files: dict[str, Path]) -> None:
    out = files["dir"] / "out.rov"
    for args in [
        ["dump", str(files["rov"]), "--indent", "4"],
        ["convert", str(files["json"]), str(out), "--indent", "2"],
        ["convert", str(files["rov"]), "-", "--to", "roving", "--indent", "2"],
    ]:
        p = run(*args)
        line = one_error_line(p)
        assert p.returncode == 2, line
        assert "--indent" in line and "JSON" in line, line
        assert p.stdout == b""
    assert not out.exists()
    p = run("dump", str(files["rov"]), "--json", "--indent", "4")
    assert p.returncode == 0 and b'\n    {\n        "name"' in p.stdout


def test_validate_stdin_twice_is_a_usage_error(files: dict[str, Path]) -> None:
    data = files["rov"].read_bytes()
    p = run("validate", "-", "-", stdin=data)
    line = one_error_line(p)
    assert p.returncode == 2 and "'-'" in line and "once" in line, line
    p = run("validate", "-", str(files["rov"]), stdin=data)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().count(": ok") == 2


def test_json_lines_are_an_array_of_documents(files: dict[str, Path]) -> None:
    d = files["dir"]
    jl = d / "people.jsonl"
    jl.write_text(
        "\n".join(json.dumps(x, ensure_ascii=False) for x in PEOPLE) + "\n\n", encoding="utf-8"
    )
    rov = d / "people-from-lines.rov"
    p = run("convert", str(jl), str(rov))
    assert p.returncode == 0, p.stderr
    assert rov.read_bytes() == files["rov"].read_bytes()
    # And back, one document per line.
    back = d / "back.jsonl"
    p = run("convert", str(rov), str(back))
    assert p.returncode == 0, p.stderr
    lines = back.read_text(encoding="utf-8").splitlines()
    assert [json.loads(x) for x in lines] == PEOPLE
    p = run("get", str(jl), "[1].name")
    assert p.returncode == 0 and p.stdout == b'"Bob"\n', p.stderr
    # A bad line is named; a line holding two values is not taken for two.
    for text, where in [('{"a": 1}\n{"a": \n', "line 2"), ("1\n2, 3\n", "line 2")]:
        jl.write_text(text, encoding="utf-8")
        p = run("convert", str(jl), str(rov))
        line = one_error_line(p)
        assert p.returncode == 1 and where in line and "people.jsonl" in line, line
    # Only an array can be written as JSON Lines, and not indented.
    one = d / "one.rov"
    assert run("convert", "-", str(one), "--from", "json", stdin=b'{"a": 1}').returncode == 0
    line = one_error_line(run("convert", str(one), str(back)))
    assert "JSON Lines" in line and "array" in line, line
    p = run("convert", str(files["rov"]), str(back), "--indent", "2")
    assert p.returncode == 2 and "JSON Lines" in one_error_line(p)


def _convert_as_user(argv: list[str]) -> int:
    """Runs the CLI in a forked child, as user nobody when run as root
    (root may write any file); returns its exit status. The same command
    runs first in this process, writing elsewhere, so that every module it
    imports is loaded: nobody may not be able to read Python's library."""
    from roving.cli import main

    with tempfile.TemporaryDirectory() as warm:
        assert main([*argv[:-1], os.path.join(warm, os.path.basename(argv[-1]))]) == 0
    return run_as_nobody(lambda: main(argv))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_read_only_output_is_not_replaced(capfd: pytest.CaptureFixture[str]) -> None:
    # As cp, sort -o and a shell's > do: a file the user may not write is
    # an error, even where the directory would allow replacing it. (A
    # directory under /tmp: nobody may not enter pytest's tmp_path.)
    with tempfile.TemporaryDirectory() as name:
        d = Path(name)
        os.chmod(d, 0o777)
        src = d / "in.json"
        src.write_text('{"a": 1}')
        out = d / "out.rov"
        out.write_bytes(b"keep me")
        os.chmod(out, 0o444)
        assert _convert_as_user(["convert", str(src), str(out)]) == 1
        err = capfd.readouterr().err
        assert "out.rov" in err and "permission denied" in err, err
        assert out.read_bytes() == b"keep me"
        assert sorted(x.name for x in d.iterdir()) == ["in.json", "out.rov"]
        # A writable output is still replaced.
        os.chmod(out, 0o666)
        assert _convert_as_user(["convert", str(src), str(out)]) == 0
        assert out.read_bytes()[:2] == b"RV"


def test_stats_counts_shared_records_in_words(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps(["a long string stored once", "a long string stored once"]))
    two = tmp_path / "two.json"
    two.write_text(
        json.dumps(["first long string", "first long string", "second string", "second string"])
    )
    out_one = run("stats", str(one))
    out_two = run("stats", str(two))
    assert out_one.returncode == 0 and out_two.returncode == 0, out_one.stderr + out_two.stderr
    assert b"dedup: 1 record is shared;" in out_one.stdout, out_one.stdout
    assert b"dedup: 2 records are shared;" in out_two.stdout, out_two.stdout


def test_get_index_limits_as_the_core(files: dict[str, Path]) -> None:
    # The largest index the core takes is still an index (not found here).
    p = run("get", str(files["rov"]), "[18446744073709551615]")
    assert p.returncode == 1 and "path not found" in one_error_line(p)
    p = run("get", str(files["rov"]), "[99999999999999999999]")
    assert p.returncode == 2 and "index too large" in one_error_line(p)


class _ShortWrites(io.RawIOBase):
    """A raw stdout (what ``python -u`` gives ``sys.stdout.buffer``) that
    takes at most 1000 bytes per write, as a pipe does when a signal
    interrupts the write or its reader goes away."""

    def __init__(self) -> None:
        self.got = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        n = min(len(b), 1000)
        self.got += bytes(b)[:n]
        return n


@pytest.mark.parametrize(
    "args",
    [["get", "{rov}", "$"], ["convert", "{rov}", "-"], ["dump", "--json", "{rov}"]],
)
def test_json_output_is_written_whole_through_short_writes(
    files: dict[str, Path], args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under PYTHONUNBUFFERED=1 (common in containers) the JSON went to the
    # raw stdout in one write() whose count was not checked: a short write
    # lost the rest silently, with exit status 0 (141 expected when the
    # reader of a pipe had gone away).
    from roving import cli

    roving.dump([{"n": i, "s": "x" * 50} for i in range(2000)], files["rov"])
    raw = _ShortWrites()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, write_through=True))
    assert cli.main([a.format(rov=files["rov"]) for a in args]) == 0
    expected = run(*[a.format(rov=files["rov"]) for a in args]).stdout
    assert len(expected) > 100_000 and bytes(raw.got) == expected


class _FullAfter(_ShortWrites):
    """A raw non-blocking stdout that takes 1000 bytes and then is full
    (``write`` returns None) or, with ``zero``, says it wrote 0 bytes."""

    def __init__(self, zero: bool = False) -> None:
        super().__init__()
        self.zero = zero

    def write(self, b: Any) -> int | None:  # type: ignore[override]
        if self.got:
            return 0 if self.zero else None
        return super().write(b)


@pytest.mark.parametrize("zero", [False, True])
def test_a_stdout_that_takes_no_more_is_an_error_not_a_cut_output(
    files: dict[str, Path], zero: bool, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from roving import cli

    roving.dump([{"n": i, "s": "x" * 50} for i in range(2000)], files["rov"])
    raw = _FullAfter(zero)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, write_through=True))
    assert cli.main(["get", str(files["rov"]), "$"]) == 1
    assert len(raw.got) == 1000
    err = capsys.readouterr().err
    want = "wrote 0 of" if zero else "bytes left unwritten)"
    assert err.startswith("roving get: error: stdout: cannot write") and want in err, err


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
@pytest.mark.parametrize("how", ["proc", "long name"])
def test_convert_refuses_to_truncate_a_file_this_process_maps(tmp_path: Path, how: str) -> None:
    # The CLI writes through the package's writer, and so has its guard:
    # where the output can only be written in place (a path under /proc/,
    # a name too long for a temporary file beside it), a file that a
    # roving.open() Doc of this process maps is refused (EBUSY), not
    # truncated, which would kill the process (SIGBUS) at the Doc's next
    # read. In a child process: a SIGBUS would take pytest with it.
    out = tmp_path / ("m" * 250 if how == "long name" else "mapped.rov")
    src = tmp_path / "in.json"
    src.write_text("[1, 2, 3]")
    code = f"""
import os, roving
from roving.cli import main
p = {str(out)!r}
roving.dump(list(range(20_000)), p)
doc = roving.open(p)
target = p if {how!r} == "long name" else f"/proc/self/fd/{{os.open(p, os.O_RDONLY)}}"
status = main(["convert", {str(src)!r}, target, "--to", "roving"])
assert doc.root[19_999] == 19_999 and roving.load(p)[19_999] == 19_999
print(status)
"""
    env = dict(os.environ, ROVING_NO_PROGRESS="1")
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert r.returncode == 0 and r.stdout.strip() == "1", (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("roving convert: error: ") and "maps the file" in lines[0], lines[0]
    assert "SIGBUS" in lines[0] and "Traceback" not in r.stderr
