//! `npuzzle analyze` and `npuzzle plot`: run the analysis, write the outputs, print the report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};
use indicatif::{DecimalBytes, HumanCount};
use npuzzle::analysis::{self, Options};
use npuzzle::bfs::cluster::{CheckpointEvery, Cluster, ClusterError};
use npuzzle::export::{self, BoardFormat, Provenance, Summary};
use npuzzle::{Board, Shape, plot};

use super::board::BoardArgs;
use super::progress::Bars;
use super::{CliError, MetricArg};
use npuzzle::metric::Metric;

/// Boards above this many cells export no edges or nodes unless asked.
const DEFAULT_EXPORT_CELLS: usize = 10;

/// How boards are written in an export, or no export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Export {
    /// Do not write the file.
    None,
    /// R-analysis labels (`123456789`, `1-2-...-12` from 10 cells on).
    Labels,
    /// Dense ranks `0..n!` (smaller; CSV with a header: R/igraph reads them with `read.csv`
    /// and `graph_from_data_frame`).
    Ranks,
    /// edges.parquet / nodes.parquet instead of CSV: ranks (and labels in nodes.parquet),
    /// zstd-compressed columns that DuckDB, Polars and pandas read directly. Needs a build
    /// with `--features parquet`.
    Parquet,
}

/// What `--edges` or `--nodes` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Csv(BoardFormat),
    Parquet,
}

/// Arguments of `npuzzle analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Measure distances from this board instead of the standard goal (tiles in order, blank
    /// last): its label (123495678) or its tiles row by row, 0 or . for the blank
    /// ("1 2 3 / 4 0 5 / 6 7 8"). Results go to DIR/<R>x<C>-goal-<label>/.
    #[arg(long, value_name = "BOARD")]
    goal: Option<String>,
    /// Folder for the results; they go to DIR/<R>x<C>/ (DIR/<R>x<C>-mtm/ in the multi-tile
    /// metric).
    #[arg(long, value_name = "DIR", default_value = "output")]
    output: PathBuf,
    /// What one move is: stm (single-tile: one tile slides one cell) or mtm (multi-tile: 1 to
    /// k tiles of the blank's row or column slide together). Long names: single-tile,
    /// multi-tile.
    #[arg(long, value_enum, value_name = "METRIC", default_value = "stm")]
    metric: MetricArg,
    /// Write edges.csv [default: labels up to 10 cells, none above].
    #[arg(long, value_enum, value_name = "FORMAT")]
    edges: Option<Export>,
    /// Write nodes.csv [default: labels up to 10 cells, none above].
    #[arg(long, value_enum, value_name = "FORMAT")]
    nodes: Option<Export>,
    /// Also write table.npt, two bits a board, from which `npuzzle solve --table DIR` answers
    /// any board (its depth and a shortest solution) without searching: in the single-tile
    /// metric the BFS's own marks, on boards of 2 rows and 2 columns up to 20 cells as far as
    /// memory allows (3x4: 60 MB, 2x7: 10.9 GB); in the multi-tile metric and on one-row
    /// boards each board's depth mod 3, up to 12 cells.
    #[arg(long)]
    table: bool,
    /// Explore the other parity class by BFS as well (boards of 2 rows and 2 columns up to 12
    /// cells): a check of the parity theorem, at the cost of a second search as long as the
    /// goal's. Without it the other class is stated: swapping two tiles' labels maps it onto
    /// the goal's class, move for move, so it is one component of the same size
    /// (summary.json: "found_by": "theorem").
    #[arg(long, conflicts_with = "max_depth")]
    search_components: bool,
    /// No report and no progress bars.
    #[arg(long, short)]
    quiet: bool,
    /// Search only to depth D (frontier search, three layers live, no whole-space
    /// marks): for boards too large to map whole (4x4, 3x5, 2x8), or to stop early. The
    /// results say whether the search ran out of boards first ("complete").
    #[arg(long, value_name = "D")]
    max_depth: Option<u32>,
    /// With --max-depth: keep the layers and the runs of the layer being built on disk in DIR
    /// (streamed; memory then holds buffers only) rather than in memory. With --checkpoint,
    /// the layers are kept in the checkpoint folder instead.
    #[arg(long, value_name = "DIR", requires = "max_depth")]
    scratch: Option<PathBuf>,
    /// With --max-depth: the memory the search may use, e.g. `12G` (decimal units; `GiB`
    /// for binary ones) [default: the memory available now]. Chunks are cut to fit; a budget
    /// too small for one chunk is refused; a search whose next layer would not fit stops
    /// before it, keeping the depths it finished ("complete": false).
    #[arg(long, value_name = "BYTES", requires = "max_depth", value_parser = parse_bytes)]
    memory: Option<u64>,
    /// Instead of the distances from one goal, the whole game graph's geometry: every
    /// board's eccentricity, the diameter, the radius, the centre and periphery, the mean
    /// distance and the distance table (pairs of boards at each distance), from one BFS per
    /// orbit of blank cells (3 for 3x3 and 4x4, 4 for 3x4 and 2x7). Written to
    /// DIR/<R>x<C>/geometry/: eccentricity.csv, distance_table.csv, summary.json,
    /// distances_by_cell.png. With --max-depth, each BFS to that depth (partial).
    #[arg(long, conflicts_with_all = ["goal", "edges", "nodes", "table", "search_components"])]
    all_pairs: bool,
    #[command(flatten)]
    scale: ScaleArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// The depth chart's y axis: `--log-scale` or `--linear-scale`.
#[derive(Debug, Args)]
pub struct ScaleArgs {
    /// Draw the depth chart on a logarithmic y axis (boards at each depth, ticked at powers of
    /// ten), which suits layers that grow geometrically [default for partial --max-depth runs
    /// and for counts that span more than three orders of magnitude].
    #[arg(long, conflicts_with = "linear_scale")]
    log_scale: bool,
    /// Draw the depth chart on a linear y axis (each depth's share, %) [default otherwise];
    /// bars too small to see are drawn 3 px tall, and the chart says so.
    #[arg(long)]
    linear_scale: bool,
}

impl ScaleArgs {
    /// The scale asked for by a flag, if any.
    fn asked(&self) -> Option<plot::Scale> {
        if self.log_scale {
            Some(plot::Scale::Log)
        } else if self.linear_scale {
            Some(plot::Scale::Linear)
        } else {
            None
        }
    }

    /// The scale asked for; without a flag, [`plot::Scale::auto`] for these distributions
    /// (each its counts and whether it is partial).
    fn scale<'a>(&self, series: impl IntoIterator<Item = (&'a [u64], bool)>) -> plot::Scale {
        self.asked().unwrap_or_else(|| plot::Scale::auto(series))
    }
}

/// A depth-limited analysis's error as the command line reports it: flags that cannot work
/// and a board beyond the index are usage errors, as without `--max-depth`.
pub(super) fn limited_error(e: analysis::AnalyzeError) -> CliError {
    match e {
        analysis::AnalyzeError::Refused(_) | analysis::AnalyzeError::TooLarge(_) => {
            CliError::usage(e)
        }
        e => CliError::runtime(e),
    }
}

/// The distributed engine's flags, in timely-dataflow's terms. Any of them runs the BFS on
/// timely (across processes, or in one); without them the one-machine engine runs.
#[derive(Debug, Args)]
#[command(next_help_heading = "Distributed runs (timely-dataflow)")]
pub struct ClusterArgs {
    /// Run on N processes, started alike (same flags) with --process 0..N-1; process 0
    /// writes the results.
    #[arg(long, value_name = "N")]
    processes: Option<usize>,
    /// This process's number, 0..N-1.
    #[arg(long, value_name = "I", default_value_t = 0)]
    process: usize,
    /// One host:port per line, one line per process, in process order
    /// [default: localhost:2101, localhost:2102, ...].
    #[arg(long, value_name = "FILE")]
    hostfile: Option<PathBuf>,
    /// Worker threads per process of the distributed engine [default: the number of cores].
    /// For threads on one machine, without switching engines, use --threads.
    #[arg(long, value_name = "W")]
    workers: Option<usize>,
    /// Save every process's state into DIR after a BFS layer, as often as --checkpoint-every
    /// says (resumable with --resume). With --max-depth: keep the search's two live layers in
    /// DIR and its state after every layer.
    #[arg(long, value_name = "DIR")]
    checkpoint: Option<PathBuf>,
    /// When to save: `layer` (after every layer), a number of seconds (after the first layer
    /// that ends that long after the last save), or `auto`: nine times as long as the last
    /// save took and at least a minute, so that saving costs at most about a tenth of the run.
    /// (A depth-limited search saves after every layer: its layers are on disk already.)
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = parse_every, requires = "checkpoint")]
    checkpoint_every: CheckpointEvery,
    /// Restart from the last layer that every process saved in --checkpoint DIR (with
    /// --max-depth: the last layer the search finished; a larger --max-depth goes deeper).
    #[arg(long, requires = "checkpoint", conflicts_with = "fresh")]
    resume: bool,
    /// Discard the checkpoint in --checkpoint DIR and start again (without it, a run that
    /// would overwrite a checkpoint is refused: add --resume to continue it).
    #[arg(long, requires = "checkpoint")]
    fresh: bool,
    /// Seconds to wait for every process to connect.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    connect_timeout: u64,
    /// Seconds a process waits without any message from its peers before it stops with an
    /// error (a peer stopped, froze or was cut off).
    #[arg(long, value_name = "SECONDS", default_value_t = npuzzle::bfs::cluster::DEFAULT_STALL.as_secs())]
    stall_timeout: u64,
    /// Bind each worker thread to a core of its own: `auto` when several processes of the run
    /// share a host (the same host in the hostfile) and their workers fit its cores, as MPI
    /// launchers bind ranks; `none` leaves the threads to the operating system.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    bind: BindArg,
}

/// `--bind`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BindArg {
    /// Bind when several processes share a host and their workers fit its cores.
    Auto,
    /// Never bind.
    None,
}

/// Most processes of a distributed run (their default ports, from 2101, stay below 65535).
const MAX_PROCESSES: usize = 4096;
/// Most worker threads per process.
const MAX_WORKERS: usize = 1024;
/// Longest `--connect-timeout`, in seconds (a week).
const MAX_WAIT_SECONDS: u64 = 7 * 86_400;

impl ClusterArgs {
    /// The checkpoint folder of a depth-limited search, and whether to resume from it.
    fn frontier_checkpoint(&self) -> Option<npuzzle::bfs::frontier::CheckpointAt> {
        self.checkpoint
            .as_ref()
            .map(|dir| npuzzle::bfs::frontier::CheckpointAt {
                dir: dir.clone(),
                start: npuzzle::durable::Start::from_flags(self.resume, self.fresh),
                run: Default::default(),
            })
    }

    /// The cluster, when any distributed flag is given (`--checkpoint` too, unless the search
    /// is depth-limited).
    fn cluster(&self, depth_limited: bool) -> Result<Option<Cluster>, CliError> {
        if self.processes.is_none()
            && self.workers.is_none()
            && (self.checkpoint.is_none() || depth_limited)
        {
            if self.process != 0 || self.hostfile.is_some() {
                return Err(CliError::usage("--process and --hostfile need --processes"));
            }
            return Ok(None);
        }
        let processes = self.processes.unwrap_or(1);
        let workers = self.workers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        });
        if processes == 0 || workers == 0 {
            return Err(CliError::usage(
                "--processes and --workers must be at least 1",
            ));
        }
        if processes > MAX_PROCESSES {
            return Err(CliError::usage(format!(
                "--processes {processes}: at most {MAX_PROCESSES}"
            )));
        }
        if workers > MAX_WORKERS {
            return Err(CliError::usage(format!(
                "--workers {workers}: at most {MAX_WORKERS} per process"
            )));
        }
        for (flag, seconds) in [
            ("--connect-timeout", self.connect_timeout),
            ("--stall-timeout", self.stall_timeout),
        ] {
            if !(1..=MAX_WAIT_SECONDS).contains(&seconds) {
                return Err(CliError::usage(format!(
                    "{flag} {seconds}: give 1 to {MAX_WAIT_SECONDS} seconds (a week)"
                )));
            }
        }
        let key = npuzzle::bfs::cluster::handshake::key_from_env()
            .map_err(CliError::usage)?
            .map(npuzzle::bfs::cluster::SharedKey);
        if self.process >= processes {
            return Err(CliError::usage(format!(
                "--process {} is out of range for --processes {processes} (0..{})",
                self.process,
                processes - 1
            )));
        }
        let addresses = match &self.hostfile {
            Some(path) if processes > 1 => {
                Cluster::read_hostfile(path, processes, self.process).map_err(CliError::usage)?
            }
            _ => Cluster::default_addresses(processes),
        };
        Ok(Some(Cluster {
            processes,
            process: self.process,
            workers,
            addresses,
            checkpoint: self.checkpoint.clone(),
            checkpoint_every: self.checkpoint_every,
            start: npuzzle::durable::Start::from_flags(self.resume, self.fresh),
            connect_timeout: std::time::Duration::from_secs(self.connect_timeout),
            stall_timeout: std::time::Duration::from_secs(self.stall_timeout),
            key,
            bind: match self.bind {
                BindArg::Auto => npuzzle::bfs::cluster::Bind::Auto,
                BindArg::None => npuzzle::bfs::cluster::Bind::None,
            },
            tuning: Default::default(),
        }))
    }
}

/// Parses `--memory`: a size with decimal (`12G`, `500MB`) or binary (`12GiB`) units.
fn parse_bytes(value: &str) -> Result<u64, String> {
    parse_size::parse_size(value).map_err(|e| format!("{e} (a size such as 12G or 500MB)"))
}

/// Parses `--checkpoint-every`: `auto`, `layer`, or whole seconds (at most a year).
fn parse_every(value: &str) -> Result<CheckpointEvery, String> {
    match value {
        "auto" => Ok(CheckpointEvery::Auto),
        "layer" => Ok(CheckpointEvery::Layer),
        _ => match value.parse::<u64>() {
            Ok(s) if s <= 366 * 86_400 => {
                Ok(CheckpointEvery::Interval(std::time::Duration::from_secs(s)))
            }
            _ => Err("expected auto, layer, or whole seconds up to a year".into()),
        },
    }
}

/// Arguments of `npuzzle plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A results folder written by `analyze` (e.g. output/3x3), or its summary.json; the
    /// summary is read and the folder's depth_histogram.png redrawn.
    #[arg(value_name = "DIR", required = true)]
    dirs: Vec<PathBuf>,
    /// Instead, draw the depth distributions of all the given folders on one chart, to FILE
    /// (a .png, or a .svg for an SVG with text as text).
    #[arg(long, value_name = "FILE")]
    compare: Option<PathBuf>,
    /// Draw the one folder's chart to FILE (a .png, or a .svg for an SVG with text as text)
    /// instead of DIR/depth_histogram.png.
    #[arg(long, value_name = "FILE", conflicts_with = "compare")]
    output: Option<PathBuf>,
    /// The metric of the results to draw: a folder of the other metric is replaced by its
    /// sibling of this one (output/3x3 by output/3x3-mtm with mtm, and back), and it is an
    /// error when there is none [default: each folder as given].
    #[arg(long, value_enum, value_name = "METRIC")]
    metric: Option<MetricArg>,
    #[command(flatten)]
    scale: ScaleArgs,
}

fn format_of(choice: Option<Export>, shape: Shape, flag: &str) -> Result<Option<Output>, CliError> {
    let choice = choice.unwrap_or(if shape.cells() <= DEFAULT_EXPORT_CELLS {
        Export::Labels
    } else {
        Export::None
    });
    Ok(match choice {
        Export::None => None,
        Export::Labels => Some(Output::Csv(BoardFormat::Labels)),
        Export::Ranks => Some(Output::Csv(BoardFormat::Ranks)),
        Export::Parquet if cfg!(feature = "parquet") => Some(Output::Parquet),
        Export::Parquet => {
            return Err(CliError::usage(format!(
                "{flag} parquet needs a build with the parquet feature: \
                 cargo install --locked --path . --features parquet"
            )));
        }
    })
}

/// Writes the edge list (`edges.csv` or `edges.parquet`); returns the file's name.
fn write_edges(
    dir: &Path,
    shape: Shape,
    metric: Metric,
    output: Output,
    bars: &Bars,
) -> Result<&'static str, CliError> {
    match output {
        Output::Csv(format) => {
            export::write_edges(&dir.join("edges.csv"), shape, metric, format, bars)
                .map(|()| "edges.csv")
        }
        #[cfg(feature = "parquet")]
        Output::Parquet => {
            export::parquet::write_edges(&dir.join("edges.parquet"), shape, metric, bars)
                .map(|()| "edges.parquet")
        }
        #[cfg(not(feature = "parquet"))]
        Output::Parquet => unreachable!("refused by format_of"),
    }
    .map_err(CliError::runtime)
}

/// Writes the per-board table (`nodes.csv` or `nodes.parquet`); returns the file's name.
fn write_nodes(
    dir: &Path,
    result: &analysis::Analysis,
    output: Output,
    bars: &Bars,
) -> Result<&'static str, CliError> {
    match output {
        Output::Csv(format) => {
            export::write_nodes(&dir.join("nodes.csv"), result, format, bars).map(|()| "nodes.csv")
        }
        #[cfg(feature = "parquet")]
        Output::Parquet => export::parquet::write_nodes(&dir.join("nodes.parquet"), result, bars)
            .map(|()| "nodes.parquet"),
        #[cfg(not(feature = "parquet"))]
        Output::Parquet => unreachable!("refused by format_of"),
    }
    .map_err(CliError::runtime)
}

/// Runs `npuzzle analyze`: the flags checked against the shape and the memory, the search,
/// the files written, the files of an earlier run set aside, and the report.
pub fn run(args: AnalyzeArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let shape = args.board.shape()?;
    let goal = goal_of(&args, shape)?;
    if args.all_pairs {
        return all_pairs(&args, shape, started);
    }
    let plan = plan(&args, shape)?;
    make_scratch(&args)?;
    let dir = results_dir(&args, &goal, &plan);
    let writes = plan.cluster.as_ref().is_none_or(|c| c.process == 0);
    if writes {
        export::prepare_dir(&dir).map_err(CliError::runtime)?;
    }
    let bars = Bars::new(!args.quiet && writes);
    let Some(found) = search(&args, &plan, &goal, &dir, &bars)? else {
        return Ok(());
    };
    let summary = summary_of(&found);
    let mut notes = run_notes(&found, plan.cluster.as_ref());
    let written = write_outputs(&args, &plan, &dir, &found, &summary, &bars, &mut notes)?;
    set_aside_earlier(&dir, &written, &mut notes)?;
    if !args.quiet {
        print!(
            "{}",
            report(
                &summary,
                &dir,
                &written,
                &notes,
                started.elapsed().as_secs_f64()
            )
        );
    }
    Ok(())
}

/// `--goal` as a board of `shape`, or the standard goal without it.
fn goal_of(args: &AnalyzeArgs, shape: Shape) -> Result<Board, CliError> {
    Ok(match &args.goal {
        Some(text) => Board::parse_any(shape, text)
            .map_err(|e| CliError::usage(format!("--goal {text:?}: {e}")))?,
        None => Board::goal(shape),
    })
}

/// What a run of `analyze` does, its flags checked: the exports, the analysis's options and
/// the cluster that runs it, if any.
struct Plan {
    shape: Shape,
    metric: Metric,
    /// `--edges`, or `None` for no edge list.
    edges: Option<Output>,
    /// `--nodes`, or `None` for no per-board table.
    nodes: Option<Output>,
    /// Whether table.npt is made from the BFS's marks ([`analysis::table_from_marks`]).
    from_marks: bool,
    options: Options,
    cluster: Option<Cluster>,
}

/// Checks the flags against `shape`, each other and the memory, before any work: a usage
/// error says what cannot be done.
fn plan(args: &AnalyzeArgs, shape: Shape) -> Result<Plan, CliError> {
    let (edges, nodes) = exports(args, shape)?;
    let metric = Metric::from(args.metric);
    let from_marks = analysis::table_from_marks(shape, metric);
    if args.table && shape.cells() > analysis::SEARCH_CELLS && !from_marks {
        let which = match metric {
            Metric::Mtm => "in the multi-tile metric",
            Metric::Stm => "on one-row boards",
        };
        return Err(CliError::usage(format!(
            "--table {which} is made from every board's depth, up to {} cells; {shape} has {} \
             (above, only single-tile tables of 2 rows and 2 columns or more: the BFS's marks)",
            analysis::SEARCH_CELLS,
            shape.cells()
        )));
    }
    if args.search_components && shape.cells() > analysis::SEARCH_CELLS {
        return Err(CliError::usage(format!(
            "--search-components searches boards of up to {} cells ({shape} has {}); above \
             that the second component is stated",
            analysis::SEARCH_CELLS,
            shape.cells()
        )));
    }
    if args.table && args.max_depth.is_some() {
        return Err(CliError::usage(
            "--table needs the whole state space: run without --max-depth",
        ));
    }
    let options = Options {
        per_board: nodes.is_some() || (args.table && !from_marks),
        metric,
        table: args.table,
        search_components: args.search_components,
    };
    let cluster = args.cluster.cluster(args.max_depth.is_some())?;
    if cluster.is_some() && args.max_depth.is_some() {
        return Err(CliError::usage(
            "--max-depth runs on one machine: run without --processes and --workers",
        ));
    }
    if cluster.is_none() && args.max_depth.is_none() {
        analysis::plan(shape, options, analysis::available_memory()).map_err(CliError::usage)?;
    }
    if let Some(c) = &cluster {
        analysis::check_cluster(shape, options, c).map_err(CliError::usage)?;
    }
    if args.max_depth.is_some() {
        analysis::plan_limited(shape).map_err(CliError::usage)?;
    }
    Ok(Plan {
        shape,
        metric,
        edges,
        nodes,
        from_marks,
        options,
        cluster,
    })
}

/// `--edges` and `--nodes` checked: how each is written, or `None` for no file.
fn exports(args: &AnalyzeArgs, shape: Shape) -> Result<(Option<Output>, Option<Output>), CliError> {
    let edges = match (args.max_depth, args.edges) {
        (Some(_), Some(Export::Labels | Export::Ranks | Export::Parquet)) => {
            return Err(CliError::usage(
                "--edges lists the whole game graph, not what --max-depth searched: run \
                 without one of them",
            ));
        }
        (Some(_), _) => None,
        (None, choice) => format_of(choice, shape, "--edges")?,
    };
    let nodes = match (args.max_depth, args.nodes) {
        (Some(_), Some(Export::Labels | Export::Ranks | Export::Parquet)) => {
            return Err(CliError::usage(
                "--nodes needs every board's depth, which --max-depth does not keep: run \
                 without one of them",
            ));
        }
        (Some(_), _) => None,
        (None, choice) => format_of(choice, shape, "--nodes")?,
    };
    if shape.cells() > analysis::SEARCH_CELLS && (edges.is_some() || nodes.is_some()) {
        return Err(CliError::usage(format!(
            "edges.csv and nodes.csv are written up to {} cells; {shape} has {} edges \
             (about {} as ranks): run without --edges and --nodes",
            analysis::SEARCH_CELLS,
            HumanCount(shape.edge_count().unwrap_or(0)),
            DecimalBytes(
                shape
                    .edge_count()
                    .unwrap_or(0)
                    .saturating_mul(row_bytes(shape, BoardFormat::Ranks))
            ),
        )));
    }
    Ok((edges, nodes))
}

/// Makes the `--scratch` folder of a depth-limited search: before the output folder, so that
/// one that cannot be made leaves no empty output folder behind.
fn make_scratch(args: &AnalyzeArgs) -> Result<(), CliError> {
    if args.max_depth.is_some()
        && let Some(scratch) = &args.scratch
    {
        std::fs::create_dir_all(scratch)
            .map_err(|e| CliError::runtime(format!("folder {}: {e}", super::shown(scratch))))?;
    }
    Ok(())
}

/// The results folder: `OUTPUT/<R>x<C>`, with `-goal-<label>` for another goal than the
/// standard one and `-mtm` in the multi-tile metric.
fn results_dir(args: &AnalyzeArgs, goal: &Board, plan: &Plan) -> PathBuf {
    let shape = plan.shape;
    let mut folder = if *goal == Board::goal(shape) {
        shape.to_string()
    } else {
        format!("{shape}-goal-{}", goal.label())
    };
    folder.push_str(super::metric_suffix(plan.metric));
    args.output.join(folder)
}

/// What the search found: the analysis, and for a depth-limited search how far it went.
struct Found {
    result: analysis::Analysis,
    limited: Option<analysis::Limited>,
}

/// Runs the search the plan chose: depth-limited, on this machine, or distributed (where
/// process 0 writes table.npt as the marks stream in). `None` for a distributed process
/// other than 0, once done: process 0 writes the results.
fn search(
    args: &AnalyzeArgs,
    plan: &Plan,
    goal: &Board,
    dir: &Path,
    bars: &Bars,
) -> Result<Option<Found>, CliError> {
    let metric = plan.metric;
    let mut limited = None;
    let result = match &plan.cluster {
        None if args.max_depth.is_some() => {
            let depth = args.max_depth.unwrap_or_default();
            let storage = npuzzle::bfs::frontier::Storage {
                scratch: args.scratch.clone(),
                checkpoint: args.cluster.frontier_checkpoint(),
                memory: Some(args.memory.unwrap_or_else(analysis::available_memory)),
            };
            let (result, l) = analysis::analyze_limited(goal, metric, depth, &storage, bars)
                .map_err(limited_error)?;
            limited = Some(l);
            result
        }
        None => analysis::analyze_unchecked(goal, plan.options, bars).map_err(CliError::runtime)?,
        Some(c) => {
            // Process 0 writes the table as the processes stream their marks to it.
            let spool: Option<Box<dyn npuzzle::bfs::cluster::MarksSink>> =
                match args.table && plan.from_marks && c.process == 0 {
                    true => Some(Box::new(
                        npuzzle::table::Spool::create(&dir.join("table.npt"), goal, metric)
                            .map_err(CliError::runtime)?,
                    )),
                    false => None,
                };
            match analysis::analyze_cluster(goal, plan.options, c, bars, spool) {
                Ok(Some(result)) => result,
                Ok(None) => {
                    if !args.quiet {
                        println!(
                            "process {} of {}: done (process 0 writes the results)",
                            c.process, c.processes
                        );
                    }
                    return Ok(None);
                }
                Err(e @ ClusterError::Config(_)) => return Err(CliError::usage(e)),
                Err(e) => return Err(CliError::runtime(e)),
            }
        }
    };
    Ok(Some(Found { result, limited }))
}

/// The run's summary.json: the analysis's counts, this build and command, and how far a
/// depth-limited search went.
fn summary_of(found: &Found) -> Summary {
    let mut summary = Summary::of(&found.result);
    summary.npuzzle = Some(Provenance::of_this_build(super::arguments()));
    if let Some(l) = &found.limited {
        summary.limit(l.complete, l.max_depth_searched);
    }
    summary
}

/// The report's notes on how the search went: a distributed run's traffic and checkpoints,
/// a depth-limited search's depth, memory and checkpoints.
fn run_notes(found: &Found, cluster: Option<&Cluster>) -> Vec<String> {
    let mut notes = Vec::new();
    if let (Some(t), Some(c)) = (found.result.traffic, cluster) {
        notes.push(format!(
            "distributed over {} process(es) x {} worker(s): {} boards expanded, {} indices \
             sent to other workers in {} ({:.2} bytes per board expanded)",
            c.processes,
            c.workers,
            HumanCount(t.expanded),
            HumanCount(t.sent_indices),
            DecimalBytes(t.sent_bytes),
            t.sent_bytes as f64 / t.expanded.max(1) as f64
        ));
        if c.processes > 1 {
            notes.push(format!(
                "received lists held unclaimed: at most {} by a process, {} in flight to one \
                 (bound {}, in the memory plan)",
                DecimalBytes(t.peak_unclaimed),
                DecimalBytes(t.peak_in_flight),
                DecimalBytes(t.received_bound)
            ));
        }
        if t.saves > 0 {
            notes.push(format!(
                "{} checkpoint(s) saved: {} in {:.1} s ({}/s, syncs included)",
                t.saves,
                DecimalBytes(t.saved_bytes),
                t.save_micros as f64 / 1e6,
                DecimalBytes((t.saved_bytes as f64 / (t.save_micros.max(1) as f64 / 1e6)) as u64)
            ));
        }
        if let Some(step) = t.resumed_from {
            notes.push(format!(
                "resumed from the checkpoint after layer step {step} (the counts include the work before it)"
            ));
        }
    }
    if let Some(l) = &found.limited {
        notes.push(format!(
            "depth-limited search to depth {}: {}; at most {} of layers, runs and buffers in \
             memory besides a chunk of {} boards",
            l.max_depth_searched,
            if l.complete {
                "complete (it ran out of boards first)"
            } else {
                "partial"
            },
            DecimalBytes(l.peak_bytes),
            HumanCount(l.chunk as u64)
        ));
        if let Some(why) = &l.stopped {
            notes.push(why.clone());
        }
        if l.saved_bytes > 0 {
            let seconds = l.save_time.as_secs_f64();
            notes.push(format!(
                "checkpoint: {} written in {seconds:.1} s ({}/s, checksums and syncs included)",
                DecimalBytes(l.saved_bytes),
                DecimalBytes((l.saved_bytes as f64 / seconds.max(1e-6)) as u64)
            ));
        }
        if let Some(depth) = l.resumed_from {
            notes.push(format!(
                "resumed from the checkpoint after depth {depth} (the layers before it were found by the run it resumes)"
            ));
        }
    }
    notes
}

/// Writes the run's files into `dir` and returns their names, in order; a file not written
/// gets a note saying why and how to ask for it.
///
/// The small files and the chart are written while the large ones are (each sync to the
/// disk then overlaps with other work); errors are reported in the order of the files.
fn write_outputs(
    args: &AnalyzeArgs,
    plan: &Plan,
    dir: &Path,
    found: &Found,
    summary: &Summary,
    bars: &Bars,
    notes: &mut Vec<String>,
) -> Result<Vec<&'static str>, CliError> {
    let (shape, metric, result) = (plan.shape, plan.metric, &found.result);
    let scale = args
        .scale
        .scale([(&summary.depth_counts[..], summary.is_partial())]);
    let path = |name: &str| dir.join(name);
    let (((edges_done, nodes_done), table_done), small_done) = rayon::join(
        || {
            // Side by side too: each one's sync overlaps with the other's formatting.
            let nodes_bars = bars.sibling();
            rayon::join(
                || {
                    rayon::join(
                        || plan.edges.map(|f| write_edges(dir, shape, metric, f, bars)),
                        || plan.nodes.map(|f| write_nodes(dir, result, f, &nodes_bars)),
                    )
                },
                || {
                    // (A distributed run has written its marks' table already.)
                    let streamed = result.traffic.is_some() && plan.from_marks;
                    (args.table && !streamed)
                        .then(|| npuzzle::table::write(&path("table.npt"), result))
                },
            )
        },
        || -> Result<(), CliError> {
            export::write_depths(&path("depths.csv"), summary).map_err(CliError::runtime)?;
            export::write_hardest(&path("hardest.txt"), summary).map_err(CliError::runtime)?;
            export::write_summary(&path("summary.json"), summary).map_err(CliError::runtime)?;
            draw(&path("depth_histogram.png"), summary, scale)
        },
    );
    let mut written = Vec::new();
    match edges_done {
        Some(done) => written.push(done?),
        None => notes.push(edges_note(result, shape)),
    }
    match nodes_done {
        Some(done) => written.push(done?),
        None if found.limited.is_some() => {}
        None => notes.push(nodes_note(result, shape)),
    }
    if let Some(done) = table_done {
        done.map_err(CliError::runtime)?;
        written.push("table.npt");
    } else if args.table {
        // Streamed by the distributed run, or by the run it resumed.
        written.push("table.npt");
        if !result.table_written {
            notes.push(
                "table.npt was written by the run this one resumed (before the checkpoint \
                 it resumed from)"
                    .to_string(),
            );
        }
    }
    small_done?;
    written.extend([
        "depths.csv",
        "hardest.txt",
        "summary.json",
        "depth_histogram.png",
    ]);
    Ok(written)
}

/// The note for an edge list not written: its size in each format.
fn edges_note(result: &analysis::Analysis, shape: Shape) -> String {
    format!(
        "edges.csv not written: {} edges, about {} with --edges ranks, {} with --edges labels",
        HumanCount(result.edges),
        DecimalBytes(result.edges * row_bytes(shape, BoardFormat::Ranks)),
        DecimalBytes(result.edges * row_bytes(shape, BoardFormat::Labels)),
    )
}

/// The note for a per-board table not written: the memory it needs, or that the shape is too
/// large for one.
fn nodes_note(result: &analysis::Analysis, shape: Shape) -> String {
    match analysis::bytes_needed(
        shape,
        Options {
            per_board: true,
            ..Options::default()
        },
    ) {
        Some(bytes) => format!(
            "nodes.csv not written: {} boards; ask with --nodes ranks or --nodes labels \
                 (needs {} of memory)",
            HumanCount(result.boards),
            DecimalBytes(bytes),
        ),
        None => format!(
            "nodes.csv not written: {} boards; it is written up to {} cells",
            HumanCount(result.boards),
            analysis::SEARCH_CELLS
        ),
    }
}

/// Moves the files of an earlier run in `dir` that this one did not write (`written`) to
/// `dir/stale/`, with a note; a table.npt moved also gets a warning on stderr, even with
/// `--quiet`.
fn set_aside_earlier(
    dir: &Path,
    written: &[&str],
    notes: &mut Vec<String>,
) -> Result<(), CliError> {
    let (moved, replaced) = export::set_aside_stale(dir, written).map_err(CliError::runtime)?;
    if moved.contains(&"table.npt") {
        // Said even with --quiet: `solve --table` and `sample` read it from here.
        eprintln!(
            "warning: moved table.npt of an earlier run to {}: this run has no --table \
             (solve --table and sample read the folder's table.npt)",
            super::shown(&dir.join("stale"))
        );
    }
    if !moved.is_empty() {
        let older = if replaced.is_empty() {
            String::new()
        } else {
            format!(
                "; it replaced the older copies of {} there",
                replaced.join(", ")
            )
        };
        notes.push(format!(
            "moved {} of an earlier run to stale/ (this run does not write {}){older}",
            moved.join(", "),
            if moved.len() == 1 { "it" } else { "them" }
        ));
    }
    Ok(())
}

/// `analyze --all-pairs`: its flags checked, then [`super::geometry::run`].
fn all_pairs(args: &AnalyzeArgs, shape: Shape, started: Instant) -> Result<(), CliError> {
    let metric = Metric::from(args.metric);
    if args.cluster.checkpoint.is_some() {
        return Err(CliError::usage(
            "--all-pairs runs one BFS per orbit of blank cells and keeps no checkpoint: run \
             it without --checkpoint",
        ));
    }
    let cluster = args.cluster.cluster(args.max_depth.is_some())?;
    if cluster.is_some() && args.max_depth.is_some() {
        return Err(CliError::usage(
            "--max-depth runs on one machine: run without --processes and --workers",
        ));
    }
    if let Some(scratch) = args.scratch.as_ref().filter(|_| args.max_depth.is_some()) {
        std::fs::create_dir_all(scratch)
            .map_err(|e| CliError::runtime(format!("folder {}: {e}", super::shown(scratch))))?;
    }
    let limited = args.max_depth.map(|depth| {
        (
            depth,
            npuzzle::bfs::frontier::Storage {
                scratch: args.scratch.clone(),
                checkpoint: None,
                memory: Some(args.memory.unwrap_or_else(analysis::available_memory)),
            },
        )
    });
    let dir = args
        .output
        .join(format!("{shape}{}", super::metric_suffix(metric)));
    super::geometry::run(super::geometry::Request {
        shape,
        metric,
        dir,
        quiet: args.quiet,
        limited,
        cluster,
        scale: args.scale.asked(),
        started,
    })
}

/// Average bytes of one `edges.csv` row (for the size note).
fn row_bytes(shape: Shape, format: BoardFormat) -> u64 {
    let n = shape.cells() as u64;
    match format {
        BoardFormat::Ranks => 2 * shape.board_count().unwrap_or(1).to_string().len() as u64 + 2,
        BoardFormat::Labels if n <= 9 => 2 * n + 2,
        BoardFormat::Labels => {
            2 * (n - 1 + (1..=n).map(|t| t.to_string().len() as u64).sum::<u64>()) + 2
        }
    }
}

/// Draws the depth chart `file` (a PNG) from `summary` on a `scale` y axis.
fn draw(file: &Path, summary: &Summary, scale: plot::Scale) -> Result<(), CliError> {
    let hardest: Vec<String> = summary
        .hardest
        .boards
        .iter()
        .map(|b| b.grid.join("\n"))
        .collect();
    let name = chart_name(summary);
    let chart = plot::DepthChart {
        board: &name,
        goal: other_goal(summary),
        counts: &summary.depth_counts,
        hardest: &hardest,
        partial: summary.is_partial(),
        scale,
    };
    plot::write_depth_histogram(&chart, file).map_err(plot_failure)
}

/// The board's name on a chart: `3x3`, or `3x3 (multi-tile metric)` for a summary of the
/// multi-tile metric (the single-tile metric is the charts' unnamed default).
fn chart_name(summary: &Summary) -> String {
    match summary.metric() {
        Metric::Stm => summary.board.clone(),
        m => format!("{} ({} metric)", summary.board, m.long_name()),
    }
}

/// The goal's label when it is not the standard goal.
fn other_goal(summary: &Summary) -> Option<&str> {
    (!summary.from_standard_goal()).then_some(summary.goal.as_str())
}

/// A chart's error as the command's: nothing to draw is bad input (exit 2, as a summary.json
/// that cannot be read); a file that cannot be written, or a drawing failure, is a runtime
/// failure (exit 1, as for every output).
fn plot_failure(e: plot::PlotError) -> CliError {
    match e {
        plot::PlotError::NoData(_) => CliError::usage(e),
        _ => CliError::runtime(e),
    }
}

fn report(
    summary: &Summary,
    dir: &Path,
    written: &[&str],
    notes: &[String],
    seconds: f64,
) -> String {
    let mut s = String::new();
    let sizes: Vec<String> = summary
        .components
        .sizes
        .iter()
        .map(|c| format!("{} x {}", HumanCount(c.count), HumanCount(c.size)))
        .collect();
    let _ = writeln!(
        s,
        "board        {} ({} rows x {} columns), goal {}",
        summary.board, summary.rows, summary.cols, summary.goal
    );
    let metric = summary.metric();
    let _ = writeln!(
        s,
        "metric       {} ({}: {})",
        metric.long_name(),
        metric.name(),
        match metric {
            Metric::Stm => "one tile slides one cell per move",
            Metric::Mtm => "1 to k tiles of the blank's row or column slide per move",
        }
    );
    let _ = writeln!(s, "boards       {}", HumanCount(summary.boards));
    let _ = writeln!(s, "edges        {}", HumanCount(summary.edges));
    let how = if summary.components.found_by == "theorem" {
        "; the goal's by BFS, the other its image under swapping two tiles (parity theorem)"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "components   {} (sizes: {}{how})",
        HumanCount(summary.components.count),
        sizes.join(", ")
    );
    if summary.is_partial() {
        let _ = writeln!(
            s,
            "searched     depths 0..{} (--max-depth): partial, {} boards found within {} moves",
            summary.max_depth,
            HumanCount(summary.counted()),
            summary.max_depth
        );
        let listed = summary.hardest.boards.len() as u64;
        let _ = writeln!(
            s,
            "last layer   {} board(s) at depth {}; {} in hardest.txt",
            HumanCount(summary.hardest.count),
            summary.hardest.depth,
            if listed < summary.hardest.count {
                format!("{} of them", HumanCount(listed))
            } else {
                "all of them".to_string()
            }
        );
    } else {
        let _ = writeln!(
            s,
            "reachable    {} from the goal",
            HumanCount(summary.counted())
        );
        if summary.from_standard_goal() {
            let _ = writeln!(
                s,
                "max depth    {} moves (God's number for {})",
                summary.max_depth, summary.board
            );
        } else {
            let _ = writeln!(
                s,
                "max depth    farthest boards from this goal: {} moves",
                summary.max_depth
            );
        }
        if let (Some(mean), Some(median)) = (summary.mean_depth, summary.median_depth) {
            let _ = writeln!(s, "mean depth   {mean:.2} moves (median {median})");
        }
        let _ = writeln!(
            s,
            "hardest      {} board(s) at depth {}",
            HumanCount(summary.hardest.count),
            summary.hardest.depth
        );
    }
    for b in summary.hardest.boards.iter().take(8) {
        let _ = writeln!(s);
        for row in &b.grid {
            let _ = writeln!(s, "    {row}");
        }
    }
    if summary.hardest.boards.len() > 8 {
        let _ = writeln!(
            s,
            "\n    ... {} more in hardest.txt",
            summary.hardest.boards.len() - 8
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "wrote        {}/{{{}}}",
        super::shown(dir),
        written.join(", ")
    );
    for note in notes {
        let _ = writeln!(s, "note         {note}");
    }
    let _ = writeln!(s, "time         {seconds:.2} s");
    s
}

/// The results folder `dir`, or with `metric` its sibling of that metric when `dir` holds
/// the other one (`3x3` and `3x3-mtm`), with its summary.
fn results_in(dir: &Path, metric: Option<Metric>) -> Result<(PathBuf, Summary), CliError> {
    // A summary file names its folder.
    let dir = match dir.file_name() {
        Some(name) if name == "summary.json" && !dir.is_dir() => match dir.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        },
        _ => dir,
    };
    let read = |d: &Path| Summary::read(&d.join("summary.json")).map_err(CliError::usage);
    let summary = read(dir)?;
    let Some(wanted) = metric.filter(|&m| m != summary.metric()) else {
        return Ok((dir.to_path_buf(), summary));
    };
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let sibling = name.map(|n| match wanted {
        Metric::Mtm => format!("{n}-mtm"),
        Metric::Stm => n.strip_suffix("-mtm").unwrap_or(&n).to_string(),
    });
    let sibling = sibling.map(|n| dir.with_file_name(n));
    match sibling.as_deref().map(|s| (s, read(s))) {
        Some((s, Ok(other))) if other.metric() == wanted => Ok((s.to_path_buf(), other)),
        _ => Err(CliError::usage(format!(
            "{} holds {} metric results, not {}; run `npuzzle analyze ... --metric {}` first",
            super::shown(dir),
            summary.metric().long_name(),
            wanted.long_name(),
            wanted.name()
        ))),
    }
}

/// Checks that `file`, given to `flag`, names a chart npuzzle can write (a `.png` or a `.svg`,
/// [`plot::ChartFormat`]): a usage error otherwise, saying what it must be (and, for a folder,
/// that FILE may be missing).
fn chart_file(flag: &str, file: &Path) -> Result<(), CliError> {
    if plot::ChartFormat::of(file).is_some() && !file.is_dir() {
        return Ok(());
    }
    let hint = if file.is_dir() {
        format!(" ({} is a folder: was FILE forgotten?)", super::shown(file))
    } else {
        String::new()
    };
    Err(CliError::usage(format!(
        "{flag} {}: the chart's file must be a .png or .svg file{hint}",
        super::shown(file)
    )))
}

/// Runs `npuzzle plot`: redraws charts from saved `summary.json` files.
pub fn plot(args: PlotArgs) -> Result<(), CliError> {
    if let Some(file) = &args.compare {
        chart_file("--compare", file)?;
    }
    if let Some(file) = &args.output {
        chart_file("--output", file)?;
        if args.dirs.len() > 1 {
            return Err(CliError::usage(
                "--output draws one folder's chart: give one DIR, or --compare FILE for one \
                 chart of several",
            ));
        }
    }
    let mut dirs = Vec::new();
    let mut summaries = Vec::new();
    for dir in &args.dirs {
        let (dir, summary) = results_in(dir, args.metric.map(Metric::from))?;
        dirs.push(dir);
        summaries.push(summary);
    }
    match &args.compare {
        Some(file) => {
            let names: Vec<String> = summaries.iter().map(chart_name).collect();
            let series: Vec<plot::DepthSeries> = summaries
                .iter()
                .zip(&names)
                .map(|(s, name)| plot::DepthSeries {
                    board: name,
                    counts: &s.depth_counts,
                    goal: other_goal(s),
                    partial: s.is_partial(),
                })
                .collect();
            let scale = args
                .scale
                .scale(series.iter().map(|s| (s.counts, s.partial)));
            plot::write_depth_comparison(&series, scale, file).map_err(plot_failure)?;
            println!("wrote {}", super::shown(file));
        }
        None => {
            for (dir, summary) in dirs.iter().zip(&summaries) {
                let file = args
                    .output
                    .clone()
                    .unwrap_or_else(|| dir.join("depth_histogram.png"));
                let scale = args
                    .scale
                    .scale([(&summary.depth_counts[..], summary.is_partial())]);
                draw(&file, summary, scale)?;
                println!("wrote {}", super::shown(&file));
            }
        }
    }
    Ok(())
}
