#!/usr/bin/env python3
"""Prints an ApplicationSet's rollout as the fleetwave daemon advances it, one line per change.

  scripts/watch-rollout.py APPSET [--server URL] [--token-file F] [--sync-gates] [--timeout S]

Reads GET /api/v1/applicationsets/APPSET (stdlib only). Ends with exit 0 when the set's
condition says "ApplicationSet Rollout has completed". A step whose apps all stay Waiting while
the step before it is complete is a manual gate (maxUpdate: 0): without --sync-gates the script
says how to open it and exits 3; with --sync-gates it syncs the gate's apps itself (saying so)
and goes on. Exit 1 on timeout.
"""
import argparse
import json
import sys
import time
import urllib.error
import urllib.request

COMPLETED = "ApplicationSet Rollout has completed"


def get(server, path):
    with urllib.request.urlopen(server + path, timeout=5) as r:
        return json.load(r)


def post(server, path, token):
    req = urllib.request.Request(server + path, data=b"{}", method="POST",
                                 headers={"Authorization": "Bearer " + token,
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)


def stamp():
    return time.strftime("%H:%M:%S")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("appset")
    p.add_argument("--server", default="http://127.0.0.1:8089")
    p.add_argument("--token-file")
    p.add_argument("--sync-gates", action="store_true")
    p.add_argument("--timeout", type=float, default=300)
    a = p.parse_args()

    deadline = time.monotonic() + a.timeout
    seen = {}
    gate_since = {}
    synced = set()
    clusters = {}
    while time.monotonic() < deadline:
        try:
            appset = get(a.server, "/api/v1/applicationsets/" + a.appset)
            apps = get(a.server, "/api/v1/applications")
        except (urllib.error.URLError, OSError, ValueError):
            time.sleep(0.3)
            continue
        for app in apps.get("items", []):
            dest = app.get("spec", {}).get("destination", {})
            clusters[app["metadata"]["name"]] = dest.get("name") or dest.get("server", "")
        status = appset.get("status", {})
        entries = status.get("applicationStatus", [])
        for e in entries:
            key = e["application"]
            now = (e.get("status"), e.get("step"))
            if seen.get(key) != now:
                seen[key] = now
                print(f"{stamp()}  step {e.get('step'):>2}  {key:<32} {e.get('status'):<12} "
                      f"{e.get('message', '')}")
        messages = [c.get("message", "") for c in status.get("conditions", [])]
        if COMPLETED in messages:
            print(f"{stamp()}  {COMPLETED}")
            return 0
        # A manual gate: the lowest step with an unfinished app holds only Waiting apps.
        steps = {}
        for e in entries:
            if e.get("step", "-1") != "-1":
                steps.setdefault(int(e["step"]), []).append(e)
        current = min((s for s, es in steps.items()
                       if any(x.get("status") != "Healthy" for x in es)), default=None)
        if current is not None and all(x.get("status") == "Waiting" for x in steps[current]):
            since = gate_since.setdefault(current, time.monotonic())
            if time.monotonic() - since >= 2.0 and current not in synced:
                names = [x["application"] for x in steps[current]]
                if not a.sync_gates or not a.token_file:
                    print(f"\nStep {current} is a manual gate (maxUpdate: 0). Open it with:")
                    for n in names:
                        print(f"  curl -X POST -H \"Authorization: Bearer $(cat TOKEN_FILE)\" "
                              f"{a.server}/api/v1/applications/{n}/sync")
                    return 3
                token = open(a.token_file).read().strip()
                for n in names:
                    print(f"{stamp()}  step {current} is a manual gate (maxUpdate: 0): syncing {n} "
                          f"for you (POST /api/v1/applications/{n}/sync)")
                    post(a.server, f"/api/v1/applications/{n}/sync", token)
                synced.add(current)
        else:
            gate_since.pop(current, None)
        time.sleep(0.3)
    print(f"timed out after {a.timeout:.0f} s waiting for the rollout of {a.appset}",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
