//! The files a run of `analyze` writes into its results folder: the exports (`--edges`,
//! `--nodes`) in the format asked for, table.npt, the small files and the chart, written side
//! by side; and the files of an earlier run that this one does not write, set aside.

use std::path::Path;

use clap::ValueEnum;
use indicatif::{DecimalBytes, HumanCount};
use npuzzle::Shape;
use npuzzle::analysis::{self, Options};
use npuzzle::export::{self, BoardFormat, Summary};

use npuzzle::results::{self, Files, Format, ResultsError};

use super::{AnalyzeArgs, Found, RunSpec};
use crate::cli::CliError;
use crate::cli::progress::Bars;

/// How boards are written in an export, or no export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Export {
    /// Do not write the file.
    None,
    /// R-analysis labels (`123456789`, `1-2-...-12` from 10 cells on).
    Labels,
    /// Dense ranks `0..n!` (smaller; CSV with a header: R/igraph reads them with `read.csv`
    /// and `graph_from_data_frame`).
    Ranks,
    /// edges.parquet / nodes.parquet instead of CSV: ranks (and labels in nodes.parquet),
    /// zstd-compressed columns that DuckDB, Polars and pandas read directly. Needs a build
    /// with `--features parquet`.
    Parquet,
}

pub(super) fn format_of(
    choice: Option<Export>,
    shape: Shape,
    flag: &str,
) -> Result<Option<Format>, CliError> {
    let choice = choice.unwrap_or(if shape.cells() <= results::DEFAULT_EXPORT_CELLS {
        Export::Labels
    } else {
        Export::None
    });
    Ok(match choice {
        Export::None => None,
        Export::Labels => Some(Format::Csv(BoardFormat::Labels)),
        Export::Ranks => Some(Format::Csv(BoardFormat::Ranks)),
        Export::Parquet if cfg!(feature = "parquet") => Some(Format::Parquet),
        Export::Parquet => {
            return Err(CliError::usage(format!(
                "{flag} parquet needs a build with the parquet feature: \
                 cargo install --locked --path . --features parquet"
            )));
        }
    })
}

/// Writes the run's files into `dir` ([`npuzzle::results::write`], as the Python package
/// does) and returns their names, in order; a file not written gets a note saying why and
/// how to ask for it.
pub(super) fn write_outputs(
    args: &AnalyzeArgs,
    plan: &RunSpec,
    dir: &Path,
    found: &Found,
    summary: &Summary,
    bars: &Bars,
    notes: &mut Vec<String>,
) -> Result<Vec<&'static str>, CliError> {
    let (shape, result) = (plan.shape, &found.result);
    // (A distributed run has written its marks' table already.)
    let streamed = result.traffic.is_some() && plan.from_marks;
    let files = Files {
        edges: plan.edges,
        nodes: plan.nodes,
        table: args.table && !streamed,
        scale: args
            .scale
            .scale([(&summary.depth_counts[..], summary.is_partial())]),
    };
    let mut written = results::write(dir, result, summary, &files, bars, &bars.sibling()).map_err(
        |e| match e {
            ResultsError::Plot(e) => super::chart::plot_failure(e),
            e => CliError::runtime(e),
        },
    )?;
    if plan.edges.is_none() {
        notes.push(edges_note(result, shape));
    }
    if plan.nodes.is_none() && found.limited.is_none() {
        notes.push(nodes_note(result, shape));
    }
    if args.table && streamed {
        // Streamed by the distributed run, or by the run it resumed: in its place among
        // the names.
        let at = written.iter().position(|&n| n == "depths.csv").unwrap_or(0);
        written.insert(at, "table.npt");
        if !result.table_written {
            notes.push(
                "table.npt was written by the run this one resumed (before the checkpoint \
                 it resumed from)"
                    .to_string(),
            );
        }
    }
    Ok(written)
}

/// The note for an edge list not written: its size in each format.
fn edges_note(result: &analysis::Analysis, shape: Shape) -> String {
    format!(
        "edges.csv not written: {} edges, about {} with --edges ranks, {} with --edges labels",
        HumanCount(result.edges),
        DecimalBytes(result.edges * row_bytes(shape, BoardFormat::Ranks)),
        DecimalBytes(result.edges * row_bytes(shape, BoardFormat::Labels)),
    )
}

/// The note for a per-board table not written: the memory it needs, or that the shape is too
/// large for one.
fn nodes_note(result: &analysis::Analysis, shape: Shape) -> String {
    match analysis::bytes_needed(
        shape,
        Options {
            per_board: true,
            ..Options::default()
        },
    ) {
        Some(bytes) => format!(
            "nodes.csv not written: {} boards; ask with --nodes ranks or --nodes labels \
                 (needs {} of memory)",
            HumanCount(result.boards),
            DecimalBytes(bytes),
        ),
        None => format!(
            "nodes.csv not written: {} boards; it is written up to {} cells",
            HumanCount(result.boards),
            analysis::SEARCH_CELLS
        ),
    }
}

/// Average bytes of one `edges.csv` row (for the size note).
pub(super) fn row_bytes(shape: Shape, format: BoardFormat) -> u64 {
    let n = shape.cells() as u64;
    match format {
        BoardFormat::Ranks => 2 * shape.board_count().unwrap_or(1).to_string().len() as u64 + 2,
        BoardFormat::Labels if n <= 9 => 2 * n + 2,
        BoardFormat::Labels => {
            2 * (n - 1 + (1..=n).map(|t| t.to_string().len() as u64).sum::<u64>()) + 2
        }
    }
}

/// Moves the files of an earlier run in `dir` that this one did not write (`written`) to
/// `dir/stale/`, with a note; a table.npt moved also gets a warning on stderr, even with
/// `--quiet`.
pub(super) fn set_aside_earlier(
    dir: &Path,
    written: &[&str],
    notes: &mut Vec<String>,
) -> Result<(), CliError> {
    let (moved, replaced) = export::set_aside_stale(dir, written).map_err(CliError::runtime)?;
    if moved.contains(&"table.npt") {
        // Said even with --quiet: `solve --table` and `sample` read it from here.
        eprintln!(
            "warning: moved table.npt of an earlier run to {}: this run has no --table \
             (solve --table and sample read the folder's table.npt)",
            crate::cli::shown(&dir.join("stale"))
        );
    }
    if !moved.is_empty() {
        let older = if replaced.is_empty() {
            String::new()
        } else {
            format!(
                "; it replaced the older copies of {} there",
                replaced.join(", ")
            )
        };
        notes.push(format!(
            "moved {} of an earlier run to stale/ (this run does not write {}){older}",
            moved.join(", "),
            if moved.len() == 1 { "it" } else { "them" }
        ));
    }
    Ok(())
}
