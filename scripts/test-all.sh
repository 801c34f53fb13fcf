#!/usr/bin/env bash
# Runs every test: installs the interop peers (npm, PyPI) first, then the whole workspace's
# tests with those peers required, so an interop test cannot silently skip.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
eval "$(scripts/interop-setup.sh)"
export MCP_INTEROP_REQUIRED=1
cargo test --workspace --all-targets
cargo test --workspace --doc
# The official conformance suite against our fixture server and client.
scripts/official-conformance.sh
