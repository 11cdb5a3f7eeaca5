//! The board flags shared by `analyze`, `export`, `draw` and `solve`: `--size N`, or
//! `--rows R --cols C`.

use clap::Args;
use npuzzle::Shape;

use super::CliError;

/// Which board: `--size N` (N x N) or `--rows R --cols C`.
#[derive(Debug, Args)]
pub struct BoardArgs {
    /// The N x N board (3 = the 8-puzzle).
    #[arg(long, value_name = "N", conflicts_with_all = ["rows", "cols"])]
    size: Option<usize>,
    /// Rows of a rectangular board (with --cols).
    #[arg(long, value_name = "R", requires = "cols")]
    rows: Option<usize>,
    /// Columns of a rectangular board (with --rows).
    #[arg(long, value_name = "C", requires = "rows")]
    cols: Option<usize>,
}

impl BoardArgs {
    /// The shape asked for.
    ///
    /// # Errors
    /// A usage error (exit 2) for a side of 0, a single cell, or too many cells.
    pub fn shape(&self) -> Result<Shape, CliError> {
        self.given()?
            .ok_or_else(|| CliError::usage("give --size N or both --rows R and --cols C"))
    }

    /// The shape asked for, or `None` when neither flag is given (`solve`, which reads the
    /// shape from the board when it can).
    ///
    /// # Errors
    /// As [`BoardArgs::shape`], for a shape that is given.
    pub fn given(&self) -> Result<Option<Shape>, CliError> {
        match (self.size, self.rows, self.cols) {
            (Some(n), _, _) => Shape::square(n).map(Some),
            (None, Some(r), Some(c)) => Shape::new(r, c).map(Some),
            _ => Ok(None),
        }
        .map_err(CliError::usage)
    }
}
