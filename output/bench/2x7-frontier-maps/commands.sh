#!/bin/bash
# 2x7 whole through the frontier search, side by side with the in-memory engine: step 1 (and
# step 4, the in-memory run after) of ../4x4-d36-maps/commands.sh, the one script of issue 74's
# second stop; the in-memory run before it (09:21) is in times.txt.
exec "$(dirname "$0")/../4x4-d36-maps/commands.sh" "$@"
