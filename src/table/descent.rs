//! The walks down a table: from a board, a move at a time to a neighbour one move closer, until
//! the goal, [`WALKS`] boards going down together ([`DistanceTable::solve_many`],
//! [`DistanceTable::depths_of`]).

use crate::bfs::{Held, Parity, ParitySpace, StateIndex, StateSpace, WithHeld};
use crate::board::{Board, Direction};
use crate::metric;

use super::{CORRUPT, DistanceTable, TableError};

/// The code of a walk whose board's code is not read yet ([`DistanceTable::walk_held`]).
const UNREAD: u8 = u8::MAX - 1;

/// The most moves across a row a blank has in the parity layout (the multi-tile metric on a
/// board of at most 20 cells: at most 9 rows below or above it).
const MAX_ACROSS: usize = 9;

/// Walks that go down a table together ([`DistanceTable::solve_many`]): enough for the
/// memory reads of one round of steps (about two a walk, at random over the table) to
/// overlap.
const WALKS: usize = 16;

/// The most cells of a board a walk holds (the parity index's largest board).
const MAX_WALK_CELLS: usize = ParitySpace::MAX_CELLS;

/// One board's walk down a table, between two rounds of steps.
struct Descent {
    /// Its place in the group.
    k: usize,
    /// The board (its first `cells` entries) and its blank's cell.
    cells: [u8; MAX_WALK_CELLS],
    blank: usize,
    /// The board's index and its depth class.
    index: u64,
    code: u8,
    /// Moves made.
    steps: u32,
    /// The neighbours located this round (the first `found`): index and the blank's cell.
    next: [(u64, u8); MAX_WALK_CELLS],
    found: usize,
}

/// The depth class one move closer than `code` (`code < modulus`), without a division.
#[inline(always)]
fn below(code: u8, modulus: u8) -> u8 {
    match code {
        0 => modulus - 1,
        _ => code - 1,
    }
}

/// The index of the board whose blank moves from `blank` to `to` along its row, from the
/// board of `index` (parity layout: the tile sequence is unchanged).
#[inline(always)]
fn flat(index: u64, blank: usize, to: usize) -> u64 {
    (index + to as u64).wrapping_sub(blank as u64)
}

/// One board's walk down a table in the parity layout ([`DistanceTable::walk_held`]).
struct HeldWalk<const M: usize, const C: usize> {
    /// Its place in the group.
    k: usize,
    /// The board.
    held: Held<M, C>,
    /// Its index and depth class.
    index: u64,
    code: u8,
    /// Moves made.
    steps: u32,
    /// The blank's cell before the last move (`usize::MAX` at the start).
    from: usize,
    /// Its moves across located this round (the first `found`): index and the blank's cell.
    next: [(u64, u8); MAX_ACROSS],
    found: usize,
}

/// [`DistanceTable::walk_held`] for the table's shape, as [`crate::bfs::with_held`] runs it.
struct HeldWalks<'a, F> {
    table: &'a DistanceTable,
    group: &'a [&'a [u8]],
    step: F,
    /// Whether the reads check their blocks ([`DistanceTable::must_check`]).
    check: bool,
}

impl<F: FnMut(usize, Direction, usize, usize)> WithHeld for HeldWalks<'_, F> {
    type Out = Vec<Result<Option<u32>, TableError>>;

    fn run<const M: usize, const C: usize>(self) -> Self::Out {
        #[cfg(target_arch = "x86_64")]
        if crate::bfs::x86_64_v3() {
            // SAFETY: the processor has the features `walk_held_v3` is compiled for.
            return unsafe {
                self.table
                    .walk_held_v3::<M, C>(self.group, self.step, self.check)
            };
        }
        self.table
            .walk_held::<M, C>(self.group, self.step, self.check)
    }
}

impl DistanceTable {
    /// A shortest solution of `board` from the table: the blank's single-tile slides (in the
    /// multi-tile metric each run of one direction is one move), `None` when the goal cannot
    /// be reached.
    ///
    /// The walk checks itself: `None` only when the board's permutation says the goal cannot
    /// reach it (never from a code alone), and a walk must end at the goal on its code of
    /// depth 0, after as many steps as a layer of the header holds boards at. These checks are
    /// a few compares a walk; they catch most damage but not all (a damaged code can send a
    /// walk up one move and back down, a path two moves too long that is consistent
    /// throughout): only a table opened with its checksum verified answers surely.
    ///
    /// # Errors
    /// [`TableError::WrongBoard`] for a board of another shape; [`TableError::Invalid`] when
    /// the walk fails its checks: no neighbour one move closer, a solvable board marked
    /// unreachable, an end out of step (a damaged table).
    pub fn solve(&self, board: &Board) -> Result<Option<Vec<Direction>>, TableError> {
        let mut solutions = self.solve_many(std::slice::from_ref(board));
        solutions.pop().unwrap_or(Ok(None))
    }

    /// [`DistanceTable::solve`] of each of `boards`, in order. The walks go down the table
    /// together, 16 at a time, so that the memory reads of one walk's step overlap
    /// those of the others (a walk step's reads are random over the whole table).
    pub fn solve_many(&self, boards: &[Board]) -> Vec<Result<Option<Vec<Direction>>, TableError>> {
        let cols = self.shape.cols();
        let mut moves: Vec<Vec<Direction>> = vec![Vec::new(); boards.len()];
        // (A board of another shape is not walked: its cells say nothing here.)
        let cells: Vec<&[u8]> = boards
            .iter()
            .map(|board| match board.shape() == self.shape {
                true => board.permutation(),
                false => &[],
            })
            .collect();
        let lengths = self.walk(&cells, |k, dir, blank, to| {
            moves[k].extend(std::iter::repeat_n(dir, metric::passed(cols, blank, to)));
        });
        boards
            .iter()
            .zip(lengths)
            .zip(moves)
            .map(
                |((board, length), moves)| match board.shape() == self.shape {
                    true => length.map(|walked| walked.map(|_| moves)),
                    false => Err(TableError::WrongBoard(format!(
                        "the table is for {} boards, the board is {}",
                        self.shape,
                        board.shape()
                    ))),
                },
            )
            .collect()
    }

    /// The depth of the board whose internal permutation is `cells` ([`Board::permutation`],
    /// of the table's shape): the length of its walk, `None` when the goal cannot reach it.
    ///
    /// # Errors
    /// [`TableError::Invalid`] when the walk finds no neighbour one move closer.
    pub fn depth_of(&self, cells: &[u8]) -> Result<Option<u32>, TableError> {
        // One step of the walk is one move of the table's metric.
        self.walk(&[cells], |_, _, _, _| {})
            .pop()
            .unwrap_or(Ok(None))
    }

    /// [`DistanceTable::depth_of`] of each of `boards` (internal permutations of the table's
    /// shape), in order, walked together as in [`DistanceTable::solve_many`].
    pub fn depths_of(&self, boards: &[&[u8]]) -> Vec<Result<Option<u32>, TableError>> {
        self.walk(boards, |_, _, _, _| {})
    }

    /// The index of the board `cells` in the table, `None` outside it (the other class in
    /// the parity layout, or a board of another size).
    #[inline(always)]
    fn index_of(&self, cells: &[u8]) -> Option<u64> {
        if cells.len() != self.shape.cells() {
            return None;
        }
        let index = match &self.space {
            Some(space) => space.locate(cells)?.0,
            None => crate::rank::rank(cells),
        };
        (index < self.boards).then_some(index)
    }

    /// Asks the CPU to bring the code of board `index` into cache (a hint; never faults).
    #[inline(always)]
    fn prefetch(&self, index: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let p = self
                .map
                .as_ptr()
                .wrapping_add(self.codes + (index / 4) as usize);
            // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults,
            // whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = index;
    }

    /// Walks each board of `group` (internal permutations; an empty one is skipped and
    /// answered `Ok(None)`) to the goal, [`WALKS`] of them a step at a time in turn: first
    /// every walk's neighbours are located and their codes prefetched, then every walk takes
    /// a neighbour one move closer. In the parity layout ([`DistanceTable::walk_held`]) a walk
    /// moves along its row first; in the lexicographic one it takes the first such neighbour
    /// in [`Metric::targets`](crate::metric::Metric::targets) order. Calls
    /// `step(k, direction, from, to)` for each move of the blank of board `k`; returns each
    /// board's number of moves, `None` when the goal cannot reach it.
    fn walk(
        &self,
        group: &[&[u8]],
        mut step: impl FnMut(usize, Direction, usize, usize),
    ) -> Vec<Result<Option<u32>, TableError>> {
        // One walk per grid for every caller (issue 62: three callers made the walks of the
        // parity layout's 27 grids 6 % of the crate's code); a call per move is nothing
        // beside the move's read of the table.
        let step: &mut dyn FnMut(usize, Direction, usize, usize) = &mut step;
        let check = self.must_check(group.len());
        if self.space.is_some() {
            return crate::bfs::with_held(
                self.shape,
                HeldWalks {
                    table: self,
                    group,
                    step,
                    check,
                },
            );
        }
        let mut results = Vec::with_capacity(group.len());
        for (g, walks) in group.chunks(WALKS).enumerate() {
            let step = |k, dir, from, to| step(g * WALKS + k, dir, from, to);
            #[cfg(target_arch = "x86_64")]
            if crate::bfs::x86_64_v3() {
                // SAFETY: the processor has the features `walk_v3` is compiled for.
                results.extend(unsafe { self.walk_v3(walks, step, check) });
                continue;
            }
            results.extend(self.walk_steps(walks, step, check));
        }
        results
    }

    /// [`DistanceTable::walk`] in the parity layout, for `M` tiles and `C` columns: each walk
    /// holds its board as a tile sequence with Lehmer digits ([`Held`]), so a neighbour's
    /// index is a closed form on `C` tiles (or `index ± k` along the row) rather than a
    /// ranking. [`WALKS`] walks are in flight, a new board taking the place of each that
    /// ends. In a round each walk first moves along its row while a move there goes down
    /// (those codes share the board's cache line, already read), then locates and prefetches
    /// its moves across; then each takes the first of those that goes down. The move back is
    /// never looked at (it goes up).
    #[inline(always)]
    fn walk_held<const M: usize, const C: usize>(
        &self,
        boards: &[&[u8]],
        mut step: impl FnMut(usize, Direction, usize, usize),
        check: bool,
    ) -> Vec<Result<Option<u32>, TableError>> {
        let modulus = self.modulus();
        let goal = Held::<M, C>::new(self.goal.permutation()).index();
        let radius = self.layers.len() as u32;
        // Each blank cell's moves along its row and across it, in [`Metric::targets`] order.
        let mut moves =
            [([0u8; MAX_WALK_CELLS], 0usize, [0u8; MAX_WALK_CELLS], 0usize); MAX_WALK_CELLS];
        let mut targets = [0usize; MAX_WALK_CELLS];
        for (blank, (along, a, across, c)) in moves.iter_mut().enumerate().take(M + 1) {
            let count = self.metric.targets_into(self.shape, blank, &mut targets);
            for &to in &targets[..count] {
                match to / C == blank / C {
                    true => (along[*a], *a) = (to as u8, *a + 1),
                    false => (across[*c], *c) = (to as u8, *c + 1),
                }
            }
        }
        let mut results: Vec<Result<Option<u32>, TableError>> =
            (0..boards.len()).map(|_| Ok(None)).collect();
        let mut walks: Vec<HeldWalk<M, C>> = Vec::with_capacity(WALKS);
        let mut unstarted = boards.iter().enumerate();
        loop {
            // New walks: located and prefetched, their codes read in the second half.
            while walks.len() < WALKS {
                let Some((k, cells)) = unstarted.next() else {
                    break;
                };
                if let Some(index) = self.index_of(cells) {
                    self.prefetch(index);
                    walks.push(HeldWalk {
                        k,
                        held: Held::new(cells),
                        index,
                        code: UNREAD,
                        steps: 0,
                        from: usize::MAX,
                        next: [(0, 0); MAX_ACROSS],
                        found: 0,
                    });
                }
            }
            if walks.is_empty() {
                break;
            }
            for walk in &mut walks {
                walk.found = 0;
                if walk.code >= modulus {
                    continue;
                }
                while walk.index != goal && walk.steps < radius {
                    let blank = walk.held.blank();
                    let want = below(walk.code, modulus);
                    let (along, count, ..) = &moves[blank];
                    let down = along[..*count]
                        .iter()
                        .map(|&to| usize::from(to))
                        .find(|&to| {
                            to != walk.from
                                && self.class_with(flat(walk.index, blank, to), to as u64, check)
                                    == Some(want)
                        });
                    let Some(to) = down else {
                        break;
                    };
                    walk.held.go(to);
                    step(walk.k, metric::direction(C, blank, to), blank, to);
                    walk.index = flat(walk.index, blank, to);
                    walk.from = blank;
                    walk.code = want;
                    walk.steps += 1;
                }
                if walk.index == goal {
                    continue;
                }
                let (.., across, count) = &moves[walk.held.blank()];
                for &to in &across[..*count] {
                    let to = usize::from(to);
                    if to != walk.from {
                        let index = walk.held.neighbour(to);
                        self.prefetch(index);
                        walk.next[walk.found] = (index, to as u8);
                        walk.found += 1;
                    }
                }
            }
            walks.retain_mut(|walk| {
                if walk.code == UNREAD {
                    // A new walk's first code.
                    return match self.class_at(walk.index) {
                        Some(code) => {
                            walk.code = code;
                            true
                        }
                        None => {
                            // Only the board's permutation says a board cannot be solved,
                            // never a code.
                            let cells = boards[walk.k];
                            if self.reachable(cells) {
                                results[walk.k] =
                                    Err(self.damaged(cells, "a solvable board marked unreachable"));
                            }
                            false
                        }
                    };
                }
                if walk.index == goal {
                    results[walk.k] = self.arrived(boards[walk.k], walk.steps, walk.code);
                    return false;
                }
                // (A code no table holds has no way down.)
                let want = (walk.code < modulus).then(|| below(walk.code, modulus));
                let down = want.and_then(|want| {
                    walk.next[..walk.found].iter().find(|&&(index, to)| {
                        self.class_with(index, u64::from(to), check) == Some(want)
                    })
                });
                walk.steps += 1;
                let Some(&(index, to)) = down.filter(|_| walk.steps <= radius) else {
                    let here = self
                        .space
                        .as_ref()
                        .map(|space| space.unrank(StateIndex(walk.index)).label())
                        .unwrap_or_default();
                    results[walk.k] = Err(
                        self.damaged(boards[walk.k], &format!("no way down from board {here}"))
                    );
                    return false;
                };
                let (blank, to) = (walk.held.blank(), usize::from(to));
                walk.held.go(to);
                step(walk.k, metric::direction(C, blank, to), blank, to);
                walk.from = blank;
                walk.index = index;
                walk.code = want.unwrap_or(CORRUPT);
                true
            });
        }
        results
    }

    /// [`DistanceTable::walk`] compiled for x86-64-v3 (`popcnt` for the ranks, among others).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,fma,movbe")]
    unsafe fn walk_v3(
        &self,
        group: &[&[u8]],
        step: impl FnMut(usize, Direction, usize, usize),
        check: bool,
    ) -> Vec<Result<Option<u32>, TableError>> {
        self.walk_steps(group, step, check)
    }

    /// [`DistanceTable::walk`]'s body in the lexicographic layout (one-row and one-column
    /// boards; the parity layout's walk is [`DistanceTable::walk_held`]).
    #[inline(always)]
    fn walk_steps(
        &self,
        group: &[&[u8]],
        mut step: impl FnMut(usize, Direction, usize, usize),
        check: bool,
    ) -> Vec<Result<Option<u32>, TableError>> {
        let n = self.shape.cells();
        let cols = self.shape.cols();
        let modulus = self.modulus();
        let mut goal = [0u8; MAX_WALK_CELLS];
        goal[..n].copy_from_slice(self.goal.permutation());
        let radius = self.layers.len() as u32;
        let mut results: Vec<Result<Option<u32>, TableError>> =
            (0..group.len()).map(|_| Ok(None)).collect();
        let mut walks: Vec<Descent> = Vec::with_capacity(group.len());
        for (k, cells) in group.iter().enumerate() {
            let Some(index) = self.index_of(cells) else {
                continue;
            };
            let Some(code) = self.class_at(index) else {
                // Only the board's permutation says a board cannot be solved, never a code.
                if self.reachable(cells) {
                    results[k] = Err(self.damaged(cells, "a solvable board marked unreachable"));
                }
                continue;
            };
            let mut board = [0u8; MAX_WALK_CELLS];
            board[..n].copy_from_slice(cells);
            walks.push(Descent {
                k,
                cells: board,
                blank: cells.iter().position(|&p| p as usize == n - 1).unwrap_or(0),
                index,
                code,
                steps: 0,
                next: [(0, 0); MAX_WALK_CELLS],
                found: 0,
            });
        }
        let mut targets = [0usize; MAX_WALK_CELLS];
        while !walks.is_empty() {
            // Every walk's neighbours, located and prefetched.
            for walk in &mut walks {
                walk.found = 0;
                if walk.cells == goal || walk.code >= modulus {
                    continue;
                }
                let count = self
                    .metric
                    .targets_into(self.shape, walk.blank, &mut targets);
                for &to in &targets[..count] {
                    let mut next = walk.cells;
                    metric::slide(&mut next[..n], walk.blank, to, cols);
                    if let Some(index) = self.index_of(&next[..n]) {
                        self.prefetch(index);
                        walk.next[walk.found] = (index, to as u8);
                        walk.found += 1;
                    }
                }
            }
            // Every walk's step down, or its end.
            walks.retain_mut(|walk| {
                if walk.cells == goal {
                    results[walk.k] = self.arrived(&group[walk.k][..n], walk.steps, walk.code);
                    return false;
                }
                // (A code no table holds has no way down.)
                let want = (walk.code < modulus).then(|| (walk.code + modulus - 1) % modulus);
                let down = want.and_then(|want| {
                    walk.next[..walk.found].iter().find(|&&(index, to)| {
                        self.class_with(index, u64::from(to), check) == Some(want)
                    })
                });
                walk.steps += 1;
                let Some(&(index, to)) = down.filter(|_| walk.steps <= radius) else {
                    let why = format!(
                        "no way down from board {}",
                        Board::from_permutation(self.shape, walk.cells[..n].to_vec())
                            .map(|b| b.label())
                            .unwrap_or_default()
                    );
                    results[walk.k] = Err(self.damaged(&group[walk.k][..n], &why));
                    return false;
                };
                let to = usize::from(to);
                metric::slide(&mut walk.cells[..n], walk.blank, to, cols);
                step(
                    walk.k,
                    metric::direction(cols, walk.blank, to),
                    walk.blank,
                    to,
                );
                walk.blank = to;
                walk.index = index;
                walk.code = want.unwrap_or(CORRUPT);
                true
            });
        }
        results
    }

    /// [`DistanceTable::walk_held`] compiled for x86-64-v3 (`popcnt` for the first ranks).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,fma,movbe")]
    unsafe fn walk_held_v3<const M: usize, const C: usize>(
        &self,
        group: &[&[u8]],
        step: impl FnMut(usize, Direction, usize, usize),
        check: bool,
    ) -> Vec<Result<Option<u32>, TableError>> {
        self.walk_held::<M, C>(group, step, check)
    }

    /// Whether the goal can reach the board `cells` (an internal permutation of the table's
    /// shape), from its permutation alone: in the parity layout every board indexed can
    /// (the goal's class is connected); in the lexicographic one, a one-line board whose
    /// tiles are in the goal's order, else a board of the goal's parity class.
    fn reachable(&self, cells: &[u8]) -> bool {
        if self.space.is_some() {
            return true;
        }
        let blank = (self.shape.cells() - 1) as u8;
        if self.shape.rows() == 1 || self.shape.cols() == 1 {
            let tiles =
                |c: &[u8]| -> Vec<u8> { c.iter().copied().filter(|&p| p != blank).collect() };
            return tiles(cells) == tiles(self.goal.permutation());
        }
        Board::from_permutation(self.shape, cells.to_vec())
            .is_ok_and(|board| Parity::of(&board) == Parity::of(&self.goal))
    }

    /// The answer of a walk from `cells` that reached the goal after `steps` moves on code
    /// `code`: the goal's code is depth 0, and the layer of the walk's length holds boards; a
    /// walk that does not end so went astray on a damaged code.
    fn arrived(&self, cells: &[u8], steps: u32, code: u8) -> Result<Option<u32>, TableError> {
        let layer = self.layers.get(steps as usize).copied().unwrap_or(0);
        match code == 0 && layer > 0 {
            true => Ok(Some(steps)),
            false => Err(self.damaged(
                cells,
                &format!("its walk of {steps} steps ends out of step"),
            )),
        }
    }

    /// The error of a walk from `cells` that fails its checks (`why`): the table is damaged.
    #[cold]
    fn damaged(&self, cells: &[u8], why: &str) -> TableError {
        if let Some(damage) = self.damage() {
            return damage;
        }
        let board = Board::from_permutation(self.shape, cells.to_vec())
            .map(|b| b.label())
            .unwrap_or_default();
        TableError::Invalid {
            path: self.path.clone(),
            why: format!("damaged: the walk from {board} fails its check ({why})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::Metric;
    use crate::shape::Shape;
    use crate::table::tests::analysis;
    use crate::table::{Codes, write};

    /// Every board of every grid up to 9 cells (and 1x5) in both metrics: the walk's length is
    /// the analysis's depth, and the solution replays to the goal. The single-tile tables of
    /// the grids are the BFS's marks, the others depth mod 3.
    #[test]
    fn the_walk_gives_every_depth() {
        let dir = tempfile::tempdir().unwrap();
        for (r, c) in [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (1, 5)] {
            for metric in [Metric::Stm, Metric::Mtm] {
                let a = analysis(r, c, metric);
                let path = dir.path().join(format!("{r}x{c}-{metric}.npt"));
                write(&path, &a).unwrap();
                let table = DistanceTable::open(&path, true).unwrap();
                let kind = match metric.is_bipartite() && r > 1 {
                    true => Codes::Marks,
                    false => Codes::Mod3,
                };
                assert_eq!(table.codes(), kind, "{r}x{c} {metric}");
                let per_board = a.per_board.as_ref().unwrap();
                let mut boards = Vec::new();
                let mut walks = Vec::new();
                for rank in 0..a.boards {
                    let board = Board::from_rank(a.shape, rank);
                    let (_, depth) = per_board.get(board.permutation(), rank);
                    let walk = table.solve(&board).unwrap();
                    assert_eq!(
                        walk.as_ref().map(|m| metric.length(m) as u8),
                        depth,
                        "{r}x{c} {metric} {}",
                        board.label()
                    );
                    if let Some(moves) = &walk {
                        assert_eq!(crate::solve::replay(&board, moves), Some(a.goal.clone()));
                    }
                    boards.push(board);
                    walks.push(walk);
                }
                // Walked together (groups of WALKS, boards of every depth and of the other
                // class side by side, a board of another shape among them): the same walks.
                let at = boards.len() / 3;
                boards.insert(at, Board::goal(Shape::new(r + 1, c).unwrap()));
                let together = table.solve_many(&boards);
                let refused: Vec<usize> = (0..together.len())
                    .filter(|&k| together[k].is_err())
                    .collect();
                assert_eq!(
                    refused,
                    [at],
                    "{r}x{c} {metric}: the board of another shape"
                );
                let together: Vec<_> = together.into_iter().filter_map(Result::ok).collect();
                assert_eq!(together, walks, "{r}x{c} {metric}");
                boards.remove(at);
                let cells: Vec<&[u8]> = boards.iter().map(Board::permutation).collect();
                let depths: Vec<Option<u32>> = table
                    .depths_of(&cells)
                    .into_iter()
                    .map(Result::unwrap)
                    .collect();
                let lengths: Vec<Option<u32>> = walks
                    .iter()
                    .map(|w| w.as_ref().map(|m| metric.length(m) as u32))
                    .collect();
                assert_eq!(depths, lengths, "{r}x{c} {metric}");
            }
        }
    }
}
