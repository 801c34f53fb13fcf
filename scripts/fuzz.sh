#!/usr/bin/env bash
# A bounded coverage-guided fuzzing campaign: builds the cargo-fuzz targets in fuzz/ (nightly,
# libFuzzer) and runs each for SECONDS_PER_TARGET (default 300), one at a time, then prints per
# target the run time, libFuzzer's final coverage figures (cov: edges, ft: features), the corpus
# size and any crash. Not part of scripts/test-all.sh: the corpus itself is replayed by
# `cargo test -p fuzz-checks` on stable.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET=0 skips fuzzing (with FUZZ_COVERAGE=1: coverage of the corpus only).
#
# Environment:
#   FUZZ_JOBS=N            libFuzzer -jobs/-workers per target (default 1; the build machines
#                          have 2 shared cores)
#   FUZZ_SANITIZER=S       cargo fuzz --sanitizer (default none: the code is safe Rust, and
#                          without ASan it runs several times faster)
#   FUZZ_COVERAGE=1        afterwards, `cargo fuzz coverage` each target over its corpus and print
#                          llvm-cov's line coverage of the workspace crates (needs
#                          `rustup component add llvm-tools-preview --toolchain nightly`)
#
# New corpus entries go to fuzz/corpus-run/<target>/ (not committed); the committed seeds in
# fuzz/corpus/<target>/ are read only. Crashes land in fuzz/artifacts/<target>/. Logs and the
# summary are in fuzz/logs/. To fold a run back into the seeds, minimized:
#   cd fuzz && cargo +nightly fuzz cmin -s none TARGET corpus-run/TARGET

set -euo pipefail

cd "$(dirname "$0")/../fuzz"
secs="${1:-300}"
shift || true
all=(codec jsonrpc sse uri_template config server fast_paths)
targets=("${@:-${all[@]}}")
if [ "$#" -eq 0 ]; then targets=("${all[@]}"); fi
sanitizer="${FUZZ_SANITIZER:-none}"
jobs="${FUZZ_JOBS:-1}"

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
cargo +nightly fuzz build -s "$sanitizer"

mkdir -p logs
summary=logs/summary.txt
printf '%-13s %8s %8s %8s %10s  %s\n' target seconds cov ft corpus result | tee "$summary"
for t in "${targets[@]}"; do
  if [ "$secs" = 0 ]; then break; fi
  mkdir -p "corpus-run/$t" "artifacts/$t"
  log="logs/$t.log"
  start=$(date +%s)
  set +e
  parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); rm -f fuzz-*.log; fi
  cargo +nightly fuzz run -s "$sanitizer" "$t" "corpus-run/$t" "corpus/$t" -- \
    -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -print_final_stats=1 "${parallel[@]}" >"$log" 2>&1
  status=$?
  set -e
  # With -jobs, each worker logs to fuzz-N.log in the current folder.
  if [ "$jobs" -gt 1 ]; then cat fuzz-*.log >>"$log" 2>/dev/null || true; rm -f fuzz-*.log; fi
  took=$(( $(date +%s) - start ))
  last=$(grep -E '#[0-9]+.*cov: ' "$log" | tail -1 || true)
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corpus=$(find "corpus-run/$t" "corpus/$t" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    result=ok
  else
    result="FAILED (exit $status): $(grep -m1 -oE 'Test unit written to .*' "$log" || echo "see fuzz/$log")"
  fi
  printf '%-13s %8s %8s %8s %10s  %s\n' "$t" "$took" "${cov:-?}" "${ft:-?}" "$corpus" "$result" | tee -a "$summary"
done

if [ "${FUZZ_COVERAGE:-0}" = 1 ]; then
  sysroot=$(rustc +nightly --print sysroot)
  llvm_cov=$(find "$sysroot" -name llvm-cov -type f | head -1)
  if [ -z "$llvm_cov" ]; then
    echo "llvm-cov not found: rustup component add llvm-tools-preview --toolchain nightly" >&2
    exit 0
  fi
  host=$(rustc +nightly -vV | sed -n 's/^host: //p')
  echo
  echo "line coverage of the workspace crates (llvm-cov over corpus/ and corpus-run/):"
  for t in "${targets[@]}"; do
    mkdir -p "coverage-corpus/$t"
    cp -n corpus/"$t"/* corpus-run/"$t"/* "coverage-corpus/$t/" 2>/dev/null || true
    cargo +nightly fuzz coverage "$t" "coverage-corpus/$t" >"logs/$t.coverage.log" 2>&1
    bin="target/$host/coverage/$host/release/$t"
    "$llvm_cov" export -summary-only "$bin" -instr-profile="coverage/$t/coverage.profdata" \
      -ignore-filename-regex='(\.cargo/|/rustc/|/library/|fuzz-checks|/fuzz/)' >"logs/$t.coverage.json" 2>"logs/$t.coverage.err" || true
    python3 - "$t" "logs/$t.coverage.json" <<'PY'
import json, sys
# The code each target is about; the total is over every workspace file the binary links.
focus = {
    "codec": ["mcp-proto/src/codec.rs"],
    "jsonrpc": ["mcp-proto/src/jsonrpc.rs"],
    "sse": ["mcp-proto/src/sse.rs"],
    "uri_template": ["mcp-server/src/uri_template.rs"],
    "config": ["mcp-hub/src/config.rs"],
    # What the in-memory transport reaches: not the HTTP and stdio transports.
    "server": ["mcp-server/src/", "mcp-proto/src/peer/", "mcp-proto/src/jsonrpc.rs"],
}[sys.argv[1]]
skip = ["mcp-server/src/http/", "mcp-server/src/stdio.rs"]
try:
    data = json.load(open(sys.argv[2]))["data"][0]
except Exception as e:
    print(f"{sys.argv[1]:<13} no coverage report ({e})")
    sys.exit(0)
def pct(files):
    count = sum(f["summary"]["lines"]["count"] for f in files)
    covered = sum(f["summary"]["lines"]["covered"] for f in files)
    return f"{covered}/{count} lines ({100.0 * covered / max(count, 1):.1f} %)"
mine = [f for f in data["files"]
        if any(x in f["filename"] for x in focus) and not any(x in f["filename"] for x in skip)]
print(f"{sys.argv[1]:<13} {', '.join(focus)}: {pct(mine)}; all linked workspace code: {pct(data['files'])}")
PY
  done
fi
