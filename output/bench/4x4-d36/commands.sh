#!/bin/bash
# 4x4 depth-limited search with its layers in a checkpoint folder: killed during layer 33,
# resumed to 33 (compared with output/bench/4x4-d33), then resumed deeper to 35.
B=/work/npz-bench
CK=/work/ck44; O=/work/o44
rm -rf $CK $O; mkdir -p $O
args="analyze --size 4 --edges none --memory 12G --checkpoint $CK"
NPUZZLE_PROGRESS=lines /usr/bin/time -f "killed-run %e s wall %M KB" $B $args --max-depth 33 --output $O/a > $O/a.out 2> $O/a.log &
while ! grep -q "depth 32:" $O/a.log 2>/dev/null; do sleep 2; done
sleep 60; pkill -9 -f "npz-bench analyze"; wait
echo "killed at $(date +%T)" >> $O/a.log
NPUZZLE_PROGRESS=lines /usr/bin/time -f "resume-33 %e s wall %M KB" $B $args --max-depth 33 --resume --output $O/b > $O/b.out 2> $O/b.log
NPUZZLE_PROGRESS=lines /usr/bin/time -f "resume-35 %e s wall %M KB" $B $args --max-depth 35 --resume --output $O/c > $O/c.out 2> $O/c.log
du -sh $CK >> $O/c.log
echo ALLDONE >> $O/c.log
while ! grep -q ALLDONE $O/c.log 2>/dev/null; do sleep 5; done
NPUZZLE_PROGRESS=lines /usr/bin/time -f "resume-36 %e s wall %M KB" $B analyze --size 4 --edges none --memory 12G --checkpoint $CK --max-depth 36 --resume --output $O/d > $O/d.out 2> $O/d.log
du -sh $CK >> $O/d.log
echo ALLDONE >> $O/d.log
rm -rf $CK
