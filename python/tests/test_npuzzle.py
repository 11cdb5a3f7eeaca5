"""The Python package against the CLI built from the same tree: the same figures, the same
files, the same errors (issue 52)."""

import csv
import itertools
import json
import os
import pty
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import npuzzle

# Every shape of 2 to 10 cells, and 3x4.
SHAPES = sorted(
    {(r, c) for r in range(1, 11) for c in range(1, 11) if 2 <= r * c <= 10} | {(3, 4)},
    key=lambda s: (s[0] * s[1], s),
)


def read_depths_csv(path):
    with open(path, newline="") as f:
        return [int(row["count"]) for row in csv.DictReader(f)]


def cli_analyze(cli, tmp_path, rows, cols, *flags):
    """Runs `npuzzle analyze` into tmp_path/cli; returns its results folder."""
    out = tmp_path / "cli"
    cli("analyze", "--rows", rows, "--cols", cols, "--output", out, "--quiet", *flags)
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return folder


@pytest.mark.parametrize("rows,cols", SHAPES, ids=[f"{r}x{c}" for r, c in SHAPES])
def test_depth_counts_equal_the_clis_depths_csv(cli, tmp_path, rows, cols):
    folder = cli_analyze(cli, tmp_path, rows, cols, "--edges", "none", "--nodes", "none")
    expected = read_depths_csv(folder / "depths.csv")
    result = npuzzle.analyze(rows, cols, progress=False)
    assert result.depth_counts.dtype == np.uint64
    assert result.depth_counts.tolist() == expected
    summary = json.loads((folder / "summary.json").read_text())
    assert result.max_depth == summary["max_depth"] == len(expected) - 1
    assert result.components == summary["components"]
    assert [b.label for b in result.hardest] == [h["board"] for h in summary["hardest"]["boards"]]
    assert result.hardest_count == summary["hardest"]["count"]
    mine = dict(result.summary)
    summary.pop("npuzzle", None), mine.pop("npuzzle", None)
    assert mine == summary


@pytest.mark.parametrize("rows,cols", [(3, 3), (2, 4), (1, 6), (3, 4)])
def test_multi_tile_depth_counts_equal_the_clis(cli, tmp_path, rows, cols):
    folder = cli_analyze(cli, tmp_path, rows, cols, "--metric", "mtm", "--edges", "none", "--nodes", "none")
    result = npuzzle.analyze(rows, cols, metric="mtm", progress=False)
    assert result.depth_counts.tolist() == read_depths_csv(folder / "depths.csv")


def test_goal_and_partial_runs_equal_the_clis(cli, tmp_path):
    folder = cli_analyze(cli, tmp_path, 3, 3, "--goal", "123495678", "--edges", "none", "--nodes", "none")
    result = npuzzle.analyze(3, 3, goal="1 2 3 / 4 0 5 / 6 7 8", progress=False)
    assert result.depth_counts.tolist() == read_depths_csv(folder / "depths.csv")
    assert result.max_depth == 30 and result.hardest_count == 148
    partial = npuzzle.analyze(4, 4, max_depth=12, progress=False)
    limited = cli_analyze(cli, tmp_path / "limited", 4, 4, "--max-depth", "12")
    assert partial.depth_counts.tolist() == read_depths_csv(limited / "depths.csv")
    assert not partial.complete


def test_the_files_written_are_the_clis(cli, tmp_path):
    folder = cli_analyze(cli, tmp_path, 2, 3)
    result = npuzzle.analyze(2, 3, output=tmp_path / "py", progress=False)
    assert result.output == tmp_path / "py" / "2x3"
    # One writer for both (npuzzle::results::write): the same bytes, the chart included.
    for name in ["edges.csv", "nodes.csv", "depths.csv", "hardest.txt", "depth_histogram.png"]:
        assert (result.output / name).read_bytes() == (folder / name).read_bytes(), name
    assert result.written == [
        "edges.csv", "nodes.csv", "depths.csv", "hardest.txt", "summary.json", "depth_histogram.png"
    ]
    # summary.json says how the run was asked for: the Python call, not a command line.
    summary = json.loads((result.output / "summary.json").read_text())
    cli_summary = json.loads((folder / "summary.json").read_text())
    assert summary["npuzzle"]["command"] == (
        f"npuzzle.analyze(2, 3, output='{tmp_path / 'py'}', progress=False)"
    )
    del summary["npuzzle"], cli_summary["npuzzle"]
    assert summary == cli_summary


def test_an_earlier_runs_outputs_are_set_aside_as_the_cli_does(tmp_path):
    first = npuzzle.analyze(3, 3, table=True, output=tmp_path, progress=False)
    assert (first.output / "table.npt").exists()
    with pytest.warns(UserWarning, match="moved table.npt of an earlier run"):
        second = npuzzle.analyze(3, 3, output=tmp_path, progress=False)
    assert not (second.output / "table.npt").exists()
    assert (second.output / "stale" / "table.npt").exists()
    assert sorted(p.name for p in second.output.iterdir() if p.is_file()) == sorted(second.written)


def test_table_is_the_clis_and_depths_equal_solve_lengths(cli, tmp_path):
    # The same table.npt, byte for byte, from the package and from the CLI.
    result = npuzzle.analyze(3, 4, table=True, output=tmp_path / "py", progress=False)
    assert "table.npt" in result.written
    folder = cli_analyze(cli, tmp_path, 3, 4, "--table")
    assert (result.output / "table.npt").read_bytes() == (folder / "table.npt").read_bytes()
    table = npuzzle.DistanceTable.open(result.output)
    assert table.shape == (3, 4) and table.max_depth == 53 and table.metric == "stm"
    assert table.depth_counts.tolist() == result.depth_counts.tolist()
    # Random boards: the CLI's `random`, the package's random_boards; their depths against
    # `solve --table --batch`'s lengths.
    count = 3000
    text = cli("random", "--rows", 3, "--cols", 4, "--count", count, "--seed", 11).stdout
    boards = npuzzle.random_boards(3, 4, count, seed=11)
    assert boards.shape == (count, 12) and boards.dtype == np.uint8
    assert [" / ".join(" ".join(map(str, r)) for r in b.reshape(3, 4).tolist()) for b in boards] == text.splitlines()
    batch = tmp_path / "boards.txt"
    batch.write_text(text)
    solved = cli("solve", "--table", folder, "--rows", 3, "--cols", 4, "--batch", batch).stdout
    lengths = [int(row["moves"]) for row in csv.DictReader(solved.splitlines())]
    depths = table.depths(boards)
    assert depths.dtype == np.uint8 and depths.shape == (count,)
    assert depths.tolist() == lengths
    # One at a time, a solution, and a non-contiguous view (read through a copy).
    assert table.depth(npuzzle.Board(text.splitlines()[0], 3, 4)) == lengths[0]
    solution = table.solve(boards[1])
    assert solution.length == lengths[1] and solution.boards()[-1] == npuzzle.Board.goal(3, 4)
    assert table.depths(boards[::2]).tolist() == lengths[::2]
    assert table.depths(boards[:5].tolist()).tolist() == lengths[:5]
    # The other parity class is unreachable.
    odd = npuzzle.Board("2 1 3 4 / 5 6 7 8 / 9 10 11 0")
    assert table.depth(odd) is None
    assert table.depths(odd.to_numpy()[None, :]).tolist() == [npuzzle.UNREACHABLE]
    # sample: the boards of `npuzzle sample`.
    sampled = cli("sample", "--table", folder, "--depth", 40, "--count", 20, "--seed", 3).stdout
    rows = [row["board"] for row in csv.DictReader(sampled.splitlines())]
    mine = table.sample(40, 20, seed=3)
    assert mine.shape == (20, 12)
    assert [str(npuzzle.Board(r, 3, 4)) for r in rows] == [str(npuzzle.Board(b.tolist(), 3, 4)) for b in mine]
    assert set(table.depths(mine).tolist()) == {40}


def all_boards(rows, cols):
    """Every board of ``rows`` x ``cols`` (both parity classes), one a row, as uint8."""
    return np.array(list(itertools.permutations(range(rows * cols))), dtype=np.uint8)


@pytest.mark.parametrize("rows,cols", [(2, 3), (3, 3), (2, 4), (1, 5)])
@pytest.mark.parametrize("metric", ["stm", "mtm"])
def test_an_analysis_keeps_its_table_in_memory(tmp_path, rows, cols, metric):
    # Issue 64: Analysis.table() without output, built in memory (DistanceTable::from_analysis),
    # is the table the analysis writes with output: the same header, every board's depth (both
    # classes), the same walks and samples.
    result = npuzzle.analyze(rows, cols, metric=metric, table=True, progress=False)
    written = npuzzle.analyze(rows, cols, metric=metric, table=True, output=tmp_path, progress=False)
    memory = result.table()
    file = npuzzle.DistanceTable.open(written.output)
    assert memory.path is None and "in memory" in repr(memory)
    assert file.path == written.output / "table.npt" == written.table().path
    assert written.table().depths(all_boards(rows, cols)).tolist() == file.depths(all_boards(rows, cols)).tolist()
    for name in ["shape", "cells", "metric", "max_depth"]:
        assert getattr(memory, name) == getattr(file, name), name
    assert memory.goal == file.goal
    assert memory.depth_counts.tolist() == file.depth_counts.tolist() == result.depth_counts.tolist()
    boards = all_boards(rows, cols)
    depths = memory.depths(boards)
    assert depths.dtype == file.depths(boards).dtype
    assert depths.tolist() == file.depths(boards).tolist()
    assert np.bincount(depths[depths != npuzzle.UNREACHABLE]).tolist() == result.depth_counts.tolist()
    for board in boards[:: max(1, len(boards) // 50)]:
        mine, theirs = memory.solve(board), file.solve(board)
        assert (mine is None) == (theirs is None)
        if mine is not None:
            assert (mine.moves, mine.length) == (theirs.moves, theirs.length)
    depth = result.max_depth // 2
    assert memory.sample(depth, 30, seed=5).tolist() == file.sample(depth, 30, seed=5).tolist()
    # Each call is the same table, shared (no copy); it outlives the analysis.
    again = result.table()
    del result
    assert again.depths(boards[:100]).tolist() == depths[:100].tolist()


def test_a_table_in_memory_needs_no_file_but_table_true():
    result = npuzzle.analyze(2, 3, table=True, progress=False)
    assert result.output is None and result.written == []
    table = result.table()
    assert table.path is None and table.max_depth == result.max_depth == 21
    assert table.depth(result.goal) == 0 and table.depth(result.hardest[0]) == 21
    for plain in [npuzzle.analyze(2, 3, progress=False), npuzzle.analyze(2, 3, max_depth=5, progress=False)]:
        with pytest.raises(ValueError, match="table=True"):
            plain.table()


def test_multi_tile_table_depths_equal_solve_lengths(cli, tmp_path):
    folder = cli_analyze(cli, tmp_path, 3, 3, "--metric", "mtm", "--table", "--edges", "none", "--nodes", "none")
    table = npuzzle.DistanceTable.open(folder / "table.npt")
    assert table.metric == "mtm"
    text = cli("random", "--size", 3, "--count", 300, "--seed", 5).stdout
    batch = tmp_path / "boards.txt"
    batch.write_text(text)
    solved = cli("solve", "--table", folder, "--batch", batch).stdout
    lengths = [int(row["moves"]) for row in csv.DictReader(solved.splitlines())]
    assert table.depths(npuzzle.random_boards(3, 3, 300, seed=5)).tolist() == lengths


def test_to_networkx_equals_the_exported_edge_list(cli, tmp_path):
    folder = cli_analyze(cli, tmp_path, 2, 4, "--edges", "ranks", "--nodes", "none")
    with open(folder / "edges.csv", newline="") as f:
        exported = [(int(r["from"]), int(r["to"])) for r in csv.DictReader(f)]
    graph = npuzzle.game_graph(2, 4)
    assert graph.edges.dtype == np.uint64 and graph.edges.shape == (len(exported), 2)
    assert [tuple(e) for e in graph.edges.tolist()] == exported
    assert graph.boards == 40320
    # The ranks are those of Board.
    a, b = graph.edges[100]
    assert graph.board(int(b)) in graph.board(int(a)).neighbours()
    try:
        import networkx as nx
    except ImportError:
        pytest.skip("skipped: networkx is not installed (pip install networkx)")
    g = graph.to_networkx()
    assert isinstance(g, nx.Graph)
    assert g.number_of_nodes() == 40320
    assert {frozenset(e) for e in g.edges()} == {frozenset(e) for e in exported}
    assert nx.number_connected_components(g) == 2
    radius = max(nx.single_source_shortest_path_length(g, 0).values())
    assert radius == npuzzle.analyze(2, 4, progress=False).max_depth == 36


def test_boards_read_every_notation_the_cli_reads(cli):
    b = npuzzle.Board("8 6 7 / 2 5 4 / 3 0 1")
    assert b.shape == (3, 3) and b.tiles == (8, 6, 7, 2, 5, 4, 3, 0, 1)
    same = [
        npuzzle.Board("8 6 7 2 5 4 3 0 1"),
        npuzzle.Board("867254301"),
        npuzzle.Board(b.label),
        npuzzle.Board(str(b)),
        npuzzle.Board("8 6 7\n2 5 4\n3 . 1"),
        npuzzle.Board([8, 6, 7, 2, 5, 4, 3, 0, 1]),
        npuzzle.Board([[8, 6, 7], [2, 5, 4], [3, 0, 1]]),
        npuzzle.Board(np.array([8, 6, 7, 2, 5, 4, 3, 0, 1], dtype=np.uint8)),
        npuzzle.Board(b),
    ]
    assert all(s == b for s in same)
    assert len({b, *same}) == 1
    assert npuzzle.Board.unrank(3, 3, b.rank()) == b
    assert npuzzle.Board.goal(3, 3).rank() == 0
    assert b.is_solvable()
    assert not npuzzle.Board("1 2 3 / 4 5 6 / 8 7 0").is_solvable()
    assert len(b.neighbours()) == 3 and len(b.neighbours("mtm")) == 4
    assert all(b in n.neighbours() for n in b.neighbours())
    assert npuzzle.Board("1 2 3 0 / 4 5 6 7").shape == (2, 4)
    assert npuzzle.Board("1 2 3 4 5 0", rows=2, cols=3).shape == (2, 3)
    # str() is the grid the CLI prints (hardest.txt's).
    assert str(b) == "8 6 7\n2 5 4\n3 . 1"


def test_solve_matches_the_cli(cli):
    for text in ["8 6 7 2 5 4 3 0 1", "0 1 3 4 2 5 7 8 6"]:
        solution = npuzzle.solve(text)
        out = cli("solve", "--board", text, "--quiet").stdout.split()
        assert solution.length == int(out[0]), out
        assert solution.boards()[-1] == npuzzle.Board.goal(3, 3)
    assert npuzzle.solve("8 6 7 2 5 4 3 0 1").length == 31
    assert npuzzle.solve("8 6 7 2 5 4 3 0 1", metric="mtm").length == 20
    assert npuzzle.solve("8 6 7 2 5 4 3 0 1", heuristic="manhattan").length == 31
    assert npuzzle.solve("1 2 3 / 4 5 6 / 8 7 0") is None


def cli_error(cli, *args):
    done = cli(*args, check=False)
    assert done.returncode != 0
    line = done.stderr.strip()
    assert line.startswith("error: ")
    return line[len("error: "):]


def test_bad_input_raises_the_documented_exceptions(cli, tmp_path):
    # Bad boards and arguments: ValueError, with the CLI's message.
    for text in ["1 2 3 / 4 4 5 / 6 7 0", "1 2 x 0"]:
        with pytest.raises(ValueError) as e:
            npuzzle.Board(text)
        assert str(e.value).split(": ", 1)[1] in cli_error(cli, "solve", "--board", text)
    with pytest.raises(ValueError):
        npuzzle.analyze(3, 3, metric="diagonal", progress=False)
    with pytest.raises(ValueError):
        npuzzle.analyze(0, 3, progress=False)
    with pytest.raises(ValueError):
        npuzzle.analyze(5, 5, progress=False)  # beyond every index
    with pytest.raises(ValueError):
        npuzzle.analyze(3, 3, goal="1 2 3", progress=False)
    with pytest.raises(ValueError):
        npuzzle.analyze(3, 3, table=True, max_depth=5, progress=False)  # the whole space
    with pytest.raises(ValueError):
        npuzzle.solve("8 6 7 2 5 4 3 0 1", heuristic="psychic")
    with pytest.raises(ValueError):
        npuzzle.solve("8 6 7 2 5 4 3 0 1", metric="mtm", heuristic="manhattan")
    with pytest.raises(ValueError):
        npuzzle.game_graph(3, 4)
    # A run that does not fit: MemoryError, with the CLI's message.
    with pytest.raises(MemoryError) as e:
        npuzzle.analyze(4, 4, progress=False)
    # (the same words, up to the memory available, which changes from one moment to the next)
    words = str(e.value).split(" of memory")[0]
    assert words in cli_error(cli, "analyze", "--size", 4, "--output", tmp_path / "x")
    # Files: OSError; damaged tables: DamagedFileError.
    with pytest.raises(FileNotFoundError):
        npuzzle.DistanceTable.open(tmp_path / "missing.npt")
    junk = tmp_path / "junk.npt"
    junk.write_bytes(b"not a table at all")
    with pytest.raises(npuzzle.DamagedFileError):
        npuzzle.DistanceTable.open(junk)
    result = npuzzle.analyze(3, 3, table=True, output=tmp_path / "t", progress=False)
    good = (result.output / "table.npt").read_bytes()
    truncated = tmp_path / "truncated.npt"
    truncated.write_bytes(good[:-10])
    with pytest.raises(npuzzle.DamagedFileError):
        npuzzle.DistanceTable.open(truncated)
    flipped = tmp_path / "flipped.npt"
    flipped.write_bytes(good[:-100] + bytes([good[-100] ^ 0x55]) + good[-99:])
    with pytest.raises(npuzzle.DamagedFileError) as e:
        npuzzle.DistanceTable.open(flipped)
    assert "checksum" in str(e.value)
    assert issubclass(npuzzle.DamagedFileError, Exception)
    # depths: the dtype, the columns, and a row that is not a board.
    table = npuzzle.DistanceTable.open(result.output)
    with pytest.raises(TypeError):
        table.depths(np.zeros((2, 9), dtype=np.float32))
    with pytest.raises(ValueError):
        table.depths(np.zeros((2, 8), dtype=np.uint8))
    boards = npuzzle.random_boards(3, 3, 4)
    boards[2, 0] = boards[2, 1]
    with pytest.raises(ValueError) as e:
        table.depths(boards)
    assert "boards[2]" in str(e.value)
    with pytest.raises(ValueError):
        table.depth("1 2 3 / 4 5 0")


def test_errors_name_pythons_arguments_and_the_cli_keeps_its_flags(cli, tmp_path):
    # Issue 62: the library's messages said "give --rows and --cols" to Python users, whose
    # functions take rows= and cols=. The same error in each front end's words.
    with pytest.raises(ValueError) as e:
        npuzzle.Board("1 2 3 4 5")
    assert str(e.value) == (
        '"1 2 3 4 5": 5 numbers do not make a square board; give rows= and cols= for a '
        "rectangular one"
    )
    assert (
        "5 numbers do not make a square board; give --rows and --cols for a rectangular one"
        in cli_error(cli, "solve", "--board", "1 2 3 4 5")
    )
    # A run too large for memory: max_depth= (an argument of analyze), and the command
    # line's --processes (Python has none); the CLI's own words unchanged.
    with pytest.raises(MemoryError) as e:
        npuzzle.analyze(4, 4, progress=False)
    assert "with max_depth=D, or" in str(e.value), e.value
    assert "with the command line's --processes N" in str(e.value), e.value
    line = cli_error(cli, "analyze", "--size", 4, "--output", tmp_path / "x")
    assert "with --max-depth D, or" in line and "with --processes N" in line, line
    # A pattern database beyond 16 cells: heuristic="linear-conflict".
    with pytest.raises(ValueError) as e:
        npuzzle.solve("1 2 3 4 5 / 6 7 8 9 10 / 11 12 13 14 15 / 16 17 18 19 0 ", heuristic="pdb")
    assert 'use heuristic="linear-conflict"' in str(e.value), e.value
    # A table written by a future version: write it again with npuzzle.analyze.
    result = npuzzle.analyze(2, 3, table=True, output=tmp_path / "t", progress=False)
    good = bytearray((result.output / "table.npt").read_bytes())
    good[8:12] = (99).to_bytes(4, "little")
    future = tmp_path / "future.npt"
    future.write_bytes(bytes(good))
    with pytest.raises(npuzzle.DamagedFileError) as e:
        npuzzle.DistanceTable.open(future)
    assert "`npuzzle.analyze(R, C, table=True, output=DIR)`" in str(e.value), e.value


NOTES = "import npuzzle; print(npuzzle.all_pairs(2, 3, progress=True).diameter)"


def test_all_pairs_notes_go_to_stderr_only_where_it_is_a_terminal():
    # Issue 62: all_pairs printed "note: BFS 1 of 3: ..." into a pipe or a log file, where
    # docs/python.md promises nothing. Now: nothing in a pipe, the notes on a terminal.
    done = subprocess.run(
        [sys.executable, "-c", NOTES], capture_output=True, text=True, check=True
    )
    assert (done.stdout.strip(), done.stderr) == ("21", "")
    master, replica = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-c", NOTES], stdout=subprocess.PIPE, stderr=replica,
            text=True, check=True,
        )
        os.close(replica)
        replica = None
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if replica is not None:
            os.close(replica)
        os.close(master)
    assert done.stdout.strip() == "21"
    # 2x3 has 2 orbits of blank cells (docs/geometry.md: one BFS per orbit).
    assert b"note: BFS 1 of 2: blank on cells" in seen, seen


INTERRUPTED = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    # Ctrl-C's handler, whatever the parent left: a job a shell starts in the background
    # inherits SIGINT ignored, and Python then installs no handler of its own.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import npuzzle
    sent = []
    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(float(sys.argv[2]), interrupt).start()
    try:
        if sys.argv[3] == "table":
            npuzzle.analyze(3, 4, table=True, output=sys.argv[1], progress=False)
        elif sys.argv[3] == "frontier":
            npuzzle.analyze(4, 4, max_depth=60, output=sys.argv[1], progress=False)
        else:
            npuzzle.all_pairs(3, 4, progress=False)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted after %.3f s" % (time.monotonic() - sent[0]))
    """
)


@pytest.mark.parametrize("run", ["table", "frontier", "all_pairs"])
def test_an_interrupt_stops_analyze_within_a_second_leaving_no_file(tmp_path, run):
    """The whole-space BFS (3x4 with its table), the frontier search (4x4 to depth 60, its
    layers in memory) and the all-pairs BFS (3x4) each stop within a second of Ctrl-C."""
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED, str(out), "0.4", run],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    assert words[0] == "interrupted", done.stdout
    assert float(words[2]) < 1.0, done.stdout
    # Nothing is left: no file, no temporary file, not the results folder made for the run
    # (issue 61: an empty one was left), nor `out` itself.
    left = [str(p.relative_to(out)) for p in out.rglob("*")] if out.exists() else []
    assert left == [] and not out.exists(), left


@pytest.mark.parametrize(
    "rows,cols,metric", [(2, 3, "stm"), (2, 3, "mtm"), (3, 3, "stm"), (2, 4, "mtm"), (1, 5, "stm")]
)
def test_all_pairs_equals_the_clis_geometry(cli, tmp_path, rows, cols, metric):
    out = tmp_path / "cli"
    cli("analyze", "--rows", rows, "--cols", cols, "--metric", metric, "--all-pairs", "--output", out, "--quiet")
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    summary = json.loads((folder / "geometry" / "summary.json").read_text())
    summary.pop("npuzzle", None)
    g = npuzzle.all_pairs(rows, cols, metric=metric, progress=False)
    assert g.summary == summary
    assert (g.diameter, g.radius, g.mean_distance) == (
        summary["diameter"],
        summary["radius"],
        summary["mean_distance"],
    )
    assert g.distance_table == summary["pairs"]
    assert g.unconnected_pairs == summary["unconnected_pairs"]
    assert g.centre == (summary["centre"]["cells"], summary["centre"]["boards"])
    # Each cell's eccentricity as eccentricity.csv lists it, laid out as the board.
    with open(folder / "geometry" / "eccentricity.csv", newline="") as f:
        rows_csv = list(csv.DictReader(f))
    assert g.eccentricity.dtype == np.uint32 and g.eccentricity.shape == (rows, cols)
    assert g.eccentricity.ravel().tolist() == [int(r["eccentricity"]) for r in rows_csv]
    assert int(g.eccentricity.max()) == g.diameter and int(g.eccentricity.min()) == g.radius
    # Every pair counted once: the pairs at each distance and the unconnected ones make
    # all n!(n!-1)/2 unordered pairs.
    boards = summary["boards"]
    assert sum(g.distance_table) + g.unconnected_pairs == boards * (boards - 1) // 2


def test_all_pairs_of_the_8_puzzle():
    """The 8-puzzle's game graph (two components of 9!/2 boards): diameter 31, the depth of
    the two antipodes of the standard goal (Reinefeld 1993; OEIS A089473, 31 terms after
    depth 0), reached from every board whose blank is not in the centre; radius 30, the
    boards with the blank in the centre (their farthest are at 30, as a centre-blank goal's)."""
    g = npuzzle.all_pairs(3, 3, progress=False)
    assert (g.diameter, g.radius) == (31, 30)
    assert g.eccentricity.tolist() == [[31, 31, 31], [31, 30, 31], [31, 31, 31]]
    assert g.centre == ([4], 40320)
    assert g.periphery == ([0, 1, 2, 3, 5, 6, 7, 8], 8 * 40320)
    with pytest.raises(ValueError):
        npuzzle.all_pairs(3, 3, metric="nope")
    with pytest.raises(ValueError):
        npuzzle.all_pairs(0, 3)


def test_typed_package():
    root = Path(npuzzle.__file__).parent
    assert (root / "py.typed").exists() and (root / "__init__.pyi").exists()
    assert npuzzle.DistanceTable.depths.__doc__ and "uint8" in npuzzle.DistanceTable.depths.__doc__
    assert "MemoryError" in npuzzle.analyze.__doc__
