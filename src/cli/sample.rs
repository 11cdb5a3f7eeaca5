//! `npuzzle sample`: random boards at an exact depth, drawn from a distance table
//! ([`npuzzle::table::DistanceTable::sample_each`]).

use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
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
    /// How many boards, each drawn uniformly and independently among those at that depth
    /// (with replacement: a count above the layer's size repeats boards). They are printed as
    /// they are drawn.
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,
    /// Seed of the draws: the same seed gives the same boards.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Skip the check of each block of codes against its CRC-32 (the header, the length and
    /// the CRC of the header are still checked; each board's walk
    /// checks itself, but a damaged table may then give boards of another depth).
    #[arg(long)]
    no_verify: bool,
}

/// Runs `npuzzle sample`: CSV on stdout with the header `board,depth`, one board a line,
/// written as `solve --batch` reads it (tiles row by row, rows separated by `/`, 0 = blank),
/// each as it is drawn (memory bounded whatever `--count`; a closed pipe stops the draws, exit
/// 0).
///
/// # Errors
/// Exit 2 for a missing or damaged table or a depth no board has; 1 when stdout fails.
pub fn run(args: &SampleArgs) -> Result<(), CliError> {
    let check = match args.no_verify {
        true => npuzzle::table::Check::Skip,
        false => npuzzle::table::Check::OnRead,
    };
    let table = DistanceTable::open_checking(&args.table, check).map_err(CliError::usage)?;
    super::solve::guard_table(&table, &args.table);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let cols = table.shape().cols();
    let mut failed: Option<io::Error> = None;
    let mut line = String::new();
    // The header goes with the first board (or at the end of no boards): a table or a depth
    // refused prints nothing.
    let mut header = "board,depth\n";
    let drawn = table.sample_each(args.depth, args.count, args.seed, |board| {
        line.clear();
        line.push_str(std::mem::take(&mut header));
        for (i, tile) in board.tiles().enumerate() {
            if i > 0 {
                line.push_str(if i % cols == 0 { " / " } else { " " });
            }
            line.push_str(&tile.to_string());
        }
        match writeln!(out, "{line},{}", args.depth) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    });
    if drawn.is_ok()
        && failed.is_none()
        && let Err(e) = out.write_all(header.as_bytes())
    {
        failed = Some(e);
    }
    let written = match failed {
        Some(e) => Err(e),
        None => out.flush(),
    };
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::runtime(format!("cannot write the output: {e}"))),
        Ok(()) => drawn.map_err(CliError::usage),
    }
}
