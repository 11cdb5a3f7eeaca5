//! Solving toward any goal board with the heuristics of the standard goal.
//!
//! Moves do not depend on the tiles' names, nor on which way up the board is held. A goal
//! `G` whose blank is on a corner becomes the standard goal in two steps: the board is
//! flipped (left to right, top to bottom, or both) so that the corner becomes the last cell,
//! then every piece is renamed after the cell it has in the flipped goal (the blank stays the
//! blank). The same flip and renaming turn any board `B` into its *image* `B*`, and the moves
//! that solve `B*` toward the standard goal, flipped back, solve `B` toward `G`: the same
//! number of moves, and every heuristic and pattern database of the standard goal serves
//! unchanged.
//!
//! A goal whose blank is not on a corner is compared with `G'`, the goal with its blank slid
//! to the nearest corner: [`Goal::slack`] moves (the blank's Manhattan distance to that
//! corner in the single-tile metric; one move per axis in the multi-tile one). The flip and
//! renaming are those that make `G'` the standard goal; the search then goes toward the image
//! of `G` itself ([`Goal::target`]), and its bound is the standard heuristic less the slack:
//! since `d(B, G) >= d(B, G') - d(G', G)`, it stays admissible, and is weaker by at most the
//! slack (2 on 3x3 and 4x4, 4 at the centre of 5x5), so that such a search may take an
//! iteration or two longer than one toward a goal with its blank on a corner.
//!
//! Boards are in the same component as `G` exactly when their images are in the standard
//! goal's ([`Goal::reaches`]): the target is the standard goal with its blank moved, so it is
//! in that component.

use crate::board::{Board, Direction};
use crate::metric::Metric;
use crate::shape::Shape;
use crate::solve::estimator::{Estimator, Slide};

/// A goal board, and the flip and renaming that make it the standard goal (see the module
/// documentation).
///
/// ```
/// use npuzzle::{Board, Metric, Shape};
/// use npuzzle::solve::{self, Algorithm, Heuristic, Limits, goal::Goal};
///
/// let shape = Shape::square(3).unwrap();
/// let goal = Goal::new(&Board::parse_any(shape, "1 2 3 / 4 0 5 / 6 7 8").unwrap());
/// let board = Board::goal(shape);
/// let heuristic = Heuristic::manhattan(shape);
/// let limits = Limits::NONE;
/// let solution = solve::solve_toward(
///     &board, &goal, Metric::Stm, Algorithm::IdaStar, &heuristic, &limits, &npuzzle::NoProgress,
/// )
/// .unwrap();
/// assert_eq!(solution.length(), 14);
/// assert_eq!(solve::replay(&board, &solution.moves).as_ref(), Some(goal.board()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Goal {
    goal: Board,
    /// Whether the image is the board turned upside down (rows reversed).
    flip_rows: bool,
    /// Whether the image is the board mirrored left to right (columns reversed).
    flip_cols: bool,
    /// `rename[p]`: the name piece `p` takes in the image.
    rename: Vec<u8>,
    /// The goal's image: the standard goal when the goal's blank is on a corner.
    target: Board,
    /// Single-tile moves of the blank from the goal's cell to the nearest corner.
    slack_stm: u32,
    /// The same in multi-tile moves: one per axis it changes.
    slack_mtm: u32,
}

impl Goal {
    /// The goal `goal` (any board of at least one cell).
    pub fn new(goal: &Board) -> Goal {
        let shape = goal.shape();
        let (rows, cols) = (shape.rows(), shape.cols());
        let n = shape.cells();
        let blank = goal.blank();
        let (row, col) = shape.coords(blank);
        // The nearest corner; on a tie the bottom or the right, which needs no flip.
        let flip_rows = row < rows - 1 - row;
        let flip_cols = col < cols - 1 - col;
        let corner_row = if flip_rows { 0 } else { rows - 1 };
        let corner_col = if flip_cols { 0 } else { cols - 1 };
        // G': the blank slid to the corner, first along its column, then along its row.
        let mut cells = goal.permutation().to_vec();
        let mut at = blank;
        while at / cols != corner_row {
            let next = if at / cols < corner_row {
                at + cols
            } else {
                at - cols
            };
            cells.swap(at, next);
            at = next;
        }
        while at % cols != corner_col {
            let next = if at % cols < corner_col {
                at + 1
            } else {
                at - 1
            };
            cells.swap(at, next);
            at = next;
        }
        let flip = Flip {
            shape,
            rows: flip_rows,
            cols: flip_cols,
        };
        // Each piece is named after its cell in the flipped G' (the blank's is the last).
        let mut rename = vec![0u8; n];
        for (cell, &piece) in cells.iter().enumerate() {
            rename[piece as usize] = flip.cell(cell) as u8;
        }
        let mut goal_map = Goal {
            goal: goal.clone(),
            flip_rows,
            flip_cols,
            rename,
            target: goal.clone(),
            slack_stm: (row.abs_diff(corner_row) + col.abs_diff(corner_col)) as u32,
            slack_mtm: u32::from(row != corner_row) + u32::from(col != corner_col),
        };
        goal_map.target = goal_map.image(goal);
        goal_map
    }

    /// The standard goal of `shape` (tiles in order, the blank last): no flip, no renaming.
    pub fn standard(shape: Shape) -> Goal {
        Goal::new(&Board::goal(shape))
    }

    /// The goal board.
    pub fn board(&self) -> &Board {
        &self.goal
    }

    /// Its shape.
    pub fn shape(&self) -> Shape {
        self.goal.shape()
    }

    /// Whether it is the standard goal.
    pub fn is_standard(&self) -> bool {
        self.goal == Board::goal(self.shape())
    }

    fn flip(&self) -> Flip {
        Flip {
            shape: self.shape(),
            rows: self.flip_rows,
            cols: self.flip_cols,
        }
    }

    /// The image of `board` (of the goal's shape): flipped and renamed, so that solving it
    /// toward [`Goal::target`] solves `board` toward the goal, move for move.
    ///
    /// # Panics
    /// When `board` has another shape than the goal.
    pub fn image(&self, board: &Board) -> Board {
        assert_eq!(board.shape(), self.shape(), "a board of the goal's shape");
        let flip = self.flip();
        let from = board.permutation();
        let cells = (0..from.len())
            .map(|cell| self.rename[from[flip.cell(cell)] as usize])
            .collect();
        Board::from_permutation(self.shape(), cells).expect("a renamed permutation")
    }

    /// The goal's image: what the search of an image goes toward. The standard goal when the
    /// goal's blank is on a corner, else the standard goal with its blank moved
    /// [`Goal::slack`] cells away.
    pub fn target(&self) -> &Board {
        &self.target
    }

    /// By how many moves of `metric` the bound of a search toward the goal is lowered: the
    /// moves from the goal to the board whose image is the standard goal (its blank on the
    /// nearest corner). 0 when the goal's blank is on a corner.
    pub fn slack(&self, metric: Metric) -> u32 {
        match metric {
            Metric::Stm => self.slack_stm,
            Metric::Mtm => self.slack_mtm,
        }
    }

    /// Whether the goal can be reached from `board` (of the goal's shape): both are in one
    /// component of the game graph (the same parity class; on a one-wide board, the same
    /// order of tiles).
    pub fn reaches(&self, board: &Board) -> bool {
        board.shape() == self.shape() && self.image(board).is_solvable()
    }

    /// A move of the blank on an image as the move it is on the board itself.
    pub fn direction_back(&self, dir: Direction) -> Direction {
        match dir {
            Direction::Up | Direction::Down if self.flip_rows => dir.opposite(),
            Direction::Left | Direction::Right if self.flip_cols => dir.opposite(),
            _ => dir,
        }
    }

    /// Turns moves that solve an image into the moves that solve the board (in place).
    pub fn moves_back(&self, moves: &mut [Direction]) {
        if self.flip_rows || self.flip_cols {
            for dir in moves {
                *dir = self.direction_back(*dir);
            }
        }
    }
}

/// A reflection of a shape: rows reversed, columns reversed, both or neither (each its own
/// inverse).
#[derive(Debug, Clone, Copy)]
struct Flip {
    shape: Shape,
    rows: bool,
    cols: bool,
}

impl Flip {
    /// Where `cell` goes.
    fn cell(self, cell: usize) -> usize {
        let (mut r, mut c) = self.shape.coords(cell);
        if self.rows {
            r = self.shape.rows() - 1 - r;
        }
        if self.cols {
            c = self.shape.cols() - 1 - c;
        }
        r * self.shape.cols() + c
    }
}

/// An estimator's bound lowered by `slack` (never below 0): the bound toward a goal whose
/// image is the standard goal's neighbour `slack` moves away.
pub(crate) struct Shifted<'a, E> {
    pub inner: &'a E,
    pub slack: u32,
}

impl<E: Estimator> Estimator for Shifted<'_, E> {
    type Memo = E::Memo;

    fn start(&self, cells: &[u8], pos: &[u8]) -> (u32, E::Memo) {
        let (h, memo) = self.inner.start(cells, pos);
        (h.saturating_sub(self.slack), memo)
    }

    #[inline(always)]
    fn after_move(
        &self,
        cells: &[u8],
        pos: &[u8],
        slide: Slide,
        memo: E::Memo,
        budget: u32,
    ) -> (u32, E::Memo) {
        let budget = budget.saturating_add(self.slack);
        let (h, memo) = self.inner.after_move(cells, pos, slide, memo, budget);
        (h.saturating_sub(self.slack), memo)
    }

    #[inline(always)]
    fn pass(&self, cells: &[u8], pos: &[u8], slide: Slide, memo: E::Memo) -> E::Memo {
        self.inner.pass(cells, pos, slide, memo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoProgress;
    use crate::random::{SplitMix64, random_walk};
    use crate::solve::pdb::{Partition, PatternDatabases};
    use crate::solve::tests::distances_from;
    use crate::solve::walking::WalkingDistance;
    use crate::solve::{Algorithm, Heuristic, Limits, SolveError, replay, solve_toward};
    use indicatif::HumanCount;
    use std::sync::Arc;

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    /// Every goal of a few shapes: the image of the goal is the target, the target is the
    /// standard goal exactly when the goal's blank is on a corner, and otherwise it is the
    /// standard goal with the blank `slack` moves away; a walk on a board and the same walk,
    /// flipped, on its image stay images of each other.
    #[test]
    fn images_follow_the_moves() {
        let mut rng = SplitMix64::new(3);
        for s in [
            shape(3, 3),
            shape(2, 3),
            shape(3, 4),
            shape(1, 5),
            shape(4, 4),
        ] {
            for blank in 0..s.cells() {
                // A random goal with its blank on `blank`.
                let mut cells = random_walk(&Board::goal(s), 40, &mut rng)
                    .permutation()
                    .to_vec();
                let at = cells.iter().position(|&p| p as usize == s.cells() - 1);
                cells.swap(at.unwrap(), blank);
                let g = Goal::new(&Board::from_permutation(s, cells).unwrap());
                assert_eq!(g.image(g.board()), *g.target());
                let (r, c) = s.coords(blank);
                let corner = (r == 0 || r == s.rows() - 1) && (c == 0 || c == s.cols() - 1);
                assert_eq!(*g.target() == Board::goal(s), corner, "{s} {blank}");
                assert_eq!(g.slack(Metric::Stm) == 0, corner);
                assert!(g.slack(Metric::Mtm) <= g.slack(Metric::Stm));
                assert!(g.target().is_solvable());
                if s.cells() <= 9 {
                    let t = distances_from(s, Metric::Stm, &Board::goal(s));
                    assert_eq!(
                        u32::from(t[g.target().rank() as usize]),
                        g.slack(Metric::Stm),
                        "{s} {blank}"
                    );
                }
                let b = random_walk(g.board(), 30, &mut rng);
                let mut board = b.clone();
                let mut image = g.image(&b);
                for _ in 0..50 {
                    let dir = Direction::ALL[rng.below(4) as usize];
                    let Some(next) = image.moved(dir) else {
                        continue;
                    };
                    image = next;
                    board = board.moved(g.direction_back(dir)).unwrap();
                    assert_eq!(g.image(&board), image);
                }
            }
        }
        let standard = Goal::standard(shape(3, 3));
        assert!(!Goal::new(&Board::test_goals(shape(3, 3))[1]).is_standard());
        assert!(standard.is_standard());
        assert_eq!(
            standard.image(&Board::goal(shape(3, 3))),
            Board::goal(shape(3, 3))
        );
    }

    /// The heuristics of the standard goal, made for `s` in `metric`.
    fn heuristics(s: Shape, metric: Metric) -> Vec<Heuristic> {
        let walking =
            Heuristic::walking_distance(Arc::new(WalkingDistance::new(s, metric).unwrap()));
        let depths = distances_from(s, metric, &Board::goal(s));
        let exact = Heuristic::exact(Arc::new(
            crate::solve::exact::ExactTable::with_metric(s, metric, depths).unwrap(),
        ));
        if !metric.moves_one_tile() {
            return vec![walking, exact];
        }
        let partition = Partition::default_for(s).unwrap();
        let pdb = PatternDatabases::build(&partition, &NoProgress).unwrap();
        vec![
            Heuristic::manhattan(s),
            Heuristic::linear_conflict(s),
            walking,
            Heuristic::pdb(Arc::new(pdb)),
            exact,
        ]
    }

    /// Toward goals with the blank on a corner, on an edge and inside (3x3, 2x3, 2x4), in both
    /// metrics: on random boards of the goal's component, A* and IDA* with every heuristic
    /// (and BFS and UCS on some) find the board's depth in the BFS from the goal (the
    /// library's, as `analyze --goal` runs it), and the moves, replayed from the board, end
    /// on the goal; boards of the other component are unsolvable, found without searching.
    #[test]
    fn solutions_toward_any_goal_have_the_depth_of_the_bfs_from_it() {
        let mut rng = SplitMix64::new(50);
        for (s, goals) in [
            (
                shape(3, 3),
                [
                    "3 1 2 / 6 4 5 / 0 7 8",
                    "1 2 3 / 4 0 5 / 6 7 8",
                    "8 7 6 / 5 4 3 / 2 0 1",
                ],
            ),
            (
                shape(2, 3),
                ["0 5 4 / 3 2 1", "1 0 2 / 3 4 5", "5 4 3 / 2 1 0"],
            ),
            (
                shape(2, 4),
                [
                    "7 6 5 4 / 0 3 2 1",
                    "1 2 3 4 / 5 0 6 7",
                    "2 1 3 4 / 5 6 7 0",
                ],
            ),
        ] {
            for metric in [Metric::Stm, Metric::Mtm] {
                let hs = heuristics(s, metric);
                for text in goals {
                    let board = Board::parse_any(s, text).unwrap();
                    let goal = Goal::new(&board);
                    let depth = distances_from(s, metric, &board);
                    for round in 0..25 {
                        let b = random_walk(&board, 40, &mut rng);
                        let d = u32::from(depth[b.rank() as usize]);
                        let solve = |algorithm, h: &Heuristic| {
                            let limits = Limits::NONE;
                            let found =
                                solve_toward(&b, &goal, metric, algorithm, h, &limits, &NoProgress)
                                    .unwrap_or_else(|e| panic!("{s} {text} {}: {e}", b.label()));
                            assert_eq!(replay(&b, &found.moves).as_ref(), Some(&board));
                            assert_eq!(
                                found.length() as u32,
                                d,
                                "{s} {text} {} {algorithm} {:?} {metric:?}",
                                b.label(),
                                h.kind()
                            );
                        };
                        for h in &hs {
                            solve(Algorithm::IdaStar, h);
                            solve(Algorithm::AStar, h);
                        }
                        if round < 5 {
                            solve(Algorithm::Bfs, &hs[0]);
                            solve(Algorithm::Ucs, &hs[0]);
                        }
                    }
                    // The other component: two tiles swapped.
                    let mut other = board.permutation().to_vec();
                    let tiles: Vec<usize> = (0..s.cells())
                        .filter(|&c| c != board.blank())
                        .take(2)
                        .collect();
                    other.swap(tiles[0], tiles[1]);
                    let other = Board::from_permutation(s, other).unwrap();
                    assert!(!goal.reaches(&other) && goal.reaches(&board));
                    assert_eq!(depth[other.rank() as usize], u8::MAX);
                    for algorithm in Algorithm::ALL {
                        let limits = Limits::NONE;
                        let r = solve_toward(
                            &other,
                            &goal,
                            metric,
                            algorithm,
                            &hs[0],
                            &limits,
                            &NoProgress,
                        );
                        assert_eq!(r, Err(SolveError::Unsolvable));
                    }
                }
            }
        }
    }

    /// IDA* reports each bound as it starts, from the heuristic's estimate of the start up to
    /// the solution's length, with the nodes expanded so far.
    #[test]
    fn idastar_reports_each_bound() {
        #[derive(Default)]
        struct ProgressLog(
            std::sync::Mutex<Vec<(u64, String)>>,
            std::sync::Mutex<Vec<String>>,
        );
        impl crate::Progress for ProgressLog {
            fn begin(&self, task: &str, total: u64, unit: &str) {
                self.1
                    .lock()
                    .unwrap()
                    .push(format!("begin {task} {total} {unit}"));
            }
            fn update(&self, done: u64, note: &str) {
                self.0.lock().unwrap().push((done, note.to_string()));
            }
            fn end(&self) {
                self.1.lock().unwrap().push("end".into());
            }
        }
        let s = shape(3, 3);
        let b = Board::parse_tiles(s, "8 6 7 2 5 4 3 0 1").unwrap();
        let h = Heuristic::manhattan(s);
        let log = ProgressLog::default();
        let goal = Goal::standard(s);
        let found = solve_toward(
            &b,
            &goal,
            Metric::Stm,
            Algorithm::IdaStar,
            &h,
            &Limits::NONE,
            &log,
        )
        .unwrap();
        assert_eq!(found.length(), 31);
        let updates = log.0.lock().unwrap().clone();
        let bounds: Vec<u32> = updates
            .iter()
            .map(|(_, note)| {
                note.strip_prefix("bound ")
                    .unwrap()
                    .split(':')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        // Manhattan 21, then up by two (every move changes the parity of g + h).
        assert_eq!(bounds, [21, 23, 25, 27, 29, 31]);
        assert_eq!(updates[0].0, 0);
        assert!(updates.windows(2).all(|w| w[0].0 < w[1].0), "{updates:?}");
        assert!(
            updates
                .iter()
                .all(|(done, note)| note.contains(&format!(" {} nodes", HumanCount(*done))))
        );
        assert_eq!(*log.1.lock().unwrap(), ["begin IDA* 0 nodes", "end"]);
    }
}
