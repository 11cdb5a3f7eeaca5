//! `npuzzle solve`: optimal solutions for single boards, a batch of boards, or a comparison
//! of the algorithms on one board.
//!
//! Arguments are parsed in two steps: [`SolveArgs`] as clap reads them, then a checked
//! [`Config`]. The work is done by `npuzzle::solve`; this module reads the input, prepares
//! heuristics (pattern databases from the cache folder), and prints.
//!
//! This file runs the command and answers a single board; the other concerns have files of
//! their own: `config` (the arguments checked), `heuristics` (what the searches are guided
//! by, from the cache folder), `table` (answers from a distance table), `batch` (`--batch`),
//! `compare` (`--compare`) and `pdb` (the `npuzzle pdb` command).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Read, Write};
use std::sync::Arc;

use indicatif::{HumanBytes, HumanCount};
use npuzzle::solve::input::AnyBoard;
use npuzzle::solve::wide::WideBoard;
use npuzzle::solve::{
    self, Algorithm, Goal, Heuristic, HeuristicKind, Limits, Solution, SolveError, input,
};
use npuzzle::table::DistanceTable;
use npuzzle::{Board, Direction, Metric, Shape};

use crate::cli::CliError;
use crate::cli::progress::Bars;

/// A note or warning on stderr that cannot fail the run: the answers and the databases saved
/// are the work, and a stderr that cannot take a note (`2>/dev/full`) does not undo them.
/// (Defined before the `mod` lines, so that the submodules may use it too.)
macro_rules! note {
    ($($arg:tt)*) => {{
        let _ = writeln!(io::stderr(), $($arg)*);
    }};
}

mod batch;
mod compare;
mod config;
mod heuristics;
mod pdb;
mod table;
mod wide;

pub use config::SolveArgs;
pub use pdb::{PdbArgs, build_databases};
pub(super) use table::guard_table;

use batch::{batch_work, run_batch};
use compare::run_compare;
use config::{BoardSource, Config, Single};
use heuristics::Heuristics;
use table::{check_table, from_table};

/// Runs `npuzzle solve`.
///
/// # Errors
/// Exit 2 for bad input (one line naming the file and the problem), 1 when the work could
/// not be done.
pub fn run(args: &SolveArgs) -> Result<(), CliError> {
    let mut config = Config::from_args(args)?;
    let table = match &config.table {
        Some(path) => {
            let table = DistanceTable::open_checking(path, npuzzle::table::Check::OnRead)
                .map_err(CliError::usage)?;
            check_table(&config, path, &table)?;
            guard_table(&table, path);
            config.metric = table.metric();
            if config.shape.is_none() {
                config.shape = Some(table.shape());
            }
            Some(Arc::new(table))
        }
        None => None,
    };
    let bars = Bars::new(!config.quiet);
    let mut heuristics = Heuristics {
        table,
        metric: config.metric,
        cache_dir: config.cache_dir.clone(),
        partition: config.partition.clone(),
        quiet: config.quiet,
        bars: &bars,
        prepared: HashMap::new(),
        work: match &config.source {
            BoardSource::Batch(path) => batch_work(path, config.shape),
            BoardSource::Single(_) => HashMap::new(),
        },
        chosen: HashMap::new(),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout);
    let result = match &config.source {
        BoardSource::Batch(path) => run_batch(&config, path, &mut heuristics, &mut out),
        BoardSource::Single(single) => {
            let board = match read_board(single, config.shape)? {
                AnyBoard::Board(board) => board,
                AnyBoard::Wide(board) => {
                    let result = wide::run_wide(&config, &board, &bars, &mut out)
                        .and_then(|()| out.flush().map_err(Fail::Io));
                    return finish(result);
                }
            };
            let goal = match goal_of(&config, board.shape())? {
                Some(goal) if !goal.reaches(&board) => {
                    return Err(CliError::usage(format!(
                        "the board cannot reach --goal {}: they are in different components \
                         of the game graph ({})",
                        goal.board().label(),
                        if board.shape().is_grid() {
                            "opposite parity classes"
                        } else {
                            "their tiles in another order along the line"
                        }
                    )));
                }
                Some(goal) => Some(goal),
                // A table's own goal, when it is not the standard one.
                None => heuristics
                    .table
                    .as_ref()
                    .filter(|t| t.shape() == board.shape() && *t.goal() != Board::goal(t.shape()))
                    .map(|t| Goal::new(t.goal())),
            };
            if config.compare {
                run_compare(
                    &board,
                    goal.as_ref(),
                    &mut heuristics,
                    &mut out,
                    config.quiet,
                )
            } else {
                run_one(&config, &board, goal.as_ref(), &mut heuristics, &mut out)
            }
        }
    };
    finish(result.and_then(|()| out.flush().map_err(Fail::Io)))
}

/// The end of a run: its error, a closed pipe (`npuzzle solve ... | head`) not being one.
fn finish(result: Result<(), Fail>) -> Result<(), CliError> {
    match result {
        Ok(()) => Ok(()),
        Err(Fail::Cli(e)) => Err(e),
        // A closed pipe (`npuzzle solve ... | head`) is not an error.
        Err(Fail::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(Fail::Io(e)) => Err(CliError::runtime(format!("cannot write the output: {e}"))),
    }
}

/// `--goal` as a board of `shape` (the shape of the boards solved), or `None` without it.
///
/// # Errors
/// A usage error naming `--goal` when it is not a board of `shape`.
fn goal_of(config: &Config, shape: Shape) -> Result<Option<Goal>, CliError> {
    let Some(text) = &config.goal else {
        return Ok(None);
    };
    Board::parse_any(shape, text)
        .map(|goal| Some(Goal::new(&goal)))
        .map_err(|e| CliError::usage(format!("--goal {text:?}: {e}")))
}

/// A failure while producing output: a reported error, or a failed write.
enum Fail {
    Cli(CliError),
    Io(io::Error),
}

impl From<CliError> for Fail {
    fn from(e: CliError) -> Fail {
        Fail::Cli(e)
    }
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Fail {
        Fail::Io(e)
    }
}

/// The most bytes a board file (or a batch line) may hold: the largest board, 127 x 127,
/// needs about 97 KB (16,129 numbers of up to 5 digits and a space), a few more with wider
/// alignment; more means the input is not a board (`/dev/zero`, an endless stream), and
/// reading stops there rather than fill the memory.
const MAX_BOARD_BYTES: u64 = 256 * 1024;

/// Reads a single board (file, stdin or `--board`), of any size the assignment allows;
/// `shape` from `--rows/--cols`.
fn read_board(source: &Single, shape: Option<Shape>) -> Result<AnyBoard, CliError> {
    let (name, text) = match source {
        Single::File(path) => {
            let name = path.display().to_string();
            let file = std::fs::File::open(path)
                .map_err(|e| CliError::usage(format!("{name}: cannot read: {e}")))?;
            let text = read_bounded(file, &name)?;
            (name, text)
        }
        Single::Stdin => ("<stdin>".to_string(), read_bounded(io::stdin(), "<stdin>")?),
        Single::Board(text) => ("--board".to_string(), text.clone()),
    };
    // A file holds N and then N rows, unless --rows/--cols say the list is flat.
    let parsed = match (source, shape) {
        (Single::Board(_), _) | (_, Some(_)) => input::parse_flat_any(&text, shape),
        _ => input::parse_assignment_any(&text),
    };
    parsed.map_err(|e| CliError::usage(format!("{name}: {e}")))
}

/// Reads at most [`MAX_BOARD_BYTES`] of text from `input` (named `name` in errors).
fn read_bounded(input: impl Read, name: &str) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    input
        .take(MAX_BOARD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::usage(format!("{name}: cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_BOARD_BYTES {
        return Err(CliError::usage(format!(
            "{name}: more than {} KiB, not a board (a 127x127 board file is about 100 KiB)",
            MAX_BOARD_BYTES / 1024
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| CliError::usage(format!("{name}: not a text file (invalid UTF-8)")))
}

/// Solves `board` toward `goal` (the standard goal without one) by `algorithm` with `kind`
/// in the run's metric, capping the memory of the storing searches; IDA* shows its bounds
/// on the run's bars. From a distance table, its walk (to its goal, checked to be `goal`).
fn solve_with(
    board: &Board,
    goal: Option<&Goal>,
    (algorithm, kind): (Algorithm, HeuristicKind),
    heuristics: &mut Heuristics,
    limits: Limits,
) -> Result<Result<Solution, SolveError>, CliError> {
    if let Some(table) = &heuristics.table {
        return Ok(from_table(table, board));
    }
    let heuristic = if algorithm.uses_heuristic() {
        heuristics.get(board.shape(), kind)?
    } else {
        // BFS and UCS ignore it; any heuristic of the right shape will do.
        Heuristic::hamming(board.shape())
    };
    let standard = Goal::standard(board.shape());
    Ok(solve::solve_toward(
        board,
        goal.unwrap_or(&standard),
        heuristics.metric,
        algorithm,
        &heuristic,
        &limits,
        heuristics.bars,
    ))
}

/// One board: the boards from start to goal, then the summary. `goal`: `--goal`'s (checked
/// to be reachable), or a table's own when it is not the standard one; `None` for the
/// standard goal.
fn run_one(
    config: &Config,
    board: &Board,
    goal: Option<&Goal>,
    heuristics: &mut Heuristics,
    out: &mut impl Write,
) -> Result<(), Fail> {
    let (algorithm, kind) = config.method(board.shape());
    let reached = goal.map_or_else(|| board.is_solvable(), |g| g.reaches(board));
    if board.shape().cells() > solve::pdb::MAX_CELLS
        && heuristics.table.is_none()
        && algorithm == Algorithm::IdaStar
        && !config.quiet
        && kind != HeuristicKind::Pdb
        && config.time_limit.is_none()
        && config.max_expanded.is_none()
        && reached
    {
        let why = match config.metric {
            Metric::Stm => format!(
                "without pattern databases (they go up to {} cells)",
                solve::pdb::MAX_CELLS
            ),
            Metric::Mtm => "in the multi-tile metric (walking distance only)".to_string(),
        };
        note!(
            "note: a {} board {why}: the search may not finish in reasonable time; bound it \
             with --time-limit SECONDS or --max-expansions N",
            board.shape(),
        );
    }
    let limits = config.limits(algorithm);
    let method = (algorithm, kind);
    let search = || solve_with(board, goal, method, heuristics, limits);
    let Some(solution) = answer_head(config, algorithm, reached, search, out)? else {
        return Ok(());
    };
    let goal_grid = goal.map(|g| g.board().grid());
    write_solution(out, board, goal_grid, &solution, algorithm)?;
    let mut method = if let Some(table) = &heuristics.table {
        match *table.goal() == Board::goal(table.shape()) {
            true => "table".to_string(),
            false => format!("table (to its goal {})", table.goal().label()),
        }
    } else {
        method_name(algorithm, kind)
    };
    if algorithm.uses_heuristic()
        && kind == HeuristicKind::Pdb
        && let Some(partition) = heuristics.chosen.get(&board.shape())
    {
        method = format!("{method} ({})", partition.name());
    }
    if let Some(goal) = goal
        && heuristics.table.is_none()
    {
        method.push_str(&toward_words(goal, algorithm, config.metric));
    }
    writeln!(out, "Method: {method}")?;
    Ok(())
}

/// The head of one board's answer: "No solution possible" (with --quiet, "unsolvable") when
/// it cannot reach the goal, found before any search or table is built (`reached` false) or
/// by the search ([`SolveError::Unsolvable`]); with --quiet, the length alone; otherwise the
/// solution, for the caller to print in full (`None`: the answer is written). A search that
/// stopped is its [`refusal`].
fn answer_head(
    config: &Config,
    algorithm: Algorithm,
    reached: bool,
    search: impl FnOnce() -> Result<Result<Solution, SolveError>, CliError>,
    out: &mut impl Write,
) -> Result<Option<Solution>, Fail> {
    let unsolvable = if config.quiet {
        "unsolvable"
    } else {
        "No solution possible"
    };
    if !reached {
        writeln!(out, "{unsolvable}")?;
        return Ok(None);
    }
    let solution = match search()? {
        Ok(s) => s,
        Err(SolveError::Unsolvable) => {
            writeln!(out, "{unsolvable}")?;
            return Ok(None);
        }
        Err(e) => return Err(refusal(config, algorithm, e)),
    };
    if config.quiet {
        writeln!(out, "{}", solution.length())?;
        return Ok(None);
    }
    Ok(Some(solution))
}

/// The one-line error of a search that stopped (`e` is not [`SolveError::Unsolvable`], which
/// is an answer): a limit reached (exit 1), or a usage error.
fn refusal(config: &Config, algorithm: Algorithm, e: SolveError) -> Fail {
    match e {
        e @ SolveError::TimeUp { .. } => {
            CliError::runtime(format!("{algorithm} {e} (--time-limit)")).into()
        }
        SolveError::LimitReached { expanded, .. }
            if config.max_expanded.is_some_and(|m| expanded >= m) =>
        {
            CliError::runtime(format!(
                "{algorithm} stopped after {expanded} boards expanded (--max-expansions) \
                 without reaching the goal"
            ))
            .into()
        }
        e @ SolveError::LimitReached { .. } => CliError::runtime(format!(
            "{algorithm} {e}: the search would outgrow the memory; \
             try --algorithm idastar, which needs almost none"
        ))
        .into(),
        e => CliError::usage(e).into(),
    }
}

/// What printing a solution needs of a board, of at most 64 cells or more: its grid and
/// its moves.
trait Printed: Clone {
    fn grid(&self) -> String;
    fn moved(&self, dir: Direction) -> Option<Self>;
}

impl Printed for Board {
    fn grid(&self) -> String {
        Board::grid(self)
    }
    fn moved(&self, dir: Direction) -> Option<Board> {
        Board::moved(self, dir)
    }
}

impl Printed for WideBoard {
    fn grid(&self) -> String {
        WideBoard::grid(self)
    }
    fn moved(&self, dir: Direction) -> Option<WideBoard> {
        WideBoard::moved(self, dir)
    }
}

/// The answer for one board, in the assignment's form: the start (and `goal_grid`, a goal
/// other than the standard one), the board after each move, the number of moves, then the
/// moves as letters and what the search cost. The `Method:` line is the caller's.
fn write_solution(
    out: &mut impl Write,
    board: &impl Printed,
    goal_grid: Option<String>,
    solution: &Solution,
    algorithm: Algorithm,
) -> Result<(), Fail> {
    let mut current = board.clone();
    writeln!(out, "Start:\n{}", current.grid())?;
    if let Some(goal) = goal_grid {
        writeln!(out, "\nGoal:\n{goal}")?;
    }
    // One printed move per run of one direction in MTM (its notation), per slide in STM.
    for (i, (dir, tiles)) in solution
        .metric
        .steps(&solution.moves)
        .into_iter()
        .enumerate()
    {
        for _ in 0..tiles {
            current = current.moved(dir).ok_or_else(|| {
                CliError::runtime("internal error: the solution leaves the board")
            })?;
        }
        let word = npuzzle::metric::word(dir, tiles);
        writeln!(out, "\nMove {} (blank {word}):\n{}", i + 1, current.grid())?;
    }
    writeln!(out)?;
    match solution.metric {
        Metric::Stm => writeln!(out, "Minimum number of moves = {}", solution.length())?,
        Metric::Mtm => writeln!(
            out,
            "Minimum number of moves = {} (multi-tile metric; {} single-tile slides)",
            solution.length(),
            solution.moves.len()
        )?,
    }
    let letters = solution.notation(" ");
    writeln!(
        out,
        "Solution (blank moves): {}",
        if letters.is_empty() {
            "(none)"
        } else {
            &letters
        }
    )?;
    writeln!(out, "Nodes expanded: {}", HumanCount(solution.expanded))?;
    writeln!(out, "Nodes generated: {}", HumanCount(solution.generated))?;
    writeln!(
        out,
        "Time: {}",
        human_seconds(solution.elapsed.as_secs_f64())
    )?;
    writeln!(
        out,
        "Peak memory: {} ({} {})",
        HumanBytes(solution.peak_bytes),
        HumanCount(solution.peak_nodes),
        match (algorithm.stores_boards(), solution.peak_nodes) {
            (true, 1) => "board held",
            (true, _) => "boards held",
            (false, 1) => "level deep",
            (false, _) => "levels deep",
        }
    )?;
    Ok(())
}

/// How a search went toward `goal`, for the `Method:` line: `, toward 123495678 (its bound
/// less 2: the goal's blank is 2 moves from a corner)`.
fn toward_words(goal: &Goal, algorithm: Algorithm, metric: Metric) -> String {
    let slack = goal.slack(metric);
    let mut words = format!(", toward {}", goal.board().label());
    if slack > 0 && algorithm.uses_heuristic() {
        let _ = write!(
            words,
            " (its bound less {slack}: the goal's blank is {slack} move{} from a corner)",
            if slack == 1 { "" } else { "s" }
        );
    }
    words
}

fn method_name(algorithm: Algorithm, kind: HeuristicKind) -> String {
    if algorithm.uses_heuristic() {
        format!("{algorithm} + {kind}")
    } else {
        algorithm.to_string()
    }
}

/// Seconds as `0.042 ms`, `12.3 ms` or `1.23 s`.
fn human_seconds(s: f64) -> String {
    let mut out = String::new();
    let _ = if s < 0.001 {
        write!(out, "{:.3} ms", s * 1e3)
    } else if s < 1.0 {
        write!(out, "{:.1} ms", s * 1e3)
    } else {
        write!(out, "{s:.2} s")
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(human_seconds(0.000_042), "0.042 ms");
        assert_eq!(human_seconds(0.0123), "12.3 ms");
        assert_eq!(human_seconds(1.234), "1.23 s");
    }
}
