#!/usr/bin/env bash
# An A/B of two builds of ours: the `ours` rows of bench/run.sh (stdio, Streamable HTTP with and
# without sessions, 2026-07-28 stateless POSTs on weather-server and on bench-weather, the client,
# idle sessions), with the same driver and sizes, in interleaved rounds: each round runs every row
# on both builds, the build that goes first alternating from round to round.
#
#   bench/ab.sh BEFORE_DIR AFTER_DIR
#   ROUNDS=5 ONLY="ours ours-modern" bench/ab.sh ../old/target/release target/release
#
# Each DIR is a `target/release` folder holding weather-server and bench-weather (`cargo build
# --release && cargo build --release -p bench-server --bins`) and examples/bench_client and
# examples/idle_sessions (their example targets: in bench-server today, in mcp-client and
# mcp-server in older trees). The harness (mcpbench, raw-rust) must be built: run bench/run.sh once,
# or build bench/harness into $MCP_BENCH_DIR/harness-target. ONLY takes the labels below and
# `client`, `idle`. Prints medians per build, the ratio after / before and the per-round ratios;
# raw lines go to $OUT/raw.jsonl, tagged with "side". Nothing else may run on the machine meanwhile.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
WORK=${MCP_BENCH_DIR:-$REPO/target/bench}
HARNESS_TARGET="$WORK/harness-target/release"
ROUNDS=${ROUNDS:-5}
OUT=${OUT:-$WORK/results/ab-$(date +%Y%m%d-%H%M%S)}
[[ $# == 2 ]] || { sed -n 2,16p "$0" >&2; exit 2; }
declare -A DIR=([before]="$(cd "$1" && pwd)" [after]="$(cd "$2" && pwd)")

# The sizes of bench/run.sh.
N_FAST=${N_FAST:-20000}; PIPE_FAST=${PIPE_FAST:-100000}; K=${K:-64}; SPAWNS=${SPAWNS:-20}
WARMUP=${WARMUP:-500}; HTTP_FAST=${HTTP_FAST:-20000}; CLIENT_N=${CLIENT_N:-5000}
MAX_SECS=${MAX_SECS:-30}; IDLE_SESSIONS=${IDLE_SESSIONS:-10000}
CLOCK="--clock 2026-08-02T07:00:00Z"
PORT=18130

say() { echo "ab: $*" >&2; }
MCPBENCH="$HARNESS_TARGET/mcpbench"
RAWRUST="$HARNESS_TARGET/raw-rust-weather"
for bin in "$MCPBENCH" "$RAWRUST"; do
  [[ -x "$bin" ]] || { say "missing $bin: build the harness (bench/run.sh does)"; exit 1; }
done
for side in before after; do
  for bin in weather-server bench-weather examples/bench_client examples/idle_sessions; do
    [[ -x "${DIR[$side]}/$bin" ]] || { say "missing ${DIR[$side]}/$bin"; exit 1; }
  done
done

mkdir -p "$OUT/logs"
RAW="$OUT/raw.jsonl"
: > "$RAW"
# shellcheck source=bench/servers.sh
source "$REPO/bench/servers.sh"
# record ROUND SIDE LABEL: stdin's JSON lines into raw.jsonl, tagged.
record() {
  sed -u "s/^{/{\"round\":$1,\"side\":\"$2\",\"row\":\"$3\",/" >> "$RAW"
}

# http ROUND SIDE LABEL ERA CMD...: one HTTP row on a fresh server.
http() {
  local round=$1 side=$2 label=$3 era=$4; shift 4
  selected "$label" || return 0
  say "[round $round] $side http $label"
  port_free "$PORT" || { say "$side $label: port $PORT is already in use; skipped"; return 0; }
  start_server "$OUT/logs/$side-$label" "$@"
  if listening "$PORT"; then
    timeout 400 "$MCPBENCH" http --label "$label" --era "$era" --http-n "$HTTP_FAST" -c 1,32 \
        --warmup "$WARMUP" --max-secs "$MAX_SECS" --hard-timeout 300 --server-pid "$SERVER" \
        "http://127.0.0.1:$PORT/mcp" 2>>"$OUT/logs/$side-$label.err" \
      | record "$round" "$side" "$label" || say "$side $label FAILED"
  else
    say "$side $label: nothing listens on $PORT"
  fi
  stop_server
}

# one ROUND SIDE: every selected row once on one build.
one() {
  local round=$1 side=$2 d=${DIR[$2]}
  local weather="${d}/weather-server"
  if selected ours; then
    say "[round $round] $side stdio ours"
    # shellcheck disable=SC2086
    timeout 400 "$MCPBENCH" stdio --label ours -n "$N_FAST" --pipe-n "$PIPE_FAST" -k "$K" \
        --spawns "$SPAWNS" --warmup "$WARMUP" --max-secs "$MAX_SECS" --hard-timeout 300 \
        -- "$weather" $CLOCK 2>>"$OUT/logs/$side-stdio.err" \
      | record "$round" "$side" stdio || say "$side stdio FAILED"
  fi
  # shellcheck disable=SC2086
  http "$round" "$side" ours legacy "$weather" $CLOCK --http "127.0.0.1:$PORT"
  # shellcheck disable=SC2086
  http "$round" "$side" ours-stateless legacy "$weather" $CLOCK --http "127.0.0.1:$PORT" --stateless
  # shellcheck disable=SC2086
  http "$round" "$side" ours-modern modern "$weather" $CLOCK --http "127.0.0.1:$PORT"
  http "$round" "$side" ours-table-modern modern "$d/bench-weather" "127.0.0.1:$PORT"
  if selected client; then
    say "[round $round] $side client"
    timeout 300 "$d/examples/bench_client" "$CLIENT_N" -- "$RAWRUST" 2>>"$OUT/logs/$side-client.err" \
      | sed -u 's/^{/{"metric":"client",/' | record "$round" "$side" client || say "$side client FAILED"
  fi
  if selected idle; then
    say "[round $round] $side idle sessions"
    port_free "$PORT" || { say "$side idle: port $PORT is already in use; skipped"; return 0; }
    # shellcheck disable=SC2086
    start_server "$OUT/logs/$side-idle" "$weather" $CLOCK --http "127.0.0.1:$PORT"
    if listening "$PORT"; then
      timeout 300 "$d/examples/idle_sessions" "http://127.0.0.1:$PORT/mcp" "$SERVER" \
          --sessions "$IDLE_SESSIONS" 2>>"$OUT/logs/$side-idle.err" \
        | record "$round" "$side" idle || say "$side idle FAILED"
    fi
    stop_server
  fi
}

{
  echo "date: $(date -Is)"; echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "nproc: $(nproc)"; echo "rustc: $(rustc --version)"
  echo "before: ${DIR[before]}"; echo "after: ${DIR[after]}"; echo "ROUNDS=$ROUNDS ONLY=${ONLY:-}"
} > "$OUT/env.txt"

for round in $(seq "$ROUNDS"); do
  if (( round % 2 )); then order="before after"; else order="after before"; fi
  for side in $order; do one "$round" "$side"; done
done

python3 - "$RAW" <<'EOF' | tee "$OUT/ab.md"
import json, statistics, sys
from collections import defaultdict
# metric -> the fields compared, each with whether higher is better
THROUGHPUT = [("calls_per_s", True), ("srv_cpu_us_per_call", False)]
FIELDS = {"seq": THROUGHPUT, "pipe": THROUGHPUT, "startup": [("p50_ms", False)],
          "rss": [("vmhwm_kib", False)], "http_c1": THROUGHPUT, "http_c32": THROUGHPUT,
          "client": [("calls_per_s", True)], "idle_session": [("bytes_per_session", False)]}
runs = defaultdict(dict)  # (row, metric, field) -> {(side, round): value}
for line in open(sys.argv[1]):
    m = json.loads(line)
    for field, _ in FIELDS.get(m.get("metric"), []):
        if m.get(field) is not None:
            runs[(m["row"], m["metric"], field)][(m["side"], m["round"])] = float(m[field])
print("| row | metric | before (median) | after (median) | after / before | per-round after / before |")
print("| --- | --- | --- | --- | --- | --- |")
for (row, metric, field), values in runs.items():
    higher = dict(FIELDS[metric])[field]
    both = sorted(r for s, r in values if s == "before" and ("after", r) in values)
    if not both:
        continue
    b = [values[("before", r)] for r in both]
    a = [values[("after", r)] for r in both]
    per = [x / y for x, y in zip(a, b) if y]
    mb, ma = statistics.median(b), statistics.median(a)
    ratio = f"{ma / mb:.3f}" if mb else "-"
    print(f"| {row} | {metric} {field}{'' if higher else ' (lower is better)'} | {mb:,.1f} | {ma:,.1f} "
          f"| {ratio} | {' '.join(f'{p:.2f}' for p in per)} |")
EOF
say "results: $OUT"
