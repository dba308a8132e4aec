#!/usr/bin/env bash
# Installs Authlib (a real OAuth 2.0 library, from PyPI) with Flask into a venv of its own, for the tests that run
# Tests/Tools/authlib_token_server.py: a token endpoint whose clients authenticate only with a JWT
# (client_secret_jwt or private_key_jwt, RFC 7523). The tests start and stop the server themselves; they never
# install anything, and name this script when the venv is missing.
#
#   bash .ci/authlib.sh install   installs into the venv (what `.ci/test` does before the tests); quiet when present
#
# Environment (optional):
#   AUTHLIB_VENV     the venv to create or reuse  (default: <repo>/.build-ci/authlib-venv)
#   AUTHLIB_PYTHON   python (>= 3.9) for a new venv   (default: python3)
set -euo pipefail

AUTHLIB_VERSION=1.9.10
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${AUTHLIB_VENV:-$root/.build-ci/authlib-venv}
case "$venv" in /*) ;; *) venv=$root/$venv ;; esac

say() { printf 'authlib.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# The versions this script was tested with (pip freeze of a clean install), so that a new release of a dependency
# cannot change what CI runs.
constraints() {
    cat <<'PINS'
Authlib==1.9.10
blinker==1.9.0
cffi==2.1.1
click==8.5.1
cryptography==50.0.2
Flask==3.1.3
itsdangerous==2.2.0
Jinja2==3.1.6
joserfc==1.8.0
MarkupSafe==3.0.4
pycparser==3.12
Werkzeug==3.1.9
PINS
}

installed() {
    [ -x "$venv/bin/python" ] && "$venv/bin/python" -c '
import sys, importlib.metadata as m
sys.exit(0 if m.version("authlib") == sys.argv[1] and m.version("flask") else 1)' "$AUTHLIB_VERSION" 2>/dev/null
}

install() {
    installed && return 0
    local python=${AUTHLIB_PYTHON:-python3}
    if [ -e "$venv" ] && [ ! -x "$venv/bin/python" ]; then
        [ -f "$venv/pyvenv.cfg" ] || die "$venv exists and is not a venv"
        rm -rf "$venv"
    fi
    if [ ! -x "$venv/bin/python" ]; then
        say "creating the venv $venv"
        mkdir -p "$(dirname "$venv")"
        if ! "$python" -m venv "$venv" >&2; then
            # Debian's python3 has no ensurepip without python3-venv.
            rm -rf "$venv"
            if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
                say "installing python3-venv"
                DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
                "$python" -m venv "$venv" >&2
            else
                die "'$python -m venv' failed (on Debian: apt-get install python3-venv)"
            fi
        fi
    fi
    say "installing Authlib==$AUTHLIB_VERSION and Flask into $venv"
    local pins
    pins=$(mktemp)
    constraints >"$pins"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        -c "$pins" "Authlib==$AUTHLIB_VERSION" Flask >&2 || { rm -f "$pins"; die "pip install failed"; }
    rm -f "$pins"
    installed || die "Authlib $AUTHLIB_VERSION is not importable from $venv after the install"
}

case "${1:-install}" in
    install) install ;;
    *) die "usage: bash .ci/authlib.sh install" ;;
esac
