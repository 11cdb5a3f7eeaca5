#!/bin/bash
# Issue 74, sixth stop: A/B of the fifth stop's build (8ea6703) and this stop's, 2x7 to depth 52
# on disk, alternated, 3 each.
W=${W:-/work/bench78}
cd $W
t() { /usr/bin/time -a -o $W/ab52.txt -f "$1: %e s wall, %U+%S s CPU, %M KB peak RSS" "${@:2}"; }
for i in 1 2 3; do
  for b in npz-5th npz-gaps2; do
    rm -rf ab-s ab-o; mkdir -p ab-s
    t "2x7 d52 $b $i" /work/prof/$b analyze --rows 2 --cols 7 --edges none --max-depth 52 --scratch $W/ab-s --output $W/ab-o > /dev/null 2> /dev/null
  done
done
rm -rf ab-s ab-o
