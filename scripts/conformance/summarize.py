#!/usr/bin/env python3
"""Tallies one results folder of the official conformance suite.

usage: summarize.py RESULTS_DIR [SCORED]

The suite writes a checks.json (a list of {id, status, ...}) into one sub-folder per scenario
run. This prints one row per scenario with its counts of each status and the ids of the checks
that failed or warned, a total row, and last a machine-readable line that the gating scripts read:

    RESULT passed=P failed=F warnings=W skipped=S scenarios=N empty=E

`empty` counts scenarios that recorded no passing or failing check at all (a scenario that did not
really run). With SCORED (a file naming one scenario a line, e.g. the server scenarios a
requirement set scores), only those scenarios count toward the totals; the others are still
printed, marked "not scored", and `missing` counts scored scenarios that left no checks.json.
The exit status is 0 when the folder held at least one checks.json, else 1."""

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


def read_scored(path):
    """The scenario names in PATH, one a line (blank lines and # comments skipped)."""
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    results_dir = sys.argv[1]
    scored = read_scored(sys.argv[2]) if len(sys.argv) == 3 else None
    runs = find_runs(results_dir)
    total = Counter()
    empty = []
    header = ["PASS", "FAIL", "WARN", "SKIP", "INFO"]
    print(f"{'scenario':<46}" + "".join(f"{h:>6}" for h in header) + "  failed or warned")
    for name, checks in runs:
        counts = Counter(check.get("status") for check in checks)
        counted = scored is None or name in scored
        problems = [f"{c.get('id')}={c.get('status')}" for c in checks
                    if c.get("status") in ("FAILURE", "WARNING")]
        if counted:
            total.update(counts)
            if counts["SUCCESS"] + counts["FAILURE"] == 0:
                empty.append(name)
        print(f"{name:<46}" + "".join(f"{counts[s]:>6}" for s in STATUSES)
              + ("" if counted else "  (not scored)")
              + ("  " + " ".join(problems) if problems else ""))
    ran = [name for name, _ in runs if scored is None or name in scored]
    missing = sorted(set(scored) - set(ran)) if scored is not None else []
    print(f"{f'total ({len(ran)} scenarios)':<46}" + "".join(f"{total[s]:>6}" for s in STATUSES))
    if empty:
        print(f"note: no passing or failing check recorded by: {' '.join(empty)}")
    if missing:
        print(f"note: scored but not run: {' '.join(missing)}")
    print(f"RESULT passed={total['SUCCESS']} failed={total['FAILURE']} "
          f"warnings={total['WARNING']} skipped={total['SKIPPED']} "
          f"scenarios={len(ran)} empty={len(empty)} missing={len(missing)}")
    sys.exit(0 if runs else 1)


if __name__ == "__main__":
    main()
