#!/usr/bin/env bash
# Time and peak RSS of a table's build in `npuzzle serve` (issue 62, docs/serve.md): for each
# ROWS:COLS:METRIC, a fresh server, its /api/shape offer (estimated seconds, peak bytes, table
# bytes), then POST /api/map timed by curl, and the process's VmHWM (peak RSS) before and after.
# Usage: scripts/bench_serve_map.sh target/release/npuzzle 3:4:stm 3:4:mtm 2:6:stm
set -euo pipefail
bin=${1:-target/release/npuzzle}
shift || true
for spec in "$@"; do
  IFS=: read rows cols metric <<<"$spec"
  out=$(mktemp)
  "$bin" serve --port 0 >"$out" 2>&1 &
  pid=$!
  sleep 0.5
  url=$(grep -o 'http://[^ ]*' "$out" | head -1)
  before=$(grep VmHWM /proc/$pid/status | awk '{print $2}')
  offer=$(curl -sS -G "${url}api/shape" -d rows=$rows -d cols=$cols -d metric=$metric | python3 -c 'import json,sys; m=json.load(sys.stdin)["map"]; print(m["seconds"], m["bytes"], m["table_bytes"])')
  t=$(curl -sS -o /dev/null -w '%{http_code} %{time_total}' -X POST "${url}api/map?rows=$rows&cols=$cols&metric=$metric")
  after=$(grep VmHWM /proc/$pid/status | awk '{print $2}')
  rss=$(grep VmRSS /proc/$pid/status | awk '{print $2}')
  echo "$rows x $cols $metric: status+time $t; offer (s, peak bytes, table bytes) $offer; VmHWM before ${before} kB, after ${after} kB; VmRSS after ${rss} kB"
  kill $pid; wait $pid 2>/dev/null || true
  rm -f "$out"
done
