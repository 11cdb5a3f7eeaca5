#!/usr/bin/env bash
# 2x7 over loopback, 2 processes x 1 worker, with --table (issue 25's cluster tables).
set -u
BIN=/work/main/target/release/npuzzle
cd /tmp/c27
port=$((20000 + RANDOM % 20000))
printf "127.0.0.1:%d\n127.0.0.1:%d\n" "$port" "$((port + 1))" > hosts
base="analyze --rows 2 --cols 7 --edges none --table --processes 2 --hostfile hosts --workers 1"
/usr/bin/time -f "%e %M" -o p1.time $BIN $base --process 1 --output out1 --quiet > p1.log 2>&1 &
NPUZZLE_PROGRESS=lines /usr/bin/time -f "%e %M" -o p0.time $BIN $base --process 0 --output out0 > p0.log 2>&1
wait
echo finished >> p0.time
