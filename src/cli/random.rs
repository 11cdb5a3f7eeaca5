//! `npuzzle random`: random boards without a distance table ([`npuzzle::random::Scrambler`]),
//! one a line, as `solve --batch` reads them.

use std::io::{self, BufWriter, Write};

use npuzzle::Board;
use npuzzle::random::Scrambler;

use super::CliError;
use super::board::BoardArgs;

/// Arguments of `npuzzle random`.
#[derive(Debug, clap::Args)]
pub struct RandomArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// The goal the boards can reach, in any board notation (default: tiles in order, blank
    /// last).
    #[arg(long, value_name = "BOARD")]
    goal: Option<String>,
    /// How many boards.
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,
    /// Seed of the draws: the same seed gives the same boards.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Instead of uniform draws, scramble the goal by K random slides (never undoing the last
    /// one): boards at most K moves from the goal. K is at most 1000000000 (tens of seconds a
    /// board): a longer walk only comes closer to the uniform draw that leaving out --moves
    /// gives.
    #[arg(long, value_name = "K", value_parser = parse_moves)]
    moves: Option<u64>,
}

/// Parses `--moves`: a whole number from 0 to [`MAX_WALK_MOVES`].
///
/// [`MAX_WALK_MOVES`]: npuzzle::random::MAX_WALK_MOVES
fn parse_moves(value: &str) -> Result<u64, String> {
    use npuzzle::random::MAX_WALK_MOVES;
    match value.trim().parse::<u64>() {
        Ok(k) if k <= MAX_WALK_MOVES => Ok(k),
        _ => Err(format!(
            "the slides of the walk: a whole number from 0 to {MAX_WALK_MOVES} (longer walks \
             only come closer to the uniform draw that leaving out --moves gives)"
        )),
    }
}

/// Runs `npuzzle random`: each board on a line, tiles row by row, rows separated by ` / `,
/// `0` for the blank (what `solve --batch` reads), written as drawn (any count, in constant
/// memory).
///
/// # Errors
/// Exit 2 for a bad shape or goal; 1 when stdout fails (a closed pipe ends it quietly).
pub fn run(args: &RandomArgs) -> Result<(), CliError> {
    let shape = args.board.shape()?;
    let goal = match &args.goal {
        None => Board::goal(shape),
        Some(text) => Board::parse_any(shape, text)
            .map_err(|e| CliError::usage(format!("--goal {text:?}: {e}")))?,
    };
    let mut scrambler = Scrambler::new(args.seed);
    let mut out = BufWriter::new(io::stdout());
    let mut write = || -> io::Result<()> {
        for _ in 0..args.count {
            let board = match args.moves {
                Some(k) => scrambler.walk(&goal, k),
                None => scrambler.uniform(&goal),
            };
            writeln!(out, "{}", board.rows_line())?;
        }
        out.flush()
    };
    match write() {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::runtime(format!("cannot write the output: {e}"))),
    }
}
