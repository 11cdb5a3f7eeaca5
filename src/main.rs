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
    /// Solve boards optimally: one board (file, stdin or --board), a batch, or a comparison
    /// of the algorithms.
    Solve(cli::solve::SolveArgs),
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
    let result: Result<(), cli::CliError> = match cli.command {
        Command::Solve(args) => cli::solve::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
