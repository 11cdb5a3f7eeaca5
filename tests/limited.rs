//! `analyze --max-depth`: the depth-limited frontier search on the real binary, against the
//! whole-space engine and the published figures.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn analyze(out: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("npuzzle")
        .unwrap()
        .env_clear()
        .arg("analyze")
        .args(args)
        .arg("--output")
        .arg(out)
        .arg("--quiet")
        .assert()
}

fn counts(depths_csv: &Path) -> Vec<u64> {
    fs::read_to_string(depths_csv)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// With the limit beyond the radius, 3x3 and 2x5 give the whole-space engine's depths.csv and
/// hardest.txt byte for byte; summary.json says complete and equals the other apart from the
/// two new fields and how the components were found.
#[test]
fn beyond_the_radius_it_is_the_full_analysis() {
    for (board, folder) in [
        (vec!["--size", "3"], "3x3"),
        (vec!["--rows", "2", "--cols", "5"], "2x5"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (full, limited) = (dir.path().join("full"), dir.path().join("limited"));
        let mut args = board.clone();
        args.extend(["--edges", "none", "--nodes", "none"]);
        analyze(&full, &args).success();
        let mut args = board.clone();
        args.extend(["--max-depth", "100", "--edges", "none"]);
        analyze(&limited, &args).success();
        let (f, l) = (full.join(folder), limited.join(folder));
        for name in ["depths.csv", "hardest.txt"] {
            assert!(
                fs::read(f.join(name)).unwrap() == fs::read(l.join(name)).unwrap(),
                "{folder} {name}"
            );
        }
        let mut a = json(&f.join("summary.json"));
        let mut b = json(&l.join("summary.json"));
        assert_eq!(b["complete"], Value::Bool(true), "{folder}");
        assert_eq!(b["max_depth_searched"], 100, "{folder}");
        for v in [&mut a, &mut b] {
            let o = v.as_object_mut().unwrap();
            o.remove("complete");
            o.remove("max_depth_searched");
            o["components"].as_object_mut().unwrap().remove("found_by");
        }
        assert_eq!(a, b, "{folder}");
    }
}

/// 4x4 to depth 20: OEIS A089484, d = 0..20, marked partial; hardest.txt lists the first
/// 1,000 boards at depth 20 and says the search stopped there.
#[test]
fn four_by_four_to_depth_20_is_a089484() {
    let a089484 = [
        1u64, 2, 4, 10, 24, 54, 107, 212, 446, 946, 1948, 3938, 7808, 15544, 30821, 60842, 119000,
        231844, 447342, 859744, 1637383,
    ];
    let dir = tempfile::tempdir().unwrap();
    analyze(dir.path(), &["--size", "4", "--max-depth", "20"]).success();
    let out = dir.path().join("4x4");
    assert_eq!(counts(&out.join("depths.csv")), a089484);
    let s = json(&out.join("summary.json"));
    assert_eq!(s["complete"], Value::Bool(false));
    assert_eq!(s["max_depth_searched"], 20);
    assert_eq!(s["max_depth"], 20);
    assert_eq!(s["hardest"]["count"], 1_637_383);
    assert_eq!(s["hardest"]["boards"].as_array().unwrap().len(), 1000);
    // Issue 20: the boards found are not called reachable.
    assert_eq!(s["boards_found"], a089484.iter().sum::<u64>());
    assert_eq!(s.get("reachable"), None);
    let hardest = fs::read_to_string(out.join("hardest.txt")).unwrap();
    assert!(hardest.starts_with("# 4x4 board: the search stopped at depth 20 (--max-depth)"));
    assert!(hardest.contains(
        "# (1000 of them listed: the first in the search's index order, which is not rank order)"
    ));
    assert!(out.join("depth_histogram.png").exists());

    // The report names the boards found and how many of the last layer hardest.txt lists.
    let report = Command::cargo_bin("npuzzle")
        .unwrap()
        .env_clear()
        .args(["analyze", "--size", "4", "--max-depth", "20", "--output"])
        .arg(dir.path())
        .assert()
        .success();
    let report = String::from_utf8_lossy(&report.get_output().stdout).into_owned();
    for line in [
        "searched     depths 0..20 (--max-depth): partial, 3,418,020 boards found within 20 moves",
        "last layer   1,637,383 board(s) at depth 20; 1,000 of them in hardest.txt",
    ] {
        assert!(report.contains(line), "{report}");
    }
    assert!(!report.contains("reachable"), "{report}");

    // plot redraws the partial chart (log scale by default, linear on request) and compares
    // it with a complete run.
    let full = dir.path().join("full");
    Command::cargo_bin("npuzzle")
        .unwrap()
        .args([
            "analyze", "--rows", "2", "--cols", "3", "--quiet", "--output",
        ])
        .arg(&full)
        .assert()
        .success();
    let chart = out.join("depth_histogram.png");
    let log = fs::read(&chart).unwrap();
    for (flags, same) in [(&[][..], true), (&["--linear-scale"][..], false)] {
        Command::cargo_bin("npuzzle")
            .unwrap()
            .arg("plot")
            .arg(&out)
            .args(flags)
            .assert()
            .success();
        assert_eq!(fs::read(&chart).unwrap() == log, same, "{flags:?}");
    }
    let compare = dir.path().join("compare.png");
    Command::cargo_bin("npuzzle")
        .unwrap()
        .args(["plot", "--compare"])
        .args([&compare, &out, &full.join("2x3")])
        .assert()
        .success();
    assert!(fs::read(&compare).unwrap().starts_with(b"\x89PNG"));
}

/// 2x7 to depth 30 equals the first 31 layers of the whole-space run in output/bench/2x7
/// (scripts/bench.sh 2x7, 43,589,145,600 boards).
#[test]
fn two_by_seven_to_depth_30_matches_the_whole_space_run() {
    let dir = tempfile::tempdir().unwrap();
    analyze(
        dir.path(),
        &["--rows", "2", "--cols", "7", "--max-depth", "30"],
    )
    .success();
    let whole = counts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("output/bench/2x7/depths.csv"));
    assert_eq!(whole.len(), 109);
    assert_eq!(counts(&dir.path().join("2x7/depths.csv")), whole[..31]);
}

/// The refusal for a board too large to map whole names the way on; --nodes and the
/// distributed flags do not go with --max-depth.
#[test]
fn the_refusal_names_max_depth_and_conflicts_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let err = analyze(dir.path(), &["--size", "4"]).failure().code(2);
    let text = String::from_utf8_lossy(&err.get_output().stderr).to_string();
    assert!(text.contains("--max-depth D"), "{text}");
    for args in [
        vec!["--size", "3", "--max-depth", "5", "--nodes", "ranks"],
        vec!["--size", "3", "--max-depth", "5", "--workers", "2"],
        vec!["--size", "3", "--scratch", "x"],
    ] {
        analyze(dir.path(), &args).failure().code(2);
    }
}
