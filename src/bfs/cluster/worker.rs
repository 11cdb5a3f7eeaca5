//! The search on one process: its range of each space, the push step of a layer in windows
//! (the one layer step of [`crate::bfs::step`] with an owner that routes neighbours by
//! process), the components after the goal's, and resuming. The layer loop's engine is
//! [`super::exchange`]'s; what process 0 gathers at the end, [`super::gather`]'s.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use timely::worker::Worker;

use super::checkpoint::Checkpoints;
use super::exchange::bfs_layers;
use super::gather::{self, stream_table};
use super::net::{Net, Wire, read_u64};
use super::push::{Routed, Traversal};
use super::state::{Deal, Phase, Share};
use super::{ClusterError, Event, Job, Outcome, Shared, out_of_memory};
use crate::bfs::step::{LaneMasks, LayerCodes, Marking};
use crate::bfs::{DepthArray, StateIndex, StateMarks, StateSpace, list_limit};
use crate::board::Board;

/// What the process's worker needs to know.
pub(super) struct Setup<S> {
    pub job: Job<S>,
    pub checkpoint: Option<PathBuf>,
    pub checkpoint_every: super::CheckpointEvery,
    pub start: crate::durable::Start,
    /// Threads sharing this process's marks.
    pub threads: usize,
    /// The core of each thread, when bound ([`super::Cluster::cores`]).
    pub cores: Option<Vec<usize>>,
    /// How long to wait at a barrier without a message from any peer.
    pub stall_timeout: std::time::Duration,
    /// Buffer and block sizes.
    pub tuning: super::BufferSizes,
    /// How this process writes its lists to each process ([`super::Cluster::same_host`]).
    pub wires: Vec<Wire>,
    /// Process 0's sink for the distance table ([`Marking::Depths`]); [`super::run`] drops
    /// it when it returns if no worker took it.
    pub table: super::TableSlot,
}

/// The search of one process: every space of the job in turn, the goal's BFS first, then
/// (when asked) the other components; returns the outcome on process 0.
pub(super) fn worker_main<S: StateSpace>(
    worker: &mut Worker,
    setup: &Setup<S>,
    shared: &Shared,
    events: &mpsc::Sender<Event>,
) -> Result<Option<Outcome>, ClusterError> {
    let mut net = Net::new(worker, shared, setup.stall_timeout);
    let outcome = search(&mut net, setup, events);
    if let Err(e) = &outcome {
        super::farewell(&mut net, e);
    }
    outcome
}

/// [`worker_main`]'s search over `net`.
fn search<S: StateSpace>(
    net: &mut Net<'_>,
    setup: &Setup<S>,
    events: &mpsc::Sender<Event>,
) -> Result<Option<Outcome>, ClusterError> {
    let (me, peers) = (net.me, net.peers);
    let job = &setup.job;
    let degree = job.spaces.iter().map(StateSpace::degree).max().unwrap_or(0);
    net.credit = super::credit(&setup.tuning, setup.threads, degree);
    // This thread (the timely worker: the exchange between windows) takes turns with the
    // pool's, so it shares the first one's core (with one worker, it is the pool's thread).
    if let Some(&id) = setup.cores.as_ref().and_then(|c| c.first()) {
        core_affinity::set_for_current(core_affinity::CoreId { id });
    }
    let pool = |here: bool| {
        let builder = rayon::ThreadPoolBuilder::new();
        let builder = if here {
            builder.use_current_thread()
        } else {
            builder
        };
        builder
            .num_threads(setup.threads)
            .thread_name(|i| format!("npuzzle-cluster-{i}"))
            .start_handler({
                let cores = setup.cores.clone().unwrap_or_default();
                // A refusal (the core gone since) leaves the thread where the system put it.
                move |i| {
                    if let Some(&id) = cores.get(i) {
                        core_affinity::set_for_current(core_affinity::CoreId { id });
                    }
                }
            })
            .build()
    };
    // One worker thread: this one, so that a window's work runs here, not on a thread this
    // one wakes and then waits for (two context switches a window, and the two threads
    // preempting each other on one core; measured in `output/bench/3x4-cluster/report.txt`).
    // rayon leaks such a pool's registry when it is dropped: a few kilobytes
    // and no thread here, but the threads of a larger pool. (A thread already in a pool
    // cannot be taken: then a pool of its own, as for more threads.)
    let pool = match setup.threads {
        1 => pool(true).or_else(|_| pool(false)),
        _ => pool(false),
    }
    .map_err(|e| ClusterError::Config(format!("cannot start the worker threads: {e}")))?;
    let mut checkpoints = setup
        .checkpoint
        .as_ref()
        .map(|dir| Checkpoints::new(dir, setup.checkpoint_every, (me, peers), job, setup.tuning));
    // Resume: the latest step every process has.
    let mut phase = Phase::default();
    let mut loaded: Option<Share> = None;
    // This process's lock on its checkpoint files, held until the run ends.
    let mut _lock = None;
    if let Some(ck) = &checkpoints {
        // Every process prepares its files, and all stop when any is refused (rather than
        // leave the others waiting for it).
        let prepared = ck.prepare(setup.start);
        let status = prepared
            .as_ref()
            .err()
            .map_or_else(Vec::new, |e| e.to_string().into_bytes());
        let all = net.all_gather(&status)?;
        _lock = Some(prepared?);
        if let Some((p, why)) = all.iter().enumerate().find(|(_, s)| !s.is_empty()) {
            return Err(ClusterError::Checkpoint(format!(
                "process {p}: {}",
                String::from_utf8_lossy(why)
            )));
        }
        if setup.start.resumes() {
            let (mine, warnings) = ck.available()?;
            for w in warnings {
                let _ = events.send(Event::Warning(w));
            }
            let encoded = serde_json::to_vec(&mine).unwrap_or_default();
            let all = net.all_gather(&encoded)?;
            let mut common: Option<Vec<u64>> = None;
            for bytes in &all {
                let theirs: Vec<u64> = serde_json::from_slice(bytes).unwrap_or_default();
                common = Some(match common {
                    None => theirs,
                    Some(c) => c.into_iter().filter(|s| theirs.contains(s)).collect(),
                });
            }
            let Some(step) = common.and_then(|c| c.into_iter().max()) else {
                return Err(ClusterError::Config(format!(
                    "--resume: {} holds no checkpoint of this run that every process saved \
                     (start again with --fresh on every process)",
                    setup
                        .checkpoint
                        .as_deref()
                        .unwrap_or(Path::new(""))
                        .display()
                )));
            };
            let (held, p) = ck.load(step, |space| {
                job.spaces.get(usize::from(space)).map(StateSpace::size)
            })?;
            phase = p;
            net.traffic = phase.traffic;
            net.traffic.resumed_from = Some(step);
            loaded = Some(held);
        }
    }
    let last_space = if job.search_rest {
        job.spaces.len() - 1
    } else {
        0
    };
    // The first space's depths, carried from one space to the next.
    let mut depths: Option<DepthArray> = None;
    // This run streamed the distance table (not the run it resumes).
    let mut table_written = false;
    while usize::from(phase.space) <= last_space {
        let space = &job.spaces[usize::from(phase.space)];
        let deal = Deal::with_block(space.size(), peers, me, setup.tuning.block);
        let held = match loaded.take() {
            Some(held) => held,
            None => Share {
                deal,
                marks: StateMarks::try_new(deal.held()).map_err(out_of_memory)?,
                depths: if phase.space == 0 && job.per_board {
                    Some(DepthArray::try_new(deal.held()).map_err(out_of_memory)?)
                } else {
                    depths.take()
                },
            },
        };
        let lanes = LaneMasks::of(space);
        if me == 0 {
            let task = if phase.space == 0 && phase.goal_layers.is_empty() {
                "distances"
            } else {
                "components"
            };
            let _ = events.send(Event::Begin(task.into(), space.size()));
        }
        loop {
            let record = phase.space == 0 && phase.goal_layers.is_empty();
            // The goal's BFS keeps depths when asked; any other keeps Korf's marks, which say
            // only what was reached.
            let table = record && job.marking == Marking::Depths;
            let kind = match table {
                true => Marking::Depths,
                false => Marking::Frontier,
            };
            let mut list = None;
            if phase.current.is_empty() {
                // A new BFS: from the goal first, then from the first unseen board.
                let seed = if phase.space == 0 && phase.goal_layers.is_empty() {
                    space.rank(&job.goal).map(|i| i.0)
                } else if !job.search_rest {
                    // The goal's component alone: a one-row board's space holds its
                    // (n-1)! other components, one BFS each, for figures stated instead.
                    None
                } else {
                    let local = held
                        .marks
                        .next_unseen(0)
                        .map_or(u64::MAX, |i| deal.global(i.0));
                    let all = net.all_gather(&local.to_le_bytes())?;
                    all.iter()
                        .map(|b| read_u64(b))
                        .min()
                        .filter(|&m| m != u64::MAX)
                };
                let Some(seed) = seed else { break };
                phase.seed = Some(seed);
                let mut seeds = Vec::new();
                let (owner_of_seed, local) = deal.locate(seed);
                if owner_of_seed as u64 == deal.me {
                    let code = LayerCodes::flagged(kind, space, StateIndex(seed), 0).frontier;
                    let mut owner = Routed::new(&held, record, (0, code, false), true, false);
                    owner.claim(local, seed);
                    seeds = owner.next;
                }
                list = Some(seeds);
                phase.current = vec![1];
            }
            // (A checkpoint of this format always names its seed.)
            let seed = StateIndex(phase.seed.unwrap_or_default());
            let walk = Traversal {
                space,
                lanes: lanes.as_ref(),
                pool: &pool,
                threads: setup.threads,
                record,
                marking: (kind, seed),
                listed: if table {
                    job.listed.min(list_limit(space.size()) as u64)
                } else {
                    0
                },
                wires: &setup.wires,
                send_budget: setup.tuning.send_budget,
                #[cfg(test)]
                pause: setup.tuning.pause.filter(|(p, _)| *p == me).map(|(_, d)| d),
            };
            let earlier: u64 = job.spaces[..usize::from(phase.space)]
                .iter()
                .map(StateSpace::size)
                .sum();
            let last = bfs_layers(
                net,
                &walk,
                &held,
                list,
                &mut phase,
                earlier,
                &mut checkpoints,
                events,
            )?;
            let size: u64 = phase.current.iter().sum();
            if phase.space == 0 && phase.goal_layers.is_empty() {
                phase.goal_layers = std::mem::take(&mut phase.current);
                phase.antipodes = last;
                if table {
                    let sink = setup.table.lock().ok().and_then(|mut s| s.take());
                    let listed = std::mem::take(&mut phase.listed);
                    stream_table(
                        net,
                        &held,
                        &phase.goal_layers,
                        (walk.listed, listed),
                        sink,
                        setup.tuning.table_window,
                    )?;
                    phase.table_written = true;
                    table_written = true;
                }
            }
            phase.current.clear();
            phase.done.push(size);
        }
        if me == 0 {
            let _ = events.send(Event::End);
        }
        // Keep the depths, free the marks.
        depths = held.depths;
        phase.space += 1;
    }
    let first = &job.spaces[0];
    // Per-board depths to process 0, in chunks.
    let depths = match depths {
        Some(d) if job.per_board => {
            gather::gather_depths(net, d, first.size(), setup.tuning.block)?
        }
        _ => None,
    };
    net.traffic.received_bound = (peers as u64 - 1).saturating_mul(net.credit);
    // Traffic totals, and a last barrier so that no process leaves while others still talk.
    let traffic = gather::total_traffic(net)?;
    net.sync()?;
    if me != 0 {
        return Ok(None);
    }
    let mut antipodes: Vec<Board> = phase
        .antipodes
        .iter()
        .map(|&i| first.unrank(StateIndex(i)))
        .collect();
    antipodes.sort_by_cached_key(Board::rank);
    Ok(Some(Outcome {
        layer_sizes: phase.goal_layers,
        antipodes,
        components: phase.done,
        depths,
        traffic,
        table_written,
    }))
}
