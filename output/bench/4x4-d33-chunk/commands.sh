#!/bin/bash
# 4x4 to depth 33 under --memory 1G with chunks of 2^19 boards: layer 33 is built from
# ceil(1,742,855,397 / 524,288) = 3,325 runs (fan-in 128: merged in two passes). Release
# build of branch plan; depths.csv compared with output/bench/4x4-d33/depths.csv.
B=/work/wt/plan-scratch/npz
S=/work/wt/plan-scratch/d33; O=/work/wt/plan-scratch/o33
rm -rf $S $O; mkdir -p $S $O
NPUZZLE_PROGRESS=lines /usr/bin/time -v $B analyze --size 4 --edges none --max-depth 33 \
  --memory 1G --chunk 524288 --scratch $S --output $O > report.txt 2> analyze.log
cmp $O/4x4/depths.csv ../4x4-d33/depths.csv && echo "depths.csv identical" >> report.txt
rm -rf $S $O
