//! Optimal solutions for single boards: from the 8-puzzle assignment to random 15-puzzles.
//!
//! A move slides one tile into the blank; a solution is the list of the blank's moves
//! ([`Direction`]), and an optimal one has the fewest moves. In the multi-tile metric
//! ([`Metric::Mtm`]) a move slides 1 to `k` tiles of a row or column, and a solution is still
//! written as single-tile slides, each run of one direction one move ([`Solution::length`],
//! [`Solution::notation`]: `R2 D U3`). Unsolvable boards are told apart
//! by parity ([`Board::is_solvable`]) before any search and reported as
//! [`SolveError::Unsolvable`].
//!
//! - [`search`]: the algorithms, [`bfs`], [`ucs`] (uniform-cost search), [`astar`] (A*,
//!   Hart, Nilsson & Raphael 1968) and [`idastar`] (IDA*, Korf 1985), and [`solve`] to pick
//!   one by name.
//! - [`heuristic`]: the lower bounds A* and IDA* use: Hamming, Manhattan distance, linear
//!   conflict, walking distance ([`walking`]), pattern databases, the exact table.
//! - [`domain`]: the multi-tile metric's pattern databases (domain abstractions of the whole
//!   board, searched with MTM moves).
//! - [`pdb`]: additive disjoint pattern databases (Korf & Felner 2002; Felner, Korf &
//!   Hanan 2004).
//! - [`pattern_space`]: a pattern's abstract state space, searched by the engine's layer
//!   driver to build its database.
//! - [`cache`]: the only part of `solve` that touches files: pattern databases stored in a
//!   cache folder with a checksum.
//! - [`exact`]: the exact table (the BFS depths of `analyze`) and its walk downhill.
//! - [`goal`]: solving toward any goal board ([`solve_toward`]): the board flipped and its
//!   tiles renamed so that the heuristics of the standard goal serve.
//! - [`input`]: reading boards: the assignment's file format, flat lists, batch lines.
//! - [`wide`]: boards over 64 cells (the assignment's `N x N` up to 127 x 127), their tiles
//!   in `u16`, solved by IDA* with Manhattan distance and linear conflict.
//!
//! ```
//! use npuzzle::{Board, Metric, Shape};
//! use npuzzle::solve::{self, Algorithm, Heuristic, Limits};
//!
//! let shape = Shape::square(3).unwrap();
//! let board = Board::parse_tiles(shape, "0 1 3 / 4 2 5 / 7 8 6").unwrap();
//! let heuristic = Heuristic::manhattan(shape);
//! let solution =
//!     solve::solve(&board, Metric::Stm, Algorithm::AStar, &heuristic, &Limits::NONE).unwrap();
//! assert_eq!(solution.length(), 4);
//! assert_eq!(solve::replay(&board, &solution.moves), Some(Board::goal(shape)));
//! ```

pub mod cache;
pub mod domain;
mod estimator;
pub mod exact;
pub mod goal;
pub mod heuristic;
pub mod input;
pub mod pattern_space;
pub mod pdb;
pub mod search;
pub mod walking;
pub mod wide;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::board::{Board, Direction};
use crate::metric::Metric;
use crate::shape::Shape;

pub use goal::Goal;
pub use heuristic::Heuristic;
pub use search::{astar, bfs, idastar, solve, solve_toward, ucs};

/// A search algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Breadth-first search: every board at distance `d` before any at `d + 1`; the goal is
    /// recognised when generated. Keeps every board seen.
    Bfs,
    /// Uniform-cost search (Dijkstra's algorithm; with unit move costs, a bucket queue):
    /// boards in order of distance from the start; the goal is recognised when dequeued.
    Ucs,
    /// A*: boards in order of `g + h` (moves so far plus the heuristic), with a closed set;
    /// optimal with an admissible heuristic (Hart, Nilsson & Raphael 1968).
    AStar,
    /// IDA*: depth-first searches bounded by `g + h`, the bound raised to the smallest value
    /// that exceeded it; never undoes the previous move. Memory: the current path only
    /// (Korf 1985).
    IdaStar,
}

impl Algorithm {
    /// All four, in the order `bfs ucs astar idastar`.
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Bfs,
        Algorithm::Ucs,
        Algorithm::AStar,
        Algorithm::IdaStar,
    ];

    /// The name on the command line: `bfs`, `ucs`, `astar`, `idastar`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Bfs => "bfs",
            Algorithm::Ucs => "ucs",
            Algorithm::AStar => "astar",
            Algorithm::IdaStar => "idastar",
        }
    }

    /// Whether it uses a heuristic (A* and IDA*).
    pub fn uses_heuristic(self) -> bool {
        matches!(self, Algorithm::AStar | Algorithm::IdaStar)
    }

    /// Whether it keeps every board it sees (BFS, UCS, A*), so that its memory grows with
    /// the search.
    pub fn stores_boards(self) -> bool {
        !matches!(self, Algorithm::IdaStar)
    }
}

/// A heuristic, by name (see [`heuristic`] for what each one is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeuristicKind {
    /// Misplaced tiles.
    Hamming,
    /// Manhattan distance.
    Manhattan,
    /// Manhattan distance plus linear conflicts.
    LinearConflict,
    /// Walking distance (Takahashi): admissible in both metrics.
    WalkingDistance,
    /// Additive disjoint pattern databases.
    Pdb,
    /// The exact table of `analyze`.
    Exact,
}

impl HeuristicKind {
    /// All six, weakest first.
    pub const ALL: [HeuristicKind; 6] = [
        HeuristicKind::Hamming,
        HeuristicKind::Manhattan,
        HeuristicKind::LinearConflict,
        HeuristicKind::WalkingDistance,
        HeuristicKind::Pdb,
        HeuristicKind::Exact,
    ];

    /// The name on the command line: `hamming`, `manhattan`, `linear-conflict`,
    /// `walking-distance`, `pdb`, `exact`.
    pub fn name(self) -> &'static str {
        match self {
            HeuristicKind::Hamming => "hamming",
            HeuristicKind::Manhattan => "manhattan",
            HeuristicKind::LinearConflict => "linear-conflict",
            HeuristicKind::WalkingDistance => "walking-distance",
            HeuristicKind::Pdb => "pdb",
            HeuristicKind::Exact => "exact",
        }
    }

    /// Whether it can solve in `metric`: all in STM; in MTM walking distance, the exact table
    /// and `pdb`, which there means the MTM pattern databases ([`domain`]: additive ones count
    /// single-tile moves). Hamming, Manhattan and linear conflict can overestimate in MTM: one
    /// multi-tile move can lower them by more than one.
    pub fn admissible_in(self, metric: Metric) -> bool {
        metric.moves_one_tile()
            || matches!(
                self,
                HeuristicKind::WalkingDistance | HeuristicKind::Pdb | HeuristicKind::Exact
            )
    }
}

/// An unknown algorithm or heuristic name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{name}' (expected one of: {expected})")]
pub struct UnknownName {
    what: &'static str,
    name: String,
    expected: String,
}

fn parse_name<T: Copy>(
    name: &str,
    what: &'static str,
    all: &[T],
    name_of: fn(T) -> &'static str,
) -> Result<T, UnknownName> {
    all.iter()
        .copied()
        .find(|&x| name_of(x) == name)
        .ok_or_else(|| UnknownName {
            what,
            name: name.to_string(),
            expected: all
                .iter()
                .map(|&x| name_of(x))
                .collect::<Vec<_>>()
                .join(", "),
        })
}

impl FromStr for Algorithm {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Algorithm, UnknownName> {
        parse_name(s, "algorithm", &Algorithm::ALL, Algorithm::name)
    }
}

impl FromStr for HeuristicKind {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<HeuristicKind, UnknownName> {
        parse_name(s, "heuristic", &HeuristicKind::ALL, HeuristicKind::name)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for HeuristicKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The fastest optimal method for `shape` that needs no exact table: IDA* with pattern
/// databases up to 16 cells (built on first use and cached: instantly up to 3x3, seconds for
/// 3x4, half a minute for the 4x4 6-6-3 databases), IDA* with linear conflict above.
///
/// In the multi-tile metric: the walk down the exact table of the MTM BFS up to
/// [`MTM_EXACT_CELLS`] cells (built in under a second), IDA* with the MTM pattern databases
/// up to 16 cells ([`domain`]: 0.06 s for a 3x4 board, where the exact table takes 21 s and
/// 1 GB; `--heuristic exact` still builds it up to [`exact::MAX_CELLS`]), with walking
/// distance above.
pub fn default_method(shape: Shape, metric: Metric) -> (Algorithm, HeuristicKind) {
    if !metric.moves_one_tile() {
        let kind = if shape.cells() <= MTM_EXACT_CELLS {
            HeuristicKind::Exact
        } else if shape.cells() <= pdb::MAX_CELLS {
            HeuristicKind::Pdb
        } else {
            HeuristicKind::WalkingDistance
        };
        return (Algorithm::IdaStar, kind);
    }
    if shape.cells() <= pdb::MAX_CELLS {
        (Algorithm::IdaStar, HeuristicKind::Pdb)
    } else {
        (Algorithm::IdaStar, HeuristicKind::LinearConflict)
    }
}

/// The most cells for which `solve --metric mtm` walks the exact table by default.
pub const MTM_EXACT_CELLS: usize = 10;

/// Caps on a search, so that a hopeless one stops instead of running out of time or memory.
/// The default has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Stop after this many boards are expanded.
    pub max_expanded: Option<u64>,
    /// Stop when BFS, UCS or A* hold this many boards (open plus closed).
    pub max_stored: Option<u64>,
    /// Stop once the search has run this long (checked every few thousand expansions).
    pub time_limit: Option<std::time::Duration>,
}

impl Limits {
    /// No caps.
    pub const NONE: Limits = Limits {
        max_expanded: None,
        max_stored: None,
        time_limit: None,
    };
}

/// An optimal solution and what it cost to find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// The metric it is optimal in.
    pub metric: Metric,
    /// The blank's single-tile slides, from the start to the goal. In STM each is a move; in
    /// MTM each run of one direction is one move ([`Metric::length`]).
    pub moves: Vec<Direction>,
    /// Boards expanded: taken from the open list (BFS, UCS, A*, the goal included when it is
    /// dequeued) or visited within the bound (IDA*, all iterations).
    pub expanded: u64,
    /// Boards generated: the start, then every child made by a move other than the one back
    /// to the parent, whether or not it is kept or pruned (IDA*: over all iterations, each
    /// iteration's start included). The "nodes generated" of Korf's papers.
    pub generated: u64,
    /// Wall-clock time of the search (tables already built).
    pub elapsed: Duration,
    /// The most boards held at once: open plus closed (BFS, UCS, A*), or the deepest path
    /// (IDA*).
    pub peak_nodes: u64,
    /// An estimate of the memory those boards took, in bytes.
    pub peak_bytes: u64,
}

impl Solution {
    /// Its length in its metric: the fewest moves (see [`Metric::length`]).
    pub fn length(&self) -> usize {
        self.metric.length(&self.moves)
    }

    /// Its moves in its metric's notation (`R D L` or `R2 D U3`, [`Metric::notation`]).
    pub fn notation(&self, separator: &str) -> String {
        self.metric.notation(&self.moves, separator)
    }
}

/// Why a board was not solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The goal cannot be reached (the permutation has the wrong parity, or on a one-wide
    /// board the tiles are out of order). Found without searching. Not a failure of the
    /// solver: it is the answer.
    #[error("no solution possible")]
    Unsolvable,
    /// The heuristic was prepared for another shape.
    #[error("the heuristic is for {heuristic} boards, the board is {board}")]
    ShapeMismatch {
        /// The board's shape.
        board: Shape,
        /// The heuristic's shape.
        heuristic: Shape,
    },
    /// The goal ([`solve_toward`]) is a board of another shape.
    #[error("the goal is a {goal} board, the board is {board}")]
    GoalShape {
        /// The board's shape.
        board: Shape,
        /// The goal's shape.
        goal: Shape,
    },
    /// The heuristic bounds moves of another metric than the search's, or is not admissible
    /// in it.
    #[error(
        "the {kind} heuristic {why}; in the {wanted} metric use walking-distance, pdb or exact",
        why = if .kind.admissible_in(Metric::Mtm) {
            format!("was made for the {} metric", .made.long_name())
        } else {
            "counts single-tile moves and can overestimate multi-tile ones".to_string()
        },
        wanted = .wanted.long_name()
    )]
    MetricMismatch {
        /// The heuristic.
        kind: HeuristicKind,
        /// The metric it was made for.
        made: Metric,
        /// The metric of the search.
        wanted: Metric,
    },
    /// A distance table could not answer (a damaged table, or a board of another shape).
    #[error("{0}")]
    Table(String),
    /// BFS, UCS and A* pack a board in 128 bits, which holds at most 25 cells.
    #[error(
        "{algorithm} keeps every board in memory and supports at most {max} cells, not {shape}; \
         use {instead}",
        instead = crate::frontend::arg(crate::frontend::Input::Algorithm, "idastar")
    )]
    TooLarge {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The board's shape.
        shape: Shape,
        /// The most cells supported.
        max: usize,
    },
    /// A heuristic that boards over 64 cells ([`wide`]) do not have: they are solved with
    /// Manhattan distance or linear conflict.
    #[error(
        "the {kind} heuristic is not available for boards over 64 cells; use linear-conflict \
         (the default) or manhattan"
    )]
    WideHeuristic {
        /// The heuristic asked for.
        kind: HeuristicKind,
    },
    /// A cap of [`Limits`] was reached before the goal.
    #[error("stopped after {expanded} boards expanded ({stored} held) without reaching the goal")]
    LimitReached {
        /// Boards expanded so far.
        expanded: u64,
        /// Boards held at the time (0 for IDA*).
        stored: u64,
    },
    /// [`Limits::time_limit`] passed before the goal was reached.
    #[error(
        "stopped after {seconds} s (the time limit) and {expanded} boards expanded without \
         reaching the goal; no solution is shorter than {bound} moves"
    )]
    TimeUp {
        /// The limit, in whole seconds.
        seconds: u64,
        /// Boards expanded so far.
        expanded: u64,
        /// A lower bound on the solution's length proven so far (the last bound IDA* finished,
        /// or the heuristic's estimate of the start).
        bound: u32,
    },
}

/// `board` after the blank makes `moves`, or `None` if a move leaves the board.
pub fn replay(board: &Board, moves: &[Direction]) -> Option<Board> {
    moves.iter().try_fold(board.clone(), |b, &dir| b.moved(dir))
}

/// The moves as letters separated by spaces (`R D L U`); `separator` between them.
pub fn move_letters(moves: &[Direction], separator: &str) -> String {
    let letters: Vec<String> = moves.iter().map(|d| d.letter().to_string()).collect();
    letters.join(separator)
}

#[cfg(test)]
pub(crate) mod tests {
    //! Shared test oracles: a plain whole-space BFS, written for the tests only.

    use super::*;
    use crate::rank;
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};

    /// The distance to the goal of every board of `shape` (indexed by rank, `u8::MAX` for the
    /// other component), by a plain BFS from the goal. Cached per shape.
    pub(crate) fn distances(shape: Shape) -> Vec<u8> {
        static CACHE: OnceLock<Mutex<HashMap<Shape, Vec<u8>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        if let Some(d) = cache.lock().unwrap().get(&shape) {
            return d.clone();
        }
        let n = shape.cells();
        let total = rank::factorial(n).unwrap() as usize;
        let mut depth = vec![u8::MAX; total];
        depth[0] = 0;
        let mut frontier = vec![0u64];
        let mut cells = vec![0u8; n];
        let mut d = 0u8;
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &r in &frontier {
                rank::unrank(r, &mut cells);
                let blank = cells.iter().position(|&v| v as usize == n - 1).unwrap();
                for to in shape.adjacent(blank) {
                    cells.swap(blank, to);
                    let child = rank::rank(&cells);
                    cells.swap(blank, to);
                    if depth[child as usize] == u8::MAX {
                        depth[child as usize] = d + 1;
                        next.push(child);
                    }
                }
            }
            frontier = next;
            d += 1;
        }
        cache.lock().unwrap().insert(shape, depth.clone());
        depth
    }

    /// The distance from `goal` of every board of `shape` (at most 12 cells) in `metric`,
    /// indexed by rank (`u8::MAX` outside the goal's component): the library's BFS from the
    /// goal, as `analyze --goal` runs it.
    pub(crate) fn distances_from(shape: Shape, metric: Metric, goal: &Board) -> Vec<u8> {
        use crate::bfs::{LexSpace, StateIndex, StateMarks, StateSpace};
        use crate::distances::{DepthArray, from_goal};
        let space = LexSpace::with_metric(shape, metric).expect("at most 12 cells");
        let marks = StateMarks::new(space.size());
        let depths = DepthArray::new(space.size());
        from_goal(&space, &marks, goal, &depths, &crate::NoProgress).expect("never stopped");
        (0..space.size())
            .map(|i| depths.get(StateIndex(i)).unwrap_or(u8::MAX))
            .collect()
    }

    #[test]
    fn names_round_trip() {
        for a in Algorithm::ALL {
            assert_eq!(a.name().parse::<Algorithm>(), Ok(a));
        }
        for h in HeuristicKind::ALL {
            assert_eq!(h.to_string().parse::<HeuristicKind>(), Ok(h));
        }
        let err = "dfs".parse::<Algorithm>().unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown algorithm 'dfs' (expected one of: bfs, ucs, astar, idastar)"
        );
    }

    /// The test BFS reproduces the published depth distribution of 3x3 (OEIS A089473: 181,440
    /// reachable boards, radius 31, two antipodes).
    #[test]
    fn oracle_matches_oeis_a089473() {
        let d = distances(Shape::square(3).unwrap());
        assert_eq!(d.iter().filter(|&&x| x != u8::MAX).count(), 181_440);
        assert_eq!(d.iter().filter(|&&x| x == 31).count(), 2);
        assert_eq!(d.iter().filter(|&&x| x != u8::MAX).max(), Some(&31));
    }
}
