#!/usr/bin/env python3
"""Tallies one results folder of the official conformance suite.

usage: summarize.py RESULTS_DIR

The suite writes a checks.json (a list of {id, status, ...}) into one sub-folder per scenario
run. This prints one row per scenario with its counts of each status and the ids of the checks
that failed or warned, a total row, and last a machine-readable line that the gating scripts read:

    RESULT passed=P failed=F warnings=W skipped=S scenarios=N empty=E

`empty` counts scenarios that recorded no passing or failing check at all (a scenario that did not
really run). The exit status is 0 when the folder held at least one checks.json, else 1."""

import json
import os
import re
import sys
from collections import Counter

STATUSES = ("SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO")
# Folder names are "<scenario>-<ISO timestamp>" (server runs also put "server-" in front).
STAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[0-9-]+Z$")


def scenario_name(results_dir, folder):
    name = os.path.relpath(folder, results_dir)
    name = STAMP.sub("", name)
    return name[len("server-"):] if name.startswith("server-") else name


def find_runs(results_dir):
    """(scenario, checks) for every checks.json, oldest first."""
    found = []
    for folder, _, files in os.walk(results_dir):
        if "checks.json" in files:
            path = os.path.join(folder, "checks.json")
            found.append((os.path.getmtime(path), folder, path))
    runs = []
    for _, folder, path in sorted(found):
        with open(path, encoding="utf-8") as f:
            checks = json.load(f)
        runs.append((scenario_name(results_dir, folder), checks))
    return runs


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results_dir = sys.argv[1]
    runs = find_runs(results_dir)
    total = Counter()
    empty = []
    header = ["PASS", "FAIL", "WARN", "SKIP", "INFO"]
    print(f"{'scenario':<46}" + "".join(f"{h:>6}" for h in header) + "  failed or warned")
    for name, checks in runs:
        counts = Counter(check.get("status") for check in checks)
        total.update(counts)
        problems = [f"{c.get('id')}={c.get('status')}" for c in checks
                    if c.get("status") in ("FAILURE", "WARNING")]
        if counts["SUCCESS"] + counts["FAILURE"] == 0:
            empty.append(name)
        print(f"{name:<46}" + "".join(f"{counts[s]:>6}" for s in STATUSES)
              + ("  " + " ".join(problems) if problems else ""))
    print(f"{f'total ({len(runs)} scenarios)':<46}" + "".join(f"{total[s]:>6}" for s in STATUSES))
    if empty:
        print(f"note: no passing or failing check recorded by: {' '.join(empty)}")
    print(f"RESULT passed={total['SUCCESS']} failed={total['FAILURE']} "
          f"warnings={total['WARNING']} skipped={total['SKIPPED']} "
          f"scenarios={len(runs)} empty={len(empty)}")
    sys.exit(0 if runs else 1)


if __name__ == "__main__":
    main()
