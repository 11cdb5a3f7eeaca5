"""Type stubs of the npuzzle package (the native module npuzzle._npuzzle, re-exported)."""

import os
from typing import Any, Optional, Sequence, Union, final

import numpy as np
import numpy.typing as npt

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

__version__: str

#: The depth :meth:`DistanceTable.depths` gives a board the table's goal cannot reach (255) in
#: its uint8 result (65535 in a uint16 result, for a table with depths past 254).
UNREACHABLE: int

#: A board as the functions take it: a Board, any notation the CLI reads, or its tiles row by
#: row (flat, or one sequence a row), 0 for the blank.
BoardLike = Union["Board", str, Sequence[int], Sequence[Sequence[int]], npt.NDArray[np.integer]]

class DamagedFileError(Exception):
    """A distance table (or checkpoint) that is not one, or is damaged; the message names the
    file and the fault."""

@final
class Board:
    """One board: its tiles row by row, 0 for the blank.

    ``Board(board, rows=None, cols=None)`` reads a label (``"123456789"``), tiles row by row
    with 0 or ``.`` for the blank (``"1 2 3 / 4 0 5 / 6 7 8"``, the grid of hardest.txt), a
    run of digits (``"123405678"``), or a sequence of tiles. Raises ``ValueError`` with the
    CLI's message for anything that is not a board."""

    def __new__(
        cls, board: BoardLike, rows: Optional[int] = None, cols: Optional[int] = None
    ) -> Board: ...
    @staticmethod
    def goal(rows: int, cols: int) -> Board:
        """The goal: tiles in order, the blank last."""
    @staticmethod
    def unrank(rows: int, cols: int, rank: int) -> Board:
        """The board of lexicographic rank ``rank`` (``0 <= rank < cells!``)."""
    def rank(self) -> int:
        """The lexicographic rank among all ``cells!`` boards (0 for the goal)."""
    def neighbours(self, metric: str = "stm") -> list[Board]:
        """The boards one move away (U D L R order of the blank's move)."""
    def is_solvable(self) -> bool:
        """Whether the standard goal can be reached (parity rule)."""
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def blank(self) -> int:
        """The blank's cell, row-major from 0."""
    @property
    def tiles(self) -> tuple[int, ...]:
        """Tiles row by row, 0 for the blank."""
    @property
    def label(self) -> str:
        """The R-analysis label (``"123456789"``, ``"1-2-...-10"`` from 10 cells on)."""
    def to_numpy(self) -> npt.NDArray[np.uint8]:
        """Tiles, shape ``(cells,)``, dtype uint8."""
    def to_list(self) -> list[list[int]]:
        """Tiles as one list a row."""
    def __str__(self) -> str:
        """The grid the CLI prints (blank as ``.``)."""
    def __len__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Analysis:
    """The result of :func:`analyze`."""

    @property
    def depth_counts(self) -> npt.NDArray[np.uint64]:
        """Boards at each depth, shape ``(max_depth + 1,)``, dtype uint64, index = depth."""
    @property
    def max_depth(self) -> int:
        """The goal's eccentricity: the largest depth in moves (God's number from the
        standard goal), summary.json's ``max_depth``; not the graph's radius."""
    @property
    def radius(self) -> int:
        """Deprecated alias of :attr:`max_depth` (DeprecationWarning)."""
    @property
    def hardest(self) -> list[Board]:
        """The boards at the largest depth (when few enough to list), by rank."""
    @property
    def hardest_count(self) -> int: ...
    @property
    def components(self) -> dict[str, Any]:
        """``{"count", "sizes": [{"size", "count"}], "found_by"}`` as in summary.json."""
    @property
    def summary(self) -> dict[str, Any]:
        """summary.json as a dict."""
    @property
    def boards(self) -> int:
        """``cells!``"""
    @property
    def edges(self) -> int: ...
    @property
    def reachable(self) -> int: ...
    @property
    def mean_depth(self) -> Optional[float]: ...
    @property
    def median_depth(self) -> Optional[int]: ...
    @property
    def complete(self) -> bool:
        """False for a ``max_depth`` run stopped at its limit."""
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def goal(self) -> Board: ...
    @property
    def metric(self) -> str: ...
    @property
    def output(self) -> Optional[os.PathLike[str]]:
        """The results folder written, or None."""
    @property
    def written(self) -> list[str]: ...
    def to_pandas(self) -> Any:
        """pandas DataFrame: ``depth``, ``count``, ``fraction`` (depths.csv)."""
    def to_polars(self) -> Any:
        """polars DataFrame: ``depth``, ``count``, ``fraction`` (depths.csv)."""
    def table(self) -> DistanceTable:
        """The distance table of ``analyze(..., table=True)``: with ``output``, the table.npt
        written there, memory-mapped; without, the same table built in memory (its ``path``
        is None); no copy per call.

        Raises ValueError (run without ``table=True``: no table kept)."""

def analyze(
    rows: int,
    cols: int,
    *,
    goal: Optional[BoardLike] = None,
    metric: str = "stm",
    max_depth: Optional[int] = None,
    threads: Optional[int] = None,
    table: bool = False,
    output: Optional[Union[str, os.PathLike[str]]] = None,
    progress: bool = True,
) -> Analysis:
    """Maps the whole state space of ``rows`` x ``cols`` (``npuzzle analyze``).

    ``table=True`` makes the distance table (:meth:`Analysis.table`): with ``output``
    written as table.npt and mapped; without, kept in memory (two bits a board, counted in
    the memory check).

    Raises ValueError (bad arguments), MemoryError (does not fit), OSError (files),
    KeyboardInterrupt (Ctrl-C: stops after the BFS layer, writes nothing and removes the
    folders it made)."""

@final
class Solution:
    """An optimal solution."""

    @property
    def moves(self) -> str:
        """The blank's moves as the CLI writes them (``"R D L"``, ``"R2 D U3"`` in MTM)."""
    @property
    def length(self) -> int:
        """The fewest moves in the metric."""
    @property
    def expanded(self) -> int: ...
    @property
    def generated(self) -> Optional[int]: ...
    @property
    def seconds(self) -> float: ...
    @property
    def metric(self) -> str: ...
    def boards(self) -> list[Board]:
        """The boards from the start to the goal, one per single-tile slide."""
    def __len__(self) -> int: ...

def solve(
    board: BoardLike,
    *,
    metric: str = "stm",
    heuristic: Optional[str] = None,
    time_limit: Optional[float] = None,
) -> Optional[Solution]:
    """An optimal solution toward the standard goal, or None when it cannot be reached.

    Raises ValueError (bad board, metric or heuristic), TimeoutError (time_limit),
    MemoryError, KeyboardInterrupt (Ctrl-C: IDA* stops within a second)."""

@final
class DistanceTable:
    """A memory-mapped distance table (table.npt), or one built in memory
    (:meth:`Analysis.table`)."""

    @staticmethod
    def open(path: Union[str, os.PathLike[str]]) -> DistanceTable:
        """Opens and checks (header, length, checksum) a table.npt or a folder holding one.

        Raises OSError, DamagedFileError."""
    def depth(self, board: BoardLike) -> Optional[int]:
        """Moves from ``board`` to the table's goal; None when unreachable."""
    def depths(
        self, boards: Union[npt.NDArray[np.integer[Any]], Sequence[Sequence[int]]]
    ) -> Union[npt.NDArray[np.uint8], npt.NDArray[np.uint16]]:
        """Depths of an ``(N, cells)`` array of boards, any integer dtype, any layout:
        shape ``(N,)``, uint8 with 255 for unreachable (uint16 with 65535 for a table with
        depths past 254). Parallel, GIL released, no copy of a C-contiguous uint8 input.

        Raises TypeError (not integers), ValueError (shape, a row not a board),
        DamagedFileError, KeyboardInterrupt."""
    def solve(self, board: BoardLike) -> Optional[Solution]:
        """A shortest solution by walking the table; None when unreachable."""
    def sample(self, depth: int, count: int, seed: int = 0) -> npt.NDArray[np.uint8]:
        """``count`` boards uniformly at exactly ``depth``: shape ``(count, cells)``, uint8.

        Raises ValueError, MemoryError (``count`` boards do not fit), KeyboardInterrupt."""
    @property
    def path(self) -> Optional[os.PathLike[str]]:
        """The file; None for a table built in memory."""
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def cells(self) -> int: ...
    @property
    def metric(self) -> str: ...
    @property
    def goal(self) -> Board: ...
    @property
    def max_depth(self) -> int:
        """The goal's eccentricity: the largest depth, in moves."""
    @property
    def radius(self) -> int:
        """Deprecated alias of :attr:`max_depth` (DeprecationWarning)."""
    @property
    def depth_counts(self) -> npt.NDArray[np.uint64]: ...

@final
class GameGraph:
    """The whole game graph of up to 10 cells, vertices = ranks ``0..cells!``."""

    @property
    def edges(self) -> npt.NDArray[np.uint64]:
        """Shape ``(E, 2)``, dtype uint64: ranks, as edges.csv with ``--edges ranks``; the
        same read-only array on every access."""
    @property
    def boards(self) -> int: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def metric(self) -> str: ...
    def board(self, rank: int) -> Board: ...
    def to_networkx(self) -> Any:
        """networkx.Graph on nodes ``0..cells!`` (ImportError without networkx)."""
    def to_igraph(self) -> Any:
        """igraph.Graph (ImportError without python-igraph)."""

def game_graph(rows: int, cols: int, *, metric: str = "stm") -> GameGraph:
    """The game graph of ``rows`` x ``cols`` (at most 10 cells; ValueError above)."""

def random_boards(
    rows: int,
    cols: int,
    count: int,
    *,
    seed: int = 0,
    moves: Optional[int] = None,
    goal: Optional[BoardLike] = None,
) -> npt.NDArray[np.uint8]:
    """The boards of ``npuzzle random``: shape ``(count, cells)``, uint8.

    Raises ValueError, MemoryError (``count`` boards do not fit), KeyboardInterrupt."""

@final
class Geometry:
    """The whole game graph's geometry (:func:`all_pairs`), igraph's definitions; moves."""

    @property
    def diameter(self) -> Optional[int]: ...
    @property
    def radius(self) -> Optional[int]: ...
    @property
    def mean_distance(self) -> Optional[float]:
        """Mean over the unordered pairs in one component (igraph's ``mean_distance``)."""
    @property
    def eccentricity(self) -> npt.NDArray[np.uint32]:
        """Shape ``(rows, cols)``, uint32: the eccentricity of the boards with the blank there."""
    @property
    def mean_distances(self) -> npt.NDArray[np.float64]:
        """Shape ``(rows, cols)``, float64: their mean distance to the rest of the component."""
    @property
    def distance_table(self) -> list[int]:
        """``pairs[d]``: unordered pairs at distance ``d``, ``d = 0..diameter`` (ints)."""
    @property
    def connected_pairs(self) -> Optional[int]: ...
    @property
    def unconnected_pairs(self) -> Optional[int]: ...
    @property
    def centre(self) -> Optional[tuple[list[int], int]]:
        """``(blank cells, boards)`` of least eccentricity."""
    @property
    def periphery(self) -> Optional[tuple[list[int], int]]:
        """``(blank cells, boards)`` whose eccentricity is the diameter."""
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def metric(self) -> str: ...
    @property
    def summary(self) -> dict[str, Any]:
        """The figures of ``geometry/summary.json`` (``npuzzle analyze --all-pairs``)."""

def all_pairs(
    rows: int,
    cols: int,
    *,
    metric: str = "stm",
    threads: Optional[int] = None,
    progress: bool = True,
) -> Geometry:
    """Eccentricities, diameter, radius, mean distance, distance table: one BFS per orbit of
    blank cells. ValueError, MemoryError, KeyboardInterrupt as :func:`analyze`."""
