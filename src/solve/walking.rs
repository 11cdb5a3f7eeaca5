//! Walking distance (Ken'ichiro Takahashi, 2002): an admissible heuristic in both the
//! single-tile and the multi-tile metric.
//!
//! The board is seen twice, through two abstractions that forget which column (resp. row)
//! each tile is in:
//!
//! - **vertical**: for every row `i` and goal row `j`, the number of tiles in row `i` whose
//!   goal is in row `j` (an `R x R` matrix of counts), and the blank's row;
//! - **horizontal**: the same with columns and goal columns (`C x C`), and the blank's column.
//!
//! A vertical move changes only the vertical state, a horizontal move only the horizontal
//! one. The walking distance is `dv + dh`, the fewest abstract moves that bring each state to
//! the goal's, found by a breadth-first search over the abstract states (24,964 of them per
//! direction on 4x4) when the heuristic is made.
//!
//! **Why it never overestimates.** Map a solution move by move to the abstract states: a
//! vertical STM move (a tile of goal row `j` goes from row `b - 1` to the blank's row `b`) is
//! one abstract vertical move; a vertical MTM move of `k` tiles is `k` such steps in one
//! direction, which the MTM abstract search counts as one move; horizontal moves likewise.
//! So a solution of `m` moves gives abstract paths of `mv` and `mh` moves with
//! `mv + mh = m`, and `dv <= mv`, `dh <= mh`. In the multi-tile metric this is the standard
//! lower bound: additive pattern databases are not additive there (one move may slide tiles of
//! several patterns), and Manhattan distance may fall by up to `max(R, C) - 1` in one move.
//!
//! The tables are indexed by state number; a search carries the two state numbers and
//! updates them with one transition per slid tile.

use std::collections::HashMap;

use crate::metric::Metric;
use crate::shape::Shape;
use crate::solve::estimator::{Estimator, Slide};

/// The most abstract states per direction: more and the tables would take too long to build
/// or too much memory (5x5 has about 1.5 million).
pub const MAX_STATES: usize = 4_000_000;

/// Why a walking-distance heuristic cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WalkingError {
    /// The abstract state space is too large (more than [`MAX_STATES`] states).
    #[error(
        "the walking distance of {shape} has more than {MAX_STATES} abstract states; it is made \
         for boards up to about 5x5"
    )]
    TooLarge {
        /// The board shape.
        shape: Shape,
    },
}

/// The walking distance of one shape in one metric (see the module documentation).
#[derive(Debug, Clone)]
pub struct WalkingDistance {
    shape: Shape,
    metric: Metric,
    vertical: Abstraction,
    horizontal: Abstraction,
    /// Per cell: its row, its column.
    row: Vec<u8>,
    col: Vec<u8>,
}

impl WalkingDistance {
    /// The walking distance of `shape` counted in `metric`: both abstract state spaces and
    /// their distance tables (a few milliseconds for 4x4, about 25,000 states each).
    ///
    /// # Errors
    /// [`WalkingError::TooLarge`] when a direction has more than [`MAX_STATES`] states.
    pub fn new(shape: Shape, metric: Metric) -> Result<WalkingDistance, WalkingError> {
        let too_large = || WalkingError::TooLarge { shape };
        let (rows, cols) = (shape.rows(), shape.cols());
        let vertical = Abstraction::new(rows, cols, metric).ok_or_else(too_large)?;
        let horizontal = Abstraction::new(cols, rows, metric).ok_or_else(too_large)?;
        let row = (0..shape.cells()).map(|c| (c / cols) as u8).collect();
        let col = (0..shape.cells()).map(|c| (c % cols) as u8).collect();
        Ok(WalkingDistance {
            shape,
            metric,
            vertical,
            horizontal,
            row,
            col,
        })
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The metric its moves are counted in.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The abstract states of the vertical and the horizontal abstraction.
    pub fn states(&self) -> (usize, usize) {
        (self.vertical.dist.len(), self.horizontal.dist.len())
    }

    /// The two state numbers of the board `cells`.
    fn states_of(&self, cells: &[u8]) -> (u32, u32) {
        let blank_piece = (cells.len() - 1) as u8;
        let mut v = vec![0u8; self.vertical.lines * self.vertical.lines];
        let mut h = vec![0u8; self.horizontal.lines * self.horizontal.lines];
        let (mut vb, mut hb) = (0, 0);
        for (cell, &p) in cells.iter().enumerate() {
            let (r, c) = (self.row[cell] as usize, self.col[cell] as usize);
            if p == blank_piece {
                (vb, hb) = (r, c);
                continue;
            }
            let (gr, gc) = (self.row[p as usize] as usize, self.col[p as usize] as usize);
            v[r * self.vertical.lines + gr] += 1;
            h[c * self.horizontal.lines + gc] += 1;
        }
        (self.vertical.find(&v, vb), self.horizontal.find(&h, hb))
    }

    #[inline(always)]
    fn bound(&self, v: u32, h: u32) -> u32 {
        self.vertical.distance(v) + self.horizontal.distance(h)
    }
}

/// A state number for a configuration the abstract search did not reach (a board of the
/// other component of a one-wide shape): the bound is 0 there.
const UNKNOWN: u32 = u32::MAX;

impl Estimator for WalkingDistance {
    type Memo = (u32, u32);

    fn start(&self, cells: &[u8], _pos: &[u8]) -> (u32, (u32, u32)) {
        let (v, h) = self.states_of(cells);
        (self.bound(v, h), (v, h))
    }

    #[inline(always)]
    fn after_move(
        &self,
        _cells: &[u8],
        _pos: &[u8],
        slide: Slide,
        (v, h): (u32, u32),
        _budget: u32,
    ) -> (u32, (u32, u32)) {
        // The piece went from `from` to `to`; the blank the other way.
        let (fr, tr) = (self.row[slide.from], self.row[slide.to]);
        let (v, h) = if fr != tr {
            let class = self.row[slide.piece as usize];
            (self.vertical.step(v, fr < tr, class), h)
        } else {
            let class = self.col[slide.piece as usize];
            let forward = self.col[slide.from] < self.col[slide.to];
            (v, self.horizontal.step(h, forward, class))
        };
        (self.bound(v, h), (v, h))
    }
}

/// One abstraction: `lines` lines of `len` cells (rows of `cols` cells for the vertical one),
/// the tiles of each line counted by goal line.
#[derive(Debug, Clone)]
struct Abstraction {
    lines: usize,
    /// Bits per count in a key.
    bits: u32,
    /// State number of each key (counts, then the blank's line).
    index: HashMap<u128, u32>,
    /// `next[(state * 2 + up) * lines + class]`: the state after a tile of goal line `class`
    /// moves into the blank's line from the line before it (`up`: the blank moves to a lower
    /// line number) or after it; [`UNKNOWN`] when there is no such line or tile.
    next: Vec<u32>,
    /// Distance of each state to the goal's, in the metric's abstract moves.
    dist: Vec<u8>,
}

impl Abstraction {
    /// The abstraction of `lines` lines of `len` cells, or `None` beyond [`MAX_STATES`].
    fn new(lines: usize, len: usize, metric: Metric) -> Option<Abstraction> {
        let bits = usize::BITS - len.leading_zeros();
        if (lines * lines) as u32 * bits + 8 > 128 {
            return None;
        }
        // The goal: line i holds `len` tiles of line i, the last line one fewer and the blank.
        let mut goal = vec![0u8; lines * lines];
        for i in 0..lines {
            goal[i * lines + i] = len as u8 - u8::from(i == lines - 1);
        }
        let mut a = Abstraction {
            lines,
            bits,
            index: HashMap::new(),
            next: Vec::new(),
            dist: Vec::new(),
        };
        // All states reachable from the goal, numbered in breadth-first order, with their
        // one-tile transitions.
        let mut states: Vec<(Vec<u8>, usize)> = vec![(goal.clone(), lines - 1)];
        a.index.insert(a.key(&goal, lines - 1), 0);
        let mut head = 0;
        while head < states.len() {
            let (counts, blank) = states[head].clone();
            for up in [false, true] {
                for class in 0..lines {
                    let target = Self::moved(&counts, blank, up, class, lines);
                    let id = match target {
                        None => UNKNOWN,
                        Some((c, b)) => {
                            let key = a.key(&c, b);
                            let fresh = states.len() as u32;
                            let id = *a.index.entry(key).or_insert(fresh);
                            if id == fresh {
                                if states.len() >= MAX_STATES {
                                    return None;
                                }
                                states.push((c, b));
                            }
                            id
                        }
                    };
                    a.next.push(id);
                }
            }
            head += 1;
        }
        a.dist = a.distances(metric);
        Some(a)
    }

    /// The counts after a tile of goal line `class` enters the blank's line `blank` from the
    /// line before (`up`) or after it, with the blank's new line; `None` if impossible.
    fn moved(
        counts: &[u8],
        blank: usize,
        up: bool,
        class: usize,
        lines: usize,
    ) -> Option<(Vec<u8>, usize)> {
        let from = if up {
            blank.checked_sub(1)?
        } else {
            (blank + 1 < lines).then_some(blank + 1)?
        };
        if counts[from * lines + class] == 0 {
            return None;
        }
        let mut c = counts.to_vec();
        c[from * lines + class] -= 1;
        c[blank * lines + class] += 1;
        Some((c, from))
    }

    fn key(&self, counts: &[u8], blank: usize) -> u128 {
        counts
            .iter()
            .fold(blank as u128, |k, &x| (k << self.bits) | u128::from(x))
    }

    /// The state number of `counts` with the blank on line `blank`.
    fn find(&self, counts: &[u8], blank: usize) -> u32 {
        self.index
            .get(&self.key(counts, blank))
            .copied()
            .unwrap_or(UNKNOWN)
    }

    #[inline(always)]
    fn step(&self, state: u32, up: bool, class: u8) -> u32 {
        if state == UNKNOWN {
            return UNKNOWN;
        }
        self.next[(state as usize * 2 + usize::from(up)) * self.lines + class as usize]
    }

    #[inline(always)]
    fn distance(&self, state: u32) -> u32 {
        self.dist.get(state as usize).map_or(0, |&d| u32::from(d))
    }

    /// Breadth-first distances from the goal (state 0). A move is one transition in STM, and
    /// 1 to `lines - 1` transitions in one direction in MTM (the blank crossing `k` lines).
    fn distances(&self, metric: Metric) -> Vec<u8> {
        let states = self.next.len() / (2 * self.lines);
        let mut dist = vec![u8::MAX; states];
        dist[0] = 0;
        let mut frontier = vec![0u32];
        let mut depth = 0u8;
        let mut reach = Vec::new();
        let mut chain = Vec::new();
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &s in &frontier {
                for up in [false, true] {
                    chain.clear();
                    chain.push(s);
                    // Each round crosses one more line in the same direction.
                    loop {
                        reach.clear();
                        for &c in &chain {
                            for class in 0..self.lines as u8 {
                                let t = self.step(c, up, class);
                                if t != UNKNOWN {
                                    reach.push(t);
                                }
                            }
                        }
                        reach.sort_unstable();
                        reach.dedup();
                        for &t in &reach {
                            if dist[t as usize] == u8::MAX {
                                dist[t as usize] = depth + 1;
                                next.push(t);
                            }
                        }
                        if reach.is_empty() || metric.moves_one_tile() {
                            break;
                        }
                        std::mem::swap(&mut chain, &mut reach);
                    }
                }
            }
            frontier = next;
            depth += 1;
        }
        dist
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::solve::estimator::positions;

    fn estimate(wd: &WalkingDistance, board: &Board) -> u32 {
        let cells = board.permutation();
        wd.start(cells, &positions(cells)).0
    }

    /// 4x4 has 24,964 abstract states per direction (Takahashi's table).
    #[test]
    fn four_by_four_has_24964_states() {
        let s = Shape::square(4).unwrap();
        let wd = WalkingDistance::new(s, Metric::Stm).unwrap();
        assert_eq!(wd.states(), (24_964, 24_964));
        assert_eq!(estimate(&wd, &Board::goal(s)), 0);
    }

    /// The incremental update after every move equals the value from scratch, along random
    /// walks of both metrics' moves.
    #[test]
    fn updates_match_a_fresh_start() {
        let mut rng = crate::random::SplitMix64::new(3);
        for (r, c) in [(3, 3), (3, 4), (4, 4), (2, 5)] {
            let s = Shape::new(r, c).unwrap();
            for metric in [Metric::Stm, Metric::Mtm] {
                let wd = WalkingDistance::new(s, metric).unwrap();
                let mut board = Board::goal(s);
                let mut cells = board.permutation().to_vec();
                let (_, mut memo) = wd.start(&cells, &positions(&cells));
                for _ in 0..300 {
                    let blank = board.blank();
                    let targets = Metric::Stm.targets(s, blank);
                    let to = targets[rng.below(targets.len() as u64) as usize];
                    let slide = Slide {
                        piece: cells[to],
                        from: to,
                        to: blank,
                    };
                    cells.swap(blank, to);
                    board = Board::from_permutation(s, cells.clone()).unwrap();
                    let (h, m) = wd.after_move(&cells, &positions(&cells), slide, memo, u32::MAX);
                    memo = m;
                    assert_eq!(h, estimate(&wd, &board));
                }
            }
        }
    }

    #[test]
    fn too_large_shapes_are_refused() {
        let s = Shape::new(8, 8).unwrap();
        assert_eq!(
            WalkingDistance::new(s, Metric::Mtm).err(),
            Some(WalkingError::TooLarge { shape: s })
        );
    }
}
