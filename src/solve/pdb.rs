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
//! **Index** ([`Layout`]). Up to 6 tiles the value of a placement (tile `i` on cell `c_i`)
//! is stored at `c_0 + 16 c_1 + ... + 16^(k-1) c_(k-1)`: four bits per tile, `16^k` one-byte
//! entries, of which the `n! / (n - k)!` placements use a part (the rest hold
//! [`UNREACHABLE`]). IDA* keeps each such index and changes four of its bits per move, about
//! twice as fast as ranking, at 16.8 MB for a 6-tile pattern of 4x4. From 7 tiles the table
//! is dense, indexed by the placement's rank ([`crate::rank::rank_partial`]): 57.7 MB for 7
//! tiles and 518.9 MB for 8 (`16^8` would be 4.3 GB).
//!
//! **Build.** A breadth-first search from the goal over the pattern's abstract state space
//! ([`crate::solve::pattern_space`]: a placement and the blank's region, every move a move
//! of a pattern tile), driven by the engine's parallel layer driver ([`crate::bfs::run`]);
//! the first depth at which a placement is reached is its value. A database read from a
//! file is checked before it is used ([`PatternDb::check`]).
//!
//! The 4x4 default is the 7-8 partition of Felner, Korf & Hanan (2004): the top two rows
//! (tiles 1-8) and the rest (9-15). Its 8-tile search takes about 1.5 GB (two bits of marks
//! per index, a byte per placement), its tables 577 MB. The 6-6-3 partition, 34 MB and built
//! in seconds, stays available ([`Partition::named`]).

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use crate::bfs::{OnVisit, StateIndex, StateMarks, StateSpace};
use crate::board::Board;
use crate::progress::Progress;
use crate::rank::{partial_count, rank_partial, unrank_partial};
use crate::shape::Shape;
use crate::solve::estimator::{Estimator, Slide};
use crate::solve::pattern_space::PatternSpace;

/// The largest board (in cells) that pattern databases are built for.
pub const MAX_CELLS: usize = 16;

/// The most patterns in one [`Partition`].
pub const MAX_PATTERNS: usize = 4;

/// The most tiles in one pattern (a dense table of 518.9 MB for 8 tiles on 16 cells).
pub const MAX_PATTERN_TILES: usize = 8;

/// The most tiles of a pattern whose table is [`Layout::Sparse`].
pub const SPARSE_MAX_TILES: usize = 6;

/// The largest index of a pattern's search (placements times free cells): 2^33, two
/// gigabytes of marks.
pub const MAX_STATES: u64 = 1 << 33;

/// A table entry for a placement that cannot be reached (only when at most one tile is
/// outside the pattern, so that the parity of the placement is fixed, or on a one-row
/// board), and for the sparse layout's indices that are not placements: the BFS's
/// [`crate::bfs::UNREACHABLE`] (0xFF), one constant for every table of depths.
pub use crate::bfs::UNREACHABLE;

/// Errors from choosing or building pattern databases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdbError {
    /// The board has too many cells.
    #[error(
        "pattern databases are built for boards of at most {MAX_CELLS} cells, not {shape}; \
         use {instead}",
        instead = crate::frontend::arg(crate::frontend::Input::Heuristic, "linear-conflict")
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
    /// The search's arrays could not be allocated.
    #[error(transparent)]
    OutOfMemory(#[from] crate::bfs::OutOfMemory),
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
    /// A table just built that fails its full check ([`PatternDb::verify`]): a defect of
    /// the build, reported rather than used.
    #[error("the pattern database for tiles {tiles:?} on {shape} fails its check: {problem}")]
    FailedCheck {
        /// The board's shape.
        shape: Shape,
        /// The pattern's tiles.
        tiles: Vec<u8>,
        /// The first problem found.
        problem: String,
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
    /// - 4x4: 7-8 (Felner, Korf & Hanan 2004), the top two rows (`1`-`8`) and the rest
    ///   (`9`-`15`); the paper's figure has the blank first, this project's goal has it
    ///   last, so its tile `t` is our tile `16 - t` (a half turn, which keeps the diagonal
    ///   of the reflected lookup).
    /// - Other shapes up to 16 cells: the tiles in row-major order cut into the fewest runs
    ///   of at most 6 tiles, of equal size give or take one (3x3: 4-4; 3x4: 6-5; 2x8: 5-5-5).
    ///
    /// # Errors
    /// [`PdbError::TooLarge`] above [`MAX_CELLS`] cells.
    pub fn default_for(shape: Shape) -> Result<Partition, PdbError> {
        if shape.rows() == 4 && shape.cols() == 4 {
            return Partition::named(shape, "7-8");
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

    /// The partition `solve` uses when none is named, for `boards` boards of `shape` to be
    /// solved: the default ([`Partition::default_for`]) when its tables are `cached`, when
    /// the shape has no quicker one, or when the work is large enough to repay its build
    /// ([`LARGE_PAYS_FROM`] boards); else the quicker one. Only 4x4 has a quicker one: 6-6-3
    /// (34 MB, built in about 5 s on 2 cores) against the default 7-8 (577 MB, about 6 minutes
    /// and up to 2.1 GB to build), which solves random boards about 6 times faster.
    ///
    /// # Errors
    /// [`PdbError::TooLarge`] above [`MAX_CELLS`] cells.
    pub fn for_work(shape: Shape, boards: u64, cached: bool) -> Result<Partition, PdbError> {
        let best = Partition::default_for(shape)?;
        match Partition::quicker_than_default(shape) {
            Some(quick) if !cached && boards < LARGE_PAYS_FROM => Ok(quick),
            _ => Ok(best),
        }
    }

    /// The partition quicker to build than the default one, where there is one: 6-6-3 on 4x4.
    pub fn quicker_than_default(shape: Shape) -> Option<Partition> {
        Partition::named(shape, "6-6-3").ok()
    }

    /// The names of [`Partition::named`], with the shape each is for.
    pub const NAMES: [&'static str; 3] = ["default", "7-8", "6-6-3"];

    /// A partition by name: `default` ([`Partition::default_for`]), or for 4x4 `7-8` (the
    /// default) or `6-6-3` (Korf & Felner 2002; Felner, Korf & Hanan 2004: the left two
    /// columns less the top row `1 5 6 9 10 13`, the bottom right block
    /// `7 8 11 12 14 15`, and `2 3 4`; 34 MB, built in seconds).
    ///
    /// # Errors
    /// [`PdbError::BadPartition`] for another name, or `7-8`/`6-6-3` on another shape.
    pub fn named(shape: Shape, name: &str) -> Result<Partition, PdbError> {
        let square4 = shape.rows() == 4 && shape.cols() == 4;
        match name {
            "default" => Partition::default_for(shape),
            "7-8" if square4 => Partition::new(shape, vec![(1..=8).collect(), (9..=15).collect()]),
            "6-6-3" if square4 => Partition::new(
                shape,
                vec![
                    vec![1, 5, 6, 9, 10, 13],
                    vec![7, 8, 11, 12, 14, 15],
                    vec![2, 3, 4],
                ],
            ),
            "7-8" | "6-6-3" => Err(PdbError::BadPartition {
                shape,
                problem: format!("the {name} partition is for 4x4 boards; use default"),
            }),
            _ => Err(PdbError::BadPartition {
                shape,
                problem: format!(
                    "unknown partition '{name}' (expected one of: {})",
                    Partition::NAMES.join(", ")
                ),
            }),
        }
    }

    /// The name of this partition for [`Partition::named`] when it has one (`7-8`,
    /// `6-6-3`), else its sizes joined by `-` (`4-4`).
    pub fn name(&self) -> String {
        for name in ["7-8", "6-6-3"] {
            if Partition::named(self.shape, name).as_ref() == Ok(self) {
                return name.into();
            }
        }
        self.groups
            .iter()
            .map(|g| g.len().to_string())
            .collect::<Vec<_>>()
            .join("-")
    }

    /// The searches' index sizes, one per pattern (placements times free cells; 0 for a
    /// pattern too large to index).
    fn search_sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.groups.iter().map(|tiles| {
            let pieces: Vec<u8> = tiles.iter().map(|t| t - 1).collect();
            PatternSpace::new(self.shape, &pieces).map_or(0, |space| space.size())
        })
    }

    /// About how long building every database takes on `threads` threads: 150 ns of one
    /// core per index of the searches, as measured for the 4x4 7-8 databases (330 s on 2
    /// cores of an AMD EPYC; 4.67e9 indices). A guide for the user, not a bound.
    pub fn build_estimate(&self, threads: usize) -> std::time::Duration {
        let core_ns = self.search_sizes().sum::<u64>() as f64 * 150.0;
        std::time::Duration::from_secs_f64(core_ns / 1e9 / threads.max(1) as f64)
    }

    /// The memory the largest database's build takes, in bytes: two bits of marks per index
    /// and a byte per placement, plus the table in its layout.
    pub fn build_bytes(&self) -> u64 {
        let n = self.shape.cells();
        self.groups
            .iter()
            .zip(self.search_sizes())
            .map(|(g, size)| {
                let k = g.len();
                size / 4 + placements(n, k) + Layout::of(k).len(n, k)
            })
            .max()
            .unwrap_or(0)
    }

    /// The tables' size in bytes (memory once loaded, and cache files).
    pub fn table_bytes(&self) -> u64 {
        let n = self.shape.cells();
        self.groups
            .iter()
            .map(|g| Layout::of(g.len()).len(n, g.len()))
            .sum()
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

/// Boards from which building the default pattern databases pays for itself when a quicker
/// partition exists ([`Partition::for_work`]): the 4x4 7-8 build (240 to 350 s on 2 cores,
/// quiet or busy) over what 6-6-3 costs more per board (about 16 ms on random 4x4 boards: the
/// 100 boards of `benches/data/4x4_random100.txt` take 2.6 s with 6-6-3 and 1.0 s with 7-8,
/// end to end with the tables cached; `scripts/bench_solve.sh`), that is 15,000 to 22,000
/// boards.
pub const LARGE_PAYS_FROM: u64 = 20_000;

/// `n! / (n - k)!`, the number of placements of `k` distinct tiles on `n` cells
/// ([`crate::rank::partial_count`]; 0 when it does not fit in a `u64`).
pub fn placements(n: usize, k: usize) -> u64 {
    partial_count(n, k).unwrap_or(0)
}

/// The sparse layout's index of a placement: `cells[i]` is the cell of the pattern's `i`-th
/// tile, four bits each (see the module documentation).
#[inline(always)]
pub fn table_index(cells: impl IntoIterator<Item = u8>) -> usize {
    cells
        .into_iter()
        .enumerate()
        .fold(0, |index, (i, cell)| index | (cell as usize) << (4 * i))
}

/// How a pattern's table is indexed by the cells of its tiles (see the module
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Four bits per tile ([`table_index`]): `16^k` entries, updated in place per move.
    Sparse,
    /// The placement's rank ([`crate::rank::rank_partial`]): `n! / (n - k)!` entries.
    Dense,
}

impl Layout {
    /// The layout of a `k`-tile pattern: sparse up to [`SPARSE_MAX_TILES`], dense above.
    pub fn of(k: usize) -> Layout {
        if k <= SPARSE_MAX_TILES {
            Layout::Sparse
        } else {
            Layout::Dense
        }
    }

    /// Entries of the table of `k` tiles on `n` cells: `16^k` or `n! / (n - k)!`.
    pub fn len(self, n: usize, k: usize) -> u64 {
        match self {
            Layout::Sparse => 1 << (4 * k),
            Layout::Dense => placements(n, k),
        }
    }

    /// The index of the placement `cells` (cell of each tile, in pattern order) on `n` cells.
    #[inline(always)]
    pub fn index(self, cells: &[u8], n: usize) -> usize {
        match self {
            Layout::Sparse => table_index(cells.iter().copied()),
            Layout::Dense => rank_partial(cells, n) as usize,
        }
    }
}

/// One pattern's database: the fewest pattern-tile moves for every placement of its tiles.
#[derive(Debug, Clone)]
pub struct PatternDb {
    shape: Shape,
    /// The pattern's pieces (tile number minus one: the piece's goal cell).
    pieces: Vec<u8>,
    layout: Layout,
    table: Vec<u8>,
    /// Whether the full check ([`PatternDb::verify`]) has passed.
    verified: bool,
}

/// Equal when shape, pattern and table are: whether the full check has run is not part of
/// the value.
impl PartialEq for PatternDb {
    fn eq(&self, other: &PatternDb) -> bool {
        (self.shape, &self.pieces, self.layout, &self.table)
            == (other.shape, &other.pieces, other.layout, &other.table)
    }
}

impl Eq for PatternDb {}

/// Records the first depth at which each placement is reached.
struct FirstDepth<'a> {
    space: &'a PatternSpace,
    depths: &'a [AtomicU8],
}

impl OnVisit for FirstDepth<'_> {
    #[inline(always)]
    fn visit(&self, index: StateIndex, depth: u32) {
        let entry = &self.depths[self.space.placement_of(index) as usize];
        // Layers come one after the other, so the first depth stored is the least; within
        // a layer every thread stores the same value.
        if entry.load(Relaxed) == UNREACHABLE {
            entry.store(depth.min(u32::from(UNREACHABLE) - 1) as u8, Relaxed);
        }
    }
}

impl PatternDb {
    /// Builds the database of the pattern `tiles` (as printed, `1..n-1`) on `shape` by a
    /// parallel breadth-first search over its abstract state space (see the module
    /// documentation), reporting each layer to `progress`, then checks it in full
    /// ([`PatternDb::verify`]; [`PatternDb::check`] too in debug builds).
    ///
    /// Time and memory grow as `n! / (n - k - 1)!`: a 6-tile pattern of the 4x4 board takes
    /// a few seconds, the 8-tile one about 3.5 minutes (a minute of it the full check) and
    /// 1.6 GB on two cores.
    ///
    /// # Errors
    /// [`PdbError::PatternTooLarge`] above [`MAX_STATES`] indices; [`PdbError::BadPartition`]
    /// for a tile out of range or repeated; [`PdbError::OutOfMemory`];
    /// [`PdbError::FailedCheck`] if the full check fails (a defect of the build).
    pub fn build(
        shape: Shape,
        tiles: &[u8],
        progress: &dyn Progress,
    ) -> Result<PatternDb, PdbError> {
        let pieces = pieces_of(shape, tiles)?;
        let n = shape.cells();
        let k = pieces.len();
        let too_large = PdbError::PatternTooLarge {
            shape,
            tiles: k,
            states: placements(n, k).saturating_mul((n - k) as u64),
        };
        let space = PatternSpace::new(shape, &pieces).ok_or(too_large.clone())?;
        if space.size() > MAX_STATES {
            return Err(too_large);
        }
        let tile_list = tiles
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        progress.begin(
            &format!("pdb {shape} [{tile_list}]"),
            space.states(),
            "states",
        );
        let mut depths: Vec<AtomicU8> = Vec::new();
        depths
            .try_reserve_exact(space.placements() as usize)
            .map_err(|_| crate::bfs::OutOfMemory {
                bytes: space.placements(),
                what: "a pattern database (a byte per placement)",
            })?;
        crate::bfs::advise_huge_pages(depths.as_ptr(), depths.capacity());
        depths.extend((0..space.placements()).map(|_| AtomicU8::new(UNREACHABLE)));
        let marks = StateMarks::try_new(space.size())?;
        let seed = space
            .rank(&Board::goal(shape))
            .expect("the goal is a state of its own shape");
        let visit = FirstDepth {
            space: &space,
            depths: &depths,
        };
        crate::bfs::run(&space, &marks, seed, &visit, |depth, _, reached| {
            progress.update(reached, &format!("depth {depth}"));
        });
        drop(marks);
        progress.end();
        let dense: Vec<u8> = depths.into_iter().map(AtomicU8::into_inner).collect();
        let layout = Layout::of(k);
        let table = match layout {
            Layout::Dense => dense,
            Layout::Sparse => {
                let mut table = vec![UNREACHABLE; layout.len(n, k) as usize];
                let mut cells = vec![0u8; k];
                for (placement, &value) in dense.iter().enumerate() {
                    unrank_partial(placement as u64, n, &mut cells);
                    table[table_index(cells.iter().copied())] = value;
                }
                table
            }
        };
        let mut db = PatternDb {
            shape,
            pieces,
            layout,
            table,
            verified: false,
        };
        debug_assert_eq!(db.check(), Ok(()));
        db.verify().map_err(|problem| PdbError::FailedCheck {
            shape,
            tiles: tiles.to_vec(),
            problem,
        })?;
        Ok(db)
    }

    /// A database from a stored table (as written by [`PatternDb::table`]), not yet checked
    /// (see [`PatternDb::check`]).
    ///
    /// # Errors
    /// [`PdbError::WrongLength`] when `table` does not have the layout's length
    /// ([`Layout::len`]); [`PdbError::BadPartition`] for a tile out of range or repeated.
    pub fn from_table(shape: Shape, tiles: &[u8], table: Vec<u8>) -> Result<PatternDb, PdbError> {
        let pieces = pieces_of(shape, tiles)?;
        let layout = Layout::of(pieces.len());
        let expected = layout.len(shape.cells(), pieces.len());
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
            layout,
            table,
            verified: false,
        })
    }

    /// Checks that the table can be a database of its pattern, so that a file with a valid
    /// checksum but wrong values is rebuilt rather than used:
    ///
    /// - the goal placement's entry is 0;
    /// - every placement's value `v` is at least the Manhattan distance `m` of the pattern's
    ///   tiles, and `v - m` is even (each pattern move changes `m` by one, other moves leave
    ///   it alone);
    /// - [`UNREACHABLE`] only where a placement can be unreachable (at most one tile outside
    ///   the pattern, or a one-row board) and, in the sparse layout, at every index that is
    ///   not a placement.
    ///
    /// Visits every placement once, in parallel: about 0.3 s for the 8-tile table of 4x4.
    ///
    /// # Errors
    /// A one-line description of the first problem found.
    pub fn check(&self) -> Result<(), String> {
        let n = self.shape.cells();
        let k = self.pieces.len();
        let goal = self.layout.index(&self.pieces, n);
        if self.table[goal] != 0 {
            return Err(format!("the goal's entry is {}, not 0", self.table[goal]));
        }
        let may_be_unreachable = k + 2 >= n || !self.shape.is_grid();
        let coords = |c: u8| self.shape.coords(c as usize);
        // Manhattan distance of tile j on each cell.
        let distance: Vec<Vec<u8>> = self
            .pieces
            .iter()
            .map(|&p| {
                let (pr, pc) = coords(p);
                (0..n as u8)
                    .map(|c| {
                        let (r, cc) = coords(c);
                        (r.abs_diff(pr) + cc.abs_diff(pc)) as u8
                    })
                    .collect()
            })
            .collect();
        let walk = PlacementWalk {
            n,
            k,
            layout: self.layout,
            table: &self.table,
            distance: &distance,
            may_be_unreachable,
        };
        // In parallel over the first tile's cell.
        let (wrong, reachable) = if k == 1 {
            let (mut reachable, mut wrong) = (0, false);
            walk.visit(0, 0, 0, 0, &mut reachable, &mut wrong);
            (wrong, reachable)
        } else {
            (0..n as u8)
                .into_par_iter()
                .map(|c| {
                    let (mut reachable, mut wrong) = (0, false);
                    // Either layout's partial index of the first tile is its cell.
                    let md = distance[0][c as usize];
                    walk.visit(1, 1 << c, md, usize::from(c), &mut reachable, &mut wrong);
                    (wrong, reachable)
                })
                .reduce(|| (false, 0), |(wa, ra), (wb, rb)| (wa || wb, ra + rb))
        };
        if wrong {
            return Err(
                "values that cannot be pattern distances (below the tiles' Manhattan distance, \
                 of the other parity, or unreachable where every placement is reachable)"
                    .into(),
            );
        }
        if self.layout == Layout::Sparse {
            let used = self.table.par_iter().filter(|&&v| v != UNREACHABLE).count() as u64;
            if used != reachable {
                return Err(format!(
                    "{} entries that are not placements hold values",
                    used - reachable.min(used)
                ));
            }
        }
        Ok(())
    }

    /// Spot-checks the breadth-first property that [`PatternDb::check`] cannot see (a table
    /// with every entry but the goal's raised by 2 passes it, and then misleads IDA* into
    /// solutions longer than optimal), on every placement within two moves of the goal's
    /// and on `samples` random placements (seeded by `seed`, so deterministic). For a
    /// placement `p` of value `v`:
    ///
    /// - `v` is 0 only at the goal placement;
    /// - when `v > 0`, some neighbour (one pattern tile moved one cell into a cell no pattern
    ///   tile holds) has a value below `v`: the first move of a shortest abstract path leads
    ///   to one;
    /// - no neighbour `p'` whose free cells are connected holds less than `v - 1`: from
    ///   `p'`, with the blank anywhere (one region), the tile moves back in one move, so
    ///   `v <= value(p') + 1`; nor, at the goal placement, when the cell the tile left is in
    ///   the region of the goal board's blank. (Where the pattern's tiles wall off regions the
    ///   blank cannot cross, the bound does not hold in general and is not checked.)
    ///
    /// Unreachable entries are skipped. About 4,000 samples take a few milliseconds.
    ///
    /// # Errors
    /// A one-line description of the first placement that fails.
    pub fn spot_check(&self, samples: usize, seed: u64) -> Result<(), String> {
        let n = self.shape.cells();
        let k = self.pieces.len();
        let goal = self.pieces.clone();
        let mut todo = vec![goal.clone()];
        for (near, _, _) in self.neighbours(&goal) {
            todo.extend(self.neighbours(&near).into_iter().map(|(p, _, _)| p));
            todo.push(near);
        }
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut cells: Vec<u8> = (0..n as u8).collect();
        for _ in 0..samples {
            rng.shuffle(&mut cells);
            todo.push(cells[..k].to_vec());
        }
        let probe = Probe::new(self)?;
        todo.iter().try_for_each(|p| probe.check_at(p))
    }

    /// Checks the breadth-first property of [`PatternDb::spot_check`] at every placement,
    /// in parallel: the full check run once after each build ([`PatternDb::build`]) and
    /// recorded in the cache file. Every placement's pattern moves are looked up: under a
    /// second for a 6-tile pattern of 4x4, 62 s for the 8-tile one on two cores (its
    /// search takes about 150 s).
    ///
    /// # Errors
    /// A one-line description of a placement that fails.
    pub fn verify(&mut self) -> Result<(), String> {
        self.verified = false;
        let n = self.shape.cells();
        let k = self.pieces.len();
        let probe = Probe::new(self)?;
        let total = placements(n, k);
        const BLOCK: u64 = 1 << 14;
        (0..total.div_ceil(BLOCK))
            .into_par_iter()
            .try_for_each(|block| {
                let mut cells = [0u8; MAX_PATTERN_TILES];
                let p = &mut cells[..k];
                (block * BLOCK..total.min((block + 1) * BLOCK)).try_for_each(|r| {
                    unrank_partial(r, n, p);
                    probe.check_at(p)
                })
            })?;
        self.verified = true;
        Ok(())
    }

    /// Whether the full check ([`PatternDb::verify`]) has passed on this table: always
    /// after [`PatternDb::build`]; after [`PatternDb::from_table`] only once `verify` (or a
    /// cache file's record of it, see [`crate::solve::cache`]) says so.
    pub fn is_verified(&self) -> bool {
        self.verified
    }

    /// Records that the full check passed when the table was built, as a cache file says:
    /// trusted, not re-run (the file's CRC and the spot check on load guard the rest).
    pub(crate) fn mark_verified(&mut self) {
        self.verified = true;
    }

    /// The placements one pattern move from `p` (tile cells in pattern order), each with its
    /// free cells (a mask of those no pattern tile holds) and the cell the moved tile left.
    fn neighbours(&self, p: &[u8]) -> Vec<(Vec<u8>, u32, usize)> {
        let n = self.shape.cells();
        let occupied: u32 = p.iter().fold(0, |m, &c| m | 1 << c);
        let mut out = Vec::new();
        for (i, &c) in p.iter().enumerate() {
            for to in self.shape.adjacent(c as usize) {
                if occupied & 1 << to != 0 {
                    continue;
                }
                let mut q = p.to_vec();
                q[i] = to as u8;
                let taken = (occupied & !(1 << c)) | 1 << to;
                out.push((q, !taken & (u32::MAX >> (32 - n)), c as usize));
            }
        }
        out
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The pattern's tiles, as printed (`1..n-1`).
    pub fn tiles(&self) -> Vec<u8> {
        self.pieces.iter().map(|&p| p + 1).collect()
    }

    /// How the table is indexed.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The table, indexed by [`Layout::index`] (see the module documentation).
    pub fn table(&self) -> &[u8] {
        &self.table
    }

    /// The value for the pattern's tiles as placed on `board`.
    pub fn value(&self, board: &Board) -> u8 {
        let pos = crate::solve::estimator::positions(board.permutation());
        let cells: Vec<u8> = self.pieces.iter().map(|&p| pos[p as usize]).collect();
        self.table[self.layout.index(&cells, self.shape.cells())]
    }
}

/// The breadth-first check of one placement ([`PatternDb::spot_check`],
/// [`PatternDb::verify`]), with what it needs computed once.
struct Probe<'a> {
    db: &'a PatternDb,
    /// Its flood of the free cells gives the regions the blank cannot leave.
    space: PatternSpace,
    /// Per cell, its neighbours (a mask).
    adjacent: Vec<u32>,
    /// Every cell (a mask).
    all: u32,
}

impl<'a> Probe<'a> {
    fn new(db: &'a PatternDb) -> Result<Probe<'a>, String> {
        let shape = db.shape;
        let n = shape.cells();
        let space = PatternSpace::new(shape, &db.pieces)
            .ok_or_else(|| format!("{shape} has no pattern space"))?;
        let adjacent = (0..n)
            .map(|c| shape.adjacent(c).fold(0u32, |m, t| m | 1 << t))
            .collect();
        Ok(Probe {
            db,
            space,
            adjacent,
            all: u32::MAX >> (32 - n),
        })
    }

    /// Checks placement `p` (cells of the pattern's tiles, in pattern order): see
    /// [`PatternDb::spot_check`] for what is checked and why.
    #[inline]
    fn check_at(&self, p: &[u8]) -> Result<(), String> {
        let db = self.db;
        let n = db.shape.cells();
        let k = p.len();
        let value = |q: &[u8]| db.table[db.layout.index(q, n)];
        let v = value(p);
        if v == UNREACHABLE {
            return Ok(());
        }
        if v == 0 {
            if *p != *db.pieces {
                return Err(format!(
                    "the placement on cells {p:?} holds 0, which only the goal's may"
                ));
            }
            return Ok(());
        }
        let occupied: u32 = p.iter().fold(0, |m, &c| m | 1 << c);
        let mut q = [0u8; MAX_PATTERN_TILES];
        q[..k].copy_from_slice(p);
        let mut closer = false;
        for i in 0..k {
            let from = p[i];
            let mut targets = self.adjacent[from as usize] & !occupied;
            while targets != 0 {
                let to = targets.trailing_zeros();
                targets &= targets - 1;
                q[i] = to as u8;
                let h = value(&q[..k]);
                if h != UNREACHABLE {
                    closer |= h < v;
                    // The tile can move back from `q` in one move with the blank in the
                    // region of the cell it left: bounded when that region is every free
                    // cell, or at the goal placement when it is the region of the goal
                    // board's blank (value 0).
                    if h + 1 < v {
                        let free = self.all & !((occupied & !(1 << from)) | 1 << to);
                        let region = self.space.flood(1 << from, free);
                        let bounded =
                            region == free || (q[..k] == *db.pieces && region & 1 << (n - 1) != 0);
                        if bounded {
                            return Err(format!(
                                "the placement on cells {p:?} holds {v}, but one move away \
                                 the placement on cells {:?} holds {h}",
                                &q[..k]
                            ));
                        }
                    }
                }
                q[i] = from;
            }
        }
        if !closer {
            return Err(format!(
                "the placement on cells {p:?} holds {v}, but no placement one move away \
                 holds less"
            ));
        }
        Ok(())
    }
}

/// The walk of [`PatternDb::check`] over every placement, tile by tile.
struct PlacementWalk<'a> {
    n: usize,
    k: usize,
    layout: Layout,
    table: &'a [u8],
    /// `distance[j][c]`: the Manhattan distance of the pattern's tile `j` on cell `c`.
    distance: &'a [Vec<u8>],
    may_be_unreachable: bool,
}

impl PlacementWalk<'_> {
    /// Places tiles `i..k` on the cells not in `occupied`; `md` is the distance of the tiles
    /// placed so far and `index` their partial index (dense: the rank's leading digits;
    /// sparse: their bits). Counts the reachable placements; sets `wrong` on a value that
    /// cannot be the pattern's. The last two tiles are placed in flat loops (one visit per
    /// entry is most of the work).
    fn visit(
        &self,
        i: usize,
        occupied: u32,
        md: u8,
        index: usize,
        reachable: &mut u64,
        wrong: &mut bool,
    ) {
        let mut free = !occupied & (u32::MAX >> (32 - self.n));
        if i + 1 == self.k {
            let (fine, bad) = self.last(i, occupied, md, index);
            *reachable += fine;
            *wrong |= bad;
            return;
        }
        if i + 2 == self.k && self.layout == Layout::Dense {
            let (fine, bad) = self.rows(i, occupied, md, index);
            *reachable += fine;
            *wrong |= bad;
            return;
        }
        let mut digit = 0;
        let (mut fine, mut bad) = (0u64, false);
        while free != 0 && !bad {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            let next = match self.layout {
                Layout::Sparse => index | c << (4 * i),
                Layout::Dense => index * (self.n - i) + digit,
            };
            digit += 1;
            let md = md + self.distance[i][c];
            if i + 2 == self.k {
                let (f, b) = self.last(i + 1, occupied | 1 << c, md, next);
                fine += f;
                bad |= b;
            } else {
                self.visit(i + 1, occupied | 1 << c, md, next, &mut fine, &mut bad);
            }
        }
        *reachable += fine;
        *wrong |= bad;
    }

    /// Dense layout: places the last two tiles (`i = k - 2`) on the cells not in
    /// `occupied`, whose rows are consecutive in the table, 16 lanes at a time: (0, a wrong
    /// value seen); reachable placements are not counted.
    #[inline(always)]
    fn rows(&self, i: usize, occupied: u32, md: u8, index: usize) -> (u64, bool) {
        // The free cells, and the last tile's distance on each (a row's lanes are these
        // cells but the one the tile before it took).
        let mut cells = [0u8; 16];
        let mut last = [0u8; 17];
        let mut free = !occupied & (u32::MAX >> (32 - self.n));
        let mut width = 0;
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            cells[width] = c as u8;
            last[width] = self.distance[i + 1][c];
            width += 1;
        }
        let count = width - 1;
        let lo: [u8; 16] = last[..16].try_into().unwrap_or_default();
        let hi: [u8; 16] = last[1..].try_into().unwrap_or_default();
        let mut bad = false;
        for (digit, &c) in cells[..width].iter().enumerate() {
            let md = md + self.distance[i][c as usize];
            let start = (index * width + digit) * count;
            let mut v = [UNREACHABLE; 16];
            match self.table.get(start..start + 16) {
                Some(lanes) => v.copy_from_slice(lanes),
                None => v[..count].copy_from_slice(&self.table[start..start + count]),
            }
            let row = Row {
                lo: &lo,
                hi: &hi,
                md,
                digit,
                count,
            };
            bad |= row.is_wrong(&v, self.may_be_unreachable);
        }
        // Dense tables have no entry that is not a placement: the count is not needed.
        (0, bad)
    }

    /// Checks the entries of the last tile (`i = k - 1`) on every cell not in `occupied`:
    /// (reachable placements, a wrong value seen).
    #[inline(always)]
    fn last(&self, i: usize, occupied: u32, md: u8, index: usize) -> (u64, bool) {
        let distance = &self.distance[i];
        let mut free = !occupied & (u32::MAX >> (32 - self.n));
        let (mut fine, mut bad) = (0u64, false);
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            let v = self.table[index | c << (4 * i)];
            let m = md + distance[c];
            let ok = v != UNREACHABLE && v >= m && (v ^ m) & 1 == 0;
            fine += u64::from(ok);
            bad |= !(ok || v == UNREACHABLE && self.may_be_unreachable);
        }
        (fine, bad)
    }
}

/// The Manhattan distances of one row of a dense table (see [`PlacementWalk::rows`]): lane `j` is
/// the placement whose last tile is on the `j`-th free cell, its distance `md + lo[j]` before
/// the cell `digit` taken by the tile before it and `md + hi[j]` from there on.
struct Row<'a> {
    lo: &'a [u8; 16],
    hi: &'a [u8; 16],
    md: u8,
    digit: usize,
    count: usize,
}

impl Row<'_> {
    /// Whether one of the first `count` values of `v` is wrong: unreachable (unless
    /// `may_be_unreachable`), below its distance, or of the other parity. Sixteen lanes at
    /// once with SSE2 (part of every x86_64); elsewhere a loop.
    #[inline(always)]
    fn is_wrong(&self, v: &[u8; 16], may_be_unreachable: bool) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: SSE2 is part of the x86_64 baseline; each load reads one array of 16
            // bytes.
            unsafe {
                let iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
                let before = _mm_cmplt_epi8(iota, _mm_set1_epi8(self.digit as i8));
                let lo = _mm_loadu_si128(self.lo.as_ptr().cast());
                let hi = _mm_loadu_si128(self.hi.as_ptr().cast());
                let last = _mm_or_si128(_mm_and_si128(before, lo), _mm_andnot_si128(before, hi));
                let m = _mm_add_epi8(last, _mm_set1_epi8(self.md as i8));
                let v = _mm_loadu_si128(v.as_ptr().cast());
                let unreached = _mm_cmpeq_epi8(v, _mm_set1_epi8(UNREACHABLE as i8));
                let at_least = _mm_cmpeq_epi8(_mm_max_epu8(v, m), v);
                let odd = _mm_and_si128(_mm_xor_si128(v, m), _mm_set1_epi8(1));
                let same_parity = _mm_cmpeq_epi8(odd, _mm_setzero_si128());
                let ok = _mm_andnot_si128(unreached, _mm_and_si128(at_least, same_parity));
                let excused = if may_be_unreachable {
                    unreached
                } else {
                    _mm_setzero_si128()
                };
                let wrong = !(_mm_movemask_epi8(_mm_or_si128(ok, excused)) as u32);
                wrong & ((1u32 << self.count) - 1) != 0
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            (0..self.count).any(|j| {
                let last = if j < self.digit {
                    self.lo[j]
                } else {
                    self.hi[j]
                };
                let (v, m) = (v[j], self.md + last);
                let ok = v != UNREACHABLE && v >= m && (v ^ m) & 1 == 0;
                !(ok || v == UNREACHABLE && may_be_unreachable)
            })
        }
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

    /// The index of database `db` on the board (`mirrored` false) or on its transpose, from
    /// scratch: the cells of its pieces, read from `pos`.
    #[inline(always)]
    fn index_from(&self, db: usize, mirrored: bool, pos: &[u8]) -> u32 {
        let database = &self.databases[db];
        let mut cells = [0u8; MAX_PATTERN_TILES];
        let k = database.pieces.len();
        match (&self.mirror, mirrored) {
            // Piece q of the transpose stands where the transpose of piece T(q) stands.
            (Some(mirror), true) => {
                for (c, &p) in cells.iter_mut().zip(&self.mirrored_pieces[db]) {
                    *c = mirror[pos[p as usize] as usize];
                }
            }
            _ => {
                for (c, &p) in cells.iter_mut().zip(&database.pieces) {
                    *c = pos[p as usize];
                }
            }
        }
        database.layout.index(&cells[..k], self.shape.cells()) as u32
    }

    /// The index on `side` (`db`, or `MAX_PATTERNS + db` for the transpose) of database `db`
    /// after its piece in `slot` moved between the cells `(from, to)` (transposed on the
    /// transposed side), given the memo before the move and the positions after it.
    #[inline(always)]
    fn index_after(
        &self,
        db: usize,
        side: usize,
        slot: u8,
        (from, to): (u32, u32),
        memo: &PdbMemo,
        pos: &[u8],
    ) -> u32 {
        match self.databases[db].layout {
            Layout::Sparse => {
                let shift = 4 * u32::from(slot);
                memo.index[side] - (from << shift) + (to << shift)
            }
            Layout::Dense => self.index_from(db, side >= MAX_PATTERNS, pos),
        }
    }
}

#[inline(always)]
fn sum(values: &[u8]) -> u32 {
    values.iter().map(|&v| u32::from(v)).sum()
}

/// Per pattern, its table index and value on the board (`0..MAX_PATTERNS`) and on the
/// transpose (the rest). A move changes one tile's four bits of one sparse index on each
/// side; a dense index is computed again.
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
            for side in [db, MAX_PATTERNS + db] {
                if side >= MAX_PATTERNS && self.mirror.is_none() {
                    continue;
                }
                let index = self.index_from(db, side >= MAX_PATTERNS, pos);
                memo.index[side] = index;
                memo.value[side] = database.table[index as usize];
            }
        }
        (self.bound(&memo.value), memo)
    }

    #[inline(always)]
    fn after_move(
        &self,
        _cells: &[u8],
        pos: &[u8],
        slide: Slide,
        memo: PdbMemo,
        budget: u32,
    ) -> (u32, PdbMemo) {
        let Slide { piece, from, to } = slide;
        let piece = piece as usize;
        let mut next = memo;
        let db = self.owner[piece] as usize;
        let index = self.index_after(
            db,
            db,
            self.slot[piece],
            (from as u32, to as u32),
            &memo,
            pos,
        );
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
        let side = MAX_PATTERNS + db;
        let (from, to) = (u32::from(mirror[from]), u32::from(mirror[to]));
        let index = self.index_after(db, side, self.slot[moved], (from, to), &memo, pos);
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

    /// Issue 20: on 4x4 the quick 6-6-3 databases until the 7-8 ones are cached or the work
    /// repays their build; other shapes have their default whatever the work.
    #[test]
    fn the_large_databases_are_chosen_when_they_pay() {
        let s4 = Shape::square(4).unwrap();
        let name = |boards, cached| Partition::for_work(s4, boards, cached).unwrap().name();
        assert_eq!(name(1, false), "6-6-3");
        assert_eq!(name(LARGE_PAYS_FROM - 1, false), "6-6-3");
        assert_eq!(name(LARGE_PAYS_FROM, false), "7-8");
        assert_eq!(name(1, true), "7-8");
        for shape in [Shape::square(3).unwrap(), Shape::new(3, 4).unwrap()] {
            assert_eq!(
                Partition::for_work(shape, 1, false).unwrap(),
                Partition::default_for(shape).unwrap()
            );
        }
    }
    use crate::progress::NoProgress;
    use crate::solve::Heuristic;
    use std::collections::{HashMap, VecDeque};
    use std::sync::Arc;

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
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
        assert_eq!(p.groups()[0], (1..=8).collect::<Vec<u8>>());
        assert_eq!(p.groups()[1], (9..=15).collect::<Vec<u8>>());
        assert_eq!(p.name(), "7-8");
        assert_eq!(Partition::default_for(shape(3, 3)).unwrap().name(), "4-4");
        let p = Partition::named(shape(4, 4), "6-6-3").unwrap();
        assert_eq!(p.name(), "6-6-3");
        assert_eq!(
            Partition::named(shape(4, 4), "default")
                .unwrap()
                .groups()
                .len(),
            2
        );
        assert!(Partition::named(shape(3, 3), "7-8").is_err());
        assert!(Partition::named(shape(4, 4), "5-5-5").is_err());
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
    /// tile costs 1, another tile 0. Both layouts: the 7-tile patterns are dense, as the
    /// 4x4 7-8 databases are, and the 2x4 one holds every tile (half its placements are
    /// unreachable).
    #[test]
    fn database_matches_a_search_over_its_abstraction() {
        for (s, tiles) in [
            (shape(2, 3), vec![1, 2, 4]),
            (shape(3, 3), vec![2, 5, 6, 7]),
            (shape(3, 3), vec![1, 2, 3, 4, 5, 6, 7]),
            (shape(3, 3), vec![8, 2, 6, 4, 5, 1, 7]),
            (shape(2, 4), vec![1, 2, 3, 4, 5, 6, 7]),
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
            assert_eq!(db.layout(), Layout::of(tiles.len()));
            let all_reached = tiles.len() + 2 < n;
            let count = placements(n, tiles.len());
            assert!(min.len() as u64 == count || !all_reached && (min.len() as u64) < count);
            for (cells, d) in &min {
                let index = db.layout().index(cells, n);
                assert_eq!(db.table()[index], *d, "{s} {tiles:?} {cells:?}");
            }
            let used = db.table().iter().filter(|&&v| v != UNREACHABLE).count();
            assert_eq!(used, min.len());
            assert_eq!(db.check(), Ok(()));
        }
    }

    /// Issue 23: genuine databases pass the spot check of the breadth-first property with
    /// every placement sampled many times over (both layouts, patterns that wall off regions,
    /// a one-row board, 4x4's 6-tile pattern); a table with every entry but the goal's raised
    /// by 2 (as a forger would keep the checksum valid) passes [`PatternDb::check`] but not
    /// the spot check, nor does one with a single entry raised by 2 far from the goal.
    #[test]
    fn the_spot_check_passes_real_tables_and_catches_raised_ones() {
        for (s, tiles, samples) in [
            (shape(2, 3), vec![1, 2, 4], 2_000),
            (shape(3, 3), vec![2, 5, 6, 7], 50_000),
            (shape(3, 3), vec![1, 2, 3, 4, 5, 6, 7], 200_000),
            (shape(3, 3), vec![8, 2, 6, 4, 5, 1, 7], 200_000),
            (shape(2, 4), vec![1, 2, 3, 4, 5, 6, 7], 200_000),
            (shape(1, 5), vec![1, 2, 3], 2_000),
            (shape(4, 4), vec![1, 2, 5, 6, 9, 13], 20_000),
        ] {
            let db = PatternDb::build(s, &tiles, &NoProgress).unwrap();
            assert_eq!(db.spot_check(samples, 7), Ok(()), "{s} {tiles:?}");
            let goal = db.layout().index(&db.pieces, s.cells());
            let mut raised = db.table().to_vec();
            for (i, v) in raised.iter_mut().enumerate() {
                if i != goal && *v != UNREACHABLE {
                    *v += 2;
                }
            }
            let forged = PatternDb::from_table(s, &tiles, raised).unwrap();
            if s.rows() > 1 {
                assert_eq!(
                    forged.check(),
                    Ok(()),
                    "{s} {tiles:?}: the old check passes it"
                );
            }
            let Err(why) = forged.spot_check(0, 7) else {
                panic!("{s} {tiles:?}: the forged table passes");
            };
            assert!(why.contains("one move away"), "{s} {tiles:?}: {why}");
        }
        // One entry raised by 2, deep in the table: random samples find it on 3x3.
        let s = shape(3, 3);
        let tiles = [1u8, 2, 3, 4, 5, 6, 7];
        let db = PatternDb::build(s, &tiles, &NoProgress).unwrap();
        let deep = db
            .table()
            .iter()
            .position(|&v| v > 10 && v != UNREACHABLE)
            .unwrap();
        let mut table = db.table().to_vec();
        table[deep] += 2;
        let forged = PatternDb::from_table(s, &tiles, table).unwrap();
        assert_eq!(forged.check(), Ok(()));
        assert!(forged.spot_check(200_000, 7).is_err());
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

    /// The incremental update (sparse indices shifted per move, dense ones ranked again, both
    /// sides) agrees with a fresh computation along a random walk on 4x4 (a cheap 4-4-4-3
    /// partition) and on 3x3 (7-1: one dense table, as the 4x4 7-8 partition has two), and
    /// the reflected side is used.
    #[test]
    fn incremental_lookups_match_fresh_ones() {
        let groups = vec![
            vec![1, 2, 3, 4],
            vec![5, 6, 7, 8],
            vec![9, 10, 11, 12],
            vec![13, 14, 15],
        ];
        walk_and_compare(Partition::new(shape(4, 4), groups).unwrap());
        let groups = vec![vec![3, 1, 4, 5, 2, 6, 8], vec![7]];
        walk_and_compare(Partition::new(shape(3, 3), groups).unwrap());
    }

    /// IDA* with the 3x3 7-1 partition (dense and sparse tables, reflected) finds the BFS
    /// distance of 300 random boards.
    #[test]
    fn dense_tables_solve_optimally() {
        let s = shape(3, 3);
        let groups = vec![vec![1, 2, 3, 4, 5, 6, 7], vec![8]];
        let dbs =
            PatternDatabases::build(&Partition::new(s, groups).unwrap(), &NoProgress).unwrap();
        assert_eq!(dbs.databases()[0].layout(), Layout::Dense);
        let h = Heuristic::pdb(Arc::new(dbs));
        let table = crate::solve::tests::distances(s);
        let mut rng = crate::random::SplitMix64::new(78);
        for _ in 0..300 {
            let board = crate::random::random_solvable(s, &mut rng);
            let solution = crate::solve::idastar(&board, &h, &crate::solve::Limits::NONE).unwrap();
            assert_eq!(
                solution.moves.len(),
                usize::from(table[board.rank() as usize]),
                "{}",
                board.label()
            );
            assert_eq!(
                crate::solve::replay(&board, &solution.moves),
                Some(Board::goal(s))
            );
        }
    }

    fn walk_and_compare(partition: Partition) {
        use crate::solve::estimator::positions;
        let s = partition.shape();
        let dbs = PatternDatabases::build(&partition, &NoProgress).unwrap();
        let mut rng = crate::random::SplitMix64::new(4);
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
