//! The depth-limited analysis: a frontier search ([`bfs::frontier`]) from the goal to a depth,
//! on one machine or across processes, its progress line, and the check of its disk.

use indicatif::{DecimalBytes, HumanCount};

use crate::bfs::cluster::{self, Cluster, ClusterError};
use crate::bfs::{self, LexSpace, Parity, ParitySpace, StateSpace};
use crate::board::Board;
use crate::components::{Components, Method};
use crate::distances::Distances;
use crate::metric::Metric;
use crate::progress::Progress;
use crate::shape::Shape;

use super::{Analysis, AnalyzeError, Engine, available_memory};

/// What a depth-limited analysis ([`analyze_limited`]) adds to an [`Analysis`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    /// The depth limit asked for.
    pub max_depth_searched: u32,
    /// True when the search ran out of boards before the limit (the radius is below it): the
    /// distances are then those of the whole component, as [`analyze`](super::analyze) would give them. A
    /// search that stops exactly at the radius cannot know it and says false.
    pub complete: bool,
    /// Largest number of bytes of layers held in memory at once.
    pub peak_bytes: u64,
    /// The depth of the checkpoint the search resumed from, if it did.
    pub resumed_from: Option<u32>,
    /// Why the search stopped before the limit (memory budget, disk), if it did; the depth
    /// searched is then the last layer it finished.
    pub stopped: Option<String>,
    /// Segments per layer ([`bfs::frontier::segments_for`]).
    pub segments: usize,
    /// Segments built in a map and by a sort, all layers (and processes) together.
    pub maps: u64,
    /// See [`LimitedAnalysis::maps`].
    pub sorted: u64,
    /// With `--checkpoint`: bytes of checkpoint this run wrote (the layer files and the
    /// search's state), and the time spent writing them, checksums and syncs included.
    pub saved_bytes: u64,
    /// See [`Limited::saved_bytes`].
    pub save_time: std::time::Duration,
    /// Processes the search ran on ([`analyze_limited_cluster`]; 1 on one machine).
    pub processes: usize,
    /// Boards expanded, by every process together, over every run of the search (across
    /// resumes).
    pub expanded: u64,
    /// Bytes of messages sent between processes, by every process together, over every run
    /// (0 on one machine).
    pub sent_bytes: u64,
    /// Per layer built, by this run or the runs it resumed: its depth, the boards expanded
    /// to build it and the bytes sent meanwhile, by every process together
    /// ([`bfs::frontier::Frontier::traffic_by_depth`]).
    pub traffic_by_depth: Vec<(u32, u64, u64)>,
    /// The time the runs before a resume spent building the layers it resumed from
    /// ([`bfs::frontier::Frontier::seconds_before`]).
    pub seconds_before: std::time::Duration,
    /// The layers checked against what is known of them.
    pub verification: Verification,
}

/// A depth-limited search's layers checked against what is known of them: their sum against
/// the component's size (equal when the search is complete, below it otherwise), and against
/// what is published of the distribution from the goal's blank cell ([`published_from`]: the
/// complete one of a grid up to 16 cells from a corner, OEIS A089473, A089484, A346737,
/// A355560 and the multi-tile ones from lightln2/SlidingTilesSolver's results; 4x4's first
/// layers from a central cell and an edge cell, OEIS A090164 and A090165).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Verification {
    /// Boards found, all depths together.
    pub boards_found: u64,
    /// Boards of the goal's component.
    pub component: u64,
    /// Depths compared with the published distribution (0 when none is published for this
    /// board and goal).
    pub published_depths: u32,
    /// The first depth whose count differs from the published one (and the counts: found,
    /// published), if any; a complete search whose radius differs from a complete published
    /// distribution's counts as differing at the shorter radius plus one.
    pub differs: Option<(u32, u64, u64)>,
    /// Where the published distribution compared with comes from ([`Published::source`]),
    /// when one is.
    pub published_source: Option<&'static str>,
}

/// What is published of the depth distribution from a board: `sizes[d]` boards at depth `d`,
/// every depth to the radius or its first layers only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// Boards at each depth from 0.
    pub sizes: Vec<u64>,
    /// Whether `sizes` runs to the radius (else it is the first layers, as far as published).
    pub complete: bool,
    /// Where it comes from, for a report line: e.g. `OEIS A090164`.
    pub source: &'static str,
}

/// What is published of the depth distribution from `goal` in `metric`, found by the orbit of
/// its blank's cell: relabelling the tiles and the rectangle's symmetries
/// ([`Metric::symmetries`]) map the game graph onto itself, so the distribution from any board
/// is that from the board with the blank on any cell of that orbit. A blank on a corner: the
/// standard goal's complete distribution ([`bfs::frontier::plan::published`], every grid up
/// to 16 cells, both metrics); 4x4 in the single-tile metric with the blank on a central cell:
/// OEIS A090164 (depths 0..26); on an edge cell that is not a corner: OEIS A090165 (0..27).
/// `None` for any other board.
pub fn published_from(goal: &Board, metric: Metric) -> Option<Published> {
    let shape = goal.shape();
    let orbit: Vec<usize> = metric
        .symmetries(shape)
        .iter()
        .map(|map| map[goal.blank()])
        .collect();
    if orbit.contains(&(shape.cells() - 1)) {
        return bfs::frontier::plan::published(shape, metric).map(|sizes| Published {
            sizes,
            complete: true,
            source: "complete, from a corner",
        });
    }
    if (shape.rows(), shape.cols(), metric) != (4, 4, Metric::Stm) {
        return None;
    }
    // Cell 5 is central (row 1, column 1); cell 1 is on the top edge, not a corner.
    let (sizes, source): (&[u64], _) = match () {
        _ if orbit.contains(&5) => (
            &crate::published::A090164_TO_26,
            "OEIS A090164: from a central cell, to depth 26",
        ),
        _ if orbit.contains(&1) => (
            &crate::published::A090165_TO_27,
            "OEIS A090165: from an edge cell, to depth 27",
        ),
        _ => return None,
    };
    Some(Published {
        sizes: sizes.to_vec(),
        complete: false,
        source,
    })
}

impl Verification {
    /// `layers` (from `goal`, complete or not) checked.
    pub fn of(
        metric: Metric,
        goal: &Board,
        layers: &[u64],
        component: u64,
        complete: bool,
    ) -> Verification {
        let boards_found = layers.iter().sum();
        let from = published_from(goal, metric);
        let published = from.as_ref().map_or(&[][..], |p| &p.sizes[..]);
        let compared = layers.len().min(published.len());
        let mut differs = (0..compared)
            .find(|&d| layers[d] != published[d])
            .map(|d| (d as u32, layers[d], published[d]));
        if differs.is_none() && from.as_ref().is_some_and(|p| p.complete) {
            // A complete search's radius is the published one; a partial one is not past it.
            let (found, known) = (layers.len(), published.len());
            if (complete && found != known) || found > known {
                let d = found.min(known);
                differs = Some((
                    d as u32,
                    layers.get(d).copied().unwrap_or(0),
                    published.get(d).copied().unwrap_or(0),
                ));
            }
        }
        Verification {
            boards_found,
            component,
            published_depths: compared as u32,
            differs,
            published_source: from.map(|p| p.source),
        }
    }

    /// Whether nothing disagrees: the sum equals the component's size when complete (is at
    /// most it otherwise), and no depth differs from the published distribution.
    pub fn holds(&self, complete: bool) -> bool {
        let sum = match complete {
            true => self.boards_found == self.component,
            false => self.boards_found <= self.component,
        };
        sum && self.differs.is_none()
    }

    /// One line for the report, e.g. `verified: complete, all 181,440 boards of the
    /// component found; depths 0..31 equal the published distribution`.
    pub fn line(&self, complete: bool) -> String {
        let sum = match complete {
            true if self.boards_found == self.component => format!(
                "complete, all {} boards of the component found",
                HumanCount(self.component)
            ),
            true => format!(
                "complete, but {} boards found where the component holds {}",
                HumanCount(self.boards_found),
                HumanCount(self.component)
            ),
            false => format!(
                "not complete: {} of the component's {} boards found",
                HumanCount(self.boards_found),
                HumanCount(self.component)
            ),
        };
        let published = match (self.published_depths, self.differs) {
            (_, Some((d, found, known))) => format!(
                "depth {d} differs from the published distribution: {} found, {} published",
                HumanCount(found),
                HumanCount(known)
            ),
            (0, None) => "no published distribution to compare with".into(),
            (n, None) => {
                let from = match self.published_source {
                    Some(source) => format!(" ({source})"),
                    None => String::new(),
                };
                format!("depths 0..{} equal the published distribution{from}", n - 1)
            }
        };
        let verdict = if self.holds(complete) {
            "verified"
        } else {
            "NOT VERIFIED"
        };
        format!("{verdict}: {sum}; {published}")
    }
}

/// The depth distribution from `goal` in `metric` up to depth `max_depth`, by frontier search
/// ([`bfs::frontier`]): no whole-space marks, three layers live, so any board of up to 20
/// cells (the index's limit) can be searched as deep as memory and time allow. `storage`:
/// where the layers and the incoming lists of the layer being built go (memory, a scratch folder), and
/// the checkpoint folder to save the search to after each layer or resume it from (its
/// [`bfs::frontier::CheckpointAt::run`] is filled in from `goal`), and the memory budget. The
/// plan (memory, segments, maps, where the layers go) is told to `progress` first
/// ([`Progress::note`]). The components are stated (parity theorem for grids; `(n-1)!` components of `n` boards for a line); the antipodes are the boards of
/// the last layer reached, all of them when at most 1,000 (by lexicographic rank), else the
/// first 1,000 in index order.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] when no engine indexes the shape; [`AnalyzeError::Storage`]
/// when a folder fails or holds another search's checkpoint;
/// [`AnalyzeError::Refused`].
pub fn analyze_limited(
    goal: &Board,
    metric: Metric,
    max_depth: u32,
    storage: &bfs::frontier::Storage,
    progress: &dyn Progress,
) -> Result<(Analysis, Limited), AnalyzeError> {
    limited(goal, metric, max_depth, storage, progress, None)
        .map(|found| found.expect("one machine gives its result"))
}

/// [`analyze_limited`] across the processes of `cluster` (the frontier search across
/// processes, [`cluster::frontier`]): each process keeps its share of the layers in its own
/// `storage` (its checkpoint labelled with its process and the number of processes), and
/// uses a rayon pool of `cluster.workers` threads. The same analysis as one machine's on
/// process 0 (its [`Limited`] with the traffic of every process), `None` on the others.
///
/// # Errors
/// As [`analyze_limited`]; a peer's failure or refusal is [`AnalyzeError::Storage`] (or
/// [`AnalyzeError::Refused`] for flags that cannot work).
pub fn analyze_limited_cluster(
    goal: &Board,
    metric: Metric,
    max_depth: u32,
    storage: &bfs::frontier::Storage,
    cluster: &Cluster,
    progress: &dyn Progress,
) -> Result<Option<(Analysis, Limited)>, AnalyzeError> {
    limited(goal, metric, max_depth, storage, progress, Some(cluster))
}

/// [`analyze_limited`] on one machine (`cluster` `None`) or across processes.
fn limited(
    goal: &Board,
    metric: Metric,
    max_depth: u32,
    storage: &bfs::frontier::Storage,
    progress: &dyn Progress,
    cluster: Option<&Cluster>,
) -> Result<Option<(Analysis, Limited)>, AnalyzeError> {
    let shape = goal.shape();
    let mut storage = storage.clone();
    if let Some(c) = &mut storage.checkpoint {
        c.run = bfs::frontier::RunLabel {
            board: shape.to_string(),
            goal: goal.label(),
            metric: metric.name().into(),
            process: cluster.map_or(0, |c| c.process),
            processes: cluster.map_or(1, |c| c.processes),
        };
    }
    let too_large = || beyond_the_index(shape);
    plan_limited(shape)?;
    check_limited_disk(
        goal,
        metric,
        max_depth,
        &storage,
        cluster.map_or(1, |c| c.processes),
    )?;
    // (when the last layer was built, the sizes of the last two layers)
    let mut last_layer = (std::time::Instant::now(), 0u64, 0u64);
    // The complete distribution, when published from this goal's blank cell: the time left
    // is then the boards left to expand at the last layer's rate.
    let published = published_from(goal, metric)
        .filter(|p| p.complete)
        .map(|p| p.sizes);
    progress.begin("layers", u64::from(max_depth), "layers");
    let mut report = |r: bfs::frontier::LayerReport| {
        let now = std::time::Instant::now();
        let seconds = now.duration_since(last_layer.0).as_secs_f64().max(1e-9);
        let rate = r.size as f64 / seconds;
        // Layers grow about geometrically: extrapolate the remaining time with the growth
        // factor over the last two layers (some boards alternate between two factors).
        let growth = if last_layer.2 > 0 {
            (r.size as f64 / last_layer.2 as f64).sqrt()
        } else if last_layer.1 > 0 {
            r.size as f64 / last_layer.1 as f64
        } else {
            1.0
        };
        let remaining = max_depth.saturating_sub(r.depth);
        let eta: f64 = match &published {
            // (checked against the layer built, so that another start never uses it)
            Some(sizes) if sizes.get(r.depth as usize) == Some(&r.size) && last_layer.1 > 0 => {
                // Layers r.depth to the last one before the end are still to expand.
                let last = (sizes.len() - 1).min(max_depth as usize);
                let left: u64 = sizes
                    .get(r.depth as usize..last)
                    .map_or(0, |s| s.iter().sum());
                seconds * left as f64 / last_layer.1 as f64
            }
            _ => (1..=remaining.min(64))
                .map(|k| seconds * growth.powi(k as i32))
                .sum(),
        };
        last_layer = (now, r.size, last_layer.1);
        progress.update(
            u64::from(r.depth),
            &format!(
                "depth {}: {} boards, {}, {} in memory, {} on disk{}{}{}{}, about {} more",
                r.depth,
                HumanCount(r.size),
                // The first report (depth 0, or the layer a search resumed from) has no rate.
                if r.maps + r.sorted == 0 {
                    "the start".to_string()
                } else {
                    format!("{}/s", HumanCount(rate as u64))
                },
                DecimalBytes(r.bytes_in_memory),
                DecimalBytes(r.bytes_on_disk),
                r.disk_free
                    .map(|f| format!(" ({} free)", DecimalBytes(f)))
                    .unwrap_or_default(),
                // The disk at the last depth asked for, grown as the layers grow (when near).
                if r.bytes_on_disk > 0 && r.maps + r.sorted > 0 && (1..=16).contains(&remaining) {
                    format!(
                        ", about {} at depth {max_depth}",
                        DecimalBytes(
                            (r.bytes_on_disk as f64 * growth.powi(remaining.min(64) as i32))
                                .min(1e18) as u64
                        )
                    )
                } else {
                    String::new()
                },
                // The neighbours that left their segment (through the incoming lists).
                if r.crossing > 0 {
                    format!(
                        ", {:.2} neighbours a board across segments{}",
                        r.crossing as f64 / r.expanded.max(1) as f64,
                        // Their file, per board expanded (the plan's incoming lists' rate).
                        match r.incoming_on_disk {
                            0 => String::new(),
                            b => format!(
                                " ({:.2} B a board on disk)",
                                b as f64 / r.expanded.max(1) as f64
                            ),
                        }
                    )
                } else {
                    String::new()
                },
                // Across processes: this process's messages.
                if r.sent_bytes + r.received_bytes > 0 {
                    format!(
                        ", sent {} ({:.2} B per board expanded), received {}",
                        DecimalBytes(r.sent_bytes),
                        r.sent_bytes as f64 / r.expanded.max(1) as f64,
                        DecimalBytes(r.received_bytes)
                    )
                } else {
                    String::new()
                },
                if r.maps + r.sorted == 0 {
                    "?".to_string()
                } else {
                    // Capped: a limit far beyond the radius extrapolates to centuries.
                    indicatif::HumanDuration(std::time::Duration::from_secs_f64(eta.min(1e9)))
                        .to_string()
                }
            ),
        );
    };
    let search = Search {
        goal,
        metric,
        max_depth,
        storage: &storage,
        progress,
        cluster,
    };
    let (frontier, labels, components) = match Engine::for_shape(shape) {
        Some(Engine::Parity) | None if shape.is_grid() => {
            let space =
                ParitySpace::with_metric(shape, Parity::of(goal), metric).ok_or_else(too_large)?;
            let Some((f, boards)) = search_from(space.clone(), &search, &mut report)? else {
                progress.end();
                return Ok(None);
            };
            let mut c = Components {
                method: Method::Theorem,
                ..Components::default()
            };
            c.add(space.size());
            c.add(space.size());
            (f, boards, c)
        }
        Some(Engine::Lex) => {
            let space = LexSpace::with_metric(shape, metric).ok_or_else(too_large)?;
            let Some((f, boards)) = search_from(space, &search, &mut report)? else {
                progress.end();
                return Ok(None);
            };
            (f, boards, Components::of_line(shape))
        }
        _ => return Err(too_large()),
    };
    progress.end();
    // The goal's component: every component is the same size (n!/2 on a grid, n on a line).
    let component = components.sizes.keys().next().copied().unwrap_or(0);
    let last_size = frontier.layer_sizes.last().copied().unwrap_or(0);
    let mut antipodes = labels;
    if last_size as usize <= bfs::frontier::LAST_LISTED {
        antipodes.sort_by_cached_key(Board::rank);
    }
    let limited = Limited {
        max_depth_searched: if frontier.stopped.is_some() {
            (frontier.layer_sizes.len() - 1) as u32
        } else {
            max_depth
        },
        complete: frontier.complete,
        peak_bytes: frontier.peak_bytes,
        resumed_from: frontier.resumed_from,
        stopped: frontier.stopped,
        segments: frontier.segments,
        maps: frontier.maps,
        sorted: frontier.sorted,
        saved_bytes: frontier.saved_bytes,
        save_time: frontier.save_time,
        processes: cluster.map_or(1, |c| c.processes),
        expanded: frontier.expanded,
        sent_bytes: frontier.sent_bytes,
        traffic_by_depth: frontier.traffic_by_depth,
        seconds_before: frontier.seconds_before,
        verification: Verification::of(
            metric,
            goal,
            &frontier.layer_sizes,
            component,
            frontier.complete,
        ),
    };
    Ok(Some((
        Analysis::new(
            goal,
            metric,
            Distances {
                layer_sizes: frontier.layer_sizes,
                antipodes,
            },
            components,
            None,
            None,
        ),
        limited,
    )))
}

/// What [`search_from`] searches, besides the space.
struct Search<'a> {
    goal: &'a Board,
    metric: Metric,
    max_depth: u32,
    storage: &'a bfs::frontier::Storage,
    progress: &'a dyn Progress,
    cluster: Option<&'a Cluster>,
}

/// A frontier search's error as the analysis's.
fn frontier_error(e: bfs::frontier::FrontierError) -> AnalyzeError {
    match e {
        bfs::frontier::FrontierError::NothingToResume(m)
        | bfs::frontier::FrontierError::Budget(m) => AnalyzeError::Refused(m),
        bfs::frontier::FrontierError::Interrupted => {
            AnalyzeError::Interrupted(crate::progress::Interrupted)
        }
        e => AnalyzeError::Storage(e.to_string()),
    }
}

/// Projected disk needs below this are left to the search's own check before each layer,
/// which stops a small search cleanly within seconds: 1 GiB.
pub const REFUSE_DISK_FROM: u64 = 1 << 30;

/// Refuses, before it starts, a depth-limited search ([`analyze_limited`]) from the standard
/// goal (or any goal with the blank on a corner: the same layers) with its layers on disk (`storage`'s checkpoint or scratch folder) whose disk cannot
/// hold the widest projected layer with the layers around it and its incoming lists ([`bfs::frontier::plan`]: the published layer
/// sizes and the measured rates): when the projection needs at least [`REFUSE_DISK_FROM`] and
/// more than the bytes free in the folder (or its nearest existing parent) plus the bytes of
/// the files already in it (a checkpoint resumed); across `processes` processes, each
/// process's share of the layers and lists on its own disk. Nothing is refused without a projection
/// (a goal with the blank elsewhere, a board without a published distribution), with the layers in memory, or
/// when the free space is unknown.
///
/// # Errors
/// [`AnalyzeError::Refused`], one line with the bytes needed and free.
pub fn check_limited_disk(
    goal: &Board,
    metric: Metric,
    max_depth: u32,
    storage: &bfs::frontier::Storage,
    processes: usize,
) -> Result<(), AnalyzeError> {
    let shape = goal.shape();
    let dir = match (&storage.checkpoint, &storage.scratch) {
        (Some(c), _) => c.dir.as_path(),
        (None, Some(s)) => s.as_path(),
        (None, None) => return Ok(()),
    };
    // (The projection's layers are the standard goal's: any goal with the blank on a corner.)
    if !published_from(goal, metric).is_some_and(|p| p.complete) {
        return Ok(());
    }
    let Some(projection) = bfs::frontier::plan::disk_needed(
        shape,
        metric,
        max_depth,
        u32::try_from(processes).unwrap_or(u32::MAX),
        storage.memory.unwrap_or_else(available_memory),
        storage.checkpoint.is_some(),
    ) else {
        return Ok(());
    };
    let needed = projection.peak_disk;
    if needed < REFUSE_DISK_FROM {
        return Ok(());
    }
    let existing = dir.ancestors().find(|d| d.is_dir());
    let Some(free) = existing.and_then(bfs::frontier::disk_free) else {
        return Ok(());
    };
    let held: u64 = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    if needed <= free.saturating_add(held) {
        return Ok(());
    }
    Err(AnalyzeError::Refused(format!(
        "{shape} to depth {} needs about {} of disk in {} (building depth {}: the layers and \
         incoming lists, projected from the published layer sizes and the measured rates of \
         output/bench/plan), and {} {} free there: give a folder on a larger disk, or a \
         smaller depth limit",
        projection.depth,
        DecimalBytes(needed),
        dir.display(),
        projection.peak_disk_depth,
        DecimalBytes(free.saturating_add(held)),
        if held > 0 { "are held or" } else { "are" },
    )))
}

/// Refuses, before it starts (before any folder or connection), a depth-limited search
/// ([`analyze_limited`], [`analyze_limited_cluster`]) of `shape` in `metric` whose memory
/// budget `memory` (bytes; `None`: no budget) cannot hold the segments' maps
/// ([`bfs::frontier::map_bytes`]) with the search's buffers and, on each of `processes`
/// processes, the other processes' messages it holds ([`cluster::frontier_held`]): the check
/// the search itself makes ([`bfs::frontier::FrontierConfig::within_holding`]).
///
/// # Errors
/// [`AnalyzeError::Refused`], one line with the least budget that holds them;
/// [`AnalyzeError::TooLarge`] for a board beyond the index ([`plan_limited`]).
pub fn check_limited_memory(
    shape: Shape,
    metric: Metric,
    memory: Option<u64>,
    processes: usize,
) -> Result<(), AnalyzeError> {
    let config = bfs::frontier::FrontierConfig::default();
    let held = cluster::frontier_held(processes);
    // (Either parity's space: the bytes a board takes are the same.)
    let fitted = match Engine::for_shape(shape) {
        Some(Engine::Parity) => ParitySpace::with_metric(shape, Parity::Even, metric)
            .map(|space| config.within_holding(&space, memory, (processes, held))),
        Some(Engine::Lex) => LexSpace::with_metric(shape, metric)
            .map(|space| config.within_holding(&space, memory, (processes, held))),
        None => None,
    };
    match fitted {
        Some(fitted) => fitted.map(|_| ()).map_err(frontier_error),
        None => Err(beyond_the_index(shape)),
    }
}

/// Checks that a depth-limited search ([`analyze_limited`]) can index `shape`.
///
/// # Errors
/// [`AnalyzeError::TooLarge`] for a grid of more than 20 cells or a line of more than 12.
pub fn plan_limited(shape: Shape) -> Result<(), AnalyzeError> {
    let indexed = if shape.is_grid() {
        ParitySpace::new(shape, Parity::Even).is_some()
    } else {
        LexSpace::new(shape).is_some()
    };
    if indexed {
        Ok(())
    } else {
        Err(beyond_the_index(shape))
    }
}

fn beyond_the_index(shape: Shape) -> AnalyzeError {
    AnalyzeError::TooLarge(format!(
        "{shape} is beyond the index: boards of at least 2 rows and 2 columns up to {} cells, \
         lines up to {}",
        ParitySpace::MAX_CELLS,
        LexSpace::MAX_CELLS
    ))
}

/// The frontier search of `space` from `goal` (which it holds), its plan told to `progress`
/// first and its warnings passed on; with the last layer's listed boards.
/// Across processes: the search on process 0, `None` on the others.
fn search_from<S: StateSpace + Clone + Send + Sync + 'static>(
    space: S,
    search: &Search<'_>,
    mut report: impl FnMut(bfs::frontier::LayerReport),
) -> Result<Option<(bfs::frontier::Frontier, Vec<Board>)>, AnalyzeError> {
    let (storage, progress) = (search.storage, search.progress);
    let seed = space.rank(search.goal).expect("the goal is in its space");
    let config = bfs::frontier::FrontierConfig::default()
        .within_holding(
            &space,
            storage.memory,
            search.cluster.map_or((1, 0), |c| {
                (c.processes, cluster::frontier_held(c.processes))
            }),
        )
        .map_err(frontier_error)?;
    progress.note(&frontier_plan(&space, storage, config));
    let f = match search.cluster {
        None => bfs::frontier::search_stored(
            &space,
            seed,
            search.max_depth,
            storage,
            config,
            report,
            progress,
        )
        .map_err(frontier_error)?,
        Some(c) => {
            let job = cluster::FrontierJob {
                space: space.clone(),
                goal: search.goal.clone(),
                metric: search.metric,
                max_depth: search.max_depth,
                storage: storage.clone(),
                config,
            };
            match cluster::frontier(c, job, progress, &mut report) {
                Ok(Some(f)) => f,
                Ok(None) => return Ok(None),
                Err(ClusterError::Config(m)) => return Err(AnalyzeError::Refused(m)),
                Err(ClusterError::Interrupted) => {
                    return Err(AnalyzeError::Interrupted(crate::progress::Interrupted));
                }
                Err(e) => return Err(AnalyzeError::Storage(e.to_string())),
            }
        }
    };
    let boards = f.last.iter().map(|&i| space.unrank(i)).collect();
    Ok(Some((f, boards)))
}

/// One line: the memory a depth-limited search of `space` with `config` (fitted to the
/// budget) will use and where its layers go.
fn frontier_plan<S: StateSpace>(
    space: &S,
    storage: &bfs::frontier::Storage,
    config: bfs::frontier::FrontierConfig,
) -> String {
    let maps = bfs::frontier::map_bytes(space, config.segments);
    let budget = match storage.memory {
        Some(m) => format!("a memory budget of {}", DecimalBytes(m)),
        None => "no memory budget".into(),
    };
    let dir = storage
        .checkpoint
        .as_ref()
        .map(|c| c.dir.as_path())
        .or(storage.scratch.as_deref());
    let layers = match dir {
        Some(d) => format!(
            "layers on disk in {}{}",
            d.display(),
            bfs::frontier::disk_free(d)
                .map(|f| format!(" ({} free)", DecimalBytes(f)))
                .unwrap_or_default()
        ),
        None => "layers in memory".into(),
    };
    format!(
        "plan: {budget}; {} segments of {} boards, maps of {} with the buffers; {layers}",
        HumanCount(config.segments as u64),
        HumanCount(space.size().div_ceil(config.segments as u64)),
        DecimalBytes(maps + bfs::frontier::RESERVE)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published::{A089484_TO_20, A090164_TO_26, A090165_TO_27};

    fn board(shape: Shape, tiles: &str) -> Board {
        Board::parse_tiles(shape, tiles).unwrap()
    }

    /// Every cell of 4x4 in its orbit: the 4 corners the complete distribution (OEIS A089484
    /// to start with), the 4 central cells OEIS A090164, the 8 other edge cells OEIS A090165;
    /// none in the multi-tile metric away from a corner, nor for 3x3's centre.
    #[test]
    fn the_published_distribution_is_found_by_the_blanks_orbit() {
        let four = Shape::new(4, 4).unwrap();
        for blank in 0..16 {
            let goal = crate::geometry::start_board(four, blank);
            let p = published_from(&goal, Metric::Stm).unwrap();
            let (r, c) = (blank / 4, blank % 4);
            let (edge_r, edge_c) = (r == 0 || r == 3, c == 0 || c == 3);
            match (edge_r, edge_c) {
                (true, true) => {
                    assert!(p.complete, "{blank}");
                    assert_eq!(p.sizes[..21], A089484_TO_20, "{blank}");
                    assert_eq!(p.sizes.iter().sum::<u64>(), 10_461_394_944_000);
                    assert!(published_from(&goal, Metric::Mtm).unwrap().complete);
                }
                (false, false) => {
                    assert_eq!((p.sizes, p.complete), (A090164_TO_26.to_vec(), false));
                    assert_eq!(published_from(&goal, Metric::Mtm), None, "{blank}");
                }
                _ => {
                    assert_eq!((p.sizes, p.complete), (A090165_TO_27.to_vec(), false));
                    assert_eq!(published_from(&goal, Metric::Mtm), None, "{blank}");
                }
            }
        }
        let three = Shape::new(3, 3).unwrap();
        assert_eq!(
            published_from(&board(three, "1 2 3 4 0 5 6 7 8"), Metric::Stm),
            None
        );
        let corner = published_from(&board(three, "8 7 0 6 5 4 3 2 1"), Metric::Stm).unwrap();
        assert_eq!(corner.sizes, crate::published::A089473);
    }

    /// Against a published prefix: the depths it holds are compared, a deeper search is not
    /// an error (the radius is not known), a count off by one is the first that differs.
    #[test]
    fn a_published_prefix_checks_its_depths_only() {
        let four = Shape::new(4, 4).unwrap();
        let centre = crate::geometry::start_board(four, 5);
        let mut layers = A090164_TO_26.to_vec();
        layers.extend([164_819_468, 287_906_049, 496_886_674]);
        let component = 10_461_394_944_000;
        let v = Verification::of(Metric::Stm, &centre, &layers, component, false);
        assert_eq!((v.published_depths, v.differs), (27, None));
        assert!(v.holds(false));
        assert!(
            v.line(false).ends_with(
                "depths 0..26 equal the published distribution (OEIS A090164: from a central \
                 cell, to depth 26)"
            ),
            "{}",
            v.line(false)
        );
        layers[26] += 1;
        let v = Verification::of(Metric::Stm, &centre, &layers, component, false);
        assert_eq!(v.differs, Some((26, 93_214_031, 93_214_030)));
        assert!(!v.holds(false));
        assert!(v.line(false).starts_with("NOT VERIFIED"));
    }
}
