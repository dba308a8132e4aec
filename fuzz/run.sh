#!/usr/bin/env bash
# Fuzz the pipeline with libFuzzer for a given time (default 600 s), from a seed corpus of every flow file the
# project has. Crashes are written to fuzz/findings/; the new inputs it finds stay in fuzz/work/corpus.
#
#   bash fuzz/run.sh 1800                 # 30 minutes
#   JOBS=2 bash fuzz/run.sh 900           # two fuzzing processes side by side
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
seconds="${1:-600}"
jobs="${JOBS:-1}"

echo "fuzz: building (release, -sanitize=fuzzer)..." >&2
(cd "$here" && swift build -c release --scratch-path "$root/.build-fuzz" --sanitize fuzzer --product flowrun-fuzz) >&2
binary="$root/.build-fuzz/release/flowrun-fuzz"

work="$here/work"
mkdir -p "$work/corpus" "$here/findings"
# Seeds: the shipped flows, the examples and the checker's corpus (broken files included).
find "$root/flows" "$root/examples" "$root/Tests/FlowCheckTests/Corpus" -type f \( -name '*.yaml' -o -name '*.json' -o -name '*.yml' \) \
    -exec cp {} "$work/corpus/" \;
cp "$here"/regressions/* "$work/corpus/" 2>/dev/null || true

options=(-max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$here/findings/"
         -print_final_stats=1)
# More than one job runs as forked workers, each logging to fuzz-N.log in the work folder.
[[ "$jobs" -gt 1 ]] && options+=(-jobs="$jobs" -workers="$jobs")
(cd "$work" && "$binary" "$work/corpus" "${options[@]}") 2>&1 | tee "$work/last-run.log" | grep -E "pulse|DONE|stat::|ERROR|SUMMARY|Done" || true
echo "fuzz: corpus $(ls "$work/corpus" | wc -l) inputs; findings: $(ls "$here/findings" | wc -l)" >&2
