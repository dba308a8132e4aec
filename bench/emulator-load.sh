#!/usr/bin/env bash
# Requests per second of the emulator under load, against nginx serving the same bytes from a file: wrk with
# CONNECTIONS (50) connections for DURATION (20s) on each, one after the other, on two threads. The emulator answers
# the discovery request (a cheap GET that every onboarding makes); after the first 10,000 requests its request
# log is full, so every request also drops the oldest entry.
#
#   bash bench/emulator-load.sh                           # builds the static release binary first
#   FLOWRUN=path/to/flowrun bash bench/emulator-load.sh   # use a built binary
#   DURATION=10s CONNECTIONS=20 bash bench/emulator-load.sh
#
# Needs wrk, nginx and curl (Debian: wrk, nginx-light or nginx, curl). Prints the figures; exits non-zero only
# when something cannot run.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
duration="${DURATION:-20s}"
connections="${CONNECTIONS:-50}"
for tool in wrk nginx curl; do
    command -v "$tool" >/dev/null || { echo "bench: $tool not found (apt-get install wrk nginx curl)" >&2; exit 2; }
done
source "$here/release-flowrun.sh"
release_flowrun "$root"

work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-load.XXXXXX")"
emulator_pid=""
nginx_pid=""
cleanup() {
    [[ -n "$emulator_pid" ]] && kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null
    [[ -n "$nginx_pid" ]] && kill "$nginx_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

port=$(free_port)
"$flowrun" emulator --port "$port" >"$work/emulator.out" 2>&1 &
emulator_pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/emulator.out" && break; sleep 0.1; done
grep -q "listening on" "$work/emulator.out" || { echo "bench: the emulator did not start" >&2; cat "$work/emulator.out" >&2; exit 1; }
path="/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='com.example.travel:1.0',EmailAddress='ada@example.com')"
emulator_url="http://127.0.0.1:$port$path"
mkdir -p "$work/www"
curl -sf "$emulator_url" -o "$work/www/discovery.json"

nginx_port=$(free_port)
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    default_type application/json;
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/www;
    }
}
CONF
nginx -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$nginx_port/discovery.json" -o /dev/null && break; sleep 0.1; done

rate() { wrk -t2 -c"$connections" -d"$duration" "$1" | awk '/Requests\/sec/ {print $2}'; }
echo "bench: wrk -t2 -c$connections -d$duration, one server at a time" >&2
emulator_rate=$(rate "$emulator_url")
nginx_rate=$(rate "http://127.0.0.1:$nginx_port/discovery.json")
bytes=$(wc -c <"$work/www/discovery.json")
printf 'emulator under load (discovery GET, %s bytes; %s connections, %s)\n' "$bytes" "$connections" "$duration"
printf '  flowrun emulator   %10.0f requests/s\n' "$emulator_rate"
printf '  nginx, same bytes  %10.0f requests/s  (one worker, from a file)\n' "$nginx_rate"
python3 -c "print('  emulator/nginx     %10.2f   goal >= 0.5' % ($emulator_rate / $nginx_rate))"
