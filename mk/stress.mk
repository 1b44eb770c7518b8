# The Rust suite under parallel load: what `make test-rust` runs, twice at once, STRESS_RUNS
# times; stops at the first failing run with its log, and closes with "N passed, N failed"
# (runs). Not part of `make test`: it takes STRESS_RUNS times a suite's time.
# `make test-stress STRESS_RUNS=3`.

STRESS_RUNS ?= 20

test-stress: setup-base ## test-rust's suite twice at once, STRESS_RUNS times (default 20); stops at the first failure with its log
	tests/stress.sh $(STRESS_RUNS) -- $(RUST_TEST)

.PHONY: test-stress
