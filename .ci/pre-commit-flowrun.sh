#!/usr/bin/env bash
# The pre-commit hook `flowrun-lint-release`: runs flowrun with the arguments given, using the released flowrun of
# the hook's revision (its Sources/FlowCatalog/ToolVersion.swift), installed once per version into
# ${XDG_CACHE_HOME:-~/.cache}/flowrun/release-<version>/: downloaded and checked against the release's SHA256SUMS
# by .ci/install-release.sh. Nothing is built; where no release asset fits, use the hook `flowrun-lint` with a
# flowrun on PATH.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=$(bash "$here/.ci/source-version.sh" "$here")
bin="${XDG_CACHE_HOME:-$HOME/.cache}/flowrun/release-$version"
if [[ ! -x $bin/flowrun ]]; then
    bash "$here/.ci/install-release.sh" "$version" "$bin" || {
        echo "flowrun-lint-release: flowrun $version could not be installed (above); the hook flowrun-lint runs" \
            "a flowrun on PATH instead (bash .ci/install.sh)" >&2
        exit 2
    }
fi
exec "$bin/flowrun" "$@"
