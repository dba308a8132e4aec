#!/usr/bin/env bash
# Installs Debian's chromium, chromium-driver (chromedriver) and xvfb when they are missing, for the tests that
# log in through a real browser (Tests/Tools/webdriver-browser as $BROWSER; flowrun driving chromium itself,
# headless and in a window on an Xvfb display). Quiet when all are present; prints the browser's and driver's
# versions either way. Needs root (apt-get) only when something is missing.
#
#   bash .ci/chromium.sh
set -euo pipefail

say() { printf 'chromium.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

installed() {
    command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1
}

if ! installed; then
    command -v apt-get >/dev/null 2>&1 || die "chromium or chromedriver is missing, and there is no apt-get here"
    [ "$(id -u)" -eq 0 ] || die "chromium, chromedriver or Xvfb is missing; installing them needs root (apt-get)"
    # One install at a time (two test runs at once), and wait for a dpkg lock someone else holds.
    exec 9>"${TMPDIR:-/tmp}/flowrun-chromium-install.lock"
    flock -w 900 9 || die "another install of chromium did not finish within 15 minutes"
    if ! installed; then
        export DEBIAN_FRONTEND=noninteractive
        say "installing chromium, chromium-driver and xvfb with apt-get"
        apt-get update -qq
        log=$(mktemp)
        if ! apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends chromium chromium-driver xvfb \
            >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            die "apt-get could not install chromium, chromium-driver and xvfb"
        fi
        rm -f "$log"
    fi
    exec 9>&-
    installed || die "chromium, chromedriver and Xvfb are still not on PATH after installing them"
fi

# Debian's launcher script complains on stderr about some /dev/shm mounts; the version is on stdout.
chromium --version 2>/dev/null
chromedriver --version
