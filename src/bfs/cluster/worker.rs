//! The search on one process: its range of each space, the push step of a layer in windows
//! (the one layer step of [`crate::bfs::step`] with an owner that routes neighbours by
//! process), the components after the goal's, and resuming. The layer loop's engine is
//! [`super::exchange`]'s; what process 0 gathers at the end, [`super::gather`]'s.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use rayon::prelude::*;
use timely::worker::Worker;

use super::checkpoint::Checkpoints;
use super::exchange::bfs_layers;
use super::gather::{self, stream_table};
use super::net::{Chunk, Net, Wire, index_width, read_u64};
use super::state::{Deal, Held, Phase};
use super::{ClusterError, Event, Job, MarksSink, Outcome, Shared, out_of_memory};
use crate::bfs::layers::Step;
use crate::bfs::marks::{Claim, FIELDS_PER_WORD};
use crate::bfs::step::{self, Expander, LaneMasks, LayerCodes, Marking, Owner};
use crate::bfs::{DepthArray, OnVisit, StateIndex, StateMarks, StateSpace, list_limit};
use crate::board::Board;

/// Received indices claimed at once (their words prefetched together).
const CLAIM_BATCH: usize = 2048;
/// Frontier boards of a list per parallel work item (or a dense scan's item, when smaller).
const CHUNK_LIST: usize = 4096;

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
    pub tuning: super::Tuning,
    /// How this process writes its lists to each process ([`super::Cluster::same_host`]).
    pub wires: Vec<Wire>,
    /// Process 0's sink for the distance table ([`Marking::Depths`]).
    pub table: std::sync::Mutex<Option<Box<dyn MarksSink>>>,
}

/// The distributed owner: a neighbour this process holds is claimed at once (any thread of the
/// process, atomically, as on one machine); the others are buffered for their process, by
/// their local index there.
struct Routed<'a> {
    held: &'a Held,
    /// Where claims record their depth (the goal's BFS, per-board results).
    depths: Option<&'a DepthArray>,
    /// The field value a claim writes ([`LayerCodes::claim`]); under the across flag, a lane
    /// claim.
    code: u64,
    /// Claims under the across flag ([`LayerCodes::flagged`], dense layers): a move across
    /// writes 2. Another process's lists are moves across, but for the first and the last
    /// board of a block ([`Deal::at_edge`](super::state::Deal::at_edge)), which may have come
    /// by a lane move and are claimed as one.
    flagged: bool,
    depth: u32,
    keep: bool,
    found: u64,
    /// Boards claimed (global indices), when `keep`.
    next: Vec<StateIndex>,
    /// Per process: neighbours it holds (their local indices there), not yet sent.
    outbox: Vec<Vec<u64>>,
    /// A local index outside this process's share arrived (a corrupt message).
    corrupt: bool,
    /// This process's step runs on one thread, the only writer of its marks: claims are a
    /// load and a store ([`Owner::alone`]).
    alone: bool,
    /// [`Owner::route_all`]'s lists of a batch's neighbours: this process's (local
    /// indices), and the others' (process, local index).
    mine: Vec<StateIndex>,
    away: Vec<(u64, u64)>,
}

impl<'a> Routed<'a> {
    /// The owner of the claims for layer `depth`, writing `code` (under the across flag when
    /// `flagged`).
    fn new(
        held: &'a Held,
        record: bool,
        (depth, code, flagged): (u32, u64, bool),
        keep: bool,
        alone: bool,
    ) -> Self {
        Routed {
            held,
            depths: held.depths.as_ref().filter(|_| record),
            code,
            flagged,
            depth,
            keep,
            found: 0,
            next: Vec::new(),
            outbox: vec![Vec::new(); held.deal.peers as usize],
            corrupt: false,
            alone,
            mine: Vec::new(),
            away: Vec::new(),
        }
    }

    /// Claims this process's boards of local indices `locals`, their words prefetched: in two
    /// passes, the unseen moved to the front (every read issued before any claim waits on
    /// it), then claimed. `locals` is reordered.
    #[inline(always)]
    fn claim_unseen(&mut self, locals: &mut [StateIndex]) {
        let marks = &self.held.marks;
        let claimable = self.claimable();
        let mut unseen = 0;
        for k in 0..locals.len() {
            let local = locals[k];
            locals[unseen] = local;
            unseen += usize::from(marks.get(local) & claimable == 0);
        }
        for &local in &locals[..unseen] {
            self.claim(local.0, self.held.deal.global(local.0));
        }
    }

    /// The bits of a field that make a board's claim fail at once ([`step::claimable`]).
    #[inline(always)]
    fn claimable(&self) -> u64 {
        step::claimable(self.flagged)
    }

    /// Claims this process's board of local index `local` (board `index`), a neighbour by a
    /// move across under the across flag.
    #[inline(always)]
    fn claim(&mut self, local: u64, index: u64) {
        self.claim_as(local, index, 2);
    }

    /// [`Routed::claim`] of a neighbour by a lane move.
    #[inline(always)]
    fn claim_lane(&mut self, local: u64, index: u64) {
        self.claim_as(local, index, 1);
    }

    /// [`Routed::claim`], writing `flag` (1: a lane move, 2: a move across) under the across
    /// flag.
    #[inline(always)]
    fn claim_as(&mut self, local: u64, index: u64, flag: u64) {
        let claim = Claim {
            code: self.code,
            flagged: self.flagged,
            alone: self.alone,
        };
        if self.held.marks.claim_as(StateIndex(local), claim, flag) {
            self.found(StateIndex(index));
        }
    }
}

impl Owner for Routed<'_> {
    #[inline(always)]
    fn route(&mut self, index: StateIndex) {
        let deal = &self.held.deal;
        let (owner, local) = deal.locate(index.0);
        if owner as u64 == deal.me {
            self.claim(local, index.0);
        } else {
            self.outbox[owner].push(local);
        }
    }

    #[inline(always)]
    fn route_lane(&mut self, index: StateIndex) {
        let deal = &self.held.deal;
        let (owner, local) = deal.locate(index.0);
        if owner as u64 == deal.me {
            self.claim_lane(local, index.0);
        } else {
            // The first or the last board of a block there, claimed as a lane move.
            self.outbox[owner].push(local);
        }
    }

    #[inline(always)]
    fn found(&mut self, index: StateIndex) {
        self.found += 1;
        if let Some(d) = self.depths {
            d.visit(StateIndex(self.held.deal.local(index.0)), self.depth);
        }
        if self.keep {
            self.next.push(index);
        }
    }

    #[inline(always)]
    fn found_fields(&mut self, base: u64, fields: u64) {
        if self.depths.is_none() && !self.keep {
            self.found += u64::from(fields.count_ones());
            return;
        }
        for index in crate::bfs::marks::fields(base, fields) {
            self.found(index);
        }
    }

    #[inline(always)]
    fn alone(&self) -> bool {
        self.alone
    }

    /// In passes, as on one machine (`driver::Local`), with no branch on the owner or the
    /// field (both as good as random along a layer): the neighbours are split by owner (each
    /// written to both lists, counted in its own, this process's prefetched); this
    /// process's are read and the unseen kept; those are claimed; the others are filed in
    /// their outboxes.
    #[inline(always)]
    fn route_all(&mut self, nbs: &[StateIndex]) {
        let (deal, marks) = (self.held.deal, &self.held.marks);
        let mut mine = std::mem::take(&mut self.mine);
        if deal.peers == 1 {
            // Every board is ours, its local index its own.
            let n = step::list_unseen(marks, nbs, &mut mine, self.claimable());
            for &nb in &mine[..n] {
                self.claim(nb.0, nb.0);
            }
            self.mine = mine;
            return;
        }
        let mut away = std::mem::take(&mut self.away);
        mine.resize(nbs.len(), StateIndex::NONE);
        away.resize(nbs.len(), (0, 0));
        let (mut here, mut there) = (0, 0);
        for &nb in nbs {
            if nb == StateIndex::NONE {
                continue;
            }
            let (owner, local) = deal.locate(nb.0);
            let ours = owner as u64 == deal.me;
            // Read in the second pass, once the whole batch is split. Another process's
            // board prefetches board 0's word instead (cached): a random line fetched for
            // nothing would take a line fill buffer from the boards that are read.
            marks.prefetch(StateIndex(local & u64::from(ours).wrapping_neg()));
            mine[here] = StateIndex(local);
            here += usize::from(ours);
            away[there] = (owner as u64, local);
            there += usize::from(!ours);
        }
        self.claim_unseen(&mut mine[..here]);
        for &(owner, local) in &away[..there] {
            self.outbox[owner as usize].push(local);
        }
        (self.mine, self.away) = (mine, away);
    }
}

/// The space being searched and how this process walks it.
pub(super) struct Walk<'a, S: StateSpace> {
    pub(super) space: &'a S,
    pub(super) lanes: Option<&'a LaneMasks>,
    pub(super) pool: &'a rayon::ThreadPool,
    pub(super) threads: usize,
    /// The goal's BFS: claims record their depth.
    pub(super) record: bool,
    /// What this BFS leaves in the marks, and its seed (the board whose side starts the
    /// sides' alternation under [`Marking::Depths`] and the across flag).
    pub(super) marking: (Marking, StateIndex),
    /// Layers of at most this many boards are kept in [`Phase::listed`] (0: none).
    pub(super) listed: u64,
    /// How this process writes its lists to each process.
    pub(super) wires: &'a [Wire],
    /// Bytes of outgoing indices buffered per thread before a send ([`super::Tuning`]).
    pub(super) send_budget: usize,
    /// A pause after each window ([`super::Tuning::pause`]: a slow process, in tests).
    #[cfg(test)]
    pub(super) pause: Option<std::time::Duration>,
}

impl<S: StateSpace> Walk<'_, S> {
    /// Expands layer `depth` of this process (`list`: its boards, global indices ascending;
    /// else found by scanning the range), in windows of work items: after each window the
    /// neighbours of other processes are sent and the lists received so far are claimed.
    pub(super) fn layer(
        &self,
        net: &mut Net<'_>,
        held: &Held,
        depth: u32,
        list: Option<&[StateIndex]>,
        keep_next: bool,
        keep_current: bool,
    ) -> Result<Step, ClusterError> {
        let size = self.space.size();
        let round = net.round;
        let peers = net.peers;
        let me = net.me;
        // Words per work item of a dense scan: one item of the deal (at most a block).
        let chunk_words = (held.deal.item / FIELDS_PER_WORD) as usize;
        // Boards of a list per work item: at most a dense item's, so that a window's lists
        // stay within [`super::credit`].
        let chunk_list = CHUNK_LIST.min(held.deal.item as usize);
        let items = match list {
            Some(l) => l.len().div_ceil(chunk_list),
            None => held.marks.words().len().div_ceil(chunk_words),
        };
        // A window's neighbours for other processes stay within the send budget (at most
        // 4 per board, 8 bytes each).
        let per_item = match list {
            Some(_) => chunk_list,
            None => held.deal.item as usize,
        } * self.space.degree()
            * 8;
        // One process sends nothing: one window, so that its threads never wait for each
        // other at a window's end.
        let window = match peers {
            1 => items.max(1),
            _ => (self.send_budget * self.threads / per_item).max(self.threads),
        };
        let lanes = self.lanes.map(|l| (l, size));
        let codes = LayerCodes::flagged(self.marking.0, self.space, self.marking.1, depth);
        // The claims of a list step write the lane claims' code for every move (see
        // `driver::Local`); every process takes the same kind of step.
        let claims = (depth + 1, codes.claim, codes.flagged && list.is_none());
        let alone = self.alone();
        let mut out = Step {
            found: 0,
            next: keep_next.then(Vec::new),
            current: (keep_current && list.is_none()).then(Vec::new),
        };
        let mut collect = |out: &mut Step, owner: Routed<'_>| {
            out.found += owner.found;
            if let Some(n) = &mut out.next {
                n.extend(owner.next);
            }
            owner.corrupt
        };
        let (mut sorted, mut scratch) = (Vec::new(), Vec::new());
        for start in (0..items).step_by(window) {
            net.check()?;
            let end = (start + window).min(items);
            // Each of the pool's pieces of the window (a run of items) has one owner, one
            // expander and one list of boards: a layer's serial work between its windows
            // (merging the pieces) is then a few pieces, not one per item (measured:
            // `output/bench/3x4-cluster/report.txt`).
            let done: Vec<(Routed<'_>, u64, Vec<StateIndex>)> = self.pool.install(|| {
                (start..end)
                    .into_par_iter()
                    .fold(
                        || {
                            let owner = Routed::new(held, self.record, claims, keep_next, alone);
                            (Expander::new(self.space, owner), Vec::new())
                        },
                        |(mut expander, mut current), item| {
                            match list {
                                Some(l) => {
                                    let chunk = &l
                                        [item * chunk_list..((item + 1) * chunk_list).min(l.len())];
                                    for &r in chunk {
                                        expander.push(r);
                                        let local = StateIndex(held.deal.local(r.0));
                                        codes.retire_board(&held.marks, local);
                                    }
                                }
                                None => {
                                    let words = held.marks.words();
                                    let w = &words[item * chunk_words
                                        ..((item + 1) * chunk_words).min(words.len())];
                                    let first = held.deal.global(item as u64 * held.deal.item);
                                    step::scan(
                                        w,
                                        first,
                                        size,
                                        &codes,
                                        lanes,
                                        &mut expander,
                                        keep_current.then_some(&mut current),
                                    );
                                }
                            }
                            (expander, current)
                        },
                    )
                    .map(|(mut expander, current)| {
                        expander.flush();
                        let expanded = expander.expanded;
                        let mut owner = expander.finish();
                        // The window keeps every piece's owner until it ends: not its scratch.
                        (owner.mine, owner.away) = (Vec::new(), Vec::new());
                        (owner, expanded, current)
                    })
                    .collect()
            });
            let mut outboxes: Vec<Vec<Vec<u64>>> = vec![Vec::new(); peers];
            for (mut owner, expanded, current) in done {
                net.traffic.expanded += expanded;
                if let Some(c) = &mut out.current {
                    c.extend(current);
                }
                for (p, o) in owner.outbox.iter_mut().enumerate() {
                    if !o.is_empty() {
                        outboxes[p].push(std::mem::take(o));
                    }
                }
                collect(&mut out, owner);
            }
            for (p, parts) in outboxes.into_iter().enumerate() {
                if parts.is_empty() || p == me {
                    continue;
                }
                // Local indices of process `p`, below its share's size.
                let to = (held.deal.of(p).held(), self.wires[p]);
                let Some(bytes) = net.list_of(&parts, to, (&mut sorted, &mut scratch)) else {
                    continue;
                };
                drop(parts);
                // Back-pressure: while `p` holds its credit's worth of this process's lists
                // unclaimed, claim what the others sent (so that no two processes wait for
                // each other) until it acknowledges some.
                let mut seen = net.waiting();
                while net.needs_credit(p, bytes.len()) {
                    net.wait_step(&mut seen)?;
                    self.claim_received(net, held, claims, keep_next, &mut out, &mut collect)?;
                }
                net.send_list(p, bytes);
            }
            net.step();
            #[cfg(test)]
            if let Some(pause) = self.pause {
                std::thread::sleep(pause);
            }
            self.claim_received(net, held, claims, keep_next, &mut out, &mut collect)?;
        }
        // Every list of the round has arrived once every other process's end marker has;
        // until then, claim what comes (a process waiting for credit waits on these claims).
        net.end(round);
        let mut seen = net.waiting();
        while !net.all_ended(round) {
            net.wait_step(&mut seen)?;
            self.claim_received(net, held, claims, keep_next, &mut out, &mut collect)?;
        }
        self.claim_received(net, held, claims, keep_next, &mut out, &mut collect)?;
        if let Some(n) = &mut out.next {
            self.pool.install(|| n.par_sort_unstable());
        }
        Ok(out)
    }

    /// Whether this process's steps run on one thread, the only writer of its marks (the
    /// pool has one thread, and the worker thread writes the marks only through it).
    fn alone(&self) -> bool {
        self.pool.current_num_threads() == 1
    }

    /// Claims the lists of this round that have arrived ([`Walk::apply`]) and acknowledges
    /// them to their senders ([`Net::release`]).
    ///
    /// # Errors
    /// [`ClusterError::Peer`] when a list is corrupt.
    fn claim_received(
        &self,
        net: &mut Net<'_>,
        held: &Held,
        claims: (u32, u64, bool),
        keep_next: bool,
        out: &mut Step,
        collect: &mut impl FnMut(&mut Step, Routed<'_>) -> bool,
    ) -> Result<(), ClusterError> {
        let received = net.take_claims(net.round);
        if self.apply(held, claims, keep_next, &received, out, collect) {
            return Err(corrupt());
        }
        net.release(received);
        Ok(())
    }

    /// Claims the lists of indices that other processes sent (in parallel); true when one
    /// is corrupt.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        held: &Held,
        claims: (u32, u64, bool),
        keep_next: bool,
        received: &[Chunk],
        out: &mut Step,
        collect: &mut impl FnMut(&mut Step, Routed<'_>) -> bool,
    ) -> bool {
        if received.is_empty() {
            return false;
        }
        let alone = self.alone();
        let width = index_width(held.deal.held());
        let owners: Vec<Routed<'_>> = self.pool.install(|| {
            received
                .par_iter()
                .map(|chunk| {
                    let mut owner = Routed::new(held, self.record, claims, keep_next, alone);
                    let (marks, len) = (&held.marks, held.marks.len());
                    let mut batch = Vec::with_capacity(CLAIM_BATCH);
                    // In batches, as the neighbours found here ([`Routed::route_all`]): every
                    // board's word prefetched, then read, then the unseen claimed.
                    let claim = |batch: &mut Vec<StateIndex>, owner: &mut Routed<'_>| {
                        for &i in batch.iter() {
                            marks.prefetch(i);
                        }
                        owner.claim_unseen(batch);
                        batch.clear();
                    };
                    let ok = chunk
                        .indices(width, |i| {
                            if owner.flagged && i < len && held.deal.at_edge(i) {
                                // Perhaps a lane neighbour (see `Routed::flagged`).
                                owner.claim_lane(i, held.deal.global(i));
                            } else if i < len {
                                batch.push(StateIndex(i));
                                if batch.len() == CLAIM_BATCH {
                                    claim(&mut batch, &mut owner);
                                }
                            } else {
                                owner.corrupt = true;
                            }
                        })
                        .is_ok();
                    claim(&mut batch, &mut owner);
                    owner.corrupt |= !ok;
                    owner
                })
                .collect()
        });
        let mut corrupt = false;
        for owner in owners {
            corrupt |= collect(out, owner);
        }
        corrupt
    }
}

fn corrupt() -> ClusterError {
    ClusterError::Peer("a corrupt message of board indices arrived".into())
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
    let mut loaded: Option<Held> = None;
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
                     (run without --resume to start afresh)",
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
            None => Held {
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
            let walk = Walk {
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
                &mut net,
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
                        &mut net,
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
            gather::gather_depths(&mut net, d, first.size(), setup.tuning.block)?
        }
        _ => None,
    };
    net.traffic.received_bound = (peers as u64 - 1).saturating_mul(net.credit);
    // Traffic totals, and a last barrier so that no process leaves while others still talk.
    let traffic = gather::total_traffic(&mut net)?;
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
