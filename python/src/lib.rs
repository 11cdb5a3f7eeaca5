//! The native module `npuzzle._npuzzle`, re-exported by the package `npuzzle`
//! (`python/npuzzle/__init__.py`). A thin layer: every figure comes from the library crate
//! (`npuzzle::analysis`, `::table`, `::solve`, `::board`, `::random`, `::graph`,
//! `::geometry`); this crate
//! only converts arguments and results, releases the GIL around the work, and turns the
//! library's errors into Python exceptions:
//!
//! - `ValueError`: a bad board or argument (the CLI's one-line message, naming Python's
//!   arguments: the module sets [`npuzzle::frontend`] to Python's words on import);
//! - `MemoryError`: the memory plan refuses a run, or an allocation fails;
//! - `OSError` (`FileNotFoundError`, ...): a file cannot be read or written;
//! - `npuzzle.DamagedFileError`: a table (or checkpoint) that is not one, or is damaged;
//! - `TypeError`: an argument of the wrong type (a float where an integer is expected, an
//!   array of floats);
//! - `KeyboardInterrupt`: Ctrl-C during any long call (`analyze`, `all_pairs`, `solve`,
//!   `random_boards`, `DistanceTable.depths` and `.sample`): each runs on a worker thread that
//!   stops within a second; nothing is left behind;
//! - `RuntimeError`: a panic of the library (a bug), caught at the boundary: a
//!   `pyo3_runtime.PanicException` never reaches Python from a long call, and arguments are
//!   checked before any allocation or conversion that could panic.
//!
//! - `board.rs`: `Board`, and reading boards from text, sequences and numpy rows.
//! - `analyze.rs`: `analyze` and its result; the progress bars and the interrupt check.
//! - `table.rs`: `DistanceTable` (memory-mapped `table.npt`, or an analysis's table built in
//!   memory, `Analysis.table()`), `depths` on numpy arrays.
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

/// An unsigned integer argument (`u8`, `u32`, `u64`, `usize`) read from a Python `int`:
/// `ValueError` (the documented exception) for a negative one or one beyond `T`'s range, where
/// pyo3's own conversion raises `OverflowError`; `TypeError` for anything that is not an
/// integer (a float is never truncated).
pub(crate) struct Int<T>(pub T);

/// The unsigned integer types [`Int`] reads, with their largest value for the message.
pub(crate) trait Unsigned: TryFrom<i128> + Copy {
    /// The largest value.
    const MAX: u128;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Unsigned for $t {
            const MAX: u128 = <$t>::MAX as u128;
        }
    )*};
}
unsigned!(u8, u16, u32, u64, usize);

impl<'a, 'py, T: Unsigned> FromPyObject<'a, 'py> for Int<T> {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let out_of_range = |shown: String| {
            value_error(format!(
                "{shown} is out of range: expected an integer from 0 to {}",
                T::MAX
            ))
        };
        match obj.extract::<i128>() {
            Ok(v) => T::try_from(v)
                .map(Int)
                .map_err(|_| out_of_range(v.to_string())),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py()) => Err(
                out_of_range(obj.str().map_or_else(|_| "it".into(), |s| s.to_string())),
            ),
            Err(e) => Err(e),
        }
    }
}

/// `Option<Int<T>>`'s value.
pub(crate) fn opt<T>(v: Option<Int<T>>) -> Option<T> {
    v.map(|Int(v)| v)
}

/// Warns `DeprecationWarning`: `old` is deprecated, use `new`.
pub(crate) fn deprecated(py: Python<'_>, old: &str, new: &str) -> PyResult<()> {
    let message = std::ffi::CString::new(format!(
        "{old} is deprecated (it is the goal's eccentricity, not the graph's radius): use {new}"
    ))?;
    PyErr::warn(
        py,
        &py.get_type::<pyo3::exceptions::PyDeprecationWarning>(),
        &message,
        1,
    )
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
    // The library's messages name Python's arguments (`rows=`), not the CLI's flags.
    npuzzle::frontend::set(npuzzle::frontend::FrontEnd::Python);
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
