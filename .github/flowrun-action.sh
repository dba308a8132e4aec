#!/usr/bin/env bash
# The flowrun GitHub Action's logic (action.yml only maps its inputs here). Three phases, one per step:
#
#   plan      where flowrun comes from: the `flowrun` input (a prebuilt binary), or a build of the action's own
#             source or of the `version` input, cached under a key made from the source (outputs: install,
#             flowrun, bin-dir, cache-key)
#   install   builds that source with .ci/install.sh (static, stripped; with the emulator for `test`) into bin-dir;
#             skipped on a cache hit
#   run       `flowrun lint --format github` (annotations) or `flowrun test --format junit --output REPORT`,
#             with the paths and extra arguments; writes the outputs and a step summary, exits as flowrun did
#
# Inputs come as the INPUT_* variables action.yml sets: INPUT_COMMAND, INPUT_PATHS, INPUT_ARGS, INPUT_VERSION,
# INPUT_FLOWRUN, INPUT_REPORT. The runner's files: GITHUB_OUTPUT, GITHUB_STEP_SUMMARY; RUNNER_TEMP for scratch.
# .ci/integrations.sh runs it the same way, with temporary files and a prebuilt flowrun. docs/ci.md has the rest.
set -euo pipefail
set -f   # paths and arguments are split on white space and never expanded as globs

action_path=${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}

# A failure the runner shows as an annotation titled for the action, then exit 2 (flowrun's usage status).
fail() {
    printf '::error title=flowrun action::%s\n' "$(escape_data "$1")"
    exit 2
}

escape_data() {
    local text=${1//%/%25}
    text=${text//$'\r'/%0D}
    printf '%s' "${text//$'\n'/%0A}"
}

# Writes `name=value` to GITHUB_OUTPUT (a value with a newline would need a delimiter; none of ours has one).
output() {
    [[ $2 != *$'\n'* ]] || fail "output $1 would span lines"
    printf '%s=%s\n' "$1" "$2" >> "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run this as the action does}"
}

summary() {
    [[ -z ${GITHUB_STEP_SUMMARY:-} ]] || printf '%s\n' "$@" >> "$GITHUB_STEP_SUMMARY"
}

# The git URL of the `version` input, into `url`: FLOWRUN_REPOSITORY, or the repository the action was used from.
# That is `github.action_repository`, which the runner leaves empty inside a composite action (actions/runner#2525),
# or else the OWNER/REPO of the folder the runner checked the action out into (`…/_actions/OWNER/REPO/REF`).
# (Results go into variables, not through $( ): a `fail` in a subshell would lose its annotation.)
repository_url() {
    if [[ -n ${FLOWRUN_REPOSITORY:-} ]]; then
        url=$FLOWRUN_REPOSITORY
    elif [[ -n ${FLOWRUN_ACTION_REPOSITORY:-} ]]; then
        url="${GITHUB_SERVER_URL:-https://github.com}/$FLOWRUN_ACTION_REPOSITORY"
    elif [[ ${GITHUB_ACTION_PATH:-} =~ /_actions/([^/]+)/([^/]+)/[^/]+(/|$) ]]; then
        url="${GITHUB_SERVER_URL:-https://github.com}/${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
    else
        fail "input version: the action's repository is unknown (a local action); set FLOWRUN_REPOSITORY"
    fi
}

# The commit `version` names, into `commit`: a full hash as it is; a tag (peeled) or branch resolved on the remote.
resolve_version() {
    local version=$1 refs
    if [[ $version =~ ^[0-9a-f]{40}$ ]]; then
        commit=$version
        return
    fi
    repository_url
    refs=$(git ls-remote "$url" "$version" "$version^{}" 2>&1) \
        || fail "input version: cannot list the refs of $url: $refs"
    commit=$(awk -v tag="refs/tags/$version" -v branch="refs/heads/$version" '
        $2 == tag "^{}" { peeled = $1 } $2 == tag { tagged = $1 } $2 == branch { head = $1 }
        END { print peeled ? peeled : tagged ? tagged : head }' <<< "$refs")
    [[ -n $commit ]] || fail "input version: \`$version\` is neither a branch, a tag nor a full commit hash of $url"
}

# A digest of what a build of the action's own source depends on.
source_digest() {
    (cd "$action_path" && find Package.swift Sources .ci/install.sh -type f -print0 | LC_ALL=C sort -z \
        | xargs -0 sha256sum | sha256sum | cut -c 1-16)
}

# The release version a `version` input or the action's own ref names (`v1.2.3` or `1.2.3`), into `release`; empty
# for a branch, another tag or a commit. The action's own ref is the last folder of the path the runner checked it
# out into (`…/_actions/OWNER/REPO/REF`).
release_named() {
    local ref=${INPUT_VERSION:-}
    if [[ -z $ref && ${GITHUB_ACTION_PATH:-} =~ /_actions/[^/]+/[^/]+/([^/]+)/?$ ]]; then
        ref=${BASH_REMATCH[1]}
    fi
    release=""
    if [[ $ref =~ ^v?([0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?)$ ]]; then
        release=${BASH_REMATCH[1]}
    fi
}

plan() {
    if [[ -n ${INPUT_FLOWRUN:-} ]]; then
        local given=$INPUT_FLOWRUN
        [[ -f $given && -x $given ]] || fail "input flowrun: \`$given\` is not an executable file"
        [[ -z ${INPUT_VERSION:-} ]] || fail "inputs flowrun and version exclude each other: give one"
        output install false
        output flowrun "$(cd "$(dirname "$given")" && pwd)/$(basename "$given")"
        return
    fi
    local key commit url release
    release_named
    if [[ -n $release ]]; then
        # A release's asset, checked against its SHA256SUMS: nothing to build.
        key="release-$release"
    elif [[ -n ${INPUT_VERSION:-} ]]; then
        resolve_version "$INPUT_VERSION"
        key="commit-$commit"
    else
        key="source-$(source_digest)"
    fi
    # `test` runs scenarios against the built-in emulator, which only a build that asks for it has (decision 63).
    [[ ${INPUT_COMMAND:-lint} != test ]] || key="$key-emulator"
    key="flowrun-$(uname -s)-$(uname -m)-$key"
    local bin_dir="${FLOWRUN_CACHE_DIR:-$HOME/.cache/flowrun-action}/$key"
    output install true
    output cache-key "$key"
    output bin-dir "$bin_dir"
    output flowrun "$bin_dir/flowrun"
}

install() {
    local bin_dir=${FLOWRUN_BIN_DIR:?FLOWRUN_BIN_DIR is not set: the plan step gives it} source=$action_path
    local -a kind=()
    # The plan's key says which kind: `-emulator` for `test` (decision 63).
    [[ ${FLOWRUN_CACHE_KEY:-} != *-emulator ]] || kind=(--with-emulator)
    if [[ ${FLOWRUN_CACHE_KEY:-} =~ -release-(.+)$ ]]; then
        local version=${BASH_REMATCH[1]%-emulator} url status=0
        if [[ -z ${FLOWRUN_RELEASES_URL:-} ]]; then
            repository_url
            export FLOWRUN_RELEASES_URL="$url/releases/download"
        fi
        bash "$action_path/.ci/install-release.sh" "${kind[@]}" "$version" "$bin_dir" || status=$?
        [[ $status -eq 0 ]] && return 0
        # Only a release with no asset for this machine is built from its tag; a failed download or a checksum
        # that does not match stops here.
        [[ $status -eq 3 ]] || fail "release $version could not be installed (see the lines above)"
        echo "flowrun action: no asset of release $version fits this runner: building its tag v$version" >&2
        local commit
        resolve_version "v$version"
        FLOWRUN_CACHE_KEY="fallback-commit-$commit"
    fi
    if [[ ${FLOWRUN_CACHE_KEY:-} == *-commit-* || -n ${INPUT_VERSION:-} ]]; then
        local commit=${FLOWRUN_CACHE_KEY##*-commit-} url
        repository_url
        source="$temp/flowrun-source-$commit"
        rm -rf "$source"
        git init --quiet "$source"
        git -C "$source" fetch --quiet --depth 1 "$url" "$commit"
        git -C "$source" checkout --quiet FETCH_HEAD
    fi
    # GitHub's Ubuntu runners (passwordless sudo) and the swift container images (root) lack only libyaml-dev.
    if [[ ! -f /usr/include/yaml.h ]] && command -v apt-get >/dev/null; then
        local sudo=()
        [[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
        "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq libyaml-dev >/dev/null
    fi
    bash "$action_path/.ci/install.sh" "${kind[@]}" --source "$source" "$bin_dir"
}

run() {
    local flowrun=${FLOWRUN:?FLOWRUN is not set: the plan step gives it}
    local command=${INPUT_COMMAND:-lint}
    local -a paths args
    read -r -d '' -a paths <<< "${INPUT_PATHS:-.}" || true
    read -r -d '' -a args <<< "${INPUT_ARGS:-}" || true
    [[ ${#paths[@]} -gt 0 ]] || paths=(.)
    local log="$temp/flowrun-action-$$.log" status=0
    case $command in
    lint)
        "$flowrun" lint --format github "${args[@]}" "${paths[@]}" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
        local last
        last=$(grep -v '^::' "$log" | tail -n 1 || true)
        output summary "$last"
        lint_summary "$log" "$last"
        ;;
    test)
        local report=${INPUT_REPORT:-$temp/flowrun-junit.xml}
        # The report's folder is made as the input names it (`report: out/junit.xml` in a fresh checkout).
        mkdir -p "$(dirname "$report")" || fail "input report: cannot make the folder of \`$report\`"
        "$flowrun" test --format junit --output "$report" "${args[@]}" "${paths[@]}" 2>&1 | tee "$log" \
            || status=${PIPESTATUS[0]}
        output report "$(cd "$(dirname "$report")" 2>/dev/null && pwd)/$(basename "$report")"
        output summary "$(tail -n 1 "$log")"
        summary "### flowrun test" "" "Exit status $status. JUnit report: \`$report\`." "" '```' \
            "$(tail -n 40 "$log")" '```'
        ;;
    *) fail "input command: \`$command\` is not a command of this action; give lint or test" ;;
    esac
    rm -f "$log"
    output exit-code "$status"
    exit "$status"
}

# The step summary of a lint: the one-line summary and a table of the findings. The runner shows at most 10
# error and 10 warning annotations of a step; the summary shows the first 500 (GitHub keeps 1 MiB of it).
lint_summary() {
    local log=$1 last=$2 line severity properties message file position title rows=0 limit=500 total
    summary "### flowrun lint" "" "$last" ""
    total=$(grep -c '^::' "$log" || true)
    [[ $total -gt 0 ]] || return 0
    summary "| | Where | Finding | Message |" "|---|---|---|---|"
    while IFS= read -r line; do
        [[ $line =~ ^::(error|warning|notice)\ ([^:]*)::(.*)$ ]] || continue
        rows=$((rows + 1))
        if [[ $rows -gt $limit ]]; then
            summary "" "The first $limit of $total findings; the job's log has every one."
            return
        fi
        severity=${BASH_REMATCH[1]} properties=${BASH_REMATCH[2]} message=${BASH_REMATCH[3]}
        file=$(property file "$properties") title=$(property title "$properties")
        position=$(property line "$properties"):$(property col "$properties")
        summary "| $severity | $(cell "$(unescape "$file")"):$position | $(cell "$(unescape "$title")") \
| $(cell "$(unescape "$message")") |"
    done < "$log"
}

property() {
    local name=$1 entry
    local -a entries
    IFS=, read -r -a entries <<< "$2"
    for entry in "${entries[@]}"; do
        [[ $entry != "$name="* ]] || { printf '%s' "${entry#"$name="}"; return; }
    done
}

unescape() {
    local text=${1//%0D/$'\r'}
    text=${text//%0A/$'\n'}
    text=${text//%3A/:}
    text=${text//%2C/,}
    printf '%s' "${text//%25/%}"
}

# Text in a Markdown table cell: no HTML, no cell breaks, line breaks as <br>.
cell() {
    local text=${1//&/&amp;}
    text=${text//</&lt;}
    text=${text//>/&gt;}
    text=${text//|/\\|}
    text=${text//$'\r'/}
    printf '%s' "${text//$'\n'/<br>}"
}

case ${1:-} in
plan | install | run) "$1" ;;
*)
    echo "usage: $0 plan|install|run (with the action's INPUT_* variables)" >&2
    exit 2
    ;;
esac
