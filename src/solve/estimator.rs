//! The interface between the searches and the estimators, below both: the [`Estimator`]
//! trait (a lower bound computed from scratch or updated after one move) and the [`Slide`] it
//! is updated with. The estimators (`heuristic.rs`: Hamming, Manhattan, linear conflict;
//! `pdb.rs`: pattern databases; `exact.rs`: the exact table) implement it, `heuristic.rs`
//! gathers them behind one type, and `search.rs` drives them; the dependencies run one way,
//! from those modules down to this one.

/// The incremental interface the searches use.
///
/// Boards are seen as `cells` (the internal permutation: `cells[i]` is the piece on cell `i`,
/// pieces named by their goal cell, blank `n - 1`) and `pos` (its inverse: `pos[p]` is the
/// cell of piece `p`).
pub(crate) trait Estimator {
    /// What the estimator carries from a board to its children (small and `Copy`).
    type Memo: Copy;

    /// The bound and memo of a board, computed from scratch.
    fn start(&self, cells: &[u8], pos: &[u8]) -> (u32, Self::Memo);

    /// The bound and memo after `slide` (the blank went the other way). `cells` and `pos`
    /// already show the new board; `memo` is the parent's.
    ///
    /// The caller prunes a board whose bound exceeds `budget`; the estimator may then stop
    /// early and return any lower bound above `budget` with a memo that will not be used.
    /// With `u32::MAX` the result is always complete.
    fn after_move(
        &self,
        cells: &[u8],
        pos: &[u8],
        slide: Slide,
        memo: Self::Memo,
        budget: u32,
    ) -> (u32, Self::Memo);

    /// The memo after a slide whose bound is not needed: one of the first slides of a
    /// multi-tile move, the bound being taken after its last. By default
    /// [`Estimator::after_move`]'s memo; estimators whose bound costs more than their memo
    /// skip the bound.
    #[inline(always)]
    fn pass(&self, cells: &[u8], pos: &[u8], slide: Slide, memo: Self::Memo) -> Self::Memo {
        self.after_move(cells, pos, slide, memo, u32::MAX).1
    }
}

/// One move as the estimators see it: `piece` slid from cell `from` to cell `to`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slide {
    /// The piece that moved (its goal cell).
    pub piece: u8,
    /// Its cell before the move (the blank's cell after it).
    pub from: usize,
    /// Its cell after the move (the blank's cell before it).
    pub to: usize,
}

/// The inverse of a permutation: `pos[cells[i]] = i`.
pub(crate) fn positions(cells: &[u8]) -> Vec<u8> {
    let mut pos = vec![0u8; cells.len()];
    for (i, &p) in cells.iter().enumerate() {
        pos[p as usize] = i as u8;
    }
    pos
}
