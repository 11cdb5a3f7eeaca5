//! The advertised performance figures: the block of `docs/performance.md` between
//! `<!-- figures:begin -->` and `<!-- figures:end -->` must be what `scripts/figures.py render` makes of
//! `output/bench/figures.csv`, the file `scripts/bench.sh check` holds its measurements to, and
//! that file must have a row for every figure the check measures. No benchmark runs here; the
//! rendering lives in scripts/figures.py only (the test that needs it is skipped, with a note on
//! stderr, where python3 is missing).

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

#[test]
fn figures_csv_has_a_row_for_every_figure_the_check_measures() {
    let bench = read(&root().join("scripts/bench.sh"));
    let line = bench
        .lines()
        .find_map(|line| line.strip_prefix("CHECK_FIGURES=\""))
        .expect("scripts/bench.sh sets CHECK_FIGURES=\"...\"");
    let mut figures: Vec<&str> = line.trim_end_matches('"').split_whitespace().collect();
    figures.push("korf100-nodes");
    let csv = read(&root().join("output/bench/figures.csv"));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("figure,what,value,better,must,must_on,date,commit,note"),
        "figures.csv's header"
    );
    let names: Vec<&str> = lines.map(|row| row.split(',').next().unwrap()).collect();
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
