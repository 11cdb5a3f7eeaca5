//! The one layer step every marks driver takes: find the frontier (a dense scan of the marks'
//! words for the frontier code, or a sorted list), expand it with the space's kernel in
//! ascending batches, claim lane moves word-wide where the word is local, and hand every other
//! neighbour to its owner, a batch at a time ([`Owner::route_all`]). A frontier board whose one
//! move that is not a lane move must lead back to the layer before (a bipartite graph, see
//! [`Lanes::single`]: the marks say that move reached it, [`LayerCodes::flagged`], or it has
//! no lane neighbour in that layer) is not handed to the kernel.
//!
//! What differs between the drivers is only the owner: the one-machine driver
//! ([`super::run`]) claims every neighbour in its marks at once; a distributed worker
//! ([`super::cluster`]) claims the neighbours its process holds and buffers the others for
//! their owners, who claim them when they arrive.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::marks::{self, FIELDS_PER_WORD, LOW_BITS};
use super::{Lanes, StateIndex, StateSpace};

/// Frontier boards handed to the kernel at once.
pub(super) const BATCH: usize = 512;
/// Slots [`Expander::push_fields`] writes for every word (a dense layer's words seldom hold
/// more frontier boards).
const EAGER: usize = 4;
/// How many neighbours ahead an owner is told of a neighbour ([`Owner::prefetch`]).
const AHEAD: usize = 16;
/// How many words ahead of the dense scan its words are prefetched (1 KiB).
const SCAN_AHEAD: usize = 128;

/// The frontier code of layer `depth` under [`Marking::Frontier`] (layers alternate between
/// codes 1 and 2).
pub(super) fn code(depth: u32) -> u64 {
    1 + u64::from(depth % 2)
}

/// Per index modulo the period of `sides`, the low bits of the fields of a word on the side
/// of layer `depth` of a BFS from `seed`.
fn side_masks(sides: super::Sides, seed: StateIndex, depth: u32) -> Vec<u64> {
    let side = sides.of(seed) ^ u64::from(depth % 2);
    (0..sides.period)
        .map(|rho| {
            (0..FIELDS_PER_WORD)
                .filter(|&f| sides.of(StateIndex(rho + f)) == side)
                .fold(0u64, |m, f| m | 1 << (2 * f))
        })
        .collect()
}

/// What a run leaves in its marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Marking {
    /// Korf's four states (Korf 2008): unseen `0`, the frontier codes `1 + d % 2` of layers
    /// `d` and `d + 1`, and `DONE` (`3`) once a board is expanded. The finished marks say only
    /// which boards were reached. On the parity index (bipartite, with lanes) the drivers take
    /// its variant with the across flag instead (`step::LayerCodes::flagged`: the live codes say
    /// how a board was reached, its side which layer it is in); the finished marks are the
    /// same.
    #[default]
    Frontier,
    /// The finished marks keep each board's depth, for a distance table ([`crate::table`]):
    /// a claimed board holds `1` until it is expanded, then `2 + (d / 2) % 2`. The frontier
    /// of layer `d` is the boards holding `1` on the side of the seed's `d % 2`: it needs a
    /// bipartite space whose index shows each board's side ([`super::StateSpace::sides`];
    /// then depth `d mod 2` is the side, and with the bit `(d / 2) % 2` a board's depth mod
    /// 4 is known, enough to tell a neighbour one move closer from one move farther). Depth
    /// mod 3 (Cooperman & Finkelstein's two-bit BFS) would need no sides, but its frontier
    /// code also marks layers `d - 3`, `d - 6`, ..., which a dense scan would expand again
    /// (on 2x7, about 9 times the work).
    Depths,
}

/// The codes of one layer step of a run: what the frontier holds, what claims write, how
/// the frontier is retired (see [`Marking`]).
#[derive(Debug, Clone)]
pub(super) struct LayerCodes {
    /// The frontier's field value.
    pub frontier: u64,
    /// The field value claims write (a single bit: 1 or 2).
    pub claim: u64,
    /// A frontier field is retired by OR-ing this, then XOR-ing `retire_xor`.
    pub retire_or: u64,
    /// See `retire_or`.
    pub retire_xor: u64,
    /// Under [`Marking::Depths`], the period of the sides and, per index modulo it, the low
    /// bits of the fields of a word on the frontier's side.
    pub sides: Option<(u64, Vec<u64>)>,
    /// All ones when the scan may skip a board whose one move across leads back (see
    /// [`scan`]): from layer 1 on. The seed has no layer before it.
    pub after_seed: u64,
    /// The across flag ([`LayerCodes::flagged`]): the live layers are told apart by their
    /// side, codes 1 and 2 say how a board was reached, and `claim` is the lane claims' code.
    pub flagged: bool,
}

impl LayerCodes {
    /// The codes of the step that expands layer `depth` of a run seeded at `seed` on `space`.
    ///
    /// # Panics
    /// Under [`Marking::Depths`] when the space has no [`super::Sides`].
    pub fn new<S: StateSpace>(marking: Marking, space: &S, seed: StateIndex, depth: u32) -> Self {
        let after_seed = if depth > 0 { u64::MAX } else { 0 };
        match marking {
            Marking::Frontier => LayerCodes {
                frontier: code(depth),
                claim: code(depth + 1),
                retire_or: 3,
                retire_xor: 0,
                sides: None,
                after_seed,
                flagged: false,
            },
            Marking::Depths => {
                let sides = space
                    .sides()
                    .expect("Marking::Depths needs a space with sides");
                let masks = side_masks(sides, seed, depth);
                // 1 becomes 2 (1 xor 3) or 3 (1 or 2).
                let (retire_or, retire_xor) = if (depth / 2) % 2 == 0 { (0, 3) } else { (2, 0) };
                LayerCodes {
                    frontier: 1,
                    claim: 1,
                    retire_or,
                    retire_xor,
                    sides: Some((sides.period, masks)),
                    after_seed,
                    flagged: false,
                }
            }
        }
    }

    /// The codes of [`LayerCodes::new`] under the **across flag**, where it applies: under
    /// [`Marking::Frontier`], on a bipartite space ([`super::Sides`]) with lanes some of whose
    /// boards have one move across ([`Lanes::single`]) and whose periods agree. Otherwise
    /// those of [`LayerCodes::new`]. The codes of both marks drivers ([`super::run`] and
    /// [`super::cluster`]).
    ///
    /// The frontier (layer `d`) and the layer being claimed (`d + 1`) are on the two sides,
    /// so a field needs no depth code to say which of them it is in: of the two live codes,
    /// `2` says that a move across (not a lane move) reached the board, and `1` that lane
    /// moves alone did (a move across upgrades `1` to `2`, [`super::StateMarks::claim_flagged`];
    /// retiring sets `DONE`, as before). A frontier board with one move across that holds `2`
    /// was reached by that move, so its other end is in layer `d - 1`, and the kernel is not
    /// asked for it. On a board of two rows every move across is a vertical edge between
    /// layers `d` and `d + 1`, so the scan skips the deeper end of each: half the boards of
    /// the space, against the quarter or so that the rule without the flag finds (no lane
    /// neighbour in layer `d - 1`, see [`scan`]). Claims of lists (sparse layers) write `1`
    /// only: no board is skipped on their account.
    ///
    /// # Panics
    /// As [`LayerCodes::new`].
    pub fn flagged<S: StateSpace>(
        marking: Marking,
        space: &S,
        seed: StateIndex,
        depth: u32,
    ) -> Self {
        let codes = LayerCodes::new(marking, space, seed, depth);
        let (Marking::Frontier, Some(sides), Some(lanes)) = (marking, space.sides(), space.lanes())
        else {
            return codes;
        };
        if lanes.single == 0 || sides.period != lanes.period {
            return codes;
        }
        let masks = side_masks(sides, seed, depth);
        LayerCodes {
            frontier: 1,
            claim: 1,
            retire_or: 3,
            retire_xor: 0,
            sides: Some((sides.period, masks)),
            flagged: true,
            ..codes
        }
    }

    /// Whether the side masks stand for [`Marking::Depths`] (not the across flag).
    pub fn depths(&self) -> bool {
        self.sides.is_some() && !self.flagged
    }

    /// The low bits of the fields of word `x` (board `first + f` is field `f`) that hold the
    /// frontier.
    #[inline(always)]
    pub fn live(&self, x: u64, first: u64) -> u64 {
        if self.flagged {
            // Codes 1 and 2 on the frontier's side.
            (x ^ (x >> 1)) & self.side_mask(first)
        } else {
            let xf = x ^ (self.frontier * LOW_BITS);
            !(xf | (xf >> 1)) & self.side_mask(first)
        }
    }

    /// The final code of a board of layer `depth` under [`Marking::Depths`].
    pub fn settled(depth: u32) -> u64 {
        2 + u64::from((depth / 2) % 2)
    }

    /// The low bits of the fields of the word of boards `first..first + 32` on the frontier's
    /// side (all of them under [`Marking::Frontier`]).
    #[inline(always)]
    pub fn side_mask(&self, first: u64) -> u64 {
        match &self.sides {
            Some((period, masks)) => masks[(first % period) as usize],
            None => LOW_BITS,
        }
    }

    /// [`LayerCodes::side_mask`] of a word whose first index is `rho` modulo the period
    /// (`rho` less than it).
    #[inline(always)]
    pub fn side_at(&self, rho: u64) -> u64 {
        match &self.sides {
            Some((_, masks)) => masks[rho as usize],
            None => LOW_BITS,
        }
    }

    /// The low bits of the fields of word `x` whose boards were expanded in an earlier layer
    /// step (`DONE` under [`Marking::Frontier`], a final code under [`Marking::Depths`]).
    /// During the step of layer `d` (every layer before it retired: push steps only), a
    /// neighbour of a board of layer `d` has this exactly when it is in layer `d - 1` (a
    /// bipartite graph: the neighbour is in layer `d - 1` or `d + 1`, and only the boards of
    /// layer `d` are retired meanwhile).
    #[inline(always)]
    pub fn expanded(&self, x: u64) -> u64 {
        match self.sides {
            // Codes 2 and 3.
            Some(_) => (x >> 1) & LOW_BITS,
            None => x & (x >> 1) & LOW_BITS,
        }
    }

    /// Retires frontier board `index` of `marks` (atomically).
    #[inline(always)]
    pub fn retire_board(&self, marks: &super::StateMarks, index: StateIndex) {
        let word = &marks.words()[(index.0 / FIELDS_PER_WORD) as usize];
        self.retire(word, 1 << ((index.0 % FIELDS_PER_WORD) * 2));
    }

    /// Writes `x | set` to `word` (whose value is `x`) with the frontier fields `matches`
    /// (low bits) retired, by the word's only writer (see [`Owner::alone`]).
    #[inline(always)]
    pub fn retire_alone(&self, word: &AtomicU64, x: u64, set: u64, matches: u64) {
        word.store(
            (x | set | (matches * self.retire_or)) ^ (matches * self.retire_xor),
            Relaxed,
        );
    }

    /// Retires the frontier fields `matches` (low bits) of `word` (atomically).
    #[inline(always)]
    pub fn retire(&self, word: &AtomicU64, matches: u64) {
        if self.retire_or != 0 {
            word.fetch_or(matches * self.retire_or, Relaxed);
        }
        if self.retire_xor != 0 {
            word.fetch_xor(matches * self.retire_xor, Relaxed);
        }
    }
}

/// Where the neighbours of a frontier go.
pub(super) trait Owner {
    /// `index`, a neighbour of the frontier, is to be claimed for the next layer: here, or by
    /// whoever holds it.
    fn route(&mut self, index: StateIndex);
    /// `index`, a lane neighbour of the frontier in the next or the previous word, is to be
    /// claimed for the next layer: as [`Owner::route`], except that under the across flag
    /// ([`LayerCodes::flagged`]) it was reached by a lane move.
    #[inline(always)]
    fn route_lane(&mut self, index: StateIndex) {
        self.route(index);
    }
    /// Board `index` has just been claimed for the next layer by a word-wide lane claim.
    fn found(&mut self, index: StateIndex);
    /// The count of boards found, when [`Owner::found`] does nothing else with a board (no
    /// visitor, no list kept): then a word's claims are only counted. `None` otherwise.
    #[inline(always)]
    fn only_counted(&mut self) -> Option<&mut u64> {
        None
    }
    /// Boards `base + f` have just been claimed, for the fields `f` whose low bit is set in
    /// `fields` (a word-wide lane claim).
    #[inline(always)]
    fn found_fields(&mut self, base: u64, fields: u64) {
        if let Some(found) = self.only_counted() {
            // No loop whose exit depends on the word.
            *found += u64::from(fields.count_ones());
            return;
        }
        for index in marks::fields(base, fields) {
            self.found(index);
        }
    }
    /// `index` will be routed soon (a hint, e.g. to prefetch its word).
    #[inline(always)]
    fn prefetch(&self, _index: StateIndex) {}
    /// Whether this thread is the only one writing the marks it scans during the step (a
    /// process whose step runs on one thread): the scan then claims and retires with a load
    /// and a store ([`LayerCodes::retire_alone`]) instead of locked read-modify-writes.
    #[inline(always)]
    fn alone(&self) -> bool {
        false
    }

    /// Routes the neighbours `nbs` of a batch, skipping [`StateIndex::NONE`], each
    /// prefetched [`AHEAD`] neighbours before its turn.
    #[inline(always)]
    fn route_all(&mut self, nbs: &[StateIndex]) {
        for &nb in &nbs[..nbs.len().min(AHEAD)] {
            self.prefetch(nb);
        }
        for (k, &nb) in nbs.iter().enumerate() {
            if let Some(&ahead) = nbs.get(k + AHEAD) {
                self.prefetch(ahead);
            }
            // (Compacted in `across` mode: the test is then always true, and predicted.)
            if nb != StateIndex::NONE {
                self.route(nb);
            }
        }
    }
}

/// The bits of a field that make a claim fail at once (for [`list_unseen`]): any (3) but under
/// the across flag (`flagged`), where a move across also takes a field a lane move set to 1
/// (2).
#[inline(always)]
pub(super) fn claimable(flagged: bool) -> u64 {
    if flagged { 2 } else { 3 }
}

/// Lists in `out` (its first slots; returns how many) the boards of `nbs` whose field in
/// `marks` has none of the bits `claimable` (3: reads unseen; 2 under the across flag, whose
/// claims across also take a field a lane move set to 1), in order, [`StateIndex::NONE`]
/// skipped; each word is prefetched [`AHEAD`] boards before it is read. The first pass of an owner's claims
/// ([`Owner::route_all`]): every board is written and only the count depends on the field,
/// which a dense layer finds unseen about half the time, so no branch is mispredicted on it.
#[inline(always)]
pub(super) fn list_unseen(
    marks: &super::StateMarks,
    nbs: &[StateIndex],
    out: &mut Vec<StateIndex>,
    claimable: u64,
) -> usize {
    out.resize(nbs.len(), StateIndex::NONE);
    for &nb in &nbs[..nbs.len().min(AHEAD)] {
        marks.prefetch(nb);
    }
    let mut n = 0;
    for (k, &nb) in nbs.iter().enumerate() {
        if let Some(&ahead) = nbs.get(k + AHEAD) {
            marks.prefetch(ahead);
        }
        if nb != StateIndex::NONE {
            out[n] = nb;
            n += usize::from(marks.get(nb) & claimable == 0);
        }
    }
    n
}

/// One thread's expansion of part of a layer: frontier boards are batched for the kernel and
/// their neighbours handed to the owner.
pub(super) struct Expander<'a, S: StateSpace, O: Owner> {
    space: &'a S,
    /// Where the neighbours go.
    pub owner: O,
    /// The lane moves are claimed by the scan: ask the kernel for the others only.
    across: bool,
    /// The batch: its first `filled` slots (the buffer has room for a whole word's boards
    /// past [`BATCH`], see [`Expander::push_fields`]).
    batch: Vec<StateIndex>,
    filled: usize,
    neighbours: Vec<StateIndex>,
    /// Frontier boards expanded: handed to the kernel, or skipped ([`Expander::skipped`]).
    pub expanded: u64,
}

impl<'a, S: StateSpace, O: Owner> Expander<'a, S, O> {
    pub fn new(space: &'a S, owner: O) -> Self {
        Expander {
            space,
            owner,
            across: false,
            batch: vec![StateIndex::NONE; BATCH + FIELDS_PER_WORD as usize],
            filled: 0,
            neighbours: Vec::with_capacity(space.degree() * BATCH),
            expanded: 0,
        }
    }

    /// Expands frontier board `index` (in ascending order within a batch, for speed).
    #[inline(always)]
    pub fn push(&mut self, index: StateIndex) {
        self.batch[self.filled] = index;
        self.filled += 1;
        if self.filled >= BATCH {
            self.flush();
        }
    }

    /// Expands boards `base + f` for the fields `f` whose low bit is set in `fields` (a
    /// word's matches). The first [`EAGER`] slots are written whether or not the word has
    /// that many boards, and only the count advances: a dense layer's words hold a varying
    /// number of frontier boards, and a loop over them mispredicts its exit about once per
    /// word.
    #[inline(always)]
    pub fn push_fields(&mut self, base: u64, fields: u64) {
        let count = fields.count_ones() as usize;
        let slots: &mut [StateIndex; EAGER] = (&mut self.batch[self.filled..self.filled + EAGER])
            .try_into()
            .unwrap();
        let mut m = fields;
        for slot in slots.iter_mut() {
            *slot = StateIndex(base + u64::from(m.trailing_zeros() / 2));
            m &= m.wrapping_sub(1);
        }
        self.filled += count.min(EAGER);
        // The rest of a word with more (rare).
        for index in marks::fields(base, m) {
            self.batch[self.filled] = index;
            self.filled += 1;
        }
        if self.filled >= BATCH {
            self.flush();
        }
    }

    /// Counts the boards `base + f` (fields `f` set in `fields`, low bits) as expanded
    /// without asking the kernel: their neighbours are all known (see [`scan`]).
    #[inline(always)]
    pub fn skipped(&mut self, fields: u64) {
        self.expanded += u64::from(fields.count_ones());
    }

    /// Expands the batch and routes its neighbours.
    pub fn flush(&mut self) {
        if self.filled == 0 {
            return;
        }
        let batch = &self.batch[..self.filled];
        self.expanded += batch.len() as u64;
        self.neighbours.clear();
        if self.across {
            self.space.expand_off_lanes(batch, &mut self.neighbours);
        } else {
            self.space.expand(batch, &mut self.neighbours);
        }
        self.filled = 0;
        self.owner.route_all(&self.neighbours);
    }

    /// Expands what is pending; returns the owner.
    pub fn finish(mut self) -> O {
        self.flush();
        self.owner
    }
}

/// Per word of the marks, which of its 32 boards have a lane move (see [`Lanes`]) to the
/// board after them and to the board before them, and which have one other move only, by the
/// word's first index modulo the period.
pub(super) struct LaneMasks {
    period: u64,
    /// `right[rho]`: low bit of field `f` set when board `32w + f` (with `32w % period == rho`)
    /// and the next board are neighbours.
    right: Vec<u64>,
    /// `left[rho]`: likewise with the previous board.
    left: Vec<u64>,
    /// `single[rho]`: likewise when the board has exactly one move that is not a lane move
    /// ([`Lanes::single`]) and the graph is bipartite; all zero otherwise.
    single: Vec<u64>,
    /// The longer moves along the lanes ([`Lanes::reach`] above 1: the multi-tile metric's
    /// jumps along a row), per length `k` from 2: twice `k` (the shift of a field to its
    /// target), and masks as `right` and `left` of the boards with a move to board `i + k`,
    /// and to board `i - k`.
    jumps: Vec<(u32, Vec<u64>, Vec<u64>)>,
}

impl LaneMasks {
    /// The masks of `space`'s lanes, if it has any.
    pub fn of<S: StateSpace>(space: &S) -> Option<LaneMasks> {
        space
            .lanes()
            .map(|lanes| LaneMasks::new(lanes, space.sides().is_some()))
    }

    /// The masks of `lanes`; the boards with one other move are skipped ([`scan`]) only when
    /// the graph is `bipartite`.
    pub fn new(lanes: Lanes, bipartite: bool) -> LaneMasks {
        let p = lanes.period;
        let bit = |set: u64, i: u64| set >> (i % p) & 1 == 1;
        let single = if bipartite { lanes.single } else { 0 };
        fn mask(rho: u64, f: impl Fn(u64) -> bool) -> u64 {
            (0..FIELDS_PER_WORD)
                .filter(|&k| f(rho + k))
                .fold(0u64, |m, k| m | 1 << (2 * k))
        }
        let jumps = (2..=lanes.reach.min(FIELDS_PER_WORD - 1))
            .map(|k| {
                (
                    2 * k as u32,
                    (0..p)
                        .map(|rho| mask(rho, |i| lanes.reaches_next(i, k)))
                        .collect(),
                    (0..p)
                        .map(|rho| mask(rho, |i| lanes.reaches_previous(i, k)))
                        .collect(),
                )
            })
            .collect();
        LaneMasks {
            period: p,
            right: (0..p)
                .map(|rho| mask(rho, |i| lanes.lane_moves(i).0))
                .collect(),
            left: (0..p)
                .map(|rho| mask(rho, |i| lanes.lane_moves(i).1))
                .collect(),
            single: (0..p).map(|rho| mask(rho, |i| bit(single, i))).collect(),
            jumps,
        }
    }
}

/// The dense scan: finds the boards of layer `depth` in `words` (board `first + 32k + f` is
/// field `f` of `words[k]`; `first` a multiple of 32; boards at or past `end` ignored), retires
/// them, and expands them through `expander`, pushing each onto `current` when given. With
/// `lanes` (and `size`, the space's size), the lane moves of a whole word of frontier boards
/// (every move along a lane, up to [`Lanes::reach`]) are claimed at once with shifts and masks
/// (one atomic operation per word, which also retires the frontier) and the kernel is asked
/// only for the other moves ([`StateSpace::expand_off_lanes`]); a lane neighbour in another
/// word is routed ([`Owner::route_lane`]).
///
/// With lanes, the kernel is not asked at all for a board with one move across
/// ([`Lanes::single`], given only for a bipartite graph) that this move reached: under the
/// across flag ([`LayerCodes::flagged`]) the board holds 2; otherwise, none of its lane
/// neighbours is already expanded ([`LayerCodes::expanded`]). In layer `depth >= 1`, that
/// move then leads back to layer `depth - 1`. (Its lane moves are still claimed, and it is
/// retired and counted as expanded.) Under the flag, a lane claim is a compare-exchange that
/// claims only the fields still unseen, and a lane neighbour in the next or the previous word
/// goes to [`Owner::route_lane`]. This needs the marks of a layer step: every layer before
/// `depth` retired, as after push steps (a driver takes no dense scan after a pull step, which
/// leaves its layers' frontier codes).
pub(super) fn scan<S: StateSpace, O: Owner>(
    words: &[AtomicU64],
    first: u64,
    end: u64,
    codes: &LayerCodes,
    lanes: Option<(&LaneMasks, u64)>,
    expander: &mut Expander<'_, S, O>,
    current: Option<&mut Vec<StateIndex>>,
) {
    #[cfg(target_arch = "x86_64")]
    if super::x86_64_v3() {
        // SAFETY: the processor has the features `scan_v3` is compiled for.
        return unsafe { scan_v3(words, first, end, codes, lanes, expander, current) };
    }
    scan_words(words, first, end, codes, lanes, expander, current)
}

/// [`scan`] compiled for x86-64-v3 ([`super::x86_64_v3`]): a word's matches counted with
/// `popcnt` and found with `tzcnt`, among others.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,fma,movbe")]
unsafe fn scan_v3<S: StateSpace, O: Owner>(
    words: &[AtomicU64],
    first: u64,
    end: u64,
    codes: &LayerCodes,
    lanes: Option<(&LaneMasks, u64)>,
    expander: &mut Expander<'_, S, O>,
    current: Option<&mut Vec<StateIndex>>,
) {
    scan_words(words, first, end, codes, lanes, expander, current)
}

/// [`scan`]'s body.
#[inline(always)]
fn scan_words<S: StateSpace, O: Owner>(
    words: &[AtomicU64],
    first: u64,
    end: u64,
    codes: &LayerCodes,
    lanes: Option<(&LaneMasks, u64)>,
    expander: &mut Expander<'_, S, O>,
    mut current: Option<&mut Vec<StateIndex>>,
) {
    debug_assert_eq!(first % FIELDS_PER_WORD, 0);
    let pattern = codes.frontier * LOW_BITS;
    let next_bit = codes.claim - 1;
    // The across flag needs lanes (its side masks are indexed like theirs).
    let flagged = codes.flagged && lanes.is_some();
    debug_assert_eq!(codes.flagged, flagged);
    expander.across = lanes.is_some();
    // The first index of the word modulo the lanes' period, kept up to date word by word
    // rather than divided out.
    let period = lanes.map_or(1, |(l, _)| l.period);
    let sided_lanes = codes.sides.as_ref().is_some_and(|(p, _)| *p == period);
    let step = FIELDS_PER_WORD % period;
    let line_step = (LINE as u64 * FIELDS_PER_WORD) % period;
    let mut rho = first % period + period - step;
    let mut k = 0;
    while k < words.len() {
        if k % LINE == 0 {
            prefetch(words, k + SCAN_AHEAD);
            // Most words of a sparse layer hold no frontier board: skip whole lines of them
            // in a tight loop (on 2x7, a scan finding few boards took about twice as long as
            // reading the marks).
            while k + LINE <= words.len() && !any_match(&words[k..k + LINE], pattern, flagged) {
                k += LINE;
                rho += line_step;
                if rho >= period {
                    rho -= period;
                }
                prefetch(words, k + SCAN_AHEAD);
            }
            if k == words.len() {
                break;
            }
        }
        let at = k;
        k += 1;
        rho += step;
        if rho >= period {
            rho -= period;
        }
        let word = &words[at];
        let x = word.load(Relaxed);
        let mut matches = match flagged {
            // Codes 1 and 2 on the frontier's side (`rho` is the word's first index modulo
            // the period of the lanes, which is that of the sides).
            true => (x ^ (x >> 1)) & codes.side_at(rho),
            false => {
                let xf = x ^ pattern;
                !(xf | (xf >> 1)) & LOW_BITS
            }
        };
        if matches == 0 {
            continue;
        }
        let base = first + at as u64 * FIELDS_PER_WORD;
        if codes.sides.is_some() && !flagged {
            // (With lanes of the sides' period, `rho` is the word's first index modulo it.)
            matches &= match sided_lanes {
                true => codes.side_at(rho),
                false => codes.side_mask(base),
            };
            if matches == 0 {
                continue;
            }
        }
        // The boards to expand: all but those whose one other move leads back (lanes only).
        let mut expand = matches;
        match lanes {
            Some((l, size)) => {
                let rho = rho as usize;
                let right = matches & l.right[rho];
                let left = matches & l.left[rho];
                let unseen = !(x | (x >> 1)) & LOW_BITS;
                let mut targets = ((right << 2) | (left >> 2)) & unseen;
                // The longer moves along the lanes (the multi-tile metric's), in this word.
                for (shift, r, l) in &l.jumps {
                    let (r, l) = (matches & r[rho], matches & l[rho]);
                    targets |= ((r << shift) | (l >> shift)) & unseen;
                }
                // Claim the lane neighbours in this word and retire the frontier in one
                // atomic OR where the retirement is one (under `Marking::Frontier`, 01 or 10
                // become 11); the bits that were clear before are ours.
                let set = targets << next_bit;
                let old = if expander.owner.alone() {
                    codes.retire_alone(word, x, set, matches);
                    x
                } else if flagged {
                    // A move across may meanwhile have set a target to 2, which an OR of the
                    // lane claim's 1 would turn into `DONE`: claim only the fields still
                    // unseen. (The frontier's fields are on the other side, which no claim
                    // of this step writes.)
                    let mut cur = x;
                    loop {
                        let unseen_now = !(cur | (cur >> 1)) & LOW_BITS;
                        let new = cur | (set & unseen_now) | (matches * 3);
                        match word.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                            Ok(_) => break cur,
                            Err(now) => cur = now,
                        }
                    }
                } else if codes.retire_xor != 0 {
                    // Claim and retire in one locked operation (an OR and an XOR would
                    // take two).
                    let mut cur = x;
                    loop {
                        let new = (cur | set) ^ (matches * codes.retire_xor);
                        match word.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                            Ok(_) => break cur,
                            Err(now) => cur = now,
                        }
                    }
                } else {
                    word.fetch_or(set | (matches * codes.retire_or), Relaxed)
                };
                // The claims that found their field unseen (`set` has one bit per field).
                let won = set & !((old | (old >> 1)) & LOW_BITS) << next_bit;
                expander.owner.found_fields(base, won >> next_bit);
                // Lane neighbours in the next or the previous word.
                if right >> 62 != 0 && base + FIELDS_PER_WORD < size {
                    expander
                        .owner
                        .route_lane(StateIndex(base + FIELDS_PER_WORD));
                }
                if left & 1 != 0 && base > 0 {
                    expander.owner.route_lane(StateIndex(base - 1));
                }
                for (shift, r, l) in &l.jumps {
                    // The fields whose jump of `shift / 2` boards leaves the word.
                    // (Field 32 - k + j lands on board `base + 32 + j`.)
                    let (r, l) = (matches & r[rho], matches & l[rho]);
                    for i in marks::fields(base + FIELDS_PER_WORD, r >> (64 - shift)) {
                        if i.0 < size {
                            expander.owner.route_lane(i);
                        }
                    }
                    let k = u64::from(shift / 2);
                    for i in marks::fields(base, l & ((1 << shift) - 1)) {
                        expander.owner.route_lane(StateIndex(i.0 - k));
                    }
                }
                // The boards with one other move reached by that move: its other end is in
                // the layer before (see `Lanes::single`). Under the across flag they hold 2.
                // Otherwise, those with no lane neighbour in the layer before; a lane
                // neighbour in a word outside `words` counts as in the layer before (not
                // looked at).
                let reached_across = if flagged {
                    x >> 1
                } else {
                    let before = codes.expanded(x);
                    let after_first = words
                        .get(k)
                        .map_or(1, |w| codes.expanded(w.load(Relaxed)) & 1);
                    let before_last = match at {
                        0 => 1,
                        _ => codes.expanded(words[at - 1].load(Relaxed)) >> 62,
                    };
                    !((right & ((before >> 2) | after_first << 62))
                        | (left & ((before << 2) | before_last)))
                };
                let mut skip = matches & l.single[rho] & reached_across & codes.after_seed;
                if base + FIELDS_PER_WORD > end {
                    // Only the boards before `end` count.
                    skip &= LOW_BITS >> (2 * (base + FIELDS_PER_WORD - end.max(base)));
                }
                expander.skipped(skip);
                expand &= !skip;
            }
            None => codes.retire(word, matches),
        }
        if current.is_none() && base + FIELDS_PER_WORD <= end {
            expander.push_fields(base, expand);
            continue;
        }
        let mut m = matches;
        while m != 0 {
            let f = m.trailing_zeros();
            let r = StateIndex(base + u64::from(f / 2));
            m &= m - 1;
            if r.0 >= end {
                break;
            }
            if let Some(c) = current.as_deref_mut() {
                c.push(r);
            }
            if expand >> f & 1 != 0 {
                expander.push(r);
            }
        }
    }
}

/// Words of the marks per cache line (64 bytes).
const LINE: usize = 8;

/// Whether one of `words` holds a field equal to the frontier code (`pattern`: the code in
/// every field); under the across flag (`flagged`), a live code (1 or 2) on either side.
#[inline(always)]
fn any_match(words: &[AtomicU64], pattern: u64, flagged: bool) -> bool {
    let mut any = 0;
    for word in words {
        let x = word.load(Relaxed);
        any |= match flagged {
            true => x ^ (x >> 1),
            false => {
                let xf = x ^ pattern;
                !(xf | (xf >> 1))
            }
        };
    }
    any & LOW_BITS != 0
}

/// The neighbours one thread found for the other threads' segments of the marks: per segment
/// of `2^bits` boards, the offsets within it, in the order found. A layer's claims then run
/// segment by segment ([`claim_segment`]), each segment's words in cache and written by one
/// thread, instead of one random atomic OR per neighbour over the whole array.
pub(super) struct Buckets {
    bits: u32,
    buckets: Vec<Vec<u32>>,
    len: usize,
}

impl Buckets {
    /// Empty buckets for the segments of `2^bits` boards (`5 <= bits <= 32`) of `0..size`.
    pub fn new(size: u64, bits: u32) -> Buckets {
        debug_assert!((5..=32).contains(&bits));
        Buckets {
            bits,
            buckets: vec![Vec::new(); size.div_ceil(1 << bits).max(1) as usize],
            len: 0,
        }
    }

    /// Offsets held, over all segments.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Empties every bucket, keeping its allocation.
    pub fn clear(&mut self) {
        for b in &mut self.buckets {
            b.clear();
        }
        self.len = 0;
    }

    /// Files `index` under its segment.
    #[inline(always)]
    pub fn push(&mut self, index: StateIndex) {
        let segment = (index.0 >> self.bits) as usize;
        self.buckets[segment].push((index.0 & ((1 << self.bits) - 1)) as u32);
        self.len += 1;
    }
}

/// Claims for frontier `code` the boards filed under segment `segment` by every one of
/// `parts` (all made with the same `bits`), in the segment's words `words` (board
/// `segment * 2^bits + 32k + f` is field `f` of `words[k]`); calls `found` with each board it
/// claims, once per board. Under the across flag (`flagged`: the filed boards are moves
/// across) a field a lane move set to 1 also becomes 2, uncounted. The caller guarantees that
/// no other thread touches these words meanwhile, so a claim is a plain read and write, not
/// an atomic operation.
pub(super) fn claim_segment(
    words: &[AtomicU64],
    parts: &[Buckets],
    segment: usize,
    (code, flagged): (u64, bool),
    mut found: impl FnMut(StateIndex),
) {
    let Some(first) = parts.first() else { return };
    let base = (segment as u64) << first.bits;
    let bit = code - 1;
    for part in parts {
        let offsets = &part.buckets[segment];
        for (k, &off) in offsets.iter().enumerate() {
            if let Some(&ahead) = offsets.get(k + AHEAD) {
                prefetch(words, (ahead >> 5) as usize);
            }
            let word = &words[(off >> 5) as usize];
            let shift = (off & 31) * 2;
            let x = word.load(Relaxed);
            let field = (x >> shift) & 3;
            if field == 0 {
                word.store(x | (1 << (shift as u64 + bit)), Relaxed);
                found(StateIndex(base + u64::from(off)));
            } else if flagged && field == 1 {
                word.store(x ^ (3 << shift), Relaxed);
            }
        }
    }
}

/// Asks the CPU to bring `words[k]` into cache (a hint; never faults).
#[inline(always)]
fn prefetch(words: &[AtomicU64], k: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = words.as_ptr().wrapping_add(k);
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults, whatever
        // the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (words, k);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{Parity, ParitySpace, StateMarks};
    use crate::shape::Shape;

    /// What a scan hands its owner, in order; `alone`: the scan writes as the marks' only
    /// writer ([`Owner::alone`]).
    #[derive(Default)]
    struct Recorder {
        routed: Vec<StateIndex>,
        found: Vec<StateIndex>,
        alone: bool,
    }

    impl Owner for Recorder {
        fn route(&mut self, index: StateIndex) {
            self.routed.push(index);
        }
        fn found(&mut self, index: StateIndex) {
            self.found.push(index);
        }
        fn alone(&self) -> bool {
            self.alone
        }
    }

    /// [`list_unseen`] lists, in order, exactly the boards whose field is unseen (or, under
    /// the across flag, unseen or 1), across duplicates, [`StateIndex::NONE`] slots and every
    /// other code, over more boards than it prefetches ahead.
    #[test]
    fn the_unseen_are_listed_in_order() {
        let marks = StateMarks::new(4096);
        let mut rng = fastrand::Rng::with_seed(7);
        for w in marks.words() {
            w.store(rng.u64(..), Relaxed);
        }
        let nbs: Vec<StateIndex> = (0..1000)
            .map(|_| match rng.usize(0..10) {
                0 => StateIndex::NONE,
                _ => StateIndex(rng.u64(0..4096)),
            })
            .collect();
        for (claimable, codes) in [(3, &[0][..]), (2, &[0, 1][..])] {
            let want: Vec<StateIndex> = nbs
                .iter()
                .copied()
                .filter(|&nb| nb != StateIndex::NONE && codes.contains(&marks.get(nb)))
                .collect();
            assert!(want.len() > 100 * codes.len() && want.len() < 900);
            let mut out = vec![StateIndex(3); 5];
            let n = list_unseen(&marks, &nbs, &mut out, claimable);
            assert_eq!(&out[..n], &want[..], "claimable {claimable}");
        }
    }

    /// The dense scan expands exactly the frontier boards, whatever their number in a word
    /// (none, the 1 to 4 that [`Expander::push_fields`] writes eagerly, more, all 32), across
    /// batch boundaries, and retires them: what reaches the owner is the kernel's neighbours
    /// of those boards in ascending order, and `current` lists them.
    #[test]
    fn a_scan_expands_every_frontier_board_of_any_word() {
        let space = ParitySpace::new(Shape::new(3, 3).unwrap(), Parity::Even).unwrap();
        let codes = LayerCodes::new(Marking::Frontier, &space, StateIndex(0), 0);
        const WORDS: u64 = 200;
        for seed in 0..4u64 {
            let marks = StateMarks::new(space.size());
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut frontier = Vec::new();
            for w in 0..WORDS {
                // Word w holds (w + seed) % 33 frontier boards; the other fields hold the
                // other codes (unseen, next layer's, expanded) at random.
                let mut fields: Vec<u64> = (0..FIELDS_PER_WORD).collect();
                rng.shuffle(&mut fields);
                let k = ((w + seed) % 33) as usize;
                let mut word = 0u64;
                for (j, &f) in fields.iter().enumerate() {
                    let code = if j < k {
                        frontier.push(StateIndex(w * FIELDS_PER_WORD + f));
                        codes.frontier
                    } else {
                        [0, codes.claim, 3][rng.usize(0..3)]
                    };
                    word |= code << (2 * f);
                }
                marks.words()[w as usize].store(word, Relaxed);
            }
            frontier.sort_unstable();
            let mut want = Vec::new();
            space.expand(&frontier, &mut want);
            want.retain(|&nb| nb != StateIndex::NONE);

            let keep_current = seed % 2 == 0;
            let mut current = Vec::new();
            let mut expander = Expander::new(&space, Recorder::default());
            scan(
                &marks.words()[..WORDS as usize],
                0,
                space.size(),
                &codes,
                None,
                &mut expander,
                keep_current.then_some(&mut current),
            );
            assert_eq!(
                expander.expanded + expander.filled as u64,
                frontier.len() as u64
            );
            let recorder = expander.finish();
            assert_eq!(recorder.routed, want, "seed {seed}");
            assert!(recorder.found.is_empty());
            if keep_current {
                assert_eq!(current, frontier);
            }
            for &r in &frontier {
                assert_eq!(marks.get(r), 3, "board {} not retired", r.0);
            }
        }
    }

    /// With lanes (the parity index's horizontal moves, claimed word-wide), a scan of a
    /// window of words claims the unseen lane neighbours inside each word (once each, with
    /// the next layer's code), hands every other neighbour to the owner, and retires the
    /// frontier: the boards it found plus the unseen boards it routed are exactly the
    /// frontier's unseen neighbours. In both copies of the scan and the kernel (x86-64-v3,
    /// and every x86-64), on grids of the kernel in lanes; in the multi-tile metric, whose
    /// jumps along a row are lane moves too ([`Lanes::reach`]), on boards of 3 to 5 columns.
    #[test]
    fn a_scan_with_lanes_reaches_every_unseen_neighbour() {
        use crate::metric::Metric::{Mtm, Stm};
        crate::bfs::on_both_copies(|| {
            for (r, c, metric) in [
                (3, 3, Stm),
                (2, 5, Stm),
                (3, 4, Mtm),
                (2, 5, Mtm),
                (3, 3, Mtm),
            ] {
                let shape = Shape::new(r, c).unwrap();
                let space = ParitySpace::with_metric(shape, Parity::Even, metric).unwrap();
                let lanes =
                    LaneMasks::new(space.lanes().expect("the parity index has lanes"), false);
                let codes = LayerCodes::new(Marking::Frontier, &space, StateIndex(0), 0);
                let marks = StateMarks::new(space.size());
                let mut rng = fastrand::Rng::with_seed(10 * r as u64 + c as u64);
                for w in marks.words() {
                    let word = (0..FIELDS_PER_WORD).fold(0u64, |word, f| {
                        let code = match rng.usize(0..8) {
                            0 | 1 => codes.frontier,
                            2..=4 => 0,
                            5 => codes.claim,
                            _ => 3,
                        };
                        word | code << (2 * f)
                    });
                    w.store(word, Relaxed);
                }
                let before: Vec<u64> = (0..space.size())
                    .map(|i| marks.get(StateIndex(i)))
                    .collect();
                let (from, words) = (64usize, 300usize);
                let first = from as u64 * FIELDS_PER_WORD;
                let frontier: Vec<StateIndex> = (first..first + words as u64 * FIELDS_PER_WORD)
                    .filter(|&i| before[i as usize] == codes.frontier)
                    .map(StateIndex)
                    .collect();
                let unseen = |nb: &StateIndex| before[nb.0 as usize] == 0;
                let mut want = Vec::new();
                space.expand(&frontier, &mut want);
                want.retain(|nb| *nb != StateIndex::NONE && unseen(nb));
                want.sort_unstable();
                want.dedup();

                let mut expander = Expander::new(&space, Recorder::default());
                scan(
                    &marks.words()[from..from + words],
                    first,
                    space.size(),
                    &codes,
                    Some((&lanes, space.size())),
                    &mut expander,
                    None,
                );
                let recorder = expander.finish();
                let mut found = recorder.found.clone();
                found.sort_unstable();
                found.dedup();
                assert_eq!(
                    found.len(),
                    recorder.found.len(),
                    "{r}x{c}: a board found twice"
                );
                assert!(!found.is_empty(), "{r}x{c}: no lane claim");
                for &f in &found {
                    assert!(unseen(&f), "{r}x{c}: board {} was not unseen", f.0);
                    assert_eq!(marks.get(f), codes.claim, "{r}x{c}: board {}", f.0);
                }
                let mut reached = found;
                reached.extend(recorder.routed.iter().copied().filter(unseen));
                reached.sort_unstable();
                reached.dedup();
                let absent = |from: &[StateIndex], of: &[StateIndex]| -> Vec<u64> {
                    from.iter()
                        .filter(|b| of.binary_search(b).is_err())
                        .map(|b| b.0)
                        .take(5)
                        .collect()
                };
                let (missed, stray) = (absent(&want, &reached), absent(&reached, &want));
                assert!(
                    missed.is_empty() && stray.is_empty(),
                    "{r}x{c}: of {} unseen neighbours, missed {missed:?}..., reached others \
                     {stray:?}...",
                    want.len()
                );
                for &b in &frontier {
                    assert_eq!(marks.get(b), 3, "{r}x{c}: board {} not retired", b.0);
                }
            }
        });
    }

    /// The kernel of `inner`, recording every board it is asked to expand across.
    struct Asked<'a> {
        inner: &'a ParitySpace,
        boards: std::sync::Mutex<Vec<StateIndex>>,
    }

    impl StateSpace for Asked<'_> {
        fn shape(&self) -> Shape {
            self.inner.shape()
        }
        fn size(&self) -> u64 {
            self.inner.size()
        }
        fn rank(&self, board: &crate::board::Board) -> Option<StateIndex> {
            self.inner.rank(board)
        }
        fn unrank(&self, index: StateIndex) -> crate::board::Board {
            self.inner.unrank(index)
        }
        fn expand(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
            self.inner.expand(batch, out);
        }
        fn lanes(&self) -> Option<Lanes> {
            self.inner.lanes()
        }
        fn sides(&self) -> Option<super::super::Sides> {
            self.inner.sides()
        }
        fn expand_across(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
            self.boards.lock().unwrap().extend_from_slice(batch);
            self.inner.expand_across(batch, out);
        }
    }

    /// On true BFS layers (depths from a plain queue over the kernel), under both markings
    /// and under the across flag, with some of the next layer already claimed: a scan in
    /// slices of 5 words (so that lane neighbours cross slices) does not ask the kernel for
    /// some frontier boards, each of which has one move across whose other end is in the
    /// layer before (under the flag, every such board of the layer); it counts every
    /// frontier board as expanded (and lists every one when asked); and the boards it claims
    /// plus the unseen boards it routes are exactly the next layer's unseen boards. The seed's
    /// layer skips nothing. Without the skip (a graph not known to be bipartite), the kernel
    /// is asked for every frontier board and reaches the same.
    #[test]
    fn a_scan_skips_the_boards_reached_across_and_reaches_the_same() {
        for (r, c) in [(3, 3), (2, 5), (4, 2)] {
            let shape = Shape::new(r, c).unwrap();
            let space = ParitySpace::new(shape, Parity::Even).unwrap();
            let seed = space.rank(&crate::board::Board::goal(shape)).unwrap();
            let n = space.size() as usize;
            let depth = crate::bfs::queue_depths(&space, seed);
            let max = *depth.iter().max().unwrap();
            let lanes = space.lanes().unwrap();
            let mut skipped_total = 0;
            // Whether board `i` has a neighbour at depth `e` by a move across, and by a lane
            // move.
            let across_at = |i: u64, e: u32| {
                let mut across = Vec::new();
                space.expand_across(&[StateIndex(i)], &mut across);
                across.iter().any(|nb| depth[nb.0 as usize] == e)
            };
            let lane_at = |i: u64, e: u32| {
                let edge = |j: u64| lanes.right >> (j % lanes.period) & 1 == 1;
                (edge(i) && i + 1 < n as u64 && depth[i as usize + 1] == e)
                    || (i > 0 && edge(i - 1) && depth[i as usize - 1] == e)
            };
            for (marking, flag) in [
                (Marking::Frontier, false),
                (Marking::Depths, false),
                (Marking::Frontier, true),
            ] {
                // From the seed's layer on (the seed, its blank in the bottom row, is never
                // skipped).
                for d in (0..max).step_by(3) {
                    let codes = match flag {
                        true => LayerCodes::flagged(marking, &space, seed, d),
                        false => LayerCodes::new(marking, &space, seed, d),
                    };
                    assert_eq!(codes.flagged, flag);
                    let mut rng = fastrand::Rng::with_seed(u64::from(d));
                    // Under the across flag, a board reached by a move across (from depth `e`)
                    // holds 2; other boards hold `code`.
                    let live = |i: u64, e: u32, code: u64| match flag && across_at(i, e) {
                        true => 2,
                        false => code,
                    };
                    let before: Vec<u64> = (0..n as u64)
                        .map(|i| match (depth[i as usize].cmp(&d), marking) {
                            (std::cmp::Ordering::Less, Marking::Frontier) => 3,
                            (std::cmp::Ordering::Less, Marking::Depths) => {
                                LayerCodes::settled(depth[i as usize])
                            }
                            (std::cmp::Ordering::Equal, _) if d > 0 => {
                                live(i, d - 1, codes.frontier)
                            }
                            (std::cmp::Ordering::Equal, _) => codes.frontier,
                            // Claimed already: by a lane move when there is one.
                            _ if depth[i as usize] == d + 1 && rng.usize(0..4) == 0 => {
                                match lane_at(i, d) {
                                    true => codes.claim,
                                    false => live(i, d, codes.claim),
                                }
                            }
                            _ => 0,
                        })
                        .collect();
                    // Under the across flag, the scan skips exactly the frontier boards with
                    // one move across whose other end is in the layer before.
                    let single = |i: u64| lanes.single >> (i % lanes.period) & 1 == 1;
                    let skippable = (0..n as u64)
                        .filter(|&i| depth[i as usize] == d && d > 0)
                        .filter(|&i| single(i) && across_at(i, d - 1))
                        .count();
                    let marks = StateMarks::new(space.size());
                    let frontier: Vec<StateIndex> = (0..n as u64)
                        .filter(|&i| depth[i as usize] == d)
                        .map(StateIndex)
                        .collect();
                    let mut want: Vec<StateIndex> = (0..n as u64)
                        .filter(|&i| depth[i as usize] == d + 1 && before[i as usize] == 0)
                        .map(StateIndex)
                        .collect();
                    want.sort_unstable();
                    let (mut asked_counts, mut after) = (Vec::new(), Vec::new());
                    // The scan's locked writes, the same as its only writer's, and no skip.
                    for (bipartite, alone) in [(true, false), (true, true), (false, false)] {
                        let masks = LaneMasks::new(lanes, bipartite);
                        for (w, fields) in marks.words().iter().zip(before.chunks(32)) {
                            let x = fields.iter().rev().fold(0, |x, &code| x << 2 | code);
                            w.store(x, Relaxed);
                        }
                        let asked = Asked {
                            inner: &space,
                            boards: Default::default(),
                        };
                        let (mut reached, mut expanded) = (Vec::new(), 0);
                        // Every other layer also lists the boards it finds (the scan's path
                        // board by board).
                        let keep = d % 2 == 0;
                        let mut current = Vec::new();
                        for (k, words) in marks.words().chunks(5).enumerate() {
                            let recorder = Recorder {
                                alone,
                                ..Recorder::default()
                            };
                            let mut expander = Expander::new(&asked, recorder);
                            scan(
                                words,
                                k as u64 * 5 * FIELDS_PER_WORD,
                                space.size(),
                                &codes,
                                Some((&masks, space.size())),
                                &mut expander,
                                keep.then_some(&mut current),
                            );
                            expander.flush();
                            expanded += expander.expanded;
                            let rec = expander.finish();
                            reached.extend(rec.found);
                            reached.extend(
                                rec.routed
                                    .into_iter()
                                    .filter(|nb| before[nb.0 as usize] == 0),
                            );
                        }
                        assert_eq!(expanded, frontier.len() as u64, "{shape} {marking:?} {d}");
                        if keep {
                            assert_eq!(current, frontier, "{shape} {marking:?} {d}");
                        }
                        reached.sort_unstable();
                        reached.dedup();
                        assert_eq!(reached, want, "{shape} {marking:?} depth {d} {bipartite}");
                        let mut asked = asked.boards.into_inner().unwrap();
                        asked.sort_unstable();
                        for b in frontier.iter().filter(|b| asked.binary_search(b).is_err()) {
                            assert!(bipartite, "{shape}: board {} not expanded", b.0);
                            assert!(d > 0, "{shape}: the seed was skipped");
                            let mut across = Vec::new();
                            space.expand_across(&[*b], &mut across);
                            assert_eq!(across.len(), 1, "{shape}: board {} skipped", b.0);
                            assert_eq!(depth[across[0].0 as usize], d - 1, "{shape}: {}", b.0);
                            skipped_total += 1;
                        }
                        if flag && bipartite {
                            assert_eq!(
                                frontier.len() - asked.len(),
                                skippable,
                                "{shape} depth {d}: skipped under the across flag"
                            );
                        }
                        asked_counts.push(asked.len());
                        after.push(
                            (0..n as u64)
                                .map(|i| marks.get(StateIndex(i)))
                                .collect::<Vec<_>>(),
                        );
                    }
                    assert_eq!(asked_counts[0], asked_counts[1], "{shape} {marking:?} {d}");
                    assert_eq!(asked_counts[2], frontier.len());
                    assert!(after[0] == after[1], "{shape} {marking:?} depth {d}: alone");
                    assert!(
                        after[0] == after[2],
                        "{shape} {marking:?} depth {d}: no skip"
                    );
                }
            }
            assert!(skipped_total > 0, "{shape}: nothing skipped");
        }
    }
}
