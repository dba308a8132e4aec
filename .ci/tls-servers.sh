#!/usr/bin/env bash
# Installs Debian's nginx (a TLS backend that requires client certificates), tinyproxy (a CONNECT proxy),
# microsocks (a SOCKS5 proxy) and openssl (test certificates) when they are missing, for the tests of issue 20 that run flowrun against real TLS
# servers. The tests start and stop the servers themselves on loopback ports, as the test user; the packages'
# own services are never started (Debian's policy-rc.d, or none on a machine without init). Quiet when all are
# present. Needs root (apt-get) only when something is missing.
#
#   bash .ci/tls-servers.sh
set -euo pipefail

say() { printf 'tls-servers.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# nginx and tinyproxy live in /usr/sbin, which a user's PATH may not hold.
export PATH="$PATH:/usr/sbin:/sbin"

installed() {
    command -v nginx >/dev/null 2>&1 && command -v tinyproxy >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1 \
        && command -v microsocks >/dev/null 2>&1
}

if ! installed; then
    command -v apt-get >/dev/null 2>&1 || die "nginx, tinyproxy, microsocks or openssl is missing, and there is no apt-get here"
    [ "$(id -u)" -eq 0 ] || die "nginx, tinyproxy, microsocks or openssl is missing; installing them needs root (apt-get)"
    exec 9>"${TMPDIR:-/tmp}/flowrun-tls-servers-install.lock"
    flock -w 900 9 || die "another install of the TLS servers did not finish within 15 minutes"
    if ! installed; then
        export DEBIAN_FRONTEND=noninteractive
        say "installing nginx-light, tinyproxy, microsocks and openssl with apt-get"
        apt-get update -qq
        log=$(mktemp)
        if ! RUNLEVEL=1 apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends \
            nginx-light tinyproxy microsocks openssl >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            die "apt-get could not install nginx-light, tinyproxy, microsocks and openssl"
        fi
        rm -f "$log"
    fi
    exec 9>&-
    installed || die "nginx, tinyproxy, microsocks and openssl are still not on PATH after installing them"
fi
