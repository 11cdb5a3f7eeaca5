//! Heuristics: lower bounds on the number of moves left, for A* and IDA*.
//!
//! Every heuristic here is **admissible** in the single-tile metric (never above the true
//! distance to the goal), so A* and IDA* return optimal solutions with any of them; in the
//! multi-tile metric only walking distance and the MTM exact table are
//! ([`crate::solve::HeuristicKind::admissible_in`]). From weakest to strongest:
//!
//! - **Hamming**: the number of tiles not on their goal cell (the blank is not counted).
//! - **Manhattan distance**: the sum over tiles of `|row - goal row| + |col - goal col|`;
//!   each move changes it by exactly one, so it is also consistent.
//! - **Linear conflict** (Hansson, Mayer & Yung 1992): Manhattan plus two moves for every tile
//!   that must leave its goal row (or column) to let another tile of that line pass. Per
//!   line the count is exact: the tiles of the line that sit in it, minus the longest
//!   subsequence of them already in goal order. Row and column conflicts add up because they
//!   cost vertical and horizontal moves respectively. A move changes it by exactly one, so it
//!   is consistent too.
//! - **Walking distance** ([`crate::solve::walking`], Takahashi): the fewest row changes and
//!   column changes of two abstractions; admissible in both metrics, the heuristic of the
//!   multi-tile metric.
//! - **Pattern databases** ([`crate::solve::pdb`]): additive disjoint pattern databases; in
//!   the multi-tile metric, domain abstractions of the whole board searched with MTM moves
//!   ([`crate::solve::domain`]), with their transpose and walking distance.
//! - **Exact table** ([`crate::solve::exact`]): the true distance, looked up; or given by
//!   the caller ([`Oracle`], e.g. a distance table of `analyze --table` walked to the goal).
//!
//! All of them are updated **incrementally** in the searches: a move slides one tile, and
//! only that tile's terms change.

use std::sync::Arc;

use crate::board::Board;
use crate::metric::Metric;
use crate::shape::Shape;
use crate::solve::HeuristicKind;
use crate::solve::domain::MtmDatabases;
use crate::solve::estimator::{Estimator, Slide, positions};
use crate::solve::exact::ExactTable;
use crate::solve::pdb::PatternDatabases;
use crate::solve::walking::WalkingDistance;

/// A heuristic prepared for one [`Shape`]: the lower bound that A* and IDA* use.
///
/// Hamming, Manhattan and linear conflict are made on the spot
/// ([`Heuristic::hamming`], ...); pattern databases and the exact table are built or loaded
/// first and then wrapped ([`Heuristic::pdb`], [`Heuristic::exact`]). Cloning is cheap: the
/// tables are shared.
///
/// ```
/// use npuzzle::{Board, Shape};
/// use npuzzle::solve::Heuristic;
///
/// let shape = Shape::square(3).unwrap();
/// let board = Board::parse_tiles(shape, "0 1 3 / 4 2 5 / 7 8 6").unwrap();
/// assert_eq!(Heuristic::hamming(shape).estimate(&board), 4);
/// assert_eq!(Heuristic::manhattan(shape).estimate(&board), 4);
/// ```
#[derive(Debug, Clone)]
pub struct Heuristic(Inner);

#[derive(Debug, Clone)]
enum Inner {
    Hamming(Hamming),
    Manhattan(Manhattan),
    LinearConflict(LinearConflict),
    WalkingDistance(Arc<WalkingDistance>),
    Pdb(Arc<PatternDatabases>),
    MtmPdb(Arc<MtmDatabases>),
    Exact(Arc<ExactTable>),
    Oracle(Arc<Oracle>),
}

/// The function an [`Oracle`] asks: the exact distance of the board whose internal
/// permutation is given ([`Board::permutation`]), `None` when the goal cannot reach it.
pub type Distance = dyn Fn(&[u8]) -> Option<u32> + Send + Sync;

/// Exact distances that the solver does not compute itself: the caller's function (the CLI
/// walks a distance table of `analyze --table`, [`crate::table`]). Kind `exact`.
pub struct Oracle {
    shape: Shape,
    metric: Metric,
    distance: Box<Distance>,
}

impl std::fmt::Debug for Oracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oracle")
            .field("shape", &self.shape)
            .field("metric", &self.metric)
            .finish_non_exhaustive()
    }
}

impl Oracle {
    /// The distances of `distance`, in moves of `metric` on boards of `shape`.
    pub fn new(shape: Shape, metric: Metric, distance: Box<Distance>) -> Oracle {
        Oracle {
            shape,
            metric,
            distance,
        }
    }

    fn bound(&self, cells: &[u8]) -> u32 {
        // A board the goal cannot reach: a bound above any budget.
        (self.distance)(cells).unwrap_or(u32::MAX / 2)
    }
}

impl Estimator for Oracle {
    type Memo = ();

    fn start(&self, cells: &[u8], _pos: &[u8]) -> (u32, ()) {
        (self.bound(cells), ())
    }

    fn after_move(&self, cells: &[u8], _: &[u8], _: Slide, _: (), _: u32) -> (u32, ()) {
        (self.bound(cells), ())
    }
}

impl Heuristic {
    /// The number of misplaced tiles.
    pub fn hamming(shape: Shape) -> Heuristic {
        Heuristic(Inner::Hamming(Hamming::new(shape)))
    }

    /// The sum of the tiles' Manhattan distances to their goal cells.
    pub fn manhattan(shape: Shape) -> Heuristic {
        Heuristic(Inner::Manhattan(Manhattan::new(shape)))
    }

    /// Manhattan distance plus linear conflicts (Hansson, Mayer & Yung 1992).
    pub fn linear_conflict(shape: Shape) -> Heuristic {
        Heuristic(Inner::LinearConflict(LinearConflict::new(shape)))
    }

    /// Walking distance in its metric ([`crate::solve::walking`]), made beforehand.
    pub fn walking_distance(table: Arc<WalkingDistance>) -> Heuristic {
        Heuristic(Inner::WalkingDistance(table))
    }

    /// The multi-tile metric's pattern databases ([`crate::solve::domain`]), built
    /// beforehand: kind `pdb`, metric MTM.
    pub fn mtm_pdb(databases: Arc<MtmDatabases>) -> Heuristic {
        Heuristic(Inner::MtmPdb(databases))
    }

    /// Additive disjoint pattern databases, built or loaded beforehand.
    pub fn pdb(databases: Arc<PatternDatabases>) -> Heuristic {
        Heuristic(Inner::Pdb(databases))
    }

    /// The exact distance from a whole-space table.
    pub fn exact(table: Arc<ExactTable>) -> Heuristic {
        Heuristic(Inner::Exact(table))
    }

    /// The exact distance from the caller's [`Oracle`] (kind `exact`).
    pub fn oracle(oracle: Arc<Oracle>) -> Heuristic {
        Heuristic(Inner::Oracle(oracle))
    }

    /// The heuristics that need no table (`hamming`, `manhattan`, `linear-conflict`) for
    /// `kind`, or `None` for `walking-distance`, `pdb` and `exact`, which must be built or
    /// loaded first.
    pub fn without_tables(kind: HeuristicKind, shape: Shape) -> Option<Heuristic> {
        match kind {
            HeuristicKind::Hamming => Some(Heuristic::hamming(shape)),
            HeuristicKind::Manhattan => Some(Heuristic::manhattan(shape)),
            HeuristicKind::LinearConflict => Some(Heuristic::linear_conflict(shape)),
            HeuristicKind::WalkingDistance | HeuristicKind::Pdb | HeuristicKind::Exact => None,
        }
    }

    /// Which heuristic this is.
    pub fn kind(&self) -> HeuristicKind {
        match &self.0 {
            Inner::Hamming(_) => HeuristicKind::Hamming,
            Inner::Manhattan(_) => HeuristicKind::Manhattan,
            Inner::LinearConflict(_) => HeuristicKind::LinearConflict,
            Inner::WalkingDistance(_) => HeuristicKind::WalkingDistance,
            Inner::Pdb(_) | Inner::MtmPdb(_) => HeuristicKind::Pdb,
            Inner::Exact(_) | Inner::Oracle(_) => HeuristicKind::Exact,
        }
    }

    /// The shape it was prepared for.
    pub fn shape(&self) -> Shape {
        match &self.0 {
            Inner::Hamming(h) => h.shape,
            Inner::Manhattan(h) => h.shape,
            Inner::LinearConflict(h) => h.manhattan.shape,
            Inner::WalkingDistance(h) => h.shape(),
            Inner::Pdb(h) => h.shape(),
            Inner::MtmPdb(h) => h.shape(),
            Inner::Exact(h) => h.shape(),
            Inner::Oracle(h) => h.shape,
        }
    }

    /// The metric whose moves it bounds: the one walking distance and the exact table were
    /// made for; single-tile for the others.
    pub fn metric(&self) -> Metric {
        match &self.0 {
            Inner::WalkingDistance(h) => h.metric(),
            Inner::Exact(h) => h.metric(),
            Inner::Oracle(h) => h.metric,
            Inner::MtmPdb(_) => Metric::Mtm,
            _ => Metric::Stm,
        }
    }

    /// The lower bound for `board`, in moves. `board` must have this heuristic's shape.
    pub fn estimate(&self, board: &Board) -> u32 {
        struct Once<'a>(&'a Board);
        impl<'a> Visitor<u32> for Once<'a> {
            fn visit<E: Estimator>(self, estimator: &E) -> u32 {
                let cells = self.0.permutation();
                estimator.start(cells, &positions(cells)).0
            }
        }
        self.dispatch(Once(board))
    }

    /// Calls `visitor` with the concrete estimator, so that searches are compiled once per
    /// heuristic (no dynamic dispatch per node).
    pub(crate) fn dispatch<R>(&self, visitor: impl Visitor<R>) -> R {
        match &self.0 {
            Inner::Hamming(h) => visitor.visit(h),
            Inner::Manhattan(h) => visitor.visit(h),
            Inner::LinearConflict(h) => visitor.visit(h),
            Inner::WalkingDistance(h) => visitor.visit(h.as_ref()),
            Inner::Pdb(h) => visitor.visit(h.as_ref()),
            Inner::MtmPdb(h) => visitor.visit(h.as_ref()),
            Inner::Exact(h) => visitor.visit(h.as_ref()),
            Inner::Oracle(h) => visitor.visit(h.as_ref()),
        }
    }
}

/// A search generic over the estimator, run by [`Heuristic::dispatch`].
pub(crate) trait Visitor<R> {
    /// Runs with the concrete estimator.
    fn visit<E: Estimator>(self, estimator: &E) -> R;
}

/// No information: uniform-cost search and BFS.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Zero;

impl Estimator for Zero {
    type Memo = ();

    fn start(&self, _cells: &[u8], _pos: &[u8]) -> (u32, ()) {
        (0, ())
    }

    #[inline(always)]
    fn after_move(&self, _: &[u8], _: &[u8], _: Slide, _: (), _: u32) -> (u32, ()) {
        (0, ())
    }
}

/// The Hamming distance: tiles not on their goal cell.
#[derive(Debug, Clone)]
struct Hamming {
    shape: Shape,
}

impl Hamming {
    fn new(shape: Shape) -> Hamming {
        Hamming { shape }
    }
}

impl Estimator for Hamming {
    type Memo = u32;

    fn start(&self, cells: &[u8], _pos: &[u8]) -> (u32, u32) {
        let blank = (cells.len() - 1) as u8;
        let h = cells
            .iter()
            .enumerate()
            .filter(|&(i, &p)| p != blank && p as usize != i)
            .count() as u32;
        (h, h)
    }

    #[inline(always)]
    fn after_move(&self, _: &[u8], _: &[u8], slide: Slide, h: u32, _: u32) -> (u32, u32) {
        let piece = slide.piece as usize;
        let h = h + u32::from(piece == slide.from) - u32::from(piece == slide.to);
        (h, h)
    }
}

/// The Manhattan distance, with a `piece x cell` table of distances.
#[derive(Debug, Clone)]
struct Manhattan {
    shape: Shape,
    /// `distance[piece * n + cell]`; zero for the blank.
    distance: Vec<u8>,
}

impl Manhattan {
    fn new(shape: Shape) -> Manhattan {
        let n = shape.cells();
        let mut distance = vec![0u8; n * n];
        for piece in 0..n - 1 {
            let (gr, gc) = shape.coords(piece);
            for cell in 0..n {
                let (r, c) = shape.coords(cell);
                distance[piece * n + cell] = (r.abs_diff(gr) + c.abs_diff(gc)) as u8;
            }
        }
        Manhattan { shape, distance }
    }

    #[inline(always)]
    fn distance(&self, piece: u8, cell: usize) -> u32 {
        u32::from(self.distance[piece as usize * self.shape.cells() + cell])
    }

    fn total(&self, cells: &[u8]) -> u32 {
        cells
            .iter()
            .enumerate()
            .map(|(i, &p)| self.distance(p, i))
            .sum()
    }
}

impl Estimator for Manhattan {
    type Memo = u32;

    fn start(&self, cells: &[u8], _pos: &[u8]) -> (u32, u32) {
        let h = self.total(cells);
        (h, h)
    }

    #[inline(always)]
    fn after_move(&self, _: &[u8], _: &[u8], slide: Slide, h: u32, _: u32) -> (u32, u32) {
        let h = h + self.distance(slide.piece, slide.to) - self.distance(slide.piece, slide.from);
        (h, h)
    }
}

/// Manhattan distance plus linear conflicts.
#[derive(Debug, Clone)]
struct LinearConflict {
    manhattan: Manhattan,
    /// Row and column of each cell (no division per node).
    coords: Vec<(u8, u8)>,
}

/// The memo of [`LinearConflict`]: the Manhattan sum and the number of tiles that must leave
/// their line (each costs two moves).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConflictMemo {
    manhattan: u32,
    removed: u32,
}

impl ConflictMemo {
    fn bound(self) -> u32 {
        self.manhattan + 2 * self.removed
    }
}

/// The linear-conflict count of one line, fed the goal positions (within the line) of the
/// line's tiles that belong to it, in the order they sit: the fewest of them that must leave
/// the line so that the others reach goal order, their count minus their longest increasing
/// subsequence (patience sorting, `O(k log k)` for `k` tiles). The one formula of every
/// board's linear conflict, wide boards ([`crate::solve::wide`]) included.
#[derive(Debug, Clone)]
pub(crate) struct LineOrder {
    /// `tails[k]`: the smallest last goal position of an increasing subsequence of length
    /// `k + 1`. A line has at most [`LineOrder::MAX_LINE`] cells.
    tails: [u8; LineOrder::MAX_LINE],
    longest: usize,
    count: u32,
}

impl LineOrder {
    /// The longest line: the assignment's boards are at most 127 wide.
    pub(crate) const MAX_LINE: usize = 128;

    #[inline(always)]
    pub(crate) fn new() -> LineOrder {
        LineOrder {
            tails: [0; LineOrder::MAX_LINE],
            longest: 0,
            count: 0,
        }
    }

    /// The next tile of the line that belongs to it: `key` its goal position in the line.
    #[inline(always)]
    pub(crate) fn push(&mut self, key: u8) {
        self.count += 1;
        let at = self.tails[..self.longest].partition_point(|&t| t < key);
        self.tails[at] = key;
        if at == self.longest {
            self.longest += 1;
        }
    }

    /// The tiles that must leave the line (each costs two moves).
    #[inline(always)]
    pub(crate) fn removed(&self) -> u32 {
        self.count - self.longest as u32
    }
}

/// The linear-conflict count of `line` on a `sides.0 x sides.1` board ([`LineOrder`]): the
/// fewest tiles of the line that belong to it that must leave it, reading the internal
/// permutation `cells` (in bytes, or wider on boards over 64 cells) with cells `swap.0` and
/// `swap.1` exchanged (pass the same cell twice to read it as it is); `coords[cell]` is a
/// cell's row and column.
#[inline(always)]
pub(crate) fn line_removed<P: Copy + Into<usize>>(
    cells: &[P],
    coords: &[(u8, u8)],
    (rows, cols): (usize, usize),
    line: Line,
    swap: (usize, usize),
) -> u32 {
    let blank = cells.len() - 1;
    let (len, first, step) = match line {
        Line::Row(r) => (cols, r * cols, 1),
        Line::Col(c) => (rows, c, cols),
    };
    let mut line_order = LineOrder::new();
    for k in 0..len {
        let mut cell = first + k * step;
        if cell == swap.0 {
            cell = swap.1;
        } else if cell == swap.1 {
            cell = swap.0;
        }
        let piece: usize = cells[cell].into();
        if piece == blank {
            continue;
        }
        let (gr, gc) = coords[piece];
        let key = match line {
            Line::Row(r) if gr as usize == r => gc,
            Line::Col(c) if gc as usize == c => gr,
            _ => continue,
        };
        line_order.push(key);
    }
    line_order.removed()
}

/// Which line of the board: a row or a column.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Line {
    /// The row of that index.
    Row(usize),
    /// The column of that index.
    Col(usize),
}

impl Line {
    /// The one line whose conflicts can change when a tile whose goal cell is at `goal` (row,
    /// column) slides from `from` to `to`: its goal row when a vertical move takes it into
    /// or out of that row, its goal column likewise for a horizontal move, else none (a
    /// vertical move keeps the order within the column, a horizontal one within the row).
    #[inline(always)]
    pub(crate) fn changed(
        goal: (usize, usize),
        from: (usize, usize),
        to: (usize, usize),
    ) -> Option<Line> {
        let ((goal_row, goal_col), (fr, fc), (tr, tc)) = (goal, from, to);
        if fc == tc && (fr == goal_row || tr == goal_row) {
            Some(Line::Row(goal_row))
        } else if fr == tr && (fc == goal_col || tc == goal_col) {
            Some(Line::Col(goal_col))
        } else {
            None
        }
    }
}

impl LinearConflict {
    fn new(shape: Shape) -> LinearConflict {
        let coords = (0..shape.cells())
            .map(|cell| {
                let (r, c) = shape.coords(cell);
                (r as u8, c as u8)
            })
            .collect();
        LinearConflict {
            manhattan: Manhattan::new(shape),
            coords,
        }
    }

    #[inline(always)]
    fn coords(&self, cell: usize) -> (usize, usize) {
        let (r, c) = self.coords[cell];
        (r as usize, c as usize)
    }

    /// The fewest tiles that must leave `line` so that the tiles of the line that belong to
    /// it can reach goal order: their count minus their longest increasing run (as a
    /// subsequence) of goal positions. Reads `cells` with cells `swap.0` and `swap.1`
    /// exchanged (pass the same cell twice to read it as it is).
    fn removed(&self, cells: &[u8], line: Line, swap: (usize, usize)) -> u32 {
        let shape = self.manhattan.shape;
        line_removed(
            cells,
            &self.coords,
            (shape.rows(), shape.cols()),
            line,
            swap,
        )
    }

    fn memo(&self, cells: &[u8]) -> ConflictMemo {
        let shape = self.manhattan.shape;
        let rows = (0..shape.rows()).map(|r| self.removed(cells, Line::Row(r), (0, 0)));
        let cols = (0..shape.cols()).map(|c| self.removed(cells, Line::Col(c), (0, 0)));
        ConflictMemo {
            manhattan: self.manhattan.total(cells),
            removed: rows.chain(cols).sum(),
        }
    }
}

impl Estimator for LinearConflict {
    type Memo = ConflictMemo;

    fn start(&self, cells: &[u8], _pos: &[u8]) -> (u32, ConflictMemo) {
        let memo = self.memo(cells);
        (memo.bound(), memo)
    }

    #[inline(always)]
    fn after_move(
        &self,
        cells: &[u8],
        _pos: &[u8],
        slide: Slide,
        memo: ConflictMemo,
        _budget: u32,
    ) -> (u32, ConflictMemo) {
        let Slide { piece, from, to } = slide;
        let mut next = memo;
        next.manhattan = memo.manhattan + self.manhattan.distance(piece, to)
            - self.manhattan.distance(piece, from);
        // Only the tile's own goal line can change, and only when the tile enters or leaves
        // it.
        let goal = self.coords(piece as usize);
        if let Some(line) = Line::changed(goal, self.coords(from), self.coords(to)) {
            let before = self.removed(cells, line, (from, to));
            let after = self.removed(cells, line, (to, to));
            next.removed = memo.removed + after - before;
        }
        (next.bound(), next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(r: usize, c: usize, tiles: &str) -> Board {
        Board::parse_tiles(Shape::new(r, c).unwrap(), tiles).unwrap()
    }

    #[test]
    fn known_values() {
        // The assignment's example: Hamming 5, Manhattan 10 (its 8 1 3 / 4 0 2 / 7 6 5).
        let b = board(3, 3, "8 1 3 4 0 2 7 6 5");
        let s = b.shape();
        assert_eq!(Heuristic::hamming(s).estimate(&b), 5);
        assert_eq!(Heuristic::manhattan(s).estimate(&b), 10);
        // 2 1 in the top row of goal order: one conflict, two extra moves.
        let b = board(3, 3, "2 1 3 4 5 6 7 8 0");
        assert_eq!(Heuristic::manhattan(s).estimate(&b), 2);
        assert_eq!(Heuristic::linear_conflict(s).estimate(&b), 4);
        // 3 2 1: the longest ordered run has one tile, two must leave: four extra moves.
        let b = board(1, 4, "3 2 1 0");
        let s = b.shape();
        assert_eq!(Heuristic::linear_conflict(s).estimate(&b), 4 + 4);
        for h in [
            Heuristic::hamming(s),
            Heuristic::manhattan(s),
            Heuristic::linear_conflict(s),
        ] {
            assert_eq!(h.estimate(&Board::goal(s)), 0);
        }
    }

    /// The incremental update agrees with a fresh computation along a long random walk.
    #[test]
    fn incremental_updates_match_fresh_values() {
        let shape = Shape::new(4, 5).unwrap();
        let mut rng = crate::random::SplitMix64::new(11);
        for heuristic in [
            Heuristic::hamming(shape),
            Heuristic::manhattan(shape),
            Heuristic::linear_conflict(shape),
        ] {
            struct RandomBoards<'a>(&'a mut crate::random::SplitMix64, Shape);
            impl Visitor<()> for RandomBoards<'_> {
                fn visit<E: Estimator>(self, e: &E) {
                    let mut board = crate::random::random_solvable(self.1, self.0);
                    let mut cells = board.permutation().to_vec();
                    let (_, mut memo) = e.start(&cells, &positions(&cells));
                    for _ in 0..2_000 {
                        let dirs: Vec<_> = crate::Direction::ALL
                            .into_iter()
                            .filter(|d| board.moved(*d).is_some())
                            .collect();
                        let dir = dirs[self.0.below(dirs.len() as u64) as usize];
                        let from_blank = board.blank();
                        board = board.moved(dir).unwrap();
                        let to_blank = board.blank();
                        cells.copy_from_slice(board.permutation());
                        let piece = cells[from_blank];
                        let pos = positions(&cells);
                        let slide = Slide {
                            piece,
                            from: to_blank,
                            to: from_blank,
                        };
                        let (h, m) = e.after_move(&cells, &pos, slide, memo, u32::MAX);
                        assert_eq!(h, e.start(&cells, &pos).0);
                        memo = m;
                    }
                }
            }
            heuristic.dispatch(RandomBoards(&mut rng, shape));
        }
    }
}
