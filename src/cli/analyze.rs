//! `npuzzle analyze` and `npuzzle plot`: run the analysis, write the outputs, print the report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};
use indicatif::{DecimalBytes, HumanCount};
use npuzzle::analysis::{self, Options};
use npuzzle::export::{self, BoardFormat, Summary};
use npuzzle::{Board, Shape, plot};

use super::CliError;
use super::board::BoardArgs;
use super::progress::Bars;

/// Boards above this many cells export no edges or nodes unless asked.
const DEFAULT_EXPORT_CELLS: usize = 10;

/// How boards are written in an export, or no export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Export {
    /// Do not write the file.
    None,
    /// R-analysis labels (`123456789`, `1-2-...-12` from 10 cells on).
    Labels,
    /// Dense ranks `0..n!` (smaller; igraph's `read_edgelist` reads them).
    Ranks,
}

/// Arguments of `npuzzle analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Measure distances from this board instead of the standard goal (tiles in order, blank
    /// last): its label (123495678) or its tiles row by row, 0 or . for the blank
    /// ("1 2 3 / 4 0 5 / 6 7 8"). Results go to DIR/<R>x<C>-goal-<label>/.
    #[arg(long, value_name = "BOARD")]
    goal: Option<String>,
    /// Folder for the results; they go to DIR/<R>x<C>/.
    #[arg(long, value_name = "DIR", default_value = "output")]
    output: PathBuf,
    /// Write edges.csv [default: labels up to 10 cells, none above].
    #[arg(long, value_enum, value_name = "FORMAT")]
    edges: Option<Export>,
    /// Write nodes.csv [default: labels up to 10 cells, none above].
    #[arg(long, value_enum, value_name = "FORMAT")]
    nodes: Option<Export>,
    /// No report and no progress bars.
    #[arg(long, short)]
    quiet: bool,
}

/// Arguments of `npuzzle plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A results folder written by `analyze` (e.g. output/3x3); its summary.json is read and
    /// its depth_histogram.png redrawn.
    #[arg(value_name = "DIR", required = true)]
    dirs: Vec<PathBuf>,
    /// Instead, draw the depth distributions of all the given folders on one chart, to FILE.
    #[arg(long, value_name = "FILE")]
    compare: Option<PathBuf>,
}

fn format_of(choice: Option<Export>, shape: Shape) -> Option<BoardFormat> {
    let choice = choice.unwrap_or(if shape.cells() <= DEFAULT_EXPORT_CELLS {
        Export::Labels
    } else {
        Export::None
    });
    match choice {
        Export::None => None,
        Export::Labels => Some(BoardFormat::Labels),
        Export::Ranks => Some(BoardFormat::Ranks),
    }
}

/// Runs `npuzzle analyze`.
pub fn run(args: AnalyzeArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let shape = args.board.shape()?;
    let goal = match &args.goal {
        Some(text) => Board::parse_any(shape, text)
            .map_err(|e| CliError::usage(format!("--goal {text:?}: {e}")))?,
        None => Board::goal(shape),
    };
    let edges = format_of(args.edges, shape);
    let nodes = format_of(args.nodes, shape);
    if shape.cells() > analysis::SEARCH_CELLS && (edges.is_some() || nodes.is_some()) {
        return Err(CliError::usage(format!(
            "edges.csv and nodes.csv are written up to {} cells; {shape} has {} edges \
             (about {} as ranks): run without --edges and --nodes",
            analysis::SEARCH_CELLS,
            HumanCount(shape.edge_count().unwrap_or(0)),
            DecimalBytes(
                shape
                    .edge_count()
                    .unwrap_or(0)
                    .saturating_mul(row_bytes(shape, BoardFormat::Ranks))
            ),
        )));
    }
    let options = Options {
        per_board: nodes.is_some(),
    };
    analysis::plan(shape, options, analysis::available_memory()).map_err(CliError::usage)?;
    let folder = if goal == Board::goal(shape) {
        shape.to_string()
    } else {
        format!("{shape}-goal-{}", goal.label())
    };
    let dir = args.output.join(folder);
    export::prepare_dir(&dir).map_err(CliError::runtime)?;
    let bars = Bars::new(!args.quiet);

    let result = analysis::analyze_unchecked(&goal, options, &bars);
    let summary = Summary::of(&result);
    let mut written = Vec::new();
    let mut notes = Vec::new();
    let path = |name: &str| dir.join(name);

    let edges_done = edges.map(|f| export::write_edges(&path("edges.csv"), shape, f, &bars));
    let nodes_done = nodes.map(|f| export::write_nodes(&path("nodes.csv"), &result, f, &bars));
    match edges_done {
        Some(done) => {
            done.map_err(CliError::runtime)?;
            written.push("edges.csv");
        }
        None => notes.push(format!(
            "edges.csv not written: {} edges, about {} with --edges ranks, {} with --edges labels",
            HumanCount(result.edges),
            DecimalBytes(result.edges * row_bytes(shape, BoardFormat::Ranks)),
            DecimalBytes(result.edges * row_bytes(shape, BoardFormat::Labels)),
        )),
    }
    match nodes_done {
        Some(done) => {
            done.map_err(CliError::runtime)?;
            written.push("nodes.csv");
        }
        None => notes.push(
            match analysis::bytes_needed(shape, Options { per_board: true }) {
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
            },
        ),
    }
    export::write_depths(&path("depths.csv"), &summary).map_err(CliError::runtime)?;
    export::write_hardest(&path("hardest.txt"), &summary).map_err(CliError::runtime)?;
    export::write_summary(&path("summary.json"), &summary).map_err(CliError::runtime)?;
    draw(&dir, &summary)?;
    written.extend([
        "depths.csv",
        "hardest.txt",
        "summary.json",
        "depth_histogram.png",
    ]);

    if !args.quiet {
        print!(
            "{}",
            report(
                &summary,
                &dir,
                &written,
                &notes,
                started.elapsed().as_secs_f64()
            )
        );
    }
    Ok(())
}

/// Average bytes of one `edges.csv` row (for the size note).
fn row_bytes(shape: Shape, format: BoardFormat) -> u64 {
    let n = shape.cells() as u64;
    match format {
        BoardFormat::Ranks => 2 * shape.board_count().unwrap_or(1).to_string().len() as u64 + 2,
        BoardFormat::Labels if n <= 9 => 2 * n + 2,
        BoardFormat::Labels => {
            2 * (n - 1 + (1..=n).map(|t| t.to_string().len() as u64).sum::<u64>()) + 2
        }
    }
}

fn draw(dir: &Path, summary: &Summary) -> Result<(), CliError> {
    let hardest: Vec<String> = summary
        .hardest
        .boards
        .iter()
        .map(|b| b.grid.join("\n"))
        .collect();
    let chart = plot::DepthChart {
        board: &summary.board,
        counts: &summary.depth_counts,
        hardest: &hardest,
    };
    plot::write_depth_histogram(&chart, &dir.join("depth_histogram.png")).map_err(CliError::runtime)
}

fn report(
    summary: &Summary,
    dir: &Path,
    written: &[&str],
    notes: &[String],
    seconds: f64,
) -> String {
    let mut s = String::new();
    let sizes: Vec<String> = summary
        .components
        .sizes
        .iter()
        .map(|c| format!("{} x {}", HumanCount(c.count), HumanCount(c.size)))
        .collect();
    let _ = writeln!(
        s,
        "board        {} ({} rows x {} columns), goal {}",
        summary.board, summary.rows, summary.cols, summary.goal
    );
    let _ = writeln!(s, "boards       {}", HumanCount(summary.boards));
    let _ = writeln!(s, "edges        {}", HumanCount(summary.edges));
    let how = if summary.components.found_by == "theorem" {
        "; the goal's by BFS, the other its image under swapping two tiles (parity theorem)"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "components   {} (sizes: {}{how})",
        HumanCount(summary.components.count),
        sizes.join(", ")
    );
    let _ = writeln!(
        s,
        "reachable    {} from the goal",
        HumanCount(summary.reachable)
    );
    let _ = writeln!(
        s,
        "max depth    {} moves (God's number for {})",
        summary.max_depth, summary.board
    );
    let _ = writeln!(
        s,
        "hardest      {} board(s) at depth {}",
        HumanCount(summary.hardest.count),
        summary.hardest.depth
    );
    for b in summary.hardest.boards.iter().take(8) {
        let _ = writeln!(s);
        for row in &b.grid {
            let _ = writeln!(s, "    {row}");
        }
    }
    if summary.hardest.boards.len() > 8 {
        let _ = writeln!(
            s,
            "\n    ... {} more in hardest.txt",
            summary.hardest.boards.len() - 8
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "wrote        {}/{{{}}}",
        dir.display(),
        written.join(", ")
    );
    for note in notes {
        let _ = writeln!(s, "note         {note}");
    }
    let _ = writeln!(s, "time         {seconds:.2} s");
    s
}

/// Runs `npuzzle plot`: redraws charts from saved `summary.json` files.
pub fn plot(args: PlotArgs) -> Result<(), CliError> {
    let summaries = args
        .dirs
        .iter()
        .map(|d| Summary::read(&d.join("summary.json")).map_err(CliError::usage))
        .collect::<Result<Vec<_>, _>>()?;
    match &args.compare {
        Some(file) => {
            let series: Vec<plot::DepthSeries> = summaries
                .iter()
                .map(|s| plot::DepthSeries {
                    board: &s.board,
                    counts: &s.depth_counts,
                })
                .collect();
            plot::write_depth_comparison(&series, file).map_err(CliError::runtime)?;
            println!("wrote {}", file.display());
        }
        None => {
            for (dir, summary) in args.dirs.iter().zip(&summaries) {
                draw(dir, summary)?;
                println!("wrote {}", dir.join("depth_histogram.png").display());
            }
        }
    }
    Ok(())
}
