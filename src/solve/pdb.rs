//! Additive disjoint pattern databases (Korf & Felner 2002), with the reflected lookup
//! about the main diagonal (Felner, Korf & Hanan 2004).
//!
//! A **pattern** is a set of tiles. Its database stores, for every placement of those tiles,
//! the fewest moves *of those tiles* needed to bring them home, the other tiles being
//! indistinguishable and their moves free. Because the patterns of a [`Partition`] are
//! disjoint and each counts only its own tiles' moves, their values add up to an
//! admissible heuristic (every real move moves one tile, counted by exactly one pattern).
//!
//! On a square board the transpose (cell `(r, c)` to `(c, r)`) maps the goal to itself, so
//! the same databases also bound the transposed board; the heuristic is the larger of the
//! two sums.
//!
//! **Index.** The value of a placement of `k` tiles (tile `i` on cell `c_i`) is stored at
//! `c_0 + 16 c_1 + ... + 16^(k-1) c_(k-1)`: four bits per tile, `16^k` one-byte entries, of
//! which the `n! / (n - k)!` placements use a part (the rest hold [`UNREACHABLE`]). That is
//! 16.8 MB for a 6-tile pattern against 5.8 MB for a dense ranking, but the index is found
//! with shifts instead of a ranking, and IDA* keeps each pattern's index and changes four of
//! its bits per move: with the 4x4 databases that is about twice as fast as ranking.
//!
//! **Build.** A breadth-first search over (placement, blank cell) from the goal, in layers of
//! pattern moves: moving a pattern tile costs 1, moving another tile costs 0 (handled within
//! the layer), so a layer holds every state at that many pattern moves. The search ranks
//! placements densely (mixed radix `n, n - 1, ..., n - k + 1`) to keep its array small; the
//! table keeps the minimum over blank cells. A 6-tile pattern of the 4x4 board is 57,657,600
//! states.
//!
//! The 4x4 default is the 6-6-3 partition; the 7-8 partition needs an 8-tile search over
//! 4.15e9 states (over 8 GB at a byte each) and a 4.3 GB table, past this project's memory
//! budget.

use crate::board::Board;
use crate::progress::Progress;
use crate::shape::Shape;
use crate::solve::estimator::{Estimator, Slide};

/// The largest board (in cells) that pattern databases are built for.
pub const MAX_CELLS: usize = 16;

/// The most patterns in one [`Partition`].
pub const MAX_PATTERNS: usize = 4;

/// The most tiles in one pattern (its table has `16^k` entries: 268 MB for 7).
pub const MAX_PATTERN_TILES: usize = 7;

/// The most states (placements times blank cells) one pattern's search may visit: 2^31,
/// two gigabytes of distances.
pub const MAX_STATES: u64 = 1 << 31;

/// A table entry for a placement that cannot be reached (only when a pattern holds every
/// tile, so that the parity of the placement is fixed).
pub const UNREACHABLE: u8 = 0xFF;

/// Errors from choosing or building pattern databases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdbError {
    /// The board has too many cells.
    #[error(
        "pattern databases are built for boards of at most {MAX_CELLS} cells, not {shape}; \
         use --heuristic linear-conflict"
    )]
    TooLarge {
        /// The board's shape.
        shape: Shape,
    },
    /// A pattern too large to search.
    #[error(
        "a pattern of {tiles} tiles on a {shape} board has {states} states (at most {MAX_STATES})"
    )]
    PatternTooLarge {
        /// The board's shape.
        shape: Shape,
        /// Tiles in the pattern.
        tiles: usize,
        /// Placements times blank cells.
        states: u64,
    },
    /// A partition that is not a partition of the tiles.
    #[error("bad partition for {shape}: {problem}")]
    BadPartition {
        /// The board's shape.
        shape: Shape,
        /// What is wrong.
        problem: String,
    },
    /// No databases to combine.
    #[error("no pattern databases to combine")]
    Empty,
    /// A table of the wrong length.
    #[error("a table for tiles {tiles:?} on {shape} needs {expected} entries, got {found}")]
    WrongLength {
        /// The board's shape.
        shape: Shape,
        /// The pattern's tiles.
        tiles: Vec<u8>,
        /// `16^k` (four bits per tile's cell, see the module documentation).
        expected: u64,
        /// Entries given.
        found: u64,
    },
}

/// The tiles of a board split into disjoint patterns, one database each.
///
/// Tiles are numbered as printed: `1..n-1`, the blank is not in any pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    shape: Shape,
    groups: Vec<Vec<u8>>,
}

impl Partition {
    /// A partition of the tiles `1..n-1` of `shape` into `groups`.
    ///
    /// # Errors
    /// [`PdbError::BadPartition`] unless every tile is in exactly one group, there are at most
    /// [`MAX_PATTERNS`] groups and none is empty; [`PdbError::TooLarge`] above
    /// [`MAX_CELLS`] cells.
    pub fn new(shape: Shape, groups: Vec<Vec<u8>>) -> Result<Partition, PdbError> {
        let n = shape.cells();
        if n > MAX_CELLS {
            return Err(PdbError::TooLarge { shape });
        }
        let bad = |problem: String| Err(PdbError::BadPartition { shape, problem });
        if groups.is_empty() || groups.len() > MAX_PATTERNS {
            return bad(format!("{} patterns (1 to {MAX_PATTERNS})", groups.len()));
        }
        let mut seen = vec![false; n];
        for &tile in groups.iter().flatten() {
            if tile == 0 || tile as usize >= n {
                return bad(format!("tile {tile} is not a tile (1..={})", n - 1));
            }
            if std::mem::replace(&mut seen[tile as usize], true) {
                return bad(format!("tile {tile} is in two patterns"));
            }
        }
        if let Some(missing) = (1..n).find(|&t| !seen[t]) {
            return bad(format!("tile {missing} is in no pattern"));
        }
        if groups.iter().any(Vec::is_empty) {
            return bad("an empty pattern".into());
        }
        Ok(Partition { shape, groups })
    }

    /// The partition used by default for `shape`.
    ///
    /// - 4x4: 6-6-3, the left two columns less the top row (`1 5 6 9 10 13`), the bottom
    ///   right block (`7 8 11 12 14 15`) and the rest of the top row (`2 3 4`).
    /// - Other shapes up to 16 cells: the tiles in row-major order cut into the fewest runs
    ///   of at most 6 tiles, of equal size give or take one (3x3: 4-4; 3x4: 6-5; 2x8: 5-5-5).
    ///
    /// # Errors
    /// [`PdbError::TooLarge`] above [`MAX_CELLS`] cells.
    pub fn default_for(shape: Shape) -> Result<Partition, PdbError> {
        if shape.rows() == 4 && shape.cols() == 4 {
            return Partition::new(
                shape,
                vec![
                    vec![1, 5, 6, 9, 10, 13],
                    vec![7, 8, 11, 12, 14, 15],
                    vec![2, 3, 4],
                ],
            );
        }
        let tiles = shape.cells().saturating_sub(1);
        let count = tiles.div_ceil(6).max(1);
        let mut groups = Vec::with_capacity(count);
        let mut next = 1u8;
        for g in 0..count {
            let size = tiles / count + usize::from(g < tiles % count);
            groups.push((next..next + size as u8).collect());
            next += size as u8;
        }
        Partition::new(shape, groups)
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The patterns, as tile numbers.
    pub fn groups(&self) -> &[Vec<u8>] {
        &self.groups
    }
}

/// `n! / (n - k)!`, the number of placements of `k` distinct tiles on `n` cells.
pub fn placements(n: usize, k: usize) -> u64 {
    (0..k).map(|i| (n - i) as u64).product()
}

/// `16^k`, the number of entries of a `k`-tile table (see the module documentation).
pub fn entries(k: usize) -> u64 {
    1 << (4 * k)
}

/// The table index of a placement: `cells[i]` is the cell of the pattern's `i`-th tile.
#[inline(always)]
pub fn table_index(cells: impl IntoIterator<Item = u8>) -> usize {
    cells
        .into_iter()
        .enumerate()
        .fold(0, |index, (i, cell)| index | (cell as usize) << (4 * i))
}

/// One pattern's database: the fewest pattern-tile moves for every placement of its tiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternDb {
    shape: Shape,
    /// The pattern's pieces (tile number minus one: the piece's goal cell).
    pieces: Vec<u8>,
    table: Vec<u8>,
}

impl PatternDb {
    /// Builds the database of the pattern `tiles` (as printed, `1..n-1`) on `shape` by a
    /// breadth-first search over its abstraction (see the module documentation), reporting
    /// each layer to `progress`.
    ///
    /// Time and memory grow as `n! / (n - k - 1)!`: the 6-tile patterns of the 4x4 board
    /// take about ten seconds and 92 MB each in a release build.
    ///
    /// # Errors
    /// [`PdbError::PatternTooLarge`] above [`MAX_STATES`] states; [`PdbError::BadPartition`]
    /// for a tile out of range or repeated.
    pub fn build(
        shape: Shape,
        tiles: &[u8],
        progress: &dyn Progress,
    ) -> Result<PatternDb, PdbError> {
        let pieces = pieces_of(shape, tiles)?;
        let n = shape.cells();
        let k = pieces.len();
        let states = placements(n, k) * n as u64;
        if states > MAX_STATES {
            return Err(PdbError::PatternTooLarge {
                shape,
                tiles: k,
                states,
            });
        }
        let adjacent: Vec<Vec<usize>> = (0..n).map(|c| shape.adjacent(c).collect()).collect();
        let mut dist = vec![UNREACHABLE; states as usize];
        let start = rank_placement(&pieces, n) * n + (n - 1);
        dist[start] = 0;
        let mut layer = vec![start as u32];
        let mut reached = 1u64;
        let tile_list = tiles
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        progress.begin(
            &format!("pdb {shape} [{tile_list}]"),
            placements(n, k + 1),
            "states",
        );
        let mut depth = 0u8;
        let mut cells = vec![0u8; k];
        while !layer.is_empty() {
            let mut next = Vec::new();
            while let Some(state) = layer.pop() {
                let state = state as usize;
                if dist[state] != depth {
                    continue; // Reached again at a lower cost since it was queued.
                }
                let (placement, blank) = (state / n, state % n);
                unrank_placement(placement, n, &mut cells);
                for &to in &adjacent[blank] {
                    match cells.iter().position(|&c| c as usize == to) {
                        Some(j) => {
                            // A pattern tile slides into the blank: one move.
                            cells[j] = blank as u8;
                            let child = rank_placement(&cells, n) * n + to;
                            cells[j] = to as u8;
                            if dist[child] == UNREACHABLE {
                                dist[child] = depth + 1;
                                reached += 1;
                                next.push(child as u32);
                            }
                        }
                        None => {
                            // Another tile slides: free, same layer.
                            let child = placement * n + to;
                            if dist[child] > depth {
                                reached += u64::from(dist[child] == UNREACHABLE);
                                dist[child] = depth;
                                layer.push(child as u32);
                            }
                        }
                    }
                }
            }
            progress.update(reached, &format!("depth {depth}"));
            depth += 1;
            layer = next;
        }
        progress.end();
        let mut table = vec![UNREACHABLE; entries(k) as usize];
        for (placement, by_blank) in dist.chunks_exact(n).enumerate() {
            unrank_placement(placement, n, &mut cells);
            table[table_index(cells.iter().copied())] =
                by_blank.iter().copied().min().unwrap_or(UNREACHABLE);
        }
        Ok(PatternDb {
            shape,
            pieces,
            table,
        })
    }

    /// A database from a stored table (as written by [`PatternDb::table`]).
    ///
    /// # Errors
    /// [`PdbError::WrongLength`] when `table` does not have `16^k` entries;
    /// [`PdbError::BadPartition`] for a tile out of range or repeated.
    pub fn from_table(shape: Shape, tiles: &[u8], table: Vec<u8>) -> Result<PatternDb, PdbError> {
        let pieces = pieces_of(shape, tiles)?;
        let expected = entries(pieces.len());
        if table.len() as u64 != expected {
            return Err(PdbError::WrongLength {
                shape,
                tiles: tiles.to_vec(),
                expected,
                found: table.len() as u64,
            });
        }
        Ok(PatternDb {
            shape,
            pieces,
            table,
        })
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The pattern's tiles, as printed (`1..n-1`).
    pub fn tiles(&self) -> Vec<u8> {
        self.pieces.iter().map(|&p| p + 1).collect()
    }

    /// The table, indexed by [`table_index`] (see the module documentation).
    pub fn table(&self) -> &[u8] {
        &self.table
    }

    /// The value for the pattern's tiles as placed on `board`.
    pub fn value(&self, board: &Board) -> u8 {
        let pos = crate::solve::estimator::positions(board.permutation());
        self.table[table_index(self.pieces.iter().map(|&p| pos[p as usize]))]
    }
}

/// Pieces (goal cells) of printed tile numbers, checked.
fn pieces_of(shape: Shape, tiles: &[u8]) -> Result<Vec<u8>, PdbError> {
    let n = shape.cells();
    if n > MAX_CELLS {
        return Err(PdbError::TooLarge { shape });
    }
    if tiles.is_empty() || tiles.len() > MAX_PATTERN_TILES {
        return Err(PdbError::BadPartition {
            shape,
            problem: format!(
                "a pattern of {} tiles (1 to {MAX_PATTERN_TILES})",
                tiles.len()
            ),
        });
    }
    let mut seen = 0u64;
    tiles
        .iter()
        .map(|&t| {
            let ok = t >= 1 && (t as usize) < n && seen & (1 << t) == 0;
            seen |= 1 << (t % 64);
            if ok {
                Ok(t - 1)
            } else {
                Err(PdbError::BadPartition {
                    shape,
                    problem: format!("tile {t} is out of range or repeated"),
                })
            }
        })
        .collect()
}

/// The rank of a placement (`cells[i]` = cell of the pattern's `i`-th tile) among the
/// `n! / (n - k)!` placements.
#[inline(always)]
fn rank_placement(cells: &[u8], n: usize) -> usize {
    let mut taken = 0u64;
    let mut rank = 0usize;
    for (i, &c) in cells.iter().enumerate() {
        let below = (taken & ((1u64 << c) - 1)).count_ones() as usize;
        taken |= 1 << c;
        rank = rank * (n - i) + c as usize - below;
    }
    rank
}

/// The inverse of [`rank_placement`], into `cells` (`cells.len()` tiles).
fn unrank_placement(mut rank: usize, n: usize, cells: &mut [u8]) {
    let k = cells.len();
    for i in (0..k).rev() {
        let radix = n - i;
        cells[i] = (rank % radix) as u8;
        rank /= radix;
    }
    let mut free = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    for c in cells.iter_mut() {
        let mut x = free;
        for _ in 0..*c {
            x &= x - 1;
        }
        let cell = x.trailing_zeros() as u8;
        free &= !(1 << cell);
        *c = cell;
    }
}

/// The databases of a [`Partition`], summed into one admissible heuristic.
#[derive(Debug, Clone)]
pub struct PatternDatabases {
    shape: Shape,
    databases: Vec<PatternDb>,
    /// Index of the database owning each piece (`u8::MAX` for the blank).
    owner: Vec<u8>,
    /// On square boards, the transpose of each cell: reflected lookups are made.
    mirror: Option<Vec<u8>>,
    /// Per database, the transposes `T(q)` of its pieces (empty when not square).
    mirrored_pieces: Vec<Vec<u8>>,
    /// Each piece's place in its pattern (its four bits of the index).
    slot: Vec<u8>,
}

impl PatternDatabases {
    /// Builds every database of `partition` (see [`PatternDb::build`]).
    ///
    /// # Errors
    /// As [`PatternDb::build`].
    pub fn build(
        partition: &Partition,
        progress: &dyn Progress,
    ) -> Result<PatternDatabases, PdbError> {
        let databases = partition
            .groups()
            .iter()
            .map(|tiles| PatternDb::build(partition.shape(), tiles, progress))
            .collect::<Result<Vec<_>, _>>()?;
        PatternDatabases::new(databases)
    }

    /// Combines databases whose patterns partition the tiles of one shape.
    ///
    /// # Errors
    /// [`PdbError::BadPartition`] when they do not (or have different shapes);
    /// [`PdbError::Empty`] for none.
    pub fn new(databases: Vec<PatternDb>) -> Result<PatternDatabases, PdbError> {
        let Some(first) = databases.first() else {
            return Err(PdbError::Empty);
        };
        let shape = first.shape;
        if let Some(other) = databases.iter().find(|d| d.shape != shape) {
            return Err(PdbError::BadPartition {
                shape,
                problem: format!("a database for {} among those for {shape}", other.shape),
            });
        }
        // Validates the partition (cover, disjoint, count).
        Partition::new(shape, databases.iter().map(PatternDb::tiles).collect())?;
        let n = shape.cells();
        let mut owner = vec![u8::MAX; n];
        let mut slot = vec![0u8; n];
        for (i, db) in databases.iter().enumerate() {
            for (j, &p) in db.pieces.iter().enumerate() {
                owner[p as usize] = i as u8;
                slot[p as usize] = j as u8;
            }
        }
        let mirror: Option<Vec<u8>> = (shape.rows() == shape.cols()).then(|| {
            (0..n)
                .map(|cell| {
                    let (r, c) = shape.coords(cell);
                    (c * shape.cols() + r) as u8
                })
                .collect()
        });
        let mirrored_pieces = databases
            .iter()
            .map(|db| match &mirror {
                Some(m) => db.pieces.iter().map(|&p| m[p as usize]).collect(),
                None => Vec::new(),
            })
            .collect();
        Ok(PatternDatabases {
            shape,
            databases,
            owner,
            mirror,
            mirrored_pieces,
            slot,
        })
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The databases, one per pattern.
    pub fn databases(&self) -> &[PatternDb] {
        &self.databases
    }

    /// Whether the reflected lookup is made (square boards).
    pub fn reflected(&self) -> bool {
        self.mirror.is_some()
    }

    #[inline(always)]
    fn bound(&self, memo: &[u8; 2 * MAX_PATTERNS]) -> u32 {
        let m = self.databases.len();
        sum(&memo[..m]).max(sum(&memo[MAX_PATTERNS..MAX_PATTERNS + m]))
    }
}

#[inline(always)]
fn sum(values: &[u8]) -> u32 {
    values.iter().map(|&v| u32::from(v)).sum()
}

/// Per pattern, its table index and value on the board (`0..MAX_PATTERNS`) and on the
/// transpose (the rest). A move changes one tile's four bits of one index on each side.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PdbMemo {
    index: [u32; 2 * MAX_PATTERNS],
    value: [u8; 2 * MAX_PATTERNS],
}

impl Estimator for PatternDatabases {
    type Memo = PdbMemo;

    fn start(&self, _cells: &[u8], pos: &[u8]) -> (u32, PdbMemo) {
        let mut memo = PdbMemo {
            index: [0; 2 * MAX_PATTERNS],
            value: [0; 2 * MAX_PATTERNS],
        };
        for (db, database) in self.databases.iter().enumerate() {
            let index = table_index(database.pieces.iter().map(|&p| pos[p as usize]));
            memo.index[db] = index as u32;
            memo.value[db] = database.table[index];
            if let Some(mirror) = &self.mirror {
                // Piece q of the transpose stands where the transpose of piece T(q) stands.
                let cells = self.mirrored_pieces[db]
                    .iter()
                    .map(|&p| mirror[pos[p as usize] as usize]);
                let index = table_index(cells);
                memo.index[MAX_PATTERNS + db] = index as u32;
                memo.value[MAX_PATTERNS + db] = database.table[index];
            }
        }
        (self.bound(&memo.value), memo)
    }

    #[inline(always)]
    fn after_move(
        &self,
        _cells: &[u8],
        _pos: &[u8],
        slide: Slide,
        memo: PdbMemo,
        budget: u32,
    ) -> (u32, PdbMemo) {
        let Slide { piece, from, to } = slide;
        let piece = piece as usize;
        let mut next = memo;
        let db = self.owner[piece] as usize;
        let shift = 4 * u32::from(self.slot[piece]);
        let index = next.index[db] - ((from as u32) << shift) + ((to as u32) << shift);
        next.index[db] = index;
        next.value[db] = self.databases[db].table[index as usize];
        let m = self.databases.len();
        let direct = sum(&next.value[..m]);
        let Some(mirror) = &self.mirror else {
            return (direct, next);
        };
        if direct > budget {
            return (direct, next); // Pruned anyway: skip the reflected lookup.
        }
        // On the transpose, piece T(piece) went from T(from) to T(to).
        let moved = mirror[piece] as usize;
        let db = self.owner[moved] as usize;
        let shift = 4 * u32::from(self.slot[moved]);
        let side = MAX_PATTERNS + db;
        let (from, to) = (u32::from(mirror[from]), u32::from(mirror[to]));
        let index = next.index[side] - (from << shift) + (to << shift);
        next.index[side] = index;
        next.value[side] = self.databases[db].table[index as usize];
        (
            direct.max(sum(&next.value[MAX_PATTERNS..MAX_PATTERNS + m])),
            next,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use crate::solve::Heuristic;
    use std::collections::{HashMap, VecDeque};
    use std::sync::Arc;

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    #[test]
    fn placement_ranks_are_a_bijection() {
        for (n, k) in [(6, 3), (9, 4), (16, 2)] {
            let mut cells = vec![0u8; k];
            let mut seen = std::collections::HashSet::new();
            for r in 0..placements(n, k) as usize {
                unrank_placement(r, n, &mut cells);
                assert_eq!(rank_placement(&cells, n), r);
                assert!(seen.insert(cells.clone()));
            }
        }
    }

    #[test]
    fn default_partitions() {
        let p = Partition::default_for(shape(3, 3)).unwrap();
        assert_eq!(p.groups(), &[vec![1, 2, 3, 4], vec![5, 6, 7, 8]]);
        let p = Partition::default_for(shape(3, 4)).unwrap();
        assert_eq!(
            p.groups().iter().map(Vec::len).collect::<Vec<_>>(),
            vec![6, 5]
        );
        let p = Partition::default_for(shape(4, 4)).unwrap();
        assert_eq!(
            p.groups().iter().map(Vec::len).collect::<Vec<_>>(),
            vec![6, 6, 3]
        );
        assert!(Partition::default_for(shape(2, 2)).is_ok());
        assert!(matches!(
            Partition::default_for(shape(5, 5)),
            Err(PdbError::TooLarge { .. })
        ));
        assert!(Partition::new(shape(3, 3), vec![vec![1, 2, 3], vec![3, 4, 5, 6, 7, 8]]).is_err());
        assert!(Partition::new(shape(3, 3), vec![vec![1, 2, 3], vec![5, 6, 7, 8]]).is_err());
    }

    /// The database agrees with a plain Dijkstra over the pattern's abstraction, written
    /// independently: states are (cells of the pattern tiles, blank cell), moving a pattern
    /// tile costs 1, another tile 0.
    #[test]
    fn database_matches_a_search_over_its_abstraction() {
        for (s, tiles) in [
            (shape(2, 3), vec![1, 2, 4]),
            (shape(3, 3), vec![2, 5, 6, 7]),
        ] {
            let db = PatternDb::build(s, &tiles, &NoProgress).unwrap();
            let n = s.cells();
            let goal: Vec<u8> = tiles.iter().map(|t| t - 1).collect();
            let mut best: HashMap<(Vec<u8>, u8), u8> = HashMap::new();
            let mut queue = VecDeque::from([((goal, (n - 1) as u8), 0u8)]);
            while let Some(((cells, blank), d)) = queue.pop_front() {
                if best.get(&(cells.clone(), blank)).is_some_and(|&b| b <= d) {
                    continue;
                }
                best.insert((cells.clone(), blank), d);
                for to in s.adjacent(blank as usize) {
                    let mut next = cells.clone();
                    match next.iter().position(|&c| c as usize == to) {
                        Some(j) => {
                            next[j] = blank;
                            queue.push_back(((next, to as u8), d + 1));
                        }
                        None => queue.push_front(((next, to as u8), d)),
                    }
                }
            }
            let mut min: HashMap<Vec<u8>, u8> = HashMap::new();
            for ((cells, _), d) in best {
                let e = min.entry(cells).or_insert(d);
                *e = (*e).min(d);
            }
            assert_eq!(min.len() as u64, placements(n, tiles.len()));
            for (cells, d) in min {
                let index = table_index(cells.iter().copied());
                assert_eq!(db.table()[index], d, "{s} {tiles:?} {cells:?}");
            }
            let used = db.table().iter().filter(|&&v| v != UNREACHABLE).count();
            assert_eq!(used as u64, placements(n, tiles.len()));
        }
    }

    /// Every value of the heuristic is admissible: never above the true distance, for every
    /// solvable 2x3 board (BFS from the goal), with and without the reflection.
    #[test]
    fn databases_are_admissible_on_2x3_and_3x3() {
        for s in [shape(2, 3), shape(3, 3)] {
            let dbs =
                PatternDatabases::build(&Partition::default_for(s).unwrap(), &NoProgress).unwrap();
            assert_eq!(dbs.reflected(), s.rows() == s.cols());
            let h = Heuristic::pdb(Arc::new(dbs));
            let table = crate::solve::tests::distances(s);
            let mut tight = 0;
            for (rank, &d) in table.iter().enumerate() {
                if d == u8::MAX {
                    continue;
                }
                let b = Board::from_rank(s, rank as u64);
                let e = h.estimate(&b);
                assert!(e <= u32::from(d), "{} h={e} d={d}", b.label());
                tight += usize::from(e == u32::from(d));
            }
            assert!(tight > 0);
        }
    }

    /// The incremental update (indices shifted per move, both sides) agrees with a fresh
    /// computation along a random walk on 4x4 (a cheap 4-4-4-3 partition), and the
    /// reflected side is used.
    #[test]
    fn incremental_lookups_match_fresh_ones() {
        use crate::solve::estimator::positions;
        let s = shape(4, 4);
        let groups = vec![
            vec![1, 2, 3, 4],
            vec![5, 6, 7, 8],
            vec![9, 10, 11, 12],
            vec![13, 14, 15],
        ];
        let dbs =
            PatternDatabases::build(&Partition::new(s, groups).unwrap(), &NoProgress).unwrap();
        let mut rng = crate::solve::random::SplitMix64::new(4);
        let mut board = Board::goal(s);
        let (_, mut memo) = dbs.start(board.permutation(), &positions(board.permutation()));
        let mut reflected_wins = 0;
        for _ in 0..5_000 {
            let dirs: Vec<_> = crate::Direction::ALL
                .into_iter()
                .filter(|d| board.moved(*d).is_some())
                .collect();
            let dir = dirs[rng.below(dirs.len() as u64) as usize];
            let blank = board.blank();
            board = board.moved(dir).unwrap();
            let cells = board.permutation();
            let pos = positions(cells);
            let slide = Slide {
                piece: cells[blank],
                from: board.blank(),
                to: blank,
            };
            let (h, next) = dbs.after_move(cells, &pos, slide, memo, u32::MAX);
            let (fresh, fresh_memo) = dbs.start(cells, &pos);
            assert_eq!(h, fresh);
            assert_eq!(next.index, fresh_memo.index);
            let m = dbs.databases().len();
            reflected_wins += usize::from(
                sum(&next.value[MAX_PATTERNS..MAX_PATTERNS + m]) > sum(&next.value[..m]),
            );
            memo = next;
        }
        assert!(reflected_wins > 0);
    }

    #[test]
    fn from_table_checks_the_length() {
        let s = shape(2, 3);
        let db = PatternDb::build(s, &[1, 2], &NoProgress).unwrap();
        assert_eq!(db.table().len(), 256);
        let again = PatternDb::from_table(s, &[1, 2], db.table().to_vec()).unwrap();
        assert_eq!(again, db);
        assert!(matches!(
            PatternDb::from_table(s, &[1, 2], vec![0; 255]),
            Err(PdbError::WrongLength {
                expected: 256,
                found: 255,
                ..
            })
        ));
    }
}
