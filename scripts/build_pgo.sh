#!/usr/bin/env bash
# Builds the Python extension into the venv with profile-guided
# optimization (what `make py-build` runs):
#   1. an instrumented build, which records how often each branch and call runs;
#   2. scripts/pgo_train.py, run on that build;
#   3. the release build, laid out and inlined by the merged profile.
# It needs an llvm-profdata of rustc's own LLVM version: rustup's llvm-tools
# component, else llvm-profdata-N from the system (Debian's llvm-N package).
# Without one it says so on one line and makes the plain release build.
# The extension's `_build` attribute says which build it is.
set -euo pipefail
SECONDS=0
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
MATURIN="$VENV/bin/maturin"
PY="$VENV/bin/python"
PGO=${PGO_DIR:-target/pgo}

plain() {
  echo "build_pgo: $1; building without a profile" >&2
  ROVING_BUILD=plain "$MATURIN" develop --release -q
  exit 0
}

llvm_major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
sysroot_tool="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata"
find_profdata() {
  if [ -x "$sysroot_tool" ]; then
    echo "$sysroot_tool"
  elif command -v "llvm-profdata-$llvm_major" >/dev/null; then
    command -v "llvm-profdata-$llvm_major"
  fi
}
profdata=$(find_profdata)
if [ -z "$profdata" ] && command -v rustup >/dev/null; then
  rustup component add llvm-tools >/dev/null 2>&1 || true
  profdata=$(find_profdata)
fi
if [ -z "$profdata" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  { apt-get install -y -q "llvm-$llvm_major" || { apt-get update -q && apt-get install -y -q "llvm-$llvm_major"; }; } \
    >/dev/null 2>&1 || true
  profdata=$(find_profdata)
fi
[ -n "$profdata" ] || plain "no llvm-profdata for LLVM $llvm_major (rustup's llvm-tools or llvm-$llvm_major)"

rm -rf "$PGO/raw" && mkdir -p "$PGO/raw"
raw=$(cd "$PGO/raw" && pwd)
# Each build has a target directory of its own, so that neither undoes the
# other. The instrumented build keeps the release profile's link-time
# optimization: built without it, its profile did not match the release
# build's functions (and changed nothing).
RUSTFLAGS="-Cprofile-generate=$raw" CARGO_TARGET_DIR=target/pgo-generate ROVING_BUILD=instrumented \
  "$MATURIN" develop --release -q
# Build scripts of the instrumented build write profiles too: only the
# training run's are kept.
rm -f "$raw"/*.profraw
"$PY" scripts/pgo_train.py
"$profdata" merge -o "$PGO/merged.profdata" "$raw"
RUSTFLAGS="-Cprofile-use=$(pwd)/$PGO/merged.profdata" CARGO_TARGET_DIR=target/pgo-use ROVING_BUILD=pgo \
  "$MATURIN" develop --release -q
echo "build_pgo: profile-guided build in ${SECONDS}s" >&2
