"""The package under hostile use (issue 61): any numpy layout and integer dtype in `depths`,
only the documented exceptions (no PanicException, no abort), every long call interruptible
within a second, nothing left by an interrupted call, names that say what they are, and the
edge array made once."""

import re
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import npuzzle

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]

# An 80-move 4x4 board (one of the hardest): IDA* with Manhattan distance runs for hours.
HARD_4X4 = "0 12 9 13 / 15 11 10 14 / 3 7 2 5 / 4 8 6 1"


@pytest.fixture(scope="module")
def table3x3(tmp_path_factory):
    out = tmp_path_factory.mktemp("table3x3")
    result = npuzzle.analyze(3, 3, table=True, output=out, progress=False)
    return npuzzle.DistanceTable.open(result.output)


def test_depths_read_any_layout_and_integer_dtype(table3x3):
    table = table3x3
    boards = npuzzle.random_boards(3, 3, 600, seed=5)
    expected = table.depths(boards)
    assert expected.dtype == np.uint8
    assert [table.depth(b) for b in boards[:20].tolist()] == expected[:20].tolist()
    goal = npuzzle.Board.goal(3, 3).to_numpy()
    # The goal in Fortran order: its tiles, not its memory, make the board (was 26).
    goals = np.asfortranarray(np.stack([goal, goal]))
    assert not goals.flags.c_contiguous
    assert table.depths(goals).tolist() == [0, 0]
    assert table.depths(np.asfortranarray(boards)).tolist() == expected.tolist()
    # A transposed column stack, a strided view, a reversed view.
    columns = np.column_stack([boards[:, k] for k in range(9)]).T.copy().T
    assert table.depths(columns).tolist() == expected.tolist()
    assert table.depths(boards[::3]).tolist() == expected[::3].tolist()
    assert table.depths(boards[::-1]).tolist() == expected[::-1].tolist()
    # Every integer dtype, in both orders; a list of the same numbers.
    for dtype in INT_DTYPES:
        typed = boards.astype(dtype)
        assert table.depths(typed).tolist() == expected.tolist(), dtype
        assert table.depths(np.asfortranarray(typed)).tolist() == expected.tolist(), dtype
    assert table.depths(boards.tolist()).tolist() == expected.tolist()
    assert table.depths(boards.astype(np.int64)[:7]).tolist() == expected[:7].tolist()


def test_depths_refuse_floats_and_values_that_are_not_tiles(table3x3):
    table = table3x3
    boards = npuzzle.random_boards(3, 3, 10, seed=6)
    with pytest.raises(TypeError):
        table.depths(boards.astype(np.float64))
    with pytest.raises(TypeError):
        table.depths([[float(t) for t in row] for row in boards.tolist()])  # was truncated
    with pytest.raises(TypeError):
        table.depths(boards.astype(bool))
    bad = boards.astype(np.int64)
    bad[4, 2] = -1
    with pytest.raises(ValueError, match=r"boards\[4\]: tile -1"):
        table.depths(bad)
    bad[4, 2] = 256 + int(boards[4, 2])  # would wrap around to a tile in uint8
    with pytest.raises(ValueError, match=r"boards\[4\]"):
        table.depths(bad)
    with pytest.raises(ValueError):
        table.depths(boards.astype(np.uint16)[:, :8])
    with pytest.raises(ValueError):
        table.depths(boards.ravel())


def test_only_the_documented_exceptions(table3x3):
    # No PanicException (a BaseException: pytest.raises(Exception) would not catch it).
    assert npuzzle.solve("1 2 3 / 4 5 6 / 7 0 8", time_limit=1e300).length == 1
    with pytest.raises(MemoryError):
        npuzzle.random_boards(3, 3, 2**62)  # "capacity overflow"
    with pytest.raises(MemoryError):
        table3x3.sample(20, 2**63)
    for bad in (-1, 2**64, 10**30):
        with pytest.raises(ValueError):
            npuzzle.random_boards(3, 3, bad)
        with pytest.raises(ValueError):
            npuzzle.random_boards(3, 3, 1, seed=bad)
        with pytest.raises(ValueError):
            npuzzle.Board.unrank(3, 3, bad)
        with pytest.raises(ValueError):
            table3x3.sample(bad, 1)
        with pytest.raises(ValueError):
            npuzzle.analyze(3, bad, progress=False)
        with pytest.raises(ValueError):
            npuzzle.game_graph(2, 3).board(bad)
    with pytest.raises(ValueError):
        npuzzle.Board([1, 2, 3, 4, 5, 6, 7, 8, -1])
    with pytest.raises(TypeError):
        npuzzle.Board([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 0.0])
    with pytest.raises(TypeError):
        npuzzle.random_boards(3.0, 3, 1)


def test_a_huge_count_is_a_memory_error_not_an_abort():
    """10^9 boards of 25 tiles (25 GB): MemoryError before anything is allocated (it was
    SIGABRT, killing the interpreter: hence a process of its own)."""
    code = textwrap.dedent(
        """
        import npuzzle
        try:
            npuzzle.random_boards(5, 5, 10**9)
        except MemoryError as e:
            print("MemoryError", e)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MemoryError"), done.stdout


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
    run = sys.argv[1]
    if run == "sample":
        table = npuzzle.DistanceTable.open(sys.argv[2])
    threading.Timer(1.0, interrupt).start()
    try:
        if run == "sample":
            table.sample(20, 30_000_000)
        elif run == "solve":
            npuzzle.solve(%r, heuristic="manhattan")
        elif run == "walk":
            npuzzle.random_boards(4, 4, 1, moves=10**12)
        elif run == "boards":
            npuzzle.random_boards(4, 4, 50_000_000, moves=1000)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted after %%.3f s" %% (time.monotonic() - sent[0]))
    """
    % HARD_4X4
)


@pytest.mark.parametrize("run", ["sample", "solve", "walk", "boards"])
def test_long_calls_stop_within_a_second_of_ctrl_c(table3x3, run):
    """sample of millions of boards, IDA* on a hard 4x4 board, one walk of 10^12 slides,
    random boards by the million: KeyboardInterrupt within a second of SIGINT (they could not
    be interrupted, or raised PanicException)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", INTERRUPTED, run, str(table3x3.path)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{run}: still running 29 s after Ctrl-C")
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    assert words[0] == "interrupted", done.stdout + done.stderr
    assert float(words[2]) < 1.0, done.stdout


def test_max_depth_is_the_goals_eccentricity_radius_deprecated(table3x3):
    result = npuzzle.analyze(3, 3, progress=False)
    assert result.max_depth == result.summary["max_depth"] == 31
    with pytest.warns(DeprecationWarning, match="max_depth"):
        assert result.radius == 31
    assert table3x3.max_depth == 31
    with pytest.warns(DeprecationWarning, match="max_depth"):
        assert table3x3.radius == 31
    # The graph's radius is another figure: 30 on 3x3.
    assert npuzzle.all_pairs(3, 3, progress=False).radius == 30


def test_game_graph_edges_are_made_once_and_read_only():
    graph = npuzzle.game_graph(3, 3)
    edges = graph.edges
    assert graph.edges is edges
    assert edges.shape == (967680 // 2, 2) and edges.dtype == np.uint64
    assert not edges.flags.writeable
    with pytest.raises(ValueError):
        edges[0, 0] = 1
    assert edges[:3].tolist() == graph.edges[:3].tolist()


def test_thread_counts_are_capped_as_the_cli_caps_them():
    # Issue 73: threads=N follows `--threads` (npuzzle::threads): more than 4 per core is cut
    # to 4 per core with a UserWarning naming both figures, and the result is the same.
    # (Was: 65,536 threads started, or a RuntimeError.)
    expected = npuzzle.analyze(2, 3, progress=False).depth_counts.tolist()
    with pytest.warns(UserWarning) as caught:
        result = npuzzle.analyze(2, 3, threads=65536, progress=False)
    assert result.depth_counts.tolist() == expected
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1, messages
    found = re.fullmatch(
        r"threads=65536 is more than 4 threads per core on (\d+) cores; using (\d+)", messages[0]
    )
    assert found, messages
    assert int(found[2]) == 4 * int(found[1])
    diameter = npuzzle.all_pairs(2, 3, progress=False).diameter
    with pytest.warns(UserWarning, match=r"^threads=65536 is more than 4 threads per core"):
        assert npuzzle.all_pairs(2, 3, threads=65536, progress=False).diameter == diameter
    # One thread asks for nothing that is cut: no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert npuzzle.analyze(2, 3, threads=1, progress=False).depth_counts.tolist() == expected


@pytest.mark.parametrize("threads", [0, -1, 65537, 10**9, 2**64])
def test_impossible_thread_counts_are_value_errors_at_once(threads):
    # Issue 73: a RuntimeError after a minute of starting threads (10**9), now a ValueError
    # before any work; on 4x4 (a run of hours) too.
    for call in (npuzzle.analyze, npuzzle.all_pairs):
        started = time.monotonic()
        with pytest.raises(ValueError, match="out of range|not a number of threads"):
            call(4, 4, threads=threads, progress=False)
        assert time.monotonic() - started < 1.0
