//! `solve` on boards over 64 cells ([`npuzzle::solve::wide`]): the options they take, and
//! one board solved and printed as every board is ([`super::write_solution`]).

use std::io::{self, Write};

use npuzzle::solve::wide::{self, WideBoard};
use npuzzle::solve::{Algorithm, HeuristicKind, SolveError};

use super::{Config, Fail, answer_head, method_name, write_solution};
use crate::cli::CliError;
use crate::cli::progress::Bars;

/// The heuristic a board over 64 cells of size `size` (`RxC`) is solved with: linear
/// conflict, or `--heuristic manhattan`.
///
/// # Errors
/// A usage error for an option these boards do not take: `--goal`, `--table`, `--compare`,
/// `--metric mtm`, an algorithm other than IDA*, another heuristic.
pub(super) fn wide_method(config: &Config, size: &str) -> Result<HeuristicKind, CliError> {
    let refuse = |what: &str| {
        CliError::usage(format!(
            "{what} is not available for boards over 64 cells (this one is {size}): they are \
             solved by IDA* with linear conflict toward the standard goal"
        ))
    };
    if config.goal.is_some() {
        return Err(refuse("--goal"));
    }
    if config.table.is_some() {
        return Err(refuse("--table"));
    }
    if config.compare {
        return Err(refuse("--compare"));
    }
    if !config.metric.moves_one_tile() {
        return Err(refuse(&format!("--metric {}", config.metric.name())));
    }
    if let Some(a) = config.algorithm.filter(|&a| a != Algorithm::IdaStar) {
        return Err(refuse(&format!("--algorithm {a}")));
    }
    match config.heuristic {
        None => Ok(HeuristicKind::LinearConflict),
        Some(kind @ (HeuristicKind::Manhattan | HeuristicKind::LinearConflict)) => Ok(kind),
        Some(kind) => Err(CliError::usage(SolveError::WideHeuristic { kind })),
    }
}

/// Solves and prints one board over 64 cells, IDA*'s bounds on `bars`.
pub(super) fn run_wide(
    config: &Config,
    board: &WideBoard,
    bars: &Bars,
    out: &mut impl Write,
) -> Result<(), Fail> {
    let kind = wide_method(config, &board.to_string())?;
    let solvable = board.is_solvable();
    if solvable && !config.quiet && config.time_limit.is_none() && config.max_expanded.is_none() {
        note!(
            "note: a {board} board is solved by IDA* with {kind}: one far from the goal may not \
             finish in reasonable time; bound it with --time-limit SECONDS or --max-expansions N"
        );
    }
    let algorithm = Algorithm::IdaStar;
    let search = || Ok(wide::solve(board, kind, &config.limits(algorithm), bars));
    let Some(solution) = answer_head(config, algorithm, solvable, search, out)? else {
        return Ok(());
    };
    write_solution(out, board, None, &solution, algorithm)?;
    writeln!(out, "Method: {}", method_name(algorithm, kind))?;
    Ok(())
}
