//! The native module `npuzzle._npuzzle`, re-exported by the package `npuzzle`
//! (`python/npuzzle/__init__.py`). A thin layer: every figure comes from the library crate
//! (`npuzzle::analysis`, `::table`, `::solve`, `::board`, `::random`, `::graph`,
//! `::geometry`); this crate
//! only converts arguments and results, releases the GIL around the work, and turns the
//! library's errors into Python exceptions:
//!
//! - `ValueError`: a bad board or argument (the CLI's one-line message);
//! - `MemoryError`: the memory plan refuses a run, or an allocation fails;
//! - `OSError` (`FileNotFoundError`, ...): a file cannot be read or written;
//! - `npuzzle.DamagedFileError`: a table (or checkpoint) that is not one, or is damaged;
//! - `KeyboardInterrupt`: Ctrl-C during a long `analyze` (it stops after the BFS layer it is
//!   building, and writes nothing).
//!
//! - `board.rs`: `Board`, and reading boards from text, sequences and numpy rows.
//! - `analyze.rs`: `analyze` and its result; the progress bars and the interrupt check.
//! - `table.rs`: `DistanceTable` (memory-mapped `table.npt`), `depths` on numpy arrays.
//! - `solve.rs`: `solve` and its `Solution`.
//! - `graph.rs`: `game_graph`, `random_boards`.
//! - `geometry.rs`: `all_pairs` and its `Geometry` (eccentricities, diameter, radius, mean
//!   distance, distance table).

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;

mod analyze;
mod board;
mod geometry;
mod graph;
mod solve;
mod table;

create_exception!(
    npuzzle,
    DamagedFileError,
    PyException,
    "A distance table or checkpoint that is not one, or is damaged (wrong magic bytes, \
     truncated, a checksum mismatch, a walk that fails its checks). The message names the \
     file and the fault, as the CLI's does."
);

/// A `ValueError` with `message`.
pub(crate) fn value_error(message: impl ToString) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// An `OSError` for `error` with `message` (the path and what failed): `FileNotFoundError`
/// and its siblings where the kind says so.
pub(crate) fn os_error(kind: std::io::ErrorKind, message: impl ToString) -> PyErr {
    let message = message.to_string();
    match kind {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        std::io::ErrorKind::PermissionDenied => {
            pyo3::exceptions::PyPermissionError::new_err(message)
        }
        std::io::ErrorKind::OutOfMemory => PyMemoryError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

/// The metric named `name` (`stm`, `mtm`, `single-tile`, `multi-tile`).
pub(crate) fn metric_of(name: &str) -> PyResult<npuzzle::Metric> {
    npuzzle::Metric::parse(name).ok_or_else(|| {
        value_error(format!(
            "metric {name:?}: expected \"stm\" (single-tile) or \"mtm\" (multi-tile)"
        ))
    })
}

/// The shape `rows` x `cols`.
pub(crate) fn shape_of(rows: usize, cols: usize) -> PyResult<npuzzle::Shape> {
    npuzzle::Shape::new(rows, cols).map_err(value_error)
}

#[pymodule]
fn _npuzzle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DamagedFileError", m.py().get_type::<DamagedFileError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("UNREACHABLE", table::UNREACHABLE)?;
    board::register(m)?;
    analyze::register(m)?;
    table::register(m)?;
    solve::register(m)?;
    graph::register(m)?;
    geometry::register(m)?;
    Ok(())
}
