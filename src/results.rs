//! An analysis's results folder (`output/<R>x<C>/`), written once for every front end: the
//! command line (`npuzzle analyze`) and the Python package (`npuzzle.analyze(...,
//! output=DIR)`) both call [`write()`] with the files they were asked for, so that the same
//! analysis gives the same bytes whichever asked for it. Each front end keeps only what is its
//! own: which files to ask for, its notes, and how it reports an error.
//!
//! The files, in the order [`write()`] returns their names: the edge list (`edges.csv` or
//! `edges.parquet`, [`export::write_edges`]), the per-board table (`nodes.csv` or
//! `nodes.parquet`, [`export::write_nodes`]), the distance table (`table.npt`,
//! [`crate::table::write`]), then the files every run writes: `depths.csv`, `hardest.txt`,
//! `summary.json` and the chart `depth_histogram.png` ([`write_chart`]). Each is written to a
//! temporary name and renamed ([`crate::durable`]).

use std::path::Path;

use crate::analysis::Analysis;
use crate::board::Board;
use crate::export::{self, BoardFormat, ExportError, Summary};
use crate::metric::Metric;
use crate::plot::{self, PlotError};
use crate::progress::Progress;
use crate::shape::Shape;
use crate::table::TableError;

/// Boards above this many cells export no edge list or per-board table unless asked: the
/// default of `npuzzle analyze` (`--edges`, `--nodes`) and of the Python package (which
/// writes them up to it).
pub const DEFAULT_EXPORT_CELLS: usize = 10;

/// The results folder's name for an analysis of `shape` from `goal` in `metric`: `<R>x<C>`,
/// with `-goal-<label>` for another goal than the standard one, and the metric's suffix
/// ([`Metric::folder_suffix`]: `-mtm` in the multi-tile metric). `npuzzle analyze --output
/// DIR` and the Python package's `output=DIR` write into `DIR/<this>`.
pub fn folder_name(shape: Shape, goal: &Board, metric: Metric) -> String {
    let mut folder = if *goal == Board::goal(shape) {
        shape.to_string()
    } else {
        format!("{shape}-goal-{}", goal.label())
    };
    folder.push_str(metric.folder_suffix());
    folder
}

/// How an edge list or a per-board table is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// CSV (`edges.csv`, `nodes.csv`), boards as labels or ranks ([`BoardFormat`]).
    Csv(BoardFormat),
    /// Parquet (`edges.parquet`, `nodes.parquet`: ranks, and labels in nodes.parquet,
    /// zstd-compressed columns, `export::parquet`); in a build with the `parquet` feature
    /// only ([`ResultsError::NoParquet`] otherwise).
    Parquet,
}

/// The files a run asks for beside the four every run writes.
#[derive(Debug, Clone, Copy)]
pub struct Files {
    /// The edge list, or none.
    pub edges: Option<Format>,
    /// The per-board table, or none (it needs [`Analysis::per_board`]).
    pub nodes: Option<Format>,
    /// The distance table `table.npt` ([`crate::table::write`]).
    pub table: bool,
    /// The chart's y axis.
    pub scale: plot::Scale,
}

/// Why a results folder could not be written: the first failure, in the order of the files.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// An export or one of the small files.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// The distance table.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The chart.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// Parquet asked of a build without the `parquet` feature.
    #[error(
        "parquet needs a build with the parquet feature: cargo install --locked --path . --features parquet"
    )]
    NoParquet,
}

/// Writes the results of `result` (summarized as `summary`, its provenance set by the caller)
/// into the folder `dir` (which must exist, [`export::prepare_dir`]): the files of `files`
/// and the four every run writes; returns the names written, in the order of the module
/// documentation. The large files and the small ones are written side by side (on the
/// current rayon pool: each file's sync to the disk overlaps with other work); the edge
/// list reports to `progress`, the per-board table to `nodes_progress` (two progress sinks,
/// as they run at once).
///
/// # Errors
/// The first [`ResultsError`] in the order of the files; the files written before it stay.
pub fn write(
    dir: &Path,
    result: &Analysis,
    summary: &Summary,
    files: &Files,
    progress: &dyn Progress,
    nodes_progress: &dyn Progress,
) -> Result<Vec<&'static str>, ResultsError> {
    let path = |name: &str| dir.join(name);
    let (((edges, nodes), table), small) = rayon::join(
        || {
            rayon::join(
                || {
                    rayon::join(
                        || files.edges.map(|f| write_edges(dir, result, f, progress)),
                        || {
                            files
                                .nodes
                                .map(|f| write_nodes(dir, result, f, nodes_progress))
                        },
                    )
                },
                || {
                    files
                        .table
                        .then(|| crate::table::write(&path("table.npt"), result))
                },
            )
        },
        || -> Result<(), ResultsError> {
            export::write_depths(&path("depths.csv"), summary)?;
            export::write_hardest(&path("hardest.txt"), summary)?;
            export::write_summary(&path("summary.json"), summary)?;
            write_chart(&path("depth_histogram.png"), summary, files.scale)?;
            Ok(())
        },
    );
    let mut written = Vec::new();
    if let Some(done) = edges {
        written.push(done?);
    }
    if let Some(done) = nodes {
        written.push(done?);
    }
    if let Some(done) = table {
        done?;
        written.push("table.npt");
    }
    small?;
    written.extend([
        "depths.csv",
        "hardest.txt",
        "summary.json",
        "depth_histogram.png",
    ]);
    Ok(written)
}

/// Writes the edge list of `result`'s shape and metric; returns the file's name.
fn write_edges(
    dir: &Path,
    result: &Analysis,
    format: Format,
    progress: &dyn Progress,
) -> Result<&'static str, ResultsError> {
    let (shape, metric) = (result.shape, result.metric);
    match format {
        Format::Csv(boards) => {
            export::write_edges(&dir.join("edges.csv"), shape, metric, boards, progress)?;
            Ok("edges.csv")
        }
        #[cfg(feature = "parquet")]
        Format::Parquet => {
            export::parquet::write_edges(&dir.join("edges.parquet"), shape, metric, progress)?;
            Ok("edges.parquet")
        }
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => Err(ResultsError::NoParquet),
    }
}

/// Writes the per-board table of `result`; returns the file's name.
fn write_nodes(
    dir: &Path,
    result: &Analysis,
    format: Format,
    progress: &dyn Progress,
) -> Result<&'static str, ResultsError> {
    match format {
        Format::Csv(boards) => {
            export::write_nodes(&dir.join("nodes.csv"), result, boards, progress)?;
            Ok("nodes.csv")
        }
        #[cfg(feature = "parquet")]
        Format::Parquet => {
            export::parquet::write_nodes(&dir.join("nodes.parquet"), result, progress)?;
            Ok("nodes.parquet")
        }
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => Err(ResultsError::NoParquet),
    }
}

/// Draws the depth chart of `summary` into `file` (a PNG, or an SVG by its extension,
/// [`plot::write_depth_histogram`]) on a `scale` y axis: titled with the board (and its
/// metric, when not the single-tile default), the goal when it is not the standard one, the
/// first hardest boards; partial for a depth-limited run. `npuzzle plot` redraws it from a
/// saved `summary.json` with this function too.
///
/// # Errors
/// [`PlotError`]: nothing to draw (all counts zero), a drawing or write failure.
pub fn write_chart(file: &Path, summary: &Summary, scale: plot::Scale) -> Result<(), PlotError> {
    let hardest: Vec<String> = summary
        .hardest
        .boards
        .iter()
        .map(|b| b.grid.join("\n"))
        .collect();
    let name = chart_name(summary);
    let chart = plot::DepthChart {
        board: &name,
        goal: chart_goal(summary),
        counts: &summary.depth_counts,
        hardest: &hardest,
        partial: summary.is_partial(),
        scale,
    };
    plot::write_depth_histogram(&chart, file)
}

/// The board's name on a chart: `3x3`, or `3x3 (multi-tile metric)` for a summary of the
/// multi-tile metric (the single-tile metric is the charts' unnamed default).
pub fn chart_name(summary: &Summary) -> String {
    match summary.metric() {
        Metric::Stm => summary.board.clone(),
        m => format!("{} ({} metric)", summary.board, m.long_name()),
    }
}

/// The goal a chart names: its label when it is not the standard goal, else `None`.
pub fn chart_goal(summary: &Summary) -> Option<&str> {
    (!summary.from_standard_goal()).then_some(summary.goal.as_str())
}
