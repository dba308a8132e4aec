#!/usr/bin/env bash
# What a request through the onboarded session costs, against a plain request to the same emulator: wall time of
# whole processes, median of RUNS, measured by farm-bench pair by pair (A/B) so that the machine's drift cancels.
#
#   bash bench/session-request.sh                 # builds the static release flowrun (bench/release-flowrun.sh)
#   FLOWRUN=path/to/flowrun bash bench/session-request.sh
#   RUNS=20 ...                                   # runs of each command (default 15)
#
# A: `curl` through `flowrun proxy` (one proxy, started once; curl sends the proxy's token)
# B: `curl` straight to the emulator with the Basic credentials and the app headers (the floor)
# then a large body down and up through the proxy against the same straight to the emulator, with the proxy's peak
# memory (BODY_MIB, default 48); then `flowrun request FLOW PATH`, one process per request (a restore each time: the store's key derivation,
# the kept session, then the request) against the same B.
#
# Needs curl and farm-bench. Prints the figures; never fails on a figure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${RUNS:-15}"
for tool in curl farm-bench python3; do
    command -v "$tool" >/dev/null || { echo "bench: $tool not found" >&2; exit 2; }
done
source "$here/release-flowrun.sh"
release_flowrun "$root"

work="$(mktemp -d)"
cleanup() {
    [ -n "${proxy_pid:-}" ] && kill -TERM "$proxy_pid" 2>/dev/null || true
    [ -n "${emulator_pid:-}" ] && kill -TERM "$emulator_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

"$flowrun" emulator >emulator.out 2>emulator.err &
emulator_pid=$!
for _ in $(seq 100); do grep -q "listening on" emulator.out 2>/dev/null && break; sleep 0.1; done
base="$(sed -n 's/^flowrun emulator listening on //p' emulator.out | head -1)"
port="${base##*:}"
[ -n "$port" ] || { echo "bench: the emulator did not start" >&2; cat emulator.err >&2; exit 1; }

cat >flow.yaml <<'EOF'
flowrun: 1
name: bench-session
application: {id: com.example.warehouse, version: "1.0"}
configuration:
  providers: [json]
  transform: discovery-service
authentication: basic
steps:
  welcome: {uses: welcome}
  session: {uses: session-configuration}
  login: {uses: basic-authentication, with: {username: "${input.username}", password: prompt}}
  store: {uses: store-manager, with: {passcode: prompt}}
flows:
  onboard: [welcome, session, login, store]
  restore: [store, welcome, session, login]
EOF
printf '{"host": "127.0.0.1", "port": %s, "protocol": "http", "auth": [{"type": "basic.default"}]}\n' "$port" \
    >config.json
export FLOWRUN_INPUT_PASSWORD=analytical-engine FLOWRUN_INPUT_PASSCODE=Wareh0use-passcode
"$flowrun" run flow.yaml --config config.json --state-dir state --input username=ada@example.com >/dev/null

"$flowrun" proxy flow.yaml --state-dir state >proxy.out 2>proxy.err &
proxy_pid=$!
for _ in $(seq 100); do grep -q FLOWRUN_PROXY_TOKEN proxy.out 2>/dev/null && break; sleep 0.1; done
proxy_url="$(sed -n 's/^FLOWRUN_PROXY_URL=//p' proxy.out)"
proxy_token="$(sed -n 's/^FLOWRUN_PROXY_TOKEN=//p' proxy.out)"
[ -n "$proxy_token" ] || { echo "bench: the proxy did not start" >&2; cat proxy.err >&2; exit 1; }

plain="curl -sf -o /dev/null -u ada@example.com:analytical-engine -H X-SMP-APPID:com.example.warehouse \
-H X-SMP-DEVICEID:bench $base/warehouse/items"
through_proxy="curl -sf -o /dev/null -H X-Flowrun-Proxy-Token:$proxy_token $proxy_url/warehouse/items"
request="$flowrun request flow.yaml --state-dir state /warehouse/items"

echo "binary: $flowrun (static release build, --static-swift-stdlib, unless FLOWRUN named another)"
echo
echo "== A: curl through flowrun proxy   B: curl straight to the emulator"
farm-bench -n "$runs" --vs "$plain" -- $through_proxy

# A large body up and down through the proxy (streamed down, spooled up), against the same straight to the
# emulator; then the proxy's peak resident memory, which should not grow with the body.
rss_started="$(awk '/VmHWM/ {print $2}' "/proc/$proxy_pid/status")"
size_mib="${BODY_MIB:-48}"
head -c "$((size_mib * 1024 * 1024))" /dev/urandom >picture.bin
picture="/warehouse/Products('P-100')/Picture"
csrf_token() { # $1: base URL, then curl's other options
    local url="$1"; shift
    curl -sS -g -D - -o /dev/null "$@" -H "X-CSRF-Token: Fetch" "$url/warehouse/" | tr -d '\r' \
        | sed -n 's/^[Xx]-[Cc][Ss][Rr][Ff]-[Tt]oken: //p'
}
token="$(csrf_token "$proxy_url" -H "X-Flowrun-Proxy-Token:$proxy_token")"
curl -sSf -g -o /dev/null -X PUT -H "X-Flowrun-Proxy-Token:$proxy_token" -H "X-CSRF-Token: $token" \
    --data-binary @picture.bin "$proxy_url$picture"
rss_before="$(awk '/VmHWM/ {print $2}' "/proc/$proxy_pid/status")"
echo
echo "== a ${size_mib} MiB download.  A: through flowrun proxy (streamed)   B: straight to the emulator"
farm-bench -n "$runs" --timeout 600 --vs "curl -sf -g -o /dev/null -u ada@example.com:analytical-engine \
-H X-SMP-APPID:com.example.warehouse -H X-SMP-DEVICEID:bench \"$base$picture\"" -- \
    curl -sf -g -o /dev/null -H "X-Flowrun-Proxy-Token:$proxy_token" "$proxy_url$picture"
echo
# `Expect:` (empty) keeps curl from asking to continue: the emulator does not answer that, and curl would wait a
# second for it on B's side only.
echo "== a ${size_mib} MiB upload.  A: through flowrun proxy (spooled, sealed)   B: straight to the emulator"
plain_token="$(csrf_token "$base" -u ada@example.com:analytical-engine -H X-SMP-APPID:com.example.warehouse)"
farm-bench -n "$runs" --timeout 600 --vs "curl -sf -g -o /dev/null -X PUT -u ada@example.com:analytical-engine \
-H X-SMP-APPID:com.example.warehouse -H X-SMP-DEVICEID:bench -H X-CSRF-Token:$plain_token -H Expect: \
--data-binary @picture.bin \"$base$picture\"" -- \
    curl -sf -g -o /dev/null -X PUT -H "X-Flowrun-Proxy-Token:$proxy_token" -H "X-CSRF-Token:$token" -H Expect: \
    --data-binary @picture.bin "$proxy_url$picture"
rss_after="$(awk '/VmHWM/ {print $2}' "/proc/$proxy_pid/status")"
echo
echo "proxy peak resident memory: $((rss_started / 1024)) MiB when it had restored (the store's key derivation)," \
    "$((rss_before / 1024)) MiB after the first upload, $((rss_after / 1024)) MiB after $((2 * runs)) more" \
    "${size_mib} MiB transfers each way"

# The proxy holds the state folder's lock while it runs: a `flowrun request` beside it would wait and fail `busy`.
kill -TERM "$proxy_pid"
wait "$proxy_pid" || true
proxy_pid=
echo
echo "== A: flowrun request (a restore and the request, one process)   B: curl straight to the emulator"
farm-bench -n "$runs" --timeout 600 --vs "$plain" -- $request
