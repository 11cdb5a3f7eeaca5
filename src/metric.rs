//! The move metric: what counts as one move.
//!
//! - **Single-tile metric (STM)**, the default: one tile slides one cell into the blank.
//! - **Multi-tile metric (MTM)**: one move slides 1 to `k` tiles of the blank's row or column
//!   one cell each toward the blank, and the blank jumps `k` cells (the metric of
//!   speed-solvers, and of the complete MTM searches of lightln2/SlidingTilesSolver; OEIS
//!   A389728 for the 4x4 board). Every MTM move is `k` STM moves in one direction, so the
//!   connected components are the same in both metrics and an MTM distance is never more
//!   than the STM distance.
//!
//! Each board of `R x C` cells has up to 4 STM neighbours and exactly `(R - 1) + (C - 1)` MTM
//! neighbours (the other cells of the blank's row and column).

use crate::board::Direction;
use crate::shape::Shape;

/// What counts as one move (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Metric {
    /// Single-tile metric: one tile, one cell.
    #[default]
    Stm,
    /// Multi-tile metric: 1 to `k` tiles of the blank's row or column, one cell each.
    Mtm,
}

impl Metric {
    /// Every metric, in the order of their codes ([`Metric::code`]).
    pub const ALL: [Metric; 2] = [Metric::Stm, Metric::Mtm];

    /// The short name used in commands, file names and `summary.json`: `stm` or `mtm`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Stm => "stm",
            Metric::Mtm => "mtm",
        }
    }

    /// The name written in reports and chart titles: `single-tile` or `multi-tile`.
    pub fn long_name(self) -> &'static str {
        match self {
            Metric::Stm => "single-tile",
            Metric::Mtm => "multi-tile",
        }
    }

    /// The metric of a name: `stm`, `single-tile`, `mtm` or `multi-tile` (any case).
    pub fn parse(name: &str) -> Option<Metric> {
        match name.to_ascii_lowercase().as_str() {
            "stm" | "single-tile" => Some(Metric::Stm),
            "mtm" | "multi-tile" => Some(Metric::Mtm),
            _ => None,
        }
    }

    /// The metric's code in the binary headers of distance tables (`.npt`) and pattern
    /// database caches: 0 single-tile, 1 multi-tile (the values those files have always
    /// held); [`Metric::from_code`] is its inverse.
    pub fn code(self) -> u32 {
        match self {
            Metric::Stm => 0,
            Metric::Mtm => 1,
        }
    }

    /// The metric of a header's code ([`Metric::code`]); `None` for a code no metric has
    /// (a corrupt or newer file).
    pub fn from_code(code: u32) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.code() == code)
    }

    /// Whether every game graph in this metric is bipartite, with the sides told by the
    /// blank's cell: true in STM (each move takes the blank to an adjacent cell, of the other
    /// colour of the checkerboard), false in MTM (a move of two tiles keeps the colour, and
    /// the graph has odd cycles). The BFS's marks as a distance table
    /// ([`crate::analysis::table_from_marks`]) and the sides of the parity index
    /// ([`crate::bfs::ParitySpace`]) rest on it.
    pub fn is_bipartite(self) -> bool {
        match self {
            Metric::Stm => true,
            Metric::Mtm => false,
        }
    }

    /// Whether one move slides exactly one tile: true in STM, false in MTM. Where it is false,
    /// one move may lower a tile-by-tile count such as Manhattan distance by more than one (so
    /// Hamming, Manhattan, linear conflict and additive pattern databases are not admissible),
    /// and consecutive single-tile slides in one direction make one move
    /// ([`Metric::length`]).
    pub fn moves_one_tile(self) -> bool {
        match self {
            Metric::Stm => true,
            Metric::Mtm => false,
        }
    }

    /// The suffix of a results folder in this metric: none in STM (`output/3x3`), `-mtm` in
    /// MTM (`output/3x3-mtm`).
    pub fn folder_suffix(self) -> &'static str {
        match self {
            Metric::Stm => "",
            Metric::Mtm => "-mtm",
        }
    }

    /// The symmetries of `shape`'s rectangle that preserve this metric's moves, each as a map
    /// of cells (`map[cell]` is the cell's image; row-major cell numbers, as
    /// [`Shape::coords`]), the identity first. The candidates are the rectangle's symmetries:
    /// the identity, the two reflections and the half turn, and on a square also the two
    /// transposes and the two quarter turns (the dihedral group of order 8); a candidate is
    /// kept when the cells one move apart ([`Metric::targets`]) are exactly the images of the
    /// cells one move apart. Both metrics keep every candidate (their moves go along rows and
    /// columns, which these maps keep, with the order of the cells along them, so the tiles a
    /// multi-tile move passes map to the tiles its image passes); a move rule that broke one
    /// would lose it here, and with it the orbits of [`crate::geometry::cell_orbits`], which
    /// are computed from these. (Only the rectangle's symmetries are candidates: a map of
    /// cells that kept the targets but not that order, such as swapping two rows of 3x3 in
    /// the multi-tile metric, is not a symmetry of the game graph.) A line's reflections that
    /// fix every cell appear as copies of the identity.
    pub fn symmetries(self, shape: Shape) -> Vec<Vec<usize>> {
        let (rows, cols) = (shape.rows(), shape.cols());
        // Candidate k: transposed first when k >= 4 (squares only), then the rows reversed
        // when bit 0 is set, the columns when bit 1 is.
        let image = |k: usize, cell: usize| {
            let (r, c) = shape.coords(cell);
            let (r, c) = if k >= 4 { (c, r) } else { (r, c) };
            let r = if k & 1 == 1 { rows - 1 - r } else { r };
            let c = if k & 2 == 2 { cols - 1 - c } else { c };
            r * cols + c
        };
        let candidates = if rows == cols { 8 } else { 4 };
        let sorted = |mut cells: Vec<usize>| {
            cells.sort_unstable();
            cells
        };
        (0..candidates)
            .map(|k| (0..shape.cells()).map(|cell| image(k, cell)).collect())
            .filter(|map: &Vec<usize>| {
                (0..shape.cells()).all(|cell| {
                    let moved = self.targets(shape, cell).iter().map(|&t| map[t]).collect();
                    sorted(moved) == sorted(self.targets(shape, map[cell]))
                })
            })
            .collect()
    }

    /// The most neighbours a board of `shape` has: 4 in STM (fewer on the border),
    /// `(rows - 1) + (cols - 1)` in MTM (every board).
    pub fn degree(self, shape: Shape) -> usize {
        match self {
            Metric::Stm => 4,
            Metric::Mtm => shape.rows() - 1 + shape.cols() - 1,
        }
    }

    /// The cells the blank can move to from `blank` in one move, in a fixed order: up
    /// (nearest first), down, left, right. STM: the adjacent cells; MTM: every other cell of
    /// the blank's row and column.
    pub fn targets(self, shape: Shape, blank: usize) -> Vec<usize> {
        let mut out = vec![0; self.degree(shape)];
        let count = self.targets_into(shape, blank, &mut out);
        out.truncate(count);
        out
    }

    /// [`Metric::targets`] written to the first slots of `out` (at least
    /// [`Metric::degree`] long), without allocating; returns how many.
    #[inline(always)]
    pub fn targets_into(self, shape: Shape, blank: usize, out: &mut [usize]) -> usize {
        let (r, c) = shape.coords(blank);
        let cols = shape.cols();
        let reach = |room: usize| match self {
            Metric::Stm => room.min(1),
            Metric::Mtm => room,
        };
        let mut count = 0;
        let mut put = |cell: usize| {
            out[count] = cell;
            count += 1;
        };
        (1..=reach(r)).for_each(|k| put(blank - k * cols));
        (1..=reach(shape.rows() - 1 - r)).for_each(|k| put(blank + k * cols));
        (1..=reach(c)).for_each(|k| put(blank - k));
        (1..=reach(cols - 1 - c)).for_each(|k| put(blank + k));
        count
    }
}

impl Metric {
    /// The blank's moves from `blank`: each target of [`Metric::targets`] with the direction
    /// the blank goes, in the same order.
    pub fn moves(self, shape: Shape, blank: usize) -> Vec<(Direction, usize)> {
        let cols = shape.cols();
        self.targets(shape, blank)
            .into_iter()
            .map(|to| (direction(cols, blank, to), to))
            .collect()
    }

    /// The first of the blank's moves from `blank` on the board `cells` ([`Metric::moves`]
    /// order) whose resulting board `accept` takes, with the cell the blank reaches: one step
    /// of a walk downhill in a table of distances.
    pub fn find_move(
        self,
        shape: Shape,
        cells: &[u8],
        blank: usize,
        mut accept: impl FnMut(&[u8]) -> bool,
    ) -> Option<(Direction, usize)> {
        let mut next = cells.to_vec();
        self.moves(shape, blank).into_iter().find(|&(_, to)| {
            next.copy_from_slice(cells);
            slide(&mut next, blank, to, shape.cols());
            accept(&next)
        })
    }

    /// The length, in this metric, of a solution written as single-tile slides (`moves`, the
    /// blank's directions): their number in STM; in MTM the number of runs of one direction,
    /// each run one multi-tile move. (An optimal MTM solution never makes two moves in a row
    /// along one axis: they would combine into one move or cancel, so its runs are its moves.)
    pub fn length(self, moves: &[Direction]) -> usize {
        match self {
            Metric::Stm => moves.len(),
            Metric::Mtm => runs(moves).count(),
        }
    }

    /// The moves of a solution written as single-tile slides, in this metric: each with its
    /// direction and the number of tiles it slides (always 1 in STM; each run of one direction
    /// in MTM).
    pub fn steps(self, moves: &[Direction]) -> Vec<(Direction, usize)> {
        match self {
            Metric::Stm => moves.iter().map(|&d| (d, 1)).collect(),
            Metric::Mtm => runs(moves).collect(),
        }
    }

    /// `moves` (single-tile slides, the blank's directions) in this metric's notation, joined
    /// by `separator`. STM: one letter per move (`R D L U`). MTM: one letter per run of one
    /// direction, followed by its count when more than 1 (`R2 D U3`): the blank's direction
    /// and the number of tiles it passes, which slide the other way (the count-after-letter
    /// notation of speed-solvers, who name the tiles' direction instead of the blank's).
    pub fn notation(self, moves: &[Direction], separator: &str) -> String {
        let mut out = String::with_capacity(moves.len() * (1 + separator.len()));
        self.write_notation(moves, separator, &mut out);
        out
    }

    /// [`Metric::notation`] appended to `out`.
    pub fn write_notation(self, moves: &[Direction], separator: &str, out: &mut String) {
        let mut put = |k: usize, dir: Direction, tiles: usize| {
            if k > 0 {
                out.push_str(separator);
            }
            out.push(dir.letter());
            if tiles > 1 {
                let _ = std::fmt::Write::write_fmt(out, format_args!("{tiles}"));
            }
        };
        match self {
            Metric::Stm => moves.iter().enumerate().for_each(|(k, &d)| put(k, d, 1)),
            Metric::Mtm => runs(moves)
                .enumerate()
                .for_each(|(k, (d, tiles))| put(k, d, tiles)),
        }
    }
}

/// One move in the notation of [`Metric::notation`]: `R`, or `R2` for 2 tiles.
pub fn word(dir: Direction, tiles: usize) -> String {
    match tiles {
        1 => dir.letter().to_string(),
        _ => format!("{}{tiles}", dir.letter()),
    }
}

/// The direction the blank goes from cell `blank` to cell `to` of its row or column (on a
/// board of `cols` columns).
#[inline]
pub fn direction(cols: usize, blank: usize, to: usize) -> Direction {
    match (to < blank, blank.abs_diff(to) < cols) {
        (true, false) => Direction::Up,
        (false, false) => Direction::Down,
        (true, true) => Direction::Left,
        (false, true) => Direction::Right,
    }
}

/// The number of tiles a move of the blank from `blank` to `to` (a cell of its row or
/// column, on a board of `cols` columns) slides.
#[inline]
pub fn passed(cols: usize, blank: usize, to: usize) -> usize {
    let d = blank.abs_diff(to);
    if d < cols { d } else { d / cols }
}

/// The runs of one direction in `moves`: each direction with its count.
fn runs(moves: &[Direction]) -> impl Iterator<Item = (Direction, usize)> + '_ {
    moves.chunk_by(|a, b| a == b).map(|run| (run[0], run.len()))
}

/// Moves the blank of `cells` (a board's permutation, `cols` columns) from cell `blank` to
/// cell `to` of its row or column, the tiles between sliding one cell each toward `blank`:
/// one multi-tile move.
#[inline(always)]
pub fn slide(cells: &mut [u8], blank: usize, to: usize, cols: usize) {
    let step = if blank.abs_diff(to) < cols { 1 } else { cols };
    let mut at = blank;
    while at != to {
        let next = if to > at { at + step } else { at - step };
        cells.swap(at, next);
        at = next;
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_properties_follow_the_moves() {
        for m in Metric::ALL {
            assert_eq!(Metric::from_code(m.code()), Some(m));
        }
        assert_eq!(Metric::from_code(2), None);
        // The codes the files have always held.
        assert_eq!((Metric::Stm.code(), Metric::Mtm.code()), (0, 1));
        for (rows, cols, count) in [(3, 3, 8), (4, 4, 8), (3, 4, 4), (2, 7, 4), (1, 5, 4)] {
            let s = Shape::new(rows, cols).unwrap();
            for m in Metric::ALL {
                let maps = m.symmetries(s);
                assert_eq!(maps.len(), count, "{s} {m}");
                assert_eq!(
                    maps[0],
                    (0..s.cells()).collect::<Vec<_>>(),
                    "identity first"
                );
                for map in &maps {
                    let mut cells = map.clone();
                    cells.sort_unstable();
                    assert_eq!(cells, (0..s.cells()).collect::<Vec<_>>(), "a bijection");
                }
                // Bipartite: the blank's checkerboard colour flips with every move, or not.
                let flips = (0..s.cells()).all(|b| {
                    m.targets(s, b).iter().all(|&t| {
                        let (br, bc) = s.coords(b);
                        let (tr, tc) = s.coords(t);
                        (br + bc + tr + tc) % 2 == 1
                    })
                });
                assert_eq!(flips, m.is_bipartite(), "{s} {m}");
                // One tile a move: every target adjacent to the blank.
                let adjacent = (0..s.cells())
                    .all(|b| m.targets(s, b).len() == Metric::Stm.targets(s, b).len());
                assert_eq!(adjacent, m.moves_one_tile(), "{s} {m}");
            }
        }
    }

    #[test]
    fn names_degrees_and_targets() {
        for m in [Metric::Stm, Metric::Mtm] {
            assert_eq!(Metric::parse(m.name()), Some(m));
            assert_eq!(Metric::parse(&m.long_name().to_uppercase()), Some(m));
        }
        assert_eq!(Metric::parse("tile"), None);
        let s = Shape::new(3, 4).unwrap();
        assert_eq!(Metric::Mtm.degree(s), 5);
        assert_eq!(Metric::Stm.targets(s, 5), vec![1, 9, 4, 6]);
        assert_eq!(Metric::Mtm.targets(s, 0), vec![4, 8, 1, 2, 3]);
        assert_eq!(Metric::Mtm.targets(s, 11), vec![7, 3, 10, 9, 8]);
        for b in 0..s.cells() {
            assert_eq!(Metric::Mtm.targets(s, b).len(), 5);
            for (dir, to) in Metric::Mtm.moves(s, b) {
                // The direction's single steps from `b` reach `to`.
                let mut at = b;
                while at != to {
                    at = dir.step(s, at).unwrap();
                }
            }
        }
    }

    #[test]
    fn lengths_and_notation() {
        use Direction::{Down as D, Left as L, Right as R, Up as U};
        let moves = [R, R, D, U, U, U, L];
        assert_eq!(Metric::Stm.length(&moves), 7);
        assert_eq!(Metric::Mtm.length(&moves), 4);
        assert_eq!(Metric::Stm.notation(&moves, " "), "R R D U U U L");
        assert_eq!(Metric::Mtm.notation(&moves, " "), "R2 D U3 L");
        assert_eq!(Metric::Mtm.notation(&moves, ""), "R2DU3L");
        assert_eq!(Metric::Mtm.notation(&[], " "), "");
    }
}
