#!/bin/bash
# Issue 74, seventh stop: the 2x7 pair of the note (the sixth stop's script, step 2x7; this stop
# changes no engine code): 2x7 whole in memory, then through
# the frontier search, back to back. Release build of the commit under
# test ($B), this 2-core machine, nothing else running, 2026-12-08. Peak disk from
# df's used bytes (the scratch files are unnamed) sampled every 5 s, minus the figure before.
# ($B: npz-7th, a release build of 8f1938d, whose engine is 3b68cca's; 4f3173d adds a bench only.
# The d36 step is kept from the sixth stop's script, not run: `commands.sh 2x7`.)
B=${B:-/work/prof/npz-7th}
W=${W:-/work/bench79}
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
step=${1:-all}
if [ $step = d36 ] || [ $step = all ]; then
  rm -rf scratch o-d36; mkdir -p scratch
  peak_during d36 t "4x4 d36" env NPUZZLE_PROGRESS=lines $B analyze --size 4 --edges none --max-depth 36 --scratch $W/scratch --output $W/o-d36 > d36.out 2> d36.log
  cmp o-d36/4x4/depths.csv $M/output/bench/4x4-d36/depths.csv && echo "4x4 d36 depths.csv = output/bench/4x4-d36/depths.csv" >> compare.txt
  echo "4x4 d36 peak disk $(cat d36.peak) B (df used over the baseline, sampled every 5 s)" >> compare.txt
fi
if [ $step = 2x7 ] || [ $step = all ]; then
  rm -rf scratch o-m27 o-fr27; mkdir -p scratch
  t "2x7 in-memory" env NPUZZLE_PROGRESS=lines $B analyze --rows 2 --cols 7 --edges none --output $W/o-m27 > m27.out 2> m27.log
  cmp o-m27/2x7/depths.csv $M/output/bench/2x7/depths.csv && echo "2x7 in-memory depths.csv = output/bench/2x7" >> compare.txt
  peak_during fr27 t "2x7 frontier" env NPUZZLE_PROGRESS=lines $B analyze --rows 2 --cols 7 --edges none --max-depth 1000 --scratch $W/scratch --output $W/o-fr27 > fr27.out 2> fr27.log
  cmp o-fr27/2x7/depths.csv $M/output/bench/2x7/depths.csv && echo "2x7 frontier depths.csv = output/bench/2x7/depths.csv" >> compare.txt
  echo "2x7 frontier peak disk $(cat fr27.peak) B (df used over the baseline, sampled every 5 s)" >> compare.txt
fi
rm -rf scratch
