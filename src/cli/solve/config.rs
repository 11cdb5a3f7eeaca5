//! `solve`'s command line: [`SolveArgs`] as clap reads it, and the checked [`Config`] that
//! gives each search its algorithm, heuristic and limits.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use npuzzle::solve::cache;
use npuzzle::solve::pdb::Partition;
use npuzzle::solve::{self, Algorithm, HeuristicKind, Limits};
use npuzzle::{Metric, Shape, analysis};

use crate::cli::board::BoardArgs;
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
    /// without searching. Its header is checked first, and each block of 1 MiB of its codes
    /// against its CRC-32 the first time a walk reads it, always (a damaged block is an
    /// error, never an answer); each walk checks itself.
    #[arg(long, value_name = "DIR_OR_FILE",
          conflicts_with_all = ["algorithm", "heuristic", "partition", "compare"])]
    pub table: Option<PathBuf>,

    /// Refused: a table whose checksums are not checked can answer a longer path as optimal
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

/// Where the boards come from.
#[derive(Debug, Clone)]
pub(super) enum BoardSource {
    Single(Single),
    Batch(PathBuf),
}

/// Where a single board comes from.
#[derive(Debug, Clone)]
pub(super) enum Single {
    File(PathBuf),
    Stdin,
    Board(String),
}

/// The checked configuration.
#[derive(Debug)]
pub(super) struct Config {
    pub(super) source: BoardSource,
    pub(super) shape: Option<Shape>,
    pub(super) metric: Metric,
    /// `--table` (its blocks always checked as they are read).
    pub(super) table: Option<PathBuf>,
    /// Whether `--metric` was given (a table's metric must then be it).
    pub(super) metric_given: bool,
    /// `--goal`, as given.
    pub(super) goal: Option<String>,
    pub(super) algorithm: Option<Algorithm>,
    pub(super) heuristic: Option<HeuristicKind>,
    pub(super) compare: bool,
    pub(super) quiet: bool,
    pub(super) cache_dir: Option<PathBuf>,
    pub(super) partition: String,
    /// `--max-expansions` and `--time-limit`.
    pub(super) max_expanded: Option<u64>,
    pub(super) time_limit: Option<std::time::Duration>,
}

/// BFS, UCS and A* stop when they hold this many boards (about 1 to 2 GB), rather than
/// exhaust the memory; IDA* needs none.
const MAX_STORED: u64 = 20_000_000;

/// Bytes of memory per board a storing search holds (its tables and lists), an upper bound
/// for the limit under a smaller memory (a cgroup, `ulimit -v`).
const BYTES_PER_STORED: u64 = 100;

impl Config {
    /// Checks `args`.
    ///
    /// # Errors
    /// A usage error for a bad shape or a heuristic given to an algorithm without one.
    pub(super) fn from_args(args: &SolveArgs) -> Result<Config, CliError> {
        let source = match (&args.file, &args.board, &args.batch) {
            (Some(f), None, None) if f.as_os_str() == "-" => BoardSource::Single(Single::Stdin),
            (Some(f), None, None) => BoardSource::Single(Single::File(f.clone())),
            (None, Some(b), None) => BoardSource::Single(Single::Board(b.clone())),
            (None, None, Some(b)) => BoardSource::Batch(b.clone()),
            _ => return Err(CliError::usage("give one of FILE, --board or --batch")),
        };
        let shape = args.shape.given()?;
        if args.no_verify {
            return Err(CliError::usage(
                "--no-verify is refused: solve always checks each block of the table against \
                 its CRC-32 as it is read, since a damaged table could answer a longer path as \
                 optimal",
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
            && !metric.moves_one_tile()
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
    pub(super) fn limits(&self, algorithm: Algorithm) -> Limits {
        Limits {
            max_expanded: self.max_expanded,
            time_limit: self.time_limit,
            ..default_limits(algorithm)
        }
    }

    /// The algorithm and heuristic for a board of `shape`: the ones asked for, the rest from
    /// [`solve::default_method`].
    pub(super) fn method(&self, shape: Shape) -> (Algorithm, HeuristicKind) {
        let (default_algorithm, default_heuristic) = solve::default_method(shape, self.metric);
        match (self.algorithm, self.heuristic) {
            (None, None) => (default_algorithm, default_heuristic),
            (None, Some(h)) => (Algorithm::IdaStar, h),
            (Some(a), h) => (a, h.unwrap_or(default_heuristic)),
        }
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
