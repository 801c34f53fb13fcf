#!/usr/bin/env bash
# The whole benchmark in one command: the comparison peers of bench/harness/ (raw Rust, raw hyper,
# rmcp, the TypeScript and Python SDKs) and ours, measured in the same session by the harness's
# driver (mcpbench) with interleaved rounds, then the harness's summary and our targets
# (bench/targets.py). See docs/perf/notebook.md and bench/harness/README.md.
#
#   bench/run.sh                    build what is missing, 3 rounds, medians
#   QUICK=1 bench/run.sh            smoke run: tiny N, 1 round
#   ROUNDS=5 bench/run.sh
#   ONLY="raw-rust rmcp-stdio_pipes raw-hyper raw-hyper-stateless ours ours-stateless" bench/run.sh
#   ONLY="raw-hyper-stateless-modern ours-modern ours-table-modern" bench/run.sh
#                                   2026-07-28 stateless POSTs only
#   SKIP_BUILD=1 bench/run.sh       build nothing (everything must already be built)
#
# Labels for ONLY: the stdio and HTTP rows below; clients need "clients" or "client-LABEL"
# (e.g. client-ours-client); the idle-session measurement runs with "ours" or "idle".
# Where things go:
#   MCP_BENCH_DIR      working folder (default: target/bench of the repo): the harness's cargo
#                      builds ($MCP_BENCH_DIR/harness-target), the TypeScript peers with their
#                      node_modules ($MCP_BENCH_DIR/ts), the Python venvs ($MCP_BENCH_DIR/py-mcp2,
#                      py-mcp1); results go to $MCP_BENCH_DIR/results/<stamp>/ (or OUT)
# Nothing in `cargo test` runs this script.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
HARNESS="$REPO/bench/harness"
WORK=${MCP_BENCH_DIR:-$REPO/target/bench}
ROUNDS=${ROUNDS:-3}
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${OUT:-$WORK/results/$STAMP}

say() { echo "bench: $*" >&2; }
fail() { say "$*"; exit 1; }

# ---- sizes (the same names, defaults and QUICK values as docs/perf/notebook.md's runs) -------------------
N_FAST=${N_FAST:-20000}; N_SLOW=${N_SLOW:-5000}
PIPE_FAST=${PIPE_FAST:-100000}; PIPE_SLOW=${PIPE_SLOW:-10000}
K=${K:-64}; SPAWNS=${SPAWNS:-20}; WARMUP=${WARMUP:-500}
HTTP_FAST=${HTTP_FAST:-20000}; HTTP_MED=${HTTP_MED:-6000}; HTTP_SLOW=${HTTP_SLOW:-2000}
HTTP_NAGLE=${HTTP_NAGLE:-200}; CLIENT_N=${CLIENT_N:-5000}; MAX_SECS=${MAX_SECS:-30}
IDLE_SESSIONS=${IDLE_SESSIONS:-10000}
if [[ "${QUICK:-0}" == 1 ]]; then
  ROUNDS=1; N_FAST=2000; N_SLOW=500; PIPE_FAST=10000; PIPE_SLOW=1000; SPAWNS=3; WARMUP=50
  HTTP_FAST=2000; HTTP_MED=600; HTTP_SLOW=200; HTTP_NAGLE=40; CLIENT_N=300; IDLE_SESSIONS=2000
fi
# Ours: the fixed clock makes get_weather("shenzhen") answer "thunderstorms", as the driver checks.
CLOCK="--clock 2026-08-02T07:00:00Z"
PORT_OURS=18120; PORT_OURS_STATELESS=18121; PORT_IDLE=18122; PORT_OURS_MODERN=18123
PORT_OURS_TABLE_MODERN=18124

# ---- the harness: built and installed under $WORK, sources stay in bench/harness ---------------
HARNESS_TARGET="$WORK/harness-target"
MCPBENCH="$HARNESS_TARGET/release/mcpbench"
RAWRUST="$HARNESS_TARGET/release/raw-rust-weather"
RAWHYPER="$HARNESS_TARGET/release/raw-hyper-weather"
RMCP="$HARNESS_TARGET/release"
TS="$WORK/ts"
PY2="$WORK/py-mcp2/bin/python"
PY1="$WORK/py-mcp1/bin/python"
PYSERVER="$HARNESS/py/server.py"
PYCLIENT="$HARNESS/py/client.py"

# venv DIR REQUIREMENTS: a Python venv at DIR holding exactly REQUIREMENTS (remade when they change).
venv() {
  local dir=$1 requirements=$2
  if [[ -x "$dir/bin/python" ]] && cmp -s "$requirements" "$dir/requirements.txt"; then return 0; fi
  say "installing $(basename "$requirements") into $dir"
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$dir/requirements.txt"
}

# The TypeScript peers run from $TS, where npm ci puts the pinned SDK beside them.
ts_peers() {
  mkdir -p "$TS"
  cp "$HARNESS"/ts/*.mjs "$TS/"
  if [[ -d "$TS/node_modules/@modelcontextprotocol/sdk" ]] \
     && cmp -s "$HARNESS/ts/package-lock.json" "$TS/package-lock.json"; then return 0; fi
  say "installing the TypeScript SDK peers into $TS"
  cp "$HARNESS/ts/package.json" "$HARNESS/ts/package-lock.json" "$TS/"
  (cd "$TS" && npm ci --silent --no-audit --no-fund)
}

# Our binaries land in the workspace's target directory (CARGO_TARGET_DIR or build.target-dir).
TARGET=$(cd "$REPO" && cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
# weather-server as `cargo build --release` makes it (README's first command), the binary every
# `ours` row counts, and the static build of scripts/build-static.sh (static, hot code laid out
# together), shown beside it as row ours-static.
WEATHER="$TARGET/release/weather-server"
# bench-weather (the bench-server member): the peers' own five-city tool on mcp-server, so its
# row against raw-hyper measures the toolkit alone, without the sample's weather model.
BENCH_WEATHER="$TARGET/release/bench-weather"
WEATHER_STATIC=$("$REPO/scripts/build-static.sh" --print-path)
CLIENT="$TARGET/release/examples/bench_client"
IDLE="$TARGET/release/examples/idle_sessions"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  say "building the harness (idempotent)"
  # Its own workspace and target folder: none of it enters the main workspace's build. Each crate
  # is built on its own so that no peer gets another's dependency features.
  for crate in mcpbench raw-rust-weather raw-hyper-weather rmcp-weather; do
    CARGO_TARGET_DIR="$HARNESS_TARGET" cargo build --release --quiet --locked \
      --manifest-path "$HARNESS/Cargo.toml" -p "$crate"
  done
  ts_peers
  venv "$WORK/py-mcp2" "$HARNESS/py/requirements-mcp2.txt"
  venv "$WORK/py-mcp1" "$HARNESS/py/requirements-mcp1.txt"
  say "building ours (release)"
  "$REPO/scripts/build-static.sh" > /dev/null
  # A bare `cargo build --release` is README's first command (the default members): the
  # weather-server it makes is the binary every `ours` row counts. bench-server and the drivers
  # are built apart, so they cannot change that binary's dependency features.
  (cd "$REPO" && cargo build --release --quiet \
     && cargo build --release --quiet -p bench-server --bins --example bench_client --example idle_sessions)
fi
for bin in "$MCPBENCH" "$RAWRUST" "$WEATHER" "$BENCH_WEATHER" "$WEATHER_STATIC" "$CLIENT" "$IDLE"; do
  [[ -x "$bin" ]] || fail "missing $bin (run without SKIP_BUILD=1)"
done
# How much of the hot-code list (weather-server/build.rs) the measured binary still has: a list
# gone stale (new dependencies, features or rustc) shows as more resident memory.
if command -v nm > /dev/null; then
  hot=$(nm --defined-only "$WEATHER" | awk 'NR == FNR { listed[$1] = 1; next } ($3 in listed) { n++ } END { print n + 0 }' \
    "$REPO/weather-server/hot-symbols.txt" -)
  say "hot-code layout: $hot of the listed functions are in $WEATHER (re-run scripts/hot-symbols.sh if far below 600)"
fi

# ---- bookkeeping ------------------------------------------------------------------------------
mkdir -p "$OUT/logs"
RAW="$OUT/raw.jsonl"
: > "$RAW"
# shellcheck source=bench/servers.sh
source "$REPO/bench/servers.sh"
# record ROUND: append stdin's JSON lines to raw.jsonl with the round number in front.
record() { sed -u "s/^{/{\"round\":$1,/" >> "$RAW"; }

# ---- the rows: the peers', plus ours ---------------------------------------------------------
# stdio: label | sequential N | pipelined N | command
STDIO_ROWS=(
  "raw-rust|$N_FAST|$PIPE_FAST|$RAWRUST"
  "rmcp|$N_FAST|$PIPE_FAST|$RMCP/rmcp-weather-stdio"
  "rmcp-stdio_pipes|$N_FAST|$PIPE_FAST|$RMCP/rmcp-weather-stdio-pipes"
  "ts-sdk|$N_FAST|$PIPE_FAST|node $TS/server-stdio.mjs"
  "raw-node|$N_FAST|$PIPE_FAST|node $TS/raw-server.mjs"
  "py-mcp2|$N_SLOW|$PIPE_SLOW|$PY2 $PYSERVER stdio"
  "py-fastmcp1|$N_SLOW|$PIPE_SLOW|$PY1 $PYSERVER stdio"
  "ours|$N_FAST|$PIPE_FAST|$WEATHER $CLOCK"
  "ours-static|$N_FAST|$PIPE_FAST|$WEATHER_STATIC $CLOCK"
)
# HTTP: label | calls per concurrency level | port | command ({PORT} is substituted)
HTTP_ROWS=(
  "raw-hyper|$HTTP_FAST|18110|$RAWHYPER {PORT} stateful"
  "raw-hyper-stateless|$HTTP_FAST|18111|$RAWHYPER {PORT} stateless"
  "rmcp|$HTTP_FAST|18101|$RMCP/rmcp-weather-http {PORT} stateful nodelay"
  "rmcp-stateless|$HTTP_FAST|18102|$RMCP/rmcp-weather-http {PORT} stateless nodelay"
  "rmcp-axum-default|$HTTP_NAGLE|18103|$RMCP/rmcp-weather-http {PORT} stateful default"
  "ts-sdk|$HTTP_MED|18104|node $TS/server-http.mjs {PORT} stateful"
  "ts-sdk-stateless|$HTTP_MED|18105|node $TS/server-http.mjs {PORT} stateless"
  "py-mcp2|$HTTP_SLOW|18106|$PY2 $PYSERVER http {PORT} stateful"
  "py-mcp2-stateless|$HTTP_SLOW|18107|$PY2 $PYSERVER http {PORT} stateless"
  "py-fastmcp1|$HTTP_SLOW|18108|$PY1 $PYSERVER http {PORT} stateful"
  "py-fastmcp1-stateless|$HTTP_SLOW|18109|$PY1 $PYSERVER http {PORT} stateless"
  "ours|$HTTP_FAST|$PORT_OURS|$WEATHER $CLOCK --http 127.0.0.1:{PORT}"
  "ours-stateless|$HTTP_FAST|$PORT_OURS_STATELESS|$WEATHER $CLOCK --http 127.0.0.1:{PORT} --stateless"
)
# HTTP, 2026-07-28: the same servers, driven with stateless modern POSTs (mcpbench --era modern:
# no initialize, `_meta` and the mirrored headers on every call). Same fields as HTTP_ROWS.
MODERN_ROWS=(
  "raw-hyper-stateless-modern|$HTTP_FAST|18112|$RAWHYPER {PORT} stateless"
  "ours-modern|$HTTP_FAST|$PORT_OURS_MODERN|$WEATHER $CLOCK --http 127.0.0.1:{PORT}"
  "ours-table-modern|$HTTP_FAST|$PORT_OURS_TABLE_MODERN|$BENCH_WEATHER 127.0.0.1:{PORT}"
)
# clients (each against the raw Rust stdio server): label | command
CLIENT_ROWS=(
  "rmcp-client|$RMCP/rmcp-client $CLIENT_N -- $RAWRUST"
  "ts-client|node $TS/client.mjs $CLIENT_N $RAWRUST"
  "py-mcp2-client|$PY2 $PYCLIENT $CLIENT_N $RAWRUST"
  "py-mcp1-client|$PY1 $PYCLIENT $CLIENT_N $RAWRUST"
  "ours-client|$CLIENT $CLIENT_N -- $RAWRUST"
)

# ---- one measurement each ----------------------------------------------------------------------
measure_stdio() { # ROUND ROW
  local round=$1 label n pipe_n cmd
  IFS='|' read -r label n pipe_n cmd <<< "$2"
  selected "$label" || return 0
  say "[round $round] stdio $label"
  # shellcheck disable=SC2086 # the command is word-split on purpose
  timeout 400 "$MCPBENCH" stdio --label "$label" -n "$n" --pipe-n "$pipe_n" -k "$K" \
      --spawns "$SPAWNS" --warmup "$WARMUP" --max-secs "$MAX_SECS" --hard-timeout 300 \
      -- $cmd 2>>"$OUT/logs/stdio-$label.err" | record "$round" \
    || say "stdio $label FAILED (see $OUT/logs/stdio-$label.err)"
}

measure_http() { # ROUND ROW [ERA]
  local round=$1 label n port cmd era=${3:-legacy}
  IFS='|' read -r label n port cmd <<< "$2"
  selected "$label" || return 0
  say "[round $round] http $label"
  port_free "$port" || { say "http $label: port $port is already in use; skipped"; return 0; }
  # shellcheck disable=SC2086
  start_server "$OUT/logs/http-$label" ${cmd//\{PORT\}/$port}
  if ! listening "$port"; then
    say "http $label: nothing listens on port $port"
    stop_server
    return 0
  fi
  timeout 400 "$MCPBENCH" http --label "$label" --era "$era" --http-n "$n" -c 1,32 --warmup "$WARMUP" \
      --max-secs "$MAX_SECS" --hard-timeout 300 --server-pid "$SERVER" \
      "http://127.0.0.1:$port/mcp" 2>>"$OUT/logs/http-$label.err" | record "$round" \
    || say "http $label FAILED (see $OUT/logs/http-$label.err)"
  stop_server
}

measure_client() { # ROUND ROW
  local round=$1 label cmd
  IFS='|' read -r label cmd <<< "$2"
  selected "client-$label" || selected clients || return 0
  say "[round $round] client $label"
  # shellcheck disable=SC2086
  timeout 300 $cmd 2>>"$OUT/logs/client-$label.err" \
    | sed -u "s/^{/{\"impl\":\"$label\",\"transport\":\"stdio\",\"metric\":\"client\",/" \
    | record "$round" || say "client $label FAILED (see $OUT/logs/client-$label.err)"
}

# The driver itself as a no-SDK client: the reference row of the client table.
measure_raw_client() { # ROUND
  selected raw-rust || return 0
  timeout 120 "$MCPBENCH" stdio --label mcpbench-client --modes seq -n "$CLIENT_N" --warmup 0 \
      -- "$RAWRUST" 2>>"$OUT/logs/client-mcpbench.err" \
    | sed -u 's/"metric":"seq"/"metric":"client"/' | record "$1" || true
}

# Memory per idle session: a fresh stateful server of ours, IDLE_SESSIONS sessions held open.
measure_idle() { # ROUND
  local round=$1
  selected ours || selected idle || return 0
  say "[round $round] idle sessions ours ($IDLE_SESSIONS)"
  port_free "$PORT_IDLE" || { say "idle: port $PORT_IDLE is already in use; skipped"; return 0; }
  # shellcheck disable=SC2086
  start_server "$OUT/logs/idle-ours" $WEATHER $CLOCK --http "127.0.0.1:$PORT_IDLE"
  if ! listening "$PORT_IDLE"; then
    say "idle: nothing listens on port $PORT_IDLE"
    stop_server
    return 0
  fi
  timeout 300 "$IDLE" "http://127.0.0.1:$PORT_IDLE/mcp" "$SERVER" --sessions "$IDLE_SESSIONS" \
      2>>"$OUT/logs/idle-ours.err" \
    | sed -u 's/^{/{"impl":"ours","transport":"http",/' | record "$round" \
    || say "idle sessions FAILED (see $OUT/logs/idle-ours.err)"
  stop_server
}

# ---- the machine and the versions --------------------------------------------------------------
version_of() { grep -A1 "name = \"$1\"" "$2" 2>/dev/null | sed -n 's/^version = "\(.*\)"/\1/p' | head -1; }
{
  echo "date: $(date -Is)"
  echo "kernel: $(uname -srm)"
  echo "nproc: $(nproc)"
  echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "rustc: $(rustc --version)"
  echo "node: $(node --version 2>/dev/null || echo none)"
  echo "python: $(python3 --version 2>&1)"
  echo "ours: $(cd "$REPO" && git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "hyper (raw-hyper): $(version_of hyper "$HARNESS/Cargo.lock")"
  echo "rmcp: $(version_of rmcp "$HARNESS/Cargo.lock")"
  echo "typescript sdk: $(sed -n 's/^ *"version": "\(.*\)",$/\1/p' \
    "$TS/node_modules/@modelcontextprotocol/sdk/package.json" 2>/dev/null | head -1)"
  echo "python mcp: $("$PY2" -m pip show mcp 2>/dev/null | sed -n 's/^Version: //p') (py-mcp2)," \
    "$("$PY1" -m pip show mcp 2>/dev/null | sed -n 's/^Version: //p') (py-fastmcp1)"
  echo "N_FAST=$N_FAST N_SLOW=$N_SLOW PIPE_FAST=$PIPE_FAST PIPE_SLOW=$PIPE_SLOW K=$K SPAWNS=$SPAWNS WARMUP=$WARMUP"
  echo "HTTP_FAST=$HTTP_FAST HTTP_MED=$HTTP_MED HTTP_SLOW=$HTTP_SLOW HTTP_NAGLE=$HTTP_NAGLE CLIENT_N=$CLIENT_N"
  echo "IDLE_SESSIONS=$IDLE_SESSIONS ROUNDS=$ROUNDS MAX_SECS=$MAX_SECS ONLY=${ONLY:-}"
} > "$OUT/env.txt"

# ---- the rounds: every row once per round, the starting row rotated ---------------------------
for round in $(seq "$ROUNDS"); do
  shift_by=$((round - 1))
  for i in "${!STDIO_ROWS[@]}"; do
    measure_stdio "$round" "${STDIO_ROWS[$(( (i + shift_by) % ${#STDIO_ROWS[@]} ))]}"
  done
  for i in "${!HTTP_ROWS[@]}"; do
    measure_http "$round" "${HTTP_ROWS[$(( (i + shift_by) % ${#HTTP_ROWS[@]} ))]}"
  done
  for i in "${!MODERN_ROWS[@]}"; do
    measure_http "$round" "${MODERN_ROWS[$(( (i + shift_by) % ${#MODERN_ROWS[@]} ))]}" modern
  done
  measure_idle "$round"
  for i in "${!CLIENT_ROWS[@]}"; do
    measure_client "$round" "${CLIENT_ROWS[$(( (i + shift_by) % ${#CLIENT_ROWS[@]} ))]}"
  done
  measure_raw_client "$round"
done

python3 "$HARNESS/summarize.py" "$RAW" "$OUT" > /dev/null
python3 "$REPO/bench/targets.py" "$RAW" "$OUT/targets.md"
cat "$OUT/targets.md"
say "results: $OUT"
