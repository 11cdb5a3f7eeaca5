//! The depth charts: the one `analyze` draws, `npuzzle plot` redrawing them from saved
//! summary.json files (one folder's, or several on one chart), and the y axis
//! `--log-scale`/`--linear-scale` choose.

use std::path::{Path, PathBuf};

use clap::Args;
use npuzzle::export::Summary;
use npuzzle::metric::Metric;
use npuzzle::plot;

use crate::cli::{CliError, MetricArg};

/// The depth chart's y axis: `--log-scale` or `--linear-scale`.
#[derive(Debug, Args)]
pub(super) struct ScaleArgs {
    /// Draw the depth chart on a logarithmic y axis (boards at each depth, ticked at powers of
    /// ten), which suits layers that grow geometrically [default for partial --max-depth runs
    /// and for counts that span more than three orders of magnitude].
    #[arg(long, conflicts_with = "linear_scale")]
    log_scale: bool,
    /// Draw the depth chart on a linear y axis (each depth's share, %) [default otherwise];
    /// bars too small to see are drawn 3 px tall, and the chart says so.
    #[arg(long)]
    linear_scale: bool,
}

impl ScaleArgs {
    /// The scale asked for by a flag, if any.
    pub(super) fn asked(&self) -> Option<plot::Scale> {
        if self.log_scale {
            Some(plot::Scale::Log)
        } else if self.linear_scale {
            Some(plot::Scale::Linear)
        } else {
            None
        }
    }

    /// The scale asked for; without a flag, [`plot::Scale::auto`] for these distributions
    /// (each its counts and whether it is partial).
    pub(super) fn scale<'a>(
        &self,
        series: impl IntoIterator<Item = (&'a [u64], bool)>,
    ) -> plot::Scale {
        self.asked().unwrap_or_else(|| plot::Scale::auto(series))
    }
}

/// Arguments of `npuzzle plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A results folder written by `analyze` (e.g. output/3x3), or its summary.json; the
    /// summary is read and the folder's depth_histogram.png redrawn.
    #[arg(value_name = "DIR", required = true)]
    dirs: Vec<PathBuf>,
    /// Instead, draw the depth distributions of all the given folders on one chart, to FILE
    /// (a .png, or a .svg for an SVG with text as text).
    #[arg(long, value_name = "FILE")]
    compare: Option<PathBuf>,
    /// Draw the one folder's chart to FILE (a .png, or a .svg for an SVG with text as text)
    /// instead of DIR/depth_histogram.png.
    #[arg(long, value_name = "FILE", conflicts_with = "compare")]
    output: Option<PathBuf>,
    /// The metric of the results to draw: a folder of the other metric is replaced by its
    /// sibling of this one (output/3x3 by output/3x3-mtm with mtm, and back), and it is an
    /// error when there is none [default: each folder as given].
    #[arg(long, value_enum, value_name = "METRIC")]
    metric: Option<MetricArg>,
    #[command(flatten)]
    scale: ScaleArgs,
}

/// Runs `npuzzle plot`: redraws charts from saved `summary.json` files.
pub fn plot(args: PlotArgs) -> Result<(), CliError> {
    if let Some(file) = &args.compare {
        chart_file("--compare", file)?;
    }
    if let Some(file) = &args.output {
        chart_file("--output", file)?;
        if args.dirs.len() > 1 {
            return Err(CliError::usage(
                "--output draws one folder's chart: give one DIR, or --compare FILE for one \
                 chart of several",
            ));
        }
    }
    let mut dirs = Vec::new();
    let mut summaries = Vec::new();
    for dir in &args.dirs {
        let (dir, summary) = results_in(dir, args.metric.map(Metric::from))?;
        dirs.push(dir);
        summaries.push(summary);
    }
    match &args.compare {
        Some(file) => {
            let names: Vec<String> = summaries.iter().map(npuzzle::results::chart_name).collect();
            let series: Vec<plot::DepthSeries> = summaries
                .iter()
                .zip(&names)
                .map(|(s, name)| plot::DepthSeries {
                    board: name,
                    counts: &s.depth_counts,
                    goal: npuzzle::results::chart_goal(s),
                    partial: s.is_partial(),
                })
                .collect();
            let scale = args
                .scale
                .scale(series.iter().map(|s| (s.counts, s.partial)));
            plot::write_depth_comparison(&series, scale, file).map_err(plot_failure)?;
            println!("wrote {}", crate::cli::shown(file));
        }
        None => {
            for (dir, summary) in dirs.iter().zip(&summaries) {
                let file = args
                    .output
                    .clone()
                    .unwrap_or_else(|| dir.join("depth_histogram.png"));
                let scale = args
                    .scale
                    .scale([(&summary.depth_counts[..], summary.is_partial())]);
                draw(&file, summary, scale)?;
                println!("wrote {}", crate::cli::shown(&file));
            }
        }
    }
    Ok(())
}

/// The results folder `dir`, or with `metric` its sibling of that metric when `dir` holds
/// the other one (`3x3` and `3x3-mtm`), with its summary.
fn results_in(dir: &Path, metric: Option<Metric>) -> Result<(PathBuf, Summary), CliError> {
    // A summary file names its folder.
    let dir = match dir.file_name() {
        Some(name) if name == "summary.json" && !dir.is_dir() => match dir.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        },
        _ => dir,
    };
    let read = |d: &Path| Summary::read(&d.join("summary.json")).map_err(CliError::usage);
    let summary = read(dir)?;
    let Some(wanted) = metric.filter(|&m| m != summary.metric()) else {
        return Ok((dir.to_path_buf(), summary));
    };
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let sibling = name.map(|n| match wanted {
        Metric::Mtm => format!("{n}-mtm"),
        Metric::Stm => n.strip_suffix("-mtm").unwrap_or(&n).to_string(),
    });
    let sibling = sibling.map(|n| dir.with_file_name(n));
    match sibling.as_deref().map(|s| (s, read(s))) {
        Some((s, Ok(other))) if other.metric() == wanted => Ok((s.to_path_buf(), other)),
        _ => Err(CliError::usage(format!(
            "{} holds {} metric results, not {}; run `npuzzle analyze ... --metric {}` first",
            crate::cli::shown(dir),
            summary.metric().long_name(),
            wanted.long_name(),
            wanted.name()
        ))),
    }
}

/// Checks that `file`, given to `flag`, names a chart npuzzle can write (a `.png` or a `.svg`,
/// [`plot::ChartFormat`]): a usage error otherwise, saying what it must be (and, for a folder,
/// that FILE may be missing).
fn chart_file(flag: &str, file: &Path) -> Result<(), CliError> {
    if plot::ChartFormat::of(file).is_some() && !file.is_dir() {
        return Ok(());
    }
    let hint = if file.is_dir() {
        format!(
            " ({} is a folder: was FILE forgotten?)",
            crate::cli::shown(file)
        )
    } else {
        String::new()
    };
    Err(CliError::usage(format!(
        "{flag} {}: the chart's file must be a .png or .svg file{hint}",
        crate::cli::shown(file)
    )))
}

/// Draws the depth chart `file` (a PNG) from `summary` on a `scale` y axis
/// ([`npuzzle::results::write_chart`], as `analyze` does).
pub(super) fn draw(file: &Path, summary: &Summary, scale: plot::Scale) -> Result<(), CliError> {
    npuzzle::results::write_chart(file, summary, scale).map_err(plot_failure)
}

/// A chart's error as the command's: nothing to draw is bad input (exit 2, as a summary.json
/// that cannot be read); a file that cannot be written, or a drawing failure, is a runtime
/// failure (exit 1, as for every output).
pub(super) fn plot_failure(e: plot::PlotError) -> CliError {
    match e {
        plot::PlotError::NoData(_) => CliError::usage(e),
        _ => CliError::runtime(e),
    }
}
