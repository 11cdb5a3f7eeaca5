//! Move generation on the dense index: the ranks of the boards one slide away from a board.
//!
//! A move swaps the blank with an adjacent cell. Instead of re-ranking the whole
//! permutation, the neighbour's rank is the board's rank plus a delta computed from the
//! Lehmer digits: swapping cells `i < j` changes only the digits of cells `i..=j`, so a
//! horizontal move costs O(1) and a vertical one O(cols). With `p` the permutation, `d` its
//! digits, `a = p[i]`, `b = p[j]`:
//!
//! - `d'[i] = d[j] + #{i<m<j : p[m] < b} + [a < b]`
//! - `d'[j] = d[i] - #{i<m<j : p[m] < a} - [b < a]`
//! - `d'[m] = d[m] - [b < p[m]] + [a < p[m]]` for `i < m < j`
//!
//! and the rank changes by `sum (d'[m] - d[m]) * (n - 1 - m)!`.

use crate::board::Direction;
use crate::rank;
use crate::shape::Shape;

/// The cells the blank can swap with, for every blank cell of a shape (at most 4 each), with
/// the direction of each move.
#[derive(Debug, Clone)]
pub struct MoveTable {
    targets: Vec<[u8; 4]>,
    directions: Vec<[Direction; 4]>,
    counts: Vec<u8>,
}

impl MoveTable {
    /// The table for `shape`: for each blank cell, its adjacent cells in `U D L R` order
    /// ([`Direction::step`]).
    pub fn new(shape: Shape) -> MoveTable {
        let mut targets = vec![[0u8; 4]; shape.cells()];
        let mut directions = vec![[Direction::Up; 4]; shape.cells()];
        let mut counts = vec![0u8; shape.cells()];
        for cell in 0..shape.cells() {
            for dir in Direction::ALL {
                if let Some(to) = dir.step(shape, cell) {
                    let k = counts[cell] as usize;
                    targets[cell][k] = to as u8;
                    directions[cell][k] = dir;
                    counts[cell] += 1;
                }
            }
        }
        MoveTable {
            targets,
            directions,
            counts,
        }
    }

    /// The cells adjacent to `blank`.
    #[inline(always)]
    pub fn targets(&self, blank: usize) -> &[u8] {
        &self.targets[blank][..self.counts[blank] as usize]
    }

    /// The blank's moves from `blank`: each direction with the cell it reaches.
    #[inline(always)]
    pub fn moves(&self, blank: usize) -> impl Iterator<Item = (Direction, usize)> + '_ {
        let count = self.counts[blank] as usize;
        self.directions[blank][..count]
            .iter()
            .zip(&self.targets[blank][..count])
            .map(|(&dir, &to)| (dir, to as usize))
    }
}

/// Rank of the board obtained by swapping cells `x` and `y` of `perm`, whose Lehmer digits are
/// `digits` and rank `rank`; `weights[m] = (n - 1 - m)!`. O(|x - y|), no allocation.
#[inline(always)]
pub fn swapped_rank(
    perm: &[u8],
    digits: &[u8],
    weights: &[u64],
    rank: u64,
    x: usize,
    y: usize,
) -> u64 {
    let (i, j) = if x < y { (x, y) } else { (y, x) };
    let (a, b) = (perm[i], perm[j]);
    let mut delta: i64 = 0;
    let (mut less_a, mut less_b) = (0i64, 0i64);
    for m in i + 1..j {
        let v = perm[m];
        less_a += i64::from(v < a);
        less_b += i64::from(v < b);
        delta += (i64::from(a < v) - i64::from(b < v)) * weights[m] as i64;
    }
    let new_i = i64::from(digits[j]) + less_b + i64::from(a < b);
    let new_j = i64::from(digits[i]) - less_a - i64::from(b < a);
    delta += (new_i - i64::from(digits[i])) * weights[i] as i64;
    delta += (new_j - i64::from(digits[j])) * weights[j] as i64;
    (rank as i64 + delta) as u64
}

/// Calls `f` with the rank of every board one move from the board of rank `rank`
/// (`N` cells, `N <= 12`); `cols` is the shape's width, `blank_moves` its [`MoveTable`].
/// The second argument to `f` is the blank's new cell.
#[inline(always)]
pub fn for_each_neighbor<const N: usize>(rank: u32, moves: &MoveTable, f: impl FnMut(u32, usize)) {
    let (perm, digits) = rank::unrank_array::<N>(rank);
    neighbors_of::<N>(rank, &perm, &digits, moves, f);
}

/// [`for_each_neighbor`] for a board already unranked into `perm` and `digits`.
#[inline(always)]
pub fn neighbors_of<const N: usize>(
    rank: u32,
    perm: &[u8; N],
    digits: &[u8; N],
    moves: &MoveTable,
    mut f: impl FnMut(u32, usize),
) {
    let weights = const { rank::weights::<N>() };
    let blank = perm.iter().position(|&v| v as usize == N - 1).unwrap_or(0);
    for &to in moves.targets(blank) {
        let to = to as usize;
        let r = swapped_rank(perm, digits, &weights, u64::from(rank), blank, to);
        f(r as u32, to);
    }
}

/// Runs `$body` with the const `$n` bound to the run-time count `$cells`: the one place that
/// lists the sizes the kernels are compiled for.
///
/// - `with_cells!(cells, N => body)`: 2..=12 (the lexicographic index, ranks in `u32`);
///   panics on other counts, callers check the shape first.
/// - `with_cells!(cells, N => body, _ => otherwise)`: 2..=12, else `otherwise`.
/// - `with_cells!(cells, N => body, wide, _ => otherwise)`: 2..=20 (the parity index), else
///   `otherwise`.
#[macro_export]
#[doc(hidden)]
macro_rules! with_cells {
    ($cells:expr, $n:ident => $body:expr) => {
        $crate::with_cells!($cells, $n => $body, _ => panic!(
            "the lexicographic index supports 2..=12 cells, not {}",
            $cells
        ))
    };
    ($cells:expr, $n:ident => $body:expr, wide, _ => $otherwise:expr) => {
        match $cells {
            13 => {
                const $n: usize = 13;
                $body
            }
            14 => {
                const $n: usize = 14;
                $body
            }
            15 => {
                const $n: usize = 15;
                $body
            }
            16 => {
                const $n: usize = 16;
                $body
            }
            17 => {
                const $n: usize = 17;
                $body
            }
            18 => {
                const $n: usize = 18;
                $body
            }
            19 => {
                const $n: usize = 19;
                $body
            }
            20 => {
                const $n: usize = 20;
                $body
            }
            small => $crate::with_cells!(small, $n => $body, _ => $otherwise),
        }
    };
    ($cells:expr, $n:ident => $body:expr, _ => $otherwise:expr) => {
        match $cells {
            2 => {
                const $n: usize = 2;
                $body
            }
            3 => {
                const $n: usize = 3;
                $body
            }
            4 => {
                const $n: usize = 4;
                $body
            }
            5 => {
                const $n: usize = 5;
                $body
            }
            6 => {
                const $n: usize = 6;
                $body
            }
            7 => {
                const $n: usize = 7;
                $body
            }
            8 => {
                const $n: usize = 8;
                $body
            }
            9 => {
                const $n: usize = 9;
                $body
            }
            10 => {
                const $n: usize = 10;
                $body
            }
            11 => {
                const $n: usize = 11;
                $body
            }
            12 => {
                const $n: usize = 12;
                $body
            }
            _ => $otherwise,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    /// Every neighbour rank equals the rank recomputed from scratch, on every board of several
    /// shapes (both components), and neighbourhood is symmetric.
    #[test]
    fn neighbor_ranks_match_full_reranking() {
        for (r, c) in [(1, 4), (2, 2), (2, 3), (3, 2), (2, 4), (3, 3)] {
            let shape = Shape::new(r, c).unwrap();
            let moves = MoveTable::new(shape);
            let total = shape.board_count().unwrap() as u32;
            for rank in 0..total {
                let board = Board::from_rank(shape, u64::from(rank));
                let mut fast = Vec::new();
                with_cells!(shape.cells(), N => for_each_neighbor::<N>(rank, &moves, |nb, _| fast.push(nb)));
                let slow: Vec<u32> = crate::board::Direction::ALL
                    .iter()
                    .filter_map(|&d| board.moved(d))
                    .map(|b| b.rank() as u32)
                    .collect();
                assert_eq!(fast, slow, "{shape} rank {rank}");
                for nb in fast {
                    let mut back = Vec::new();
                    with_cells!(shape.cells(), N => for_each_neighbor::<N>(nb, &moves, |x, _| back.push(x)));
                    assert!(back.contains(&rank));
                }
            }
        }
    }
}
