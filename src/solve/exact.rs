//! The exact table: the distance to the goal of every board of a small shape, and the
//! walk downhill that solves any board instantly and optimally.
//!
//! The table is what `analyze` computes, a breadth-first search over the whole state space
//! from the goal: one byte per board, indexed by the board's lexicographic rank
//! ([`Board::rank`]), [`UNREACHABLE`] for the boards of the other component. Up to
//! [`MAX_CELLS`] cells it fits in memory (12! = 479,001,600 bytes).
//!
//! Solving is a walk: from a board at depth `d`, some neighbour is at depth `d - 1` (the one
//! on a shortest path), so stepping to such a neighbour `d` times reaches the goal in the
//! minimum number of moves, looking up at most four ranks per step.
//!
//! The production table comes from [`exact_table`], which runs `analyze`'s BFS from the goal
//! ([`crate::analysis::depth_table`]).

use crate::board::{Board, Direction};
use crate::metric::{self, Metric};
use crate::progress::Progress;
use crate::rank;
use crate::shape::Shape;
use crate::solve::estimator::{Estimator, Slide};

/// The most cells for which an exact table is kept in memory: the lexicographic index's
/// (one byte per board of all `n!`).
pub const MAX_CELLS: usize = crate::bfs::LexSpace::MAX_CELLS;

/// The depth recorded for a board the goal cannot reach: the BFS's own
/// ([`crate::bfs::UNREACHABLE`], 0xFF), since the table is its depths.
pub use crate::bfs::UNREACHABLE;

/// Errors from making or using an exact table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExactError {
    /// The table does not fit in the memory available (the message says how much it needs).
    #[error("{0}")]
    Memory(String),
    /// Too many cells for a table in memory.
    #[error(
        "an exact table for {shape} would have {cells}! entries; at most {MAX_CELLS} cells are supported"
    )]
    TooLarge {
        /// The shape asked for.
        shape: Shape,
        /// Its cells.
        cells: usize,
    },
    /// A table whose length is not `cells!`.
    #[error("an exact table for {shape} needs {expected} entries, got {found}")]
    WrongLength {
        /// The shape.
        shape: Shape,
        /// `cells!`.
        expected: u64,
        /// Entries given.
        found: u64,
    },
    /// The goal (rank 0) is not at depth 0.
    #[error("the goal's depth is {0}, not 0: not a table of distances from the goal")]
    GoalNotZero(u8),
    /// The board is not in the goal's component (an unsolvable board).
    #[error("the board is not reachable from the goal")]
    Unreachable,
    /// No neighbour one move closer: the table is not a BFS table.
    #[error("no neighbour at depth {0} below a board at depth {next}", next = .0 + 1)]
    NoDownhill(u8),
}

/// The distance to the goal of every board of one shape (see the module documentation).
#[derive(Debug, Clone)]
pub struct ExactTable {
    shape: Shape,
    metric: Metric,
    depths: Vec<u8>,
}

impl ExactTable {
    /// A table from `depths`: `depths[rank]` is the distance of the board of lexicographic
    /// rank `rank` ([`Board::rank`]) to the goal, [`UNREACHABLE`] when it has none.
    ///
    /// # Errors
    /// [`ExactError::TooLarge`] above [`MAX_CELLS`] cells, [`ExactError::WrongLength`] unless
    /// there are `cells!` entries, [`ExactError::GoalNotZero`].
    pub fn new(shape: Shape, depths: Vec<u8>) -> Result<ExactTable, ExactError> {
        ExactTable::with_metric(shape, Metric::Stm, depths)
    }

    /// A table of distances counted in `metric`, as [`ExactTable::new`].
    ///
    /// # Errors
    /// As [`ExactTable::new`].
    pub fn with_metric(
        shape: Shape,
        metric: Metric,
        depths: Vec<u8>,
    ) -> Result<ExactTable, ExactError> {
        let cells = shape.cells();
        if cells > MAX_CELLS {
            return Err(ExactError::TooLarge { shape, cells });
        }
        let expected = rank::factorial(cells).unwrap_or(u64::MAX);
        if depths.len() as u64 != expected {
            return Err(ExactError::WrongLength {
                shape,
                expected,
                found: depths.len() as u64,
            });
        }
        if depths[0] != 0 {
            return Err(ExactError::GoalNotZero(depths[0]));
        }
        Ok(ExactTable {
            shape,
            metric,
            depths,
        })
    }

    /// The metric its distances are counted in.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The depths, indexed by rank.
    pub fn depths(&self) -> &[u8] {
        &self.depths
    }

    /// The distance of `board` (of this table's shape) to the goal, `None` when unreachable.
    pub fn depth(&self, board: &Board) -> Option<u8> {
        let d = self.depths[board.rank() as usize];
        (d != UNREACHABLE).then_some(d)
    }

    /// An optimal solution of `board` (of this table's shape) in the table's metric: the
    /// blank's single-tile slides (a multi-tile move is a run of one direction), found by
    /// walking downhill (at each step the first move, in [`Metric::targets`] order, to a
    /// board one move closer).
    ///
    /// # Errors
    /// [`ExactError::Unreachable`] for a board of the other component;
    /// [`ExactError::NoDownhill`] when the table is not a table of BFS distances.
    pub fn solve(&self, board: &Board) -> Result<Vec<Direction>, ExactError> {
        let mut cells = board.permutation().to_vec();
        let mut depth = self.depths[rank::rank(&cells) as usize];
        if depth == UNREACHABLE {
            return Err(ExactError::Unreachable);
        }
        let cols = self.shape.cols();
        let mut blank = board.blank();
        let mut moves = Vec::with_capacity(depth as usize);
        while depth > 0 {
            let step = self.metric.find_move(self.shape, &cells, blank, |next| {
                self.depths[rank::rank(next) as usize] == depth - 1
            });
            let Some((dir, to)) = step else {
                return Err(ExactError::NoDownhill(depth - 1));
            };
            metric::slide(&mut cells, blank, to, cols);
            moves.extend(std::iter::repeat_n(dir, metric::passed(cols, blank, to)));
            blank = to;
            depth -= 1;
        }
        Ok(moves)
    }
}

impl Estimator for ExactTable {
    type Memo = ();

    fn start(&self, cells: &[u8], _pos: &[u8]) -> (u32, ()) {
        (u32::from(self.depths[rank::rank(cells) as usize]), ())
    }

    #[inline(always)]
    fn after_move(&self, cells: &[u8], _: &[u8], _: Slide, _: (), _: u32) -> (u32, ()) {
        (u32::from(self.depths[rank::rank(cells) as usize]), ())
    }
}

/// The exact table of `shape` in `metric`: the BFS depths from the goal computed by
/// `analyze`'s engine ([`crate::analysis::depth_table`]), reporting each layer to
/// `progress`. Takes about 10 ms for 3x3, 0.1 s for 2x5 and several seconds for 12 cells
/// (`n!` bytes of memory; MTM about 1.6 times as long).
///
/// # Errors
/// [`ExactError::TooLarge`] above [`MAX_CELLS`] cells; [`ExactError::Memory`] when the table
/// does not fit in the memory available.
pub fn exact_table(
    shape: Shape,
    metric: Metric,
    progress: &dyn Progress,
) -> Result<ExactTable, ExactError> {
    if shape.cells() > MAX_CELLS {
        return Err(ExactError::TooLarge {
            shape,
            cells: shape.cells(),
        });
    }
    let depths = crate::analysis::depth_table(shape, metric, progress)
        .map_err(|e| ExactError::Memory(e.to_string()))?;
    ExactTable::with_metric(shape, metric, depths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::tests::distances;

    #[test]
    fn walking_downhill_is_optimal_on_every_2x3_board() {
        let shape = Shape::new(2, 3).unwrap();
        let table = ExactTable::new(shape, distances(shape)).unwrap();
        for rank in 0..720 {
            let board = Board::from_rank(shape, rank);
            match table.depth(&board) {
                Some(d) => {
                    let moves = table.solve(&board).unwrap();
                    assert_eq!(moves.len(), d as usize);
                    assert_eq!(
                        crate::solve::replay(&board, &moves),
                        Some(Board::goal(shape))
                    );
                }
                None => {
                    assert!(!board.is_solvable());
                    assert_eq!(table.solve(&board), Err(ExactError::Unreachable));
                }
            }
        }
    }

    #[test]
    fn bad_tables_are_refused() {
        let shape = Shape::new(2, 2).unwrap();
        assert!(matches!(
            ExactTable::new(shape, vec![0; 23]),
            Err(ExactError::WrongLength { expected: 24, .. })
        ));
        assert_eq!(
            ExactTable::new(shape, vec![1; 24]).err(),
            Some(ExactError::GoalNotZero(1))
        );
        // All zeros: no board is one move closer than a board at depth 0, but a "depth" of
        // 3 with no neighbour at 2 is caught.
        let mut depths = vec![0u8; 24];
        let b = Board::parse_tiles(shape, "1 2 0 3").unwrap();
        depths[b.rank() as usize] = 3;
        let table = ExactTable::new(shape, depths).unwrap();
        assert_eq!(table.solve(&b), Err(ExactError::NoDownhill(2)));
        assert!(matches!(
            exact_table(Shape::new(4, 4).unwrap(), Metric::Stm, &crate::NoProgress),
            Err(ExactError::TooLarge { .. })
        ));
        // The production table: the goal at 0, an antipode of OEIS A089473 at 31.
        let table =
            exact_table(Shape::new(3, 3).unwrap(), Metric::Stm, &crate::NoProgress).unwrap();
        let antipode = Board::parse_tiles(table.shape(), "8 6 7 2 5 4 3 0 1").unwrap();
        assert_eq!(table.depth(&antipode), Some(31));
        assert_eq!(table.solve(&antipode).unwrap().len(), 31);
    }
}
