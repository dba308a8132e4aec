#!/usr/bin/env bash
# Crash safety: kills `flowrun` with SIGKILL at random moments (seeded) during onboarding, restore and change
# passcode, and checks that the next run onboards or restores every time. Prints its counts.
#
#   bash bench/crash.sh                       # 60 runs, seed 1, on the debug build
#   RUNS=12 SEED=7 bash bench/crash.sh
#   FLOWRUN=path/to/flowrun bash bench/crash.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ -z "${FLOWRUN:-}" ]]; then
    (cd "$root" && swift build --product flowrun >&2)
    FLOWRUN="$(cd "$root" && swift build --show-bin-path)/flowrun"
fi
exec python3 "$root/bench/crash.py" "$FLOWRUN" --runs "${RUNS:-60}" --seed "${SEED:-1}"
