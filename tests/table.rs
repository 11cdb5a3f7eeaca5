//! Issue 25 (first part): `analyze --table` writes `table.npt`, and `solve --table` answers
//! boards from it on the real binary.

use assert_cmd::Command;

fn npuzzle(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("npuzzle")
        .unwrap()
        .env_clear()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn analyze_writes_a_table_and_solve_answers_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().display().to_string();
    let (code, report, err) = npuzzle(&["analyze", "--size", "3", "--table", "--output", &output]);
    assert_eq!(code, Some(0), "{err}");
    assert!(report.contains("table.npt"), "{report}");
    let folder = dir.path().join("3x3");
    // 181,440 boards, two bits each (45,360 bytes), the header, and the boards of the
    // layers of at most 708 boards listed for `sample`.
    let size = std::fs::metadata(folder.join("table.npt")).unwrap().len();
    assert!((45_360..60_000).contains(&size), "{size}");
    let table = folder.display().to_string();
    // An antipode (OEIS A089473: 31 moves), the goal, an unsolvable board.
    let (code, out, _) = npuzzle(&["solve", "--table", &table, "--board", "8 6 7 2 5 4 3 0 1"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("Minimum number of moves = 31"), "{out}");
    assert!(out.contains("Method: table"), "{out}");
    let quiet = |board: &str| npuzzle(&["solve", "--table", &table, "--board", board, "-q"]).1;
    assert_eq!(quiet("8 6 7 2 5 4 3 0 1"), "31\n");
    assert_eq!(quiet("1 2 3 4 5 6 7 8 0"), "0\n");
    assert_eq!(quiet("2 1 3 4 5 6 7 8 0"), "unsolvable\n");
    let batch = dir.path().join("boards.txt");
    std::fs::write(
        &batch,
        "8 6 7 2 5 4 3 0 1\n1 2 3 4 5 6 7 0 8\n2 1 3 4 5 6 7 8 0\n",
    )
    .unwrap();
    let (code, csv, err) = npuzzle(&[
        "solve",
        "--table",
        &table,
        "--batch",
        &batch.display().to_string(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "line,moves,expanded,nodes,seconds,solution");
    assert!(rows[1].starts_with("1,31,"), "{csv}");
    assert!(
        rows[2].starts_with("2,1,") && rows[2].ends_with(",R"),
        "{csv}"
    );
    assert!(rows[3].starts_with("3,unsolvable,"), "{csv}");
    // A board of another shape, the other metric, a damaged file: one line, exit 2.
    let (code, _, err) = npuzzle(&["solve", "--table", &table, "--board", "1 2 3 / 4 0 5"]);
    assert_eq!((code, err.lines().count()), (Some(2), 1), "{err}");
    let (code, _, err) = npuzzle(&[
        "solve",
        "--table",
        &table,
        "--metric",
        "mtm",
        "--board",
        "1 2 3 4 5 6 7 0 8",
    ]);
    assert_eq!((code, err.lines().count()), (Some(2), 1), "{err}");
    let file = folder.join("table.npt");
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let (code, _, err) = npuzzle(&["solve", "--table", &table, "--board", "1 2 3 4 5 6 7 0 8"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("checksum mismatch") && err.lines().count() == 1,
        "{err}"
    );
    // --no-verify skips the checksum; the goal's neighbour is still answered.
    let (code, out, _) = npuzzle(&[
        "solve",
        "--table",
        &table,
        "--no-verify",
        "--board",
        "1 2 3 4 5 6 7 0 8",
        "-q",
    ]);
    assert_eq!((code, out.as_str()), (Some(0), "1\n"));

    // `sample`: the two antipodes, as `solve --batch` reads them, each about half the time.
    let (code, csv, err) = npuzzle(&[
        "sample",
        "--table",
        &table,
        "--no-verify",
        "--depth",
        "31",
        "--count",
        "1000",
        "--seed",
        "5",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let mut lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.remove(0), "board,depth");
    assert_eq!(lines.len(), 1000);
    let first = lines
        .iter()
        .filter(|l| **l == "8 6 7 / 2 5 4 / 3 0 1,31")
        .count();
    let second = lines
        .iter()
        .filter(|l| **l == "6 4 7 / 8 5 0 / 3 2 1,31")
        .count();
    assert_eq!(first + second, 1000, "{csv}");
    assert!((400..600).contains(&first), "{first}");
    let (code, _, err) = npuzzle(&["sample", "--table", &table, "--no-verify", "--depth", "32"]);
    assert_eq!((code, err.lines().count()), (Some(2), 1), "{err}");

    // The multi-tile metric: the table answers in its own metric.
    let (code, _, err) = npuzzle(&[
        "analyze", "--rows", "2", "--cols", "3", "--metric", "mtm", "--table", "--output", &output,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let mtm = dir.path().join("2x3-mtm").display().to_string();
    let (_, out, _) = npuzzle(&["solve", "--table", &mtm, "--board", "1 2 3 / 0 4 5", "-q"]);
    assert_eq!(out, "1\n", "one move of two tiles");

    // Refused before any work: multi-tile tables above 12 cells (made from every board's
    // depth), and partial runs.
    for args in [
        vec![
            "analyze", "--rows", "2", "--cols", "7", "--metric", "mtm", "--table",
        ],
        vec!["analyze", "--size", "3", "--table", "--max-depth", "5"],
    ] {
        let (code, _, err) = npuzzle(&args);
        assert_eq!((code, err.lines().count()), (Some(2), 1), "{args:?}: {err}");
    }
}

/// `solve --heuristic exact` answers from a distance table in the cache folder
/// (`CACHE/<R>x<C>/table.npt`, where `analyze --table --output CACHE` writes it), with the
/// lengths of the exact table it would build otherwise, and says so in a note; a damaged
/// table there is named in a note and the exact table is built instead.
#[test]
fn the_exact_heuristic_reads_a_cached_table() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().display().to_string();
    let (code, _, err) = npuzzle(&[
        "analyze", "--rows", "2", "--cols", "4", "--table", "--output", &dir,
    ]);
    assert_eq!(code, Some(0), "{err}");
    // A board of the last layer, drawn from the table, and the goal.
    let table = cache.path().join("2x4").display().to_string();
    let (_, csv, _) = npuzzle(&["sample", "--table", &table, "--depth", "36", "--count", "1"]);
    let deepest = csv
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    let boards = [deepest.as_str(), "1 2 3 4 / 5 6 7 0"];
    let solve_in = |board: &str, cache: &str, quiet: bool| {
        let mut args = vec![
            "solve",
            "--rows",
            "2",
            "--cols",
            "4",
            "--board",
            board,
            "--heuristic",
            "exact",
            "--cache",
            cache,
        ];
        if quiet {
            args.push("-q");
        }
        npuzzle(&args)
    };
    let solve = |board: &str, cache: &str| solve_in(board, cache, true);
    let elsewhere = tempfile::tempdir().unwrap();
    let built = elsewhere.path().display().to_string();
    for board in boards {
        let (code, _, err) = solve_in(board, &dir, false);
        assert_eq!(code, Some(0), "{err}");
        assert!(err.contains("note: exact distances from"), "{err}");
        let built_err = solve_in(board, &built, false).2;
        assert!(!built_err.contains("exact distances from"), "{built_err}");
        assert_eq!(solve(board, &dir).1, solve(board, &built).1, "{board}");
    }
    // OEIS A090035: 2x4's radius is 36.
    assert_eq!(solve(boards[0], &dir).1, "36\n");
    // A damaged table: named, and not used.
    let file = cache.path().join("2x4").join("table.npt");
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let (code, out, err) = solve_in(boards[0], &dir, false);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("not used") && err.contains("checksum"),
        "{err}"
    );
    assert!(out.contains("36"), "{out}");
}

/// Issue 48: a batch longer than the chunks the solver streams (16,384 lines), with comments,
/// empty lines and a bad line among the boards, comes out in line order, every board once,
/// the bad line reported on stderr and counted (exit 2); the same rows as standard input
/// gives them, one line at a time (the seconds aside).
#[test]
fn a_long_batch_streams_in_line_order() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().display().to_string();
    let (code, _, err) = npuzzle(&[
        "analyze", "--rows", "2", "--cols", "3", "--table", "--quiet", "--output", &output,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let table = dir.path().join("2x3").display().to_string();
    let shape = npuzzle::Shape::new(2, 3).unwrap();
    let mut text = String::from("# every 2x3 board, 56 times over\n");
    let mut boards = 0;
    for k in 0..56 * 720u64 {
        let board = npuzzle::Board::from_rank(shape, k * 7 % 720);
        let tiles: Vec<String> = board.tiles().map(|t| t.to_string()).collect();
        text.push_str(&tiles.join(" "));
        text.push('\n');
        boards += 1;
        if k == 20_000 {
            text.push_str("1 2 3 4 5 5\n\n# a comment\n");
            boards += 1;
        }
    }
    let batch = dir.path().join("boards.txt");
    std::fs::write(&batch, &text).unwrap();
    let batch = batch.display().to_string();
    let (code, csv, err) = npuzzle(&["solve", "--table", &table, "--batch", &batch]);
    assert_eq!(code, Some(2), "{err}");
    let bad_line = 20_003; // the comment, then 20,001 boards, then the bad one
    assert!(
        err.contains(&format!("line {bad_line}: "))
            && err.contains(&format!("1 of {boards} boards")),
        "{err}"
    );
    let numbers: Vec<usize> = csv
        .lines()
        .skip(1)
        .map(|row| row.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), boards - 1);
    assert!(
        numbers.windows(2).all(|w| w[0] < w[1]),
        "rows out of line order"
    );
    assert!(!numbers.contains(&bad_line));
    // The same rows from standard input, one line at a time.
    let piped = Command::cargo_bin("npuzzle")
        .unwrap()
        .env_clear()
        .args(["solve", "--table", &table, "--batch", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    let without_seconds = |csv: &str| -> Vec<String> {
        csv.lines()
            .map(|row| {
                let mut fields: Vec<&str> = row.split(',').collect();
                fields.remove(4);
                fields.join(",")
            })
            .collect()
    };
    assert_eq!(
        without_seconds(&String::from_utf8(piped.stdout).unwrap()),
        without_seconds(&csv)
    );
}
