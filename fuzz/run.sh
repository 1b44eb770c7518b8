#!/usr/bin/env bash
# Runs each fuzz target for FUZZ_SECONDS (default 60) and prints, per target, the inputs
# tried and what was found. `make fuzz` calls it; `fuzz/run.sh json_write shape_table` runs
# only the targets named.
#
# The repository's seeds (fuzz/corpus/TARGET) are read, never written: what a run learns
# goes to fuzz/target/corpus/TARGET, kept between runs on this machine. A crash is saved
# by libFuzzer under fuzz/artifacts/TARGET/; copy it to fuzz/regressions/TARGET/ once fixed,
# and the normal test suites replay it (see fuzz/README.md).
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
max_len=${FUZZ_MAX_LEN:-4096}
# cargo-fuzz asks for nightly flags (-Z sanitizer, coverage passes); this stable toolchain
# accepts them with RUSTC_BOOTSTRAP.
export RUSTC_BOOTSTRAP=1
fuzz=(cargo fuzz)

if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <("${fuzz[@]}" list --fuzz-dir fuzz)
fi
echo "building ${#targets[@]} fuzz targets (release, AddressSanitizer)..."
if [ $# -gt 0 ]; then
    for target in "${targets[@]}"; do "${fuzz[@]}" build --fuzz-dir fuzz "$target" || exit 1; done
else
    "${fuzz[@]}" build --fuzz-dir fuzz || exit 1
fi

mkdir -p fuzz/target/logs
summary=()
failed=0
for target in "${targets[@]}"; do
    work=fuzz/target/corpus/$target
    log=fuzz/target/logs/$target.log
    mkdir -p "$work" "fuzz/corpus/$target"
    echo "fuzzing $target for ${seconds}s..."
    "${fuzz[@]}" run --fuzz-dir fuzz "$target" "$work" "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" -max_len="$max_len" -timeout=20 -print_final_stats=1 \
        >"$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    coverage=$(grep -aoE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    entries=$(find "$work" -type f | wc -l)
    if [ "$status" -eq 0 ]; then
        result="no finding"
    else
        failed=1
        artifact=$(grep -aoE 'fuzz/artifacts/[^ ]+' "$log" | tail -1)
        result="FOUND: ${artifact:-see $log}"
    fi
    summary+=("$(printf '%-16s %12s %8s %6s %7s  %s' "$target" "${runs:-?}" "${rate:-?}" "${coverage:-?}" "$entries" "$result")")
done

printf '\n%-16s %12s %8s %6s %7s  %s\n' target executions exec/s cov corpus result
printf '%s\n' "${summary[@]}"
exit "$failed"
