#!/usr/bin/env bash
# Time and memory of lint, run --dry-run and graph on hostile inputs near the reader's size limit (see
# bench/hostile.py). Prints a table, then the cases over 2 s or 300 MB (or that hang); exits 1 if there are any.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/release-flowrun.sh"
release_flowrun "$root"
work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-hostile.XXXXXX")"
trap 'rm -rf "$work"' EXIT
python3 "$here/hostile.py" "$flowrun" "$work"
