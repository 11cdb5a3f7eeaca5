//! The abstract state space of a pattern (Culberson & Schaeffer 1998; Korf & Felner 2002):
//! what a pattern database's breadth-first search walks, laid out as a dense index so that
//! the engine's layer driver ([`crate::bfs::run`]) searches it like any board space.
//!
//! **States.** A pattern is `k` of the `n - 1` tiles. Its abstraction forgets the other
//! tiles: a state is a *placement* (the cells of the pattern's tiles, in pattern order) and
//! the blank. Moving another tile costs nothing in an additive database, so the blank roams
//! freely over its *region* (the cells it reaches through cells without pattern tiles), and a
//! state is a placement with one region; moving a pattern tile into the region costs one.
//! Every move then costs one and a plain BFS from the goal gives the fewest pattern moves.
//!
//! **Index.** `placement * (n - k) + slot`, where the placement is ranked by
//! [`crate::rank::rank_partial`] (`n! / (n - k)!` placements) and `slot` is the blank's
//! place among the `n - k` cells free of pattern tiles, in cell order. A region is stored at
//! its lowest cell; the indices of the region's other cells are never reached (the kernel
//! gives them no neighbours), so about half the index stays unseen. Two bits of marks per
//! index: 1.04 GB for an 8-tile pattern of the 4x4 board (4.15e9 indices).
//!
//! **Kernel.** For each state: unrank the placement (shared by the `n - k` indices in a row of
//! an ascending batch), flood the blank's region over the free cells with bit masks, and for
//! every pattern tile next to the region and every region cell next to it, slide the tile
//! into that cell: the child's blank is the tile's old cell, its region flooded again and
//! stored at its lowest cell. A region can have up to one move per edge of the grid, so
//! [`StateSpace::degree`] is the grid's edge count (24 on 4x4).

use crate::bfs::{StateIndex, StateSpace};
use crate::board::Board;
use crate::rank::{partial_count, rank_partial, unrank_partial};
use crate::shape::Shape;

/// The most cells of a board whose patterns are searched (cell masks are `u32`).
pub const MAX_CELLS: usize = 32;

/// A pattern's abstract state space (see the module documentation).
#[derive(Debug, Clone)]
pub struct PatternSpace {
    shape: Shape,
    /// The pattern's pieces: their goal cells (tile number minus one), in pattern order.
    pieces: Vec<u8>,
    /// `n - k`: the cells free of pattern tiles, and the slots per placement.
    free_cells: u64,
    placements: u64,
    /// Every cell of the board.
    all: u32,
    /// Cells not in the first column (where a cell moved right may land).
    not_first_col: u32,
    /// Cells not in the last column (where a cell moved left may land).
    not_last_col: u32,
    /// Per cell, its neighbours.
    adjacent: Vec<u32>,
    degree: usize,
}

impl PatternSpace {
    /// The space of the pattern whose pieces (goal cells, `tile - 1`, distinct, below
    /// `n - 1`) are `pieces` on `shape`, or `None` when the shape has more than
    /// [`MAX_CELLS`] cells, a piece is out of range or repeated, or the index would not fit
    /// in a `u64`.
    pub fn new(shape: Shape, pieces: &[u8]) -> Option<PatternSpace> {
        let n = shape.cells();
        let mut seen = 0u64;
        for &p in pieces {
            if p as usize + 1 >= n || seen >> p & 1 == 1 {
                return None;
            }
            seen |= 1 << p;
        }
        if n > MAX_CELLS || pieces.len() >= n {
            return None;
        }
        let free_cells = (n - pieces.len()) as u64;
        let placements = partial_count(n, pieces.len())?;
        placements.checked_mul(free_cells)?;
        let cols = shape.cols();
        let mask = |keep: &dyn Fn(usize) -> bool| {
            (0..n).filter(|&c| keep(c)).fold(0u32, |m, c| m | 1 << c)
        };
        let adjacent: Vec<u32> = (0..n)
            .map(|c| shape.adjacent(c).fold(0u32, |m, t| m | 1 << t))
            .collect();
        let degree = adjacent
            .iter()
            .map(|a| a.count_ones() as usize)
            .sum::<usize>()
            / 2;
        Some(PatternSpace {
            shape,
            pieces: pieces.to_vec(),
            free_cells,
            placements,
            all: mask(&|_| true),
            not_first_col: mask(&|c| c % cols != 0),
            not_last_col: mask(&|c| c % cols != cols - 1),
            adjacent,
            degree: degree.max(1),
        })
    }

    /// Placements of the pattern's tiles: `n! / (n - k)!`.
    pub fn placements(&self) -> u64 {
        self.placements
    }

    /// The placement of an index (its rank among the placements).
    pub fn placement_of(&self, index: StateIndex) -> u64 {
        index.0 / self.free_cells
    }

    /// The states of the space: the pairs of a placement and a region of its free cells,
    /// counted without a search (the number of regions depends only on the set of occupied
    /// cells, so it is summed over the `C(n, k)` sets and multiplied by `k!`). A BFS from the
    /// goal reaches all of them when the board has at least two rows and two columns and
    /// at least two tiles are outside the pattern: each state is then the image of a
    /// solvable board, as the other tiles, indistinguishable, can be ordered to either
    /// parity. (With one tile outside, the parity fixes which free cell holds the blank.)
    pub fn states(&self) -> u64 {
        let n = self.shape.cells();
        let k = self.pieces.len();
        if k == 0 {
            return u64::from(self.regions(self.all).count_ones());
        }
        let orders = partial_count(k, k).unwrap_or(0);
        let mut regions = 0u64;
        // Every k-subset of the n cells, in Gosper's order.
        let mut set = (1u64 << k) - 1;
        while set < 1 << n {
            let free = self.all & !(set as u32);
            regions += u64::from(self.regions(free).count_ones());
            let low = set & set.wrapping_neg();
            let ripple = set + low;
            set = (((ripple ^ set) >> 2) / low) | ripple;
        }
        regions * orders
    }

    /// The lowest cell of each region of `free`, as a mask.
    fn regions(&self, free: u32) -> u32 {
        let mut left = free;
        let mut lows = 0u32;
        while left != 0 {
            let low = left & left.wrapping_neg();
            lows |= low;
            left &= !self.flood(low, free);
        }
        lows
    }

    /// The cells reachable from `seed` through `free` (both masks, `seed` within `free`).
    #[inline(always)]
    pub(crate) fn flood(&self, seed: u32, free: u32) -> u32 {
        let cols = self.shape.cols();
        let mut region = seed;
        loop {
            let grown = (region
                | region << cols
                | region >> cols
                | (region << 1) & self.not_first_col
                | (region >> 1) & self.not_last_col)
                & free;
            if grown == region {
                return region;
            }
            region = grown;
        }
    }

    /// The index of the placement ranked `placement` (with `occupied` its cells) and the
    /// region holding cell `blank`, stored at the region's lowest cell.
    #[inline(always)]
    fn index_of(&self, placement: u64, occupied: u32, blank: usize) -> StateIndex {
        let region = self.flood(1 << blank, self.all & !occupied);
        let low = region.trailing_zeros();
        let slot = low - (occupied & ((1u32 << low) - 1)).count_ones();
        StateIndex(placement * self.free_cells + u64::from(slot))
    }
}

/// The cell of the `slot`-th (from 0) set bit of `mask`.
#[inline(always)]
fn select(mut mask: u32, slot: u64) -> usize {
    for _ in 0..slot {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as usize
}

impl StateSpace for PatternSpace {
    fn shape(&self) -> Shape {
        self.shape
    }

    fn size(&self) -> u64 {
        self.placements * self.free_cells
    }

    /// The state of `board`: where its pattern tiles stand, and its blank's region.
    fn rank(&self, board: &Board) -> Option<StateIndex> {
        if board.shape() != self.shape {
            return None;
        }
        let cells = board.permutation();
        let mut at = vec![0u8; self.pieces.len()];
        for (cell, &piece) in cells.iter().enumerate() {
            if let Some(j) = self.pieces.iter().position(|&p| p == piece) {
                at[j] = cell as u8;
            }
        }
        let occupied = at.iter().fold(0u32, |m, &c| m | 1 << c);
        let placement = rank_partial(&at, self.shape.cells());
        Some(self.index_of(placement, occupied, board.blank()))
    }

    /// A board of the state: the pattern's tiles on their cells, the blank on the region's
    /// lowest cell, the other tiles on the other cells in increasing order.
    fn unrank(&self, index: StateIndex) -> Board {
        let n = self.shape.cells();
        let mut at = vec![0u8; self.pieces.len()];
        unrank_partial(self.placement_of(index), n, &mut at);
        let occupied = at.iter().fold(0u32, |m, &c| m | 1 << c);
        let free = self.all & !occupied;
        let blank = select(free, index.0 % self.free_cells);
        let low = self.flood(1 << blank, free).trailing_zeros() as usize;
        let mut perm = vec![u8::MAX; n];
        for (j, &c) in at.iter().enumerate() {
            perm[c as usize] = self.pieces[j];
        }
        perm[low] = (n - 1) as u8;
        let mut others = (0..(n - 1) as u8).filter(|p| !self.pieces.contains(p));
        for slot in perm.iter_mut().filter(|p| **p == u8::MAX) {
            *slot = others.next().unwrap_or_default();
        }
        Board::from_permutation(self.shape, perm).expect("a permutation of the cells")
    }

    fn expand(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        let n = self.shape.cells();
        let k = self.pieces.len();
        let mut at = [0u8; MAX_CELLS];
        // The pattern tile on each cell (valid where `occupied` has the cell).
        let mut tile_on = [0u8; MAX_CELLS];
        let mut occupied = 0u32;
        let mut current = u64::MAX;
        for &index in batch {
            let placement = index.0 / self.free_cells;
            if placement != current {
                current = placement;
                unrank_partial(placement, n, &mut at[..k]);
                occupied = 0;
                for (j, &c) in at[..k].iter().enumerate() {
                    occupied |= 1 << c;
                    tile_on[c as usize] = j as u8;
                }
            }
            let start = out.len();
            let free = self.all & !occupied;
            let blank = select(free, index.0 % self.free_cells);
            let region = self.flood(1 << blank, free);
            // A region is stored at its lowest cell: other cells' indices are not states.
            if region.trailing_zeros() as usize == blank {
                let mut cells = region;
                while cells != 0 {
                    let to = cells.trailing_zeros() as usize;
                    cells &= cells - 1;
                    let mut tiles = self.adjacent[to] & occupied;
                    while tiles != 0 {
                        let from = tiles.trailing_zeros() as usize;
                        tiles &= tiles - 1;
                        let j = tile_on[from] as usize;
                        at[j] = to as u8;
                        let child = rank_partial(&at[..k], n);
                        at[j] = from as u8;
                        let moved = occupied ^ (1 << from) ^ (1 << to);
                        out.push(self.index_of(child, moved, from));
                    }
                }
            }
            out.resize(start + self.degree, StateIndex::NONE);
        }
    }

    fn degree(&self) -> usize {
        self.degree
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{StateMarks, run};

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    /// rank(unrank(i)) = i for every state (an index stored at its region's lowest cell),
    /// neighbours are symmetric, and a BFS from the goal reaches exactly the counted states.
    #[test]
    fn states_round_trip_and_are_all_reached() {
        for (s, pieces) in [
            (shape(2, 3), vec![0u8, 1, 3]),
            (shape(3, 3), vec![1, 4, 5, 6]),
            (shape(2, 4), vec![0, 1, 2, 3, 4]),
        ] {
            let space = PatternSpace::new(s, &pieces).unwrap();
            let mut out = Vec::new();
            let mut states = 0u64;
            for i in 0..space.size() {
                out.clear();
                space.expand(&[StateIndex(i)], &mut out);
                assert_eq!(out.len(), space.degree());
                let board = space.unrank(StateIndex(i));
                if space.rank(&board) != Some(StateIndex(i)) {
                    assert!(out.iter().all(|&x| x == StateIndex::NONE), "{s} {i}");
                    continue;
                }
                states += 1;
                for &nb in out.iter().filter(|&&x| x != StateIndex::NONE) {
                    let mut back = Vec::new();
                    space.expand(&[nb], &mut back);
                    assert!(back.contains(&StateIndex(i)), "{s}: {i} -> {nb:?} not back");
                }
            }
            assert_eq!(states, space.states(), "{s}");
            let marks = StateMarks::new(space.size());
            let seed = space.rank(&Board::goal(s)).unwrap();
            let layers = run(&space, &marks, seed, &(), |_, _, _| {});
            assert_eq!(layers.reached(), states, "{s} {pieces:?}");
        }
        assert!(PatternSpace::new(shape(3, 3), &[8]).is_none());
        assert!(PatternSpace::new(shape(3, 3), &[1, 1]).is_none());
    }
}
