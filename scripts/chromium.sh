#!/usr/bin/env bash
# Makes sure Chromium (Debian's package) is installed and prints the path of its binary. The
# MCP Apps browser tests drive it with playwright-core (interop/apps), which never downloads a
# browser of its own: they launch this one, headless, with a fresh profile each run.
#   scripts/chromium.sh        install when missing; print the binary's path
set -euo pipefail
find_chromium() {
  command -v chromium 2>/dev/null || { [ -x /usr/bin/chromium ] && echo /usr/bin/chromium; } || true
}
bin=$(find_chromium)
if [ -z "$bin" ]; then
  if ! command -v apt-get >/dev/null; then
    echo "chromium.sh: chromium is missing and apt-get is not available; install chromium" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq >&2
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
  bin=$(find_chromium)
fi
[ -n "$bin" ] || { echo "chromium.sh: chromium did not install" >&2; exit 1; }
echo "$bin"
