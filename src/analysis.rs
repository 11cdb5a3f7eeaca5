//! The whole analysis of one board: the memory plan, BFS distances from a goal, connected
//! components, and (on request) the depth and component of every board.
//!
//! Which engine ([`crate::bfs`]) runs is decided here, in one place ([`Engine::for_shape`]):
//!
//! - a board with at least 2 rows and 2 columns runs on the parity index
//!   ([`ParitySpace`], the goal's component, `n!/2` boards), as far as memory allows (the index
//!   itself goes to 20 cells); memory: `n!/16` bytes of two-bit marks, plus `n!/2` bytes when
//!   per-board results are kept (at most 12 cells, the size of `nodes.csv`'s ranks);
//! - a one-row or one-column board runs on the lexicographic index ([`LexSpace`], all `n!`
//!   boards, at most 12 cells): `n!/4` bytes, plus `5 * n!` per board.
//!
//! [`plan`] checks that against the memory available before anything is allocated, and is the
//! one place that says how large a board can be analyzed.

use indicatif::{DecimalBytes, HumanCount};

use crate::bfs::cluster::{self, Cluster, ClusterError, Job, Traffic};
use crate::bfs::{self, LexSpace, Parity, ParitySpace, StateMarks, StateSpace};
use crate::board::Board;
use crate::components::{self, ComponentArray, Components, Method};
use crate::distances::{self, DepthArray, Distances};
use crate::metric::Metric;
use crate::progress::Progress;
use crate::shape::Shape;

/// Up to this many cells, components can be found by search of both parity classes
/// ([`Options::search_components`]); otherwise (and always above it) the second component is
/// stated (see [`crate::components`]). It is also the largest board whose per-board results
/// (`nodes.csv`) and whole edge list are written: their ranks are lexicographic ranks over
/// all `n!` boards, kept in `u32`.
pub const SEARCH_CELLS: usize = LexSpace::MAX_CELLS;

/// Up to this many cells a one-row board's components are found by search (checking the
/// theorem: `(n-1)!` paths of `n` boards); above it they are stated, unless per-board results
/// (which label every board with its component) or [`Options::search_components`] are asked
/// for.
pub const LINE_SEARCH_CELLS: usize = 10;

/// What [`analyze`] keeps beyond the summary figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Keep the depth and component of every board (needed for `nodes.csv`).
    pub per_board: bool,
    /// What one move is (the spaces' kernel); the components are the same in both metrics.
    pub metric: Metric,
    /// Keep a distance table: where [`table_from_marks`] holds, the finished marks
    /// ([`Analysis::marked`], at no extra memory); elsewhere the per-board depths (as
    /// [`Options::per_board`]).
    pub table: bool,
    /// On boards of at least 2 rows and 2 columns up to [`SEARCH_CELLS`] cells, explore the
    /// other parity class by BFS as well ([`Method::Search`]): a check of the parity theorem
    /// that costs a second search as long as the first. Otherwise the other class is stated
    /// ([`Method::Theorem`]): swapping the labels of two tiles maps moves to moves, so it is
    /// an automorphism of the game graph that exchanges the classes, and the other class is a
    /// copy of the goal's, which the goal's BFS explores whole. One-row boards: searched up
    /// to [`LINE_SEARCH_CELLS`] cells either way, and up to [`SEARCH_CELLS`] with this.
    pub search_components: bool,
}

/// Whether a distance table of `shape` in `metric` is the BFS's own marks
/// ([`bfs::Marking::Depths`]): in the single-tile metric on the parity index (at least 2 rows
/// and 2 columns), whose game graph is bipartite with the side shown by the index. Elsewhere
/// (the multi-tile metric, one-row boards) a table is made from per-board depths, up to
/// [`SEARCH_CELLS`] cells.
pub fn table_from_marks(shape: Shape, metric: Metric) -> bool {
    metric.is_bipartite() && Engine::for_shape(shape) == Some(Engine::Parity)
}

/// The largest layer a distance table of `boards` boards lists board by board:
/// `max(boards / 2^15, min(2^16, boards / 2^8))`, so that drawing from a larger layer takes
/// at most `2^15` tries on average (`2^8` on small boards), and the lists stay small beside
/// the codes (3x3: layers of at most 708 boards; 3x4: 65,536; 2x7: 1,330,235). A table made
/// from the marks lists at most [`bfs::list_limit`] boards a layer.
pub fn rare_limit(boards: u64) -> u64 {
    (boards >> 15).max((1u64 << 16).min(boards >> 8))
}

/// The finished marks of the goal's BFS under [`bfs::Marking::Depths`]: a distance table in
/// memory ([`crate::table`] writes it).
pub struct TableMarks {
    /// The index of the goal's class.
    pub space: ParitySpace,
    /// Two bits a board: `2 + (d / 2) % 2` for a board at depth `d` (see
    /// [`bfs::Marking::Depths`]).
    pub marks: StateMarks,
    /// The boards of every layer of at most `limit` boards, by depth, ascending.
    pub listed: Vec<(u32, Vec<bfs::StateIndex>)>,
    /// The largest layer listed.
    pub limit: u64,
}

/// Why a board cannot be analyzed here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalyzeError {
    /// The dense index does not fit in memory, or the engines do not support the shape.
    #[error("{0}")]
    TooLarge(String),
    /// A depth-limited search's scratch or checkpoint folder failed, or its checkpoint is
    /// another search's.
    #[error("{0}")]
    Storage(String),
    /// The flags of a depth-limited search cannot work: `--resume` with nothing to resume
    /// from, a `--memory` budget too small for one chunk.
    #[error("{0}")]
    Refused(String),
    /// The memory plan let the run through, but an array could not be allocated.
    #[error(transparent)]
    OutOfMemory(#[from] bfs::OutOfMemory),
    /// The progress sink asked to stop ([`Progress::stop_requested`]) and the BFS did, after
    /// a layer; nothing was kept.
    #[error(transparent)]
    Interrupted(#[from] crate::progress::Interrupted),
}

/// The engine that runs a shape: the index its BFS ranks the boards in, which is also how
/// per-board results ([`PerBoard::layout`]) and a distance table ([`crate::table`], whose
/// header stores the discriminant: 1 or 2) index them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Engine {
    /// The parity index of the goal's class ([`ParitySpace`]): `n!/2` boards, on boards of at
    /// least 2 rows and 2 columns.
    Parity = 1,
    /// The lexicographic rank over all boards ([`LexSpace`], [`crate::rank`]): all `n!`
    /// boards, on one-row boards.
    Lex = 2,
}

impl Engine {
    /// The engine for `shape`, or `None` when no engine supports it (a line of more than 12
    /// cells, or more than 20 cells).
    pub fn for_shape(shape: Shape) -> Option<Engine> {
        if shape.is_grid() {
            (shape.cells() <= ParitySpace::MAX_CELLS).then_some(Engine::Parity)
        } else {
            (shape.cells() <= LexSpace::MAX_CELLS).then_some(Engine::Lex)
        }
    }

    /// Boards in this engine's index for a board of `cells` cells.
    fn index_size(self, cells: usize) -> Option<u64> {
        let all = crate::rank::factorial(cells)?;
        Some(match self {
            Engine::Parity => all / 2,
            Engine::Lex => all,
        })
    }
}

/// The memory a run needs, checked against what is available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryPlan {
    /// Bytes the run will allocate (dominant terms).
    pub bytes: u64,
    /// Bytes available on this machine when planned.
    pub available: u64,
}

/// Bytes an analysis of `shape` needs with `options` (the dominant terms: marks, layer lists,
/// the buckets of bucketed claims, per-board arrays), or `None` when no engine supports it.
pub fn bytes_needed(shape: Shape, options: Options) -> Option<u64> {
    let engine = Engine::for_shape(shape)?;
    if options.per_board && shape.cells() > SEARCH_CELLS {
        return None;
    }
    let size = engine.index_size(shape.cells())?;
    let marks = size.div_ceil(4);
    let lists = bfs::list_limit(size) as u64 * 2 * 8 + bfs::Claims::configured().memory();
    let per_board = match (options.per_board, engine) {
        (false, _) => 0,
        (true, Engine::Parity) => size,
        (true, Engine::Lex) => size.checked_mul(5)?,
    };
    marks.checked_add(lists)?.checked_add(per_board)
}

/// Bytes of memory this process can still use: the least of what the OS reports as available
/// (`MemAvailable`), what its cgroup's memory limit leaves (the limit less the cgroup's
/// anonymous memory; page cache is reclaimable), and what its address-space limit
/// (`RLIMIT_AS`, `ulimit -v`) leaves beyond the address space it maps now. `u64::MAX` when
/// none of them is known (then the allocation itself is the check).
pub fn available_memory() -> u64 {
    let (os, cgroup) = match sysinfo::System::new() {
        Ok(mut sys) => {
            sys.refresh_memory();
            let os = match sys.available_memory() {
                0 => u64::MAX,
                bytes => bytes,
            };
            let cgroup = sys
                .cgroup_limits()
                .map_or(u64::MAX, |c| c.total_memory.saturating_sub(c.rss));
            (os, cgroup)
        }
        Err(_) => (u64::MAX, u64::MAX),
    };
    os.min(cgroup).min(address_space_left())
}

/// What `RLIMIT_AS` leaves of the address space beyond what this process maps now (its
/// `VmSize`), or `u64::MAX` when it is unlimited or cannot be read.
#[allow(clippy::unnecessary_cast)] // rlim_t is u32 on 32-bit Linux
pub fn address_space_left() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit through a valid pointer.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
            || limit.rlim_cur == libc::RLIM_INFINITY
        {
            return u64::MAX;
        }
        // The first field of /proc/self/statm: the pages mapped.
        let mapped = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok());
        // SAFETY: sysconf only reads a constant.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
        match mapped {
            Some(pages) => (limit.rlim_cur as u64).saturating_sub(pages * page),
            None => limit.rlim_cur as u64,
        }
    }
    #[cfg(not(target_os = "linux"))]
    u64::MAX
}

/// Checks that `shape` can be analyzed with `options` in `available` bytes.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] with the bytes needed and the largest boards that fit, when no
/// engine supports the shape or it needs more than `available` bytes.
pub fn plan(shape: Shape, options: Options, available: u64) -> Result<MemoryPlan, AnalyzeError> {
    let cells = shape.cells();
    let needed = bytes_needed(shape, options);
    if let Some(bytes) = needed
        && bytes <= available
    {
        return Ok(MemoryPlan { bytes, available });
    }
    let fits = |s: Shape| bytes_needed(s, options).is_some_and(|b| b <= available);
    let largest = (2..=ParitySpace::MAX_CELLS)
        .rev()
        .map(|c| shapes_with(c, fits))
        .find(|names| !names.is_empty());
    let fits = match largest {
        Some(names) => format!("the largest boards that fit: {}", names.join(", ")),
        None => "no board fits".to_string(),
    };
    let boards = match shape.board_count() {
        Some(b) => HumanCount(b).to_string(),
        None => format!("{cells}!"),
    };
    let reachable = match shape.board_count() {
        Some(b) if shape.rows() > 1 && shape.cols() > 1 => {
            format!(", {} reachable from the goal", HumanCount(b / 2))
        }
        _ => String::new(),
    };
    let need = match (Engine::for_shape(shape), needed) {
        (Some(_), Some(b)) => format!(
            "{} of memory, {} available",
            DecimalBytes(b),
            DecimalBytes(available)
        ),
        (Some(_), None) if options.per_board => {
            format!("per-board results (nodes.csv), which are written up to {SEARCH_CELLS} cells")
        }
        (None, _) if shape.rows() == 1 || shape.cols() == 1 => format!(
            "a one-line board's index of all {cells}! boards, kept up to {} cells",
            LexSpace::MAX_CELLS
        ),
        _ => format!(
            "an index of {cells}!/2 boards, beyond the {} cells a 64-bit index holds",
            ParitySpace::MAX_CELLS
        ),
    };
    let onward = match (Engine::for_shape(shape), needed) {
        (Some(Engine::Parity), Some(_)) => format!(
            "; search it layer by layer to a chosen depth with {}, or spread the marks over \
             several machines with {} (see the README)",
            crate::frontend::arg(crate::frontend::Input::MaxDepth, "D"),
            crate::frontend::arg(crate::frontend::Input::Processes, "N")
        ),
        _ => String::new(),
    };
    Err(AnalyzeError::TooLarge(format!(
        "{shape} has {boards} boards{reachable}; analyzing it needs {need}; {fits}{onward}"
    )))
}

/// The rectangular shapes of `cells` cells for which `fits` holds, e.g. `3x4, 4x3, 2x6, 6x2`.
fn shapes_with(cells: usize, fits: impl Fn(Shape) -> bool) -> Vec<String> {
    let mut shapes: Vec<Shape> = (1..=cells)
        .filter(|r| cells % r == 0)
        .filter_map(|r| Shape::new(r, cells / r).ok())
        .filter(|&s| fits(s))
        .collect();
    shapes.sort_by_key(|s| {
        let (r, c) = (s.rows(), s.cols());
        (r.min(c) == 1, r.abs_diff(c), r > c)
    });
    shapes.iter().map(Shape::to_string).collect()
}

/// Per-board results: the depth and component of every board.
pub struct PerBoard {
    lookup: Lookup,
}

enum Lookup {
    /// Depths of the goal's class by parity index; the other class is component 1.
    Parity {
        space: ParitySpace,
        depths: DepthArray,
    },
    /// Depths and component ids by lexicographic rank.
    Lex {
        depths: DepthArray,
        components: ComponentArray,
    },
}

impl PerBoard {
    /// How the boards are indexed, and how many there are.
    pub fn layout(&self) -> (Engine, u64) {
        match &self.lookup {
            Lookup::Parity { space, .. } => (Engine::Parity, space.size()),
            Lookup::Lex { components, .. } => (Engine::Lex, components.len()),
        }
    }

    /// The depth of the board of index `index` in [`PerBoard::layout`], `None` when the goal
    /// cannot reach it.
    #[inline]
    pub fn depth_at(&self, index: u64) -> Option<u8> {
        match &self.lookup {
            Lookup::Parity { depths, .. } | Lookup::Lex { depths, .. } => {
                depths.get(bfs::StateIndex(index))
            }
        }
    }

    /// Whether a board lies deeper than [`DepthArray::MAX_DEPTH`], whose depth these results
    /// cannot hold (never on the boards that keep per-board results; the exports refuse it).
    pub fn overflowed(&self) -> bool {
        match &self.lookup {
            Lookup::Parity { depths, .. } | Lookup::Lex { depths, .. } => depths.overflowed(),
        }
    }

    /// The component id (0 = the goal's) and the depth from the goal (`None` when the goal
    /// cannot reach it) of the board whose internal permutation is `cells` and whose
    /// lexicographic rank is `rank` (both given: the exports have both at hand).
    #[inline]
    pub fn get(&self, cells: &[u8], rank: u64) -> (u32, Option<u8>) {
        match &self.lookup {
            Lookup::Parity { space, depths } => match space.locate(cells) {
                Some(i) => (0, depths.get(i)),
                None => (1, None),
            },
            Lookup::Lex { depths, components } => {
                let i = bfs::StateIndex(rank);
                (components.get(i), depths.get(i))
            }
        }
    }
}

/// Everything [`analyze`] computes for one board.
pub struct Analysis {
    /// The shape analyzed.
    pub shape: Shape,
    /// The goal the distances are measured from.
    pub goal: Board,
    /// What one move is.
    pub metric: Metric,
    /// All boards, `n!`.
    pub boards: u64,
    /// Undirected edges of the whole game graph in [`Analysis::metric`] ([`edge_count`]).
    pub edges: u64,
    /// BFS from the goal.
    pub distances: Distances,
    /// Connected components, the goal's included.
    pub components: Components,
    /// Per-board depth and component, when [`Options::per_board`].
    pub per_board: Option<PerBoard>,
    /// The marks kept as a distance table, when [`Options::table`] and [`table_from_marks`].
    pub marked: Option<TableMarks>,
    /// Work and network volume, when the run was distributed ([`analyze_cluster`]).
    pub traffic: Option<Traffic>,
    /// A distributed run wrote the distance table itself (process 0 streamed the marks to
    /// the sink given to [`analyze_cluster`]).
    pub table_written: bool,
}

impl Analysis {
    /// The analysis of `goal`'s shape from its parts (the board and edge counts derived).
    fn new(
        goal: &Board,
        metric: Metric,
        distances: Distances,
        components: Components,
        per_board: Option<PerBoard>,
        traffic: Option<Traffic>,
    ) -> Analysis {
        let shape = goal.shape();
        Analysis {
            shape,
            goal: goal.clone(),
            metric,
            boards: shape.board_count().unwrap_or(0),
            edges: edge_count(shape, metric).unwrap_or(0),
            distances,
            components,
            per_board,
            marked: None,
            traffic,
            table_written: false,
        }
    }
}

/// Undirected edges of the whole game graph of `shape` in `metric` (`None` on overflow):
/// [`Shape::edge_count`] in STM; in MTM every board has `(rows - 1) + (cols - 1)`
/// neighbours, so `n! ((rows - 1) + (cols - 1)) / 2`.
pub fn edge_count(shape: Shape, metric: Metric) -> Option<u64> {
    match metric {
        Metric::Stm => shape.edge_count(),
        Metric::Mtm => {
            let boards = u128::from(shape.board_count()?);
            u64::try_from(boards * metric.degree(shape) as u128 / 2).ok()
        }
    }
}

/// Analyzes the game graph of `goal`'s shape: BFS from `goal`, then the components.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] as [`plan`], checked against [`available_memory`] before any
/// allocation.
pub fn analyze(
    goal: &Board,
    options: Options,
    progress: &dyn Progress,
) -> Result<Analysis, AnalyzeError> {
    plan(goal.shape(), options, available_memory())?;
    analyze_unchecked(goal, options, progress)
}

/// [`analyze`] without the memory plan (the caller has called [`plan`]).
///
/// # Errors
/// [`AnalyzeError::OutOfMemory`] when an array cannot be allocated after all.
///
/// # Panics
/// When no engine supports the shape, or per-board results are asked above
/// [`SEARCH_CELLS`] cells.
pub fn analyze_unchecked(
    goal: &Board,
    options: Options,
    progress: &dyn Progress,
) -> Result<Analysis, AnalyzeError> {
    let shape = goal.shape();
    let engine = Engine::for_shape(shape).expect("a shape the engines support (see plan)");
    let ((distances, components, per_board), marked) = match engine {
        Engine::Parity => analyze_parity(goal, options, progress)?,
        Engine::Lex => (analyze_lex(goal, options, progress)?, None),
    };
    let mut analysis = Analysis::new(goal, options.metric, distances, components, per_board, None);
    analysis.marked = marked;
    Ok(analysis)
}

/// Bytes one process of `cluster` needs to analyze `shape` with `options` (its share of the
/// marks, the exchange buffers, the other processes' lists received and not yet claimed
/// ([`cluster::received_bound`]), and on process 0 the gathered per-board depths), or `None`
/// when the distributed engine does not run the shape (per-board results of a one-row board
/// need component ids, which only the one-machine engine records).
pub fn cluster_bytes(shape: Shape, options: Options, cluster: &Cluster) -> Option<u64> {
    let engine = Engine::for_shape(shape)?;
    if options.per_board && (shape.cells() > SEARCH_CELLS || engine == Engine::Lex) {
        return None;
    }
    let size = engine.index_size(shape.cells())?;
    let share = size.div_ceil(cluster.processes.max(1) as u64);
    let marks = share.div_ceil(4);
    let buffers = (cluster.workers as u64) * (cluster.tuning.send_budget as u64) * 2;
    // The other processes' lists received and not yet claimed (their credit).
    let received = cluster::received_bound(cluster, options.metric.degree(shape));
    let per_board = match (options.per_board, cluster.process) {
        (false, _) => 0,
        (true, 0) => share + 2 * size,
        (true, _) => share,
    };
    // Process 0 gathers a window of the table and its messages.
    let table = match (options.table, cluster.process) {
        (true, 0) => 2 * cluster.tuning.table_window,
        _ => 0,
    };
    marks
        .checked_add(buffers)?
        .checked_add(received)?
        .checked_add(per_board)?
        .checked_add(table)
}

/// Whether this process of `cluster` can analyze `shape` with `options`: the shape is one
/// the distributed engine runs with those options, and its share fits in the memory
/// available ([`cluster_bytes`]). Called by [`analyze_cluster`], and by the command line
/// before it makes any folder.
///
/// # Errors
/// [`ClusterError::Config`] saying why not.
pub fn check_cluster(
    shape: Shape,
    options: Options,
    cluster: &Cluster,
) -> Result<(), ClusterError> {
    if options.search_components && Engine::for_shape(shape) == Some(Engine::Lex) {
        return Err(ClusterError::Config(format!(
            "the components of one-row boards are searched on one machine; run {shape} \
             without --search-components, or without --processes and --workers"
        )));
    }
    let Some(bytes) = cluster_bytes(shape, options, cluster) else {
        return Err(ClusterError::Config(match Engine::for_shape(shape) {
            Some(Engine::Lex) if options.table => format!(
                "the distance tables of one-row boards are made on one machine; run {shape} \
                 without --processes and --workers"
            ),
            Some(Engine::Lex) => format!(
                "per-board results (nodes.csv) of one-row boards are computed on one machine \
                 only; run {shape} with --nodes none, or without --processes and --workers"
            ),
            Some(Engine::Parity) if options.per_board => format!(
                "per-board results (nodes.csv) are kept up to {SEARCH_CELLS} cells; run {shape} \
                 with --nodes none"
            ),
            _ => format!(
                "the distributed engine runs boards up to {} cells ({} in one row); {shape} \
                 is not one",
                ParitySpace::MAX_CELLS,
                LexSpace::MAX_CELLS
            ),
        }));
    };
    let available = available_memory();
    if bytes > available {
        return Err(ClusterError::Config(format!(
            "process {} of {} needs {} of memory for its share of {shape}, {} available; \
             use more processes",
            cluster.process,
            cluster.processes,
            DecimalBytes(bytes),
            DecimalBytes(available)
        )));
    }
    Ok(())
}

/// [`analyze_unchecked`] spread over the processes and workers of `cluster` (the distributed
/// driver, [`bfs::cluster`]): the same figures. Returns the analysis on process 0 and `None`
/// on the others, once every process is done. One-row boards: their components are counted
/// by the theorem ((n-1)! paths of n boards), not searched one by one over the network.
///
/// With [`Options::table`] where [`table_from_marks`], the goal's BFS keeps each board's depth
/// in the marks ([`bfs::Marking::Depths`]) and process 0 streams the finished marks, gathered
/// from every process in index order, to `table` (from [`crate::table::Spool`]: one
/// `table.npt`, the same bytes as the one-machine run's); [`Analysis::table_written`] says
/// it did. (Other tables are made from the gathered per-board depths, as on one machine.)
///
/// # Errors
/// [`ClusterError::Config`] when this process's share does not fit in the memory available or
/// the shape is not one the distributed engine runs; the other [`ClusterError`]s of
/// [`cluster::run`].
pub fn analyze_cluster(
    goal: &Board,
    options: Options,
    cluster: &Cluster,
    progress: &dyn Progress,
    table: Option<Box<dyn cluster::MarksSink>>,
) -> Result<Option<Analysis>, ClusterError> {
    let shape = goal.shape();
    check_cluster(shape, options, cluster)?;
    let search_rest = options.search_components && shape.cells() <= SEARCH_CELLS;
    let marks_table = options.table && table_from_marks(shape, options.metric);
    let outcome = match Engine::for_shape(shape) {
        Some(Engine::Parity) => {
            let class = Parity::of(goal);
            let spaces = [class, class.flipped()]
                .into_iter()
                .filter_map(|c| ParitySpace::with_metric(shape, c, options.metric))
                .collect::<Vec<_>>();
            let size = spaces.first().map_or(0, ParitySpace::size);
            let job = Job {
                spaces,
                goal: goal.clone(),
                metric: options.metric,
                per_board: options.per_board,
                search_rest,
                marking: match marks_table {
                    true => bfs::Marking::Depths,
                    false => bfs::Marking::Frontier,
                },
                listed: rare_limit(size),
            };
            cluster::run(cluster, job, progress, table.filter(|_| marks_table))?
        }
        _ => {
            let space =
                LexSpace::with_metric(shape, options.metric).expect("checked by cluster_bytes");
            let job = Job {
                spaces: vec![space],
                goal: goal.clone(),
                metric: options.metric,
                per_board: false,
                search_rest: false,
                marking: bfs::Marking::Frontier,
                listed: 0,
            };
            cluster::run(cluster, job, progress, None)?
        }
    };
    let Some(outcome) = outcome else {
        return Ok(None);
    };
    let distances = Distances {
        layer_sizes: outcome.layer_sizes,
        antipodes: outcome.antipodes,
    };
    let mut components = Components::default();
    match Engine::for_shape(shape) {
        Some(Engine::Parity) if search_rest => {
            for &size in &outcome.components {
                components.add(size);
            }
        }
        Some(Engine::Parity) => {
            components.method = Method::Theorem;
            components.add(distances.reachable());
            components.add(distances.reachable());
        }
        _ => components = Components::of_line(shape),
    }
    let per_board = outcome.depths.map(|raw| PerBoard {
        lookup: Lookup::Parity {
            space: ParitySpace::with_metric(shape, Parity::of(goal), options.metric)
                .expect("a grid"),
            depths: DepthArray::from_raw_bytes(raw),
        },
    });
    let mut analysis = Analysis::new(
        goal,
        options.metric,
        distances,
        components,
        per_board,
        Some(outcome.traffic),
    );
    analysis.table_written = outcome.table_written;
    Ok(Some(analysis))
}

/// What a depth-limited analysis ([`analyze_limited`]) adds to an [`Analysis`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    /// The depth limit asked for.
    pub max_depth_searched: u32,
    /// True when the search ran out of boards before the limit (the radius is below it): the
    /// distances are then those of the whole component, as [`analyze`] would give them. A
    /// search that stops exactly at the radius cannot know it and says false.
    pub complete: bool,
    /// Largest number of bytes of layers held in memory at once.
    pub peak_bytes: u64,
    /// The depth of the checkpoint the search resumed from, if it did.
    pub resumed_from: Option<u32>,
    /// Why the search stopped before the limit (memory budget, disk), if it did; the depth
    /// searched is then the last layer it finished.
    pub stopped: Option<String>,
    /// Boards per chunk expanded at once.
    pub chunk: usize,
    /// The most runs merged at once (`--fan-in`).
    pub fan_in: usize,
    /// Runs written by merges before the last one of a layer, all layers together: 0 when no
    /// layer had more runs than the fan-in.
    pub merges: u64,
    /// With `--checkpoint`: bytes of checkpoint this run wrote (the layer files and the
    /// search's state), and the time spent writing them, checksums and syncs included.
    pub saved_bytes: u64,
    /// See [`Limited::saved_bytes`].
    pub save_time: std::time::Duration,
    /// Processes the search ran on ([`analyze_limited_cluster`]; 1 on one machine).
    pub processes: usize,
    /// Boards expanded, by every process together.
    pub expanded: u64,
    /// Bytes of messages sent between processes, by every process together (0 on one
    /// machine).
    pub sent_bytes: u64,
    /// Per layer this run built: its depth, the boards expanded to build it and the bytes
    /// sent meanwhile, by every process together
    /// ([`bfs::frontier::Frontier::traffic_by_depth`]).
    pub traffic_by_depth: Vec<(u32, u64, u64)>,
}

/// The depth distribution from `goal` in `metric` up to depth `max_depth`, by frontier search
/// ([`bfs::frontier`]): no whole-space marks, three layers live, so any board of up to 20
/// cells (the index's limit) can be searched as deep as memory and time allow. `storage`:
/// where the layers and the runs of the layer being built go (memory, a scratch folder), and
/// the checkpoint folder to save the search to after each layer or resume it from (its
/// [`bfs::frontier::CheckpointAt::run`] is filled in from `goal`), and the memory budget. The
/// plan (memory, chunk, where the layers go) is told to `progress` first
/// ([`Progress::note`]). The components are stated (parity theorem for grids; `(n-1)!` components of `n` boards for a line); the antipodes are the boards of
/// the last layer reached, all of them when at most 1,000 (by lexicographic rank), else the
/// first 1,000 in index order.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] when no engine indexes the shape; [`AnalyzeError::Storage`]
/// when a folder fails or holds another search's checkpoint;
/// [`AnalyzeError::Refused`].
pub fn analyze_limited(
    goal: &Board,
    metric: Metric,
    max_depth: u32,
    storage: &bfs::frontier::Storage,
    progress: &dyn Progress,
) -> Result<(Analysis, Limited), AnalyzeError> {
    limited(goal, metric, max_depth, storage, progress, None)
        .map(|found| found.expect("one machine gives its result"))
}

/// [`analyze_limited`] across the processes of `cluster` (the frontier search across
/// processes, [`cluster::frontier`]): each process keeps its share of the layers in its own
/// `storage` (its checkpoint labelled with its process and the number of processes), and
/// uses a rayon pool of `cluster.workers` threads. The same analysis as one machine's on
/// process 0 (its [`Limited`] with the traffic of every process), `None` on the others.
///
/// # Errors
/// As [`analyze_limited`]; a peer's failure or refusal is [`AnalyzeError::Storage`] (or
/// [`AnalyzeError::Refused`] for flags that cannot work).
pub fn analyze_limited_cluster(
    goal: &Board,
    metric: Metric,
    max_depth: u32,
    storage: &bfs::frontier::Storage,
    cluster: &Cluster,
    progress: &dyn Progress,
) -> Result<Option<(Analysis, Limited)>, AnalyzeError> {
    limited(goal, metric, max_depth, storage, progress, Some(cluster))
}

/// [`analyze_limited`] on one machine (`cluster` `None`) or across processes.
fn limited(
    goal: &Board,
    metric: Metric,
    max_depth: u32,
    storage: &bfs::frontier::Storage,
    progress: &dyn Progress,
    cluster: Option<&Cluster>,
) -> Result<Option<(Analysis, Limited)>, AnalyzeError> {
    let shape = goal.shape();
    let mut storage = storage.clone();
    if let Some(c) = &mut storage.checkpoint {
        c.run = bfs::frontier::RunLabel {
            board: shape.to_string(),
            goal: goal.label(),
            metric: metric.name().into(),
            process: cluster.map_or(0, |c| c.process),
            processes: cluster.map_or(1, |c| c.processes),
        };
    }
    let too_large = || beyond_the_index(shape);
    plan_limited(shape)?;
    check_limited_disk(
        goal,
        metric,
        max_depth,
        &storage,
        cluster.map_or(1, |c| c.processes),
    )?;
    // (when the last layer was built, the sizes of the last two layers)
    let mut last_layer = (std::time::Instant::now(), 0u64, 0u64);
    // The complete distribution, when published for this board from its standard goal: the
    // time left is then the boards left to expand at the last layer's rate.
    let published = (*goal == Board::goal(shape))
        .then(|| bfs::frontier::plan::published(shape, metric))
        .flatten();
    progress.begin("layers", u64::from(max_depth), "layers");
    let mut report = |r: bfs::frontier::LayerReport| {
        let now = std::time::Instant::now();
        let seconds = now.duration_since(last_layer.0).as_secs_f64().max(1e-9);
        let rate = r.size as f64 / seconds;
        // Layers grow about geometrically: extrapolate the remaining time with the growth
        // factor over the last two layers (some boards alternate between two factors).
        let growth = if last_layer.2 > 0 {
            (r.size as f64 / last_layer.2 as f64).sqrt()
        } else if last_layer.1 > 0 {
            r.size as f64 / last_layer.1 as f64
        } else {
            1.0
        };
        let remaining = max_depth.saturating_sub(r.depth);
        let eta: f64 = match &published {
            // (checked against the layer built, so that another start never uses it)
            Some(sizes) if sizes.get(r.depth as usize) == Some(&r.size) && last_layer.1 > 0 => {
                // Layers r.depth to the last one before the end are still to expand.
                let last = (sizes.len() - 1).min(max_depth as usize);
                let left: u64 = sizes
                    .get(r.depth as usize..last)
                    .map_or(0, |s| s.iter().sum());
                seconds * left as f64 / last_layer.1 as f64
            }
            _ => (1..=remaining.min(64))
                .map(|k| seconds * growth.powi(k as i32))
                .sum(),
        };
        last_layer = (now, r.size, last_layer.1);
        progress.update(
            u64::from(r.depth),
            &format!(
                "depth {}: {} boards, {}, {} in memory, {} on disk{}{}{}{}, about {} more",
                r.depth,
                HumanCount(r.size),
                // The first report (depth 0, or the layer a search resumed from) has no rate.
                if r.chunks == 0 {
                    "the start".to_string()
                } else {
                    format!("{}/s", HumanCount(rate as u64))
                },
                DecimalBytes(r.bytes_in_memory),
                DecimalBytes(r.bytes_on_disk),
                r.disk_free
                    .map(|f| format!(" ({} free)", DecimalBytes(f)))
                    .unwrap_or_default(),
                // The disk at the last depth asked for, grown as the layers grow (when near).
                if r.bytes_on_disk > 0 && r.chunks > 0 && (1..=16).contains(&remaining) {
                    format!(
                        ", about {} at depth {max_depth}",
                        DecimalBytes(
                            (r.bytes_on_disk as f64 * growth.powi(remaining.min(64) as i32))
                                .min(1e18) as u64
                        )
                    )
                } else {
                    String::new()
                },
                // Runs merged in several passes (more chunks than the fan-in).
                if r.merges > 0 {
                    format!(", {} runs merged in {} passes", r.chunks, r.levels + 1)
                } else {
                    String::new()
                },
                // Across processes: this process's messages.
                if r.sent_bytes + r.received_bytes > 0 {
                    format!(
                        ", sent {} ({:.2} B per board expanded), received {}",
                        DecimalBytes(r.sent_bytes),
                        r.sent_bytes as f64 / r.expanded.max(1) as f64,
                        DecimalBytes(r.received_bytes)
                    )
                } else {
                    String::new()
                },
                if r.chunks == 0 {
                    "?".to_string()
                } else {
                    // Capped: a limit far beyond the radius extrapolates to centuries.
                    indicatif::HumanDuration(std::time::Duration::from_secs_f64(eta.min(1e9)))
                        .to_string()
                }
            ),
        );
    };
    let search = Search {
        goal,
        metric,
        max_depth,
        storage: &storage,
        progress,
        cluster,
    };
    let (frontier, labels, components) = match Engine::for_shape(shape) {
        Some(Engine::Parity) | None if shape.is_grid() => {
            let space =
                ParitySpace::with_metric(shape, Parity::of(goal), metric).ok_or_else(too_large)?;
            let Some((f, boards)) = search_from(space.clone(), &search, &mut report)? else {
                progress.end();
                return Ok(None);
            };
            let mut c = Components {
                method: Method::Theorem,
                ..Components::default()
            };
            c.add(space.size());
            c.add(space.size());
            (f, boards, c)
        }
        Some(Engine::Lex) => {
            let space = LexSpace::with_metric(shape, metric).ok_or_else(too_large)?;
            let Some((f, boards)) = search_from(space, &search, &mut report)? else {
                progress.end();
                return Ok(None);
            };
            (f, boards, Components::of_line(shape))
        }
        _ => return Err(too_large()),
    };
    progress.end();
    let last_size = frontier.layer_sizes.last().copied().unwrap_or(0);
    let mut antipodes = labels;
    if last_size as usize <= bfs::frontier::LAST_LISTED {
        antipodes.sort_by_cached_key(Board::rank);
    }
    let limited = Limited {
        max_depth_searched: if frontier.stopped.is_some() {
            (frontier.layer_sizes.len() - 1) as u32
        } else {
            max_depth
        },
        complete: frontier.complete,
        peak_bytes: frontier.peak_bytes,
        resumed_from: frontier.resumed_from,
        stopped: frontier.stopped,
        chunk: frontier.chunk,
        fan_in: frontier.fan_in,
        merges: frontier.merges,
        saved_bytes: frontier.saved_bytes,
        save_time: frontier.save_time,
        processes: cluster.map_or(1, |c| c.processes),
        expanded: frontier.expanded,
        sent_bytes: frontier.sent_bytes,
        traffic_by_depth: frontier.traffic_by_depth,
    };
    Ok(Some((
        Analysis::new(
            goal,
            metric,
            Distances {
                layer_sizes: frontier.layer_sizes,
                antipodes,
            },
            components,
            None,
            None,
        ),
        limited,
    )))
}

/// What [`search_from`] searches, besides the space.
struct Search<'a> {
    goal: &'a Board,
    metric: Metric,
    max_depth: u32,
    storage: &'a bfs::frontier::Storage,
    progress: &'a dyn Progress,
    cluster: Option<&'a Cluster>,
}

/// A frontier search's error as the analysis's.
fn frontier_error(e: bfs::frontier::FrontierError) -> AnalyzeError {
    match e {
        bfs::frontier::FrontierError::NothingToResume(m)
        | bfs::frontier::FrontierError::Budget(m) => AnalyzeError::Refused(m),
        bfs::frontier::FrontierError::Interrupted => {
            AnalyzeError::Interrupted(crate::progress::Interrupted)
        }
        e => AnalyzeError::Storage(e.to_string()),
    }
}

/// Projected disk needs below this are left to the search's own check before each layer,
/// which stops a small search cleanly within seconds: 1 GiB.
pub const REFUSE_DISK_FROM: u64 = 1 << 30;

/// Refuses, before it starts, a depth-limited search ([`analyze_limited`]) from the standard
/// goal with its layers on disk (`storage`'s checkpoint or scratch folder) whose disk cannot
/// hold the widest projected layer with its runs ([`bfs::frontier::plan`]: the published layer
/// sizes and the measured rates): when the projection needs at least [`REFUSE_DISK_FROM`] and
/// more than the bytes free in the folder (or its nearest existing parent) plus the bytes of
/// the files already in it (a checkpoint resumed); across `processes` processes, each
/// process's share of the layers and runs on its own disk. Nothing is refused without a projection
/// (another goal, a board without a published distribution), with the layers in memory, or
/// when the free space is unknown.
///
/// # Errors
/// [`AnalyzeError::Refused`], one line with the bytes needed and free.
pub fn check_limited_disk(
    goal: &Board,
    metric: Metric,
    max_depth: u32,
    storage: &bfs::frontier::Storage,
    processes: usize,
) -> Result<(), AnalyzeError> {
    let shape = goal.shape();
    let dir = match (&storage.checkpoint, &storage.scratch) {
        (Some(c), _) => c.dir.as_path(),
        (None, Some(s)) => s.as_path(),
        (None, None) => return Ok(()),
    };
    if *goal != Board::goal(shape) {
        return Ok(());
    }
    let Some(projection) = bfs::frontier::plan::disk_needed(
        shape,
        metric,
        max_depth,
        u32::try_from(processes).unwrap_or(u32::MAX),
        storage.memory.unwrap_or_else(available_memory),
        storage.checkpoint.is_some(),
    ) else {
        return Ok(());
    };
    let needed = projection.peak_disk;
    if needed < REFUSE_DISK_FROM {
        return Ok(());
    }
    let existing = dir.ancestors().find(|d| d.is_dir());
    let Some(free) = existing.and_then(bfs::frontier::disk_free) else {
        return Ok(());
    };
    let held: u64 = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    if needed <= free.saturating_add(held) {
        return Ok(());
    }
    Err(AnalyzeError::Refused(format!(
        "{shape} to depth {} needs about {} of disk in {} (building depth {}: its layers and \
         runs, projected from the published layer sizes and the measured rates of \
         output/bench/plan), and {} {} free there: give a folder on a larger disk, or a \
         smaller depth limit",
        projection.depth,
        DecimalBytes(needed),
        dir.display(),
        projection.peak_disk_depth,
        DecimalBytes(free.saturating_add(held)),
        if held > 0 { "are held or" } else { "are" },
    )))
}

/// Checks that a depth-limited search ([`analyze_limited`]) can index `shape`.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] for a grid of more than 20 cells or a line of more than 12.
pub fn plan_limited(shape: Shape) -> Result<(), AnalyzeError> {
    let indexed = if shape.is_grid() {
        ParitySpace::new(shape, Parity::Even).is_some()
    } else {
        LexSpace::new(shape).is_some()
    };
    if indexed {
        Ok(())
    } else {
        Err(beyond_the_index(shape))
    }
}

fn beyond_the_index(shape: Shape) -> AnalyzeError {
    AnalyzeError::TooLarge(format!(
        "{shape} is beyond the index: boards of at least 2 rows and 2 columns up to {} cells, \
         lines up to {}",
        ParitySpace::MAX_CELLS,
        LexSpace::MAX_CELLS
    ))
}

/// The frontier search of `space` from `goal` (which it holds), its plan told to `progress`
/// first and its warnings passed on; with the last layer's listed boards.
/// Across processes: the search on process 0, `None` on the others.
fn search_from<S: StateSpace + Clone + Send + Sync + 'static>(
    space: S,
    search: &Search<'_>,
    mut report: impl FnMut(bfs::frontier::LayerReport),
) -> Result<Option<(bfs::frontier::Frontier, Vec<Board>)>, AnalyzeError> {
    let (storage, progress) = (search.storage, search.progress);
    let seed = space.rank(search.goal).expect("the goal is in its space");
    let config = bfs::frontier::FrontierConfig {
        fan_in: storage.fan_in.unwrap_or(bfs::frontier::FAN_IN),
        chunk: storage.chunk.unwrap_or(bfs::frontier::CHUNK),
        ..bfs::frontier::FrontierConfig::default()
    }
    .within(&space, storage.memory)
    .map_err(frontier_error)?;
    progress.note(&frontier_plan(&space, storage, config));
    let f = match search.cluster {
        None => bfs::frontier::search_stored(
            &space,
            seed,
            search.max_depth,
            storage,
            config,
            report,
            progress,
        )
        .map_err(frontier_error)?,
        Some(c) => {
            let job = cluster::FrontierJob {
                space: space.clone(),
                goal: search.goal.clone(),
                metric: search.metric,
                max_depth: search.max_depth,
                storage: storage.clone(),
                config,
            };
            match cluster::frontier(c, job, progress, &mut report) {
                Ok(Some(f)) => f,
                Ok(None) => return Ok(None),
                Err(ClusterError::Config(m)) => return Err(AnalyzeError::Refused(m)),
                Err(ClusterError::Interrupted) => {
                    return Err(AnalyzeError::Interrupted(crate::progress::Interrupted));
                }
                Err(e) => return Err(AnalyzeError::Storage(e.to_string())),
            }
        }
    };
    let boards = f.last.iter().map(|&i| space.unrank(i)).collect();
    Ok(Some((f, boards)))
}

/// One line: the memory a depth-limited search of `space` with `config` (fitted to the
/// budget) will use and where its layers go.
fn frontier_plan<S: StateSpace>(
    space: &S,
    storage: &bfs::frontier::Storage,
    config: bfs::frontier::FrontierConfig,
) -> String {
    let per_board = bfs::frontier::chunk_bytes_per_board(space);
    let chunk = config.chunk as u64;
    let budget = match storage.memory {
        Some(m) => format!("a memory budget of {}", DecimalBytes(m)),
        None => "no memory budget".into(),
    };
    let dir = storage
        .checkpoint
        .as_ref()
        .map(|c| c.dir.as_path())
        .or(storage.scratch.as_deref());
    let layers = match dir {
        Some(d) => format!(
            "layers on disk in {}{}",
            d.display(),
            bfs::frontier::disk_free(d)
                .map(|f| format!(" ({} free)", DecimalBytes(f)))
                .unwrap_or_default()
        ),
        None => "layers in memory".into(),
    };
    format!(
        "plan: {budget}; chunks of up to {} boards, about {} with the buffers; {layers}",
        HumanCount(chunk),
        DecimalBytes(chunk * per_board + bfs::frontier::RESERVE)
    )
}

/// What an engine gives [`analyze_unchecked`].
type Parts = (Distances, Components, Option<PerBoard>);

fn analyze_parity(
    goal: &Board,
    options: Options,
    progress: &dyn Progress,
) -> Result<(Parts, Option<TableMarks>), AnalyzeError> {
    let shape = goal.shape();
    let class = Parity::of(goal);
    let space = ParitySpace::with_metric(shape, class, options.metric)
        .expect("a board of 2 rows and 2 columns or more");
    let depths = match options.per_board {
        true => Some(DepthArray::try_new(space.size())?),
        false => None,
    };
    let marks = StateMarks::try_new(space.size())?;
    let keep = options.table && table_from_marks(shape, options.metric);
    let marking = match keep {
        true => (bfs::Marking::Depths, rare_limit(space.size())),
        false => (bfs::Marking::Frontier, 0),
    };
    let (distances, listed) = match &depths {
        Some(d) => distances::from_goal_marked(&space, &marks, goal, d, progress, marking)?,
        None => distances::from_goal_marked(&space, &marks, goal, &(), progress, marking)?,
    };
    let reachable = distances.reachable();
    let mut components = Components::default();
    components.add(reachable);
    let mut marks = Some(marks);
    if options.search_components && shape.cells() <= SEARCH_CELLS {
        // The rest of the goal's class (nothing, by the theorem), then the other class.
        let goal_marks = marks.as_ref().expect("the marks");
        let rest = components::find_rest(&space, goal_marks, 1, None, reachable, progress);
        if !keep {
            // Before the other class's marks are allocated.
            marks = None;
        }
        let other = ParitySpace::with_metric(shape, class.flipped(), options.metric)
            .expect("the same shape");
        let other_marks = StateMarks::try_new(other.size())?;
        let found = components::find_rest(&other, &other_marks, 1, None, 0, progress);
        for (&size, &count) in rest.sizes.iter().chain(&found.sizes) {
            for _ in 0..count {
                components.add(size);
            }
        }
    } else {
        components.method = Method::Theorem;
        components.add(space.size());
    }
    let marked = marks.filter(|_| keep).map(|marks| TableMarks {
        space: space.clone(),
        marks,
        listed,
        limit: marking.1.min(bfs::list_limit(space.size()) as u64),
    });
    let per_board = depths.map(|depths| PerBoard {
        lookup: Lookup::Parity { space, depths },
    });
    Ok(((distances, components, per_board), marked))
}

fn analyze_lex(
    goal: &Board,
    options: Options,
    progress: &dyn Progress,
) -> Result<Parts, AnalyzeError> {
    let space = LexSpace::with_metric(goal.shape(), options.metric).expect("at most 12 cells");
    let marks = StateMarks::try_new(space.size())?;
    let per_board = match options.per_board {
        true => Some((
            DepthArray::try_new(space.size())?,
            ComponentArray::try_new(space.size())?,
        )),
        false => None,
    };
    let distances = match &per_board {
        Some((depths, _)) => distances::from_goal(&space, &marks, goal, depths, progress)?,
        None => distances::from_goal(&space, &marks, goal, &(), progress)?,
    };
    let reachable = distances.reachable();
    let search = per_board.is_some() || options.search_components;
    let components = if !search && goal.shape().cells() > LINE_SEARCH_CELLS {
        // One BFS per path took 6.6 s on 1x11 and about 80 s on 1x12 (39.9 million
        // components) for a figure the theorem states.
        Components::of_line(goal.shape())
    } else {
        let mut found = components::find_rest(
            &space,
            &marks,
            1,
            per_board.as_ref().map(|(_, c)| c),
            reachable,
            progress,
        );
        found.add(reachable);
        found
    };
    let per_board = per_board.map(|(depths, components)| PerBoard {
        lookup: Lookup::Lex { depths, components },
    });
    Ok((distances, components, per_board))
}

/// The depth of every board from the goal in `metric`, one byte per lexicographic rank
/// ([`distances::UNREACHABLE`] outside the goal's component): the exact table of a shape of at
/// most 12 cells, for walking downhill to the goal.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] when the table (`n!` bytes plus the marks) does not fit, or the
/// shape has more than 12 cells.
pub fn depth_table(
    shape: Shape,
    metric: Metric,
    progress: &dyn Progress,
) -> Result<Vec<u8>, AnalyzeError> {
    let Some(space) = LexSpace::with_metric(shape, metric) else {
        return Err(AnalyzeError::TooLarge(format!(
            "an exact table of {shape} would have {}! entries; it is built up to {} cells",
            shape.cells(),
            LexSpace::MAX_CELLS
        )));
    };
    let bytes = space.size() + space.size() / 4;
    let available = available_memory();
    if bytes > available {
        return Err(AnalyzeError::TooLarge(format!(
            "an exact table of {shape} needs {} of memory, {} available",
            DecimalBytes(bytes),
            DecimalBytes(available)
        )));
    }
    let marks = StateMarks::try_new(space.size())?;
    let depths = DepthArray::try_new(space.size())?;
    distances::from_goal(&space, &marks, &Board::goal(shape), &depths, progress)?;
    Ok(depths.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_refuses_big_boards_with_the_numbers() {
        let big = Shape::new(4, 4).unwrap();
        let err = plan(big, Options::default(), 24_000_000_000)
            .unwrap_err()
            .to_string();
        assert!(err.contains("10,461,394,944,000 reachable"), "{err}");
        assert!(
            err.contains("the largest boards that fit: 2x7, 7x2"),
            "{err}"
        );
        assert!(err.contains("--processes"), "{err}");
        let small = plan(Shape::new(3, 4).unwrap(), Options::default(), 50_000_000).unwrap_err();
        assert!(small.to_string().contains("fit: 1x11, 11x1"), "{small}");
        assert!(plan(Shape::new(3, 3).unwrap(), Options::default(), 1 << 30).is_ok());
        let line = plan(Shape::new(1, 13).unwrap(), Options::default(), u64::MAX).unwrap_err();
        assert!(line.to_string().contains("up to 12 cells"), "{line}");
        let nodes = plan(
            Shape::new(2, 7).unwrap(),
            Options {
                per_board: true,
                ..Options::default()
            },
            u64::MAX,
        );
        assert!(
            nodes.unwrap_err().to_string().contains("nodes.csv"),
            "per-board results stop at 12 cells"
        );
    }

    #[test]
    fn engines_by_shape() {
        let e = |r, c| Engine::for_shape(Shape::new(r, c).unwrap());
        assert_eq!(e(3, 3), Some(Engine::Parity));
        assert_eq!(e(2, 7), Some(Engine::Parity));
        assert_eq!(e(1, 12), Some(Engine::Lex));
        assert_eq!(e(13, 1), None);
        assert_eq!(e(3, 7), None);
    }
}
