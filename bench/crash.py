#!/usr/bin/env python3
"""Kills `flowrun` with SIGKILL at random moments (seeded) during onboarding, restore and change passcode, and
checks that the state is either what it was before the run or complete: the next run onboards or restores
successfully every time, with the passcode that is in force. Prints its counts; exits 1 on any failure.

    python3 bench/crash.py FLOWRUN_BINARY [--runs 60] [--seed 1]
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOW = os.path.join(ROOT, "flows", "settings-store.yaml")
OLD, NEW = "Crash-Passcode-1", "Crash-Passcode-2"


def flowrun(binary, state, *arguments, passcode=OLD, new=None, wait=True):
    environment = dict(os.environ, NO_COLOR="1", FLOWRUN_INPUT_PASSCODE=passcode)
    if new:
        environment["FLOWRUN_INPUT_NEW_PASSCODE"] = new
    command = [binary, "run", FLOW, "--emulator", "--state-dir", state, "--input", "email-address=ada@example.com", *arguments]
    process = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if not wait:
        return process
    out, err = process.communicate(timeout=600)
    return process.returncode, out.decode(), err.decode()


def snapshot(folder):
    """The state folder's files and bytes."""
    if not os.path.isdir(folder):
        return {}
    files = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            files[name] = handle.read()
    return files


def timed(binary, work, phase):
    """How long an undisturbed run of `phase` takes, to spread the kills over it."""
    state = os.path.join(work, "timing-" + phase)
    if phase != "onboard":
        flowrun(binary, state)
    start = time.monotonic()
    status, out, err = flowrun(binary, state, *(["--mode", "change-passcode"] if phase == "change" else []), new=NEW)
    if status != 0:
        sys.exit(f"crash: an undisturbed {phase} failed ({status}):\n{out}{err}")
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    rng = random.Random(options.seed)
    work = tempfile.mkdtemp(prefix="flowrun-crash-")
    phases = ["onboard", "restore", "change"]
    durations = {phase: timed(binary, work, phase) for phase in phases}
    # One onboarded state to start restore and change runs from, copied for each.
    golden = os.path.join(work, "golden")
    status, out, err = flowrun(binary, golden)
    if status != 0:
        sys.exit(f"crash: onboarding failed:\n{out}{err}")
    counts = {"killed": 0, "finished before the kill": 0, "state as before": 0, "state changed": 0, "next run ok": 0, "failures": 0}
    failures = []
    try:
        for run in range(options.runs):
            phase = phases[run % len(phases)]
            state = os.path.join(work, f"run-{run}")
            if phase != "onboard":
                shutil.copytree(golden, state)
            before = snapshot(state)
            arguments = ["--mode", "change-passcode"] if phase == "change" else []
            process = flowrun(binary, state, *arguments, new=NEW, wait=False)
            delay = rng.uniform(0, durations[phase] * 1.1)
            time.sleep(delay)
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                counts["killed"] += 1
            else:
                counts["finished before the kill"] += 1
            process.communicate()
            after = snapshot(state)
            counts["state as before" if after == before else "state changed"] += 1
            # The next run, with whichever passcode is in force, onboards or restores.
            status, out, err = flowrun(binary, state)
            if status != 0 and phase == "change" and "wrong-passcode" in out:
                status, out, err = flowrun(binary, state, passcode=NEW)
            leftovers = [name for name in os.listdir(state) if name.startswith(".")] if os.path.isdir(state) else []
            if status == 0 and not leftovers:
                counts["next run ok"] += 1
            else:
                counts["failures"] += 1
                failures.append(f"run {run} ({phase}, killed after {delay:.2f}s): exit {status}, leftovers {leftovers}\n{out}{err}")
            shutil.rmtree(state, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"crash: {options.runs} runs, seed {options.seed}, phases {', '.join(phases)} "
          f"(undisturbed: {', '.join(f'{p} {d:.2f}s' for p, d in durations.items())})")
    for name, count in counts.items():
        print(f"  {name:26s} {count}")
    for failure in failures:
        print(failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
