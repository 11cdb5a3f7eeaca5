//! `npuzzle analyze`, step by step: its flags checked into a [`RunSpec`], the search run, its
//! files written and the report printed. The steps are functions of this file; the files
//! themselves are in `outputs`, the report in `report`, the distributed engine's flags in
//! `cluster`, and the depth chart with `npuzzle plot` in `chart`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use indicatif::{DecimalBytes, HumanCount};
use npuzzle::analysis::{self, Options};
use npuzzle::bfs::cluster::{Cluster, ClusterError};
use npuzzle::export::{self, BoardFormat, Provenance, Summary};
use npuzzle::{Board, Shape};

use super::board::BoardArgs;
use super::progress::Bars;
use super::{CliError, MetricArg};
use npuzzle::metric::Metric;

mod chart;
mod cluster;
mod outputs;
mod projection;
mod report;

pub use chart::{PlotArgs, plot};

use chart::ScaleArgs;
use cluster::ClusterArgs;
use npuzzle::results::Format;
use outputs::{Export, format_of, row_bytes, set_aside_earlier, write_outputs};
use report::{report, run_notes};

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
    /// With --max-depth: keep the layers on disk in DIR (streamed; memory then holds the
    /// segments' maps, the incoming lists and buffers) rather than in memory. With --checkpoint,
    /// the layers are kept in the checkpoint folder instead.
    #[arg(long, value_name = "DIR", requires = "max_depth")]
    scratch: Option<PathBuf>,
    /// With --max-depth: the memory the search may use, e.g. `12G` (decimal units; `GiB`
    /// for binary ones) [default: the memory available now]. A budget too small for the
    /// segments' maps is refused; a search whose next layer would not fit stops
    /// before it, keeping the depths it finished ("complete": false).
    #[arg(long, value_name = "BYTES", requires = "max_depth", value_parser = parse_bytes)]
    memory: Option<u64>,
    /// No longer an option (issue 74): the frontier search builds each layer in segment maps,
    /// with no runs to merge. Refused with a pointer, not ignored.
    #[arg(long, value_name = "N", hide = true, value_parser = gone_fan_in)]
    fan_in: Option<usize>,
    /// No longer an option (issue 74): the frontier search expands a layer segment by
    /// segment, not in chunks. Refused with a pointer, not ignored.
    #[arg(long, value_name = "N", hide = true, value_parser = gone_chunk)]
    chunk: Option<usize>,
    /// With --max-depth: print what the search would cost, projected from the board's
    /// published layer sizes and the per-board rates the project measured
    /// (output/bench/plan/): wall time, peak disk and memory per machine, and the bytes each
    /// machine sends, on --processes machines (or 1, 4, 8 and 16) of --workers cores [default:
    /// this machine's] with --memory each, and exit without searching.
    #[arg(long, requires = "max_depth")]
    plan: bool,
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

/// Parses `--memory`: a size with decimal (`12G`, `500MB`) or binary (`12GiB`) units.
fn parse_bytes(value: &str) -> Result<u64, String> {
    parse_size::parse_size(value).map_err(|e| format!("{e} (a size such as 12G or 500MB)"))
}

/// `--fan-in`, refused: the runs it merged are gone (issue 74).
fn gone_fan_in(_: &str) -> Result<usize, String> {
    Err(
        "--fan-in no longer applies: the frontier search builds each layer in segment maps, \
         with no runs to merge (issue 74; see CHANGELOG.md)"
            .into(),
    )
}

/// `--chunk`, refused: the search no longer expands a layer in chunks (issue 74).
fn gone_chunk(_: &str) -> Result<usize, String> {
    Err(
        "--chunk no longer applies: the frontier search expands each layer segment by \
         segment, its memory set by the segments' maps (issue 74; see CHANGELOG.md)"
            .into(),
    )
}

/// Runs `npuzzle analyze`: the flags checked against the shape and the memory, the search,
/// the files written, the files of an earlier run set aside, and the report.
pub fn run(args: AnalyzeArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let shape = args.board.shape()?;
    let goal = goal_of(&args, shape)?;
    if args.plan {
        return projection::print(&args, shape, &goal);
    }
    if args.all_pairs {
        return all_pairs(&args, shape, started);
    }
    let plan = plan(&args, shape)?;
    if let Some(depth) = args.max_depth {
        // Refused before any folder is made (and before any connection) when the disk cannot
        // hold the widest layer (this process's share of it, across processes).
        let processes = plan.cluster.as_ref().map_or(1, |c| c.processes);
        analysis::check_limited_disk(&goal, plan.metric, depth, &storage(&args), processes)
            .map_err(CliError::limited)?;
    }
    make_scratch(&args)?;
    let dir = results_dir(&args, &goal, &plan);
    let writes = plan.cluster.as_ref().is_none_or(|c| c.process == 0);
    if writes {
        export::prepare_dir(&dir).map_err(CliError::runtime)?;
    }
    // Every process of a frontier search across processes shows its own progress.
    let bars = Bars::new(!args.quiet && (writes || args.max_depth.is_some()));
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
struct RunSpec {
    shape: Shape,
    metric: Metric,
    /// `--edges`, or `None` for no edge list.
    edges: Option<Format>,
    /// `--nodes`, or `None` for no per-board table.
    nodes: Option<Format>,
    /// Whether table.npt is made from the BFS's marks ([`analysis::table_from_marks`]).
    from_marks: bool,
    options: Options,
    cluster: Option<Cluster>,
}

/// Checks the flags against `shape`, each other and the memory, before any work: a usage
/// error says what cannot be done.
fn plan(args: &AnalyzeArgs, shape: Shape) -> Result<RunSpec, CliError> {
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
    // With --max-depth, --processes runs the frontier search across processes.
    let cluster = cluster_of(args)?;
    if cluster.is_none() && args.max_depth.is_none() {
        analysis::plan(shape, options, analysis::available_memory()).map_err(CliError::usage)?;
    }
    if let Some(c) = cluster.as_ref().filter(|_| args.max_depth.is_none()) {
        analysis::check_cluster(shape, options, c).map_err(CliError::usage)?;
    }
    if args.max_depth.is_some() {
        analysis::plan_limited(shape).map_err(CliError::usage)?;
        // The memory budget holds the maps, the buffers and, across processes, the others'
        // messages: refused before any folder or connection.
        let processes = cluster.as_ref().map_or(1, |c| c.processes);
        analysis::check_limited_memory(shape, metric, storage(args).memory, processes)
            .map_err(CliError::usage)?;
    }
    Ok(RunSpec {
        shape,
        metric,
        edges,
        nodes,
        from_marks,
        options,
        cluster,
    })
}

/// The cluster of a distributed run, when its flags ask for one, with the flags that change
/// what the run searches or writes and that the engine's fingerprint does not name
/// ([`Cluster::request`]): every process must be given the same, or every process refuses.
/// Each process's own places, budgets and waits (`--output`, `--scratch`, `--memory`,
/// `--chunk`, `--process`, `--hostfile`, `--connect-timeout`, `--stall-timeout`, `--bind`,
/// `--quiet`) are not among them; the board, the goal, the metric, `--max-depth`,
/// `--fan-in`, `--table`, `--search-components`, `--processes`, `--workers` (of the
/// whole-space engine), `--checkpoint`, `--checkpoint-every` and `--resume` are the
/// engine's own fields.
fn cluster_of(args: &AnalyzeArgs) -> Result<Option<Cluster>, CliError> {
    let shown = |e: Option<Export>| match e {
        Some(e) => format!("{e:?}").to_lowercase(),
        None => "the default".into(),
    };
    let request = vec![
        (
            "--all-pairs".to_string(),
            if args.all_pairs { "yes" } else { "no" }.to_string(),
        ),
        ("--edges".to_string(), shown(args.edges)),
        ("--nodes".to_string(), shown(args.nodes)),
        (
            "the chart's scale".to_string(),
            args.scale
                .asked()
                .map_or("auto".into(), |s| format!("{s:?}").to_lowercase()),
        ),
    ];
    Ok(args
        .cluster
        .cluster(args.max_depth.is_some())?
        .map(|c| Cluster { request, ..c }))
}

/// `--edges` and `--nodes` checked: how each is written, or `None` for no file.
fn exports(args: &AnalyzeArgs, shape: Shape) -> Result<(Option<Format>, Option<Format>), CliError> {
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

/// Makes the `--scratch` folder of a depth-limited search and the `--checkpoint` folder: before
/// the output folder, so that one that cannot be made (or written in) leaves no empty output
/// folder behind.
fn make_scratch(args: &AnalyzeArgs) -> Result<(), CliError> {
    if args.max_depth.is_some()
        && let Some(scratch) = &args.scratch
    {
        super::make_folder("--scratch", scratch)?;
    }
    if let Some(checkpoint) = &args.cluster.checkpoint {
        super::make_folder("--checkpoint", checkpoint)?;
    }
    Ok(())
}

/// The results folder: `OUTPUT/<R>x<C>`, with `-goal-<label>` for another goal than the
/// standard one and `-mtm` in the multi-tile metric ([`npuzzle::results::folder_name`]).
fn results_dir(args: &AnalyzeArgs, goal: &Board, plan: &RunSpec) -> PathBuf {
    args.output
        .join(npuzzle::results::folder_name(plan.shape, goal, plan.metric))
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
    plan: &RunSpec,
    goal: &Board,
    dir: &Path,
    bars: &Bars,
) -> Result<Option<Found>, CliError> {
    let metric = plan.metric;
    let mut limited = None;
    let result = match &plan.cluster {
        None if args.max_depth.is_some() => {
            let depth = args.max_depth.unwrap_or_default();
            let (result, l) = analysis::analyze_limited(goal, metric, depth, &storage(args), bars)
                .map_err(CliError::limited)?;
            limited = Some(l);
            result
        }
        None => analysis::analyze_unchecked(goal, plan.options, bars).map_err(CliError::runtime)?,
        Some(c) if args.max_depth.is_some() => {
            let depth = args.max_depth.unwrap_or_default();
            match analysis::analyze_limited_cluster(goal, metric, depth, &storage(args), c, bars)
                .map_err(CliError::limited)?
            {
                Some((result, l)) => {
                    limited = Some(l);
                    result
                }
                None => {
                    if !args.quiet {
                        println!(
                            "process {} of {}: done (process 0 writes the results)",
                            c.process, c.processes
                        );
                    }
                    return Ok(None);
                }
            }
        }
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

/// Where a depth-limited search keeps its layers and its memory budget, from the flags.
fn storage(args: &AnalyzeArgs) -> npuzzle::bfs::frontier::Storage {
    npuzzle::bfs::frontier::Storage {
        scratch: args.scratch.clone(),
        checkpoint: args.cluster.frontier_checkpoint(),
        memory: Some(args.memory.unwrap_or_else(analysis::available_memory)),
    }
}

/// The run's summary.json: the analysis's counts, this build and command, and how far a
/// depth-limited search went.
fn summary_of(found: &Found) -> Summary {
    let mut summary = Summary::of(&found.result);
    summary.npuzzle = Some(Provenance::of_this_build(super::arguments()));
    if let Some(l) = &found.limited {
        summary.limit(l.complete, l.max_depth_searched);
        let v = &l.verification;
        summary.verification = Some(npuzzle::export::VerificationSummary {
            verified: v.holds(l.complete),
            boards_found: v.boards_found,
            component: v.component,
            published_depths: v.published_depths,
            differs_at: v.differs.map(|d| d.0),
            published_source: v.published_source.map(String::from),
        });
        if l.processes > 1 {
            summary.traffic = Some(npuzzle::export::TrafficSummary {
                processes: l.processes,
                boards_expanded: l.expanded,
                bytes_sent: l.sent_bytes,
                bytes_per_board: l.sent_bytes as f64 / l.expanded.max(1) as f64,
                by_depth: l
                    .traffic_by_depth
                    .iter()
                    .map(|&(depth, expanded, sent)| npuzzle::export::LayerTraffic {
                        depth,
                        boards_expanded: expanded,
                        bytes_sent: sent,
                        bytes_per_board: sent as f64 / expanded.max(1) as f64,
                    })
                    .collect(),
            });
        }
    }
    summary
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
    let cluster = cluster_of(args)?;
    if let Some(scratch) = args.scratch.as_ref().filter(|_| args.max_depth.is_some()) {
        super::make_folder("--scratch", scratch)?;
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
        .join(format!("{shape}{}", metric.folder_suffix()));
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
