#!/usr/bin/env bash
# The multi-tile `npuzzle solve` benchmark (issue 24): release build, at most about 15 minutes
# on 2 cores.
#
# 1. `npuzzle solve --batch benches/data/4x4_random100.txt --size 4 --metric mtm` on an empty
#    cache folder, the whole run capped at 600 s (`timeout`): the database build included.
#    Reports how many boards were solved, their MTM lengths, and the search time (total,
#    median, longest) from the CSV's seconds column; peak RSS.
# 2. The same batch with the database cached: three runs, the median wall time.
#
# Writes output/bench/4x4-mtm-solve/solutions.csv (the CSV of step 1) and summary.txt (this
# script's output).
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

cargo build --release --quiet --bin npuzzle
npuzzle=target/release/npuzzle
boards=benches/data/4x4_random100.txt
dest=output/bench/4x4-mtm-solve
cache=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$cache" "$log"' EXIT
mkdir -p "$dest"

{
    echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "== npuzzle solve --batch $boards --size 4 --metric mtm, empty cache, capped at 600 s"
    status=0
    /usr/bin/time -f "%e %M" -o "$log" timeout 600 "$npuzzle" solve --batch "$boards" --size 4 \
        --metric mtm --cache "$cache" --quiet >"$dest/solutions.csv" || status=$?
    read -r wall rss <"$log"
    echo "wall ${wall} s (exit $status; 124 = stopped at 600 s), peak RSS $((rss / 1024)) MB"
    awk -F, 'NR > 1 && $2 != "unsolvable" { n++; s += $5; m += $2;
                if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 }
             END { printf "solved %d of 100; MTM lengths %d to %d, mean %.2f; search %.1f s in all\n", n, min, max, m / n, s }' \
        "$dest/solutions.csv"
    awk -F, 'NR > 1 && $2 != "unsolvable" { print $5 }' "$dest/solutions.csv" | sort -g |
        awk '{ t[NR] = $1 } END { printf "search per board: median %.3f s, longest %.1f s\n", t[int((NR + 1) / 2)], t[NR] }'
    echo
    echo "== the same, the database cached (3 runs)"
    walls=()
    for run in 1 2 3; do
        /usr/bin/time -f "%e" -o "$log" "$npuzzle" solve --batch "$boards" --size 4 --metric mtm \
            --cache "$cache" --quiet >/dev/null
        walls+=("$(cat "$log")")
        echo "run $run: ${walls[-1]} s"
    done
    printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p | sed 's/^/median wall /; s/$/ s/'
} | tee "$dest/summary.txt"
