//! `npuzzle sample`: random boards at an exact depth, drawn from a distance table
//! ([`npuzzle::table::DistanceTable::sample`]).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use npuzzle::table::DistanceTable;

use super::CliError;

/// Arguments of `npuzzle sample`.
#[derive(Debug, clap::Args)]
pub struct SampleArgs {
    /// The table written by `analyze --table` (the file, or the results folder holding
    /// table.npt).
    #[arg(long, value_name = "DIR_OR_FILE")]
    table: PathBuf,
    /// The depth: moves from the goal, in the table's metric.
    #[arg(long, value_name = "D")]
    depth: u32,
    /// How many boards, each drawn uniformly and independently among those at that depth.
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,
    /// Seed of the draws: the same seed gives the same boards.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Skip the table's checksum (the header and length are still checked).
    #[arg(long)]
    no_verify: bool,
}

/// Runs `npuzzle sample`: CSV on stdout with the header `board,depth`, one board a line,
/// written as `solve --batch` reads it (tiles row by row, rows separated by `/`, 0 = blank).
///
/// # Errors
/// Exit 2 for a missing or damaged table or a depth no board has; 1 when stdout fails.
pub fn run(args: &SampleArgs) -> Result<(), CliError> {
    let table = DistanceTable::open(&args.table, !args.no_verify).map_err(CliError::usage)?;
    let boards = table
        .sample(args.depth, args.count, args.seed)
        .map_err(CliError::usage)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let cols = table.shape().cols();
    let write = |out: &mut BufWriter<io::StdoutLock>| -> io::Result<()> {
        writeln!(out, "board,depth")?;
        for board in &boards {
            let tiles: Vec<String> = board.tiles().map(|t| t.to_string()).collect();
            let rows: Vec<String> = tiles.chunks(cols).map(|row| row.join(" ")).collect();
            writeln!(out, "{},{}", rows.join(" / "), args.depth)?;
        }
        out.flush()
    };
    match write(&mut out) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::runtime(format!("cannot write the output: {e}"))),
    }
}
