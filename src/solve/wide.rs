//! Boards beyond a [`Shape`]'s 64 cells: the 8-puzzle assignment's `N x N` boards for every
//! `2 <= N < 128`, and the rectangles of those sides, solved optimally by IDA* with Manhattan
//! distance and linear conflict ([`solve`]).
//!
//! A [`Shape`] holds at most [`crate::shape::MAX_CELLS`] cells (boards one byte a cell, cell
//! sets in a `u64`), which every engine, table and pattern database of the crate relies on.
//! A [`WideBoard`] keeps its pieces in `u16` (up to 127 x 127 = 16,129 cells) and is solved
//! here. It shares with [`Board`] what a board is: the internal permutation (`cells[i]` is the
//! goal cell of the piece on cell `i`, the blank `n - 1`, the goal the identity), the move
//! rule ([`Direction::step_on`]), the parity rule ([`crate::board::solvable`]), the grid
//! ([`crate::board::write_grid`]), the linear-conflict count of a line and the line a move
//! changes (`line_removed`, `Line::changed`: the code of
//! [`crate::solve::Heuristic::linear_conflict`]), the reading of the assignment's
//! format ([`crate::solve::input::parse_assignment_any`]), and the [`Limits`], [`Solution`]
//! and [`SolveError`] of the other searches, and IDA*'s iterations, clock and progress notes
//! (the board's search's `iterate` and `IdaClock`).
//!
//! The search is IDA* (Korf 1985) as in [`crate::solve::idastar`], in the single-tile
//! metric, with an explicit stack instead of recursion: the bound of a random 127 x 127
//! board is over a million moves, deeper than any thread's stack. Each move updates the
//! Manhattan distance in `O(1)` and the conflicts of the moved tile's goal line in
//! `O(L log L)` for a line of `L` cells (Hansson, Mayer & Yung 1992). Both bounds are
//! consistent, so a board whose Manhattan distance equals the length of a walk from the goal
//! is solved in one iteration ([`scramble`] makes such boards); a random large board is far
//! beyond reach (its Manhattan distance alone is in the thousands) and stops on
//! [`Limits::time_limit`].
//!
//! ```
//! use npuzzle::solve::{HeuristicKind, Limits, wide};
//! use npuzzle::NoProgress;
//!
//! let board = wide::scramble(10, 10, 16, 7).unwrap();
//! let solution =
//!     wide::solve(&board, HeuristicKind::LinearConflict, &Limits::NONE, &NoProgress).unwrap();
//! assert_eq!(solution.length(), 16);
//! assert!(wide::replay(&board, &solution.moves).is_some_and(|b| b.is_goal()));
//! ```

use std::fmt;
use std::mem::size_of;
use std::time::Instant;

use crate::board::{Direction, solvable, write_grid};
use crate::metric::Metric;
use crate::progress::Progress;
use crate::random::SplitMix64;
use crate::shape::Shape;
use crate::solve::heuristic::{Line, LineOrder, line_removed};
use crate::solve::search::{Flow, IdaClock, Iterated, iterate};
use crate::solve::{HeuristicKind, Limits, Solution, SolveError};

#[cfg(doc)]
use crate::board::Board;

/// The longest side of a [`WideBoard`]: the assignment's `N < 128`.
pub const MAX_SIDE: usize = LineOrder::MAX_LINE - 1;

/// Why tiles are not a wide board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WideError {
    /// A side outside `2..=MAX_SIDE`.
    #[error(
        "a {rows}x{cols} board is not supported: boards need 2 to {MAX_SIDE} rows and columns \
         (the assignment's 2 <= N < 128)"
    )]
    Sides {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// The wrong number of tiles.
    #[error("expected {expected} numbers for a {rows}x{cols} board, found {found}")]
    WrongLength {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// `rows * cols`.
        expected: usize,
        /// Numbers found.
        found: usize,
    },
    /// A number outside `0..rows * cols`.
    #[error("tile {tile} is out of range for a {rows}x{cols} board (tiles are 0 to {hi})")]
    OutOfRange {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// The offending number.
        tile: u64,
        /// The largest tile, `rows * cols - 1`.
        hi: u64,
    },
    /// A number that appears twice (so another is missing).
    #[error("tile {tile} appears more than once and tile {missing} is missing")]
    Repeated {
        /// The repeated tile.
        tile: u64,
        /// The smallest missing tile.
        missing: u64,
    },
}

/// One arrangement of the tiles of a `rows x cols` board, `2 <= rows, cols <= MAX_SIDE`
/// (any size in that range, those a [`Shape`] holds included): always a permutation, pieces
/// in `u16`. See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WideBoard {
    rows: usize,
    cols: usize,
    /// `cells[i]`: the goal cell of the piece on cell `i` (the blank is `n - 1`).
    cells: Vec<u16>,
}

impl WideBoard {
    /// Checks the sides of a wide board.
    ///
    /// # Errors
    /// [`WideError::Sides`] unless both are in `2..=MAX_SIDE`.
    pub fn check_sides(rows: usize, cols: usize) -> Result<(), WideError> {
        if (2..=MAX_SIDE).contains(&rows) && (2..=MAX_SIDE).contains(&cols) {
            Ok(())
        } else {
            Err(WideError::Sides { rows, cols })
        }
    }

    /// The goal: tiles `1..n-1` in row-major order, the blank in the last cell.
    ///
    /// # Errors
    /// As [`WideBoard::check_sides`].
    pub fn goal(rows: usize, cols: usize) -> Result<WideBoard, WideError> {
        WideBoard::check_sides(rows, cols)?;
        Ok(WideBoard {
            rows,
            cols,
            cells: (0..(rows * cols) as u16).collect(),
        })
    }

    /// A board from the assignment's tile list: row-major, `0` is the blank.
    ///
    /// # Errors
    /// [`WideError`] for bad sides, a wrong count, a number out of `0..n` or a repeated one.
    pub fn from_tiles(rows: usize, cols: usize, tiles: &[u64]) -> Result<WideBoard, WideError> {
        WideBoard::check_sides(rows, cols)?;
        let n = rows * cols;
        if tiles.len() != n {
            return Err(WideError::WrongLength {
                rows,
                cols,
                expected: n,
                found: tiles.len(),
            });
        }
        let mut seen = vec![false; n];
        for &tile in tiles {
            if tile >= n as u64 {
                return Err(WideError::OutOfRange {
                    rows,
                    cols,
                    tile,
                    hi: n as u64 - 1,
                });
            }
            if std::mem::replace(&mut seen[tile as usize], true) {
                let missing = seen.iter().position(|s| !s).unwrap_or(0) as u64;
                // The first unseen number may still come later: name one truly missing.
                let missing = (missing..n as u64)
                    .find(|t| !tiles.contains(t))
                    .unwrap_or(missing);
                return Err(WideError::Repeated { tile, missing });
            }
        }
        let cells = tiles
            .iter()
            .map(|&t| (if t == 0 { n - 1 } else { t as usize - 1 }) as u16)
            .collect();
        Ok(WideBoard { rows, cols, cells })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Number of cells, `rows * cols`.
    pub fn cells(&self) -> usize {
        self.cells.len()
    }

    /// The internal permutation: `permutation()[i]` is the goal cell of the piece on cell `i`.
    pub fn permutation(&self) -> &[u16] {
        &self.cells
    }

    /// The tile on each cell, row-major, `0` for the blank.
    pub fn tiles(&self) -> impl Iterator<Item = u64> + '_ {
        let blank = self.cells.len() - 1;
        self.cells.iter().map(move |&v| {
            if v as usize == blank {
                0
            } else {
                u64::from(v) + 1
            }
        })
    }

    /// The cell holding the blank.
    pub fn blank(&self) -> usize {
        let blank = (self.cells.len() - 1) as u16;
        self.cells.iter().position(|&v| v == blank).unwrap_or(0)
    }

    /// Whether this is the goal.
    pub fn is_goal(&self) -> bool {
        self.cells.iter().enumerate().all(|(i, &v)| v as usize == i)
    }

    /// Whether the goal can be reached: the parity rule of [`Board::is_solvable`], in `O(n)`.
    pub fn is_solvable(&self) -> bool {
        solvable(self.rows, self.cols, &self.cells)
    }

    /// The board as a grid, one row per line (no trailing newline), numbers right-aligned,
    /// the blank as `.` (as [`Board::grid`]).
    pub fn grid(&self) -> String {
        write_grid(self.tiles(), self.cells.len(), self.cols)
    }

    /// The board after the blank moves `dir`, or `None` when that leaves the board.
    pub fn moved(&self, dir: Direction) -> Option<WideBoard> {
        let b = self.blank();
        let to = dir.step_on(self.rows, self.cols, b)?;
        let mut next = self.clone();
        next.cells.swap(b, to);
        Some(next)
    }

    /// The same board as a [`Board`] of its [`Shape`], when it has at most 64 cells.
    pub fn narrow(&self) -> Option<crate::board::Board> {
        let shape = Shape::new(self.rows, self.cols).ok()?;
        let cells = self.cells.iter().map(|&v| v as u8).collect();
        crate::board::Board::from_permutation(shape, cells).ok()
    }
}

impl fmt::Display for WideBoard {
    /// The board's size, `RxC` (as a [`Shape`] writes it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

/// `board` after the blank makes `moves`, or `None` if a move leaves the board (as
/// [`crate::solve::replay`]).
pub fn replay(board: &WideBoard, moves: &[Direction]) -> Option<WideBoard> {
    let mut current = board.clone();
    let (rows, cols) = (board.rows, board.cols);
    let mut blank = current.blank();
    for &dir in moves {
        let to = dir.step_on(rows, cols, blank)?;
        current.cells.swap(blank, to);
        blank = to;
    }
    Some(current)
}

/// A board exactly `moves` moves from the goal of `rows x cols`, from `seed`: a random walk
/// of the blank from the goal in which every move takes its tile one cell farther from the
/// tile's goal cell. Its Manhattan distance is then `moves`, a lower bound, and the walk
/// back an upper bound: the optimal length is `moves`, with no search to prove it. `None`
/// for bad sides, or when 1,000 walks from `seed` all got stuck before `moves` (small
/// boards, long walks: the Manhattan distance of a 2x2 board is at most 6).
pub fn scramble(rows: usize, cols: usize, moves: usize, seed: u64) -> Option<WideBoard> {
    let goal = WideBoard::goal(rows, cols).ok()?;
    let mut rng = SplitMix64::new(seed);
    'walks: for _ in 0..1_000 {
        let mut board = goal.clone();
        let mut blank = board.blank();
        for _ in 0..moves {
            let mut away = [0usize; 4];
            let mut count = 0;
            for dir in Direction::ALL {
                let Some(to) = dir.step_on(rows, cols, blank) else {
                    continue;
                };
                let piece = board.cells[to] as usize;
                let (gr, gc) = (piece / cols, piece % cols);
                let before = (to / cols).abs_diff(gr) + (to % cols).abs_diff(gc);
                let after = (blank / cols).abs_diff(gr) + (blank % cols).abs_diff(gc);
                if after > before {
                    away[count] = to;
                    count += 1;
                }
            }
            if count == 0 {
                continue 'walks;
            }
            let to = away[rng.below(count as u64) as usize];
            board.cells.swap(blank, to);
            blank = to;
        }
        return Some(board);
    }
    None
}

/// Solves `board` optimally in the single-tile metric by IDA* with `kind`, Manhattan
/// distance or linear conflict (Manhattan plus two moves per tile that must leave its goal
/// line), reporting each bound to `progress` and stopping on `limits` as
/// [`crate::solve::solve_toward`]'s IDA* does (a `progress` that asks to stop ends it with
/// [`SolveError::TimeUp`]).
///
/// Time: the boards within each bound, `O(1)` for Manhattan and `O(L log L)` for linear
/// conflict per board (`L` the longest side); memory: the board, and a frame per move of the
/// current path.
///
/// # Errors
/// [`SolveError::Unsolvable`] (by parity, no search), [`SolveError::WideHeuristic`] for
/// another heuristic, [`SolveError::LimitReached`] and [`SolveError::TimeUp`].
pub fn solve(
    board: &WideBoard,
    kind: HeuristicKind,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<Solution, SolveError> {
    let started = Instant::now();
    let conflicts = match kind {
        HeuristicKind::Manhattan => false,
        HeuristicKind::LinearConflict => true,
        _ => return Err(SolveError::WideHeuristic { kind }),
    };
    if !board.is_solvable() {
        return Err(SolveError::Unsolvable);
    }
    let mut ida = WideIda::new(board, conflicts, limits, started, progress);
    let (blank, memo) = (board.blank(), ida.start());
    iterate(&mut ida, memo.bound(), |ida, bound| {
        ida.search(blank, memo, bound)
    })?;
    let frames = ida.deepest as u64 + 1;
    Ok(Solution {
        metric: Metric::Stm,
        moves: ida.path,
        expanded: ida.clock.expanded,
        generated: ida.clock.generated,
        elapsed: started.elapsed(),
        peak_nodes: frames,
        // The board and its cells' coordinates, plus a frame and a move per level.
        peak_bytes: 4 * board.cells() as u64 + frames * (size_of::<Frame>() as u64 + 1),
    })
}

/// The bound's parts: the Manhattan distance and the tiles that must leave their line.
#[derive(Debug, Clone, Copy)]
struct WideMemo {
    manhattan: u32,
    removed: u32,
}

impl WideMemo {
    fn bound(self) -> u32 {
        self.manhattan + 2 * self.removed
    }
}

/// One board of IDA*'s path: where its blank is, its bound's parts, the next direction to
/// try (index into [`Direction::ALL`]) and the direction index it came by.
#[derive(Debug, Clone, Copy)]
struct Frame {
    blank: u16,
    memo: WideMemo,
    next: u8,
    came: u8,
}

/// "No move": the start board's incoming move.
const NO_MOVE: u8 = 0xFF;

/// IDA*'s state: the board edited in place, the path to it, the counters.
struct WideIda<'a> {
    rows: usize,
    cols: usize,
    cells: Vec<u16>,
    /// Row and column of each cell (no division per node).
    coords: Vec<(u8, u8)>,
    conflicts: bool,
    stack: Vec<Frame>,
    path: Vec<Direction>,
    clock: IdaClock<'a>,
    deepest: usize,
}

impl<'a> Iterated<'a> for WideIda<'a> {
    #[inline(always)]
    fn clock(&mut self) -> &mut IdaClock<'a> {
        &mut self.clock
    }
}

impl<'a> WideIda<'a> {
    fn new(
        board: &WideBoard,
        conflicts: bool,
        limits: &Limits,
        started: Instant,
        progress: &'a dyn Progress,
    ) -> WideIda<'a> {
        let (rows, cols) = (board.rows, board.cols);
        WideIda {
            rows,
            cols,
            cells: board.cells.clone(),
            coords: (0..rows * cols)
                .map(|c| ((c / cols) as u8, (c % cols) as u8))
                .collect(),
            conflicts,
            stack: Vec::new(),
            path: Vec::new(),
            clock: IdaClock::new(limits, started, progress),
            deepest: 0,
        }
    }

    #[inline(always)]
    fn coords(&self, cell: usize) -> (usize, usize) {
        let (r, c) = self.coords[cell];
        (r as usize, c as usize)
    }

    /// The Manhattan distance of `piece` on `cell`.
    #[inline(always)]
    fn distance(&self, piece: usize, cell: usize) -> u32 {
        let ((r, c), (gr, gc)) = (self.coords(cell), self.coords(piece));
        (r.abs_diff(gr) + c.abs_diff(gc)) as u32
    }

    /// The tiles that must leave `line`, reading the cells with `swap.0` and `swap.1`
    /// exchanged ([`line_removed`], the small boards' code).
    fn removed(&self, line: Line, swap: (usize, usize)) -> u32 {
        line_removed(
            &self.cells,
            &self.coords,
            (self.rows, self.cols),
            line,
            swap,
        )
    }

    /// The bound's parts of the board as it is, from scratch.
    fn start(&self) -> WideMemo {
        let blank = self.cells.len() - 1;
        let manhattan = (self.cells.iter().enumerate())
            .filter(|&(_, &p)| p as usize != blank)
            .map(|(cell, &p)| self.distance(p as usize, cell))
            .sum();
        let removed = if self.conflicts {
            let rows = (0..self.rows).map(|r| self.removed(Line::Row(r), (0, 0)));
            let cols = (0..self.cols).map(|c| self.removed(Line::Col(c), (0, 0)));
            rows.chain(cols).sum()
        } else {
            0
        };
        WideMemo { manhattan, removed }
    }

    /// The parts after `piece` slid from cell `from` to cell `to` (the cells already show
    /// it): only the tile's own goal line can change, when the tile enters or leaves it (as
    /// in `heuristic.rs`).
    #[inline]
    fn after(&self, piece: usize, from: usize, to: usize, memo: WideMemo) -> WideMemo {
        let mut next = memo;
        next.manhattan = memo.manhattan + self.distance(piece, to) - self.distance(piece, from);
        if self.conflicts {
            let goal = self.coords(piece);
            if let Some(line) = Line::changed(goal, self.coords(from), self.coords(to)) {
                let before = self.removed(line, (from, to));
                let after = self.removed(line, (to, to));
                next.removed = memo.removed + after - before;
            }
        }
        next
    }

    /// Visits a board just reached (its frame on top of the stack): the goal test and the
    /// limits.
    #[inline]
    fn visit(&mut self, memo: WideMemo) -> Option<Flow> {
        self.clock.expanded += 1;
        // Manhattan distance 0: every tile on its goal cell, the goal.
        if memo.manhattan == 0 {
            return Some(Flow::Found);
        }
        if self.clock.stops() {
            return Some(Flow::Stopped);
        }
        self.deepest = self.deepest.max(self.stack.len() - 1);
        None
    }

    /// One depth-first search within `bound` from the board in `self.cells` (blank on
    /// `blank`), never undoing the previous move. On [`Flow::Found`] the path is on
    /// `self.path`; otherwise the board is back as it was.
    fn search(&mut self, blank: usize, memo: WideMemo, bound: u32) -> Flow {
        let blank_piece = (self.cells.len() - 1) as u16;
        self.stack.clear();
        self.path.clear();
        self.stack.push(Frame {
            blank: blank as u16,
            memo,
            next: 0,
            came: NO_MOVE,
        });
        if let Some(flow) = self.visit(memo) {
            return self.unwind(flow);
        }
        loop {
            let depth = self.stack.len();
            let Some(top) = self.stack.last_mut() else {
                return Flow::Exhausted;
            };
            if top.next as usize == Direction::ALL.len() {
                // Every child tried: back to the parent, the move undone.
                let child = self.stack.pop().expect("a frame");
                if let Some(parent) = self.stack.last() {
                    let (at, back) = (child.blank as usize, parent.blank as usize);
                    self.cells[at] = self.cells[back];
                    self.cells[back] = blank_piece;
                    self.path.pop();
                }
                continue;
            }
            let dir = Direction::ALL[top.next as usize];
            top.next += 1;
            let (from_blank, parent_memo, came) = (top.blank as usize, top.memo, top.came);
            if dir.index() ^ 1 == came {
                continue;
            }
            let Some(to) = dir.step_on(self.rows, self.cols, from_blank) else {
                continue;
            };
            self.clock.generated += 1;
            // The tile on `to` slides into the blank's cell.
            let piece = self.cells[to];
            self.cells[from_blank] = piece;
            self.cells[to] = blank_piece;
            let child = self.after(piece as usize, to, from_blank, parent_memo);
            let f = depth as u32 + child.bound();
            if f > bound {
                self.clock.next_bound = self.clock.next_bound.min(f);
                self.cells[to] = piece;
                self.cells[from_blank] = blank_piece;
                continue;
            }
            self.path.push(dir);
            self.stack.push(Frame {
                blank: to as u16,
                memo: child,
                next: 0,
                came: dir.index(),
            });
            if let Some(flow) = self.visit(child) {
                return self.unwind(flow);
            }
        }
    }

    /// Ends an iteration with `flow`: on a stop, the board put back as it was at the start.
    fn unwind(&mut self, flow: Flow) -> Flow {
        if !matches!(flow, Flow::Found) {
            let blank_piece = (self.cells.len() - 1) as u16;
            while let Some(child) = self.stack.pop() {
                if let Some(parent) = self.stack.last() {
                    let (at, back) = (child.blank as usize, parent.blank as usize);
                    self.cells[at] = self.cells[back];
                    self.cells[back] = blank_piece;
                }
            }
            self.path.clear();
        }
        flow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoProgress;
    use crate::board::Board;
    use crate::random::random_walk;
    use crate::solve::tests::distances;

    fn solved(board: &WideBoard, kind: HeuristicKind) -> usize {
        let s = solve(board, kind, &Limits::NONE, &NoProgress)
            .unwrap_or_else(|e| panic!("{board}: {e}"));
        assert!(
            replay(board, &s.moves).is_some_and(|b| b.is_goal()),
            "{}",
            board.grid()
        );
        s.length()
    }

    fn wide(board: &Board) -> WideBoard {
        let s = board.shape();
        WideBoard::from_tiles(s.rows(), s.cols(), &board.tiles().collect::<Vec<_>>()).unwrap()
    }

    /// On random 3x3 and 2x4 boards (every distance up to the antipodes' 31 of OEIS A089473,
    /// and 2x4's 36), both heuristics find the BFS distance.
    #[test]
    fn agrees_with_bfs_on_small_boards() {
        for (r, c) in [(2, 2), (2, 3), (3, 3), (2, 4)] {
            let shape = Shape::new(r, c).unwrap();
            let depth = distances(shape);
            let mut rng = SplitMix64::new(62);
            for _ in 0..40 {
                let board = crate::random::random_solvable(shape, &mut rng);
                let d = depth[board.rank() as usize] as usize;
                let w = wide(&board);
                assert_eq!(w.narrow(), Some(board.clone()));
                assert_eq!(solved(&w, HeuristicKind::LinearConflict), d);
                if r * c <= 6 {
                    assert_eq!(solved(&w, HeuristicKind::Manhattan), d);
                }
            }
        }
        for tiles in ["8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1"] {
            let w = wide(&Board::parse_tiles(Shape::square(3).unwrap(), tiles).unwrap());
            assert_eq!(solved(&w, HeuristicKind::LinearConflict), 31);
        }
    }

    /// The incremental bound equals a fresh one along a walk on a 9x11 board, and the
    /// parity rule agrees with an inversion count (the textbook rule: odd width, even
    /// inversions; even width, inversions plus the blank's row from the bottom odd).
    #[test]
    fn incremental_bound_and_parity() {
        let mut board = WideBoard::goal(9, 11).unwrap();
        let mut ida = WideIda::new(&board, true, &Limits::NONE, Instant::now(), &NoProgress);
        let mut memo = ida.start();
        let mut rng = SplitMix64::new(5);
        for _ in 0..3_000 {
            let blank = board.blank();
            let dirs: Vec<Direction> = Direction::ALL
                .into_iter()
                .filter(|d| d.step_on(9, 11, blank).is_some())
                .collect();
            let dir = dirs[rng.below(dirs.len() as u64) as usize];
            board = board.moved(dir).unwrap();
            ida.cells.copy_from_slice(&board.cells);
            let piece = board.cells[blank] as usize;
            memo = ida.after(piece, board.blank(), blank, memo);
            let fresh = ida.start();
            assert_eq!(
                (memo.manhattan, memo.removed),
                (fresh.manhattan, fresh.removed)
            );
        }
        assert!(memo.removed > 0);
        for (rows, cols) in [(9, 11), (10, 10), (2, 127), (127, 4)] {
            let mut rng = SplitMix64::new(rows as u64);
            let n = rows * cols;
            for _ in 0..20 {
                let mut tiles: Vec<u64> = (0..n as u64).collect();
                for i in (1..n).rev() {
                    tiles.swap(i, rng.below(i as u64 + 1) as usize);
                }
                let b = WideBoard::from_tiles(rows, cols, &tiles).unwrap();
                let numbered: Vec<u64> = tiles.iter().copied().filter(|&t| t != 0).collect();
                let inversions = (0..numbered.len())
                    .map(|i| {
                        numbered[i + 1..]
                            .iter()
                            .filter(|&&t| t < numbered[i])
                            .count()
                    })
                    .sum::<usize>();
                let blank_row_from_bottom = rows - b.blank() / cols;
                let textbook = if cols % 2 == 1 {
                    inversions % 2 == 0
                } else {
                    (inversions + blank_row_from_bottom) % 2 == 1
                };
                assert_eq!(b.is_solvable(), textbook, "{rows}x{cols}");
            }
        }
    }

    /// Scrambles of `k` moves away from the goal are solved in exactly `k` moves, on the
    /// largest boards too; a random walk (no such guarantee) is solved in at most its length.
    #[test]
    fn scrambles_are_solved_in_their_length() {
        for (rows, cols, k) in [(10, 10, 16), (9, 9, 10), (127, 127, 24), (2, 127, 12)] {
            let board = scramble(rows, cols, k, 62).unwrap();
            assert_eq!(solved(&board, HeuristicKind::LinearConflict), k);
        }
        let shape = Shape::new(5, 5).unwrap();
        let walked = random_walk(&Board::goal(shape), 30, &mut SplitMix64::new(3));
        assert!(solved(&wide(&walked), HeuristicKind::LinearConflict) <= 30);
    }

    #[test]
    fn errors_and_limits() {
        assert_eq!(
            WideBoard::goal(128, 2).unwrap_err().to_string(),
            "a 128x2 board is not supported: boards need 2 to 127 rows and columns (the \
             assignment's 2 <= N < 128)"
        );
        assert_eq!(
            WideBoard::from_tiles(2, 2, &[1, 2, 2, 0])
                .unwrap_err()
                .to_string(),
            "tile 2 appears more than once and tile 3 is missing"
        );
        assert_eq!(
            WideBoard::from_tiles(2, 2, &[1, 2, 4, 0])
                .unwrap_err()
                .to_string(),
            "tile 4 is out of range for a 2x2 board (tiles are 0 to 3)"
        );
        let mut swapped = WideBoard::goal(10, 10).unwrap();
        swapped.cells.swap(0, 1);
        assert_eq!(
            solve(
                &swapped,
                HeuristicKind::LinearConflict,
                &Limits::NONE,
                &NoProgress
            ),
            Err(SolveError::Unsolvable)
        );
        // A random 20x20 board: its Manhattan distance, a lower bound, is far above 1,000.
        let mut rng = SplitMix64::new(1);
        let mut tiles: Vec<u64> = (0..400).collect();
        for i in (1..400).rev() {
            tiles.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut hard = WideBoard::from_tiles(20, 20, &tiles).unwrap();
        if !hard.is_solvable() {
            let free: Vec<usize> = (0..400).filter(|&i| i != hard.blank()).take(2).collect();
            hard.cells.swap(free[0], free[1]);
        }
        assert!(hard.is_solvable());
        let capped = Limits {
            max_expanded: Some(1_000),
            ..Limits::NONE
        };
        assert!(matches!(
            solve(&hard, HeuristicKind::Manhattan, &capped, &NoProgress),
            Err(SolveError::LimitReached {
                expanded: 1_000,
                ..
            })
        ));
        assert!(matches!(
            solve(&hard, HeuristicKind::Pdb, &Limits::NONE, &NoProgress),
            Err(SolveError::WideHeuristic { .. })
        ));
    }
}
