#!/usr/bin/env bash
# Benchmarks of `npuzzle analyze`, release build, on this machine.
#
#   scripts/bench.sh            # 3x3 vs the C baseline, then 2x5, 3x4, 2x6
#   scripts/bench.sh 3x3        # only the 3x3 comparison
#   RUNS=10 scripts/bench.sh    # more repetitions (default 5; median reported)
#
# 3x3: the whole `analyze --size 3` (all outputs: edges.csv, nodes.csv, chart, ...) side by
# side with ../shared/baselines/bfs3x3.c -o edges.csv (plain C: BFS + components + CSV),
# timed with hyperfine when installed, otherwise with a plain loop. The ratio is what counts:
# the machines are shared and noisy.
# Larger boards: wall time, peak RSS (GNU time), boards expanded per second (both components
# are searched: n! boards), and PASS/FAIL against the published figures (OEIS A090166,
# A090163, A090167, A151944, A090036).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
WHAT=${1:-all}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

cargo build --release --quiet
BIN=target/release/npuzzle
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

bench_3x3() {
    local baseline=../shared/baselines/bfs3x3.c
    if [ ! -f "$baseline" ]; then
        echo "3x3: $baseline not found, skipping the comparison"
        return
    fi
    gcc -O2 -o "$OUT/bfs3x3" "$baseline"
    local c_cmd="$OUT/bfs3x3 -o $OUT/edges.csv"
    local n_cmd="$BIN analyze --size 3 --output $OUT/out --quiet"
    echo
    echo "== 3x3: npuzzle analyze (all outputs) vs C baseline (BFS + components + edges.csv)"
    if command -v hyperfine >/dev/null; then
        hyperfine -N -w 3 -r $((RUNS * 4)) --export-json "$OUT/h.json" "$c_cmd" "$n_cmd" >/dev/null
        python3 - "$OUT/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
c, n = r[0]["median"], r[1]["median"]
print(f"C baseline  median {c*1000:7.1f} ms")
print(f"npuzzle     median {n*1000:7.1f} ms")
print(f"ratio npuzzle/C = {n/c:.2f}  (must <= 1.5, aim <= 0.5)  {'PASS' if n/c <= 1.5 else 'FAIL'}")
PY
    else
        local cs ns
        cs=$(for _ in $(seq $((RUNS * 4))); do /usr/bin/time -f %e $c_cmd 2>&1 >/dev/null | tail -1; done | median)
        ns=$(for _ in $(seq $((RUNS * 4))); do /usr/bin/time -f %e $n_cmd 2>&1 >/dev/null | tail -1; done | median)
        echo "C baseline median ${cs}s, npuzzle median ${ns}s, ratio $(echo "$ns / $cs" | bc -l | cut -c1-4)"
    fi
    /usr/bin/time -f "npuzzle 3x3 peak RSS %M KB" $n_cmd 2>&1
}

# bench_board ROWS COLS REACHABLE MAX_DEPTH ANTIPODES
bench_board() {
    local r=$1 c=$2 reach=$3 depth=$4 anti=$5 times=() rss=()
    echo
    echo "== ${r}x${c}: analyze (components, depths, hardest, chart; no edge/node export), $RUNS runs"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$OUT/time" \
            "$BIN" analyze --rows "$r" --cols "$c" --edges none --nodes none --output "$OUT/out" --quiet
        read -r t m <"$OUT/time"
        times+=("$t"); rss+=("$m")
    done
    local t m
    t=$(printf '%s\n' "${times[@]}" | median)
    m=$(printf '%s\n' "${rss[@]}" | sort -g | tail -1)
    python3 - "$OUT/out/${r}x${c}/summary.json" "$t" "$m" "$reach" "$depth" "$anti" "${times[*]}" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t, rss = float(sys.argv[2]), int(sys.argv[3])
want = (int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
got = (s["reachable"], s["max_depth"], s["hardest"]["count"])
print(f"wall median {t:.2f} s (runs: {sys.argv[7]}), peak RSS {rss/1024:.0f} MB")
print(f"boards {s['boards']:,}, expanded per second {s['boards']/t/1e6:.1f} M, "
      f"{t*1e9/s['boards']:.1f} ns per board")
print(f"reachable {got[0]:,}, max depth {got[1]}, antipodes {got[2]}, components {s['components']['count']}")
ok = got == want and s["components"]["count"] == 2
print(("PASS" if ok else "FAIL") + f" against the published figures {want}")
PY
}

case "$WHAT" in
    3x3) bench_3x3 ;;
    all)
        bench_3x3
        bench_board 2 5 1814400 55 2
        bench_board 3 4 239500800 53 18
        bench_board 2 6 239500800 80 2
        ;;
    *) echo "usage: scripts/bench.sh [all|3x3]" >&2; exit 2 ;;
esac
