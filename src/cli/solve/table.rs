//! `solve --table`: a distance table answers instead of a search. The table is checked
//! against the question asked, guarded against a truncation under the run, and its walks
//! are reported as [`Solution`]s.

use std::io::{self, Write};
use std::path::Path;

use npuzzle::solve::{Solution, SolveError};
use npuzzle::table::DistanceTable;
use npuzzle::{Board, Metric};

use super::Config;
use crate::cli::CliError;

/// Turns a fault on the mapped `table` (read from `path`) into one line and exit 1: a file
/// truncated under the run (by another process) makes the next read of a page past its new
/// end raise SIGBUS, which would kill the run with exit 135. The library's guard
/// ([`npuzzle::faults::guard`]) prints `error: PATH: the table changed under the run
/// (truncated?) ...` for a fault inside the table's mapped range and ends the process with
/// `_exit(1)`; a fault elsewhere gets the default action.
pub(in crate::cli) fn guard_table(table: &DistanceTable, path: &Path) {
    let message = format!(
        "error: {}: the table changed under the run (truncated?): its bytes can no longer be \
         read\n",
        crate::cli::shown(path)
    );
    npuzzle::faults::guard(table, message);
}

/// The metric's name in messages: `single-tile (stm)`, `multi-tile (mtm)`.
fn metric_words(metric: Metric) -> &'static str {
    match metric {
        Metric::Stm => "single-tile (stm)",
        Metric::Mtm => "multi-tile (mtm)",
    }
}

/// Refuses a table at `path` that answers another question than the one asked: another
/// metric than `--metric`, another goal than `--goal`. Without `--goal`, a table made for
/// another goal than the standard one is named in a warning on stderr (even with `--quiet`:
/// the moves lead there).
pub(super) fn check_table(
    config: &Config,
    path: &Path,
    table: &DistanceTable,
) -> Result<(), CliError> {
    let name = crate::cli::shown(path);
    if config.metric_given && table.metric() != config.metric {
        return Err(CliError::usage(format!(
            "{name}: a table of the {} metric, and --metric asks for the {} one",
            metric_words(table.metric()),
            metric_words(config.metric)
        )));
    }
    let shape = table.shape();
    let standard = *table.goal() == Board::goal(shape);
    match &config.goal {
        Some(text) => {
            let goal = Board::parse_any(shape, text)
                .map_err(|e| CliError::usage(format!("--goal {text:?}: {e}")))?;
            if goal != *table.goal() {
                return Err(CliError::usage(format!(
                    "{name}: a table for the goal {}, and --goal asks for {}",
                    table.goal().label(),
                    goal.label()
                )));
            }
        }
        None if !standard => {
            let _ = writeln!(
                io::stderr(),
                "warning: {name} measures from the goal {}, not the standard one: the moves \
                 lead there (--goal names it)",
                table.goal().label()
            );
        }
        None => {}
    }
    Ok(())
}

/// `board` solved by walking down `table`: a [`Solution`] whose `expanded` counts the steps.
pub(super) fn from_table(table: &DistanceTable, board: &Board) -> Result<Solution, SolveError> {
    let started = std::time::Instant::now();
    let walk = table.solve(board);
    from_walk(table, board, walk, started.elapsed())
}

/// The [`Solution`] of `board` that `walk` found in `table` in `elapsed`.
pub(super) fn from_walk(
    table: &DistanceTable,
    board: &Board,
    walk: Result<Option<Vec<npuzzle::Direction>>, npuzzle::table::TableError>,
    elapsed: std::time::Duration,
) -> Result<Solution, SolveError> {
    match walk {
        Ok(Some(moves)) => Ok(Solution {
            metric: table.metric(),
            expanded: moves.len() as u64,
            generated: 0,
            moves,
            elapsed,
            peak_nodes: 1,
            peak_bytes: 2 * board.shape().cells() as u64,
        }),
        Ok(None) => Err(SolveError::Unsolvable),
        Err(e) => Err(SolveError::Table(e.to_string())),
    }
}
