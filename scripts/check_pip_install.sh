#!/usr/bin/env bash
# `pip install .` into a new virtual environment, as a user does from a
# fresh clone, then checks what it installed from outside the source tree:
# the extension imports and works, the stubs and py.typed are in the wheel,
# and the `roving` command runs. (`maturin develop`, which the other tests
# use, does not build a wheel, so it cannot show a packaging mistake.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check "$root"
cd "$tmp"
"$tmp/venv/bin/python" - "$root" <<'PY'
import pathlib
import sys

import roving

root = pathlib.Path(sys.argv[1]).resolve()
pkg = pathlib.Path(roving.__file__).resolve().parent
assert root not in pkg.parents, f"imported from the source tree: {pkg}"
for name in ("py.typed", "_roving.pyi", "cli/__init__.py", "_store.py"):
    assert (pkg / name).is_file(), f"{name} is missing from the installed package"
value = {"name": "Ada", "n": [1, 2**70, -1.5], "raw": b"\x00\x01"}
data = roving.dumps(value)
assert roving.loads(data) == value
assert roving.open(data).root["n"][1] == 2**70
assert roving.loads(roving.from_json(b'{"a": [1, "x"]}')) == {"a": [1, "x"]}
with roving.Store("s.rvs") as s:
    s["k"] = value
with roving.Store("s.rvs", readonly=True) as s:
    assert s["k"] == value
print(f"pip install: roving {roving.__version__} from {pkg}")
PY
"$tmp/venv/bin/roving" --version
echo '{"a": [1, 2]}' > "$tmp/x.json"
"$tmp/venv/bin/roving" convert "$tmp/x.json" "$tmp/x.rv"
test "$("$tmp/venv/bin/roving" get "$tmp/x.rv" 'a[1]')" = 2
