//! Reading boards as users write them: the 8-puzzle assignment's file format, flat lists
//! (`--board`, batch lines) and their errors.
//!
//! - **Assignment format**: the size `N` alone on the first line, then `N` lines of `N`
//!   numbers, `0` for the blank. Blank lines are ignored.
//! - **Flat list**: the numbers row by row, `0` for the blank, separated by spaces or commas;
//!   `/` may separate rows (`0 1 3 / 4 2 5 / 7 8 6`). Without an explicit shape the rows give
//!   it, or else the count must be a square (9 numbers: 3x3).
//!
//! `parse_assignment` and `parse_flat` read boards of at most 64 cells ([`Board`]);
//! `parse_assignment_any` and `parse_flat_any` read every size the assignment allows
//! (`2 <= N < 128`), boards over 64 cells as [`WideBoard`]s ([`AnyBoard`]).
//!
//! Every error names what is wrong in one line, with the line number where there is one;
//! callers add the file name.

use crate::board::{Board, BoardError, parse_numbers};
use crate::shape::{Shape, ShapeError};
use crate::solve::wide::{WideBoard, WideError};

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
    /// The size line asks for a board no solver takes (over 64 cells and a side outside
    /// `2..=127`).
    #[error("line {line}: {source}")]
    WideSize {
        /// Line number (from 1).
        line: usize,
        /// Why.
        source: WideError,
    },
    /// The tiles of a board over 64 cells are not a board ([`crate::solve::wide`]).
    #[error(transparent)]
    Wide(WideError),
    /// Any other problem with the tiles (wrong count, out of range, not a number).
    #[error(transparent)]
    Board(#[from] BoardError),
}

/// A board as read: one that a [`Shape`] holds (at most [`crate::shape::MAX_CELLS`] cells,
/// every solver of the crate), or a wider one ([`crate::solve::wide`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnyBoard {
    /// At most 64 cells.
    Board(Board),
    /// Over 64 cells, sides of 2 to [`crate::solve::wide::MAX_SIDE`].
    Wide(WideBoard),
}

impl AnyBoard {
    /// The board's size as `RxC`.
    pub fn size_name(&self) -> String {
        match self {
            AnyBoard::Board(b) => b.shape().to_string(),
            AnyBoard::Wide(w) => w.to_string(),
        }
    }
}

/// The sides of a board being read: a [`Shape`], or those of a wide board.
#[derive(Debug, Clone, Copy)]
enum BoardSides {
    Shape(Shape),
    Wide { rows: usize, cols: usize },
}

/// What a board of `rows x cols` is read as: a [`Shape`], or with `wide` a wide board when a
/// shape would have too many cells.
fn sides(rows: usize, cols: usize, wide: bool) -> Result<BoardSides, SidesError> {
    match Shape::new(rows, cols) {
        Ok(shape) => Ok(BoardSides::Shape(shape)),
        Err(ShapeError::TooManyCells { .. }) if wide => WideBoard::check_sides(rows, cols)
            .map(|()| BoardSides::Wide { rows, cols })
            .map_err(SidesError::Wide),
        Err(e) => Err(SidesError::Shape(e)),
    }
}

/// Why [`sides`] refused.
enum SidesError {
    Shape(ShapeError),
    Wide(WideError),
}

impl SidesError {
    /// The error of the size line `line`.
    fn at(self, line: usize) -> InputError {
        match self {
            SidesError::Shape(source) => InputError::Shape { line, source },
            SidesError::Wide(source) => InputError::WideSize { line, source },
        }
    }

    /// The error of a one-line board.
    fn flat(self) -> InputError {
        match self {
            SidesError::Shape(e) => InputError::FlatShape(e),
            SidesError::Wide(e) => InputError::Wide(e),
        }
    }
}

/// The board of `tiles` on `sides`.
fn build(sides: BoardSides, tiles: &[u64]) -> Result<AnyBoard, InputError> {
    match sides {
        BoardSides::Shape(shape) => board_from_tiles(shape, tiles).map(AnyBoard::Board),
        BoardSides::Wide { rows, cols } => WideBoard::from_tiles(rows, cols, tiles)
            .map(AnyBoard::Wide)
            .map_err(InputError::Wide),
    }
}

/// The [`Board`] of a text read without wide boards (so never [`AnyBoard::Wide`]).
fn narrow(board: AnyBoard) -> Result<Board, InputError> {
    match board {
        AnyBoard::Board(b) => Ok(b),
        AnyBoard::Wide(w) => Err(InputError::FlatShape(ShapeError::TooManyCells {
            rows: w.rows(),
            cols: w.cols(),
            cells: w.cells() as u128,
        })),
    }
}

/// Reads a board in the assignment format (see the module documentation), of at most
/// [`crate::shape::MAX_CELLS`] cells ([`parse_assignment_any`] reads larger ones too).
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
    narrow(read_assignment(text, false)?)
}

/// Reads a board in the assignment format of any size the assignment allows (`2 <= N <
/// 128`): a [`Board`] up to 8x8, a [`WideBoard`] above.
///
/// # Errors
/// As [`parse_assignment`]; a size outside `2..=127` is refused on its line.
///
/// ```
/// use npuzzle::solve::input::{AnyBoard, parse_assignment_any};
/// let rows: Vec<String> = (0..9)
///     .map(|r| (1..=9).map(|c| ((9 * r + c) % 81).to_string()).collect::<Vec<_>>().join(" "))
///     .collect();
/// let board = parse_assignment_any(&format!("9\n{}\n", rows.join("\n"))).unwrap();
/// assert!(matches!(board, AnyBoard::Wide(ref w) if w.is_goal()));
/// ```
pub fn parse_assignment_any(text: &str) -> Result<AnyBoard, InputError> {
    read_assignment(text, true)
}

/// [`parse_assignment`], wide boards read when `wide`.
fn read_assignment(text: &str, wide: bool) -> Result<AnyBoard, InputError> {
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
    let board_sides = sides(size, size, wide).map_err(|e| e.at(size_line))?;
    let mut tiles = Vec::with_capacity(size * size);
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
    build(board_sides, &tiles)
}

/// Reads a flat list of tiles (see the module documentation), or the tiles as one run of
/// digits with `0` for the blank (`123456780`, up to 10 cells: [`crate::board::compact_tiles`]);
/// `shape` is the board's shape when the user gave one. At most
/// [`crate::shape::MAX_CELLS`] cells ([`parse_flat_any`] reads larger ones too).
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
    narrow(read_flat(text, shape, false)?)
}

/// [`parse_flat`] for boards of any size the assignment allows: without `shape`, a square
/// count or `/`-separated rows of 2 to 127 numbers over 64 cells make a [`WideBoard`].
///
/// # Errors
/// As [`parse_flat`].
pub fn parse_flat_any(text: &str, shape: Option<Shape>) -> Result<AnyBoard, InputError> {
    read_flat(text, shape, true)
}

/// [`parse_flat`], wide boards read when `wide`.
fn read_flat(text: &str, shape: Option<Shape>, wide: bool) -> Result<AnyBoard, InputError> {
    // The tiles as one run of digits (`123456780`), as `analyze --goal` reads them too.
    let text = match crate::board::compact_tiles(text) {
        Some(tiles) => {
            let spaced: Vec<String> = tiles.iter().map(u64::to_string).collect();
            return read_flat(&spaced.join(" "), shape, wide);
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
                let s = sides(r, c, wide).map_err(SidesError::flat)?;
                return build(s, &parse_numbers(text)?);
            }
        }
    }
    let tiles = match parse_numbers(text) {
        Err(BoardError::Empty) => return Err(InputError::Empty),
        other => other?,
    };
    let board_sides = match shape {
        Some(s) => BoardSides::Shape(s),
        None => {
            let side = tiles.len().isqrt();
            if side * side != tiles.len() {
                return Err(InputError::NotSquare(tiles.len()));
            }
            sides(side, side, wide).map_err(SidesError::flat)?
        }
    };
    build(board_sides, &tiles)
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

    /// Issue 62: over 64 cells the `_any` readers give wide boards, the others refuse them as
    /// before; sides over 127 are refused by both.
    #[test]
    fn boards_over_64_cells() {
        let goal_rows = |n: u64| -> Vec<String> {
            (0..n)
                .map(|r| {
                    let row: Vec<String> = (1..=n)
                        .map(|c| ((n * r + c) % (n * n)).to_string())
                        .collect();
                    row.join(" ")
                })
                .collect()
        };
        let text = format!("10\n{}\n", goal_rows(10).join("\n"));
        match parse_assignment_any(&text) {
            Ok(AnyBoard::Wide(w)) => assert!(w.is_goal() && w.cells() == 100),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parse_assignment(&text).unwrap_err().to_string(),
            "line 1: a 10x10 board has 100 cells; at most 64 are supported"
        );
        assert!(matches!(
            parse_assignment_any("3\n1 2 3\n4 5 6\n7 8 0\n"),
            Ok(AnyBoard::Board(_))
        ));
        let flat = goal_rows(9).join(" / ");
        match parse_flat_any(&flat, None) {
            Ok(AnyBoard::Wide(w)) => {
                assert_eq!((w.rows(), w.cols(), w.to_string()), (9, 9, "9x9".into()))
            }
            other => panic!("{other:?}"),
        }
        let any_err = |t: &str| parse_assignment_any(t).unwrap_err().to_string();
        assert_eq!(
            any_err("128\n"),
            "line 1: a 128x128 board is not supported: boards need 2 to 127 rows and columns \
             (the assignment's 2 <= N < 128)"
        );
        let mut rows = goal_rows(9);
        rows[8] = rows[8].replace(" 0", " 80");
        assert_eq!(
            any_err(&format!("9\n{}\n", rows.join("\n"))),
            "tile 80 appears more than once and tile 0 is missing"
        );
        rows[8] = rows[8].replace(" 80", " 81");
        assert_eq!(
            any_err(&format!("9\n{}\n", rows.join("\n"))),
            "tile 81 is out of range for a 9x9 board (tiles are 0 to 80)"
        );
        let long_line: Vec<String> = (1..=130).map(|t| t.to_string()).collect();
        assert_eq!(
            parse_flat_any(
                &format!("{} / {}", long_line.join(" "), long_line.join(" ")),
                None
            )
            .unwrap_err()
            .to_string(),
            "a 2x130 board is not supported: boards need 2 to 127 rows and columns (the \
             assignment's 2 <= N < 128)"
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
