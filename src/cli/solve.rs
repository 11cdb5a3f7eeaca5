//! `npuzzle solve`: optimal solutions for single boards, a batch of boards, or a comparison
//! of the algorithms on one board.
//!
//! Arguments are parsed in two steps: [`SolveArgs`] as clap reads them, then a checked
//! [`Config`]. The work is done by `npuzzle::solve`; this module reads the input, prepares
//! heuristics (pattern databases from the cache folder), and prints.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use indicatif::{DecimalBytes, HumanBytes, HumanCount};
use npuzzle::solve::cache::{self, CacheEvent};
use npuzzle::solve::heuristic::Oracle;
use npuzzle::solve::pdb::{Partition, PatternDb};
use npuzzle::solve::walking::WalkingDistance;
use npuzzle::solve::{
    self, Algorithm, Goal, Heuristic, HeuristicKind, Limits, Solution, SolveError, exact, input,
};
use npuzzle::table::DistanceTable;
use npuzzle::{Board, Metric, NoProgress, Shape, analysis};

use crate::cli::board::BoardArgs;
use crate::cli::progress::Bars;
use crate::cli::{CliError, MetricArg};

/// Solve boards optimally (any N x N board, or R x C with --rows/--cols).
///
/// The goal is tiles 1..n-1 in order with the blank last, or the board --goal names. Moves
/// are named by the way the blank goes (U D L R). Unsolvable boards are recognised by
/// parity, never searched.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["file", "board", "batch"])))]
pub struct SolveArgs {
    /// Board file in the assignment format: N on the first line, then N rows of N numbers,
    /// 0 = blank (with --rows/--cols: R*C numbers). `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// The board as numbers row by row, 0 = blank; `/` may separate rows:
    /// "0 1 3 / 4 2 5 / 7 8 6".
    #[arg(long, value_name = "TILES")]
    pub board: Option<String>,

    /// File of boards, one per line (row by row, 0 = blank; empty lines and lines starting
    /// with # are skipped; `-` reads standard input). Prints CSV: line,moves,expanded,nodes,seconds,solution (nodes:
    /// boards generated). A bad line is
    /// reported on stderr and the others are still solved. A file's boards are solved in
    /// parallel, the rows in line order.
    #[arg(long, value_name = "FILE")]
    pub batch: Option<PathBuf>,

    /// The board's shape (--size N, or --rows R --cols C), when the tiles alone do not tell
    /// it: a list of 12 tiles is 3x4 unless --rows 4 --cols 3 says otherwise.
    #[command(flatten)]
    pub shape: BoardArgs,

    /// What one move is: stm (single-tile: one tile slides one cell) or mtm (multi-tile: 1 to
    /// k tiles of the blank's row or column slide together; moves are written with a count,
    /// `R2 D U3`). Long names: single-tile, multi-tile. [default: stm; with --table, the
    /// table's, and a table of the other metric is refused]
    #[arg(long, value_enum, value_name = "METRIC")]
    pub metric: Option<MetricArg>,

    /// The board the moves must lead to, as `analyze --goal` takes it: its label
    /// (123495678) or its tiles row by row, 0 or . for the blank ("1 2 3 / 4 0 5 / 6 7 8").
    /// Searched with every algorithm and heuristic (a goal whose blank is not on a corner
    /// lowers the bound by the blank's distance to the nearest corner: at most 2 on 3x3 and
    /// 4x4). A board of the other parity class is refused (exit 2); in --batch its row says
    /// `unsolvable`. With --table it must be the table's goal [default: the standard goal;
    /// with --table, the table's own, named when it is not the standard one].
    #[arg(long, value_name = "BOARD")]
    pub goal: Option<String>,

    /// Search algorithm [default: idastar].
    #[arg(long, value_name = "NAME", value_parser = algorithm_parser())]
    pub algorithm: Option<Algorithm>,

    /// Heuristic for astar and idastar [default: pdb up to 16 cells, else linear-conflict;
    /// in mtm: exact up to 10 cells, pdb (the multi-tile pattern database) up to 16, else
    /// walking-distance]. `exact` walks downhill in the BFS depths of `analyze` (boards up to
    /// 12 cells). In mtm only walking-distance, pdb and exact are admissible.
    #[arg(long, value_name = "NAME", value_parser = heuristic_parser())]
    pub heuristic: Option<HeuristicKind>,

    /// The pattern databases of `--heuristic pdb`: `default` chooses (4x4: 6-6-3, 34 MB built
    /// in about 5 s, until the 7-8 ones are in the cache or a batch holds at least 20,000
    /// 4x4 boards; other shapes: runs of at most 6 tiles); for 4x4, `7-8` (577 MB, about 6
    /// minutes and up to 2.1 GB to build, once; then several times faster) or `6-6-3`.
    #[arg(long = "pdb", alias = "method", value_name = "PARTITION",
          value_parser = PossibleValuesParser::new(Partition::NAMES))]
    pub partition: Option<String>,

    /// Run every algorithm/heuristic pair that finishes in reasonable time on the board and
    /// print a table: moves, nodes expanded, time, peak memory.
    #[arg(long, conflicts_with_all = ["algorithm", "heuristic", "batch"])]
    pub compare: bool,

    /// Answer from a distance table written by `analyze --table` (the file, or the results
    /// folder holding table.npt): walks to the goal the table was made for, in its metric,
    /// without searching. Its checksum is checked first, always (one pass over the file), and
    /// each walk checks itself.
    #[arg(long, value_name = "DIR_OR_FILE",
          conflicts_with_all = ["algorithm", "heuristic", "partition", "compare"])]
    pub table: Option<PathBuf>,

    /// Refused: a table whose checksum is not checked can answer a longer path as optimal
    /// (a damaged code sends the walk up and back down), which no check of the walk alone
    /// can tell.
    #[arg(long, hide = true)]
    pub no_verify: bool,

    /// Print one line: the number of moves, or `unsolvable`. No progress bars or notes.
    #[arg(long, short)]
    pub quiet: bool,

    /// Folder for the pattern databases, and where `--heuristic exact` looks for a distance
    /// table first (`DIR/<R>x<C>[-mtm]/table.npt`, as `analyze --table --output DIR` writes
    /// it) [default: $NPUZZLE_CACHE, else $XDG_CACHE_HOME/npuzzle, else
    /// $HOME/.cache/npuzzle].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// Stop a search after N boards expanded (exit 1), for boards that may take too long.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_expansions: Option<u64>,

    /// Stop a search after SECONDS (exit 1), saying the lower bound it proved (1 to 604800).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub time_limit: Option<u64>,
}

fn algorithm_parser() -> impl TypedValueParser<Value = Algorithm> {
    PossibleValuesParser::new(Algorithm::ALL.map(Algorithm::name))
        .try_map(|s| s.parse::<Algorithm>())
}

fn heuristic_parser() -> impl TypedValueParser<Value = HeuristicKind> {
    PossibleValuesParser::new(HeuristicKind::ALL.map(HeuristicKind::name))
        .try_map(|s| s.parse::<HeuristicKind>())
}

/// A note or warning on stderr that cannot fail the run: the answers and the databases saved
/// are the work, and a stderr that cannot take a note (`2>/dev/full`) does not undo them.
macro_rules! note {
    ($($arg:tt)*) => {{
        let _ = writeln!(io::stderr(), $($arg)*);
    }};
}

/// Where the boards come from.
#[derive(Debug, Clone)]
enum Source {
    Single(Single),
    Batch(PathBuf),
}

/// Where a single board comes from.
#[derive(Debug, Clone)]
enum Single {
    File(PathBuf),
    Stdin,
    Board(String),
}

/// The checked configuration.
#[derive(Debug)]
pub struct Config {
    source: Source,
    shape: Option<Shape>,
    metric: Metric,
    /// `--table` (its checksum always verified).
    table: Option<PathBuf>,
    /// Whether `--metric` was given (a table's metric must then be it).
    metric_given: bool,
    /// `--goal`, as given.
    goal: Option<String>,
    algorithm: Option<Algorithm>,
    heuristic: Option<HeuristicKind>,
    compare: bool,
    quiet: bool,
    cache_dir: Option<PathBuf>,
    partition: String,
    /// `--max-expansions` and `--time-limit`.
    max_expanded: Option<u64>,
    time_limit: Option<std::time::Duration>,
}

/// BFS, UCS and A* stop when they hold this many boards (about 1 to 2 GB), rather than
/// exhaust the memory; IDA* needs none.
const MAX_STORED: u64 = 20_000_000;
/// Bytes of memory per board a storing search holds (its tables and lists), an upper bound
/// for the limit under a smaller memory (a cgroup, `ulimit -v`).
const BYTES_PER_STORED: u64 = 100;

/// Caps for `--compare`, so that every row finishes within seconds.
const COMPARE_LIMITS: Limits = Limits {
    max_expanded: Some(50_000_000),
    max_stored: Some(5_000_000),
    time_limit: None,
};

impl Config {
    /// Checks `args`.
    ///
    /// # Errors
    /// A usage error for a bad shape or a heuristic given to an algorithm without one.
    pub fn from_args(args: &SolveArgs) -> Result<Config, CliError> {
        let source = match (&args.file, &args.board, &args.batch) {
            (Some(f), None, None) if f.as_os_str() == "-" => Source::Single(Single::Stdin),
            (Some(f), None, None) => Source::Single(Single::File(f.clone())),
            (None, Some(b), None) => Source::Single(Single::Board(b.clone())),
            (None, None, Some(b)) => Source::Batch(b.clone()),
            _ => return Err(CliError::usage("give one of FILE, --board or --batch")),
        };
        let shape = args.shape.given()?;
        if args.no_verify {
            return Err(CliError::usage(
                "--no-verify is refused: solve always checks the table's checksum (one pass \
                 over the file), since a damaged table could answer a longer path as optimal",
            ));
        }
        if let (Some(a), Some(h)) = (args.algorithm, args.heuristic)
            && !a.uses_heuristic()
        {
            return Err(CliError::usage(format!(
                "--heuristic {h} has no effect with --algorithm {a}, which searches without one"
            )));
        }
        if let (Some(p), Some(h)) = (&args.partition, args.heuristic)
            && h != HeuristicKind::Pdb
        {
            return Err(CliError::usage(format!(
                "--pdb {p} has no effect with --heuristic {h}; it chooses the pattern databases"
            )));
        }
        if let (Some(p), Some(a)) = (&args.partition, args.algorithm)
            && !a.uses_heuristic()
        {
            return Err(CliError::usage(format!(
                "--pdb {p} has no effect with --algorithm {a}, which searches without a heuristic"
            )));
        }
        let metric = Metric::from(args.metric.unwrap_or_default());
        if let Some(h) = args.heuristic
            && !h.admissible_in(metric)
        {
            return Err(CliError::usage(format!(
                "--heuristic {h} counts single-tile moves and can overestimate in the \
                 multi-tile metric; with --metric mtm use walking-distance, pdb or exact"
            )));
        }
        if let Some(p) = &args.partition
            && metric == Metric::Mtm
        {
            return Err(CliError::usage(format!(
                "--pdb {p} has no effect with --metric mtm: pattern databases count single-tile \
                 moves"
            )));
        }
        let cache_dir = args.cache.clone().or_else(cache::default_dir);
        Ok(Config {
            source,
            shape,
            metric,
            table: args.table.clone(),
            metric_given: args.metric.is_some(),
            goal: args.goal.clone(),
            algorithm: args.algorithm,
            heuristic: args.heuristic,
            compare: args.compare,
            quiet: args.quiet,
            cache_dir,
            partition: args.partition.clone().unwrap_or_else(|| "default".into()),
            max_expanded: args.max_expansions,
            time_limit: args.time_limit.map(std::time::Duration::from_secs),
        })
    }

    /// The caps of a search by `algorithm`: the memory's for the algorithms that store
    /// boards, and `--max-expansions` and `--time-limit`.
    fn limits(&self, algorithm: Algorithm) -> Limits {
        Limits {
            max_expanded: self.max_expanded,
            time_limit: self.time_limit,
            ..default_limits(algorithm)
        }
    }

    /// The algorithm and heuristic for a board of `shape`: the ones asked for, the rest from
    /// [`solve::default_method`].
    fn method(&self, shape: Shape) -> (Algorithm, HeuristicKind) {
        let (default_algorithm, default_heuristic) = solve::default_method(shape, self.metric);
        match (self.algorithm, self.heuristic) {
            (None, None) => (default_algorithm, default_heuristic),
            (None, Some(h)) => (Algorithm::IdaStar, h),
            (Some(a), h) => (a, h.unwrap_or(default_heuristic)),
        }
    }
}

/// Runs `npuzzle solve`.
///
/// # Errors
/// Exit 2 for bad input (one line naming the file and the problem), 1 when the work could
/// not be done.
pub fn run(args: &SolveArgs) -> Result<(), CliError> {
    let mut config = Config::from_args(args)?;
    let table = match &config.table {
        Some(path) => {
            let table = DistanceTable::open(path, true).map_err(CliError::usage)?;
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
            Source::Batch(path) => batch_work(path, config.shape),
            Source::Single(_) => HashMap::new(),
        },
        chosen: HashMap::new(),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout);
    let result = match &config.source {
        Source::Batch(path) => run_batch(&config, path, &mut heuristics, &mut out),
        Source::Single(single) => {
            let board = read_board(single, config.shape)?;
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
    let result = result.and_then(|()| out.flush().map_err(Fail::Io));
    match result {
        Ok(()) => Ok(()),
        Err(Fail::Cli(e)) => Err(e),
        // A closed pipe (`npuzzle solve ... | head`) is not an error.
        Err(Fail::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(Fail::Io(e)) => Err(CliError::runtime(format!("cannot write the output: {e}"))),
    }
}

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
pub(crate) fn guard_table(table: &DistanceTable, path: &Path) {
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
fn check_table(config: &Config, path: &Path, table: &DistanceTable) -> Result<(), CliError> {
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

/// The most bytes a board file (or a batch line) may hold: a board of the largest shape
/// (64 cells) needs a few hundred; more means the input is not a board (`/dev/zero`, an
/// endless stream), and reading stops there rather than fill the memory.
const MAX_BOARD_BYTES: u64 = 64 * 1024;

/// Reads a single board (file, stdin or `--board`); `shape` from `--rows/--cols`.
fn read_board(source: &Single, shape: Option<Shape>) -> Result<Board, CliError> {
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
        (Single::Board(_), _) | (_, Some(_)) => input::parse_flat(&text, shape),
        _ => input::parse_assignment(&text),
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
            "{name}: more than {} KiB, not a board (a board file is a few hundred bytes)",
            MAX_BOARD_BYTES / 1024
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| CliError::usage(format!("{name}: not a text file (invalid UTF-8)")))
}

/// The lines of a batch file, read one at a time, each at most [`MAX_BOARD_BYTES`]: yields
/// `Err` (and then stops) for an unreadable file, a line too long, or invalid UTF-8.
/// `-` reads standard input.
fn batch_lines(
    path: &Path,
) -> Result<impl Iterator<Item = Result<String, CliError>> + Send, CliError> {
    let name = path.display().to_string();
    let mut reader: Box<dyn io::BufRead + Send> = if path.as_os_str() == "-" {
        Box::new(io::BufReader::new(io::stdin()))
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| CliError::usage(format!("{name}: cannot read: {e}")))?;
        Box::new(io::BufReader::new(file))
    };
    let mut number = 0usize;
    let mut done = false;
    Ok(std::iter::from_fn(move || {
        if done {
            return None;
        }
        number += 1;
        let mut line = Vec::new();
        let read = (&mut reader)
            .take(MAX_BOARD_BYTES + 1)
            .read_until(b'\n', &mut line);
        let result = match read {
            Ok(0) => return None,
            Ok(_) if line.len() as u64 > MAX_BOARD_BYTES => Err(format!(
                "line {number} is longer than {} KiB, not a board",
                MAX_BOARD_BYTES / 1024
            )),
            Ok(_) => String::from_utf8(line)
                .map_err(|_| format!("line {number}: not text (invalid UTF-8)")),
            Err(e) => Err(format!("cannot read: {e}")),
        };
        done = result.is_err();
        Some(result.map_err(|why| CliError::usage(format!("{name}: {why}"))))
    }))
}

/// Prepared heuristics, one per shape and kind, built or loaded on first use; or the
/// distance table that answers instead (`--table`).
struct Heuristics<'a> {
    table: Option<Arc<DistanceTable>>,
    /// The metric of walking distance and the exact table.
    metric: Metric,
    cache_dir: Option<PathBuf>,
    /// The `--pdb` name.
    partition: String,
    quiet: bool,
    bars: &'a Bars,
    prepared: HashMap<(Shape, HeuristicKind), Heuristic>,
    /// The boards of each shape the run will solve (a batch's, counted before it starts); 1
    /// for a shape not listed. `--pdb default` builds large databases only for many boards.
    work: HashMap<Shape, u64>,
    /// The partition whose pattern databases were prepared, per shape.
    chosen: HashMap<Shape, Partition>,
}

impl Heuristics<'_> {
    fn get(&mut self, shape: Shape, kind: HeuristicKind) -> Result<Heuristic, CliError> {
        if let Some(h) = self.prepared.get(&(shape, kind)) {
            return Ok(h.clone());
        }
        let heuristic = match Heuristic::without_tables(kind, shape) {
            Some(h) => h,
            None if kind == HeuristicKind::Pdb && self.metric == Metric::Mtm => {
                self.mtm_databases(shape)?
            }
            None if kind == HeuristicKind::Pdb => self.pattern_databases(shape)?,
            None if kind == HeuristicKind::WalkingDistance => {
                let table = WalkingDistance::new(shape, self.metric).map_err(CliError::usage)?;
                Heuristic::walking_distance(Arc::new(table))
            }
            None => match self.cached_table(shape) {
                Some(heuristic) => heuristic,
                None => {
                    let table = exact::exact_table(shape, self.metric, self.bars)
                        .map_err(CliError::usage)?;
                    Heuristic::exact(Arc::new(table))
                }
            },
        };
        self.prepared.insert((shape, kind), heuristic.clone());
        Ok(heuristic)
    }

    /// `--heuristic exact` from a distance table in the cache folder, where `analyze --table
    /// --output CACHE` puts it: `CACHE/<R>x<C>[-mtm]/table.npt`, for the standard goal in
    /// this metric (its checksum verified once). Each bound is the table's walk to the goal,
    /// so IDA* goes straight down an optimal path. `None` (with a note unless `--quiet`) when
    /// there is none or it does not fit.
    fn cached_table(&self, shape: Shape) -> Option<Heuristic> {
        let folder = format!("{shape}{}", crate::cli::metric_suffix(self.metric));
        let path = self.cache_dir.as_deref()?.join(folder).join("table.npt");
        if !path.is_file() {
            return None;
        }
        let why = match DistanceTable::open(&path, true) {
            Ok(t) if t.shape() != shape || t.metric() != self.metric => {
                format!("a table of {} boards in {}", t.shape(), t.metric())
            }
            Ok(t) if *t.goal() != Board::goal(shape) => {
                format!("a table for the goal {}", t.goal().label())
            }
            Ok(table) => {
                if !self.quiet {
                    note!("note: exact distances from {}", path.display());
                }
                guard_table(&table, &path);
                let table = Arc::new(table);
                let metric = self.metric;
                let distance = move |cells: &[u8]| table.depth_of(cells).ok().flatten();
                let oracle = Oracle::new(shape, metric, Box::new(distance));
                return Some(Heuristic::oracle(Arc::new(oracle)));
            }
            Err(e) => e.to_string(),
        };
        if !self.quiet {
            note!(
                "note: {} not used ({why}); the exact table is built instead",
                path.display()
            );
        }
        None
    }

    /// The partition asked for; for `default`, [`Partition::for_work`]'s choice for the
    /// boards of `shape` in the run, with a note when it is not the shape's best.
    fn partition(&self, shape: Shape) -> Result<Partition, CliError> {
        if self.partition != "default" {
            return Partition::named(shape, &self.partition).map_err(CliError::usage);
        }
        let best = Partition::default_for(shape).map_err(CliError::usage)?;
        let cached = cache::is_cached(self.cache_dir.as_deref(), &best);
        let boards = self.work.get(&shape).copied().unwrap_or(1);
        let chosen = Partition::for_work(shape, boards, cached).map_err(CliError::usage)?;
        if chosen != best && !self.quiet {
            note!(
                "note: {shape} boards are solved with the {} pattern databases ({}, built in \
                 seconds); the {} ones solve them several times faster but take about {} \
                 minutes and {} of memory to build, once ({} cached): build them with \
                 `npuzzle pdb {}`, or ask with --pdb {} (a batch of at least {} {shape} boards \
                 builds them by itself)",
                chosen.name(),
                DecimalBytes(chosen.table_bytes()),
                best.name(),
                best.build_estimate(rayon::current_num_threads())
                    .as_secs()
                    .div_ceil(60),
                DecimalBytes(best.build_bytes()),
                DecimalBytes(best.table_bytes()),
                shape_flags(shape),
                best.name(),
                HumanCount(solve::pdb::LARGE_PAYS_FROM),
            );
        }
        Ok(chosen)
    }

    /// The multi-tile metric's databases of `shape`, from the cache folder or built there
    /// (about a minute for 4x4, once).
    fn mtm_databases(&mut self, shape: Shape) -> Result<Heuristic, CliError> {
        let dir = self.cache_dir.as_deref();
        let cached = dir.is_some_and(|d| d.join(cache::mtm_file_name(shape)).is_file());
        if !self.quiet && !cached && shape.cells() > 12 {
            note!(
                "note: building the multi-tile pattern database of {shape} once (about a minute \
                 on 2 cores, 252 MB for 4x4); later runs load it from the cache folder"
            );
        }
        let (databases, event) =
            cache::load_or_build_mtm(dir, shape, self.bars).map_err(CliError::usage)?;
        if !self.quiet
            && let CacheEvent::Built {
                path,
                reason,
                elapsed,
                saved,
            } = &event
        {
            let what = format!(
                "multi-tile pattern database {shape} ({reason}): {} abstract boards built in \
                 {:.1} s",
                HumanCount(databases.states()),
                elapsed.as_secs_f64()
            );
            match (path, saved) {
                (Some(p), Ok(())) => note!("note: {what}, saved to {}", p.display()),
                (Some(p), Err(e)) => {
                    note!("warning: {what}, but not saved to {}: {e}", p.display())
                }
                (None, _) => note!("warning: {what}, not saved: no cache folder"),
            }
        }
        Ok(Heuristic::mtm_pdb(Arc::new(databases)))
    }

    fn pattern_databases(&mut self, shape: Shape) -> Result<Heuristic, CliError> {
        let partition = self.partition(shape)?;
        self.chosen.insert(shape, partition.clone());
        let dir = self.cache_dir.as_deref();
        let cached = cache::is_cached(dir, &partition);
        check_memory(&partition, cached, analysis::available_memory())?;
        let estimate = partition.build_estimate(rayon::current_num_threads());
        if !self.quiet && !cached && estimate.as_secs() >= 60 {
            let place = dir.map_or("nowhere: no cache folder".into(), |d| {
                format!("in {}", d.display())
            });
            note!(
                "note: building the {} pattern databases for {shape} once: about {} minutes on \
                 {} threads, up to {} of memory, {} saved {place}; later runs load them in a \
                 fraction of a second",
                partition.name(),
                estimate.as_secs().div_ceil(60),
                rayon::current_num_threads(),
                DecimalBytes(partition.build_bytes()),
                DecimalBytes(partition.table_bytes()),
            );
        }
        let (databases, events) =
            cache::load_or_build(self.cache_dir.as_deref(), &partition, self.bars)
                .map_err(CliError::runtime)?;
        if !self.quiet {
            for (event, db) in events.iter().zip(databases.databases()) {
                report_cache_event(event, db);
            }
        }
        Ok(Heuristic::pdb(Arc::new(databases)))
    }
}

/// Refuses, before any work, pattern databases that do not fit in `available` bytes: their
/// tables when they are `cached`, else the largest build (which holds its table).
fn check_memory(partition: &Partition, cached: bool, available: u64) -> Result<(), CliError> {
    let needed = if cached {
        partition.table_bytes()
    } else {
        partition.build_bytes().max(partition.table_bytes())
    };
    if needed <= available {
        return Ok(());
    }
    let what = if cached { "to load" } else { "to build" };
    let shape = partition.shape();
    let smaller = Partition::NAMES
        .iter()
        .filter_map(|name| Partition::named(shape, name).ok())
        .filter(|p| p.groups() != partition.groups())
        .map(|p| (p.name(), p.build_bytes().max(p.table_bytes())))
        .filter(|&(_, bytes)| bytes <= available)
        .min_by_key(|&(_, bytes)| bytes)
        .map_or(String::new(), |(name, bytes)| {
            format!("; --pdb {name} needs {}", DecimalBytes(bytes))
        });
    Err(CliError::usage(format!(
        "the {} pattern databases of {shape} need {} of memory {what}, {} available{smaller}",
        partition.name(),
        DecimalBytes(needed),
        DecimalBytes(available),
    )))
}

/// One note on stderr per database built (none for those loaded).
fn report_cache_event(event: &CacheEvent, db: &PatternDb) {
    let CacheEvent::Built {
        path,
        reason,
        elapsed,
        saved,
    } = event
    else {
        return;
    };
    let tiles: Vec<String> = db.tiles().iter().map(u8::to_string).collect();
    let what = format!(
        "pattern database {} [{}] ({reason}): built in {:.1} s",
        db.shape(),
        tiles.join(" "),
        elapsed.as_secs_f64()
    );
    match (path, saved) {
        (Some(p), Ok(())) => note!("note: {what}, saved to {}", p.display()),
        (Some(p), Err(e)) => note!("warning: {what}, but not saved to {}: {e}", p.display()),
        (None, _) => note!(
            "warning: {what}, not saved: no cache folder (set --cache DIR, NPUZZLE_CACHE or HOME)"
        ),
    }
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

/// `board` solved by walking down `table`: a [`Solution`] whose `expanded` counts the steps.
fn from_table(table: &DistanceTable, board: &Board) -> Result<Solution, SolveError> {
    let started = std::time::Instant::now();
    let walk = table.solve(board);
    from_walk(table, board, walk, started.elapsed())
}

/// The [`Solution`] of `board` that `walk` found in `table` in `elapsed`.
fn from_walk(
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

fn default_limits(algorithm: Algorithm) -> Limits {
    Limits {
        max_expanded: None,
        max_stored: algorithm
            .stores_boards()
            .then(|| MAX_STORED.min(analysis::available_memory() / BYTES_PER_STORED)),
        time_limit: None,
    }
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
    let unsolvable = if config.quiet {
        "unsolvable"
    } else {
        "No solution possible"
    };
    // Unsolvable boards are answered before any table is built.
    if !reached {
        writeln!(out, "{unsolvable}")?;
        return Ok(());
    }
    let limits = config.limits(algorithm);
    let method = (algorithm, kind);
    let solution = match solve_with(board, goal, method, heuristics, limits)? {
        Ok(s) => s,
        Err(SolveError::Unsolvable) => {
            writeln!(out, "{unsolvable}")?;
            return Ok(());
        }
        Err(e @ SolveError::TimeUp { .. }) => {
            return Err(CliError::runtime(format!("{algorithm} {e} (--time-limit)")).into());
        }
        Err(SolveError::LimitReached { expanded, .. })
            if config.max_expanded.is_some_and(|m| expanded >= m) =>
        {
            return Err(CliError::runtime(format!(
                "{algorithm} stopped after {expanded} boards expanded (--max-expansions) \
                 without reaching the goal"
            ))
            .into());
        }
        Err(e @ SolveError::LimitReached { .. }) => {
            return Err(CliError::runtime(format!(
                "{algorithm} {e}: the search would outgrow the memory; \
                 try --algorithm idastar, which needs almost none"
            ))
            .into());
        }
        Err(e) => return Err(CliError::usage(e).into()),
    };
    if config.quiet {
        writeln!(out, "{}", solution.length())?;
        return Ok(());
    }
    let mut current = board.clone();
    writeln!(out, "Start:\n{}", current.grid())?;
    if let Some(goal) = goal {
        writeln!(out, "\nGoal:\n{}", goal.board().grid())?;
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

/// The boards of each shape in the batch file `path` (lines that do not read as boards are
/// not counted): read once before solving, so that `--pdb default` knows whether large
/// pattern databases pay for themselves. Empty for a file that cannot be read twice (a pipe).
fn batch_work(path: &Path, shape: Option<Shape>) -> HashMap<Shape, u64> {
    let mut work = HashMap::new();
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return work;
    }
    let Ok(lines) = batch_lines(path) else {
        return work;
    };
    let mut columns = Columns::default();
    for line in lines.map_while(Result::ok) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(line) = columns.board(line) else {
            continue;
        };
        if let Ok(board) = input::parse_flat(line, shape) {
            *work.entry(board.shape()).or_insert(0) += 1;
        }
    }
    work
}

/// Where a batch's board is on its lines: the whole line, or, after a first line `board,...`
/// (`sample`'s `board,depth`), the first field of a CSV. A lone `board` header is skipped too.
#[derive(Default)]
struct Columns {
    /// Whether the lines are CSV; `None` before the first line.
    csv: Option<bool>,
}

impl Columns {
    /// The board of `line` (neither empty nor a comment), or `None` for the header.
    fn board<'a>(&mut self, line: &'a str) -> Option<&'a str> {
        let first = line.split(',').next().unwrap_or("").trim();
        match self.csv {
            None => {
                let header = first.eq_ignore_ascii_case("board");
                self.csv = Some(header && line.contains(','));
                (!header).then_some(line)
            }
            Some(true) => Some(first),
            Some(false) => Some(line),
        }
    }
}

/// The flags that name `shape`: `--size 4`, `--rows 3 --cols 4`.
fn shape_flags(shape: Shape) -> String {
    if shape.rows() == shape.cols() {
        format!("--size {}", shape.rows())
    } else {
        format!("--rows {} --cols {}", shape.rows(), shape.cols())
    }
}

/// Arguments of `npuzzle pdb`.
#[derive(Debug, clap::Args)]
pub struct PdbArgs {
    /// The board shape whose databases to build: --size N, or --rows R --cols C.
    #[command(flatten)]
    shape: BoardArgs,
    /// Which databases [default: the shape's best: 4x4 7-8, else runs of at most 6 tiles];
    /// for 4x4 also 6-6-3.
    #[arg(long = "pdb", value_name = "PARTITION",
          value_parser = PossibleValuesParser::new(Partition::NAMES))]
    partition: Option<String>,
    /// stm (the additive pattern databases) or mtm (the multi-tile pattern database of
    /// `solve --metric mtm`: 4x4 about 40 s, 252 MB).
    #[arg(
        long,
        value_enum,
        value_name = "METRIC",
        default_value = "stm",
        conflicts_with = "partition"
    )]
    metric: MetricArg,
    /// Folder for the pattern databases [default: $NPUZZLE_CACHE, else
    /// $XDG_CACHE_HOME/npuzzle, else $HOME/.cache/npuzzle].
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// No progress bars and no notes.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `npuzzle pdb`: builds the pattern databases of a shape into the cache folder (or
/// checks and loads them when they are there), so that `solve` loads them from then on.
///
/// # Errors
/// A usage error for a bad shape or partition, or databases that cannot fit in memory; a
/// runtime error when there is no cache folder or a build fails.
pub fn build_databases(args: &PdbArgs) -> Result<(), CliError> {
    let shape = args.shape.shape()?;
    let Some(cache_dir) = args.cache.clone().or_else(cache::default_dir) else {
        return Err(CliError::runtime(
            "no cache folder for the pattern databases: give --cache DIR, or set NPUZZLE_CACHE \
             or HOME",
        ));
    };
    let name = args.partition.clone().unwrap_or_else(|| "default".into());
    let partition = Partition::named(shape, &name).map_err(CliError::usage)?;
    let bars = Bars::new(!args.quiet);
    let metric = Metric::from(args.metric);
    let mut heuristics = Heuristics {
        table: None,
        metric,
        cache_dir: Some(cache_dir.clone()),
        partition: name,
        quiet: args.quiet,
        bars: &bars,
        prepared: HashMap::new(),
        // As for the largest batch: the shape's best, not the quick choice for a few boards.
        work: HashMap::from([(shape, u64::MAX)]),
        chosen: HashMap::new(),
    };
    if metric == Metric::Mtm {
        heuristics.mtm_databases(shape)?;
        if !args.quiet {
            println!(
                "the multi-tile pattern database of {shape} is in {}; solve --metric mtm loads \
                 it from now on",
                cache_dir.display()
            );
        }
        return Ok(());
    }
    heuristics.pattern_databases(shape)?;
    if !args.quiet {
        println!(
            "the {} pattern databases of {shape} are in {} ({}); solve loads them from now on",
            partition.name(),
            cache_dir.display(),
            DecimalBytes(partition.table_bytes())
        );
    }
    Ok(())
}

/// Lines of a batch file read, solved and written together when the boards are searched:
/// enough to keep every thread busy while a few boards take much longer than the rest.
const SEARCH_CHUNK: usize = 64;
/// Lines of a batch file read, solved and written together from a distance table (each
/// board takes microseconds): large, so that the threads seldom wait for each other.
const TABLE_CHUNK: usize = 16_384;
/// Lines of a table chunk one thread takes at a time: parsed, walked together
/// ([`DistanceTable::solve_many`]) and written as CSV.
const TABLE_TASK: usize = 256;
/// Chunks waiting between the reader, the solver and the writer: memory stays bounded (about
/// 10 MB from a table: 16,384 lines in and out, seven chunks at most) whatever the length of
/// the batch.
const CHUNKS_IN_FLIGHT: usize = 2;

/// One line of a batch, read and waiting to be solved: its number and its text (neither
/// empty nor a comment).
type Line = (usize, String);

/// Counts of a batch run.
#[derive(Default)]
struct BatchCounts {
    boards: usize,
    bad: usize,
    failed: usize,
}

/// The CSV rows of some lines of a batch, in line order, and the messages for stderr between
/// them: message `(at, text)` goes after the first `at` bytes of `text`.
#[derive(Default)]
struct Rows {
    text: String,
    notes: Vec<(usize, String)>,
    counts: BatchCounts,
}

impl Rows {
    /// The row of line `number` (or, for a failure, its message naming `method`).
    fn push(
        &mut self,
        number: usize,
        result: Result<Solution, SolveError>,
        method: &str,
        path: &Path,
    ) {
        self.counts.boards += 1;
        match result {
            Ok(s) => {
                let _ = write!(
                    self.text,
                    "{number},{},{},{},{:.6},",
                    s.length(),
                    s.expanded,
                    s.generated,
                    s.elapsed.as_secs_f64(),
                );
                s.metric.write_notation(&s.moves, "", &mut self.text);
                self.text.push('\n');
            }
            Err(SolveError::Unsolvable) => {
                let _ = writeln!(self.text, "{number},unsolvable,0,0,0.000000,");
            }
            Err(e) => {
                self.counts.failed += 1;
                self.note(format!(
                    "error: {} line {number}: {method} {e}",
                    path.display()
                ));
            }
        }
    }

    /// Line `number` could not be read as a board.
    fn bad(&mut self, number: usize, e: impl std::fmt::Display, path: &Path) {
        self.counts.boards += 1;
        self.counts.bad += 1;
        self.note(format!("error: {} line {number}: {e}", path.display()));
    }

    fn note(&mut self, message: String) {
        self.notes.push((self.text.len(), message));
    }

    /// Writes the rows to `out` and the messages to stderr, in order (`out` flushed before
    /// each message and at the end).
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let mut at = 0;
        for (until, message) in &self.notes {
            out.write_all(&self.text.as_bytes()[at..*until])?;
            out.flush()?;
            eprintln!("{message}");
            at = *until;
        }
        out.write_all(&self.text.as_bytes()[at..])?;
        out.flush()
    }
}

/// `--batch`: CSV on stdout, bad lines on stderr. From a distance table, a regular file
/// streams through three stages that run at once, a few chunks apart ([`streamed`]): a thread
/// reads lines, the solver's threads parse and walk a chunk of [`TABLE_CHUNK`] lines in
/// parallel, and a thread writes the rows in line order. Searched boards (each taking
/// milliseconds or more) go [`SEARCH_CHUNK`] lines at a time on this thread: read, solved
/// (IDA* in parallel, the algorithms that store boards one at a time within their memory
/// cap), written. From standard input or a pipe, one line at a time, each row written as
/// soon as it is solved.
fn run_batch(
    config: &Config,
    path: &Path,
    heuristics: &mut Heuristics,
    out: &mut (impl Write + Send),
) -> Result<(), Fail> {
    let lines = batch_lines(path)?;
    let file = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    writeln!(out, "line,moves,expanded,nodes,seconds,solution")?;
    let mut counts = BatchCounts::default();
    let mut tally = |rows: &[Rows]| {
        for r in rows {
            counts.boards += r.counts.boards;
            counts.bad += r.counts.bad;
            counts.failed += r.counts.failed;
        }
    };
    if file && heuristics.table.is_some() {
        streamed(config, path, heuristics, out, lines, &mut tally)?;
    } else {
        // (No threads of its own: a search's heuristics are sized to the memory left, and
        // each new thread reserves address space.)
        let chunk = if file { SEARCH_CHUNK } else { 1 };
        let mut result = Ok(());
        read_chunks(lines, chunk, |lines| {
            let written = lines
                .map_err(Fail::from)
                .and_then(|lines| solve_lines(config, path, heuristics, &lines))
                .and_then(|rows| {
                    tally(&rows);
                    rows.iter()
                        .try_for_each(|r| r.write_to(out))
                        .map_err(Fail::Io)
                });
            result = written;
            result.is_ok()
        });
        result?;
    }
    let BatchCounts {
        boards,
        bad,
        failed,
    } = counts;
    if bad > 0 {
        return Err(CliError::usage(format!(
            "{}: {bad} of {boards} boards could not be read (see above); the others were solved",
            path.display()
        ))
        .into());
    }
    if failed > 0 {
        return Err(CliError::runtime(format!(
            "{}: {failed} of {boards} boards were not solved",
            path.display()
        ))
        .into());
    }
    Ok(())
}

/// [`run_batch`]'s three stages at once: `lines` read on a thread of their own, each chunk
/// solved on this one (its work in parallel), and its rows written by a third thread, at most
/// [`CHUNKS_IN_FLIGHT`] chunks waiting between two stages; `tally` counts each chunk's rows.
fn streamed(
    config: &Config,
    path: &Path,
    heuristics: &mut Heuristics,
    out: &mut (impl Write + Send),
    lines: impl Iterator<Item = Result<String, CliError>> + Send,
    tally: &mut impl FnMut(&[Rows]),
) -> Result<(), Fail> {
    use std::sync::mpsc::sync_channel;
    let (read, written) = std::thread::scope(|scope| {
        let (line_tx, line_rx) = sync_channel(CHUNKS_IN_FLIGHT);
        let (row_tx, row_rx) = sync_channel::<Vec<Rows>>(CHUNKS_IN_FLIGHT);
        scope.spawn(move || read_chunks(lines, TABLE_CHUNK, |c| line_tx.send(c).is_ok()));
        let writer = scope.spawn(move || -> io::Result<()> {
            for rows in row_rx {
                rows.iter().try_for_each(|r| r.write_to(out))?;
            }
            Ok(())
        });
        let mut read: Result<(), Fail> = Ok(());
        for lines in line_rx.iter() {
            match lines
                .map_err(Fail::from)
                .and_then(|lines| solve_lines(config, path, heuristics, &lines))
            {
                Ok(rows) => {
                    tally(&rows);
                    // A writer that stopped has its error to tell.
                    if row_tx.send(rows).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    read = Err(e);
                    break;
                }
            }
        }
        drop((row_tx, line_rx));
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer panicked")));
        (read, written)
    });
    written?;
    read
}

/// Hands the boards' lines of `lines` (neither empty nor comments) to `to`, `chunk` at a
/// time, and then the read error that stopped them, if any. Returns when the lines end or
/// `to` answers `false`.
fn read_chunks(
    lines: impl Iterator<Item = Result<String, CliError>>,
    chunk: usize,
    mut to: impl FnMut(Result<Vec<Line>, CliError>) -> bool,
) {
    let mut pending = Vec::with_capacity(chunk);
    let mut columns = Columns::default();
    for (i, line) in lines.enumerate() {
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                if pending.is_empty() || to(Ok(std::mem::take(&mut pending))) {
                    to(Err(e));
                }
                return;
            }
        };
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let Some(text) = columns.board(text) else {
            continue; // The header.
        };
        let text = if text.len() == line.len() {
            line
        } else {
            text.to_string()
        };
        pending.push((i + 1, text));
        if pending.len() >= chunk && !to(Ok(std::mem::take(&mut pending))) {
            return;
        }
    }
    if !pending.is_empty() {
        to(Ok(pending));
    }
}

/// The rows of `lines`: walked down the distance table, in parallel tasks of [`TABLE_TASK`]
/// lines; otherwise searched, the heuristics prepared first, one at a time, then the
/// searches in parallel unless one of them stores boards (their memory cap is for one
/// search at a time).
fn solve_lines(
    config: &Config,
    path: &Path,
    heuristics: &mut Heuristics,
    lines: &[Line],
) -> Result<Vec<Rows>, Fail> {
    use rayon::prelude::*;
    if let Some(table) = &heuristics.table {
        return Ok(lines
            .par_chunks(TABLE_TASK)
            .map(|task| table_rows(config, path, table, task))
            .collect());
    }
    let parsed: Vec<_> = lines
        .par_iter()
        .map(|(_, line)| input::parse_flat(line, config.shape))
        .collect();
    // --goal, read once for each shape of board.
    let mut goals: HashMap<Shape, Goal> = HashMap::new();
    for board in parsed.iter().flatten() {
        if !goals.contains_key(&board.shape())
            && let Some(goal) = goal_of(config, board.shape())?
        {
            goals.insert(board.shape(), goal);
        }
    }
    // Unsolvable boards are answered before any table is built.
    let mut jobs = Vec::with_capacity(lines.len());
    for board in parsed.iter().flatten() {
        let (algorithm, kind) = config.method(board.shape());
        let reached = goals
            .get(&board.shape())
            .map_or_else(|| board.is_solvable(), |g| g.reaches(board));
        let heuristic = if !reached {
            None
        } else if algorithm.uses_heuristic() {
            Some(heuristics.get(board.shape(), kind)?)
        } else {
            // BFS and UCS ignore it; any heuristic of the right shape will do.
            Some(Heuristic::hamming(board.shape()))
        };
        jobs.push((board, algorithm, heuristic));
    }
    let standard: HashMap<Shape, Goal> = jobs
        .iter()
        .map(|j| j.0.shape())
        .filter(|s| !goals.contains_key(s))
        .map(|s| (s, Goal::standard(s)))
        .collect();
    let solve_one =
        |&(board, algorithm, ref heuristic): &(&Board, Algorithm, Option<Heuristic>)| {
            heuristic.as_ref().map_or(Err(SolveError::Unsolvable), |h| {
                let limits = config.limits(algorithm);
                let shape = board.shape();
                let goal = goals.get(&shape).or_else(|| standard.get(&shape));
                let goal = goal.expect("a goal for every shape");
                let metric = config.metric;
                solve::solve_toward(board, goal, metric, algorithm, h, &limits, &NoProgress)
            })
        };
    let results: Vec<Result<Solution, SolveError>> = if jobs.iter().any(|j| j.1.stores_boards()) {
        jobs.iter().map(solve_one).collect()
    } else {
        jobs.par_iter().map(solve_one).collect()
    };
    let mut rows = Rows::default();
    let mut solved = jobs.iter().zip(results);
    for ((number, _), board) in lines.iter().zip(&parsed) {
        match board {
            Ok(_) => {
                let ((_, algorithm, _), result) = solved.next().expect("a job per board");
                rows.push(*number, result, algorithm.name(), path);
            }
            Err(e) => rows.bad(*number, e, path),
        }
    }
    Ok(vec![rows])
}

/// The rows of `lines` from `table`: the boards parsed, walked together, and written. The
/// seconds of each row are the mean of the walks made together.
fn table_rows(config: &Config, path: &Path, table: &DistanceTable, lines: &[Line]) -> Rows {
    let parsed: Vec<_> = lines
        .iter()
        .map(|(_, line)| input::parse_flat(line, config.shape))
        .collect();
    let boards: Vec<Board> = parsed.iter().flatten().cloned().collect();
    let started = std::time::Instant::now();
    let walks = table.solve_many(&boards);
    let elapsed = started.elapsed() / boards.len().max(1) as u32;
    let mut rows = Rows::default();
    rows.text
        .reserve(lines.len() * (24 + 2 * table.layers().len()));
    let mut walks = boards.iter().zip(walks);
    for ((number, _), board) in lines.iter().zip(&parsed) {
        match board {
            Ok(_) => {
                let (board, walk) = walks.next().expect("a walk per board");
                rows.push(
                    *number,
                    from_walk(table, board, walk, elapsed),
                    "table",
                    path,
                );
            }
            Err(e) => rows.bad(*number, e, path),
        }
    }
    rows
}

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
fn run_compare(
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
    if metric == Metric::Mtm {
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
