#!/usr/bin/env bash
# Issue 74: 4x4 to depth 29 by the frontier search (layers in a scratch folder) from a board
# with the blank on a central cell and from one with the blank on an edge cell (not a corner),
# each run 3 times alternated; the layers are checked by the run itself against OEIS A090164
# (depths 0..26) and A090165 (0..27), the distributions published from those cells.
# Usage: B=path/to/npuzzle W=/scratch/folder commands.sh   (release build; 2 threads here)
set -euo pipefail
B=${B:-target/release/npuzzle}
W=${W:-/tmp/npuzzle-d29-cells}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W"
: > "$HERE/times.txt"
for round in 1 2 3; do
    for cell in centre edge; do
        case $cell in
            centre) goal="1 2 3 4 / 5 0 6 7 / 8 9 10 11 / 12 13 14 15" ;;
            edge) goal="1 0 2 3 / 4 5 6 7 / 8 9 10 11 / 12 13 14 15" ;;
        esac
        rm -rf "$W/scr-$cell" "$W/o-$cell"
        /usr/bin/time -f "$cell round $round: %e s wall, %U s user, %S s sys, %M kB peak RSS" \
            -a -o "$HERE/times.txt" \
            "$B" analyze --size 4 --goal "$goal" --max-depth 29 --scratch "$W/scr-$cell" \
            --output "$W/o-$cell" > "$HERE/$cell-report.txt"
        cp "$W"/o-$cell/*/depths.csv "$HERE/$cell-depths.csv"
    done
done
cat "$HERE/times.txt"
