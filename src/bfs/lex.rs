//! [`LexSpace`]: every board of a shape (both components, `n!` of them) by lexicographic Lehmer
//! rank, up to 12 cells (ranks fit in `u32`). Its kernel is [`crate::moves`]' neighbour rank
//! by Lehmer-digit deltas.
//!
//! It is the engine of the one-row and one-column boards, whose game graph splits into
//! `(n-1)!` paths, and the independent check of the component structure that
//! [`super::ParitySpace`] takes from theory: a BFS over all `n!` boards assumes nothing.

use super::{StateIndex, StateSpace};
use crate::board::Board;
use crate::metric::Metric;
use crate::moves::{self, MoveTable};
use crate::rank;
use crate::shape::Shape;

/// All `n!` boards of a shape of at most [`LexSpace::MAX_CELLS`] cells; the index of a board
/// is its lexicographic rank ([`crate::rank`]), so the goal is index 0.
#[derive(Debug, Clone)]
pub struct LexSpace {
    shape: Shape,
    size: u64,
    moves: MoveTable,
    metric: Metric,
    /// MTM: per blank cell, the cells it jumps to ([`Metric::targets`]).
    targets: Vec<Vec<usize>>,
}

impl LexSpace {
    /// The largest board: `12!` is the last factorial below `2^32`.
    pub const MAX_CELLS: usize = 12;

    /// The space of `shape` in the single-tile metric, or `None` above [`Self::MAX_CELLS`]
    /// cells.
    pub fn new(shape: Shape) -> Option<LexSpace> {
        LexSpace::with_metric(shape, Metric::Stm)
    }

    /// [`LexSpace::new`] with the moves of `metric`.
    pub fn with_metric(shape: Shape, metric: Metric) -> Option<LexSpace> {
        (shape.cells() <= Self::MAX_CELLS).then(|| LexSpace {
            shape,
            size: shape.board_count().unwrap_or(0),
            moves: MoveTable::new(shape),
            metric,
            targets: (0..shape.cells())
                .map(|b| metric.targets(shape, b))
                .collect(),
        })
    }

    /// The multi-tile kernel: each target's board is made (the tiles between the blank and
    /// the target shifted one cell toward the blank) and ranked from scratch, `O(n)` per
    /// neighbour; slots in the order of [`Metric::targets`], padded with `NONE`.
    fn expand_mtm<const N: usize>(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        let cols = self.shape.cols();
        let degree = self.degree();
        for &StateIndex(r) in batch {
            let (perm, _) = rank::unrank_array::<N>(r as u32);
            let blank = perm.iter().position(|&v| v as usize == N - 1).unwrap_or(0);
            let start = out.len();
            for &to in &self.targets[blank] {
                let mut next = perm;
                crate::metric::slide(&mut next, blank, to, cols);
                out.push(StateIndex(rank::rank_array::<N>(&next)));
            }
            out.resize(start + degree, StateIndex::NONE);
        }
    }

    fn expand_n<const N: usize>(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        let cols = self.shape.cols();
        for &StateIndex(r) in batch {
            let (perm, digits) = rank::unrank_array::<N>(r as u32);
            let blank = perm.iter().position(|&v| v as usize == N - 1).unwrap_or(0);
            let mut slots = [StateIndex::NONE; 4];
            moves::neighbors_of::<N>(r as u32, &perm, &digits, &self.moves, |nb, to| {
                let slot = if to + cols == blank {
                    0
                } else if to == blank + cols {
                    1
                } else if to + 1 == blank {
                    2
                } else {
                    3
                };
                slots[slot] = StateIndex(u64::from(nb));
            });
            out.extend_from_slice(&slots);
        }
    }
}

impl StateSpace for LexSpace {
    fn shape(&self) -> Shape {
        self.shape
    }

    fn size(&self) -> u64 {
        self.size
    }

    fn rank(&self, board: &Board) -> Option<StateIndex> {
        (board.shape() == self.shape).then(|| StateIndex(board.rank()))
    }

    fn unrank(&self, index: StateIndex) -> Board {
        Board::from_rank(self.shape, index.0)
    }

    fn expand(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        match self.metric {
            Metric::Stm => {
                crate::with_cells!(self.shape.cells(), N => self.expand_n::<N>(batch, out))
            }
            Metric::Mtm => {
                crate::with_cells!(self.shape.cells(), N => self.expand_mtm::<N>(batch, out))
            }
        }
    }

    fn degree(&self) -> usize {
        self.metric.degree(self.shape)
    }
}
