#!/usr/bin/env bash
# The interop checks CI runs after scripts/check.sh: npuzzle's outputs read back by the tools
# its users have, which must agree with npuzzle's own numbers.
#
#   - networkx (fresh virtual environment, scripts/requirements.txt): 3x3 and 2x3 edges.csv and
#     nodes.csv against nodes.csv, depths.csv, summary.json; 2x3 graph.graphml (read_graphml);
#   - R/igraph: the original analysis on 3x3 and 2x3 edges.csv; 2x3 graph.graphml (read_graph);
#   - the whole graph's geometry (`analyze --all-pairs`) against igraph's eccentricity, radius,
#     diameter, mean_distance and distance_table on 2x3 and 2x4 (both metrics), and against
#     networkx's eccentricity, diameter, radius, center, periphery and
#     average_shortest_path_length on 2x3 (both metrics; on 2x4 the eccentricity and mean
#     distance of one random board per blank cell);
#   - Graphviz: 2x3 graph.dot counted by gc, attributes read by gvpr, rendered by dot -Tpng;
#     the committed pictures under output/examples/ are what `npuzzle draw` writes today;
#   - DuckDB (same virtual environment): a build with `--features parquet`, 3x3 edges.parquet
#     and nodes.parquet against edges.csv, nodes.csv and depths.csv (scripts/check_parquet.py).
#
# Needs python3 (3.11+, with venv and pip), Graphviz, and R with igraph and jsonlite
# (Debian: apt-get install graphviz r-base-core r-cran-igraph r-cran-jsonlite; .ci/run
# installs them). Everything is written to a temporary folder: the work tree stays clean.
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/output"

step() { printf '\n== %s\n' "$*"; }
npuzzle() { cargo run --quiet --release --locked -- "$@"; }

step "networkx from PyPI in a fresh virtual environment"
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/requirements.txt
python="$tmp/venv/bin/python"

step "npuzzle analyze, export and draw (release build) into $out"
npuzzle analyze --size 3 --output "$out" --quiet
npuzzle analyze --rows 2 --cols 3 --output "$out" --quiet
npuzzle export --rows 2 --cols 3 --format graphml --output "$out" --quiet
npuzzle export --rows 2 --cols 3 --format dot --output "$out" --quiet
npuzzle draw --size 2 --output "$out"
npuzzle draw --size 3 --output "$out"

step "networkx"
"$python" scripts/check_networkx.py "$out/3x3"
"$python" scripts/check_networkx.py --graphml "$out/2x3"

step "R/igraph"
Rscript scripts/igraph_check.R "$out/3x3"
Rscript scripts/igraph_check.R --graphml "$out/2x3"

step "the whole graph's geometry: igraph and networkx on 2x3 and 2x4, both metrics"
# R and networkx compute on one core each: a shape's two metrics are checked side by side (on
# 2x4, igraph's all-pairs functions take minutes a metric), each check's output printed after.
geometry_check() {
  local shape=$1 dir=$2
  Rscript scripts/igraph_geometry.R "$dir"
  if [ "$shape" = "2 3" ]; then
    "$python" scripts/check_geometry_networkx.py --all "$dir"
  else
    "$python" scripts/check_geometry_networkx.py "$dir"   # one random board per cell
  fi
}
for shape in "2 3" "2 4"; do
  read -r rows cols <<<"$shape"
  pids=() dirs=()
  for metric in stm mtm; do
    npuzzle analyze --rows "$rows" --cols "$cols" --metric "$metric" --output "$out" --quiet
    npuzzle analyze --rows "$rows" --cols "$cols" --metric "$metric" --all-pairs --output "$out" --quiet
    case $metric in mtm) dir="$out/${rows}x${cols}-mtm" ;; *) dir="$out/${rows}x${cols}" ;; esac
    geometry_check "$shape" "$dir" >"$dir.geometry.log" 2>&1 &
    pids+=("$!") dirs+=("$dir")
  done
  failed=0
  for i in "${!pids[@]}"; do
    status=0
    wait "${pids[$i]}" || status=$?
    cat "${dirs[$i]}.geometry.log"
    if [ "$status" -ne 0 ]; then
      echo "FAILED: the geometry of ${dirs[$i]} (exit $status)" >&2
      failed=1
    fi
  done
  [ "$failed" -eq 0 ] || exit 1
done

step "Graphviz"
dot="$out/2x3/graph.dot"
read -r nodes edges _ < <(gc -n -e "$dot")
# gvpr: boards with a depth, the goal's depth, the component of a board two swaps away.
read -r reach goal_depth other < <(gvpr 'BEG_G { int n = 0; } N [depth != ""] { n++; }
  END_G { printf("%d %s %s\n", n, aget(isNode($G, "123456"), "depth"),
                 aget(isNode($G, "123546"), "component")); }' "$dot")
echo "gc: $nodes vertices, $edges edges; gvpr: $reach boards with a depth, goal depth $goal_depth"
[ "$nodes $edges $reach $goal_depth $other" = "720 840 360 0 1" ] || {
  echo "MISMATCH: graph.dot should have 720 vertices, 840 edges, 360 with a depth, goal depth 0, 123546 in component 1" >&2
  exit 1
}
dot -Tpng -Gsize=12,12 "$dot" -o "$tmp/graph.png"
echo "dot -Tpng: rendered $(stat -c %s "$tmp/graph.png") bytes"
for f in 2x2/game_graph.dot 3x3/goal_neighbourhood_r2.dot; do
  if ! cmp -s "output/examples/$f" "$out/$f"; then
    echo "MISMATCH: output/examples/$f is not what 'npuzzle draw' writes now; regenerate it" \
      "(npuzzle draw ... --output output/examples)" >&2
    exit 1
  fi
  [ -s "$out/${f%.dot}.png" ] || { echo "MISSING: ${f%.dot}.png was not rendered" >&2; exit 1; }
done
echo "committed pictures are up to date"

step "Parquet: a build with --features parquet, read by DuckDB"
cargo build --quiet --release --locked --features parquet
target/release/npuzzle analyze --size 3 --edges parquet --nodes parquet --output "$tmp/parquet" --quiet
target/release/npuzzle analyze --size 3 --edges ranks --nodes ranks --output "$tmp/ranks" --quiet
"$python" scripts/check_parquet.py "$tmp/parquet/3x3" "$tmp/ranks/3x3"
