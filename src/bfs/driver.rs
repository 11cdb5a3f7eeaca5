//! The layer driver: a level-synchronous, parallel (rayon) BFS over a [`StateSpace`] and its
//! [`StateMarks`].
//!
//! A layer is expanded in one of two ways:
//!
//! - **sparse**: while a layer is small (at most the list limit, `size / 1024` and at least
//!   4,096 boards) its indices are kept in a sorted list and expanded directly;
//! - **dense**: a large layer is found by scanning the whole array, 32 boards per 64-bit word,
//!   for its frontier code.
//!
//! Either way the frontier goes to the space's kernel in ascending batches ("push"), and the
//! neighbours it returns are claimed with one atomic test-and-set each, their words prefetched
//! a few claims ahead so that cache misses overlap. Exactly one thread discovers each board, so
//! layer sizes are exact.
//!
//! Once the boards not yet reached are fewer than the frontier, the driver turns around
//! ("pull", the direction-optimizing BFS of Beamer, Asanović & Patterson 2012): each unseen
//! board goes through the kernel and joins the next layer when one of its neighbours is in the
//! frontier. A pull step over the marks writes only the words its thread scans, so it needs
//! no atomic operation, and it touches the few boards left instead of the large frontier. In an
//! undirected graph an unseen board cannot be adjacent to a layer before the frontier, so the
//! frontier code alone identifies the frontier and pull steps retire nothing. Once the boards
//! left fit the list limit, the pull step that finds so lists them, and the later ones
//! examine that list (minus the boards that join; atomically, since its parts share words)
//! instead of scanning the marks: on 2x7 each of the last dozen layers, a few million boards
//! at most, took a scan of 10.9 GB.
//!
//! The caller gets each newly reached board through [`OnVisit`] and the layer sizes in the
//! result. Memory: the marks, plus the lists (at most `3 * list limit` indices).

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::marks::{FIELDS_PER_WORD, LOW_BITS};
use super::step::{self, BATCH, Buckets, Expander, LaneMasks, LayerCodes, Marking, Owner};
use super::{OnVisit, StateIndex, StateMarks, StateSpace};

/// Words per parallel work item in dense scans (65,536 boards).
const CHUNK_WORDS: usize = 2048;
/// Lists shorter than this are expanded on the calling thread.
const PARALLEL_LIST: usize = 4096;
/// How many claims ahead a neighbour's word is prefetched.
const AHEAD: usize = 16;
/// Pull once the frontier is at least this many times the boards left.
pub(super) const PULL_RATIO: u64 = 1;

/// How the neighbours of a dense layer are claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claims {
    /// At once, one atomic test-and-set each anywhere in the marks, the words prefetched a few
    /// claims ahead.
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

    /// The claims of every run: random claims, measured faster on every shape (3x4: 16.9
    /// against 18.9 ns per board, with a third of the memory; 2x7: bucketed 4-24% slower per
    /// layer, because with the scan prefetched the random claims' misses overlap well and
    /// filing a neighbour costs about as much as claiming it). In builds with debug
    /// assertions only, the environment variable `NPUZZLE_CLAIMS=bucketed` chooses
    /// [`Claims::Bucketed`] instead, for the tests of the whole binary; a release build never
    /// reads it (what it computes does not depend on the environment).
    pub fn configured() -> Claims {
        #[cfg(debug_assertions)]
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
    let Tuning {
        list_limit,
        pull_ratio,
        claims,
        marking,
        listed,
    } = tuning;
    let listed = listed.min(list_limit as u64);
    let mut lists = Vec::new();
    debug_assert_eq!(marks.len(), space.size());
    let claimed = marks.claim(seed, LayerCodes::flagged(marking, space, seed, 0).frontier);
    debug_assert!(claimed, "seed already visited");
    visit.visit(seed, 0);
    let mut sizes = vec![1u64];
    let mut reached = 1u64;
    on_layer(0, 1, reached);
    // The current layer as a sorted list, when it is small enough to keep.
    let mut list: Option<Vec<StateIndex>> = Some(vec![seed]);
    let mut depth = 0u32;
    // The layer the first pull step expanded.
    let mut pulled_from = None;
    // The boards still unseen, ascending, once a pull step found that they fit the list
    // limit: later pull steps examine those instead of scanning the marks.
    let mut unseen: Option<Vec<StateIndex>> = None;
    loop {
        let size = sizes[depth as usize];
        let keep_next = size.saturating_mul(4) <= list_limit as u64;
        let codes = LayerCodes::flagged(marking, space, seed, depth);
        if pulled_from.is_none() && (space.size() - reached).saturating_mul(pull_ratio) <= size {
            pulled_from = Some(depth);
            if list.is_none() && size <= listed {
                // The one layer a pull step may not have listed: the first frontier, which
                // alone holds the frontier code then.
                list = Some(find_frontier(marks, &codes));
            }
        }
        let (next_size, next_list, current) = match list.take() {
            current if pulled_from.is_some() => {
                let (n, l) = match unseen.as_mut() {
                    Some(left) => pull_listed(space, marks, &codes, depth, visit, left),
                    None => {
                        // At most this many boards are left after the step.
                        let unseen_now = space.size() - reached;
                        let keep_left = unseen_now <= list_limit as u64;
                        let (n, l, _, left) =
                            pull(space, marks, &codes, depth, list_limit, visit, keep_left);
                        unseen = left.map(|mut l| {
                            l.par_sort_unstable();
                            l
                        });
                        (n, l)
                    }
                };
                (n, l, current)
            }
            Some(current) => {
                let (n, l) = expand_list(space, marks, &codes, &current, depth, keep_next, visit);
                (n, l, Some(current))
            }
            None => {
                let keep_current = size <= list_limit as u64;
                match claims {
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
                }
            }
        };
        if size <= listed {
            lists.push((depth, current.clone().unwrap_or_default()));
        }
        if next_size == 0 {
            if let Some(from) = pulled_from {
                settle(marks, marking, from);
            }
            return Some(Layers {
                sizes,
                last: current.unwrap_or_default(),
                listed: lists,
            });
        }
        depth += 1;
        reached += next_size;
        sizes.push(next_size);
        on_layer(depth, next_size, reached);
        if stop() {
            return None;
        }
        list = next_list.map(|mut l| {
            l.par_sort_unstable();
            l
        });
    }
}

/// The one-machine owner: every neighbour is claimed in the marks at once (one atomic
/// test-and-set each, its word prefetched a few claims ahead so that cache misses overlap).
struct Local<'a, V: OnVisit> {
    marks: &'a StateMarks,
    visit: &'a V,
    /// The code of a claim ([`LayerCodes::claim`]); under the across flag, of a lane claim.
    code: u64,
    /// Claims under the across flag ([`LayerCodes::flagged`]): moves across write 2.
    flagged: bool,
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
            code: codes.claim,
            flagged: codes.flagged && dense,
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
    fn found_fields(&mut self, base: u64, fields: u64) {
        if V::IGNORED && !self.keep {
            // Only counted: no loop whose exit depends on the word.
            self.found += u64::from(fields.count_ones());
            return;
        }
        step::each_field(base, fields, |index| self.found(index));
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
        let n = step::list_unseen(self.marks, nbs, &mut unseen, step::claimable(self.flagged));
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
        match self.flagged {
            true => self.marks.claim_flagged(index, flag),
            false => self.marks.claim(index, self.code),
        }
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
type Found = (u64, Option<Vec<StateIndex>>, Option<Vec<StateIndex>>);

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
) -> Found {
    let lanes = LaneMasks::of(space);
    let (found, next, current) = marks
        .words()
        .par_chunks(CHUNK_WORDS)
        .enumerate()
        .map(|(chunk_index, words)| {
            let first = (chunk_index * CHUNK_WORDS) as u64 * FIELDS_PER_WORD;
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
) -> Found {
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

/// After pull steps from layer `from` on: under [`Marking::Frontier`] marks every reached
/// board `DONE` (pull steps leave their layers with frontier codes); under
/// [`Marking::Depths`] gives layer `from`, the one frontier left unexpanded (later pull steps
/// write their boards' final codes), its final code.
pub(super) fn settle(marks: &StateMarks, marking: Marking, from: u32) {
    marks.words().par_chunks(CHUNK_WORDS).for_each(|words| {
        for word in words {
            let x = word.load(Relaxed);
            match marking {
                Marking::Frontier => {
                    let reached = (x | (x >> 1)) & LOW_BITS;
                    if reached != 0 {
                        word.fetch_or(reached * 3, Relaxed);
                    }
                }
                Marking::Depths => {
                    let ones = x & !(x >> 1) & LOW_BITS;
                    if ones != 0 {
                        // 01 becomes 10 or 11: the layer's code.
                        let code = LayerCodes::settled(from);
                        word.store((x & !(ones * 3)) | (ones * code), Relaxed);
                    }
                }
            }
        }
    });
}

/// The boards holding the frontier code of `codes` on the frontier's side, ascending.
pub(super) fn find_frontier(marks: &StateMarks, codes: &LayerCodes) -> Vec<StateIndex> {
    let size = marks.len();
    marks
        .words()
        .par_chunks(CHUNK_WORDS)
        .enumerate()
        .flat_map_iter(|(chunk, words)| {
            let mut found = Vec::new();
            for (k, word) in words.iter().enumerate() {
                let base = ((chunk * CHUNK_WORDS + k) as u64) * FIELDS_PER_WORD;
                let mut m = codes.live(word.load(Relaxed), base);
                while m != 0 {
                    let r = base + u64::from(m.trailing_zeros() / 2);
                    m &= m - 1;
                    if r < size {
                        found.push(StateIndex(r));
                    }
                }
            }
            found
        })
        .collect()
}

/// What a pull step writes and looks for. Under `Marking::Frontier` a board joins when a
/// neighbour holds the frontier code (those of earlier layers are retired, or are not
/// adjacent to an unseen board). Under `Marking::Depths` only the boards on the other side
/// than the frontier can join, all their neighbours are on the frontier's side, and a
/// reached one can only be in the frontier: an earlier layer's neighbours are all reached,
/// and the boards this step reaches are on the other side. Its boards get their final code at
/// once. Under the across flag, likewise only the other side joins, a neighbour holding 1 or
/// 2 is in the frontier, and the boards that join get 1.
struct PullCodes {
    depths: bool,
    /// The across flag: the frontier is the fields holding 1 or 2 (the boards the step
    /// reaches, on the other side, get 1).
    flagged: bool,
    /// Only the boards on the other side than the frontier can join, and are examined
    /// (`Marking::Depths` or the across flag: the step's new boards hold a code that a
    /// frontier board may hold too).
    sided: bool,
    /// The field value a joining board gets.
    new: u64,
    frontier: u64,
}

impl PullCodes {
    fn new(codes: &LayerCodes, depth: u32) -> PullCodes {
        let depths = codes.depths();
        PullCodes {
            depths,
            flagged: codes.flagged,
            sided: codes.sides.is_some(),
            new: match depths {
                false => codes.claim,
                true => LayerCodes::settled(depth + 1),
            },
            frontier: codes.frontier,
        }
    }

    #[inline(always)]
    fn in_frontier(&self, field: u64) -> bool {
        match (self.depths, self.flagged) {
            (true, _) => field != 0,
            (false, true) => field == 1 || field == 2,
            (false, false) => field == self.frontier,
        }
    }
}

/// Expands the unseen boards `batch` and calls `each(board, joins)` for each in order, `joins`
/// when one of its neighbours is in the frontier; the neighbours' words are prefetched
/// [`AHEAD`] boards ahead. `slots` is scratch.
#[inline(always)]
fn decide<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    pc: &PullCodes,
    batch: &[StateIndex],
    slots: &mut Vec<StateIndex>,
    mut each: impl FnMut(StateIndex, bool),
) {
    let degree = space.degree();
    slots.clear();
    space.expand(batch, slots);
    for &nb in &slots[..slots.len().min(AHEAD)] {
        marks.prefetch(nb);
    }
    for (k, (&board, own)) in batch.iter().zip(slots.chunks_exact(degree)).enumerate() {
        for &ahead in slots
            .get(degree * (k + AHEAD)..degree * (k + AHEAD + 1))
            .unwrap_or(&[])
        {
            marks.prefetch(ahead);
        }
        let joins = own
            .iter()
            .any(|&nb| nb != StateIndex::NONE && pc.in_frontier(marks.get(nb)));
        each(board, joins);
    }
}

/// A pull step: layer `depth + 1` is the unseen boards with a neighbour in layer `depth`.
/// Returns its size, its list when it has at most `list_limit` boards (the frontier codes of
/// earlier layers are not retired, so the last layer could not be found afterwards), the
/// unseen boards it expanded to decide, and, when `keep_left` and they are at most
/// `list_limit`, the boards still unseen after it (in no particular order), for
/// [`pull_listed`].
pub(super) fn pull<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    codes: &LayerCodes,
    depth: u32,
    list_limit: usize,
    visit: &impl OnVisit,
    keep_left: bool,
) -> (u64, Option<Vec<StateIndex>>, u64, Option<Vec<StateIndex>>) {
    let pc = PullCodes::new(codes, depth);
    let size = marks.len();
    marks
        .words()
        .par_chunks(CHUNK_WORDS)
        .enumerate()
        .map(|(chunk_index, words)| {
            let mut batch = Vec::with_capacity(BATCH + 32);
            let mut slots = Vec::with_capacity(space.degree() * (BATCH + 32));
            let mut found = 0u64;
            let mut examined = 0u64;
            let mut next = Some(Vec::new());
            // The boards left unseen (a board on the frontier's side under `Marking::Depths`
            // or the across flag is not examined, and stays).
            let mut left = keep_left.then(Vec::new);
            let first = (chunk_index * CHUNK_WORDS) as u64 * FIELDS_PER_WORD;
            let mut decide_all =
                |batch: &mut Vec<StateIndex>,
                 slots: &mut Vec<StateIndex>,
                 left: &mut Option<Vec<StateIndex>>| {
                    examined += batch.len() as u64;
                    decide(space, marks, &pc, batch, slots, |board, joins| {
                        if joins {
                            // Only this thread writes the words of its chunk during a pull step,
                            // and other threads read only their frontier fields, which this
                            // write leaves alone: a plain read-modify-write is enough.
                            let word = &words[((board.0 - first) / FIELDS_PER_WORD) as usize];
                            let bit = pc.new << ((board.0 % FIELDS_PER_WORD) * 2);
                            word.store(word.load(Relaxed) | bit, Relaxed);
                            visit.visit(board, depth + 1);
                            found += 1;
                            push_bounded(&mut next, board, list_limit);
                        } else {
                            push_bounded(left, board, list_limit);
                        }
                    });
                    batch.clear();
                };
            for (k, word) in words.iter().enumerate() {
                let x = word.load(Relaxed);
                let base = first + k as u64 * FIELDS_PER_WORD;
                let mut unseen = !(x | (x >> 1)) & LOW_BITS;
                if pc.sided {
                    // The frontier's side cannot join: kept, not examined.
                    let frontier_side = unseen & codes.side_mask(base);
                    unseen &= !frontier_side;
                    if left.is_some() {
                        step::each_field(base, frontier_side, |board| {
                            if board.0 < size {
                                push_bounded(&mut left, board, list_limit);
                            }
                        });
                    }
                }
                while unseen != 0 {
                    let r = base + u64::from(unseen.trailing_zeros() / 2);
                    unseen &= unseen - 1;
                    if r >= size {
                        break;
                    }
                    batch.push(StateIndex(r));
                }
                if batch.len() >= BATCH {
                    decide_all(&mut batch, &mut slots, &mut left);
                }
            }
            decide_all(&mut batch, &mut slots, &mut left);
            (found, next, examined, left)
        })
        .reduce(
            || (0, Some(Vec::new()), 0, keep_left.then(Vec::new)),
            |(fa, na, ea, la), (fb, nb, eb, lb)| {
                (
                    fa + fb,
                    join_bounded(na, nb, list_limit),
                    ea + eb,
                    join_bounded(la, lb, list_limit),
                )
            },
        )
}

/// Appends `board` to `list` while it holds fewer than `limit` boards; past that, `list`
/// becomes `None` (too long to keep).
#[inline(always)]
fn push_bounded(list: &mut Option<Vec<StateIndex>>, board: StateIndex, limit: usize) {
    match list {
        Some(l) if l.len() < limit => l.push(board),
        Some(_) => *list = None,
        None => {}
    }
}

/// `a` then `b`, when both are kept and hold at most `limit` boards together.
fn join_bounded(
    a: Option<Vec<StateIndex>>,
    b: Option<Vec<StateIndex>>,
    limit: usize,
) -> Option<Vec<StateIndex>> {
    match (a, b) {
        (Some(mut a), Some(b)) if a.len() + b.len() <= limit => {
            a.extend(b);
            Some(a)
        }
        _ => None,
    }
}

/// A pull step over `left`, the boards still unseen (ascending, for the kernel's speed; from
/// [`pull`], sorted, then from the steps after it): as [`pull`], but only `left`'s boards are
/// examined instead of every field of the marks (on 2x7 each of the last dozen layers, a few
/// million boards at most, took a scan of 10.9 GB). The boards that join are removed from
/// `left`. Returns the next layer's size and its list (no longer than `left` was).
pub(super) fn pull_listed<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    codes: &LayerCodes,
    depth: u32,
    visit: &impl OnVisit,
    left: &mut Vec<StateIndex>,
) -> (u64, Option<Vec<StateIndex>>) {
    let pc = PullCodes::new(codes, depth);
    let expand = |chunk: &[StateIndex]| -> Vec<StateIndex> {
        let mut batch = Vec::with_capacity(BATCH);
        let mut slots = Vec::with_capacity(space.degree() * BATCH);
        let mut next = Vec::new();
        let on_frontier_side = |b: StateIndex| {
            let f = b.0 % FIELDS_PER_WORD;
            pc.sided && codes.side_mask(b.0 - f) >> (2 * f) & 1 == 1
        };
        for part in chunk.chunks(BATCH) {
            batch.clear();
            batch.extend(part.iter().copied().filter(|&b| !on_frontier_side(b)));
            decide(space, marks, &pc, &batch, &mut slots, |board, joins| {
                if joins {
                    // The board is this thread's alone (`left` lists it once), but other
                    // threads may write other boards of its word: atomically.
                    let word = &marks.words()[(board.0 / FIELDS_PER_WORD) as usize];
                    word.fetch_or(pc.new << ((board.0 % FIELDS_PER_WORD) * 2), Relaxed);
                    visit.visit(board, depth + 1);
                    next.push(board);
                }
            });
        }
        next
    };
    let next: Vec<StateIndex> = if left.len() < PARALLEL_LIST {
        expand(left)
    } else {
        left.par_chunks(PARALLEL_LIST)
            .flat_map_iter(expand)
            .collect()
    };
    left.retain(|&b| marks.get(b) == super::marks::UNSEEN);
    (next.len() as u64, Some(next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{LexSpace, Parity, ParitySpace};
    use crate::board::Board;
    use crate::shape::Shape;

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
