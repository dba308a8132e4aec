#!/usr/bin/env python3
"""Runs a composite action's steps the way GitHub's runner does, for .ci/integrations.sh.

  run_action.py ACTION_DIR WORKSPACE OUTPUTS_FILE [NAME=VALUE...]

Reads ACTION_DIR/action.yml, takes each input from NAME=VALUE or its default, and runs the `run:` steps in order
with `bash --noprofile --norc -eo pipefail` in WORKSPACE: each with its `env:` (expressions filled in), its own
GITHUB_OUTPUT file, GITHUB_ACTION_PATH, and the GITHUB_STEP_SUMMARY and RUNNER_TEMP of the environment. A step's
`if:` is evaluated (`==`, `!=` and `&&` over input and step-output expressions); a `uses:` step (the cache) is not
run, as on a cache miss. Stops at the first failing step, writes the action's outputs to OUTPUTS_FILE as
NAME=VALUE lines, and exits with that step's status. Knows only the expressions action.yml uses: any other is an
error, so the file and this runner cannot drift apart unnoticed.
"""
import os
import re
import subprocess
import sys

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def main(argv):
    action_dir, workspace, outputs_file, *pairs = argv
    with open(os.path.join(action_dir, "action.yml"), encoding="utf-8") as file:
        action = yaml.safe_load(file)
    given = dict(pair.split("=", 1) for pair in pairs)
    unknown = set(given) - set(action["inputs"])
    if unknown:
        sys.exit(f"run_action: no such input: {', '.join(sorted(unknown))}")
    inputs = {name: given.get(name, spec.get("default", "")) for name, spec in action["inputs"].items()}
    steps = {}

    def value(name):
        parts = name.split(".")
        if parts[0] == "inputs" and len(parts) == 2 and parts[1] in inputs:
            return inputs[parts[1]]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return steps.get(parts[1], {}).get(parts[3], "")
        if name == "github.action_repository":
            return ""   # a local action, as `uses: ./`
        sys.exit(f"run_action: action.yml uses an expression this runner does not know: {name}")

    def fill(text):
        return EXPRESSION.sub(lambda match: value(match.group(1)), str(text))

    def condition(text):
        for clause in text.split("&&"):
            match = re.fullmatch(r"\s*([\w.-]+)\s*(==|!=)\s*'([^']*)'\s*", clause)
            if not match:
                sys.exit(f"run_action: cannot evaluate the condition `{text}`")
            if (value(match.group(1)) == match.group(3)) != (match.group(2) == "=="):
                return False
        return True

    status = 0
    for number, step in enumerate(action["runs"]["steps"]):
        if "if" in step and not condition(step["if"]):
            continue
        if "uses" in step:
            print(f"run_action: not running `{step['uses']}` (a cache miss)", file=sys.stderr)
            continue
        output_path = os.path.join(os.environ.get("RUNNER_TEMP", "/tmp"), f"step-{number}.output")
        open(output_path, "w").close()
        env = dict(os.environ, GITHUB_ACTION_PATH=os.path.abspath(action_dir), GITHUB_OUTPUT=output_path)
        env.update({name: fill(text) for name, text in step.get("env", {}).items()})
        status = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", fill(step["run"])], cwd=workspace, env=env
        ).returncode
        with open(output_path, encoding="utf-8") as file:
            steps[step.get("id", str(number))] = dict(line.rstrip("\n").split("=", 1) for line in file if "=" in line)
        if status != 0:
            break
    with open(outputs_file, "w", encoding="utf-8") as file:
        for name, spec in action["outputs"].items():
            file.write(f"{name}={fill(spec['value'])}\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
