#!/usr/bin/env bash
# CI: the GitHub Action and the pre-commit hook, run as their users run them, with a built flowrun.
#
#   bash .ci/integrations.sh FLOWRUN
#
# 1. The action (action.yml through Tests/Tools/run_action.py, which runs its steps as GitHub's runner does:
#    INPUT_* variables, GITHUB_ACTION_PATH, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY as temporary files, the
#    `flowrun` input so nothing is built) on a temporary workspace with a good and a bad flow: the annotations,
#    outputs, step summary and exit statuses. `command: test` runs the shipped scenarios once `flowrun test` is
#    there (FLOWRUN_SCENARIOS, default flows), and is checked to pass flowrun's status on either way.
# 2. The pre-commit hook: pre-commit from PyPI in a virtual environment under .build-ci, a sample git repository
#    with a bad flow, a workflow file, a configuration file and emulator data; `pre-commit try-repo` of this clone
#    fails naming the flow's file, line and column (and nothing else), then passes once the flow is fixed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ -n ${1:-} ]] || { echo "usage: bash .ci/integrations.sh FLOWRUN" >&2; exit 2; }
flowrun="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[[ -x $flowrun ]] || { echo "integrations: $1 is not an executable" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-integrations.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
check() {   # check DESCRIPTION COMMAND...: runs the command, counts a failure
    if "${@:2}"; then
        echo "  ok: $1"
    else
        echo "  FAILED: $1" >&2
        failures=$((failures + 1))
    fi
}
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }
equals() { [[ $1 == "$2" ]] || { echo "    expected \`$2\`, got \`$1\`" >&2; return 1; }; }

# A clean flow; the same with a misspelt step type (line 9, column 19); and with an unused step (line 10).
good_flow='flowrun: 1
name: travel-basic
application: {id: com.example.travel, version: "1.0"}
configuration:
  providers: [json]
  transform: discovery-service
steps:
  welcome: {uses: welcome}
  session: {uses: session-configuration}
flows:
  onboard: [welcome, session]
  restore: [welcome, session]
'
bad_flow=${good_flow/uses: session-configuration/uses: session-configuraton}
warning_flow=${good_flow/flows:/  spare: \{uses: settings-download\}
flows:}

# --- 1. the action --------------------------------------------------------------------------------------------
echo "== the GitHub Action (action.yml), as the runner runs it"
workspace="$work/workspace"
mkdir -p "$workspace/flows" "$workspace/more"
printf '%s' "$good_flow" > "$workspace/flows/good.yaml"
printf '%s' "$warning_flow" > "$workspace/more/warn.yaml"
# %, : and , in a file name: GitHub's property escaping (%25, %3A, %2C) is what keeps it one property.
bad_name='bad,v1:50%.yaml'
printf '%s' "$bad_flow" > "$workspace/flows/$bad_name"

run=0
# action RUN_NAME INPUT=VALUE...: runs the action; its stdout, outputs and step summary land in $work/RUN_NAME.*
action() {
    local name=$1
    shift
    mkdir -p "$work/$name.temp"
    status=0
    RUNNER_TEMP="$work/$name.temp" GITHUB_STEP_SUMMARY="$work/$name.summary" \
        python3 "$root/Tests/Tools/run_action.py" "$root" "$workspace" "$work/$name.outputs" "$@" \
        > "$work/$name.log" 2> "$work/$name.err" || status=$?
    touch "$work/$name.summary"
    echo "  action $* -> exit $status"
}
output_of() { sed -n "s/^$2=//p" "$work/$1.outputs"; }

action clean command=lint paths=flows/good.yaml args=--strict "flowrun=$flowrun"
check "a clean flow passes: exit 0" equals "$status" 0
check "exit-code output 0" equals "$(output_of clean exit-code)" 0
check "summary output" equals "$(output_of clean summary)" "no findings in 1 file"
check "flowrun output names the given binary" equals "$(output_of clean flowrun)" "$flowrun"
check "no annotations" lacks "$work/clean.log" "::"
check "step summary says so" contains "$work/clean.summary" "no findings in 1 file"

action findings paths=flows "flowrun=$flowrun"
check "a bad flow fails: exit 1" equals "$status" 1
check "exit-code output 1" equals "$(output_of findings exit-code)" 1
check "summary output" equals "$(output_of findings summary)" "1 error in 2 files"
check "an error annotation with the file escaped, line, column and title" contains "$work/findings.log" \
    '::error file=flows/bad%2Cv1%3A50%25.yaml,line=9,col=19,title=FR300 unknown-step-type::Step `session` uses'
check "the hint is on the annotation's second line (%0A), not a line of the log" contains "$work/findings.log" \
    'did you mean `session-configuration`?%0ABuilt-in steps:'
check "a finding is one line" equals "$(grep -c '^::' "$work/findings.log")" 1
check "the step summary lists the error, unescaped" contains "$work/findings.summary" \
    '| error | flows/bad,v1:50%.yaml:9:19 | FR300 unknown-step-type | Step `session` uses `session-configuraton`'

action default "flowrun=$flowrun"
check "paths . (the default): every flow of the workspace, exit 1" equals "$status" 1
check "files named as on the pull request, without ./" contains "$work/default.log" \
    '::error file=flows/bad%2Cv1%3A50%25.yaml,line=9,col=19,'
check "and the warning of the other folder" contains "$work/default.log" '::warning file=more/warn.yaml,line=10,'

action lenient paths=more/warn.yaml "flowrun=$flowrun"
check "a warning alone passes: exit 0" equals "$status" 0
check "a warning annotation" contains "$work/lenient.log" \
    '::warning file=more/warn.yaml,line=10,col=3,title=FR304 unused-step::Step `spare` is declared'
check "the step summary lists the warning" contains "$work/lenient.summary" \
    '| warning | more/warn.yaml:10:3 | FR304 unused-step |'

action strict paths="flows/good.yaml more/warn.yaml" args="--strict" "flowrun=$flowrun"
check "paths split on white space and --strict passed on: the warning fails, exit 1" equals "$status" 1
check "both files linted" equals "$(output_of strict summary)" "1 warning in 2 files"

# Three files of 200 listed warnings each: more than the step summary's table holds.
mkdir -p "$workspace/many"
for n in 1 2 3; do
    { printf '%s' "${good_flow%%flows:*}"; for i in $(seq 1 200); do printf '  spare%d: {uses: welcome}\n' "$i"; done
        printf 'flows:%s' "${good_flow#*flows:}"; } > "$workspace/many/flow$n.yaml"
done
action many paths=many "flowrun=$flowrun"
check "600 warnings, 600 annotations" equals "$(grep -c '^::warning ' "$work/many.log")" 600
check "the step summary's table stops at 500 rows" equals "$(grep -c '^| warning |' "$work/many.summary")" 500
check "and says so" contains "$work/many.summary" "The first 500 of 600 findings; the job's log has every one."

action nothing paths=no-such-folder "flowrun=$flowrun"
check "a path that does not exist: flowrun's exit 2" equals "$status" 2
check "exit-code output 2" equals "$(output_of nothing exit-code)" 2
check "flowrun's message in the step summary" contains "$work/nothing.summary" "no-such-folder"

action wrong command=frobnicate "flowrun=$flowrun"
check "an unknown command: exit 2" equals "$status" 2
check "an annotation names the input" contains "$work/wrong.log" \
    '::error title=flowrun action::input command: `frobnicate` is not a command of this action; give lint or test'

action missing "flowrun=$work/no-flowrun"
check "a flowrun input that is no executable: exit 2" equals "$status" 2
check "an annotation names the input" contains "$work/missing.log" "::error title=flowrun action::input flowrun:"
check "nothing ran after the plan" equals "$(output_of missing exit-code)" ""

action unknown-input colour=blue "flowrun=$flowrun"
check "an input action.yml does not declare is refused" equals "$status" 1

action report-folder command=test paths=no-such-folder "report=out/junit.xml" "flowrun=$flowrun"
check "the report input's folder is made" equals "$(output_of report-folder report)" "$workspace/out/junit.xml"
action test-status command=test paths=no-such-folder "flowrun=$flowrun"
check "command test passes flowrun's status on (exit 2)" equals "$status" 2
check "exit-code output 2" equals "$(output_of test-status exit-code)" 2
check "report output: the default JUnit path" equals "$(output_of test-status report)" \
    "$work/test-status.temp/flowrun-junit.xml"
if "$flowrun" test --help >/dev/null 2>&1; then
    scenarios=${FLOWRUN_SCENARIOS:-$root/flows}
    [[ $scenarios == /* ]] || scenarios="$root/$scenarios"   # the action runs in a workspace of its own
    action scenarios command=test "paths=$scenarios" "report=$work/junit.xml" "flowrun=$flowrun"
    check "the shipped scenarios pass (exit 0)" equals "$status" 0
    check "the JUnit report is XML with test cases" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
sys.exit(0 if root.iter("testcase") and any(True for _ in root.iter("testcase")) else 1)' "$work/junit.xml"
else
    echo "  (this flowrun has no \`test\` command: only the pass-through of its status is checked)"
fi

# Where flowrun would come from without the `flowrun` input: the plan step alone (the install step would build a
# release binary, which is .ci/install.sh's and the benchmarks' business).
plan() {   # plan NAME VERSION [COMMAND]: the plan step with INPUT_VERSION, against a copy of this repository
    status=0
    : > "$work/$1.outputs"
    INPUT_COMMAND=${3:-lint} INPUT_VERSION=$2 INPUT_FLOWRUN="" FLOWRUN_REPOSITORY="$work/origin.git" FLOWRUN_CACHE_DIR="$work/cache" \
        GITHUB_OUTPUT="$work/$1.outputs" GITHUB_ACTION_PATH="$root" \
        bash "$root/.github/flowrun-action.sh" plan > "$work/$1.log" 2>&1 || status=$?
    echo "  plan with version \`$2\` -> exit $status"
}
git clone --quiet --bare "$root" "$work/origin.git"
head=$(git -C "$root" rev-parse HEAD)
git -C "$work/origin.git" -c user.name=ci -c user.email=ci@example.invalid tag -a -m "a release" v0.0-test "$head"
system="flowrun-$(uname -s)-$(uname -m)"
plan source ""
check "the action's own source: built, keyed by a digest of the source" grep -qE \
    "^cache-key=$system-source-[0-9a-f]{16}$" "$work/source.outputs"
check "installed into the cache folder" contains "$work/source.outputs" "flowrun=$work/cache/$system-source-"
plan tag v0.0-test
check "a tag: keyed by the commit it names" contains "$work/tag.outputs" "cache-key=$system-commit-$head"
check "to be installed" contains "$work/tag.outputs" "install=true"
plan hash "$head"
check "a full hash: keyed by itself" contains "$work/hash.outputs" "cache-key=$system-commit-$head"
plan scenarios "$head" test
check "\`test\`: a build with the emulator, cached apart" grep -qE \
    "^cache-key=$system-commit-$head-emulator$" "$work/scenarios.outputs"
# Without FLOWRUN_REPOSITORY and with `github.action_repository` empty (as in a composite action), the repository
# is read from the folder the runner checked the action out into.
mkdir -p "$work/server/your-org"
ln -s "$work/origin.git" "$work/server/your-org/flowrun"
status=0
INPUT_VERSION=v0.0-test INPUT_FLOWRUN="" FLOWRUN_ACTION_REPOSITORY="" GITHUB_SERVER_URL="file://$work/server" \
    FLOWRUN_CACHE_DIR="$work/cache" GITHUB_OUTPUT="$work/from-path.outputs" \
    GITHUB_ACTION_PATH="$work/runner/_actions/your-org/flowrun/v0.0-test" \
    bash "$root/.github/flowrun-action.sh" plan > "$work/from-path.log" 2>&1 || status=$?
check "the repository is the one the action's folder names" contains "$work/from-path.outputs" \
    "cache-key=$system-commit-$head"
plan nowhere no-such-ref
check "a ref the repository does not have: exit 2" equals "$status" 2
check "an annotation names it" contains "$work/nowhere.log" \
    '::error title=flowrun action::input version: `no-such-ref` is neither a branch, a tag nor a full commit hash'

# Releases: a loopback server laid out as GitHub serves a release's assets (`v<VERSION>/<asset>`, SHA256SUMS).
releases="$work/releases"
case "$(uname -m)" in aarch64 | arm64) platform=linux-aarch64 ;; *) platform=linux-x86_64 ;; esac
# release VERSION FILE [SUM]: FILE as this machine's asset of VERSION, listed with SUM (its own digest by default).
release() {
    mkdir -p "$releases/v$1"
    cp "$2" "$releases/v$1/flowrun-$platform"
    local sum=${3:-$(sha256sum "$2" | cut -d ' ' -f 1)}
    printf '%s  flowrun-%s\n' "$sum" "$platform" > "$releases/v$1/SHA256SUMS"
}
printf '#!/bin/sh\necho "7.7.7 (commit 0123456789ab)"\n' > "$work/fake-7.7.7"
release 7.7.7 "$work/fake-7.7.7"
release 7.7.8 "$work/fake-7.7.7" "$(printf '%064d' 0)"
served_version=$("$flowrun" --version | cut -d ' ' -f 1)
release "$served_version" "$flowrun"
python3 -c '
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.func.log_message = lambda *args: None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
' "$releases" > "$work/releases.port" 2>"$work/releases.err" &
releases_server=$!
trap 'kill "$releases_server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do [[ -s $work/releases.port ]] && break; sleep 0.1; done
export FLOWRUN_RELEASES_URL="http://127.0.0.1:$(head -n 1 "$work/releases.port")"
plan release v7.7.7
check "a release version: keyed by the release" contains "$work/release.outputs" "cache-key=$system-release-7.7.7"
plan release-test 7.7.7 test
check "\`test\`: the release's build with the emulator" contains "$work/release-test.outputs" \
    "cache-key=$system-release-7.7.7-emulator"
install_release() {   # install_release NAME KEY: the install step for the plan's KEY
    status=0
    FLOWRUN_CACHE_KEY="$2" FLOWRUN_BIN_DIR="$work/$1-bin" INPUT_VERSION="" GITHUB_ACTION_PATH="$root" \
        bash "$root/.github/flowrun-action.sh" install > "$work/$1.log" 2>&1 || status=$?
    echo "  install $2 -> exit $status"
}
install_release installed "$system-release-7.7.7"
check "the release's asset is installed" equals "$status" 0
check "it runs" equals "$("$work/installed-bin/flowrun" --version)" "7.7.7 (commit 0123456789ab)"
check "its checksum was checked" contains "$work/installed.log" "SHA-256 checked"
install_release tampered "$system-release-7.7.8"
check "an asset that does not match SHA256SUMS: exit 2" equals "$status" 2
check "it says so" contains "$work/tampered.log" "does not match its checksum"
check "an annotation names the release" contains "$work/tampered.log" \
    "::error title=flowrun action::release 7.7.8 could not be installed"
check "nothing is installed" equals "$(ls -A "$work/tampered-bin" 2>/dev/null)" ""

# --- 2. the pre-commit hook -----------------------------------------------------------------------------------
echo "== the pre-commit hook (.pre-commit-hooks.yaml), with pre-commit from PyPI"
venv="$root/.build-ci/pre-commit"
if [[ ! -x $venv/bin/pre-commit ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "pre-commit>=4,<5"
fi
sample="$work/sample"
mkdir -p "$sample/flows/config" "$sample/.github/workflows"
printf '%s' "$bad_flow" > "$sample/flows/app.yaml"
printf '{"host": "mobile.example.com"}\n' > "$sample/flows/config/app.json"
printf 'name: CI\non: [push]\njobs: {}\n' > "$sample/.github/workflows/ci.yaml"
# Emulator data beside the flows, as flows/scenarios/ has it: checked as data, never read as a flow.
mkdir -p "$sample/flows/scenarios"
cp "$root/flows/scenarios/warehouse-three-tries.emulator.yaml" "$sample/flows/scenarios/backend.emulator.yaml"
git -C "$sample" init --quiet
git -C "$sample" add -A
# The hook runs the flowrun on PATH (`language: system`); pre-commit's cache stays in the scratch folder.
hook() {
    status=0
    (cd "$sample" && PATH="$(dirname "$flowrun"):$PATH" PRE_COMMIT_HOME="$work/pre-commit-home" \
        "$venv/bin/pre-commit" try-repo "$root" flowrun-lint --all-files) > "$work/hook.log" 2>&1 || status=$?
    echo "  pre-commit try-repo $root flowrun-lint --all-files -> exit $status"
    sed -n '/^flowrun lint/,$p' "$work/hook.log" | sed 's/^/    | /'
}
hook
check "a bad flow fails the hook" equals "$status" 1
check "the error names the file, line and column" contains "$work/hook.log" "flows/app.yaml:9:19: error[FR300]"
check "the workflow file is not linted" lacks "$work/hook.log" "ci.yaml"
check "the configuration file is not linted" lacks "$work/hook.log" "app.json"
check "the emulator data is not read as a flow" lacks "$work/hook.log" "backend.emulator.yaml"
printf '%s' "$good_flow" > "$sample/flows/app.yaml"
git -C "$sample" add -A
hook
check "the fixed flow passes the hook" equals "$status" 0
check "pre-commit reports the hook passed" contains "$work/hook.log" "Passed"

# The release hook: no flowrun on PATH; it installs the release of its revision (served above) on first use.
release_hook() {
    status=0
    (cd "$sample" && XDG_CACHE_HOME="$work/hook-cache" PRE_COMMIT_HOME="$work/pre-commit-home" \
        "$venv/bin/pre-commit" try-repo "$root" flowrun-lint-release --all-files) > "$work/release-hook.log" 2>&1 \
        || status=$?
    echo "  pre-commit try-repo $root flowrun-lint-release --all-files -> exit $status"
}
release_hook
check "the release hook passes the fixed flow" equals "$status" 0
check "with the release's flowrun, installed on first use" test -x "$work/hook-cache/flowrun/release-$served_version/flowrun"
printf '%s' "$bad_flow" > "$sample/flows/app.yaml"
git -C "$sample" add -A
release_hook
check "the release hook fails the bad flow" equals "$status" 1
check "naming the file, line and column" contains "$work/release-hook.log" "flows/app.yaml:9:19: error[FR300]"

if [[ $failures -gt 0 ]]; then
    echo "integrations: $failures checks failed; the logs:" >&2
    for log in "$work"/*.log "$work"/*.err; do
        printf '\n--- %s\n' "$log" >&2
        head -c 4000 "$log" >&2
    done
    exit 1
fi
echo "integrations: the action and the pre-commit hook work"
