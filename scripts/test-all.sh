#!/usr/bin/env bash
# Runs every test: installs the interop peers (npm, PyPI) first, then the whole workspace's
# tests with those peers required, so an interop test cannot silently skip.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
eval "$(scripts/interop-setup.sh)"
export MCP_INTEROP_REQUIRED=1
# nginx (Debian's package) for the scale-out tests, installed up front when missing; they run
# their own instance on loopback. Redis is the machine's (127.0.0.1:6379) plus private
# redis-servers the fault tests start.
scripts/nginx.sh >/dev/null
# weather-server as we ship it (static, hot-code layout), and beside it, from the same cargo run
# and flags, the binary the release-profile test (mcp-server/tests/release_unwind.rs) runs: a
# panicking tool must fail only its own request in the build we ship.
static_server=$(scripts/build-static.sh --with-panic-isolation)
export MCP_PANIC_ISOLATION_BIN
MCP_PANIC_ISOLATION_BIN="$(dirname "$static_server")/examples/panic_isolation"
cargo test --workspace --all-targets
cargo test --workspace --doc
# weather-server's Redis support (the `redis` feature, off in the default build): the replica
# tests behind nginx with the machine's Redis, and the unit tests with the feature on.
cargo test -p weather-server --features redis --bin weather-server --test scale_out --test scale_sessions
# OTLP export (the `otlp` feature, off by default): the audit log, and one `mcp call` through
# `mcp proxy` into weather-server arriving as one connected trace at a receiver in the test.
cargo test -p mcp-cli --features otlp --test proxy_observability
# The opt-out of derived schemas still builds (every schema then written by hand).
cargo check -p mcp-server --no-default-features --lib
# The official conformance suite against our fixture server and client: 0.1.16 and
# 0.2.0-alpha.12 (requirement set 2026-07-28).
scripts/official-conformance.sh
# The static weather-server (built above) passes our conformance runner over stdio like the debug
# build does, both eras (its ambiguous "Springfield" is the 2026-07-28 input-request fixture).
cargo run --quiet -p conformance --bin mcp-conformance -- \
  --input-tool 'get_weather={"city":"Springfield"}' \
  stdio -- "$static_server" --clock 2026-08-02T07:00:00Z
