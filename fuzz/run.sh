#!/usr/bin/env bash
# Runs every cargo-fuzz target for N seconds: `fuzz/run.sh N [--smoke]`.
# --smoke: a short run on the committed seed corpus; skipped (exit 0) when
# the nightly toolchain is missing. cargo-fuzz is installed from crates.io.
set -euo pipefail
secs=${1:-60}
mode=${2:-}
cd "$(dirname "$0")"
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "fuzz: no nightly toolchain; skipped"
    exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked -q
fi
targets=$(cargo +nightly fuzz list)
# Build every target first, so that one that does not compile fails the
# run (the smoke run below filters the fuzzer's output and would hide it).
cargo +nightly fuzz build
# Targets write scratch files (store_open, a store per process) under
# TMPDIR: give them one of their own, removed at the end.
fuzz_tmp=$(mktemp -d)
trap 'rm -rf "$fuzz_tmp"' EXIT
export TMPDIR="$fuzz_tmp"
for t in $targets; do
    if [ "$mode" = "--smoke" ] && [ "$t" = linear_time ]; then
        # It judges inputs by time taken: a finding there needs a quiet
        # machine and a person to read it, so it runs in `make fuzz` only,
        # not in the smoke run that gates CI on a shared machine.
        echo "fuzz: $t skipped in smoke runs (timed; make fuzz runs it)"
        continue
    fi
    mkdir -p "corpus/$t"
    seeds="seeds/common"
    [ -d "seeds/$t" ] && seeds="$seeds seeds/$t"
    echo "fuzz: $t for ${secs}s"
    if [ "$mode" = "--smoke" ]; then
        # Do not grow the working corpus in smoke runs: use a scratch copy.
        scratch=$(mktemp -d)
        cargo +nightly fuzz run "$t" "$scratch" $seeds -- \
            -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 2>&1 \
            | grep -E "^(stat::number_of_executed_units|Done|==|SUMMARY|.*(panicked|ERROR))" || true
        rm -rf "$scratch"
        # A crash leaves an artifact: fail the run.
        if [ -n "$(find "artifacts/$t" -type f 2>/dev/null | head -1)" ]; then
            echo "fuzz: $t found a problem, see fuzz/artifacts/$t"
            exit 1
        fi
    else
        cargo +nightly fuzz run "$t" "corpus/$t" $seeds -- \
            -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    fi
done
