#!/usr/bin/env bash
# Builds this machine's release assets into OUT (default release-assets/): the static, stripped executables
# without and with the built-in emulator (.ci/install.sh --from-source), named as .ci/install-release.sh looks
# for them, and, with --shared, the flow JSON Schema and the SARIF rule table. `SHA256SUMS.<platform>` in OUT lists
# every file there; the release workflow checks the machines' lists after merging their folders, then writes one
# SHA256SUMS for all.
#
#   bash .ci/release-assets.sh [--shared] [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=0
if [[ ${1:-} == --shared ]]; then
    shared=1
    shift
fi
out=${1:-release-assets}
case "$(uname -m)" in
x86_64 | amd64) platform=linux-x86_64 ;;
aarch64 | arm64) platform=linux-aarch64 ;;
*) echo "release-assets: no release is made for $(uname -m)" >&2; exit 2 ;;
esac
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash .ci/install.sh --from-source "$work/lean"
bash .ci/install.sh --with-emulator --from-source "$work/emulator"
cp "$work/lean/flowrun" "$out/flowrun-$platform"
cp "$work/emulator/flowrun" "$out/flowrun-emulator-$platform"
version=$("$out/flowrun-$platform" --version)
case $version in
*-modified*) echo "release-assets: the work tree has changes ($version): release a clean commit" >&2; exit 1 ;;
esac
if [[ $shared -eq 1 ]]; then
    "$out/flowrun-$platform" schema > "$out/flowrun.schema.json"
    # The rule table of any lint's SARIF (a shipped flow, which has no findings).
    "$out/flowrun-$platform" lint --format sarif flows/basic.yaml > "$work/none.sarif"
    python3 -c '
import json, sys
driver = json.load(open(sys.argv[1]))["runs"][0]["tool"]["driver"]
json.dump({"name": driver["name"], "semanticVersion": driver["semanticVersion"], "rules": driver["rules"]},
          open(sys.argv[2], "w"), indent=2)
' "$work/none.sarif" "$out/sarif-rules.json"
fi
sums="SHA256SUMS.$platform"
(cd "$out" && sha256sum -- $(ls | grep -v '^SHA256SUMS') > "$sums")
echo "release-assets: $version for $platform in $out:" >&2
cat "$out/$sums" >&2
