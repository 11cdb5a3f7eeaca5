//! The advertised performance figures: the block of `docs/performance.md` between
//! `<!-- figures:begin -->` and `<!-- figures:end -->` must be what `scripts/figures.py render` makes of
//! `output/bench/figures.csv`, the file `scripts/bench.sh check` holds its measurements to; that
//! file must have a row for every figure the check measures, a figure against a C baseline for
//! every engine path, counts compared exactly and no bound committed as a value; and
//! scripts/figures.py's `compare` and `update` must do what they say on synthetic files
//! (scripts/test_figures.py). No benchmark runs here; the rendering lives in scripts/figures.py
//! only (the tests that need python3 are skipped, with a note on stderr, where it is missing).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BEGIN: &str = "<!-- figures:begin -->";
const END: &str = "<!-- figures:end -->";
/// The page that shows the figures (the README links to it).
const PAGE: &str = "docs/performance.md";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The page's block, markers and the newline after the end marker included.
fn page_block() -> String {
    let page = read(&root().join(PAGE));
    let begin = page
        .find(BEGIN)
        .unwrap_or_else(|| panic!("{PAGE} has no {BEGIN} marker"));
    let end = begin
        + page[begin..]
            .find(END)
            .unwrap_or_else(|| panic!("{PAGE} has no {END} after {BEGIN}"))
        + END.len();
    let end = if page[end..].starts_with('\n') {
        end + 1
    } else {
        end
    };
    page[begin..end].to_string()
}

#[test]
fn the_performance_page_block_is_the_rendering_of_figures_csv() {
    let script = root().join("scripts/figures.py");
    let out = match Command::new("python3").arg(&script).arg("render").output() {
        Ok(out) => out,
        Err(e) => {
            eprintln!(
                "skipped: python3 not found ({e}), so {PAGE}'s figures block is not compared"
            );
            return;
        }
    };
    assert!(
        out.status.success(),
        "python3 scripts/figures.py render: {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let rendered = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        page_block(),
        rendered,
        "{PAGE}'s figures block is not what output/bench/figures.csv renders: \
         `scripts/bench.sh check --update` rewrites both, or paste `python3 scripts/figures.py render`"
    );
}

/// figures.csv's rows, each a map from the header's columns to the values.
fn figure_rows() -> Vec<std::collections::HashMap<String, String>> {
    let path = root().join("output/bench/figures.csv");
    let mut reader =
        csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            header
                .iter()
                .map(String::from)
                .zip(record.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// The words of `NAME="..."` in scripts/bench.sh.
fn bench_list(name: &str) -> Vec<String> {
    let bench = read(&root().join("scripts/bench.sh"));
    let prefix = format!("{name}=\"");
    let line = bench
        .lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("scripts/bench.sh sets {name}=\"...\""));
    line.trim_end_matches('"')
        .split_whitespace()
        .map(String::from)
        .collect()
}

#[test]
fn figures_csv_has_a_row_for_every_figure_the_check_measures() {
    let jobs = bench_list("CHECK_FIGURES");
    let figures = bench_list("CHECK_ROWS");
    for job in &jobs {
        assert!(figures.contains(job), "CHECK_ROWS lacks the job {job}");
    }
    let csv = read(&root().join("output/bench/figures.csv"));
    assert_eq!(
        csv.lines().next(),
        Some("figure,what,value,better,kind,must,must_on,rss_mb,date,commit,note,reason"),
        "figures.csv's header"
    );
    let names: Vec<String> = figure_rows()
        .into_iter()
        .map(|row| row["figure"].clone())
        .collect();
    for figure in &figures {
        assert!(
            names.contains(figure),
            "no row for {figure} in output/bench/figures.csv"
        );
    }
    for name in &names {
        assert!(
            figures.contains(name),
            "figures.csv row {name}: not a figure bench.sh check measures"
        );
    }
}

/// Issue 61: a slowdown in code that both sides of a ratio share (src/bfs/step.rs under plain
/// 3x4 and `--metric mtm`) cancels in `mtm / 3x4`; each engine path needs a figure whose other
/// side is a C baseline.
#[test]
fn every_engine_path_has_a_figure_against_a_c_baseline() {
    let rows = figure_rows();
    for path in [
        "3x3", "3x4", "mtm", "table", "answers", "korf100", "cluster", "frontier",
    ] {
        let against_c = rows.iter().any(|row| {
            (row["figure"] == path || row["figure"] == format!("{path}-c"))
                && (row["what"].contains("/ C `bfs_naive") || row["what"].contains("/ C `bfs3x3"))
        });
        assert!(
            against_c,
            "no figure of the path {path} against a C baseline in figures.csv"
        );
    }
}

/// Issue 61: a deterministic count is compared exactly, not with the 15 % of a time; a
/// committed value is a measurement, not the bound; kinds and directions are known.
#[test]
fn counts_are_exact_and_committed_values_are_not_bounds() {
    let rows = figure_rows();
    for row in &rows {
        let name = &row["figure"];
        assert!(
            ["ratio", "exact"].contains(&row["kind"].as_str()),
            "{name}: kind {:?}",
            row["kind"]
        );
        assert!(
            ["lower", "higher"].contains(&row["better"].as_str()),
            "{name}: better {:?}",
            row["better"]
        );
        if !row["date"].is_empty() && !row["must"].is_empty() && row["must_on"] != "wall" {
            let (value, must): (f64, f64) =
                (row["value"].parse().unwrap(), row["must"].parse().unwrap());
            assert!(
                value != must,
                "{name}: the committed value is its bound {must}, not a measurement"
            );
        }
    }
    let nodes = rows
        .iter()
        .find(|row| row["figure"] == "korf100-nodes")
        .expect("a korf100-nodes row");
    assert_eq!(nodes["kind"], "exact", "korf100-nodes is a count");
    assert_eq!(
        nodes["value"], "619741.8",
        "korf100-nodes: the exact mean of the 100 counts"
    );
}

/// scripts/test_figures.py: `compare` and `update` on synthetic files (`--update` refuses a
/// worse figure without a reason and writes nothing; a count changed at all fails; peak RSS
/// compared), a few seconds. Skipped, with a note on stderr, where python3 is missing.
#[test]
fn figures_py_compares_and_updates_as_documented() {
    let script = root().join("scripts/test_figures.py");
    let out = match Command::new("python3").arg(&script).output() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: python3 not found ({e}), so scripts/figures.py is not tested");
            return;
        }
    };
    assert!(
        out.status.success(),
        "python3 scripts/test_figures.py: {:?}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
