"""The `run` shapes of bench/hostile.py (issue 34, section 4): what each needs on disk, and a loopback server.

make() returns (name, argv after flowrun, folder, environment, seconds allowed, SIGTERM after or None) for:
a binary property list whose arrays share objects (the `file` and `managed` providers, and the default
`ConfigurationProvider.plist` of a flow that names no providers), a 200 MB property list, a FIFO in place of a
PKCS#12 file and of the store (onboarded first), and an OAuth 2.0 login page of 640,000 empty forms for the
`headless-form` presenter, served from loopback. A run a step timeout ends is allowed that timeout and 2 s more;
one sent SIGTERM, 2 s after the signal; any other, 2 s (the table's limit)."""
import http.server, json, os, struct, subprocess, threading

LIMIT = 2.0
# The timeout given to the step that meets the hostile input, where one applies.
STEP_TIMEOUT = 5
_servers = []


def shared_references_bplist(levels=24, repeats=8):
    """`{"host": a_levels}` where a_0 is a string and each a_k lists a_(k-1) `repeats` times: under 300 bytes
    that expand to repeats**levels values."""
    objects = [b"\x54host", b"\x51x"]                              # 0: "host", 1: "x"
    for level in range(1, levels + 1):                             # level k is object k + 1, listing object k
        objects.append(bytes([0xA0 | repeats]) + bytes([level]) * repeats)
    objects.append(bytes([0xD1, 0, len(objects) - 1]))            # the top: {"host": the last array}
    body, offsets = b"bplist00", []
    for obj in objects:
        offsets.append(len(body))
        body += obj
    table = len(body)
    body += bytes(offsets)                                          # 1-byte offsets
    body += bytes(6) + bytes([1, 1]) + struct.pack(">QQQ", len(objects), len(objects) - 1, table)
    return body


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def config_flow(providers):
    listed = "".join(f"    - {p}\n" for p in providers)
    section = f"configuration:\n  providers:\n{listed}  transform: discovery-service\n" if providers else ""
    return f"flowrun: 1\nname: hostile-plist\n{section}steps:\n  welcome: {{uses: welcome}}\nflows:\n  onboard: [welcome]\n"


CERTIFICATE_FLOW = f"""flowrun: 1
name: hostile-certificate
application: {{id: com.example.warehouse, version: "1.0"}}
configuration:
  providers:
    - discovery-service: {{application-id: com.example.warehouse, input: email-address}}
  transform: discovery-service
authentication: basic
steps:
  welcome: {{uses: welcome}}
  session: {{uses: session-configuration}}
  login: {{uses: basic-authentication, with: {{username: "${{input.username}}", password: prompt}}}}
  certificate:
    uses: certificate-authentication
    with: {{source: pkcs12, file: user.p12, password: "${{env.P12_PASSWORD}}"}}
  store: {{uses: store-manager, with: {{passcode: prompt}}}}
flows:
  onboard: [welcome, session, login, {{step: certificate, timeout: {STEP_TIMEOUT}s}}, store]
"""

FORMS_FLOW = f"""flowrun: 1
name: hostile-forms
application: {{id: com.example.travel, version: "1.0"}}
configuration:
  providers: [json]
  transform: discovery-service
authentication: oauth2
steps:
  welcome: {{uses: welcome}}
  session: {{uses: session-configuration}}
  login: {{uses: oauth2-authentication, with: {{grant: authorization-code, presenter: headless-form}}}}
  store: {{uses: store-manager, with: {{passcode: prompt}}}}
flows:
  onboard: [welcome, session, {{step: login, timeout: {STEP_TIMEOUT}s}}, store]
"""


def serve_forms(count=640_000):
    """A loopback server: the backend's OAuth 2.0 challenge, and an authorization page of `count` empty forms (under
    the 8 MiB body cap); its port."""
    page = b"<html><body>" + b"<form></form>" * count + b"</body></html>"

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if "/authorize" not in self.path:
                # The backend: the OAuth 2.0 challenge that starts the login.
                self.send_response(401)
                self.send_header("WWW-Authenticate", "Bearer")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            try:
                self.wfile.write(page)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _servers.append(server)
    return server.server_address[1]


def stop():
    for server in _servers:
        server.shutdown()


def onboarded_store(flowrun, folder, root):
    """Onboards `flows/settings-store.yaml` on the emulator into `folder`/state, then puts a FIFO in the store's
    place; the restore's argv and environment."""
    env = {"FLOWRUN_INPUT_PASSCODE": "a-good-passcode"}
    argv = ["run", os.path.join(root, "flows/settings-store.yaml"), "--emulator", "--state-dir", "state",
            "--input", "email-address=ada@example.com"]
    os.makedirs(folder, exist_ok=True)
    subprocess.run([flowrun, *argv], cwd=folder, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)
    state = os.path.join(folder, "state")
    stores = [name for name in os.listdir(state) if name.endswith(".db")] if os.path.isdir(state) else []
    for name in stores:
        os.remove(os.path.join(state, name))
        os.mkfifo(os.path.join(state, name))
    return argv, env


def make(flowrun, work, here):
    root = os.path.dirname(here)
    runs = []
    plists = os.path.join(work, "plists")
    bomb = write(os.path.join(plists, "bomb.plist"), shared_references_bplist())
    big = os.path.join(plists, "big.plist")
    with open(big, "wb") as f:
        f.write(b'<?xml version="1.0"?><plist version="1.0"><dict><key>host</key><string>')
        chunk = b"x" * (1 << 20)
        for _ in range(200):
            f.write(chunk)
        f.write(b"</string></dict></plist>")
    size = os.path.getsize(bomb)
    write(os.path.join(plists, "file.yaml"), config_flow(["file: bomb.plist"]))
    write(os.path.join(plists, "managed.yaml"), config_flow(["managed"]))
    write(os.path.join(plists, "big.yaml"), config_flow(["file: big.plist"]))
    default = os.path.join(work, "plist-default")
    write(os.path.join(default, "flow.yaml"), config_flow([]))
    write(os.path.join(default, "ConfigurationProvider.plist"), shared_references_bplist())
    runs += [
        (f"bplist of shared references ({size} B), file", ["run", "file.yaml", "--state-dir", "s1"], plists, {},
         LIMIT, None),
        (f"bplist of shared references ({size} B), managed", ["run", "managed.yaml", "--state-dir", "s2"], plists,
         {"FLOWRUN_MANAGED_CONFIG": bomb}, LIMIT, None),
        (f"bplist of shared references ({size} B), default", ["run", "flow.yaml", "--state-dir", "s3"], default, {},
         LIMIT, None),
        ("200 MB property list, file", ["run", "big.yaml", "--state-dir", "s4"], plists, {}, LIMIT, None),
    ]

    certificate = os.path.join(work, "fifo-p12")
    write(os.path.join(certificate, "flow.yaml"), CERTIFICATE_FLOW)
    os.mkfifo(os.path.join(certificate, "user.p12"))
    argv = ["run", "--emulator", "flow.yaml", "--state-dir", "state", "--input", "email-address=ada@example.com",
            "--input", "username=ada@example.com"]
    env = {"FLOWRUN_INPUT_PASSWORD": "analytical-engine", "FLOWRUN_INPUT_PASSCODE": "Cert-passc0de-1",
           "P12_PASSWORD": "unused"}
    runs += [("FIFO as the PKCS#12 file (step timeout)", argv, certificate, env, STEP_TIMEOUT + LIMIT, None),
             ("FIFO as the PKCS#12 file (SIGTERM at 3 s)", argv, certificate, env, 3 + LIMIT, 3)]

    for name, sigterm in (("FIFO as the store, restore", None), ("FIFO as the store, restore (SIGTERM at 3 s)", 3)):
        folder = os.path.join(work, "fifo-store-" + ("term" if sigterm else "plain"))
        argv, env = onboarded_store(flowrun, folder, root)
        runs.append((name, argv, folder, env, (3 if sigterm else STEP_TIMEOUT) + LIMIT, sigterm))

    port = serve_forms()
    forms = os.path.join(work, "forms")
    write(os.path.join(forms, "flow.yaml"), FORMS_FLOW)
    base = f"http://127.0.0.1:{port}"
    write(os.path.join(forms, "config.json"), json.dumps({
        "host": "127.0.0.1", "port": port, "protocol": "http",
        "auth": [{"type": "oauth2", "config": {
            "oauth2.authorizationEndpoint": base + "/authorize", "oauth2.tokenEndpoint": base + "/token",
            "oauth2.clients": [{"clientID": "hostile", "grantType": "authorization_code",
                                "redirectURL": base + "/callback"}]}}]}))
    argv = ["run", "flow.yaml", "--state-dir", "state", "--config", "config.json"]
    env = {"FLOWRUN_INPUT_USERNAME": "ada", "FLOWRUN_INPUT_PASSWORD": "analytical-engine",
           "FLOWRUN_INPUT_PASSCODE": "Hostile-passc0de"}
    runs += [("640k empty forms, headless-form (step timeout)", argv, forms, env, STEP_TIMEOUT + LIMIT, None),
             ("640k empty forms, headless-form (SIGTERM at 2 s)", argv, forms, env, 2 + LIMIT, 2)]
    return runs
