//! The whole game graph's geometry: every board's eccentricity, the diameter, the radius, the
//! centre and the periphery, the mean distance, and the distance table (the number of
//! unordered pairs of boards at each distance), from one BFS per orbit of blank cells.
//!
//! Why one BFS per orbit suffices (both metrics):
//! - Relabelling the tiles (the blank kept) maps moves to moves: it is an automorphism of the
//!   whole game graph. For two boards `B`, `B'` with the blank on the same cell, the
//!   relabelling that turns `B` into `B'` maps `B`'s component onto `B'`'s, so both have the
//!   same eccentricity and the same distance distribution (the number of boards of their
//!   component at each distance).
//! - The rectangle's symmetries that preserve the metric's moves ([`Metric::symmetries`]: in
//!   both metrics all of them, its reflections and on a square its rotations and transposes;
//!   [`cell_orbits`]) map moves to moves, so boards whose blanks lie in one orbit of cells
//!   share them too.
//! - So the distribution of one board per orbit ([`start_board`], a BFS from it) gives every
//!   board's, and the pairs at distance `d` are `(n-1)!/2 * sum over cells c of counts_c[d]`
//!   (each of the `(n-1)!` boards with the blank on `c` sees `counts_c[d]` boards at `d`; each
//!   pair is seen from both ends).
//!
//! The figures follow igraph's definitions (`eccentricity`, `radius`, `diameter`,
//! `mean_distance`, `distance_table`) on a graph of several components: eccentricity and
//! distances within a component, pairs in different components counted as `unconnected`.
//! Pair counts are `u128`: 2x7 has about `1.9 * 10^21` pairs, beyond `u64`.

use crate::analysis::{self, AnalyzeError, Options};
use crate::board::Board;
use crate::metric::Metric;
use crate::progress::Progress;
use crate::shape::Shape;

/// The geometry of the whole game graph of `shape` in `metric` on this machine: one BFS per
/// orbit of blank cells ([`Geometry::new`]) by [`analysis::analyze_unchecked`], each told to
/// `progress` (a [`Progress::note`] naming the orbit, then the BFS's layers). Memory: one
/// analysis at a time ([`analysis::bytes_needed`], checked by [`analysis::plan`] first).
///
/// # Errors
/// [`AnalyzeError::TooLarge`] before any work when one BFS of `shape` does not fit in the
/// memory available (naming the largest boards that do); [`AnalyzeError::OutOfMemory`].
pub fn all_pairs(
    shape: Shape,
    metric: Metric,
    progress: &dyn Progress,
) -> Result<Geometry, AnalyzeError> {
    let options = Options {
        metric,
        ..Options::default()
    };
    analysis::plan(shape, options, analysis::available_memory())?;
    let orbits = cell_orbits(shape, metric).len();
    Geometry::new(shape, metric, |i, cells, start| {
        progress.note(&orbit_note(i, orbits, cells, start));
        let a = analysis::analyze_unchecked(start, options, progress)?;
        Ok((a.distances.layer_sizes, true))
    })
}

/// Cells as the reports name them: `cell 4`, `cells 0, 2, 6, 8`.
pub fn cells_text(cells: &[usize]) -> String {
    let list: Vec<String> = cells.iter().map(usize::to_string).collect();
    let noun = if cells.len() == 1 { "cell" } else { "cells" };
    format!("{noun} {}", list.join(", "))
}

/// One line naming a BFS of [`Geometry::new`]: `BFS 2 of 3: blank on cells 1, 3, 5, 7, from
/// 1 2 3 / 0 4 5 / 6 7 8`.
pub fn orbit_note(index: usize, orbits: usize, cells: &[usize], start: &Board) -> String {
    format!(
        "BFS {} of {orbits}: blank on {}, from {}",
        index + 1,
        cells_text(cells),
        start
            .grid()
            .lines()
            .map(|row| row.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join(" / ")
    )
}

/// The orbits of the cells of `shape` under the symmetries of the rectangle that preserve
/// `metric`'s moves ([`Metric::symmetries`]: in both metrics the two reflections and the half
/// turn, and on a square also the two transposes and the quarter turns, the dihedral group of
/// order 8). Each orbit's cells ascending (row-major cell numbers, as [`Shape::coords`]), the
/// orbits ordered by their largest cell descending (so the first holds the standard goal's
/// blank, the last cell). Every cell lies in exactly one orbit.
///
/// 3x3: `[[0, 2, 6, 8], [1, 3, 5, 7], [4]]`; 2x7: 4 orbits; 3x4: 4; 4x4: 3; 1x5: 3.
pub fn cell_orbits(shape: Shape, metric: Metric) -> Vec<Vec<usize>> {
    let symmetries = metric.symmetries(shape);
    let images = |cell: usize| -> Vec<usize> { symmetries.iter().map(|map| map[cell]).collect() };
    let mut orbit_of = vec![usize::MAX; shape.cells()];
    let mut orbits: Vec<Vec<usize>> = Vec::new();
    for cell in (0..shape.cells()).rev() {
        if orbit_of[cell] != usize::MAX {
            continue;
        }
        let mut orbit = images(cell);
        orbit.sort_unstable();
        orbit.dedup();
        for &c in &orbit {
            orbit_of[c] = orbits.len();
        }
        orbits.push(orbit);
    }
    orbits
}

/// The board a BFS starts from for the blank on `cell`: the tiles `1..n-1` in row-major order
/// on the other cells. On the last cell it is the standard goal.
///
/// # Panics
/// When `cell` is not a cell of `shape`.
pub fn start_board(shape: Shape, cell: usize) -> Board {
    let n = shape.cells();
    assert!(cell < n, "cell {cell} of {shape}");
    let mut next = 0u8;
    let cells = (0..n)
        .map(|i| {
            if i == cell {
                (n - 1) as u8
            } else {
                next += 1;
                next - 1
            }
        })
        .collect();
    Board::from_permutation(shape, cells).expect("a permutation")
}

/// The BFS from one orbit's start board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrbitDistances {
    /// The orbit's cells, ascending ([`cell_orbits`]).
    pub cells: Vec<usize>,
    /// The board the BFS started from ([`start_board`] of the orbit's last cell).
    pub start: Board,
    /// `counts[d]`: boards of the start's component at distance `d` (`counts[0] = 1`), for
    /// `d = 0..=` the eccentricity (or the depth searched, when not [`Self::complete`]).
    pub counts: Vec<u64>,
    /// The BFS ran out of boards: `counts` is the whole component and its last depth the
    /// eccentricity. False for a depth-limited search stopped at its limit.
    pub complete: bool,
}

impl OrbitDistances {
    /// The eccentricity of every board with its blank in this orbit (moves), `None` when the
    /// search was not complete.
    pub fn eccentricity(&self) -> Option<u32> {
        self.complete.then(|| self.counts.len() as u32 - 1)
    }

    /// The boards of the component found (its size when complete).
    pub fn reached(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The sum of the distances from the start to the boards found (moves).
    pub fn distance_sum(&self) -> u128 {
        self.counts
            .iter()
            .enumerate()
            .map(|(d, &c)| d as u128 * u128::from(c))
            .sum()
    }

    /// The mean distance from a board with its blank here to the other boards of its
    /// component (moves), `None` when not complete or the component is one board.
    pub fn mean_distance(&self) -> Option<f64> {
        let others = self.reached().checked_sub(1).filter(|&o| o > 0)?;
        self.complete
            .then(|| self.distance_sum() as f64 / others as f64)
    }
}

/// The geometry of the whole game graph of one shape in one metric ([`Geometry::new`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// The shape.
    pub shape: Shape,
    /// What one move is.
    pub metric: Metric,
    /// One BFS per orbit of blank cells, in [`cell_orbits`] order.
    pub orbits: Vec<OrbitDistances>,
}

/// What an all-pairs computation needs from one BFS: the distribution from a start board,
/// and whether it ran out of boards.
pub type Distribution = (Vec<u64>, bool);

impl Geometry {
    /// Runs `bfs` once per orbit of blank cells ([`cell_orbits`]), from the orbit's
    /// [`start_board`] (on its last cell), and gathers the distributions. `bfs` returns the
    /// number of boards at each depth from its start, `counts[0] = 1`, and whether the search
    /// ran out of boards (true for a whole-component BFS), as any of the engines can
    /// ([`crate::analysis::analyze`], [`crate::analysis::analyze_cluster`],
    /// [`crate::analysis::analyze_limited`]); it is told the orbit's index and cells.
    ///
    /// # Errors
    /// The first error `bfs` returns.
    pub fn new<E>(
        shape: Shape,
        metric: Metric,
        mut bfs: impl FnMut(usize, &[usize], &Board) -> Result<Distribution, E>,
    ) -> Result<Geometry, E> {
        let mut orbits = Vec::new();
        for (i, cells) in cell_orbits(shape, metric).into_iter().enumerate() {
            let start = start_board(shape, *cells.last().expect("a cell"));
            let (counts, complete) = bfs(i, &cells, &start)?;
            orbits.push(OrbitDistances {
                cells,
                start,
                counts,
                complete,
            });
        }
        Ok(Geometry {
            shape,
            metric,
            orbits,
        })
    }

    /// Whether every orbit's BFS ran out of boards, so that the eccentricities, the diameter,
    /// the radius, the mean distance and the unconnected pairs are known.
    pub fn complete(&self) -> bool {
        self.orbits.iter().all(|o| o.complete)
    }

    /// `(n-1)!`: the boards with the blank on any one cell (all components).
    pub fn boards_per_cell(&self) -> u128 {
        (1..self.shape.cells() as u128).product()
    }

    /// `n!`: all boards.
    pub fn boards(&self) -> u128 {
        self.boards_per_cell() * self.shape.cells() as u128
    }

    /// The boards of one component (all components are the same size: relabelling maps one
    /// onto another), as the first orbit's BFS found them; `None` when it was not complete.
    pub fn component_size(&self) -> Option<u64> {
        let first = self.orbits.first()?;
        first.complete.then(|| first.reached())
    }

    /// The diameter: the largest eccentricity (moves); `None` unless [`Self::complete`].
    pub fn diameter(&self) -> Option<u32> {
        self.eccentricities()?.into_iter().max()
    }

    /// The radius: the least eccentricity (moves); `None` unless [`Self::complete`].
    pub fn radius(&self) -> Option<u32> {
        self.eccentricities()?.into_iter().min()
    }

    /// Each orbit's eccentricity, in orbit order; `None` unless [`Self::complete`].
    fn eccentricities(&self) -> Option<Vec<u32>> {
        self.orbits
            .iter()
            .map(OrbitDistances::eccentricity)
            .collect()
    }

    /// The boards whose eccentricity is `e` (all components): `(n-1)!` per cell of an orbit
    /// with that eccentricity.
    fn boards_with_eccentricity(&self, e: u32) -> u128 {
        let cells: usize = self
            .orbits
            .iter()
            .filter(|o| o.eccentricity() == Some(e))
            .map(|o| o.cells.len())
            .sum();
        cells as u128 * self.boards_per_cell()
    }

    /// The centre: the cells whose boards have the least eccentricity, and how many boards
    /// that is; `None` unless [`Self::complete`].
    pub fn centre(&self) -> Option<(Vec<usize>, u128)> {
        let r = self.radius()?;
        Some((self.cells_with(r), self.boards_with_eccentricity(r)))
    }

    /// The periphery: the cells whose boards have the largest eccentricity (the diameter), and
    /// how many boards that is; `None` unless [`Self::complete`].
    pub fn periphery(&self) -> Option<(Vec<usize>, u128)> {
        let d = self.diameter()?;
        Some((self.cells_with(d), self.boards_with_eccentricity(d)))
    }

    /// The cells (ascending) of the orbits of eccentricity `e`.
    fn cells_with(&self, e: u32) -> Vec<usize> {
        let mut cells: Vec<usize> = self
            .orbits
            .iter()
            .filter(|o| o.eccentricity() == Some(e))
            .flat_map(|o| o.cells.iter().copied())
            .collect();
        cells.sort_unstable();
        cells
    }

    /// The distance table: `pairs[d]` = unordered pairs of boards at distance `d`, for
    /// `d = 0..=` the diameter (the depth searched when not complete; the counts up to it are
    /// exact either way), `pairs[0] = 0` (igraph's `distance_table()` starts at `d = 1`).
    pub fn distance_table(&self) -> Vec<u128> {
        let depth = self
            .orbits
            .iter()
            .map(|o| o.counts.len())
            .max()
            .unwrap_or(0);
        let mut ordered = vec![0u128; depth];
        for o in &self.orbits {
            for (d, &c) in o.counts.iter().enumerate().skip(1) {
                ordered[d] += o.cells.len() as u128 * u128::from(c);
            }
        }
        // Each of the (n-1)! boards per cell sees its orbit's counts; each pair is seen from
        // both ends (the product is even: it counts ordered pairs).
        let per_cell = self.boards_per_cell();
        ordered.into_iter().map(|o| o * per_cell / 2).collect()
    }

    /// The pairs of boards that lie in the same component, `C(n!, 2) - unconnected`; `None`
    /// unless [`Self::complete`].
    pub fn connected_pairs(&self) -> Option<u128> {
        self.complete()
            .then(|| self.distance_table().into_iter().sum())
    }

    /// igraph's `unconnected`: the unordered pairs of boards in different components;
    /// `None` unless [`Self::complete`].
    pub fn unconnected_pairs(&self) -> Option<u128> {
        let n = self.boards();
        Some(n * (n - 1) / 2 - self.connected_pairs()?)
    }

    /// The sum of the distances over all connected pairs, and their number: the mean
    /// distance as an exact fraction; `None` unless [`Self::complete`].
    pub fn distance_sum(&self) -> Option<(u128, u128)> {
        let pairs = self.connected_pairs()?;
        let sum = self
            .distance_table()
            .iter()
            .enumerate()
            .map(|(d, &p)| d as u128 * p)
            .sum();
        Some((sum, pairs))
    }

    /// igraph's `mean_distance` (unconnected pairs left out): the mean distance over the pairs
    /// of boards in one component (moves); `None` unless [`Self::complete`] or when there is
    /// no such pair.
    pub fn mean_distance(&self) -> Option<f64> {
        let (sum, pairs) = self.distance_sum()?;
        (pairs > 0).then(|| sum as f64 / pairs as f64)
    }

    /// The pairs of boards at the diameter (the antipodal pairs); `None` unless
    /// [`Self::complete`].
    pub fn pairs_at_diameter(&self) -> Option<u128> {
        let d = self.diameter()? as usize;
        self.distance_table().get(d).copied()
    }

    /// The orbit of `cell`, by index into [`Self::orbits`].
    pub fn orbit_of(&self, cell: usize) -> Option<usize> {
        self.orbits.iter().position(|o| o.cells.contains(&cell))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    #[test]
    fn orbits_of_the_usual_boards() {
        assert_eq!(
            cell_orbits(shape(3, 3), Metric::Stm),
            vec![vec![0, 2, 6, 8], vec![1, 3, 5, 7], vec![4]]
        );
        assert_eq!(cell_orbits(shape(4, 4), Metric::Stm).len(), 3);
        assert_eq!(cell_orbits(shape(3, 4), Metric::Stm).len(), 4);
        assert_eq!(cell_orbits(shape(2, 7), Metric::Stm).len(), 4);
        assert_eq!(cell_orbits(shape(2, 6), Metric::Stm).len(), 3);
        assert_eq!(
            cell_orbits(shape(1, 5), Metric::Stm),
            vec![vec![0, 4], vec![1, 3], vec![2]]
        );
        assert_eq!(
            cell_orbits(shape(2, 2), Metric::Stm),
            vec![vec![0, 1, 2, 3]]
        );
    }

    #[test]
    fn every_cell_lies_in_exactly_one_orbit_and_the_first_holds_the_goal_blank() {
        for s in Shape::all_up_to(20) {
            let orbits = cell_orbits(s, Metric::Stm);
            assert_eq!(
                cell_orbits(s, Metric::Mtm),
                orbits,
                "{s}: both metrics keep every symmetry"
            );
            let mut seen: Vec<usize> = orbits.iter().flatten().copied().collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..s.cells()).collect::<Vec<_>>(), "{s}");
            assert_eq!(orbits[0].last(), Some(&(s.cells() - 1)), "{s}");
            assert_eq!(start_board(s, s.cells() - 1), Board::goal(s), "{s}");
            for o in &orbits {
                let b = start_board(s, *o.last().unwrap());
                assert_eq!(b.blank(), *o.last().unwrap(), "{s}");
            }
        }
    }

    #[test]
    fn a_line_of_three_by_hand() {
        // 1x3: 6 boards, 2 paths of 3 boards; blank on an end: 0, 1, 2; in the middle: 0, 1, 1.
        let g = Geometry::new(shape(1, 3), Metric::Stm, |i, _, _| {
            Ok::<_, ()>(match i {
                0 => (vec![1, 1, 1], true),
                _ => (vec![1, 2], true),
            })
        })
        .unwrap();
        assert_eq!(g.diameter(), Some(2));
        assert_eq!(g.radius(), Some(1));
        // 2 paths x (2 pairs at 1, 1 pair at 2).
        assert_eq!(g.distance_table(), vec![0, 4, 2]);
        assert_eq!(g.unconnected_pairs(), Some(15 - 6));
        assert_eq!(g.distance_sum(), Some((8, 6)));
        assert_eq!(g.centre(), Some((vec![1], 2)));
        assert_eq!(g.periphery(), Some((vec![0, 2], 4)));
        assert_eq!(g.pairs_at_diameter(), Some(2));
    }
}
