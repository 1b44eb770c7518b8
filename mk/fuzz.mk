# Coverage-guided fuzzing (cargo-fuzz, libFuzzer) of LRO's hand-written readers and writers.
# Not part of `make test`: each target runs for FUZZ_SECONDS (60 by default), and what the
# fuzzers once found is replayed by the normal test suites (fuzz/regressions). See
# fuzz/README.md. `make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS="shape_table json_canonical"`.

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

setup-fuzz: ## Install cargo-fuzz (crates.io) and a C++ compiler (libFuzzer) when missing
	@command -v c++ >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends g++; }
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked

# The fuzz workspace's lock, made from the root's: cargo keeps the root's version of every
# package the fuzz build shares with it and resolves only what it adds (libFuzzer's crates).
fuzz-lock: ## Rewrite fuzz/Cargo.lock from the root Cargo.lock (after the root lock changes)
	cp Cargo.lock fuzz/Cargo.lock
	$(CARGO) metadata --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null
	$(MAKE) --no-print-directory check-locks

check-locks: ## Every package fuzz/Cargo.lock shares with Cargo.lock is at the same version
	@python3 -c 'import sys, tomllib; \
	  lock = lambda p: {(x["name"], x["version"]) for x in tomllib.load(open(p, "rb"))["package"]}; \
	  root, fuzz = lock("Cargo.lock"), lock("fuzz/Cargo.lock"); names = {n for n, _ in root}; \
	  bad = sorted(f"{n} {v}" for n, v in fuzz - root if n in names); \
	  print("fuzz/Cargo.lock has versions Cargo.lock does not (make fuzz-lock):", *bad, sep="\n  ") if bad else None; \
	  sys.exit(bool(bad))'

fuzz: setup-fuzz check-locks ## Fuzz each target for FUZZ_SECONDS (default 60); prints executions and findings
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(FUZZ_TARGETS)

.PHONY: setup-fuzz fuzz-lock check-locks fuzz
