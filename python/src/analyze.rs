//! `npuzzle.analyze`: the library's whole analysis (`npuzzle::analysis`), its result as a
//! Python object with numpy arrays, and, when asked, the files the CLI writes, by the same
//! function (`npuzzle::results::write`).
//!
//! The work runs on a thread of its own with the GIL released; the calling thread waits for
//! it and checks for signals every 100 ms. On Ctrl-C it sets the flag that
//! [`PyProgress::stop_requested`] reports, the BFS stops after its layer
//! ([`npuzzle::analysis::AnalyzeError::Interrupted`]) and `KeyboardInterrupt` is raised: no
//! file has been written yet then (the outputs are written after the analysis, each to a
//! temporary name renamed over the old one).

use std::ffi::CString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use numpy::PyArray1;
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use npuzzle::analysis::{self, AnalyzeError, Options};
use npuzzle::export::{self, BoardFormat, Provenance, Summary};
use npuzzle::progress::NoProgress;
use npuzzle::results::{self, Files, Format, ResultsError};
use npuzzle::table::{Check, DistanceTable};
use npuzzle::{Board, Metric, Progress, Shape};

use crate::board::{PyBoard, board_arg};
use crate::table::{PyTable, table_error};
use crate::{Int, metric_of, opt, os_error, shape_of, value_error};

/// How often the waiting thread checks for signals.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// The progress of a run: indicatif bars on stderr and the plan's notes as lines (both only
/// where stderr is a terminal, as docs/python.md says: nothing in a pipe or a log file), the
/// warnings as lines; and the stop flag the waiting thread sets on Ctrl-C.
pub(crate) struct PyProgress<'a> {
    /// `progress=True`: warnings on stderr.
    show: bool,
    /// `progress=True` and stderr a terminal: bars and notes.
    terminal: bool,
    bar: Mutex<Option<ProgressBar>>,
    stop: &'a AtomicBool,
}

impl<'a> PyProgress<'a> {
    pub(crate) fn new(show: bool, stop: &'a AtomicBool) -> PyProgress<'a> {
        PyProgress {
            show,
            terminal: show && std::io::stderr().is_terminal(),
            bar: Mutex::new(None),
            stop,
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if let Ok(bar) = self.bar.lock()
            && let Some(bar) = bar.as_ref()
        {
            f(bar);
        }
    }
}

impl Progress for PyProgress<'_> {
    fn begin(&self, task: &str, total: u64, unit: &str) {
        if !self.terminal {
            return;
        }
        let bar = ProgressBar::with_draw_target(
            (total > 0).then_some(total),
            ProgressDrawTarget::stderr(),
        );
        let template = if total > 0 {
            format!("{task:>10} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} ({{eta}}) {{msg}}")
        } else {
            format!("{task:>10} {{spinner}} {{human_pos}} {unit} {{msg}}")
        };
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(old) = slot.take() {
                old.finish_and_clear();
            }
            *slot = Some(bar);
        }
    }

    fn update(&self, done: u64, note: &str) {
        self.refresh(done, note);
    }

    fn refresh(&self, done: u64, note: &str) {
        let note = note.to_string();
        self.with_bar(|bar| {
            bar.set_position(done);
            bar.set_message(note);
        });
    }

    fn end(&self) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(bar) = slot.take()
        {
            bar.finish_and_clear();
        }
    }

    fn warn(&self, message: &str) {
        if self.show {
            eprintln!("warning: {message}");
        }
    }

    fn note(&self, line: &str) {
        if self.terminal {
            eprintln!("note: {line}");
        }
    }

    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Runs `work` on a thread of its own, the GIL released, while this thread checks for
/// signals every [`SIGNAL_CHECK`]; on a signal whose handler raises (Ctrl-C:
/// `KeyboardInterrupt`) it sets the flag `work` is given and waits for `work` to return.
/// Returns what `work` returned, and the exception the signal raised, if one did.
pub(crate) fn run_interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool) -> T + Send,
) -> PyResult<(T, Option<PyErr>)> {
    let stop = AtomicBool::new(false);
    // Set by the worker when `work` has returned.
    let finished = (Mutex::new(false), Condvar::new());
    let mut raised = None;
    let joined = std::thread::scope(|scope| {
        let (stop, finished) = (&stop, &finished);
        let worker = scope.spawn(move || {
            let result = work(stop);
            if let Ok(mut done) = finished.0.lock() {
                *done = true;
            }
            finished.1.notify_all();
            result
        });
        loop {
            let done = py.detach(|| {
                let Ok(guard) = finished.0.lock() else {
                    return true;
                };
                finished
                    .1
                    .wait_timeout_while(guard, SIGNAL_CHECK, |done| !*done)
                    .map_or(true, |(done, _)| *done)
            });
            if done {
                break;
            }
            if raised.is_none()
                && let Err(e) = py.check_signals()
            {
                stop.store(true, Ordering::Relaxed);
                raised = Some(e);
            }
        }
        py.detach(move || worker.join())
    });
    match joined {
        Ok(result) => Ok((result, raised)),
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(PyRuntimeError::new_err(format!(
                "npuzzle panicked (a bug: please report it): {why}"
            )))
        }
    }
}

/// [`run_interruptible`] for a call that has nothing to keep once interrupted: the exception
/// the signal raised (`KeyboardInterrupt`) if one did, else what `work` returned.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool) -> T + Send,
) -> PyResult<T> {
    match run_interruptible(py, work)? {
        (_, Some(raised)) => Err(raised),
        (done, None) => Ok(done),
    }
}

/// The folders an analysis made for its results (the results folder and those of its
/// ancestors that did not exist), removed again when dropped unless [`MadeDirs::keep`] was
/// called: a failed or interrupted `analyze(output=DIR)` leaves no empty folder. Only empty
/// folders are removed (`remove_dir`), deepest first.
struct MadeDirs(Vec<PathBuf>);

impl MadeDirs {
    /// The folders of `dir` (itself, then its ancestors) that do not exist yet.
    fn missing(dir: &Path) -> MadeDirs {
        MadeDirs(
            dir.ancestors()
                .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
                .map(Path::to_path_buf)
                .collect(),
        )
    }

    /// The run succeeded: its folders stay.
    fn keep(mut self) {
        self.0.clear();
    }
}

impl Drop for MadeDirs {
    fn drop(&mut self) {
        for dir in &self.0 {
            if std::fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }
}

/// A pool of `threads` worker threads, `None` for rayon's global pool (every core): capped at
/// four per core with a `UserWarning`, as the CLI's `--threads` is (the library's rule,
/// [`npuzzle::threads::capped`]). Called before any work, so that a count no machine runs is
/// refused at once.
///
/// # Errors
/// `ValueError` for 0 threads or more than [`npuzzle::threads::MAX_ASKED`] (a negative count
/// is one already, [`crate::Int`]); `RuntimeError` when the threads cannot be started.
pub(crate) fn pool_of(
    py: Python<'_>,
    threads: Option<usize>,
) -> PyResult<Option<rayon::ThreadPool>> {
    use npuzzle::threads::{MAX_ASKED, PER_CORE, capped, cores};
    let Some(asked) = threads else {
        return Ok(None);
    };
    if !(1..=MAX_ASKED).contains(&asked) {
        return Err(value_error(format!(
            "threads={asked} is not a number of threads: from 1 to {MAX_ASKED} (at most \
             {PER_CORE} per core are used)"
        )));
    }
    let (n, warning) = capped(asked, cores(), &format!("threads={asked}"));
    if let Some(warning) = warning {
        PyErr::warn(
            py,
            &py.get_type::<PyUserWarning>(),
            &CString::new(warning)?,
            1,
        )?;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map(Some)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start {n} threads: {e}")))
}

/// The exception of an analysis that failed: `raised` (the signal's) when it was interrupted.
pub(crate) fn analyze_error(e: AnalyzeError, shape: Shape, raised: Option<PyErr>) -> PyErr {
    match e {
        AnalyzeError::Interrupted(_) => {
            raised.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))
        }
        AnalyzeError::TooLarge(m) if analysis::Engine::for_shape(shape).is_some() => {
            PyMemoryError::new_err(m)
        }
        AnalyzeError::TooLarge(m) | AnalyzeError::Refused(m) => value_error(m),
        AnalyzeError::OutOfMemory(e) => PyMemoryError::new_err(e.to_string()),
        AnalyzeError::Storage(m) => os_error(std::io::ErrorKind::Other, m),
    }
}

/// What an analysis writes, decided before it runs (the CLI's defaults).
struct Outputs {
    dir: PathBuf,
    /// edges.csv and nodes.csv (labels), up to 10 cells.
    graph: bool,
    table: bool,
}

/// The result of :func:`analyze`: the depth distribution from the goal, the hardest boards,
/// the components and the summary, as ``summary.json`` holds them.
#[pyclass(name = "Analysis", module = "npuzzle", frozen)]
pub struct PyAnalysis {
    summary: Summary,
    shape: Shape,
    goal: Board,
    metric: Metric,
    hardest: Vec<Board>,
    output: Option<PathBuf>,
    written: Vec<String>,
    /// The distance table built in memory (``table=True``), shared with the
    /// :class:`DistanceTable` objects :meth:`distance_table` gives.
    table: Option<(Arc<DistanceTable>, Option<PathBuf>)>,
}

#[pymethods]
impl PyAnalysis {
    /// Boards at each depth from the goal: numpy array, dtype uint64, index = depth (moves);
    /// ``depth_counts[0] == 1`` (the goal). The rows of ``depths.csv``.
    #[getter]
    fn depth_counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.summary.depth_counts.clone())
    }

    /// The goal's eccentricity: the largest depth, in moves (God's number from the standard
    /// goal; ``max_depth`` of ``summary.json``); for a partial run (``max_depth``), the last
    /// depth searched. Not the graph's radius (:attr:`Geometry.radius`).
    #[getter]
    fn max_depth(&self) -> u32 {
        self.summary.max_depth
    }

    /// Deprecated alias of :attr:`max_depth` (it is the goal's eccentricity, not the graph's
    /// radius); warns ``DeprecationWarning``, and goes in the next release.
    #[getter]
    fn radius(&self, py: Python<'_>) -> PyResult<u32> {
        crate::deprecated(py, "Analysis.radius", "Analysis.max_depth")?;
        Ok(self.max_depth())
    }

    /// The boards at the largest depth (all of them when the layer is small enough to list,
    /// else none; ``hardest_count`` says how many there are), by rank.
    #[getter]
    fn hardest(&self) -> Vec<PyBoard> {
        self.hardest.iter().cloned().map(PyBoard::new).collect()
    }

    /// How many boards lie at the largest depth.
    #[getter]
    fn hardest_count(&self) -> u64 {
        self.summary.hardest.count
    }

    /// The connected components: ``{"count": ..., "sizes": [{"size": ..., "count": ...}],
    /// "found_by": "search" or "theorem"}`` (as in ``summary.json``).
    #[getter]
    fn components<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let all = self.summary_dict(py)?;
        all.get_item("components")
    }

    /// Everything ``summary.json`` holds, as a dict.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.summary_dict(py)
    }

    /// All boards of the shape, ``cells!``.
    #[getter]
    fn boards(&self) -> u64 {
        self.summary.boards
    }

    /// Undirected edges of the whole game graph in the metric.
    #[getter]
    fn edges(&self) -> u64 {
        self.summary.edges
    }

    /// Boards reached from the goal (the goal's component; for a partial run, those found).
    #[getter]
    fn reachable(&self) -> u64 {
        self.summary.counted()
    }

    /// Mean depth over the boards reached, in moves (``None`` for a partial run).
    #[getter]
    fn mean_depth(&self) -> Option<f64> {
        self.summary.mean_depth
    }

    /// Median depth (``None`` for a partial run).
    #[getter]
    fn median_depth(&self) -> Option<u32> {
        self.summary.median_depth
    }

    /// ``False`` for a ``max_depth`` run that stopped at its limit (the counts are those up to
    /// it); ``True`` otherwise.
    #[getter]
    fn complete(&self) -> bool {
        !self.summary.is_partial()
    }

    /// ``(rows, cols)``.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.shape.rows(), self.shape.cols())
    }

    /// The goal the depths are measured from.
    #[getter]
    fn goal(&self) -> PyBoard {
        PyBoard::new(self.goal.clone())
    }

    /// ``"stm"`` or ``"mtm"``.
    #[getter]
    fn metric(&self) -> &'static str {
        self.metric.name()
    }

    /// The folder the files went to (``output/<R>x<C>...``), or ``None`` without ``output``.
    #[getter]
    fn output(&self) -> Option<PathBuf> {
        self.output.clone()
    }

    /// The names of the files written into :attr:`output`.
    #[getter]
    fn written(&self) -> Vec<String> {
        self.written.clone()
    }

    /// The distance table of the analysis (``table=True``): every board's distance from the
    /// goal in two bits. With ``output``, the ``table.npt`` written there, memory-mapped (its
    /// :attr:`DistanceTable.path`; each block checked when first read); without, the same
    /// table built in memory (the same bytes and answers, read by the same code), whose
    /// :attr:`DistanceTable.path` is ``None``. Each call gives a :class:`DistanceTable` over
    /// the same memory (no copy); the table lives while this analysis or one of them does.
    ///
    /// Raises:
    ///     ValueError: the analysis was run without ``table=True`` (or with ``max_depth``):
    ///         it kept no table.
    fn table(&self) -> PyResult<PyTable> {
        match &self.table {
            Some((table, path)) => Ok(PyTable::shared(Arc::clone(table), path.clone())),
            None => Err(value_error(format!(
                "this analysis kept no distance table: run it again with table=True (the \
                 whole state space: no max_depth), e.g. npuzzle.analyze({}, {}, table=True)",
                self.shape.rows(),
                self.shape.cols()
            ))),
        }
    }

    /// The depth distribution as a pandas DataFrame: columns ``depth``, ``count``,
    /// ``fraction`` (``depths.csv``'s). Raises ``ImportError`` without pandas.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pandas = py.import("pandas")?;
        pandas.call_method1("DataFrame", (self.columns(py)?,))
    }

    /// The depth distribution as a polars DataFrame (columns as :meth:`to_pandas`). Raises
    /// ``ImportError`` without polars.
    fn to_polars<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let polars = py.import("polars")?;
        polars.call_method1("DataFrame", (self.columns(py)?,))
    }

    fn __repr__(&self) -> String {
        format!(
            "Analysis({} {}, goal {}, max_depth {}, {} boards reached{})",
            self.summary.board,
            self.metric.name(),
            self.summary.goal,
            self.summary.max_depth,
            self.summary.counted(),
            if self.summary.is_partial() {
                ", partial"
            } else {
                ""
            }
        )
    }
}

impl PyAnalysis {
    fn summary_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(&self.summary)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// `depth`, `count` and `fraction` as numpy columns in a dict.
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let counts = &self.summary.depth_counts;
        let total = self.summary.counted().max(1) as f64;
        let columns = PyDict::new(py);
        let depths: Vec<u32> = (0..counts.len() as u32).collect();
        columns.set_item("depth", PyArray1::from_vec(py, depths))?;
        columns.set_item("count", PyArray1::from_vec(py, counts.clone()))?;
        let fractions: Vec<f64> = counts.iter().map(|&c| c as f64 / total).collect();
        columns.set_item("fraction", PyArray1::from_vec(py, fractions))?;
        Ok(columns)
    }
}

/// The call as its user wrote it, for `summary.json`'s provenance
/// ([`Provenance::of_call`]): the function and the arguments given, defaults left out:
/// `npuzzle.analyze(2, 3, metric='mtm', output='out')`.
#[allow(clippy::too_many_arguments)]
fn call_text(
    shape: Shape,
    goal: Option<&Board>,
    metric: Metric,
    max_depth: Option<u32>,
    threads: Option<usize>,
    table: bool,
    output: &Path,
    progress: bool,
) -> String {
    // A Python string literal: single quotes, or JSON's double quotes (also Python's) when
    // the text holds a quote or a backslash.
    let literal = |text: &str| {
        if text.contains(['\'', '\\']) || text.chars().any(char::is_control) {
            serde_json::to_string(text).unwrap_or_default()
        } else {
            format!("'{text}'")
        }
    };
    let mut args = vec![shape.rows().to_string(), shape.cols().to_string()];
    if let Some(g) = goal {
        args.push(format!("goal={}", literal(&g.label())));
    }
    if metric != Metric::default() {
        args.push(format!("metric={}", literal(metric.name())));
    }
    if let Some(d) = max_depth {
        args.push(format!("max_depth={d}"));
    }
    if let Some(t) = threads {
        args.push(format!("threads={t}"));
    }
    if table {
        args.push("table=True".into());
    }
    args.push(format!("output={}", literal(&output.display().to_string())));
    if !progress {
        args.push("progress=False".into());
    }
    format!("npuzzle.analyze({})", args.join(", "))
}

/// Writes the files of `result` into `outputs.dir` ([`npuzzle::results::write`], as
/// `npuzzle analyze` does); returns their names, and those of the files of an earlier run
/// moved to `stale/` ([`export::set_aside_stale`]).
fn write_outputs(
    result: &analysis::Analysis,
    summary: &Summary,
    outputs: &Outputs,
    progress: &dyn Progress,
) -> PyResult<(Vec<String>, Vec<&'static str>)> {
    let dir = &outputs.dir;
    let graph = outputs.graph.then_some(Format::Csv(BoardFormat::Labels));
    let files = Files {
        edges: graph,
        nodes: graph,
        table: outputs.table,
        scale: npuzzle::plot::Scale::auto([(&summary.depth_counts[..], summary.is_partial())]),
    };
    // (nodes.csv, written beside edges.csv, reports nowhere: one bar at a time)
    let names = results::write(dir, result, summary, &files, progress, &NoProgress).map_err(
        |e| match e {
            ResultsError::Export(e) => os_error(e.source.kind(), e.to_string()),
            ResultsError::Table(e) => crate::table::table_error(e),
            e => os_error(std::io::ErrorKind::Other, e),
        },
    )?;
    // As `npuzzle analyze`: an earlier run's outputs that this one did not rewrite go to
    // stale/, so that nothing beside the new summary.json describes another run.
    let (moved, _) =
        export::set_aside_stale(dir, &names).map_err(|e| os_error(std::io::ErrorKind::Other, e))?;
    Ok((names.into_iter().map(String::from).collect(), moved))
}

/// Maps the whole state space of the ``rows`` x ``cols`` puzzle: a BFS from the goal over
/// every board (the library's engine, the CLI's ``npuzzle analyze``), then the components.
///
/// Args:
///     rows, cols: the shape (at least 2 cells; up to 14 cells in 24 GB; with ``max_depth``,
///         up to 20).
///     goal: the board distances are measured from (any notation :class:`Board` reads);
///         default the standard goal.
///     metric: ``"stm"`` (a move slides one tile) or ``"mtm"`` (1 to k tiles of a row or
///         column).
///     max_depth: search only depths ``0..max_depth`` (frontier search, for boards too large
///         to map whole); the result then says whether it was ``complete``.
///     threads: worker threads (default: every core); at most four per core are started,
///         with a ``UserWarning`` when more are asked (as ``npuzzle analyze --threads``).
///     table: also make the distance table, for :meth:`Analysis.distance_table`: with
///         ``output`` written as ``table.npt`` (for :meth:`DistanceTable.open` too) and
///         mapped; without, kept in memory (two bits a board: 60 MB for 3x4, 10.9 GB for
///         2x7; built at the end of the run beside the analysis' marks, and counted in its
///         memory check).
///     output: a folder: the files of ``npuzzle analyze --output DIR`` go to
///         ``DIR/<R>x<C>[-goal-<label>][-mtm]/`` (``depths.csv``, ``hardest.txt``,
///         ``summary.json``, ``depth_histogram.png``; ``edges.csv`` and ``nodes.csv`` up to
///         10 cells; ``table.npt`` with ``table``). Without it nothing is written. As with
///         the CLI, the files of an earlier run there that this run does not write are moved
///         to ``stale/`` (a ``UserWarning`` names them), so that none describes another run.
///     progress: progress bars and notes on stderr, only where stderr is a terminal.
///
/// Returns:
///     :class:`Analysis`.
///
/// Raises:
///     ValueError: a bad shape, goal, metric, thread count (0, or more than 65,536) or
///         combination of arguments.
///     MemoryError: the run does not fit in the memory available (the message says what
///         does), or an allocation failed.
///     OSError: the output folder or a file cannot be written.
///     KeyboardInterrupt: Ctrl-C; the BFS stops after the layer it is building (well within
///         a second up to 3x4) and nothing is written.
#[pyfunction]
#[pyo3(signature = (rows, cols, *, goal=None, metric="stm", max_depth=None, threads=None, table=false, output=None, progress=true))]
#[allow(clippy::too_many_arguments)]
fn analyze(
    py: Python<'_>,
    rows: Int<usize>,
    cols: Int<usize>,
    goal: Option<&Bound<'_, PyAny>>,
    metric: &str,
    max_depth: Option<Int<u32>>,
    threads: Option<Int<usize>>,
    table: bool,
    output: Option<PathBuf>,
    progress: bool,
) -> PyResult<PyAnalysis> {
    let (max_depth, threads) = (opt(max_depth), opt(threads));
    let pool = pool_of(py, threads)?;
    let shape = shape_of(rows.0, cols.0)?;
    let metric = metric_of(metric)?;
    let goal_given = goal.is_some();
    let goal = match goal {
        Some(g) => board_arg(g, Some(shape)).map_err(|e| value_error(format!("goal: {e}")))?,
        None => Board::goal(shape),
    };
    if table && max_depth.is_some() {
        return Err(value_error(
            "table=True needs the whole state space: run without max_depth",
        ));
    }
    let from_marks = analysis::table_from_marks(shape, metric);
    if table && shape.cells() > analysis::SEARCH_CELLS && !from_marks {
        return Err(value_error(format!(
            "a table {} is made from every board's depth, up to {} cells; {shape} has {}",
            match metric {
                Metric::Mtm => "in the multi-tile metric",
                Metric::Stm => "of a one-row board",
            },
            analysis::SEARCH_CELLS,
            shape.cells()
        )));
    }
    let outputs = output.as_ref().map(|o| Outputs {
        dir: o.join(results::folder_name(shape, &goal, metric)),
        graph: max_depth.is_none() && shape.cells() <= results::DEFAULT_EXPORT_CELLS,
        table,
    });
    let in_memory = table && outputs.is_none();
    let options = Options {
        per_board: outputs.as_ref().is_some_and(|o| o.graph) || (table && !from_marks),
        metric,
        table,
        search_components: false,
    };
    match max_depth {
        None => {
            let plan = analysis::plan(shape, options, analysis::available_memory())
                .map_err(|e| analyze_error(e, shape, None))?;
            // Without `output`, the table kept in memory, built beside the analysis at the end
            // of the run (with it, the written file is mapped: no second copy in memory).
            let table_bytes = in_memory.then(|| table_bytes(shape)).flatten().unwrap_or(0);
            if plan.bytes.saturating_add(table_bytes) > plan.available {
                return Err(PyMemoryError::new_err(format!(
                    "{shape} with table=True needs {} of memory, {} for the analysis and {} \
                     for the table it keeps in memory (Analysis.table()); {} available",
                    indicatif::DecimalBytes(plan.bytes.saturating_add(table_bytes)),
                    indicatif::DecimalBytes(plan.bytes),
                    indicatif::DecimalBytes(table_bytes),
                    indicatif::DecimalBytes(plan.available),
                )));
            }
        }
        Some(_) => analysis::plan_limited(shape).map_err(value_error)?,
    }
    let made = MadeDirs::missing(outputs.as_ref().map_or(Path::new(""), |o| o.dir.as_path()));
    if let Some(o) = &outputs {
        export::prepare_dir(&o.dir).map_err(|e| os_error(e.source.kind(), e.to_string()))?;
    }
    let call = output.as_ref().map(|o| {
        let given = goal_given.then_some(&goal);
        call_text(shape, given, metric, max_depth, threads, table, o, progress)
    });
    let (done, raised) = run_interruptible(py, |stop| {
        let bars = PyProgress::new(progress, stop);
        let work = || -> Result<(analysis::Analysis, Option<analysis::Limited>), AnalyzeError> {
            match max_depth {
                None => analysis::analyze_unchecked(&goal, options, &bars).map(|a| (a, None)),
                Some(depth) => {
                    let storage = npuzzle::bfs::frontier::Storage {
                        scratch: None,
                        checkpoint: None,
                        memory: Some(analysis::available_memory()),
                    };
                    analysis::analyze_limited(&goal, metric, depth, &storage, &bars)
                        .map(|(a, l)| (a, Some(l)))
                }
            }
        };
        let analyzed = match &pool {
            Some(pool) => pool.install(work),
            None => work(),
        };
        // The table in memory, then the files, on the same thread (the interrupt stops the
        // BFS only).
        analyzed.map(|(result, limited)| {
            let kept = in_memory
                .then(|| match &pool {
                    Some(pool) => pool.install(|| DistanceTable::from_analysis(&result)),
                    None => DistanceTable::from_analysis(&result),
                })
                .transpose()
                .map_err(table_error);
            let mut summary = Summary::of(&result);
            if let Some(l) = &limited {
                summary.limit(l.complete, l.max_depth_searched);
            }
            if let Some(call) = &call {
                summary.npuzzle = Some(Provenance::of_call(call.as_str()));
            }
            // (No file when the table could not be made: the call raises.)
            let written = outputs
                .as_ref()
                .filter(|_| kept.is_ok())
                .map(|o| match &pool {
                    Some(pool) => pool.install(|| write_outputs(&result, &summary, o, &bars)),
                    None => write_outputs(&result, &summary, o, &bars),
                })
                .transpose();
            (result.distances.antipodes.clone(), summary, written, kept)
        })
    })?;
    let (hardest, summary, written, kept) = done.map_err(|e| analyze_error(e, shape, raised))?;
    let kept = kept?.map(|t| (Arc::new(t), None));
    let (written, moved) = written?.unwrap_or_default();
    made.keep();
    // With `output`, the table written there, mapped (each block checked when first read).
    let kept = match (&outputs, kept) {
        (Some(o), None) if table => {
            let path = o.dir.join("table.npt");
            let opened = py
                .detach(|| DistanceTable::open_checking(&path, Check::OnRead))
                .map_err(table_error)?;
            Some((Arc::new(opened), Some(path)))
        }
        (_, kept) => kept,
    };
    if let (false, Some(o)) = (moved.is_empty(), &outputs) {
        let message = format!(
            "moved {} of an earlier run to {} (this run does not write {})",
            moved.join(", "),
            export::shown(&o.dir.join("stale")),
            if moved.len() == 1 { "it" } else { "them" }
        );
        PyErr::warn(
            py,
            &py.get_type::<PyUserWarning>(),
            &CString::new(message)?,
            1,
        )?;
    }
    Ok(PyAnalysis {
        summary,
        shape,
        goal,
        metric,
        hardest,
        output: outputs.map(|o| o.dir),
        written,
        table: kept,
    })
}

/// The bytes of the distance table of `shape` (two bits a board of its index: `n!/2` boards
/// on a grid, `n!` on a line), `None` when no engine indexes it.
fn table_bytes(shape: Shape) -> Option<u64> {
    let boards = shape.board_count()?;
    match analysis::Engine::for_shape(shape)? {
        analysis::Engine::Parity => Some((boards / 2).div_ceil(4)),
        analysis::Engine::Lex => Some(boards.div_ceil(4)),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyAnalysis>()?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    Ok(())
}
