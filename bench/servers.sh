# Shared by bench/run.sh and bench/ab.sh (sourced): which rows run, and the one HTTP server
# running in the background at a time, in $SERVER (killed when the script exits).

SERVER=""
trap '[[ -n "$SERVER" ]] && kill "$SERVER" 2>/dev/null; true' EXIT

# selected LABEL: true when ONLY is unset or names LABEL.
selected() {
  [[ -z "${ONLY:-}" ]] && return 0
  local l
  for l in $ONLY; do [[ "$l" == "$1" ]] && return 0; done
  return 1
}
# listening PORT: waits up to 30 s for a server to accept on 127.0.0.1:PORT.
listening() {
  local i
  for i in $(seq 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
# port_free PORT: true when nothing accepts on 127.0.0.1:PORT (so we never measure a stranger).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# start_server LOG CMD...: starts an HTTP server in the background; its PID goes to $SERVER.
start_server() {
  local log=$1; shift
  "$@" >>"$log.out" 2>>"$log.err" &
  SERVER=$!
}
stop_server() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; SERVER=""; }
