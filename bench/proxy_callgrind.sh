#!/usr/bin/env bash
# Instructions per forwarded call in the `mcp proxy` process (issue 21), counted by callgrind:
# a sequential stdio driver makes 100 and then 2,100 `tools/call weather__get_weather` through
# `mcp --config CFG proxy` (weather-server as the only server, run natively), each under
# callgrind; (total(2100) - total(100)) / 2000 is the cost of one call without start-up.
# Instruction counts do not move with the machine's load, unlike throughput.
#
#   bench/proxy_callgrind.sh               builds a release with line tables and thin LTO in
#                                          target/profiling (the shipped build is fat LTO)
#   MCP=… WEATHER=… bench/proxy_callgrind.sh   counts other binaries
#   KEEP_WORK=DIR bench/proxy_callgrind.sh    keeps the callgrind files in DIR (callgrind_annotate)
# Needs valgrind (apt-get install valgrind). Nothing in `cargo test` runs this script.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PROFILE_TARGET=${PROFILE_TARGET:-$REPO/target/profiling}
if [[ -z "${MCP:-}" || -z "${WEATHER:-}" ]]; then
  (cd "$REPO" && CARGO_TARGET_DIR="$PROFILE_TARGET" CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
    CARGO_PROFILE_RELEASE_LTO=thin CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo build --release --quiet -p weather-server -p mcp-cli)
fi
MCP=${MCP:-$PROFILE_TARGET/release/mcp}
WEATHER=${WEATHER:-$PROFILE_TARGET/release/weather-server}
WORK=${KEEP_WORK:-$(mktemp -d)}
[[ -n "${KEEP_WORK:-}" ]] || trap 'rm -rf "$WORK"' EXIT
printf '{"mcpServers":{"weather":{"command":"%s","args":["--clock","2026-08-02T07:00:00Z"]}}}\n' \
  "$WEATHER" > "$WORK/hub.json"
cat > "$WORK/driver.py" <<'PY'
import json, subprocess, sys
n = int(sys.argv[1]); cmd = sys.argv[2:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
def answer():
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("the proxy closed its output")
        m = json.loads(line)
        if "id" in m and ("result" in m or "error" in m):
            return m
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "driver", "version": "1"}}})
answer(); send({"jsonrpc": "2.0", "method": "notifications/initialized"})
for i in range(1, n + 1):
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
          "params": {"name": "weather__get_weather", "arguments": {"city": "Shenzhen"}}})
    m = answer()
    if "error" in m or m["result"].get("isError"):
        sys.exit(f"call {i} failed: {m}")
p.stdin.close(); p.wait(timeout=30)
PY
total() { # N: instructions of the proxy process over N calls
  timeout 600 python3 "$WORK/driver.py" "$1" valgrind --tool=callgrind \
    --callgrind-out-file="$WORK/cg.$1" "$MCP" --config "$WORK/hub.json" proxy 2>/dev/null
  callgrind_annotate "$WORK/cg.$1" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done {gsub(",", "", $1); print $1; done = 1}'
}
small=$(total 100); large=$(total 2100)
echo "mcp proxy: $(( (large - small) / 2000 )) instructions per forwarded call ($small over 100 calls, $large over 2,100)"
