//! `npuzzle.DistanceTable`: a `table.npt` opened by memory map (`npuzzle::table`), checked as
//! `npuzzle solve --table` checks it (header, length, checksum once per version of the file),
//! answering depths of numpy arrays of boards in parallel with the GIL released, without
//! copying the table or the boards.

use std::path::PathBuf;

use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rayon::prelude::*;

use npuzzle::table::{DistanceTable, TableError};

use crate::DamagedFileError;
use crate::board::{PyBoard, board_arg, permutations_of, tiles_array};
use crate::solve::PySolution;
use crate::{os_error, value_error};

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
/// board by walking it down to the goal.
#[pyclass(name = "DistanceTable", module = "npuzzle", frozen)]
pub struct PyTable {
    table: DistanceTable,
    path: PathBuf,
}

impl PyTable {
    fn cell_count(&self) -> usize {
        self.table.shape().cells()
    }
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
        Ok(PyTable { table, path })
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
    ///     boards: numpy array, shape ``(N, cells)``, dtype uint8: one board a row, its tiles
    ///         row by row, 0 for the blank. Read in place (no copy) when C-contiguous; do not
    ///         change it while the call runs. A list of rows is converted first.
    ///
    /// Returns:
    ///     numpy array, shape ``(N,)``, dtype uint8: moves in the table's metric, 255
    ///     (``npuzzle.UNREACHABLE``) for a board the goal cannot reach. Computed in parallel
    ///     (rayon, every core), the GIL released.
    ///
    /// Raises:
    ///     TypeError: an array of another dtype (convert with ``boards.astype(np.uint8)``).
    ///     ValueError: another number of columns than the table's cells, or a row that is not
    ///         a board (``boards[17]: tile 3 appears twice ...``).
    ///     DamagedFileError: a walk fails its checks (a damaged table).
    fn depths<'py>(
        &self,
        py: Python<'py>,
        boards: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let cells = self.cell_count();
        let array: PyReadonlyArray2<'py, u8> = match boards.extract() {
            Ok(a) => a,
            Err(_) if boards.is_instance_of::<PyUntypedArray>() => {
                let a = boards.cast::<PyUntypedArray>()?;
                return Err(PyTypeError::new_err(format!(
                    "boards: an array of shape (N, {cells}) and dtype uint8 is expected, not \
                     one of shape {:?} and dtype {} (convert with boards.astype(np.uint8))",
                    a.shape(),
                    a.dtype()
                )));
            }
            Err(_) => {
                let numpy = py.import("numpy")?;
                let converted = numpy.call_method1("asarray", (boards, "uint8"))?;
                converted.extract().map_err(|_| {
                    value_error(format!(
                        "boards: expected rows of {cells} tiles (shape (N, {cells}))"
                    ))
                })?
            }
        };
        let shape = array.shape();
        if shape[1] != cells {
            return Err(value_error(format!(
                "boards has {} columns; a {} table's boards have {cells} tiles (shape (N, {cells}))",
                shape[1],
                self.table.shape()
            )));
        }
        let copied;
        let tiles: &[u8] = match array.as_slice() {
            Ok(s) => s,
            Err(_) => {
                copied = array.as_array().iter().copied().collect::<Vec<u8>>();
                &copied
            }
        };
        let table_shape = self.table.shape();
        let table = &self.table;
        let answered: Result<Vec<u8>, PyErrParts> = py.detach(|| {
            let mut out = vec![0u8; tiles.len() / cells];
            out.par_chunks_mut(TASK)
                .zip(tiles.par_chunks(TASK * cells))
                .enumerate()
                .try_for_each_init(Vec::new, |perms, (task, (out, rows))| {
                    permutations_of(rows, cells, table_shape, task * TASK, perms)
                        .map_err(PyErrParts::Value)?;
                    let refs: Vec<&[u8]> = perms.chunks_exact(cells).collect();
                    for (slot, depth) in out.iter_mut().zip(table.depths_of(&refs)) {
                        *slot = match depth {
                            Ok(Some(d)) => u8::try_from(d).unwrap_or(UNREACHABLE - 1),
                            Ok(None) => UNREACHABLE,
                            Err(e) => return Err(PyErrParts::Table(e)),
                        };
                    }
                    Ok(())
                })?;
            Ok(out)
        });
        match answered {
            Ok(out) => Ok(PyArray1::from_vec(py, out)),
            Err(PyErrParts::Value(m)) => Err(value_error(m)),
            Err(PyErrParts::Table(e)) => Err(table_error(e)),
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
    ///     ValueError: no board lies at ``depth``.
    ///     DamagedFileError: a damaged table.
    #[pyo3(signature = (depth, count, seed=0))]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        depth: u32,
        count: u64,
        seed: u64,
    ) -> PyResult<Bound<'py, numpy::PyArray2<u8>>> {
        let cells = self.cell_count();
        let tiles = py
            .detach(|| {
                let mut tiles = Vec::with_capacity((count.min(1 << 24) as usize) * cells);
                self.table
                    .sample_each(depth, count, seed, |board| {
                        tiles.extend(board.tiles().map(|t| t as u8));
                        std::ops::ControlFlow::Continue(())
                    })
                    .map(|()| tiles)
            })
            .map_err(table_error)?;
        tiles_array(py, tiles, cells)
    }

    /// The file.
    #[getter]
    fn path(&self) -> PathBuf {
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

    /// The largest distance (the goal's eccentricity).
    #[getter]
    fn radius(&self) -> usize {
        self.table.layers().len().saturating_sub(1)
    }

    /// Boards at each depth: numpy array, dtype uint64, index = depth (the analysis's
    /// ``depth_counts``).
    #[getter]
    fn depth_counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.table.layers().to_vec())
    }

    fn __repr__(&self) -> String {
        format!(
            "DistanceTable({:?}: {} {}, goal {}, radius {})",
            self.path.display().to_string(),
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
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTable>()
}
