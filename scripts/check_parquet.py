#!/usr/bin/env python3
"""DuckDB reads npuzzle's Parquet exports unchanged, and they hold what the CSV exports hold.

    python scripts/check_parquet.py PARQUET_DIR CSV_DIR

PARQUET_DIR is `analyze --edges parquet --nodes parquet` output (e.g. out/3x3), CSV_DIR the
same board's `analyze --edges ranks --nodes ranks` output. Checks, with DuckDB's own Parquet
reader:

- edges.parquet: columns from, to as UINTEGER; the same edge set as edges.csv (no edge in
  one and not the other, no duplicate), as many rows;
- nodes.parquet: columns rank, board, component, depth; every board once; depth and
  component equal nodes.csv's (depth null exactly where nodes.csv's is empty); the depth
  distribution equals depths.csv; board labels are the R analysis' labels of the ranks
  (rank 0 is the goal).

Needs the duckdb package (pip install -r scripts/requirements.txt); pyarrow is not needed.
Exit status: 0 when everything agrees, 1 with a line per mismatch, 2 on bad usage, a missing
file or a missing duckdb.
"""

import argparse
import sys
from pathlib import Path

try:
    import duckdb
except ImportError:  # --help works without it; main() says how to install it.
    duckdb = None

PARQUET_FILES = ("edges.parquet", "nodes.parquet")
CSV_FILES = ("edges.csv", "nodes.csv", "depths.csv")


def sql_path(path: Path) -> str:
    """`path` as a DuckDB string literal's contents (a quote doubled)."""
    return str(path).replace("'", "''")


def parse_args():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Exit status: 0 when everything agrees, 1 on a mismatch, 2 on bad usage, a "
        "missing file or a missing duckdb package.",
    )
    parser.add_argument("parquet_dir", type=Path, metavar="PARQUET_DIR",
                        help="output of `npuzzle analyze --edges parquet --nodes parquet` "
                        "(e.g. out/3x3): edges.parquet, nodes.parquet")
    parser.add_argument("csv_dir", type=Path, metavar="CSV_DIR",
                        help="the same board's `--edges ranks --nodes ranks` output: edges.csv, "
                        "nodes.csv, depths.csv")
    args = parser.parse_args()
    missing = [str(d / f) for d, files in ((args.parquet_dir, PARQUET_FILES),
                                             (args.csv_dir, CSV_FILES)) for f in files
               if not (d / f).is_file()]
    if missing:
        parser.error("missing: " + ", ".join(missing))
    if duckdb is None:
        print("check_parquet.py: the duckdb package is not installed; install it with "
              "pip install -r scripts/requirements.txt", file=sys.stderr)
        sys.exit(2)
    return args


def check(args) -> int:
    """Runs every check on the two folders; returns the exit status (0 or 1)."""
    pq, csv = sql_path(args.parquet_dir), sql_path(args.csv_dir)
    con = duckdb.connect()
    problems = []

    def one(sql):
        return con.execute(sql).fetchone()

    edges_pq = f"read_parquet('{pq}/edges.parquet')"
    edges_csv = f"read_csv('{csv}/edges.csv', header = true)"
    types = dict(con.execute(f"select column_name, column_type from (describe select * from {edges_pq})").fetchall())
    if types != {"from": "UINTEGER", "to": "UINTEGER"}:
        problems.append(f"edges.parquet columns {types}")
    (n_pq,) = one(f"select count(*) from {edges_pq}")
    (n_csv,) = one(f"select count(*) from {edges_csv}")
    (distinct,) = one(f'select count(*) from (select distinct "from", "to" from {edges_pq})')
    (only_pq,) = one(f'select count(*) from (select "from", "to" from {edges_pq} except select "from", "to" from {edges_csv})')
    (only_csv,) = one(f'select count(*) from (select "from", "to" from {edges_csv} except select "from", "to" from {edges_pq})')
    if not (n_pq == n_csv == distinct and only_pq == only_csv == 0):
        problems.append(f"edges: {n_pq} rows in Parquet ({distinct} distinct), {n_csv} in CSV, {only_pq} only in Parquet, {only_csv} only in CSV")

    nodes_pq = f"read_parquet('{pq}/nodes.parquet')"
    nodes_csv = f"read_csv('{csv}/nodes.csv', header = true)"
    cols = [c for (c,) in con.execute(f"select column_name from (describe select * from {nodes_pq})").fetchall()]
    if cols != ["rank", "board", "component", "depth"]:
        problems.append(f"nodes.parquet columns {cols}")
    (rows, ranks) = one(f"select count(*), count(distinct rank) from {nodes_pq}")
    (boards,) = one(f"select count(*) from {nodes_csv}")
    if not rows == ranks == boards:
        problems.append(f"nodes: {rows} rows, {ranks} distinct ranks, {boards} boards in nodes.csv")
    (differ,) = one(
        f"select count(*) from {nodes_pq} p join {nodes_csv} c on p.rank = c.rank "
        "where p.component != c.component or p.depth is distinct from c.depth"
    )
    if differ:
        problems.append(f"nodes: {differ} boards with another component or depth than nodes.csv")
    depths = con.execute(f"select depth, count(*) from {nodes_pq} where depth is not null group by depth order by depth").fetchall()
    expected = con.execute(f"select depth, count from read_csv('{csv}/depths.csv', header = true) order by depth").fetchall()
    if depths != expected:
        problems.append(f"nodes: depth distribution {depths[:5]}... against depths.csv {expected[:5]}...")
    (goal,) = one(f"select board from {nodes_pq} where rank = 0")
    n = len(goal) if "-" not in goal else len(goal.split("-"))
    if goal != "".join(str(i) for i in range(1, n + 1)) and goal != "-".join(str(i) for i in range(1, n + 1)):
        problems.append(f"nodes: rank 0 is {goal}, not the goal")

    for p in problems:
        print("MISMATCH:", p, file=sys.stderr)
    if not problems:
        print(f"duckdb {duckdb.__version__}: edges.parquet = edges.csv ({n_pq} edges), nodes.parquet = nodes.csv ({rows} boards)")
    return 1 if problems else 0


def main():
    args = parse_args()
    try:
        sys.exit(check(args))
    except duckdb.Error as e:
        print(f"check_parquet.py: DuckDB cannot read the files: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
