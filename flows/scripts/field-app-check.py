#!/usr/bin/env python3
"""The app's own step for flows/generated-app.yaml, run by its `command` step after the store.

Reads the step's inputs as one JSON object on stdin (applicationID, deviceID, destinations, logPolicy), checks that
the backend hands out the `fieldapp` destination the app reads its work orders from, and prints the keys the step
declares in `provides` as one JSON object on stdout. A missing destination is exit status 1 with a message on
stderr, so that the flow's `on-failure` route applies. It sends nothing anywhere and reads no secret.
"""

import json
import sys


def main() -> int:
    inputs = json.load(sys.stdin)
    destinations = inputs.get("destinations") or []
    if isinstance(destinations, dict):
        names = list(destinations)
    else:
        names = [entry if isinstance(entry, str) else entry.get("name", "") for entry in destinations]
    if "fieldapp" not in names:
        print(f"the backend hands out no `fieldapp` destination (it has {names or 'none'})", file=sys.stderr)
        return 1
    json.dump({"workOrderDestination": "fieldapp", "appReady": True}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
