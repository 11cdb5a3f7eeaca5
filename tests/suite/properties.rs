//! Issue 14 (hardening): property tests of the board parsers and of the solvers.
//!
//! (a) Parsers (`npuzzle::Board`'s `parse_tiles`, `from_label`, `parse_any`, `from_tiles`,
//! and `npuzzle::solve::input`'s `parse_assignment` and `parse_flat`): every permutation of
//! a small shape, written in every accepted form by this file's own writers, reads back as
//! itself; any text at all gives either a valid board (a permutation of the right shape that
//! survives re-rendering and re-parsing) or a one-line error, never a panic.
//!
//! (b) Solvers (`npuzzle::solve`): on random boards of 2x2, 2x3, 3x2 and 3x3, every method
//! returns a solution whose length is the exact distance found by this file's own BFS over
//! the whole state space, and which replays to the goal; a board the BFS cannot reach is
//! reported unsolvable by every method, by the exact table and by `is_solvable`.
//!
//! Case counts are kept small (256 parser cases, 128 solver cases) so that the file runs in
//! seconds.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use npuzzle::analysis::depth_table;
use npuzzle::solve::domain::MtmDatabases;
use npuzzle::solve::exact::{ExactError, ExactTable, UNREACHABLE};
use npuzzle::solve::input::{InputError, parse_assignment, parse_flat};
use npuzzle::solve::pdb::{Partition, PatternDatabases};
use npuzzle::solve::walking::WalkingDistance;
use npuzzle::solve::{self, Algorithm, Heuristic, HeuristicKind, Limits, SolveError};
use npuzzle::{Board, Direction, Metric, NoProgress, Shape};
use proptest::prelude::*;
use proptest::sample::select;

/// Shapes whose boards the parsers are tried on: up to 3x3 and 2x4, lines, and 2x5 for the
/// dashed labels of 10 cells and more.
const PARSE_SHAPES: [(usize, usize); 11] = [
    (1, 2),
    (1, 4),
    (3, 1),
    (2, 2),
    (2, 3),
    (3, 2),
    (3, 3),
    (2, 4),
    (4, 2),
    (2, 5),
    (5, 2),
];

/// Shapes the solvers are tried on.
const SOLVE_SHAPES: [(usize, usize); 4] = [(2, 2), (2, 3), (3, 2), (3, 3)];

fn shape(r: usize, c: usize) -> Shape {
    Shape::new(r, c).unwrap()
}

/// A shape of `shapes` and a uniformly shuffled tile list `0..n` (`0` = blank), row-major.
fn tiles_of(shapes: &'static [(usize, usize)]) -> impl Strategy<Value = (Shape, Vec<u64>)> {
    select(shapes).prop_flat_map(|(r, c)| {
        let s = shape(r, c);
        Just((0..s.cells() as u64).collect::<Vec<u64>>())
            .prop_shuffle()
            .prop_map(move |tiles| (s, tiles))
    })
}

// ---------------------------------------------------------------------------------------
// This file's own writers of the accepted forms (README "Input", src/board.rs docs).
// ---------------------------------------------------------------------------------------

/// The R-analysis label: tiles `1..n-1`, blank written `n`; digits run together up to 9
/// cells, `-`-separated numbers from 10 cells on.
fn label_of(tiles: &[u64]) -> String {
    let n = tiles.len() as u64;
    let names: Vec<String> = tiles
        .iter()
        .map(|&t| if t == 0 { n } else { t }.to_string())
        .collect();
    names.join(if n <= 9 { "" } else { "-" })
}

/// The tiles as rows of `cols` numbers, each row's numbers joined by `within`, the rows by
/// `between`; the blank written as `blank`.
fn rows_of(tiles: &[u64], cols: usize, within: &str, between: &str, blank: &str) -> String {
    tiles
        .chunks(cols)
        .map(|row| {
            row.iter()
                .map(|&t| {
                    if t == 0 {
                        blank.to_string()
                    } else {
                        t.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(within)
        })
        .collect::<Vec<_>>()
        .join(between)
}

/// The tiles joined by the separators `seps` (cycled), e.g. `1,2 3\t0`.
fn list_of(tiles: &[u64], seps: &[&str]) -> String {
    let mut s = String::new();
    for (i, t) in tiles.iter().enumerate() {
        if i > 0 {
            s.push_str(seps[i % seps.len()]);
        }
        s.push_str(&t.to_string());
    }
    s
}

/// The assignment's file format: `N`, then `N` rows of `N` numbers; `eol` ends each line and
/// `pad` comes before every line (blank lines are allowed and ignored).
fn assignment_of(tiles: &[u64], n: usize, eol: &str, pad: &str, blank_lines: bool) -> String {
    let mut s = format!("{pad}{n}{eol}");
    if blank_lines {
        s.push_str(eol);
    }
    for row in tiles.chunks(n) {
        s.push_str(pad);
        s.push_str(&list_of(row, &[" ", "  ", "\t"]));
        s.push_str(eol);
        if blank_lines {
            s.push_str(&format!("{pad}{eol}"));
        }
    }
    s
}

/// The board the library should read for `tiles`: checked against the documented internal
/// encoding (`permutation()[i]` = `t - 1` for tile `t`, `n - 1` for the blank) and the tile
/// order, so that the round trips below do not only compare the library with itself.
fn expected(s: Shape, tiles: &[u64]) -> Board {
    let board = Board::from_tiles(s, tiles).unwrap();
    let n = tiles.len() as u64;
    let want: Vec<u8> = tiles
        .iter()
        .map(|&t| if t == 0 { n - 1 } else { t - 1 } as u8)
        .collect();
    assert_eq!(board.permutation(), want.as_slice());
    assert_eq!(board.tiles().collect::<Vec<_>>(), tiles);
    assert_eq!(board.blank(), tiles.iter().position(|&t| t == 0).unwrap());
    assert_eq!(board.shape(), s);
    board
}

/// `board` is a valid board of `s` (a permutation of `0..n`), and every form the library
/// writes reads back as the same board.
fn assert_valid(board: &Board, s: Shape) -> Result<(), TestCaseError> {
    prop_assert_eq!(board.shape(), s);
    let mut cells = board.permutation().to_vec();
    cells.sort_unstable();
    prop_assert_eq!(cells, (0..s.cells() as u8).collect::<Vec<u8>>());
    let again = |text: &str| Board::parse_any(s, text);
    prop_assert_eq!(again(&board.label()), Ok(board.clone()));
    prop_assert_eq!(again(&board.grid()), Ok(board.clone()));
    let tiles: Vec<u64> = board.tiles().collect();
    prop_assert_eq!(
        Board::parse_tiles(s, &list_of(&tiles, &[" "])),
        Ok(board.clone())
    );
    prop_assert_eq!(Board::from_label(s, &board.label()), Ok(board.clone()));
    prop_assert_eq!(
        parse_flat(&list_of(&tiles, &[","]), Some(s)),
        Ok(board.clone())
    );
    Ok(())
}

/// An error message is one line with no raw control character (issue 14: input quoted in
/// messages is escaped).
fn assert_one_line(message: &str) -> Result<(), TestCaseError> {
    prop_assert!(!message.is_empty());
    prop_assert!(
        !message.chars().any(char::is_control),
        "raw control character in {:?}",
        message
    );
    Ok(())
}

/// Any text: strings of every character, near-board alphabets, and valid boards with one
/// character inserted, deleted or replaced.
fn any_text() -> impl Strategy<Value = String> {
    let mutated = (
        tiles_of(&PARSE_SHAPES),
        any::<prop::sample::Index>(),
        0..3u8,
        any::<char>(),
    )
        .prop_map(|((s, tiles), at, op, c)| {
            let mut chars: Vec<char> = if s.cells() % 2 == 0 {
                rows_of(&tiles, s.cols(), " ", " / ", "0").chars().collect()
            } else {
                assignment_of(&tiles, s.cols(), "\n", "", false)
                    .chars()
                    .collect()
            };
            let i = at.index(chars.len());
            match op {
                0 => chars.insert(i, c),
                1 => {
                    chars.remove(i);
                }
                _ => chars[i] = c,
            }
            chars.into_iter().collect()
        });
    prop_oneof![
        any::<String>(),
        "\\PC{0,60}",
        "[0-9 ./,\n\r\t-]{0,40}",
        "[0-3]{1,2}\n[0-3 ,]{0,12}\n[0-3 ]{0,12}\n?",
        mutated,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every form a board can be written in reads back as that board: the tile list (any
    /// separators: spaces, tabs, commas, new lines, `/`), `/`-separated rows (which give the
    /// shape), the grid with `.` for the blank (the library's aligned one and an unaligned
    /// one), the label, and for square boards the assignment's file format (blank lines,
    /// indentation, CRLF line ends).
    #[test]
    fn every_written_form_reads_back(
        (s, tiles) in tiles_of(&PARSE_SHAPES),
        seps in prop::collection::vec(
            select(&[" ", "  ", ",", ", ", "\t", "\n", " / ", "/"][..]),
            1..4,
        ),
        pad in select(&["", " ", "\t", "\n"][..]),
        eol in select(&["\n", "\r\n"][..]),
        blank_lines in any::<bool>(),
    ) {
        let board = expected(s, &tiles);
        let list = format!("{pad}{}{pad}", list_of(&tiles, &seps));
        prop_assert_eq!(Board::parse_tiles(s, &list), Ok(board.clone()), "{:?}", list);
        prop_assert_eq!(Board::parse_any(s, &list), Ok(board.clone()), "{:?}", list);
        // A flat list without `/`: the shape given, or a square inferred from the count.
        let flat = list_of(&tiles, &[" ", ",", "\t"]);
        prop_assert_eq!(parse_flat(&flat, Some(s)), Ok(board.clone()));
        if s.rows() == s.cols() {
            prop_assert_eq!(parse_flat(&flat, None), Ok(board.clone()));
        }
        // Rows separated by `/` give the shape.
        let rows = rows_of(&tiles, s.cols(), " ", " / ", "0");
        prop_assert_eq!(parse_flat(&rows, Some(s)), Ok(board.clone()), "{:?}", rows);
        if s.rows() > 1 {
            prop_assert_eq!(parse_flat(&rows, None), Ok(board.clone()), "{:?}", rows);
        }
        // Grids: the library's own, and one written here (unaligned, `.` for the blank).
        let grid = rows_of(&tiles, s.cols(), " ", eol, ".");
        prop_assert_eq!(Board::parse_any(s, &grid), Ok(board.clone()), "{:?}", grid);
        prop_assert_eq!(Board::parse_any(s, &board.grid()), Ok(board.clone()));
        // Labels: written here, equal to the library's, read by both readers.
        let label = label_of(&tiles);
        prop_assert_eq!(board.label(), label.clone());
        prop_assert_eq!(Board::from_label(s, &label), Ok(board.clone()));
        prop_assert_eq!(Board::parse_any(s, &format!("{pad}{label}{pad}")), Ok(board.clone()));
        // The assignment's file format, square boards only.
        if s.rows() == s.cols() {
            let text = assignment_of(&tiles, s.rows(), eol, pad.trim_matches('\n'), blank_lines);
            prop_assert_eq!(parse_assignment(&text), Ok(board.clone()), "{:?}", text);
        }
        assert_valid(&board, s)?;
    }

    /// Any text at all: every parser returns a valid board or a one-line error, and never
    /// panics. A board that is accepted is a permutation of the right shape and survives
    /// re-rendering and re-parsing.
    #[test]
    fn any_text_gives_a_valid_board_or_an_error(
        text in any_text(),
        (r, c) in select(&PARSE_SHAPES[..]),
    ) {
        let s = shape(r, c);
        for parsed in [
            Board::parse_tiles(s, &text),
            Board::from_label(s, &text),
            Board::parse_any(s, &text),
        ] {
            match parsed {
                Ok(board) => assert_valid(&board, s)?,
                Err(e) => assert_one_line(&e.to_string())?,
            }
        }
        for parsed in [
            parse_flat(&text, Some(s)),
            parse_flat(&text, None),
            parse_assignment(&text),
        ] {
            match parsed {
                Ok(board) => {
                    let got = board.shape();
                    assert_valid(&board, got)?;
                    // The numbers read are exactly the board's tiles: one a number, or one a
                    // digit when the board is written as one run of digits (`01`, `123456780`).
                    let numbers = npuzzle::board::parse_numbers(&text).unwrap();
                    let tiles: Vec<u64> = board.tiles().collect();
                    let digits = npuzzle::board::compact_tiles(&text);
                    if numbers.len() == tiles.len() {
                        prop_assert_eq!(numbers, tiles);
                    } else if let Some(digits) = digits.filter(|d| d.len() == tiles.len()) {
                        prop_assert_eq!(numbers.len(), 1);
                        prop_assert_eq!(digits, tiles);
                    } else {
                        // The assignment format: the size line, then the tiles.
                        prop_assert_eq!(numbers.len(), tiles.len() + 1);
                        prop_assert_eq!(numbers[0] as usize, got.rows());
                        prop_assert_eq!(got.rows(), got.cols());
                        prop_assert_eq!(&numbers[1..], tiles.as_slice());
                    }
                }
                Err(e) => assert_one_line(&e.to_string())?,
            }
        }
    }

    /// A tile list that is not a permutation (one tile written over another, which is then
    /// missing) is refused, and the assignment format names the repeated and the missing
    /// tile.
    #[test]
    fn a_repeated_tile_is_refused(
        (s, tiles) in tiles_of(&SOLVE_SHAPES),
        from in any::<prop::sample::Index>(),
        to in any::<prop::sample::Index>(),
    ) {
        let (i, j) = (from.index(tiles.len()), to.index(tiles.len()));
        prop_assume!(i != j);
        let mut bad = tiles.clone();
        bad[j] = tiles[i];
        let text = list_of(&bad, &[" "]);
        prop_assert!(Board::parse_tiles(s, &text).is_err());
        prop_assert!(Board::parse_any(s, &text).is_err());
        prop_assert!(Board::from_tiles(s, &bad).is_err());
        if s.rows() == s.cols() {
            let file = assignment_of(&bad, s.rows(), "\n", "", false);
            prop_assert_eq!(
                parse_assignment(&file),
                Err(InputError::Repeated { tile: tiles[i], missing: tiles[j] })
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// (b) Solvers against this file's own BFS.
// ---------------------------------------------------------------------------------------

/// Boards (tile lists, `0` = blank) and their distance to the goal.
type Depths = Arc<HashMap<Vec<u8>, u8>>;

/// The distance to the goal of every board of `(rows, cols)` the goal reaches, by a plain BFS
/// written here (boards as tile lists, `0` = blank), independent of the library's engine.
/// Cached per shape.
fn oracle(rows: usize, cols: usize) -> Depths {
    oracle_in(rows, cols, false)
}

/// As [`oracle`], in the multi-tile metric when `multi` (a move: the blank passes 1 to `k`
/// tiles of its row or column, each sliding one cell).
fn oracle_in(rows: usize, cols: usize, multi: bool) -> Depths {
    type Cache = Mutex<HashMap<(usize, usize, bool), Depths>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(d) = cache.lock().unwrap().get(&(rows, cols, multi)) {
        return d.clone();
    }
    let n = rows * cols;
    let goal: Vec<u8> = (1..n as u8).chain([0]).collect();
    let mut depth = HashMap::from([(goal.clone(), 0u8)]);
    let mut queue = VecDeque::from([goal]);
    while let Some(board) = queue.pop_front() {
        let d = depth[&board];
        let blank = board.iter().position(|&t| t == 0).unwrap();
        let (r, c) = (blank / cols, blank % cols);
        // Each direction: how far the blank may go, and its step.
        let reach = |room: usize| if multi { room } else { room.min(1) };
        let ways = [
            (reach(r), -(cols as isize)),
            (reach(rows - 1 - r), cols as isize),
            (reach(c), -1),
            (reach(cols - 1 - c), 1),
        ];
        for (room, step) in ways {
            let mut child = board.clone();
            let mut at = blank;
            for _ in 0..room {
                let to = at.checked_add_signed(step).unwrap();
                child.swap(at, to);
                at = to;
                if !depth.contains_key(&child) {
                    depth.insert(child.clone(), d + 1);
                    queue.push_back(child.clone());
                }
            }
        }
    }
    let depth = Arc::new(depth);
    cache
        .lock()
        .unwrap()
        .insert((rows, cols, multi), depth.clone());
    depth
}

/// How many boards are at each depth.
fn histogram(depths: &HashMap<Vec<u8>, u8>) -> Vec<u64> {
    let max = *depths.values().max().unwrap() as usize;
    let mut h = vec![0u64; max + 1];
    for &d in depths.values() {
        h[d as usize] += 1;
    }
    h
}

/// The oracle is right where published figures exist: the 3x3 depth distribution is OEIS
/// A089473 (181,440 boards, radius 31, 2 antipodes; Reinefeld 1993), the 2x2 puzzle has 12
/// reachable boards and radius 6, and 2x3 has 360 with radius 21 and one antipode
/// (`4 5 . / 1 2 3`, the README's `output/examples/2x3`).
#[test]
fn oracle_matches_published_counts() {
    use npuzzle::published::A089473;
    let h33 = histogram(&oracle(3, 3));
    assert_eq!(h33, A089473);
    // The oracle's own figures, against the published ones (not the constant against itself):
    // 9!/2 boards, radius 31 (Reinefeld 1993), 2 antipodes.
    assert_eq!(
        (h33.iter().sum::<u64>(), h33.len() - 1, h33[31]),
        (181_440, 31, 2)
    );
    assert_eq!(histogram(&oracle(2, 2)), [1, 2, 2, 2, 2, 2, 1]);
    let h23 = histogram(&oracle(2, 3));
    assert_eq!((h23.iter().sum::<u64>(), h23.len() - 1), (360, 21));
    assert_eq!(h23[21], 1);
    assert_eq!(oracle(2, 3)[&vec![4, 5, 0, 1, 2, 3]], 21);
    // 3x2 is 2x3 transposed: the same distribution.
    assert_eq!(histogram(&oracle(3, 2)), h23);
}

/// The library's exact table (`analyze`'s BFS, `npuzzle::analysis::depth_table`) equals the
/// oracle on every board of the small shapes, unreachable boards included.
#[test]
fn depth_table_equals_the_oracle_on_every_small_board() {
    for (r, c) in [(2, 2), (2, 3), (3, 2), (1, 4)] {
        let s = shape(r, c);
        let table = depth_table(s, Metric::Stm, &NoProgress).unwrap();
        let depths = oracle(r, c);
        assert_eq!(table.len() as u64, s.board_count().unwrap());
        for (rank, &d) in table.iter().enumerate() {
            let board = Board::from_rank(s, rank as u64);
            let tiles: Vec<u8> = board.tiles().map(|t| t as u8).collect();
            let want = depths.get(&tiles).copied().unwrap_or(UNREACHABLE);
            assert_eq!(d, want, "{s} board {}", board.label());
            assert_eq!(
                board.is_solvable(),
                want != UNREACHABLE,
                "{s} {}",
                board.label()
            );
        }
    }
}

/// Every method the library offers for `s`, prepared once per shape: BFS, UCS, and A* and
/// IDA* with each heuristic (Hamming only up to 6 cells: on 3x3 it costs millions of
/// expansions); the exact table alongside.
fn methods(s: Shape) -> (Vec<(Algorithm, Heuristic)>, Arc<ExactTable>) {
    type Prepared = (Vec<(Algorithm, Heuristic)>, Arc<ExactTable>);
    static CACHE: OnceLock<Mutex<HashMap<Shape, Prepared>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(m) = cache.lock().unwrap().get(&s) {
        return m.clone();
    }
    let table =
        Arc::new(ExactTable::new(s, depth_table(s, Metric::Stm, &NoProgress).unwrap()).unwrap());
    let partition = Partition::named(s, "default").unwrap();
    let pdb = Arc::new(PatternDatabases::build(&partition, &NoProgress).unwrap());
    let wd = WalkingDistance::new(s, Metric::Stm).unwrap();
    let mut heuristics = vec![
        Heuristic::manhattan(s),
        Heuristic::linear_conflict(s),
        Heuristic::walking_distance(Arc::new(wd)),
        Heuristic::pdb(pdb),
        Heuristic::exact(table.clone()),
    ];
    if s.cells() <= 6 {
        heuristics.push(Heuristic::hamming(s));
    }
    let mut list = vec![
        (Algorithm::Bfs, Heuristic::hamming(s)),
        (Algorithm::Ucs, Heuristic::hamming(s)),
    ];
    for algorithm in [Algorithm::AStar, Algorithm::IdaStar] {
        for h in &heuristics {
            list.push((algorithm, h.clone()));
        }
    }
    let prepared = (list, table);
    cache.lock().unwrap().insert(s, prepared.clone());
    prepared
}

/// `tiles` after the blank's `moves`, applied here (not by the library), or `None` when a
/// move leaves the board.
fn replay_here(tiles: &[u64], cols: usize, moves: &[Direction]) -> Option<Vec<u64>> {
    let rows = tiles.len() / cols;
    let mut t = tiles.to_vec();
    for m in moves {
        let b = t.iter().position(|&x| x == 0)?;
        let (r, c) = (b / cols, b % cols);
        let to = match m {
            Direction::Up if r > 0 => b - cols,
            Direction::Down if r + 1 < rows => b + cols,
            Direction::Left if c > 0 => b - 1,
            Direction::Right if c + 1 < cols => b + 1,
            _ => return None,
        };
        t.swap(b, to);
    }
    Some(t)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// On a random board (uniform over all permutations, so half of them unsolvable): a
    /// solvable board gets, from every method, a solution of exactly the oracle's length
    /// that replays to the goal, and every heuristic is at most that length (admissible);
    /// an unsolvable board is recognised by every method, the exact table and
    /// `is_solvable`.
    #[test]
    fn solutions_are_optimal_and_unsolvable_boards_are_recognised(
        (s, tiles) in tiles_of(&SOLVE_SHAPES),
    ) {
        let board = Board::from_tiles(s, &tiles).unwrap();
        let key: Vec<u8> = tiles.iter().map(|&t| t as u8).collect();
        let depth = oracle(s.rows(), s.cols()).get(&key).copied();
        let (list, table) = methods(s);
        let goal: Vec<u64> = (1..s.cells() as u64).chain([0]).collect();
        prop_assert_eq!(board.is_solvable(), depth.is_some());
        prop_assert_eq!(table.depth(&board), depth);
        match depth {
            Some(d) => {
                let walk = table.solve(&board).unwrap();
                prop_assert_eq!(walk.len(), d as usize);
                prop_assert_eq!(replay_here(&tiles, s.cols(), &walk), Some(goal.clone()));
                for (algorithm, h) in &list {
                    let method = format!("{algorithm} + {:?}", h.kind());
                    prop_assert!(h.estimate(&board) <= u32::from(d), "{} overestimates", method);
                    let solution = solve::solve(&board, Metric::Stm, *algorithm, h, &Limits::NONE)
                        .map_err(|e| TestCaseError::fail(format!("{method}: {e}")))?;
                    prop_assert_eq!(solution.moves.len(), d as usize, "{}", method);
                    prop_assert_eq!(
                        solve::replay(&board, &solution.moves),
                        Some(Board::goal(s)),
                        "{}", method
                    );
                    prop_assert_eq!(
                        replay_here(&tiles, s.cols(), &solution.moves),
                        Some(goal.clone()),
                        "{}", method
                    );
                }
                // The exact heuristic is the distance itself.
                let exact = list.iter().find(|(_, h)| h.kind() == HeuristicKind::Exact).unwrap();
                prop_assert_eq!(exact.1.estimate(&board), u32::from(d));
            }
            None => {
                prop_assert_eq!(table.solve(&board), Err(ExactError::Unreachable));
                for (algorithm, h) in &list {
                    prop_assert_eq!(
                        solve::solve(&board, Metric::Stm, *algorithm, h, &Limits::NONE),
                        Err(SolveError::Unsolvable),
                        "{} + {:?}", algorithm, h.kind()
                    );
                }
            }
        }
    }
}

/// The multi-tile metric's methods for `s`: BFS, UCS, and A* and IDA* with walking distance,
/// the MTM pattern databases and the MTM exact table (the heuristics admissible in MTM).
fn mtm_methods(s: Shape) -> Vec<(Algorithm, Heuristic)> {
    type Cache = Mutex<HashMap<Shape, Vec<(Algorithm, Heuristic)>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(m) = cache.lock().unwrap().get(&s) {
        return m.clone();
    }
    let depths = depth_table(s, Metric::Mtm, &NoProgress).unwrap();
    let table = ExactTable::with_metric(s, Metric::Mtm, depths).unwrap();
    let databases = MtmDatabases::build(s, &NoProgress).unwrap();
    let heuristics = [
        Heuristic::walking_distance(Arc::new(WalkingDistance::new(s, Metric::Mtm).unwrap())),
        Heuristic::mtm_pdb(Arc::new(databases)),
        Heuristic::exact(Arc::new(table)),
    ];
    let mut list = vec![
        (Algorithm::Bfs, heuristics[0].clone()),
        (Algorithm::Ucs, heuristics[0].clone()),
    ];
    for algorithm in [Algorithm::AStar, Algorithm::IdaStar] {
        for h in &heuristics {
            list.push((algorithm, h.clone()));
        }
    }
    cache.lock().unwrap().insert(s, list.clone());
    list
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// `solve --metric mtm` against this file's own MTM BFS (issue 24): on a random board of
    /// up to 9 cells every MTM method finds a solution of exactly the oracle's MTM length,
    /// made of moves along alternating axes, that replays to the goal; its heuristics never
    /// overestimate; STM heuristics are refused; an unsolvable board is recognised.
    #[test]
    fn mtm_solutions_are_optimal((s, tiles) in tiles_of(&SOLVE_SHAPES)) {
        let board = Board::from_tiles(s, &tiles).unwrap();
        let key: Vec<u8> = tiles.iter().map(|&t| t as u8).collect();
        let depth = oracle_in(s.rows(), s.cols(), true).get(&key).copied();
        let stm = oracle(s.rows(), s.cols()).get(&key).copied();
        let goal: Vec<u64> = (1..s.cells() as u64).chain([0]).collect();
        prop_assert_eq!(board.is_solvable(), depth.is_some());
        for (algorithm, h) in mtm_methods(s) {
            let result = solve::solve(&board, Metric::Mtm, algorithm, &h, &Limits::NONE);
            let Some(d) = depth else {
                prop_assert_eq!(result, Err(SolveError::Unsolvable));
                continue;
            };
            let method = format!("{algorithm} + {:?}", h.kind());
            let solution = result.map_err(|e| TestCaseError::fail(format!("{method}: {e}")))?;
            prop_assert_eq!(solution.length(), d as usize, "{}", method);
            prop_assert!(d <= stm.unwrap());
            prop_assert_eq!(solution.notation(" ").split(' ').filter(|w| !w.is_empty()).count(), d as usize);
            prop_assert_eq!(replay_here(&tiles, s.cols(), &solution.moves), Some(goal.clone()));
            prop_assert!(h.estimate(&board) <= u32::from(d), "{} overestimates", method);
        }
        let manhattan = Heuristic::manhattan(s);
        let refused = solve::solve(&board, Metric::Mtm, Algorithm::IdaStar, &manhattan, &Limits::NONE);
        prop_assert!(matches!(refused, Err(SolveError::MetricMismatch { .. })), "{:?}", refused);
    }
}
