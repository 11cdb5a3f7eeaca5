#!/usr/bin/env python3
"""Checks an npuzzle output folder against networkx, an independent graph library.

Loads DIR/edges.csv (the game graph) and DIR/nodes.csv (each board's component and depth) with
the csv module, labels kept as strings, rebuilds the graph in networkx, recomputes the
connected components and the BFS depth of every board from the goal (DIR/summary.json's
`goal`), and exits 1 unless they equal, exactly:

- nodes.csv: the same boards; the same partition into components (component 0 is the goal's);
  the same depth for every board, empty exactly for the boards the goal cannot reach;
- depths.csv: the number of boards at each depth, and each fraction (count / reachable);
- summary.json: boards, edges, components and their sizes, reachable boards, max depth, the
  hardest boards.

With --graphml it also reads DIR/graph.graphml (from `npuzzle export --format graphml`) with
networkx's read_graphml and checks that it is the same graph with the same attributes
(board, rank, component, depth) as the CSV files.

Usage: python scripts/check_networkx.py [--graphml] DIR [DIR ...]
Exit status: 0 when every folder agrees, 1 on any disagreement, 2 on bad usage or missing files.
"""

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

try:
    import networkx as nx
except ImportError:  # --help works without it; main() says how to install it.
    nx = None


class Mismatch(Exception):
    """npuzzle and networkx disagree."""


def expect(what, ours, theirs):
    """Raises Mismatch unless npuzzle's value `ours` equals networkx's `theirs`."""
    if ours != theirs:
        raise Mismatch(f"{what}: npuzzle says {short(ours)}, networkx says {short(theirs)}")


def short(value, limit=200):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, list(reader)


def check_folder(folder, graphml):
    summary = json.loads((folder / "summary.json").read_text())
    goal = summary["goal"]

    header, edge_rows = read_rows(folder / "edges.csv")
    expect("edges.csv header", header, ["from", "to"])
    header, node_rows = read_rows(folder / "nodes.csv")
    expect("nodes.csv header", header, ["board", "rank", "component", "depth"])

    graph = nx.Graph()
    graph.add_nodes_from(row[0] for row in node_rows)
    expect("distinct boards in nodes.csv", len(node_rows), graph.number_of_nodes())
    graph.add_edges_from((a, b) for a, b in edge_rows)
    expect("boards (nodes.csv rows, edge ends included)", summary["boards"],
           graph.number_of_nodes())
    expect("edges (rows of edges.csv, each edge once)", len(edge_rows), graph.number_of_edges())
    expect("edges (summary.json)", summary["edges"], graph.number_of_edges())
    expect("self-loops", 0, nx.number_of_selfloops(graph))
    expect(f"goal {goal} (summary.json) is a board", True, goal in graph)

    # Components: the partition of nodes.csv equals networkx's, the goal's is number 0.
    ours = {}
    for board, _rank, component, _depth in node_rows:
        ours.setdefault(component, set()).add(board)
    theirs = list(nx.connected_components(graph))
    expect("component count", len(ours), len(theirs))
    expect("component count (summary.json)", summary["components"]["count"], len(theirs))
    expect("component partition", sorted(map(sorted, ours.values())),
           sorted(map(sorted, theirs)))
    expect("component of the goal", "0",
           next(c for c, boards in ours.items() if goal in boards))
    sizes = Counter(len(c) for c in theirs)
    expect("component sizes (summary.json)",
           {s["size"]: s["count"] for s in summary["components"]["sizes"]}, dict(sizes))

    # BFS depths from the goal, board by board; empty depth exactly off the goal's component.
    depth = nx.single_source_shortest_path_length(graph, goal)
    for board, _rank, _component, d in node_rows:
        expect(f"depth of {board}", d, str(depth[board]) if board in depth else "")
    reachable = len(depth)
    expect("reachable (summary.json)", summary["reachable"], reachable)
    histogram = Counter(depth.values())
    max_depth = max(histogram)
    counts = [histogram[d] for d in range(max_depth + 1)]
    expect("max depth (summary.json)", summary["max_depth"], max_depth)
    expect("boards per depth (summary.json)", summary["depth_counts"], counts)
    hardest = sorted(b for b, d in depth.items() if d == max_depth)
    expect("hardest boards (summary.json)",
           sorted(b["board"] for b in summary["hardest"]["boards"]), hardest)

    # depths.csv: the same histogram; fractions are the same IEEE double, so == is exact.
    header, depth_rows = read_rows(folder / "depths.csv")
    expect("depths.csv header", header, ["depth", "count", "fraction"])
    expect("depths.csv (depth, count)", [(int(d), int(c)) for d, c, _ in depth_rows],
           list(enumerate(counts)))
    for d, c, fraction in depth_rows:
        expect(f"depths.csv fraction at depth {d}", float(fraction), int(c) / reachable)

    print(f"{folder}: networkx {nx.__version__} agrees with npuzzle")
    print(f"  boards {graph.number_of_nodes():,}, edges {graph.number_of_edges():,}")
    print(f"  components {len(theirs)} (sizes: "
          + ", ".join(f"{n} x {s:,}" for s, n in sorted(sizes.items(), reverse=True)) + ")")
    print(f"  reachable {reachable:,} from the goal {goal}, max depth {max_depth}, "
          f"hardest {', '.join(hardest)}")
    print(f"  depth and component of all {len(node_rows):,} boards in nodes.csv; "
          f"{len(depth_rows)} rows of depths.csv")

    if graphml:
        check_graphml(folder / "graph.graphml", graph, node_rows)


def check_graphml(path, graph, node_rows):
    """read_graphml gives the same graph and attributes as edges.csv and nodes.csv."""
    exported = nx.read_graphml(path)
    expect(f"{path.name}: directed", False, exported.is_directed())
    expect(f"{path.name}: vertices", graph.number_of_nodes(), exported.number_of_nodes())
    expect(f"{path.name}: edges", graph.number_of_edges(), exported.number_of_edges())
    expect(f"{path.name}: vertex ids", set(graph.nodes), set(exported.nodes))
    expect(f"{path.name}: edge set", {frozenset(e) for e in graph.edges},
           {frozenset(e) for e in exported.edges})
    for board, rank, component, depth in node_rows:
        attrs = dict(exported.nodes[board])
        want = {"board": board, "rank": int(rank), "component": int(component)}
        if depth:
            want["depth"] = int(depth)
        expect(f"{path.name}: attributes of {board}", want, attrs)
    print(f"  {path.name}: read_graphml gives the same {exported.number_of_nodes():,} vertices, "
          f"{exported.number_of_edges():,} edges and attributes (board, rank, component, depth)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR",
                        help="an npuzzle output folder, e.g. output/3x3")
    parser.add_argument("--graphml", action="store_true",
                        help="also check DIR/graph.graphml with read_graphml")
    args = parser.parse_args()
    if nx is None:
        print("check_networkx.py: the networkx package is not installed; install it with "
              "pip install -r scripts/requirements.txt", file=sys.stderr)
        sys.exit(2)
    failed = False
    for folder in args.dirs:
        try:
            check_folder(folder, args.graphml)
        except Mismatch as e:
            print(f"{folder}: MISMATCH: {e}", file=sys.stderr)
            failed = True
        except (OSError, KeyError, ValueError, StopIteration) as e:
            print(f"{folder}: cannot check: {type(e).__name__}: {e}", file=sys.stderr)
            sys.exit(2)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
