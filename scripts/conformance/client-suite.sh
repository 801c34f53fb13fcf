#!/usr/bin/env bash
# Runs the official suite's CLIENT scenarios against a client command. For each scenario the suite
# starts a mock MCP server (Streamable HTTP, bound to 127.0.0.1 here) and runs
# `CMD <server URL>` with MCP_CONFORMANCE_SCENARIO set to the scenario's name.
# Installs the pinned suite first (install.sh).
#
#   scripts/conformance/client-suite.sh "CMD" [SUITE | scenario:NAME]
#
#   SUITE          a named group run in parallel (all, core, auth, …; default core)
#   scenario:NAME  one scenario alone; a client that exits non-zero or times out fails it, so
#                  gate on this form
# Env: CONFORMANCE_VERSION and the other pins (pins.sh), TIMEOUT_MS (default 30000), RESULTS_DIR,
#      SPEC_VERSION (passed as --spec-version: the wire the scenario runs at, e.g. 2026-07-28; the
#      suite hands it to the client as MCP_CONFORMANCE_PROTOCOL_VERSION).
# Prints summarize.py's table; its last line is "RESULT passed=… failed=… warnings=…".
# Exit status: the suite's (2 when it could not run).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/pins.sh"

command="${1:-}"
what="${2:-core}"
[ -n "$command" ] || { echo "usage: client-suite.sh \"CMD\" [SUITE | scenario:NAME]" >&2; exit 2; }

conformance_install
out="${RESULTS_DIR:-$(mktemp -d -t conformance-client.XXXXXX)}"
mkdir -p "$out"

args=(client --command "$command" --timeout "${TIMEOUT_MS:-30000}" --output-dir "$out")
case "$what" in
  scenario:*) args+=(--scenario "${what#scenario:}") ;;
  *) args+=(--suite "$what") ;;
esac
[ -z "${SPEC_VERSION:-}" ] || args+=(--spec-version "$SPEC_VERSION")
"${conformance_run[@]}" "${args[@]}" > "$out/suite.log" 2>&1
status=$?
python3 "$here/summarize.py" "$out"
# The suite reports a client that hung or failed as a line of its log; show those too.
grep -E 'CLIENT (TIMED OUT|EXITED)' "$out/suite.log" | sort | uniq -c
echo "(conformance $CONFORMANCE_VERSION client suite exited $status; log $out/suite.log)"
exit "$status"
