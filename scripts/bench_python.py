"""The musts of issue 52, measured: run with the package installed (scripts/check_python.sh's
virtual environment, or `pip install ./python`) and the release binary built.

    python scripts/bench_python.py [--runs 5]

1. DistanceTable.depths on 1,000,000 random 3x4 boards (numpy), median of the runs, and the
   depths against `solve --table --batch`'s lengths on the same boards;
2. analyze(3, 4) from Python against `npuzzle analyze --rows 3 --cols 4`, the same files
   written (`--output`), alternating, median wall times and their ratio;
3. the peak RSS of a fresh process that opens the 3x4 table and answers the million boards,
   against the table's size;
4. (issue 61) depths of the same million boards in Fortran order and as int64 (converted to
   C-ordered uint8 by the package), against the C-ordered uint8 time: the must is at most 1.2x.
   `--layouts TABLE` measures only this, on a table built before (any shape: its own random
   boards).
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import npuzzle

REPO = Path(__file__).resolve().parents[1]
BIN = os.environ.get("NPUZZLE_BIN") or str(REPO / "target" / "release" / "npuzzle")

# The peak RSS is the process's VmHWM: getrusage's ru_maxrss keeps, across exec, the peak of
# the process that spawned it (here this benchmark's, with its analyses).
RSS = """
import sys, time
import npuzzle
table = npuzzle.DistanceTable.open(sys.argv[1])
boards = npuzzle.random_boards(3, 4, 1_000_000, seed=1)
started = time.perf_counter()
depths = table.depths(boards)
seconds = time.perf_counter() - started
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(int(status["VmHWM"].split()[0]) * 1024, seconds, int(depths.sum()))
"""


def layouts(table, boards, runs):
    """Median seconds of `table.depths` on `boards` (C-ordered uint8), the same boards in
    Fortran order and as int64 (C order), alternating; the same depths from each, checked."""
    forms = {
        "c_uint8": boards,
        "fortran_uint8": np.asfortranarray(boards),
        "c_int64": boards.astype(np.int64),
    }
    expected = table.depths(boards)  # the table's pages in the page cache
    times = {name: [] for name in forms}
    for _ in range(runs):
        for name, array in forms.items():
            started = time.perf_counter()
            depths = table.depths(array)
            times[name].append(time.perf_counter() - started)
            assert np.array_equal(depths, expected), name
    figures = {f"depths_{name}_s": statistics.median(t) for name, t in times.items()}
    for name in ("fortran_uint8", "c_int64"):
        figures[f"depths_{name}_ratio"] = figures[f"depths_{name}_s"] / figures["depths_c_uint8_s"]
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--layouts", metavar="TABLE", help="only 4., on this table.npt")
    args = parser.parse_args()
    if args.layouts:
        table = npuzzle.DistanceTable.open(args.layouts)
        rows, cols = table.shape
        boards = npuzzle.random_boards(rows, cols, 1_000_000, seed=1)
        figures = {"cores": os.cpu_count(), "runs": args.runs, "shape": f"{rows}x{cols}"}
        figures.update(layouts(table, boards, args.runs))
        print(json.dumps(figures, indent=2))
        return
    work = Path(tempfile.mkdtemp(prefix="npuzzle-bench-"))
    figures = {"cores": os.cpu_count(), "runs": args.runs}

    # 2. analyze(3, 4): the package and the CLI, alternating, the same files written.
    python_times, cli_times = [], []
    for run in range(args.runs):
        started = time.perf_counter()
        npuzzle.analyze(3, 4, output=work / f"py{run}", progress=False)
        python_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run(
            [BIN, "analyze", "--rows", "3", "--cols", "4", "--output", str(work / f"cli{run}"), "--quiet"],
            check=True,
        )
        cli_times.append(time.perf_counter() - started)
    figures["analyze_3x4_python_s"] = statistics.median(python_times)
    figures["analyze_3x4_cli_s"] = statistics.median(cli_times)
    figures["analyze_ratio"] = figures["analyze_3x4_python_s"] / figures["analyze_3x4_cli_s"]
    figures["analyze_python_runs"] = python_times
    figures["analyze_cli_runs"] = cli_times

    # 1. depths of a million random boards, from the table the package writes.
    result = npuzzle.analyze(3, 4, table=True, output=work / "table", progress=False)
    table_path = result.output / "table.npt"
    table = npuzzle.DistanceTable.open(table_path)
    boards = npuzzle.random_boards(3, 4, 1_000_000, seed=1)
    table.depths(boards)  # the table's pages in the page cache, as in a notebook's second call
    times = []
    for _ in range(args.runs):
        started = time.perf_counter()
        depths = table.depths(boards)
        times.append(time.perf_counter() - started)
    figures["depths_1M_s"] = statistics.median(times)
    figures["depths_runs"] = times
    batch = work / "boards.txt"
    with open(batch, "w") as f:
        for b in boards:
            f.write(" ".join(map(str, b.tolist())) + "\n")
    started = time.perf_counter()
    solved = subprocess.run(
        [BIN, "solve", "--table", str(table_path), "--rows", "3", "--cols", "4", "--batch", str(batch)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    figures["cli_batch_1M_s"] = time.perf_counter() - started
    lengths = [int(row["moves"]) for row in csv.DictReader(solved.splitlines())]
    figures["depths_equal_cli"] = depths.tolist() == lengths
    # 4. other layouts and dtypes (issue 61).
    figures.update(layouts(table, boards, args.runs))

    # 3. peak RSS of a fresh process answering the million boards.
    out = subprocess.run(
        [sys.executable, "-c", RSS, str(table_path)], check=True, capture_output=True, text=True
    ).stdout.split()
    figures["table_bytes"] = table_path.stat().st_size
    figures["peak_rss_bytes"] = int(out[0])
    figures["rss_over_table_bytes"] = int(out[0]) - figures["table_bytes"]
    figures["depths_fresh_process_s"] = float(out[1])
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
