"""npuzzle from Python: the whole state space of sliding-tile puzzles, exact distance tables
and optimal solutions, with numpy arrays.

Every figure comes from npuzzle's Rust library (the engine of the ``npuzzle`` command line);
this package converts arguments and results, and releases the GIL while the work runs.

- :func:`analyze` maps the whole state space (``npuzzle analyze``): ``.depth_counts`` (numpy
  uint64, index = depth), ``.max_depth`` (the goal's eccentricity), the hardest boards, the components, the summary.
- :class:`DistanceTable` (``DistanceTable.open(path)``) answers any board from a
  ``table.npt``: ``.depth(board)``, ``.depths(boards)`` on an ``(N, cells)`` integer array,
  ``.solve(board)``, ``.sample(depth, count, seed)``; ``analyze(..., table=True)`` gives
  its table as ``Analysis.table()`` (in memory, with no file, when there is no ``output``).
- :func:`solve` finds an optimal solution of one board (``npuzzle solve``).
- :class:`Board` reads every notation the command line reads.
- :func:`game_graph` gives the game graph of up to 10 cells as numpy arrays of ranks, and
  ``to_networkx()`` / ``to_igraph()``; :func:`random_boards` the boards of ``npuzzle random``.
- :func:`all_pairs` gives the whole game graph's geometry (``npuzzle analyze --all-pairs``):
  each board's eccentricity, the diameter, the radius, the mean distance, the distance table.

Errors: ``ValueError`` for bad boards and arguments (negative or too large integers too),
``TypeError`` for floats where integers are expected, ``MemoryError`` when a run does not fit,
``OSError`` for files, :class:`DamagedFileError` for damaged tables, ``KeyboardInterrupt``
when Ctrl-C stops any long call (within a second).

See docs/python.md in the repository for a worked example.
"""

from ._npuzzle import (
    UNREACHABLE,
    Analysis,
    Board,
    DamagedFileError,
    DistanceTable,
    GameGraph,
    Geometry,
    Solution,
    __version__,
    all_pairs,
    analyze,
    game_graph,
    random_boards,
    solve,
)

__all__ = [
    "UNREACHABLE",
    "Analysis",
    "Board",
    "DamagedFileError",
    "DistanceTable",
    "GameGraph",
    "Geometry",
    "Solution",
    "__version__",
    "all_pairs",
    "analyze",
    "game_graph",
    "random_boards",
    "solve",
]
