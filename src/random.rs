//! Seeded random boards, one generator for all of them: uniform draws from a goal's
//! component of the game graph, scrambles by a random walk (`npuzzle random`, the page's
//! `/api/random`, the Python package's `random_boards`), the boards of a distance table's
//! samples (`npuzzle sample`, [`crate::table`]) and the test and benchmark boards.
//!
//! **The promise: the same seed gives the same boards on every machine, at every thread
//! count, and in every version.** The generator, [`SplitMix64`], is written out here rather
//! than taken from a crate, so that no crate's update changes a seed's boards
//! (`benches/data/4x4_random100.txt` is made from seed 2024 and must stay reproducible); every
//! draw is sequential, from one generator.
//!
//! Uniform draws follow the parity theorem (Johnson and Story 1879): on a board of at least two
//! rows and two columns the boards split into two components of `n!/2` boards, told apart by
//! [`Parity::of`]. A uniform permutation of the cells (Fisher and Yates) is kept when it is in
//! the goal's class; otherwise the contents of the first two cells that do not hold the blank
//! are swapped, which maps the other class onto the goal's one to one (the blank kept in
//! place), so every board of the goal's component is equally likely. On a single row or
//! column the tiles never change order: a component is the goal's tiles in order with the
//! blank on any of the `n` cells.

use crate::Board;
use crate::bfs::Parity;
use crate::board::Direction;
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

/// The most slides `npuzzle random --moves` makes from the goal: 10^9, tens of seconds a board.
/// A longer walk is refused rather than left to run for hours (`--moves 2^64-1` would never
/// end): what a walk's board approaches as the walk grows is a uniform draw from the
/// goal's boards ([`Scrambler::uniform`], `random` without `--moves`).
pub const MAX_WALK_MOVES: u64 = 1_000_000_000;

/// A seeded source of random boards.
#[derive(Debug, Clone)]
pub struct Scrambler {
    rng: SplitMix64,
}

impl Scrambler {
    /// The boards of `seed` (any `u64`; the same seed, the same boards).
    pub fn new(seed: u64) -> Scrambler {
        Scrambler {
            rng: SplitMix64::new(seed),
        }
    }

    /// A board drawn uniformly among the boards of `goal`'s component (those from which
    /// `goal` can be reached), the goal itself included.
    pub fn uniform(&mut self, goal: &Board) -> Board {
        let shape = goal.shape();
        let n = shape.cells();
        let blank = (n - 1) as u8;
        if !shape.is_grid() {
            // A line: the goal's order of tiles, the blank anywhere.
            let mut cells: Vec<u8> = goal
                .permutation()
                .iter()
                .copied()
                .filter(|&v| v != blank)
                .collect();
            cells.insert(self.rng.below(n as u64) as usize, blank);
            return Board::from_permutation(shape, cells).expect("a permutation");
        }
        in_class(shape, Parity::of(goal), &mut self.rng)
    }

    /// The board reached from `goal` by `moves` random slides, each chosen uniformly among
    /// the blank's moves except the one that undoes the slide before it (on a board of at
    /// least 2 cells). Its distance to the goal is at most `moves`, often less; for boards at
    /// an exact distance, draw from a distance table (`npuzzle sample`).
    pub fn walk(&mut self, goal: &Board, moves: u64) -> Board {
        self.walk_until(goal, moves, || false)
            .expect("a walk never asked to stop")
    }

    /// [`Scrambler::walk`], asking `stop` every 2^20 slides: `None` as soon as it answers
    /// `true` (for a caller that must stop a long walk, e.g. on a Python user's Ctrl-C). The
    /// same slides as `walk` otherwise.
    pub fn walk_until(
        &mut self,
        goal: &Board,
        moves: u64,
        stop: impl Fn() -> bool,
    ) -> Option<Board> {
        walk(goal, moves, &mut self.rng, stop)
    }
}

/// A uniform draw of a board of `shape` (at least 2 rows and 2 columns) in the parity class
/// `class` (the module documentation): a Fisher-Yates shuffle of the cells, and the swap of
/// the first two cells that do not hold the blank when the shuffle fell in the other class.
fn in_class(shape: Shape, class: Parity, rng: &mut SplitMix64) -> Board {
    let n = shape.cells();
    let blank = (n - 1) as u8;
    let mut cells: Vec<u8> = (0..n as u8).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        cells.swap(i, j);
    }
    let board = Board::from_permutation(shape, cells.clone()).expect("a permutation");
    if Parity::of(&board) == class {
        return board;
    }
    let mut tiles = (0..n).filter(|&c| cells[c] != blank);
    let (a, b) = (
        tiles.next().expect("2 tiles"),
        tiles.next().expect("2 tiles"),
    );
    cells.swap(a, b);
    Board::from_permutation(shape, cells).expect("a permutation")
}

/// [`Scrambler::walk_until`] from `goal` (any board) with the generator `rng`.
fn walk(goal: &Board, moves: u64, rng: &mut SplitMix64, stop: impl Fn() -> bool) -> Option<Board> {
    let shape = goal.shape();
    let mut cells = goal.permutation().to_vec();
    let mut blank = goal.blank();
    let mut previous: Option<usize> = None;
    let mut options = Vec::with_capacity(4);
    for done in 0..moves {
        if done % (1 << 20) == (1 << 20) - 1 && stop() {
            return None;
        }
        options.clear();
        options.extend(
            Direction::ALL
                .iter()
                .filter_map(|d| d.step(shape, blank))
                .filter(|&to| Some(to) != previous),
        );
        if options.is_empty() {
            // A 1x2 board: the only move undoes the last.
            options.extend(previous);
        }
        let to = options[rng.below(options.len() as u64) as usize];
        cells.swap(blank, to);
        previous = Some(blank);
        blank = to;
    }
    Some(Board::from_permutation(shape, cells).expect("a permutation"))
}

/// A board drawn uniformly from the solvable boards of `shape` (at least 2 rows and 2
/// columns, where exactly half of all boards are solvable): [`Scrambler::uniform`] from the
/// standard goal, with the generator `rng`.
pub fn random_solvable(shape: Shape, rng: &mut SplitMix64) -> Board {
    in_class(shape, Parity::of(&Board::goal(shape)), rng)
}

/// `board` after `moves` random blank moves, never undoing the previous move (but on a 1x2
/// board, whose only move undoes the last): [`Scrambler::walk`] from `board` with the
/// generator `rng`. The result is at most `moves` moves from `board` (often fewer).
pub fn random_walk(board: &Board, moves: usize, rng: &mut SplitMix64) -> Board {
    walk(board, moves as u64, rng, || false).expect("a walk never asked to stop")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shape;
    use std::collections::HashMap;

    /// Every board of the 2x3 goal's component (360, OEIS A090034's total) is drawn, about
    /// equally often (a chi-squared test at a generous bound), and none of the other component.
    #[test]
    fn uniform_draws_cover_the_component_evenly() {
        let shape = Shape::new(2, 3).unwrap();
        let goal = Board::goal(shape);
        let mut scrambler = Scrambler::new(7);
        let draws = 360 * 200;
        let mut seen: HashMap<Vec<u8>, u64> = HashMap::new();
        for _ in 0..draws {
            let b = scrambler.uniform(&goal);
            assert_eq!(Parity::of(&b), Parity::of(&goal));
            *seen.entry(b.permutation().to_vec()).or_default() += 1;
        }
        assert_eq!(seen.len(), 360);
        let expected = draws as f64 / 360.0;
        let chi2: f64 = seen
            .values()
            .map(|&o| (o as f64 - expected).powi(2) / expected)
            .sum();
        // 359 degrees of freedom: mean 359, standard deviation about 27.
        assert!(chi2 < 359.0 + 6.0 * 27.0, "chi-squared {chi2}");
        // A goal of the other class: its own component.
        let other = Board::from_tiles(shape, &[2, 1, 3, 4, 5, 0]).unwrap();
        let b = scrambler.uniform(&other);
        assert_eq!(Parity::of(&b), Parity::of(&other));
    }

    #[test]
    fn a_line_keeps_its_order_of_tiles() {
        let shape = Shape::new(1, 5).unwrap();
        let goal = Board::goal(shape);
        let mut scrambler = Scrambler::new(1);
        let mut blanks = [0u32; 5];
        for _ in 0..500 {
            let b = scrambler.uniform(&goal);
            let tiles: Vec<u64> = b.tiles().filter(|&t| t != 0).collect();
            assert_eq!(tiles, [1, 2, 3, 4]);
            blanks[b.blank()] += 1;
        }
        assert!(blanks.iter().all(|&n| n > 50), "{blanks:?}");
    }

    #[test]
    fn walks_are_seeded_and_never_undo_a_move() {
        let shape = Shape::new(3, 3).unwrap();
        let goal = Board::goal(shape);
        let a = Scrambler::new(42).walk(&goal, 30);
        assert_eq!(a, Scrambler::new(42).walk(&goal, 30));
        assert_ne!(a, Scrambler::new(43).walk(&goal, 30));
        assert_eq!(Scrambler::new(1).walk(&goal, 0), goal);
        // Two moves that do not undo each other leave the goal at distance 2 (a 3x3 has no
        // cycle of length 2).
        for seed in 0..20 {
            let b = Scrambler::new(seed).walk(&goal, 2);
            assert_ne!(b, goal);
            assert_eq!(Parity::of(&b), Parity::of(&goal));
        }
        // 1x2: the only move, back and forth.
        let line = Board::goal(Shape::new(1, 2).unwrap());
        assert_eq!(Scrambler::new(3).walk(&line, 2), line);
    }

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
