#!/bin/bash
# Issue 74, fifth stop: the side-by-side runs. Release build of the commit under test ($B),
# this 2-core machine, nothing else running. Peak disk from df's used bytes (the scratch
# files are unnamed) sampled every 5 s, minus the figure before the run.
B=${B:-target/release/npuzzle}
W=${W:-/work/bench77}
M=${M:-/work/main}
cd $W
used() { df --output=used -B1 $W | tail -1; }
peak_during() { # $1: tag; runs the rest, records peak disk over the baseline
  tag=$1; shift
  base=$(used); echo 0 > $W/$tag.peak
  ( peak=0; while sleep 5; do u=$(( $(used) - base )); [ $u -gt $peak ] && peak=$u && echo $peak > $W/$tag.peak; done ) &
  sampler=$!
  "$@"
  kill $sampler
}
t() { /usr/bin/time -a -o $W/times.txt -f "$1: %e s wall, %U+%S s CPU, %M KB peak RSS" "${@:2}"; }
rm -rf scratch o-*; mkdir -p scratch
# 1. 2x7 whole in memory, then through the frontier search, back to back.
t "2x7 in-memory" env NPUZZLE_PROGRESS=lines $B analyze --rows 2 --cols 7 --edges none --output $W/o-m27 > m27.out 2> m27.log
cmp o-m27/2x7/depths.csv $M/output/bench/2x7/depths.csv && echo "2x7 in-memory depths.csv = output/bench/2x7" >> compare.txt
peak_during fr27 t "2x7 frontier" env NPUZZLE_PROGRESS=lines $B analyze --rows 2 --cols 7 --edges none --max-depth 1000 --scratch $W/scratch --output $W/o-fr27 > fr27.out 2> fr27.log
cmp o-fr27/2x7/depths.csv $M/output/bench/2x7/depths.csv && echo "2x7 frontier depths.csv = output/bench/2x7/depths.csv" >> compare.txt
# 2. 4x4 to depth 36 on disk.
rm -rf scratch; mkdir -p scratch
peak_during d36 t "4x4 d36" env NPUZZLE_PROGRESS=lines $B analyze --size 4 --edges none --max-depth 36 --scratch $W/scratch --output $W/o-d36 > d36.out 2> d36.log
cmp o-d36/4x4/depths.csv $M/output/bench/4x4-d36/depths.csv && echo "4x4 d36 depths.csv = output/bench/4x4-d36/depths.csv" >> compare.txt
# 3. 3x4 and 2x6 whole, in memory and frontier, alternated, 3 each.
for i in 1 2 3; do
  t "3x4 in-memory $i" $B analyze --rows 3 --cols 4 --edges none --output $W/o-m34 > /dev/null 2>> t34.log
  t "3x4 frontier $i" $B analyze --rows 3 --cols 4 --edges none --max-depth 1000 --output $W/o-f34 > /dev/null 2>> t34.log
done
cmp o-m34/3x4/depths.csv o-f34/3x4/depths.csv && echo "3x4 depths.csv identical" >> compare.txt
for i in 1 2 3; do
  t "2x6 in-memory $i" $B analyze --rows 2 --cols 6 --edges none --output $W/o-m26 > /dev/null 2>> t26.log
  t "2x6 frontier $i" $B analyze --rows 2 --cols 6 --edges none --max-depth 1000 --output $W/o-f26 > /dev/null 2>> t26.log
done
cmp o-m26/2x6/depths.csv o-f26/2x6/depths.csv && echo "2x6 depths.csv identical" >> compare.txt
rm -rf scratch
echo ALLDONE >> compare.txt
