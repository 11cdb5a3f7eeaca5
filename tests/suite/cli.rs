//! The real binary: outputs present, parseable and consistent; bad input; determinism; plot.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use crate::support::npuzzle;
use predicates::prelude::*;

/// One hermetic command: the built binary, an empty environment.
fn analyze(out: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    npuzzle()
        .arg("analyze")
        .args(args)
        .arg("--output")
        .arg(out)
        .assert()
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

#[test]
fn analyze_3x3_writes_consistent_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    analyze(tmp.path(), &["--size", "3"])
        .success()
        .stdout(predicate::str::contains("max depth    31 moves"))
        .stdout(predicate::str::contains(
            "components   2 (sizes: 2 x 181,440; the goal's by BFS",
        ))
        .stderr(predicate::str::is_empty());
    let dir = tmp.path().join("3x3");

    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["boards"], 362_880);
    assert_eq!(summary["edges"], 483_840);
    assert_eq!(summary["reachable"], 181_440);
    assert_eq!(summary["max_depth"], 31);
    assert_eq!(summary["components"]["count"], 2);
    assert_eq!(summary["hardest"]["count"], 2);

    // nodes.csv: every board once, in rank order; depth empty exactly off the goal's component.
    let (header, nodes) = read_csv(&dir.join("nodes.csv"));
    assert_eq!(header, ["board", "rank", "component", "depth"]);
    assert_eq!(nodes.len(), 362_880);
    let mut depth_of: HashMap<String, Option<u32>> = HashMap::new();
    let mut component_of: HashMap<String, String> = HashMap::new();
    for (i, row) in nodes.iter().enumerate() {
        assert_eq!(row[1], i.to_string());
        let depth = (!row[3].is_empty()).then(|| row[3].parse::<u32>().unwrap());
        assert_eq!(
            depth.is_some(),
            row[2] == "0",
            "depth only in the goal's component"
        );
        depth_of.insert(row[0].clone(), depth);
        component_of.insert(row[0].clone(), row[2].clone());
    }
    assert_eq!(depth_of.len(), 362_880, "labels are distinct");
    assert_eq!(depth_of["123456789"], Some(0));

    // edges.csv: R labels, each edge joins boards of one component whose depths differ by 1.
    let (header, edges) = read_csv(&dir.join("edges.csv"));
    assert_eq!(header, ["from", "to"]);
    assert_eq!(edges.len(), 483_840);
    for e in &edges {
        assert_eq!(component_of[&e[0]], component_of[&e[1]]);
        if let (Some(a), Some(b)) = (depth_of[&e[0]], depth_of[&e[1]]) {
            assert_eq!(a.abs_diff(b), 1, "{} - {}", e[0], e[1]);
        }
    }

    // depths.csv agrees with nodes.csv and summary.json.
    let (header, depths) = read_csv(&dir.join("depths.csv"));
    assert_eq!(header, ["depth", "count", "fraction"]);
    let mut histogram = vec![0u64; 32];
    for d in depth_of.values().flatten() {
        histogram[*d as usize] += 1;
    }
    for (d, row) in depths.iter().enumerate() {
        assert_eq!(row[0], d.to_string());
        assert_eq!(row[1].parse::<u64>().unwrap(), histogram[d]);
        assert_eq!(summary["depth_counts"][d], histogram[d]);
        let fraction: f64 = row[2].parse().unwrap();
        assert!((fraction - histogram[d] as f64 / 181_440.0).abs() < 1e-12);
    }
    assert_eq!(depths.len(), 32);

    // hardest.txt shows both antipodes as grids.
    let hardest = fs::read_to_string(dir.join("hardest.txt")).unwrap();
    assert!(hardest.contains("8 6 7\n2 5 4\n3 . 1"), "{hardest}");
    assert!(hardest.contains("6 4 7\n8 5 .\n3 2 1"), "{hardest}");

    let png = fs::read(dir.join("depth_histogram.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn two_runs_write_identical_bytes_and_plot_regenerates_the_chart() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    // The same command, run in two folders (summary.json records the command line).
    let run = |dir: &Path| {
        npuzzle()
            .current_dir(dir)
            .args([
                "analyze", "--rows", "2", "--cols", "4", "--quiet", "--output", ".",
            ])
            .assert()
            .success()
            .stdout(predicate::str::is_empty());
    };
    run(a.path());
    run(b.path());
    let files = [
        "edges.csv",
        "nodes.csv",
        "depths.csv",
        "hardest.txt",
        "summary.json",
        "depth_histogram.png",
    ];
    for f in files {
        let x = fs::read(a.path().join("2x4").join(f)).unwrap();
        let y = fs::read(b.path().join("2x4").join(f)).unwrap();
        assert!(x == y, "{f} differs between runs");
    }
    let chart = a.path().join("2x4/depth_histogram.png");
    let before = fs::read(&chart).unwrap();
    fs::remove_file(&chart).unwrap();
    npuzzle()
        .arg("plot")
        .arg(a.path().join("2x4"))
        .assert()
        .success();
    assert_eq!(fs::read(&chart).unwrap(), before);
    let compare = a.path().join("compare.png");
    npuzzle()
        .args(["plot", "--compare"])
        .arg(&compare)
        .arg(a.path().join("2x4"))
        .arg(b.path().join("2x4"))
        .assert()
        .success();
    assert!(compare.exists());
    // Issue 50: `plot DIR/summary.json` and `--output FILE` draw the same chart elsewhere.
    let elsewhere = a.path().join("elsewhere.png");
    npuzzle()
        .args(["plot", "--output"])
        .arg(&elsewhere)
        .arg(a.path().join("2x4/summary.json"))
        .assert()
        .success();
    assert_eq!(fs::read(&elsewhere).unwrap(), before);
    // A forgotten or unsupported chart file is a usage error that says what it must be, and
    // nothing is written.
    for (flag, file, what) in [
        ("--compare", a.path().join("2x4"), "was FILE forgotten?"),
        (
            "--compare",
            a.path().join("c.jpg"),
            "must be a .png or .svg file",
        ),
        (
            "--output",
            a.path().join("c"),
            "must be a .png or .svg file",
        ),
    ] {
        npuzzle()
            .args(["plot", flag])
            .arg(&file)
            .arg(b.path().join("2x4"))
            .assert()
            .code(2)
            .stderr(one_line().and(predicate::str::contains(what)))
            .stderr(predicate::str::contains("Image").not());
    }
    assert!(!a.path().join("c.jpg").exists() && !a.path().join("c").exists());
    npuzzle()
        .args(["plot", "--output"])
        .arg(&elsewhere)
        .arg(a.path().join("2x4"))
        .arg(b.path().join("2x4"))
        .assert()
        .code(2)
        .stderr(one_line().and(predicate::str::contains("give one DIR")));
}

/// The `<text>` elements of an SVG (parsed as XML, so it must be well formed): their words
/// (no-break spaces read as spaces) and `text-anchor`.
fn svg_texts(svg: &str) -> Vec<(String, String)> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let text = n.text().unwrap_or("").trim_matches('\n');
            let anchor = n.attribute("text-anchor").unwrap_or("start");
            (text.replace('\u{a0}', " "), anchor.to_string())
        })
        .collect()
}

/// Issue 50: `plot --output FILE.svg` and `plot --compare FILE.svg` write SVG charts for
/// papers: well-formed, their words as `<text>` elements, the same bytes every time; the PNG
/// stays the default; any other extension is a usage error naming both.
#[test]
fn plot_draws_svg_charts() {
    let tmp = tempfile::tempdir().unwrap();
    analyze(tmp.path(), &["--rows", "2", "--cols", "3", "--quiet"]).success();
    analyze(tmp.path(), &["--size", "2", "--quiet"]).success();
    let dir = tmp.path().join("2x3");
    let png = fs::read(dir.join("depth_histogram.png")).unwrap();

    let chart = tmp.path().join("chart.svg");
    npuzzle()
        .args(["plot", "--output"])
        .arg(&chart)
        .arg(&dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("chart.svg"));
    let svg = fs::read(&chart).unwrap();
    let texts = svg_texts(std::str::from_utf8(&svg).unwrap());
    let words: Vec<&str> = texts.iter().map(|(t, _)| t.as_str()).collect();
    for expected in [
        "2x3 sliding puzzle: 360 solvable boards, God's number 21",
        "depth (moves from the goal)",
        "share of solvable boards (%)",
        "hardest board (21 moves)",
    ] {
        assert!(words.contains(&expected), "{expected:?} in {words:?}");
    }
    // The depth axis: every other depth to 20, and the radius, 21.
    let depths: Vec<&str> = texts
        .iter()
        .filter(|(t, anchor)| anchor == "middle" && t.parse::<u32>().is_ok())
        .map(|(t, _)| t.as_str())
        .collect();
    assert_eq!(
        depths,
        [
            "0", "2", "4", "6", "8", "10", "12", "14", "16", "18", "20", "21"
        ]
    );
    // The hardest board, row by row, as summary.json gives it.
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    for row in summary["hardest"]["boards"][0]["grid"].as_array().unwrap() {
        let row = row.as_str().unwrap();
        assert!(words.contains(&row), "{row:?} in {words:?}");
    }
    // The same bytes again; the folder's PNG untouched.
    npuzzle()
        .args(["plot", "--output"])
        .arg(&chart)
        .arg(dir.join("summary.json"))
        .assert()
        .success();
    assert!(
        fs::read(&chart).unwrap() == svg,
        "two SVGs of one run differ"
    );
    assert!(fs::read(dir.join("depth_histogram.png")).unwrap() == png);

    let compare = tmp.path().join("compare.SVG");
    npuzzle()
        .args(["plot", "--compare"])
        .arg(&compare)
        .arg(&dir)
        .arg(tmp.path().join("2x2"))
        .assert()
        .success();
    let texts = svg_texts(&fs::read_to_string(&compare).unwrap());
    let words: Vec<&str> = texts.iter().map(|(t, _)| t.as_str()).collect();
    for expected in [
        "Depth distributions compared",
        "2x3: 360 solvable boards, max depth 21",
        "2x2: 12 solvable boards, max depth 6",
    ] {
        assert!(words.contains(&expected), "{expected:?} in {words:?}");
    }

    for flag in ["--output", "--compare"] {
        let pdf = tmp.path().join("chart.pdf");
        npuzzle()
            .args(["plot", flag])
            .arg(&pdf)
            .arg(&dir)
            .assert()
            .code(2)
            .stderr(one_line().and(predicate::str::contains(
                "chart.pdf: the chart's file must be a .png or .svg file",
            )));
        assert!(!pdf.exists());
    }
}

#[test]
fn rectangular_ten_cells_and_wide_labels() {
    let tmp = tempfile::tempdir().unwrap();
    analyze(
        tmp.path(),
        &[
            "--rows", "5", "--cols", "2", "--edges", "none", "--nodes", "none",
        ],
    )
    .success()
    .stdout(predicate::str::contains("max depth    55 moves"));
    let dir = tmp.path().join("5x2");
    assert!(!dir.join("edges.csv").exists());
    let hardest = fs::read_to_string(dir.join("hardest.txt")).unwrap();
    assert!(
        hardest.contains("2 hardest board(s), 55 moves"),
        "{hardest}"
    );
    // Ranks instead of labels, on a small board.
    analyze(
        tmp.path(),
        &["--rows", "1", "--cols", "10", "--edges", "ranks", "--quiet"],
    )
    .success();
    let (_, edges) = read_csv(&tmp.path().join("1x10/edges.csv"));
    assert_eq!(edges.len(), 9 * 362_880);
    let (_, nodes) = read_csv(&tmp.path().join("1x10/nodes.csv"));
    assert_eq!(nodes[0][0], "1-2-3-4-5-6-7-8-9-10");
}

/// The second component is stated by default (the image of the goal's under swapping two
/// tiles' labels) and searched with --search-components: the same figures either way, and
/// summary.json and the report say which.
#[test]
fn components_are_stated_or_searched() {
    let tmp = tempfile::tempdir().unwrap();
    let summary = |dir: &str| -> serde_json::Value {
        let text = fs::read_to_string(tmp.path().join(dir).join("2x4/summary.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    analyze(&tmp.path().join("stated"), &["--rows", "2", "--cols", "4"])
        .success()
        .stdout(predicate::str::contains(
            "components   2 (sizes: 2 x 20,160; the goal's by BFS, the other its image",
        ));
    analyze(
        &tmp.path().join("searched"),
        &["--rows", "2", "--cols", "4", "--search-components"],
    )
    .success()
    .stdout(predicate::str::contains(
        "components   2 (sizes: 2 x 20,160)\n",
    ));
    let (mut stated, mut searched) = (summary("stated"), summary("searched"));
    assert_eq!(stated["components"]["found_by"], "theorem");
    assert_eq!(searched["components"]["found_by"], "search");
    assert_eq!(stated["components"]["count"], 2);
    for s in [&mut stated, &mut searched] {
        s["components"].as_object_mut().unwrap().remove("found_by");
        // (The provenance names each command line.)
        s.as_object_mut().unwrap().remove("npuzzle");
    }
    assert_eq!(stated, searched);
    for file in ["depths.csv", "nodes.csv", "edges.csv", "hardest.txt"] {
        let read = |dir: &str| fs::read(tmp.path().join(dir).join("2x4").join(file)).unwrap();
        assert_eq!(read("stated"), read("searched"), "{file}");
    }
}

/// A single `error: ...` line.
/// Runs `script` in bash (for pipes and umasks), `NPUZZLE` standing for the binary and `OUT`
/// for `out`, in an empty environment.
fn in_bash(script: &str, out: &Path) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("npuzzle");
    let script = script
        .replace("NPUZZLE", &format!("'{}'", bin.display()))
        .replace("OUT", &format!("'{}'", out.display()));
    std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .env_clear()
        .output()
        .unwrap()
}

fn one_line() -> impl Predicate<str> {
    predicate::str::starts_with("error: ").and(predicate::function(|s: &str| {
        s.trim_end().lines().count() == 1
    }))
}

/// Issue 14: a size whose cell count overflows is named exactly; a closed stdout ends the
/// run quietly with exit 0 (no panic); an absurd RAYON_NUM_THREADS is capped with a warning.
#[test]
fn hostile_sizes_pipes_and_thread_counts() {
    let tmp = tempfile::tempdir().unwrap();
    analyze(tmp.path(), &["--size", "4294967296"])
        .code(2)
        .stderr(one_line().and(predicate::str::contains(
            "a 4294967296x4294967296 board has 18446744073709551616 cells",
        )));
    // `| true` closes the pipe at once; the report is printed after the analysis.
    let out = in_bash(
        "set -o pipefail; NPUZZLE analyze --size 3 --output OUT | true",
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{out:?}"
    );
    npuzzle()
        .env("RAYON_NUM_THREADS", "99999")
        .args(["analyze", "--size", "2", "--quiet", "--output"])
        .arg(tmp.path())
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: RAYON_NUM_THREADS=99999 is more than 4 threads per core",
        ));
    // Issue 49: rayon's older name for the variable goes through the same cap.
    npuzzle()
        .env("RAYON_RS_NUM_CPUS", "99999")
        .args(["analyze", "--size", "2", "--quiet", "--output"])
        .arg(tmp.path())
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: RAYON_RS_NUM_CPUS=99999 is more than 4 threads per core",
        ));
}

/// Issue 20: `--threads N` sets the one-machine thread count on every command, before or
/// after the subcommand, without switching to the distributed engine (whose report line
/// says "distributed over"); it wins over RAYON_NUM_THREADS; 0 and non-numbers are usage
/// errors; an absurd count is capped with a warning.
#[test]
fn threads_flag_controls_the_one_machine_pool() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &[
            "--threads",
            "1",
            "analyze",
            "--size",
            "3",
            "--edges",
            "none",
        ][..],
        &[
            "analyze",
            "--threads",
            "2",
            "--size",
            "3",
            "--edges",
            "none",
        ],
    ] {
        let out = npuzzle()
            .env("RAYON_NUM_THREADS", "not a number")
            .args(args)
            .arg("--output")
            .arg(tmp.path())
            .assert()
            .success()
            .stderr("");
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(stdout.contains("max depth    31 moves"), "{stdout}");
        assert!(!stdout.contains("distributed"), "{stdout}");
    }
    for bad in ["0", "x", "70000"] {
        npuzzle()
            .args(["analyze", "--size", "2", "--threads", bad])
            .assert()
            .code(2)
            .stderr(one_line().and(predicate::str::contains("--threads")));
    }
    npuzzle()
        .args([
            "analyze",
            "--size",
            "2",
            "--quiet",
            "--threads",
            "65536",
            "--output",
        ])
        .arg(tmp.path())
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: --threads 65536 is more than 4 threads per core",
        ));
}

/// Without the `parquet` feature, asking for Parquet says in one line how to get it, before
/// any work (nothing is written).
#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_says_how_to_build_it() {
    let tmp = tempfile::tempdir().unwrap();
    for flag in ["--edges", "--nodes"] {
        analyze(tmp.path(), &["--size", "2", flag, "parquet"])
            .code(2)
            .stderr(one_line().and(predicate::str::contains(format!(
                "{flag} parquet needs a build with the parquet feature: cargo install --locked \
                 --path . --features parquet"
            ))));
    }
    assert!(!tmp.path().join("2x2").exists());
}

/// With the `parquet` feature: 2x3's edges.parquet and nodes.parquet are written beside the
/// other outputs, and start with Parquet's magic bytes (their contents are checked by
/// DuckDB in CI: scripts/check_parquet.py).
#[cfg(feature = "parquet")]
#[test]
fn parquet_files_are_written() {
    let tmp = tempfile::tempdir().unwrap();
    analyze(
        tmp.path(),
        &[
            "--rows", "2", "--cols", "3", "--edges", "parquet", "--nodes", "parquet",
        ],
    )
    .success();
    for name in ["edges.parquet", "nodes.parquet"] {
        let bytes = fs::read(tmp.path().join("2x3").join(name)).unwrap();
        assert_eq!(&bytes[..4], b"PAR1", "{name}");
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1", "{name}");
    }
    assert!(!tmp.path().join("2x3/edges.csv").exists());
}

#[test]
fn bad_input_gets_one_line_and_exit_code_2() {
    let tmp = tempfile::tempdir().unwrap();
    analyze(tmp.path(), &["--size", "0"])
        .code(2)
        .stderr(one_line().and(predicate::str::contains("at least 1 row")));
    analyze(tmp.path(), &["--size", "4"]).code(2).stderr(
        one_line()
            .and(predicate::str::contains("10,461,394,944,000 reachable"))
            .and(predicate::str::contains("the largest boards that fit")),
    );
    analyze(tmp.path(), &["--rows", "3", "--cols", "5"])
        .code(2)
        .stderr(one_line().and(predicate::str::contains("3x5 has 1,307,674,368,000 boards")));
    // clap's own usage errors, also on one line.
    analyze(tmp.path(), &["--rows", "3"])
        .code(2)
        .stderr(one_line().and(predicate::str::contains("--cols")));
    analyze(tmp.path(), &["--size", "3", "--rows", "3", "--cols", "3"])
        .code(2)
        .stderr(one_line());
    npuzzle()
        .args(["analyze", "--size", "x"])
        .assert()
        .code(2)
        .stderr(one_line());
    npuzzle()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("analyze"));
    npuzzle()
        .args(["plot", "/nonexistent/dir"])
        .assert()
        .code(2)
        .stderr(one_line());
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing written"
    );
}

/// A goal in each form the tool prints a board: label, tile list, grid. The 3x3 goal with the
/// blank in the centre has radius 30 and 148 boards at that depth (OEIS A089474); the results
/// go to their own folder.
#[test]
fn goal_in_each_label_form() {
    let tmp = tempfile::tempdir().unwrap();
    let mut depths = Vec::new();
    // Issue 50: the tiles as one run of digits (0 for the blank) too, as `solve` reads them.
    for goal in [
        "123495678",
        "1 2 3 / 4 0 5 / 6 7 8",
        "1 2 3\n4 . 5\n6 7 8",
        "123405678",
    ] {
        analyze(tmp.path(), &["--size", "3", "--goal", goal, "--quiet"]).success();
        let dir = tmp.path().join("3x3-goal-123495678");
        let summary: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["goal"], "123495678", "{goal:?}");
        assert_eq!(summary["max_depth"], 30, "{goal:?}");
        assert_eq!(summary["hardest"]["count"], 148, "{goal:?}");
        assert_eq!(summary["reachable"], 181_440, "{goal:?}");
        depths.push(fs::read(dir.join("depths.csv")).unwrap());
        let (_, nodes) = read_csv(&dir.join("nodes.csv"));
        let goal_row = nodes.iter().find(|r| r[0] == "123495678").unwrap();
        assert_eq!(goal_row[3], "0", "the goal is at depth 0");
    }
    assert!(depths.windows(2).all(|w| w[0] == w[1]));
    assert!(
        !tmp.path().join("3x3").exists(),
        "the standard goal's folder is untouched"
    );
    // Issue 20: the report gives the farthest boards from this goal, not God's number (31,
    // the radius from the standard goal).
    let report = analyze(
        tmp.path(),
        &["--size", "3", "--goal", "123495678", "--edges", "none"],
    )
    .success();
    let report = String::from_utf8_lossy(&report.get_output().stdout).into_owned();
    assert!(
        report.contains("max depth    farthest boards from this goal: 30 moves\n"),
        "{report}"
    );
    assert!(!report.contains("God's number"), "{report}");
    let standard = analyze(tmp.path(), &["--size", "3", "--edges", "none"]).success();
    let standard = String::from_utf8_lossy(&standard.get_output().stdout).into_owned();
    assert!(
        standard.contains("max depth    31 moves (God's number for 3x3)\n"),
        "{standard}"
    );
    analyze(tmp.path(), &["--size", "3", "--goal", "12345678"])
        .code(2)
        .stderr(one_line().and(predicate::str::contains("--goal")));
}

/// Above 12 cells edges and nodes are refused before any work, with their size.
#[test]
fn large_exports_are_refused_with_their_size() {
    let tmp = tempfile::tempdir().unwrap();
    analyze(
        tmp.path(),
        &["--rows", "2", "--cols", "7", "--edges", "ranks"],
    )
    .code(2)
    .stderr(one_line().and(predicate::str::contains("118,313,395,200 edges")));
}

#[test]
fn unwritable_output_folder_exits_1_and_keeps_old_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("file");
    fs::write(&blocker, "not a folder").unwrap();
    analyze(&blocker, &["--size", "2"]).code(1).stderr(
        predicate::str::starts_with("error: cannot write").and(predicate::str::contains("file")),
    );
    assert_eq!(fs::read_to_string(&blocker).unwrap(), "not a folder");
}

/// Issue 49: a Graphviz `dot` that hangs is stopped after `--dot-timeout`: one line, exit 1,
/// the DOT file written, within seconds (a `dot` here that sleeps for a minute).
#[cfg(unix)]
#[test]
fn a_hung_dot_is_stopped() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    fs::create_dir(&bin).unwrap();
    let dot = bin.join("dot");
    let sleep = ["/bin/sleep", "/usr/bin/sleep"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("sleep");
    fs::write(&dot, format!("#!/bin/sh\nexec {sleep} 60\n")).unwrap();
    fs::set_permissions(&dot, fs::Permissions::from_mode(0o755)).unwrap();
    let started = std::time::Instant::now();
    let out = npuzzle()
        .env("PATH", &bin)
        .current_dir(tmp.path())
        .args(["draw", "--size", "2", "--dot-timeout", "1"])
        .output()
        .unwrap();
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("did not finish rendering") && err.contains("within 1 s"),
        "{err}"
    );
    assert!(tmp.path().join("output/2x2/game_graph.dot").is_file());
    assert!(!tmp.path().join("output/2x2/game_graph.png").exists());
}

/// Issue 61: a `dot` that exits at once but leaves a child holding its output open (here a
/// `sleep` in the background) no longer hangs `draw` until that child ends: `--dot-timeout`
/// bounds the whole rendering, reading the output included, and the whole process group is
/// stopped.
#[cfg(unix)]
#[test]
fn a_dot_whose_child_holds_the_pipe_is_stopped() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    fs::create_dir(&bin).unwrap();
    let dot = bin.join("dot");
    let sleep = ["/bin/sleep", "/usr/bin/sleep"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("sleep");
    fs::write(&dot, format!("#!/bin/sh\n{sleep} 60 &\nexit 0\n")).unwrap();
    fs::set_permissions(&dot, fs::Permissions::from_mode(0o755)).unwrap();
    let started = std::time::Instant::now();
    let out = npuzzle()
        .env("PATH", &bin)
        .current_dir(tmp.path())
        .args(["draw", "--size", "2", "--dot-timeout", "1"])
        .output()
        .unwrap();
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("did not finish rendering"), "{err}");
    assert!(!tmp.path().join("output/2x2/game_graph.png").exists());
}

/// Issue 61: `--help` and `--version` to a full device (`> /dev/full`) fail with exit 1 and
/// one line on stderr, as every other output does; to a closed pipe they still exit 0.
#[cfg(target_os = "linux")]
#[test]
fn help_and_version_to_a_full_device_fail() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["-V"],
        &["solve", "--help"],
        &["analyze", "-h"],
    ] {
        let full = fs::File::create("/dev/full").unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("npuzzle"))
            .env_clear()
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: cannot write to stdout"),
            "{args:?}: {err}"
        );
    }
    npuzzle().arg("--help").assert().success();
}

/// Issue 14: an output folder that looks like an option (`--output=-Tsvg`) is passed to
/// Graphviz as a path, so the PNG is a PNG (not SVG written who knows where).
#[test]
fn draw_paths_are_never_options() {
    let tmp = tempfile::tempdir().unwrap();
    let assert = npuzzle()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(tmp.path())
        .args(["draw", "--size", "2", "--output=-Tsvg"])
        .assert()
        .success();
    let out = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(out.contains("wrote -Tsvg/2x2/game_graph.dot"), "{out}");
    let png = tmp.path().join("-Tsvg/2x2/game_graph.png");
    if out.contains("note: no PNG written: Graphviz's dot is not installed") {
        eprintln!(
            "skipped: Graphviz's dot is not installed, so no PNG to check (draw_paths_are_never_options)"
        );
        assert!(!png.exists());
        return;
    }
    assert!(out.contains("wrote -Tsvg/2x2/game_graph.png"), "{out}");
    assert_eq!(&fs::read(png).unwrap()[..4], b"\x89PNG");
}

/// Issue 14: `plot` checks summary.json on read: a hardest grid of 70,000 characters, a
/// 0x0 or 10^9 x 10^9 shape, or a missing file give one line naming the file as *read*, exit
/// 2, and no chart (no panic).
#[test]
fn plot_refuses_nonsense_summaries() {
    let tmp = tempfile::tempdir().unwrap();
    analyze(tmp.path(), &["--size", "3", "--quiet"]).success();
    let dir = tmp.path().join("3x3");
    let file = dir.join("summary.json");
    let good = fs::read_to_string(&file).unwrap();
    let json: serde_json::Value = serde_json::from_str(&good).unwrap();
    let mut long_grid = json.clone();
    long_grid["hardest"]["boards"][0]["grid"][0] = "x".repeat(70_000).into();
    let mut empty = json.clone();
    empty["rows"] = 0.into();
    empty["cols"] = 0.into();
    let mut huge = json.clone();
    huge["rows"] = 1_000_000_000u64.into();
    huge["cols"] = 1_000_000_000u64.into();
    for bad in [long_grid, empty, huge] {
        fs::write(&file, bad.to_string()).unwrap();
        fs::remove_file(dir.join("depth_histogram.png")).ok();
        npuzzle()
            .arg("plot")
            .arg(&dir)
            .assert()
            .code(2)
            .stderr(one_line().and(predicate::str::contains("cannot read")));
        assert!(!dir.join("depth_histogram.png").exists());
    }
    npuzzle()
        .arg("plot")
        .arg(tmp.path().join("missing"))
        .assert()
        .code(2)
        .stderr(one_line().and(predicate::str::contains("cannot read")));
    // Nothing to draw (counts that cannot add up, issue 23) is bad input too (exit 2), for
    // one chart and for a comparison; a chart that cannot be written is a runtime failure
    // (exit 1), as for every output.
    let mut zeros = json.clone();
    let depths = zeros["depth_counts"].as_array().unwrap().len();
    zeros["depth_counts"] = vec![0; depths].into();
    fs::write(&file, zeros.to_string()).unwrap();
    npuzzle()
        .arg("plot")
        .arg(&dir)
        .assert()
        .code(2)
        .stderr(one_line().and(predicate::str::contains(
            "counts per depth that do not add up to the 181440 boards reached",
        )));
    let chart = tmp.path().join("compare.png");
    npuzzle()
        .args(["plot", "--compare"])
        .arg(&chart)
        .arg(&dir)
        .assert()
        .code(2)
        .stderr(one_line().and(predicate::str::contains("do not add up")));
    fs::write(&file, &good).unwrap();
    npuzzle()
        .args(["plot", "--compare"])
        .arg(file.join("compare.png"))
        .arg(&dir)
        .assert()
        .code(1)
        .stderr(
            one_line()
                .and(predicate::str::contains("write"))
                .and(predicate::str::contains("compare.png: Not a directory"))
                .and(predicate::str::contains("tmp.png").not()),
        );
}

/// Issue 14: one writer, one policy: under `umask 000` every output (CSV, JSON, text, PNG)
/// is 0644, none wider.
#[cfg(unix)]
#[test]
fn every_output_has_the_same_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let out = in_bash(
        "umask 000; NPUZZLE analyze --rows 2 --cols 3 --quiet --output OUT",
        tmp.path(),
    );
    assert!(out.status.success(), "{out:?}");
    let mut seen = 0;
    for entry in fs::read_dir(tmp.path().join("2x3")).unwrap() {
        let entry = entry.unwrap();
        let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{:?}", entry.file_name());
        seen += 1;
    }
    assert_eq!(seen, 6);
}

/// The temporary files of npuzzle's naming (`.NAME.PID@HOST.RANDOM.tmp.EXT`) in `dir`.
fn temporary_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.contains(".tmp"))
        .collect()
}

/// Issue 14: SIGINT and SIGTERM at several points of a run leave no temporary file, exit 130
/// and 143 (or 0 when the run finished first), and every output is whole: the previous run's
/// (edges and nodes as ranks) or the new one's (as labels), never a part. A SIGKILL may leave
/// temporary files; the next run removes them.
#[test]
fn interrupted_runs_leave_whole_outputs_and_no_temporary_files() {
    let tmp = tempfile::tempdir().unwrap();
    let ranks = [
        "--size", "3", "--edges", "ranks", "--nodes", "ranks", "--quiet",
    ];
    let labels = [
        "--size", "3", "--edges", "labels", "--nodes", "labels", "--quiet",
    ];
    let out = tmp.path().join("run");
    let dir = out.join("3x3");
    let bin = assert_cmd::cargo::cargo_bin("npuzzle");
    let start = |args: &[&str]| {
        std::process::Command::new(&bin)
            .args(["analyze", "--output"])
            .arg(&out)
            .args(args)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let names = [
        "edges.csv",
        "nodes.csv",
        "depths.csv",
        "hardest.txt",
        "summary.json",
    ];
    // The whole outputs of each command where the interrupted runs write (summary.json records
    // the command line).
    let mut whole: Vec<[Vec<u8>; 2]> = vec![[Vec::new(), Vec::new()]; names.len()];
    for (i, args) in [ranks, labels].iter().enumerate() {
        assert!(start(args).wait().unwrap().success());
        for (versions, name) in whole.iter_mut().zip(names) {
            versions[i] = fs::read(dir.join(name)).unwrap();
        }
    }
    let mut interrupted = 0;
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        for delay_ms in [5, 20, 40, 80, 120, 200, 300] {
            let _ = fs::remove_dir_all(&out);
            assert!(start(&ranks).wait().unwrap().success());
            let child = start(&labels);
            std::thread::sleep(std::time::Duration::from_millis(delay_ms));
            // SAFETY: a signal to our own child, which has not been waited for yet.
            unsafe { libc::kill(child.id() as libc::pid_t, signal) };
            let result = child.wait_with_output().unwrap();
            let got = result.status.code();
            let stderr = String::from_utf8_lossy(&result.stderr);
            // On a loaded machine the earliest signals can arrive before main has installed
            // its handler: the default action then ends the process before it wrote anything.
            let before_handler = std::os::unix::process::ExitStatusExt::signal(&result.status)
                == Some(signal)
                && stderr.is_empty()
                && delay_ms <= 20;
            assert!(
                got == Some(code) || got == Some(0) || before_handler,
                "signal {signal} after {delay_ms} ms: exit {got:?}, {stderr}"
            );
            if got == Some(code) {
                interrupted += 1;
                assert_eq!(stderr.lines().count(), 1, "{stderr}");
                assert!(stderr.contains("interrupted"), "{stderr}");
            }
            assert_eq!(temporary_files(&dir), Vec::<String>::new());
            for (name, versions) in names.iter().zip(&whole) {
                let bytes = fs::read(dir.join(name)).unwrap();
                assert!(
                    versions.contains(&bytes),
                    "{name} is neither the old nor the new version after signal {signal} at \
                     {delay_ms} ms"
                );
            }
        }
    }
    assert!(
        interrupted > 0,
        "no run was interrupted: the delays are too long"
    );

    // SIGKILL cannot be handled: the next run sweeps what it left.
    let child = start(&labels);
    std::thread::sleep(std::time::Duration::from_millis(60));
    // SAFETY: as above.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    let _ = child.wait_with_output().unwrap();
    let host = npuzzle::durable::folder::host_name();
    fs::write(
        dir.join(format!(".nodes.csv.4194305@{host}.abcdef.tmp.csv")),
        "left by a killed run",
    )
    .unwrap();
    assert!(start(&ranks).wait().unwrap().success());
    assert_eq!(temporary_files(&dir), Vec::<String>::new());
}

/// The bytes an ELF64 executable's loadable segments (`PT_LOAD`) take in memory: what the
/// kernel maps at exec. 0 for another format.
fn loaded_bytes(path: &Path) -> u64 {
    let elf = std::fs::read(path).unwrap();
    let word = |at: usize, n: usize| -> u64 {
        elf.get(at..at + n)
            .map_or(0, |b| b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x)))
    };
    if elf.get(..5) != Some(b"\x7fELF\x02".as_slice()) {
        return 0;
    }
    let (table, size, count) = (
        word(0x20, 8) as usize,
        word(0x36, 2) as usize,
        word(0x38, 2),
    );
    (0..count as usize)
        .map(|k| table + k * size)
        // p_type 1 is PT_LOAD; p_memsz at offset 0x28 of a program header.
        .filter(|&h| word(h, 4) == 1)
        .map(|h| word(h + 0x28, 8))
        .sum()
}

/// Issue 14: the memory plan counts the address-space limit (`ulimit -v`, RLIMIT_AS): what
/// cannot fit is refused before any work with one line (exit 2); a search that grows stops
/// at its share (exit 1); and at every limit from barely enough to start the program, a run
/// ends with its outputs, or one line and exit 1 or 2 (Rust's own message for a small
/// allocation, issue 23: the allocator is std's), never an abort or a panic, and no temporary
/// file is left.
#[test]
fn address_space_limits_are_refusals_not_aborts() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |script: &str| {
        let out = in_bash(script, tmp.path());
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), stderr)
    };
    let (code, stderr) = run("ulimit -v 60000; NPUZZLE analyze --rows 3 --cols 4 --output OUT");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: 3x4 has 479,001,600 boards")
            && stderr.contains("available")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    let korf1 = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1";
    let (code, stderr) = run(&format!(
        "ulimit -v 300000; NPUZZLE solve --cache OUT/cache --pdb 7-8 --board '{korf1}'"
    ));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: the 7-8 pattern databases of 4x4 need")
            && stderr.contains("to build")
            && stderr.contains("--pdb 6-6-3 needs")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    // Issue 20: a batch of 20,000 4x4 boards asks for the 7-8 databases by itself (refused
    // here before anything is built); one board fewer uses the 6-6-3 ones, which fit.
    for (lines, code, partition) in [(20_000, 2, "7-8"), (19_999, 0, "6-6-3")] {
        let line = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15\n";
        fs::write(tmp.path().join("batch.txt"), line.repeat(lines)).unwrap();
        let (got, stderr) = run(
            "ulimit -v 300000; NPUZZLE solve --cache OUT/cache --batch OUT/batch.txt >/dev/null",
        );
        assert_eq!(got, Some(code), "{lines} boards: {stderr}");
        assert!(
            stderr.contains(&format!("the {partition} pattern databases")),
            "{lines} boards: {stderr}"
        );
    }
    let (code, stderr) = run(&format!(
        "ulimit -v 300000; NPUZZLE solve --algorithm astar --heuristic manhattan --board '{korf1}'"
    ));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("outgrow the memory") && stderr.lines().count() == 1,
        "{stderr}"
    );
    let dir = tmp.path().join("3x3");
    let mut finished = 0;
    // A limit below the binary's own segments (and the loader's and the C library's, about
    // 3 MB) stops it in the kernel's exec, before it runs (SIGSEGV, or the loader's exit 127):
    // those limits test nothing of ours and are skipped.
    let mapped = loaded_bytes(&assert_cmd::cargo::cargo_bin("npuzzle")) / 1024 + 3 * 1024;
    for kib in [
        12_000, 16_000, 20_000, 24_000, 32_000, 48_000, 64_000, 100_000,
    ] {
        if kib < mapped {
            continue;
        }
        let (code, stderr) = run(&format!(
            "ulimit -v {kib}; NPUZZLE analyze --size 3 --edges ranks --nodes ranks --quiet \
             --output OUT"
        ));
        match code {
            // The dynamic loader could not map the binary: the program never started.
            Some(127) if stderr.contains("error while loading shared libraries") => continue,
            Some(0) => finished += 1,
            // One line of ours, or Rust's own for a small allocation that failed, its abort
            // turned into exit 1: its line, its note on backtraces, and the same from other
            // threads whose allocations failed at the same moment, nothing else. Among those,
            // std's runtime starting the signal watcher's thread under the same limit: the
            // thread's alternative signal stack cannot be mapped, and the runtime aborts
            // ("failed to initiate panic"), which the abort handler turns into exit 1 too; or
            // the C library failing to register a thread-local's destructor under the same
            // limit ("Fatal glibc error: failed to register TLS destructor: out of memory",
            // seen on a clean clone's run), the same failed small allocation.
            Some(1 | 2) => assert!(
                (stderr.starts_with("error: ") && stderr.lines().count() == 1)
                    || (code == Some(1)
                        && (stderr.starts_with("memory allocation of ")
                            || glibc_out_of_memory(&stderr))
                        && stderr.lines().all(|l| {
                            glibc_out_of_memory(l)
                                || l.starts_with("memory allocation of ")
                                || l.starts_with("note: run with `RUST_BACKTRACE=1`")
                                || l.starts_with("skipping backtrace printing")
                                || runtime_thread_start(l)
                        })),
                "ulimit -v {kib}: {stderr}"
            ),
            other => panic!("ulimit -v {kib}: exit {other:?}: {stderr}"),
        }
        assert!(
            !stderr
                .lines()
                .any(|l| l.contains("panicked") && !runtime_thread_start(l)),
            "{stderr}"
        );
        if dir.exists() {
            assert_eq!(temporary_files(&dir), Vec::<String>::new(), "{kib}");
        }
    }
    assert!(finished > 0, "3x3 never fit under 100 MB");
}

/// The line glibc writes (then aborts) when it cannot allocate a thread-local's destructor
/// record under a tight `ulimit -v`.
fn glibc_out_of_memory(line: &str) -> bool {
    line.starts_with("Fatal glibc error: failed to register TLS destructor: out of memory")
}

/// A line std's runtime writes when a new thread cannot map its alternative signal stack (under
/// a tight `ulimit -v`), before any code of ours runs in it.
fn runtime_thread_start(line: &str) -> bool {
    (line.starts_with("thread '")
        && line.contains("panicked at")
        && line.contains("stack_overflow.rs"))
        || line.starts_with("failed to allocate an alternative stack")
        || line.starts_with("fatal runtime error: failed to initiate panic")
}

/// Issue 23: the allocator is std's, so a failed small allocation aborts (SIGABRT); the
/// abort handler removes the temporary files of the outputs being written and exits 1, and
/// the previous run's outputs stay whole. The abort is raised by a test hook right after the
/// second temporary file is made (debug builds only), while the first may still be open.
#[test]
fn an_abort_leaves_no_temporary_file_and_the_previous_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |abort_after: Option<&str>| {
        let mut cmd = npuzzle();
        cmd.args([
            "analyze", "--size", "3", "--nodes", "labels", "--quiet", "--output",
        ])
        .arg(&out);
        if let Some(n) = abort_after {
            cmd.env("NPUZZLE_ABORT_AFTER_TEMP", n);
        }
        cmd.output().unwrap()
    };
    assert!(run(None).status.success());
    let folder = out.join("3x3");
    let before: Vec<(String, Vec<u8>)> = ["edges.csv", "nodes.csv", "summary.json"]
        .iter()
        .map(|f| (f.to_string(), fs::read(folder.join(f)).unwrap()))
        .collect();
    for n in ["1", "2", "3"] {
        let aborted = run(Some(n));
        assert_eq!(
            aborted.status.code(),
            Some(1),
            "abort after temporary file {n}"
        );
        assert_eq!(temporary_files(&folder), Vec::<String>::new(), "{n}");
        for (name, bytes) in &before {
            assert_eq!(
                &fs::read(folder.join(name)).unwrap(),
                bytes,
                "{name} after {n}"
            );
        }
    }
}

/// Issue 23: a run that does not rewrite an output of an earlier run (here edges.csv and
/// nodes.csv, with `--edges none --nodes none`) moves it into `stale/`, so that no file beside
/// the new summary.json describes another run; the report says so; files that are not
/// analyze outputs stay.
#[test]
fn outputs_an_analysis_does_not_rewrite_are_moved_to_stale() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |extra: &[&str]| {
        npuzzle()
            .args(["analyze", "--size", "2", "--output"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    assert!(run(&["--nodes", "labels"]).status.success());
    let folder = out.join("2x2");
    let edges = std::fs::read(folder.join("edges.csv")).unwrap();
    std::fs::write(folder.join("mine.txt"), "a user's file").unwrap();
    let second = run(&["--edges", "none", "--nodes", "none"]);
    assert!(second.status.success());
    let report = String::from_utf8_lossy(&second.stdout);
    assert!(
        report.contains("moved edges.csv, nodes.csv of an earlier run to stale/"),
        "{report}"
    );
    assert!(!folder.join("edges.csv").exists() && !folder.join("nodes.csv").exists());
    assert_eq!(
        std::fs::read(folder.join("stale/edges.csv")).unwrap(),
        edges
    );
    assert!(folder.join("stale/nodes.csv").exists() && folder.join("mine.txt").exists());
    // A run that writes them again leaves the stale copies where they are.
    assert!(run(&[]).status.success());
    assert!(folder.join("edges.csv").exists());
    // Issue 49: setting aside again replaces the older copies, and says so.
    let third = run(&["--edges", "none"]);
    assert!(third.status.success());
    let report = String::from_utf8_lossy(&third.stdout);
    assert!(
        report.contains("it replaced the older copies of edges.csv there"),
        "{report}"
    );
    // A `stale` that is a symbolic link is never followed: one line, nothing moved.
    #[cfg(unix)]
    {
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::remove_dir_all(folder.join("stale")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, folder.join("stale")).unwrap();
        assert!(run(&[]).status.success());
        let linked = run(&["--edges", "none"]);
        assert_eq!(linked.status.code(), Some(1));
        let err = String::from_utf8_lossy(&linked.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("symbolic link is not followed"), "{err}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    }
}

/// Issue 50: `random` draws boards without a table, one a line, that `solve --batch -` reads
/// as they are: seeded (the same seed, the same boards), uniform draws all solvable, and a
/// walk of K moves gives boards whose optimal solutions are at most K moves, of K's parity
/// (every single-tile move changes the blank's colour on the chessboard).
#[test]
fn random_boards_feed_solve_batch() {
    let draw = |args: &[&str]| -> String {
        let out = npuzzle().arg("random").args(args).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let boards = draw(&["--size", "3", "--count", "20", "--seed", "9"]);
    assert_eq!(boards.lines().count(), 20);
    assert_eq!(
        boards,
        draw(&["--size", "3", "--count", "20", "--seed", "9"])
    );
    assert_ne!(
        boards,
        draw(&["--size", "3", "--count", "20", "--seed", "10"])
    );
    let solve = |input: &str| -> Vec<Vec<String>> {
        let out = npuzzle()
            .args(["solve", "--batch", "-"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let rows: Vec<Vec<String>> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        rows
    };
    let solved = solve(&boards);
    assert_eq!(solved.len(), 20);
    // 3x3 boards are at most 31 moves from the goal (God's number, OEIS A089473).
    assert!(
        solved.iter().all(|r| r[1].parse::<u32>().unwrap() <= 31),
        "{solved:?}"
    );
    let walked = draw(&[
        "--rows", "2", "--cols", "4", "--count", "10", "--moves", "15",
    ]);
    for row in solve(&walked) {
        let moves: u32 = row[1].parse().unwrap();
        assert!(moves <= 15 && moves % 2 == 1, "{row:?}");
    }
    // A goal that is not a board of the shape is a usage error.
    npuzzle()
        .args(["random", "--size", "3", "--goal", "12345678"])
        .assert()
        .code(2)
        .stderr(one_line().and(predicate::str::contains("--goal")));
}

/// Issue 50: summary.json says which npuzzle wrote it, from which commit, and for which
/// command, as typed (arguments quoted as a shell reads them back), in its last field; and
/// `npuzzle --version` says the same version and commit.
#[test]
fn summary_json_records_the_version_commit_and_command() {
    let tmp = tempfile::tempdir().unwrap();
    let args = [
        "analyze",
        "--rows",
        "2",
        "--cols",
        "3",
        "--goal",
        "1 2 3 / 4 0 5",
        "--output",
        "my results",
        "--quiet",
    ];
    npuzzle()
        .current_dir(tmp.path())
        .args(args)
        .assert()
        .success();
    let text =
        fs::read_to_string(tmp.path().join("my results/2x3-goal-123465/summary.json")).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    let provenance = &summary["npuzzle"];
    assert_eq!(provenance["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        provenance["command"],
        "npuzzle analyze --rows 2 --cols 3 --goal '1 2 3 / 4 0 5' --output 'my results' --quiet"
    );
    assert!(
        text.find("\"npuzzle\": {") > text.find("\"depth_counts\""),
        "the provenance comes last: {text}"
    );
    // A short hash, "-dirty" when the build's tree had changes; null outside git.
    let commit = provenance["commit"].as_str();
    if let Some(commit) = commit {
        let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
        assert!(
            hash.len() >= 7 && hash.chars().all(|c| c.is_ascii_hexdigit()),
            "{commit}"
        );
    } else {
        assert!(provenance["commit"].is_null(), "{provenance}");
    }
    let version = npuzzle().arg("--version").assert().success();
    let expected = match commit {
        Some(commit) => format!("npuzzle {} (commit {commit})\n", env!("CARGO_PKG_VERSION")),
        None => format!(
            "npuzzle {} (not built from a git checkout)\n",
            env!("CARGO_PKG_VERSION")
        ),
    };
    assert_eq!(
        String::from_utf8_lossy(&version.get_output().stdout),
        expected
    );
}
