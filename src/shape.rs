//! Board shapes: [`Shape`] (`rows x cols`) and the geometry of its cells.
//!
//! Cells are numbered row-major from 0 (top left) to `rows * cols - 1` (bottom right).
//! Every algorithm in the crate works on a `Shape`; nothing is hard-wired to 3x3.

use std::fmt;

use serde::Serialize;

/// The largest number of cells a [`Shape`] may have (a 8x8 board).
///
/// Boards are stored one byte per cell and solvers keep cell sets in a `u64`. Larger boards,
/// up to 127 x 127, are solved as [`crate::solve::wide::WideBoard`]s, outside every engine
/// and table.
pub const MAX_CELLS: usize = 64;

/// Errors from [`Shape::new`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// A side was zero.
    #[error("a board needs at least 1 row and 1 column (got {rows}x{cols})")]
    ZeroSide {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// Fewer than 2 cells: no tile to slide.
    #[error("a {rows}x{cols} board has a single cell and no tile to slide; use at least 2 cells")]
    TooFewCells {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// More than [`MAX_CELLS`] cells.
    #[error("a {rows}x{cols} board has {cells} cells; at most {MAX_CELLS} are supported")]
    TooManyCells {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
        /// `rows * cols`, exact (a `u128` never overflows here).
        cells: u128,
    },
}

/// A rectangular board of `rows x cols` cells, `2 <= rows * cols <= MAX_CELLS`.
///
/// `Display` writes it as `RxC` (e.g. `3x4`, 3 rows of 4 cells), the name of its output folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Shape {
    rows: usize,
    cols: usize,
}

impl Shape {
    /// A `rows x cols` board.
    ///
    /// # Errors
    /// [`ShapeError`] when a side is zero or the cell count is outside `2..=MAX_CELLS`.
    pub fn new(rows: usize, cols: usize) -> Result<Shape, ShapeError> {
        if rows == 0 || cols == 0 {
            return Err(ShapeError::ZeroSide { rows, cols });
        }
        let cells = rows as u128 * cols as u128;
        if cells < 2 {
            return Err(ShapeError::TooFewCells { rows, cols });
        }
        if cells > MAX_CELLS as u128 {
            return Err(ShapeError::TooManyCells { rows, cols, cells });
        }
        Ok(Shape { rows, cols })
    }

    /// The `size x size` board (`size` 3 is the 8-puzzle, 4 the 15-puzzle).
    ///
    /// # Errors
    /// As [`Shape::new`].
    pub fn square(size: usize) -> Result<Shape, ShapeError> {
        Shape::new(size, size)
    }

    /// Number of rows.
    pub fn rows(self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(self) -> usize {
        self.cols
    }

    /// Number of cells, `rows * cols` (tiles plus the blank).
    pub fn cells(self) -> usize {
        self.rows * self.cols
    }

    /// Number of boards (permutations of the cells), `cells!`, or `None` above `u64::MAX`
    /// (more than 20 cells).
    pub fn board_count(self) -> Option<u64> {
        crate::rank::factorial(self.cells())
    }

    /// Every shape of `2..=max_cells` cells, by cell count, then rows (`1x2, 2x1, 1x3, 3x1,
    /// 1x4, 2x2, 4x1, ...`).
    pub fn all_up_to(max_cells: usize) -> impl Iterator<Item = Shape> {
        (2..=max_cells.min(MAX_CELLS)).flat_map(|cells| {
            (1..=cells)
                .filter(move |r| cells % r == 0)
                .filter_map(move |r| Shape::new(r, cells / r).ok())
        })
    }

    /// Whether the shape has at least 2 rows and 2 columns (its game graph is two components
    /// of `n!/2` boards; a single row or column is not).
    pub fn is_grid(self) -> bool {
        self.rows >= 2 && self.cols >= 2
    }

    /// Row and column of `cell`.
    pub fn coords(self, cell: usize) -> (usize, usize) {
        (cell / self.cols, cell % self.cols)
    }

    /// Number of undirected edges of the game graph over all `cells!` boards:
    /// `(cells - 1)! * (rows * (cols - 1) + cols * (rows - 1))` (each adjacent pair of cells
    /// holds the blank and one tile in `(cells - 1)!` boards). `None` on overflow.
    pub fn edge_count(self) -> Option<u64> {
        let adjacent = (self.rows * (self.cols - 1) + self.cols * (self.rows - 1)) as u64;
        crate::rank::factorial(self.cells() - 1)?.checked_mul(adjacent)
    }

    /// The cells adjacent to `cell` (up, down, left, right, in that order, those on the board).
    pub fn adjacent(self, cell: usize) -> impl Iterator<Item = usize> {
        let (r, c) = self.coords(cell);
        let cols = self.cols;
        [
            (r > 0).then(|| cell - cols),
            (r + 1 < self.rows).then(|| cell + cols),
            (c > 0).then(|| cell - 1),
            (c + 1 < cols).then(|| cell + 1),
        ]
        .into_iter()
        .flatten()
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_degenerate_shapes() {
        assert!(matches!(Shape::new(0, 3), Err(ShapeError::ZeroSide { .. })));
        assert!(matches!(
            Shape::new(1, 1),
            Err(ShapeError::TooFewCells { .. })
        ));
        assert!(matches!(
            Shape::new(9, 9),
            Err(ShapeError::TooManyCells { cells: 81, .. })
        ));
        assert_eq!(Shape::new(3, 4).unwrap().to_string(), "3x4");
    }

    #[test]
    fn edge_counts_match_the_reference() {
        // ../shared/reference/README.md, "Whole graph" table.
        for (r, c, edges) in [(1, 4, 18), (2, 2, 24), (2, 3, 840), (3, 3, 483_840)] {
            assert_eq!(Shape::new(r, c).unwrap().edge_count(), Some(edges));
        }
    }

    #[test]
    fn shapes_up_to_ten_cells() {
        let grids: Vec<String> = Shape::all_up_to(10)
            .filter(|s| s.is_grid())
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            grids,
            ["2x2", "2x3", "3x2", "2x4", "4x2", "3x3", "2x5", "5x2"]
        );
        assert_eq!(Shape::all_up_to(4).count(), 2 + 2 + 3);
    }

    #[test]
    fn adjacency_is_symmetric() {
        let s = Shape::new(3, 4).unwrap();
        for a in 0..s.cells() {
            for b in s.adjacent(a) {
                assert!(s.adjacent(b).any(|x| x == a));
            }
        }
        assert_eq!(s.adjacent(5).collect::<Vec<_>>(), vec![1, 9, 4, 6]);
    }
}
