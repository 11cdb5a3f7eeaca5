//! Reading boards as users write them: the 8-puzzle assignment's file format, flat lists
//! (`--board`, batch lines) and their errors.
//!
//! - **Assignment format**: the size `N` alone on the first line, then `N` lines of `N`
//!   numbers, `0` for the blank. Blank lines are ignored.
//! - **Flat list**: the numbers row by row, `0` for the blank, separated by spaces or commas;
//!   `/` may separate rows (`0 1 3 / 4 2 5 / 7 8 6`). Without an explicit shape the rows give
//!   it, or else the count must be a square (9 numbers: 3x3).
//!
//! Every error names what is wrong in one line, with the line number where there is one;
//! callers add the file name.

use crate::board::{Board, BoardError, parse_numbers};
use crate::shape::{Shape, ShapeError};

/// What is wrong with a board's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// No numbers at all.
    #[error("empty input: expected a board (the size N, then N rows of N numbers, 0 = blank)")]
    Empty,
    /// The first line is not a board size.
    #[error(
        "line {line}: '{}' is not a board size (the first line holds N, then N rows of N numbers follow)",
        crate::board::quoted(found)
    )]
    BadSize {
        /// Line number (from 1).
        line: usize,
        /// What was there.
        found: String,
    },
    /// The size is not a valid board.
    #[error("line {line}: {source}")]
    Shape {
        /// Line number (from 1).
        line: usize,
        /// Why.
        source: ShapeError,
    },
    /// The tiles of a one-line board (`--board`, a batch line) make no supported shape.
    #[error("{0}")]
    FlatShape(ShapeError),
    /// A token that is not a number.
    #[error("line {line}: '{}' is not a tile number", crate::board::quoted(token))]
    NotANumber {
        /// Line number (from 1).
        line: usize,
        /// The token.
        token: String,
    },
    /// A row with the wrong number of tiles.
    #[error(
        "line {line}: a row of {found} numbers on a {size}x{size} board (the first line says N = {size})"
    )]
    RowLength {
        /// Line number (from 1).
        line: usize,
        /// `N`.
        size: usize,
        /// Numbers on the line.
        found: usize,
    },
    /// Too few or too many rows.
    #[error("{found} rows of tiles after the size line, expected {size}")]
    RowCount {
        /// `N`.
        size: usize,
        /// Rows found.
        found: usize,
    },
    /// `/`-separated rows of different lengths.
    #[error("row {row} has {found} numbers but row 1 has {expected}: rows must have equal length")]
    UnequalRows {
        /// Row number (from 1).
        row: usize,
        /// Length of the first row.
        expected: usize,
        /// Length of this row.
        found: usize,
    },
    /// `/`-separated rows that disagree with the shape asked for.
    #[error("{rows} rows of {cols} numbers, but the board is {shape}")]
    RowsDisagree {
        /// Rows given.
        rows: usize,
        /// Numbers per row.
        cols: usize,
        /// The shape asked for.
        shape: Shape,
    },
    /// A flat list whose length is not a square, with no shape given.
    #[error(
        "{0} numbers do not make a square board; give {rows} and {cols} for a rectangular one",
        rows = crate::frontend::arg(crate::frontend::Input::Rows, ""),
        cols = crate::frontend::arg(crate::frontend::Input::Cols, "")
    )]
    NotSquare(usize),
    /// A tile that appears twice (so another one is missing).
    #[error("tile {tile} appears more than once and tile {missing} is missing")]
    Repeated {
        /// The repeated tile.
        tile: u64,
        /// The smallest missing tile.
        missing: u64,
    },
    /// Any other problem with the tiles (wrong count, out of range, not a number).
    #[error(transparent)]
    Board(#[from] BoardError),
}

/// Reads a board in the assignment format (see the module documentation).
///
/// # Errors
/// An [`InputError`] naming the line and the problem.
///
/// ```
/// use npuzzle::solve::input::parse_assignment;
/// let board = parse_assignment("3\n 0 1 3\n 4 2 5\n 7 8 6\n").unwrap();
/// assert_eq!(board.label(), "913425786");
/// ```
pub fn parse_assignment(text: &str) -> Result<Board, InputError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((size_line, first)) = lines.next() else {
        return Err(InputError::Empty);
    };
    let size: usize = match first.parse() {
        Ok(n) => n,
        Err(_) => {
            return Err(InputError::BadSize {
                line: size_line,
                found: first.to_string(),
            });
        }
    };
    let shape = Shape::square(size).map_err(|source| InputError::Shape {
        line: size_line,
        source,
    })?;
    let mut tiles = Vec::with_capacity(shape.cells());
    let mut rows = 0;
    for (line, text) in lines {
        let row = numbers(text, line)?;
        if row.len() != size {
            return Err(InputError::RowLength {
                line,
                size,
                found: row.len(),
            });
        }
        rows += 1;
        tiles.extend(row);
    }
    if rows != size {
        return Err(InputError::RowCount { size, found: rows });
    }
    board_from_tiles(shape, &tiles)
}

/// Reads a flat list of tiles (see the module documentation), or the tiles as one run of
/// digits with `0` for the blank (`123456780`, up to 10 cells: [`crate::board::compact_tiles`]);
/// `shape` is the board's shape when the user gave one.
///
/// # Errors
/// An [`InputError`].
///
/// ```
/// use npuzzle::solve::input::parse_flat;
/// let board = parse_flat("1 2 3 / 4 0 5", None).unwrap();
/// assert_eq!(board.shape().to_string(), "2x3");
/// ```
pub fn parse_flat(text: &str, shape: Option<Shape>) -> Result<Board, InputError> {
    // The tiles as one run of digits (`123456780`), as `analyze --goal` reads them too.
    let text = match crate::board::compact_tiles(text) {
        Some(tiles) => {
            let spaced: Vec<String> = tiles.iter().map(u64::to_string).collect();
            return parse_flat(&spaced.join(" "), shape);
        }
        None => text,
    };
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() > 1 {
        let lengths = rows
            .iter()
            .map(|r| match parse_numbers(r) {
                Ok(v) => Ok(v.len()),
                Err(BoardError::Empty) => Ok(0),
                Err(e) => Err(e),
            })
            .collect::<Result<Vec<_>, BoardError>>()?;
        if let Some((row, &found)) = lengths.iter().enumerate().find(|&(_, &l)| l != lengths[0]) {
            return Err(InputError::UnequalRows {
                row: row + 1,
                expected: lengths[0],
                found,
            });
        }
        let (r, c) = (rows.len(), lengths[0]);
        match shape {
            Some(s) if (s.rows(), s.cols()) != (r, c) => {
                return Err(InputError::RowsDisagree {
                    rows: r,
                    cols: c,
                    shape: s,
                });
            }
            Some(_) => {}
            None => {
                let s = Shape::new(r, c).map_err(InputError::FlatShape)?;
                return board_from_tiles(s, &parse_numbers(text)?);
            }
        }
    }
    let tiles = match parse_numbers(text) {
        Err(BoardError::Empty) => return Err(InputError::Empty),
        other => other?,
    };
    let shape = match shape {
        Some(s) => s,
        None => {
            let side = (1..=tiles.len())
                .find(|s| s * s >= tiles.len())
                .unwrap_or(0);
            if side * side != tiles.len() {
                return Err(InputError::NotSquare(tiles.len()));
            }
            Shape::square(side).map_err(InputError::FlatShape)?
        }
    };
    board_from_tiles(shape, &tiles)
}

/// The numbers of one line.
fn numbers(text: &str, line: usize) -> Result<Vec<u64>, InputError> {
    match parse_numbers(text) {
        Ok(v) => Ok(v),
        Err(BoardError::Empty) => Ok(Vec::new()),
        Err(BoardError::NotANumber(token)) => Err(InputError::NotANumber { line, token }),
        Err(e) => Err(e.into()),
    }
}

/// [`Board::from_tiles`], naming the missing tile when one is repeated.
fn board_from_tiles(shape: Shape, tiles: &[u64]) -> Result<Board, InputError> {
    match Board::from_tiles(shape, tiles) {
        Err(BoardError::Duplicate(tile)) => {
            let missing = (0..shape.cells() as u64)
                .find(|t| !tiles.contains(t))
                .unwrap_or(0);
            Err(InputError::Repeated { tile, missing })
        }
        other => Ok(other?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any text at all gives a board or an error, never a panic.
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,60}", numbers in "[0-9 /,\n-]{0,40}") {
            let _ = parse_assignment(&text);
            let _ = parse_flat(&text, None);
            let _ = parse_assignment(&numbers);
            let _ = parse_flat(&numbers, None);
            let _ = parse_flat(&numbers, Shape::new(2, 3).ok());
        }

        /// Every 3x3 board written in the assignment format reads back as itself.
        #[test]
        fn assignment_format_round_trips(rank in 0u64..362_880) {
            let board = Board::from_rank(Shape::square(3).unwrap(), rank);
            let tiles: Vec<String> = board.tiles().map(|t| t.to_string()).collect();
            let text = format!("3\n{}\n{}\n{}\n", tiles[..3].join(" "), tiles[3..6].join(" "), tiles[6..].join(" "));
            prop_assert_eq!(parse_assignment(&text), Ok(board.clone()));
            prop_assert_eq!(parse_flat(&tiles.join(" "), None), Ok(board));
        }
    }

    /// One line per case: the text and the error message expected (or the label).
    fn check(text: &str, expected: &str) {
        let got = match parse_assignment(text) {
            Ok(b) => b.label(),
            Err(e) => e.to_string(),
        };
        assert_eq!(got, expected, "input {text:?}");
    }

    #[test]
    fn assignment_format() {
        check("3\n 0  1  3\n 4  2  5\n 7  8  6\n", "913425786");
        check("\n2\n1 2\n3 0\n\n", "1234");
        check(
            "",
            "empty input: expected a board (the size N, then N rows of N numbers, 0 = blank)",
        );
        check(
            "   \n\n",
            "empty input: expected a board (the size N, then N rows of N numbers, 0 = blank)",
        );
        check(
            "x\n1 2\n",
            "line 1: 'x' is not a board size (the first line holds N, then N rows of N numbers follow)",
        );
        check(
            "3 0 1 3 4 2 5 7 8 6",
            "line 1: '3 0 1 3 4 2 5 7 8 6' is not a board size (the first line holds N, then N rows of N numbers follow)",
        );
        check(
            "1\n0\n",
            "line 1: a 1x1 board has a single cell and no tile to slide; use at least 2 cells",
        );
        check(
            "3\n0 1 3\n4 2\n7 8 6\n",
            "line 3: a row of 2 numbers on a 3x3 board (the first line says N = 3)",
        );
        check(
            "2\n0 1 3\n4 2 5\n7 8 6\n",
            "line 2: a row of 3 numbers on a 2x2 board (the first line says N = 2)",
        );
        check(
            "3\n0 1 3\n4 2 5\n",
            "2 rows of tiles after the size line, expected 3",
        );
        check(
            "3\n0 1 3\n4 two 5\n7 8 6\n",
            "line 3: 'two' is not a tile number",
        );
        check(
            "3\n0 1 3\n4 2 5\n7 8 9\n",
            "tile 9 is out of range for a 3x3 board (tiles are 0 to 8)",
        );
        check(
            "3\n0 1 3\n4 2 5\n7 8 8\n",
            "tile 8 appears more than once and tile 6 is missing",
        );
        check(
            "3\n0 1 3\n4 -2 5\n7 8 6\n",
            "line 3: '-2' is not a tile number",
        );
    }

    #[test]
    fn flat_lists() {
        let s33 = Shape::square(3).ok();
        assert_eq!(
            parse_flat("0 1 3 / 4 2 5 / 7 8 6", None).unwrap().label(),
            "913425786"
        );
        assert_eq!(
            parse_flat("0,1,3,4,2,5,7,8,6", s33).unwrap().label(),
            "913425786"
        );
        assert_eq!(
            parse_flat("1 2 3 4 5 6 0 7", Shape::new(2, 4).ok())
                .unwrap()
                .shape()
                .to_string(),
            "2x4"
        );
        let err = |t: &str, s: Option<Shape>| parse_flat(t, s).unwrap_err().to_string();
        assert_eq!(
            err("1 2 3 / 4 0", None),
            "row 2 has 2 numbers but row 1 has 3: rows must have equal length"
        );
        assert_eq!(
            err("1 2 3 4 5 6 7 8 9 10 0", None),
            "11 numbers do not make a square board; give --rows and --cols for a rectangular one"
        );
        assert_eq!(
            err("1 2 3 / 4 5 0", s33),
            "2 rows of 3 numbers, but the board is 3x3"
        );
        assert_eq!(
            err("1 2 3", s33),
            "expected 9 numbers for a 3x3 board, found 3"
        );
        assert_eq!(err("", None), InputError::Empty.to_string());
        assert_eq!(err("1 2 x 0", None), "'x' is not a tile number");
        assert_eq!(err("1 2 / x 0", None), "'x' is not a tile number");
    }
}
