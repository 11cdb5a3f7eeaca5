#!/usr/bin/env python3
"""What the whole game graph's geometry costs in networkx and igraph, against
`npuzzle analyze --all-pairs` (issue 62; figures in docs/geometry.md).

For each shape (default 2x3 and 2x4) it exports the game graph with `npuzzle analyze --edges
ranks`, builds it in networkx and takes the goal's component (360 boards on 2x3, 20,160 on
2x4), then times:

- networkx's `diameter` on the component: all of it where `--limit` seconds allow (2x3), else
  `eccentricity` from `--sample` boards of it, seeded, and the whole extrapolated (each board's
  eccentricity is one BFS in pure Python: the same cost per board);
- igraph's `diameter` on the same component, when python-igraph is installed;
- `npuzzle analyze --all-pairs` (the release binary), the whole graph, both components.

Usage: python scripts/bench_networkx.py [--bin target/release/npuzzle] [--shapes 2x3,2x4]
       [--sample 200] [--limit 60]
Prints one line per measure and writes them as JSON to --json when given.
"""

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx

try:
    import igraph
except ImportError:
    igraph = None


def edges_of(binary, rows, cols, out):
    subprocess.run(
        [binary, "analyze", "--rows", str(rows), "--cols", str(cols), "--edges", "ranks",
         "--nodes", "none", "--output", str(out), "--quiet"],
        check=True,
    )
    with open(out / f"{rows}x{cols}" / "edges.csv", newline="") as f:
        return [(int(r["from"]), int(r["to"])) for r in csv.DictReader(f)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release/npuzzle")
    parser.add_argument("--shapes", default="2x3,2x4")
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--limit", type=float, default=60.0,
                        help="run networkx's whole diameter when its estimate is below this")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    for shape in args.shapes.split(","):
        rows, cols = map(int, shape.split("x"))
        with tempfile.TemporaryDirectory() as tmp:
            edges = edges_of(args.bin, rows, cols, Path(tmp))
        g = nx.Graph(edges)
        component = g.subgraph(nx.node_connected_component(g, 0)).copy()
        n = component.number_of_nodes()
        rng = random.Random(62)
        sample = rng.sample(sorted(component), min(args.sample, n))
        started = time.perf_counter()
        ecc = nx.eccentricity(component, v=sample)
        per_board = (time.perf_counter() - started) / len(sample)
        row = {"shape": shape, "boards": n, "edges": component.number_of_edges(),
               "networkx": nx.__version__, "networkx_s_per_board": per_board,
               "networkx_estimate_s": per_board * n, "sample": len(sample),
               "sample_max_eccentricity": max(ecc.values())}
        if per_board * n <= args.limit:
            started = time.perf_counter()
            row["networkx_diameter"] = nx.diameter(component)
            row["networkx_diameter_s"] = time.perf_counter() - started
        if igraph is not None:
            ig = igraph.Graph.TupleList(component.edges(), directed=False)
            started = time.perf_counter()
            row["igraph_diameter"] = ig.diameter()
            row["igraph_diameter_s"] = time.perf_counter() - started
            row["igraph"] = igraph.__version__
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            subprocess.run(
                [args.bin, "analyze", "--rows", str(rows), "--cols", str(cols), "--all-pairs",
                 "--output", tmp, "--quiet"],
                check=True,
            )
            row["all_pairs_s"] = time.perf_counter() - started
            summary = json.loads((Path(tmp) / shape / "geometry" / "summary.json").read_text())
            row["all_pairs_diameter"] = summary["diameter"]
        row["cores"] = os.cpu_count()
        results.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
