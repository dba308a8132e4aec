#!/usr/bin/env bash
# Installs a released flowrun: downloads the static, stripped executable of VERSION for this machine and the
# release's SHA256SUMS, checks the executable against it, and only then puts it in DEST (default ~/.local/bin).
# Nothing is built; .ci/install.sh builds from source when asked, or when no release asset fits this machine.
#
#   bash .ci/install-release.sh 0.2.0                     # ~/.local/bin/flowrun
#   bash .ci/install-release.sh 0.2.0 /usr/local/bin
#   bash .ci/install-release.sh --with-emulator 0.2.0     # the build with the emulator (run --emulator, test)
#
# Where releases are: FLOWRUN_RELEASES_URL (a base under which `v<VERSION>/<asset>` is found; a GitHub
# repository's is https://github.com/OWNER/REPO/releases/download), else the GitHub repository FLOWRUN_REPOSITORY
# (OWNER/REPO) names, else the one this clone's `origin` is.
#
# Assets of a release (.github/workflows/release.yml makes them): flowrun-linux-x86_64, flowrun-linux-aarch64,
# flowrun-emulator-linux-x86_64, flowrun-emulator-linux-aarch64, flowrun.schema.json, sarif-rules.json, SHA256SUMS.
#
# Exit status: 0 installed; 1 the download failed or its checksum does not match (nothing is installed); 2 wrong
# arguments; 3 the release has no asset for this machine (or there is no such release, or where releases are is
# unknown): build from source instead.
set -euo pipefail
say() { printf 'install-release: %s\n' "$*" >&2; }

flavour=flowrun
if [[ ${1:-} == --with-emulator ]]; then
    flavour=flowrun-emulator
    shift
fi
version=${1:-}
version=${version#v}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] \
    || { say "name a release version, such as 0.2.0 (found \`${1:-}\`)"; exit 2; }
dest=${2:-$HOME/.local/bin}

if [[ -n ${FLOWRUN_RELEASES_URL:-} ]]; then
    base=${FLOWRUN_RELEASES_URL%/}
else
    repository=${FLOWRUN_REPOSITORY:-}
    if [[ -z $repository ]]; then
        origin=$(git -C "$(dirname "${BASH_SOURCE[0]}")" remote get-url origin 2>/dev/null || true)
        if [[ $origin =~ github\.com[:/]([^/]+)/([^/]+)$ ]]; then
            repository="${BASH_REMATCH[1]}/${BASH_REMATCH[2]%.git}"
        fi
    fi
    [[ -n $repository ]] || {
        say "where are the releases? set FLOWRUN_RELEASES_URL, or FLOWRUN_REPOSITORY=OWNER/REPO for GitHub's"
        exit 3
    }
    base="https://github.com/$repository/releases/download"
fi

case "$(uname -s)/$(uname -m)" in
Linux/x86_64 | Linux/amd64) platform=linux-x86_64 ;;
Linux/aarch64 | Linux/arm64) platform=linux-aarch64 ;;
*)
    say "release $version has no asset for $(uname -s) $(uname -m): releases are for Linux x86_64 and aarch64"
    exit 3
    ;;
esac
asset="$flavour-$platform"
command -v curl >/dev/null || { say "curl is not on PATH"; exit 1; }
command -v sha256sum >/dev/null || { say "sha256sum is not on PATH (coreutils)"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The status of a download: 0 done, 3 not found (404), 1 anything else (said).
fetch() {
    local url=$1 out=$2 status
    status=$(curl --silent --show-error --location --proto '=https,http' --retry 2 --output "$out" \
        --write-out '%{http_code}' "$url" 2>"$work/curl.err") || {
        say "cannot download $url: $(tr '\n' ' ' < "$work/curl.err")"
        return 1
    }
    [[ $status == 200 ]] && return 0
    [[ $status == 404 ]] && return 3
    say "cannot download $url: the server answered $status"
    return 1
}

# get URL OUT MISSING: downloads URL to OUT; a 404 says MISSING and exits 3, any other failure exits 1.
get() {
    local status=0
    fetch "$1" "$2" || status=$?
    [[ $status -ne 3 ]] || { say "$3"; exit 3; }
    [[ $status -eq 0 ]] || exit 1
}

get "$base/v$version/SHA256SUMS" "$work/SHA256SUMS" "there is no release $version at $base (no v$version/SHA256SUMS)"
expected=$(awk -v name="$asset" '$2 == name || $2 == "*" name { print $1 }' "$work/SHA256SUMS")
if [[ -z $expected ]]; then
    say "release $version has no asset $asset (this machine's) in its SHA256SUMS"
    exit 3
fi
[[ $expected =~ ^[0-9a-f]{64}$ ]] || { say "SHA256SUMS of release $version lists $asset with no SHA-256"; exit 1; }
get "$base/v$version/$asset" "$work/$asset" \
    "release $version lists $asset in SHA256SUMS, but the asset is missing ($base/v$version/$asset)"
found=$(sha256sum "$work/$asset" | cut -d ' ' -f 1)
if [[ $found != "$expected" ]]; then
    say "$asset of release $version does not match its checksum (SHA256SUMS: $expected, downloaded: $found);" \
        "nothing was installed"
    exit 1
fi

mkdir -p "$dest"
# Put beside its destination, then renamed: a running flowrun is never overwritten in place, and an interrupted
# install leaves the old executable.
staged=$(mktemp "$dest/.flowrun.XXXXXX")
trap 'rm -rf "$work"; rm -f "$staged"' EXIT
cp "$work/$asset" "$staged"
chmod 755 "$staged"
said=$("$staged" --version 2>&1) || { say "the downloaded $asset does not run: $said"; exit 1; }
[[ ${said%% *} == "$version" ]] || { say "the downloaded $asset says it is \`$said\`, not $version"; exit 1; }
mv -f "$staged" "$dest/flowrun"
say "$dest/flowrun $said ($asset, SHA-256 checked)"
