#!/usr/bin/env bash
# Installs the flowrun a user runs: the static release executable (decision 10), stripped of its symbol table
# and debug information (decision 51), into a folder (default ~/.local/bin). A released version is downloaded and
# checked against its release's SHA256SUMS (.ci/install-release.sh); it is built from source only when asked, or
# when the release has no asset for this machine.
#
#   bash .ci/install.sh                    # the release of this clone's version; built here if none fits
#   bash .ci/install.sh /usr/local/bin     # another folder
#   bash .ci/install.sh --release 0.2.0    # a named release, never built
#   bash .ci/install.sh --from-source      # builds this clone
#   bash .ci/install.sh --source DIR DEST  # builds the flowrun source in DIR (the GitHub Action's `version`)
#   bash .ci/install.sh --with-emulator    # with the built-in emulator (`run --emulator`, `test`, `emulator`)
#
# Without --with-emulator the executable leaves the emulator out (the package's `Emulator` trait off, decision 63):
# what lints flows and runs them against a real backend. Each kind has a build folder of its own.
#
# A build needs Swift 6.1 or later with its static SDK libraries (any swift.org toolchain for Linux) and
# libyaml-dev; the build folder is .build-release in the source (with the emulator, as for the benchmarks) or
# .build-release-lean, so a second install only links. A download needs curl and sha256sum; where releases are is
# said in .ci/install-release.sh.
set -euo pipefail
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
with_emulator=0 release="" build=""
while [[ $# -gt 0 ]]; do
    case $1 in
    --with-emulator) with_emulator=1 ;;
    --release)
        [[ -n ${2:-} ]] || { echo "install: --release needs a version" >&2; exit 2; }
        release=$2
        shift
        ;;
    --from-source) build=here ;;
    --source)
        [[ -n ${2:-} ]] || { echo "install: --source needs a folder" >&2; exit 2; }
        source_dir="$(cd "$2" && pwd)"
        build=given
        shift
        ;;
    -*) echo "install: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
if [[ -n $release && -n $build ]]; then
    echo "install: --release and a build from source exclude each other" >&2
    exit 2
fi
dest=${1:-$HOME/.local/bin}
kind_flag=()
[[ $with_emulator -eq 0 ]] || kind_flag=(--with-emulator)
if [[ -n $release ]]; then
    exec bash "$source_dir/.ci/install-release.sh" "${kind_flag[@]}" "$release" "$dest"
fi
if [[ -z $build ]]; then
    # This clone's version, as the release of it names its assets.
    version=$(bash "$source_dir/.ci/source-version.sh" "$source_dir")
    status=0
    bash "$source_dir/.ci/install-release.sh" "${kind_flag[@]}" "$version" "$dest" || status=$?
    [[ $status -eq 0 ]] && exit 0
    # A download or checksum that failed is not papered over with a build; only a release with no asset for this
    # machine (or no release of this version) is.
    [[ $status -eq 3 ]] || exit "$status"
    echo "install: no release asset of $version fits this machine: building this clone instead" >&2
fi
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
