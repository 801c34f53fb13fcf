#!/usr/bin/env python3
"""Prints the case x server matrix of conformance/RESULTS.md from the JSON reports that
conformance/tests/third_party.rs writes to target/conformance-matrix/PEER.json.

    python3 scripts/conformance/matrix.py [DIR]

Cells: P pass, F MUST failure, W SHOULD failure, - skip; a case that did not run on that
transport is blank. Then, per server, each failure with what was expected and what came.
"""

import json
import os
import sys

ORDER = [
    "server-everything-stdio", "server-everything-http",
    "ts-sdk-v2-stdio", "ts-sdk-v2-http",
    "python-sdk-v2-stdio", "python-sdk-v2-http",
    "fastmcp4-stdio", "fastmcp4-http",
    "rmcp3-stdio", "rmcp3-http",
]


def main() -> None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target", "conformance-matrix")
    reports = {}
    for peer in ORDER:
        path = os.path.join(folder, peer + ".json")
        if os.path.exists(path):
            with open(path) as f:
                reports[peer] = json.load(f)
    peers = [p for p in ORDER if p in reports]
    ids = []
    for peer in peers:
        for case in reports[peer]["cases"]:
            if case["id"] not in ids:
                ids.append(case["id"])
    short = {p: p.replace("server-everything", "everything").replace("-sdk", "") for p in peers}
    print("| case | level | " + " | ".join(short[p] for p in peers) + " |")
    print("|---|---|" + "---|" * len(peers))
    for cid in ids:
        cells, level = [], ""
        for peer in peers:
            case = next((c for c in reports[peer]["cases"] if c["id"] == cid), None)
            if case is None:
                cells.append("")
                continue
            level = case["level"]
            cells.append({"pass": "P", "skip": "-"}.get(case["result"], "F" if case["level"] == "MUST" else "W"))
        print(f"| `{cid}` | {level} | " + " | ".join(cells) + " |")
    print()
    print("| server | pass | fail (MUST) | skip | round trip |")
    print("|---|---|---|---|---|")
    for peer in peers:
        s = reports[peer]["summary"]
        rtt = reports[peer].get("roundTripMs")
        rtt = f"{rtt:.2f} ms" if isinstance(rtt, (int, float)) else "?"
        server = reports[peer].get("server") or {}
        name = f"{server.get('name', '?')} {server.get('version', '')}".strip()
        print(f"| {peer} ({name}) | {s['passed']} | {s['failed']} ({s['mustFailures']}) | {s['skipped']} | {rtt} |")
    for peer in peers:
        fails = [c for c in reports[peer]["cases"] if c["result"] == "fail"]
        if not fails:
            continue
        print(f"\n#### {peer}\n")
        for c in fails:
            got = c["got"].replace("\n", " ")
            if len(got) > 300:
                got = got[:300] + "…"
            print(f"- `{c['id']}` ({c['level']}): expected {c['expected']}; got {got}")


if __name__ == "__main__":
    main()
