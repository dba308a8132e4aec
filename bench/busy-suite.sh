#!/usr/bin/env bash
# The test suite several times in a row while busy loops share the cores: a test that races the wall clock
# fails here. Prints one line per run.
#
#   bash bench/busy-suite.sh            # 5 runs, 6 busy loops
#   RUNS=10 LOOPS=8 bash bench/busy-suite.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${RUNS:-5}"
loops="${LOOPS:-6}"
swift build --build-tests -Xcc -O2 -Xcc -g0 -Xswiftc -gnone >/dev/null 2>&1 || { echo "busy-suite: the build failed" >&2; exit 2; }
pids=()
for _ in $(seq "$loops"); do sh -c 'while :; do :; done' & pids+=($!); done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
failed=0
for run in $(seq "$runs"); do
    start=$(date +%s)
    log=$(mktemp)
    swift test -Xcc -O2 -Xcc -g0 -Xswiftc -gnone >"$log" 2>&1
    status=$?
    [[ $status -eq 0 ]] || failed=$((failed + 1))
    echo "run $run: exit $status, $(( $(date +%s) - start )) s, $(grep -oE 'Test run with [0-9]+ tests.*' "$log" | tail -1)"
    [[ $status -eq 0 ]] && rm -f "$log" || echo "  log kept: $log"
done
echo "busy-suite: $((runs - failed)) of $runs runs passed with $loops busy loops"
[[ $failed -eq 0 ]]
