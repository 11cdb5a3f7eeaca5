//! The answers of `npuzzle serve`'s JSON API, without HTTP: each a function of parsed
//! arguments returning a serde value, or a [`Refusal`] (the CLI's one-line message, status 400).
//!
//! Where a shape's answers come from ([`DistanceSource`]): a distance table (`table.npt`, the CLI's
//! `analyze --table`) found in the served folder, or built in memory on first use for a shape
//! of at most [`AnswerLimits::build_cells`] cells (once per shape and metric, outside the lock
//! every request takes: a request for another shape never waits on a build, and a build that
//! fails or panics fails that build only, a later request tries again), or built when the
//! page asks ([`Answers::map`], `POST /api/map`) for a shape of at most [`AnswerLimits::map_cells`]
//! cells, one such build at a time and all of them within [`AnswerLimits::map_memory`]; otherwise
//! the solver (IDA* with linear conflict in the single-tile metric, with the walking distance
//! in the multi-tile metric), within the time budget of each request (its `deadline`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::analysis::{self, Options};
use crate::board::{Board, Direction};
use crate::metric::Metric;
use crate::neighbourhood::Explorer;
use crate::progress::NoProgress;
use crate::random::Scrambler;
use crate::shape::Shape;
use crate::solve::walking::WalkingDistance;
use crate::solve::{self, Algorithm, Heuristic, HeuristicKind, SolveError};
use crate::table::DistanceTable;

/// A request the API refuses: a bad board or parameter, or work beyond its bounds. The
/// message is one line, as the CLI's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

fn refuse(message: impl ToString) -> Refusal {
    Refusal(message.to_string())
}

/// Why the API gives a request no answer: a [`Refusal`] (status 400), or a request whose time
/// budget ran out while it waited for another request's build of a table (status 503 with
/// `Retry-After`, as a request that waited past its budget for a job).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unanswered {
    /// A bad board or parameter, or work beyond the bounds.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The request's deadline came while another request built a table it waits for (the
    /// same shape's, or any map's: one at a time).
    #[error("the time limit was spent waiting for another request's build of a table")]
    TimeUp,
}

/// `mutex` locked, whether or not a thread panicked holding it (the data of each is whole at
/// every step).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A turn held by one build at a time, which the others wait for until their deadline only
/// (a std `Mutex` has no timed lock).
#[derive(Default)]
struct Turn {
    taken: Mutex<bool>,
    freed: Condvar,
}

/// A [`Turn`] held; given back when dropped (a panic's unwinding included).
struct HeldTurn<'a>(&'a Turn);

impl Turn {
    /// The turn, waiting for it until `deadline` at most; `None` when the deadline comes first.
    fn take(&self, deadline: Instant) -> Option<HeldTurn<'_>> {
        let mut taken = lock(&self.taken);
        while *taken {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            taken = self
                .freed
                .wait_timeout(taken, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *taken = true;
        Some(HeldTurn(self))
    }
}

impl Drop for HeldTurn<'_> {
    fn drop(&mut self) {
        *lock(&self.0.taken) = false;
        self.0.freed.notify_all();
    }
}

/// The bounds of the API.
#[derive(Debug, Clone)]
pub struct AnswerLimits {
    /// Build a distance table in memory for shapes of at most this many cells (9: 3x3 in
    /// about 0.1 s; 12: 3x4 in about 3 s and 61 MB), on their first use. Each such build's
    /// peak ([`map_bytes`], either metric) must fit in [`AnswerLimits::map_memory`] and the
    /// memory available: [`Answers::new`] refuses limits whose largest shape's does not
    /// ([`AnswerLimits::check_builds`]).
    pub build_cells: usize,
    /// The longest a search of one request may run (the solver's shapes, `compare`).
    pub time_limit: Duration,
    /// The most cells of a shape the API answers (the solver's reach).
    pub max_cells: usize,
    /// The most boards one `sample` request returns.
    pub max_samples: u64,
    /// Build a distance table in memory when the page asks for it (`POST /api/map`) for
    /// shapes of at most this many cells (12: 3x4, 2x6 and their transposes; 0: never).
    pub map_cells: usize,
    /// Bytes of memory the tables built when asked may hold together, the one being built
    /// counted at its peak ([`map_bytes`]); a build past it is refused. Also the most one
    /// build on first use may take at its peak ([`AnswerLimits::build_cells`]).
    pub map_memory: u64,
}

impl AnswerLimits {
    /// Checks that every table built on first use ([`AnswerLimits::build_cells`]: each shape
    /// the API answers of at most that many cells, in either metric) fits at its peak
    /// ([`map_bytes`]) in [`AnswerLimits::map_memory`] and in `available` bytes, so that no
    /// request can start a build the machine cannot hold.
    ///
    /// # Errors
    /// A [`Refusal`] naming the largest shape whose build does not fit, its peak, the bound,
    /// and the most cells that fit.
    pub fn check_builds(&self, available: u64) -> Result<(), Refusal> {
        let bound = self.map_memory.min(available);
        let largest = self.max_cells.min(self.build_cells);
        // Each shape the API answers (2 to max_cells / 2 rows and columns), largest first.
        let mut shapes: Vec<Shape> = (2..=self.max_cells / 2)
            .flat_map(|rows| (2..=self.max_cells / 2).map(move |cols| (rows, cols)))
            .filter(|&(rows, cols)| rows * cols <= largest)
            .filter_map(|(rows, cols)| Shape::new(rows, cols).ok())
            .collect();
        shapes.sort_by_key(|s| (std::cmp::Reverse(s.cells()), s.rows()));
        // The larger of its two builds (the multi-tile metric's keeps every board's depth).
        let peak = |shape: Shape| {
            [Metric::Stm, Metric::Mtm]
                .into_iter()
                .filter_map(|m| map_bytes(shape, m).map(|b| (b, m)))
                .max_by_key(|&(b, _)| b)
        };
        let too_big = |shape: &&Shape| peak(**shape).is_some_and(|(b, _)| b > bound);
        let Some(&shape) = shapes.iter().find(too_big) else {
            return Ok(());
        };
        let (bytes, metric) = peak(shape).unwrap_or((u64::MAX, Metric::Stm));
        // The most cells whose shapes all fit: below the smallest that does not.
        let smallest = shapes
            .iter()
            .filter(too_big)
            .map(|s| s.cells())
            .min()
            .unwrap_or(shape.cells());
        let fits = shapes
            .iter()
            .map(|s| s.cells())
            .filter(|&c| c < smallest)
            .max()
            .unwrap_or(0);
        Err(refuse(format!(
            "--build {}: building the table of {shape} ({}) on first use takes {} at its \
             peak, beyond the {} a build may take (--map-memory {} MB, {} available): \
             --build {fits} fits",
            self.build_cells,
            metric.name(),
            indicatif::DecimalBytes(bytes),
            indicatif::DecimalBytes(bound),
            self.map_memory / 1_000_000,
            indicatif::DecimalBytes(available),
        )))
    }
}

/// Nanoseconds per board of a table's build in the server on the project's machine (2 cores):
/// the 3x4 table's 239,500,800 boards in 5 s, issue 62's trial (3.1 s idle in issue 61's
/// benchmark; 18 to 21 s measured while three compilers shared the cores, docs/serve.md). The
/// estimate of a build's time until the server has timed one of at least [`RATE_BOARDS`]
/// boards itself.
pub const NS_PER_BOARD: f64 = 20.9;

/// The fewest boards of a build whose time the server takes as its own per-board rate (below
/// it, the build's fixed costs dominate).
pub const RATE_BOARDS: u64 = 1_000_000;

/// What a build takes beyond the analysis' plan and the table, counted in every offer: the
/// analysis' smaller arrays and the table's lists and checksums, and the server's own pages
/// that the build's peak RSS includes (12 MB on 3x4 in the single-tile metric, measured by
/// `scripts/bench_serve_map.sh`, whose two parts are in memory at once since the table is
/// built in memory: docs/serve.md).
pub const BUILD_BEYOND_PLAN: u64 = 16_000_000;

/// The peak bytes of building `shape`'s table in `metric` in memory and keeping it: the
/// analysis' own ([`analysis::bytes_needed`]), the table's (two bits a board), and
/// [`BUILD_BEYOND_PLAN`]; or `None` where no engine builds it.
pub fn map_bytes(shape: Shape, metric: Metric) -> Option<u64> {
    let options = table_options(shape, metric);
    let table = table_bytes(shape)?;
    analysis::bytes_needed(shape, options)?
        .checked_add(table)?
        .checked_add(BUILD_BEYOND_PLAN)
}

/// The bytes of `shape`'s table: two bits for each board the goal reaches (`n!/2`).
fn table_bytes(shape: Shape) -> Option<u64> {
    Some((shape.board_count()? / 2).div_ceil(4))
}

/// The analysis options of a table's build for the page.
fn table_options(shape: Shape, metric: Metric) -> Options {
    Options {
        // Where the BFS's marks are not the table, it is made from every board's depth.
        per_board: !analysis::table_from_marks(shape, metric),
        metric,
        table: true,
        search_components: false,
    }
}

impl Default for AnswerLimits {
    fn default() -> AnswerLimits {
        AnswerLimits {
            build_cells: 9,
            time_limit: Duration::from_secs(5),
            max_cells: 16,
            max_samples: 100,
            map_cells: 12,
            map_memory: 1_000_000_000,
        }
    }
}

/// Where a shape's distances come from.
#[derive(Clone)]
pub enum DistanceSource {
    /// A distance table, and the file it was read from (`None`: built in memory).
    Table(Arc<DistanceTable>, Option<PathBuf>),
    /// The solver.
    Solver,
}

/// A shape and metric.
type Key = (Shape, Metric);

/// One shape's table: set once built (or read); `building` is held by the one request that
/// builds it, so that it is built once while requests for other shapes go on (and those for
/// the same shape wait for it until their deadline).
#[derive(Default)]
struct Slot {
    ready: OnceLock<Arc<DistanceTable>>,
    building: Turn,
}

/// A table of the served folder: its name relative to the folder, its full path, and its
/// slot in [`crate::faults`].
struct ServedTable {
    name: String,
    path: PathBuf,
    watched: Option<usize>,
}

/// The answers, with the tables found or built so far (shared by the server's threads).
pub struct Answers {
    limits: AnswerLimits,
    /// Tables by shape and metric: those of the served folder, then those built. The lock is
    /// held only to find or insert a slot.
    tables: Mutex<HashMap<Key, Arc<Slot>>>,
    /// Where each table of the folder was read from.
    paths: HashMap<Key, ServedTable>,
    /// The served folder as messages show it, with a trailing `/` (removed from messages:
    /// answers name files relative to it).
    folder: Option<String>,
    /// The walking distances of the multi-tile solver, built on first use (milliseconds).
    walking: Mutex<HashMap<Key, Arc<WalkingDistance>>>,
    /// Held by the one build the page asked for ([`Answers::map`]): one at a time, the others
    /// waiting until their deadline.
    mapping: Turn,
    /// Bytes of the tables built when asked, kept ([`AnswerLimits::map_memory`]).
    mapped: Mutex<u64>,
    /// The largest build timed so far: its boards and seconds (the per-board rate of
    /// [`MapOffer::seconds`]).
    timed: Mutex<Option<(u64, f64)>>,
}

/// Builds of tables that panic on purpose, for the unit test of a panicking build.
#[cfg(test)]
static PANICKING_BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `GET /api/shape`: what the page needs to draw a shape.
#[derive(Debug, Serialize)]
pub struct ShapeInfo {
    /// Rows and columns.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// `stm` or `mtm`.
    pub metric: &'static str,
    /// The goal's tiles, row by row, `0` for the blank.
    pub goal: Vec<u64>,
    /// `table` or `solver`.
    pub source: &'static str,
    /// One sentence for the page: where the answers come from.
    pub source_note: String,
    /// Boards at each depth from the goal (a table's layers), when known.
    pub depth_counts: Option<Vec<u64>>,
    /// The largest depth (God's number of the shape from this goal), when known.
    pub radius: Option<u32>,
    /// What mapping the shape would take, where the solver answers it and the page may ask
    /// for its table (`POST /api/map`).
    pub map: Option<MapOffer>,
}

/// A table the page may ask the server to build ([`Answers::map`]): its size and cost.
#[derive(Debug, Serialize)]
pub struct MapOffer {
    /// Boards of the table (those the goal reaches).
    pub boards: u64,
    /// The build's estimated wall time, in seconds: `boards` at the per-board rate of the
    /// largest build the server has timed (of at least [`RATE_BOARDS`] boards), or
    /// [`NS_PER_BOARD`].
    pub seconds: f64,
    /// Peak memory of the build, in bytes ([`map_bytes`]).
    pub bytes: u64,
    /// Memory the table keeps once built, in bytes (two bits a board).
    pub table_bytes: u64,
}

/// One move of a board: the cell the blank goes to, and the board's distance after it.
#[derive(Debug, Serialize)]
pub struct Move {
    /// The blank's cell after the move (row-major, from 0).
    pub to: usize,
    /// The distance of the board after the move (`None`: unknown, or unreachable).
    pub distance: Option<u32>,
}

/// `GET /api/board`: a board, its distance and its moves.
#[derive(Debug, Serialize)]
pub struct BoardAnswer {
    /// Its tiles, row by row, `0` for the blank.
    pub tiles: Vec<u64>,
    /// Its label (`123456780`).
    pub label: String,
    /// Its distance to the goal in the metric (`None`: the goal cannot reach it).
    pub distance: Option<u32>,
    /// Every move, in [`Metric::targets`] order.
    pub moves: Vec<Move>,
}

/// `GET /api/solve`: an optimal solution as the blank's cells, one per move of the metric.
#[derive(Debug, Serialize)]
pub struct SolveAnswer {
    /// The blank's cell after each move.
    pub path: Vec<usize>,
    /// Its length in the metric.
    pub length: usize,
    /// Its moves in the metric's notation (`R D L`, `R2 D U3`).
    pub moves: String,
    /// `table` or the solver's method.
    pub method: String,
    /// Wall time of the answer, in seconds.
    pub seconds: f64,
}

/// `GET /api/graph`: the boards within `radius` moves of one, and the moves between them.
#[derive(Debug, Serialize)]
pub struct GraphAnswer {
    /// The boards; `steps` is the distance from the centre board (0, 1 or 2).
    pub nodes: Vec<GraphNode>,
    /// Every pair of node ids one move apart (`[i, j]`, `i < j`, ascending), those of two
    /// boards `radius` moves from the centre included ([`crate::neighbourhood`]).
    pub edges: Vec<[usize; 2]>,
}

/// A board of [`GraphAnswer`].
#[derive(Debug, Serialize)]
pub struct GraphNode {
    /// Its index in `nodes`.
    pub id: usize,
    /// Its tiles.
    pub tiles: Vec<u64>,
    /// Its distance to the goal.
    pub distance: Option<u32>,
    /// Moves from the centre board.
    pub steps: usize,
}

/// One row of `GET /api/compare`, as `solve --compare` prints it.
#[derive(Debug, Serialize)]
pub struct CompareRow {
    /// `BFS`, `uniform-cost`, `A* + manhattan`, ...
    pub algorithm: String,
    /// The solution's length, `None` when the run gave up.
    pub length: Option<usize>,
    /// Boards expanded.
    pub expanded: Option<u64>,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Why there is no length (the run gave up, or was not run: the request's time budget
    /// was spent by the rows before it).
    pub error: Option<String>,
}

/// `GET /api/compare`.
#[derive(Debug, Serialize)]
pub struct CompareAnswer {
    /// One row per algorithm.
    pub rows: Vec<CompareRow>,
}

impl Answers {
    /// The answers of a server for the tables in `dir` (each `<R>x<C>[-mtm]/table.npt` for the
    /// standard goal, its checksum verified once), building others as `limits` allows.
    ///
    /// # Errors
    /// A [`Refusal`] naming `dir` when it cannot be read, or a table of it that is damaged;
    /// or limits whose builds on first use do not fit ([`AnswerLimits::check_builds`] with
    /// the memory available now).
    pub fn new(dir: Option<&Path>, limits: AnswerLimits) -> Result<Answers, Refusal> {
        limits.check_builds(analysis::available_memory())?;
        let mut tables = HashMap::new();
        let mut paths = HashMap::new();
        let folder = dir.map(|d| format!("{}/", crate::export::shown(d).trim_end_matches('/')));
        if let Some(dir) = dir {
            let entries = std::fs::read_dir(dir)
                .map_err(|e| refuse(format!("{}: {e}", crate::export::shown(dir))))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path().join("table.npt"))
                .filter(|p| p.is_file())
                .collect();
            found.sort();
            for path in found {
                let table = DistanceTable::open(&path, true).map_err(refuse)?;
                if *table.goal() != Board::goal(table.shape()) {
                    continue;
                }
                let key = (table.shape(), table.metric());
                let name = path.strip_prefix(dir).unwrap_or(&path);
                paths.insert(
                    key,
                    ServedTable {
                        name: crate::export::shown(name),
                        watched: crate::faults::watch(&table),
                        path: path.clone(),
                    },
                );
                let slot = Slot::default();
                let _ = slot.ready.set(Arc::new(table));
                tables.insert(key, Arc::new(slot));
            }
        }
        Ok(Answers {
            limits,
            tables: Mutex::new(tables),
            paths,
            folder,
            walking: Mutex::new(HashMap::new()),
            mapping: Turn::default(),
            mapped: Mutex::new(0),
            timed: Mutex::new(None),
        })
    }

    /// `message` with the served folder's path removed: files named relative to the folder.
    pub fn relative(&self, message: &str) -> String {
        match &self.folder {
            Some(folder) => message.replace(folder.as_str(), ""),
            None => message.to_string(),
        }
    }

    /// Whether `shape` in `metric` is answered by a table read or built already (its answers
    /// are then cheap: a table's walks, no search and no build).
    pub fn has_table(&self, shape: Shape, metric: Metric) -> bool {
        self.tables
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(shape, metric))
            .is_some_and(|s| s.ready.get().is_some())
    }

    /// Whether a first request for `shape` builds its table ([`AnswerLimits::build_cells`]).
    pub fn builds(&self, shape: Shape) -> bool {
        shape.cells() <= self.limits.build_cells
    }

    /// Refuses to read the table of `key` when its file changed under the server: its length
    /// is no longer the mapped one, or a read of it faulted ([`crate::faults`]). Tables built
    /// in memory have no file and always pass.
    ///
    /// # Errors
    /// A [`Refusal`] naming the table, relative to the served folder.
    pub fn intact(&self, shape: Shape, metric: Metric) -> Result<(), Refusal> {
        let Some(served) = self.paths.get(&(shape, metric)) else {
            return Ok(());
        };
        let mapped = self
            .tables
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(shape, metric))
            .and_then(|s| s.ready.get().map(|t| t.mapped().1));
        let length = std::fs::metadata(&served.path).map(|m| m.len()).ok();
        let faulted = served.watched.is_some_and(|w| crate::faults::faults(w) > 0);
        if faulted || length.is_none() || length != mapped.map(|m| m as u64) {
            return Err(refuse(format!(
                "{}: the table changed under the server (truncated or removed?): restart it \
                 once the table is whole",
                served.name
            )));
        }
        Ok(())
    }

    /// The bounds in force.
    pub fn limits(&self) -> &AnswerLimits {
        &self.limits
    }

    /// The shape `rows` x `cols` if the API answers it.
    ///
    /// # Errors
    /// A [`Refusal`] for a shape that is not one, or beyond [`AnswerLimits::max_cells`].
    pub fn shape(&self, rows: usize, cols: usize) -> Result<Shape, Refusal> {
        let shape = Shape::new(rows, cols).map_err(refuse)?;
        if shape.cells() > self.limits.max_cells || shape.rows() < 2 || shape.cols() < 2 {
            return Err(refuse(format!(
                "{shape}: the page plays boards of 2 to {} rows and columns and at most {} cells",
                self.limits.max_cells / 2,
                self.limits.max_cells
            )));
        }
        Ok(shape)
    }

    /// The source of `shape`'s answers in `metric`: its table (built now if
    /// [`AnswerLimits::build_cells`] allows, once: a second request for the shape waits for the
    /// first one's build until its `deadline`, requests for other shapes do not wait), checked
    /// [`Answers::intact`]; the solver for a larger shape until its table is read or mapped
    /// ([`Answers::map`]).
    ///
    /// # Errors
    /// A [`Refusal`] when building the table fails or panics (a later request builds again),
    /// or the table's file changed under the server; [`Unanswered::TimeUp`] when `deadline`
    /// comes while another request builds the table.
    pub fn source(
        &self,
        shape: Shape,
        metric: Metric,
        deadline: Instant,
    ) -> Result<DistanceSource, Unanswered> {
        let key = (shape, metric);
        // Beyond --build only a table read, or mapped on request and finished, answers.
        if shape.cells() > self.limits.build_cells && !self.has_table(shape, metric) {
            return Ok(DistanceSource::Solver);
        }
        let table = self.table(shape, metric, deadline)?;
        self.intact(shape, metric)?;
        Ok(DistanceSource::Table(
            table,
            self.paths.get(&key).map(|s| PathBuf::from(&s.name)),
        ))
    }

    /// The table of `shape` in `metric`: read, built already, or built now (once: a second
    /// request for the shape waits for the first one's build until its `deadline`, requests
    /// for other shapes do not wait). Each build is timed ([`MapOffer::seconds`]).
    fn table(
        &self,
        shape: Shape,
        metric: Metric,
        deadline: Instant,
    ) -> Result<Arc<DistanceTable>, Unanswered> {
        let slot = lock(&self.tables)
            .entry((shape, metric))
            .or_default()
            .clone();
        if slot.ready.get().is_none() {
            let Some(_building) = slot.building.take(deadline) else {
                return Err(Unanswered::TimeUp);
            };
            if slot.ready.get().is_none() {
                let started = Instant::now();
                let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    Self::build(shape, metric)
                }))
                .map_err(|_| refuse(format!("building the table of {shape} failed")))??;
                let boards = built.layers().iter().sum::<u64>();
                let seconds = started.elapsed().as_secs_f64();
                let mut timed = lock(&self.timed);
                if boards >= RATE_BOARDS && timed.is_none_or(|(b, _)| boards > b) {
                    *timed = Some((boards, seconds));
                }
                let _ = slot.ready.set(Arc::new(built));
            }
        }
        Ok(slot
            .ready
            .get()
            .cloned()
            .ok_or_else(|| refuse(format!("building the table of {shape} failed")))?)
    }

    /// What mapping `shape` in `metric` on request would take, if the page may ask for it:
    /// a shape without a table, of at most [`AnswerLimits::map_cells`] cells.
    pub fn map_offer(&self, shape: Shape, metric: Metric) -> Option<MapOffer> {
        if shape.cells() > self.limits.map_cells || self.has_table(shape, metric) {
            return None;
        }
        let boards = shape.board_count()? / 2;
        let per_board = match *self
            .timed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            Some((b, s)) => s / b as f64,
            None => NS_PER_BOARD * 1e-9,
        };
        Some(MapOffer {
            boards,
            seconds: boards as f64 * per_board,
            bytes: map_bytes(shape, metric)?,
            table_bytes: table_bytes(shape)?,
        })
    }

    /// `POST /api/map`: builds the table of `shape` in `metric` now, as the page asks, and
    /// answers as [`Answers::shape_info`]. One such build at a time (a second waits for the
    /// first, until its `deadline` at most); each shape's at most once (the table is kept);
    /// and all of them within [`AnswerLimits::map_memory`] and the memory available.
    ///
    /// # Errors
    /// A [`Refusal`] for a shape beyond [`AnswerLimits::map_cells`], a build past the memory
    /// budget, or a build that fails; [`Unanswered::TimeUp`] when `deadline` comes while
    /// another request builds a table this one waits for.
    pub fn map(
        &self,
        shape: Shape,
        metric: Metric,
        deadline: Instant,
    ) -> Result<ShapeInfo, Unanswered> {
        if self.has_table(shape, metric) {
            return self.shape_info(shape, metric, deadline);
        }
        let cells = self.limits.map_cells;
        if shape.cells() > cells {
            return Err(refuse(format!(
                "{shape}: this server maps boards of at most {cells} cells on request \
                 (npuzzle serve --map CELLS, up to 12); npuzzle analyze --table makes a table \
                 it serves"
            ))
            .into());
        }
        let Some(_one) = self.mapping.take(deadline) else {
            return Err(Unanswered::TimeUp);
        };
        if self.has_table(shape, metric) {
            return self.shape_info(shape, metric, deadline);
        }
        let bytes = map_bytes(shape, metric)
            .ok_or_else(|| refuse(format!("{shape}: no table of it can be built here")))?;
        let kept = *lock(&self.mapped);
        let budget = self.limits.map_memory;
        let available = analysis::available_memory();
        if kept.saturating_add(bytes) > budget || bytes > available {
            return Err(refuse(format!(
                "mapping {shape} needs {} of memory; the tables mapped on request hold {} of \
                 the server's {} for them ({} available): npuzzle serve --map-memory MB, or \
                 npuzzle analyze --table for a table it serves",
                indicatif::DecimalBytes(bytes),
                indicatif::DecimalBytes(kept),
                indicatif::DecimalBytes(budget),
                indicatif::DecimalBytes(available),
            ))
            .into());
        }
        let table = self.table(shape, metric, deadline)?;
        *lock(&self.mapped) += table.mapped().1 as u64;
        self.shape_info(shape, metric, deadline)
    }

    /// The distance table of `shape` in `metric`, built in memory.
    fn build(shape: Shape, metric: Metric) -> Result<DistanceTable, Refusal> {
        #[cfg(test)]
        if PANICKING_BUILDS
            .fetch_update(
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
                |n| n.checked_sub(1),
            )
            .is_ok()
        {
            panic!("a build that panics, for the test");
        }
        let goal = Board::goal(shape);
        let options = table_options(shape, metric);
        let analysis = analysis::analyze_unchecked(&goal, options, &NoProgress).map_err(refuse)?;
        // In memory: no file, so nothing is left behind however the server ends.
        DistanceTable::from_analysis(&analysis).map_err(refuse)
    }

    /// `GET /api/shape`, a wait for another request's build ending by `deadline`.
    ///
    /// # Errors
    /// As [`Answers::source`].
    pub fn shape_info(
        &self,
        shape: Shape,
        metric: Metric,
        deadline: Instant,
    ) -> Result<ShapeInfo, Unanswered> {
        let source = self.source(shape, metric, deadline)?;
        let (depth_counts, source_note) = match &source {
            DistanceSource::Table(t, path) => (
                Some(t.layers().to_vec()),
                match path {
                    Some(p) => format!(
                        "Distances from the distance table {} (analyze --table).",
                        p.display()
                    ),
                    None => format!(
                        "Distances from a distance table of all {} boards built for this page.",
                        indicatif::HumanCount(t.layers().iter().sum::<u64>())
                    ),
                },
            ),
            DistanceSource::Solver => (
                None,
                format!(
                    "Distances from the solver (IDA* with {}), each within {:.0} s; no table \
                     of {shape} here ({}).",
                    match metric {
                        Metric::Stm => "linear conflict",
                        Metric::Mtm => "the walking distance",
                    },
                    self.limits.time_limit.as_secs_f64(),
                    if self.map_offer(shape, metric).is_some() {
                        "map it below, or start the server with --build 12 to map it on first use"
                            .to_string()
                    } else if shape.cells() <= 12 {
                        format!(
                            "npuzzle serve --build {} maps it on first use",
                            shape.cells()
                        )
                    } else {
                        "npuzzle analyze --table makes one where it fits".to_string()
                    }
                ),
            ),
        };
        Ok(ShapeInfo {
            rows: shape.rows(),
            cols: shape.cols(),
            metric: metric.name(),
            goal: Board::goal(shape).tiles().collect(),
            source: match source {
                DistanceSource::Table(..) => "table",
                DistanceSource::Solver => "solver",
            },
            radius: depth_counts
                .as_ref()
                .map(|c| c.len().saturating_sub(1) as u32),
            depth_counts,
            source_note,
            map: self.map_offer(shape, metric),
        })
    }

    /// A board of `shape` from `text`, in any notation the CLI reads.
    ///
    /// # Errors
    /// A [`Refusal`] with the CLI's message for a malformed board.
    pub fn board(&self, shape: Shape, text: &str) -> Result<Board, Refusal> {
        if text.len() > 1024 {
            return Err(refuse("a board of at most 1,024 characters is expected"));
        }
        Board::parse_any(shape, text).map_err(refuse)
    }

    /// The distances of `boards` (all of `table`'s shape) from `table`, checked
    /// [`Answers::intact`] after the reads.
    fn distances(
        &self,
        table: &DistanceTable,
        boards: &[Board],
    ) -> Result<Vec<Option<u32>>, Refusal> {
        let cells: Vec<&[u8]> = boards.iter().map(Board::permutation).collect();
        let depths: Result<Vec<_>, Refusal> = table
            .depths_of(&cells)
            .into_iter()
            .map(|d| d.map_err(refuse))
            .collect();
        self.intact(table.shape(), table.metric())?;
        depths
    }

    /// The heuristic `kind` for `shape` in `metric`: one that needs no table, or the walking
    /// distance (built on first use, a few milliseconds, and kept).
    ///
    /// # Errors
    /// A [`Refusal`] for a pattern database or the exact heuristic (minutes to build), or a
    /// shape too large for the walking distance.
    fn heuristic(
        &self,
        kind: HeuristicKind,
        shape: Shape,
        metric: Metric,
    ) -> Result<Heuristic, Refusal> {
        if let Some(h) = Heuristic::without_tables(kind, shape) {
            return Ok(h);
        }
        if kind != HeuristicKind::WalkingDistance {
            return Err(refuse(format!("no solver for {shape} in this metric")));
        }
        let mut walking = self
            .walking
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let table = match walking.get(&(shape, metric)) {
            Some(t) => t.clone(),
            None => {
                let t = Arc::new(WalkingDistance::new(shape, metric).map_err(refuse)?);
                walking.insert((shape, metric), t.clone());
                t
            }
        };
        Ok(Heuristic::walking_distance(table))
    }

    /// The solver's answer for `board` by `deadline` (`None`: the goal cannot reach it).
    fn search(
        &self,
        board: &Board,
        metric: Metric,
        deadline: Instant,
    ) -> Result<Option<solve::Solution>, Refusal> {
        // The pattern databases and the exact heuristic take minutes to build: the page's
        // solver uses linear conflict (single-tile) or the walking distance (multi-tile).
        let kind = match metric {
            Metric::Stm => HeuristicKind::LinearConflict,
            Metric::Mtm => HeuristicKind::WalkingDistance,
        };
        let algorithm = Algorithm::IdaStar;
        let heuristic = self.heuristic(kind, board.shape(), metric)?;
        let limits = solve::Limits {
            time_limit: Some(deadline.saturating_duration_since(Instant::now())),
            ..solve::Limits::NONE
        };
        match solve::solve(board, metric, algorithm, &heuristic, &limits) {
            Ok(s) => Ok(Some(s)),
            Err(SolveError::Unsolvable) => Ok(None),
            Err(e) => Err(refuse(e)),
        }
    }

    /// `GET /api/board`: `board`'s distance and each move's, a search ending by `deadline`.
    ///
    /// # Errors
    /// A [`Refusal`] when a search passes the deadline, or a table is damaged; as
    /// [`Answers::source`].
    pub fn board_answer(
        &self,
        board: &Board,
        metric: Metric,
        deadline: Instant,
    ) -> Result<BoardAnswer, Unanswered> {
        let shape = board.shape();
        let source = self.source(shape, metric, deadline)?;
        let targets = metric.targets(shape, board.blank());
        let distances = match source {
            DistanceSource::Table(table, _) => {
                let mut boards = vec![board.clone()];
                boards.extend(targets.iter().filter_map(|&to| board.slid(to)));
                self.distances(&table, &boards)?
            }
            // One search: the board's distance, and its solution's first move one closer (the
            // other moves' distances would cost a search each).
            DistanceSource::Solver => match self.search(board, metric, deadline)? {
                Some(s) => {
                    let d = s.length() as u32;
                    let first = blank_path(board, metric, &s.moves).first().copied();
                    std::iter::once(Some(d))
                        .chain(
                            targets
                                .iter()
                                .map(|&to| (Some(to) == first).then(|| d.saturating_sub(1))),
                        )
                        .collect()
                }
                None => vec![None; targets.len() + 1],
            },
        };
        Ok(BoardAnswer {
            tiles: board.tiles().collect(),
            label: board.label(),
            distance: distances[0],
            moves: targets
                .iter()
                .zip(&distances[1..])
                .map(|(&to, &distance)| Move { to, distance })
                .collect(),
        })
    }

    /// `GET /api/solve`: an optimal solution of `board`, a search ending by `deadline`.
    ///
    /// # Errors
    /// A [`Refusal`] for a board the goal cannot reach, or a search past the deadline; as
    /// [`Answers::source`].
    pub fn solve(
        &self,
        board: &Board,
        metric: Metric,
        deadline: Instant,
    ) -> Result<SolveAnswer, Unanswered> {
        let started = Instant::now();
        let (moves, method) = match self.source(board.shape(), metric, deadline)? {
            DistanceSource::Table(table, _) => {
                let moves = table.solve(board).map_err(refuse);
                self.intact(board.shape(), metric)?;
                (moves?, "table".to_string())
            }
            DistanceSource::Solver => (
                self.search(board, metric, deadline)?.map(|s| s.moves),
                "IDA*".to_string(),
            ),
        };
        let moves = moves.ok_or_else(|| {
            refuse("No solution possible: the board is in the other parity class from the goal")
        })?;
        Ok(SolveAnswer {
            path: blank_path(board, metric, &moves),
            length: metric.length(&moves),
            moves: metric.notation(&moves, " "),
            method,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// `GET /api/sample`: `count` boards drawn uniformly at `depth` (as `npuzzle sample`), a
    /// wait for another request's build ending by `deadline`.
    ///
    /// # Errors
    /// A [`Refusal`] without a table, for a depth with no boards, or too many boards asked;
    /// as [`Answers::source`].
    pub fn sample(
        &self,
        shape: Shape,
        metric: Metric,
        depth: u32,
        count: u64,
        seed: u64,
        deadline: Instant,
    ) -> Result<Vec<Vec<u64>>, Unanswered> {
        if count > self.limits.max_samples {
            return Err(refuse(format!(
                "count {count}: at most {} boards a request",
                self.limits.max_samples
            ))
            .into());
        }
        let DistanceSource::Table(table, _) = self.source(shape, metric, deadline)? else {
            return Err(refuse(format!(
                "sampling by depth needs a distance table of {shape}: npuzzle analyze --table"
            ))
            .into());
        };
        let boards = table.sample(depth, count, seed).map_err(refuse);
        self.intact(shape, metric)?;
        let boards = boards?;
        Ok(boards.iter().map(|b| b.tiles().collect()).collect())
    }

    /// `GET /api/random`: a board drawn uniformly among those the goal reaches.
    pub fn random(&self, shape: Shape, seed: u64) -> Vec<u64> {
        Scrambler::new(seed)
            .uniform(&Board::goal(shape))
            .tiles()
            .collect()
    }

    /// `GET /api/graph`: the boards within `radius` (1 or 2) moves of `board`
    /// ([`crate::neighbourhood::Explorer`], as `npuzzle draw` explores the goal's), a wait for
    /// another request's build ending by `deadline`.
    ///
    /// # Errors
    /// A [`Refusal`] for another radius, or as [`Answers::board_answer`].
    pub fn graph(
        &self,
        board: &Board,
        metric: Metric,
        radius: usize,
        deadline: Instant,
    ) -> Result<GraphAnswer, Unanswered> {
        if !(1..=2).contains(&radius) {
            return Err(refuse(format!("radius {radius}: 1 or 2 is expected")).into());
        }
        let shape = board.shape();
        let mut explorer = Explorer::new(metric, usize::MAX);
        explorer
            .explore(board.clone(), Some(radius as u32))
            .expect("no bound on the boards");
        let mut edges: Vec<[usize; 2]> = explorer.edges().iter().map(|&(i, j, _)| [i, j]).collect();
        edges.sort_unstable();
        let vertices = explorer.into_vertices();
        let boards: Vec<Board> = vertices.iter().map(|v| v.board.clone()).collect();
        let distances = match self.source(shape, metric, deadline)? {
            DistanceSource::Table(table, _) => self.distances(&table, &boards)?,
            // A search per board would pass the time limit: the graph's shape only.
            DistanceSource::Solver => vec![None; boards.len()],
        };
        Ok(GraphAnswer {
            nodes: boards
                .iter()
                .enumerate()
                .map(|(id, b)| GraphNode {
                    id,
                    tiles: b.tiles().collect(),
                    distance: distances[id],
                    steps: vertices[id].level as usize,
                })
                .collect(),
            edges,
        })
    }

    /// `GET /api/compare`: BFS, uniform-cost, A* and IDA* on `board`, as `solve --compare`
    /// runs them, one after the other within ONE budget: each runs until `deadline`, and
    /// those the budget does not reach are not run (a row with its error).
    ///
    /// # Errors
    /// A [`Refusal`] for a board the goal cannot reach.
    pub fn compare(
        &self,
        board: &Board,
        metric: Metric,
        deadline: Instant,
    ) -> Result<CompareAnswer, Refusal> {
        if !board.is_solvable() {
            return Err(refuse(
                "No solution possible: the board is in the other parity class from the goal",
            ));
        }
        let shape = board.shape();
        let kind = match metric {
            Metric::Stm => HeuristicKind::Manhattan,
            Metric::Mtm => HeuristicKind::WalkingDistance,
        };
        let heuristic = self.heuristic(kind, shape, metric)?;
        let name = heuristic.kind().name();
        let mut rows = Vec::new();
        for (algorithm, label) in [
            (Algorithm::Bfs, "BFS".to_string()),
            (Algorithm::Ucs, "uniform-cost".to_string()),
            (Algorithm::AStar, format!("A* + {name}")),
            (Algorithm::IdaStar, format!("IDA* + {name}")),
        ] {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                rows.push(CompareRow {
                    algorithm: label,
                    length: None,
                    expanded: None,
                    seconds: 0.0,
                    error: Some("not run: the time limit was spent".to_string()),
                });
                continue;
            }
            let limits = solve::Limits {
                max_expanded: Some(5_000_000),
                max_stored: Some(2_000_000),
                time_limit: Some(left),
            };
            let started = Instant::now();
            let result = solve::solve(board, metric, algorithm, &heuristic, &limits);
            let seconds = started.elapsed().as_secs_f64();
            rows.push(match result {
                Ok(s) => CompareRow {
                    algorithm: label,
                    length: Some(s.length()),
                    expanded: Some(s.expanded),
                    seconds,
                    error: None,
                },
                Err(e) => CompareRow {
                    algorithm: label,
                    length: None,
                    expanded: None,
                    seconds,
                    error: Some(match e {
                        SolveError::LimitReached { .. } | SolveError::TimeUp { .. } => {
                            "gave up".to_string()
                        }
                        e => e.to_string(),
                    }),
                },
            });
        }
        Ok(CompareAnswer { rows })
    }
}

/// The blank's cell after each move of `moves` (single-tile slides) from `board`: one cell
/// per slide in the single-tile metric, one per run of a direction in the multi-tile metric.
fn blank_path(board: &Board, metric: Metric, moves: &[Direction]) -> Vec<usize> {
    let shape = board.shape();
    let mut blank = board.blank();
    let mut path: Vec<usize> = Vec::with_capacity(moves.len());
    for (k, &dir) in moves.iter().enumerate() {
        blank = dir.step(shape, blank).unwrap_or(blank);
        let continues = !metric.moves_one_tile() && k > 0 && moves[k - 1] == dir;
        match (continues, path.last_mut()) {
            (true, Some(last)) => *last = blank,
            _ => path.push(blank),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    /// A build that panics fails that request only: the next request for the shape builds
    /// the table (the 2x3 puzzle's 360 boards), and the lock of the map is not poisoned.
    #[test]
    fn a_panicking_build_fails_that_build_only() {
        let answers = Answers::new(None, AnswerLimits::default()).unwrap();
        let shape = Shape::new(2, 3).unwrap();
        PANICKING_BUILDS.store(1, Ordering::SeqCst);
        let deadline = Instant::now() + Duration::from_secs(60);
        let first = answers.source(shape, Metric::Stm, deadline);
        assert_eq!(
            first.err(),
            Some(refuse("building the table of 2x3 failed").into()),
            "the panicking build"
        );
        assert!(!answers.has_table(shape, Metric::Stm));
        let Ok(DistanceSource::Table(table, None)) = answers.source(shape, Metric::Stm, deadline)
        else {
            panic!("no table after a retry");
        };
        assert_eq!(table.layers().iter().sum::<u64>(), 360);
        assert!(answers.has_table(shape, Metric::Stm));
    }

    /// Issue 73: a request waits for another request's build of its shape until its deadline
    /// only, then gets [`Unanswered::TimeUp`] (the server's 503); the build goes on, and once
    /// it ends the shape is answered from its table. The same for the one map at a time.
    #[test]
    fn a_wait_for_another_build_ends_at_the_deadline() {
        let answers = Answers::new(None, AnswerLimits::default()).unwrap();
        let shape = Shape::new(2, 3).unwrap();
        let slot = lock(&answers.tables)
            .entry((shape, Metric::Stm))
            .or_default()
            .clone();
        // Another request's build, held by the test.
        let building = slot.building.take(Instant::now()).unwrap();
        let started = Instant::now();
        let deadline = started + Duration::from_millis(200);
        assert_eq!(
            answers.source(shape, Metric::Stm, deadline).err(),
            Some(Unanswered::TimeUp)
        );
        assert_eq!(
            answers.map(shape, Metric::Stm, deadline).err(),
            Some(Unanswered::TimeUp)
        );
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(200) && waited < Duration::from_secs(2),
            "{waited:?}"
        );
        drop(building);
        let later = Instant::now() + Duration::from_secs(60);
        assert!(matches!(
            answers.source(shape, Metric::Stm, later),
            Ok(DistanceSource::Table(..))
        ));

        // A map of another shape waits for the one map at a time until its deadline only.
        let mapping = answers.mapping.take(Instant::now()).unwrap();
        let other = Shape::new(2, 4).unwrap();
        let started = Instant::now();
        let deadline = started + Duration::from_millis(200);
        assert_eq!(
            answers.map(other, Metric::Stm, deadline).err(),
            Some(Unanswered::TimeUp)
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        drop(mapping);
        let mapped = answers.map(other, Metric::Stm, later).unwrap();
        assert_eq!(mapped.depth_counts.unwrap().iter().sum::<u64>(), 20_160);
    }

    /// Issue 73: the builds on first use must fit at their peak in `map_memory` and in the
    /// memory available, whichever is less: 3x3's fit anywhere; 12 cells' (379 MB in the
    /// multi-tile metric) not in 100 MB; 2x7's (two bits a board twice, 21.9 GB) not in the
    /// default 1,000 MB however much the machine holds.
    #[test]
    fn builds_on_first_use_are_checked_against_the_memory_for_builds() {
        let limits = |build_cells, map_memory| AnswerLimits {
            build_cells,
            map_memory,
            ..AnswerLimits::default()
        };
        assert_eq!(AnswerLimits::default().check_builds(u64::MAX), Ok(()));
        assert_eq!(limits(12, 1_000_000_000).check_builds(u64::MAX), Ok(()));
        let small = limits(12, 1_000_000_000)
            .check_builds(100_000_000)
            .unwrap_err();
        assert!(small.0.contains("2x6 (mtm)"), "{small}");
        assert!(small.0.ends_with("--build 10 fits"), "{small}");
        let large = limits(14, 1_000_000_000)
            .check_builds(u64::MAX)
            .unwrap_err();
        assert!(
            large
                .0
                .starts_with("--build 14: building the table of 2x7 (stm)")
                && large.0.ends_with("--build 12 fits"),
            "{large}"
        );
        assert!(limits(14, 30_000_000_000).check_builds(u64::MAX).is_ok());
    }
}
