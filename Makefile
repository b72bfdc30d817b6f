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
        bench-py bench-rust fuzz fuzz-smoke clean redis

## test: every test and quality gate (CI runs this)
test: rust-checks rust-test py-test py-checks py-install fuzz-smoke

## bench: build, install the peers, run every experiment and the Rust benches
bench: py-build redis
	$(PY) -m pip install -q -r requirements-bench.txt
	$(PY) -m roving bench --rust --readme

rust-checks: py-setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --document-private-items -p roving -p roving-store

rust-test: redis
	cargo test -p roving -p roving-store

## redis: Debian's redis-server (and redis-cli), if missing: the Store tests
## on a Redis Cluster start one (3 masters, 3 replicas) on loopback ports
redis:
	@command -v redis-server >/dev/null && command -v redis-cli >/dev/null || { \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server; }

$(VENV)/.installed: requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

py-setup: $(VENV)/.installed

## py-build: the extension, profile-guided (scripts/build_pgo.sh trains it
## with scripts/pgo_train.py); `make py-build PGO=0` builds it plain
PGO ?= 1
py-build: py-setup
ifeq ($(PGO),0)
	ROVING_BUILD=plain $(VENV)/bin/maturin develop --release -q
else
	VENV=$(VENV) bash scripts/build_pgo.sh
endif

py-test: py-build redis
	$(PY) -m pytest -q tests/python

py-checks: py-build
	$(VENV)/bin/ruff check python tests/python scripts
	$(VENV)/bin/ruff format --check python tests/python scripts
	$(PY) -m mypy
	$(PY) -m mypy.stubtest roving._roving --allowlist tests/python/stubtest-allowlist.txt

## py-install: `pip install .` into a new venv, checked from outside the tree
py-install: py-setup
	PYTHON=$(PYTHON) bash scripts/check_pip_install.sh

bench-py: py-build redis
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
