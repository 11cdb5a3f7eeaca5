//! `solve --table`: a distance table answers instead of a search. The table is checked
//! against the question asked, guarded against a truncation under the run, and its walks
//! are reported as [`Solution`]s.

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use npuzzle::solve::{Solution, SolveError};
use npuzzle::table::DistanceTable;
use npuzzle::{Board, Metric};

use super::Config;
use crate::cli::CliError;

/// The table the run reads (its mapped range) and the line to print when reading it faults:
/// set by [`guard_table`], read by [`on_bus_error`].
static MAPPED_START: AtomicUsize = AtomicUsize::new(0);
static MAPPED_LEN: AtomicUsize = AtomicUsize::new(0);
static BUS_MESSAGE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static BUS_MESSAGE_LEN: AtomicUsize = AtomicUsize::new(0);

/// Turns a fault on the mapped `table` (read from `path`) into one line and exit 1: a file
/// truncated under the run (by another process) makes the next read of a page past its new
/// end raise SIGBUS, which would kill the run with exit 135. Installs a SIGBUS handler that,
/// for a fault inside the table's mapped range, prints `error: PATH: the table changed under
/// the run (truncated?) ...` and ends the process with `_exit(1)`; a fault elsewhere gets the
/// default action. One table at a time: a later call replaces the range.
pub(in crate::cli) fn guard_table(table: &DistanceTable, path: &Path) {
    let (start, len) = table.mapped();
    let message = format!(
        "error: {}: the table changed under the run (truncated?): its bytes can no longer be \
         read\n",
        crate::cli::shown(path)
    )
    .into_bytes()
    .leak();
    BUS_MESSAGE_LEN.store(0, Ordering::SeqCst);
    BUS_MESSAGE.store(message.as_mut_ptr(), Ordering::SeqCst);
    BUS_MESSAGE_LEN.store(message.len(), Ordering::SeqCst);
    MAPPED_START.store(start, Ordering::SeqCst);
    MAPPED_LEN.store(len, Ordering::SeqCst);
    // SAFETY: a zeroed `sigaction` is a valid empty action; the handler is an `extern "C"`
    // function of the signature `sa_sigaction` expects with SA_SIGINFO, and does only
    // async-signal-safe things (atomic loads, write(2), _exit, signal).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_bus_error
            as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
            as usize;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// The SIGBUS handler of [`guard_table`].
extern "C" fn on_bus_error(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` with SA_SIGINFO; a SIGBUS one holds the
    // faulting address.
    let address = unsafe { (*info).si_addr() } as usize;
    let start = MAPPED_START.load(Ordering::SeqCst);
    let len = MAPPED_LEN.load(Ordering::SeqCst);
    if address >= start && address - start < len {
        let message = BUS_MESSAGE.load(Ordering::SeqCst);
        let message_len = BUS_MESSAGE_LEN.load(Ordering::SeqCst);
        // SAFETY: the message was leaked by `guard_table` (never freed) and its length stored
        // after its address; write(2) and _exit are async-signal-safe.
        unsafe {
            if !message.is_null() {
                libc::write(2, message.cast(), message_len);
            }
            libc::_exit(1);
        }
    }
    // Not the table's: the default action, once the faulting access runs again.
    // SAFETY: signal(2) is async-signal-safe.
    unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
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
