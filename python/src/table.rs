//! `npuzzle.DistanceTable`: a `table.npt` opened by memory map (`npuzzle::table`), checked as
//! `npuzzle solve --table` checks it (header, length, checksum once per version of the file),
//! or an analysis's table built in memory (`Analysis.table()`,
//! `DistanceTable::from_analysis`), answering depths of numpy arrays of boards in parallel
//! with the GIL released, without copying the table or the boards.

use std::path::PathBuf;
use std::sync::Arc;

use std::sync::atomic::Ordering;

use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use rayon::prelude::*;

use npuzzle::table::{DistanceTable, TableError};

use crate::DamagedFileError;
use crate::analyze::interruptible;
use crate::board::{PyBoard, board_arg, permutations_of, tiles_array};
use crate::graph::reserve_tiles;
use crate::solve::PySolution;
use crate::{Int, os_error, value_error};

/// The depth :meth:`DistanceTable.depths` gives a board the table's goal cannot reach.
pub(crate) const UNREACHABLE: u8 = u8::MAX;

/// Boards one rayon task converts and walks at a time.
const TASK: usize = 4096;

/// The exception of a table error: `OSError` for a file that cannot be read,
/// `DamagedFileError` for one that is not a table or is damaged, `ValueError` for a board the
/// table is not for.
pub(crate) fn table_error(e: TableError) -> PyErr {
    let message = e.to_string();
    match e {
        TableError::Io { source, .. } => os_error(source.kind(), message),
        TableError::Invalid { .. } => DamagedFileError::new_err(message),
        TableError::WrongBoard(_) | TableError::Unsupported(_) => value_error(message),
    }
}

/// A distance table (``table.npt``, written by ``analyze(..., table=True, output=DIR)`` or
/// ``npuzzle analyze --table``): every board's distance from the goal in two bits, memory-mapped
/// (the file is not read into memory: pages are shared with the page cache), answering any
/// board by walking it down to the goal. :meth:`Analysis.distance_table` gives the same table
/// built in memory, with no file (its :attr:`path` is ``None``).
#[pyclass(name = "DistanceTable", module = "npuzzle", frozen)]
pub struct PyTable {
    /// Shared with the analysis that built it in memory, if one did.
    table: Arc<DistanceTable>,
    /// The file, `None` for a table built in memory.
    path: Option<PathBuf>,
}

impl PyTable {
    /// The table an analysis kept: the file it wrote (`path`), or built in memory
    /// ([`DistanceTable::from_analysis`], `path` `None`).
    pub(crate) fn shared(table: Arc<DistanceTable>, path: Option<PathBuf>) -> PyTable {
        PyTable { table, path }
    }

    fn cell_count(&self) -> usize {
        self.table.shape().cells()
    }

    /// The depth of each board of `tiles` (rows of `cells` tiles, checked to be boards) as
    /// `D` (`u8` or `u16`, wide enough for every depth of the table), `unreachable` for a
    /// board the goal cannot reach; in parallel, the GIL released, stopping on Ctrl-C.
    fn walk_depths<'py, D>(
        &self,
        py: Python<'py>,
        tiles: &[u8],
        unreachable: D,
    ) -> PyResult<Bound<'py, PyArray1<D>>>
    where
        D: numpy::Element + Copy + Default + Send + Sync + TryFrom<u32>,
    {
        let cells = self.cell_count();
        let table_shape = self.table.shape();
        let table = &self.table;
        let answered = interruptible(py, |stop| -> Result<Vec<D>, PyErrParts> {
            let mut out = vec![D::default(); tiles.len() / cells];
            out.par_chunks_mut(TASK)
                .zip(tiles.par_chunks(TASK * cells))
                .enumerate()
                .try_for_each_init(Vec::new, |perms, (task, (out, rows))| {
                    if stop.load(Ordering::Relaxed) {
                        return Err(PyErrParts::Stopped);
                    }
                    permutations_of(rows, cells, table_shape, task * TASK, perms)
                        .map_err(PyErrParts::Value)?;
                    let refs: Vec<&[u8]> = perms.chunks_exact(cells).collect();
                    for (slot, depth) in out.iter_mut().zip(table.depths_of(&refs)) {
                        *slot = match depth {
                            Ok(Some(d)) => D::try_from(d).map_err(|_| {
                                PyErrParts::Value(format!(
                                    "depth {d} does not fit the result's dtype (a bug)"
                                ))
                            })?,
                            Ok(None) => unreachable,
                            Err(e) => return Err(PyErrParts::Table(e)),
                        };
                    }
                    Ok(())
                })?;
            Ok(out)
        })?;
        match answered {
            Ok(out) => Ok(PyArray1::from_vec(py, out)),
            Err(PyErrParts::Value(m)) => Err(value_error(m)),
            Err(PyErrParts::Table(e)) => Err(table_error(e)),
            // Only when interrupted, and then `interruptible` raised.
            Err(PyErrParts::Stopped) => Err(PyKeyboardInterrupt::new_err("interrupted")),
        }
    }
}

/// `boards` (a numpy array or anything `np.asarray` reads) as a C-contiguous `(N, cells)`
/// uint8 array of `shape`'s tiles: itself when it is one already (no copy), else converted by
/// numpy after checking that its dtype is an integer one (`TypeError` otherwise: floats are
/// never truncated) and that every value is a tile, `0..cells` (`ValueError` naming the first
/// row that is not, so that no value wraps around in the conversion).
fn uint8_boards<'py>(
    py: Python<'py>,
    boards: &Bound<'py, PyAny>,
    cells: usize,
    shape: npuzzle::Shape,
) -> PyResult<Bound<'py, PyArray2<u8>>> {
    let numpy = py.import("numpy")?;
    let array = if boards.is_instance_of::<PyUntypedArray>() {
        boards.clone()
    } else {
        numpy.call_method1("asarray", (boards,))?
    };
    let untyped = array.cast::<PyUntypedArray>()?;
    let dims = untyped.shape().to_vec();
    if dims.len() != 2 || dims[1] != cells {
        return Err(value_error(format!(
            "boards has shape {dims:?}; a {shape} table's boards are an array of shape \
             (N, {cells}): one board a row"
        )));
    }
    if let Ok(ready) = array.cast::<PyArray2<u8>>()
        && ready.is_c_contiguous()
    {
        return Ok(ready.clone());
    }
    let kind: char = untyped.dtype().kind().into();
    if !matches!(kind, 'i' | 'u') {
        return Err(PyTypeError::new_err(format!(
            "boards: an array of integers is expected, not one of dtype {} (tiles are \
             whole numbers 0 to {})",
            untyped.dtype(),
            cells - 1
        )));
    }
    // uint8 values cannot wrap around in the conversion (and `permutations_of` checks that
    // each row is a board): only wider or signed dtypes have their range checked.
    if dims[0] > 0 && untyped.dtype().itemsize() * 8 + usize::from(kind == 'i') > 8 {
        let low: i128 = array.call_method0("min")?.extract()?;
        let high: i128 = array.call_method0("max")?.extract()?;
        if low < 0 || high >= cells as i128 {
            // The first row holding a value that is not a tile, and that value, found by numpy.
            let outside = |a: &Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
                a.call_method1("__lt__", (0,))?
                    .call_method1("__or__", (a.call_method1("__ge__", (cells,))?,))
            };
            let row: usize = outside(&array)?
                .call_method1("any", (1,))?
                .call_method0("argmax")?
                .extract()?;
            let values = array.get_item(row)?;
            let bad = values.get_item(outside(&values)?)?.get_item(0)?;
            return Err(value_error(format!(
                "boards[{row}]: tile {bad} is out of range (the tiles of a {shape} board are 0 to {})",
                cells - 1
            )));
        }
    }
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", "uint8")?;
    let converted = numpy.call_method("ascontiguousarray", (array,), Some(&kwargs))?;
    Ok(converted.cast_into::<PyArray2<u8>>()?)
}

#[pymethods]
impl PyTable {
    /// Opens ``path`` (a ``table.npt``, or the results folder holding one) by memory map and
    /// checks it as ``npuzzle solve --table`` does: its header, its length and its checksum
    /// (one pass over the file, skipped when a stamp beside it says this very file passed it).
    ///
    /// Raises:
    ///     OSError: it cannot be read (``FileNotFoundError`` when missing).
    ///     DamagedFileError: not a table, or a damaged one.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let table = py
            .detach(|| DistanceTable::open(&path, true))
            .map_err(table_error)?;
        let path = if path.is_dir() {
            path.join("table.npt")
        } else {
            path
        };
        Ok(PyTable {
            table: Arc::new(table),
            path: Some(path),
        })
    }

    /// The distance (moves, in the table's metric) from ``board`` to the table's goal, or
    /// ``None`` when the goal cannot reach it. ``board``: a :class:`Board`, a string, or a
    /// sequence of tiles of the table's shape.
    ///
    /// Raises:
    ///     ValueError: not a board of the table's shape.
    ///     DamagedFileError: the walk fails its checks (a damaged table).
    fn depth(&self, board: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        let board = board_arg(board, Some(self.table.shape()))?;
        self.table
            .depth_of(board.permutation())
            .map_err(table_error)
    }

    /// The distance of every board of ``boards`` to the table's goal.
    ///
    /// Args:
    ///     boards: numpy array, shape ``(N, cells)``, of any integer dtype (int8 to int64,
    ///         uint8 to uint64) and any memory layout (C or Fortran order, a strided view):
    ///         one board a row, its tiles row by row, 0 for the blank. A C-contiguous uint8
    ///         array is read in place (do not change it while the call runs); any other is
    ///         converted to one first, its values checked to be tiles. A list of rows is read
    ///         as ``np.asarray(boards)`` is.
    ///
    /// Returns:
    ///     numpy array, shape ``(N,)``: moves in the table's metric, dtype uint8 with 255
    ///     (``npuzzle.UNREACHABLE``) for a board the goal cannot reach when every depth of the
    ///     table is at most 254; else dtype uint16 with 65535 for an unreachable board (never
    ///     a depth clamped). Computed in parallel (rayon, every core), the GIL released.
    ///
    /// Raises:
    ///     TypeError: an array that is not of integers (floats, booleans, objects: convert
    ///         with ``boards.astype(np.uint8)`` if that is what you mean).
    ///     ValueError: not two dimensions, another number of columns than the table's cells,
    ///         or a row that is not a board (``boards[17]: tile 3 appears twice ...``,
    ///         ``boards[4]: tile -1 is out of range``).
    ///     DamagedFileError: a walk fails its checks (a damaged table).
    ///     KeyboardInterrupt: Ctrl-C (the walk stops within a second).
    fn depths<'py>(&self, py: Python<'py>, boards: &Bound<'py, PyAny>) -> PyResult<Py<PyAny>> {
        let cells = self.cell_count();
        let array = uint8_boards(py, boards, cells, self.table.shape())?;
        let array = array.readonly();
        let tiles: &[u8] = array
            .as_slice()
            .map_err(|_| value_error("boards: not C-contiguous after conversion"))?;
        if self.table.layers().len() <= usize::from(UNREACHABLE) {
            self.walk_depths::<u8>(py, tiles, UNREACHABLE)
                .map(|a| a.into_any().unbind())
        } else {
            self.walk_depths::<u16>(py, tiles, u16::MAX)
                .map(|a| a.into_any().unbind())
        }
    }

    /// A shortest solution of ``board`` toward the table's goal, by walking the table: a
    /// :class:`Solution` (``expanded`` counts the steps), or ``None`` when the goal cannot
    /// reach it. Raises as :meth:`depth`.
    fn solve(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Option<PySolution>> {
        let board = board_arg(board, Some(self.table.shape()))?;
        let started = std::time::Instant::now();
        let walk = py
            .detach(|| self.table.solve(&board))
            .map_err(table_error)?;
        Ok(walk.map(|moves| {
            PySolution::new(board, self.table.metric(), moves, None, started.elapsed())
        }))
    }

    /// ``count`` boards drawn uniformly and independently (with replacement) among those
    /// exactly ``depth`` moves from the goal, from ``seed`` (the same seed, the same boards: those
    /// of ``npuzzle sample --depth D --count N --seed S``).
    ///
    /// Returns:
    ///     numpy array, shape ``(count, cells)``, dtype uint8: one board a row, tiles row by
    ///     row, 0 for the blank.
    ///
    /// Raises:
    ///     ValueError: no board lies at ``depth``; a negative or too large integer.
    ///     MemoryError: ``count`` boards do not fit in the memory available (checked before
    ///         anything is allocated).
    ///     DamagedFileError: a damaged table.
    ///     KeyboardInterrupt: Ctrl-C (within a second).
    #[pyo3(
        signature = (depth, count, seed=Int(0)),
        text_signature = "($self, depth, count, seed=0)"
    )]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        depth: Int<u32>,
        count: Int<u64>,
        seed: Int<u64>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<u8>>> {
        let (depth, count, seed) = (depth.0, count.0, seed.0);
        let cells = self.cell_count();
        let mut tiles = reserve_tiles(count, cells)?;
        let sampled = interruptible(py, |stop| {
            let mut drawn = 0u64;
            self.table
                .sample_each(depth, count, seed, |board| {
                    tiles.extend(board.tiles().map(|t| t as u8));
                    drawn += 1;
                    if drawn % 1024 == 0 && stop.load(Ordering::Relaxed) {
                        std::ops::ControlFlow::Break(())
                    } else {
                        std::ops::ControlFlow::Continue(())
                    }
                })
                .map(|()| tiles)
        })?;
        tiles_array(py, sampled.map_err(table_error)?, cells)
    }

    /// The file, or ``None`` for a table built in memory (:meth:`Analysis.distance_table`).
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    /// ``(rows, cols)``.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.table.shape().rows(), self.table.shape().cols())
    }

    /// The number of cells of its boards (the columns :meth:`depths` reads).
    #[getter]
    fn cells(&self) -> usize {
        self.cell_count()
    }

    /// ``"stm"`` or ``"mtm"``.
    #[getter]
    fn metric(&self) -> &'static str {
        self.table.metric().name()
    }

    /// The goal its distances are measured from.
    #[getter]
    fn goal(&self) -> PyBoard {
        PyBoard::new(self.table.goal().clone())
    }

    /// The largest distance from the goal, in moves: the goal's eccentricity (``max_depth``
    /// of ``summary.json``), not the graph's radius (:attr:`Geometry.radius`).
    #[getter]
    fn max_depth(&self) -> usize {
        self.table.layers().len().saturating_sub(1)
    }

    /// Deprecated alias of :attr:`max_depth` (it is the goal's eccentricity, not the graph's
    /// radius); warns ``DeprecationWarning``, and goes in the next release.
    #[getter]
    fn radius(&self, py: Python<'_>) -> PyResult<usize> {
        crate::deprecated(py, "DistanceTable.radius", "DistanceTable.max_depth")?;
        Ok(self.max_depth())
    }

    /// Boards at each depth: numpy array, dtype uint64, index = depth (the analysis's
    /// ``depth_counts``).
    #[getter]
    fn depth_counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.table.layers().to_vec())
    }

    fn __repr__(&self) -> String {
        format!(
            "DistanceTable({}: {} {}, goal {}, max_depth {})",
            match &self.path {
                Some(path) => format!("{:?}", path.display().to_string()),
                None => "in memory".to_string(),
            },
            self.table.shape(),
            self.table.metric().name(),
            self.table.goal().label(),
            self.table.layers().len().saturating_sub(1)
        )
    }
}

/// An error of the parallel walk, made into a Python exception once the GIL is back.
enum PyErrParts {
    Value(String),
    Table(TableError),
    /// Ctrl-C stopped the walk.
    Stopped,
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTable>()
}
