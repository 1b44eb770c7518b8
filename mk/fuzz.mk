# Coverage-guided fuzzing (cargo-fuzz, libFuzzer) of LRO's hand-written readers and writers.
# Not part of `make test`: each target runs for FUZZ_SECONDS (60 by default), and what the
# fuzzers once found is replayed by the normal test suites (fuzz/regressions). See
# fuzz/README.md. `make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS="shape_table json_canonical"`.

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

setup-fuzz: ## Install cargo-fuzz (crates.io) and a C++ compiler (libFuzzer) when missing
	@command -v c++ >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends g++; }
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked

fuzz: setup-fuzz ## Fuzz each target for FUZZ_SECONDS (default 60); prints executions and findings
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(FUZZ_TARGETS)

.PHONY: setup-fuzz fuzz
