//! Random boards without a distance table: drawn uniformly from a goal's component of the game
//! graph, or scrambled from the goal by a random walk (`npuzzle random`). Seeded: the same seed
//! gives the same boards on every machine (the generator is `fastrand`'s wyrand).
//!
//! Uniform draws follow the parity theorem (Johnson and Story 1879): on a board of at least two
//! rows and two columns the boards split into two components of `n!/2` boards, told apart by
//! [`Parity::of`]. A uniform permutation of the cells is kept when it is in the goal's class;
//! otherwise two tiles (not the blank) are swapped, which maps the other class onto the goal's
//! one to one, so every board of the goal's component is equally likely. On a single row or
//! column the tiles never change order: a component is the goal's tiles in order with the blank
//! on any of the `n` cells.

use crate::Board;
use crate::bfs::Parity;
use crate::board::Direction;

/// A seeded source of random boards.
#[derive(Debug, Clone)]
pub struct Scrambler {
    rng: fastrand::Rng,
}

impl Scrambler {
    /// The boards of `seed` (any `u64`; the same seed, the same boards).
    pub fn new(seed: u64) -> Scrambler {
        Scrambler {
            rng: fastrand::Rng::with_seed(seed),
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
            cells.insert(self.rng.usize(0..n), blank);
            return Board::from_permutation(shape, cells).expect("a permutation");
        }
        let mut cells: Vec<u8> = (0..n as u8).collect();
        self.rng.shuffle(&mut cells);
        let mut board = Board::from_permutation(shape, cells.clone()).expect("a permutation");
        if Parity::of(&board) != Parity::of(goal) {
            // Swap the first two tiles that are not the blank: the other class, one to one.
            let mut tiles = (0..n).filter(|&c| cells[c] != blank);
            let (a, b) = (
                tiles.next().expect("2 tiles"),
                tiles.next().expect("2 tiles"),
            );
            cells.swap(a, b);
            board = Board::from_permutation(shape, cells).expect("a permutation");
        }
        board
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
            let to = options[self.rng.usize(0..options.len())];
            cells.swap(blank, to);
            previous = Some(blank);
            blank = to;
        }
        Some(Board::from_permutation(shape, cells).expect("a permutation"))
    }
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
}
