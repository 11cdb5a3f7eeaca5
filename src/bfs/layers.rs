//! The layer loop, one for every whole-space BFS driver: the one-machine driver
//! ([`super::driver`]) and the distributed engine ([`super::cluster`]) differ only in their
//! [`Stepper`], that is, in the owner of a board (the push step's claims) and in how a layer's
//! global size is agreed (a local count, or the cluster's exchange).
//!
//! Each turn decides, from the layer sizes so far, whether to push or to pull
//! ([`super::pull`]: once the frontier is at least the boards left times
//! [`super::pull::PULL_RATIO`]); which lists to keep (a layer's boards, ascending, while it is
//! at most the list limit: the next layer's when the current one is at most a quarter of it);
//! when to find the first pulled frontier (the one layer a pull step may not have listed);
//! which layers to record board by board; and, after the last layer, when to settle the
//! marks.

use std::ops::ControlFlow;

use super::StateIndex;

/// What one layer step gives: the next layer's boards found here, and the lists kept.
#[derive(Debug, Default)]
pub(super) struct Step {
    /// Boards of the next layer claimed here (by this process, in a cluster).
    pub found: u64,
    /// Those boards, ascending, when kept.
    pub next: Option<Vec<StateIndex>>,
    /// This layer's boards (ascending), when a scan found them and they were asked for.
    pub current: Option<Vec<StateIndex>>,
}

/// A driver's way to take a layer step: its owner and its transport. Every method runs on
/// the thread of the loop; the work inside runs on the driver's pool.
pub(super) trait Stepper {
    /// Why a run ends early (a stop, a peer's failure).
    type Error;

    /// The layer sizes of this BFS so far (`[0]`: the seed's layer, of 1 board), through the
    /// last completed layer; the loop pushes each new layer's size.
    fn sizes(&mut self) -> &mut Vec<u64>;

    /// The layer from which this BFS takes pull steps, once it does.
    fn pulled_from(&mut self) -> &mut Option<u32>;

    /// A push step of layer `depth` (`list`: its boards, ascending, when known; else found by
    /// scanning the marks): every frontier board's neighbours claimed by the owner. Keeps the
    /// next layer's list when `keep_next`, and this layer's (when scanned) when `keep_current`.
    fn push(
        &mut self,
        depth: u32,
        list: Option<&[StateIndex]>,
        keep_next: bool,
        keep_current: bool,
    ) -> Result<Step, Self::Error>;

    /// A pull step of layer `depth` ([`super::pull::pull_step`] with the engine's marks and
    /// visitor; `left` and `keep_left` as there). [`Step::current`] is left `None`.
    fn pull(
        &mut self,
        depth: u32,
        left: &mut Option<Vec<StateIndex>>,
        keep_left: bool,
    ) -> Result<Step, Self::Error>;

    /// The next layer's global size from this engine's `found` (one machine: `found`).
    fn agree(&mut self, found: u64) -> Result<u64, Self::Error>;

    /// Layer `depth`'s boards, from the marks' frontier codes ([`super::pull::find_frontier`]).
    fn find_frontier(&mut self, depth: u32) -> Vec<StateIndex>;

    /// The marks' final codes after pull steps from layer `from` on
    /// ([`super::pull::settle`]).
    fn settle(&mut self, from: u32);

    /// Records layer `depth`'s boards (ascending; this engine's share), a layer of at most
    /// [`LoopParams::listed`] boards.
    fn record(&mut self, depth: u32, boards: &[StateIndex]);

    /// Called once a new layer is known (its size pushed on [`Stepper::sizes`]), with the
    /// boards reached so far: reports it, saves a checkpoint, asks for a stop
    /// ([`ControlFlow::Break`] ends the run with [`Ended::Stopped`]).
    fn layer_done(&mut self, reached: u64) -> Result<ControlFlow<()>, Self::Error>;
}

/// The loop's parameters.
#[derive(Debug, Clone, Copy)]
pub(super) struct LoopParams {
    /// Boards in the space.
    pub space_size: u64,
    /// Layers up to this many boards are kept as lists ([`super::list_limit`]).
    pub list_limit: usize,
    /// Pull once the frontier is at least this many times the boards left; `None`: never
    /// (the engine's marks are split among processes, or a checkpoint must find each layer
    /// by its code).
    pub pull_ratio: Option<u64>,
    /// Layers of at most this many boards go to [`Stepper::record`] (0: none).
    pub listed: u64,
    /// Boards of the space reached before this BFS (earlier components).
    pub before: u64,
}

/// How a run of the loop ended.
#[derive(Debug)]
pub(super) enum Ended {
    /// The last layer was found: its boards (ascending; this engine's share), when kept.
    Last(Option<Vec<StateIndex>>),
    /// [`Stepper::layer_done`] asked to stop; the marks are half-made.
    Stopped,
}

/// Runs the BFS whose layers so far are [`Stepper::sizes`] (at least the seed's) to its end;
/// `list`: the last layer's boards (ascending; this engine's share), when known.
///
/// # Errors
/// The engine's.
pub(super) fn run<E: Stepper>(
    engine: &mut E,
    plan: &LoopParams,
    mut list: Option<Vec<StateIndex>>,
) -> Result<Ended, E::Error> {
    let limit = plan.list_limit as u64;
    // The boards still unseen, ascending, once a pull step found that they fit the list
    // limit: later pull steps examine those instead of scanning the marks.
    let mut left: Option<Vec<StateIndex>> = None;
    loop {
        let sizes = engine.sizes();
        let depth = (sizes.len() - 1) as u32;
        let size = *sizes.last().expect("a BFS has a first layer");
        let reached = plan.before + sizes.iter().sum::<u64>();
        let unseen = plan.space_size - reached;
        if let Some(ratio) = plan.pull_ratio
            && engine.pulled_from().is_none()
            && unseen.saturating_mul(ratio) <= size
        {
            *engine.pulled_from() = Some(depth);
            if list.is_none() && size <= limit {
                // The one layer a pull step may not have listed: the first frontier, which
                // alone holds the frontier code then.
                list = Some(engine.find_frontier(depth));
            }
        }
        let step = match *engine.pulled_from() {
            // At most `unseen` boards are left after the step.
            Some(_) => engine.pull(depth, &mut left, unseen <= limit)?,
            None => {
                let keep_next = size.saturating_mul(4) <= limit;
                engine.push(depth, list.as_deref(), keep_next, size <= limit)?
            }
        };
        let current = list.or(step.current);
        if size <= plan.listed {
            engine.record(depth, current.as_deref().unwrap_or_default());
        }
        let next = engine.agree(step.found)?;
        if next == 0 {
            if let Some(from) = engine.pulled_from().take() {
                // Every reached board DONE, or layer `from` its final code.
                engine.settle(from);
            }
            return Ok(Ended::Last(current));
        }
        engine.sizes().push(next);
        if engine.layer_done(reached + next)?.is_break() {
            return Ok(Ended::Stopped);
        }
        list = step.next;
    }
}
