#!/usr/bin/env bash
# Per-call cost of Redis-backed 2025-era sessions (issue 20) against in-memory sessions, both
# through nginx, at C=1 and C=32 (mcpbench's legacy era: C keep-alive connections, each its
# own session, sequential tools/call get_weather). The same weather-server release binary
# behind the same nginx, alone (in memory, sessions cannot be shared) or with --redis on a
# private redis-server (so its INFO counters see only this run); the Redis commands and bytes
# per call are read from that redis-server's INFO before and after each measured run.
#
#   bench/scale_sessions.sh                       3 interleaved rounds
#   ROUNDS=1 N=4000 bench/scale_sessions.sh       smaller
#   WEATHER=path/to/weather-server MCPBENCH=path/to/mcpbench bench/scale_sessions.sh
# Needs: a release weather-server with Redis support (cargo build --release -p weather-server
# --features redis), mcpbench
# (bench/harness, built by bench/run.sh or: cargo build --release --manifest-path
# bench/harness/Cargo.toml -p mcpbench), redis-server, and nginx (scripts/nginx.sh installs it).
# Nothing in `cargo test` runs this script.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
WEATHER=${WEATHER:-$TARGET/release/weather-server}
MCPBENCH=${MCPBENCH:-$REPO/target/bench/harness-target/release/mcpbench}
ROUNDS=${ROUNDS:-3}
N=${N:-10000}
WARMUP=${WARMUP:-500}
CLOCK="--clock 2026-08-02T07:00:00Z"
WORK=$(mktemp -d)
say() { echo "scale_sessions: $*" >&2; }
for bin in "$WEATHER" "$MCPBENCH"; do
  [ -x "$bin" ] || { say "missing $bin"; exit 1; }
done
NGINX=$(bash "$REPO/scripts/nginx.sh")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }

REDIS_PORT=$(free_port); SERVER_PORT=$(free_port); LB_PORT=$(free_port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
pids+=($!)
wait_port "$REDIS_PORT"

cat > "$WORK/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/error.log crit;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/body;
  proxy_temp_path $WORK/proxy;
  fastcgi_temp_path $WORK/fastcgi;
  uwsgi_temp_path $WORK/uwsgi;
  scgi_temp_path $WORK/scgi;
  upstream weather { server 127.0.0.1:$SERVER_PORT; keepalive 64; }
  server {
    listen 127.0.0.1:$LB_PORT;
    location / {
      proxy_pass http://weather;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
      proxy_buffering off;
    }
  }
}
EOF
"$NGINX" -p "$WORK" -e "$WORK/error.log" -c "$WORK/nginx.conf" -g 'daemon off;' &
pids+=($!)
wait_port "$LB_PORT"

info() { redis-cli -p "$REDIS_PORT" INFO stats | tr -d '\r' | awk -F: -v k="$1" '$1==k {print $2}'; }
# "name calls" per command, e.g. "hgetall 10400".
commandstats() {
  redis-cli -p "$REDIS_PORT" INFO commandstats | tr -d '\r' \
    | sed -n 's/^cmdstat_\([^:]*\):calls=\([0-9]*\).*/\1 \2/p' | sort
}

measure() { # MODE ROUND
  local mode=$1 round=$2 extra=()
  [ "$mode" = redis ] && extra=(--redis "redis://127.0.0.1:$REDIS_PORT" --redis-prefix "bench:$round:")
  # shellcheck disable=SC2086
  "$WEATHER" $CLOCK --http "127.0.0.1:$SERVER_PORT" "${extra[@]}" 2>"$WORK/server.log" &
  local server=$!
  wait_port "$SERVER_PORT"
  local cmds0 in0 out0
  cmds0=$(info total_commands_processed); in0=$(info total_net_input_bytes); out0=$(info total_net_output_bytes)
  commandstats > "$WORK/stats0"
  timeout 400 "$MCPBENCH" http --label "ours-sessions-$mode" --http-n "$N" -c 1,32 --warmup "$WARMUP" \
      --max-secs 60 --hard-timeout 300 --server-pid "$server" "http://127.0.0.1:$LB_PORT/mcp" \
    | sed -u "s/^{/{\"round\":$round,/"
  local calls=$(( N * 2 + WARMUP * 2 ))
  local cmds in out
  cmds=$(( $(info total_commands_processed) - cmds0 )); in=$(( $(info total_net_input_bytes) - in0 ))
  out=$(( $(info total_net_output_bytes) - out0 ))
  local per
  per=$(commandstats | join -a1 -e0 -o 0,1.2,2.2 - "$WORK/stats0" \
    | awk '$2-$3>0 {printf "%s\"%s\":%d", sep, $1, $2-$3; sep=","}')
  echo "{\"round\":$round,\"impl\":\"ours-sessions-$mode\",\"redis_commands\":$cmds,\"redis_bytes_in\":$in,\"redis_bytes_out\":$out,\"requests_made_approx\":$calls,\"by_command\":{$per}}"
  kill "$server"; wait "$server" 2>/dev/null || true
}

for round in $(seq "$ROUNDS"); do
  if (( round % 2 )); then order=(memory redis); else order=(redis memory); fi
  for mode in "${order[@]}"; do
    say "round $round: $mode"
    measure "$mode" "$round"
  done
done
