//! `npuzzle`: the command line. Parses arguments, runs a command, maps errors to exit codes
//! (0 success, 1 runtime failure such as an unwritable folder, 2 bad usage or bad input).

mod cli;

use std::process::ExitCode;

use clap::error::ErrorKind;
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
    /// Solve boards optimally: one board (file, stdin or --board), a batch, or a comparison
    /// of the algorithms.
    Solve(cli::solve::SolveArgs),
    /// Write the whole game graph as GraphML or DOT, with each board's component and depth.
    Export(cli::export::ExportArgs),
    /// Draw a small game graph, each board as a small grid: DOT, and PNG with Graphviz.
    Draw(cli::draw::DrawArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // No subcommand: the whole help, as a usage error.
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            // Usage errors: clap's first paragraph, on one line.
            let text = e.render().to_string();
            let lines: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.is_empty())
                .collect();
            eprintln!("{} (see --help)", lines.join(" "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Analyze(args) => cli::analyze::run(args),
        Command::Plot(args) => cli::analyze::plot(args),
        Command::Solve(args) => cli::solve::run(&args),
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
