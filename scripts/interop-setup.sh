#!/usr/bin/env bash
# Installs the real peers the interop tests talk to, into target/interop (idempotent):
#   - npm: the official TypeScript SDK, server-everything and server-filesystem;
#   - npm: the TypeScript SDK v2 (`@modelcontextprotocol/client` / `server`, the 2026-07-28 era);
#   - npm: the MCP Apps peers (interop/apps: `@modelcontextprotocol/ext-apps`'s AppBridge and JSON
#     Schema, playwright-core), and Debian's Chromium for them to drive (scripts/chromium.sh);
#   - npm: the official MCP Apps example servers `mcp ui` renders (interop/ui);
#   - npm: a real OAuth 2.1 authorization server (oidc-provider, interop/auth) for the auth tests;
#   - PyPI: the official Python SDK (`mcp` 1.x), and `mcp` 2.x in a second virtualenv (they
#     cannot share one);
#   - PyPI: the LLM providers' SDK checks for exported tools (google-genai, openai-agents) and
#     for the agent's scripted model streams (openai, anthropic, google-genai), in a third
#     virtualenv.
#   - PyPI: FastMCP 4 (`fastmcp`, interop/requirements-fastmcp.txt) in a virtualenv of its own, and
#     crates.io: an rmcp 3 server (conformance/tests/peers/rmcp-server, a Cargo workspace of its
#     own) built into target/interop/rmcp-target: the conformance runner's third-party servers.
# Prints the environment variables the tests read, as `export` lines.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/target/interop"
mkdir -p "$dir"
if [ ! -f "$dir/node/node_modules/@modelcontextprotocol/sdk/package.json" ] || ! cmp -s "$root/interop/package.json" "$dir/node/package.json"; then
  mkdir -p "$dir/node"
  cp "$root/interop/package.json" "$dir/node/package.json"
  (cd "$dir/node" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
if [ ! -f "$dir/auth/node_modules/oidc-provider/package.json" ] || ! cmp -s "$root/interop/auth/package.json" "$dir/auth/package.json"; then
  mkdir -p "$dir/auth"
  cp "$root/interop/auth/package.json" "$dir/auth/package.json"
  (cd "$dir/auth" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
if [ ! -f "$dir/apps/node_modules/@modelcontextprotocol/ext-apps/package.json" ] || ! cmp -s "$root/interop/apps/package.json" "$dir/apps/package.json"; then
  mkdir -p "$dir/apps"
  cp "$root/interop/apps/package.json" "$dir/apps/package.json"
  (cd "$dir/apps" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
if [ ! -f "$dir/ui/node_modules/@modelcontextprotocol/server-basic-vanillajs/package.json" ] || ! cmp -s "$root/interop/ui/package.json" "$dir/ui/package.json"; then
  mkdir -p "$dir/ui"
  cp "$root/interop/ui/package.json" "$dir/ui/package.json"
  (cd "$dir/ui" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
chromium=$("$root/scripts/chromium.sh")
if [ ! -x "$dir/venv/bin/python" ] || ! cmp -s "$root/interop/requirements.txt" "$dir/venv/requirements.txt"; then
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check -r "$root/interop/requirements.txt" >&2
  cp "$root/interop/requirements.txt" "$dir/venv/requirements.txt"
fi
if [ ! -x "$dir/venv2/bin/python" ] || ! cmp -s "$root/interop/requirements-v2.txt" "$dir/venv2/requirements.txt"; then
  python3 -m venv "$dir/venv2"
  "$dir/venv2/bin/pip" install --quiet --disable-pip-version-check -r "$root/interop/requirements-v2.txt" >&2
  cp "$root/interop/requirements-v2.txt" "$dir/venv2/requirements.txt"
fi
if [ ! -x "$dir/venv-providers/bin/python" ] || ! cmp -s "$root/interop/requirements-providers.txt" "$dir/venv-providers/requirements.txt"; then
  python3 -m venv "$dir/venv-providers"
  "$dir/venv-providers/bin/pip" install --quiet --disable-pip-version-check -r "$root/interop/requirements-providers.txt" >&2
  cp "$root/interop/requirements-providers.txt" "$dir/venv-providers/requirements.txt"
fi
if [ ! -x "$dir/venv-fastmcp/bin/python" ] || ! cmp -s "$root/interop/requirements-fastmcp.txt" "$dir/venv-fastmcp/requirements.txt"; then
  python3 -m venv "$dir/venv-fastmcp"
  "$dir/venv-fastmcp/bin/pip" install --quiet --disable-pip-version-check -r "$root/interop/requirements-fastmcp.txt" >&2
  cp "$root/interop/requirements-fastmcp.txt" "$dir/venv-fastmcp/requirements.txt"
fi
# --locked: the peer's Cargo.lock pins rmcp and everything under it.
CARGO_TARGET_DIR="$dir/rmcp-target" cargo build --quiet --locked \
  --manifest-path "$root/conformance/tests/peers/rmcp-server/Cargo.toml" >&2
echo "export MCP_INTEROP_NODE_MODULES=$dir/node/node_modules"
echo "export MCP_INTEROP_APPS_MODULES=$dir/apps/node_modules"
echo "export MCP_INTEROP_UI_MODULES=$dir/ui/node_modules"
echo "export MCP_INTEROP_CHROMIUM=$chromium"
echo "export MCP_INTEROP_AUTH_MODULES=$dir/auth/node_modules"
echo "export MCP_INTEROP_PYTHON=$dir/venv/bin/python"
echo "export MCP_INTEROP_PYTHON2=$dir/venv2/bin/python"
echo "export MCP_PROVIDER_PYTHON=$dir/venv-providers/bin/python"
echo "export MCP_INTEROP_FASTMCP_PYTHON=$dir/venv-fastmcp/bin/python"
echo "export MCP_INTEROP_RMCP_SERVER=$dir/rmcp-target/debug/rmcp-conformance-peer"
