//! `npuzzle.Board`: one board, read from any notation the CLI reads (label, tiles row by row
//! with `0` or `.` for the blank, `/`-separated rows, the grid of `hardest.txt`, a run of
//! digits), or from a sequence or numpy row of tiles; and the conversions the other modules
//! share (a Python argument to a board, tiles to the library's internal permutation).

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use npuzzle::solve::input::parse_flat;
use npuzzle::{Board, Shape};

use crate::{Int, metric_of, shape_of, value_error};

/// One board of a sliding-tile puzzle: its tiles row by row, 0 for the blank.
///
/// ``Board(board, rows=None, cols=None)`` reads ``board`` as the CLI does: a label
/// (``"123456789"``, ``"1-2-...-10"`` from 10 cells on), tiles row by row with 0 or ``.`` for
/// the blank separated by spaces, commas, ``/`` or new lines (``"1 2 3 / 4 0 5 / 6 7 8"``, the
/// grid of ``hardest.txt``), the tiles as one run of digits (``"123405678"``), or a sequence
/// (list, tuple, numpy array) of tiles, flat or as rows. Without ``rows`` and ``cols`` the
/// rows of the text give the shape, or else the count must be a square (9 tiles: 3x3).
///
/// Raises ``ValueError`` with the CLI's one-line message for anything that is not a board.
#[pyclass(name = "Board", module = "npuzzle", frozen)]
#[derive(Clone)]
pub struct PyBoard {
    pub(crate) board: Board,
}

impl PyBoard {
    pub(crate) fn new(board: Board) -> PyBoard {
        PyBoard { board }
    }
}

/// The shape from optional `rows` and `cols` (both or neither).
pub(crate) fn optional_shape(
    rows: Option<Int<usize>>,
    cols: Option<Int<usize>>,
) -> PyResult<Option<Shape>> {
    match (rows, cols) {
        (Some(r), Some(c)) => shape_of(r.0, c.0).map(Some),
        (None, None) => Ok(None),
        _ => Err(value_error("give both rows and cols, or neither")),
    }
}

/// Reads `text` as a board: of `shape` when given (any notation, [`Board::parse_any`]),
/// else a flat list whose rows or square count give the shape ([`parse_flat`]), a grid of
/// lines, or a label of a square board.
pub(crate) fn board_from_text(text: &str, shape: Option<Shape>) -> PyResult<Board> {
    if let Some(shape) = shape {
        return Board::parse_any(shape, text).map_err(|e| value_error(format!("{text:?}: {e}")));
    }
    let first = match parse_flat(text, None) {
        Ok(board) => return Ok(board),
        Err(e) => e,
    };
    // A grid (rows on lines or between `/`, `.` for the blank), or a label: the shape from
    // its rows, or from its length for a label of a square board.
    let rows: Vec<Vec<&str>> = text
        .split(['\n', '/'])
        .map(|r| {
            r.split(|c: char| c.is_whitespace() || c == ',')
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
        })
        .filter(|r| !r.is_empty())
        .collect();
    let guess = match rows.as_slice() {
        [one] if one.len() == 1 => {
            let token = one[0];
            let n = if token.contains('-') {
                token.split('-').count()
            } else {
                token.chars().count()
            };
            let side = (1..=n).find(|s| s * s >= n).unwrap_or(0);
            (side * side == n)
                .then(|| Shape::square(side).ok())
                .flatten()
        }
        [first_row, ..] if rows.len() > 1 => Shape::new(rows.len(), first_row.len()).ok(),
        _ => None,
    };
    match guess.map(|s| Board::parse_any(s, text)) {
        Some(Ok(board)) => Ok(board),
        _ => Err(value_error(format!("{text:?}: {first}"))),
    }
}

/// Tiles (row by row, 0 for the blank) as a board of `shape`, or of the shape their rows or
/// square count give.
fn board_from_tiles(tiles: Vec<u64>, rows: Option<usize>, shape: Option<Shape>) -> PyResult<Board> {
    let shape = match (shape, rows) {
        (Some(s), _) => s,
        (None, Some(r)) if r > 0 && tiles.len() % r == 0 => shape_of(r, tiles.len() / r)?,
        (None, _) => {
            let n = tiles.len();
            let side = (1..=n).find(|s| s * s >= n).unwrap_or(0);
            if side * side != n || n == 0 {
                return Err(value_error(format!(
                    "{n} tiles are not a square board: give rows= and cols="
                )));
            }
            shape_of(side, side)?
        }
    };
    Board::from_tiles(shape, &tiles).map_err(value_error)
}

/// A board from a Python argument: a `Board`, a string, or a sequence or numpy array of
/// tiles (flat, or one sequence a row), checked to be of `shape` when given.
pub(crate) fn board_arg(obj: &Bound<'_, PyAny>, shape: Option<Shape>) -> PyResult<Board> {
    let board = if let Ok(b) = obj.cast::<PyBoard>() {
        b.get().board.clone()
    } else if let Ok(s) = obj.cast::<PyString>() {
        board_from_text(&s.to_cow()?, shape)?
    } else {
        let rows: Vec<Bound<'_, PyAny>> = match obj.try_iter() {
            Ok(iter) => iter.collect::<PyResult<_>>()?,
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "a board is a Board, a string or a sequence of tiles, not {}",
                    obj.get_type().name()?
                )));
            }
        };
        let nested = rows
            .first()
            .is_some_and(|r| r.cast::<PyString>().is_err() && r.try_iter().is_ok());
        if nested {
            let mut tiles = Vec::new();
            for row in &rows {
                tiles.extend(row.extract::<Vec<Int<u64>>>()?.into_iter().map(|t| t.0));
            }
            board_from_tiles(tiles, Some(rows.len()), shape)?
        } else {
            let tiles = rows
                .iter()
                .map(|t| t.extract::<Int<u64>>().map(|t| t.0))
                .collect::<PyResult<Vec<u64>>>()?;
            board_from_tiles(tiles, None, shape)?
        }
    };
    if let Some(shape) = shape
        && board.shape() != shape
    {
        return Err(value_error(format!(
            "a {} board where a {shape} board is expected",
            board.shape()
        )));
    }
    Ok(board)
}

#[pymethods]
impl PyBoard {
    #[new]
    #[pyo3(signature = (board, rows=None, cols=None))]
    fn py_new(
        board: &Bound<'_, PyAny>,
        rows: Option<Int<usize>>,
        cols: Option<Int<usize>>,
    ) -> PyResult<Self> {
        let shape = optional_shape(rows, cols)?;
        board_arg(board, shape).map(PyBoard::new)
    }

    /// The goal of ``rows`` x ``cols``: tiles in order, the blank last.
    #[staticmethod]
    fn goal(rows: Int<usize>, cols: Int<usize>) -> PyResult<Self> {
        Ok(PyBoard::new(Board::goal(shape_of(rows.0, cols.0)?)))
    }

    /// The board of lexicographic rank ``rank`` (``0 <= rank < cells!``, at most 20 cells) on
    /// ``rows`` x ``cols``: the ranks of ``edges.csv --edges ranks``, ``nodes.csv`` and
    /// :func:`game_graph`. Raises ``ValueError`` for a rank out of range.
    #[staticmethod]
    fn unrank(rows: Int<usize>, cols: Int<usize>, rank: Int<u64>) -> PyResult<Self> {
        let shape = shape_of(rows.0, cols.0)?;
        let rank = rank.0;
        match shape.board_count() {
            Some(count) if shape.cells() <= 20 && rank < count => {
                Ok(PyBoard::new(Board::from_rank(shape, rank)))
            }
            Some(count) => Err(value_error(format!(
                "rank {rank} is out of range for {shape} (0..{count})"
            ))),
            None => Err(value_error(format!(
                "{shape} is beyond the 20 cells ranks index"
            ))),
        }
    }

    /// The lexicographic rank of the board among all ``cells!`` boards (0 for the goal).
    fn rank(&self) -> PyResult<u64> {
        if self.board.shape().cells() > 20 {
            return Err(value_error("ranks index boards of at most 20 cells"));
        }
        Ok(self.board.rank())
    }

    /// The boards one move away, in ``U D L R`` order of the blank's move (``metric="mtm"``: one
    /// per cell of the blank's row and column, each a multi-tile move).
    #[pyo3(signature = (metric="stm"))]
    fn neighbours(&self, metric: &str) -> PyResult<Vec<PyBoard>> {
        let metric = metric_of(metric)?;
        let shape = self.board.shape();
        Ok(metric
            .moves(shape, self.board.blank())
            .into_iter()
            .filter_map(|(_, to)| self.board.slid(to))
            .map(PyBoard::new)
            .collect())
    }

    /// Whether the standard goal can be reached (the parity rule; on a one-wide board, tiles in
    /// order).
    fn is_solvable(&self) -> bool {
        self.board.is_solvable()
    }

    /// The number of rows.
    #[getter]
    fn rows(&self) -> usize {
        self.board.shape().rows()
    }

    /// The number of columns.
    #[getter]
    fn cols(&self) -> usize {
        self.board.shape().cols()
    }

    /// ``(rows, cols)``.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.board.shape().rows(), self.board.shape().cols())
    }

    /// The cell of the blank (row-major, from 0).
    #[getter]
    fn blank(&self) -> usize {
        self.board.blank()
    }

    /// The tiles row by row, 0 for the blank, as a tuple.
    #[getter]
    fn tiles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.board.tiles().collect::<Vec<u64>>())
    }

    /// The R-analysis label (``"123456789"``; ``"1-2-...-10"`` from 10 cells on), as
    /// ``nodes.csv`` and ``summary.json`` write boards.
    #[getter]
    fn label(&self) -> String {
        self.board.label()
    }

    /// The tiles as a numpy array, shape ``(cells,)``, dtype uint8 (a row of what
    /// :meth:`DistanceTable.depths` reads).
    fn to_numpy<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let tiles: Vec<u8> = self.board.tiles().map(|t| t as u8).collect();
        PyArray1::from_vec(py, tiles)
    }

    /// The tiles row by row as a list of lists.
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let tiles: Vec<u64> = self.board.tiles().collect();
        let rows: Vec<Vec<u64>> = tiles
            .chunks(self.board.shape().cols())
            .map(<[u64]>::to_vec)
            .collect();
        PyList::new(py, rows)
    }

    /// The board as the CLI prints it: a grid, one row a line, the blank as ``.``.
    fn __str__(&self) -> String {
        self.board.grid()
    }

    fn __repr__(&self) -> String {
        format!("Board({:?})", self.board.rows_line())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyBoard>()
            .is_ok_and(|o| o.get().board == self.board)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.board.hash(&mut h);
        h.finish()
    }

    fn __len__(&self) -> usize {
        self.board.shape().cells()
    }

    fn __getnewargs__(&self) -> (String, usize, usize) {
        (
            self.board.rows_line(),
            self.board.shape().rows(),
            self.board.shape().cols(),
        )
    }
}

/// Checks that the rows of `tiles` (each `cells` tiles, 0 the blank) are boards and writes
/// each one's internal permutation (tile `t` on a cell is piece `t - 1`, the blank `cells - 1`)
/// into `perms`. `first` is the index of the first row, for the message.
///
/// # Errors
/// The message of the first row that is not a board: `boards[17]: ...`.
pub(crate) fn permutations_of(
    tiles: &[u8],
    cells: usize,
    shape: Shape,
    first: usize,
    perms: &mut Vec<u8>,
) -> Result<(), String> {
    perms.clear();
    perms.reserve(tiles.len());
    let full: u32 = if cells >= 32 {
        u32::MAX
    } else {
        (1u32 << cells) - 1
    };
    for (k, row) in tiles.chunks_exact(cells).enumerate() {
        let mut seen = 0u32;
        for &t in row {
            seen |= 1u32.checked_shl(u32::from(t)).unwrap_or(0);
            perms.push(if t == 0 { (cells - 1) as u8 } else { t - 1 });
        }
        if seen != full || row.iter().any(|&t| usize::from(t) >= cells) {
            let listed: Vec<u64> = row.iter().map(|&t| u64::from(t)).collect();
            let why = match Board::from_tiles(shape, &listed) {
                Err(e) => e.to_string(),
                Ok(_) => "not a board".into(),
            };
            return Err(format!("boards[{}]: {why}", first + k));
        }
    }
    Ok(())
}

/// A `(count, cells)` uint8 numpy array of `tiles`.
pub(crate) fn tiles_array<'py>(
    py: Python<'py>,
    tiles: Vec<u8>,
    cells: usize,
) -> PyResult<Bound<'py, numpy::PyArray2<u8>>> {
    let count = tiles.len() / cells.max(1);
    PyArray1::from_vec(py, tiles).reshape([count, cells])
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBoard>()
}
