//! Issue 25 (first part): `analyze --table` writes `table.npt`, and `solve --table` answers
//! boards from it on the real binary.

fn npuzzle(args: &[&str]) -> (Option<i32>, String, String) {
    let out = crate::support::npuzzle().args(args).output().unwrap();
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
        err.contains("fails its checksum") && err.lines().count() == 1,
        "{err}"
    );
    // solve refuses --no-verify: one line, exit 2, no answer.
    let (code, out, err) = npuzzle(&[
        "solve",
        "--table",
        &table,
        "--no-verify",
        "--board",
        "1 2 3 4 5 6 7 0 8",
        "-q",
    ]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert!(
        err.contains("--no-verify is refused") && err.lines().count() == 1,
        "{err}"
    );

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
    let piped = crate::support::npuzzle()
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

/// A 3x3 table in a temporary folder (`analyze --size 3 --table`): the folder, and the
/// table's path.
fn table_3x3() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().display().to_string();
    let (code, _, err) = npuzzle(&[
        "analyze", "--size", "3", "--table", "--quiet", "--output", &output,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let table = dir.path().join("3x3").join("table.npt");
    (dir, table)
}

/// Issue 49, the hostile trial's damaged tables: cut short and padded back, or 400 bytes of
/// its body flipped. `solve` never answers from them (the checksum is always checked, and
/// `--no-verify` is refused), and the library's unverified walk of the cut table is an error
/// naming the damage, never "unsolvable": `1 5 3 / 8 7 2 / 6 4 0` lies 22 moves from the goal
/// (the intact table's answer, and BFS's: `solve --algorithm bfs`).
#[test]
fn a_damaged_table_never_gives_a_wrong_answer() {
    let (dir, table) = table_3x3();
    let board = "1 5 3 8 7 2 6 4 0";
    let intact = table.display().to_string();
    let (code, out, err) = npuzzle(&["solve", "--table", &intact, "--board", board, "-q"]);
    assert_eq!((code, out.as_str()), (Some(0), "22\n"), "{err}");
    let (_, out, _) = npuzzle(&["solve", "--algorithm", "bfs", "--board", board, "-q"]);
    assert_eq!(out, "22\n");

    // Cut short and padded back: `head -c 11000 table.npt > t.npt; truncate -s 56281 t.npt`,
    // then its last 8 bytes (the block's CRC and the header's) put back, so that only the
    // codes are damaged.
    let bytes = std::fs::read(&table).unwrap();
    let mut cut = bytes[..11_000].to_vec();
    cut.resize(bytes.len() - 8, 0);
    cut.extend_from_slice(&bytes[bytes.len() - 8..]);
    let cut_path = dir.path().join("t.npt");
    std::fs::write(&cut_path, &cut).unwrap();
    let cut_name = cut_path.display().to_string();
    for extra in [&["--no-verify"][..], &[]] {
        let mut args = vec!["solve", "--table", &cut_name, "--board", board];
        args.extend_from_slice(extra);
        let (code, out, err) = npuzzle(&args);
        assert_eq!((code, out.as_str()), (Some(2), ""), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let opened = npuzzle::table::DistanceTable::open(&cut_path, false).unwrap();
    let b = npuzzle::Board::parse_tiles(npuzzle::Shape::new(3, 3).unwrap(), board).unwrap();
    let answer = opened.solve(&b);
    assert!(
        matches!(&answer, Err(e) if e.to_string().contains("damaged")),
        "{answer:?}"
    );

    // Nothing is written beside the table (issue 61: no stamp).
    let beside: Vec<_> = std::fs::read_dir(table.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");

    // 400 scattered bytes of the body flipped in place: no board is answered.
    let mut flipped = bytes.clone();
    let mut x = 12345u64;
    for _ in 0..400 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = 2_000 + (x >> 33) as usize % (bytes.len() - 2_004);
        flipped[at] ^= 1 + (x >> 20) as u8 % 255;
    }
    std::fs::write(&table, &flipped).unwrap();
    // (A depth whose boards the header lists, such as 1, is drawn from the header, which its
    // own CRC proves whole; depth 20 is drawn from the codes.)
    let (code, csv, _) = npuzzle(&["sample", "--table", &cut_name, "--depth", "20"]);
    assert_eq!(
        (code, csv.as_str()),
        (Some(2), ""),
        "no sample from a damaged table either"
    );
    let mut batch = String::new();
    let shape = npuzzle::Shape::new(3, 3).unwrap();
    for k in 0..300u64 {
        let tiles: Vec<String> = npuzzle::Board::from_rank(shape, k * 1201 % 362_880)
            .tiles()
            .map(|t| t.to_string())
            .collect();
        batch.push_str(&tiles.join(" "));
        batch.push('\n');
    }
    let batch_path = dir.path().join("boards.txt");
    std::fs::write(&batch_path, batch).unwrap();
    let (code, csv, err) = npuzzle(&[
        "solve",
        "--table",
        &intact,
        "--batch",
        &batch_path.display().to_string(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        csv.lines().count() <= 1 && err.contains("checksum"),
        "{csv}{err}"
    );
}

/// Issue 73: a batch on a table with a damaged block of codes, whose lines mix boards the
/// damage stops (3), lines that are not boards (4) and an unsolvable board (answered): the
/// last line counts the 7 boards not solved, not only the 4 unread ones ("4 of 8 ... the
/// others were solved"), and the exit is bad input's.
#[test]
fn a_batch_on_a_damaged_table_counts_every_board_not_solved() {
    let (dir, table) = table_3x3();
    let mut bytes = std::fs::read(&table).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    let damaged = dir.path().join("damaged.npt");
    std::fs::write(&damaged, &bytes).unwrap();
    let batch = dir.path().join("boards.txt");
    std::fs::write(
        &batch,
        "7 4 8 / 3 0 1 / 5 6 2\n4 1 6 / 2 3 7 / 0 8 5\n8 7 0 / 6 5 4 / 2 1 3\n1 2 3\nx y z\n\
         1 1 2 3 4 5 6 7 8\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n1 2 3 4 5 6 8 7 0\n",
    )
    .unwrap();
    let batch = batch.display().to_string();
    let (code, csv, err) = npuzzle(&[
        "solve",
        "--table",
        &damaged.display().to_string(),
        "--batch",
        &batch,
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        csv,
        "line,moves,expanded,nodes,seconds,solution\n8,unsolvable,0,0,0.000000,\n"
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 8, "{err}");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("fails its checksum"))
            .count(),
        3,
        "{err}"
    );
    assert_eq!(
        lines[7],
        format!(
            "error: {batch}: 7 of 8 boards were not solved: 4 could not be read and 3 failed \
             (see above)"
        )
    );
}

/// The identity line issue 49's stamps recorded for `path` (`.NAME.verified`,
/// `.NAME.checked`: device, inode, length, modification and change times), as a forger
/// writes it beside a file it damaged.
#[cfg(unix)]
fn forged_stamp(path: &std::path::Path, kind: &str) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).unwrap();
    let line = format!(
        "npuzzle stamp 1: dev {} ino {} len {} mtime {}.{:09} ctime {}.{:09}\n",
        m.dev(),
        m.ino(),
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec()
    );
    let name = path.file_name().unwrap().to_string_lossy();
    std::fs::write(path.with_file_name(format!(".{name}.{kind}")), line).unwrap();
}

/// Issue 61: a stamp forged beside a damaged table (`.table.npt.verified`, which issue 49's
/// builds took as proof that this very file had passed its checksum) no longer hides the
/// damage: what proves the codes whole is in the file (a CRC-32 per block, checked on its
/// first read), and `solve --table` ends with one line naming the block and exit 2, never an
/// answer; the intact table still answers 22.
#[cfg(unix)]
#[test]
fn a_stamp_forged_beside_a_damaged_table_hides_nothing() {
    let (_dir, table) = table_3x3();
    let name = table.display().to_string();
    let board = "1 5 3 8 7 2 6 4 0";
    let (code, out, err) = npuzzle(&["solve", "--table", &name, "--board", board, "-q"]);
    assert_eq!((code, out.as_str()), (Some(0), "22\n"), "{err}");
    // One code byte rewritten in place (the same file, the same length: the last four
    // boards of the index, off the walk's path), then the stamp. Issue 49's build answered
    // 22 from it, exit 0, the damage unseen.
    let mut bytes = std::fs::read(&table).unwrap();
    let len = bytes.len();
    bytes[len - 9] ^= 0x55;
    std::fs::write(&table, &bytes).unwrap();
    forged_stamp(&table, "verified");
    for args in [
        vec!["solve", "--table", &name, "--board", board, "-q"],
        vec!["sample", "--table", &name, "--depth", "20"],
    ] {
        let (code, out, err) = npuzzle(&args);
        assert_ne!(code, Some(0), "{args:?}: {out}{err}");
        assert_eq!(out, "", "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("block 0 of the codes") && err.contains("fails its checksum"),
            "{args:?}: {err}"
        );
    }
    // The help says what is checked, and no longer that a stamp can stand for it.
    let (_, help, _) = npuzzle(&["solve", "--help"]);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("each block of 1 MiB of its codes against its CRC-32 the first time a walk reads it, always"),
        "{help}"
    );
    assert!(!help.contains("one pass over the file"), "{help}");
    let (_, man, _) = npuzzle(&["man"]);
    assert!(!man.contains("stamp"), "{man}");
}

/// Issue 61: a 3x3 pattern database forged in the cache folder (the entry of one board's
/// placement raised by 10: the parity kept, above the Manhattan bound, missed by the spot
/// check; its CRC recomputed) with a forged
/// `.NAME.checked` stamp beside it is found by the full check all the same: `solve` rebuilds
/// it and answers the board's true distance, never a longer path.
#[cfg(unix)]
#[test]
fn a_stamp_forged_beside_a_forged_pattern_database_hides_nothing() {
    use npuzzle::solve::cache;
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().display().to_string();
    let shape = npuzzle::Shape::new(3, 3).unwrap();
    let board = "8 6 7 2 5 4 3 0 1";
    let solve = || {
        npuzzle(&[
            "solve",
            "--board",
            board,
            "--heuristic",
            "pdb",
            "--cache",
            &cache_dir,
            "-q",
        ])
    };
    let (code, out, err) = solve();
    assert_eq!((code, out.as_str()), (Some(0), "31\n"), "{err}");
    let tiles = [1u8, 2, 3, 4];
    let path = dir.path().join(cache::file_name(shape, &tiles));
    let db = cache::decode(&std::fs::read(&path).unwrap(), shape, &tiles).unwrap();
    let b = npuzzle::Board::parse_tiles(shape, board).unwrap();
    let mut table = db.table().to_vec();
    // The entry of the board's placement.
    let value = db.value(&b);
    let index = (0..table.len())
        .find(|&i| {
            let mut t = db.table().to_vec();
            t[i] = t[i].wrapping_add(1);
            npuzzle::solve::pdb::PatternDb::from_table(shape, &tiles, t)
                .unwrap()
                .value(&b)
                != value
        })
        .unwrap();
    table[index] += 10;
    let forged = npuzzle::solve::pdb::PatternDb::from_table(shape, &tiles, table).unwrap();
    assert_eq!(forged.check(), Ok(()));
    assert_eq!(
        forged.spot_check(4096, 9),
        Ok(()),
        "the spot check finds it"
    );
    std::fs::write(&path, cache::encode(&forged)).unwrap();
    forged_stamp(&path, "checked");
    let (code, out, err) = solve();
    assert_eq!((code, out.as_str()), (Some(0), "31\n"), "{err}");
    assert_eq!(
        cache::decode(&std::fs::read(&path).unwrap(), shape, &tiles).unwrap(),
        db,
        "rebuilt"
    );
}

/// Issue 49: `sample` prints each board as it draws it (the same boards for a seed, a shorter
/// count giving the first lines of a longer one), returns at once with exit 0 when its reader
/// stops (`--count 18446744073709551615 | head -1`), refuses a depth no board has, and ends
/// with a one-line error rather than loop forever on an unverified table whose codes were
/// zeroed.
#[test]
fn sample_streams_and_always_ends() {
    let (dir, table) = table_3x3();
    let name = table.display().to_string();
    let draw = |depth: &str, count: &str| {
        npuzzle(&[
            "sample", "--table", &name, "--depth", depth, "--count", count, "--seed", "3",
        ])
    };
    let (code, few, err) = draw("25", "5");
    assert_eq!(code, Some(0), "{err}");
    let (_, many, _) = draw("25", "2000");
    assert_eq!(few.lines().count(), 6);
    assert!(many.starts_with(&few), "{few}\n{many}");
    assert_eq!(draw("25", "5").1, few);
    // Each board lies 25 moves away.
    let boards: Vec<&str> = few
        .lines()
        .skip(1)
        .map(|l| l.strip_suffix(",25").unwrap())
        .collect();
    for board in boards {
        let (_, out, _) = npuzzle(&["solve", "--table", &name, "--board", board, "-q"]);
        assert_eq!(out, "25\n", "{board}");
    }
    // 3x3's radius is 31 (OEIS A089473): nothing lies at 32.
    let (code, out, err) = draw("32", "1");
    assert_eq!(
        (code, out.as_str(), err.lines().count()),
        (Some(2), "", 1),
        "{err}"
    );

    // An endless count read by `head -1`: the header, then exit 0 once the pipe closes.
    use assert_cmd::cargo::CommandCargoExt;
    let mut child = std::process::Command::cargo_bin("npuzzle")
        .unwrap()
        .args([
            "sample",
            "--table",
            &name,
            "--depth",
            "31",
            "--count",
            "18446744073709551615",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    {
        use std::io::BufRead;
        let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
        reader.read_line(&mut first).unwrap();
        reader.read_line(&mut first).unwrap();
    }
    assert!(first.starts_with("board,depth\n"), "{first}");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("sample went on after its reader stopped");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));

    // Zeroed codes, checksum not verified: a one-line error, not an endless loop.
    let mut bytes = std::fs::read(&table).unwrap();
    let len = bytes.len();
    let codes = 181_440 / 4;
    bytes[len - 8 - codes..len - 8].fill(0);
    let zeroed = dir.path().join("zeroed.npt");
    std::fs::write(&zeroed, &bytes).unwrap();
    let zeroed = zeroed.display().to_string();
    let (code, out, err) = npuzzle(&[
        "sample",
        "--table",
        &zeroed,
        "--no-verify",
        "--depth",
        "20",
        "--count",
        "3",
    ]);
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert!(err.contains("damaged") && err.lines().count() == 1, "{err}");
}

/// Issue 49: a table answers only the question it was made for. `--metric stm` with a
/// multi-tile table is refused naming both metrics (without `--metric` the table's is used:
/// `1 2 3 / 0 4 5` is one multi-tile move); a table made for another goal is refused when
/// `--goal` names another one, and otherwise named, on stderr and in the report.
#[test]
fn a_table_of_another_metric_or_goal_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().display().to_string();
    let (code, _, err) = npuzzle(&[
        "analyze", "--rows", "2", "--cols", "3", "--metric", "mtm", "--table", "--quiet",
        "--output", &output,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let mtm = dir.path().join("2x3-mtm").display().to_string();
    let (code, out, err) = npuzzle(&[
        "solve",
        "--table",
        &mtm,
        "--metric",
        "stm",
        "--board",
        "1 2 3 / 0 4 5",
        "-q",
    ]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert!(
        err.contains("multi-tile (mtm)") && err.contains("single-tile (stm)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, out, _) = npuzzle(&["solve", "--table", &mtm, "--board", "1 2 3 / 0 4 5", "-q"]);
    assert_eq!((code, out.as_str()), (Some(0), "1\n"));

    // 3x3 towards the blank in the middle: the standard goal is 14 moves from it (BFS, below).
    let (_, out, _) = npuzzle(&[
        "solve",
        "--algorithm",
        "bfs",
        "--board",
        "1 2 3 4 0 5 6 7 8",
        "-q",
    ]);
    assert_eq!(out, "14\n");
    let (code, _, err) = npuzzle(&[
        "analyze",
        "--size",
        "3",
        "--goal",
        "1 2 3 / 4 0 5 / 6 7 8",
        "--table",
        "--quiet",
        "--output",
        &output,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let other = dir.path().join("3x3-goal-123495678").display().to_string();
    let standard = "1 2 3 4 5 6 7 8 0";
    let (code, out, err) = npuzzle(&["solve", "--table", &other, "--board", standard, "-q"]);
    assert_eq!((code, out.as_str()), (Some(0), "14\n"));
    assert!(
        err.contains("warning:") && err.contains("123495678"),
        "{err}"
    );
    let (code, out, _) = npuzzle(&["solve", "--table", &other, "--board", standard]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("Method: table (to its goal 123495678)"),
        "{out}"
    );
    let (code, out, err) = npuzzle(&[
        "solve", "--table", &other, "--goal", standard, "--board", standard, "-q",
    ]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert!(
        err.contains("--goal asks for") && err.lines().count() == 1,
        "{err}"
    );
    let (code, out, err) = npuzzle(&[
        "solve",
        "--table",
        &other,
        "--goal",
        "1 2 3 / 4 0 5 / 6 7 8",
        "--board",
        standard,
        "-q",
    ]);
    assert_eq!((code, out.as_str(), err.as_str()), (Some(0), "14\n", ""));
}

/// Issue 49: a table truncated under a running `solve --batch` (another process cuts the
/// file) is a one-line error and exit 1, not a death by SIGBUS (exit 135).
#[test]
fn a_table_truncated_under_a_batch_is_a_clean_error() {
    use std::io::{Read, Write};
    let (_dir, table) = table_3x3();
    let name = table.display().to_string();
    use assert_cmd::cargo::CommandCargoExt;
    let mut child = std::process::Command::cargo_bin("npuzzle")
        .unwrap()
        .env_clear()
        .args(["solve", "--table", &name, "--batch", "-", "-q"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let drain = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let mut stdin = child.stdin.take().unwrap();
    let shape = npuzzle::Shape::new(3, 3).unwrap();
    let line = |k: u64| {
        let tiles: Vec<String> = npuzzle::Board::from_rank(shape, k * 7919 % 362_880)
            .tiles()
            .map(|t| t.to_string())
            .collect();
        tiles.join(" ") + "\n"
    };
    for k in 0..100 {
        stdin.write_all(line(k).as_bytes()).unwrap();
    }
    stdin.flush().unwrap();
    // Once the run has mapped the table (checked whole), cut it.
    let maps = format!("/proc/{}/maps", child.id());
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&maps).is_ok_and(|m| m.contains(&name)) {
        assert!(
            started.elapsed().as_secs() < 60,
            "the table was never mapped"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&table)
        .unwrap()
        .set_len(0)
        .unwrap();
    for k in 100..20_000 {
        if stdin.write_all(line(k).as_bytes()).is_err() {
            break;
        }
    }
    drop(stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    let _ = drain.join();
    assert_eq!(status.code(), Some(1), "{status:?} {err}");
    assert!(
        err.contains("the table changed under the run") && err.lines().count() == 1,
        "{err}"
    );
}

/// Issue 50, the `stale/` trap: a plain `analyze` after an `analyze --table` sets the table
/// aside and says so on stderr even with `--quiet`; `solve --table` on the folder then names
/// `stale/` and `--table` instead of a bare "No such file or directory".
#[test]
fn a_table_set_aside_is_said_and_named() {
    let (dir, _) = table_3x3();
    let output = dir.path().display().to_string();
    let (code, _, err) = npuzzle(&["analyze", "--size", "3", "--quiet", "--output", &output]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("warning: moved table.npt of an earlier run to") && err.contains("stale"),
        "{err}"
    );
    let folder = dir.path().join("3x3").display().to_string();
    let (code, _, err) = npuzzle(&["solve", "--table", &folder, "--board", "123456708"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("stale") && err.contains("--table") && !err.contains("No such file"),
        "{err}"
    );
}
