#!/usr/bin/env bash
# The encrypted store's costs: key derivation (scrypt N=2^17 r=8 p=1, PBKDF2-HMAC-SHA-256 600,000 iterations),
# creating, opening, reading and writing a store of a typical onboarding's size. Prints the figures.
#
#   bash bench/store.sh            # release build, best of 5
#   RUNS=9 bash bench/store.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
echo "bench: building flowrun-store-bench (release, --static-swift-stdlib)..." >&2
(cd "$here/engine" && swift build -c release --static-swift-stdlib --scratch-path "$root/.build-bench" --product flowrun-store-bench) >&2
"$root/.build-bench/release/flowrun-store-bench"
