#!/usr/bin/env bash
# The public API of every library crate, one item a line, against the baselines in api/:
#
#   scripts/public-api.sh            write api/CRATE.txt anew (commit them with an API change)
#   scripts/public-api.sh --check    fail with the difference when the API is not the baseline
#
# rustdoc's JSON output (`--output-format json`) is unstable, so it runs with RUSTC_BOOTSTRAP=1
# on the stable toolchain, in a target folder of its own; scripts/public_api.py turns it into
# sorted lines. Default features; every change to a public item shows in the diff, so CI makes
# each one deliberate.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
crates=(mcp-proto mcp-https mcp-server mcp-server-redis mcp-client mcp-hub)
[[ -d mcp-agent ]] && crates+=(mcp-agent)
check=0
[[ "${1:-}" == --check ]] && check=1
target="$root/target/public-api"
mkdir -p api
status=0
for crate in "${crates[@]}"; do
  name=${crate//-/_}
  RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$target" cargo rustdoc --quiet -p "$crate" --lib -- \
    -Z unstable-options --output-format json
  python3 scripts/public_api.py "$target/doc/$name.json" > "$target/$crate.txt"
  if [[ $check == 1 ]]; then
    if ! diff -u "api/$crate.txt" "$target/$crate.txt"; then
      echo "public-api: $crate's public API differs from api/$crate.txt (above); if the change is" >&2
      echo "deliberate, run scripts/public-api.sh and commit the new baseline" >&2
      status=1
    fi
  else
    cp "$target/$crate.txt" "api/$crate.txt"
  fi
done
exit $status
