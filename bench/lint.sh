#!/usr/bin/env bash
# Benchmark `flowrun lint` against a bare libyaml event loop (the floor) on generated flow files.
#
#   bash bench/lint.sh            # 2000 files
#   N=500 bash bench/lint.sh      # or: bash bench/lint.sh 500
#   FLOWRUN=path/to/flowrun bash bench/lint.sh   # skip the build
#
# Exits 0 with a report whether or not the goals are met; non-zero only if something broke.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
n="${1:-${N:-2000}}"
case "$n" in '' | *[!0-9]* | 0) echo "bench: N must be a positive integer, got '$n'" >&2; exit 2 ;; esac

for tool in python3 cc pkg-config; do
    command -v "$tool" >/dev/null || { echo "bench: $tool not found" >&2; exit 2; }
done
pkg-config --exists yaml-0.1 || { echo "bench: libyaml (pkg-config yaml-0.1) not found; apt-get install libyaml-dev" >&2; exit 2; }

source "$here/release-flowrun.sh"
release_flowrun "$root"
if [[ $built_here == 1 ]]; then
    build_note="release build (-c release), linked with --static-swift-stdlib"
else
    build_note="supplied with FLOWRUN= (not built by this script)"
fi
"$flowrun" lint --help >/dev/null 2>&1 || { echo "bench: '$flowrun lint --help' failed: no lint command?" >&2; exit 2; }
# Say how the Swift runtime is linked, as the binary shows it.
if [[ "$(head -c 4 "$flowrun" | od -An -c | tr -d ' ')" == '177ELF' ]] && command -v ldd >/dev/null; then
    if ldd "$flowrun" 2>/dev/null | grep -q 'libswiftCore'; then
        build_note="$build_note; ldd: Swift runtime linked dynamically"
    else
        build_note="$build_note; ldd: no dynamic Swift runtime (static)"
    fi
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "bench: generating $n flow files..." >&2
python3 "$here/gen_flows.py" "$work/flows" "$n" >&2

echo "bench: compiling the libyaml floor..." >&2
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into flags
cc -O2 -o "$work/yaml_floor" "$here/yaml_floor.c" $(pkg-config --cflags --libs yaml-0.1)

echo "bench: measuring..." >&2
python3 "$here/measure.py" --flowrun "$flowrun" --floor "$work/yaml_floor" --dir "$work/flows" --work "$work" \
    --build-note "$build_note"
