//! Issue 14 (hardening): a table of bad inputs run against the real binary.
//!
//! Every row is one command that must be refused. For each, the test checks:
//!
//! - the exit code (2 for bad usage or bad input, 1 when the work cannot be done: see
//!   `src/main.rs` and `src/cli/mod.rs`, `CliError::exit_code`);
//! - stderr is exactly one line (`error: ...`, one trailing newline), holds no raw control
//!   character (input is shown escaped, `\u{1b}`), and contains the expected words;
//! - no `panicked` on stderr or stdout, and stdout is what the row says (empty, as a rule);
//! - nothing was written: every row runs in a fresh temporary folder (its working
//!   directory, so the default `output/` lands there too, and `NPUZZLE_CACHE`), and the
//!   folder's whole tree, bytes included, is the same after the run as before.
//!
//! `{tmp}` in a row's arguments stands for that folder. Rows are fast: nothing accepted runs
//! an analysis larger than 2x2.
//!
//! [`paths_and_values_with_control_characters_are_escaped`] holds the defects this table
//! found (now fixed), and [`multi_line_by_design`] the two documented exceptions to the
//! rules (the whole help when no subcommand is given; a batch's per-line errors).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

/// One bad input and what the binary must answer.
struct Case {
    /// Names the row in failure messages.
    name: &'static str,
    /// Arguments; `{tmp}` is replaced by the row's temporary folder.
    args: Vec<String>,
    /// Bytes on standard input (none: an empty stdin).
    stdin: Option<Vec<u8>>,
    /// Files made under `{tmp}` before the run; a name ending in `/` is a folder.
    files: Vec<(String, Vec<u8>)>,
    /// The expected exit code.
    code: i32,
    /// Words the one line on stderr must contain.
    message: String,
    /// What stdout must be exactly.
    stdout: String,
}

/// A row: `args`, exit `code`, stderr containing `message`; no stdin, no files, no stdout.
fn case(name: &'static str, args: &[&str], code: i32, message: &str) -> Case {
    Case {
        name,
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin: None,
        files: Vec::new(),
        code,
        message: message.to_string(),
        stdout: String::new(),
    }
}

impl Case {
    /// Standard input for the run.
    fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Case {
        self.stdin = Some(bytes.into());
        self
    }

    /// A file (or, with a trailing `/`, a folder) made under `{tmp}` before the run.
    fn file(mut self, name: &str, bytes: impl Into<Vec<u8>>) -> Case {
        self.files.push((name.to_string(), bytes.into()));
        self
    }

    /// What stdout must be (default: empty).
    fn stdout(mut self, text: &str) -> Case {
        self.stdout = text.to_string();
        self
    }
}

/// What one run produced.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// The tree of `{tmp}` before and after the run.
    before: Tree,
    after: Tree,
}

/// Every entry under a folder: relative path to `None` (a folder) or the file's bytes.
type Tree = BTreeMap<PathBuf, Option<Vec<u8>>>;

fn tree(root: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, out: &mut Tree) {
        let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.insert(rel, None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(fs::read(&path).unwrap_or_default()));
            }
        }
    }
    let mut out = Tree::new();
    walk(root, root, &mut out);
    out
}

/// Runs `case` in a fresh temporary folder: cleared environment, the folder as working
/// directory and as `NPUZZLE_CACHE`, at most 60 s.
fn run(case: &Case) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for (name, bytes) in &case.files {
        let path = root.join(name);
        if name.ends_with('/') {
            fs::create_dir_all(&path).unwrap();
        } else {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, bytes).unwrap();
        }
    }
    let here = root.display().to_string();
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| a.replace("{tmp}", &here))
        .collect();
    let before = tree(root);
    let mut cmd = Command::cargo_bin("npuzzle").unwrap();
    cmd.env_clear()
        .env("NPUZZLE_CACHE", root.join("cache"))
        .current_dir(root)
        .args(&args)
        .timeout(Duration::from_secs(60))
        .write_stdin(case.stdin.clone().unwrap_or_default());
    let out = cmd.output().unwrap();
    let after = tree(root);
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        before,
        after,
    }
}

/// What is wrong with `run` for `case`, one line per problem; empty when all is well.
fn problems(case: &Case, run: &Run) -> Vec<String> {
    let mut p = Vec::new();
    let err = &run.stderr;
    if run.code != Some(case.code) {
        p.push(format!("exit code {:?}, expected {}", run.code, case.code));
    }
    if err.contains("panicked") || run.stdout.contains("panicked") {
        p.push("a panic".to_string());
    }
    if !(err.len() > 1 && err.ends_with('\n') && err.matches('\n').count() == 1) {
        p.push("stderr is not exactly one non-empty line".to_string());
    }
    if !err.starts_with("error: ") {
        p.push("stderr does not start with `error: `".to_string());
    }
    if err.trim_end_matches('\n').chars().any(char::is_control) {
        p.push("stderr holds a raw control character".to_string());
    }
    if !err.contains(&case.message) {
        p.push(format!("stderr lacks {:?}", case.message));
    }
    if run.stdout != case.stdout {
        p.push(format!(
            "stdout is {:?}, expected {:?}",
            run.stdout, case.stdout
        ));
    }
    if run.before != run.after {
        let changed: Vec<_> = run
            .after
            .keys()
            .chain(run.before.keys())
            .filter(|k| run.before.get(*k) != run.after.get(*k))
            .collect();
        p.push(format!("the folder changed: {changed:?}"));
    }
    p
}

/// Runs every case and fails with the list of rows that went wrong (each with its output).
fn check_all(cases: &[Case]) {
    let mut failures = Vec::new();
    for case in cases {
        let run = run(case);
        let problems = problems(case, &run);
        if !problems.is_empty() {
            failures.push(format!(
                "{}: {}\n    args {:?}\n    exit {:?}\n    stderr {:?}\n    stdout {:?}",
                case.name,
                problems.join("; "),
                case.args,
                run.code,
                run.stderr,
                run.stdout
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The `summary.json` of a real 2x2 analysis (run once, in its own folder), as JSON.
fn summary_2x2() -> serde_json::Value {
    let tmp = tempfile::tempdir().unwrap();
    Command::cargo_bin("npuzzle")
        .unwrap()
        .env_clear()
        .args(["analyze", "--size", "2", "--quiet", "--output"])
        .arg(tmp.path())
        .assert()
        .success();
    let text = fs::read_to_string(tmp.path().join("2x2/summary.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The 2x2 summary after `edit`, as bytes.
fn edited(summary: &serde_json::Value, edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let mut s = summary.clone();
    edit(&mut s);
    serde_json::to_vec_pretty(&s).unwrap()
}

/// A solvable board one move from the goal on `n` cells, as a tile list (`1 2 ... 0 n-1`).
fn near_goal(n: usize) -> String {
    let mut tiles: Vec<String> = (1..n - 1).map(|t| t.to_string()).collect();
    tiles.push("0".to_string());
    tiles.push((n - 1).to_string());
    tiles.join(" ")
}

/// Bad `solve` input: malformed boards given with `--board`.
fn board_flag_cases() -> Vec<Case> {
    let long_token = format!("{} 0", "9".repeat(1000));
    let too_long = "1 ".repeat(50_000);
    let square_too_big = "1 ".repeat(40_000);
    vec![
        // 8 numbers and no shape: not a square.
        case(
            "board_count_not_square",
            &["solve", "--board", "1 2 3 4 5 6 7 0"],
            2,
            "--board: 8 numbers do not make a square board",
        ),
        // Too few numbers for the shape given.
        case(
            "board_too_few_for_shape",
            &["solve", "--rows", "3", "--cols", "3", "--board", "1 2 3"],
            2,
            "expected 9 numbers for a 3x3 board, found 3",
        ),
        // Too many numbers for the shape given.
        case(
            "board_too_many_for_shape",
            &[
                "solve",
                "--rows",
                "2",
                "--cols",
                "2",
                "--board",
                "1 2 3 0 0",
            ],
            2,
            "expected 4 numbers for a 2x2 board, found 5",
        ),
        // A repeated tile names the missing one.
        case(
            "board_duplicate_tile",
            &["solve", "--board", "1 1 2 3 4 5 6 7 0"],
            2,
            "tile 1 appears more than once and tile 8 is missing",
        ),
        // No blank: 4 is beyond a 2x2 board's tiles.
        case(
            "board_no_blank",
            &["solve", "--board", "1 2 3 4"],
            2,
            "tile 4 is out of range for a 2x2 board (tiles are 0 to 3)",
        ),
        // A word among the numbers.
        case(
            "board_not_a_number",
            &["solve", "--board", "1 2 x 0"],
            2,
            "--board: 'x' is not a tile number",
        ),
        // A decimal point.
        case(
            "board_decimal",
            &["solve", "--board", "1.0 2 3 0"],
            2,
            "'1.0' is not a tile number",
        ),
        // A negative number, given with `=` so that clap takes it as the value.
        case(
            "board_negative",
            &["solve", "--board=-1 0 1 2"],
            2,
            "'-1' is not a tile number",
        ),
        // A negative number after a space: clap reads it as a flag, a usage error.
        case(
            "board_negative_as_flag",
            &["solve", "--board", "-1 0 1 2"],
            2,
            "unexpected argument '-1' found",
        ),
        // Beyond u64: not a number at all.
        case(
            "board_beyond_u64",
            &["solve", "--board", "99999999999999999999999 0 1 2"],
            2,
            "'99999999999999999999999' is not a tile number",
        ),
        // u64::MAX: a number, out of range.
        case(
            "board_u64_max",
            &["solve", "--board", "18446744073709551615 0 1 2"],
            2,
            "tile 18446744073709551615 is out of range for a 2x2 board",
        ),
        // 2^32: out of range, not wrapped to 0.
        case(
            "board_2_pow_32",
            &["solve", "--board", "4294967296 0 1 2"],
            2,
            "tile 4294967296 is out of range",
        ),
        // Digits of other scripts are not tile numbers.
        case(
            "board_arabic_indic_digits",
            &["solve", "--board", "\u{661} \u{662} \u{663} \u{660}"],
            2,
            "'\u{661}' is not a tile number",
        ),
        // Full-width digits likewise.
        case(
            "board_fullwidth_digits",
            &["solve", "--board", "\u{ff11} \u{ff12} \u{ff13} \u{ff10}"],
            2,
            "'\u{ff11}' is not a tile number",
        ),
        // Nothing at all.
        case(
            "board_empty",
            &["solve", "--board", ""],
            2,
            "--board: empty input",
        ),
        // Only whitespace.
        case(
            "board_only_whitespace",
            &["solve", "--board", " \t  \n "],
            2,
            "--board: empty input",
        ),
        // Row separators and nothing else: rows of no numbers.
        case(
            "board_only_slashes",
            &["solve", "--board", " / / "],
            2,
            "a board needs at least 1 row and 1 column (got 3x0)",
        ),
        // One number: a 1x1 board.
        case(
            "board_one_cell",
            &["solve", "--board", "0"],
            2,
            "a 1x1 board has a single cell and no tile to slide",
        ),
        // A terminal escape sequence is shown escaped.
        case(
            "board_escape_sequence",
            &["solve", "--board", "1 2 \u{1b}[31m 0"],
            2,
            r"'\u{1b}[31m' is not a tile number",
        ),
        // A bell and a backspace are shown escaped.
        case(
            "board_bell_backspace",
            &["solve", "--board", "1 2 x\u{7}\u{8}y 0"],
            2,
            r"'x\u{7}\u{8}y' is not a tile number",
        ),
        // A DEL character inside a token is shown escaped.
        case(
            "board_delete_character",
            &["solve", "--board", "1 2 3\u{7f}x 0"],
            2,
            r"'3\u{7f}x' is not a tile number",
        ),
        // A byte-order mark (not whitespace) is shown escaped.
        case(
            "board_bom",
            &["solve", "--board", "\u{feff}1 2 3 0"],
            2,
            r"'\u{feff}1' is not a tile number",
        ),
        // Right-to-left override: invisible, shown escaped.
        case(
            "board_rtl_override",
            &["solve", "--board", "1 2 \u{202e}3 0"],
            2,
            r"'\u{202e}3' is not a tile number",
        ),
        // A 1000-digit token is cut after 40 characters.
        case(
            "board_long_token_cut",
            &["solve", "--board", &long_token],
            2,
            "'9999999999999999999999999999999999999999...' is not a tile number",
        ),
        // 50,000 numbers: refused by count, not parsed into a board.
        case(
            "board_too_long",
            &["solve", "--board", &too_long],
            2,
            "50000 numbers do not make a square board",
        ),
        // 40,000 numbers make a square, 200x200: sides above the assignment's 127.
        case(
            "board_square_too_big",
            &["solve", "--board", &square_too_big],
            2,
            "a 200x200 board is not supported: boards need 2 to 127 rows and columns",
        ),
        // Rows of unequal length.
        case(
            "board_unequal_rows",
            &["solve", "--board", "1 2 3 / 4 0"],
            2,
            "row 2 has 2 numbers but row 1 has 3: rows must have equal length",
        ),
        // Rows that disagree with --rows/--cols.
        case(
            "board_rows_disagree_with_shape",
            &[
                "solve",
                "--rows",
                "1",
                "--cols",
                "4",
                "--board",
                "1 2 / 3 0",
            ],
            2,
            "2 rows of 2 numbers, but the board is 1x4",
        ),
        // --board without its value.
        case(
            "board_missing_value",
            &["solve", "--board"],
            2,
            "a value is required for '--board <TILES>'",
        ),
    ]
}

/// Bad `solve` input: board files (the assignment format), stdin and batch files.
fn board_file_cases() -> Vec<Case> {
    let assignment = |name, text: &str, message| {
        case(name, &["solve", "{tmp}/b.txt"], 2, message).file("b.txt", text)
    };
    vec![
        // A file that does not exist.
        case(
            "file_missing",
            &["solve", "{tmp}/missing.txt"],
            2,
            "/missing.txt: cannot read: No such file or directory",
        ),
        // A folder given as the board file.
        case(
            "file_is_a_folder",
            &["solve", "{tmp}/dir"],
            2,
            "/dir: cannot read: Is a directory",
        )
        .file("dir/", ""),
        // Binary bytes (invalid UTF-8).
        case(
            "file_binary",
            &["solve", "{tmp}/b.bin"],
            2,
            "/b.bin: not a text file (invalid UTF-8)",
        )
        .file("b.bin", b"\x00\x01\xff\xfe\x80".to_vec()),
        // NUL bytes (valid UTF-8) are shown escaped.
        assignment(
            "file_nul_bytes",
            "\0\0\0",
            r"line 1: '\0\0\0' is not a board size",
        ),
        // An empty file.
        assignment("file_empty", "", "/b.txt: empty input"),
        // Only whitespace and blank lines.
        assignment(
            "file_only_whitespace",
            " \n\t\n  \r\n",
            "/b.txt: empty input",
        ),
        // A byte-order mark before the size.
        assignment(
            "file_bom",
            "\u{feff}3\n1 2 3\n4 5 6\n7 8 0\n",
            r"line 1: '\u{feff}3' is not a board size",
        ),
        // An OSC escape sequence (window title) among the tiles, shown escaped.
        assignment(
            "file_escape_sequence",
            "3\n0 1 3\n4 \u{1b}]0;pwned\u{7} 5\n7 8 6\n",
            r"line 3: '\u{1b}]0;pwned\u{7}' is not a tile number",
        ),
        // 300,000 bytes: refused by size, not read whole (a 127x127 board is about 100 KiB).
        case(
            "file_too_long",
            &["solve", "{tmp}/b.txt"],
            2,
            "more than 256 KiB, not a board",
        )
        .file("b.txt", "1 2 3\n".repeat(50_000)),
        // An endless file.
        case(
            "file_dev_zero",
            &["solve", "/dev/zero"],
            2,
            "/dev/zero: more than 256 KiB, not a board",
        ),
        // The size line is a word.
        assignment(
            "size_line_word",
            "three\n0 1 3\n4 2 5\n7 8 6\n",
            "line 1: 'three' is not a board size",
        ),
        // Size 0.
        assignment(
            "size_line_zero",
            "0\n",
            "line 1: a board needs at least 1 row and 1 column (got 0x0)",
        ),
        // Size 1.
        assignment(
            "size_line_one",
            "1\n0\n",
            "line 1: a 1x1 board has a single cell and no tile to slide",
        ),
        // Size 2^32: its cell count overflows 64 bits; refused by its sides, named exactly.
        assignment(
            "size_line_2_pow_32",
            "4294967296\n",
            "line 1: a 4294967296x4294967296 board is not supported: boards need 2 to 127 rows",
        ),
        // A size beyond usize.
        assignment(
            "size_line_beyond_usize",
            "99999999999999999999999\n1 2\n3 0\n",
            "'99999999999999999999999' is not a board size",
        ),
        // A negative size.
        assignment(
            "size_line_negative",
            "-3\n",
            "line 1: '-3' is not a board size",
        ),
        // A decimal size.
        assignment("size_line_decimal", "3.0\n", "'3.0' is not a board size"),
        // Size 128: the assignment's N < 128 (issue 62: 9 to 127 are solved).
        assignment(
            "size_line_too_large",
            "128\n",
            "line 1: a 128x128 board is not supported: boards need 2 to 127 rows and columns \
             (the assignment's 2 <= N < 128)",
        ),
        // Size 9 with its rows missing: read as a 9x9 board, not refused for its size.
        assignment(
            "size_line_nine_without_rows",
            "9\n",
            "0 rows of tiles after the size line, expected 9",
        ),
        // The whole board on the size line.
        assignment(
            "size_line_holds_tiles",
            "3 0 1 3 4 2 5 7 8 6\n",
            "'3 0 1 3 4 2 5 7 8 6' is not a board size",
        ),
        // A row too short.
        assignment(
            "grid_row_short",
            "3\n0 1 3\n4 2\n7 8 6\n",
            "line 3: a row of 2 numbers on a 3x3 board (the first line says N = 3)",
        ),
        // A row too long for the size line.
        assignment(
            "grid_row_long",
            "2\n0 1 3\n4 2 5\n7 8 6\n",
            "line 2: a row of 3 numbers on a 2x2 board",
        ),
        // Too few rows.
        assignment(
            "grid_too_few_rows",
            "3\n0 1 3\n4 2 5\n",
            "2 rows of tiles after the size line, expected 3",
        ),
        // Too many rows.
        assignment(
            "grid_too_many_rows",
            "2\n1 2\n3 0\n1 2\n",
            "3 rows of tiles after the size line, expected 2",
        ),
        // A repeated tile.
        assignment(
            "grid_duplicate_tile",
            "3\n0 1 3\n4 2 5\n7 8 8\n",
            "tile 8 appears more than once and tile 6 is missing",
        ),
        // A tile out of range.
        assignment(
            "grid_tile_out_of_range",
            "3\n0 1 3\n4 2 5\n7 8 9\n",
            "tile 9 is out of range for a 3x3 board (tiles are 0 to 8)",
        ),
        // A negative tile.
        assignment(
            "grid_negative_tile",
            "3\n0 1 3\n4 -2 5\n7 8 6\n",
            "line 3: '-2' is not a tile number",
        ),
        // With --rows/--cols the file is a flat list: the size line counts as a tile.
        case(
            "flat_file_counts_the_size_line",
            &["solve", "--rows", "2", "--cols", "3", "{tmp}/b.txt"],
            2,
            "expected 6 numbers for a 2x3 board, found 7",
        )
        .file("b.txt", "3\n1 2 3\n4 5 0\n"),
        // Empty stdin.
        case("stdin_empty", &["solve", "-"], 2, "<stdin>: empty input").stdin(""),
        // Whitespace on stdin.
        case(
            "stdin_only_whitespace",
            &["solve", "-"],
            2,
            "<stdin>: empty input",
        )
        .stdin("\n \n\t\n"),
        // Binary bytes on stdin.
        case(
            "stdin_binary",
            &["solve", "-"],
            2,
            "<stdin>: not a text file (invalid UTF-8)",
        )
        .stdin(b"\xff\xfe\xfd\x00".to_vec()),
        // Over 256 KiB on stdin.
        case(
            "stdin_too_long",
            &["solve", "-"],
            2,
            "<stdin>: more than 256 KiB, not a board",
        )
        .stdin("1 2 3\n".repeat(50_000)),
        // An escape sequence on stdin, shown escaped.
        case(
            "stdin_escape_sequence",
            &["solve", "-"],
            2,
            r"<stdin>: line 2: '\u{1b}[2J' is not a tile number",
        )
        .stdin("3\n\u{1b}[2J 1 2\n3 4 5\n6 7 8\n"),
        // A batch file that does not exist: refused before the CSV header.
        case(
            "batch_missing",
            &["solve", "--batch", "{tmp}/missing.txt"],
            2,
            "/missing.txt: cannot read: No such file or directory",
        ),
        // An endless batch file: the first line is read past up to 64 MiB, then the batch
        // stops (after the header). (A line that is merely too long, or not text, is reported
        // in its place and the others are solved: `batch_bad_lines_of_any_kind`.)
        case(
            "batch_dev_zero",
            &["solve", "--batch", "/dev/zero"],
            2,
            "/dev/zero: line 1 is longer than 64 MiB without a line break: not a batch of boards",
        )
        .stdout("line,moves,expanded,nodes,seconds,solution\n"),
    ]
}

/// Bad `solve` methods and shapes it cannot do.
fn solve_method_cases() -> Vec<Case> {
    let b36 = near_goal(36);
    let b25 = near_goal(25);
    let b16 = near_goal(16);
    vec![
        // Unknown algorithm.
        case(
            "algorithm_unknown",
            &["solve", "--board", "1 2 3 0", "--algorithm", "dfs"],
            2,
            "invalid value 'dfs' for '--algorithm <NAME>'",
        ),
        // Unknown heuristic.
        case(
            "heuristic_unknown",
            &["solve", "--board", "1 2 3 0", "--heuristic", "euclid"],
            2,
            "invalid value 'euclid' for '--heuristic <NAME>'",
        ),
        // Unknown pattern-database partition.
        case(
            "pdb_unknown",
            &["solve", "--board", "1 2 3 0", "--pdb", "5-5-5"],
            2,
            "invalid value '5-5-5' for '--pdb <PARTITION>'",
        ),
        // The --method alias of --pdb, unknown name.
        case(
            "method_alias_unknown",
            &["solve", "--board", "1 2 3 0", "--method", "bogus"],
            2,
            "invalid value 'bogus' for '--pdb <PARTITION>'",
        ),
        // The 4x4 partition on a 3x3 board (refused before any database is built).
        case(
            "pdb_7_8_on_3x3",
            &["solve", "--board", "1 2 3 4 5 6 7 0 8", "--pdb", "7-8"],
            2,
            "the 7-8 partition is for 4x4 boards",
        ),
        // The 4x4 6-6-3 partition on a 2x3 board.
        case(
            "pdb_6_6_3_on_2x3",
            &["solve", "--board", "1 2 3 / 4 0 5", "--pdb", "6-6-3"],
            2,
            "the 6-6-3 partition is for 4x4 boards",
        ),
        // Pattern databases above 16 cells.
        case(
            "pdb_on_5x5",
            &["solve", "--board", &b25, "--heuristic", "pdb"],
            2,
            "pattern databases are built for boards of at most 16 cells, not 5x5",
        ),
        // The exact table above 12 cells.
        case(
            "exact_on_4x4",
            &["solve", "--board", &b16, "--heuristic", "exact"],
            2,
            "an exact table for 4x4 would have 16! entries; at most 12 cells are supported",
        ),
        // BFS packs boards in 128 bits: at most 25 cells.
        case(
            "bfs_on_6x6",
            &["solve", "--board", &b36, "--algorithm", "bfs"],
            2,
            "bfs keeps every board in memory and supports at most 25 cells, not 6x6",
        ),
        // A* likewise.
        case(
            "astar_on_6x6",
            &["solve", "--board", &b36, "--algorithm", "astar"],
            2,
            "astar keeps every board in memory and supports at most 25 cells, not 6x6",
        ),
        // A heuristic for an algorithm without one.
        case(
            "heuristic_with_bfs",
            &[
                "solve",
                "--board",
                "1 2 3 0",
                "--algorithm",
                "bfs",
                "--heuristic",
                "manhattan",
            ],
            2,
            "--heuristic manhattan has no effect with --algorithm bfs",
        ),
        // --pdb with another heuristic.
        case(
            "pdb_with_hamming",
            &[
                "solve",
                "--board",
                "1 2 3 0",
                "--pdb",
                "default",
                "--heuristic",
                "hamming",
            ],
            2,
            "--pdb default has no effect with --heuristic hamming",
        ),
        // --pdb with an algorithm without a heuristic.
        case(
            "pdb_with_ucs",
            &[
                "solve",
                "--board",
                "1 2 3 0",
                "--pdb",
                "default",
                "--algorithm",
                "ucs",
            ],
            2,
            "--pdb default has no effect with --algorithm ucs",
        ),
        // --compare runs every algorithm: --algorithm conflicts.
        case(
            "compare_with_algorithm",
            &[
                "solve",
                "--board",
                "1 2 3 0",
                "--compare",
                "--algorithm",
                "bfs",
            ],
            2,
            "the argument '--compare' cannot be used with '--algorithm <NAME>'",
        ),
        // Two inputs.
        case(
            "board_and_batch",
            &["solve", "--board", "1 2 3 0", "--batch", "{tmp}/x"],
            2,
            "the argument '--board <TILES>' cannot be used with '--batch <FILE>'",
        ),
        // No input.
        case(
            "solve_without_input",
            &["solve"],
            2,
            "the following required arguments were not provided",
        ),
        // --rows without --cols.
        case(
            "solve_rows_without_cols",
            &["solve", "--board", "1 2 3 0", "--rows", "2"],
            2,
            "the following required arguments were not provided: --cols <C>",
        ),
        // A zero side.
        case(
            "solve_rows_zero",
            &["solve", "--rows", "0", "--cols", "3", "--board", "1 2 0"],
            2,
            "a board needs at least 1 row and 1 column (got 0x3)",
        ),
        // Sides whose product overflows.
        case(
            "solve_rows_cols_overflow",
            &[
                "solve",
                "--rows",
                "4294967296",
                "--cols",
                "4294967296",
                "--board",
                "1 0",
            ],
            2,
            "a 4294967296x4294967296 board has 18446744073709551616 cells",
        ),
        // --rows not a number.
        case(
            "solve_rows_not_a_number",
            &[
                "solve", "--rows", "two", "--cols", "2", "--board", "1 2 3 0",
            ],
            2,
            "invalid value 'two' for '--rows <R>'",
        ),
        // An unknown flag.
        case(
            "solve_unknown_flag",
            &["solve", "--board", "1 2 3 0", "--frobnicate"],
            2,
            "unexpected argument '--frobnicate' found",
        ),
    ]
}

/// Bad `analyze` arguments, and output folders that cannot be written.
fn analyze_cases() -> Vec<Case> {
    let analyze = |name, extra: &[&str], code, message| {
        let mut args = vec!["analyze"];
        args.extend_from_slice(extra);
        case(name, &args, code, message)
    };
    vec![
        // --size 0.
        analyze(
            "size_zero",
            &["--size", "0"],
            2,
            "a board needs at least 1 row and 1 column (got 0x0)",
        ),
        // --size 1: one cell.
        analyze(
            "size_one",
            &["--size", "1"],
            2,
            "a 1x1 board has a single cell and no tile to slide",
        ),
        // --size 2^32: the cell count overflows 64 bits and is named exactly.
        analyze(
            "size_2_pow_32",
            &["--size", "4294967296"],
            2,
            "a 4294967296x4294967296 board has 18446744073709551616 cells",
        ),
        // --size beyond usize.
        analyze(
            "size_beyond_usize",
            &["--size", "18446744073709551616"],
            2,
            "number too large to fit in target type",
        ),
        // --size not a number.
        analyze(
            "size_word",
            &["--size", "three"],
            2,
            "invalid value 'three' for '--size <N>'",
        ),
        // --size empty.
        analyze(
            "size_empty",
            &["--size", ""],
            2,
            "cannot parse integer from empty string",
        ),
        // --size decimal.
        analyze(
            "size_decimal",
            &["--size", "2.5"],
            2,
            "invalid value '2.5' for '--size <N>'",
        ),
        // --size negative: clap reads it as a flag.
        analyze(
            "size_negative",
            &["--size", "-1"],
            2,
            "unexpected argument '-1' found",
        ),
        // --size 9: 81 cells.
        analyze(
            "size_too_many_cells",
            &["--size", "9"],
            2,
            "a 9x9 board has 81 cells; at most 64 are supported",
        ),
        // --size 4: refused by the memory plan before allocating.
        analyze(
            "size_beyond_memory",
            &["--size", "4"],
            2,
            "4x4 has 20,922,789,888,000 boards",
        ),
        // --size with --rows/--cols.
        analyze(
            "size_conflicts_with_rows",
            &["--size", "3", "--rows", "3", "--cols", "3"],
            2,
            "the argument '--size <N>' cannot be used with",
        ),
        // --rows alone.
        analyze(
            "rows_without_cols",
            &["--rows", "3"],
            2,
            "the following required arguments were not provided: --cols <C>",
        ),
        // --cols alone.
        analyze(
            "cols_without_rows",
            &["--cols", "3"],
            2,
            "the following required arguments were not provided: --rows <R>",
        ),
        // No shape at all.
        analyze(
            "analyze_without_shape",
            &[],
            2,
            "give --size N or both --rows R and --cols C",
        ),
        // A zero side given as rows.
        analyze("rows_zero", &["--rows", "0", "--cols", "5"], 2, "(got 0x5)"),
        // 1x1 given as rows and columns.
        analyze(
            "rows_cols_one",
            &["--rows", "1", "--cols", "1"],
            2,
            "a 1x1 board has a single cell",
        ),
        // A goal label too short.
        analyze(
            "goal_wrong_length",
            &["--size", "2", "--goal", "123"],
            2,
            "--goal \"123\": expected 4 numbers for a 2x2 board, found 3",
        ),
        // A goal with a repeated tile.
        analyze(
            "goal_duplicate",
            &["--size", "2", "--goal", "1 1 2 0"],
            2,
            "tile 1 appears more than once",
        ),
        // A goal label with a number out of range.
        analyze(
            "goal_out_of_range",
            &["--size", "2", "--goal", "1235"],
            2,
            "tile 5 is out of range for a 2x2 board",
        ),
        // A goal with an escape sequence, shown escaped.
        analyze(
            "goal_escape_sequence",
            &["--size", "2", "--goal", "1 2 \u{1b}[2J 0"],
            2,
            r#"--goal "1 2 \u{1b}[2J 0": '\u{1b}[2J' is not a tile number"#,
        ),
        // A goal with a newline, shown escaped (and still one line).
        analyze(
            "goal_newline",
            &["--size", "2", "--goal", "12\n30"],
            2,
            r#"--goal "12\n30""#,
        ),
        // An unknown edge format.
        analyze(
            "edges_unknown",
            &["--size", "2", "--edges", "bogus"],
            2,
            "invalid value 'bogus' for '--edges <FORMAT>'",
        ),
        // Edges of a 15-cell board.
        analyze(
            "edges_too_large",
            &["--rows", "3", "--cols", "5", "--edges", "ranks"],
            2,
            "edges.csv and nodes.csv are written up to 12 cells",
        ),
        // --nodes with --max-depth.
        analyze(
            "nodes_with_max_depth",
            &["--size", "2", "--max-depth", "3", "--nodes", "labels"],
            2,
            "--nodes needs every board's depth, which --max-depth does not keep",
        ),
        // A negative depth.
        analyze(
            "max_depth_negative",
            &["--size", "2", "--max-depth", "-1"],
            2,
            "unexpected argument '-1' found",
        ),
        // Issue 25: the distributed engine writes the marks' tables; one-row boards' tables
        // (from per-board depths it does not gather) are made on one machine.
        analyze(
            "table_of_a_row_with_workers",
            &["--rows", "1", "--cols", "5", "--table", "--workers", "2"],
            2,
            "the distance tables of one-row boards are made on one machine",
        ),
        // The search of the second component is for boards the index of all n! boards covers.
        analyze(
            "search_components_above_12_cells",
            &["--rows", "2", "--cols", "7", "--search-components"],
            2,
            "--search-components searches boards of up to 12 cells (2x7 has 14)",
        ),
        analyze(
            "search_components_of_a_row_with_workers",
            &[
                "--rows",
                "1",
                "--cols",
                "5",
                "--search-components",
                "--workers",
                "2",
            ],
            2,
            "the components of one-row boards are searched on one machine",
        ),
        analyze(
            "search_components_with_max_depth",
            &["--size", "4", "--max-depth", "3", "--search-components"],
            2,
            "the argument '--max-depth <D>' cannot be used with '--search-components'",
        ),
        // --scratch without --max-depth.
        analyze(
            "scratch_without_max_depth",
            &["--size", "2", "--scratch", "{tmp}/s"],
            2,
            "the following required arguments were not provided: --max-depth <D>",
        ),
        // Issue 23: a scratch folder that cannot be made is an I/O error (exit 1) naming it,
        // not "too large" (it was reported as AnalyzeError::TooLarge).
        analyze(
            "scratch_under_a_file",
            &[
                "--size",
                "3",
                "--max-depth",
                "5",
                "--scratch",
                "{tmp}/file/s",
            ],
            1,
            "/file/s: Not a directory",
        )
        .file("file", ""),
        // --resume without --checkpoint.
        analyze(
            "resume_without_checkpoint",
            &["--size", "2", "--resume"],
            2,
            "the following required arguments were not provided: --checkpoint <DIR>",
        ),
        // Zero processes.
        analyze(
            "processes_zero",
            &["--size", "2", "--processes", "0"],
            2,
            "--processes and --workers must be at least 1",
        ),
        // Zero workers.
        analyze(
            "workers_zero",
            &["--size", "2", "--workers", "0"],
            2,
            "--processes and --workers must be at least 1",
        ),
        // Issue 23: more processes than default ports or any cluster (it used to start
        // listening on ports past 65535).
        analyze(
            "processes_too_many",
            &["--size", "2", "--processes", "100000"],
            2,
            "--processes 100000: at most 4096",
        ),
        // Issue 23: a connect timeout that overflowed the deadline (u64::MAX panicked).
        analyze(
            "connect_timeout_huge",
            &[
                "--size",
                "2",
                "--workers",
                "1",
                "--connect-timeout",
                "18446744073709551615",
            ],
            2,
            "--connect-timeout 18446744073709551615: give 1 to 604800 seconds (a week)",
        ),
        // Issue 23: a board beyond the index is exit 2 with --max-depth too (it was 1).
        analyze(
            "max_depth_board_too_large",
            &["--size", "5", "--max-depth", "3"],
            2,
            "5x5 is beyond the index: boards of at least 2 rows and 2 columns up to 20 cells",
        ),
        analyze(
            "max_depth_line_too_large",
            &["--rows", "1", "--cols", "13", "--max-depth", "3"],
            2,
            "1x13 is beyond the index",
        ),
        // Issue 23: --max-depth with --edges (it wrote the whole game graph's edges).
        analyze(
            "max_depth_with_edges",
            &["--size", "3", "--max-depth", "3", "--edges", "labels"],
            2,
            "--edges lists the whole game graph, not what --max-depth searched: run without one of them",
        ),
        // A process number out of range.
        analyze(
            "process_out_of_range",
            &["--size", "2", "--processes", "2", "--process", "5"],
            2,
            "--process 5 is out of range for --processes 2 (0..1)",
        ),
        // --bind takes auto or none.
        analyze(
            "bind_unknown",
            &["--size", "2", "--processes", "2", "--bind", "sometimes"],
            2,
            "invalid value 'sometimes' for '--bind <WHEN>'",
        ),
        // --process without --processes.
        analyze(
            "process_without_processes",
            &["--size", "2", "--process", "1"],
            2,
            "--process and --hostfile need --processes",
        ),
        // A hostfile that does not exist (refused before any connection).
        analyze(
            "hostfile_missing",
            &[
                "--size",
                "2",
                "--processes",
                "2",
                "--hostfile",
                "{tmp}/hosts",
            ],
            2,
            "cannot read hostfile",
        ),
        // A hostfile with too few addresses.
        analyze(
            "hostfile_short",
            &[
                "--size",
                "2",
                "--processes",
                "2",
                "--hostfile",
                "{tmp}/hosts",
            ],
            2,
            "has 1 addresses, 2 processes need one each",
        )
        .file("hosts", "# one host\nlocalhost:2101\n"),
        // Issue 23: a hostfile line without a port names its line (it surfaced as the
        // connection timeout).
        analyze(
            "hostfile_no_port",
            &[
                "--size",
                "2",
                "--processes",
                "2",
                "--hostfile",
                "{tmp}/hosts",
            ],
            2,
            "line 3: \"localhost\" is not host:port (a port from 1 to 65535)",
        )
        .file("hosts", "# two hosts\nlocalhost:2101\nlocalhost\n"),
        // Issue 23: port 0 where a process dials (allowed only where it listens).
        analyze(
            "hostfile_port_zero",
            &[
                "--size",
                "2",
                "--processes",
                "2",
                "--process",
                "1",
                "--hostfile",
                "{tmp}/hosts",
            ],
            2,
            "line 1: \"localhost:0\" has port 0, but process 1 dials process 0 there",
        )
        .file("hosts", "localhost:0\nlocalhost:2102\n"),
        // Issue 23: a host that does not resolve is named at once (it surfaced only as the
        // connection timeout).
        analyze(
            "hostfile_unresolvable",
            &[
                "--size",
                "2",
                "--processes",
                "2",
                "--process",
                "1",
                "--hostfile",
                "{tmp}/hosts",
            ],
            2,
            "cannot resolve nosuchhost.invalid:2101 (process 0)",
        )
        .file("hosts", "nosuchhost.invalid:2101\n127.0.0.1:0\n"),
        // Issue 23: two processes on one address.
        analyze(
            "hostfile_duplicate",
            &[
                "--size",
                "2",
                "--processes",
                "2",
                "--hostfile",
                "{tmp}/hosts",
            ],
            2,
            "lines 1 and 2 both name localhost:2101: every process needs its own address",
        )
        .file("hosts", "localhost:2101\nlocalhost:2101\n"),
        // Issue 23: an endless hostfile is read only so far (/dev/zero grew to gigabytes).
        analyze(
            "hostfile_endless",
            &["--size", "2", "--processes", "2", "--hostfile", "/dev/zero"],
            2,
            "cannot read hostfile /dev/zero: not a regular file but a device",
        ),
        // An unknown flag.
        analyze(
            "analyze_unknown_flag",
            &["--size", "2", "--frobnicate"],
            2,
            "unexpected argument '--frobnicate' found",
        ),
        // The output folder's parent is a regular file.
        analyze(
            "output_under_a_file",
            &["--size", "2", "--output", "{tmp}/plain/out"],
            1,
            "/plain/out/2x2: Not a directory",
        )
        .file("plain", "not a folder"),
        // /dev/null as the output folder.
        analyze(
            "output_dev_null",
            &["--size", "2", "--output", "/dev/null"],
            1,
            "cannot write /dev/null/2x2",
        ),
        // A folder in /proc cannot be made: issue 73, the message says that /proc is at
        // fault (it said "No such file or directory" only).
        analyze(
            "output_in_proc",
            &["--size", "2", "--output", "/proc/npuzzle-test"],
            1,
            "cannot write /proc/npuzzle-test/2x2: /proc is not a folder npuzzle can write in \
             (No such file or directory",
        ),
        analyze(
            "output_proc",
            &["--size", "2", "--output", "/proc"],
            1,
            "cannot write /proc/2x2: /proc is not a folder npuzzle can write in",
        ),
        // Nor one in /sys.
        analyze(
            "output_in_sys",
            &["--size", "2", "--output", "/sys/npuzzle-test"],
            1,
            "cannot write /sys/npuzzle-test/2x2: /sys is not a folder npuzzle can write in",
        ),
        // Issue 73: a --scratch or --checkpoint folder that exists but cannot hold what the
        // search makes there (/proc), or cannot be made there (/proc/x), says so up front,
        // naming the flag and the folder at fault.
        analyze(
            "scratch_proc",
            &["--size", "3", "--max-depth", "5", "--scratch", "/proc"],
            1,
            "--scratch /proc: /proc is not a folder npuzzle can write in (No such file or \
             directory",
        ),
        analyze(
            "scratch_in_proc",
            &[
                "--size",
                "3",
                "--max-depth",
                "5",
                "--scratch",
                "/proc/npuzzle-test",
            ],
            1,
            "--scratch /proc/npuzzle-test: /proc is not a folder npuzzle can write in (No \
             such file or directory",
        ),
        analyze(
            "checkpoint_proc_limited",
            &["--size", "3", "--max-depth", "5", "--checkpoint", "/proc"],
            1,
            "--checkpoint /proc: /proc is not a folder npuzzle can write in",
        ),
        analyze(
            "checkpoint_in_proc_limited",
            &["--size", "3", "--max-depth", "5", "--checkpoint", "/proc/x"],
            1,
            "--checkpoint /proc/x: /proc is not a folder npuzzle can write in",
        ),
        analyze(
            "checkpoint_proc",
            &["--size", "2", "--checkpoint", "/proc"],
            1,
            "--checkpoint /proc: /proc is not a folder npuzzle can write in",
        ),
        analyze(
            "checkpoint_in_proc",
            &["--size", "2", "--checkpoint", "/proc/x"],
            1,
            "--checkpoint /proc/x: /proc is not a folder npuzzle can write in",
        ),
    ]
}

/// Bad `export`, `draw` and top-level arguments.
fn export_draw_cases() -> Vec<Case> {
    vec![
        // Issue 73: `random --moves 2^64-1` ran until killed; above the cap, one line, exit 2.
        case(
            "random_moves_over_the_cap",
            &["random", "--size", "3", "--moves", "18446744073709551615"],
            2,
            "invalid value '18446744073709551615' for '--moves <K>': the slides of the walk: a \
             whole number from 0 to 1000000000",
        ),
        case(
            "random_moves_one_over_the_cap",
            &["random", "--size", "3", "--moves", "1000000001"],
            2,
            "a whole number from 0 to 1000000000",
        ),
        // GraphML/DOT stop at 10 cells.
        case(
            "export_4x4",
            &["export", "--size", "4"],
            2,
            "GraphML and DOT exports stop at 10 cells",
        ),
        // 11 cells, one row.
        case(
            "export_1x11",
            &["export", "--rows", "1", "--cols", "11"],
            2,
            "1x11 has 39,916,800 boards; GraphML and DOT exports stop at 10 cells",
        ),
        // An unknown format.
        case(
            "export_format_unknown",
            &["export", "--size", "2", "--format", "svg"],
            2,
            "invalid value 'svg' for '--format <FORMAT>'",
        ),
        // --format without a value.
        case(
            "export_format_missing",
            &["export", "--size", "2", "--format"],
            2,
            "a value is required for '--format <FORMAT>'",
        ),
        // No shape.
        case(
            "export_without_shape",
            &["export"],
            2,
            "give --size N or both --rows R and --cols C",
        ),
        // Size 0.
        case(
            "export_size_zero",
            &["export", "--size", "0"],
            2,
            "(got 0x0)",
        ),
        // The output folder's parent is a regular file.
        case(
            "export_output_under_a_file",
            &["export", "--size", "2", "--output", "{tmp}/plain/out"],
            1,
            "/plain/out/2x2: Not a directory",
        )
        .file("plain", "not a folder"),
        // The whole 3x3 graph is too large to draw.
        case(
            "draw_whole_3x3",
            &["draw", "--size", "3", "--whole"],
            2,
            "the 3x3 game graph has 362,880 boards; a drawing holds at most 1,000 boards",
        ),
        // A radius whose ball holds more than 1,000 boards (found without exploring more).
        case(
            "draw_radius_too_large",
            &["draw", "--size", "4", "--radius", "100"],
            2,
            "more than 1,000 4x4 boards lie within 100 moves of the goal",
        ),
        // --radius with --whole.
        case(
            "draw_radius_and_whole",
            &["draw", "--size", "2", "--radius", "1", "--whole"],
            2,
            "the argument '--radius <K>' cannot be used with '--whole'",
        ),
        // A negative radius.
        case(
            "draw_radius_negative",
            &["draw", "--size", "2", "--radius", "-1"],
            2,
            "unexpected argument '-1' found",
        ),
        // A radius that is not a number.
        case(
            "draw_radius_word",
            &["draw", "--size", "2", "--radius", "two"],
            2,
            "invalid value 'two' for '--radius <K>'",
        ),
        // Size 1.
        case(
            "draw_size_one",
            &["draw", "--size", "1"],
            2,
            "a 1x1 board has a single cell",
        ),
        // The output folder's parent is a regular file.
        case(
            "draw_output_under_a_file",
            &["draw", "--size", "2", "--output", "{tmp}/plain/out"],
            1,
            "/plain/out/2x2: Not a directory",
        )
        .file("plain", "not a folder"),
        // An unknown subcommand.
        case(
            "unknown_subcommand",
            &["frobnicate"],
            2,
            "unrecognized subcommand 'frobnicate'",
        ),
        // A misspelt subcommand.
        case(
            "misspelt_subcommand",
            &["analyse", "--size", "2"],
            2,
            "unrecognized subcommand 'analyse'",
        ),
        // An unknown top-level flag.
        case(
            "unknown_top_level_flag",
            &["--frobnicate"],
            2,
            "unexpected argument '--frobnicate' found",
        ),
        // Help for an unknown subcommand.
        case(
            "help_unknown_subcommand",
            &["help", "frobnicate"],
            2,
            "unrecognized subcommand 'frobnicate'",
        ),
    ]
}

/// Bad `serve` arguments, refused before the server listens (`--port 0`: were one accepted,
/// the row would end at its timeout, not on a busy port).
#[cfg(feature = "serve")]
fn serve_cases() -> Vec<Case> {
    vec![
        // Issue 73: the range said "between 0 and 3600" though 0 is refused.
        case(
            "serve_idle_timeout_0",
            &["serve", "--port", "0", "--idle-timeout", "0"],
            2,
            "--idle-timeout 0: more than 0 and at most 3600 seconds is expected",
        ),
        case(
            "serve_time_limit_0",
            &["serve", "--port", "0", "--time-limit", "0"],
            2,
            "--time-limit 0: more than 0 and at most 3600 seconds is expected",
        ),
        case(
            "serve_time_limit_above_an_hour",
            &["serve", "--port", "0", "--time-limit", "3601"],
            2,
            "--time-limit 3601: more than 0 and at most 3600 seconds is expected",
        ),
        // Issue 73: a plain GET of 2x7 would start a 22 GB build (its marks and its table,
        // two bits a board each): beyond --map-memory (1,000 MB by default) on any machine.
        // 3x4's in the multi-tile metric (379 MB at its peak) beyond 100 MB.
        case(
            "serve_build_beyond_the_memory",
            &["serve", "--port", "0", "--build", "14"],
            2,
            "--build 14: building the table of 2x7 (stm) on first use takes",
        ),
        case(
            "serve_build_beyond_map_memory",
            &[
                "serve",
                "--port",
                "0",
                "--build",
                "12",
                "--map-memory",
                "100",
            ],
            2,
            "beyond the 100.00 MB a build may take (--map-memory 100 MB",
        ),
    ]
}

/// Bad `plot` input: missing, garbage and corrupt `summary.json`, unwritable charts.
fn plot_cases() -> Vec<Case> {
    let summary = summary_2x2();
    let good = serde_json::to_vec_pretty(&summary).unwrap();
    let plot = |name, json: Vec<u8>, message| {
        case(name, &["plot", "{tmp}/r"], 2, message).file("r/summary.json", json)
    };
    let truncated = good[..good.len() / 2].to_vec();
    vec![
        // A folder without summary.json.
        case(
            "plot_missing_folder",
            &["plot", "{tmp}/missing"],
            2,
            "/missing/summary.json: No such file or directory",
        ),
        // No folder at all.
        case(
            "plot_without_folders",
            &["plot"],
            2,
            "the following required arguments were not provided: <DIR>...",
        ),
        // --compare without folders.
        case(
            "plot_compare_without_folders",
            &["plot", "--compare", "{tmp}/c.png"],
            2,
            "the following required arguments were not provided: <DIR>...",
        ),
        // Not JSON.
        plot(
            "plot_garbage",
            b"not json at all".to_vec(),
            "/r/summary.json: expected ident",
        ),
        // An empty file.
        plot(
            "plot_empty_file",
            Vec::new(),
            "/r/summary.json: EOF while parsing a value",
        ),
        // Half a summary.
        plot("plot_truncated", truncated, "EOF while parsing"),
        // JSON, but not a summary.
        plot("plot_empty_object", b"{}".to_vec(), "missing field `board`"),
        // Binary bytes.
        plot(
            "plot_binary",
            b"\xff\xfe\x00\x01".to_vec(),
            "stream did not contain valid UTF-8",
        ),
        // summary.json is a folder.
        case(
            "plot_summary_is_a_folder",
            &["plot", "{tmp}/r"],
            2,
            "/r/summary.json: not a regular file but a folder",
        )
        .file("r/summary.json/", ""),
        // Zero rows.
        plot(
            "plot_rows_zero",
            edited(&summary, |s| s["rows"] = 0.into()),
            "a board needs at least 1 row and 1 column (got 0x2)",
        ),
        // A board name that disagrees with the rows and columns.
        plot(
            "plot_board_mismatch",
            edited(&summary, |s| s["board"] = "3x3".into()),
            "board \"3x3\" is not 2x2",
        ),
        // A board name with an escape sequence, shown escaped.
        plot(
            "plot_board_escape_sequence",
            edited(&summary, |s| s["board"] = "2x2\u{1b}[2J".into()),
            r#"board "2x2\u{1b}[2J" is not 2x2"#,
        ),
        // A huge shape.
        plot(
            "plot_huge_shape",
            edited(&summary, |s| {
                s["rows"] = 1_000_000.into();
                s["cols"] = 1_000_000.into();
                s["board"] = "1000000x1000000".into();
            }),
            "a 1000000x1000000 board has 1000000000000 cells",
        ),
        // More depths than any board has.
        plot(
            "plot_too_many_depths",
            edited(&summary, |s| s["depth_counts"] = vec![1u64; 10_001].into()),
            "10001 depths (at most 10000)",
        ),
        // A negative number where a count belongs.
        plot(
            "plot_negative_depth",
            edited(&summary, |s| s["max_depth"] = (-1).into()),
            "invalid value: integer `-1`, expected u32",
        ),
        // A string where a count belongs.
        plot(
            "plot_count_is_a_string",
            edited(&summary, |s| {
                s["depth_counts"] = serde_json::json!(["1", "2"])
            }),
            "invalid type: string \"1\", expected u64",
        ),
        // A hardest board that is not of the shape.
        plot(
            "plot_hardest_wrong_shape",
            edited(&summary, |s| {
                s["hardest"]["boards"][0]["grid"] = vec!["1 2 3 4 5 6 7 8 9"; 2].into();
            }),
            "a hardest board that is not a 2x2 board",
        ),
        // Depth counts all zero, or none: they cannot add up to the boards reached (issue 23
        // made these "counts that do not add up"; they were "nothing to plot").
        plot(
            "plot_all_zero_counts",
            edited(&summary, |s| s["depth_counts"] = vec![0u64; 3].into()),
            "counts per depth that do not add up to the 12 boards reached (of 24)",
        ),
        plot(
            "plot_no_counts",
            edited(&summary, |s| s["depth_counts"] = Vec::<u64>::new().into()),
            "counts per depth that do not add up",
        ),
        // Issue 23: impossible summaries are refused (a chart read "18,446,744,073,709,551,615
        // solvable boards").
        plot(
            "plot_reachable_above_the_boards",
            edited(&summary, |s| s["reachable"] = u64::MAX.into()),
            "do not add up to the 18446744073709551615 boards reached (of 24)",
        ),
        plot(
            "plot_counts_do_not_add_up",
            edited(&summary, |s| s["depth_counts"][1] = 3.into()),
            "counts per depth that do not add up to the 12 boards reached",
        ),
        plot(
            "plot_counts_overflow",
            edited(&summary, |s| {
                s["depth_counts"] = serde_json::json!([1, u64::MAX, 11]);
            }),
            "counts per depth that do not add up",
        ),
        plot(
            "plot_wrong_board_count",
            edited(&summary, |s| s["boards"] = 25.into()),
            "25 boards, but 2x2 has 24",
        ),
        plot(
            "plot_wrong_edge_count",
            edited(&summary, |s| s["edges"] = 7.into()),
            "7 edges, but 2x2 has 24",
        ),
        plot(
            "plot_components_do_not_add_up",
            edited(&summary, |s| {
                s["components"]["sizes"][0]["count"] = 3.into()
            }),
            "components that do not add up",
        ),
        // One good folder and one missing: nothing is drawn, not even the good one's chart.
        case(
            "plot_good_and_missing",
            &["plot", "{tmp}/good", "{tmp}/missing"],
            2,
            "/missing/summary.json: No such file or directory",
        )
        .file("good/summary.json", good.clone()),
        // The chart's path is a folder: the write fails (exit 1), the folder stays.
        case(
            "plot_chart_is_a_folder",
            &["plot", "{tmp}/good"],
            1,
            "/good/depth_histogram.png: Is a directory",
        )
        .file("good/summary.json", good.clone())
        .file("good/depth_histogram.png/", ""),
        // The comparison chart under a regular file.
        case(
            "plot_compare_under_a_file",
            &["plot", "--compare", "{tmp}/plain/c.png", "{tmp}/good"],
            1,
            "could not write",
        )
        .file("plain", "not a folder")
        .file("good/summary.json", good.clone()),
        // The comparison chart in /proc.
        case(
            "plot_compare_in_proc",
            &["plot", "--compare", "/proc/npuzzle-test.png", "{tmp}/good"],
            1,
            "could not write /proc/npuzzle-test.png",
        )
        .file("good/summary.json", good),
    ]
}

fn all_cases() -> Vec<Case> {
    let mut cases = board_flag_cases();
    cases.extend(board_file_cases());
    cases.extend(solve_method_cases());
    cases.extend(analyze_cases());
    cases.extend(export_draw_cases());
    cases.extend(plot_cases());
    #[cfg(feature = "serve")]
    cases.extend(serve_cases());
    cases
}

/// The table has at least 60 rows (issue 14), and no two share a name.
#[test]
fn the_table_is_large_and_names_are_unique() {
    let cases = all_cases();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    println!("{} cases", cases.len());
    let mut names: Vec<_> = cases.iter().map(|c| c.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "duplicate case names");
}

/// `solve --board`: malformed boards.
#[test]
fn bad_boards_on_the_command_line() {
    check_all(&board_flag_cases());
}

/// `solve FILE`, `solve -`, `solve --batch`: malformed files and streams.
#[test]
fn bad_board_files_stdin_and_batches() {
    check_all(&board_file_cases());
}

/// `solve`: unknown methods, and shapes a method cannot do.
#[test]
fn bad_solve_methods_and_shapes() {
    check_all(&solve_method_cases());
}

/// `analyze`: bad sizes and flags, unwritable output folders.
#[test]
fn bad_analyze_arguments() {
    check_all(&analyze_cases());
}

/// `export`, `draw` and the top level.
#[test]
fn bad_export_draw_and_top_level_arguments() {
    check_all(&export_draw_cases());
}

/// `plot`: missing, garbage and corrupt summaries; unwritable charts.
#[test]
fn bad_plot_input() {
    check_all(&plot_cases());
}

/// `serve`: ranges worded as their rule, a `--build` beyond the memory for builds.
#[cfg(feature = "serve")]
#[test]
fn bad_serve_arguments() {
    check_all(&serve_cases());
}

/// The checks themselves can fail: a row that expects the wrong exit code, the wrong words,
/// or nothing on stdout when something is printed is reported, and so is a folder changed
/// by the run.
#[test]
fn the_checks_catch_what_they_should() {
    let wrong_code = case("wrong_code", &["frobnicate"], 1, "unrecognized");
    let found = problems(&wrong_code, &run(&wrong_code));
    assert_eq!(found, ["exit code Some(2), expected 1"]);
    let wrong_words = case("wrong_words", &["frobnicate"], 2, "no such words");
    let found = problems(&wrong_words, &run(&wrong_words));
    assert_eq!(found, ["stderr lacks \"no such words\""]);
    // A successful 2x2 analysis: exit 0, nothing on stderr, a report on stdout, files.
    let writes = case("writes", &["analyze", "--size", "2"], 0, "");
    let found = problems(&writes, &run(&writes));
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(
        found[0].starts_with("stderr is not exactly one"),
        "{found:?}"
    );
    assert!(found[1].starts_with("stderr does not start"), "{found:?}");
    assert!(
        found[2].starts_with("stdout is \"board        2x2"),
        "{found:?}"
    );
    assert!(found[3].starts_with("the folder changed"), "{found:?}");
    assert!(found[3].contains("output/2x2/summary.json"), "{found:?}");
}

/// The two documented exceptions to "one line on stderr", checked as they are: no
/// subcommand prints the whole help (a usage error, exit 2; `src/main.rs`), and a batch
/// reports each bad line on its own line, then a summary line (README, "Input").
#[test]
fn multi_line_by_design() {
    let help = run(&case("no_subcommand", &[], 2, ""));
    assert_eq!(help.code, Some(2));
    assert!(
        help.stderr.contains("Usage: npuzzle [OPTIONS] <COMMAND>"),
        "{}",
        help.stderr
    );
    assert!(help.stderr.lines().count() > 5, "{}", help.stderr);
    assert!(help.stdout.is_empty());
    assert_eq!(help.before, help.after);

    // Two bad lines of three (a comment and an empty line skipped); the unsolvable line is
    // answered without any table, so nothing is written to the cache.
    let batch = case(
        "batch_bad_lines",
        &["solve", "--batch", "{tmp}/b.txt"],
        2,
        "",
    )
    .file("b.txt", "# boards\n1 2 x 0\n\n3 2 1 0\n1 1 2 0\n");
    let out = run(&batch);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stderr);
    assert!(lines[0].ends_with("/b.txt line 2: 'x' is not a tile number"));
    assert!(
        lines[1].ends_with("/b.txt line 5: tile 1 appears more than once and tile 3 is missing")
    );
    assert!(
        lines[2].ends_with(
            "/b.txt: 2 of 3 boards could not be read (see above); the others were solved"
        )
    );
    assert!(lines.iter().all(|l| l.starts_with("error: ")));
    assert_eq!(
        out.stdout,
        "line,moves,expanded,nodes,seconds,solution\n4,unsolvable,0,0,0.000000,\n"
    );
    assert!(!out.stderr.contains("panicked"));
    assert_eq!(out.before, out.after);
}

/// Issue 61: a batch line that is not text (invalid UTF-8) or longer than 256 KiB (64 before
/// issue 62) is reported
/// in its place, like a line that does not read as a board, and the lines after it are still
/// solved (before, the batch stopped there and the lines after it were lost); the same from
/// a distance table, whose rows stream through other threads.
#[test]
fn batch_bad_lines_of_any_kind() {
    let mut file = b"1 2 3 0\n\xff\xfe 1 2 3 0\n".to_vec();
    file.extend(std::iter::repeat_n(b'1', 300_000));
    file.extend(b"\n0 1 2 3\n1 2 0 3\n");
    let expected = "line,moves,expanded,nodes,seconds,solution\n1,0,";
    let batch = case(
        "batch_bad_lines_any",
        &[
            "solve",
            "--heuristic",
            "manhattan",
            "--batch",
            "{tmp}/b.txt",
        ],
        2,
        "",
    )
    .file("b.txt", file.clone());
    let table = case(
        "batch_bad_lines_any_table",
        &["solve", "--table", "{tmp}/t", "--batch", "{tmp}/b.txt"],
        2,
        "",
    )
    .file("b.txt", file);
    // The 2x2 table, written first (the tree compared is the one after it).
    let tmp = tempfile::tempdir().unwrap();
    let made = Command::cargo_bin("npuzzle")
        .unwrap()
        .args(["analyze", "--size", "2", "--table", "--quiet", "--output"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let table_bytes = fs::read(tmp.path().join("2x2/table.npt")).unwrap();
    let table = table.file("t/table.npt", table_bytes);
    for case in [batch, table] {
        let out = run(&case);
        assert_eq!(out.code, Some(2), "{}", out.stderr);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 3, "{}", out.stderr);
        assert!(
            lines[0].ends_with("/b.txt line 2: not text (invalid UTF-8)"),
            "{}",
            out.stderr
        );
        assert!(
            lines[1].ends_with("/b.txt line 3: longer than 256 KiB, not a board"),
            "{}",
            out.stderr
        );
        assert!(
            lines[2].ends_with(
                "/b.txt: 2 of 5 boards could not be read (see above); the others were solved"
            ),
            "{}",
            out.stderr
        );
        assert!(out.stdout.starts_with(expected), "{}", out.stdout);
        let rows: Vec<&str> = out.stdout.lines().skip(1).collect();
        let numbers: Vec<&str> = rows.iter().map(|r| r.split(',').next().unwrap()).collect();
        assert_eq!(numbers, ["1", "4", "5"], "{}", out.stdout);
        assert!(rows[2].starts_with("5,1,"), "{}", out.stdout);
        assert!(!out.stderr.contains("panicked"));
        assert_eq!(out.before, out.after);
    }
}

/// Defects this table found (issue 14), fixed in `main.rs`: every error line goes through
/// `board::printable`, and a clap usage error keeps its quoted value whole.
///
/// - A path with a newline made the error two lines (every command that names a path:
///   `--output`, `solve FILE`, `--batch`, `plot DIR`).
/// - A path with an escape sequence reached the terminal raw.
/// - A usage error whose value holds a blank line (`"a\n\nb"`) was cut at the blank line:
///   `unrecognized subcommand 'a (see --help)`.
#[test]
fn paths_and_values_with_control_characters_are_escaped() {
    let cases = vec![
        case(
            "output_path_with_newline",
            &["analyze", "--size", "2", "--output", "{tmp}/nl\nfile/out"],
            1,
            r"nl\nfile/out/2x2: Not a directory",
        )
        .file("nl\nfile", "a file"),
        case(
            "export_output_path_with_newline",
            &["export", "--size", "2", "--output", "{tmp}/nl\nfile/out"],
            1,
            r"nl\nfile/out/2x2: Not a directory",
        )
        .file("nl\nfile", "a file"),
        case(
            "draw_output_path_with_newline",
            &["draw", "--size", "2", "--output", "{tmp}/nl\nfile/out"],
            1,
            r"nl\nfile/out/2x2: Not a directory",
        )
        .file("nl\nfile", "a file"),
        case(
            "solve_file_path_with_newline",
            &["solve", "{tmp}/nl\nmissing"],
            2,
            r"nl\nmissing: cannot read",
        ),
        case(
            "batch_path_with_newline",
            &["solve", "--batch", "{tmp}/nl\nmissing"],
            2,
            r"nl\nmissing: cannot read",
        ),
        case(
            "plot_path_with_newline",
            &["plot", "{tmp}/nl\nmissing"],
            2,
            r"nl\nmissing/summary.json",
        ),
        case(
            "output_path_with_escape_sequence",
            &[
                "analyze",
                "--size",
                "2",
                "--output",
                "{tmp}/e\u{1b}[2Jf/out",
            ],
            1,
            r"e\u{1b}[2Jf/out/2x2: Not a directory",
        )
        .file("e\u{1b}[2Jf", "a file"),
        case(
            "usage_value_with_blank_line",
            &["a\n\nb"],
            2,
            r"unrecognized subcommand 'a\n\nb'",
        ),
    ];
    check_all(&cases);
}

/// Issue 23: stdout or stderr on a full device (`/dev/full`). Every subcommand that prints
/// ends with exit 1 and one line on stderr (`cannot write to stdout: No space left on
/// device`), never a panic (exit 101: analyze, export, draw and plot panicked in `print!`);
/// with stderr full too, exit 1 or the command's own error code, still no panic.
#[cfg(target_os = "linux")]
#[test]
fn full_devices_end_in_one_line_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out").display().to_string();
    let saved = dir.path().join("saved");
    let plotted = saved.join("2x2").display().to_string();
    let prepared = std::process::Command::new(env!("CARGO_BIN_EXE_npuzzle"))
        .args(["analyze", "--size", "2", "--quiet", "--output"])
        .arg(&saved)
        .status()
        .unwrap();
    assert!(prepared.success());
    let commands: Vec<Vec<&str>> = vec![
        vec!["analyze", "--size", "2", "--output", &out],
        vec!["export", "--size", "2", "--output", &out],
        vec!["draw", "--size", "2", "--output", &out],
        vec!["plot", &plotted],
        vec!["solve", "--board", "1 2/0 3"],
        vec!["pdb", "--size", "2"],
        vec!["completions", "bash"],
        vec!["man"],
    ];
    let full = || {
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for args in &commands {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_npuzzle"))
            .args(args)
            .env_clear()
            .env("NPUZZLE_CACHE", dir.path().join("cache"))
            .stdout(full())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
        // Notes of the run (e.g. a database saved) may precede the error line.
        assert!(
            err.lines().last().unwrap().starts_with("error: "),
            "{args:?}: {err}"
        );
        // Both streams full: no panic, whatever the code.
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_npuzzle"))
            .args(args)
            .env_clear()
            .env("NPUZZLE_CACHE", dir.path().join("cache"))
            .stdout(full())
            .stderr(full())
            .status()
            .unwrap();
        assert_ne!(o.code(), Some(101), "{args:?}");
        assert!(o.code().is_some(), "{args:?}: killed by a signal");
    }
    // An error message on a full stderr.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_npuzzle"))
        .args(["analyze", "--size", "99"])
        .stderr(full())
        .status()
        .unwrap();
    assert!(matches!(o.code(), Some(1 | 2)), "{o:?}");
}

/// Issue 23: the `wrote` lines on stdout escape control characters in paths, as stderr does.
#[test]
fn paths_on_stdout_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e\u{1b}[2Jf");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_npuzzle"))
        .args(["analyze", "--size", "2", "--output"])
        .arg(&out)
        .env_clear()
        .output()
        .unwrap();
    assert!(o.status.success());
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(!report.contains('\u{1b}'), "{report}");
    assert!(report.contains(r"e\u{1b}[2Jf/2x2/{"), "{report}");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_npuzzle"))
        .arg("plot")
        .arg(out.join("2x2"))
        .env_clear()
        .output()
        .unwrap();
    assert!(o.status.success());
    let report = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        report.trim_end(),
        format!(
            "wrote {}",
            out.join("2x2/depth_histogram.png")
                .display()
                .to_string()
                .replace('\u{1b}', r"\u{1b}")
        )
    );
}

/// Issue 23: `plot` reads at most 16 MiB of a summary.json (an endless one, /dev/zero, was
/// read until memory ran out): a one-line error, quickly. Since issue 49 a device is refused
/// before it is read.
#[cfg(unix)]
#[test]
fn an_endless_summary_is_read_only_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r");
    fs::create_dir(&r).unwrap();
    std::os::unix::fs::symlink("/dev/zero", r.join("summary.json")).unwrap();
    let started = std::time::Instant::now();
    let out = Command::cargo_bin("npuzzle")
        .unwrap()
        .env_clear()
        .arg("plot")
        .arg(&r)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    // Issue 49: a device is not read at all (a FIFO would block).
    assert!(err.contains("not a regular file but a device"), "{err}");
}
