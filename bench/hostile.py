"""Generate hostile flow files near the reader's size limit and print what `flowrun lint`, `run --dry-run` and
`graph` take on each (seconds, peak memory, output bytes). Usage: python3 bench/hostile.py FLOWRUN WORKDIR"""
import json, os, resource, subprocess, sys, time

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

print(f"{'input':44s} {'size':>8s}  {'command':14s} {'exit':>4s} {'seconds':>8s} {'peak MB':>8s} {'output':>9s}")
worst = (0.0, 0.0)
for name, path in cases.items():
    size = os.path.getsize(path)
    for command in (["lint"], ["run", "--dry-run"], ["graph"]):
        start = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        done = subprocess.run([flowrun, *command, path], capture_output=True)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        output = len(done.stdout) + len(done.stderr)
        worst = (max(worst[0], seconds), max(worst[1], peak))
        print(f"{name:44s} {size / 1e6:7.2f}M  {' '.join(command):14s} {done.returncode:4d} {seconds:8.2f} {peak:8.0f} {output / 1e3:8.1f}K")
print(f"worst: {worst[0]:.2f} s, {worst[1]:.0f} MB peak (goal: a few seconds and a few hundred MB)")
