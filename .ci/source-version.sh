#!/usr/bin/env bash
# Prints the version of the flowrun source in DIR (default: the repository this script is in), as
# Sources/FlowCatalog/ToolVersion.swift declares it: what a release of that source is named (v<VERSION>).
set -euo pipefail
dir=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' "$dir/Sources/FlowCatalog/ToolVersion.swift")
[[ -n $version ]] || { echo "source-version: no version in $dir/Sources/FlowCatalog/ToolVersion.swift" >&2; exit 1; }
echo "$version"
