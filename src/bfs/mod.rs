//! The engine: the state space of a board as a dense index, and the breadth-first search that
//! walks it layer by layer.
//!
//! This folder is the seam between a state space and the drivers that walk it:
//!
//! - [`StateIndex`]: a board's position in a dense index `0..size` (`u64`).
//! - [`StateSpace`]: what a driver needs of a space: its size, rank/unrank, the largest board it
//!   supports, and the **kernel** [`StateSpace::expand`], a pure function from a batch of indices
//!   to their neighbours' indices. The in-memory driver here, and any other (a distributed
//!   worker, a depth-limited layer-list search, a pattern-database build) call that one kernel.
//! - Three spaces: [`ParitySpace`] (one component, `n!/2` boards, the engine of every board with
//!   at least 2 rows and 2 columns, up to 20 cells) and [`LexSpace`] (all `n!` boards by
//!   lexicographic rank, up to 12 cells: the one-row boards, whose graph has `(n-1)!`
//!   components, and the independent check of the component structure); and outside this
//!   folder a pattern database's abstract space (`solve::pdb`), searched by [`run`] too.
//! - [`StateMarks`]: two bits per index, shared between threads.
//! - Three drivers of the one kernel: [`run`], the level-synchronous parallel (rayon) BFS over
//!   the marks, reporting each newly reached board through [`OnVisit`] and each layer through
//!   a callback; [`cluster`], the same BFS over processes and machines (timely-dataflow, one
//!   worker per process owning a slice of the marks, shared by its threads; per-layer
//!   checkpoints); [`frontier`], a depth-limited search that keeps three layers as compressed
//!   index lists instead of whole-space marks. The two marks drivers run the one layer loop
//!   of `layers.rs` (push or pull, which lists to keep, when to settle), each with its
//!   `layers::Stepper`; they take the one push step of `step.rs` (scan or list, expand, claim
//!   lanes word-wide, hand every other neighbour to its owner) and the one pull step of
//!   `pull.rs`; they differ only in the owner and in how a layer's size is agreed.
//! - [`codec`]: sorted index lists as gap-encoded varints (exchanges, layers).
//!
//! Invariants: `rank` and `unrank` are inverse bijections between the space's boards and
//! `0..size` (an abstract space may leave indices unused: the kernel gives them no
//! neighbours, so no search reaches them); `v` is among the neighbours of `u` iff `u` is
//! among those of `v`; the kernel never leaves the space (a neighbour of an index is an index of the same space).

pub mod cluster;
pub mod codec;
mod depths;
mod driver;
pub mod frontier;
mod layers;
pub mod layout;
mod lex;
mod marks;
mod parity;
mod pull;
mod step;

pub use depths::{DepthArray, UNREACHABLE};
pub use driver::{Claims, Layers, Tuning, list_limit, run, run_until, run_with};
pub use step::Marking;

pub use lex::LexSpace;
pub(crate) use marks::advise_huge_pages;
pub(crate) use marks::try_zeroed;
pub use marks::{DONE, OutOfMemory, StateMarks, UNSEEN};
pub(crate) use parity::{Held, WithHeld, with_held};
pub use parity::{Parity, ParitySpace};

use crate::board::Board;
use crate::shape::Shape;

/// A board's position in the dense index of a [`StateSpace`], `0..space.size()`.
///
/// Indices of different spaces are not comparable: the same board has one index in a
/// [`LexSpace`] (its lexicographic rank among all `n!` boards) and another in a
/// [`ParitySpace`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(transparent)]
pub struct StateIndex(pub u64);

impl StateIndex {
    /// The kernel's mark for a move that leaves the board (never a valid index).
    pub const NONE: StateIndex = StateIndex(u64::MAX);
}

/// A state space of sliding-tile boards, laid out as a dense index `0..size()`.
///
/// Implementations are pure and shareable between threads: no method changes the space.
pub trait StateSpace: Sync {
    /// The board shape.
    fn shape(&self) -> Shape;

    /// Number of boards in the space; indices are `0..size()`.
    fn size(&self) -> u64;

    /// The index of `board`, or `None` when the board is not in this space (another component,
    /// or another shape).
    fn rank(&self, board: &Board) -> Option<StateIndex>;

    /// The board at `index` (`index < size()`).
    fn unrank(&self, index: StateIndex) -> Board;

    /// The kernel: appends to `out` exactly [`StateSpace::degree`] slots per board of `batch`,
    /// in order. For a board space (degree 4) they are the indices of the boards reached
    /// when the blank moves up, down, left and right, or [`StateIndex::NONE`] where that move
    /// leaves the board; other spaces fill their slots with neighbours first and `NONE`
    /// after. Pure: the same batch always gives the same slots. Ascending batches are fastest
    /// (consecutive indices share work).
    fn expand(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>);

    /// Slots per board of [`StateSpace::expand`], the most neighbours a state can have: 4 for
    /// the spaces of boards (the default); more for an abstract space whose state stands for
    /// a set of boards (a pattern database's search, [`crate::solve::pdb`]).
    fn degree(&self) -> usize {
        4
    }

    /// The moves of the layout between consecutive indices, if any (see [`Lanes`]). A driver
    /// may claim those with word-wide bit operations and ask the kernel only for the others
    /// through [`StateSpace::expand_across`]. The default: none.
    fn lanes(&self) -> Option<Lanes> {
        None
    }

    /// The two sides of a bipartite game graph, when the index shows each board's side (see
    /// [`Sides`]): every move then changes side, so a board's depth from a seed is even
    /// exactly when it is on the seed's side. A driver uses it to keep the depths in the
    /// marks ([`Marking::Depths`]). The default: not known (or not bipartite: the multi-tile
    /// metric).
    fn sides(&self) -> Option<Sides> {
        None
    }

    /// The kernel without the lane moves: appends the other neighbours of the boards of
    /// `batch`, compacted (no [`StateIndex::NONE`], so any number per board), in an order
    /// that may group them by board but need not. The default (for a space without lanes)
    /// is [`StateSpace::expand`] without its `NONE` slots.
    fn expand_across(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        let from = out.len();
        self.expand(batch, out);
        drop_none(out, from);
    }

    /// The kernel without any move along a lane ([`Lanes::reach`]: the moves `i ± k`, `k`
    /// up to the reach), compacted as [`StateSpace::expand_across`]: what a driver that
    /// claims every lane move itself asks for (the dense scan). The default, for lanes of
    /// reach 1, is [`StateSpace::expand_across`].
    fn expand_off_lanes(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        self.expand_across(batch, out);
    }
    /// The spans (indices a segment) of the cuts of the index into segments whose boards share
    /// a prefix, coarsest first: cuts along which most moves stay in their segment (see
    /// [`StateSpace::within_segments`]). The frontier search cuts its layers along one
    /// (`bfs::frontier`). The default: none.
    fn prefix_spans(&self) -> Vec<u64> {
        Vec::new()
    }

    /// For the index cut into segments of `span` consecutive indices (segment `s` = indices
    /// `s * span..(s + 1) * span`): the boards every one of whose neighbours off the lanes
    /// ([`StateSpace::expand_across`]) is in its own segment, as bits over `index %`
    /// [`Lanes::period`] (bit `r` set: every board `i` with `i % period == r`). 0 where none
    /// is known, always so for a span not in [`StateSpace::prefix_spans`]; the default.
    fn within_segments(&self, _span: u64) -> u64 {
        0
    }
}

/// Moves between consecutive indices: boards `i` and `i + 1` are one slide apart exactly when
/// bit `i % period` of `right` is set. In the parity layout these are the horizontal moves
/// (`period` = cells, `right` = the cells not in the last column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lanes {
    /// The period of the pattern, at most 64.
    pub period: u64,
    /// Bit `r` set: `i` and `i + 1` are neighbours whenever `i % period == r`.
    pub right: u64,
    /// Bit `r` set: boards `i` with `i % period == r` have exactly one neighbour that is not a
    /// lane move (in the parity layout, a blank in the top or the bottom row: one vertical
    /// move). In a bipartite graph ([`StateSpace::sides`]) such a board of layer `d >= 1`
    /// that was reached by that one move (the marks say so under the across flag; otherwise,
    /// none of its lane neighbours is in layer `d - 1`) has the move's other end in layer
    /// `d - 1`: a driver whose marks show every earlier layer retired need not ask the kernel
    /// for it.
    pub single: u64,
    /// The longest move along a lane: boards `i` and `i + k` (`1 <= k <= reach`) are one move
    /// apart when each of `i, ..., i + k - 1` has a lane move to the next board (in the
    /// parity layout, a jump of the blank along its row): 1 in the single-tile metric,
    /// `cols - 1` in the multi-tile one.
    pub reach: u64,
}

/// Removes the [`StateIndex::NONE`] slots of `out[from..]`, keeping the order of the rest:
/// the kernel's fixed slots compacted.
pub(crate) fn drop_none(out: &mut Vec<StateIndex>, from: usize) {
    let mut kept = from;
    for k in from..out.len() {
        if out[k] != StateIndex::NONE {
            out[kept] = out[k];
            kept += 1;
        }
    }
    out.truncate(kept);
}

impl Lanes {
    /// Whether board `i` has a lane move to board `i + 1`, and whether board `i` (at least 1)
    /// has one to board `i - 1`: the pattern read once for both (one division). The one
    /// reading of [`Lanes::right`] that the scan's masks, the frontier search's lane
    /// neighbours and the layouts' check share.
    #[inline(always)]
    pub fn lane_moves(&self, i: u64) -> (bool, bool) {
        self.lane_moves_of(i % self.period)
    }

    /// [`Lanes::lane_moves`] of the boards `i` with `i % period == r` (`r < period`): for a
    /// caller that has the residue already.
    #[inline]
    pub fn lane_moves_of(&self, r: u64) -> (bool, bool) {
        let before = if r == 0 { self.period - 1 } else { r - 1 };
        (self.right >> r & 1 == 1, self.right >> before & 1 == 1)
    }

    /// Whether boards `i` and `i + k` (`1 <= k <= reach`) are one move along a lane apart:
    /// each of `i, ..., i + k - 1` has a lane move to the next board.
    pub fn reaches_next(&self, i: u64, k: u64) -> bool {
        k <= self.reach && (i..i + k).all(|j| self.lane_moves(j).0)
    }

    /// Whether boards `i` and `i - k` (`1 <= k <= min(i, reach)`; for the masks of a word,
    /// `i` may stand for any index of its class modulo the period) are one move along a lane
    /// apart: each of `i - k, ..., i - 1` has a lane move to the next board.
    pub fn reaches_previous(&self, i: u64, k: u64) -> bool {
        // i - j as i + k * period - j: the same class, never below zero.
        k <= self.reach && (1..=k).all(|j| self.lane_moves(i + k * self.period - j).0)
    }
}

/// The sides of a bipartite game graph by index: board `i` is on side 1 exactly when bit
/// `i % period` of `odd` is set. In the parity layout (single-tile metric) the side is the
/// colour of the blank's cell on a chessboard, `(row + col) % 2`: each slide moves the blank
/// to a cell of the other colour (`period` = cells).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sides {
    /// The period of the pattern, at most 64.
    pub period: u64,
    /// Bit `r` set: boards `i` with `i % period == r` are on side 1.
    pub odd: u64,
}

impl Sides {
    /// The side (0 or 1) of board `index`.
    pub fn of(&self, index: StateIndex) -> u64 {
        self.odd >> (index.0 % self.period) & 1
    }
}

/// Receives each board when it is first reached, with its BFS depth from the seed.
/// Called from several threads; called exactly once per reached board.
pub trait OnVisit: Sync {
    /// Board `index` was reached at `depth`.
    fn visit(&self, index: StateIndex, depth: u32);

    /// `visit` does nothing: a driver may then count boards without naming them.
    const IGNORED: bool = false;
}

/// Ignores visits.
impl OnVisit for () {
    const IGNORED: bool = true;

    #[inline(always)]
    fn visit(&self, _index: StateIndex, _depth: u32) {}
}

/// Whether the processor has the features of x86-64-v3 (AVX2, BMI1, BMI2, LZCNT, POPCNT,
/// FMA, MOVBE; Intel since 2013, AMD since 2015): the hot loops ([`step`]'s scan, the parity
/// index's kernel) are compiled a second time for them and chosen at run time, since a
/// release build targets every x86-64. The answer is cached by the standard library.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn x86_64_v3() -> bool {
    #[cfg(test)]
    if BASELINE_ONLY.with(std::cell::Cell::get) {
        return false;
    }
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("movbe")
}

#[cfg(all(target_arch = "x86_64", test))]
thread_local! {
    /// Tests: [`x86_64_v3`] answers false on this thread ([`baseline_only`]).
    static BASELINE_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Tests: runs `test` twice on this thread, first as the processor allows, then with the copies
/// of the hot loops compiled for every x86-64, as a processor without x86-64-v3 runs them
/// ([`x86_64_v3`] answers false meanwhile). Elsewhere than on x86-64, once.
#[cfg(test)]
pub(crate) fn on_both_copies(test: impl Fn()) {
    test();
    #[cfg(target_arch = "x86_64")]
    {
        BASELINE_ONLY.with(|b| b.set(true));
        assert!(!x86_64_v3());
        test();
        BASELINE_ONLY.with(|b| b.set(false));
    }
}

/// Tests: every board's depth from `seed` by a plain queue over the kernel (`u32::MAX`: not
/// reached), an oracle independent of the drivers.
#[cfg(test)]
pub(crate) fn queue_depths<S: StateSpace>(space: &S, seed: StateIndex) -> Vec<u32> {
    let mut depth = vec![u32::MAX; space.size() as usize];
    depth[seed.0 as usize] = 0;
    let mut queue = std::collections::VecDeque::from([seed]);
    let mut nbs = Vec::new();
    while let Some(b) = queue.pop_front() {
        nbs.clear();
        space.expand(&[b], &mut nbs);
        for &nb in nbs.iter().filter(|&&nb| nb != StateIndex::NONE) {
            if depth[nb.0 as usize] == u32::MAX {
                depth[nb.0 as usize] = depth[b.0 as usize] + 1;
                queue.push_back(nb);
            }
        }
    }
    depth
}
