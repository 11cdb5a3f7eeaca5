//! `npuzzle export`: the whole game graph as GraphML or DOT ([`npuzzle::interop`]).

use std::fs;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use indicatif::{DecimalBytes, HumanCount};
use npuzzle::analysis::{self, Options};
use npuzzle::export;
use npuzzle::interop::{self, GraphFormat};
use npuzzle::metric::Metric;

use super::board::BoardArgs;
use super::progress::Bars;
use super::{CliError, MetricArg};

/// A graph file format, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormatArg {
    /// GraphML (Gephi, Cytoscape, igraph, networkx): writes graph.graphml.
    Graphml,
    /// Graphviz DOT: writes graph.dot.
    Dot,
}

/// Arguments of `npuzzle export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// File format.
    #[arg(long, value_enum, default_value = "graphml")]
    format: GraphFormatArg,
    /// Folder for the file; it goes to DIR/<R>x<C>/graph.graphml or graph.dot
    /// (DIR/<R>x<C>-mtm/ in the multi-tile metric).
    #[arg(long, value_name = "DIR", default_value = "output")]
    output: PathBuf,
    /// What one move, and so one edge, is: stm (single-tile) or mtm (multi-tile: the blank
    /// passes 1 to k tiles of its row or column). Long names: single-tile, multi-tile.
    #[arg(long, value_enum, value_name = "METRIC", default_value = "stm")]
    metric: MetricArg,
    /// No report and no progress bars.
    #[arg(long, short)]
    quiet: bool,
}

/// `1 edge`, `840 edges`.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", HumanCount(n), if n == 1 { one } else { many })
}

/// Runs `npuzzle export`: analyzes the board (components and depths of every board), then
/// writes its whole game graph with those vertex attributes.
pub fn run(args: ExportArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let shape = args.board.shape()?;
    interop::check_shape(shape).map_err(CliError::usage)?;
    let metric = Metric::from(args.metric);
    let options = Options {
        per_board: true,
        metric,
        table: false,
        search_components: false,
    };
    analysis::plan(shape, options, analysis::available_memory()).map_err(CliError::usage)?;
    let format = match args.format {
        GraphFormatArg::Graphml => GraphFormat::GraphMl,
        GraphFormatArg::Dot => GraphFormat::Dot,
    };
    let dir = args
        .output
        .join(format!("{shape}{}", metric.folder_suffix()));
    export::prepare_dir(&dir).map_err(CliError::runtime)?;
    let path = dir.join(format.file_name());

    let bars = Bars::new(!args.quiet);
    let result = analysis::analyze_unchecked(&npuzzle::Board::goal(shape), options, &bars)
        .map_err(CliError::runtime)?;
    interop::write_graph(&path, &result, format, &bars).map_err(CliError::runtime)?;
    if !args.quiet {
        let size = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!(
            "wrote {}: {} (board, rank, component, depth), {}, {}, in {:.2} s",
            super::shown(&path),
            count(result.boards, "vertex", "vertices"),
            count(result.edges, "edge", "edges"),
            DecimalBytes(size),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
