//! `all_pairs` and its `Geometry`: the whole game graph's eccentricities, diameter, radius,
//! centre, periphery, mean distance and distance table, from the library's
//! `npuzzle::geometry::all_pairs` (one BFS per orbit of blank cells), as the CLI's
//! `npuzzle analyze --all-pairs` computes them.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use npuzzle::export::geometry::GeometrySummary;
use npuzzle::geometry::{self, Geometry};

use crate::analyze::{PyProgress, analyze_error, pool_of, run_interruptible};
use crate::{Int, metric_of, opt, shape_of};

/// The geometry of a whole game graph (:func:`all_pairs`), with igraph's definitions on a
/// graph of several components: eccentricities and distances within a component, pairs in
/// different components counted as unconnected. Distances are in moves of the metric.
#[pyclass(name = "Geometry", module = "npuzzle", frozen)]
pub struct PyGeometry {
    geometry: Geometry,
    summary: GeometrySummary,
}

#[pymethods]
impl PyGeometry {
    /// The largest eccentricity: the greatest distance between two boards of one component.
    #[getter]
    fn diameter(&self) -> Option<u32> {
        self.geometry.diameter()
    }

    /// The least eccentricity.
    #[getter]
    fn radius(&self) -> Option<u32> {
        self.geometry.radius()
    }

    /// The mean distance over the unordered pairs of boards in one component (igraph's
    /// ``mean_distance``), float.
    #[getter]
    fn mean_distance(&self) -> Option<f64> {
        self.geometry.mean_distance()
    }

    /// Each board's eccentricity by its blank's cell: numpy array of shape ``(rows, cols)``,
    /// dtype uint32 (every board with its blank on a cell has the same eccentricity).
    #[getter]
    fn eccentricity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let values = self.per_cell(|o| o.eccentricity().unwrap_or(0));
        PyArray1::from_vec(py, values)
            .reshape([self.geometry.shape.rows(), self.geometry.shape.cols()])
    }

    /// Each board's mean distance to the other boards of its component, by its blank's cell:
    /// numpy array of shape ``(rows, cols)``, dtype float64.
    #[getter]
    fn mean_distances<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let values = self.per_cell(|o| o.mean_distance().unwrap_or(f64::NAN));
        PyArray1::from_vec(py, values)
            .reshape([self.geometry.shape.rows(), self.geometry.shape.cols()])
    }

    /// ``pairs[d]``: the unordered pairs of boards at distance ``d``, ``d = 0..diameter``
    /// (``pairs[0] = 0``), igraph's ``distance_table``: a list of Python ints (2x7 has about
    /// 1.9e21 pairs, beyond uint64).
    #[getter]
    fn distance_table(&self) -> Vec<u128> {
        self.geometry.distance_table()
    }

    /// Unordered pairs of boards in different components (igraph's ``unconnected``), int.
    #[getter]
    fn unconnected_pairs(&self) -> Option<u128> {
        self.geometry.unconnected_pairs()
    }

    /// Unordered pairs of boards in one component, int.
    #[getter]
    fn connected_pairs(&self) -> Option<u128> {
        self.geometry.connected_pairs()
    }

    /// The centre: the blank cells (row-major, from 0) of the boards of least eccentricity,
    /// and how many boards that is: ``(cells, boards)``.
    #[getter]
    fn centre(&self) -> Option<(Vec<usize>, u128)> {
        self.geometry.centre()
    }

    /// The periphery: the blank cells of the boards whose eccentricity is the diameter, and
    /// how many boards that is: ``(cells, boards)``.
    #[getter]
    fn periphery(&self) -> Option<(Vec<usize>, u128)> {
        self.geometry.periphery()
    }

    /// The shape, ``(rows, cols)``.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.geometry.shape.rows(), self.geometry.shape.cols())
    }

    /// ``"stm"`` or ``"mtm"``.
    #[getter]
    fn metric(&self) -> &'static str {
        self.geometry.metric.name()
    }

    /// Every figure as ``geometry/summary.json`` of ``npuzzle analyze --all-pairs`` holds
    /// them (without its provenance), as a dict: the orbits' cells, start boards and depth
    /// counts among them.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(&self.summary)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    fn __repr__(&self) -> String {
        format!(
            "<npuzzle.Geometry {} {}: diameter {}, radius {}, mean distance {:.4}>",
            self.geometry.shape,
            self.geometry.metric.name(),
            self.geometry.diameter().unwrap_or(0),
            self.geometry.radius().unwrap_or(0),
            self.geometry.mean_distance().unwrap_or(f64::NAN)
        )
    }
}

impl PyGeometry {
    /// `value` of each cell's orbit, row-major.
    fn per_cell<T>(&self, value: impl Fn(&geometry::OrbitDistances) -> T) -> Vec<T> {
        (0..self.geometry.shape.cells())
            .map(|cell| {
                let orbit = self
                    .geometry
                    .orbit_of(cell)
                    .expect("every cell is in an orbit");
                value(&self.geometry.orbits[orbit])
            })
            .collect()
    }
}

/// The whole game graph's geometry (``npuzzle analyze --all-pairs``): every board's
/// eccentricity, the diameter, the radius, the centre and the periphery, the mean distance
/// and the distance table, from one BFS per orbit of blank cells under the board's
/// symmetries (boards with the blank on the same cell, or on cells a reflection or rotation
/// exchanges, have the same distances to the rest).
///
/// Args:
///     rows, cols: the shape (at least 2 cells; up to 14 cells in 24 GB, as :func:`analyze`).
///     metric: ``"stm"`` or ``"mtm"``.
///     threads: worker threads (default: every core); at most four per core are started,
///         with a ``UserWarning`` when more are asked (as ``npuzzle analyze --threads``).
///     progress: progress bars and notes on stderr, only where stderr is a terminal.
///
/// Returns:
///     :class:`Geometry`.
///
/// Raises:
///     ValueError: a bad shape, metric or thread count.
///     MemoryError: one BFS of the shape does not fit in the memory available.
///     KeyboardInterrupt: Ctrl-C; the BFS stops after the layer it is building.
#[pyfunction]
#[pyo3(signature = (rows, cols, *, metric="stm", threads=None, progress=true))]
fn all_pairs(
    py: Python<'_>,
    rows: Int<usize>,
    cols: Int<usize>,
    metric: &str,
    threads: Option<Int<usize>>,
    progress: bool,
) -> PyResult<PyGeometry> {
    let pool = pool_of(py, opt(threads))?;
    let shape = shape_of(rows.0, cols.0)?;
    let metric = metric_of(metric)?;
    let (done, raised) = run_interruptible(py, |stop| {
        let bars = PyProgress::new(progress, stop);
        let work = || geometry::all_pairs(shape, metric, &bars);
        match &pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    })?;
    let geometry = done.map_err(|e| analyze_error(e, shape, raised))?;
    let summary = GeometrySummary::of(&geometry);
    Ok(PyGeometry { geometry, summary })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGeometry>()?;
    m.add_function(wrap_pyfunction!(all_pairs, m)?)?;
    Ok(())
}
