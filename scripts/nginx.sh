#!/usr/bin/env bash
# Makes sure nginx (Debian's package) is installed and prints the path of its binary. The tests
# that need a load balancer (weather-server/tests/scale_out.rs) run it themselves: on loopback,
# as their own child process, with a config they write (round robin, no stickiness, SSE
# unbuffered), never as the system service.
#   scripts/nginx.sh           install when missing; print the binary's path
set -euo pipefail
find_nginx() {
  command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true
}
bin=$(find_nginx)
if [ -z "$bin" ]; then
  if ! command -v apt-get >/dev/null; then
    echo "nginx.sh: nginx is missing and apt-get is not available; install nginx" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq >&2
  # nginx-light where the release still has it (the smallest build), else nginx. Whether the
  # package starts the system service or not does not matter: the tests use their own ports.
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nginx-light >&2 \
    || "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nginx >&2
  bin=$(find_nginx)
fi
[ -n "$bin" ] || { echo "nginx.sh: nginx did not install" >&2; exit 1; }
echo "$bin"
