#!/usr/bin/env python3
"""Device posture check for flows/oauth2-device-check.yaml, run by its `command` step.

Reads the step's inputs as one JSON object on stdin (applicationID, deviceID, passcodePolicy),
prints the keys the step declares in `provides` as one JSON object on stdout, and exits non-zero
when the device does not meet the requirement, so that the flow's `on-failure` route applies.
Messages for people go to stderr.
"""

import json
import os
import platform
import shutil
import subprocess
import sys


def disk_encrypted() -> bool:
    """Best effort: a dm-crypt/LUKS mapping on Linux, FileVault on macOS."""
    system = platform.system()
    try:
        if system == "Linux" and shutil.which("lsblk"):
            types = subprocess.run(["lsblk", "-nro", "TYPE"], capture_output=True, text=True, timeout=10).stdout
            return "crypt" in types.split()
        if system == "Darwin" and shutil.which("fdesetup"):
            status = subprocess.run(["fdesetup", "status"], capture_output=True, text=True, timeout=10).stdout
            return "FileVault is On" in status
    except (OSError, subprocess.SubprocessError):
        pass
    return False


def main() -> int:
    try:
        inputs = json.load(sys.stdin)
    except json.JSONDecodeError as error:
        print(f"device-posture: cannot read the inputs: {error}", file=sys.stderr)
        return 2

    encrypted = disk_encrypted()
    policy = inputs.get("passcodePolicy") or {}
    report = (
        f"{platform.system()} {platform.release()}; disk encryption {'on' if encrypted else 'off'}; "
        f"store passcode policy {'on' if policy.get('enabled', True) else 'off'}, "
        f"min length {policy.get('minLength', 8)}; device {inputs.get('deviceID', '?')} "
        f"for {inputs.get('applicationID', '?')}"
    )
    json.dump({"diskEncrypted": encrypted, "postureReport": report}, sys.stdout)
    print()

    required = os.environ.get("REQUIRE_DISK_ENCRYPTION", "true").lower() == "true"
    if required and not encrypted:
        print("device-posture: this device's disk is not encrypted; the app's data may not be kept here.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
