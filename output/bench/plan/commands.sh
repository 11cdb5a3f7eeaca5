#!/bin/bash
# The plan's projections (issue 63): 3x5, 4x4 and 2x8 to the end, both metrics, on 1, 4, 8
# and 16 machines of 16 cores, 64 GB of memory and local NVMe each, the layers in a checkpoint
# folder (resumable). Nothing is searched: --plan prints and exits. Output: projections.txt.
B=${B:-target/release/npuzzle}
for board in "--rows 3 --cols 5" "--size 4" "--rows 2 --cols 8"; do
  for metric in stm mtm; do
    echo "\$ npuzzle analyze $board --metric $metric --max-depth 1000 --plan --workers 16 --memory 64G --checkpoint /nvme/np"
    $B analyze $board --metric $metric --max-depth 1000 --plan --workers 16 --memory 64G --checkpoint /nvme/np
    echo
  done
done
