//! The whole-space BFS engine: level-synchronous, parallel (rayon), over the dense index.
//!
//! Each board (rank `0..n!`) has 2 bits in a [`StateMarks`] array, the classic two-bit
//! encoding of whole-space BFS (Korf 2008, "Linear-time disk-based implicit graph search";
//! Rokicki's twsearch): `UNSEEN`, two alternating frontier codes (layer `d` holds code
//! `1 + d % 2`) and `DONE` for expanded boards. A layer is expanded in one of two ways:
//!
//! - **sparse**: while a layer is small (at most [`Engine::list_limit`] boards) its ranks are
//!   kept in a list and expanded directly;
//! - **dense**: a large layer is found by scanning the whole array, 32 boards per 64-bit word,
//!   for its frontier code.
//!
//! A neighbour is claimed with one atomic `fetch_or`, so exactly one thread "discovers" it,
//! and layer sizes are exact. The engine knows nothing of depths' meaning: the caller gets
//! each newly discovered board through [`OnVisit`] and the layer sizes in the result.
//! Memory: `n! / 4` bytes for the marks, plus the lists (bounded by `3 * list_limit` ranks).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::moves::{self, MoveTable};
use crate::rank::SequentialUnranker;
use crate::shape::Shape;

/// Field value of a board never reached.
pub const UNSEEN: u64 = 0;
/// Field value of an expanded board.
pub const DONE: u64 = 3;
const LOW_BITS: u64 = 0x5555_5555_5555_5555;
const FIELDS_PER_WORD: u64 = 32;
/// Words per parallel work item in dense scans (65,536 boards).
const CHUNK_WORDS: usize = 2048;
/// Lists shorter than this are expanded on the calling thread.
const PARALLEL_LIST: usize = 4096;

/// Two bits per board over `0..len`, shared between threads.
pub struct StateMarks {
    words: Vec<AtomicU64>,
    len: u64,
}

impl StateMarks {
    /// All `len` boards `UNSEEN`; allocates `len / 4` bytes (rounded up to 8).
    pub fn new(len: u64) -> StateMarks {
        let n_words = len.div_ceil(FIELDS_PER_WORD) as usize;
        StateMarks {
            words: std::iter::repeat_with(|| AtomicU64::new(0))
                .take(n_words)
                .collect(),
            len,
        }
    }

    /// Number of boards.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no boards.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The 2-bit field of board `r`.
    #[inline(always)]
    pub fn get(&self, r: u32) -> u64 {
        (self.words[(r >> 5) as usize].load(Relaxed) >> ((r & 31) * 2)) & 3
    }

    /// Sets an `UNSEEN` board to frontier `code` (1 or 2); true for exactly one caller per
    /// board. Concurrent callers of one board must pass the same code.
    #[inline(always)]
    fn claim(&self, r: u32, code: u64) -> bool {
        let word = &self.words[(r >> 5) as usize];
        let shift = (r & 31) * 2;
        if (word.load(Relaxed) >> shift) & 3 != UNSEEN {
            return false;
        }
        // Concurrent claimers of a board all set the same single bit (the field was UNSEEN,
        // so it is in no frontier), so the winner is the one that found the bit clear; a
        // single-bit test-and-set compiles to `lock bts` rather than a compare-exchange loop.
        let bit = 1u64 << (shift + (code as u32 - 1));
        word.fetch_or(bit, Relaxed) & bit == 0
    }

    /// Marks a frontier board as expanded.
    #[inline(always)]
    fn retire(&self, r: u32) {
        self.words[(r >> 5) as usize].fetch_or(DONE << ((r & 31) * 2), Relaxed);
    }

    /// The first `UNSEEN` board at or after `from`, if any.
    pub fn next_unseen(&self, from: u64) -> Option<u32> {
        let mut w = (from / FIELDS_PER_WORD) as usize;
        let mut skip = (from % FIELDS_PER_WORD) * 2;
        while w < self.words.len() {
            let x = self.words[w].load(Relaxed);
            let mut m = !(x | (x >> 1)) & LOW_BITS;
            m &= !0u64 << skip;
            if m != 0 {
                let r = w as u64 * FIELDS_PER_WORD + u64::from(m.trailing_zeros() / 2);
                return (r < self.len).then_some(r as u32);
            }
            w += 1;
            skip = 0;
        }
        None
    }
}

/// Receives each board when it is first reached, with its BFS depth from the seed.
/// Called from several threads; called exactly once per reached board.
pub trait OnVisit: Sync {
    /// Board `rank` was reached at `depth`.
    fn visit(&self, rank: u32, depth: u32);
}

/// Ignores visits.
impl OnVisit for () {
    #[inline(always)]
    fn visit(&self, _rank: u32, _depth: u32) {}
}

/// What one BFS found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layers {
    /// `sizes[d]` = boards at depth `d` from the seed (`sizes[0] == 1`).
    pub sizes: Vec<u64>,
    /// The boards of the last layer (the antipodes of the seed), ascending, when that layer
    /// has at most [`Engine::list_limit`] boards; otherwise empty.
    pub last: Vec<u32>,
}

impl Layers {
    /// Total boards reached.
    pub fn reached(&self) -> u64 {
        self.sizes.iter().sum()
    }
}

/// Neighbours waiting to be claimed: their words are prefetched when they are queued and
/// claimed once the batch is full, so the cache misses of a batch overlap instead of being
/// paid one after the other (the BFS is bound by memory latency on large boards).
struct Claims<'a, V: OnVisit> {
    marks: &'a StateMarks,
    visit: &'a V,
    code: u64,
    depth: u32,
    keep: bool,
    pending: [u32; CLAIM_BATCH],
    len: usize,
    found: u64,
    next: Vec<u32>,
}

/// Neighbours per claim batch.
const CLAIM_BATCH: usize = 64;

impl<'a, V: OnVisit> Claims<'a, V> {
    /// Claims for layer `depth` (code `code`), keeping the claimed ranks when `keep`.
    fn new(marks: &'a StateMarks, visit: &'a V, depth: u32, keep: bool) -> Self {
        Claims {
            marks,
            visit,
            code: 1 + u64::from(depth % 2),
            depth,
            keep,
            pending: [0; CLAIM_BATCH],
            len: 0,
            found: 0,
            next: Vec::new(),
        }
    }

    #[inline(always)]
    fn push(&mut self, rank: u32) {
        prefetch(&self.marks.words[(rank >> 5) as usize]);
        self.pending[self.len] = rank;
        self.len += 1;
        if self.len == CLAIM_BATCH {
            self.flush();
        }
    }

    #[inline(always)]
    fn flush(&mut self) {
        for &rank in &self.pending[..self.len] {
            if self.marks.claim(rank, self.code) {
                self.visit.visit(rank, self.depth);
                self.found += 1;
                if self.keep {
                    self.next.push(rank);
                }
            }
        }
        self.len = 0;
    }

    /// Claims what is pending; returns (boards claimed, their ranks if kept).
    fn finish(mut self) -> (u64, Vec<u32>) {
        self.flush();
        (self.found, self.next)
    }
}

/// Asks the CPU to bring `word` into cache (a hint; no effect on other targets).
#[inline(always)]
fn prefetch(word: &AtomicU64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults, whatever
        // the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(word.as_ptr().cast_const().cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

/// The BFS engine for one shape of 2..=12 cells (ranks fit in `u32`).
pub struct Engine {
    shape: Shape,
    moves: MoveTable,
    list_limit: usize,
}

impl Engine {
    /// An engine for `shape`.
    ///
    /// # Panics
    /// When `shape` has more than 12 cells (callers check with `analysis::plan` first).
    pub fn new(shape: Shape) -> Engine {
        assert!(
            shape.cells() <= 12,
            "the dense index supports at most 12 cells"
        );
        let total = shape.board_count().unwrap_or(0);
        Engine {
            shape,
            moves: MoveTable::new(shape),
            list_limit: ((total / 256) as usize).max(1 << 12),
        }
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Layers up to this many boards are kept as rank lists (`n!/256`, at least 4,096).
    pub fn list_limit(&self) -> usize {
        self.list_limit
    }

    /// BFS from `seed` over the boards still `UNSEEN` in `marks`; every reached board ends
    /// `DONE`. `on_layer(depth, size, reached_so_far)` is called after each layer is known.
    pub fn run(
        &self,
        marks: &StateMarks,
        seed: u32,
        visit: &impl OnVisit,
        mut on_layer: impl FnMut(u32, u64, u64),
    ) -> Layers {
        crate::with_cells!(self.shape.cells(), N => self.run_n::<N>(marks, seed, visit, &mut on_layer))
    }

    fn run_n<const N: usize>(
        &self,
        marks: &StateMarks,
        seed: u32,
        visit: &impl OnVisit,
        on_layer: &mut impl FnMut(u32, u64, u64),
    ) -> Layers {
        let code = |d: u32| 1 + u64::from(d % 2);
        let claimed = marks.claim(seed, code(0));
        debug_assert!(claimed, "seed already visited");
        visit.visit(seed, 0);
        let mut sizes = vec![1u64];
        let mut reached = 1u64;
        on_layer(0, 1, reached);
        // The current layer as a list, when it is small enough to keep.
        let mut list: Option<Vec<u32>> = Some(vec![seed]);
        let mut depth = 0u32;
        loop {
            let size = sizes[depth as usize];
            let keep_next = size.saturating_mul(4) <= self.list_limit as u64;
            let (next_size, next_list, current) = match list.take() {
                Some(current) => {
                    let (n, l) = self.expand_list::<N>(marks, &current, depth, keep_next, visit);
                    (n, l, Some(current))
                }
                None => {
                    let keep_current = size <= self.list_limit as u64;
                    self.expand_dense::<N>(marks, depth, keep_next, keep_current, visit)
                }
            };
            if next_size == 0 {
                let mut last = current.unwrap_or_default();
                last.sort_unstable();
                return Layers { sizes, last };
            }
            depth += 1;
            reached += next_size;
            sizes.push(next_size);
            on_layer(depth, next_size, reached);
            list = next_list;
        }
    }

    /// Expands the boards of `current` (layer `depth`); returns the next layer's size and,
    /// when `keep_next`, its list.
    fn expand_list<const N: usize>(
        &self,
        marks: &StateMarks,
        current: &[u32],
        depth: u32,
        keep_next: bool,
        visit: &impl OnVisit,
    ) -> (u64, Option<Vec<u32>>) {
        let expand = |chunk: &[u32]| -> (u64, Vec<u32>) {
            let mut claims = Claims::new(marks, visit, depth + 1, keep_next);
            for &r in chunk {
                moves::for_each_neighbor::<N>(r, &self.moves, |nb, _| claims.push(nb));
                marks.retire(r);
            }
            claims.finish()
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

    /// Finds layer `depth` by scanning the marks and expands it. Returns the next layer's
    /// size, its list when `keep_next`, and this layer's list when `keep_current`.
    fn expand_dense<const N: usize>(
        &self,
        marks: &StateMarks,
        depth: u32,
        keep_next: bool,
        keep_current: bool,
        visit: &impl OnVisit,
    ) -> (u64, Option<Vec<u32>>, Option<Vec<u32>>) {
        let code = 1 + u64::from(depth % 2);
        let pattern = code * LOW_BITS;
        let (found, next, current) = marks
            .words
            .par_chunks(CHUNK_WORDS)
            .enumerate()
            .map(|(chunk_index, words)| {
                let mut claims = Claims::new(marks, visit, depth + 1, keep_next);
                let mut current = Vec::new();
                let mut unranker = SequentialUnranker::<N>::default();
                for (k, word) in words.iter().enumerate() {
                    let x = word.load(Relaxed) ^ pattern;
                    let matches = !(x | (x >> 1)) & LOW_BITS;
                    if matches == 0 {
                        continue;
                    }
                    let base = ((chunk_index * CHUNK_WORDS + k) as u64 * FIELDS_PER_WORD) as u32;
                    let mut m = matches;
                    while m != 0 {
                        let r = base + m.trailing_zeros() / 2;
                        m &= m - 1;
                        if keep_current {
                            current.push(r);
                        }
                        let (perm, digits) = unranker.unrank(r);
                        moves::neighbors_of::<N>(r, &perm, &digits, &self.moves, |nb, _| {
                            claims.push(nb)
                        });
                    }
                    // Frontier fields (01 or 10) become DONE (11).
                    word.fetch_or(matches * 3, Relaxed);
                }
                let (found, next) = claims.finish();
                (found, next, current)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_unseen_skips_visited_and_stops_at_len() {
        let marks = StateMarks::new(70);
        assert_eq!(marks.next_unseen(0), Some(0));
        for r in 0..40 {
            marks.retire(r);
        }
        assert_eq!(marks.next_unseen(0), Some(40));
        assert_eq!(marks.next_unseen(65), Some(65));
        for r in 40..70 {
            marks.retire(r);
        }
        assert_eq!(marks.next_unseen(0), None);
    }

    #[test]
    fn claims_are_exclusive() {
        let marks = StateMarks::new(100);
        assert!(marks.claim(37, 1));
        assert!(!marks.claim(37, 2));
        assert_eq!(marks.get(37), 1);
        marks.retire(37);
        assert_eq!(marks.get(37), DONE);
    }

    /// 3x3 layer sizes, OEIS A089473, through both the sparse and the dense path.
    #[test]
    fn layer_sizes_3x3_in_both_modes() {
        let a089473 = [
            1u64, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638,
            9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
        ];
        let shape = Shape::new(3, 3).unwrap();
        for limit in [1usize, 100, 1 << 20] {
            let mut engine = Engine::new(shape);
            engine.list_limit = limit;
            let marks = StateMarks::new(362_880);
            let layers = engine.run(&marks, 0, &(), |_, _, _| {});
            assert_eq!(layers.sizes, a089473, "list limit {limit}");
            if limit < 2 {
                assert!(
                    layers.last.is_empty(),
                    "a last layer over the limit is not listed"
                );
                continue;
            }
            let antipodes: Vec<String> = layers
                .last
                .iter()
                .map(|&r| crate::Board::from_rank(shape, u64::from(r)).label())
                .collect();
            assert_eq!(antipodes, ["647859321", "867254391"]);
        }
    }
}
