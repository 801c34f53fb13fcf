#!/usr/bin/env bash
# Builds weather-server the way we ship it on x86-64 Linux: one static executable (glibc linked
# in, no dynamic loader, no relocations to apply at start), with the functions that serving a
# request runs placed next to each other (weather-server/build.rs hands the linker the list in
# weather-server/hot-symbols.txt, made by scripts/hot-symbols.sh, in this build as in the plain
# release build). The kernel maps code in 64 KiB windows, so keeping the hot code together is what
# keeps little of it resident and makes the start cheap (see docs/perf/notebook.md).
#
#   scripts/build-static.sh               build, then print the binary's path
#   scripts/build-static.sh --print-path  only print where the binary is (or would be)
#   scripts/build-static.sh --with-panic-isolation
#                                         also build mcp-server's panic_isolation example, with
#                                         the same flags and in the same cargo run (so the
#                                         dependencies are compiled once), to
#                                         <the binary's folder>/examples/panic_isolation; the
#                                         release-unwind test runs it (scripts/test-all.sh).
#                                         weather-server is the same code with the same flags,
#                                         though not byte for byte: cargo hashes mcp-server's
#                                         library differently when one of its examples is built
#   HOT_LAYOUT=0 scripts/build-static.sh  the same static build without the hot-code layout
#
# The executable is not position-independent: it always loads at the same address (no ASLR for
# its own image; there are no shared libraries). Anywhere other than x86_64-unknown-linux-gnu this
# is a plain `cargo build --release -p weather-server`. Needs glibc's static libraries (libc6-dev)
# and rustc 1.90 or later for the layout (its default linker there, lld, reads the list).
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
TRIPLE=x86_64-unknown-linux-gnu
cd "$REPO"
targets=(-p weather-server)
build=1
case "${1:-}" in
  --with-panic-isolation) targets=(-p weather-server -p mcp-server --bin weather-server
    --example panic_isolation) ;;
  --print-path) build=0 ;;
  "") ;;
  *) echo "build-static.sh: unknown option ${1}" >&2; exit 2 ;;
esac
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')

host=$(rustc -vV | sed -n 's/^host: //p')
if [[ "$host" != "$TRIPLE" ]]; then
  [[ $build == 0 ]] || cargo build --release --quiet "${targets[@]}"
  echo "$TARGET_DIR/release/weather-server"
  exit 0
fi

BIN="$TARGET_DIR/$TRIPLE/release/weather-server"
if [[ $build == 0 ]]; then
  echo "$BIN"
  exit 0
fi

flags="-C target-feature=+crt-static -C relocation-model=static"
# The hot-code layout comes from weather-server's build script (weather-server/build.rs), as in
# the plain release build; HOT_LAYOUT=0 turns it off.
export WEATHER_SERVER_HOT_LAYOUT="${HOT_LAYOUT:-1}"
# --target keeps these flags off build scripts and proc-macros (which cannot be static).
RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$flags" \
  cargo build --release --quiet "${targets[@]}" --target "$TRIPLE"
echo "$BIN"
