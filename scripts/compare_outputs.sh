#!/usr/bin/env bash
# Byte-identical outputs of two builds: runs OLD and NEW (two npuzzle binaries) on the analyses
# that take seconds (3x3, 2x3, 2x4, 2x5 with every output; 3x4 plain, with --table, in the
# multi-tile metric, as a cluster of 1 x 2 workers and of 2 x 1 over 127.0.0.1; the frontier
# search on 4x4 to depth 25), each in a folder of its own under the same relative names, and
# compares every file written. summary.json's "commit" line (the build's) is left out.
# Prints one line per run and exits non-zero when any file differs. About 3 minutes.
#
#   scripts/compare_outputs.sh OLD NEW [DIR]     (DIR: where to run; a temporary folder)
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help | "") sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
old=$(realpath "$1")
new=$(realpath "$2")
dir=${3:-$(mktemp -d)}
mkdir -p "$dir"
cd "$dir"

runs=(
  "3x3|analyze --size 3"
  "2x3|analyze --rows 2 --cols 3"
  "2x4|analyze --rows 2 --cols 4"
  "2x5|analyze --rows 2 --cols 5"
  "3x4|analyze --rows 3 --cols 4 --edges none"
  "3x4-table|analyze --rows 3 --cols 4 --edges none --table"
  "3x4-mtm|analyze --rows 3 --cols 4 --edges none --metric mtm"
  "3x4-1x2|analyze --rows 3 --cols 4 --edges none --workers 2"
  "3x4-2x1|cluster"
  "4x4-d25|analyze --size 4 --max-depth 25 --edges none"
)

# run BIN SIDE NAME ARGS...: one run in SIDE/NAME, output in SIDE/NAME/out.
run() {
  local bin=$1 side=$2 name=$3
  shift 3
  mkdir -p "$side/$name"
  if [ "$1" = cluster ]; then
    local port=$((20000 + RANDOM % 20000))
    printf "127.0.0.1:%d\n127.0.0.1:%d\n" "$port" "$((port + 1))" >"$side/$name/hosts"
    local base=(analyze --rows 3 --cols 4 --edges none --workers 1 --hostfile hosts --processes 2)
    (cd "$side/$name" && "$bin" "${base[@]}" --process 1 --output out1 --quiet &&
      rm -f hosts) &
    (cd "$side/$name" && "$bin" "${base[@]}" --process 0 --output out --quiet)
    wait
    rm -f "$side/$name/hosts"
  else
    (cd "$side/$name" && "$bin" "$@" --output out --quiet)
  fi
}

status=0
for entry in "${runs[@]}"; do
  name=${entry%%|*}
  read -ra args <<<"${entry#*|}"
  run "$old" old "$name" "${args[@]}"
  run "$new" new "$name" "${args[@]}"
  if diff -r -I '"commit":' old/"$name" new/"$name" >/dev/null; then
    echo "same       $name ($(find new/"$name" -type f | wc -l) files)"
  else
    echo "DIFFERENT  $name"
    diff -r -I '"commit":' old/"$name" new/"$name" | head -20 || true
    status=1
  fi
done
exit $status
