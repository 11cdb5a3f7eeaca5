#!/usr/bin/env bash
# Fuzzes the board parsers with cargo-fuzz (libFuzzer) on the nightly toolchain, for a
# bounded time: FUZZ_SECONDS (default 60). The target, scripts/fuzz/fuzz_targets/board.rs,
# feeds arbitrary bytes to every public board parser and checks that an accepted board is a
# valid permutation of the right shape that re-renders and re-parses to itself, and that a
# refusal is one line. A crash stops the run (exit status non-zero) and leaves the input in
# scripts/fuzz/artifacts/board/; replay it with
#   cargo +nightly fuzz run --fuzz-dir scripts/fuzz board scripts/fuzz/artifacts/board/crash-...
#
# Usage: scripts/fuzz.sh [TARGET] [libFuzzer flags...]     e.g. FUZZ_SECONDS=300 scripts/fuzz.sh
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
TARGET=${1:-board}
shift $(($# > 0 ? 1 : 0))

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz.sh: the nightly toolchain is needed: rustup toolchain install nightly" >&2
  exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: installing cargo-fuzz (cargo install cargo-fuzz --locked)" >&2
  cargo install cargo-fuzz --locked
fi

# A few valid boards to start from (the corpus folder is not committed). The first byte
# picks the shape: rows 1 + (b & 7), columns 1 + (b >> 3 & 7).
corpus=scripts/fuzz/corpus/$TARGET
if [ "$TARGET" = board ] && [ -z "$(ls -A "$corpus" 2>/dev/null)" ]; then
  mkdir -p "$corpus"
  printf '\x12%s' '8 6 7 2 5 4 3 0 1' >"$corpus/3x3-tiles"
  printf '\x12%s' '3
0 1 3
4 2 5
7 8 6
' >"$corpus/3x3-assignment"
  printf '\x12%s' '1 2 3 / 4 0 5 / 6 7 8' >"$corpus/3x3-rows"
  printf '\x12%s' '6 4 7
8 5 .
3 2 1' >"$corpus/3x3-grid"
  printf '\x12%s' '123495678' >"$corpus/3x3-label"
  printf '\x21%s' '1-2-3-4-5-6-7-8-10-9' >"$corpus/2x5-label"
  printf '\x11%s' '1,2,3,4,0,5' >"$corpus/2x3-commas"
  printf '\x1b%s' '1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0' >"$corpus/4x4-tiles"
fi

echo "fuzz.sh: fuzzing $TARGET for $FUZZ_SECONDS s" >&2
exec cargo +nightly fuzz run --fuzz-dir scripts/fuzz "$TARGET" -- \
  -max_total_time="$FUZZ_SECONDS" "$@"
