#!/bin/bash
# Issue 74, second stop: how evenly Deal::new's deal (and k mod P, the rule before) shares
# each layer's segments among P processes, from the segments' sizes of every layer of a
# one-machine search (NPUZZLE_SEGMENT_SIZES), cut as a search across P processes would cut it
# (NPUZZLE_SEGMENTS: 7,920 segments for 3x4 and 2x6 on 2 or more processes; 2,730 for 4x4 on
# 2, 32,760 on 3 to 31). Release build; output results.txt. The 4x4 files (gzipped here) take
# 5 and 22 minutes to make; the others seconds.
B=${B:-target/release/npuzzle}
T=${T:-/tmp/balance}
mkdir -p $T
for cut in "3 4 7920" "2 6 7920"; do
  set -- $cut
  rm -f $T/$1x$2.csv
  NPUZZLE_SEGMENTS=$3 NPUZZLE_SEGMENT_SIZES=$T/$1x$2.csv $B analyze --rows $1 --cols $2 \
    --edges none --max-depth 1000 --output $T/out > /dev/null
  scripts/balance.py $T/$1x$2.csv $3 2 3 4 8 16
done
rm -f $T/4x4-d33-32760.csv
NPUZZLE_SEGMENTS=32760 NPUZZLE_SEGMENT_SIZES=$T/4x4-d33-32760.csv $B analyze --size 4 \
  --edges none --max-depth 33 --scratch $T --output $T/out > /dev/null
scripts/balance.py $T/4x4-d33-32760.csv 32760 2 3 4 8 16
# The committed ones: 4x4 to depth 33 and 36 on one machine's cut (2,730 segments).
for d in 33 36; do
  gunzip -c output/bench/balance/4x4-d$d-2730.csv.gz > $T/4x4-d$d.csv
  scripts/balance.py $T/4x4-d$d.csv 2730 2 3 4 8 16
done
