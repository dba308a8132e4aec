#!/usr/bin/env bash
# CPU a run of the shipped scenarios costs (`flowrun test flows/scenarios`, user + system seconds of flowrun and
# every `flowrun run` it starts), with the runs' stores at the test-only key cost (the default, decision 64) and at
# the real one (`--standard-store-keys`). CPU seconds, not wall time: the machine's load moves them far less.
#
#   bash bench/scenarios-cpu.sh                          # builds the static release binary first
#   FLOWRUN=path/to/flowrun bash bench/scenarios-cpu.sh  # a built binary (with the emulator)
#   RUNS=3 bash bench/scenarios-cpu.sh                   # the median of three runs each (default 1)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/release-flowrun.sh"
release_flowrun "$root"
runs=${RUNS:-1}

work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-scenarios-cpu.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The median CPU seconds of `runs` runs of `flowrun test` with the arguments given.
cpu() {
    local run
    for ((run = 0; run < runs; run++)); do
        /usr/bin/time -f "%U %S" -o "$work/time" "$flowrun" test "$root/flows/scenarios" --jobs 2 "$@" \
            > "$work/out" 2>&1 || { cat "$work/out" >&2; echo "bench: the scenarios failed" >&2; exit 1; }
        awk '{ printf "%.2f\n", $1 + $2 }' "$work/time"
    done | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
count=$(find "$root/flows/scenarios" -name '*.scenario.yaml' | wc -l)
test_only=$(cpu)
standard=$(cpu --standard-store-keys)
echo "flowrun test flows/scenarios ($count scenarios, --jobs 2), CPU seconds (user + system), median of $runs:"
echo "  test-only store keys (default)   $test_only"
echo "  --standard-store-keys            $standard"
awk -v a="$test_only" -v b="$standard" 'BEGIN { printf "  test-only / standard             %.2f\n", a / b }'
