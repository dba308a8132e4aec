#!/usr/bin/env bash
# Instructions a command costs from exec to exit, counted with callgrind (the machine's load does not move them):
# `lint` of one shipped flow (synchronous) and `run --dry-run` of the same flow (asynchronous: it starts
# Swift's concurrency runtime). The difference is what an asynchronous command pays to start and end.
#
#   bash bench/startup-instructions.sh                          # builds the static release binary first
#   FLOWRUN=path/to/flowrun bash bench/startup-instructions.sh  # use a built binary
#
# Needs valgrind. Prints the figures.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
command -v valgrind >/dev/null || { echo "bench: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
source "$here/release-flowrun.sh"
release_flowrun "$root"

work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-startup-instructions.XXXXXX")"
trap 'rm -rf "$work"' EXIT
flow="$root/flows/basic.yaml"
# valgrind cannot read the release binary's debug information ("possibly corrupted"): count a copy without it.
strip --strip-debug -o "$work/flowrun" "$flowrun"

# Total instructions of one run of the command, all threads together.
count() {
    local out="$work/callgrind.out"
    rm -f "$out"*
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$work/valgrind.err" || true
    python3 - "$out"* <<'PY'
import sys
total = 0
for path in sys.argv[1:]:
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("totals:") or line.startswith("summary:"):
            total += int(line.split()[1])
            break
print(total)
PY
}

lint=$(count "$work/flowrun" lint "$flow")
dry=$(count "$work/flowrun" run --dry-run "$flow")
python3 - "$flowrun" "$lint" "$dry" <<'PY'
import sys
binary, lint, dry = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print(f"instructions from exec to exit ({binary})")
print(f"  lint ONE_FILE (synchronous)            {lint:>14,}")
print(f"  run --dry-run ONE_FILE (asynchronous)  {dry:>14,}")
print(f"  difference                             {dry - lint:>14,}")
PY
