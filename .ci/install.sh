#!/usr/bin/env bash
# Installs the flowrun a user runs: the static release executable (decision 10), stripped of its symbol table
# and debug information (decision 51), into a folder (default ~/.local/bin).
#
#   bash .ci/install.sh                    # builds this clone, installs ~/.local/bin/flowrun
#   bash .ci/install.sh /usr/local/bin     # another folder
#   bash .ci/install.sh --source DIR DEST  # builds the flowrun source in DIR (the GitHub Action's `version`)
#   bash .ci/install.sh --with-emulator    # with the built-in emulator (`run --emulator`, `test`, `emulator`)
#
# Without --with-emulator the executable leaves the emulator out (the package's `Emulator` trait off, decision 63):
# what lints flows and runs them against a real backend. Each kind has a build folder of its own.
#
# Needs Swift 6.1 or later with its static SDK libraries (any swift.org toolchain for Linux) and libyaml-dev; the
# build folder is .build-release in the source (with the emulator, as for the benchmarks) or .build-release-lean, so
# a second install only links.
set -euo pipefail
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
with_emulator=0
if [[ ${1:-} == --with-emulator ]]; then
    with_emulator=1
    shift
fi
if [[ ${1:-} == --source ]]; then
    [[ -n ${2:-} ]] || { echo "install: --source needs a folder" >&2; exit 2; }
    source_dir="$(cd "$2" && pwd)"
    shift 2
fi
if [[ ${1:-} == --with-emulator ]]; then
    with_emulator=1
    shift
fi
dest=${1:-$HOME/.local/bin}
[[ -f $source_dir/Package.swift ]] || { echo "install: $source_dir has no Package.swift" >&2; exit 2; }
command -v swift >/dev/null || {
    echo "install: swift is not on PATH; install a toolchain from swift.org (or swiftly) first" >&2
    exit 2
}
if ! pkg-config --exists yaml-0.1 2>/dev/null && [[ ! -f /usr/include/yaml.h ]]; then
    echo "install: libyaml-dev is missing (Debian/Ubuntu: sudo apt-get install libyaml-dev)" >&2
    exit 2
fi
# binutils' strip where there is one; the toolchain's llvm-strip otherwise.
strip=$(command -v strip || command -v llvm-strip || true)
[[ -n $strip ]] || { echo "install: neither strip nor llvm-strip is on PATH (binutils)" >&2; exit 2; }

if [[ $with_emulator -eq 1 ]]; then
    scratch=.build-release traits=(--traits Emulator) kind="with the emulator"
else
    scratch=.build-release-lean traits=(--disable-default-traits) kind="without the emulator"
fi
echo "install: building flowrun $kind (release, --static-swift-stdlib) in $source_dir/$scratch..." >&2
(cd "$source_dir" && swift build -c release --static-swift-stdlib "${traits[@]}" --scratch-path "$scratch" \
    --product flowrun) >&2
built="$source_dir/$scratch/release/flowrun"

mkdir -p "$dest"
# Stripped beside its destination, then renamed: a running flowrun is never overwritten in place, and an
# interrupted install leaves the old binary.
staged=$(mktemp "$dest/.flowrun.XXXXXX")
trap 'rm -f "$staged"' EXIT
"$strip" --strip-all -o "$staged" "$built"
chmod 755 "$staged"
"$staged" --version >/dev/null
mv -f "$staged" "$dest/flowrun"
trap - EXIT
echo "install: $dest/flowrun $("$dest/flowrun" --version), $(du -h "$dest/flowrun" | cut -f 1) stripped" >&2
