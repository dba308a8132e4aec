#!/usr/bin/env bash
# Every Swift line in the project is at most 120 columns (characters, not bytes). Run by .ci/run.
# `swift format --configuration .swift-format -i -r Sources Tests bench Package.swift` keeps code within it;
# long string literals are split by hand (concatenation, or `\` at a line's end inside a multi-line literal).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
git ls-files -z '*.swift' | xargs -0 python3 -c '
import sys
bad = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if len(line.rstrip("\n")) > 120:
                print(f"{path}:{number}: {len(line.rstrip())} columns (at most 120)")
                bad += 1
if bad:
    print(f"lines: {bad} Swift lines are longer than 120 columns", file=sys.stderr)
    sys.exit(1)
print(f"lines: every line of {len(sys.argv) - 1} Swift files is within 120 columns")
'
