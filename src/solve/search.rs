//! The search algorithms: BFS, uniform-cost search, A* and IDA*.
//!
//! All of them return an optimal solution (with an admissible heuristic for A* and IDA*),
//! check solvability by parity before searching, and never print.
//!
//! **Representation.** A board is its internal permutation `cells` (`cells[i]` = the piece on
//! cell `i`, pieces named by their goal cell, blank `n - 1`) plus its inverse `pos`. Moves come
//! from a table of the blank's neighbours per cell. BFS, UCS and A* store each board packed
//! in a `u128` (4 bits a cell up to 16 cells, 5 bits up to 25), in an arena with parent
//! links, and a hash map from packed board to arena index. IDA* keeps one board and edits it
//! in place: no allocation per node.
//!
//! **Complexity.** BFS and UCS visit every board closer than the goal: time and memory
//! `O(b^d)` for branching factor `b` (about 2.13 on 4x4) and depth `d`. A* visits the boards
//! with `g + h` below the optimal length; IDA* visits them again on each bound (a constant
//! factor) but needs memory only for its path.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};
use std::mem::size_of;
use std::time::{Duration, Instant};

use indicatif::HumanCount;

use crate::board::{Board, Direction};
use crate::metric::{self, Metric};
use crate::progress::{NoProgress, Progress};
use crate::shape::Shape;
use crate::solve::estimator::{Estimator, Slide, positions};
use crate::solve::goal::{Goal, Shifted};
use crate::solve::heuristic::{Visitor, Zero};
use crate::solve::{Algorithm, Heuristic, Limits, Solution, SolveError};

/// The most cells BFS, UCS and A* can pack in a `u128` key.
pub const MAX_STORED_CELLS: usize = 25;

/// Solves `board` optimally toward the standard goal in `metric` with `algorithm` (BFS and
/// UCS ignore `heuristic`).
///
/// # Errors
/// [`SolveError::Unsolvable`] (found by parity, no search), [`SolveError::ShapeMismatch`],
/// [`SolveError::MetricMismatch`] (A* and IDA* with a heuristic of another metric, or not
/// admissible in it), [`SolveError::TooLarge`] (BFS, UCS, A* above 25 cells),
/// [`SolveError::LimitReached`], [`SolveError::TimeUp`].
pub fn solve(
    board: &Board,
    metric: Metric,
    algorithm: Algorithm,
    heuristic: &Heuristic,
    limits: &Limits,
) -> Result<Solution, SolveError> {
    let goal = Goal::standard(board.shape());
    solve_toward(
        board,
        &goal,
        metric,
        algorithm,
        heuristic,
        limits,
        &NoProgress,
    )
}

/// Solves `board` optimally toward `goal` (any board of its shape) in `metric` with
/// `algorithm`, `heuristic` being one made for the standard goal (BFS and UCS ignore it):
/// the search runs on the board's image ([`Goal`]) and its moves are turned back, so that
/// [`crate::solve::replay`] of them from `board` gives the goal. IDA* reports each new bound
/// to `progress` (a task `IDA*` in nodes, the note `bound 48: 123,456,789 nodes, 25.1 M/s,
/// 4.9 s`), and the same note every 2^20 nodes within a bound through
/// [`Progress::refresh`], and stops with [`SolveError::TimeUp`] when
/// [`Progress::stop_requested`] says so (asked every 16,384 expansions); the other
/// algorithms report nothing.
///
/// # Errors
/// As [`solve`]; [`SolveError::Unsolvable`] when the goal is in another component than the
/// board ([`Goal::reaches`]), [`SolveError::GoalShape`] for a goal of another shape.
pub fn solve_toward(
    board: &Board,
    goal: &Goal,
    metric: Metric,
    algorithm: Algorithm,
    heuristic: &Heuristic,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<Solution, SolveError> {
    if algorithm.uses_heuristic() && heuristic.metric() != metric {
        return Err(SolveError::MetricMismatch {
            kind: heuristic.kind(),
            made: heuristic.metric(),
            wanted: metric,
        });
    }
    if board.shape() != goal.shape() {
        return Err(SolveError::GoalShape {
            board: board.shape(),
            goal: goal.shape(),
        });
    }
    let image = goal.image(board);
    let toward = Toward {
        target: goal.target().permutation(),
        slack: goal.slack(metric),
    };
    let mut solution = match algorithm {
        Algorithm::Bfs => bfs_to(&image, toward, metric, limits),
        Algorithm::Ucs => ucs_to(&image, toward, metric, limits),
        Algorithm::AStar => astar_to(&image, toward, heuristic, limits),
        Algorithm::IdaStar => idastar_to(&image, toward, heuristic, limits, progress),
    }?;
    goal.moves_back(&mut solution.moves);
    Ok(solution)
}

/// Where a search goes: the internal permutation of its target (the standard goal, or the
/// image of another goal, [`Goal::target`]), and by how much the heuristic's bound is lowered
/// toward it ([`Goal::slack`]).
#[derive(Debug, Clone, Copy)]
struct Toward<'a> {
    target: &'a [u8],
    slack: u32,
}

/// `search` toward the standard goal of `board`'s shape (its internal permutation
/// `0, 1, ..., n - 1`), the bound not lowered.
fn toward_standard<T>(board: &Board, search: impl FnOnce(Toward) -> T) -> T {
    let target: Vec<u8> = (0..board.shape().cells() as u8).collect();
    search(Toward {
        target: &target,
        slack: 0,
    })
}

/// The visitor `.1` run with the estimator lowered by `.0` ([`Toward::slack`], through
/// [`Shifted`]), or with the estimator itself when that is 0.
struct Lowered<V>(u32, V);

impl<R, V: Visitor<R>> Visitor<R> for Lowered<V> {
    fn visit<E: Estimator>(self, estimator: &E) -> R {
        match self.0 {
            0 => self.1.visit(estimator),
            slack => self.1.visit(&Shifted {
                inner: estimator,
                slack,
            }),
        }
    }
}

/// The blank's moves from each cell in one metric, as the searches use them.
#[derive(Debug, Clone)]
struct MoveSet {
    metric: Metric,
    /// Per blank cell: each move's direction, target cell and number of tiles slid.
    moves: Vec<Vec<(Direction, u8, u8)>>,
    /// The blank's step per direction index (`U D L R`): `-cols`, `cols`, `-1`, `1`.
    delta: [isize; 4],
}

impl MoveSet {
    fn new(shape: Shape, metric: Metric) -> MoveSet {
        let cols = shape.cols();
        let moves = (0..shape.cells())
            .map(|blank| {
                metric
                    .moves(shape, blank)
                    .into_iter()
                    .map(|(dir, to)| (dir, to as u8, metric::passed(cols, blank, to) as u8))
                    .collect()
            })
            .collect();
        let c = cols as isize;
        MoveSet {
            metric,
            moves,
            delta: [-c, c, -1, 1],
        }
    }

    #[inline(always)]
    fn from(&self, blank: usize) -> &[(Direction, u8, u8)] {
        &self.moves[blank]
    }

    /// Whether a move `dir` may follow one of direction index `came` ([`NO_MOVE`] at the
    /// start) on a shortest path: in STM any but the opposite; in MTM none on the same axis
    /// (two moves along one axis make one move or none).
    #[inline(always)]
    fn may_follow(&self, dir: Direction, came: u8) -> bool {
        match self.metric {
            Metric::Stm => may_follow::<false>(dir, came),
            Metric::Mtm => may_follow::<true>(dir, came),
        }
    }

    #[inline(always)]
    fn delta(&self, dir: Direction) -> isize {
        self.delta[dir.index() as usize]
    }
}

/// [`MoveSet::may_follow`] for a metric known at compile time (`MULTI`: MTM).
#[inline(always)]
fn may_follow<const MULTI: bool>(dir: Direction, came: u8) -> bool {
    if MULTI {
        dir.index() >> 1 != came >> 1
    } else {
        dir.index() ^ 1 != came
    }
}

/// Breadth-first search from `board` in `metric`; the goal is recognised when generated.
///
/// Time and memory: every board closer to the start than the goal (all 181,440 of the 3x3
/// board in the worst case).
///
/// # Errors
/// As [`solve`].
pub fn bfs(board: &Board, metric: Metric, limits: &Limits) -> Result<Solution, SolveError> {
    toward_standard(board, |toward| bfs_to(board, toward, metric, limits))
}

/// [`bfs`] toward `toward.target`.
fn bfs_to(
    board: &Board,
    toward: Toward,
    metric: Metric,
    limits: &Limits,
) -> Result<Solution, SolveError> {
    let started = Instant::now();
    check_solvable(board)?;
    let packer = Packer::new(board.shape(), Algorithm::Bfs)?;
    let moves = MoveSet::new(board.shape(), metric);
    let n = board.shape().cells();
    let blank_piece = (n - 1) as u8;
    let goal = packer.pack(toward.target);
    let start = packer.pack(board.permutation());
    let mut nodes = vec![BfsNode {
        key: start,
        parent: u32::MAX,
        dir: NO_MOVE,
        count: 0,
    }];
    let finish =
        |nodes: &Vec<BfsNode>, visited: &KeySet, last: usize, counts: (u64, u64)| Solution {
            metric,
            moves: path(last, |i| (nodes[i].parent, nodes[i].dir, nodes[i].count)),
            expanded: counts.0,
            generated: counts.1,
            elapsed: started.elapsed(),
            peak_nodes: nodes.len() as u64,
            peak_bytes: (nodes.capacity() * size_of::<BfsNode>()
                + visited.capacity() * (size_of::<u128>() + 1)) as u64,
        };
    let mut visited = KeySet::default();
    visited.insert(start);
    if start == goal {
        return Ok(finish(&nodes, &visited, 0, (0, 1)));
    }
    let mut cells = vec![0u8; n];
    let mut expanded = 0u64;
    let mut generated = 1u64;
    let mut head = 0usize;
    while head < nodes.len() {
        let node = nodes[head];
        spent(limits, expanded, nodes.len())?;
        expanded += 1;
        check_limits(limits, expanded, nodes.len(), started, 0)?;
        packer.unpack(node.key, &mut cells);
        let blank = cells.iter().position(|&p| p == blank_piece).unwrap_or(0);
        for &(dir, _, count) in moves.from(blank) {
            if !moves.may_follow(dir, node.dir) {
                continue; // Back towards the parent, or along its axis.
            }
            generated += 1;
            let key = packer.jump(
                node.key,
                &cells,
                blank,
                moves.delta(dir),
                count,
                blank_piece,
            );
            let stored = nodes.len();
            room(
                (stored, nodes.capacity()),
                || nodes.try_reserve(1),
                expanded,
                stored,
            )?;
            let table = (visited.len(), visited.capacity());
            room(table, || visited.try_reserve(1), expanded, stored)?;
            if visited.insert(key) {
                nodes.push(BfsNode {
                    key,
                    parent: head as u32,
                    dir: dir.index(),
                    count,
                });
                if key == goal {
                    let counts = (expanded, generated);
                    return Ok(finish(&nodes, &visited, nodes.len() - 1, counts));
                }
            }
        }
        head += 1;
    }
    Err(SolveError::Unsolvable)
}

/// Uniform-cost search (Dijkstra's algorithm with a bucket queue, as moves cost 1) in
/// `metric`: A* with a zero heuristic; the goal is recognised when dequeued.
///
/// # Errors
/// As [`solve`].
pub fn ucs(board: &Board, metric: Metric, limits: &Limits) -> Result<Solution, SolveError> {
    toward_standard(board, |toward| ucs_to(board, toward, metric, limits))
}

/// [`ucs`] toward `toward.target`.
fn ucs_to(
    board: &Board,
    toward: Toward,
    metric: Metric,
    limits: &Limits,
) -> Result<Solution, SolveError> {
    let started = Instant::now();
    check_solvable(board)?;
    let search = (metric, limits, Algorithm::Ucs, started);
    best_first(board, toward.target, &Zero, search)
}

/// A* with a closed set (Hart, Nilsson & Raphael 1968), in the heuristic's metric
/// ([`Heuristic::metric`]): boards in order of `f = g + h`, ties
/// to the most recently generated; a board found again by a shorter path is reopened, so the
/// result is optimal with any admissible heuristic.
///
/// # Errors
/// As [`solve`].
pub fn astar(
    board: &Board,
    heuristic: &Heuristic,
    limits: &Limits,
) -> Result<Solution, SolveError> {
    toward_standard(board, |toward| astar_to(board, toward, heuristic, limits))
}

/// [`astar`] toward `toward.target`, the heuristic lowered by `toward.slack`.
fn astar_to(
    board: &Board,
    toward: Toward,
    heuristic: &Heuristic,
    limits: &Limits,
) -> Result<Solution, SolveError> {
    let started = Instant::now();
    check(board, heuristic)?;
    struct AStarRun<'a>(&'a Board, &'a [u8], Metric, &'a Limits, Instant);
    impl Visitor<Result<Solution, SolveError>> for AStarRun<'_> {
        fn visit<E: Estimator>(self, estimator: &E) -> Result<Solution, SolveError> {
            let AStarRun(board, target, metric, limits, started) = self;
            let search = (metric, limits, Algorithm::AStar, started);
            best_first(board, target, estimator, search)
        }
    }
    let run = AStarRun(board, toward.target, heuristic.metric(), limits, started);
    heuristic.dispatch(Lowered(toward.slack, run))
}

/// IDA* (Korf 1985), in the heuristic's metric ([`Heuristic::metric`]): depth-first searches
/// bounded by `f = g + h`, each bound the smallest `f` that exceeded the last; never makes
/// the move that undoes the previous one (in MTM, no move along the previous one's axis).
/// Memory: the current path. Returns the first solution found within the final bound, which is optimal
/// with an admissible heuristic.
///
/// # Errors
/// As [`solve`] ([`SolveError::LimitReached`] only from [`Limits::max_expanded`]).
pub fn idastar(
    board: &Board,
    heuristic: &Heuristic,
    limits: &Limits,
) -> Result<Solution, SolveError> {
    toward_standard(board, |toward| {
        idastar_to(board, toward, heuristic, limits, &NoProgress)
    })
}

/// [`idastar`] toward `toward.target`, the heuristic lowered by `toward.slack`, reporting to
/// `progress` (see [`solve_toward`]).
fn idastar_to(
    board: &Board,
    toward: Toward,
    heuristic: &Heuristic,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<Solution, SolveError> {
    let started = Instant::now();
    check(board, heuristic)?;
    struct IdaRun<'a>(&'a Board, IdaSearch<'a>);
    impl Visitor<Result<Solution, SolveError>> for IdaRun<'_> {
        fn visit<E: Estimator>(self, estimator: &E) -> Result<Solution, SolveError> {
            ida_in(self.0, estimator, self.1)
        }
    }
    let search = IdaSearch {
        metric: heuristic.metric(),
        limits,
        started,
        target: toward.target,
        progress,
    };
    heuristic.dispatch(Lowered(toward.slack, IdaRun(board, search)))
}

fn check(board: &Board, heuristic: &Heuristic) -> Result<(), SolveError> {
    if board.shape() != heuristic.shape() {
        return Err(SolveError::ShapeMismatch {
            board: board.shape(),
            heuristic: heuristic.shape(),
        });
    }
    check_solvable(board)
}

fn check_solvable(board: &Board) -> Result<(), SolveError> {
    if board.is_solvable() {
        Ok(())
    } else {
        Err(SolveError::Unsolvable)
    }
}

/// Expansions between two looks at the clock.
pub(crate) const CLOCK_EVERY: u64 = 1 << 14;
/// Expansions between two reports of IDA*'s progress within one bound (a multiple of
/// [`CLOCK_EVERY`]: about 25 a second at 25 million nodes a second).
pub(crate) const REPORT_EVERY: u64 = 1 << 20;

/// The note of IDA*'s progress: `bound 48: 123,456,789 nodes, 25.1 M/s, 4.9 s` (nodes
/// expanded so far, over all bounds, and their rate since the start).
pub(crate) fn bound_note(bound: u32, expanded: u64, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64();
    let mut note = format!("bound {bound}: {} nodes", HumanCount(expanded));
    if expanded > 0 && seconds > 0.0 {
        let rate = expanded as f64 / seconds;
        let _ = match rate {
            r if r >= 1e9 => write!(note, ", {:.1} G/s", r / 1e9),
            r if r >= 1e6 => write!(note, ", {:.1} M/s", r / 1e6),
            r if r >= 1e3 => write!(note, ", {:.1} k/s", r / 1e3),
            r => write!(note, ", {r:.0}/s"),
        };
    }
    let _ = write!(note, ", {seconds:.1} s");
    note
}

/// [`SolveError::LimitReached`] when `expanded` boards have been expanded and
/// [`Limits::max_expanded`] allows no more: called before each expansion, so that a search
/// expands at most that many boards (the goal's, when a search counts it, included).
#[inline]
fn spent(limits: &Limits, expanded: u64, stored: usize) -> Result<(), SolveError> {
    match limits.max_expanded {
        Some(cap) if expanded >= cap => Err(SolveError::LimitReached {
            expanded,
            stored: stored as u64,
        }),
        _ => Ok(()),
    }
}

/// [`SolveError::LimitReached`] when the search holds more boards than
/// [`Limits::max_stored`] allows, [`SolveError::TimeUp`] when its time has passed ([`spent`]
/// checks [`Limits::max_expanded`]).
fn check_limits(
    limits: &Limits,
    expanded: u64,
    stored: usize,
    started: Instant,
    bound: u32,
) -> Result<(), SolveError> {
    if limits.max_stored.is_some_and(|cap| stored as u64 > cap) {
        return Err(SolveError::LimitReached {
            expanded,
            stored: stored as u64,
        });
    }
    time_up(limits, expanded, started, bound)
}

/// [`SolveError::TimeUp`] when the time limit has passed (looked at every [`CLOCK_EVERY`]
/// expansions).
#[inline]
fn time_up(limits: &Limits, expanded: u64, started: Instant, bound: u32) -> Result<(), SolveError> {
    match limits.time_limit {
        Some(limit) if expanded % CLOCK_EVERY == 0 && started.elapsed() >= limit => {
            Err(SolveError::TimeUp {
                seconds: limit.as_secs(),
                expanded,
                bound,
            })
        }
        _ => Ok(()),
    }
}

/// "No move": the start board's incoming move.
const NO_MOVE: u8 = 0xFF;

/// The single-tile slides from the start to node `last`, following `(parent, incoming
/// move, tiles it slid)` links.
fn path(last: usize, link: impl Fn(usize) -> (u32, u8, u8)) -> Vec<Direction> {
    let mut moves = Vec::new();
    let mut i = last;
    loop {
        let (parent, dir, count) = link(i);
        if parent == u32::MAX {
            break;
        }
        moves.extend(std::iter::repeat_n(
            Direction::ALL[dir as usize],
            count as usize,
        ));
        i = parent as usize;
    }
    moves.reverse();
    moves
}

/// A board edited in place: its cells and their inverse (see the module documentation).
struct Work {
    cells: Vec<u8>,
    pos: Vec<u8>,
    blank_piece: u8,
}

impl Work {
    fn new(cells: &[u8]) -> Work {
        Work {
            cells: cells.to_vec(),
            pos: positions(cells),
            blank_piece: (cells.len() - 1) as u8,
        }
    }

    /// Moves the blank from `blank` to `to`: the piece there slides the other way.
    #[inline(always)]
    fn slide(&mut self, blank: usize, to: usize) -> Slide {
        let piece = self.cells[to];
        self.cells[blank] = piece;
        self.cells[to] = self.blank_piece;
        self.pos[piece as usize] = blank as u8;
        self.pos[self.blank_piece as usize] = to as u8;
        Slide {
            piece,
            from: to,
            to: blank,
        }
    }

    /// One move of the blank from `blank`, `count` cells of `delta` each: `count` slides,
    /// each passed to `estimator` (the last with `budget`). Returns the new bound and memo.
    #[inline(always)]
    fn jump<E: Estimator>(
        &mut self,
        estimator: &E,
        blank: usize,
        delta: isize,
        count: u8,
        memo: E::Memo,
        budget: u32,
    ) -> (u32, E::Memo) {
        let mut at = blank;
        let mut memo = memo;
        for _ in 1..count {
            let next = at.wrapping_add_signed(delta);
            let slide = self.slide(at, next);
            memo = estimator.pass(&self.cells, &self.pos, slide, memo);
            at = next;
        }
        let slide = self.slide(at, at.wrapping_add_signed(delta));
        estimator.after_move(&self.cells, &self.pos, slide, memo, budget)
    }

    /// Undoes [`Work::jump`] from `blank`: the blank goes back from where it went.
    #[inline(always)]
    fn unjump(&mut self, blank: usize, delta: isize, count: u8) {
        let mut at = blank.wrapping_add_signed(delta * isize::from(count));
        for _ in 0..count {
            let next = at.wrapping_add_signed(-delta);
            self.slide(at, next);
            at = next;
        }
    }
}

/// Boards packed in a `u128`: cell `i` in bits `bits * i ..`.
#[derive(Debug, Clone, Copy)]
struct Packer {
    bits: u32,
    cells: usize,
}

impl Packer {
    fn new(shape: Shape, algorithm: Algorithm) -> Result<Packer, SolveError> {
        let cells = shape.cells();
        if cells > MAX_STORED_CELLS {
            return Err(SolveError::TooLarge {
                algorithm,
                shape,
                max: MAX_STORED_CELLS,
            });
        }
        let bits = if cells <= 16 { 4 } else { 5 };
        Ok(Packer { bits, cells })
    }

    fn pack(&self, cells: &[u8]) -> u128 {
        cells.iter().enumerate().fold(0, |key, (i, &p)| {
            key | u128::from(p) << (self.bits * i as u32)
        })
    }

    #[inline(always)]
    fn unpack(&self, key: u128, cells: &mut [u8]) {
        let mask = (1u128 << self.bits) - 1;
        for (i, c) in cells.iter_mut().enumerate().take(self.cells) {
            *c = ((key >> (self.bits * i as u32)) & mask) as u8;
        }
    }

    /// The key after the piece on `to` slides to the blank's cell `blank`.
    #[inline(always)]
    fn slide(&self, key: u128, blank: usize, to: usize, piece: u8, blank_piece: u8) -> u128 {
        let change = u128::from(piece ^ blank_piece);
        key ^ (change << (self.bits * blank as u32)) ^ (change << (self.bits * to as u32))
    }

    /// The key of the board `cells` (packed as `key`) after the blank at `blank` moves
    /// `count` cells of `delta` each.
    #[inline(always)]
    fn jump(
        &self,
        mut key: u128,
        cells: &[u8],
        blank: usize,
        delta: isize,
        count: u8,
        blank_piece: u8,
    ) -> u128 {
        let mut at = blank;
        for _ in 0..count {
            // The tiles ahead have not moved yet: `cells[next]` is the one that slides.
            let next = at.wrapping_add_signed(delta);
            key = self.slide(key, at, next, cells[next], blank_piece);
            at = next;
        }
        key
    }
}

/// A fast hash for packed boards: the two halves folded, then the SplitMix64 finalizer.
#[derive(Debug, Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
    }

    #[inline(always)]
    fn write_u128(&mut self, x: u128) {
        let mut z = (x as u64) ^ ((x >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.0 = z ^ (z >> 31);
    }
}

type KeySet = HashSet<u128, BuildHasherDefault<KeyHasher>>;

/// Room for one more entry in a storing search's list or table of `len` entries and
/// `capacity`: when it is full, `grow` (its `try_reserve(1)`: double, as an insertion would
/// ask) is tried, so that a memory or address-space limit (`ulimit -v`) reached by a growing
/// search is [`SolveError::LimitReached`] (with `expanded` and `stored`) rather than an abort,
/// whatever else the process has mapped since [`Limits::max_stored`] was set from what was
/// left.
fn room(
    (len, capacity): (usize, usize),
    grow: impl FnOnce() -> Result<(), std::collections::TryReserveError>,
    expanded: u64,
    stored: usize,
) -> Result<(), SolveError> {
    match len < capacity {
        true => Ok(()),
        false => grow().map_err(|_| SolveError::LimitReached {
            expanded,
            stored: stored as u64,
        }),
    }
}
type KeyMap = HashMap<u128, u32, BuildHasherDefault<KeyHasher>>;

#[derive(Debug, Clone, Copy)]
struct BfsNode {
    key: u128,
    parent: u32,
    dir: u8,
    /// Tiles the incoming move slid.
    count: u8,
}

#[derive(Debug, Clone, Copy)]
struct Node<M> {
    key: u128,
    parent: u32,
    g: u16,
    dir: u8,
    /// Tiles the incoming move slid.
    count: u8,
    /// Superseded by a node of the same board with a smaller `g`.
    stale: bool,
    memo: M,
}

/// The open list of A* and UCS: one stack per `f`, popped from the smallest `f`.
#[derive(Debug, Default)]
struct OpenList {
    stacks: Vec<Vec<u32>>,
    lowest: usize,
}

impl OpenList {
    fn push(&mut self, f: u32, node: u32) {
        let f = f as usize;
        if f >= self.stacks.len() {
            self.stacks.resize_with(f + 1, Vec::new);
        }
        self.stacks[f].push(node);
        self.lowest = self.lowest.min(f);
    }

    fn pop(&mut self) -> Option<u32> {
        while self.lowest < self.stacks.len() {
            if let Some(node) = self.stacks[self.lowest].pop() {
                return Some(node);
            }
            self.lowest += 1;
        }
        None
    }

    fn bytes(&self) -> usize {
        self.stacks
            .iter()
            .map(|s| s.capacity() * size_of::<u32>())
            .sum()
    }
}

/// A* with `estimator` (UCS with [`Zero`]) toward `target` (an internal permutation), with
/// the search's metric, limits, algorithm (for messages) and start.
fn best_first<E: Estimator>(
    board: &Board,
    target: &[u8],
    estimator: &E,
    (metric, limits, algorithm, started): (Metric, &Limits, Algorithm, Instant),
) -> Result<Solution, SolveError> {
    let shape = board.shape();
    let packer = Packer::new(shape, algorithm)?;
    let moves = MoveSet::new(shape, metric);
    let n = shape.cells();
    let blank_piece = (n - 1) as u8;
    let goal = packer.pack(target);
    let mut work = Work::new(board.permutation());
    let (h, memo) = estimator.start(&work.cells, &work.pos);
    let start = packer.pack(&work.cells);
    let mut nodes = vec![Node {
        key: start,
        parent: u32::MAX,
        g: 0,
        dir: NO_MOVE,
        count: 0,
        stale: false,
        memo,
    }];
    let mut index = KeyMap::default();
    index.insert(start, 0);
    let mut open = OpenList::default();
    open.push(h, 0);
    let mut expanded = 0u64;
    let mut generated = 1u64;
    while let Some(i) = open.pop() {
        let node = nodes[i as usize];
        if node.stale {
            continue;
        }
        spent(limits, expanded, nodes.len())?;
        expanded += 1;
        if node.key == goal {
            let bytes = nodes.capacity() * size_of::<Node<E::Memo>>()
                + index.capacity() * (size_of::<(u128, u32)>() + 1)
                + open.bytes();
            return Ok(Solution {
                metric,
                moves: path(i as usize, |j| {
                    (nodes[j].parent, nodes[j].dir, nodes[j].count)
                }),
                expanded,
                generated,
                elapsed: started.elapsed(),
                peak_nodes: nodes.len() as u64,
                peak_bytes: bytes as u64,
            });
        }
        check_limits(limits, expanded, nodes.len(), started, u32::from(node.g))?;
        packer.unpack(node.key, &mut work.cells);
        for (cell, &p) in work.cells.iter().enumerate() {
            work.pos[p as usize] = cell as u8;
        }
        let blank = work.pos[blank_piece as usize] as usize;
        for &(dir, _, count) in moves.from(blank) {
            if !moves.may_follow(dir, node.dir) {
                continue; // Back towards the parent, or along its axis: a smaller g.
            }
            generated += 1;
            let delta = moves.delta(dir);
            let key = packer.jump(node.key, &work.cells, blank, delta, count, blank_piece);
            let (h, memo) = work.jump(estimator, blank, delta, count, node.memo, u32::MAX);
            work.unjump(blank, delta, count);
            let g = node.g + 1;
            let fresh = nodes.len() as u32;
            let stored = fresh as usize;
            room(
                (stored, nodes.capacity()),
                || nodes.try_reserve(1),
                expanded,
                stored,
            )?;
            room(
                (index.len(), index.capacity()),
                || index.try_reserve(1),
                expanded,
                stored,
            )?;
            match index.entry(key) {
                Entry::Occupied(mut seen) => {
                    let old = *seen.get() as usize;
                    if nodes[old].g <= g {
                        continue;
                    }
                    nodes[old].stale = true;
                    seen.insert(fresh);
                }
                Entry::Vacant(slot) => {
                    slot.insert(fresh);
                }
            }
            nodes.push(Node {
                key,
                parent: i,
                g,
                dir: dir.index(),
                count,
                stale: false,
                memo,
            });
            open.push(u32::from(g) + h, fresh);
        }
    }
    Err(SolveError::Unsolvable)
}

/// What a bounded depth-first search came back with (one IDA* iteration, here and in
/// [`super::wide`]).
pub(super) enum Flow {
    Found,
    Exhausted,
    Stopped,
}

/// IDA*'s iterations and clock, one for the board's search ([`Ida`]) and the wide board's
/// ([`super::wide`]): the bound and the smallest `f` above it, the boards expanded and
/// generated, the limits and the progress. Embedded by value in the search, so that its
/// counters are fields of the search's own, as cheap to count.
pub(super) struct IdaClock<'a> {
    pub(super) expanded: u64,
    pub(super) generated: u64,
    max_expanded: u64,
    /// [`Limits::time_limit`], counted from `started`.
    time_limit: Option<Duration>,
    started: Instant,
    /// The search stopped on the time limit (or a stop `progress` asked for).
    timed_out: bool,
    /// The bound of the current iteration.
    bound: u32,
    /// The smallest `f` above the current bound seen in this iteration.
    pub(super) next_bound: u32,
    progress: &'a dyn Progress,
}

/// A depth-first search that [`iterate`] drives: where its [`IdaClock`] is.
pub(super) trait Iterated<'a> {
    fn clock(&mut self) -> &mut IdaClock<'a>;
}

impl<'a> IdaClock<'a> {
    pub(super) fn new(limits: &Limits, started: Instant, progress: &'a dyn Progress) -> Self {
        IdaClock {
            expanded: 0,
            generated: 0,
            max_expanded: limits.max_expanded.unwrap_or(u64::MAX),
            time_limit: limits.time_limit,
            started,
            timed_out: false,
            bound: 0,
            next_bound: u32::MAX,
            progress,
        }
    }

    /// Whether the search stops at the board just expanded (counted in `expanded`): on
    /// [`Limits::max_expanded`], or every [`CLOCK_EVERY`] expansions on the time limit or a
    /// stop `progress` asks for ([`IdaClock::on_clock`]).
    #[inline(always)]
    pub(super) fn stops(&mut self) -> bool {
        self.expanded >= self.max_expanded || (self.expanded % CLOCK_EVERY == 0 && self.on_clock())
    }

    /// Every [`CLOCK_EVERY`] expansions: the progress within the bound (every
    /// [`REPORT_EVERY`]), and whether the time limit has passed or `progress` asks to stop
    /// (then `timed_out`). Out of line, so that the search's loop keeps only the counter's
    /// test.
    #[cold]
    #[inline(never)]
    fn on_clock(&mut self) -> bool {
        if self.expanded % REPORT_EVERY == 0 {
            let note = bound_note(self.bound, self.expanded, self.started.elapsed());
            self.progress.refresh(self.expanded, &note);
        }
        // A stop the caller asked for ([`Progress::stop_requested`], a Python user's Ctrl-C)
        // ends the search as the time limit does.
        self.timed_out = self.time_limit.is_some_and(|l| self.started.elapsed() >= l)
            || self.progress.stop_requested();
        self.timed_out
    }
}

/// IDA*'s iterations: `within(search, bound)` from the bound `first` on, each bound reported
/// to the progress as it begins, the next bound the smallest `f` above the last, until the
/// goal is found ([`Flow::Found`]) or a limit stops them ([`SolveError::TimeUp`],
/// [`SolveError::LimitReached`]); no `f` above the bound is [`SolveError::Unsolvable`]
/// (cannot happen on a solvable board; said rather than looping).
pub(super) fn iterate<'a, S: Iterated<'a>>(
    search: &mut S,
    first: u32,
    mut within: impl FnMut(&mut S, u32) -> Flow,
) -> Result<(), SolveError> {
    search.clock().progress.begin("IDA*", 0, "nodes");
    let mut bound = first;
    let found = loop {
        let clock = search.clock();
        clock.bound = bound;
        let note = bound_note(bound, clock.expanded, clock.started.elapsed());
        clock.progress.update(clock.expanded, &note);
        clock.next_bound = u32::MAX;
        clock.generated += 1;
        let flow = within(search, bound);
        let clock = search.clock();
        match flow {
            Flow::Found => break Ok(()),
            Flow::Stopped if clock.timed_out => {
                break Err(SolveError::TimeUp {
                    seconds: clock.time_limit.map_or(0, |l| l.as_secs()),
                    expanded: clock.expanded,
                    bound,
                });
            }
            Flow::Stopped => {
                break Err(SolveError::LimitReached {
                    expanded: clock.expanded,
                    stored: 0,
                });
            }
            Flow::Exhausted if clock.next_bound == u32::MAX => break Err(SolveError::Unsolvable),
            Flow::Exhausted => bound = clock.next_bound,
        }
    };
    search.clock().progress.end();
    found
}

/// The state of IDA*: one board edited in place, and the path to it.
/// `MULTI`: the multi-tile metric (a move may slide several tiles), a constant so that the
/// single-tile search compiles to one slide per move.
struct Ida<'a, E: Estimator, const MULTI: bool> {
    estimator: &'a E,
    moves: &'a MoveSet,
    work: Work,
    path: Vec<Direction>,
    clock: IdaClock<'a>,
    deepest: usize,
    /// The target's internal permutation (the goal's image).
    target: &'a [u8],
}

impl<'a, E: Estimator, const MULTI: bool> Iterated<'a> for Ida<'a, E, MULTI> {
    #[inline(always)]
    fn clock(&mut self) -> &mut IdaClock<'a> {
        &mut self.clock
    }
}

/// What an IDA* search is asked, besides the board and the estimator.
#[derive(Clone, Copy)]
struct IdaSearch<'a> {
    metric: Metric,
    limits: &'a Limits,
    started: Instant,
    target: &'a [u8],
    progress: &'a dyn Progress,
}

/// IDA* in `search.metric`: [`Ida::run`] compiled for it.
fn ida_in<E: Estimator>(
    board: &Board,
    estimator: &E,
    search: IdaSearch,
) -> Result<Solution, SolveError> {
    match search.metric {
        Metric::Stm => Ida::<E, false>::run(board, estimator, search),
        Metric::Mtm => Ida::<E, true>::run(board, estimator, search),
    }
}

impl<E: Estimator, const MULTI: bool> Ida<'_, E, MULTI> {
    fn run(board: &Board, estimator: &E, search: IdaSearch) -> Result<Solution, SolveError> {
        let IdaSearch {
            metric,
            limits,
            started,
            target,
            progress,
        } = search;
        let work = Work::new(board.permutation());
        let (h, memo) = estimator.start(&work.cells, &work.pos);
        let moves = MoveSet::new(board.shape(), metric);
        let mut ida = Ida::<E, MULTI> {
            estimator,
            moves: &moves,
            work,
            path: Vec::with_capacity(128),
            clock: IdaClock::new(limits, started, progress),
            deepest: 0,
            target,
        };
        let blank = board.blank();
        iterate(&mut ida, h, |ida, bound| {
            ida.search(blank, 0, h, memo, bound, NO_MOVE)
        })?;
        let frames = ida.deepest as u64 + 1;
        Ok(Solution {
            metric,
            moves: ida.path,
            expanded: ida.clock.expanded,
            generated: ida.clock.generated,
            elapsed: started.elapsed(),
            peak_nodes: frames,
            // Board, inverse and path, plus a stack frame (about 96 bytes) per level.
            peak_bytes: 2 * board.shape().cells() as u64
                + frames * (97 + size_of::<E::Memo>() as u64),
        })
    }

    /// Searches below the board in `self.work` (blank on `blank`, `g` moves from the start,
    /// bound `h`, `g + h <= bound`), never undoing the move `came`.
    fn search(
        &mut self,
        blank: usize,
        g: u32,
        h: u32,
        memo: E::Memo,
        bound: u32,
        came: u8,
    ) -> Flow {
        self.clock.expanded += 1;
        if h == 0 && self.work.cells[..] == *self.target {
            return Flow::Found;
        }
        if self.clock.stops() {
            return Flow::Stopped;
        }
        self.deepest = self.deepest.max(g as usize);
        let moves = self.moves;
        for &(dir, to, count) in moves.from(blank) {
            if !may_follow::<MULTI>(dir, came) {
                continue;
            }
            self.clock.generated += 1;
            let budget = bound.saturating_sub(g + 1);
            let delta = moves.delta(dir);
            let count = if MULTI { count } else { 1 };
            let (child_h, child_memo) =
                self.work
                    .jump(self.estimator, blank, delta, count, memo, budget);
            let f = g + 1 + child_h;
            let flow = if f > bound {
                self.clock.next_bound = self.clock.next_bound.min(f);
                Flow::Exhausted
            } else {
                let len = self.path.len();
                self.path.extend(std::iter::repeat_n(dir, count as usize));
                let flow = self.search(to as usize, g + 1, child_h, child_memo, bound, dir.index());
                if !matches!(flow, Flow::Found) {
                    self.path.truncate(len);
                }
                flow
            };
            if !matches!(flow, Flow::Exhausted) {
                return flow;
            }
            self.work.unjump(blank, delta, count);
        }
        Flow::Exhausted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{SplitMix64, random_solvable, random_walk};
    use crate::solve::pdb::{Partition, PatternDatabases};
    use crate::solve::tests::distances;
    use crate::solve::{HeuristicKind, replay};
    use crate::{NoProgress, Shape};
    use std::sync::Arc;

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    /// Solves, checks the replay reaches the goal, returns the length.
    fn check(board: &Board, algorithm: Algorithm, heuristic: &Heuristic) -> usize {
        let s =
            solve(board, Metric::Stm, algorithm, heuristic, &Limits::NONE).unwrap_or_else(|e| {
                panic!("{} {algorithm} {:?}: {e}", board.label(), heuristic.kind())
            });
        assert_eq!(
            replay(board, &s.moves),
            Some(Board::goal(board.shape())),
            "{}",
            board.label()
        );
        assert!(s.expanded > 0 || s.moves.is_empty());
        s.moves.len()
    }

    fn all_heuristics(s: Shape) -> Vec<Heuristic> {
        let dbs =
            PatternDatabases::build(&Partition::default_for(s).unwrap(), &NoProgress).unwrap();
        let exact = crate::solve::exact::ExactTable::new(s, distances(s)).unwrap();
        vec![
            Heuristic::hamming(s),
            Heuristic::manhattan(s),
            Heuristic::linear_conflict(s),
            Heuristic::pdb(Arc::new(dbs)),
            Heuristic::exact(Arc::new(exact)),
        ]
    }

    /// The two 3x3 antipodes need 31 moves (OEIS A089473); the goal needs none.
    #[test]
    fn antipodes_need_31_moves() {
        let s = shape(3, 3);
        let hs = all_heuristics(s);
        for tiles in ["8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1"] {
            let b = Board::parse_tiles(s, tiles).unwrap();
            assert_eq!(check(&b, Algorithm::Bfs, &hs[0]), 31);
            assert_eq!(check(&b, Algorithm::Ucs, &hs[0]), 31);
            for h in &hs {
                assert_eq!(check(&b, Algorithm::AStar, h), 31);
                if h.kind() != HeuristicKind::Hamming {
                    assert_eq!(check(&b, Algorithm::IdaStar, h), 31);
                }
            }
        }
        let goal = Board::goal(s);
        for a in Algorithm::ALL {
            for h in &hs {
                assert_eq!(check(&goal, a, h), 0);
            }
        }
    }

    /// On a few hundred random 3x3 boards every algorithm and heuristic finds the BFS
    /// distance; every heuristic is admissible, and Manhattan and linear conflict are
    /// consistent (they change by at most one per move).
    #[test]
    fn everything_agrees_with_bfs_on_random_3x3_boards() {
        let s = shape(3, 3);
        let depth = distances(s);
        let hs = all_heuristics(s);
        let mut rng = SplitMix64::new(42);
        for round in 0..300 {
            let b = random_solvable(s, &mut rng);
            let d = depth[b.rank() as usize] as usize;
            assert_eq!(check(&b, Algorithm::Bfs, &hs[0]), d);
            for h in &hs {
                let e = h.estimate(&b) as usize;
                assert!(
                    e <= d,
                    "{:?} not admissible on {}: {e} > {d}",
                    h.kind(),
                    b.label()
                );
                if matches!(
                    h.kind(),
                    HeuristicKind::Manhattan | HeuristicKind::LinearConflict
                ) {
                    for dir in Direction::ALL {
                        if let Some(next) = b.moved(dir) {
                            assert!((h.estimate(&next) as i64 - e as i64).abs() <= 1);
                        }
                    }
                }
                if h.kind() != HeuristicKind::Hamming || round < 20 {
                    assert_eq!(check(&b, Algorithm::IdaStar, h), d, "{:?}", h.kind());
                }
                if round < 100 {
                    assert_eq!(check(&b, Algorithm::AStar, h), d, "{:?}", h.kind());
                }
            }
            if round < 50 {
                assert_eq!(check(&b, Algorithm::Ucs, &hs[0]), d);
            }
        }
    }

    /// Admissibility on every solvable 2x5 board (1,814,400 boards, OEIS A090036), and
    /// consistency of Manhattan and linear conflict on a sample of them.
    #[test]
    fn heuristics_are_admissible_on_every_2x5_board() {
        let s = shape(2, 5);
        let depth = distances(s);
        let dbs =
            PatternDatabases::build(&Partition::default_for(s).unwrap(), &NoProgress).unwrap();
        let hs = [
            Heuristic::hamming(s),
            Heuristic::manhattan(s),
            Heuristic::linear_conflict(s),
            Heuristic::pdb(Arc::new(dbs)),
        ];
        let mut max = 0;
        for (rank, &d) in depth.iter().enumerate() {
            if d == u8::MAX {
                continue;
            }
            max = max.max(d);
            let b = Board::from_rank(s, rank as u64);
            for h in &hs {
                let e = h.estimate(&b);
                assert!(e <= u32::from(d), "{:?} on {}", h.kind(), b.label());
                if rank % 101 == 0
                    && matches!(
                        h.kind(),
                        HeuristicKind::Manhattan | HeuristicKind::LinearConflict
                    )
                {
                    for next in Direction::ALL.iter().filter_map(|&dir| b.moved(dir)) {
                        assert!(
                            h.estimate(&next).abs_diff(e) <= 1,
                            "{:?} on {}",
                            h.kind(),
                            b.label()
                        );
                    }
                }
            }
        }
        assert_eq!(max, 55); // OEIS A090036: the 2x5 radius.
    }

    #[test]
    fn rectangular_and_line_boards() {
        let mut rng = SplitMix64::new(5);
        for s in [
            shape(2, 3),
            shape(3, 2),
            shape(2, 4),
            shape(4, 3),
            shape(2, 2),
        ] {
            let depth = distances_if_small(s);
            let hs = all_heuristics_light(s);
            for _ in 0..20 {
                let b = random_solvable(s, &mut rng);
                let lengths: Vec<usize> = hs
                    .iter()
                    .map(|h| check(&b, Algorithm::IdaStar, h))
                    .collect();
                assert!(lengths.windows(2).all(|w| w[0] == w[1]), "{lengths:?}");
                if let Some(depth) = &depth {
                    assert_eq!(lengths[0], depth[b.rank() as usize] as usize);
                }
            }
        }
        // 1x4: the blank can only slide along; parity is not enough to tell.
        let s = shape(1, 4);
        let b = Board::parse_tiles(s, "0 1 2 3").unwrap();
        assert_eq!(check(&b, Algorithm::IdaStar, &Heuristic::manhattan(s)), 3);
        let bad = Board::parse_tiles(s, "3 1 2 0").unwrap();
        for a in Algorithm::ALL {
            assert_eq!(
                solve(
                    &bad,
                    Metric::Stm,
                    a,
                    &Heuristic::manhattan(s),
                    &Limits::NONE
                ),
                Err(SolveError::Unsolvable)
            );
        }
    }

    fn distances_if_small(s: Shape) -> Option<Vec<u8>> {
        (s.cells() <= 9).then(|| distances(s))
    }

    fn all_heuristics_light(s: Shape) -> Vec<Heuristic> {
        let dbs =
            PatternDatabases::build(&Partition::default_for(s).unwrap(), &NoProgress).unwrap();
        vec![
            Heuristic::manhattan(s),
            Heuristic::linear_conflict(s),
            Heuristic::pdb(Arc::new(dbs)),
        ]
    }

    #[test]
    fn unsolvable_boards_are_not_searched() {
        let s = shape(3, 3);
        let b = Board::parse_tiles(s, "2 1 3 4 5 6 7 8 0").unwrap();
        let h = Heuristic::manhattan(s);
        for a in Algorithm::ALL {
            assert_eq!(
                solve(&b, Metric::Stm, a, &h, &Limits::NONE),
                Err(SolveError::Unsolvable)
            );
        }
        let other = Heuristic::manhattan(shape(4, 4));
        assert!(matches!(
            solve(
                &Board::goal(s),
                Metric::Stm,
                Algorithm::AStar,
                &other,
                &Limits::NONE
            ),
            Err(SolveError::ShapeMismatch { .. })
        ));
        let big = Board::goal(shape(6, 6));
        assert!(matches!(
            bfs(&big, Metric::Stm, &Limits::NONE),
            Err(SolveError::TooLarge { .. })
        ));
        assert_eq!(
            check(
                &big,
                Algorithm::IdaStar,
                &Heuristic::linear_conflict(shape(6, 6))
            ),
            0
        );
    }

    /// `max_expanded: N` lets every algorithm expand at most `N` boards: a board whose
    /// search takes `K` expansions is solved with a cap of `K` (the same length) and stopped
    /// after exactly `K - 1` with a cap of `K - 1`.
    #[test]
    fn max_expanded_is_a_maximum() {
        let s = shape(3, 3);
        // 8 6 7 / 2 5 4 / 3 0 1 needs 31 moves (one of the two 3x3 antipodes; Reinefeld 1993).
        let hard = Board::parse_tiles(s, "8 6 7 2 5 4 3 0 1").unwrap();
        let easy = Board::parse_tiles(s, "1 2 3 4 0 6 7 5 8").unwrap();
        for (b, moves) in [(&easy, 2), (&hard, 31)] {
            for a in Algorithm::ALL {
                let h = Heuristic::manhattan(s);
                let free = solve(b, Metric::Stm, a, &h, &Limits::NONE).unwrap();
                assert_eq!(free.length(), moves, "{a}");
                let k = free.expanded;
                let cap = |n| Limits {
                    max_expanded: Some(n),
                    ..Limits::NONE
                };
                let capped = solve(b, Metric::Stm, a, &h, &cap(k)).unwrap();
                assert_eq!((capped.length(), capped.expanded), (moves, k), "{a}");
                match solve(b, Metric::Stm, a, &h, &cap(k - 1)) {
                    Err(SolveError::LimitReached { expanded, .. }) => {
                        assert_eq!(expanded, k - 1, "{a}")
                    }
                    other => panic!("{a}: {other:?} with a cap of {} below {k}", k - 1),
                }
            }
        }
    }

    #[test]
    fn limits_stop_a_search() {
        let s = shape(3, 3);
        let b = Board::parse_tiles(s, "8 6 7 2 5 4 3 0 1").unwrap();
        let cap = Limits {
            max_expanded: Some(100),
            ..Limits::NONE
        };
        for a in Algorithm::ALL {
            let r = solve(&b, Metric::Stm, a, &Heuristic::manhattan(s), &cap);
            assert!(
                matches!(r, Err(SolveError::LimitReached { .. })),
                "{a}: {r:?}"
            );
        }
        let cap = Limits {
            max_stored: Some(1_000),
            ..Limits::NONE
        };
        assert!(matches!(
            bfs(&b, Metric::Stm, &cap),
            Err(SolveError::LimitReached { .. })
        ));
    }

    /// Korf's 1985 instances with the shortest solutions (Korf, "Depth-first iterative-
    /// deepening", Table 1: instances 12, 42, 55 and 79, 45, 42, 41 and 42 moves), turned to
    /// this crate's goal (blank last) by a half turn: tile `t` becomes `16 - t`. The
    /// Manhattan distance of the start is Korf's initial estimate.
    #[test]
    fn korf_short_instances() {
        let s = shape(4, 4);
        let dbs =
            PatternDatabases::build(&Partition::new(s, five_five_five()).unwrap(), &NoProgress)
                .unwrap();
        let pdb = Heuristic::pdb(Arc::new(dbs));
        let lc = Heuristic::linear_conflict(s);
        let md = Heuristic::manhattan(s);
        for (korf, h, moves) in [
            ("14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15", 35, 45),
            ("4 5 7 2 9 14 12 13 0 3 6 11 8 1 15 10", 30, 42),
            ("13 8 14 3 9 1 0 7 15 5 4 10 12 2 6 11", 29, 41),
            ("0 1 9 7 11 13 5 3 14 12 4 2 8 6 10 15", 28, 42),
        ] {
            let b = from_korf(korf);
            assert_eq!(md.estimate(&b), h, "{korf}");
            assert_eq!(check(&b, Algorithm::IdaStar, &pdb), moves, "{korf}");
            assert_eq!(check(&b, Algorithm::IdaStar, &lc), moves, "{korf}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// A board scrambled by `moves` random moves is solved in at most `moves`, the same
        /// length by IDA* with linear conflict and A* with Manhattan, on shapes up to 4x5.
        #[test]
        fn scrambles_are_solved_within_their_length(
            rows in 2usize..=4,
            cols in 2usize..=5,
            moves in 0usize..=24,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let s = shape(rows, cols);
            let b = random_walk(&Board::goal(s), moves, &mut SplitMix64::new(seed));
            let n = check(&b, Algorithm::IdaStar, &Heuristic::linear_conflict(s));
            proptest::prop_assert!(n <= moves);
            proptest::prop_assert_eq!(check(&b, Algorithm::AStar, &Heuristic::manhattan(s)), n);
        }
    }

    /// A cheaper 4x4 partition than the default 6-6-3, for tests: 5-5-5 by rows.
    fn five_five_five() -> Vec<Vec<u8>> {
        vec![
            vec![1, 2, 3, 4, 5],
            vec![6, 7, 8, 9, 10],
            vec![11, 12, 13, 14, 15],
        ]
    }

    /// A Korf instance (blank first in the goal) as a board of this crate (blank last).
    fn from_korf(tiles: &str) -> Board {
        let korf: Vec<u64> = tiles.split(' ').map(|t| t.parse().unwrap()).collect();
        let ours: Vec<u64> = korf
            .iter()
            .rev()
            .map(|&t| if t == 0 { 0 } else { 16 - t })
            .collect();
        Board::from_tiles(shape(4, 4), &ours).unwrap()
    }

    /// Boards scrambled by 40 random moves: IDA* with Manhattan, linear conflict and pattern
    /// databases, and A* with pattern databases, find the same length, at most 40.
    #[test]
    fn scrambled_4x4_boards_agree() {
        let s = shape(4, 4);
        let dbs =
            PatternDatabases::build(&Partition::new(s, five_five_five()).unwrap(), &NoProgress)
                .unwrap();
        let pdb = Heuristic::pdb(Arc::new(dbs));
        let mut rng = SplitMix64::new(9);
        for _ in 0..10 {
            let b = random_walk(&Board::goal(s), 40, &mut rng);
            let n = check(&b, Algorithm::IdaStar, &pdb);
            assert!(n <= 40);
            assert_eq!(check(&b, Algorithm::IdaStar, &Heuristic::manhattan(s)), n);
            assert_eq!(
                check(&b, Algorithm::IdaStar, &Heuristic::linear_conflict(s)),
                n
            );
            assert_eq!(check(&b, Algorithm::AStar, &pdb), n);
        }
    }
}
