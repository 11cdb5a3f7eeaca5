#!/bin/bash
# 4x4 to depth 30, layers and runs on disk, with --threads 1 then --threads 2 (the frontier
# search runs on rayon's pool, which --threads sizes): the per-core rate the plan rests on,
# and how it grows with threads. Release build of branch plan; 2-core machine, shared.
B=/work/wt/plan-scratch/npz
for t in 1 2; do
  S=/work/wt/plan-scratch/t$t; O=/work/wt/plan-scratch/ot$t
  rm -rf $S $O; mkdir -p $S $O
  NPUZZLE_PROGRESS=lines /usr/bin/time -v $B --threads $t analyze --size 4 --edges none \
    --max-depth 30 --memory 4G --scratch $S --output $O > report-$t.txt 2> analyze-$t.log
  # The counts (not the fractions, which are shares of the boards found) against depth 33's.
  cmp <(cut -d, -f1,2 $O/4x4/depths.csv) <(head -32 ../4x4-d33/depths.csv | cut -d, -f1,2) \
    && echo "counts of depths 0..30 identical to ../4x4-d33" >> report-$t.txt
  rm -rf $S $O
done
