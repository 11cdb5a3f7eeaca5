#!/bin/bash
# Issue 74, fifth stop: the side-by-side runs, the fourth stop's commands unchanged (2x7 whole
# in memory then through the frontier search, 4x4 to depth 36 on disk, 3x4 and 2x6 whole
# alternated), run from this stop's folder. Release build of 8ea6703 ($B), this 2-core
# machine, nothing else running, 2026-12-07 20:09-21:13.
W=${W:-/work/bench77} exec "$(dirname "$0")/../frontier-fourth-stop/commands.sh"
