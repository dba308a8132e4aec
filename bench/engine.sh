#!/usr/bin/env bash
# Benchmark the engine's overhead per step (a synthetic flow of 10,000 no-op steps) and the transform
# tree's throughput (a ~1 MB JSON configuration through an 8-level tree).
#
#   bash bench/engine.sh                                  # build, then run with the defaults
#   bash bench/engine.sh --steps 20000 --runs 7           # arguments go to the benchmark binary
#   ENGINE_BENCH=path/to/flowrun-engine-bench bash bench/engine.sh   # skip the build
#
# Exits 0 with a report whether or not the goal is met; non-zero only if something broke.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

if [[ -n "${ENGINE_BENCH:-}" ]]; then
    bench="$ENGINE_BENCH"
    build_note="supplied with ENGINE_BENCH= (not built by this script)"
else
    command -v swift >/dev/null || { echo "bench: swift not found" >&2; exit 2; }
    # The benchmark is a package of its own (bench/engine), so that `swift test` never builds it.
    echo "bench: building flowrun-engine-bench (release, --static-swift-stdlib)..." >&2
    (cd "$here/engine" && swift build -c release --static-swift-stdlib --scratch-path "$root/.build-bench" --product flowrun-engine-bench) >&2
    bench="$root/.build-bench/release/flowrun-engine-bench"
    build_note="release build (-c release), linked with --static-swift-stdlib"
fi
[[ -x "$bench" ]] || { echo "bench: $bench is not an executable" >&2; exit 2; }
# Say how the Swift runtime is linked, as the binary shows it.
if [[ "$(head -c 4 "$bench" | od -An -c | tr -d ' ')" == '177ELF' ]] && command -v ldd >/dev/null; then
    if ldd "$bench" 2>/dev/null | grep -q 'libswiftCore'; then
        build_note="$build_note; ldd: Swift runtime linked dynamically"
    else
        build_note="$build_note; ldd: no dynamic Swift runtime (static)"
    fi
fi

"$bench" --build-note "$build_note" "$@"
