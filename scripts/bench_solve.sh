#!/usr/bin/env bash
# The `npuzzle solve` benchmark (issues 4 and 12): release build, about 12 minutes on 2 cores.
#
# 1. benches/solve.rs: builds the 4x4 pattern databases (7-8, then 6-6-3) in a fresh folder
#    and times it; solves the 100 boards of benches/data/4x4_random100.txt with IDA* and each
#    set of pattern databases, linear conflict (all 100), and Manhattan distance (the first 10 only, at most
#    300,000,000 expansions per board: some random boards take billions); total and median
#    time and expansions; checks that the heuristics agree on every length; 3x3 median times
#    over 1,000 random boards.
# 2. The command line, end to end (process start, loading and checking the databases, CSV
#    output): `npuzzle solve --batch` on the 100 boards with --pdb 7-8 (the 4x4 default) and
#    --pdb 6-6-3, three runs each on the databases step 1 built; the median wall time.
# 3. A newcomer's first 4x4 solves (issue 20), each on an empty cache folder, three runs each;
#    the median wall time: one board 45 moves away (the default builds the 6-6-3 databases,
#    not the 7-8 ones; must be at most 15 s), and the batch of 100 boards.
#
# Extra arguments go to bench_solve (e.g. --manhattan-boards 100 --cap 1000000000).
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
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
echo "== library: IDA* per heuristic (databases built into $cache, shared with the runs below)"
"$bench_solve" "$boards" --cache "$cache" "$@"

for pdb in 7-8 6-6-3; do
    echo
    echo "== npuzzle solve --batch $boards --pdb $pdb (IDA* + pdb, databases cached)"
    walls=()
    for run in 1 2 3; do
        start=$(date +%s.%N)
        target/release/npuzzle solve --quiet --cache "$cache" --pdb "$pdb" --batch "$boards" > "$out"
        walls+=("$(echo "$(date +%s.%N) - $start" | bc)")
    done
    median=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p)
    echo "end to end (start, load and check the databases, solve, write CSV): ${walls[*]} s wall; median $median s"
    awk -F, 'NR > 1 { n++; s += $5; e += $3; g += $4 } END {
        printf "%d boards solved; search time %.2f s in all; %d boards expanded, %d generated in all (mean %.0f)\n", n, s, e, g, g / n
    }' "$out"
done

echo
echo "== first use: npuzzle solve on an empty cache folder (default databases), three runs each"
first_use() {
    local what=$1 must=$2 walls=() built start empty median
    shift 2
    for run in 1 2 3; do
        empty=$(mktemp -d)
        start=$(date +%s.%N)
        target/release/npuzzle solve --quiet --cache "$empty" "$@" > "$out"
        walls+=("$(echo "$(date +%s.%N) - $start" | bc)")
        built=$(ls "$empty" | tr '\n' ' ')
        rm -rf "$empty"
    done
    median=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p)
    echo "$what: ${walls[*]} s wall; median $median s${must:+ (must be at most $must s)}; built: $built"
}
first_use "one board, 45 moves" 15 --board "9 1 8 4 14 11 3 12 6 13 7 0 15 5 2 10"
first_use "the batch of 100" "" --batch "$boards"
