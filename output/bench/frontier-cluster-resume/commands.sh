#!/bin/bash
# Issue 74: the frontier search across 2 and 3 processes on loopback (1 worker each, each its
# own checkpoint folder), one process killed (SIGKILL) when it reaches layer K, then all
# restarted with --resume; depths.csv and hardest.txt compared with one machine's. Cases:
# 3x4 whole in both metrics, 4x4 to depth 28 (single-tile) and to depth 18 (multi-tile: its
# layer 20 alone holds 1.66e9 boards). Release build $B.
B=${B:-/work/bench75/npuzzle}
W=${W:-/work/bench75/cl}
OUT=${OUT:-/work/bench75/cluster}
rm -rf $W $OUT; mkdir -p $W $OUT
t() { /usr/bin/time -f "$1: %e s wall, %U+%S s CPU, %M KB peak RSS" "${@:2}"; }
run_case() { # name kill-depth analyze-args...
  name=$1; kill_at=$2; shift 2
  t "$name one machine" $B analyze "$@" --edges none --output $W/one-$name --quiet 2>> $OUT/times.txt
  dir=$(ls $W/one-$name)
  for P in 2 3; do
    : > $W/hosts; for i in $(seq 0 $((P-1))); do echo "localhost:$((2300 + 10*P + i))" >> $W/hosts; done
    start() { tag=$1; shift
      for i in $(seq 0 $((P-1))); do
        NPUZZLE_PROGRESS=lines /usr/bin/time -f "$name P=$P $tag process $i: %e s wall, %U+%S s CPU, %M KB peak RSS" \
          $B analyze "$@" --edges none --processes $P --process $i --hostfile $W/hosts --workers 1 \
          --checkpoint $W/ck-$name-$P-$i --output $W/out-$name-$P $EXTRA > $W/$name-$P-$tag-$i.out 2> $W/$name-$P-$tag-$i.log &
      done
    }
    EXTRA= start killed "$@"
    while ! grep -q "depth $kill_at:" $W/$name-$P-killed-1.log 2>/dev/null; do
      sleep 0.2; jobs -r | grep -q . || break
    done
    pkill -9 -f -- "--process 1 --hostfile $W/hosts" && echo "$name P=$P: process 1 killed at layer $kill_at, $(date +%T)" >> $OUT/killed.txt
    wait
    EXTRA=--resume start resumed "$@"
    wait
    for i in $(seq 0 $((P-1))); do tail -1 $W/$name-$P-killed-$i.log; tail -1 $W/$name-$P-resumed-$i.log; done >> $OUT/times.txt
    for f in depths.csv hardest.txt; do
      cmp $W/out-$name-$P/$dir/$f $W/one-$name/$dir/$f && echo "$name P=$P $f: byte-identical (killed and resumed, against one machine)" >> $OUT/compare.txt
    done
    grep -E "^note +(across|resumed|bytes)" $W/$name-$P-resumed-0.out | sed "s/^/$name P=$P: /" >> $OUT/traffic.txt
    cp $W/$name-$P-resumed-0.out $OUT/$name-$P-report.txt
    cp $W/$name-$P-killed-1.log $OUT/$name-$P-killed-1.log
    rm -rf $W/ck-$name-$P-*
  done
}
run_case 3x4 40 --rows 3 --cols 4 --max-depth 1000
run_case 3x4-mtm 20 --rows 3 --cols 4 --max-depth 1000 --metric mtm
run_case 4x4-d28 26 --size 4 --max-depth 28
run_case 4x4-mtm-d18 16 --size 4 --max-depth 18 --metric mtm
echo ALLDONE >> $OUT/compare.txt
