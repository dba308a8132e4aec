#!/usr/bin/env python3
"""Generate realistic flowrun flow files for benchmarking `flowrun lint`.

Usage: python3 bench/gen_flows.py OUTDIR [N] [--seed SEED]

Writes N files (default 2000) named like `travel-oauth-17.yaml` into OUTDIR, in four variants
(OAuth 2.0 authorization code, basic, SAML, OAuth 2.0 client credentials), each padded with
comments, key declarations and transform entries to a size between ~1.5 and ~4 KB. Every file lints
clean with `flowrun lint --strict` (bench/lint.sh checks that before it measures).
Prints "files=N bytes=TOTAL" on stdout. Standard library only; deterministic for a given seed.
"""

import argparse
import os
import random
import sys

APPS = [
    "travel", "expenses", "fieldservice", "inventory", "crm", "timesheet", "procurement", "warehouse",
    "payroll", "helpdesk", "sales", "maintenance", "approvals", "leave", "assets", "fleet", "retail",
    "claims", "onboarding", "learning", "recruiting", "invoices", "shipping", "quality",
]
WORDS = [
    "support", "portal", "tenant", "region", "catalog", "report", "audit", "billing", "profile", "device",
    "push", "analytics", "feedback", "help", "legal", "privacy", "terms", "media", "upload", "sync",
    "offline", "cache", "theme", "brand", "locale", "search", "notification", "gateway", "proxy", "metrics",
]
TYPE_SUFFIX = [
    ("URL", "url"), ("Endpoint", "url"), ("Host", "string"), ("Name", "string"), ("Code", "string"),
    ("Limit", "int"), ("Timeout", "int"), ("Enabled", "bool"), ("Token", "secret"), ("Ratio", "double"),
]
DESCRIPTIONS = [
    "Onboards the {app} app with {method}.",
    "Signs a user of the {app} app in with {method} and opens the encrypted store.",
    "Registers a device for the {app} app ({method}), downloads its settings and creates the store.",
]
KEY_NOTES = [
    "Read from the configuration document the administrator publishes.",
    "Set per tenant; the support team changes it without a new release.",
    "Optional on older backends; the step falls back to its default.",
    "Shown to the person on the welcome screen.",
    "Passed to the command step that registers the device.",
    "Kept with the persisted configuration and reused on restore.",
]
COMMENTS = [
    "# The backend team owns this section; ask before changing key names.",
    "# Values below come from the discovery service document.",
    "# Keep in sync with config/ConfigurationProvider.json.",
    "# Restore reuses the persisted configuration, so no provider is asked again.",
    "# Retries cover flaky hotel and airport networks.",
    "# Reviewed with security: no plain-text secrets in this file.",
]

VARIANTS = {
    "oauth": ("OAuth 2.0", "oauth2"),
    "basic": ("HTTP Basic authentication", "basic"),
    "saml": ("SAML 2.0", "saml"),
    "client": ("the OAuth 2.0 client credentials grant", "oauth2-client-credentials"),
}


def camel(*parts):
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def extra_keys(rng, count, taken):
    """`count` fresh (name, type, note) triples for padding `keys` and the transform map."""
    out = []
    while len(out) < count:
        word = rng.choice(WORDS)
        second = rng.choice(WORDS)
        suffix, typ = rng.choice(TYPE_SUFFIX)
        name = camel(word, second, suffix) if rng.random() < 0.5 else camel(word, suffix)
        if name in taken:
            continue
        taken.add(name)
        out.append((name, typ, rng.choice(KEY_NOTES)))
    return out


def render(rng_state, variant, index, n_extra):
    """Render one file; the same rng_state and variant with a larger n_extra gives a larger file."""
    rng = random.Random()
    rng.setstate(rng_state)
    app = rng.choice(APPS)
    method_text, method = VARIANTS[variant]
    name = f"{app}-{variant}-{index}"
    app_id = f"com.example.{app}{index}"
    version = f"{rng.randint(1, 4)}.{rng.randint(0, 9)}"
    use_map = rng.random() < 0.6
    L = []
    add = L.append
    add("# yaml-language-server: $schema=../docs/flow.schema.json")
    if rng.random() < 0.5:
        add(f"# Flow for the {app} app, generated for benchmarking (file {index}).")
    add("flowrun: 1")
    add(f"name: {name}")
    add("description: " + rng.choice(DESCRIPTIONS).format(app=app, method=method_text))
    add(f'application: {{id: {app_id}, version: "{version}"}}')

    # keys: a few fixed ones, then padding.
    taken = {"requiredURL", "simpleStructure"}
    extras = extra_keys(rng, n_extra, taken)
    add("keys:")
    add("  requiredURL: url")
    add("  simpleStructure:")
    add("    struct: {firstStringField: string, secondURLField: url}")
    if rng.random() < 0.5:
        add("  allowedHosts: {list: string}")
    for i, (key, typ, note) in enumerate(extras):
        if i % 4 == 2 and not use_map:
            add("  " + rng.choice(COMMENTS))
        if i % 3 == 0 or not use_map:
            add(f"  {key}:")
            add(f"    type: {typ}")
            add(f"    description: {note}")
        else:
            add(f"  {key}: {typ}")

    # configuration
    add("configuration:")
    add("  providers:")
    providers = ["    - managed", "    - file: config/ConfigurationProvider.json"]
    if variant != "client":
        providers.append(
            f"    - discovery-service: {{application-id: {app_id}, input: "
            + rng.choice(["email-address", "onboarding-code"]) + "}")
    providers.append("    - json")
    if rng.random() < 0.3:
        providers.append(f"    - url: {{allowed-hosts: [{app}.example.com, links.example.com]}}")
    L.extend(providers)
    if rng.random() < 0.5:
        add("  persist: state")
    if not use_map:
        add("  transform: discovery-service")
    else:
        add("  transform:")
        add("    map:")
        if rng.random() < 0.5:
            add("      " + rng.choice(COMMENTS))
        add("      host: {to: url, key: backendURL}")
        add("      validatingURL: {to: url, key: authenticationURL}")
        add("      settings: {to: settings-parameters, key: settingsParameters}")
        record = {
            "oauth": ("oauth2", "oauth2-parameters", "oauth2Parameters"),
            "basic": None,
            "saml": ("saml2", "saml-parameters", "samlParameters"),
            "client": ("oauth2", "oauth2-client-credentials-parameters", "oauth2ClientCredentialsParameters"),
        }[variant]
        if record:
            add(f"      {record[0]}: {{to: {record[1]}, key: {record[2]}}}")
        add("      someURL: {to: url, key: requiredURL}")
        add("      layout:")
        add("        map:")
        add("          title: {key: simpleStructure}")
        group = None
        for i, (key, typ, _) in enumerate(extras):
            source = key[0].lower() + key[1:].replace("URL", "Url")
            if i % 5 == 0:
                group = f"{rng.choice(WORDS)}{i}"
                add(f"      {group}:")
                add("        map:")
            add(f"          {source}: {{to: {typ}, key: {key}}}")

    add(f"authentication: {method}")

    # steps
    add("steps:")
    add("  welcome:  {uses: welcome}")
    add("  session:  {uses: session-configuration}")
    if variant == "oauth":
        presenter = rng.choice(["system-browser", "manual", "headless-form"])
        add(f"  auth:     {{uses: oauth2-authentication, with: {{presenter: {presenter}}}}}")
    elif variant == "basic":
        add("  auth:")
        add("    uses: basic-authentication")
        add("    description: Asks for the user name and password and checks them with a validating request.")
        add("    with: {username: '${input.username}', password: prompt}")
    elif variant == "saml":
        add("  auth:     {uses: saml-authentication, with: {presenter: system-browser}}")
    else:
        env = f"{app.upper()}_CLIENT_SECRET"
        add("  auth:")
        add("    uses: oauth2-authentication")
        add(f"    with: {{grant: client-credentials, client-secret: '${{env.{env}}}', scope: 'read write'}}")
    add("  settings: {uses: settings-download}")
    add(f"  store:    {{uses: store-manager, with: {{passcode: prompt, file: {app}.db}}}}")

    # flows
    attempts = rng.randint(2, 5)
    backoff = rng.choice(["250ms", "500ms", "1s", "2s"])
    add("flows:")
    add("  onboard:")
    add("    - welcome")
    add("    - session")
    add("    - step: auth")
    add(f"      retry: {{attempts: {attempts}, backoff: {backoff}}}")
    if rng.random() < 0.5:
        add(f"      timeout: {rng.choice(['30s', '60s', '2m'])}")
    add("    - settings")
    add("    - store")
    order = ["store", "welcome", "session", "auth", "settings"]
    add(f"  restore: [{', '.join(order)}]")
    # One file in ten resets without the welcome step (the restored configuration suffices).
    add("  reset: [store, auth]" if index % 10 == 0 else "  reset: [welcome, store, auth]")
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("n", nargs="?", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    master = random.Random(args.seed)
    variants = list(VARIANTS)
    total = 0
    for index in range(1, args.n + 1):
        variant = variants[(index - 1) % len(variants)]
        target = master.randint(1500, 4000)
        state = random.Random(master.getrandbits(64)).getstate()
        # Estimate the padding from two renders, then step up until the target size is reached.
        base = len(render(state, variant, index, 0))
        per = max(1.0, (len(render(state, variant, index, 10)) - base) / 10)
        extra = max(0, int((target - base) / per) - 1)
        text = render(state, variant, index, extra)
        while len(text.encode()) < target and extra < 200:
            extra += 1
            text = render(state, variant, index, extra)
        app = text.split("name: ", 1)[1].split("-", 1)[0]
        path = os.path.join(args.outdir, f"{app}-{variant}-{index}.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        total += len(text.encode())
    print(f"files={args.n} bytes={total}")


if __name__ == "__main__":
    sys.exit(main())
