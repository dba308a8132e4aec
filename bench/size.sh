#!/usr/bin/env bash
# Size of the release executable: as built, without debug information, stripped as .ci/install.sh ships it
# (decision 51), and that compressed with gzip (what a download or a CI cache moves). Checks that the stripped
# binary still runs: its version, and a lint of the shipped flows. Prints the figures.
#
#   bash bench/size.sh                          # builds the static release binary first
#   EMULATOR=0 bash bench/size.sh               # the binary .ci/install.sh ships: without the emulator
#   FLOWRUN=path/to/flowrun bash bench/size.sh  # an unstripped release binary: skip the build
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

source "$here/release-flowrun.sh"
release_flowrun "$root"
strip=$(command -v strip || command -v llvm-strip)

work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-size.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$strip" --strip-debug -o "$work/flowrun-nodebug" "$flowrun"
"$strip" --strip-all -o "$work/flowrun" "$flowrun"
gzip -6 -c "$work/flowrun" > "$work/flowrun.gz"

"$work/flowrun" --version >/dev/null
"$work/flowrun" lint --strict "$root/flows" >/dev/null

size() { stat -c %s "$1"; }
row() {
    awk -v name="$1" -v bytes="$2" 'BEGIN { printf "  %-46s %11d bytes %7.1f MB\n", name, bytes, bytes / 1e6 }'
}
echo "release executable $flowrun"
row "as built" "$(size "$flowrun")"
row "strip --strip-debug" "$(size "$work/flowrun-nodebug")"
row "strip --strip-all (installed: .ci/install.sh)" "$(size "$work/flowrun")"
row "stripped, gzip -6" "$(size "$work/flowrun.gz")"
awk -v stripped="$(size "$work/flowrun")" -v built="$(size "$flowrun")" 'BEGIN {
    printf "  stripped / as built: %.2f; the stripped binary runs (--version, lint --strict flows)\n", stripped / built }'
