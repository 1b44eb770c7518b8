#!/usr/bin/env bash
# `make test-stress`: the Rust suite twice at once, RUNS times, to find tests that fail only
# under load (a stream read before its line is there, a timeout too short for a busy machine).
# Usage: tests/stress.sh RUNS -- COMMAND...   (COMMAND: what `make test-rust` runs)
# Builds the tests once first, so each run measures the tests, not the compiler. Stops at the
# first failing run and prints its log; ends with "N passed, N failed" (runs: a run passes
# when both of its suites pass).
set -euo pipefail

runs=${1:?usage: tests/stress.sh RUNS -- COMMAND...}
shift
[[ ${1:-} == -- ]] && shift
(($# > 0)) || { echo "usage: tests/stress.sh RUNS -- COMMAND..." >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "STRESS_RUNS must be a positive integer, not '$runs'" >&2; exit 2; }

logs=$(mktemp -d "${TMPDIR:-/tmp}/lro-stress.XXXXXX")
echo "stress: building the tests once"
"$@" --no-run >"$logs/build.log" 2>&1 || { cat "$logs/build.log"; echo "stress: the build failed"; exit 1; }

passed=0
failed=0
for ((run = 1; run <= runs; run++)); do
    started=$SECONDS
    "$@" >"$logs/run$run-a.log" 2>&1 &
    a=$!
    "$@" >"$logs/run$run-b.log" 2>&1 &
    b=$!
    status_a=0
    status_b=0
    wait "$a" || status_a=$?
    wait "$b" || status_b=$?
    if ((status_a == 0 && status_b == 0)); then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
    for side in a b; do
        status_var=status_$side
        if ((${!status_var} != 0)); then
            log="$logs/run$run-$side.log"
            echo "stress: run $run, suite $side failed (exit ${!status_var}); its log, $log:"
            # The failing tests' output, then the summary lines of every test binary.
            sed -n '/^failures:$/,/^test result:/p' "$log"
            grep -E '^(test result|error|     Running)' "$log" | grep -B1 -E 'FAILED|^error' || true
            echo "stress: full log in $log"
        fi
    done
    echo "stress: run $run of $runs: $((SECONDS - started)) s, $passed passed, $failed failed so far"
    ((failed == 0)) || break
done
echo "$passed passed, $failed failed"
((failed == 0))
