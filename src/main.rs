//! `npuzzle`: the command line. Parses arguments, runs a command, maps errors to exit codes
//! (0 success, 1 runtime failure such as an unwritable folder, 2 bad usage or bad input).

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Maps the whole state space of sliding-tile puzzles and solves single boards optimally.
#[derive(Parser)]
#[command(name = "npuzzle", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Map the whole state space of a board: game graph, components, BFS depths, outputs.
    Analyze(cli::analyze::AnalyzeArgs),
    /// Redraw the depth chart from saved results (no recomputation), or compare boards.
    Plot(cli::analyze::PlotArgs),
    /// Write the whole game graph as GraphML or DOT, with each board's component and depth.
    Export(cli::export::ExportArgs),
    /// Draw a small game graph, each board as a small grid: DOT, and PNG with Graphviz.
    Draw(cli::draw::DrawArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Analyze(args) => cli::analyze::run(args),
        Command::Plot(args) => cli::analyze::plot(args),
        Command::Export(args) => cli::export::run(args),
        Command::Draw(args) => cli::draw::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
