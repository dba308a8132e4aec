#!/usr/bin/env python3
"""Time `flowrun lint` against the bare libyaml floor and print the report table.

Called by bench/lint.sh; standard library only.
Usage: python3 bench/measure.py --flowrun BIN --floor BIN --dir DIR --work DIR [--build-note TEXT]
Exit 0 with a report (goals met or missed); exit 2 if a run failed.
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

RUNS = 3
SINGLE_RUNS = 10
RATIO_GOAL = 0.5
SINGLE_GOAL_MS = 30.0


class Broken(Exception):
    pass


def timed(cmd, ok_codes, stdin_path=None, stdout_path=None):
    """Wall time of one run of `cmd`, in seconds; raises Broken on an exit code not in ok_codes."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    stdout = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
    finally:
        if stdin_path:
            stdin.close()
        if stdout_path:
            stdout.close()
    if proc.returncode not in ok_codes:
        err = proc.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise Broken(f"{' '.join(cmd[:3])}... exited {proc.returncode}" + ("".join("\n  " + e for e in err)))
    return elapsed, proc.returncode


def best_of(n, cmd, ok_codes, **kw):
    timed(cmd, ok_codes, **kw)  # warm-up: page cache, dynamic loader
    results = [timed(cmd, ok_codes, **kw) for _ in range(n)]
    return min(t for t, _ in results), [t for t, _ in results], results[-1][1]


def require_clean(flowrun, folder):
    """Raises Broken unless every file in `folder` lints clean with --strict.

    A valid corpus makes lint do its whole work on each file (a file with an error stops before the compile
    stage), and no time goes into printing findings.
    """
    strict = subprocess.run([flowrun, "lint", "--strict", folder], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if strict.returncode != 0:
        shown = strict.stdout.decode(errors="replace").strip().splitlines()[:8]
        raise Broken(f"the corpus does not lint clean with --strict (exit {strict.returncode}):"
                     + "".join("\n  " + line for line in shown))


def mark(ok):
    return "PASS" if ok else "MISS"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flowrun", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--build-note", default="")
    args = ap.parse_args()

    files = sorted(
        os.path.join(root, name)
        for root, _, names in os.walk(args.dir)
        for name in names
        if name.endswith(".yaml")
    )
    if not files:
        raise Broken(f"no .yaml files in {args.dir}")
    sizes = {path: os.path.getsize(path) for path in files}
    total_bytes = sum(sizes.values())
    mb = total_bytes / 1e6

    require_clean(args.flowrun, args.dir)

    # (a) the floor: paths on argv when they fit comfortably, else one per line on stdin.
    if sum(len(p) + 1 for p in files) < 100_000:
        floor_cmd, floor_kw = [args.floor] + files, {}
    else:
        list_path = os.path.join(args.work, "files.txt")
        with open(list_path, "w") as f:
            f.write("\n".join(files) + "\n")
        floor_cmd, floor_kw = [args.floor, "-"], {"stdin_path": list_path}
    floor_out = os.path.join(args.work, "floor.out")
    floor_best, floor_all, _ = best_of(RUNS, floor_cmd, {0}, stdout_path=floor_out, **floor_kw)
    floor_summary = open(floor_out).read().strip()

    # (b) flowrun lint DIR: the corpus is clean, so only exit 0 is a completed run.
    lint_out = os.path.join(args.work, "lint.out")
    lint_best, lint_all, lint_code = best_of(RUNS, [args.flowrun, "lint", args.dir], {0}, stdout_path=lint_out)
    with open(lint_out, "rb") as f:
        lint_text = f.read().decode(errors="replace").splitlines()
    lint_lines = len(lint_text)
    lint_last = next((line.strip() for line in reversed(lint_text) if line.strip()), "")

    # (c) flowrun lint ONE_FILE: the file whose size is nearest the median.
    median_size = statistics.median(sizes.values())
    one = min(files, key=lambda p: (abs(sizes[p] - median_size), p))
    _, single_all, single_code = best_of(SINGLE_RUNS, [args.flowrun, "lint", one], {0})
    single_best_ms = min(single_all) * 1000
    single_median_ms = statistics.median(single_all) * 1000

    lint_fps, lint_mbps = len(files) / lint_best, mb / lint_best
    floor_fps, floor_mbps = len(files) / floor_best, mb / floor_best
    ratio = lint_mbps / floor_mbps

    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass

    print()
    print("flowrun lint benchmark")
    print(f"  binary:  {args.flowrun}")
    if args.build_note:
        print(f"  build:   {args.build_note}")
    print(f"  machine: {os.cpu_count()} cores, {cpu or platform.machine()}")
    print(f"  corpus:  {len(files)} files, {mb:.2f} MB ({total_bytes} bytes, "
          f"{total_bytes / len(files) / 1000:.2f} KB/file avg), every file clean with `flowrun lint --strict`")
    print(f"  floor:   {floor_summary} (bare libyaml event loop, cc -O2)")
    print(f"  lint:    exit {lint_code} on the folder, {lint_lines} lines of output"
          + (f', last: "{lint_last[:80]}"' if lint_last else ""))
    print()
    print(f"  {'(best of %d, wall)' % RUNS:<22} {'seconds':>9} {'files/s':>10} {'MB/s':>8}")
    print(f"  {'flowrun lint DIR':<22} {lint_best:>9.3f} {lint_fps:>10.0f} {lint_mbps:>8.2f}")
    print(f"  {'libyaml floor':<22} {floor_best:>9.3f} {floor_fps:>10.0f} {floor_mbps:>8.2f}")
    print()
    single_label = f"single file, median of {SINGLE_RUNS}:"
    print(f"  {'ratio lint/floor (MB/s):':<30} {ratio:8.3f}      {'goal >= %g' % RATIO_GOAL:<14} {mark(ratio >= RATIO_GOAL)}")
    print(f"  {single_label:<30} {single_median_ms:6.1f} ms     {'goal < %g ms' % SINGLE_GOAL_MS:<14} {mark(single_median_ms < SINGLE_GOAL_MS)}")
    print(f"  {'single file, best of %d:' % SINGLE_RUNS:<30} {single_best_ms:6.1f} ms")
    print(f"    ({os.path.basename(one)}, {sizes[one]} bytes, exit {single_code})")
    print(f"  all runs (s): lint {' '.join('%.3f' % t for t in lint_all)}; floor {' '.join('%.3f' % t for t in floor_all)}")
    if ratio > 2:
        print("  note: lint ran more than twice as fast as the bare parser; check that it read the files.")
    print()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Broken as e:
        print(f"bench: FAILED: {e}", file=sys.stderr)
        sys.exit(2)
