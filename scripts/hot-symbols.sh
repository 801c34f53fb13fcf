#!/usr/bin/env bash
# Regenerates weather-server/hot-symbols.txt: every function of weather-server that runs while it
# starts, initializes, lists and serves get_weather calls over stdio, found with valgrind's
# callgrind (it sees every function executed, not a sample). weather-server/build.rs hands the
# list to the linker in release builds, which lays those functions out first and together.
#
#   scripts/hot-symbols.sh        (needs valgrind and python3; two release builds, then a minute)
#
# Two release builds are profiled: the one of a bare `cargo build --release` in the workspace
# (README's first command, the binary the benchmarks count) and the static one
# (scripts/build-static.sh). Their symbol names differ, so the list holds both: the hash in every
# name follows the crate's dependencies and features, which cargo unifies over what one command
# builds (a bare build builds mcp-cli too). So `cargo build --release -p weather-server` or
# `cargo install` get only part of the layout. Re-run this after a change of dependencies,
# features or rustc, or after large code changes (bench/run.sh says how much of the list the
# binary still has): the linker skips names it no longer finds, so a stale list only costs
# memory and start time, never correctness.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
LIST="$REPO/weather-server/hot-symbols.txt"
command -v valgrind >/dev/null || { echo "hot-symbols: valgrind is needed" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$REPO" && cargo build --release --quiet)
TARGET_DIR=$(cd "$REPO" && cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
BINS=("$TARGET_DIR/release/weather-server" "$("$REPO/scripts/build-static.sh")")

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
n=0
for bin in "${BINS[@]}"; do
  cat "$WORK/input" | valgrind --tool=callgrind --demangle=no --callgrind-out-file="$WORK/cg.$n" \
    "$bin" --clock 2026-08-02T07:00:00Z > "$WORK/output.$n" 2> "$WORK/valgrind.$n.log"
  answers=$(wc -l < "$WORK/output.$n")
  [[ "$answers" -ge 2005 ]] || { echo "hot-symbols: only $answers answers from $bin" >&2; exit 1; }
  n=$((n + 1))
done

python3 - "$LIST" "$WORK" "${BINS[@]}" <<'EOF'
import re, subprocess, sys
out, work, binaries = sys.argv[1], sys.argv[2], sys.argv[3:]
hot = set()
for n, binary in enumerate(binaries):
    ran = set()
    for line in open(f"{work}/cg.{n}"):
        m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if m:
            ran.add(m.group(1))
    defined = {}
    nm = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True)
    for line in nm.stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            defined[f[3]] = int(f[1], 16)
    mine = {name for name in ran if name in defined}
    size = sum(defined[name] for name in mine)
    total = sum(defined.values())
    print(f"hot-symbols: {binary}: {len(mine)} functions, {size // 1024} KiB of {total // 1024} KiB of code")
    hot |= mine
with open(out, "w") as f:
    f.write("\n".join(sorted(hot)) + "\n")
print(f"hot-symbols: {len(hot)} names -> {out}")
EOF
