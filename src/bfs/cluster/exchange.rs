//! The distributed engine's [`Stepper`] for the one layer loop ([`layers::run`]): a process's
//! push steps route neighbours to their owners ([`super::worker`]'s `Traversal`), a layer's size
//! is the sum over the processes, and the BFS's record lives in [`Phase`], so that a
//! checkpoint saves it.

use std::ops::ControlFlow;
use std::sync::mpsc;

use super::checkpoint::Checkpoints;
use super::net::{Net, corrupt_from};
use super::push::Traversal;
use super::state::{Phase, Share};
use super::{ClusterError, Event};
use crate::bfs::codec::{decode_sorted, encode_sorted};
use crate::bfs::layers::{self, Ended, LoopParams, Step, Stepper};
use crate::bfs::pull::{self, PULL_RATIO};
use crate::bfs::step::LayerCodes;
use crate::bfs::{StateIndex, StateSpace, list_limit};
use crate::durable::fault_injection;

/// Runs the BFS of `phase.current` to its end (`list`: this process's boards of its current
/// layer, when known) with the one layer loop ([`layers::run`]); returns its last layer's
/// indices (on process 0, when that layer was kept). `earlier`: the boards of the spaces
/// searched before.
#[allow(clippy::too_many_arguments)]
pub(super) fn bfs_layers<S: StateSpace>(
    net: &mut Net<'_>,
    walk: &Traversal<'_, S>,
    held: &Share,
    list: Option<Vec<StateIndex>>,
    phase: &mut Phase,
    earlier: u64,
    checkpoints: &mut Option<Checkpoints>,
    events: &mpsc::Sender<Event>,
) -> Result<Vec<u64>, ClusterError> {
    let space_size = walk.space.size();
    // Boards of this space already reached (the spaces before it are explored whole).
    let before: u64 = phase.done.iter().sum::<u64>() - earlier;
    // Pull steps, as on one machine, when one process holds every board and no checkpoint
    // has to resume them (a pull leaves earlier layers' frontier codes in the marks, so a
    // resumed run could not find the layer it stopped at).
    let may_pull = net.peers == 1 && checkpoints.is_none();
    let plan = LoopParams {
        space_size,
        list_limit: list_limit(space_size),
        pull_ratio: may_pull.then_some(PULL_RATIO),
        listed: walk.listed,
        before,
    };
    let mut exchange = MarksExchange {
        net,
        walk,
        held,
        phase,
        checkpoints,
        events,
        layer_began: std::time::Instant::now(),
    };
    let kept = match layers::run(&mut exchange, &plan, list)? {
        Ended::Last(kept) => kept,
        Ended::Stopped => None,
    };
    // The last layer: its boards to process 0 when kept (every process keeps it or none).
    let Some(kept) = kept else {
        return Ok(Vec::new());
    };
    let kept: Vec<u64> = kept.iter().map(|i| i.0).collect();
    let mut bytes = Vec::new();
    encode_sorted(&kept, 0, &mut bytes);
    let got = net.gather(vec![bytes])?;
    let mut last = Vec::new();
    for (sender, p) in got {
        let mut inside = true;
        decode_sorted(&p, 0, |i| {
            inside &= i < space_size;
            last.push(i);
        })
        .ok()
        .filter(|()| inside)
        .ok_or_else(|| corrupt_from(Some(sender as usize), "the last layer's boards"))?;
    }
    last.sort_unstable();
    Ok(last)
}

/// The distributed [`Stepper`]: a neighbour goes to the process that owns it ([`Routed`], the
/// lists sent over [`Net`]), and a layer's size is the sum over the processes. The BFS's
/// record is [`Phase`]'s, so that a checkpoint saves it.
struct MarksExchange<'e, 'n, 'w, S: StateSpace> {
    net: &'e mut Net<'n>,
    walk: &'e Traversal<'w, S>,
    held: &'e Share,
    phase: &'e mut Phase,
    checkpoints: &'e mut Option<Checkpoints>,
    events: &'e mpsc::Sender<Event>,
    /// When the layer being searched began (after the last one's save): its wall time, and
    /// its save's, pace the stall timeout ([`Net::pace`]).
    layer_began: std::time::Instant,
}

impl<S: StateSpace> MarksExchange<'_, '_, '_, S> {
    fn codes(&self, depth: u32) -> LayerCodes {
        let (marking, seed) = self.walk.marking;
        LayerCodes::flagged(marking, self.walk.space, seed, depth)
    }
}

impl<S: StateSpace> Stepper for MarksExchange<'_, '_, '_, S> {
    type Error = ClusterError;

    fn sizes(&mut self) -> &mut Vec<u64> {
        &mut self.phase.current
    }

    fn pulled_from(&mut self) -> &mut Option<u32> {
        &mut self.phase.pulled_from
    }

    fn push(
        &mut self,
        depth: u32,
        list: Option<&[StateIndex]>,
        keep_next: bool,
        keep_current: bool,
    ) -> Result<Step, ClusterError> {
        self.walk
            .layer(self.net, self.held, depth, list, keep_next, keep_current)
    }

    fn pull(
        &mut self,
        depth: u32,
        left: &mut Option<Vec<StateIndex>>,
        keep_left: bool,
    ) -> Result<Step, ClusterError> {
        let codes = self.codes(depth);
        let (walk, held) = (self.walk, self.held);
        let limit = list_limit(walk.space.size());
        // One process, which holds every board: local indices are global.
        let (found, next, examined) = walk.pool.install(|| {
            let marks = &held.marks;
            match held.depths.as_ref().filter(|_| walk.record) {
                Some(d) => {
                    pull::pull_step(walk.space, marks, &codes, depth, limit, d, left, keep_left)
                }
                None => pull::pull_step(
                    walk.space,
                    marks,
                    &codes,
                    depth,
                    limit,
                    &(),
                    left,
                    keep_left,
                ),
            }
        });
        self.net.traffic.expanded += examined;
        Ok(Step {
            found,
            next,
            current: None,
        })
    }

    fn agree(&mut self, found: u64) -> Result<u64, ClusterError> {
        self.net.sum(found)
    }

    fn find_frontier(&mut self, depth: u32) -> Vec<StateIndex> {
        let codes = self.codes(depth);
        let marks = &self.held.marks;
        self.walk
            .pool
            .install(|| pull::find_frontier(marks, &codes))
    }

    fn settle(&mut self, from: u32) {
        let marks = &self.held.marks;
        let marking = self.walk.marking.0;
        self.walk
            .pool
            .install(|| pull::settle(marks, marking, from));
    }

    fn record(&mut self, depth: u32, boards: &[StateIndex]) {
        self.phase
            .listed
            .push((depth, boards.iter().map(|i| i.0).collect()));
    }

    fn layer_done(&mut self, reached: u64) -> Result<ControlFlow<()>, ClusterError> {
        let (net, phase) = (&mut *self.net, &mut *self.phase);
        net.pace(self.layer_began.elapsed());
        phase.step += 1;
        if net.me == 0 {
            let _ = self.events.send(Event::Layer {
                depth: (phase.current.len() - 1) as u32,
                size: *phase.current.last().unwrap_or(&0),
                reached,
            });
        }
        if let Some(ck) = self.checkpoints
            // Save when any process's schedule says so (all save the same steps).
            && net.sum(u64::from(ck.due()))? > 0
        {
            phase.traffic = net.traffic;
            let (bytes, took) = ck.save(self.held, phase)?;
            net.traffic.saves += 1;
            net.traffic.saved_bytes += bytes;
            net.traffic.save_micros += took.as_micros() as u64;
            // (A peer may save for as long as this process did: the wait allows for it.)
            net.pace(self.layer_began.elapsed());
            // Every process has saved this step before any goes on (so the latest common
            // step is never more than one behind).
            net.sync()?;
        }
        if self.checkpoints.is_some() {
            fault_injection(phase.step);
        }
        self.layer_began = std::time::Instant::now();
        Ok(ControlFlow::Continue(()))
    }
}
