//! Reproducible random boards: a tiny seeded generator ([`SplitMix64`]), boards drawn
//! uniformly from the solvable half ([`random_solvable`]), and scrambles by random moves
//! ([`random_walk`]).
//!
//! The generator is written out here rather than taken from a crate so that a seed names
//! the same boards forever: `benches/data/4x4_random100.txt` is made from seed 2024 and
//! must stay reproducible whatever version of a random-number crate is current.

use crate::board::{Board, Direction};
use crate::shape::Shape;

/// SplitMix64 (Steele, Lea & Flood 2014): a 64-bit seeded generator, fast and good enough
/// for drawing test and benchmark boards. Not for cryptography.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose whole output is fixed by `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..bound` (`bound > 0`), without modulo bias (Lemire 2019).
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0);
        let threshold = bound.wrapping_neg() % bound;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(bound);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }
}

/// A board drawn uniformly from the solvable boards of `shape` (two-dimensional shapes, at
/// least 2 rows and 2 columns, where exactly half of all boards are solvable).
///
/// A uniform shuffle (Fisher & Yates) of all pieces; when the result is unsolvable, the
/// contents of the first two cells that do not hold the blank are swapped. That swap flips
/// the parity and keeps the blank in place, so it pairs every unsolvable board with exactly
/// one solvable board, and the result is uniform over the solvable half.
pub fn random_solvable(shape: Shape, rng: &mut SplitMix64) -> Board {
    let n = shape.cells();
    let mut cells: Vec<u8> = (0..n as u8).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        cells.swap(i, j);
    }
    let blank = (n - 1) as u8;
    let board =
        Board::from_permutation(shape, cells.clone()).unwrap_or_else(|_| Board::goal(shape));
    if board.is_solvable() {
        return board;
    }
    let mut free = (0..n).filter(|&i| cells[i] != blank);
    if let (Some(a), Some(b)) = (free.next(), free.next()) {
        cells.swap(a, b);
    }
    Board::from_permutation(shape, cells).unwrap_or_else(|_| Board::goal(shape))
}

/// `board` after `moves` random blank moves, never undoing the previous move. The result is
/// at most `moves` moves from `board` (often fewer).
pub fn random_walk(board: &Board, moves: usize, rng: &mut SplitMix64) -> Board {
    let mut current = board.clone();
    let mut last: Option<Direction> = None;
    for _ in 0..moves {
        let blank = current.blank();
        let options: Vec<Direction> = Direction::ALL
            .into_iter()
            .filter(|&d| Some(d.opposite()) != last && d.step(current.shape(), blank).is_some())
            .collect();
        if options.is_empty() {
            break;
        }
        let dir = options[rng.below(options.len() as u64) as usize];
        if let Some(next) = current.moved(dir) {
            current = next;
            last = Some(dir);
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_fixed_by_its_seed() {
        // First output of SplitMix64 from seed 0 (the reference implementation's value).
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for _ in 0..100 {
            assert_eq!(a.below(10), b.below(10));
        }
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut rng = SplitMix64::new(1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[rng.below(6) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn random_boards_are_solvable_and_cover_the_half() {
        let shape = Shape::new(2, 2).unwrap();
        let mut rng = SplitMix64::new(3);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..2_000 {
            let b = random_solvable(shape, &mut rng);
            assert!(b.is_solvable());
            seen.insert(b.rank());
        }
        // 2x2 has 24 boards, 12 of them solvable: all are drawn.
        assert_eq!(seen.len(), 12);
    }
}
