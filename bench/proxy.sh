#!/usr/bin/env bash
# The overhead of `mcp proxy` (issue 21): weather-server direct against weather-server behind
# `mcp proxy`, both over stdio, sequential and pipelined, measured by the harness's driver
# (mcpbench) in interleaved rounds; medians and the ratio/added time per call at the end.
#
#   bench/proxy.sh                      build what is missing (release), 3 rounds
#   ROUNDS=5 N=20000 PIPE_N=100000 bench/proxy.sh
#   BASE_WEATHER=/path/weather-server BASE_MCP=/path/mcp bench/proxy.sh
#                                       also rows base-direct/base-proxy from another build (a
#                                       commit before a change), to check the change costs nothing
# Goal: proxy >= 0.5x direct throughput and <= 15 us added per sequential call.
# Row `relay` is weather-server behind the harness's byte-relay, a process that copies bytes and
# parses nothing: the floor of any process between client and server on this machine. Row
# `raw-proxy` is the harness's hand-written proxy (std + serde_json, every message parsed into a
# Value and written again, tool names prefixed): the practical limit of a proxy that reads.
# Results: $OUT (default target/bench/proxy-<stamp>) raw.jsonl and summary.txt.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
HARNESS="$REPO/bench/harness"
WORK=${MCP_BENCH_DIR:-$REPO/target/bench}
ROUNDS=${ROUNDS:-3}; N=${N:-20000}; PIPE_N=${PIPE_N:-100000}; K=${K:-64}; WARMUP=${WARMUP:-500}
OUT=${OUT:-$WORK/proxy-$(date +%Y%m%d-%H%M%S)}
CLOCK="2026-08-02T07:00:00Z"
say() { echo "bench/proxy: $*" >&2; }

TARGET=$(cd "$REPO" && cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
HARNESS_TARGET=${HARNESS_TARGET:-$WORK/harness-target}
MCPBENCH="$HARNESS_TARGET/release/mcpbench"
RELAY="$HARNESS_TARGET/release/byte-relay"
RAWPROXY="$HARNESS_TARGET/release/raw-proxy"
WEATHER=${WEATHER:-$TARGET/release/weather-server}
MCP=${MCP:-$TARGET/release/mcp}
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  CARGO_TARGET_DIR="$HARNESS_TARGET" cargo build --release --quiet --locked \
    --manifest-path "$HARNESS/Cargo.toml" -p mcpbench -p proxy-floor
  (cd "$REPO" && cargo build --release --quiet -p weather-server -p mcp-cli)
fi

mkdir -p "$OUT"
RAW="$OUT/raw.jsonl"; : > "$RAW"
config() { # WEATHER-BINARY FILE: a hub config with weather-server as server `weather`
  printf '{"mcpServers":{"weather":{"command":"%s","args":["--clock","%s"]}}}\n' "$1" "$CLOCK" > "$2"
}
config "$WEATHER" "$OUT/ours.json"
rows=("direct|get_weather|$WEATHER --clock $CLOCK"
      "proxy|weather__get_weather|$MCP --config $OUT/ours.json proxy"
      "relay|get_weather|$RELAY $WEATHER --clock $CLOCK"
      "raw-proxy|weather__get_weather|$RAWPROXY weather__ $WEATHER --clock $CLOCK")
if [[ -n "${BASE_WEATHER:-}" && -n "${BASE_MCP:-}" ]]; then
  config "$BASE_WEATHER" "$OUT/base.json"
  rows+=("base-direct|get_weather|$BASE_WEATHER --clock $CLOCK"
         "base-proxy|weather__get_weather|$BASE_MCP --config $OUT/base.json proxy")
fi

for round in $(seq 1 "$ROUNDS"); do
  for row in "${rows[@]}"; do
    IFS='|' read -r label tool cmd <<< "$row"
    say "[round $round] $label"
    # shellcheck disable=SC2086 # the command is word-split on purpose
    timeout 400 "$MCPBENCH" stdio --label "$label" --tool "$tool" --modes seq,pipe -n "$N" \
        --pipe-n "$PIPE_N" -k "$K" --warmup "$WARMUP" --max-secs 30 --hard-timeout 300 \
        -- $cmd 2>>"$OUT/$label.err" \
      | python3 -c "import json,sys
for l in sys.stdin:
    d=json.loads(l); d['round']=$round; print(json.dumps(d))" >> "$RAW"
  done
done

python3 - "$RAW" <<'EOF' | tee "$OUT/summary.txt"
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(label, metric, field):
    v = [r[field] for r in rows if r.get("impl") == label and r.get("metric") == metric and field in r]
    return statistics.median(v) if v else None
order = ["direct", "proxy", "relay", "raw-proxy", "base-direct", "base-proxy"]
labels = sorted({r["impl"] for r in rows}, key=lambda l: order.index(l) if l in order else 9)
print(f"{'row':<12} {'seq calls/s':>12} {'seq p50 us':>11} {'seq mean us':>12} {'pipe calls/s':>13}  rounds")
for l in labels:
    n = len([r for r in rows if r.get("impl") == l and r.get("metric") == "seq"])
    print(f"{l:<12} {med(l,'seq','calls_per_s') or 0:>12,.0f} {med(l,'seq','p50_us') or 0:>11.1f} {med(l,'seq','mean_us') or 0:>12.1f} {med(l,'pipe','calls_per_s') or 0:>13,.0f}  {n}")
for d, p in (("direct", "proxy"), ("direct", "relay"), ("direct", "raw-proxy"), ("base-direct", "base-proxy")):
    if med(d, "seq", "calls_per_s") and med(p, "seq", "calls_per_s"):
        print(f"{p} / {d}: seq {med(p,'seq','calls_per_s')/med(d,'seq','calls_per_s'):.2f}x, "
              f"pipelined {med(p,'pipe','calls_per_s')/med(d,'pipe','calls_per_s'):.2f}x, "
              f"added per sequential call {med(p,'seq','mean_us')-med(d,'seq','mean_us'):.1f} us (mean), "
              f"{med(p,'seq','p50_us')-med(d,'seq','p50_us'):.1f} us (p50)")
EOF
