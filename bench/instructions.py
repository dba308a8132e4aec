#!/usr/bin/env python3
"""Count instructions of `flowrun lint` and of the libyaml floor with callgrind; compare one file with actionlint.

Called by bench/lint-instructions.sh; standard library only.
Usage: python3 bench/instructions.py --flowrun BIN --floor BIN --dir DIR --work DIR [--actionlint BIN] [--runs N]

Instruction counts do not depend on the machine's load, so they compare runs made at different moments.
Exit 0 with a report (goal met or missed); exit 2 if a run failed or the corpus does not lint clean.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import Broken, mark, require_clean  # noqa: E402

RATIO_GOAL = 0.5

# A GitHub Actions workflow of about the size of a generated flow file (2.5–3 KB), that actionlint passes.
WORKFLOW = """\
name: CI
on:
  push:
    branches: [main]
  pull_request:
    branches: [main]
  workflow_dispatch:
    inputs:
      strict:
        description: Fail on warnings too
        type: boolean
        default: true
permissions:
  contents: read
concurrency:
  group: ci-${{ github.ref }}
  cancel-in-progress: true
env:
  SWIFT_VERSION: "6.3"
  FLOWRUN_STATE: ${{ github.workspace }}/.state
jobs:
  lint:
    name: Lint flow files
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
      - uses: actions/checkout@v5
      - name: Install libyaml
        run: sudo apt-get install -y libyaml-dev pkg-config
      - name: Build
        run: swift build -c release --product flowrun
      - name: Lint
        run: .build/release/flowrun lint --format github --strict flows
  test:
    name: Test (${{ matrix.os }})
    needs: lint
    strategy:
      fail-fast: false
      matrix:
        os: [ubuntu-22.04, ubuntu-24.04]
        configuration: [debug, release]
    runs-on: ${{ matrix.os }}
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v5
      - uses: actions/cache@v5
        with:
          path: .build
          key: build-${{ matrix.os }}-${{ matrix.configuration }}-${{ hashFiles('Package.resolved') }}
          restore-keys: |
            build-${{ matrix.os }}-${{ matrix.configuration }}-
      - name: Install system packages
        run: sudo apt-get install -y libyaml-dev libsqlite3-dev pkg-config
      - name: Build and test
        run: swift test -c ${{ matrix.configuration }} --parallel
      - name: Keep the test results
        if: failure()
        uses: actions/upload-artifact@v6
        with:
          name: results-${{ matrix.os }}-${{ matrix.configuration }}
          path: .build/test-results
          retention-days: 7
  bench:
    name: Benchmarks
    needs: test
    if: github.event_name == 'push'
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v5
      - name: Install tools
        run: sudo apt-get install -y libyaml-dev pkg-config valgrind
      - name: Lint benchmark
        run: bash bench/lint.sh 500
      - name: Instructions
        run: bash bench/lint-instructions.sh 200
  docs:
    name: Generated documents are current
    runs-on: ubuntu-latest
    timeout-minutes: 20
    steps:
      - uses: actions/checkout@v5
      - name: Regenerate
        run: bash .ci/regen-docs.sh
      - name: Compare
        run: git diff --exit-code -- docs
      - name: Lines within 120 columns
        run: bash .ci/lines.sh
      - name: Decision records are numbered once
        run: ls docs/decisions | sort | uniq -d | (! grep .)
"""


def callgrind(cmd, work, label, stdin_path=None, ok_codes=(0,)):
    """Instructions executed by `cmd` (every thread), counted by callgrind."""
    out = os.path.join(work, f"callgrind.{label}")
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no"] + cmd,
            stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    finally:
        if stdin_path:
            stdin.close()
    if proc.returncode not in ok_codes:
        err = proc.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise Broken(f"callgrind of {' '.join(cmd[:3])}... exited {proc.returncode}"
                     + "".join("\n  " + e for e in err))
    total = None
    with open(out) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
    if total is None:
        raise Broken(f"no instruction total in {out}")
    return total


def wall_ms(cmd, cwd, ok_codes):
    start = time.perf_counter()
    code = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    elapsed = (time.perf_counter() - start) * 1000
    if code not in ok_codes:
        raise Broken(f"{' '.join(cmd[:3])}... exited {code}")
    return elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flowrun", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--actionlint")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()

    files = sorted(os.path.join(args.dir, name) for name in os.listdir(args.dir) if name.endswith(".yaml"))
    if not files:
        raise Broken(f"no .yaml files in {args.dir}")
    sizes = {path: os.path.getsize(path) for path in files}
    total_bytes = sum(sizes.values())
    require_clean(args.flowrun, args.dir)

    # valgrind cannot read the debug information of the release binary ("possibly corrupted"): count a copy
    # without it (the symbol table stays, so callgrind_annotate still names functions). Same code, same counts.
    counted = os.path.join(args.work, "flowrun-stripped")
    if subprocess.run(["strip", "--strip-debug", "-o", counted, args.flowrun]).returncode != 0:
        raise Broken("strip --strip-debug failed (binutils)")

    list_path = os.path.join(args.work, "files.txt")
    with open(list_path, "w") as f:
        f.write("\n".join(files) + "\n")
    floor = callgrind([args.floor, "-"], args.work, "floor", stdin_path=list_path)
    lint = callgrind([counted, "lint", args.dir], args.work, "lint")
    median_size = statistics.median(sizes.values())
    one = min(files, key=lambda p: (abs(sizes[p] - median_size), p))
    lint_one = callgrind([counted, "lint", one], args.work, "lint-one")

    n = len(files)
    floor_per, lint_per = floor / n, lint / n
    ratio = floor_per / lint_per
    print()
    print("flowrun lint, instructions (callgrind)")
    print(f"  binary:  {args.flowrun}")
    print(f"  corpus:  {n} files, {total_bytes} bytes ({total_bytes / n / 1000:.2f} KB/file avg), "
          "every file clean with `flowrun lint --strict`")
    print()
    print(f"  {'':<32} {'instructions':>14} {'per file':>12} {'per byte':>9}")
    print(f"  {'libyaml floor (cc -O2), all':<32} {floor:>14,} {floor_per:>12,.0f} {floor / total_bytes:>9.1f}")
    print(f"  {'flowrun lint DIR, all':<32} {lint:>14,} {lint_per:>12,.0f} {lint / total_bytes:>9.1f}")
    print(f"  {'flowrun lint ONE_FILE':<32} {lint_one:>14,}")
    print(f"    ({os.path.basename(one)}, {sizes[one]} bytes; start-up and the one file)")
    if n > 1:
        print(f"  {'lint, each file after the first':<32} {(lint - lint_one) / (n - 1):>14,.0f}"
              "   (DIR minus ONE_FILE, over N - 1: start-up left out)")
    print()
    print(f"  {'floor/lint per file (per core):':<32} {ratio:8.3f}   goal >= {RATIO_GOAL:g}   {mark(ratio >= RATIO_GOAL)}")

    if args.actionlint:
        workflow_dir = os.path.join(args.work, "actions")
        os.makedirs(os.path.join(workflow_dir, ".github", "workflows"), exist_ok=True)
        workflow = os.path.join(workflow_dir, ".github", "workflows", "ci.yaml")
        with open(workflow, "w") as f:
            f.write(WORKFLOW)
        # No shellcheck or pyflakes: both would be processes of their own, which flowrun lint does not start.
        action_cmd = [args.actionlint, "-shellcheck=", "-pyflakes=", workflow]
        lint_cmd = [args.flowrun, "lint", one]
        times = {"lint": [], "actionlint": []}
        for _ in range(3):  # warm the page cache
            wall_ms(lint_cmd, workflow_dir, {0})
            wall_ms(action_cmd, workflow_dir, {0})
        for _ in range(args.runs):  # interleaved, so that a busy moment hits both alike
            times["lint"].append(wall_ms(lint_cmd, workflow_dir, {0}))
            times["actionlint"].append(wall_ms(action_cmd, workflow_dir, {0}))
        lint_ms, action_ms = statistics.median(times["lint"]), statistics.median(times["actionlint"])
        pairs = statistics.median(a / b for a, b in zip(times["lint"], times["actionlint"]))
        print()
        print(f"  one file against actionlint ({len(WORKFLOW)}-byte workflow, -shellcheck= -pyflakes=), "
              f"{args.runs} runs each, interleaved")
        # (Wall time only: valgrind cannot run actionlint's Go runtime.)
        print(f"  {'(wall, ms)':<32} {'median':>10} {'min':>8}")
        print(f"  {'flowrun lint ONE_FILE':<32} {lint_ms:>10.1f} {min(times['lint']):>8.1f}")
        print(f"  {'actionlint ONE_WORKFLOW':<32} {action_ms:>10.1f} {min(times['actionlint']):>8.1f}")
        print(f"  {'lint/actionlint (median pair):':<32} {pairs:8.2f}   goal < 1   {mark(pairs < 1)}")
    print()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Broken as e:
        print(f"bench: FAILED: {e}", file=sys.stderr)
        sys.exit(2)
