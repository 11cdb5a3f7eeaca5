//! The one-machine driver: a level-synchronous, parallel (rayon) BFS over a [`StateSpace`] and
//! its [`StateMarks`], the layer loop of [`super::layers`] with the [`Stepper`] `Solo`.
//!
//! A push step expands a layer in one of two ways:
//!
//! - **sparse**: while a layer is small (at most the list limit, `size / 1024` and at least
//!   4,096 boards) its indices are kept in a sorted list and expanded directly;
//! - **dense**: a large layer is found by scanning the whole array, 32 boards per 64-bit word,
//!   for its frontier code.
//!
//! Either way the frontier goes to the space's kernel in ascending batches, and the neighbours
//! it returns are claimed in the marks at once ([`Claims::Random`]): a batch's neighbours are
//! read first and only those that read unseen are claimed, each with a single-bit atomic
//! test-and-set (a compare-exchange under the across flag), their words prefetched a few claims
//! ahead so that cache misses overlap; under [`super::Lanes`] the lane moves of a whole word of
//! frontier boards are claimed with one atomic OR. Exactly one thread discovers each board, so
//! layer sizes are exact. Pull steps, once the boards left are fewer than the frontier, are
//! [`super::pull`]'s, shared with the distributed engine.
//!
//! The caller gets each newly reached board through [`OnVisit`] and the layer sizes in the
//! result. Memory: the marks, plus the lists (at most `3 * list limit` indices).

use std::ops::ControlFlow;

use rayon::prelude::*;

use super::layers::{self, Ended, LoopParams, Step, Stepper};
use super::marks::{Claim, FIELDS_PER_WORD, PARALLEL_LIST};
use super::pull::{self, PULL_RATIO};
use super::step::{self, Buckets, Expander, LaneMasks, LayerCodes, Marking, Owner};
use super::{OnVisit, StateIndex, StateMarks, StateSpace};

/// How the neighbours of a dense layer are claimed on one machine. The distributed engine
/// claims as [`Claims::Random`] does (its owner sends other processes' neighbours in lists
/// and claims its own at once): bucketed claims are measured slower on every shape, so they
/// remain a second path for the tests of one machine, not one the cluster carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claims {
    /// At once, anywhere in the marks: each neighbour read first and claimed if unseen (a
    /// single-bit atomic OR, or under the across flag a compare-exchange), its word prefetched
    /// a few neighbours ahead.
    Random,
    /// Lane moves at once; the other neighbours filed per segment of `2^segment_bits` boards
    /// (`step::Buckets`) while a window of the frontier is expanded, then claimed segment by
    /// segment, one thread per segment, with plain writes. A window holds at most about
    /// `window` filed neighbours (4 bytes each).
    Bucketed {
        /// log2 of the boards per segment (5 to 32).
        segment_bits: u32,
        /// Filed neighbours per window (the buckets' memory is about 4 bytes each, twice that
        /// at worst while vectors grow).
        window: usize,
    },
}

impl Claims {
    /// Segments of 2^22 boards (1 MiB of marks, within a core's L2 here).
    pub const SEGMENT_BITS: u32 = 22;
    /// Neighbours filed per window: 2^26 (256 MiB).
    pub const WINDOW: usize = 1 << 26;

    /// The claims of every run: random claims, measured faster than bucketed ones on every
    /// shape and with less memory (`CHANGELOG.md`, issue 21): with the scan prefetched, the
    /// random claims' misses overlap well, and filing a neighbour costs about as much as
    /// claiming it. In builds with debug
    /// assertions or the `test-hooks` feature only, the environment variable `NPUZZLE_CLAIMS=bucketed` chooses
    /// [`Claims::Bucketed`] instead, for the tests of the whole binary; a release build never
    /// reads it (what it computes does not depend on the environment).
    pub fn configured() -> Claims {
        #[cfg(any(debug_assertions, feature = "test-hooks"))]
        if std::env::var("NPUZZLE_CLAIMS").as_deref() == Ok("bucketed") {
            return Claims::Bucketed {
                segment_bits: Self::SEGMENT_BITS,
                window: Self::WINDOW,
            };
        }
        Claims::Random
    }

    /// Bytes of memory these claims use beyond the marks at most.
    pub fn memory(self) -> u64 {
        match self {
            Claims::Random => 0,
            Claims::Bucketed { window, .. } => window as u64 * 8,
        }
    }
}

/// What one BFS found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layers {
    /// `sizes[d]` = boards at depth `d` from the seed (`sizes[0] == 1`).
    pub sizes: Vec<u64>,
    /// The boards of the last layer (the antipodes of the seed), ascending, when that layer
    /// has at most `list_limit(space size)` boards; otherwise empty.
    pub last: Vec<StateIndex>,
    /// Every layer of at most [`Tuning::listed`] boards, by depth: its depth and its boards,
    /// ascending.
    pub listed: Vec<(u32, Vec<StateIndex>)>,
}

impl Layers {
    /// Total boards reached.
    pub fn reached(&self) -> u64 {
        self.sizes.iter().sum()
    }
}

/// Layers up to this many boards are kept as index lists: `size / 1024`, at least 4,096 and
/// at most 2^23 (64 MiB of indices).
pub fn list_limit(size: u64) -> usize {
    (size / 1024).clamp(1 << 12, 1 << 23) as usize
}

/// BFS from `seed` over the boards of `space` still `UNSEEN` in `marks` (`marks.len()` must be
/// `space.size()`); every reached board ends `DONE` (or, under [`Marking::Depths`], with its
/// depth's code), so that a later run on the same marks (the next component) sees only its own
/// frontier. `on_layer(depth, size, reached_so_far)` is
/// called after each layer is known, from the calling thread.
pub fn run<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    seed: StateIndex,
    visit: &impl OnVisit,
    on_layer: impl FnMut(u32, u64, u64),
) -> Layers {
    run_with(
        space,
        marks,
        seed,
        visit,
        on_layer,
        Tuning::for_size(space.size()),
    )
}

/// The driver's parameters (tests use small ones to reach every path on small boards).
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Layers up to this many boards are kept as sorted lists ([`list_limit`]).
    pub list_limit: usize,
    /// Pull once the frontier is at least this many times the boards left (0: pull from the
    /// first layer on).
    pub pull_ratio: u64,
    /// How dense layers claim their neighbours.
    pub claims: Claims,
    /// What the finished marks hold.
    pub marking: Marking,
    /// Layers of at most this many boards are returned board by board ([`Layers::listed`]);
    /// at most `list_limit` (a larger value counts as `list_limit`).
    pub listed: u64,
}

impl Tuning {
    /// The defaults for a space of `size` boards.
    pub fn for_size(size: u64) -> Tuning {
        Tuning {
            list_limit: list_limit(size),
            pull_ratio: PULL_RATIO,
            claims: Claims::configured(),
            marking: Marking::Frontier,
            listed: 0,
        }
    }
}

/// [`run`] with explicit [`Tuning`].
pub fn run_with<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    seed: StateIndex,
    visit: &impl OnVisit,
    on_layer: impl FnMut(u32, u64, u64),
    tuning: Tuning,
) -> Layers {
    run_until(space, marks, seed, visit, on_layer, tuning, || false)
        .expect("a run that is never stopped finishes")
}

/// [`run_with`] that asks `stop()` after each layer (once `on_layer` has seen it) and, when it
/// says `true`, returns `None` at once: the marks are then left half-made (the caller drops
/// them). A layer is the unit: a stop waits for the layer being built (3x4's largest take
/// about 0.3 s on 2 cores).
pub fn run_until<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    seed: StateIndex,
    visit: &impl OnVisit,
    mut on_layer: impl FnMut(u32, u64, u64),
    tuning: Tuning,
    stop: impl Fn() -> bool,
) -> Option<Layers> {
    let listed = tuning.listed.min(tuning.list_limit as u64);
    debug_assert_eq!(marks.len(), space.size());
    let codes = LayerCodes::flagged(tuning.marking, space, seed, 0);
    let claimed = marks.claim(seed, codes.frontier);
    debug_assert!(claimed, "seed already visited");
    visit.visit(seed, 0);
    on_layer(0, 1, 1);
    let mut solo = Solo {
        space,
        marks,
        seed,
        visit,
        tuning,
        sizes: vec![1],
        pulled_from: None,
        lists: Vec::new(),
        on_layer,
        stop,
    };
    let plan = LoopParams {
        space_size: space.size(),
        list_limit: tuning.list_limit,
        pull_ratio: Some(tuning.pull_ratio),
        listed,
        before: 0,
    };
    match layers::run(&mut solo, &plan, Some(vec![seed])) {
        Ok(Ended::Last(last)) => Some(Layers {
            sizes: solo.sizes,
            last: last.unwrap_or_default(),
            listed: solo.lists,
        }),
        Ok(Ended::Stopped) => None,
        Err(never) => match never {},
    }
}

/// The one-machine [`Stepper`]: every board's claims go straight to the marks ([`Local`]), and
/// a layer's size is its count.
struct Solo<'a, S, V, F, G> {
    space: &'a S,
    marks: &'a StateMarks,
    seed: StateIndex,
    visit: &'a V,
    tuning: Tuning,
    sizes: Vec<u64>,
    pulled_from: Option<u32>,
    lists: Vec<(u32, Vec<StateIndex>)>,
    on_layer: F,
    stop: G,
}

impl<S, V, F, G> Solo<'_, S, V, F, G>
where
    S: StateSpace,
{
    fn codes(&self, depth: u32) -> LayerCodes {
        LayerCodes::flagged(self.tuning.marking, self.space, self.seed, depth)
    }
}

impl<S, V, F, G> Stepper for Solo<'_, S, V, F, G>
where
    S: StateSpace,
    V: OnVisit,
    F: FnMut(u32, u64, u64),
    G: Fn() -> bool,
{
    type Error = std::convert::Infallible;

    fn sizes(&mut self) -> &mut Vec<u64> {
        &mut self.sizes
    }

    fn pulled_from(&mut self) -> &mut Option<u32> {
        &mut self.pulled_from
    }

    fn push(
        &mut self,
        depth: u32,
        list: Option<&[StateIndex]>,
        keep_next: bool,
        keep_current: bool,
    ) -> Result<Step, Self::Error> {
        let (space, marks, visit) = (self.space, self.marks, self.visit);
        let codes = self.codes(depth);
        let (found, next, current) = match list {
            Some(current) => {
                let (n, l) = expand_list(space, marks, &codes, current, depth, keep_next, visit);
                (n, l, None)
            }
            None => match self.tuning.claims {
                Claims::Random => {
                    expand_dense(space, marks, &codes, depth, keep_next, keep_current, visit)
                }
                Claims::Bucketed {
                    segment_bits,
                    window,
                } => expand_bucketed(
                    space,
                    marks,
                    (&codes, depth),
                    (keep_next, keep_current),
                    (segment_bits, window),
                    visit,
                ),
            },
        };
        let next = next.map(|mut l| {
            l.par_sort_unstable();
            l
        });
        Ok(Step {
            found,
            next,
            current,
        })
    }

    fn pull(
        &mut self,
        depth: u32,
        left: &mut Option<Vec<StateIndex>>,
        keep_left: bool,
    ) -> Result<Step, Self::Error> {
        let codes = self.codes(depth);
        let limit = self.tuning.list_limit;
        let (found, next, _) = pull::pull_step(
            self.space, self.marks, &codes, depth, limit, self.visit, left, keep_left,
        );
        Ok(Step {
            found,
            next,
            current: None,
        })
    }

    fn agree(&mut self, found: u64) -> Result<u64, Self::Error> {
        Ok(found)
    }

    fn find_frontier(&mut self, depth: u32) -> Vec<StateIndex> {
        pull::find_frontier(self.marks, &self.codes(depth))
    }

    fn settle(&mut self, from: u32) {
        pull::settle(self.marks, self.tuning.marking, from);
    }

    fn record(&mut self, depth: u32, boards: &[StateIndex]) {
        self.lists.push((depth, boards.to_vec()));
    }

    fn layer_done(&mut self, reached: u64) -> Result<ControlFlow<()>, Self::Error> {
        let depth = (self.sizes.len() - 1) as u32;
        (self.on_layer)(depth, self.sizes[depth as usize], reached);
        Ok(match (self.stop)() {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        })
    }
}

/// The one-machine owner: every neighbour is claimed in the marks at once (see the module's
/// doc), its word prefetched a few claims ahead so that cache misses overlap.
struct Local<'a, V: OnVisit> {
    marks: &'a StateMarks,
    visit: &'a V,
    /// How the claims are made: the code of a claim ([`LayerCodes::claim`]), under the across
    /// flag ([`LayerCodes::flagged`]) or not; never alone (the pool's threads share the marks).
    claim: Claim,
    depth: u32,
    keep: bool,
    found: u64,
    next: Vec<StateIndex>,
    /// [`Owner::route_all`]'s list of the batch's neighbours read unseen.
    unseen: Vec<StateIndex>,
}

impl<'a, V: OnVisit> Local<'a, V> {
    /// Claims for layer `depth` with the codes of `codes` (keeping the claimed indices when
    /// `keep`). The claims of a list step (`dense` false) write the lane claims' code for
    /// every move, so that no board is skipped on their account: the kernel's slots are not
    /// told apart.
    fn new(
        marks: &'a StateMarks,
        visit: &'a V,
        (codes, depth): (&LayerCodes, u32),
        keep: bool,
        dense: bool,
    ) -> Self {
        Local {
            marks,
            visit,
            claim: Claim {
                code: codes.claim,
                flagged: codes.flagged && dense,
                alone: false,
            },
            depth,
            keep,
            found: 0,
            next: Vec::new(),
            unseen: Vec::new(),
        }
    }
}

impl<V: OnVisit> Owner for Local<'_, V> {
    #[inline(always)]
    fn route(&mut self, index: StateIndex) {
        if self.claim(index) {
            self.found(index);
        }
    }

    #[inline(always)]
    fn route_lane(&mut self, index: StateIndex) {
        if self.claim_as(index, 1) {
            self.found(index);
        }
    }

    #[inline(always)]
    fn found(&mut self, index: StateIndex) {
        self.visit.visit(index, self.depth);
        self.found += 1;
        if self.keep {
            self.next.push(index);
        }
    }

    #[inline(always)]
    fn only_counted(&mut self) -> Option<&mut u64> {
        (V::IGNORED && !self.keep).then_some(&mut self.found)
    }

    #[inline(always)]
    fn prefetch(&self, index: StateIndex) {
        self.marks.prefetch(index);
    }

    /// In two passes: the neighbours whose field reads unseen are listed
    /// ([`step::list_unseen`]), then claimed. In one pass, a branch on the field (unseen for
    /// about half of a dense layer's neighbours) is mispredicted about every other claim.
    #[inline(always)]
    fn route_all(&mut self, nbs: &[StateIndex]) {
        let mut unseen = std::mem::take(&mut self.unseen);
        let n = step::list_unseen(
            self.marks,
            nbs,
            &mut unseen,
            step::claimable(self.claim.flagged),
        );
        for &nb in &unseen[..n] {
            if self.claim(nb) {
                self.found(nb);
            }
        }
        self.unseen = unseen;
    }
}

impl<V: OnVisit> Local<'_, V> {
    /// Claims `index`, a neighbour by a move across under the across flag (2), by any move
    /// otherwise; true for exactly one claim per board.
    #[inline(always)]
    fn claim(&self, index: StateIndex) -> bool {
        self.claim_as(index, 2)
    }

    /// [`Local::claim`], writing `flag` (1: a lane move, 2: a move across) under the across
    /// flag.
    #[inline(always)]
    fn claim_as(&self, index: StateIndex, flag: u64) -> bool {
        self.marks.claim_as(index, self.claim, flag)
    }
}

/// Expands the boards of `current` (layer `depth`, ascending); returns the next layer's size
/// and, when `keep_next`, its list.
fn expand_list<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    codes: &LayerCodes,
    current: &[StateIndex],
    depth: u32,
    keep_next: bool,
    visit: &impl OnVisit,
) -> (u64, Option<Vec<StateIndex>>) {
    let expand = |chunk: &[StateIndex]| -> (u64, Vec<StateIndex>) {
        let local = Local::new(marks, visit, (codes, depth + 1), keep_next, false);
        let mut expander = Expander::new(space, local);
        for &r in chunk {
            expander.push(r);
            codes.retire_board(marks, r);
        }
        let owner = expander.finish();
        (owner.found, owner.next)
    };
    let (found, next) = if current.len() < PARALLEL_LIST {
        expand(current)
    } else {
        current.par_chunks(PARALLEL_LIST).map(expand).reduce(
            || (0, Vec::new()),
            |(fa, mut la), (fb, lb)| {
                la.extend(lb);
                (fa + fb, la)
            },
        )
    };
    (found, keep_next.then_some(next))
}

/// What a dense expansion returns: the next layer's size, its list, this layer's list.
type Expanded = (u64, Option<Vec<StateIndex>>, Option<Vec<StateIndex>>);

/// Finds layer `depth` by scanning the marks and expands it. Returns the next layer's size,
/// its list when `keep_next`, and this layer's list (ascending) when `keep_current`.
///
/// When the space has [`super::Lanes`], the lane moves of a whole word of frontier boards are
/// claimed at once with shifts and masks (one atomic OR per word, which also retires the
/// frontier), and the kernel is asked only for the other moves.
fn expand_dense<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    codes: &LayerCodes,
    depth: u32,
    keep_next: bool,
    keep_current: bool,
    visit: &impl OnVisit,
) -> Expanded {
    let lanes = LaneMasks::of(space);
    let (found, next, current) = marks
        .par_chunks()
        .map(|(first, words)| {
            let owner = Local::new(marks, visit, (codes, depth + 1), keep_next, true);
            let (owner, current) = scan_part(
                space,
                lanes.as_ref(),
                words,
                first,
                codes,
                owner,
                keep_current,
            );
            (owner.found, owner.next, current)
        })
        .reduce(
            || (0, Vec::new(), Vec::new()),
            |(fa, mut na, mut ca), (fb, nb, cb)| {
                na.extend(nb);
                ca.extend(cb);
                (fa + fb, na, ca)
            },
        );
    (
        found,
        keep_next.then_some(next),
        keep_current.then_some(current),
    )
}

/// One thread's part of a dense layer: scans `words` (board `first + 32k + f` is field `f`
/// of `words[k]`) for the layer of `codes` with [`step::scan`] and expands what it finds into
/// `owner`. Returns the owner and, when `keep_current`, the boards of the layer found.
fn scan_part<S: StateSpace, O: Owner>(
    space: &S,
    lanes: Option<&LaneMasks>,
    words: &[std::sync::atomic::AtomicU64],
    first: u64,
    codes: &LayerCodes,
    owner: O,
    keep_current: bool,
) -> (O, Vec<StateIndex>) {
    let size = space.size();
    let mut expander = Expander::new(space, owner);
    let mut current = Vec::new();
    step::scan(
        words,
        first,
        size,
        codes,
        lanes.map(|l| (l, size)),
        &mut expander,
        keep_current.then_some(&mut current),
    );
    (expander.finish(), current)
}

/// [`expand_dense`] with [`Claims::Bucketed`]: the marks are scanned in windows; in each, the
/// frontier is expanded in parallel parts that claim lane moves at once and file the other
/// neighbours per segment, then the segments are claimed in parallel, one thread each. The
/// window adapts so that it files about `window` neighbours.
fn expand_bucketed<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    (codes, depth): (&LayerCodes, u32),
    (keep_next, keep_current): (bool, bool),
    (segment_bits, window): (u32, usize),
    visit: &impl OnVisit,
) -> Expanded {
    /// Files every neighbour but the lane moves of a word, which it claims as [`Local`] does.
    struct Filing<'a, V: OnVisit> {
        local: Local<'a, V>,
        buckets: Buckets,
    }
    impl<V: OnVisit> Owner for Filing<'_, V> {
        #[inline(always)]
        fn route(&mut self, index: StateIndex) {
            self.buckets.push(index);
        }
        #[inline(always)]
        fn route_lane(&mut self, index: StateIndex) {
            self.local.route_lane(index);
        }
        #[inline(always)]
        fn found(&mut self, index: StateIndex) {
            self.local.found(index);
        }
    }

    let size = marks.len();
    let words = marks.words();
    let lanes = LaneMasks::of(space);
    let parts_count = 4 * rayon::current_num_threads();
    let mut parts: Vec<Buckets> = (0..parts_count)
        .map(|_| Buckets::new(size, segment_bits))
        .collect();
    let segment_words = 1usize << (segment_bits - 5);
    let mut found = 0u64;
    let mut next = Vec::new();
    let mut current = Vec::new();
    // Words per window: a first guess from the degree, then from what the last window filed.
    let per_word = (space.degree() as u64 * FIELDS_PER_WORD).max(1);
    let mut window_words = (window as u64 / per_word).max(parts_count as u64) as usize;
    let mut start = 0usize;
    while start < words.len() {
        let end = (start + window_words).min(words.len());
        let part_words = (end - start).div_ceil(parts_count);
        // Expand the window's frontier, part by part.
        let expanded: Vec<(u64, Vec<StateIndex>, Vec<StateIndex>)> = parts
            .par_iter_mut()
            .enumerate()
            .map(|(p, buckets)| {
                let from = (start + p * part_words).min(end);
                let to = (from + part_words).min(end);
                let owner = Filing {
                    local: Local::new(marks, visit, (codes, depth + 1), keep_next, true),
                    buckets: std::mem::replace(buckets, Buckets::new(0, segment_bits)),
                };
                let first = from as u64 * FIELDS_PER_WORD;
                let (owner, current) = scan_part(
                    space,
                    lanes.as_ref(),
                    &words[from..to],
                    first,
                    codes,
                    owner,
                    keep_current,
                );
                *buckets = owner.buckets;
                (owner.local.found, owner.local.next, current)
            })
            .collect();
        for (f, n, c) in expanded {
            found += f;
            next.extend(n);
            current.extend(c);
        }
        // Claim what was filed, segment by segment.
        let filed: usize = parts.iter().map(Buckets::len).sum();
        let claimed = words
            .par_chunks(segment_words)
            .enumerate()
            .map(|(segment, segment_words)| {
                let mut local = Local::new(marks, visit, (codes, depth + 1), keep_next, true);
                let claim = match codes.flagged {
                    true => (2, true),
                    false => (codes.claim, false),
                };
                step::claim_segment(segment_words, &parts, segment, claim, |i| local.found(i));
                (local.found, local.next)
            })
            .reduce(
                || (0, Vec::new()),
                |(fa, mut na), (fb, nb)| {
                    na.extend(nb);
                    (fa + fb, na)
                },
            );
        found += claimed.0;
        next.extend(claimed.1);
        parts.par_iter_mut().for_each(Buckets::clear);
        // The next window files about `window` neighbours at this window's rate.
        let rate = window as u128 * (end - start) as u128 / filed.max(1) as u128;
        // (At least a word per part where there are that many words.)
        let least = (parts_count as u128).min(words.len() as u128);
        window_words = rate.clamp(least, words.len() as u128) as usize;
        start = end;
    }
    (
        found,
        keep_next.then_some(next),
        keep_current.then_some(current),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{LexSpace, Parity, ParitySpace};
    use crate::board::Board;
    use crate::shape::Shape;
    use std::sync::atomic::Ordering::Relaxed;

    /// 3x3 layer sizes, OEIS A089473, through both the sparse and the dense path, on both
    /// indices; and the two antipodes.
    #[test]
    fn layer_sizes_3x3_in_both_modes_and_both_spaces() {
        let a089473 = crate::published::A089473;
        let shape = Shape::new(3, 3).unwrap();
        let goal = Board::goal(shape);
        let parity = ParitySpace::new(shape, Parity::Even).unwrap();
        let lex = LexSpace::new(shape).unwrap();
        for limit in [1usize, 100, 1 << 20] {
            let parity_run = bfs(&parity, &goal, limit);
            let lex_run = bfs(&lex, &goal, limit);
            for (name, layers, labels) in [
                ("parity", &parity_run, labels(&parity, &parity_run)),
                ("lex", &lex_run, labels(&lex, &lex_run)),
            ] {
                assert_eq!(layers.sizes, a089473, "{name}, list limit {limit}");
                if limit < 2 {
                    assert!(
                        layers.last.is_empty(),
                        "a last layer over the limit is listed"
                    );
                    continue;
                }
                assert_eq!(labels, ["647859321", "867254391"], "{name}");
            }
        }
    }

    /// The parity index's layers (dense scans with lane claims, sparse lists, pull steps)
    /// equal the lexicographic index's on every shape of 2 rows and 2 columns up to 10 cells,
    /// whatever the list limit, from the standard goal and from a goal with the blank inside.
    #[test]
    fn parity_and_lexicographic_layers_agree() {
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            let lex = LexSpace::new(shape).unwrap();
            let mut goals = vec![Board::goal(shape)];
            let mut inside = Board::goal(shape).permutation().to_vec();
            inside.swap(shape.cells() - 1, shape.cols() + 1);
            goals.push(Board::from_permutation(shape, inside).unwrap());
            for goal in &goals {
                let parity = ParitySpace::new(shape, Parity::of(goal)).unwrap();
                for limit in [1usize, 100, 1 << 20] {
                    let p = bfs(&parity, goal, limit);
                    let l = bfs(&lex, goal, limit);
                    assert_eq!(
                        p.sizes,
                        l.sizes,
                        "{shape} goal {} limit {limit}",
                        goal.label()
                    );
                    assert_eq!(labels(&parity, &p), labels(&lex, &l), "{shape}");
                }
            }
        }
    }

    fn bfs<S: StateSpace>(space: &S, goal: &Board, limit: usize) -> Layers {
        bfs_with(space, goal, limit, Claims::Random)
    }

    fn bfs_with<S: StateSpace>(space: &S, goal: &Board, limit: usize, claims: Claims) -> Layers {
        let marks = StateMarks::new(space.size());
        let seed = space.rank(goal).unwrap();
        let tuning = Tuning {
            list_limit: limit,
            pull_ratio: PULL_RATIO,
            claims,
            marking: Marking::Frontier,
            listed: 0,
        };
        run_with(space, &marks, seed, &(), |_, _, _| {}, tuning)
    }

    /// Pull steps from the first layer on, over both components of 2x3 in turn on the same
    /// marks, from the goal and from its image with two tiles relabelled: each gives OEIS
    /// A090034, so the second run saw none of the first's boards as its frontier.
    #[test]
    fn pulling_from_the_start_and_a_second_component_on_the_same_marks() {
        let a090034 = [
            1u64, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1,
        ];
        let shape = Shape::new(2, 3).unwrap();
        let lex = LexSpace::new(shape).unwrap();
        let goal = lex.rank(&Board::goal(shape)).unwrap();
        for limit in [1usize, 1 << 20] {
            let marks = StateMarks::new(lex.size());
            let first = run_with(&lex, &marks, goal, &(), |_, _, _| {}, pulling(limit));
            assert_eq!(first.sizes, a090034, "limit {limit}");
            // The goal with tiles 1 and 2 swapped: the image of the goal under relabelling,
            // so the same distribution.
            let mut swapped = Board::goal(shape).permutation().to_vec();
            swapped.swap(0, 1);
            let other = lex
                .rank(&Board::from_permutation(shape, swapped).unwrap())
                .unwrap();
            let second = run_with(&lex, &marks, other, &(), |_, _, _| {}, pulling(limit));
            assert_eq!(second.sizes, a090034, "limit {limit}");
            assert_eq!(marks.next_unseen(0), None);
            if limit > 1 {
                assert_eq!(first.last.len(), 1);
            }
        }
    }

    fn pulling(limit: usize) -> Tuning {
        Tuning {
            list_limit: limit,
            pull_ratio: 0,
            claims: Claims::Random,
            marking: Marking::Frontier,
            listed: 0,
        }
    }

    /// [`Marking::Depths`] (issue 25): on every grid up to 10 cells, from the standard goal
    /// and from a goal of the other class with the blank inside, through every path (sparse
    /// lists, dense scans with lane claims, bucketed claims, pull steps from the start, from
    /// the usual point and never, over the marks or over a list of the boards left), the
    /// layers are those of Korf's marks, every board ends with the code `2 + (d / 2) % 2` of
    /// its depth `d` (from the per-board depths of a run under [`Marking::Frontier`] without
    /// pull steps), and each listed layer holds exactly its boards.
    #[test]
    #[ignore = "slow: the depth marks on every grid (15 s); CI runs it"]
    fn depth_marks_keep_every_depth() {
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            for goal in two_goals(shape) {
                let space = ParitySpace::new(shape, Parity::of(&goal)).unwrap();
                let seed = space.rank(&goal).unwrap();
                let depths = crate::bfs::DepthArray::new(space.size());
                let marks = StateMarks::new(space.size());
                let push_only = Tuning {
                    pull_ratio: u64::MAX,
                    ..pulling(100)
                };
                let want = run_with(&space, &marks, seed, &depths, |_, _, _| {}, push_only);
                let bucketed = small_buckets(shape);
                for (limit, pull_ratio, claims) in [
                    (1, PULL_RATIO, Claims::Random),
                    (100, PULL_RATIO, Claims::Random),
                    (1 << 20, PULL_RATIO, Claims::Random),
                    (100, PULL_RATIO, bucketed),
                    (100, 0, Claims::Random),
                    (1 << 20, 0, Claims::Random),
                    (1, 0, Claims::Random),
                    (100, 1 << 40, Claims::Random),
                    (1, u64::MAX, Claims::Random),
                ] {
                    let tuning = Tuning {
                        list_limit: limit,
                        pull_ratio,
                        claims,
                        marking: Marking::Depths,
                        listed: 30,
                    };
                    let case = format!("{shape} {} {tuning:?}", goal.label());
                    let marks = StateMarks::new(space.size());
                    let got = run_with(&space, &marks, seed, &(), |_, _, _| {}, tuning);
                    assert_eq!(got.sizes, want.sizes, "{case}");
                    let mut layers = vec![Vec::new(); want.sizes.len()];
                    for i in 0..space.size() {
                        let d = depths.get(StateIndex(i)).unwrap();
                        let code = LayerCodes::settled(u32::from(d));
                        assert_eq!(marks.get(StateIndex(i)), code, "{case} board {i} depth {d}");
                        layers[d as usize].push(StateIndex(i));
                    }
                    let listed: Vec<_> = layers
                        .into_iter()
                        .enumerate()
                        .filter(|(_, l)| l.len() <= 30.min(limit))
                        .map(|(d, l)| (d as u32, l))
                        .collect();
                    assert_eq!(got.listed, listed, "{case}");
                }
            }
        }
    }

    /// Bucketed claims (with windows and segments small enough that a layer spans several of
    /// each) give the layers and antipodes of random claims on every grid up to 10 cells, for
    /// the standard goal and a goal in the other parity class, on both indices.
    #[test]
    #[ignore = "slow: both claim orders on every grid (14 s); CI runs it"]
    fn bucketed_and_random_claims_agree() {
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            let lex = LexSpace::new(shape).unwrap();
            let mut swapped = Board::goal(shape).permutation().to_vec();
            swapped.swap(0, 1);
            let goals = [
                Board::goal(shape),
                Board::from_permutation(shape, swapped).unwrap(),
            ];
            let claims = [
                small_buckets(shape),
                Claims::Bucketed {
                    segment_bits: 20,
                    window: 1 << 20,
                },
            ];
            for goal in &goals {
                let parity = ParitySpace::new(shape, Parity::of(goal)).unwrap();
                let want_p = bfs(&parity, goal, 100);
                let want_l = bfs(&lex, goal, 100);
                assert!(want_p.sizes.len() > 5, "{shape}");
                for c in claims {
                    let p = bfs_with(&parity, goal, 100, c);
                    assert_eq!(p.sizes, want_p.sizes, "{shape} {} {c:?}", goal.label());
                    assert_eq!(labels(&parity, &p), labels(&parity, &want_p), "{shape}");
                    let l = bfs_with(&lex, goal, 100, c);
                    assert_eq!(l.sizes, want_l.sizes, "{shape} {} {c:?}", goal.label());
                    assert_eq!(labels(&lex, &l), labels(&lex, &want_l), "{shape} {c:?}");
                }
            }
        }
    }

    /// The parity index, counting the boards its kernel is asked to expand across.
    struct Counting<'a> {
        inner: &'a ParitySpace,
        across: std::sync::atomic::AtomicU64,
    }

    impl StateSpace for Counting<'_> {
        fn shape(&self) -> Shape {
            self.inner.shape()
        }
        fn size(&self) -> u64 {
            self.inner.size()
        }
        fn rank(&self, board: &Board) -> Option<StateIndex> {
            self.inner.rank(board)
        }
        fn unrank(&self, index: StateIndex) -> Board {
            self.inner.unrank(index)
        }
        fn expand(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
            self.inner.expand(batch, out);
        }
        fn lanes(&self) -> Option<crate::bfs::Lanes> {
            self.inner.lanes()
        }
        fn sides(&self) -> Option<crate::bfs::Sides> {
            self.inner.sides()
        }
        fn expand_across(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
            self.across.fetch_add(batch.len() as u64, Relaxed);
            self.inner.expand_across(batch, out);
        }
    }

    /// The across flag ([`LayerCodes::flagged`], what [`run`] takes on the parity index): on
    /// every grid up to 10 cells, from the standard goal and from a goal of the other class
    /// with the blank inside, through every path (lists, dense scans, bucketed claims, pull
    /// steps from the start, as usual and never), every board is visited at its depth from a
    /// plain queue over the kernel, and the layers are those. With dense layers only and no
    /// pull step, the kernel is asked across for exactly the boards of layers 1 to the last
    /// but one, less those of layers 2 on with one move across whose other end is one layer
    /// closer (on two rows, about half of them; the rule without the flag leaves more).
    #[test]
    #[ignore = "slow: the across flag on every grid (16 s); CI runs it"]
    fn the_across_flag_skips_every_board_reached_across() {
        for shape in Shape::all_up_to(10).filter(|s| s.is_grid()) {
            for goal in two_goals(shape) {
                let parity = ParitySpace::new(shape, Parity::of(&goal)).unwrap();
                let space = Counting {
                    inner: &parity,
                    across: Default::default(),
                };
                let seed = space.rank(&goal).unwrap();
                assert!(LayerCodes::flagged(Marking::Frontier, &space, seed, 3).flagged);
                let n = space.size() as usize;
                let depth = crate::bfs::queue_depths(&space, seed);
                let max = *depth.iter().max().unwrap();
                let mut sizes = vec![0u64; max as usize + 1];
                depth.iter().for_each(|&d| sizes[d as usize] += 1);
                // The boards a push-only run of dense layers skips.
                let lanes = space.lanes().unwrap();
                let skippable = (0..n as u64)
                    .filter(|&i| (2..max).contains(&depth[i as usize]))
                    .filter(|&i| lanes.single >> (i % lanes.period) & 1 == 1)
                    .filter(|&i| {
                        let mut across = Vec::new();
                        space.expand_across(&[StateIndex(i)], &mut across);
                        depth[across[0].0 as usize] + 1 == depth[i as usize]
                    })
                    .count() as u64;
                space.across.store(0, Relaxed);
                let dense: u64 = sizes[1..max as usize].iter().sum();
                let bucketed = small_buckets(shape);
                for (limit, pull_ratio, claims) in [
                    (1, u64::MAX, Claims::Random),
                    (1, u64::MAX, bucketed),
                    (1, PULL_RATIO, Claims::Random),
                    (100, PULL_RATIO, Claims::Random),
                    (1 << 20, PULL_RATIO, Claims::Random),
                    (100, PULL_RATIO, bucketed),
                    (100, 0, Claims::Random),
                    (1, 0, Claims::Random),
                ] {
                    let tuning = Tuning {
                        list_limit: limit,
                        pull_ratio,
                        claims,
                        marking: Marking::Frontier,
                        listed: 0,
                    };
                    let case = format!("{shape} {} {tuning:?}", goal.label());
                    let marks = StateMarks::new(space.size());
                    let depths = crate::bfs::DepthArray::new(space.size());
                    space.across.store(0, Relaxed);
                    let got = run_with(&space, &marks, seed, &depths, |_, _, _| {}, tuning);
                    assert_eq!(got.sizes, sizes, "{case}");
                    for (i, &d) in depth.iter().enumerate() {
                        let got = depths.get(StateIndex(i as u64)).map(u32::from);
                        assert_eq!(got, Some(d), "{case} board {i}");
                        assert_eq!(marks.get(StateIndex(i as u64)), 3, "{case} board {i}");
                    }
                    if limit == 1 && pull_ratio == u64::MAX {
                        let asked = space.across.load(Relaxed);
                        assert_eq!(asked, dense - skippable, "{case}: asked across");
                        if shape.rows() == 2 && shape.cells() >= 8 {
                            assert!(skippable * 5 > dense * 2, "{case}: {skippable} of {dense}");
                        }
                    }
                }
            }
        }
    }

    /// The standard goal of `shape` and a goal of the other class with the blank inside.
    fn two_goals(shape: Shape) -> [Board; 2] {
        let mut inside = Board::goal(shape).permutation().to_vec();
        inside.swap(shape.cells() - 1, shape.cols() + 1);
        inside.swap(0, 1);
        [
            Board::goal(shape),
            Board::from_permutation(shape, inside).unwrap(),
        ]
    }

    /// Bucketed claims whose windows and segments are small enough that a layer of `shape`
    /// spans several of each.
    fn small_buckets(shape: Shape) -> Claims {
        let small = shape.cells() <= 8;
        Claims::Bucketed {
            segment_bits: if small { 5 } else { 8 },
            window: if small { 16 } else { 1 << 12 },
        }
    }

    fn labels<S: StateSpace>(space: &S, layers: &Layers) -> Vec<String> {
        let mut labels: Vec<String> = layers
            .last
            .iter()
            .map(|&i| space.unrank(i).label())
            .collect();
        labels.sort();
        labels
    }
}
