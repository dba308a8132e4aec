#!/usr/bin/env bash
# CI: the checks that need the built flowrun, beside the test suite. `.ci/run` has `.ci/test` start this once the
# build is done (FLOWRUN_TEST_ALONGSIDE), so it runs while `swift test` does: the suite is written to pass on a
# busy machine, and these checks take about a minute that CI would otherwise wait for after the tests.
#
#   FLOWRUN=path/to/flowrun bash .ci/checks.sh
#
# flowrun killed at random moments and the next run restoring; `flowrun lint --strict` of the shipped flows; the
# shipped scenarios with a JUnit report; the GitHub Action and the pre-commit hook as their users run them; the
# SARIF output and the flow schema against their published schemas; the README's main job. Prints each check's
# time at the end. It never runs `swift` (the test run holds the build folder's lock).
set -euo pipefail
cd "$(dirname "$0")/.."
flowrun=${FLOWRUN:?FLOWRUN names the built flowrun}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

checks=()
check_started=$SECONDS
check_name=""
check() {
    [ -z "$check_name" ] || checks+=("$(printf '%5d s  %s' $((SECONDS - check_started)) "$check_name")")
    check_name=$1
    check_started=$SECONDS
    printf '\n== %s\n' "$1"
}

check "crash safety: flowrun killed at random moments, the next run restores (a short run of bench/crash.sh)"
FLOWRUN="$flowrun" RUNS=9 SEED="${CRASH_SEED:-$RANDOM}" bash bench/crash.sh

check "flowrun lint --strict flows examples"
"$flowrun" lint --strict flows examples

check "shipped scenarios: flowrun test flows/scenarios (JUnit report)"
"$flowrun" test flows/scenarios --format junit --output "$out/scenarios.xml"

check "the GitHub Action and the pre-commit hook, run as their users run them (bash .ci/integrations.sh)"
FLOWRUN_SCENARIOS="$PWD/flows/scenarios/basic.scenario.yaml" bash .ci/integrations.sh "$flowrun"

check "SARIF output against the SARIF 2.1.0 schema; the flow schema against every shipped flow"
status=0
"$flowrun" lint Tests/FlowCheckTests/Corpus --format sarif --output "$out/corpus.sarif" >/dev/null || status=$?
if [ "$status" -ne 1 ]; then
    echo "expected exit 1 (findings) from linting the broken corpus, got $status" >&2
    exit 1
fi
python3 Tests/Tools/validate_outputs.py sarif "$out/corpus.sarif"
python3 Tests/Tools/validate_outputs.py schema docs/flow.schema.json
python3 Tests/Tools/validate_outputs.py flows docs/flow.schema.json \
    $(find flows examples -name '*.yaml' -o -name '*.yml' | sort)

check "the main job: an OAuth 2.0 onboarding on the emulator, a restore without a login, a logout"
FLOWRUN_INPUT_PASSWORD=analytical-engine FLOWRUN_INPUT_PASSCODE=Trav3l-passcode "$flowrun" run --emulator \
    --presenter headless-form flows/oauth2-authorization-code.yaml --input email-address=ada@example.com \
    --input username=ada@example.com --state-dir "$out/state"
FLOWRUN_INPUT_PASSCODE=Trav3l-passcode "$flowrun" run --emulator flows/oauth2-authorization-code.yaml \
    --state-dir "$out/state"
FLOWRUN_INPUT_PASSCODE=Trav3l-passcode "$flowrun" run --emulator flows/oauth2-authorization-code.yaml \
    --state-dir "$out/state" --mode logout

check "done"
printf '\n== check times\n'
printf '%s\n' "${checks[@]}"
echo "all checks of the built flowrun passed"
