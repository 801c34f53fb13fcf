#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned by the shared
# scripts in ../shared/conformance) against our fixtures: all 32 server scenarios against
# `conformance-server`, then each core client scenario on its own against `conformance-client`.
# Exits non-zero unless every server check passed with no warnings and every client scenario passed.
# usage: scripts/official-conformance.sh    Env: PORT (default 3917), CARGO_PROFILE (dev|release).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="$root/../shared/conformance"
[ -x "$shared/run-server-suite.sh" ] || { echo "missing $shared/run-server-suite.sh" >&2; exit 2; }
port="${PORT:-3917}"
profile="${CARGO_PROFILE:-dev}"
cd "$root"
cargo build --profile "$profile" -p conformance --bin conformance-server --bin conformance-client || exit 2
dir="$root/target/$([ "$profile" = dev ] && echo debug || echo "$profile")"
server="$dir/conformance-server"
client="$dir/conformance-client"
failed=0

# Prints "PASSED FAILED" from the last "N passed, M failed" line of a log.
totals() {
  grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1 | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/'
}

# Prints the WARN column of the summary's TOTAL line.
warns() {
  awk '/^TOTAL \(/ { w = $6 } END { print (w == "" ? "?" : w) }' "$1"
}

log="$(mktemp -t official-server.XXXXXX)"
echo "== server scenarios (all) against $server"
"$shared/run-server-suite.sh" --suite all --start "$server --port $port" "http://localhost:$port/mcp" | tee "$log"
read -r passed fails <<<"$(totals "$log")"
warnings="$(warns "$log")"
# The suite's 32 server scenarios hold at least 44 checks; fewer means scenarios went missing.
if [ -z "${passed:-}" ] || [ "$fails" != 0 ] || [ "$passed" -lt 44 ]; then
  echo "FAIL: server checks: ${passed:-?} passed, ${fails:-?} failed"; failed=1
elif [ "$warnings" != 0 ]; then
  echo "FAIL: server checks passed ($passed) but $warnings warning(s)"; failed=1
else
  echo "OK: server checks: $passed passed, 0 failed, no warnings"
fi

for scenario in initialize tools_call elicitation-sep1034-client-defaults sse-retry; do
  echo "== client scenario $scenario"
  clog="$(mktemp -t official-client.XXXXXX)"
  "$shared/run-client-suite.sh" "$client" "scenario:$scenario" | tee "$clog"
  rc=${PIPESTATUS[0]}
  read -r passed fails <<<"$(totals "$clog")"
  warnings="$(warns "$clog")"
  if [ "$rc" != 0 ] || [ -z "${passed:-}" ] || [ "$fails" != 0 ] || [ "$passed" = 0 ] || [ "$warnings" != 0 ]; then
    echo "FAIL: client scenario $scenario (exit $rc, ${passed:-?} passed, ${fails:-?} failed, $warnings warning(s))"
    failed=1
  else
    echo "OK: client scenario $scenario: $passed passed"
  fi
done
exit "$failed"
