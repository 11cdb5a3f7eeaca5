//! A process's push step of a layer, in windows: the distributed owner ([`Routed`], which
//! claims the neighbours this process holds and buffers the others for their process) and the
//! step itself ([`Traversal::layer`]: the one layer step of [`crate::bfs::step`], its lists sent
//! after each window and the lists received claimed).

use rayon::prelude::*;

use super::ClusterError;
use super::net::{Chunk, Net, Wire, index_width};
use super::state::Share;
use crate::bfs::layers::Step;
use crate::bfs::marks::{Claim, FIELDS_PER_WORD};
use crate::bfs::step::{self, Expander, LaneMasks, LayerCodes, Marking, Owner};
use crate::bfs::{DepthArray, OnVisit, StateIndex, StateSpace};

/// Received indices claimed at once (their words prefetched together).
const CLAIM_BATCH: usize = 2048;
/// Frontier boards of a list per parallel work item (or a dense scan's item, when smaller).
const CHUNK_LIST: usize = 4096;

/// The distributed owner: a neighbour this process holds is claimed at once (any thread of the
/// process, atomically, as on one machine); the others are buffered for their process, by
/// their local index there.
pub(super) struct Routed<'a> {
    held: &'a Share,
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
    pub(super) next: Vec<StateIndex>,
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
    pub(super) fn new(
        held: &'a Share,
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
    pub(super) fn claim(&mut self, local: u64, index: u64) {
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
    fn only_counted(&mut self) -> Option<&mut u64> {
        (self.depths.is_none() && !self.keep).then_some(&mut self.found)
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
pub(super) struct Traversal<'a, S: StateSpace> {
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
    /// Bytes of outgoing indices buffered per thread before a send ([`super::BufferSizes`]).
    pub(super) send_budget: usize,
    /// A pause after each window ([`super::BufferSizes::pause`]: a slow process, in tests).
    #[cfg(test)]
    pub(super) pause: Option<std::time::Duration>,
}

impl<S: StateSpace> Traversal<'_, S> {
    /// Expands layer `depth` of this process (`list`: its boards, global indices ascending;
    /// else found by scanning the range), in windows of work items: after each window the
    /// neighbours of other processes are sent and the lists received so far are claimed.
    pub(super) fn layer(
        &self,
        net: &mut Net<'_>,
        held: &Share,
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

    /// Claims the lists of this round that have arrived ([`Traversal::apply`]) and acknowledges
    /// them to their senders ([`Net::release`]).
    ///
    /// # Errors
    /// [`ClusterError::Peer`] when a list is corrupt.
    fn claim_received(
        &self,
        net: &mut Net<'_>,
        held: &Share,
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
        held: &Share,
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
