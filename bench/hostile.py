"""Generate hostile flow files near the reader's size limit and print what `flowrun lint`, `run --dry-run` and
`graph` take on each (seconds, peak memory, output bytes). Exits 1 when any case takes more than LIMIT_SECONDS
or LIMIT_MB peak memory, times out or crashes (the table first, then the failures).
Usage: python3 bench/hostile.py FLOWRUN WORKDIR"""
import json, os, signal, subprocess, sys, threading, time

LIMIT_SECONDS, LIMIT_MB = 2.0, 300
# A case is stopped after this and fails; a FIFO case, which may wait forever when the fix is missing, sooner.
TIMEOUT_SECONDS, FIFO_TIMEOUT_SECONDS = 300, 5

flowrun, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)

def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path

cases = {}
n = 20000
cases["20k command steps, each in the flow"] = write("steps.yaml", "flowrun: 1\nname: big\nsteps:\n" + "".join(
    f"  s{i}: {{uses: command, with: {{run: [./a.sh], provides: {{k{i}: string}}}}}}\n" for i in range(n))
    + "flows:\n  onboard:\n" + "".join(f"    - s{i}\n" for i in range(n)))
cases["30k keys and transform leaves"] = write("keys.yaml", "flowrun: 1\nname: big\nkeys:\n" + "".join(
    f"  k{i}: string\n" for i in range(30000)) + "configuration:\n  transform:\n" + "".join(
    f"    src{i}: {{to: string, key: k{i}}}\n" for i in range(30000)) + "steps: {w: {uses: welcome}}\nflows: {onboard: [w]}\n")
cases["8k conditional entries"] = write("when.yaml", "flowrun: 1\nname: big\nkeys: {x: string}\nsteps:\n"
    "  a: {uses: command, with: {run: [./a.sh], provides: {x: string}}}\n  b: {uses: command, with: {run: [./b.sh]}}\n"
    "flows:\n  onboard:\n    - a\n" + "".join(f"    - step: b\n      when: {{info: x, equals: v{i}}}\n" for i in range(8000)))
cases["20k misspelt steps (a flood of findings)"] = write("unknown.yaml", "flowrun: 1\nname: big\nsteps:\n" + "".join(
    f"  s{i}: {{uses: comand{i}}}\n" for i in range(n)) + "flows:\n  onboard: [" + ", ".join(f"s{i}" for i in range(n)) + "]\n")
steps = {f"s{i}": {"uses": f"comand{i}"} for i in range(15000)}
cases["minified JSON, one line, 15k findings"] = write("oneline.json", json.dumps(
    {"flowrun": 1, "name": "big", "steps": steps, "flows": {"onboard": list(steps)}}, separators=(",", ":")))
cases["nesting 500 deep"] = write("deep.yaml", "flowrun: 1\nname: deep\nkeys:\n  k: " + "{a: " * 500 + "x" + "}" * 500 + "\nflows: {onboard: []}\n")

# Thousands of references to undeclared steps, each worth a "did you mean".
declared = 4000
cases["4k references to undeclared steps"] = write("undeclared.yaml", "flowrun: 1\nname: big\nsteps:\n" + "".join(
    f"  step{i}: {{uses: welcome}}\n" for i in range(declared)) + "flows:\n  onboard:\n" + "".join(
    f"    - stepp{i}\n" for i in range(declared)))
cases["20k references to undeclared steps"] = write("undeclared20k.yaml", "flowrun: 1\nname: big\nsteps:\n" + "".join(
    f"  step{i}: {{uses: welcome}}\n" for i in range(20000)) + "flows:\n  onboard:\n" + "".join(
    f"    - stepp{i}\n" for i in range(20000)))
# Suppression comments whose code lists are huge: multi-scalar characters, and valid codes by the hundred thousand.
flags = "".join(chr(0x1F1E6 + i % 26) + chr(0x1F1E6 + (i * 7) % 26) for i in range(64000))
cases["suppression of 64k flag emoji"] = write("flags.yaml", "# flowrun-lint: disable-file=" + ",".join(
    flags[i:i + 2] for i in range(0, len(flags), 2)) + "\nflowrun: 1\nname: f\nsteps: {w: {uses: welcome}}\n"
    "flows: {onboard: [w]}\n")
cases["suppression of one 64k-emoji name"] = write("flagname.yaml", "flowrun: 1 # flowrun-lint: disable=" + flags
    + "\nname: f\nsteps: {w: {uses: welcome}}\nflows: {onboard: [w]}\n")
codes = [c for c in ("FR300", "FR303", "FR304", "FR601", "fr999", "unused-step", "FR100") for _ in range(1)]
def many_codes(count):
    return ",".join(codes[i % len(codes)] if i % 3 else f"FR{i}" for i in range(count))
cases["suppression listing 190k codes"] = write("codes.yaml", "# flowrun-lint: disable-file=" + many_codes(190000)
    + "\nflowrun: 1\nname: f\nsteps: {w: {uses: welcome}}\nflows: {onboard: [w]}\n")
cases["suppression of 8 MiB of codes"] = write("codes8m.yaml", "# flowrun-lint: disable-file=" + many_codes(900000)[
    :8 * 1024 * 1024 - 200] + "\nflowrun: 1\nname: f\nsteps: {w: {uses: welcome}}\nflows: {onboard: [w]}\n")
# A long chain of mode hand-overs: every entry hands a failure to other modes.
def hand_overs(count):
    return ("flowrun: 1\nname: chain\nsteps:\n  a: {uses: command, with: {run: [./a.sh]}}\nflows:\n" + "".join(
        f"  {mode}:\n" + "".join(f"    - {{step: a, on-failure: {{modes: [{target}]}}}}\n" for _ in range(count // 3))
        for mode, target in (("onboard", "restore"), ("restore", "reset"), ("reset", "onboard"))))
cases["16k mode hand-overs"] = write("chain.yaml", hand_overs(16000))
cases["32k mode hand-overs"] = write("chain32k.yaml", hand_overs(32000))

small = write("small.yaml", "flowrun: 1\nname: small\nsteps: {w: {uses: welcome}}\nflows: {onboard: [w]}\n")
fifo = os.path.join(work, "fifo.yaml")
folder = os.path.join(work, "folder")
os.makedirs(folder, exist_ok=True)
with open(os.path.join(folder, "flow.yaml"), "w") as f:
    f.write("flowrun: 1\nname: small\nsteps: {w: {uses: welcome}}\nflows: {onboard: [w]}\n")
for path in (fifo, os.path.join(folder, "pipe.yaml")):
    if not os.path.exists(path):
        os.mkfifo(path)

def big_stdin(pipe):
    """64 MiB of a JSON-ish stream on standard input, then end of file."""
    chunk = ('{"a": "' + "x" * 1000 + '"}, ').encode() * 64
    try:
        pipe.write(b"[")
        for _ in range(64 * 1024 * 1024 // len(chunk)):
            pipe.write(chunk)
        pipe.close()
    except (BrokenPipeError, ValueError):
        pass

def measure(argv, feed=None, timeout=TIMEOUT_SECONDS, cwd=None, env=None, sigterm_after=None):
    """Seconds, peak MB, exit status (None on a timeout) and output bytes of one run of flowrun; SIGTERM is sent
    after `sigterm_after` seconds when given."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                             env=None if env is None else {**os.environ, **env})
    terminate = threading.Timer(sigterm_after, lambda: child.send_signal(signal.SIGTERM)) if sigterm_after else None
    if terminate:
        terminate.start()
    out = {"n": 0}
    def drain(stream):
        while data := stream.read(65536):
            out["n"] += len(data)
    threads = [threading.Thread(target=drain, args=(s,), daemon=True) for s in (child.stdout, child.stderr)]
    if feed:
        threads.append(threading.Thread(target=feed, args=(child.stdin,), daemon=True))
    for thread in threads:
        thread.start()
    timer = threading.Timer(timeout, lambda: child.send_signal(signal.SIGKILL))
    timer.start()
    _, status, usage = os.wait4(child.pid, 0)
    timed_out = not timer.is_alive() and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    timer.cancel()
    if terminate:
        terminate.cancel()
    child.returncode = 0
    for thread in threads[:2]:
        thread.join()
    seconds = time.perf_counter() - start
    code = None if timed_out else (os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status))
    return seconds, usage.ru_maxrss / 1024, code, out["n"]

runs = [(name, path, command, None) for name, path in cases.items()
        for command in (["lint"], ["run", "--dry-run"], ["graph"])]
runs += [("codes with --format json", cases["suppression listing 190k codes"], ["lint", "--format", "json"], None),
         ("8 MiB of codes with --format json", cases["suppression of 8 MiB of codes"], ["lint", "--format", "json"], None),
         ("64 MiB on stdin as --config -", small, ["run", "--dry-run", "--config", "-"], big_stdin),
         ("a FIFO as the flow file", fifo, ["lint"], None),
         ("a FIFO as the flow file", fifo, ["run", "--dry-run"], None),
         ("a FIFO inside a linted folder", folder, ["lint"], None)]

# Lint of a `description:` of 64k flag emoji (regional-indicator pairs) with a suppression comment after it: the
# columns of a line are computed once, not per finding or comment.
cases["description of 64k flag emoji"] = write("flagdescription.yaml", "flowrun: 1\nname: f\ndescription: " + flags
    + "\nsteps: {w: {uses: welcome}}  # flowrun-lint: disable=FR300\nflows: {onboard: [w]}\n")
runs += [("description of 64k flag emoji", cases["description of 64k flag emoji"], ["lint"], None)]

# Runs (issue 34, section 4): configuration property lists, FIFOs in place of a PKCS#12 file or the store, and a
# login page of many forms. Each is (name, argv after flowrun, folder, environment, seconds allowed, SIGTERM after).
# A run that a step timeout ends is allowed that timeout and 2 s more; one sent SIGTERM, 2 s after the signal.
import hostile_runs
scenarios = hostile_runs.make(flowrun, work, here=os.path.dirname(os.path.abspath(__file__)))

# HOSTILE_ONLY=words measures only the cases whose name holds one of the (comma-separated) words.
only = [word for word in os.environ.get("HOSTILE_ONLY", "").split(",") if word]
runs = [run for run in runs if not only or any(word in run[0] for word in only)]

print(f"{'input':44s} {'size':>8s}  {'command':22s} {'exit':>4s} {'seconds':>8s} {'peak MB':>8s} {'output':>9s}")
failures = []
for name, path, command, feed in runs:
    size = os.path.getsize(path) if os.path.isfile(path) else 0
    timeout = FIFO_TIMEOUT_SECONDS if "FIFO" in name else TIMEOUT_SECONDS
    seconds, peak, code, output = measure([flowrun, *command, path], feed, timeout)
    shown = "hang" if code is None else str(code)
    print(f"{name:44s} {size / 1e6:7.2f}M  {' '.join(command):22s} {shown:>4s} {seconds:8.2f} {peak:8.0f} {output / 1e3:8.1f}K",
          flush=True)
    what = f"{name} ({' '.join(command)})"
    if code is None:
        failures.append(f"{what}: no answer within {timeout} s")
    elif code < 0:
        failures.append(f"{what}: killed by signal {-code}")
    if seconds > LIMIT_SECONDS:
        failures.append(f"{what}: {seconds:.2f} s, over {LIMIT_SECONDS:.0f} s")
    if peak > LIMIT_MB:
        failures.append(f"{what}: {peak:.0f} MB peak, over {LIMIT_MB} MB")
scenarios = [case for case in scenarios if not only or any(word in case[0] for word in only)]
if scenarios:
    print(f"\n{'run':52s} {'exit':>4s} {'seconds':>8s} {'allowed':>8s} {'peak MB':>8s} {'output':>9s}")
for name, argv, folder, env, allowed, sigterm_after in scenarios:
    seconds, peak, code, output = measure([flowrun, *argv], None, max(allowed * 3, 30), cwd=folder, env=env,
                                          sigterm_after=sigterm_after)
    shown = "hang" if code is None else str(code)
    print(f"{name:52s} {shown:>4s} {seconds:8.2f} {allowed:8.1f} {peak:8.0f} {output / 1e3:8.1f}K", flush=True)
    if code is None:
        failures.append(f"{name}: no answer within {max(allowed * 3, 30)} s (killed)")
    elif code < 0 and code != -signal.SIGTERM:
        failures.append(f"{name}: killed by signal {-code}")
    if seconds > allowed:
        failures.append(f"{name}: {seconds:.2f} s, over the {allowed:.1f} s allowed")
    if peak > LIMIT_MB:
        failures.append(f"{name}: {peak:.0f} MB peak, over {LIMIT_MB} MB")
hostile_runs.stop()
if failures:
    print(f"\n{len(failures)} over the limits ({LIMIT_SECONDS:.0f} s, {LIMIT_MB} MB):")
    for failure in failures:
        print("  " + failure)
    sys.exit(1)
print(f"\nevery case within {LIMIT_SECONDS:.0f} s and {LIMIT_MB} MB")
