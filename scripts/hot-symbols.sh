#!/usr/bin/env bash
# Regenerates weather-server/hot-symbols.txt: every function of the static weather-server that
# runs while it starts, initializes, lists and serves get_weather calls over stdio, found with
# valgrind's callgrind (it sees every function executed, not a sample). scripts/build-static.sh
# hands the list to the linker, which lays those functions out first and together.
#
#   scripts/hot-symbols.sh        (needs valgrind and python3; takes about a minute after the build)
#
# Re-run it after large changes or a new rustc: names that no longer exist are skipped by the
# linker, so a stale list only costs memory and start time, never correctness.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
LIST="$REPO/weather-server/hot-symbols.txt"
command -v valgrind >/dev/null || { echo "hot-symbols: valgrind is needed" >&2; exit 1; }
BIN=$("$REPO/scripts/build-static.sh")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK/input" <<'EOF'
import sys
lines = [
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"hot-symbols","version":"1"}}}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":"tools","method":"tools/list"}',
    '{"jsonrpc":"2.0","id":"resources","method":"resources/list"}',
    '{"jsonrpc":"2.0","id":"prompts","method":"prompts/list"}',
    '{"jsonrpc":"2.0","id":"ping","method":"ping"}',
]
for i, city in enumerate(["shenzhen", "london", "Tokyo", "nowhere"] * 500):
    lines.append('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_weather",'
                 '"arguments":{"city":"%s"}}}' % (i + 1, city))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
EOF

# stdin through a pipe, as under a real client (a file would take tokio's fallback path).
cat "$WORK/input" | valgrind --tool=callgrind --demangle=no --callgrind-out-file="$WORK/cg.out" \
  "$BIN" --clock 2026-08-02T07:00:00Z > "$WORK/output" 2> "$WORK/valgrind.log"
answers=$(wc -l < "$WORK/output")
[[ "$answers" -ge 2005 ]] || { echo "hot-symbols: only $answers answers; see the run" >&2; exit 1; }

python3 - "$WORK/cg.out" "$BIN" "$LIST" <<'EOF'
import re, subprocess, sys
profile, binary, out = sys.argv[1:]
ran = set()
for line in open(profile):
    m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
    if m:
        ran.add(m.group(1))
defined = {}
nm = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True)
for line in nm.stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[2] in "tTwW":
        defined[f[3]] = int(f[1], 16)
hot = sorted(n for n in ran if n in defined)
with open(out, "w") as f:
    f.write("\n".join(hot) + "\n")
size = sum(defined[n] for n in hot)
print(f"hot-symbols: {len(hot)} functions, {size // 1024} KiB of {sum(defined.values()) // 1024} KiB of code -> {out}")
EOF
