#!/usr/bin/env bash
# Starts or stops nanoidp 3.4.0 (a real OAuth 2.0 / OIDC, SAML 2.0 and TOTP identity provider,
# from PyPI) on 127.0.0.1, for tests that log in to it without a browser.
# docs/contributing/nanoidp-notes.md describes its endpoints and login forms.
#
#   bash .ci/nanoidp.sh [start]   installs nanoidp if missing, starts it in the background in a fresh
#                                 temp folder on a free port, waits until it answers, prints exactly one
#                                 line on stdout: "nanoidp listening on http://127.0.0.1:PORT"
#   bash .ci/nanoidp.sh stop      stops the one named by the pid file and removes its temp folder
#   bash .ci/nanoidp.sh install   installs nanoidp into the venv (what `.ci/test` does before the tests)
#
# Environment (all optional):
#   NANOIDP_VENV           venv to create or reuse     (default: <repo>/.build-ci/nanoidp-venv)
#   NANOIDP_PIDFILE        where the PID is written    (default: <repo>/.build-ci/nanoidp.pid);
#                          "<pidfile>.workdir" names the temp folder (settings, keys, nanoidp.log)
#   NANOIDP_INSTALL=never  "start" fails at once, in one line, when nanoidp is not installed (the tests: they
#                          never install anything)
#   NANOIDP_PYTHON         python (>= 3.10) for a new venv          (default: python3)
#   NANOIDP_PORT           port to use instead of a free one picked at random
#   NANOIDP_REDIRECT_URI   redirect URI of the public client        (default: http://127.0.0.1:8765/callback;
#                          a registered http://127.0.0.1 URI matches any port, path and query stay exact)
#   NANOIDP_SAML_ACS_URL   saml.default_acs_url, used when an AuthnRequest names no ACS
#                          (default: http://127.0.0.1:8766/SAMLAuthLauncher)
#   NANOIDP_TOTP_SECRET    base32 TOTP secret of the user "grace"   (default: JBSWY3DPEHPK3PXP)
#   NANOIDP_SERVICE_SECRET secret of the confidential clients       (default: flowrun-service-secret)
#   NANOIDP_KEEP_WORKDIR=1 "stop" leaves the temp folder (and its log) in place
#
# What it configures:
#   users    ada   / analytical-engine  (ada@example.org, no second factor)
#            grace / first-compiler     (grace@example.org, TOTP: login.totp is on and she has a secret)
#   clients  flowrun-cli             public (token_endpoint_auth_method none): authorization code + PKCE S256
#            flowrun-service         confidential, HTTP Basic (client_secret_basic): client credentials
#            flowrun-service-post    confidential, secret in the form body (client_secret_post)
#   issuer   http://127.0.0.1:PORT, access-token audience "flowrun", SAML entity id <issuer>/saml
set -euo pipefail

NANOIDP_VERSION=3.4.0
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${NANOIDP_VENV:-$root/.build-ci/nanoidp-venv}
pidfile=${NANOIDP_PIDFILE:-$root/.build-ci/nanoidp.pid}
case "$venv" in /*) ;; *) venv=$root/$venv ;; esac
case "$pidfile" in /*) ;; *) pidfile=$root/$pidfile ;; esac

say() { printf 'nanoidp.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# The versions this script was tested with (pip freeze of a clean install of nanoidp 3.4.0),
# so that a new release of a dependency cannot change what CI runs.
constraints() {
    cat <<'EOF'
annotated-types==0.8.0
anyio==4.16.0
attrs==26.1.0
bcrypt==5.0.0
blinker==1.9.0
certifi==2026.10.18
cffi==2.1.1
click==8.5.1
cryptography==50.0.2
Deprecated==1.3.1
Flask==3.1.3
flask-cors==6.0.5
Flask-Limiter==4.1.1
h11==0.16.0
httpcore2==2.16.2
httpx2==2.16.2
idna==3.20
itsdangerous==2.2.0
Jinja2==3.1.6
jsonschema==4.26.0
jsonschema-specifications==2025.9.1
limits==5.8.0
lxml==6.1.3
MarkupSafe==3.0.4
mcp==2.3.0
mcp-types==2.3.0
opentelemetry-api==1.45.2
ordered-set==4.1.0
packaging==26.3
pycparser==3.12
pydantic==2.14.3
pydantic_core==2.50.4
PyJWT==2.15.1
python-multipart==0.0.34
PyYAML==6.0.3
referencing==0.37.0
rpds-py==2026.9.1
ruamel.yaml==0.19.1
signxml==5.2.0
sse-starlette==3.7.0
starlette==1.10.0
truststore==0.10.5
typing-inspection==0.4.5
typing_extensions==4.16.0
uvicorn==0.54.0
Werkzeug==3.1.9
wrapt==2.5.2
EOF
}

installed() {
    [ -x "$venv/bin/python" ] && "$venv/bin/python" -c '
import sys, importlib.metadata as m
sys.exit(0 if m.version("nanoidp") == sys.argv[1] else 1)' "$NANOIDP_VERSION" 2>/dev/null
}

install() {
    installed && return 0
    local python=${NANOIDP_PYTHON:-python3}
    "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
        || die "$python is older than 3.10, which nanoidp $NANOIDP_VERSION requires"
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
    say "installing nanoidp==$NANOIDP_VERSION into $venv"
    local pins
    pins=$(mktemp)
    constraints >"$pins"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        -c "$pins" "nanoidp==$NANOIDP_VERSION" >&2 || { rm -f "$pins"; die "pip install failed"; }
    rm -f "$pins"
    installed || die "nanoidp $NANOIDP_VERSION is not importable from $venv after the install"
}

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# Only a process whose command line names nanoidp is ours to stop (the pid may have been reused).
is_nanoidp() { alive "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q nanoidp; }

stop() {
    local pid="" workdir=""
    [ -f "$pidfile" ] && pid=$(tr -dc '0-9' <"$pidfile")
    [ -f "$pidfile.workdir" ] && workdir=$(cat "$pidfile.workdir")
    if [ -n "$pid" ] && is_nanoidp "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            alive "$pid" || break
            sleep 0.2
        done
        if alive "$pid"; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidfile" "$pidfile.workdir"
    if [ -n "$workdir" ] && [ -f "$workdir/.nanoidp-workdir" ] && [ "${NANOIDP_KEEP_WORKDIR:-}" != 1 ]; then
        rm -rf "$workdir"
    fi
}

free_port() {
    "$venv/bin/python" -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# settings.yaml and users.yaml, written with PyYAML from the venv so that no value needs quoting here.
write_config() {
    local workdir=$1 port=$2
    PORT=$port WORKDIR=$workdir \
    REDIRECT_URI=${NANOIDP_REDIRECT_URI:-http://127.0.0.1:8765/callback} \
    SAML_ACS_URL=${NANOIDP_SAML_ACS_URL:-http://127.0.0.1:8766/SAMLAuthLauncher} \
    TOTP_SECRET=${NANOIDP_TOTP_SECRET:-JBSWY3DPEHPK3PXP} \
    SERVICE_SECRET=${NANOIDP_SERVICE_SECRET:-flowrun-service-secret} \
    "$venv/bin/python" - <<'EOF'
import os, secrets, yaml

env = os.environ
issuer = f"http://127.0.0.1:{env['PORT']}"
config = os.path.join(env["WORKDIR"], "config")
os.makedirs(config, exist_ok=True)

settings = {
    "config_version": 1,
    "server": {"host": "127.0.0.1", "port": int(env["PORT"])},
    "oauth": {
        "issuer": issuer,
        "audience": "flowrun",
        "token_expiry_minutes": 60,
        "clients": [
            {
                "client_id": "flowrun-cli",
                "description": "public client: authorization code with PKCE S256",
                "token_endpoint_auth_method": "none",
                "redirect_uris": [env["REDIRECT_URI"]],
            },
            {
                "client_id": "flowrun-service",
                "client_secret": env["SERVICE_SECRET"],
                "description": "confidential client, HTTP Basic",
                "token_endpoint_auth_method": "client_secret_basic",
            },
            {
                "client_id": "flowrun-service-post",
                "client_secret": env["SERVICE_SECRET"],
                "description": "confidential client, secret in the form body",
                "token_endpoint_auth_method": "client_secret_post",
            },
        ],
    },
    # The code screen follows the password for every user who has a totp_secret.
    "login": {"mode": "password", "totp": True},
    "saml": {"default_acs_url": env["SAML_ACS_URL"]},
    "session": {"secret_key": secrets.token_urlsafe(32)},
    # Absolute: a relative keys_dir is taken from the working folder.
    "jwt": {"keys_dir": os.path.join(env["WORKDIR"], "keys")},
    "logging": {"level": "INFO"},
}
users = {
    "config_version": 1,
    "users": {
        "ada": {"password": "analytical-engine", "email": "ada@example.org", "roles": ["USER"]},
        "grace": {
            "password": "first-compiler",
            "email": "grace@example.org",
            "roles": ["USER"],
            "totp_secret": env["TOTP_SECRET"],
        },
    },
}
for name, document in (("settings.yaml", settings), ("users.yaml", users)):
    with open(os.path.join(config, name), "w") as f:
        yaml.safe_dump(document, f, sort_keys=False)
EOF
}

# 0 once discovery answers with the expected issuer and the socket listening on the port is the
# started process's own (another server already on that port could answer too).
answers() {
    "$venv/bin/python" - "$1" "$2" "$3" <<'EOF' 2>/dev/null
import json, os, sys, urllib.request
issuer, pid, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
with urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=2) as r:
    if json.load(r).get("issuer") != issuer:
        sys.exit(1)
if not os.path.exists("/proc/net/tcp"):
    sys.exit(0)
inodes = set()
with open("/proc/net/tcp") as f:
    for line in f.readlines()[1:]:
        fields = line.split()
        if fields[1] == "0100007F:%04X" % port and fields[3] == "0A":
            inodes.add("socket:[%s]" % fields[9])
fds = "/proc/%s/fd" % pid
sys.exit(0 if any(os.readlink(os.path.join(fds, fd)) in inodes for fd in os.listdir(fds)) else 1)
EOF
}

# 0 when nothing listens on 127.0.0.1:$1.
port_free() {
    "$venv/bin/python" - "$1" <<'EOF' 2>/dev/null
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
EOF
}

start() {
    if [ "${NANOIDP_INSTALL:-}" = never ]; then
        installed || die "nanoidp $NANOIDP_VERSION is not installed in $venv: run \`bash .ci/test\` (installs what the tests need, then runs them) or \`bash .ci/nanoidp.sh install\`"
    else
        install
    fi
    if [ -f "$pidfile" ]; then
        say "stopping the nanoidp named by $pidfile first"
        stop
    fi
    mkdir -p "$(dirname "$pidfile")"

    local attempt port workdir pid url log deadline
    for attempt in 1 2 3; do
        port=${NANOIDP_PORT:-$(free_port)}
        if ! port_free "$port"; then
            [ -z "${NANOIDP_PORT:-}" ] || die "NANOIDP_PORT=$port: something already listens on 127.0.0.1:$port"
            continue
        fi
        workdir=$(mktemp -d "${TMPDIR:-/tmp}/nanoidp.XXXXXX")
        touch "$workdir/.nanoidp-workdir"
        log=$workdir/nanoidp.log
        write_config "$workdir" "$port"
        url=http://127.0.0.1:$port

        # From inside the temp folder: nanoidp writes what it generates (keys) relative to it.
        (
            cd "$workdir"
            # Descriptors the caller left open (a test runner's child-exit socket, say) are closed first: a
            # server that outlives this script must not hold them, or the caller waits for the server to end.
            exec "$venv/bin/python" -c 'import os, sys
os.closerange(3, 65536)
sys.argv[0] = "nanoidp"
os.execv(sys.executable, [sys.executable, "-m", "nanoidp"] + sys.argv[1:])' \
                --config "$workdir/config" --host 127.0.0.1 --port "$port" --strict-config </dev/null >"$log" 2>&1
        ) &
        pid=$!
        printf '%s\n' "$pid" >"$pidfile"
        printf '%s\n' "$workdir" >"$pidfile.workdir"

        deadline=$((SECONDS + 60))
        while alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do
            if answers "$url" "$pid" "$port"; then
                echo "nanoidp listening on $url"
                return 0
            fi
            sleep 0.25
        done

        if alive "$pid"; then
            say "nanoidp did not answer (as itself) $url/.well-known/openid-configuration within 60 s; its log:"
            tail -n 50 "$log" >&2 || true
            stop
            exit 1
        fi
        if grep -q 'Address already in use' "$log" && [ -z "${NANOIDP_PORT:-}" ] && [ "$attempt" -lt 3 ]; then
            say "port $port was taken meanwhile, trying another"
            rm -f "$pidfile" "$pidfile.workdir"
            rm -rf "$workdir"
            continue
        fi
        say "nanoidp exited before it answered; its log:"
        tail -n 50 "$log" >&2 || true
        rm -f "$pidfile" "$pidfile.workdir"
        exit 1
    done
    die "found no free port on 127.0.0.1 in 3 attempts"
}

case "${1:-start}" in
    start) start ;;
    stop) stop ;;
    install) install ;;
    *) die "usage: $0 [start|stop|install]" ;;
esac
