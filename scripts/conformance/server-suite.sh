#!/usr/bin/env bash
# Runs the official suite's SERVER scenarios against a Streamable HTTP endpoint (the suite tests
# servers by URL only). Installs the pinned suite first (install.sh).
#
#   scripts/conformance/server-suite.sh [--start "CMD"] [--suite all|active|pending] [--scenario NAME]
#                                       [--requirements REV] URL
#
#   URL        the endpoint, e.g. http://localhost:3917/mcp (a loopback host: the suite's
#              DNS-rebinding scenario sends a foreign Host and expects it refused)
#   --start    a command that serves URL: it runs in a process group of its own, the suite starts
#              once the URL's port accepts connections, and the whole group is ended afterwards
#   --suite    all (default; every scenario, pending ones too), active, or pending
#   --scenario one scenario alone
#   --requirements  the scenarios a spec revision requires (e.g. 2026-07-28), run at that revision's
#              wire; replaces --suite and --scenario (0.2.0 releases and later)
# Env: CONFORMANCE_VERSION and the other pins (pins.sh), RESULTS_DIR (default: a new temp folder).
# Prints summarize.py's table; its last line is "RESULT passed=… failed=… warnings=…" (with
# --requirements, over the scored scenarios only).
# Exit status: the suite's (2 when it could not run).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/pins.sh"

start="" suite=all scenario="" requirements="" url=""
while [ $# -gt 0 ]; do
  case "$1" in
    --start) start="$2"; shift 2 ;;
    --suite) suite="$2"; shift 2 ;;
    --scenario) scenario="$2"; shift 2 ;;
    --requirements) requirements="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "server-suite.sh: unknown option $1" >&2; exit 2 ;;
    *) url="$1"; shift ;;
  esac
done
[ -n "$url" ] || { echo "usage: server-suite.sh [--start CMD] [--suite S] [--scenario NAME] URL" >&2; exit 2; }

conformance_install
out="${RESULTS_DIR:-$(mktemp -d -t conformance-server.XXXXXX)}"
mkdir -p "$out"

# host and port of the URL, for the readiness probe
authority="${url#*://}"; authority="${authority%%/*}"
port="${authority##*:}"
[ "$port" != "$authority" ] || port=80

group=""
finish() {
  if [ -n "$group" ]; then
    kill -TERM -- "-$group" 2>/dev/null
    wait "$group" 2>/dev/null
  fi
}
trap finish EXIT

if [ -n "$start" ]; then
  setsid bash -c "exec $start" > "$out/server.log" 2>&1 &
  group=$!
  ready=0
  for _ in $(seq 150); do   # up to 30 s
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then ready=1; break; fi
    kill -0 "$group" 2>/dev/null || { echo "server-suite.sh: the server exited; see $out/server.log" >&2; exit 2; }
    sleep 0.2
  done
  [ "$ready" = 1 ] || { echo "server-suite.sh: nothing accepts on port $port; see $out/server.log" >&2; exit 2; }
fi

args=(server --url "$url" --output-dir "$out")
if [ -n "$requirements" ]; then args+=(--requirements "$requirements")
elif [ -n "$scenario" ]; then args+=(--scenario "$scenario")
else args+=(--suite "$suite"); fi
"${conformance_run[@]}" "${args[@]}" > "$out/suite.log" 2>&1
status=$?
if [ -n "$requirements" ]; then
  # Only what the requirement set scores counts; the rest (extensions, pending) is shown.
  conformance_scored "$requirements" server > "$out/scored.txt" || exit 2
  python3 "$here/summarize.py" "$out" "$out/scored.txt"
else
  python3 "$here/summarize.py" "$out"
fi
echo "(conformance $CONFORMANCE_VERSION server suite exited $status; log $out/suite.log)"
exit "$status"
