#!/bin/bash
# 4x4 to depth 33 by the frontier search over 4 processes on loopback (1 worker each, each its
# own checkpoint folder), process 2 killed (SIGKILL) 60 s into layer 33, then all 4 restarted
# with --resume; then one machine (2 threads, --scratch) to depth 33 for hardest.txt; outputs
# compared. Release build; run from this folder.
B=${B:-/work/logs/bins/npuzzle-6cb970a}
W=${W:-/work/d33x4}
rm -rf $W; mkdir -p $W
printf 'localhost:%s\n' 2201 2202 2203 2204 > $W/hosts
start() { # $1: tag, rest: extra flags
  tag=$1; shift
  for i in 0 1 2 3; do
    NPUZZLE_PROGRESS=lines /usr/bin/time -f "$tag process $i: %e s wall, %U+%S s CPU, %M KB peak RSS" \
      $B analyze --size 4 --edges none --max-depth 33 --processes 4 --process $i --hostfile $W/hosts \
      --workers 1 --memory 3G --checkpoint $W/ck$i --output $W/out-$tag "$@" \
      > $W/$tag-$i.out 2> $W/$tag-$i.log &
  done
}
start killed
while ! grep -q "depth 32:" $W/killed-2.log 2>/dev/null; do sleep 2; done
sleep 60; pkill -9 -f -- "--process 2 --hostfile $W/hosts"; echo "process 2 killed at $(date +%T)" > killed.txt
wait
start resumed --resume
wait
du -sh $W/ck* >> disk.txt
rm -rf $W/ck*
NPUZZLE_PROGRESS=lines /usr/bin/time -f "one machine: %e s wall, %U+%S s CPU, %M KB peak RSS" \
  $B analyze --size 4 --edges none --max-depth 33 --threads 2 --memory 12G --scratch $W/scratch \
  --output $W/out-one > $W/one.out 2> $W/one.log
for f in depths.csv hardest.txt; do
  cmp $W/out-resumed/4x4/$f $W/out-one/4x4/$f && echo "$f: byte-identical (4 processes, killed and resumed, against one machine)"
done > compare.txt
cmp $W/out-resumed/4x4/depths.csv ../4x4-d33/depths.csv && echo "depths.csv: byte-identical to ../4x4-d33/depths.csv" >> compare.txt
for t in killed resumed; do for i in 0 1 2 3; do tail -1 $W/$t-$i.log; done; done > times.txt
tail -1 $W/one.log >> times.txt
cp $W/resumed-0.log resumed-0.log; cp $W/resumed-0.out report.txt; cp $W/killed-2.log killed-2.log
cp $W/out-resumed/4x4/summary.json summary.json; cp $W/out-resumed/4x4/depths.csv depths.csv
rm -rf $W
