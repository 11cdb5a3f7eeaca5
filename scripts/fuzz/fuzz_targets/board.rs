//! Fuzzes every public board parser with arbitrary text (issue 14).
//!
//! The first byte picks the shape (rows `1 + (b & 7)`, columns `1 + (b >> 3 & 7)`: every
//! shape up to 8x8, 1x1 included, which the parsers must refuse); the rest, read as UTF-8
//! (invalid bytes replaced), is given to `Board::parse_tiles`, `Board::from_label`,
//! `Board::parse_any`, `board::parse_numbers` (and `Board::from_tiles` on its numbers),
//! `solve::input::parse_flat` with and without the shape, and `solve::input::parse_assignment`.
//!
//! Whatever they return: an accepted board is a permutation of `0..n` of the right shape
//! (the one asked for, or the one the text gives), and every form the library writes (label,
//! grid, tile list, the assignment format for square boards, the rank up to 20 cells) reads
//! back as the same board; a refusal is a one-line message with no raw control character.
//! No parser may panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use npuzzle::board::parse_numbers;
use npuzzle::solve::input::{parse_assignment, parse_flat};
use npuzzle::{Board, Shape};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let shape = Shape::new(1 + usize::from(first & 7), 1 + usize::from(first >> 3 & 7));

    let numbers = parse_numbers(&text);
    match &numbers {
        Ok(list) => assert!(!list.is_empty(), "parse_numbers: Ok(empty) for {text:?}"),
        Err(e) => one_line(&e.to_string(), "parse_numbers", &text),
    }

    if let Ok(shape) = shape {
        for (name, parsed) in [
            ("parse_tiles", Board::parse_tiles(shape, &text)),
            ("from_label", Board::from_label(shape, &text)),
            ("parse_any", Board::parse_any(shape, &text)),
        ] {
            match parsed {
                Ok(board) => check(&board, shape, name, &text),
                Err(e) => one_line(&e.to_string(), name, &text),
            }
        }
        if let Ok(list) = &numbers {
            match Board::from_tiles(shape, list) {
                Ok(board) => {
                    check(&board, shape, "from_tiles", &text);
                    assert_eq!(board.tiles().collect::<Vec<_>>(), *list);
                    // The tile list is what parse_tiles reads, separators aside.
                    assert_eq!(Board::parse_tiles(shape, &text), Ok(board));
                }
                Err(e) => one_line(&e.to_string(), "from_tiles", &text),
            }
        }
        match parse_flat(&text, Some(shape)) {
            Ok(board) => check(&board, shape, "parse_flat(shape)", &text),
            Err(e) => one_line(&e.to_string(), "parse_flat(shape)", &text),
        }
    }
    for (name, parsed) in [
        ("parse_flat", parse_flat(&text, None)),
        ("parse_assignment", parse_assignment(&text)),
    ] {
        match parsed {
            Ok(board) => {
                check(&board, board.shape(), name, &text);
                // The numbers read are the board's tiles (after the size line for the
                // assignment format).
                let list = numbers.clone().expect("a board was read, so numbers were");
                let tiles: Vec<u64> = board.tiles().collect();
                let skip = list.len() - tiles.len();
                assert!(
                    skip <= 1,
                    "{name}: {} numbers for {} tiles",
                    list.len(),
                    tiles.len()
                );
                assert_eq!(&list[skip..], tiles.as_slice(), "{name}: {text:?}");
                if skip == 1 {
                    assert_eq!(list[0] as usize, board.shape().rows());
                    assert_eq!(board.shape().rows(), board.shape().cols());
                }
            }
            Err(e) => one_line(&e.to_string(), name, &text),
        }
    }
});

/// `board` is a permutation of the cells of `shape`, and re-renders and re-parses to itself.
fn check(board: &Board, shape: Shape, name: &str, text: &str) {
    assert_eq!(board.shape(), shape, "{name}: wrong shape for {text:?}");
    let n = shape.cells();
    let mut cells = board.permutation().to_vec();
    cells.sort_unstable();
    assert!(
        cells.iter().copied().eq(0..n as u8),
        "{name}: not a permutation for {text:?}: {:?}",
        board.permutation()
    );
    let same = |form: &str, again: Result<Board, String>| {
        assert_eq!(again.as_ref(), Ok(board), "{name} -> {form} of {text:?}");
    };
    let label = board.label();
    same(
        "label",
        Board::from_label(shape, &label).map_err(|e| e.to_string()),
    );
    same(
        "label/any",
        Board::parse_any(shape, &label).map_err(|e| e.to_string()),
    );
    same(
        "grid",
        Board::parse_any(shape, &board.grid()).map_err(|e| e.to_string()),
    );
    let tiles: Vec<String> = board.tiles().map(|t| t.to_string()).collect();
    let list = tiles.join(" ");
    same(
        "tiles",
        Board::parse_tiles(shape, &list).map_err(|e| e.to_string()),
    );
    same(
        "flat",
        parse_flat(&list, Some(shape)).map_err(|e| e.to_string()),
    );
    if shape.rows() == shape.cols() {
        let rows: Vec<String> = tiles.chunks(shape.cols()).map(|r| r.join(" ")).collect();
        let file = format!("{}\n{}\n", shape.rows(), rows.join("\n"));
        same(
            "assignment",
            parse_assignment(&file).map_err(|e| e.to_string()),
        );
    }
    if n <= 20 {
        same("rank", Ok(Board::from_rank(shape, board.rank())));
    }
    // Solvability is defined for every board (and must not panic).
    let _ = board.is_solvable();
}

/// A refusal is one non-empty line with no raw control character (input is escaped).
fn one_line(message: &str, name: &str, text: &str) {
    assert!(!message.is_empty(), "{name}: empty message for {text:?}");
    assert!(
        !message.chars().any(char::is_control),
        "{name}: raw control character in {message:?} for {text:?}"
    );
}
