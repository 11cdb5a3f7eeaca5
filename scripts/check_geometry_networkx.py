#!/usr/bin/env python3
"""Checks `npuzzle analyze --all-pairs` against networkx's own geometry functions.

Reads DIR/edges.csv (`npuzzle analyze`) with the csv module, builds the graph in networkx,
and for each connected component computes `eccentricity`, `diameter`, `radius`, `center` and
`periphery`, `average_shortest_path_length` per component and the number of pairs at each
distance (one BFS from every board in pure Python: small graphs only). Without --all (2x4:
40,320 BFS runs take networkx many minutes), networkx's `eccentricity` and shortest path
lengths from one random board per blank cell in each component (seeded): each must have its
cell's eccentricity and mean distance, and their largest and least must be the diameter and
the radius.

Then it checks them, exactly, against DIR/geometry/ (`npuzzle analyze --all-pairs`):
eccentricity.csv (each board's eccentricity and mean distance by its blank cell),
distance_table.csv (with --all), summary.json (diameter, radius, and with --all the centre and
periphery sizes, the mean distance and the pairs at the diameter).

Usage: python scripts/check_geometry_networkx.py [--all] DIR
Exit status: 0 when everything agrees, 1 on any disagreement, 2 on bad usage or missing files.
"""

import argparse
import csv
import json
import random
import sys
from collections import Counter
from pathlib import Path

try:
    import networkx as nx
except ImportError:
    print("networkx is not installed: pip install -r scripts/requirements.txt", file=sys.stderr)
    sys.exit(2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--all", action="store_true", help="one BFS from every board")
    args = parser.parse_args()
    geo = args.dir / "geometry"
    try:
        with open(args.dir / "edges.csv", newline="") as f:
            edges = [(r["from"], r["to"]) for r in csv.DictReader(f)]
        with open(geo / "eccentricity.csv", newline="") as f:
            cells = {int(r["cell"]): r for r in csv.DictReader(f)}
        with open(geo / "distance_table.csv", newline="") as f:
            table = [(r["distance"], int(r["pairs"])) for r in csv.DictReader(f)]
        summary = json.loads((geo / "summary.json").read_text())
    except OSError as e:
        print(f"cannot read {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    g = nx.Graph(edges)
    n = len(next(iter(g)))
    blank = {v: v.index(str(n)) for v in g}
    failures = []

    def check(what, ours, theirs):
        if ours != theirs:
            failures.append(f"{what}: npuzzle {ours}, networkx {theirs}")
        else:
            print(f"  {what:32} agrees: {str(theirs)[:60]}")

    print(f"networkx {nx.__version__}: {args.dir}, {g.number_of_nodes()} vertices, "
          f"{g.number_of_edges()} edges")
    components = [g.subgraph(c) for c in nx.connected_components(g)]
    if not args.all:
        rng = random.Random(2026)
        seen = []
        for c in components:
            by_cell = {}
            for v in sorted(c):
                by_cell.setdefault(blank[v], []).append(v)
            for cell, boards in sorted(by_cell.items()):
                v = rng.choice(boards)
                e = nx.eccentricity(c, v=v)
                dist = nx.single_source_shortest_path_length(c, v)
                mean = sum(dist.values()) / (len(dist) - 1)
                check(f"cell {cell}: eccentricity of {v}", int(cells[cell]["eccentricity"]), e)
                if abs(float(cells[cell]["mean_distance"]) - mean) > 1e-9 * mean:
                    failures.append(f"cell {cell}: mean distance of {v}: npuzzle "
                                    f"{cells[cell]['mean_distance']}, networkx {mean}")
                seen.append(e)
        check("diameter (largest of those)", summary["diameter"], max(seen))
        check("radius (least of those)", summary["radius"], min(seen))
        return report(failures)
    ecc = {}
    diameter = radius = None
    centre = periphery = 0
    for c in components:
        e = nx.eccentricity(c)
        ecc.update(e)
        d, r = max(e.values()), min(e.values())
        diameter = d if diameter is None else max(diameter, d)
        radius = r if radius is None else min(radius, r)
        check("diameter of a component", d, nx.diameter(c))
        check("radius of a component", r, nx.radius(c))
    for c in components:
        centre += len(nx.center(c)) if radius == nx.radius(c) else 0
        periphery += len(nx.periphery(c)) if diameter == nx.diameter(c) else 0
    check("diameter", summary["diameter"], diameter)
    check("radius", summary["radius"], radius)
    check("centre (boards)", summary["centre"]["boards"], centre)
    check("periphery (boards)", summary["periphery"]["boards"], periphery)
    wrong = [v for v in g if int(cells[blank[v]]["eccentricity"]) != ecc[v]]
    check("eccentricity of every board (wrong)", [], wrong[:5])
    pairs = Counter()
    total = 0.0
    sums = {}
    for c in components:
        for v, dist in nx.all_pairs_shortest_path_length(c):
            for d in dist.values():
                if d > 0:
                    pairs[d] += 1
            sums.setdefault(blank[v], sum(dist.values()) / (len(dist) - 1))
        total += nx.average_shortest_path_length(c) * len(c) * (len(c) - 1) / 2
    finite = [(int(d), p) for d, p in table if d != "Inf"]
    check("pairs at each distance", finite, sorted((d, p // 2) for d, p in pairs.items()))
    size = len(g)
    connected = sum(p for _, p in finite)
    check("unconnected pairs", [p for d, p in table if d == "Inf"],
          [size * (size - 1) // 2 - connected])
    mean = total / connected
    if abs(summary["mean_distance"] - mean) > 1e-9 * mean:
        failures.append(f"mean distance: npuzzle {summary['mean_distance']}, networkx {mean}")
    else:
        print(f"  {'mean distance (per component)':32} agrees: {mean:.6f}")
    bad = [c for c, r in cells.items() if abs(float(r["mean_distance"]) - sums[c]) > 1e-9 * sums[c]]
    check("mean distance per cell (wrong)", [], bad)
    check("pairs at the diameter", summary["pairs_at_diameter"], pairs[diameter] // 2)
    return report(failures)


def report(failures) -> int:
    """Prints the disagreements; 1 if any, else 0."""
    for f in failures:
        print(f"MISMATCH {f}", file=sys.stderr)
    if failures:
        return 1
    print("networkx agrees with npuzzle's geometry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
