//! Pattern databases for the multi-tile metric: domain abstractions of the whole board.
//!
//! Additive pattern databases ([`crate::solve::pdb`]) do not add up in the multi-tile metric:
//! one move may slide tiles of several patterns, and each database would count it. Instead,
//! the tiles are painted in a few colours (**classes**), tiles of one class becoming
//! indistinguishable, and the abstract board, with every tile and the blank in place, is
//! searched breadth-first from the goal with the metric's own moves (a *domain abstraction*:
//! Holte, Perez, Zimmer & MacDonald 1996; Hernádvölgyi & Holte 2000). Every real move is an
//! abstract move, so the abstract distance never exceeds the real one: the table is
//! admissible in the metric it was searched in, MTM included.
//!
//! On a square board a second, free lookup comes from the transpose: reflecting the board in
//! its main diagonal (and renaming each tile by its reflected goal cell) maps solutions to
//! solutions of the same length in both metrics, and fixes the goal (blank in the last cell).
//! So `max(table(b), table(transpose(b)))` is admissible too, and [`MtmDatabases`] takes the
//! maximum of those two and the walking distance.
//!
//! The default classes ([`DomainDb::default_classes`]) are the goal's quadrants: on 4x4,
//! `{1 2 5 6} {3 4 7 8} {9 10 13 14} {11 12 15}`, `16! / (4! 4! 4! 3!)` = 252,252,000
//! abstract boards, one byte each.
//!
//! Abstract boards are indexed by their rank among the permutations of a multiset
//! (multinomial ranking), computed from scratch with one table lookup per cell.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::metric::{self, Metric};
use crate::progress::Progress;
use crate::shape::Shape;
use crate::solve::estimator::{Estimator, Slide};
use crate::solve::walking::{WalkingDistance, WalkingError};

/// The most abstract boards a table may have (one byte each).
pub const MAX_STATES: u64 = 300_000_000;

/// Why a domain-abstraction database cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// The abstraction has more than [`MAX_STATES`] boards (or the classes are not a
    /// partition of the tiles).
    #[error(
        "the multi-tile pattern database of {shape} would have {states} abstract boards, more \
         than {MAX_STATES}; it is made for boards of up to 16 cells"
    )]
    TooLarge {
        /// The board shape.
        shape: Shape,
        /// Its abstract boards, or `u64::MAX` when the count overflows.
        states: u64,
    },
    /// Walking distance could not be made.
    #[error(transparent)]
    Walking(#[from] WalkingError),
}

/// A domain-abstraction pattern database: the distance, in one metric, of every board with
/// the tiles of each class indistinguishable (see the module documentation).
#[derive(Debug, Clone)]
pub struct DomainDb {
    shape: Shape,
    metric: Metric,
    /// The class of each piece (pieces named by goal cell); the blank (piece `n - 1`) is
    /// class 0, alone.
    class: Vec<u8>,
    ranker: Ranker,
    table: Vec<u8>,
}

impl DomainDb {
    /// The classes of `shape`'s tiles by the quadrant of their goal cell (rows and columns
    /// split in halves, the larger half first): `classes[piece]`, the blank class 0.
    pub fn default_classes(shape: Shape) -> Vec<u8> {
        let (rows, cols) = (shape.rows(), shape.cols());
        let n = shape.cells();
        (0..n)
            .map(|p| {
                if p == n - 1 {
                    return 0;
                }
                let (r, c) = (p / cols, p % cols);
                let top = u8::from(r >= rows.div_ceil(2));
                let left = u8::from(c >= cols.div_ceil(2));
                1 + 2 * top + left
            })
            .collect()
    }

    /// The database of `shape` in `metric` with `classes` (as [`DomainDb::default_classes`]),
    /// built by a parallel breadth-first search from the goal, reporting to `progress` (about
    /// a minute and 252 MB for 4x4 on 2 cores).
    ///
    /// # Errors
    /// [`DomainError::TooLarge`] beyond [`MAX_STATES`] abstract boards.
    pub fn build(
        shape: Shape,
        metric: Metric,
        classes: &[u8],
        progress: &dyn Progress,
    ) -> Result<DomainDb, DomainError> {
        let n = shape.cells();
        let too_large = |states| DomainError::TooLarge { shape, states };
        if classes.len() != n || classes[n - 1] != 0 || classes[..n - 1].contains(&0) {
            return Err(too_large(u64::MAX));
        }
        let ranker = Ranker::new(classes).ok_or_else(|| too_large(u64::MAX))?;
        let states = ranker.states();
        if states > MAX_STATES {
            return Err(too_large(states));
        }
        let depth: Vec<AtomicU8> = (0..states).map(|_| AtomicU8::new(u8::MAX)).collect();
        let goal: Vec<u8> = classes.to_vec();
        depth[ranker.rank(&goal) as usize].store(0, Relaxed);
        progress.begin("multi-tile pattern database", states, "boards");
        let mut reached = 1u64;
        let mut d = 0u8;
        loop {
            let found = AtomicU64::new(0);
            (0..states as usize)
                .into_par_iter()
                .with_min_len(1 << 14)
                .for_each_init(
                    || (vec![0u8; n], vec![0u8; n]),
                    |(colors, next), index| {
                        if depth[index].load(Relaxed) != d {
                            return;
                        }
                        ranker.unrank(index as u64, colors);
                        let blank = colors.iter().position(|&c| c == 0).unwrap_or(0);
                        for to in metric.targets(shape, blank) {
                            next.copy_from_slice(colors);
                            metric::slide(next, blank, to, shape.cols());
                            let child = ranker.rank(next) as usize;
                            if depth[child]
                                .compare_exchange(u8::MAX, d + 1, Relaxed, Relaxed)
                                .is_ok()
                            {
                                found.fetch_add(1, Relaxed);
                            }
                        }
                    },
                );
            let found = found.into_inner();
            if found == 0 {
                break;
            }
            reached += found;
            d += 1;
            progress.update(reached, &format!("depth {d}"));
        }
        progress.end();
        let table = depth.into_iter().map(AtomicU8::into_inner).collect();
        Ok(DomainDb {
            shape,
            metric,
            class: classes.to_vec(),
            ranker,
            table,
        })
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The metric of its distances.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// Its abstract boards (the table's length in bytes).
    pub fn states(&self) -> u64 {
        self.table.len() as u64
    }

    /// The classes of the pieces (see [`DomainDb::default_classes`]).
    pub fn classes(&self) -> &[u8] {
        &self.class
    }

    /// The table: the distance of each abstract board, by multinomial rank.
    pub fn table(&self) -> &[u8] {
        &self.table
    }

    /// A database from a stored `table` (as [`DomainDb::table`]), checked: its length, the
    /// goal's entry 0, and the breadth-first property at the goal's neighbours and at
    /// `samples` abstract boards spread over the table (each has a neighbour one closer
    /// unless it is the goal, and none two or more closer).
    ///
    /// # Errors
    /// A one-line reason when the table cannot be this database.
    pub fn from_table(
        shape: Shape,
        metric: Metric,
        classes: &[u8],
        table: Vec<u8>,
        samples: u64,
    ) -> Result<DomainDb, String> {
        let n = shape.cells();
        if classes.len() != n || classes[n - 1] != 0 || classes[..n - 1].contains(&0) {
            return Err("the classes are not a partition of the tiles".into());
        }
        let ranker = Ranker::new(classes).ok_or("too many abstract boards")?;
        if table.len() as u64 != ranker.states() {
            return Err(format!(
                "{} entries, expected {}",
                table.len(),
                ranker.states()
            ));
        }
        let goal = ranker.rank(classes);
        if table[goal as usize] != 0 {
            return Err(format!(
                "the goal's entry is {}, not 0",
                table[goal as usize]
            ));
        }
        let db = DomainDb {
            shape,
            metric,
            class: classes.to_vec(),
            ranker,
            table,
        };
        let states = db.states();
        let step = (states / samples.max(1)).max(1);
        let mut colors = vec![0u8; n];
        let mut next = vec![0u8; n];
        let picks = (0..states).step_by(step as usize).chain([goal]);
        for index in picks {
            db.ranker.unrank(index, &mut colors);
            let v = db.table[index as usize];
            if v == u8::MAX {
                continue; // Unreachable (only with classes of one tile).
            }
            let blank = colors.iter().position(|&c| c == 0).unwrap_or(0);
            let mut closer = v == 0;
            for to in metric.targets(shape, blank) {
                next.copy_from_slice(&colors);
                metric::slide(&mut next, blank, to, shape.cols());
                let w = db.table[db.ranker.rank(&next) as usize];
                if w.abs_diff(v) > 1 {
                    return Err(format!(
                        "entries {v} and {w} for boards one move apart (abstract board {index})"
                    ));
                }
                closer |= w + 1 == v;
            }
            if !closer {
                return Err(format!(
                    "abstract board {index} at {v} has no neighbour one move closer"
                ));
            }
        }
        Ok(db)
    }

    /// The abstract distance of the board `cells` (internal permutation), through the class
    /// of each piece; `colors` is scratch space of `cells.len()`.
    #[inline(always)]
    fn lookup(&self, cells: &[u8], colors: &mut [u8]) -> u32 {
        for (c, &p) in colors.iter_mut().zip(cells) {
            *c = self.class[p as usize];
        }
        u32::from(self.table[self.ranker.rank(colors) as usize])
    }
}

/// Multinomial ranking of the arrangements of a multiset of classes.
#[derive(Debug, Clone)]
struct Ranker {
    /// Number of classes.
    k: usize,
    /// Pieces per class.
    size: Vec<usize>,
    /// Mixed-radix strides of a vector of remaining counts per class.
    stride: Vec<usize>,
    /// The code of the full counts.
    full: usize,
    /// `before[code * k + c]`: the arrangements of the counts `code` that start with a class
    /// below `c`.
    before: Vec<u64>,
    /// Arrangements of each count vector.
    total: Vec<u64>,
}

impl Ranker {
    /// `None` when the count overflows `u64`.
    fn new(classes: &[u8]) -> Option<Ranker> {
        let k = *classes.iter().max()? as usize + 1;
        let mut size = vec![0usize; k];
        for &c in classes {
            size[c as usize] += 1;
        }
        let mut stride = vec![1usize; k];
        for c in 1..k {
            stride[c] = stride[c - 1] * (size[c - 1] + 1);
        }
        let codes = stride[k - 1] * (size[k - 1] + 1);
        let full: usize = (0..k).map(|c| size[c] * stride[c]).sum();
        let counts = |code: usize| -> Vec<usize> {
            (0..k).map(|c| code / stride[c] % (size[c] + 1)).collect()
        };
        // Arrangements by increasing number of pieces: total(v) = sum over c of total(v - e_c).
        let mut order: Vec<usize> = (0..codes).collect();
        order.sort_by_key(|&code| counts(code).iter().sum::<usize>());
        let mut total = vec![0u64; codes];
        for &code in &order {
            let v = counts(code);
            total[code] = if v.iter().all(|&x| x == 0) {
                1
            } else {
                let mut t = 0u64;
                for c in 0..k {
                    if v[c] > 0 {
                        t = t.checked_add(total[code - stride[c]])?;
                    }
                }
                t
            };
        }
        let mut before = vec![0u64; codes * k];
        for code in 0..codes {
            let v = counts(code);
            let mut sum = 0u64;
            for c in 0..k {
                before[code * k + c] = sum;
                if v[c] > 0 {
                    sum += total[code - stride[c]];
                }
            }
        }
        Some(Ranker {
            k,
            size,
            stride,
            full,
            before,
            total,
        })
    }

    fn states(&self) -> u64 {
        self.total[self.full]
    }

    #[inline(always)]
    fn rank(&self, colors: &[u8]) -> u64 {
        let mut code = self.full;
        let mut rank = 0u64;
        for &c in &colors[..colors.len() - 1] {
            let c = c as usize;
            rank += self.before[code * self.k + c];
            code -= self.stride[c];
        }
        rank
    }

    fn unrank(&self, mut rank: u64, colors: &mut [u8]) {
        let mut code = self.full;
        for slot in colors.iter_mut() {
            // The largest class left whose arrangements start at or before `rank`.
            let row = &self.before[code * self.k..(code + 1) * self.k];
            let left = |c: usize| code / self.stride[c] % (self.size[c] + 1) > 0;
            let c = (0..self.k)
                .rev()
                .find(|&c| left(c) && row[c] <= rank)
                .unwrap_or(0);
            rank -= row[c];
            *slot = c as u8;
            code -= self.stride[c];
        }
    }
}

/// The multi-tile metric's heuristic (`--metric mtm --heuristic pdb`): the maximum of the
/// walking distance, the domain-abstraction database and, on square boards, the database of
/// the transposed board. Admissible in MTM (see the module documentation).
#[derive(Debug, Clone)]
pub struct MtmDatabases {
    walking: WalkingDistance,
    db: DomainDb,
    /// For square boards: `transpose[cell]` = the cell reflected in the main diagonal (also the
    /// renaming of pieces, which are named by goal cell); empty otherwise.
    transpose: Vec<u8>,
}

impl MtmDatabases {
    /// Walking distance and the default domain abstraction of `shape`, in MTM.
    ///
    /// # Errors
    /// [`DomainError`] when either is too large for `shape`.
    pub fn build(shape: Shape, progress: &dyn Progress) -> Result<MtmDatabases, DomainError> {
        let walking = WalkingDistance::new(shape, Metric::Mtm)?;
        let db = DomainDb::build(
            shape,
            Metric::Mtm,
            &DomainDb::default_classes(shape),
            progress,
        )?;
        Ok(MtmDatabases::new(walking, db))
    }

    /// The heuristic of `walking` and `db` (both of one shape, in MTM).
    pub fn new(walking: WalkingDistance, db: DomainDb) -> MtmDatabases {
        let shape = db.shape();
        let (rows, cols) = (shape.rows(), shape.cols());
        let transpose = if rows == cols {
            (0..shape.cells())
                .map(|cell| ((cell % cols) * cols + cell / cols) as u8)
                .collect()
        } else {
            Vec::new()
        };
        MtmDatabases {
            walking,
            db,
            transpose,
        }
    }

    /// The board shape.
    pub fn shape(&self) -> Shape {
        self.db.shape()
    }

    /// The database's abstract boards.
    pub fn states(&self) -> u64 {
        self.db.states()
    }

    /// The databases' part of the bound: the larger of the board's and its transpose's.
    #[inline(always)]
    fn databases(&self, cells: &[u8]) -> u32 {
        let n = cells.len();
        let mut colors = [0u8; 64];
        let colors = &mut colors[..n];
        let h = self.db.lookup(cells, colors);
        if self.transpose.is_empty() {
            return h;
        }
        let mut reflected = [0u8; 64];
        for (cell, &p) in cells.iter().enumerate() {
            reflected[self.transpose[cell] as usize] = self.transpose[p as usize];
        }
        h.max(self.db.lookup(&reflected[..n], colors))
    }
}

impl Estimator for MtmDatabases {
    type Memo = (u32, u32);

    fn start(&self, cells: &[u8], pos: &[u8]) -> (u32, (u32, u32)) {
        let (w, memo) = self.walking.start(cells, pos);
        (w.max(self.databases(cells)), memo)
    }

    #[inline(always)]
    fn after_move(
        &self,
        cells: &[u8],
        pos: &[u8],
        slide: Slide,
        memo: (u32, u32),
        budget: u32,
    ) -> (u32, (u32, u32)) {
        let (w, memo) = self.walking.after_move(cells, pos, slide, memo, budget);
        if w > budget {
            return (w, memo);
        }
        (w.max(self.databases(cells)), memo)
    }

    #[inline(always)]
    fn pass(&self, cells: &[u8], pos: &[u8], slide: Slide, memo: (u32, u32)) -> (u32, u32) {
        self.walking.pass(cells, pos, slide, memo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::solve::estimator::positions;

    /// Ranking is a bijection onto `0..states` (every arrangement of `{0, 1, 1, 2, 2, 2}`).
    #[test]
    fn ranking_is_a_bijection() {
        let ranker = Ranker::new(&[1, 2, 1, 2, 2, 0]).unwrap();
        assert_eq!(ranker.states(), 60); // 6! / (1! 2! 3!)
        let mut seen = [false; 60];
        let mut colors = vec![0u8; 6];
        for r in 0..60 {
            ranker.unrank(r, &mut colors);
            assert_eq!(ranker.rank(&colors), r, "{colors:?}");
            assert!(!seen[r as usize]);
            seen[r as usize] = true;
            let mut sorted = colors.clone();
            sorted.sort();
            assert_eq!(sorted, [0, 1, 1, 2, 2, 2]);
        }
    }

    #[test]
    fn quadrants() {
        let s = Shape::square(4).unwrap();
        assert_eq!(
            DomainDb::default_classes(s),
            [1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 0]
        );
        let s = Shape::new(3, 3).unwrap();
        assert_eq!(DomainDb::default_classes(s), [1, 1, 2, 1, 1, 2, 3, 3, 0]);
    }

    /// With every tile its own class the database is the exact distance (3x3 STM: 31 for
    /// an antipode, OEIS A089473); the quadrant database is at most it in both metrics; the
    /// transposed lookup equals the lookup of the transposed board.
    #[test]
    fn exact_with_singleton_classes_and_admissible_with_quadrants() {
        let s = Shape::square(3).unwrap();
        let singletons: Vec<u8> = (1..9).chain([0]).collect();
        let exact = DomainDb::build(s, Metric::Stm, &singletons, &crate::NoProgress).unwrap();
        assert_eq!(exact.states(), 362_880);
        let antipode = Board::parse_tiles(s, "8 6 7 2 5 4 3 0 1").unwrap();
        let mut colors = vec![0u8; 9];
        assert_eq!(exact.lookup(antipode.permutation(), &mut colors), 31);
        let quad = MtmDatabases::build(s, &crate::NoProgress).unwrap();
        let depths = crate::analysis::depth_table(s, Metric::Mtm, &crate::NoProgress).unwrap();
        for (rank, &d) in depths.iter().enumerate() {
            if d == u8::MAX {
                continue;
            }
            let b = Board::from_rank(s, rank as u64);
            let cells = b.permutation();
            let h = quad.start(cells, &positions(cells)).0;
            assert!(h <= u32::from(d), "{}", b.label());
        }
    }
}
