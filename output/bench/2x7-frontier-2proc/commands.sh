#!/bin/bash
# 2x7 whole by the frontier search over 2 processes on loopback (1 worker each, each its own
# --scratch folder, --memory 4G each), and side by side one machine (1 process of 2 threads,
# --scratch, --memory 8G: the same cores and memory in all); outputs compared with each other
# and with the whole-space run (../2x7/depths.csv). Release build; run from this folder, the
# machine otherwise idle, in three steps: `./commands.sh 2proc`, `./commands.sh one`,
# `./commands.sh compare`.
B=${B:-/work/logs/bins/npuzzle-a27c748}
W=${W:-/work/x27}
# (The scratch files are unnamed, so du does not see them: the disk figures are the progress
# lines' "on disk", each process's layers and runs when a layer is done.)
ondisk() { grep -o '[0-9.]* [kMG]\?B on disk' "$1" | awk 'BEGIN {f["kB"]=1e3; f["MB"]=1e6; f["GB"]=1e9; f["B"]=1} {b=$1*f[$2]; if (b>m) m=b} END {printf "%.2f GB", m/1e9}'; }
case $1 in
2proc)
  rm -rf $W; mkdir -p $W
  printf 'localhost:%s\n' 2301 2302 > $W/hosts
  for i in 0 1; do
    NPUZZLE_PROGRESS=lines /usr/bin/time -f "2 processes, process $i: %e s wall, %U+%S s CPU, %M KB peak RSS" \
      $B analyze --rows 2 --cols 7 --edges none --max-depth 1000 --processes 2 --process $i \
      --hostfile $W/hosts --workers 1 --memory 4G --scratch $W/s$i --output $W/out-2proc \
      > $W/2proc-$i.out 2> $W/2proc-$i.log &
  done
  wait; rm -rf $W/s0 $W/s1 ;;
one)
  NPUZZLE_PROGRESS=lines /usr/bin/time -f "one machine, 2 threads: %e s wall, %U+%S s CPU, %M KB peak RSS" \
    $B analyze --rows 2 --cols 7 --edges none --max-depth 1000 --threads 2 --memory 8G \
    --scratch $W/s --output $W/out-one > $W/one.out 2> $W/one.log
  rm -rf $W/s ;;
compare)
  {
    cmp $W/out-2proc/2x7/depths.csv $W/out-one/2x7/depths.csv && echo "depths.csv: byte-identical (2 processes against one machine)"
    cmp $W/out-2proc/2x7/hardest.txt $W/out-one/2x7/hardest.txt && echo "hardest.txt: byte-identical (2 processes against one machine)"
    cmp $W/out-2proc/2x7/depths.csv ../2x7/depths.csv && echo "depths.csv: byte-identical to ../2x7/depths.csv (the whole-space run)"
  } > compare.txt
  { tail -n 1 $W/2proc-0.log; tail -n 1 $W/2proc-1.log; tail -n 1 $W/one.log; } > times.txt
  for log in $W/2proc-0.log $W/2proc-1.log $W/one.log; do
    echo "$(basename $log .log): at most $(ondisk $log) of layers and runs (the progress lines)"
  done > disk.txt
  cp $W/2proc-0.log process-0.log; cp $W/2proc-1.log process-1.log; cp $W/one.log one.log
  cp $W/2proc-0.out report.txt; cp $W/out-2proc/2x7/summary.json summary.json
  cp $W/out-2proc/2x7/depths.csv depths.csv; cp $W/out-one/2x7/summary.json summary-one.json ;;
*) echo "usage: $0 2proc|one|compare" >&2; exit 2 ;;
esac
