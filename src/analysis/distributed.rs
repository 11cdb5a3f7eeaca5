//! The whole-space analysis across processes: each process's share of the marks, the check
//! that it fits, and the run ([`bfs::cluster`]).

use indicatif::DecimalBytes;

use crate::bfs::cluster::{self, Cluster, ClusterError, Job};
use crate::bfs::{self, LexSpace, Parity, ParitySpace, StateSpace};
use crate::board::Board;
use crate::components::{Components, Method};
use crate::distances::{DepthArray, Distances};
use crate::progress::Progress;
use crate::shape::Shape;

use super::{
    Analysis, Engine, Lookup, Options, PerBoard, SEARCH_CELLS, available_memory, rare_limit,
    table_from_marks,
};

/// Bytes one process of `cluster` needs to analyze `shape` with `options` (its share of the
/// marks, the exchange buffers, the other processes' lists received and not yet claimed
/// ([`cluster::received_bound`]), and on process 0 the gathered per-board depths), or `None`
/// when the distributed engine does not run the shape (per-board results of a one-row board
/// need component ids, which only the one-machine engine records).
pub fn cluster_bytes(shape: Shape, options: Options, cluster: &Cluster) -> Option<u64> {
    let engine = Engine::for_shape(shape)?;
    if options.per_board && (shape.cells() > SEARCH_CELLS || engine == Engine::Lex) {
        return None;
    }
    let size = engine.index_size(shape.cells())?;
    let share = size.div_ceil(cluster.processes.max(1) as u64);
    let marks = share.div_ceil(4);
    let buffers = (cluster.workers as u64) * (cluster.tuning.send_budget as u64) * 2;
    // The other processes' lists received and not yet claimed (their credit).
    let received = cluster::received_bound(cluster, options.metric.degree(shape));
    let per_board = match (options.per_board, cluster.process) {
        (false, _) => 0,
        (true, 0) => share + 2 * size,
        (true, _) => share,
    };
    // Process 0 gathers a window of the table and its messages.
    let table = match (options.table, cluster.process) {
        (true, 0) => 2 * cluster.tuning.table_window,
        _ => 0,
    };
    marks
        .checked_add(buffers)?
        .checked_add(received)?
        .checked_add(per_board)?
        .checked_add(table)
}

/// Whether this process of `cluster` can analyze `shape` with `options`: the shape is one
/// the distributed engine runs with those options, and its share fits in the memory
/// available ([`cluster_bytes`]). Called by [`analyze_cluster`], and by the command line
/// before it makes any folder.
///
/// # Errors
/// [`ClusterError::Config`] saying why not.
pub fn check_cluster(
    shape: Shape,
    options: Options,
    cluster: &Cluster,
) -> Result<(), ClusterError> {
    if options.search_components && Engine::for_shape(shape) == Some(Engine::Lex) {
        return Err(ClusterError::Config(format!(
            "the components of one-row boards are searched on one machine; run {shape} \
             without --search-components, or without --processes and --workers"
        )));
    }
    let Some(bytes) = cluster_bytes(shape, options, cluster) else {
        return Err(ClusterError::Config(match Engine::for_shape(shape) {
            Some(Engine::Lex) if options.table => format!(
                "the distance tables of one-row boards are made on one machine; run {shape} \
                 without --processes and --workers"
            ),
            Some(Engine::Lex) => format!(
                "per-board results (nodes.csv) of one-row boards are computed on one machine \
                 only; run {shape} with --nodes none, or without --processes and --workers"
            ),
            Some(Engine::Parity) if options.per_board => format!(
                "per-board results (nodes.csv) are kept up to {SEARCH_CELLS} cells; run {shape} \
                 with --nodes none"
            ),
            _ => format!(
                "the distributed engine runs boards up to {} cells ({} in one row); {shape} \
                 is not one",
                ParitySpace::MAX_CELLS,
                LexSpace::MAX_CELLS
            ),
        }));
    };
    let available = available_memory();
    if bytes > available {
        return Err(ClusterError::Config(format!(
            "process {} of {} needs {} of memory for its share of {shape}, {} available; \
             use more processes",
            cluster.process,
            cluster.processes,
            DecimalBytes(bytes),
            DecimalBytes(available)
        )));
    }
    Ok(())
}

/// [`analyze_unchecked`](super::analyze_unchecked) spread over the processes and workers of `cluster` (the distributed
/// driver, [`bfs::cluster`]): the same figures. Returns the analysis on process 0 and `None`
/// on the others, once every process is done. One-row boards: their components are counted
/// by the theorem ((n-1)! paths of n boards), not searched one by one over the network.
///
/// With [`Options::table`] where [`table_from_marks`], the goal's BFS keeps each board's depth
/// in the marks ([`bfs::Marking::Depths`]) and process 0 streams the finished marks, gathered
/// from every process in index order, to `table` (from [`crate::table::Spool`]: one
/// `table.npt`, the same bytes as the one-machine run's); [`Analysis::table_written`] says
/// it did. (Other tables are made from the gathered per-board depths, as on one machine.)
///
/// # Errors
/// [`ClusterError::Config`] when this process's share does not fit in the memory available or
/// the shape is not one the distributed engine runs; the other [`ClusterError`]s of
/// [`cluster::run`].
pub fn analyze_cluster(
    goal: &Board,
    options: Options,
    cluster: &Cluster,
    progress: &dyn Progress,
    table: Option<Box<dyn cluster::MarksSink>>,
) -> Result<Option<Analysis>, ClusterError> {
    let shape = goal.shape();
    check_cluster(shape, options, cluster)?;
    let search_rest = options.search_components && shape.cells() <= SEARCH_CELLS;
    let marks_table = options.table && table_from_marks(shape, options.metric);
    let outcome = match Engine::for_shape(shape) {
        Some(Engine::Parity) => {
            let class = Parity::of(goal);
            let spaces = [class, class.flipped()]
                .into_iter()
                .filter_map(|c| ParitySpace::with_metric(shape, c, options.metric))
                .collect::<Vec<_>>();
            let size = spaces.first().map_or(0, ParitySpace::size);
            let job = Job {
                spaces,
                goal: goal.clone(),
                metric: options.metric,
                per_board: options.per_board,
                search_rest,
                marking: match marks_table {
                    true => bfs::Marking::Depths,
                    false => bfs::Marking::Frontier,
                },
                listed: rare_limit(size),
            };
            cluster::run(cluster, job, progress, table.filter(|_| marks_table))?
        }
        _ => {
            let space =
                LexSpace::with_metric(shape, options.metric).expect("checked by cluster_bytes");
            let job = Job {
                spaces: vec![space],
                goal: goal.clone(),
                metric: options.metric,
                per_board: false,
                search_rest: false,
                marking: bfs::Marking::Frontier,
                listed: 0,
            };
            cluster::run(cluster, job, progress, None)?
        }
    };
    let Some(outcome) = outcome else {
        return Ok(None);
    };
    let distances = Distances {
        layer_sizes: outcome.layer_sizes,
        antipodes: outcome.antipodes,
    };
    let mut components = Components::default();
    match Engine::for_shape(shape) {
        Some(Engine::Parity) if search_rest => {
            for &size in &outcome.components {
                components.add(size);
            }
        }
        Some(Engine::Parity) => {
            components.method = Method::Theorem;
            components.add(distances.reachable());
            components.add(distances.reachable());
        }
        _ => components = Components::of_line(shape),
    }
    let per_board = outcome.depths.map(|raw| PerBoard {
        lookup: Lookup::Parity {
            space: ParitySpace::with_metric(shape, Parity::of(goal), options.metric)
                .expect("a grid"),
            depths: DepthArray::from_raw_bytes(raw),
        },
    });
    let mut analysis = Analysis::new(
        goal,
        options.metric,
        distances,
        components,
        per_board,
        Some(outcome.traffic),
    );
    analysis.table_written = outcome.table_written;
    Ok(Some(analysis))
}
