//! Boards: one arrangement of the tiles and the blank on a [`Shape`].
//!
//! Internally a board is a permutation `cells[i] = goal cell of the piece on cell i`: tile `t`
//! (1-based, as printed) is stored as `t - 1` and the blank as `n - 1`. The goal (tiles in
//! order, blank last) is therefore the identity permutation, whose rank is 0.
//!
//! Three outside encodings are read and written:
//! - the **label** of the original R analysis: row-major, tiles `1..n-1`, blank written `n`
//!   (`123456789` is the 3x3 goal); boards of 10 or more cells separate the numbers with `-`
//!   (`1-2-3-4-5-6-7-8-9-10`);
//! - the **tile list** of the 8-puzzle assignment: row-major, `0` is the blank;
//! - the **grid**: one row per line, the blank shown as `.`.

use std::fmt::Write as _;

use crate::rank;
use crate::shape::Shape;

/// `text` (a piece of the user's input) made safe to print in a one-line message: control
/// and invisible characters escaped as Rust does (`\u{1b}`, `\r`, `\u{feff}`), cut after 40
/// characters with `...`, so that no input can move the cursor, clear the terminal or hide.
pub fn quoted(text: &str) -> String {
    let mut out: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    if text.chars().nth(40).is_some() {
        out.push_str("...");
    }
    out
}

/// `text` with its control and invisible characters escaped as Rust does (`\n`, `\u{1b}`,
/// `\u{feff}`) and everything else as it is (quotes, accents, other scripts): a message that
/// names a user's path or value stays one line and cannot drive the terminal.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\'' | '"' | '\\') || c.escape_debug().len() == 1 {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    out
}

/// Errors from reading a board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// Nothing to read.
    #[error("empty board")]
    Empty,
    /// A token that is not a non-negative integer.
    #[error("'{}' is not a tile number", quoted(.0))]
    NotANumber(String),
    /// The wrong number of cells for the shape.
    #[error("expected {expected} numbers for a {shape} board, found {found}")]
    WrongLength {
        /// The board's shape.
        shape: Shape,
        /// `shape.cells()`.
        expected: usize,
        /// Numbers found.
        found: usize,
    },
    /// A number outside the tiles of the shape.
    #[error("tile {tile} is out of range for a {shape} board (tiles are {lo} to {hi})")]
    OutOfRange {
        /// The board's shape.
        shape: Shape,
        /// The offending number.
        tile: u64,
        /// Smallest allowed number.
        lo: u64,
        /// Largest allowed number.
        hi: u64,
    },
    /// A number that appears twice.
    #[error("tile {0} appears more than once")]
    Duplicate(u64),
}

/// One arrangement of the pieces of a [`Shape`]; always a valid permutation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    shape: Shape,
    cells: Vec<u8>,
}

/// Which way the blank moves (a tile slides the opposite way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Blank moves up one row.
    Up,
    /// Blank moves down one row.
    Down,
    /// Blank moves left one column.
    Left,
    /// Blank moves right one column.
    Right,
}

impl Direction {
    /// All four, in the order `U D L R`.
    pub const ALL: [Direction; 4] = [
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];

    /// One letter: `U`, `D`, `L` or `R`.
    pub fn letter(self) -> char {
        match self {
            Direction::Up => 'U',
            Direction::Down => 'D',
            Direction::Left => 'L',
            Direction::Right => 'R',
        }
    }

    /// Its place in [`Direction::ALL`] (`U D L R` = `0 1 2 3`), so that `i ^ 1` is the
    /// opposite move's.
    #[inline(always)]
    pub fn index(self) -> u8 {
        self as u8
    }

    /// The move that undoes this one.
    pub fn opposite(self) -> Direction {
        match self {
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Left => Direction::Right,
            Direction::Right => Direction::Left,
        }
    }

    /// The cell the blank reaches from `cell` on `shape`, or `None` off the board.
    pub fn step(self, shape: Shape, cell: usize) -> Option<usize> {
        self.step_on(shape.rows(), shape.cols(), cell)
    }

    /// The cell the blank reaches from `cell` on a `rows x cols` board (cells numbered
    /// row-major), or `None` off the board: the move rule of every board, those of more
    /// cells than a [`Shape`] holds ([`crate::solve::wide`]) included.
    #[inline]
    pub fn step_on(self, rows: usize, cols: usize, cell: usize) -> Option<usize> {
        let (r, c) = (cell / cols, cell % cols);
        match self {
            Direction::Up => (r > 0).then(|| cell - cols),
            Direction::Down => (r + 1 < rows).then(|| cell + cols),
            Direction::Left => (c > 0).then(|| cell - 1),
            Direction::Right => (c + 1 < cols).then(|| cell + 1),
        }
    }
}

/// Goals for the engine's tests.
#[cfg(test)]
impl Board {
    /// The standard goal of `shape` (at least 2 rows and 2 columns) and a goal of the other
    /// parity class with the blank inside: the first two tiles swapped, and the blank
    /// exchanged with the tile of the second row's second cell.
    pub(crate) fn test_goals(shape: Shape) -> [Board; 2] {
        let mut other = Board::goal(shape).permutation().to_vec();
        other.swap(0, 1);
        other.swap(shape.cells() - 1, shape.cols() + 1);
        [
            Board::goal(shape),
            Board::from_permutation(shape, other).expect("a permutation"),
        ]
    }
}

impl Board {
    /// The goal: tiles `1..n-1` in row-major order, blank in the last cell.
    pub fn goal(shape: Shape) -> Board {
        Board {
            shape,
            cells: (0..shape.cells() as u8).collect(),
        }
    }

    /// A board from its internal permutation (`cells[i]` = goal cell of the piece on cell `i`).
    ///
    /// # Errors
    /// [`BoardError`] unless `cells` is a permutation of `0..shape.cells()`.
    pub fn from_permutation(shape: Shape, cells: Vec<u8>) -> Result<Board, BoardError> {
        let tiles: Vec<u64> = cells.iter().map(|&v| u64::from(v)).collect();
        check_permutation(shape, &tiles, 0)?;
        Ok(Board { shape, cells })
    }

    /// A board from the assignment's tile list: row-major, `0` is the blank.
    ///
    /// # Errors
    /// [`BoardError`] for a wrong count, a number out of `0..n`, or a repeated number.
    pub fn from_tiles(shape: Shape, tiles: &[u64]) -> Result<Board, BoardError> {
        check_permutation(shape, tiles, 0)?;
        let n = shape.cells() as u64;
        let cells = tiles
            .iter()
            .map(|&t| if t == 0 { (n - 1) as u8 } else { (t - 1) as u8 })
            .collect();
        Ok(Board { shape, cells })
    }

    /// Parses whitespace-separated tile numbers (`0` = blank); `/` and `,` may separate rows.
    ///
    /// # Errors
    /// [`BoardError`] as [`Board::from_tiles`], plus [`BoardError::NotANumber`] and
    /// [`BoardError::Empty`].
    pub fn parse_tiles(shape: Shape, text: &str) -> Result<Board, BoardError> {
        let tiles = parse_numbers(text)?;
        Board::from_tiles(shape, &tiles)
    }

    /// Parses an R-analysis label (`123456789`, or `1-2-...-10` from 10 cells on).
    ///
    /// # Errors
    /// [`BoardError`] when the label is not a board of `shape`.
    pub fn from_label(shape: Shape, label: &str) -> Result<Board, BoardError> {
        let n = shape.cells();
        let numbers: Vec<u64> = if n <= 9 {
            label
                .chars()
                .map(|c| {
                    c.to_digit(10)
                        .map(u64::from)
                        .ok_or_else(|| BoardError::NotANumber(c.to_string()))
                })
                .collect::<Result<_, _>>()?
        } else {
            label
                .split('-')
                .map(|t| t.parse().map_err(|_| BoardError::NotANumber(t.to_string())))
                .collect::<Result<_, _>>()?
        };
        if numbers.is_empty() {
            return Err(BoardError::Empty);
        }
        check_permutation(shape, &numbers, 1)?;
        Ok(Board {
            shape,
            cells: numbers.iter().map(|&v| (v - 1) as u8).collect(),
        })
    }

    /// Parses a board in any form the tool prints or reads one: its label (`123456789`, or
    /// `1-2-...-10` from 10 cells on, see [`Board::label`]), its tiles row by row with `0`
    /// or `.` for the blank, separated by spaces, commas, `/` or new lines (the tile list of
    /// the assignment, `1 2 3 / 4 5 6 / 7 8 0`, or the grid of `hardest.txt`), or those tiles
    /// as one run of digits (`123456780`, up to 10 cells: told from a label by its `0`).
    ///
    /// # Errors
    /// [`BoardError`] when the text is neither form of a board of `shape`.
    pub fn parse_any(shape: Shape, text: &str) -> Result<Board, BoardError> {
        let text = text.trim();
        let separated = text.contains(|c: char| c.is_whitespace() || c == '/' || c == ',');
        if let Some(tiles) = compact_tiles(text) {
            return Board::from_tiles(shape, &tiles);
        }
        if !separated && !text.contains('.') {
            return Board::from_label(shape, text);
        }
        let tiles: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == '/' || c == ',')
            .filter(|t| !t.is_empty())
            .map(|t| if t == "." { "0" } else { t })
            .collect();
        Board::parse_tiles(shape, &tiles.join(" "))
    }

    /// The board with lexicographic rank `rank` (`rank < cells!`, at most 20 cells).
    pub fn from_rank(shape: Shape, rank: u64) -> Board {
        let mut cells = vec![0u8; shape.cells()];
        rank::unrank(rank, &mut cells);
        Board { shape, cells }
    }

    /// The board's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The internal permutation: `cells()[i]` is the goal cell of the piece on cell `i`.
    pub fn permutation(&self) -> &[u8] {
        &self.cells
    }

    /// The tile on each cell, row-major, `0` for the blank.
    pub fn tiles(&self) -> impl Iterator<Item = u64> + '_ {
        let blank = (self.cells.len() - 1) as u8;
        self.cells
            .iter()
            .map(move |&v| if v == blank { 0 } else { u64::from(v) + 1 })
    }

    /// The cell holding the blank.
    pub fn blank(&self) -> usize {
        let blank = (self.cells.len() - 1) as u8;
        self.cells.iter().position(|&v| v == blank).unwrap_or(0)
    }

    /// Lexicographic rank (see [`crate::rank`]); boards of at most 20 cells.
    pub fn rank(&self) -> u64 {
        rank::rank(&self.cells)
    }

    /// The R-analysis label (`123456789`; `1-2-...-10` from 10 cells on).
    pub fn label(&self) -> String {
        let mut s = String::with_capacity(self.cells.len() * 3);
        write_label(&self.cells, &mut s);
        s
    }

    /// The tiles row by row, `0` for the blank, rows separated by ` / ` (`1 2 3 / 4 5 6 / 7 8
    /// 0`): as `npuzzle random` and `sample` print boards and `solve --batch` reads them.
    pub fn rows_line(&self) -> String {
        let tiles: Vec<String> = self.tiles().map(|t| t.to_string()).collect();
        let rows: Vec<String> = tiles
            .chunks(self.shape().cols())
            .map(|row| row.join(" "))
            .collect();
        rows.join(" / ")
    }

    /// The board as a grid, one row per line (no trailing newline), numbers right-aligned,
    /// the blank as `.`.
    pub fn grid(&self) -> String {
        write_grid(self.tiles(), self.cells.len(), self.shape.cols())
    }

    /// The board after the blank moves `dir`, or `None` when that leaves the board.
    pub fn moved(&self, dir: Direction) -> Option<Board> {
        let b = self.blank();
        let to = dir.step(self.shape, b)?;
        let mut next = self.clone();
        next.cells.swap(b, to);
        Some(next)
    }

    /// The board after the blank moves to cell `to` of its row or column, sliding the tiles
    /// between one cell each toward where it was (one move in the multi-tile metric, `k` in
    /// the single-tile metric, `k` the distance); `None` when `to` is the blank's own cell,
    /// off the board, or in another row and column.
    pub fn slid(&self, to: usize) -> Option<Board> {
        let b = self.blank();
        let (br, bc) = self.shape.coords(b);
        if to >= self.shape.cells() || to == b {
            return None;
        }
        let (tr, tc) = self.shape.coords(to);
        let dir = match (tr.cmp(&br), tc.cmp(&bc)) {
            (std::cmp::Ordering::Less, std::cmp::Ordering::Equal) => Direction::Up,
            (std::cmp::Ordering::Greater, std::cmp::Ordering::Equal) => Direction::Down,
            (std::cmp::Ordering::Equal, std::cmp::Ordering::Less) => Direction::Left,
            (std::cmp::Ordering::Equal, std::cmp::Ordering::Greater) => Direction::Right,
            _ => return None,
        };
        let mut next = self.clone();
        while next.blank() != to {
            next = next.moved(dir)?;
        }
        Some(next)
    }

    /// Whether the goal can be reached: the permutation's parity must equal the parity of the
    /// blank's Manhattan distance from its goal cell (every move is a transposition that moves
    /// the blank one cell). This is the classic rule: for odd widths, an even number of
    /// inversions among the tiles; for even widths, inversions plus the blank's row from the
    /// bottom must be odd (Johnson & Story 1879; Archer 1999).
    ///
    /// A board one cell wide (`1xN` or `Nx1`) is the exception: its tiles can never change
    /// order, so it is solvable exactly when the tiles, read along the line, are in order.
    pub fn is_solvable(&self) -> bool {
        solvable(self.shape.rows(), self.shape.cols(), &self.cells)
    }
}

/// [`Board::is_solvable`] for the internal permutation `cells` of a `rows x cols` board
/// (pieces named by their goal cell, blank `n - 1`), in bytes or wider
/// ([`crate::solve::wide`]): one rule for every size. Time `O(n)`: the permutation's parity
/// from its cycles (a cycle of length `l` is `l - 1` transpositions), which equals the parity
/// of its inversion count.
pub fn solvable<P: Copy + Into<usize>>(rows: usize, cols: usize, cells: &[P]) -> bool {
    let n = cells.len();
    let blank_piece = n - 1;
    if rows == 1 || cols == 1 {
        let mut tiles = cells
            .iter()
            .map(|&p| p.into())
            .filter(|&v| v != blank_piece);
        let Some(mut last) = tiles.next() else {
            return true;
        };
        return tiles.all(|t| {
            let ordered = last < t;
            last = t;
            ordered
        });
    }
    let mut seen = vec![false; n];
    let mut transpositions = 0usize;
    let mut blank = 0;
    for start in 0..n {
        let piece: usize = cells[start].into();
        if piece == blank_piece {
            blank = start;
        }
        let mut len = 0usize;
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            i = cells[i].into();
            len += 1;
        }
        transpositions += len.saturating_sub(1);
    }
    let (r, c) = (blank / cols, blank % cols);
    let distance = (rows - 1 - r) + (cols - 1 - c);
    transpositions % 2 == distance % 2
}

/// Tiles (row-major, `0` for the blank) of a board of `cells` cells as a grid, `cols` to a
/// row, one row per line (no trailing newline), numbers right-aligned to the width of the
/// largest, the blank as `.`: [`Board::grid`], and the grid of every wider board.
pub fn write_grid(tiles: impl Iterator<Item = u64>, cells: usize, cols: usize) -> String {
    let width = (cells - 1).to_string().len();
    let mut s = String::with_capacity(cells * (width + 1));
    for (i, t) in tiles.enumerate() {
        if i > 0 {
            s.push(if i % cols == 0 { '\n' } else { ' ' });
        }
        if t == 0 {
            let _ = write!(s, "{:>width$}", ".");
        } else {
            let _ = write!(s, "{t:>width$}");
        }
    }
    s
}

/// Appends the R-analysis label of the internal permutation `cells` to `out`.
pub fn write_label(cells: &[u8], out: &mut String) {
    if cells.len() <= 9 {
        out.extend(cells.iter().map(|&v| char::from(b'1' + v)));
    } else {
        for (i, &v) in cells.iter().enumerate() {
            if i > 0 {
                out.push('-');
            }
            let _ = write!(out, "{}", u32::from(v) + 1);
        }
    }
}

/// The tiles of a board written as one run of digits with `0` for the blank (`123456780`,
/// `4 5 0 / 1 2 3` as `450123`): a text of 2 to 10 ASCII digits with a `0` among them (a
/// label has none), or `None` for any other text. Whether they are a board is left to the
/// caller.
pub fn compact_tiles(text: &str) -> Option<Vec<u64>> {
    let text = text.trim();
    ((2..=10).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_digit())
        && text.contains('0'))
    .then(|| text.bytes().map(|b| u64::from(b - b'0')).collect())
}

/// Parses whitespace-, `/`- or `,`-separated non-negative integers.
///
/// # Errors
/// [`BoardError::NotANumber`] for another token, [`BoardError::Empty`] when there is none.
pub fn parse_numbers(text: &str) -> Result<Vec<u64>, BoardError> {
    let numbers = text
        .split(|c: char| c.is_whitespace() || c == '/' || c == ',')
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().map_err(|_| BoardError::NotANumber(t.to_string())))
        .collect::<Result<Vec<u64>, _>>()?;
    if numbers.is_empty() {
        return Err(BoardError::Empty);
    }
    Ok(numbers)
}

/// Checks that `numbers` is a permutation of `lo..lo + n`.
fn check_permutation(shape: Shape, numbers: &[u64], lo: u64) -> Result<(), BoardError> {
    let n = shape.cells();
    if numbers.len() != n {
        return Err(BoardError::WrongLength {
            shape,
            expected: n,
            found: numbers.len(),
        });
    }
    let hi = lo + n as u64 - 1;
    let mut seen = vec![false; n];
    for &t in numbers {
        if t < lo || t > hi {
            return Err(BoardError::OutOfRange {
                shape,
                tile: t,
                lo,
                hi,
            });
        }
        let slot = &mut seen[(t - lo) as usize];
        if *slot {
            return Err(BoardError::Duplicate(t));
        }
        *slot = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    #[test]
    fn encodings_round_trip() {
        let b = Board::parse_tiles(s(3, 3), "8 6 7 / 2 5 4 / 3 0 1").unwrap();
        assert_eq!(b.label(), "867254391");
        assert_eq!(Board::from_label(s(3, 3), "867254391").unwrap(), b);
        assert_eq!(b.grid(), "8 6 7\n2 5 4\n3 . 1");
        assert_eq!(b.blank(), 7);
        assert_eq!(Board::from_rank(s(3, 3), b.rank()), b);
        assert_eq!(Board::goal(s(3, 3)).label(), "123456789");
        assert_eq!(Board::goal(s(2, 5)).label(), "1-2-3-4-5-6-7-8-9-10");
        let wide = Board::from_label(s(2, 5), "1-2-3-4-5-6-7-8-10-9").unwrap();
        assert_eq!(wide.grid(), "1 2 3 4 5\n6 7 8 . 9");
        let big = Board::goal(s(3, 4));
        assert_eq!(big.grid(), " 1  2  3  4\n 5  6  7  8\n 9 10 11  .");
    }

    #[test]
    fn every_printed_form_parses() {
        let shape = s(3, 3);
        let want = Board::parse_tiles(shape, "1 2 3 4 0 5 6 7 8").unwrap();
        for text in [
            "123495678",
            "1 2 3 4 0 5 6 7 8",
            "1 2 3 / 4 0 5 / 6 7 8",
            "1,2,3,4,0,5,6,7,8",
            "1 2 3\n4 . 5\n6 7 8\n",
        ] {
            assert_eq!(Board::parse_any(shape, text), Ok(want.clone()), "{text:?}");
        }
        let big = Board::goal(s(2, 5));
        assert_eq!(Board::parse_any(s(2, 5), &big.label()), Ok(big.clone()));
        assert_eq!(Board::parse_any(s(2, 5), &big.grid()), Ok(big));
        assert!(Board::parse_any(shape, "12345678").is_err());
        assert!(Board::parse_any(shape, "1 2 3 4 . 5 6 7 7").is_err());
    }

    #[test]
    fn bad_boards_are_rejected() {
        let sh = s(3, 3);
        assert_eq!(Board::parse_tiles(sh, ""), Err(BoardError::Empty));
        assert!(matches!(
            Board::parse_tiles(sh, "1 2 3"),
            Err(BoardError::WrongLength { found: 3, .. })
        ));
        assert_eq!(
            Board::parse_tiles(sh, "1 1 2 3 4 5 6 7 8"),
            Err(BoardError::Duplicate(1))
        );
        assert!(matches!(
            Board::parse_tiles(sh, "0 1 2 3 4 5 6 7 9"),
            Err(BoardError::OutOfRange { tile: 9, .. })
        ));
        assert_eq!(
            Board::parse_tiles(sh, "0 1 2 x 4 5 6 7 8"),
            Err(BoardError::NotANumber("x".into()))
        );
        assert!(Board::from_label(sh, "123456780").is_err());
    }

    #[test]
    fn solvability_follows_parity() {
        // The two 3x3 antipodes (OEIS A089473) are solvable; swapping two tiles is not.
        for t in ["8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1"] {
            assert!(Board::parse_tiles(s(3, 3), t).unwrap().is_solvable());
        }
        assert!(
            !Board::parse_tiles(s(3, 3), "2 1 3 4 5 6 7 8 0")
                .unwrap()
                .is_solvable()
        );
        // 15-puzzle: Loyd's 14-15 swap is unsolvable.
        let loyd = "1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0";
        assert!(!Board::parse_tiles(s(4, 4), loyd).unwrap().is_solvable());
        // A line board: tiles never change order; parity alone would accept 1x4 `3 1 2 0`.
        let line = |r, c, tiles| Board::parse_tiles(s(r, c), tiles).unwrap().is_solvable();
        assert!(line(1, 4, "1 0 2 3"));
        assert!(!line(1, 4, "3 1 2 0"));
        assert!(!line(4, 1, "2 1 0 3"));
        // A blank move keeps solvability.
        let g = Board::goal(s(4, 4));
        assert!(g.moved(Direction::Up).unwrap().is_solvable());
        assert!(g.moved(Direction::Down).is_none());
    }
}
