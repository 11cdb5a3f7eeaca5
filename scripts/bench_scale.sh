#!/usr/bin/env bash
# Simulated scale (issue 49): a board over loopback with 4 processes x 1 worker and checkpoints
# after every layer, one process killed with SIGKILL mid-run, all resumed; the result must equal
# the one-machine depths.csv. Reports each run's wall and each process's peak RSS (GNU time),
# and process 0's report lines on the lists sent and held. Release build; never in CI.
#
#   scripts/bench_scale.sh 3x4          # about a minute
#   scripts/bench_scale.sh 2x7          # about an hour, 11 GB of memory over the 4 processes and
#                                       # 22 GB of checkpoint slots in $OUT (default /tmp/scale)
#   KILL_AFTER=600 scripts/bench_scale.sh 2x7   # seconds before the kill (default: 3 s on 3x4,
#                                               # 300 s on 2x7)
#   NO_BUILD=1 scripts/bench_scale.sh 3x4       # use the existing target/release/npuzzle
set -euo pipefail
case "${1:-}" in -h | --help | "") sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
board=$1
case $board in
3x4) shape=(--rows 3 --cols 4); kill_after=${KILL_AFTER:-3} ;;
2x7) shape=(--rows 2 --cols 7); kill_after=${KILL_AFTER:-300} ;;
*) echo "error: give 3x4 or 2x7" >&2; exit 2 ;;
esac
[ -n "${NO_BUILD:-}" ] || cargo build --release --locked --quiet
BIN=$PWD/target/release/npuzzle
OUT=${OUT:-/tmp/scale}/$board
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT"
base=$((24100 + RANDOM % 500))
for p in 0 1 2 3; do echo "127.0.0.1:$((base + p))"; done >hosts

/usr/bin/time -f '%e %M' -o one.time "$BIN" analyze "${shape[@]}" --edges none --nodes none \
    --quiet --output one
run() { # $1: a or b (the killed run, the resumed one); the rest: extra flags
    local tag=$1
    shift
    for p in 3 2 1 0; do
        /usr/bin/time -f '%e %M' -o "time-$tag-$p" "$BIN" analyze "${shape[@]}" --edges none \
            --nodes none --processes 4 --process "$p" --hostfile hosts --workers 1 \
            --checkpoint "$OUT/ck" --checkpoint-every layer --output "out-$p" "$@" \
            >"log-$tag-$p" 2>&1 &
    done
}
run a
sleep "$kill_after"
victim=$(awk '{print $2}' ck/process-2.lock)
kill -9 "$victim"
wait || true
run b --resume
wait
if cmp -s one/$board/depths.csv out-0/$board/depths.csv; then same=PASS; else same=FAIL; fi
read -r one_s one_kb <one.time
echo "one machine: $one_s s, peak RSS $((one_kb / 1000)) MB"
for tag in a b; do
    for p in 0 1 2 3; do
        read -r s kb < <(tail -1 "time-$tag-$p")
        how=$(grep -h "terminated by signal\|exited with" "time-$tag-$p" || true)
        echo "run $tag process $p: $s s, peak RSS $((kb / 1000)) MB${how:+ ($how)}"
    done
done
grep -h "resumed\|received lists\|sent" log-b-0 || true
echo "$same depths.csv of the resumed run equal to the one-machine run's"
[ "$same" = PASS ]
