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
//!
//! The files, one concern each:
//! - `mod.rs`: what an analysis is ([`Analysis`], [`PerBoard`], [`Options`]) and the engine
//!   choice ([`Engine`]); [`analyze`] and [`analyze_unchecked`];
//! - `memory.rs`: the memory plan ([`plan`], [`bytes_needed`], [`available_memory`]);
//! - `whole.rs`: the whole-space BFS on one machine, on either engine, and the exact
//!   [`depth_table`] of a small board;
//! - `distributed.rs`: the same analysis across processes ([`analyze_cluster`]);
//! - `limited.rs`: the depth-limited analysis by frontier search ([`analyze_limited`], on one
//!   machine or across processes), and its disk check.

use crate::bfs::cluster::Traffic;
use crate::bfs::{self, LexSpace, ParitySpace, StateMarks, StateSpace};
use crate::board::Board;
use crate::components::{ComponentArray, Components};
use crate::distances::{DepthArray, Distances};
use crate::metric::Metric;
use crate::progress::Progress;
use crate::shape::Shape;

mod distributed;
mod limited;
mod memory;
mod whole;

pub use distributed::{analyze_cluster, check_cluster, cluster_bytes};
pub use limited::{
    Limited, Published, REFUSE_DISK_FROM, Verification, analyze_limited, analyze_limited_cluster,
    check_limited_disk, check_limited_memory, plan_limited, published_from,
};
pub use memory::{MemoryPlan, address_space_left, available_memory, bytes_needed, plan};
pub use whole::depth_table;
use whole::{analyze_lex, analyze_parity};

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
    /// other parity class by BFS as well ([`Method::Search`](crate::components::Method::Search)): a check of the parity theorem
    /// that costs a second search as long as the first. Otherwise the other class is stated
    /// ([`Method::Theorem`](crate::components::Method::Theorem)): swapping the labels of two tiles maps moves to moves, so it is
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

#[cfg(test)]
mod tests {
    use super::*;

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
