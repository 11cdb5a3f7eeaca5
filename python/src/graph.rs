//! `npuzzle.game_graph` (the whole game graph as numpy arrays of ranks, `npuzzle::graph`'s
//! edges, those of `edges.csv`) and `npuzzle.random_boards` (`npuzzle::random`, the boards of
//! `npuzzle random`).

use std::sync::atomic::Ordering;

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use rayon::prelude::*;

use npuzzle::random::Scrambler;
use npuzzle::{Board, Metric, Shape};

use crate::analyze::interruptible;
use crate::board::{PyBoard, board_arg, tiles_array};
use crate::{Int, metric_of, opt, shape_of, value_error};

/// The most cells of a game graph made into arrays (2x5: 3,628,800 boards, 4.7 million edges
/// in the single-tile metric), as `npuzzle analyze` writes `edges.csv` by default.
const GRAPH_CELLS: usize = 10;

/// Boards one rayon task lists the edges of.
const TASK: u32 = 1 << 14;

/// The whole game graph of a shape: its vertices are the ``cells!`` boards by lexicographic
/// rank (:meth:`Board.rank`, :meth:`Board.unrank`), its edges the pairs one move apart.
#[pyclass(name = "GameGraph", module = "npuzzle", frozen)]
pub struct PyGameGraph {
    shape: Shape,
    metric: Metric,
    /// The `(E, 2)` array of edges, made once from the pairs (no copy: numpy owns the
    /// library's vector) and read-only, so that every access returns this same array.
    edges: Py<PyArray2<u64>>,
    /// `E`.
    edge_count: usize,
}

#[pymethods]
impl PyGameGraph {
    /// Every undirected edge once: numpy array, shape ``(E, 2)``, dtype uint64, the ranks of
    /// the two boards, from the board whose blank moves right or down, in rank order of the
    /// first: the rows of ``edges.csv`` written with ``--edges ranks``. The same read-only
    /// array on every access (made once; copy it with ``.copy()`` to change it).
    #[getter]
    fn edges<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u64>> {
        self.edges.bind(py).clone()
    }

    /// The number of vertices, ``cells!`` (every board, both components).
    #[getter]
    fn boards(&self) -> u64 {
        self.shape.board_count().unwrap_or(0)
    }

    /// ``(rows, cols)``.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.shape.rows(), self.shape.cols())
    }

    /// ``"stm"`` or ``"mtm"``.
    #[getter]
    fn metric(&self) -> &'static str {
        self.metric.name()
    }

    /// The board of vertex ``rank``.
    fn board(&self, rank: Int<u64>) -> PyResult<PyBoard> {
        let rank = rank.0;
        if rank >= self.boards() {
            return Err(value_error(format!(
                "rank {rank} is out of range for {} (0..{})",
                self.shape,
                self.boards()
            )));
        }
        Ok(PyBoard::new(Board::from_rank(self.shape, rank)))
    }

    /// The graph as a ``networkx.Graph`` whose nodes are the ranks ``0..cells!``. Raises
    /// ``ImportError`` without networkx.
    fn to_networkx<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let nx = py.import("networkx")?;
        let graph = nx.call_method0("Graph")?;
        let nodes = py
            .import("builtins")?
            .getattr("range")?
            .call1((self.boards(),))?;
        graph.call_method1("add_nodes_from", (nodes,))?;
        graph.call_method1("add_edges_from", (self.edges(py).call_method0("tolist")?,))?;
        Ok(graph)
    }

    /// The graph as an undirected ``igraph.Graph`` whose vertex ``i`` is the board of rank
    /// ``i``. Raises ``ImportError`` without python-igraph.
    fn to_igraph<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ig = py.import("igraph")?;
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("n", self.boards())?;
        kwargs.set_item("edges", self.edges(py).call_method0("tolist")?)?;
        kwargs.set_item("directed", false)?;
        ig.getattr("Graph")?.call((), Some(&kwargs))
    }

    fn __repr__(&self) -> String {
        format!(
            "GameGraph({} {}: {} boards, {} edges)",
            self.shape,
            self.metric.name(),
            self.boards(),
            self.edge_count
        )
    }
}

/// The whole game graph of ``rows`` x ``cols`` (at most 10 cells) in ``metric``: every board
/// and every move, as :class:`GameGraph` (edges as numpy arrays of ranks). Raises
/// ``ValueError`` above 10 cells.
#[pyfunction]
#[pyo3(signature = (rows, cols, *, metric="stm"))]
fn game_graph(
    py: Python<'_>,
    rows: Int<usize>,
    cols: Int<usize>,
    metric: &str,
) -> PyResult<PyGameGraph> {
    let shape = shape_of(rows.0, cols.0)?;
    let metric = metric_of(metric)?;
    if !(2..=GRAPH_CELLS).contains(&shape.cells()) {
        return Err(value_error(format!(
            "the game graph as arrays is made up to {GRAPH_CELLS} cells; {shape} has {} edges \
             (npuzzle analyze --edges ranks writes them to a file up to 12 cells)",
            npuzzle::analysis::edge_count(shape, metric).unwrap_or(0)
        )));
    }
    let boards = shape.board_count().unwrap_or(0) as u32;
    let cols = shape.cols();
    let edges = interruptible(py, |_| {
        let starts: Vec<u32> = (0..boards).step_by(TASK as usize).collect();
        let parts: Vec<Vec<u64>> = starts
            .par_iter()
            .map(|&lo| {
                let hi = lo.saturating_add(TASK).min(boards);
                let mut out = Vec::new();
                npuzzle::with_cells!(shape.cells(), N => {
                    npuzzle::graph::for_each_forward_edge_in::<N>(metric, cols, lo, hi, |from, _, to, _| {
                        out.push(u64::from(from));
                        out.push(u64::from(to));
                    })
                });
                out
            })
            .collect();
        parts.concat()
    })?;
    let edge_count = edges.len() / 2;
    let array = PyArray1::from_vec(py, edges).reshape([edge_count, 2])?;
    array.call_method1("setflags", (false,))?;
    Ok(PyGameGraph {
        shape,
        metric,
        edges: array.unbind(),
        edge_count,
    })
}

/// ``count`` random boards of ``rows`` x ``cols`` from ``seed``, those ``npuzzle random`` prints
/// for the same arguments: uniform over the goal's component, or with ``moves`` the goal
/// scrambled by that many random slides.
///
/// Returns:
///     numpy array, shape ``(count, cells)``, dtype uint8: one board a row, tiles row by row,
///     0 for the blank (what :meth:`DistanceTable.depths` reads).
///
/// Raises:
///     ValueError: a bad shape or goal, a negative or too large integer.
///     MemoryError: ``count`` boards do not fit in the memory available (checked before
///         anything is allocated).
///     KeyboardInterrupt: Ctrl-C (within a second, even in one walk of ``moves`` slides).
#[pyfunction]
#[pyo3(
    signature = (rows, cols, count, *, seed=Int(0), moves=None, goal=None),
    text_signature = "(rows, cols, count, *, seed=0, moves=None, goal=None)"
)]
fn random_boards<'py>(
    py: Python<'py>,
    rows: Int<usize>,
    cols: Int<usize>,
    count: Int<u64>,
    seed: Int<u64>,
    moves: Option<Int<u64>>,
    goal: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray2<u8>>> {
    let (count, seed, moves) = (count.0, seed.0, opt(moves));
    let shape = shape_of(rows.0, cols.0)?;
    let goal = match goal {
        Some(g) => board_arg(g, Some(shape)).map_err(|e| value_error(format!("goal: {e}")))?,
        None => Board::goal(shape),
    };
    let cells = shape.cells();
    let mut tiles = reserve_tiles(count, cells)?;
    let tiles = interruptible(py, |stop| {
        let stopped = || stop.load(Ordering::Relaxed);
        let mut scrambler = Scrambler::new(seed);
        for drawn in 0..count {
            let board = match moves {
                Some(k) => scrambler.walk_until(&goal, k, stopped)?,
                None => scrambler.uniform(&goal),
            };
            tiles.extend(board.tiles().map(|t| t as u8));
            if drawn % 4096 == 4095 && stopped() {
                return None;
            }
        }
        Some(tiles)
    })?;
    // `None` only when stopped, and then `interruptible` raised.
    tiles_array(py, tiles.unwrap_or_default(), cells)
}

/// An empty vector with room for `count` boards of `cells` tiles (one byte each), or
/// `MemoryError` when they would not fit in the memory available
/// ([`npuzzle::analysis::available_memory`]) or the allocation fails: checked before
/// anything is allocated, so that a huge count is an exception, not an abort.
pub(crate) fn reserve_tiles(count: u64, cells: usize) -> PyResult<Vec<u8>> {
    let bytes = count.checked_mul(cells as u64);
    let available = npuzzle::analysis::available_memory();
    let too_many = || {
        PyMemoryError::new_err(format!(
            "{count} boards of {cells} tiles need {} bytes; {available} are available",
            bytes.map_or_else(|| "more than 2^64".to_string(), |b| b.to_string())
        ))
    };
    let bytes = match bytes.and_then(|b| usize::try_from(b).ok()) {
        Some(b) if (b as u64) <= available => b,
        _ => return Err(too_many()),
    };
    let mut tiles = Vec::new();
    tiles.try_reserve_exact(bytes).map_err(|_| too_many())?;
    Ok(tiles)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGameGraph>()?;
    m.add_function(wrap_pyfunction!(game_graph, m)?)?;
    m.add_function(wrap_pyfunction!(random_boards, m)?)?;
    Ok(())
}
