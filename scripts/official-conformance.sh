#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, installed and pinned
# by scripts/conformance/install.sh into target/conformance/<version>/) against our fixtures: every
# server scenario against `conformance-server`, then each core client scenario on its own against
# `conformance-client`. Exits non-zero unless the server run passed at least MIN_SERVER_CHECKS
# checks with none failed and no warnings, and every client scenario passed with no warnings.
#
# usage: scripts/official-conformance.sh
# Env: PORT (default 3917), CARGO_PROFILE (dev|release), CONFORMANCE_VERSION (default 0.1.16; any
#      other release installs into its own folder, see scripts/conformance/pins.sh),
#      MIN_SERVER_CHECKS (default 44: the 32 server scenarios of 0.1.16 hold at least 44 checks,
#      fewer means scenarios went missing), CLIENT_SCENARIOS (default: the four below).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/scripts/conformance"
. "$tools/pins.sh"
port="${PORT:-3917}"
profile="${CARGO_PROFILE:-dev}"
min_server_checks="${MIN_SERVER_CHECKS:-44}"
client_scenarios="${CLIENT_SCENARIOS:-initialize tools_call elicitation-sep1034-client-defaults sse-retry}"
cd "$root"

"$tools/install.sh" > /dev/null || { echo "FAIL: could not install conformance $CONFORMANCE_VERSION"; exit 2; }
cargo build --profile "$profile" -p conformance --bin conformance-server --bin conformance-client || exit 2
bin_dir="$root/target/$([ "$profile" = dev ] && echo debug || echo "$profile")"
server="$bin_dir/conformance-server"
client="$bin_dir/conformance-client"
failed=0

# field NAME LOG: the value of NAME=… on the summarizer's RESULT line of LOG (empty if none).
field() {
  sed -n "s/^RESULT .*\b$1=\([0-9]*\).*/\1/p" "$2" | tail -n 1
}

echo "== conformance $CONFORMANCE_VERSION: server scenarios (all) against $server"
log="$(mktemp -t official-server.XXXXXX)"
"$tools/server-suite.sh" --suite all --start "$server --port $port" "http://localhost:$port/mcp" | tee "$log"
passed="$(field passed "$log")"; fails="$(field failed "$log")"; warnings="$(field warnings "$log")"
if [ -z "$passed" ] || [ "$fails" != 0 ] || [ "$passed" -lt "$min_server_checks" ]; then
  echo "FAIL: server checks: ${passed:-?} passed (at least $min_server_checks wanted), ${fails:-?} failed"
  failed=1
elif [ "$warnings" != 0 ]; then
  echo "FAIL: server checks all passed ($passed) but with $warnings warning(s)"
  failed=1
else
  echo "OK: server checks: $passed passed, 0 failed, no warnings"
fi

for scenario in $client_scenarios; do
  echo "== conformance $CONFORMANCE_VERSION: client scenario $scenario"
  clog="$(mktemp -t official-client.XXXXXX)"
  "$tools/client-suite.sh" "$client" "scenario:$scenario" | tee "$clog"
  status=${PIPESTATUS[0]}
  passed="$(field passed "$clog")"; fails="$(field failed "$clog")"; warnings="$(field warnings "$clog")"
  if [ "$status" != 0 ] || [ -z "$passed" ] || [ "$passed" = 0 ] || [ "$fails" != 0 ] || [ "$warnings" != 0 ]; then
    echo "FAIL: client scenario $scenario (exit $status, ${passed:-?} passed, ${fails:-?} failed, ${warnings:-?} warning(s))"
    failed=1
  else
    echo "OK: client scenario $scenario: $passed passed"
  fi
done
exit "$failed"
