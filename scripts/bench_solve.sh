#!/usr/bin/env bash
# The `npuzzle solve` benchmark (issue 4): release build, about 4 minutes on 2 cores.
#
# 1. benches/solve.rs: builds the 4x4 pattern databases (6-6-3) in a fresh folder and
#    times it; solves the 100 boards of benches/data/4x4_random100.txt with IDA* and pattern
#    databases, linear conflict (all 100), and Manhattan distance (the first 10 only, at most
#    300,000,000 expansions per board: some random boards take billions); total and median
#    time and expansions; checks that the heuristics agree on every length; 3x3 median times
#    over 1,000 random boards.
# 2. The command line with the default method, end to end (process start, loading the
#    databases, CSV output): `npuzzle solve --batch` on the 100 boards, three runs after one
#    that builds the databases; the median wall time.
#
# Extra arguments go to bench_solve (e.g. --manhattan-boards 100 --cap 1000000000).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet --bin npuzzle
cargo bench --no-run --quiet --bench solve 2>/dev/null
bench_solve=$(ls -t target/release/deps/solve-* | grep -v "\.d$" | head -n 1)
boards=benches/data/4x4_random100.txt
cache=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$cache" "$out"' EXIT

echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "== library: IDA* per heuristic"
"$bench_solve" "$boards" "$@"

echo
echo "== npuzzle solve --batch $boards (default method: IDA* + pdb)"
start=$(date +%s.%N)
target/release/npuzzle solve --quiet --cache "$cache" --batch "$boards" > "$out"
echo "first run, building the pattern databases: $(echo "$(date +%s.%N) - $start" | bc) s"
walls=()
for run in 1 2 3; do
    start=$(date +%s.%N)
    target/release/npuzzle solve --quiet --cache "$cache" --batch "$boards" > "$out"
    walls+=("$(echo "$(date +%s.%N) - $start" | bc)")
done
median=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p)
echo "runs with the databases cached: ${walls[*]} s wall; median $median s"
awk -F, 'NR > 1 { n++; s += $4; e += $3; m[n] = $2 } END {
    printf "%d boards solved; search time %.2f s in all; %d boards expanded in all\n", n, s, e
}' "$out"
