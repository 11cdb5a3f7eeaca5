#!/usr/bin/env bash
# Benchmarks of `npuzzle analyze`, release build, on this machine. Prints PASS/FAIL lines and
# exits 1 if any "must" check failed ("aim" lines are information only).
#
#   scripts/bench.sh            # all: 3x3 vs bfs3x3.c, 3x4 vs bfs_naive.c, then 2x5, 4x3, 2x6, 6x2
#   scripts/bench.sh 3x3        # only the 3x3 comparison
#   scripts/bench.sh 3x4        # only the 3x4 comparison
#   scripts/bench.sh cluster    # the distributed engine: 3x4, 1 x 2 and 2 x 1 vs one machine
#   DEPTH=31 scripts/bench.sh 4x4  # depth-limited search of 4x4 (never in CI; SCRATCH=dir for disk,
#                                  # CHECKPOINT=dir for layers and state there, MEMORY=12G)
#   SCRATCH=dir scripts/bench.sh frontier2x7  # 2x7 whole, as a frontier search in 4 GB (issue 22)
#   scripts/bench.sh parquet    # 3x4 --edges parquet against --edges none (builds --features parquet)
#   scripts/bench.sh 2x7        # the long one (tens of minutes, 11+ GB; never in CI), once
#   BOTH=1 scripts/bench.sh 2x7 # ... then 7x2 as well
#   RUNS=10 scripts/bench.sh    # more npuzzle repetitions (default 5)
#   BASE_RUNS=3 scripts/bench.sh 3x4  # more bfs_naive repetitions (default 1: it takes over a minute)
#   NO_BUILD=1 scripts/bench.sh # use the existing target/release/npuzzle, skip `cargo build --release`
#   NO_BUILD=1 NPUZZLE=/path/to/npuzzle scripts/bench.sh 3x3  # benchmark another binary
#   scripts/bench.sh check      # every advertised ratio against output/bench/figures.csv (about 5 min)
#   scripts/bench.sh check table mtm   # only the named figures and their -c ones (RUNS=1: one round)
#   scripts/bench.sh check --update    # measure, then rewrite figures.csv and docs/performance.md's block
#   scripts/bench.sh check --update --reason "why"   # ... accepting a worse figure, the reason recorded
#
# The machines are shared, noisy, 2-core VMs: every time printed is a median over the runs, and the
# ratios against the C baselines (built and run side by side, in the same run) are what count, not
# the absolute times. Wall time and peak RSS come from GNU time (`/usr/bin/time -f "%e %M"`);
# MB and GB here are 10^6 and 10^9 bytes.
#
# 3x3: the whole `analyze --size 3` (all outputs: edges.csv, nodes.csv, chart, ...) side by side with
#   ../shared/baselines/bfs3x3.c -o edges.csv (plain C: BFS + components + CSV), timed with hyperfine
#   when installed, otherwise with a plain loop (alternating the two). Must: ratio npuzzle/C <= 0.6
#   (it is about 0.5).
# 3x4: `analyze --rows 3 --cols 4 --edges none --quiet` side by side with ../shared/baselines/bfs_naive.c
#   (`bfs_naive 3 4`: plain C, one byte per permutation, ~75 s and 470 MB), run alternately, npuzzle
#   RUNS times and the baseline BASE_RUNS times (both search the goal's component only; the second
#   is stated, see --search-components). Must: ratio npuzzle/C <= 0.08 (issue 21; aim <= 0.05) and
#   <= 0.06 (the first target; aim <= 0.03), npuzzle
#   peak RSS <= 100 MB (aim <= 70 MB), summary.json against the published figures (reachable
#   239500800, max depth 53, 18 antipodes, 2 components) and depth_counts identical to the baseline's
#   `counts:` line.
# 2x5, 4x3, 2x6, 6x2 (in "all"): wall median, peak RSS, ns per reachable board (the engine searches the
#   goal's component: n!/2 boards), PASS/FAIL against the published figures (OEIS A090166, A090163,
#   A090167, A151944, A090036) and 2 components.
# parquet: 3x4 `analyze --edges parquet --edges none` against `--edges none`, alternately, RUNS
#   times each (a build with --features parquet). The export's time is the difference of the medians.
#   Must: <= 4 bytes per edge and >= 40 M edges/s beyond the analysis (aim: 3 bytes, 70 M edges/s).
# 2x7 (7x2 with BOTH=1): one run of `analyze --rows 2 --cols 7 --edges none` (report to
#   output/bench/2x7/analyze.log, progress on the terminal). Must: reachable 43589145600, max depth
#   108, 1 antipode (OEIS A346736); 2x7 wall <= 600 s and peak RSS <= 12 GB (issue 21; aim 360 s),
#   7x2 wall <= 30 min and peak RSS <= 14 GB. summary.json
#   and depths.csv are copied to output/bench/2x7/ (output/bench/7x2/) to be committed.
# check [FIGURE...] [--update [--reason TEXT]]: the guard of every advertised performance figure.
#   Each figure is a ratio of two sides measured in the same rounds (3; RUNS=N for N): every
#   side, the C baselines bfs_naive and bfs3x3 included, runs once in every round, in an order
#   reversed from one round to the next, and the figure is the median of its per-round ratios
#   (a round's ratio: its two runs), so that the shared machine's speed cancels. Every engine
#   path has a figure against a C baseline (NAME-c beside NAME, which is against the plain 3x4
#   run), so that a slowdown in code both npuzzle sides share (src/bfs/step.rs) shows.
#   scripts/figures.py compares them with the committed values in output/bench/figures.csv and
#   prints, per figure, the two sides, the value, the per-round spread, the committed value,
#   the issue's bound ("must") and the peak RSS, PASS or FAIL, and at the end the name of every
#   failing figure. Each round's line gives its walls, the CPU time the hypervisor stole and the
#   CPU time other processes took (another user's work slows npuzzle's two threads more than a
#   one-threaded C baseline, which no ratio cancels). Exit 1 when a figure is more than 15 %
#   worse than its committed value (larger for time ratios, smaller for rates), when a count
#   (kind `exact`: korf100-nodes) differs at all, when the measured side's peak RSS (GNU time's
#   %M, the largest over the rounds) is more than 15 % and 10 MB above the committed one, when
#   a figure breaks its bound (`table`'s and `cluster`'s are reported only), has wrong outputs or
#   no committed value; and when the block of docs/performance.md between
#   `<!-- figures:begin -->` and `<!-- figures:end -->` is not what figures.csv renders (`page`).
#   `--update` writes the measured values into figures.csv (with the date, the commit and the
#   per-round spread in the note) and renders the page's block anew; it writes nothing, and
#   exits 1, when any output is wrong or a bound broken, or when a figure is worse by the rules
#   above (worse, a changed count, a larger RSS) and no `--reason TEXT` is given; the reason
#   is recorded in the figure's `reason` column. A placeholder (no date) is replaced freely.
#   The C baselines are read from ../shared/baselines (BASELINES=DIR for another folder). About
#   5 minutes on 2 cores (bfs_naive, about 60 s, runs in each round). The figures:
#   3x3      the whole `analyze --size 3` / bfs3x3.c -o edges.csv: 10 pairs a round (after one
#            not counted), the first of a pair alternating, timed with bash's microsecond clock;
#            a round's ratio is the median of its npuzzle walls over that of its C walls; depth
#            counts equal to the C program's; peak RSS from one more run a round
#   3x4      `analyze --rows 3 --cols 4 --edges none` (the "plain" run, the other side of the
#            figures below) / bfs_naive.c `bfs_naive 3 4`; depth counts identical, reachable,
#            radius, antipodes and components as published
#   mtm      3x4 `--metric mtm` / plain (mtm-c: / bfs_naive); reachable 239,500,800, radius 33
#   table    3x4 `--table` / plain (table-c: / bfs_naive); depths.csv the same
#   answers  1,000,000 random solvable 3x4 boards (seed 2026, made by scripts/figures.py boards)
#            through `solve --table DIR --batch FILE` (solutions written) / plain (answers-c: /
#            bfs_naive); every row with a length, that of its solution, and the first 1,000
#            lengths equal to those of `solve --batch` with IDA* and pattern databases; the bound
#            is on its median wall (at most 3.0 s)
#   korf100  Korf's 100 4x4 boards (benches/data/korf100.txt) through `solve --batch --pdb 6-6-3`
#            (the databases built first into a temporary cache, apart) / `bfs_naive 3 4`'s wall;
#            every length the published one (benches/data/korf100_lengths.csv). Also
#            `korf100-nodes`: the mean boards generated per board, a count compared exactly
#   cluster  3x4 over 127.0.0.1, 2 processes x 1 worker (process 0's wall) / plain (cluster-c: /
#            bfs_naive); summary.json identical to the plain run's but for the command line
#   frontier the frontier search's boards per second, 4x4 `--max-depth 25 --edges none`, against
#            the in-memory engine's on plain 3x4 (239,500,800 boards / its wall), and (frontier-c)
#            against bfs_naive's on 3x4; higher is better; depth counts equal to those of
#            output/bench/4x4-d31/depths.csv
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
RUNS_GIVEN=${RUNS:-}
RUNS=${RUNS:-5}
BASE_RUNS=${BASE_RUNS:-1}
WHAT=${1:-all}
[ $# -eq 0 ] || shift
case "$WHAT" in
    all | 3x3 | 3x4 | 2x7 | cluster | 4x4 | frontier2x7 | parquet | check) ;;
    *) echo "usage: [RUNS=5] [BASE_RUNS=1] [BOTH=1] [NO_BUILD=1] scripts/bench.sh [all|3x3|3x4|2x7|cluster|4x4|frontier2x7|parquet|check [FIGURE...] [--update [--reason TEXT]]]" >&2; exit 2 ;;
esac
# check's jobs, in the order measured and printed, the figures (rows of output/bench/figures.csv)
# they give (NAME-c: the same job against the C baseline bfs_naive, korf100-nodes: a count), the
# frontier search's depth and the 3x3 pairs a round; the figures asked for (all when none is
# named), --update and --reason, read before the build so that a typo fails fast.
CHECK_FIGURES="3x3 3x4 mtm table answers korf100 cluster frontier"
CHECK_ROWS="3x3 3x4 mtm mtm-c table table-c answers answers-c korf100 korf100-nodes cluster cluster-c frontier frontier-c"
FRONTIER_DEPTH=25
PAIRS_3X3=10
CHECK_WANT=()
CHECK_UPDATE=0
CHECK_REASON=""
if [ "$WHAT" = check ]; then
    while [ $# -gt 0 ]; do
        case "$1" in
            --update) CHECK_UPDATE=1 ;;
            --reason)
                if [ $# -lt 2 ] || [ -z "${2// /}" ]; then echo "check: --reason needs a text" >&2; exit 2; fi
                CHECK_REASON=$2
                shift
                ;;
            korf100-nodes) CHECK_WANT+=(korf100) ;;
            mtm-c | table-c | answers-c | cluster-c | frontier-c) CHECK_WANT+=("${1%-c}") ;;
            3x3 | 3x4 | mtm | table | answers | korf100 | cluster | frontier) CHECK_WANT+=("$1") ;;
            *) echo "check: no figure $1 (figures: $CHECK_ROWS; or --update [--reason TEXT])" >&2; exit 2 ;;
        esac
        shift
    done
    if [ -n "$CHECK_REASON" ] && [ "$CHECK_UPDATE" = 0 ]; then
        echo "check: --reason goes with --update" >&2
        exit 2
    fi
    [ ${#CHECK_WANT[@]} -gt 0 ] || read -ra CHECK_WANT <<<"$CHECK_FIGURES"
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
FAILS=0
CHECK_FAILED=""

if [ "${NO_BUILD:-0}" != 1 ]; then
    if [ "$WHAT" = parquet ]; then
        cargo build --release --quiet --features parquet
    else
        cargo build --release --quiet
    fi
fi
BIN=${NPUZZLE:-target/release/npuzzle}
# where check finds the C baselines (a worktree beside the main checkout: BASELINES=/path)
BASELINES=${BASELINES:-../shared/baselines}
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)')"

# stolen: CPU time, in 1/100 s summed over the cores, that the hypervisor gave to other guests
#   while this machine's cores had work (/proc/stat's steal column; 0 where there is none). A slow
#   spell of the shared host shows here; the code's own speed does not.
stolen() { awk '/^cpu / {print $9 + 0; found = 1; exit} END {if (!found) print 0}' /proc/stat 2>/dev/null || echo 0; }
STEAL_START=$(stolen)
WALL_START=$(date +%s)
# steal_since T0 WALL0: the CPU time stolen since stolen() read T0 at wall time WALL0 (s since
#   the epoch), in s and as a share of the cores' time.
steal_since() {
    awk -v s="$(($(stolen) - $1))" -v w="$(($(date +%s) - $2))" -v n="$(nproc)" \
        'BEGIN {printf "%.1f s of CPU stolen by the hypervisor (%.1f %% of %d cores over %d s)", s / 100, (w > 0 ? s / (w * n) : 0), n, w}'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# timed FILE CMD...: runs CMD under GNU time, appends "wall_s peak_kb" to FILE
timed() {
    local file=$1; shift
    /usr/bin/time -f "%e %M" -o "$OUT/time" "$@"
    cat "$OUT/time" >>"$file"
}

# cluster: the distributed engine (timely-dataflow) on 3x4 --edges none, over loopback, alternating
#   with the one-machine engine: 1 process x 2 workers (threads sharing the marks) and 2 processes
#   x 1 worker (TCP on 127.0.0.1), RUNS each. Must (issue 21): the 1 x 2 wall <= 1.10 x the
#   one-machine wall, the 2 x 1 wall <= 1.25 x, summary.json identical in all runs (but for the
#   command line its provenance records); prints the
#   bytes sent per board expanded. Also 2 x 1 with process 1 on 127.0.0.2 (another host to
#   npuzzle: its lists sorted and gap-encoded, as across a network; each process alone on its
#   host, so unbound), reported, no must of its own (its summary.json is in the identity check).
#   Also prints, for information, each run's ratio to the one-machine run of its own round, and
#   each round's CPU time stolen by the hypervisor (every bench ends with the whole bench's).
bench_cluster() {
    : >"$OUT/k1"; : >"$OUT/k2"; : >"$OUT/kr"; : >"$OUT/ks"
    echo
    echo "== cluster: 3x4, 1 process x 2 workers vs 2 processes x 1 worker over 127.0.0.1, $RUNS runs each"
    local base=(analyze --rows 3 --cols 4 --edges none)
    local port=$((20000 + RANDOM % 20000)) i
    printf "127.0.0.1:%d\n127.0.0.1:%d\n" "$port" "$((port + 1))" >"$OUT/hosts"
    printf "127.0.0.1:%d\n127.0.0.2:%d\n" "$((port + 2))" "$((port + 3))" >"$OUT/hosts2"
    for i in $(seq "$RUNS"); do
        local steal0 wall0
        steal0=$(stolen) wall0=$(date +%s)
        timed "$OUT/k1" "$BIN" "${base[@]}" --workers 2 --output "$OUT/k1out" >"$OUT/k1.txt"
        echo "  1 x 2 run $i: $(tail -1 "$OUT/k1" | awk '{printf "%.2f s, %.0f MB", $1, $2*1024/1e6}')"
        "$BIN" "${base[@]}" --processes 2 --process 1 --hostfile "$OUT/hosts" --workers 1 \
            --output "$OUT/k2out1" --quiet &
        timed "$OUT/k2" "$BIN" "${base[@]}" --processes 2 --process 0 --hostfile "$OUT/hosts" --workers 1 \
            --output "$OUT/k2out" >"$OUT/k2.txt"
        wait
        echo "  2 x 1 run $i: $(tail -1 "$OUT/k2" | awk '{printf "%.2f s, %.0f MB (process 0)", $1, $2*1024/1e6}')"
        "$BIN" "${base[@]}" --processes 2 --process 1 --hostfile "$OUT/hosts2" --workers 1 \
            --output "$OUT/ksout1" --quiet &
        timed "$OUT/ks" "$BIN" "${base[@]}" --processes 2 --process 0 --hostfile "$OUT/hosts2" --workers 1 \
            --output "$OUT/ksout" >"$OUT/ks.txt"
        wait
        echo "  2 x 1 across hosts run $i: $(tail -1 "$OUT/ks" | awk '{printf "%.2f s", $1}')"
        timed "$OUT/kr" "$BIN" "${base[@]}" --output "$OUT/krout" --quiet
        echo "  one machine run $i: $(tail -1 "$OUT/kr" | awk '{printf "%.2f s", $1}'); round $i: $(steal_since "$steal0" "$wall0")"
    done
    local t1 t2 tr ts
    t1=$(cut -d' ' -f1 "$OUT/k1" | median)
    t2=$(cut -d' ' -f1 "$OUT/k2" | median)
    tr=$(cut -d' ' -f1 "$OUT/kr" | median)
    ts=$(cut -d' ' -f1 "$OUT/ks" | median)
    python3 - "$t1" "$t2" "$tr" "$OUT/k1.txt" "$OUT/k2.txt" "$OUT/k1out/3x4/summary.json" \
        "$OUT/k2out/3x4/summary.json" "$OUT/krout/3x4/summary.json" "$ts" "$OUT/ks.txt" \
        "$OUT/ksout/3x4/summary.json" "$OUT/k1" "$OUT/k2" "$OUT/kr" <<'PY' || FAILS=$((FAILS + 1))
import json, re, statistics, sys
t1, t2, tr = map(float, sys.argv[1:4])
ts = float(sys.argv[9])
def walls(path):
    return [float(line.split()[0]) for line in open(path) if line.strip()]
def paired(path):
    # Each run against the one-machine run of its own round (seconds apart): the
    # machine's slow spells, which last seconds to minutes, then hit both sides of a ratio.
    r = [a / b for a, b in zip(walls(path), walls(sys.argv[14]))]
    return f"median {statistics.median(r):.2f}, {min(r):.2f}-{max(r):.2f} over {len(r)} rounds"

def note(path):
    m = re.search(r"([\d,]+) boards expanded, ([\d,]+) indices sent .* \(([\d.]+) bytes per board", open(path).read())
    return int(m.group(1).replace(",", "")), int(m.group(2).replace(",", "")), float(m.group(3))
e1, s1, b1 = note(sys.argv[4])
e2, s2, b2 = note(sys.argv[5])
es, ss, bs = note(sys.argv[10])
def figures(path):
    # summary.json without its provenance (the command lines differ between the runs).
    s = json.load(open(path))
    s.pop("npuzzle", None)
    return json.dumps(s, sort_keys=True)
same = len({figures(f) for f in sys.argv[6:9] + sys.argv[11:12]}) == 1
print(f"1 process x 2 workers   median {t1:6.2f} s, {t1*1e9/e1:5.1f} ns per board expanded, {s1:,} indices sent, {b1:.2f} bytes per board")
print(f"2 processes x 1 worker  median {t2:6.2f} s, {t2*1e9/e2:5.1f} ns per board expanded, {s2:,} indices sent, {b2:.2f} bytes per board")
print(f"2 x 1 across hosts      median {ts:6.2f} s, {ts*1e9/es:5.1f} ns per board expanded, {ss:,} indices sent, {bs:.2f} bytes per board (lists sorted; {ts/tr:.2f} x one machine)")
print(f"one-machine engine      median {tr:6.2f} s (rayon, lane claims and pull steps)")
print(f"per-round ratios (each run / its round's one-machine run, for information): 1 x 2 {paired(sys.argv[12])}; 2 x 1 {paired(sys.argv[13])}")
print(f"{'PASS' if same else 'FAIL'} summary.json identical in the four runs")
r1, r2 = t1 / tr, t2 / tr
print(f"{'PASS' if r1 <= 1.10 else 'FAIL'} 1 x 2 wall / one-machine wall = {r1:.2f}  (must <= 1.10)")
print(f"{'PASS' if r2 <= 1.25 else 'FAIL'} 2 x 1 wall / one-machine wall = {r2:.2f}  (must <= 1.25)")
sys.exit(0 if same and r1 <= 1.10 and r2 <= 1.25 else 1)
PY
}

# 4x4 (and 3x5, 2x8 with BOARD="--rows 3 --cols 5"): analyze --max-depth DEPTH (default 31), one
#   run, per-layer progress lines in output/bench/4x4-d$DEPTH/analyze.log. Must (4x4, depth 31):
#   wall <= 30 min, peak RSS <= 20 GB; (depth 33, issue 21) wall <= 8 min, peak RSS <= 11 GB, the
#   rate at depth 33 at least 0.85 x the rate at depth 27; (depth 36, issue 22, with SCRATCH or
#   CHECKPOINT and MEMORY=12G) wall <= 75 min, peak RSS <= 12 GB, peak disk reported; depths
#   0..20 equal to OEIS A089484. Prints the boards per second of each layer and the bytes per
#   stored board.
bench_limited() {
    local depth=${DEPTH:-31} board=${BOARD:---size 4} board_args
    local name
    name=$(echo "$board" | awk '{ if ($1 == "--size") print $2 "x" $2; else print $2 "x" $4 }')
    read -ra board_args <<<"$board"
    local keep="output/bench/$name-d$depth"
    mkdir -p "$keep"
    echo
    echo "== $name: analyze --max-depth $depth${SCRATCH:+ --scratch $SCRATCH}${CHECKPOINT:+ --checkpoint $CHECKPOINT}${MEMORY:+ --memory $MEMORY}, one run; started $(date -u '+%F %T')"
    NPUZZLE_PROGRESS=lines timed "$OUT/l" "$BIN" analyze "${board_args[@]}" --max-depth "$depth" \
        ${SCRATCH:+--scratch "$SCRATCH"} ${CHECKPOINT:+--checkpoint "$CHECKPOINT"} \
        ${MEMORY:+--memory "$MEMORY"} --edges none --output "$OUT/out" 2>"$keep/analyze.log" \
        >>"$keep/analyze.log"
    cp "$OUT/out/$name/summary.json" "$OUT/out/$name/depths.csv" "$keep/"
    python3 - "$keep" "$(cat "$OUT/l")" "$name" "$depth" <<'PY' || FAILS=$((FAILS + 1))
import json, re, sys
keep, timing, name, depth = sys.argv[1], sys.argv[2].split(), sys.argv[3], int(sys.argv[4])
wall, kb = float(timing[0]), int(timing[1])
s = json.load(open(f"{keep}/summary.json"))
log = open(f"{keep}/analyze.log").read()
print("depth      boards    boards/s   in memory")
for m in re.finditer(r"depth (\d+): ([\d,]+) boards, ([\d,]+)/s, ([\d.]+ \w?B) in memory", log):
    if int(m.group(1)) >= depth - 8:
        print(f"{int(m.group(1)):5} {m.group(2):>15} {m.group(3):>11} {m.group(4):>11}")
peak = re.search(r"at most ([\d.]+ \w?B) of layers", log)
counts = s["depth_counts"]
print(f"wall {wall/60:.1f} min, peak RSS {kb*1024/1e9:.2f} GB, {sum(counts):,} boards within depth {len(counts)-1}, "
      f"complete: {s['complete']}; layers in memory at most {peak.group(1) if peak else '?'}")
fails = 0
if name == "4x4":
    a089484 = [1, 2, 4, 10, 24, 54, 107, 212, 446, 946, 1948, 3938, 7808, 15544, 30821, 60842,
               119000, 231844, 447342, 859744, 1637383]
    ok = counts[:21] == a089484[:len(counts[:21])]
    print(f"{'PASS' if ok else 'FAIL'} depths 0..20 equal OEIS A089484")
    fails += not ok
    if depth == 33:
        # Issue 21: the frontier search in linear time.
        ok = wall <= 480
        print(f"{'PASS' if ok else 'FAIL'} wall {wall/60:.1f} min  (must <= 8 min for depth 33)")
        fails += not ok
        ok = kb * 1024 <= 11e9
        print(f"{'PASS' if ok else 'FAIL'} peak RSS {kb*1024/1e9:.2f} GB  (must <= 11 GB)")
        fails += not ok
        rates = {int(m.group(1)): int(m.group(2).replace(",", "")) for m in
                 re.finditer(r"depth (\d+): [\d,]+ boards, ([\d,]+)/s", log)}
        if 27 in rates and 33 in rates:
            r = rates[33] / rates[27]
            ok = r >= 0.85
            print(f"{'PASS' if ok else 'FAIL'} rate at depth 33 / rate at depth 27 = {r:.2f}  (must >= 0.85)")
            fails += not ok
    elif depth == 36:
        # Issue 22: layers on disk and a memory budget.
        disk = [float(m.group(1)) * {"kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}.get(m.group(2), 1)
                for m in re.finditer(r"([\d.]+) (\w?B) on disk", log)]
        print(f"peak disk {max(disk, default=0)/1e9:.1f} GB (layers and runs after each layer)")
        ok = wall <= 75 * 60
        print(f"{'PASS' if ok else 'FAIL'} wall {wall/60:.1f} min  (must <= 75 min for depth 36)")
        fails += not ok
        ok = kb * 1024 <= 12e9
        print(f"{'PASS' if ok else 'FAIL'} peak RSS {kb*1024/1e9:.2f} GB  (must <= 12 GB)")
        fails += not ok
    elif depth >= 31:
        ok = wall <= 1800
        print(f"{'PASS' if ok else 'FAIL'} wall {wall/60:.1f} min  (must <= 30 min for depth 31)")
        fails += not ok
        ok = kb * 1024 <= 20e9
        print(f"{'PASS' if ok else 'FAIL'} peak RSS {kb*1024/1e9:.2f} GB  (must <= 20 GB)")
        fails += not ok
sys.exit(1 if fails else 0)
PY
}

# frontier2x7: 2x7 whole as a frontier search (--max-depth 1000 --memory 4G, layers on disk in
#   SCRATCH, default a folder in the temporary folder), one run. Must (issue 22): depths.csv equal to the
#   whole-space engine's (output/bench/2x7/depths.csv), peak RSS <= 4 GB; wall reported.
bench_frontier_2x7() {
    local keep=output/bench/2x7-frontier scratch=${SCRATCH:-$OUT/scratch}
    mkdir -p "$keep"
    echo
    echo "== 2x7: analyze --max-depth 1000 --memory 4G --scratch $scratch, one run; started $(date -u '+%F %T')"
    NPUZZLE_PROGRESS=lines timed "$OUT/f" "$BIN" analyze --rows 2 --cols 7 --max-depth 1000 \
        --memory 4G --scratch "$scratch" --edges none --output "$OUT/out" \
        2>"$keep/analyze.log" >>"$keep/analyze.log"
    cp "$OUT/out/2x7/summary.json" "$OUT/out/2x7/depths.csv" "$keep/"
    local wall kb
    read -r wall kb <"$OUT/f"
    echo "wall $wall s, peak RSS $((kb / 1000)) MB"
    if cmp -s "$keep/depths.csv" output/bench/2x7/depths.csv; then
        echo "PASS depths.csv equals the whole-space engine's"
    else
        echo "FAIL depths.csv differs from output/bench/2x7/depths.csv"
        FAILS=$((FAILS + 1))
    fi
    if [ "$kb" -le 4000000 ]; then
        echo "PASS peak RSS $((kb / 1000)) MB  (must <= 4 GB)"
    else
        echo "FAIL peak RSS $((kb / 1000)) MB  (must <= 4 GB)"
        FAILS=$((FAILS + 1))
    fi
}

# time_3x3 N: the whole `analyze --size 3` (output in $OUT/out/3x3) and ../shared/baselines/bfs3x3.c
#   -o edges.csv (built into $OUT/bfs3x3), N runs each: with hyperfine when installed, otherwise
#   alternately in a loop after 3 warm-up runs of each; sets the caller's cs and ns to the medians
#   (s), and prints how they were timed.
time_3x3() {
    local n=$1
    gcc -O2 -o "$OUT/bfs3x3" ../shared/baselines/bfs3x3.c
    local c_cmd="$OUT/bfs3x3 -o $OUT/edges.csv"
    local n_cmd="$BIN analyze --size 3 --output $OUT/out --quiet"
    if command -v hyperfine >/dev/null; then
        hyperfine -N -w 3 -r "$n" --export-json "$OUT/h.json" "$c_cmd" "$n_cmd" >/dev/null
        read -r cs ns < <(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(r[0]["median"], r[1]["median"])' "$OUT/h.json")
        echo "timed with hyperfine, $n runs each"
    else
        # GNU time's %e has 10 ms steps, too coarse here: time with bash's microsecond clock
        : >"$OUT/c3"; : >"$OUT/n3"
        local i t0
        for i in $(seq $((n + 3))); do   # the first 3 of each are warm-up
            t0=$EPOCHREALTIME; $c_cmd >/dev/null
            [ "$i" -le 3 ] || echo "$t0 $EPOCHREALTIME" >>"$OUT/c3"
            t0=$EPOCHREALTIME; $n_cmd >/dev/null
            [ "$i" -le 3 ] || echo "$t0 $EPOCHREALTIME" >>"$OUT/n3"
        done
        cs=$(awk '{print $2 - $1}' "$OUT/c3" | median)
        ns=$(awk '{print $2 - $1}' "$OUT/n3" | median)
        echo "timed with a loop (hyperfine not installed), $n alternating runs each"
    fi
}

bench_3x3() {
    local baseline=../shared/baselines/bfs3x3.c
    if [ ! -f "$baseline" ]; then
        echo "3x3: $baseline not found, skipping the comparison"
        return
    fi
    echo
    echo "== 3x3: npuzzle analyze (all outputs) vs C baseline bfs3x3 (BFS + components + edges.csv)"
    local cs ns
    time_3x3 $((RUNS * 4))
    python3 - "$cs" "$ns" <<'PY' || FAILS=$((FAILS + 1))
import sys
c, n = float(sys.argv[1]), float(sys.argv[2])
print(f"C baseline  median {c*1000:7.1f} ms")
print(f"npuzzle     median {n*1000:7.1f} ms")
ok = n / c <= 0.6
print(f"{'PASS' if ok else 'FAIL'} ratio npuzzle/C = {n/c:.2f}  (must <= 0.6; was about 0.5)")
sys.exit(0 if ok else 1)
PY
    /usr/bin/time -f "npuzzle 3x3 peak RSS %M KB" "$BIN" analyze --size 3 --output "$OUT/out" --quiet 2>&1
}

bench_3x4() {
    local baseline=../shared/baselines/bfs_naive.c
    if [ ! -f "$baseline" ]; then
        echo "3x4: $baseline not found, skipping the comparison"
        FAILS=$((FAILS + 1))
        return
    fi
    gcc -O2 -o "$OUT/bfs_naive" "$baseline"
    : >"$OUT/c4"; : >"$OUT/n4"
    echo
    echo "== 3x4: npuzzle analyze --edges none vs C baseline bfs_naive 3 4, alternating," \
        "npuzzle $RUNS runs, baseline $BASE_RUNS"
    local i n=$((RUNS > BASE_RUNS ? RUNS : BASE_RUNS))
    for i in $(seq "$n"); do
        if [ "$i" -le "$BASE_RUNS" ]; then
            timed "$OUT/c4" "$OUT/bfs_naive" 3 4 >"$OUT/naive.txt" 2>"$OUT/naive.err"
            echo "  bfs_naive run $i: $(tail -1 "$OUT/c4" | awk '{printf "%.1f s, %.0f MB", $1, $2*1024/1e6}')"
        fi
        if [ "$i" -le "$RUNS" ]; then
            timed "$OUT/n4" "$BIN" analyze --rows 3 --cols 4 --edges none --output "$OUT/out" --quiet
            echo "  npuzzle   run $i: $(tail -1 "$OUT/n4" | awk '{printf "%.2f s, %.0f MB", $1, $2*1024/1e6}')"
        fi
    done
    local ct nt nm cm
    ct=$(cut -d' ' -f1 "$OUT/c4" | median)
    cm=$(cut -d' ' -f2 "$OUT/c4" | sort -g | tail -1)
    nt=$(cut -d' ' -f1 "$OUT/n4" | median)
    nm=$(cut -d' ' -f2 "$OUT/n4" | sort -g | tail -1)
    python3 - "$OUT/out/3x4/summary.json" "$OUT/naive.txt" "$ct" "$cm" "$nt" "$nm" <<'PY' || FAILS=$((FAILS + $?))
import json, sys
s = json.load(open(sys.argv[1]))
ct, cm, nt, nm = float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
cmb, nmb = cm * 1024 / 1e6, nm * 1024 / 1e6
fails = 0
def verdict(ok, text):
    global fails
    fails += not ok
    print(f"{'PASS' if ok else 'FAIL'} {text}")
print(f"C baseline  median {ct:7.2f} s, peak RSS {cmb:6.0f} MB")
print(f"npuzzle     median {nt:7.2f} s, peak RSS {nmb:6.0f} MB, "
      f"{nt*1e9/s['reachable']:.2f} ns per reachable board")
r = nt / ct
verdict(r <= 0.08, f"ratio npuzzle/C = {r:.4f}  (issue 21: must <= 0.08; aim <= 0.05: {'met' if r <= 0.05 else 'not met'})")
verdict(r <= 0.06, f"ratio npuzzle/C = {r:.4f}  (the first target: must <= 0.06; aim <= 0.03: {'met' if r <= 0.03 else 'not met'})")
verdict(nmb <= 100, f"npuzzle peak RSS {nmb:.1f} MB  (must <= 100 MB; aim <= 70 MB: {'met' if nmb <= 70 else 'not met'})")
want = (239500800, 53, 18, 2)
got = (s["reachable"], s["max_depth"], s["hardest"]["count"], s["components"]["count"])
verdict(got == want, f"reachable {got[0]:,}, max depth {got[1]}, antipodes {got[2]}, components {got[3]}"
        f"  (published: {want[0]:,}, {want[1]}, {want[2]}, {want[3]})")
counts = None
for line in open(sys.argv[2]):
    if line.startswith("counts:"):
        counts = [int(x) for x in line.split()[1:]]
verdict(counts is not None and counts == s["depth_counts"],
        f"depth counts identical to the C baseline ({len(s['depth_counts'])} depths in summary.json, "
        f"{'no counts: line' if counts is None else len(counts)} from bfs_naive)")
sys.exit(fails)
PY
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
    python3 - "$OUT/out/${r}x${c}/summary.json" "$t" "$m" "$reach" "$depth" "$anti" "${times[*]}" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
s = json.load(open(sys.argv[1]))
t, rss = float(sys.argv[2]), int(sys.argv[3])
want = (int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), 2)
got = (s["reachable"], s["max_depth"], s["hardest"]["count"], s["components"]["count"])
print(f"wall median {t:.2f} s (runs: {sys.argv[7]}), peak RSS {rss*1024/1e6:.0f} MB")
print(f"reachable boards {s['reachable']:,}, {s['reachable']/t/1e6:.1f} M per second, "
      f"{t*1e9/s['reachable']:.2f} ns per reachable board")
print(f"reachable {got[0]:,}, max depth {got[1]}, antipodes {got[2]}, components {got[3]}")
ok = got == want
print(("PASS" if ok else "FAIL") + f" against the published figures {want}")
sys.exit(0 if ok else 1)
PY
}

# bench_long ROWS COLS: one run of the 2x7 (or 7x2) board, results kept in output/bench/RxC/
bench_long() {
    local r=$1 c=$2 keep=output/bench/${1}x${2}
    mkdir -p "$keep"
    echo
    echo "== ${r}x${c}: analyze --edges none, one run (report in $keep/analyze.log); started $(date '+%F %T')"
    /usr/bin/time -f "%e %M" -o "$OUT/time" \
        "$BIN" analyze --rows "$r" --cols "$c" --edges none --output "$OUT/out" >"$keep/analyze.log"
    local t m
    read -r t m <"$OUT/time"
    cp "$OUT/out/${r}x${c}/summary.json" "$OUT/out/${r}x${c}/depths.csv" "$keep/"
    echo "finished $(date '+%F %T'); summary.json and depths.csv copied to $keep/"
    python3 - "$keep/summary.json" "$t" "$m" "${r}x${c}" <<'PY' || FAILS=$((FAILS + $?))
import json, sys
s = json.load(open(sys.argv[1]))
t, kb = float(sys.argv[2]), int(sys.argv[3])
gb = kb * 1024 / 1e9
fails = 0
def verdict(ok, text):
    global fails
    fails += not ok
    print(f"{'PASS' if ok else 'FAIL'} {text}")
print(f"wall {t/60:.1f} min, peak RSS {gb:.2f} GB, {t*1e9/s['reachable']:.2f} ns per reachable board")
want = (43589145600, 108, 1)
got = (s["reachable"], s["max_depth"], s["hardest"]["count"])
verdict(got == want, f"reachable {got[0]:,}, max depth {got[1]}, antipodes {got[2]} "
        f"(components {s['components']['count']})  (OEIS A346736: {want[0]:,}, {want[1]}, {want[2]})")
if sys.argv[4] == "2x7":
    # Issue 21: at most 600 s wall and 12 GB peak RSS on 2 cores; aim 360 s.
    verdict(t <= 600, f"wall {t:.1f} s  (must <= 600 s; aim <= 360 s: {'met' if t <= 360 else 'not met'})")
    verdict(gb <= 12, f"peak RSS {gb:.2f} GB  (must <= 12 GB)")
else:
    verdict(t <= 30 * 60, f"wall {t/60:.1f} min  (must <= 30 min)")
    verdict(gb <= 14, f"peak RSS {gb:.2f} GB  (must <= 14 GB)")
sys.exit(fails)
PY
}

# check_run NAME ROUND CMD...: one timed run of a side of the check in round ROUND ("ROUND wall_s
#   peak_kb", from GNU time, appended to $C/NAME.t; stderr to $C/NAME.err); a command that fails is
#   noted in $C/NAME.bad, which makes every figure using that side FAIL.
check_run() {
    local name=$1 round=$2
    shift 2
    if ! /usr/bin/time -f "%e %M" -o "$C/time" "$@" 2>>"$C/$name.err"; then
        echo "\`$name\` failed: $(tail -n 1 "$C/$name.err")" >>"$C/$name.bad"
    fi
    echo "$round $(tail -n 1 "$C/time")" >>"$C/$name.t"
    echo "$name $(tail -n 1 "$C/time" | cut -d' ' -f1) s" >>"$C/round"
}

# check_3x3 ROUND: PAIRS_3X3 pairs of bfs3x3.c -o edges.csv and the whole `analyze --size 3`, the
#   first of each pair alternating, after one pair not recorded (the page cache, the CPU's clock),
#   timed with bash's microsecond clock (GNU time's %e has 10 ms steps, too coarse for a 40 ms
#   job): "ROUND c_start c_end n_start n_end" lines in $C/3x3.pairs; then one run of npuzzle's side
#   under GNU time for its peak RSS (not in the ratio).
check_3x3() {
    local k c0 c1 n0 n1 c_cmd=("$C/bfs3x3" -o "$C/edges.csv") n_cmd=("$BIN" analyze --size 3 --output "$C/out3" --quiet)
    for ((k = 0; k <= PAIRS_3X3; k++)); do
        if ((k % 2)); then
            n0=$EPOCHREALTIME; "${n_cmd[@]}" >/dev/null 2>>"$C/3x3.err" || echo "npuzzle analyze --size 3 failed" >>"$C/3x3.bad"; n1=$EPOCHREALTIME
            c0=$EPOCHREALTIME; "${c_cmd[@]}" >"$C/bfs3x3.txt" || echo "bfs3x3 failed" >>"$C/3x3.bad"; c1=$EPOCHREALTIME
        else
            c0=$EPOCHREALTIME; "${c_cmd[@]}" >"$C/bfs3x3.txt" || echo "bfs3x3 failed" >>"$C/3x3.bad"; c1=$EPOCHREALTIME
            n0=$EPOCHREALTIME; "${n_cmd[@]}" >/dev/null 2>>"$C/3x3.err" || echo "npuzzle analyze --size 3 failed" >>"$C/3x3.bad"; n1=$EPOCHREALTIME
        fi
        [ "$k" = 0 ] || echo "$1 $c0 $c1 $n0 $n1" >>"$C/3x3.pairs"
    done
    check_run 3x3 "$1" "${n_cmd[@]}"
}

# others_since BUSY0 OURS0 WALL0 OURS1: the CPU time that processes other than this script's used
#   since cpu_busy read BUSY0 at wall time WALL0 (s since the epoch): the machine's busy time
#   (/proc/stat) less that of this script's finished children, OURS1 - OURS0 (cpu_ours, which must
#   run in this shell, not in $(...), to see them). Another user's work on these 2 cores slows
#   our multi-threaded side more than a one-threaded C baseline, which no ratio cancels: this
#   line shows when it happened.
cpu_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
cpu_ours() { # prints the children's user + system time, in 1/100 s
    times >"$C/times"
    awk 'NR == 2 {split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 100}' "$C/times"
}
others_since() {
    awk -v b="$(($(cpu_busy) - $1))" -v o="$(($4 - $2))" -v w="$(($(date +%s) - $3))" -v n="$(nproc)" \
        'BEGIN {x = (b - o > 0 ? b - o : 0) / 100; printf "%.1f s of CPU used by other processes (%.0f %% of %d cores)", x, (w > 0 ? 100 * x / (w * n) : 0), n}'
}

# check_step SIDE ROUND: one run of SIDE (3x3, plain, naive, mtm, table, answers, korf100,
#   cluster, frontier) in round ROUND; every side runs in every round (the C baselines too, so
#   that each ratio is over the same rounds), but `table` runs in the first only when the
#   figure `table` is not wanted (`answers` needs its file).
check_step() {
    local a34=(analyze --rows 3 --cols 4 --edges none --quiet) pid
    case "$1" in
        3x3) check_3x3 "$2" ;;
        plain) check_run plain "$2" "$BIN" "${a34[@]}" --output "$C/plain" ;;
        naive) check_run naive "$2" "$C/bfs_naive" 3 4 >"$C/naive.txt" ;;
        mtm) check_run mtm "$2" "$BIN" "${a34[@]}" --metric mtm --output "$C/mtm" ;;
        table)
            if wants table || [ "$2" = 1 ]; then
                check_run table "$2" "$BIN" "${a34[@]}" --table --output "$C/table"
            fi
            ;;
        answers)
            check_run answers "$2" "$BIN" solve --table "$C/table/3x4" --rows 3 --cols 4 \
                --batch "$C/boards.txt" >"$C/answers.csv"
            ;;
        korf100)
            check_run korf100 "$2" "$BIN" solve --batch benches/data/korf100.txt --pdb 6-6-3 \
                --cache "$C/cache" >"$C/korf100.csv"
            ;;
        cluster)
            "$BIN" "${a34[@]}" --processes 2 --process 1 --hostfile "$C/hosts" --workers 1 \
                --output "$C/cluster1" 2>>"$C/cluster.err" &
            pid=$!
            check_run cluster "$2" "$BIN" "${a34[@]}" --processes 2 --process 0 --hostfile "$C/hosts" \
                --workers 1 --output "$C/cluster"
            wait "$pid" || echo "process 1 failed: $(tail -n 1 "$C/cluster.err")" >>"$C/cluster.bad"
            ;;
        frontier)
            check_run frontier "$2" "$BIN" analyze --size 4 --max-depth "$FRONTIER_DEPTH" --edges none \
                --quiet --output "$C/frontier"
            ;;
    esac
}

# bench_check: see the header (the figures in CHECK_WANT; CHECK_UPDATE=1 for --update).
bench_check() {
    local want=("${CHECK_WANT[@]}") update=$CHECK_UPDATE
    local rounds=${RUNS_GIVEN:-3} start=$SECONDS
    C=$OUT/check
    mkdir -p "$C"
    wants() { [[ " ${want[*]} " == *" $1 "* ]]; }
    local plain=0 naive=0 f
    for f in 3x4 mtm table answers cluster frontier; do if wants "$f"; then plain=1; fi; done
    if [ "$plain" = 1 ] || wants korf100; then naive=1; fi
    echo
    echo "== check: ${want[*]}; $rounds round(s), every side of every figure in each, alternately"
    if [ "$naive" = 1 ]; then
        if [ -f "$BASELINES/bfs_naive.c" ]; then
            gcc -O2 -o "$C/bfs_naive" "$BASELINES/bfs_naive.c"
        else
            naive=0
            echo "$BASELINES/bfs_naive.c not found" >"$C/naive.bad"
        fi
    fi
    local c3x3=0
    if wants 3x3; then
        if [ -f "$BASELINES/bfs3x3.c" ]; then
            gcc -O2 -o "$C/bfs3x3" "$BASELINES/bfs3x3.c"
            c3x3=1
        else
            echo "$BASELINES/bfs3x3.c not found" >"$C/3x3.bad"
        fi
    fi
    if wants answers; then
        local t0=$SECONDS
        python3 scripts/figures.py boards 1000000 2026 3 4 "$C/boards.txt"
        head -n 1000 "$C/boards.txt" >"$C/boards1000.txt"
        if ! "$BIN" solve --rows 3 --cols 4 --batch "$C/boards1000.txt" --cache "$C/cache" \
            >"$C/ida1000.csv" 2>"$C/ida1000.err"; then
            echo "IDA* on the first 1,000 boards failed: $(tail -n 1 "$C/ida1000.err")" >>"$C/answers.bad"
        fi
        echo "answers: 1,000,000 random solvable 3x4 boards (seed 2026), and the first 1,000 solved" \
            "by IDA*: $((SECONDS - t0)) s, not timed"
    fi
    if wants korf100; then
        if ! timed "$C/pdb.t" "$BIN" pdb --size 4 --pdb 6-6-3 --cache "$C/cache" --quiet 2>"$C/pdb.err"; then
            echo "pdb --pdb 6-6-3 failed: $(tail -n 1 "$C/pdb.err")" >>"$C/korf100.bad"
        fi
        echo "korf100: the 4x4 6-6-3 pattern databases built in $(tail -n 1 "$C/pdb.t" | cut -d' ' -f1) s," \
            "not timed in the figure"
    fi
    local i port steal0 wall0 busy0 ours0
    port=$((20000 + RANDOM % 20000))
    printf "127.0.0.1:%d\n127.0.0.1:%d\n" "$port" "$((port + 1))" >"$C/hosts"
    local steps=()
    if [ "$c3x3" = 1 ]; then steps+=(3x3); fi
    if [ "$plain" = 1 ]; then steps+=(plain); fi
    if [ "$naive" = 1 ]; then steps+=(naive); fi
    for f in mtm table answers korf100 cluster frontier; do
        if wants "$f" || { [ "$f" = table ] && wants answers; }; then steps+=("$f"); fi
    done
    for ((i = 1; i <= rounds; i++)); do
        steal0=$(stolen) wall0=$(date +%s) busy0=$(cpu_busy)
        cpu_ours >"$C/ours0"
        ours0=$(cat "$C/ours0")
        : >"$C/round"
        # Odd rounds run the sides in this order, even rounds in the reverse one: no side is
        # always first after a pause, nor always far from the plain run.
        local order=() step
        for step in "${steps[@]}"; do
            if ((i % 2)); then order+=("$step"); else order=("$step" ${order[@]+"${order[@]}"}); fi
        done
        for step in "${order[@]}"; do check_step "$step" "$i"; done
        cpu_ours >"$C/ours1"
        echo "round $i: $(paste -sd, "$C/round" | sed 's/,/, /g'); $(steal_since "$steal0" "$wall0");" \
            "$(others_since "$busy0" "$ours0" "$wall0" "$(cat "$C/ours1")")"
    done
    python3 - "$C" "${want[*]}" "$FRONTIER_DEPTH" <<'PY'
# The per-round ratios, their medians and the checks of the outputs, into $C/measured.tsv for
# figures.py (a line `figure value wall sides wrong rss_mb spread`).
import csv, json, os, re, statistics, sys
from decimal import Decimal
C, want, depth = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
BOARDS_3X4 = 239500800
out = open(f"{C}/measured.tsv", "w")


def runs(name):
    """{round: (wall_s, peak_kb)} of a side's runs."""
    path, got = f"{C}/{name}.t", {}
    if os.path.exists(path):
        for line in open(path):
            if re.fullmatch(r"\d+ [\d.]+ \d+", line.strip()):
                r, w, kb = line.split()
                got[int(r)] = (float(w), int(kb))
    return got


def walls(name):
    return {r: w for r, (w, _) in runs(name).items()}


def med(name):
    w = list(walls(name).values())
    return statistics.median(w) if w else None


def rss_mb(name):
    kb = [kb for _, kb in runs(name).values()]
    return max(kb) * 1024 / 1e6 if kb else None


def per_round(num, den):
    """The ratio num[r] / den[r] of each round both sides ran in."""
    return [num[r] / den[r] for r in sorted(num) if r in den and den[r] > 0]


def bad(*names):
    return [open(f"{C}/{n}.bad").read().strip().replace("\n", "; ")
            for n in names if os.path.exists(f"{C}/{n}.bad")]


def summary(folder):
    try:
        return json.load(open(f"{folder}/summary.json"))
    except (OSError, ValueError):
        return None


def same(a, b):
    try:
        return open(a, "rb").read() == open(b, "rb").read()
    except OSError:
        return False


def secs(t):
    return "?" if t is None else f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def g4(v):
    return f"{v:.1f}" if v >= 1000 else f"{v:.4g}"


def record(name, ratios, sides, wrong, rss=None, wall=None, value=None, spread=None):
    """ratios: the figure's value in each round; the figure is their median."""
    if value is None and ratios:
        value = g4(statistics.median(ratios))
    if spread is None and ratios:
        spread = f"rounds {g4(min(ratios))}-{g4(max(ratios))} ({len(ratios)})"
    rss = "" if rss is None else f"{rss:.1f}"
    wall = "" if wall is None else f"{wall:.2f}"
    out.write(f"{name}\t{value or 'nan'}\t{wall}\t{sides}\t{'; '.join(wrong)}\t{rss}\t{spread or ''}\n")


plain, naive = walls("plain"), walls("naive")
plain_sides = f"plain 3x4 {secs(med('plain'))}"
naive_sides = f"bfs_naive 3 4 {secs(med('naive'))}"

if "3x3" in want:
    wrong, rounds = bad("3x3"), {}
    if os.path.exists(f"{C}/3x3.pairs"):
        for line in open(f"{C}/3x3.pairs"):
            r, c0, c1, n0, n1 = line.split()
            rounds.setdefault(int(r), []).append((float(c1) - float(c0), float(n1) - float(n0)))
    # a round's value: the median of its npuzzle walls over the median of its C walls
    ratios = [statistics.median(n for _, n in p) / statistics.median(c for c, _ in p)
              for _, p in sorted(rounds.items())]
    hist = [int(line.split()[2]) for line in open(f"{C}/bfs3x3.txt") if line.startswith("HIST ")] \
        if os.path.exists(f"{C}/bfs3x3.txt") else None
    s = summary(f"{C}/out3/3x3")
    if s is None or s["depth_counts"] != hist:
        wrong.append("depth counts differ from bfs3x3's")
    allc = [c for p in rounds.values() for c, _ in p]
    alln = [n for p in rounds.values() for _, n in p]
    record("3x3", ratios, f"npuzzle {secs(statistics.median(alln) if alln else None)} / bfs3x3 -o edges.csv "
           f"{secs(statistics.median(allc) if allc else None)}, {len(alln)} pairs", wrong, rss=rss_mb("3x3"))

# the checks of each engine path's outputs, shared by its figure against plain and against C
if "3x4" in want:
    wrong, counts, s = bad("plain", "naive"), None, summary(f"{C}/plain/3x4")
    if os.path.exists(f"{C}/naive.txt"):
        for line in open(f"{C}/naive.txt"):
            if line.startswith("counts:"):
                counts = [int(x) for x in line.split()[1:]]
    if s is None or counts != s["depth_counts"]:
        wrong.append("depth counts not identical to bfs_naive's")
    if s is not None:
        got = (s["reachable"], s["max_depth"], s["hardest"]["count"], s["components"]["count"])
        if got != (BOARDS_3X4, 53, 18, 2):
            wrong.append(f"reachable, max depth, antipodes, components {got}; published (239500800, 53, 18, 2)")
    record("3x4", per_round(plain, naive), f"{plain_sides} / {naive_sides}", wrong, rss=rss_mb("plain"))


def pair(name, sides, wrong, wall=None):
    """The figure NAME (its side against plain) and NAME-c (against bfs_naive)."""
    w = walls(name)
    record(name, per_round(w, plain), f"{sides} {secs(med(name))} / {plain_sides}",
           bad("plain", name) + wrong, rss=rss_mb(name), wall=wall)
    record(f"{name}-c", per_round(w, naive), f"{sides} {secs(med(name))} / {naive_sides}",
           bad("naive", name) + wrong, wall=wall)


if "mtm" in want:
    wrong, s = [], summary(f"{C}/mtm/3x4-mtm")
    if s is None or (s["reachable"], s["max_depth"]) != (BOARDS_3X4, 33):
        wrong.append("reachable and radius not 239,500,800 and 33")
    pair("mtm", "mtm 3x4", wrong)

if "table" in want:
    wrong = []
    if not same(f"{C}/table/3x4/depths.csv", f"{C}/plain/3x4/depths.csv"):
        wrong.append("depths.csv differs with --table")
    if not os.path.exists(f"{C}/table/3x4/table.npt"):
        wrong.append("no table.npt")
    pair("table", "--table 3x4", wrong)

if "answers" in want:
    wrong, moves, ida, errors = bad("table"), [], [], 0
    try:
        with open(f"{C}/answers.csv", newline="") as f:
            for row in csv.DictReader(f):
                m = row["moves"]
                errors += not m.isdigit() or len(row["solution"]) != int(m)
                moves.append(m)
        with open(f"{C}/ida1000.csv", newline="") as f:
            ida = [row["moves"] for row in csv.DictReader(f)]
    except (OSError, KeyError) as e:
        wrong.append(f"unreadable: {e}")
    if len(moves) != 1000000 or errors:
        wrong.append(f"{len(moves):,} rows, {errors:,} without a length or with a solution of another length")
    if len(ida) != 1000 or moves[:1000] != ida:
        wrong.append("the first 1,000 lengths differ from IDA*'s")
    pair("answers", "1,000,000 answers", wrong, wall=med("answers"))

if "korf100" in want:
    wrong = bad("naive", "korf100")
    published = [line.split(",")[1] for line in open("benches/data/korf100_lengths.csv") if line[:1].isdigit()]
    try:
        with open(f"{C}/korf100.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        rows = []
    got = [row["moves"] for row in rows]
    if got != published:
        diff = [i + 1 for i, (a, b) in enumerate(zip(got, published)) if a != b]
        wrong.append(f"lengths differ from the published ones ({len(got)} rows; instances {diff[:10]})")
    record("korf100", per_round(walls("korf100"), naive),
           f"Korf's 100 with 6-6-3 {secs(med('korf100'))} / {naive_sides}", wrong, rss=rss_mb("korf100"))
    # the last round's output (every round's is the same: the lengths above are the last's too)
    nodes = (Decimal(sum(int(row["nodes"]) for row in rows)) / len(rows)) if len(rows) == 100 else None
    record("korf100-nodes", [], "mean boards generated per board of the 100 (deterministic)", wrong,
           value=None if nodes is None else format(nodes.normalize(), "f"), spread="exact")

if "cluster" in want:
    wrong = bad("cluster")
    cluster_summary, plain_summary = summary(f"{C}/cluster/3x4"), summary(f"{C}/plain/3x4")
    for s in (cluster_summary, plain_summary):
        if s is not None:
            s.pop("npuzzle", None)  # the provenance: the command lines differ
    if cluster_summary is None or cluster_summary != plain_summary:
        wrong.append("summary.json differs from the one-machine run's")
    pair("cluster", "2 x 1 over 127.0.0.1", wrong)

if "frontier" in want:
    wrong, s = bad("frontier"), summary(f"{C}/frontier/4x4")
    ref = [int(line.split(",")[1]) for line in open("output/bench/4x4-d31/depths.csv") if line[:1].isdigit()]
    if s is None or s["depth_counts"] != ref[:depth + 1]:
        wrong.append(f"depth counts differ from the first {depth + 1} of output/bench/4x4-d31/depths.csv")
    f, boards = walls("frontier"), sum(s["depth_counts"]) if s else 0
    # rates, boards per second: the frontier search's over the in-memory engine's (plain 3x4),
    # and over bfs_naive's (239,500,800 boards / its wall); higher is better
    rate = f"4x4 to depth {depth}: {boards:,} boards in {secs(med('frontier'))}"
    record("frontier", [boards / f[r] / (BOARDS_3X4 / plain[r]) for r in sorted(f) if r in plain],
           f"{rate} / in-memory 3x4 ({plain_sides})", bad("plain") + wrong, rss=rss_mb("frontier"))
    record("frontier-c", [boards / f[r] / (BOARDS_3X4 / naive[r]) for r in sorted(f) if r in naive],
           f"{rate} / bfs_naive 3 4's boards per second ({naive_sides})", bad("naive") + wrong)
PY
    echo "measured in $((SECONDS - start)) s"
    echo
    local status=0
    if [ "$update" = 1 ]; then
        local reason=()
        if [ -n "$CHECK_REASON" ]; then reason=(--reason "$CHECK_REASON"); fi
        FIGURES_NOTE="median of the per-round values over ${RUNS_GIVEN:-3} rounds${NPUZZLE:+, binary $NPUZZLE}" \
            python3 scripts/figures.py update "$C/measured.tsv" --date "$(date -u +%F)" \
            --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src 2>/dev/null || echo -dirty)" \
            ${reason[@]+"${reason[@]}"} | tee "$C/verdicts" || status=$?
    else
        python3 scripts/figures.py compare "$C/measured.tsv" | tee "$C/verdicts" || status=$?
    fi
    FAILS=$((FAILS + status))
    CHECK_FAILED=$(sed -n 's/^\(FAILED\|REFUSED\)[^:]*: //p' "$C/verdicts")
}

bench_parquet() {
    echo
    echo "== 3x4: analyze --edges parquet vs --edges none, $RUNS runs each, alternately"
    local none=() pq=() t m
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$OUT/time" "$BIN" analyze --rows 3 --cols 4 --edges none \
            --output "$OUT/none" --quiet
        read -r t m <"$OUT/time"; none+=("$t")
        /usr/bin/time -f "%e %M" -o "$OUT/time" "$BIN" analyze --rows 3 --cols 4 --edges parquet \
            --output "$OUT/pq" --quiet
        read -r t m <"$OUT/time"; pq+=("$t")
    done
    local base with bytes
    base=$(printf '%s\n' "${none[@]}" | median)
    with=$(printf '%s\n' "${pq[@]}" | median)
    bytes=$(stat -c %s "$OUT/pq/3x4/edges.parquet")
    echo "edges none: ${none[*]} s (median $base); edges parquet: ${pq[*]} s (median $with); peak RSS $((m / 1024)) MB"
    python3 - "$base" "$with" "$bytes" <<'PY' || FAILS=$((FAILS + $?))
import sys
base, total, size = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
edges = 678585600
per_edge, rate = size / edges, edges / max(total - base, 1e-9) / 1e6
fails = 0
for ok, text in [(per_edge <= 4, f"{size / 1e6:.1f} MB, {per_edge:.2f} bytes per edge (must <= 4; aim <= 3: {'met' if per_edge <= 3 else 'not met'})"),
                 (rate >= 40, f"{rate:.1f} M edges/s beyond the analysis ({total - base:.1f} s; must >= 40; aim >= 70: {'met' if rate >= 70 else 'not met'})")]:
    fails += not ok
    print(f"{'PASS' if ok else 'FAIL'} {text}")
sys.exit(fails)
PY
}

case "$WHAT" in
    check) bench_check ;;
    3x3) bench_3x3 ;;
    parquet) bench_parquet ;;
    3x4) bench_3x4 ;;
    cluster) bench_cluster ;;
    4x4) bench_limited ;;
    frontier2x7) bench_frontier_2x7 ;;
    2x7)
        bench_long 2 7
        if [ "${BOTH:-0}" = 1 ]; then bench_long 7 2; fi
        ;;
    all)
        bench_3x3
        bench_3x4
        bench_board 2 5 1814400 55 2
        bench_board 4 3 239500800 53 18
        bench_board 2 6 239500800 80 2
        bench_board 6 2 239500800 80 2
        ;;
esac

echo
echo "whole bench: $(steal_since "$STEAL_START" "$WALL_START")"
if [ "$FAILS" -eq 0 ]; then
    echo "bench $WHAT: all must checks PASS"
else
    echo "bench $WHAT: $FAILS must check(s) FAIL${CHECK_FAILED:+: $CHECK_FAILED}"
    exit 1
fi
