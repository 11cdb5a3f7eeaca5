#!/usr/bin/env bash
# The whole graph's geometry (`analyze --all-pairs`, issue 51) against one analysis, side by
# side: for each board and metric, RUNS alternating runs of `analyze` (the single-goal job, its
# default exports) and `analyze --all-pairs`, wall time by each, the medians and their ratio.
#
#   scripts/bench_geometry.sh [BOARD ...]     # default: 3x3 3x4 2x6; RUNS=5 by default
#
# The issue's bounds: 3x3 at most 3x one analysis; 3x4 and 2x6 at most 5x. Big boards (2x7:
# about 35 min a metric, 11 GB) are run by hand: see docs/geometry.md. Release build
# (NO_BUILD=1 uses target/release/npuzzle as it is).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${NO_BUILD:-}" = 1 ] || cargo build --quiet --release --locked
bin=target/release/npuzzle
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
boards=("$@")
[ ${#boards[@]} -gt 0 ] || boards=(3x3 3x4 2x6)
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
seconds() { local s; s=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $s" | bc; }
printf '%-6s %-4s %12s %12s %7s\n' board metric "analyze s" "all-pairs s" ratio
for board in "${boards[@]}"; do
  rows=${board%x*} cols=${board#*x}
  for metric in stm mtm; do
    one=() all=()
    for _ in $(seq "$runs"); do
      one+=("$(seconds "$bin" analyze --rows "$rows" --cols "$cols" --metric "$metric" --quiet --output "$tmp")")
      all+=("$(seconds "$bin" analyze --rows "$rows" --cols "$cols" --metric "$metric" --all-pairs --quiet --output "$tmp")")
    done
    a=$(printf '%s\n' "${one[@]}" | median) b=$(printf '%s\n' "${all[@]}" | median)
    printf '%-6s %-6s %12.3f %12.3f %7.2f\n' "$board" "$metric" "$a" "$b" "$(echo "$b / $a" | bc -l)"
  done
done
