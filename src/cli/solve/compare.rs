//! `solve --compare`: every algorithm/heuristic pair that finishes in reasonable time, run on
//! one board, as a table (or, with `--quiet`, their lengths).

use std::io::Write;

use indicatif::{HumanBytes, HumanCount};
use npuzzle::solve::{self, Algorithm, Goal, Heuristic, HeuristicKind, Limits, SolveError};
use npuzzle::{Board, Metric, NoProgress, Shape};

use super::{Fail, Heuristics, human_seconds};
use crate::cli::CliError;

/// Caps for `--compare`, so that every row finishes within seconds.
const COMPARE_LIMITS: Limits = Limits {
    max_expanded: Some(50_000_000),
    max_stored: Some(5_000_000),
    time_limit: None,
};

/// The algorithm/heuristic pairs of `--compare` in `metric`, in table order: the
/// heuristics admissible in it.
fn compare_pairs(metric: Metric) -> Vec<(Algorithm, Option<HeuristicKind>)> {
    let mut pairs = vec![(Algorithm::Bfs, None), (Algorithm::Ucs, None)];
    for algorithm in [Algorithm::AStar, Algorithm::IdaStar] {
        for kind in HeuristicKind::ALL {
            if kind.admissible_in(metric) {
                pairs.push((algorithm, Some(kind)));
            }
        }
    }
    pairs
}

/// Why a pair is left out of `--compare` on `shape`, if it is.
fn skip_reason(shape: Shape, algorithm: Algorithm, kind: Option<HeuristicKind>) -> Option<String> {
    let cells = shape.cells();
    let many = cells > 11; // Over 20 million reachable boards from 12 cells on.
    match (algorithm, kind) {
        (Algorithm::Bfs | Algorithm::Ucs, _) if many => Some(format!(
            "{algorithm}: visits every board closer than the goal; {shape} has too many"
        )),
        (_, Some(HeuristicKind::Hamming)) if many => Some(format!(
            "{algorithm} + hamming: too weak a bound for {shape}"
        )),
        (Algorithm::AStar, Some(HeuristicKind::Manhattan)) if cells > 12 => Some(format!(
            "astar + manhattan: its open list outgrows the memory on {shape}"
        )),
        (_, Some(HeuristicKind::Pdb)) if cells > solve::pdb::MAX_CELLS => Some(format!(
            "{algorithm} + pdb: no pattern databases above {} cells",
            solve::pdb::MAX_CELLS
        )),
        (Algorithm::AStar, _) if cells > solve::search::MAX_STORED_CELLS => Some(format!(
            "astar: keeps every board, packed for at most {} cells",
            solve::search::MAX_STORED_CELLS
        )),
        _ => None,
    }
}

/// `--compare`: one row per pair that runs, then what was left out and why.
///
/// With `quiet`: nothing but the lengths, one line per row that runs (`-` for a run that
/// gave up), or `unsolvable`.
pub(super) fn run_compare(
    board: &Board,
    goal: Option<&Goal>,
    heuristics: &mut Heuristics,
    out: &mut impl Write,
    quiet: bool,
) -> Result<(), Fail> {
    let shape = board.shape();
    if !quiet {
        writeln!(out, "Board ({shape}):\n{}\n", board.grid())?;
        if let Some(goal) = goal {
            writeln!(out, "Goal:\n{}\n", goal.board().grid())?;
        }
    }
    let standard = Goal::standard(shape);
    let goal = goal.unwrap_or(&standard);
    if !goal.reaches(board) {
        writeln!(
            out,
            "{}",
            if quiet {
                "unsolvable"
            } else {
                "No solution possible"
            }
        )?;
        return Ok(());
    }
    if !quiet {
        writeln!(
            out,
            "{:<9} {:<16} {:>6} {:>13} {:>11} {:>12}",
            "algorithm", "heuristic", "moves", "expanded", "time", "peak memory"
        )?;
    }
    let metric = heuristics.metric;
    let mut skipped = Vec::new();
    let mut missing: Vec<(HeuristicKind, String)> = Vec::new();
    for (algorithm, kind) in compare_pairs(metric) {
        if let Some(why) = skip_reason(shape, algorithm, kind) {
            skipped.push(why);
            continue;
        }
        let kind_name = kind.map_or("-", HeuristicKind::name);
        let limits = COMPARE_LIMITS;
        let run_pair = |h: &Heuristic| {
            solve::solve_toward(board, goal, metric, algorithm, h, &limits, &NoProgress)
        };
        let result = match kind {
            Some(k) if algorithm.uses_heuristic() => match heuristics.get(shape, k) {
                Ok(h) => run_pair(&h),
                Err(e) if matches!(k, HeuristicKind::Exact | HeuristicKind::WalkingDistance) => {
                    if !missing.iter().any(|&(m, _)| m == k) {
                        missing.push((k, e.message));
                    }
                    continue;
                }
                Err(e) => return Err(e.into()),
            },
            _ => run_pair(&Heuristic::hamming(shape)),
        };
        if quiet {
            match &result {
                Ok(s) => writeln!(out, "{}", s.length())?,
                Err(SolveError::LimitReached { .. }) => writeln!(out, "-")?,
                Err(e) => return Err(CliError::runtime(e).into()),
            }
            continue;
        }
        let row = match result {
            // indicatif's types ignore widths: pad their text.
            Ok(s) => format!(
                "{:>6} {:>13} {:>11} {:>12}",
                s.length(),
                HumanCount(s.expanded).to_string(),
                human_seconds(s.elapsed.as_secs_f64()),
                HumanBytes(s.peak_bytes).to_string()
            ),
            Err(SolveError::LimitReached { expanded, .. }) => {
                format!(
                    "{:>6} {:>13} {:>11} {:>12}",
                    "-",
                    HumanCount(expanded).to_string(),
                    "gave up",
                    "-"
                )
            }
            Err(e) => return Err(CliError::runtime(e).into()),
        };
        writeln!(out, "{:<9} {:<16} {row}", algorithm.name(), kind_name)?;
    }
    if quiet {
        return Ok(());
    }
    let caps = format!(
        "A run gives up after {} boards expanded or {} held.",
        HumanCount(COMPARE_LIMITS.max_expanded.unwrap_or(0)),
        HumanCount(COMPARE_LIMITS.max_stored.unwrap_or(0))
    );
    writeln!(out, "\n{caps}")?;
    let slack = goal.slack(metric);
    if slack > 0 {
        writeln!(
            out,
            "Toward {}, whose blank is {slack} move{} from a corner, the heuristics' bounds \
             are lowered by {slack}.",
            goal.board().label(),
            if slack == 1 { "" } else { "s" }
        )?;
    }
    if !metric.moves_one_tile() {
        writeln!(
            out,
            "Moves are counted in the multi-tile metric, where hamming, manhattan and \
             linear-conflict are not admissible; pdb is the multi-tile pattern database."
        )?;
    }
    if !skipped.is_empty() || !missing.is_empty() {
        writeln!(out, "Not run:")?;
        for why in skipped {
            writeln!(out, "  {why}")?;
        }
        for (kind, why) in missing {
            writeln!(out, "  {kind}: {why}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_skips_what_would_not_finish() {
        let s44 = Shape::square(4).unwrap();
        let s33 = Shape::square(3).unwrap();
        let run = |s, metric| {
            compare_pairs(metric)
                .into_iter()
                .filter(|&(a, k)| skip_reason(s, a, k).is_none())
                .count()
        };
        assert_eq!(run(s33, Metric::Stm), 14);
        // 4x4: no bfs, ucs, hamming (both), astar + manhattan.
        assert_eq!(run(s44, Metric::Stm), 9);
        // MTM: bfs, ucs, then walking distance, pdb and exact for astar and idastar.
        assert_eq!(run(s33, Metric::Mtm), 8);
        assert_eq!(run(s44, Metric::Mtm), 6);
        assert!(skip_reason(s44, Algorithm::Bfs, None).is_some());
    }
}
