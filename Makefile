# roving: `make test` (all tests and checks) and `make bench` (every seed
# experiment side by side), both from a fresh clone. Python tools live in
# .venv; Rust crates come from crates.io; LMDB is built by its crate.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(HOME)/.cargo/bin:$(PATH)
export CARGO_TERM_COLOR := never

.PHONY: test bench rust-checks rust-test py-setup py-build py-test py-checks py-install \
        bench-py bench-rust fuzz fuzz-smoke clean

## test: every test and quality gate (CI runs this)
test: rust-checks rust-test py-test py-checks py-install fuzz-smoke

## bench: build, install the peers, run every experiment and the Rust benches
bench: py-build
	$(PY) -m pip install -q -r requirements-bench.txt
	$(PY) -m roving bench --rust --readme

rust-checks: py-setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --document-private-items -p roving -p roving-store

rust-test:
	cargo test -p roving -p roving-store

$(VENV)/.installed: requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

py-setup: $(VENV)/.installed

py-build: py-setup
	$(VENV)/bin/maturin develop --release -q

py-test: py-build
	$(PY) -m pytest -q tests/python

py-checks: py-build
	$(VENV)/bin/ruff check python tests/python scripts
	$(VENV)/bin/ruff format --check python tests/python scripts
	$(PY) -m mypy
	$(PY) -m mypy.stubtest roving._roving --allowlist tests/python/stubtest-allowlist.txt

## py-install: `pip install .` into a new venv, checked from outside the tree
py-install: py-setup
	PYTHON=$(PYTHON) bash scripts/check_pip_install.sh

bench-py: py-build
	$(PY) -m pip install -q -r requirements-bench.txt
	$(PY) -m roving bench

bench-rust:
	cargo bench -p roving-bench
	$(PYTHON) scripts/bench_report.py

## fuzz: each cargo-fuzz target for FUZZ_SECONDS (default 60) on nightly
FUZZ_SECONDS ?= 60
fuzz:
	bash fuzz/run.sh $(FUZZ_SECONDS)

## fuzz-smoke: a few seconds per target on the committed corpus, if nightly is there
fuzz-smoke:
	bash fuzz/run.sh 5 --smoke

clean:
	cargo clean
	rm -rf $(VENV)
