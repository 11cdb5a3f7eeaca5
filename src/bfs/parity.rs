//! [`ParitySpace`]: one component of the game graph (`n!/2` boards) as a dense `u64` index, and
//! its kernel.
//!
//! **The component.** On a board with at least 2 rows and 2 columns the game graph has exactly
//! two components of `n!/2` boards (Johnson & Story 1879; Wilson 1974): with the tiles read
//! row-major, skipping the blank, a horizontal move leaves the tile sequence unchanged, and a
//! vertical move carries one tile over `cols - 1` others, changing the sequence's parity by
//! `cols - 1`. So [`Parity`] = (parity of the tile sequence) xor (on even widths, the parity of
//! the blank's row counted from the bottom) never changes, and each class is connected.
//!
//! **The layout** (the one of the public GPU solver the issue cites, chosen over "blank cell x
//! parity rank" because it keeps horizontal moves in the same cache line):
//!
//! ```text
//! index = q * cells + blank,   q = rank(tile sequence) / 2
//! ```
//!
//! where `rank` is the lexicographic Lehmer rank of the `m = n - 1` tiles (Lehmer 1960). The
//! ranks `2q` and `2q + 1` differ only by the order of the last two tiles, hence by parity, so
//! `q` ranks the sequences of one parity (`m!/2` of them) and the blank's cell says which
//! parity: the layout is a bijection from a class onto `0..n!/2`.
//!
//! **The kernel.** A horizontal move is `index ± 1`. A vertical move moves one tile of the
//! sequence by `cols - 1` places (from `i` to `j`); only the Lehmer digits of positions
//! `i..=j` change, by closed forms (below), so the new rank costs `O(cols)` after the sequence
//! of the batch's first board is unranked once for every `cells` consecutive indices.
//! With `t` the sequence, `d` its digits and `e` the moving tile:
//!
//! - right (`e = t[i]` to `j`): `d'[k] = d[k+1] + [e < t[k+1]]` for `i <= k < j`, and
//!   `d'[j] = d[i] - #{i < k <= j : t[k] < e}`;
//! - left (`e = t[j]` to `i`): `d'[i] = d[j] + #{i <= k < j : t[k] < e}`, and
//!   `d'[k+1] = d[k] - [e < t[k]]` for `i <= k < j`.
//!
//! On x86-64, for 7 to 13 tiles and at most 9 columns (2x7, 3x4, 2x6 among them), the kernel
//! runs in vector lanes ([`InLanes`]): the sequence is read from its unranker's tables, not
//! written out, and each closed form is a handful of SSE2 instructions. It is compiled a
//! second time for x86-64-v3 and chosen at run time ([`super::x86_64_v3`]).

use super::{Lanes, Sides, StateIndex, StateSpace};

/// Runs `$body` with `const $m: usize` = the tiles (cells - 1) and `const $c: usize` = the
/// columns of `$shape`, one of the grids [`ParitySpace`] admits (2 to 10 columns, at least 2
/// rows, at most 20 cells): the kernel is compiled once per shape, its loops unrolled.
macro_rules! with_grid {
    ($shape:expr, $m:ident, $c:ident => $body:expr) => {
        with_grid!(@ ($shape.cells(), $shape.cols()), $m, $c => $body;
            (4, 2), (6, 2), (8, 2), (10, 2), (12, 2), (14, 2), (16, 2), (18, 2), (20, 2),
            (6, 3), (9, 3), (12, 3), (15, 3), (18, 3),
            (8, 4), (12, 4), (16, 4), (20, 4),
            (10, 5), (15, 5), (20, 5),
            (12, 6), (18, 6), (14, 7), (16, 8), (18, 9), (20, 10))
    };
    (@ $key:expr, $m:ident, $c:ident => $body:expr; $(($cells:literal, $cols:literal)),*) => {
        match $key {
            $(($cells, $cols) => {
                const $m: usize = $cells - 1;
                const $c: usize = $cols;
                $body
            })*
            _ => unreachable!("ParitySpace admits only grids of at most 20 cells"),
        }
    };
}
use crate::board::Board;
use crate::metric::Metric;
#[cfg(target_arch = "x86_64")]
use crate::rank::SuffixLanes;
use crate::rank::{self, SequentialUnranker, Unranked};
use crate::shape::Shape;

/// [`ParitySpace::expand_mtm`]'s `SKIP` that leaves out every move along the row.
const SKIP_ROW: usize = usize::MAX;

/// Which of the two components of a board with at least 2 rows and 2 columns.
///
/// `Even` holds the goal (tiles in order, blank in the last cell); `Odd` holds the boards with
/// two tiles swapped. Defined as the parity of the tile sequence (row-major, blank skipped),
/// plus on even widths the blank's row counted from the bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Parity {
    /// The class of the standard goal.
    Even,
    /// The other class.
    Odd,
}

impl Parity {
    /// The class of `board` (any board of at least 2 rows and 2 columns).
    pub fn of(board: &Board) -> Parity {
        let (_, parity) = sequence_rank(board.permutation());
        let shape = board.shape();
        let row_term = if shape.cols() % 2 == 0 {
            (shape.rows() - 1 - board.blank() / shape.cols()) as u8 & 1
        } else {
            0
        };
        if parity ^ row_term == 0 {
            Parity::Even
        } else {
            Parity::Odd
        }
    }

    /// The other class.
    pub fn flipped(self) -> Parity {
        match self {
            Parity::Even => Parity::Odd,
            Parity::Odd => Parity::Even,
        }
    }

    fn bit(self) -> u8 {
        match self {
            Parity::Even => 0,
            Parity::Odd => 1,
        }
    }
}

/// The boards of one [`Parity`] class of a shape with at least 2 rows and 2 columns and at
/// most [`ParitySpace::MAX_CELLS`] cells, indexed `0..n!/2` (see the module docs).
#[derive(Debug, Clone)]
pub struct ParitySpace {
    shape: Shape,
    class: Parity,
    size: u64,
    /// Per blank cell: the parity its boards' tile sequences have, and its moves.
    moves: Vec<BlankMoves>,
    metric: Metric,
}

impl ParitySpace {
    /// The largest board the index supports: `20!/2` fits in a `u64`.
    pub const MAX_CELLS: usize = 20;

    /// The space of the boards of `class` on `shape` in the single-tile metric, or `None`
    /// when the shape has a single row or column (its graph is not two components) or more
    /// than [`Self::MAX_CELLS`] cells.
    pub fn new(shape: Shape, class: Parity) -> Option<ParitySpace> {
        ParitySpace::with_metric(shape, class, Metric::Stm)
    }

    /// [`ParitySpace::new`] with the moves of `metric`: the same boards and index (an MTM
    /// move is STM moves composed, so the classes are the same), another kernel.
    pub fn with_metric(shape: Shape, class: Parity, metric: Metric) -> Option<ParitySpace> {
        if !shape.is_grid() || shape.cells() > Self::MAX_CELLS {
            return None;
        }
        let (n, cols) = (shape.cells(), shape.cols());
        let moves = (0..n)
            .map(|b| {
                let row_term = if cols % 2 == 0 {
                    (shape.rows() - 1 - b / cols) as u8 & 1
                } else {
                    0
                };
                BlankMoves {
                    need: class.bit() ^ row_term,
                    left: b % cols > 0,
                    right: b % cols + 1 < cols,
                }
            })
            .collect();
        let space = ParitySpace {
            shape,
            class,
            size: rank::factorial(n)? / 2,
            moves,
            metric,
        };
        // The drivers' skips trust the lanes and sides: checked against the kernel on a
        // sample (every board of a small space) whenever a space is made. A disagreement is a
        // defect of this file, never of the input (the shape and the metric are all of it).
        if let Err(e) = super::layout::verify(&space) {
            panic!("internal error: the {metric:?} parity layout of {shape} fails its check: {e}");
        }
        Some(space)
    }

    /// The metric of the kernel.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The class of this space.
    pub fn class(&self) -> Parity {
        self.class
    }

    /// The index of the board whose internal permutation is `cells` (value `n - 1` is the
    /// blank; see [`Board::permutation`]), or `None` when it is of the other class. O(n).
    #[inline(always)]
    pub fn locate(&self, cells: &[u8]) -> Option<StateIndex> {
        let n = cells.len();
        let blank = cells.iter().position(|&v| v as usize == n - 1)?;
        let (r, parity) = sequence_rank(cells);
        (parity == self.moves[blank].need).then(|| StateIndex((r >> 1) * n as u64 + blank as u64))
    }

    /// The kernel for `M = cells - 1` tiles and `C` columns. `ACROSS`: only the neighbours
    /// not one index away, compacted (see [`StateSpace::expand_across`]); otherwise
    /// [`StateSpace::degree`] slots per board. `MTM`: the multi-tile metric's moves (below).
    fn expand_mc<const M: usize, const C: usize, const ACROSS: bool, const MTM: bool>(
        &self,
        batch: &[StateIndex],
        out: &mut Vec<StateIndex>,
    ) {
        if MTM {
            return match ACROSS {
                true => self.expand_mtm::<M, C, 1>(batch, out),
                false => self.expand_mtm::<M, C, 0>(batch, out),
            };
        }
        #[cfg(target_arch = "x86_64")]
        if InLanes::<M, C>::FITS {
            return self.expand_in_lanes::<M, C, ACROSS>(batch, out);
        }
        self.single_tile::<M, C, ACROSS, _>(Cursor::<M>::default(), batch, out)
    }

    /// The single-tile kernel's loop, the tile sequences read and the closed forms applied
    /// by `cursor` (scalar or in vector lanes).
    #[inline(always)]
    fn single_tile<const M: usize, const C: usize, const ACROSS: bool, K: SingleTile>(
        &self,
        mut cursor: K,
        batch: &[StateIndex],
        out: &mut Vec<StateIndex>,
    ) {
        let n = (M + 1) as u64;
        out.reserve(if ACROSS { 2 } else { 4 } * batch.len());
        for &StateIndex(index) in batch {
            let blank = cursor.seek(self, index);
            let moves = &self.moves[blank];
            // The tile above drops into the blank: it moves right in the sequence, from
            // `blank - C` to `blank - 1`.
            let up = (blank >= C).then(|| {
                let to = blank - C;
                StateIndex((cursor.moved_right::<C>(to) >> 1) * n + to as u64)
            });
            // The tile below rises into the blank: it moves left, from `blank + C - 1` to
            // `blank`.
            let down = (blank + C <= M)
                .then(|| StateIndex((cursor.moved_left::<C>(blank) >> 1) * n + (blank + C) as u64));
            if ACROSS {
                out.extend(up);
                out.extend(down);
            } else {
                out.extend_from_slice(&[
                    up.unwrap_or(StateIndex::NONE),
                    down.unwrap_or(StateIndex::NONE),
                    if moves.left {
                        StateIndex(index - 1)
                    } else {
                        StateIndex::NONE
                    },
                    if moves.right {
                        StateIndex(index + 1)
                    } else {
                        StateIndex::NONE
                    },
                ]);
            }
        }
    }
}

impl ParitySpace {
    /// Index `q * (M + 1) + blank` as `q`, the blank's cell, and the parity the tile
    /// sequence has with the blank there.
    #[inline(always)]
    fn split<const M: usize>(&self, index: u64) -> (u64, usize, u8) {
        let n = (M + 1) as u64;
        let q = index / n;
        let blank = (index - q * n) as usize;
        (q, blank, self.moves[blank].need)
    }
}

/// The tile sequences of the consecutive boards of a batch, and a vertical move's closed
/// forms on them: [`Cursor`] (written out, scalar) or [`LaneCursor`] (in vector lanes).
trait SingleTile {
    /// Moves to the board at `index` of `space`; returns its blank cell.
    fn seek(&mut self, space: &ParitySpace, index: u64) -> usize;
    /// The rank of the current sequence.
    fn rank(&self) -> u64;
    /// [`Sequence::moved_right`] on the current sequence.
    fn moved_right<const C: usize>(&self, i: usize) -> u64;
    /// [`Sequence::moved_left`] on the current sequence.
    fn moved_left<const C: usize>(&self, i: usize) -> u64;
}

impl ParitySpace {
    /// The multi-tile kernel. The blank jumps `k` cells along its row or column:
    ///
    /// - along the row, the tile sequence is unchanged: `index ± k`;
    /// - along the column, by `k` rows: `k` single-tile moves of the blank in one direction.
    ///   Each moves one tile `C - 1` places in the tile sequence, within a window of `C`
    ///   positions, and the windows of the `k` moves are disjoint and in order (up: each
    ///   left of the one before; down: each right of it). A move changes only the Lehmer
    ///   digits of its window, and those count the smaller tiles after each tile, a set the
    ///   earlier moves (all after the window, or all before it, each permuting tiles within
    ///   its own window) leave as it was. So each move changes the rank by its single-tile
    ///   closed form on the board's own sequence, and the rank after the jump is the rank
    ///   plus the sum of the `k` changes: `O(k C)`, through the single-tile kernel's cursor
    ///   (in lanes where it applies).
    ///
    /// Slots in the order of [`Metric::targets`]: up (nearest first), down, left, right.
    /// `SKIP`: 0 for [`StateSpace::degree`] slots per board; otherwise the moves along the
    /// row of at most `SKIP` cells left out and the rest compacted (1:
    /// [`StateSpace::expand_across`]; [`SKIP_ROW`]: [`StateSpace::expand_off_lanes`]).
    fn expand_mtm<const M: usize, const C: usize, const SKIP: usize>(
        &self,
        batch: &[StateIndex],
        out: &mut Vec<StateIndex>,
    ) {
        #[cfg(target_arch = "x86_64")]
        if InLanes::<M, C>::FITS {
            return if super::x86_64_v3() {
                // SAFETY: the processor has the features the function is compiled for.
                unsafe { self.expand_mtm_v3::<M, C, SKIP>(batch, out) }
            } else {
                self.multi_tile::<M, C, SKIP, _>(LaneCursor::<M>::new(), batch, out)
            };
        }
        self.multi_tile::<M, C, SKIP, _>(Cursor::<M>::default(), batch, out)
    }

    /// [`ParitySpace::expand_mtm`] in lanes, compiled for x86-64-v3 ([`super::x86_64_v3`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,fma,movbe")]
    unsafe fn expand_mtm_v3<const M: usize, const C: usize, const SKIP: usize>(
        &self,
        batch: &[StateIndex],
        out: &mut Vec<StateIndex>,
    ) {
        self.multi_tile::<M, C, SKIP, _>(LaneCursor::<M>::new(), batch, out)
    }

    /// The multi-tile kernel's loop ([`ParitySpace::expand_mtm`]), the tile sequences read and
    /// the closed forms applied by `cursor`.
    #[inline(always)]
    fn multi_tile<const M: usize, const C: usize, const SKIP: usize, K: SingleTile>(
        &self,
        mut cursor: K,
        batch: &[StateIndex],
        out: &mut Vec<StateIndex>,
    ) {
        let n = (M + 1) as u64;
        let rows = (M + 1) / C;
        let degree = rows - 1 + C - 1;
        out.reserve(degree * batch.len());
        for &StateIndex(index) in batch {
            let blank = cursor.seek(self, index);
            let rank = cursor.rank();
            let (row, col) = (blank / C, blank % C);
            let start = out.len();
            // Up by k: the k-th single-tile move takes the tile at `blank - kC` right to
            // `blank - (k - 1)C - 1` in the sequence.
            let mut jumped = rank;
            for k in 1..=row {
                let to = blank - k * C;
                jumped = jumped.wrapping_add(cursor.moved_right::<C>(to).wrapping_sub(rank));
                out.push(StateIndex((jumped >> 1) * n + to as u64));
            }
            // Down by k: the k-th takes the tile at `from + C - 1` left to `from`, the
            // blank's cell before it.
            let mut jumped = rank;
            for k in 1..rows - row {
                let from = blank + (k - 1) * C;
                jumped = jumped.wrapping_add(cursor.moved_left::<C>(from).wrapping_sub(rank));
                out.push(StateIndex((jumped >> 1) * n + (from + C) as u64));
            }
            for k in SKIP.saturating_add(1)..=col {
                out.push(StateIndex(index - k as u64));
            }
            for k in SKIP.saturating_add(1)..C - col {
                out.push(StateIndex(index + k as u64));
            }
            if SKIP == 0 {
                out.resize(start + degree, StateIndex::NONE);
            }
        }
    }
}

/// The single-tile kernel in vector lanes (x86-64, SSE2, which every x86-64 processor has),
/// for `6 < M <= 13` tiles and at most 9 columns: the 2x7 board's middle layers spend more
/// of their time here than anywhere else (the profiles: `CHANGELOG.md`, issue 21).
///
/// The tile sequence is never written out: it is read as its prefix's lanes and its suffix
/// row's ([`SequentialUnranker::seek_row`]), whose tables stay in place from board to
/// board, so the vector loads never wait on bytes just stored. A vertical move's closed
/// forms (the module's doc) then take one comparison of the `C - 1` tiles that shift
/// against the moving one, one difference of the digits and their neighbours, and the
/// digit changes times the weights summed by 16-bit multiply-adds (`pmaddwd`) of the
/// weights' low and high 15 bits; the one digit left apart is scalar.
#[cfg(target_arch = "x86_64")]
struct InLanes<const M: usize, const C: usize>;

#[cfg(target_arch = "x86_64")]
impl<const M: usize, const C: usize> InLanes<M, C> {
    /// Whether the lane kernel applies: the sequence fits 16 lanes and is longer than the
    /// unranker's suffix, and the largest weight, `(M - 1)!`, fits 30 bits, so that both
    /// halves of a weight fit `i16`.
    const FITS: bool = M > 6 && M <= 13 && C >= 2 && C <= 9;
    /// `RIGHT[i]`: in lanes `i <= p < i + C - 1`, the weight `w[p]` (a tile moving right
    /// from `i`: the digit at `p` becomes the one at `p + 1`, changed); the low 15 bits in
    /// `[0]`, the rest in `[1]`; 0 elsewhere.
    const RIGHT: &'static [[[i16; 16]; 2]; M] = &Self::weights(0);
    /// `LEFT[i]`: in lanes `i <= p < i + C - 1`, the weight `w[p + 1]` (a tile moving left
    /// to `i`: the digit at `p` goes to `p + 1`, changed), split as `RIGHT`.
    const LEFT: &'static [[[i16; 16]; 2]; M] = &Self::weights(1);
    /// `MASK[i]`: 1 in lanes `i <= p < i + C - 1`, 0 elsewhere.
    const MASK: &'static [[u8; 16]; M] = &{
        let mut out = [[0u8; 16]; M];
        let mut i = 0;
        while i < M {
            let mut p = i;
            while p + 1 < i + C && p < 16 {
                out[i][p] = 1;
                p += 1;
            }
            i += 1;
        }
        out
    };

    const fn weights(shift: usize) -> [[[i16; 16]; 2]; M] {
        let w = rank::weights::<M>();
        let mut out = [[[0i16; 16]; 2]; M];
        if !Self::FITS {
            return out;
        }
        let mut i = 0;
        while i + C <= M {
            let mut p = i;
            while p + 1 < i + C {
                let weight = w[p + shift];
                out[i][0][p] = (weight & 0x7fff) as i16;
                out[i][1][p] = (weight >> 15) as i16;
                p += 1;
            }
            i += 1;
        }
        out
    }
}

/// The tile sequence of the board at each index of an ascending batch, as
/// [`Cursor`] but in lanes (see [`InLanes`]): the unranker's prefix and a suffix row.
#[cfg(target_arch = "x86_64")]
struct LaneCursor<const M: usize> {
    unranker: SequentialUnranker<M>,
    current: u64,
    row: usize,
    rank: u64,
    parity: u8,
}

#[cfg(target_arch = "x86_64")]
impl<const M: usize> LaneCursor<M> {
    fn new() -> Self {
        LaneCursor {
            unranker: SequentialUnranker::default(),
            current: u64::MAX,
            row: 0,
            rank: 0,
            parity: 0,
        }
    }

    /// Lane `p`: `-1` where the tile at `p` is larger than `e`, the tile at position `at`.
    #[inline(always)]
    fn larger(&self, at: usize) -> std::arch::x86_64::__m128i {
        use std::arch::x86_64::*;
        let head = self.unranker.head_lanes();
        let e = self.unranker.value(self.row, at);
        // A suffix lane holds 1 + its tile's order among the free tiles: larger than `e`
        // exactly when that exceeds how many free tiles are at most `e`.
        let g = head.at_most[usize::from(e)];
        // SAFETY: SSE2 is part of x86-64; the loads read 16-byte arrays.
        unsafe {
            let tiles = _mm_load_si128(head.perm.as_ptr().cast());
            let order = _mm_loadu_si128(SuffixLanes::<M>::ORDER[self.row].as_ptr().cast());
            _mm_or_si128(
                _mm_cmpgt_epi8(tiles, _mm_set1_epi8(e as i8)),
                _mm_cmpgt_epi8(order, _mm_set1_epi8(g as i8)),
            )
        }
    }

    /// The digits in lanes.
    #[inline(always)]
    fn digits(&self) -> std::arch::x86_64::__m128i {
        use std::arch::x86_64::*;
        let head = self.unranker.head_lanes();
        // SAFETY: SSE2 is part of x86-64; the loads read 16-byte arrays.
        unsafe {
            _mm_or_si128(
                _mm_load_si128(head.digits.as_ptr().cast()),
                _mm_loadu_si128(SuffixLanes::<M>::DIGITS[self.row].as_ptr().cast()),
            )
        }
    }

    /// `sum over lanes p of c[p] * (lo[p] + 2^15 hi[p])`, `c` signed bytes (|c| <= 26).
    #[inline(always)]
    fn weighted(c: std::arch::x86_64::__m128i, [lo, hi]: &[[i16; 16]; 2]) -> i64 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86-64; the loads read 16-byte halves of `lo` and `hi`.
        unsafe {
            let sign = _mm_cmpgt_epi8(_mm_setzero_si128(), c);
            let (c0, c1) = (_mm_unpacklo_epi8(c, sign), _mm_unpackhi_epi8(c, sign));
            let half = |w: &[i16; 16]| {
                _mm_add_epi32(
                    _mm_madd_epi16(c0, _mm_loadu_si128(w.as_ptr().cast())),
                    _mm_madd_epi16(c1, _mm_loadu_si128(w[8..].as_ptr().cast())),
                )
            };
            let (a, b) = (half(lo), half(hi));
            // (a0 + a2, a1 + a3, b0 + b2, b1 + b3), then pairs: a's sum in lane 0, b's in
            // lane 2. Each fits i32: 16 lanes * 26 * 2^15 < 2^24.
            let s = _mm_add_epi32(_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
            let low = _mm_cvtsi128_si32(s);
            let high = _mm_cvtsi128_si32(_mm_unpackhi_epi64(s, s));
            i64::from(low) + (i64::from(high) << 15)
        }
    }

    /// How many lanes of `larger` (0 or -1) are set among the `C - 1` lanes of `mask`.
    #[inline(always)]
    fn count(larger: std::arch::x86_64::__m128i, mask: &[u8; 16]) -> i64 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `mask`.
        unsafe {
            let ones = _mm_and_si128(larger, _mm_loadu_si128(mask.as_ptr().cast()));
            let sums = _mm_sad_epu8(ones, _mm_setzero_si128());
            i64::from(_mm_cvtsi128_si32(_mm_add_epi32(
                sums,
                _mm_unpackhi_epi64(sums, sums),
            )))
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl<const M: usize> SingleTile for LaneCursor<M> {
    /// Moves to the board at `index` of `space`; returns its blank cell.
    #[inline(always)]
    fn seek(&mut self, space: &ParitySpace, index: u64) -> usize {
        let (q, blank, need) = space.split::<M>(index);
        if q != self.current {
            self.current = q;
            self.row = self.unranker.seek_row(2 * q, need);
            // Rows 2k and 2k + 1 hold ranks 2q and 2q + 1 (720 is even).
            self.rank = 2 * q + (self.row & 1) as u64;
            self.parity = need;
        } else if self.parity != need {
            // Another row of an even width: the last two tiles swapped.
            self.row ^= 1;
            self.rank ^= 1;
            self.parity = need;
        }
        blank
    }

    #[inline(always)]
    fn rank(&self) -> u64 {
        self.rank
    }

    /// [`Sequence::moved_right`] in lanes: the tile at `i` moves right to `i + C - 1`.
    /// Lane `p` of the window: `d[p+1] - d[p] + [e < t[p+1]]`; the last digit,
    /// `d[i] - below - d[i + C - 1]`, apart.
    #[inline(always)]
    fn moved_right<const C: usize>(&self, i: usize) -> u64 {
        use std::arch::x86_64::*;
        let larger = self.larger(i);
        let d = self.digits();
        // SAFETY: SSE2 is part of x86-64.
        let (c, above) = unsafe {
            let next_larger = _mm_srli_si128::<1>(larger);
            let change = _mm_sub_epi8(_mm_srli_si128::<1>(d), d);
            (
                _mm_sub_epi8(change, next_larger),
                Self::count(next_larger, &InLanes::<M, C>::MASK[i]),
            )
        };
        let below = (C - 1) as i64 - above;
        let row = self.row;
        let last = i64::from(self.unranker.digit(row, i))
            - below
            - i64::from(self.unranker.digit(row, i + C - 1));
        let delta = Self::weighted(c, &InLanes::<M, C>::RIGHT[i])
            + last * Sequence::<M>::WEIGHTS[i + C - 1] as i64;
        self.rank.wrapping_add(delta as u64)
    }

    /// [`Sequence::moved_left`] in lanes: the tile at `i + C - 1` moves left to `i`. Lane
    /// `p` of the window: `d[p] - d[p+1] - [e < t[p]]`; the first digit,
    /// `d[i + C - 1] + below - d[i]`, apart.
    #[inline(always)]
    fn moved_left<const C: usize>(&self, i: usize) -> u64 {
        use std::arch::x86_64::*;
        let larger = self.larger(i + C - 1);
        let d = self.digits();
        // SAFETY: SSE2 is part of x86-64.
        let (c, above) = unsafe {
            let change = _mm_sub_epi8(d, _mm_srli_si128::<1>(d));
            (
                _mm_add_epi8(change, larger),
                Self::count(larger, &InLanes::<M, C>::MASK[i]),
            )
        };
        let below = (C - 1) as i64 - above;
        let row = self.row;
        let first = i64::from(self.unranker.digit(row, i + C - 1)) + below
            - i64::from(self.unranker.digit(row, i));
        let delta =
            Self::weighted(c, &InLanes::<M, C>::LEFT[i]) + first * Sequence::<M>::WEIGHTS[i] as i64;
        self.rank.wrapping_add(delta as u64)
    }
}

#[cfg(target_arch = "x86_64")]
impl ParitySpace {
    /// The single-tile kernel in lanes ([`InLanes`]); as [`ParitySpace::expand_mc`]. Compiled
    /// twice: for any x86-64, and with AVX2 and BMI2 (x86-64-v3) where the processor has them
    /// (checked at run time, once per batch).
    fn expand_in_lanes<const M: usize, const C: usize, const ACROSS: bool>(
        &self,
        batch: &[StateIndex],
        out: &mut Vec<StateIndex>,
    ) {
        if super::x86_64_v3() {
            // SAFETY: the processor has the features the function is compiled for.
            unsafe { self.expand_in_lanes_v3::<M, C, ACROSS>(batch, out) }
        } else {
            self.in_lanes::<M, C, ACROSS>(batch, out)
        }
    }

    /// [`ParitySpace::in_lanes`] compiled for x86-64-v3 ([`super::x86_64_v3`]).
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,fma,movbe")]
    unsafe fn expand_in_lanes_v3<const M: usize, const C: usize, const ACROSS: bool>(
        &self,
        batch: &[StateIndex],
        out: &mut Vec<StateIndex>,
    ) {
        self.in_lanes::<M, C, ACROSS>(batch, out)
    }

    #[inline(always)]
    fn in_lanes<const M: usize, const C: usize, const ACROSS: bool>(
        &self,
        batch: &[StateIndex],
        out: &mut Vec<StateIndex>,
    ) {
        self.single_tile::<M, C, ACROSS, _>(LaneCursor::<M>::new(), batch, out)
    }
}

/// The tile sequence of the board at each index of an ascending batch: unranked once per
/// `q` (every `cells` consecutive indices), as rank `2q` or (last two tiles swapped)
/// `2q + 1`, toggled in place to the parity each board's blank needs.
struct Cursor<const M: usize> {
    unranker: SequentialUnranker<M>,
    current: u64,
    seq: Sequence<M>,
}

impl<const M: usize> Default for Cursor<M> {
    fn default() -> Self {
        Cursor {
            unranker: SequentialUnranker::default(),
            current: u64::MAX,
            seq: Sequence::default(),
        }
    }
}

impl<const M: usize> SingleTile for Cursor<M> {
    /// Moves to the board at `index` of `space`; returns its blank cell.
    #[inline(always)]
    fn seek(&mut self, space: &ParitySpace, index: u64) -> usize {
        let (q, blank, need) = space.split::<M>(index);
        if q != self.current {
            // Rank 2q or 2q + 1, whichever has the parity this blank needs.
            self.current = q;
            let odd = self
                .unranker
                .unrank_with_parity(2 * q, need, &mut self.seq.u);
            self.seq.rank = 2 * q + odd;
        } else if self.seq.u.parity != need {
            // Another row of an even width: the other parity, the same q.
            self.seq.swap_last_two();
        }
        blank
    }

    #[inline(always)]
    fn rank(&self) -> u64 {
        self.seq.rank
    }

    #[inline(always)]
    fn moved_right<const C: usize>(&self, i: usize) -> u64 {
        self.seq.moved_right::<C>(i)
    }

    #[inline(always)]
    fn moved_left<const C: usize>(&self, i: usize) -> u64 {
        self.seq.moved_left::<C>(i)
    }
}

/// The moves of a blank cell, as the kernel applies them.
#[derive(Debug, Clone, Copy)]
struct BlankMoves {
    /// The parity of the tile sequence of a board of the space with the blank here.
    need: u8,
    /// The blank can go left (index - 1) or right (index + 1).
    left: bool,
    right: bool,
}

/// The lexicographic rank of the tile sequence of `cells` (the blank, value `n - 1`, skipped)
/// and its parity (the parity of the sum of its Lehmer digits).
#[inline(always)]
fn sequence_rank(cells: &[u8]) -> (u64, u8) {
    let n = cells.len();
    let (mut seen, mut r, mut parity, mut i) = (0u32, 0u64, 0u8, 0usize);
    for &v in cells {
        if v as usize == n - 1 {
            continue;
        }
        let digit = u32::from(v) - (seen & ((1u32 << v) - 1)).count_ones();
        seen |= 1 << v;
        parity ^= (digit & 1) as u8;
        r = r * (n - 1 - i) as u64 + u64::from(digit);
        i += 1;
    }
    (r, parity)
}

/// A sequence of `M` tiles with its Lehmer digits, parity and rank.
#[derive(Clone, Copy)]
struct Sequence<const M: usize> {
    u: Unranked<M>,
    rank: u64,
}

impl<const M: usize> Default for Sequence<M> {
    fn default() -> Self {
        Sequence {
            u: Unranked {
                perm: [0; M],
                digits: [0; M],
                parity: 0,
            },
            rank: 0,
        }
    }
}

impl<const M: usize> Sequence<M> {
    /// The weights `(M - 1 - k)!` of the Lehmer digits.
    const WEIGHTS: [u64; M] = rank::weights::<M>();

    /// Exchanges the last two tiles: ranks `2q` and `2q + 1` trade places, and the parity
    /// flips.
    #[inline(always)]
    fn swap_last_two(&mut self) {
        if M >= 2 {
            self.u.perm.swap(M - 2, M - 1);
            self.u.digits[M - 2] ^= 1;
            self.rank ^= 1;
            self.u.parity ^= 1;
        }
    }

    /// Rank of the sequence after the tile at `i` moves right to `i + C - 1` (the `C - 1`
    /// tiles between move left one place). `i + C <= M`.
    #[inline(always)]
    fn moved_right<const C: usize>(&self, i: usize) -> u64 {
        let t: &[u8; C] = self.u.perm[i..i + C].try_into().unwrap();
        let d: &[u8; C] = self.u.digits[i..i + C].try_into().unwrap();
        let w: &[u64; C] = Self::WEIGHTS[i..i + C].try_into().unwrap();
        let e = t[0];
        let mut delta = 0i64;
        let mut below = 0i64;
        // d'[k] = d[k+1] + [e < t[k+1]] for the tiles that move left.
        for k in 0..C - 1 {
            let x = t[k + 1];
            below += i64::from(x < e);
            delta += (i64::from(d[k + 1]) + i64::from(e < x) - i64::from(d[k])) * w[k] as i64;
        }
        delta += (i64::from(d[0]) - below - i64::from(d[C - 1])) * w[C - 1] as i64;
        self.rank.wrapping_add(delta as u64)
    }

    /// [`Sequence::moved_right`] applied: the tile at `i` moves to `i + C - 1`.
    #[inline(always)]
    fn apply_right<const C: usize>(&mut self, i: usize) {
        let rank = self.moved_right::<C>(i);
        let t: [u8; C] = self.u.perm[i..i + C].try_into().unwrap();
        let d: [u8; C] = self.u.digits[i..i + C].try_into().unwrap();
        let e = t[0];
        let mut below = 0u8;
        for k in 0..C - 1 {
            let x = t[k + 1];
            below += u8::from(x < e);
            self.u.perm[i + k] = x;
            self.u.digits[i + k] = d[k + 1] + u8::from(e < x);
        }
        self.u.perm[i + C - 1] = e;
        self.u.digits[i + C - 1] = d[0] - below;
        self.u.parity ^= ((C - 1) & 1) as u8;
        self.rank = rank;
    }

    /// [`Sequence::moved_left`] applied: the tile at `i + C - 1` moves to `i`.
    #[inline(always)]
    fn apply_left<const C: usize>(&mut self, i: usize) {
        let rank = self.moved_left::<C>(i);
        let t: [u8; C] = self.u.perm[i..i + C].try_into().unwrap();
        let d: [u8; C] = self.u.digits[i..i + C].try_into().unwrap();
        let e = t[C - 1];
        let mut below = 0u8;
        for k in 0..C - 1 {
            let x = t[k];
            below += u8::from(x < e);
            self.u.perm[i + k + 1] = x;
            self.u.digits[i + k + 1] = d[k] - u8::from(e < x);
        }
        self.u.perm[i] = e;
        self.u.digits[i] = d[C - 1] + below;
        self.u.parity ^= ((C - 1) & 1) as u8;
        self.rank = rank;
    }

    /// Rank of the sequence after the tile at `i + C - 1` moves left to `i` (the `C - 1`
    /// tiles between move right one place). `i + C <= M`.
    #[inline(always)]
    fn moved_left<const C: usize>(&self, i: usize) -> u64 {
        let t: &[u8; C] = self.u.perm[i..i + C].try_into().unwrap();
        let d: &[u8; C] = self.u.digits[i..i + C].try_into().unwrap();
        let w: &[u64; C] = Self::WEIGHTS[i..i + C].try_into().unwrap();
        let e = t[C - 1];
        let mut delta = 0i64;
        let mut below = 0i64;
        // d'[k+1] = d[k] - [e < t[k]] for the tiles that move right.
        for k in 0..C - 1 {
            let x = t[k];
            below += i64::from(x < e);
            delta += (i64::from(d[k]) - i64::from(e < x) - i64::from(d[k + 1])) * w[k + 1] as i64;
        }
        delta += (i64::from(d[C - 1]) + below - i64::from(d[0])) * w[0] as i64;
        self.rank.wrapping_add(delta as u64)
    }
}

/// A board of a [`ParitySpace`] held by a walk from neighbour to neighbour (a distance
/// table's walk down to the goal, [`crate::table`]): its tile sequence with Lehmer digits,
/// rank and parity, and its blank's cell. A neighbour's index is then the kernel's closed
/// form on `C` tiles (one vertical move) or `index ± k` (along the row), not a ranking of the
/// whole board. `M` tiles, `C` columns, as [`with_held`] chooses them.
#[derive(Clone, Copy)]
pub(crate) struct Held<const M: usize, const C: usize> {
    seq: Sequence<M>,
    blank: usize,
}

impl<const M: usize, const C: usize> Held<M, C> {
    /// The board whose internal permutation is `cells` (`M + 1` values, the blank `M`).
    #[inline(always)]
    pub(crate) fn new(cells: &[u8]) -> Self {
        debug_assert_eq!(cells.len(), M + 1);
        let mut seq = Sequence::<M>::default();
        let (mut seen, mut i, mut blank) = (0u32, 0usize, 0usize);
        for (cell, &v) in cells.iter().enumerate() {
            if usize::from(v) == M {
                blank = cell;
                continue;
            }
            let digit = u32::from(v) - (seen & ((1u32 << v) - 1)).count_ones();
            seen |= 1 << v;
            seq.u.perm[i] = v;
            seq.u.digits[i] = digit as u8;
            seq.u.parity ^= (digit & 1) as u8;
            seq.rank += u64::from(digit) * Sequence::<M>::WEIGHTS[i];
            i += 1;
        }
        Held { seq, blank }
    }

    /// The board's index in its class ([`ParitySpace::locate`]).
    #[inline(always)]
    pub(crate) fn index(&self) -> u64 {
        (self.seq.rank >> 1) * (M as u64 + 1) + self.blank as u64
    }

    /// The blank's cell.
    #[inline(always)]
    pub(crate) fn blank(&self) -> usize {
        self.blank
    }

    /// The index of the board after the blank moves to `to`, in its row or its column (one
    /// move of either metric).
    #[inline(always)]
    pub(crate) fn neighbour(&self, to: usize) -> u64 {
        let n = M as u64 + 1;
        let rank = if to + C == self.blank {
            self.seq.moved_right::<C>(to)
        } else if to == self.blank + C {
            self.seq.moved_left::<C>(self.blank)
        } else if to / C == self.blank / C {
            self.seq.rank
        } else {
            // Several rows at once (the multi-tile metric): one row at a time.
            let mut far = *self;
            far.go(to);
            return far.index();
        };
        (rank >> 1) * n + to as u64
    }

    /// Moves the blank to `to`, in its row or its column.
    #[inline(always)]
    pub(crate) fn go(&mut self, to: usize) {
        if to / C == self.blank / C {
            self.blank = to;
            return;
        }
        while self.blank > to {
            // The tile above drops into the blank: from `blank - C` right to `blank - 1`.
            self.blank -= C;
            self.seq.apply_right::<C>(self.blank);
        }
        while self.blank < to {
            // The tile below rises: from `blank + C - 1` left to `blank`.
            self.seq.apply_left::<C>(self.blank);
            self.blank += C;
        }
    }
}

/// Something to run with a grid's `M` (tiles) and `C` (columns) as constants: a walk over
/// [`Held`] boards compiled for each shape, as the kernel is.
pub(crate) trait WithHeld {
    /// What the run returns.
    type Out;
    /// The run for `M` tiles and `C` columns.
    fn run<const M: usize, const C: usize>(self) -> Self::Out;
}

/// Runs `job` for the tiles and columns of `shape`, a grid [`ParitySpace`] admits.
pub(crate) fn with_held<W: WithHeld>(shape: Shape, job: W) -> W::Out {
    with_grid!(shape, M, C => job.run::<M, C>())
}

impl StateSpace for ParitySpace {
    fn shape(&self) -> Shape {
        self.shape
    }

    fn size(&self) -> u64 {
        self.size
    }

    fn rank(&self, board: &Board) -> Option<StateIndex> {
        if board.shape() != self.shape {
            return None;
        }
        self.locate(board.permutation())
    }

    fn unrank(&self, index: StateIndex) -> Board {
        let n = self.shape.cells();
        let (q, blank) = (index.0 / n as u64, (index.0 % n as u64) as usize);
        let mut cells = vec![0u8; n - 1];
        rank::unrank(2 * q, &mut cells);
        cells.insert(blank, (n - 1) as u8);
        if sequence_rank(&cells).1 != self.moves[blank].need {
            // Rank 2q + 1: the last two tiles exchanged.
            let last = if blank == n - 1 { n - 2 } else { n - 1 };
            let before = if blank == last - 1 {
                last - 2
            } else {
                last - 1
            };
            cells.swap(before, last);
        }
        Board::from_permutation(self.shape, cells).expect("a permutation of the cells")
    }

    fn expand(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        match self.metric {
            Metric::Stm => {
                with_grid!(self.shape, M, C => self.expand_mc::<M, C, false, false>(batch, out))
            }
            Metric::Mtm => {
                with_grid!(self.shape, M, C => self.expand_mc::<M, C, false, true>(batch, out))
            }
        }
    }

    fn degree(&self) -> usize {
        self.metric.degree(self.shape)
    }

    fn lanes(&self) -> Option<Lanes> {
        let cols = self.shape.cols();
        let right = (0..self.shape.cells())
            .filter(|b| b % cols + 1 < cols)
            .fold(0u64, |set, b| set | 1 << b);
        let rows = self.shape.rows();
        let single = match self.metric {
            // One vertical move: a blank in the top or the bottom row (at least 2 rows).
            Metric::Stm => (0..self.shape.cells())
                .filter(|b| b / cols == 0 || b / cols == rows - 1)
                .fold(0u64, |set, b| set | 1 << b),
            // Not used: the multi-tile metric's graph is not bipartite (no sides).
            Metric::Mtm => 0,
        };
        Some(Lanes {
            period: self.shape.cells() as u64,
            right,
            single,
            reach: match self.metric {
                Metric::Stm => 1,
                Metric::Mtm => cols as u64 - 1,
            },
        })
    }

    fn sides(&self) -> Option<Sides> {
        // index = q * cells + blank: the blank's cell is the index mod cells.
        let cols = self.shape.cols();
        let odd = (0..self.shape.cells())
            .filter(|b| (b / cols + b % cols) % 2 == 1)
            .fold(0u64, |set, b| set | 1 << b);
        self.metric.is_bipartite().then_some(Sides {
            period: self.shape.cells() as u64,
            odd,
        })
    }

    /// `cells * (m - k)! / 2` for prefixes of `k = 1..=m - 2` of the `m` tiles: the boards
    /// whose tile sequences share their first `k` tiles are `(m - k)!` consecutive Lehmer
    /// ranks from a multiple of `(m - k)!` (even), so `(m - k)! / 2` consecutive `q`.
    fn prefix_spans(&self) -> Vec<u64> {
        let cells = self.shape.cells() as u64;
        let m = cells - 1;
        (1..m.saturating_sub(1))
            .map(|k| cells * (1..=m - k).product::<u64>() / 2)
            .collect()
    }

    /// A move of the blank from cell `b` to cell `c` of its column carries the tiles between
    /// them and changes the tile sequence's positions `min(b, c)..max(b, c)` only (a row
    /// move changes nothing), so it keeps the first `k` tiles exactly when `min(b, c) >= k`:
    /// the boards within are those whose blank has no vertical move (of the metric) to or
    /// from a cell below `k`.
    fn within_segments(&self, span: u64) -> u64 {
        let Some(k) = self.prefix_spans().iter().position(|&s| s == span) else {
            return 0;
        };
        let k = k + 1;
        let (cells, cols) = (self.shape.cells(), self.shape.cols());
        let reach = match self.metric {
            Metric::Stm => 1,
            Metric::Mtm => self.shape.rows(),
        };
        (0..cells)
            .filter(|&b| {
                let column = (1..=reach)
                    .flat_map(|r| [b.checked_sub(r * cols), Some(b + r * cols)])
                    .flatten()
                    .filter(|&c| c < cells);
                column.into_iter().all(|c| b.min(c) >= k)
            })
            .fold(0u64, |set, b| set | 1 << b)
    }

    fn expand_off_lanes(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        match self.metric {
            Metric::Stm => self.expand_across(batch, out),
            Metric::Mtm => {
                with_grid!(self.shape, M, C => self.expand_mtm::<M, C, SKIP_ROW>(batch, out))
            }
        }
    }

    fn expand_across(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
        match self.metric {
            Metric::Stm => {
                with_grid!(self.shape, M, C => self.expand_mc::<M, C, true, false>(batch, out))
            }
            Metric::Mtm => {
                with_grid!(self.shape, M, C => self.expand_mc::<M, C, true, true>(batch, out))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Direction;

    fn shapes() -> Vec<Shape> {
        [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)]
            .iter()
            .map(|&(r, c)| Shape::new(r, c).unwrap())
            .collect()
    }

    /// Exhaustive: for both classes of every shape up to 9 cells, unrank then rank is the
    /// identity on `0..n!/2`, every board lands in its own class, and the kernel's neighbours
    /// are exactly the boards one slide away (ranked from scratch).
    #[test]
    fn round_trip_and_kernel_match_the_boards() {
        for shape in shapes() {
            for class in [Parity::Even, Parity::Odd] {
                let space = ParitySpace::new(shape, class).unwrap();
                assert_eq!(space.size(), rank::factorial(shape.cells()).unwrap() / 2);
                let mut out = Vec::new();
                for i in 0..space.size() {
                    let board = space.unrank(StateIndex(i));
                    assert_eq!(Parity::of(&board), class);
                    assert_eq!(space.rank(&board), Some(StateIndex(i)), "{shape} {i}");
                    out.clear();
                    space.expand(&[StateIndex(i)], &mut out);
                    let slow: Vec<StateIndex> = Direction::ALL
                        .iter()
                        .map(|&d| match board.moved(d) {
                            Some(b) => space.rank(&b).expect("a move stays in the class"),
                            None => StateIndex::NONE,
                        })
                        .collect();
                    assert_eq!(out, slow, "{shape} {class:?} index {i}");
                }
            }
        }
    }

    /// Batches give the neighbours of their boards in order, whatever their grouping.
    #[test]
    fn batches_equal_single_expansions() {
        let space = ParitySpace::new(Shape::new(3, 4).unwrap(), Parity::Even).unwrap();
        let batch: Vec<StateIndex> = (0..2000u64)
            .map(|k| StateIndex(k * 7919 % space.size()))
            .collect();
        let mut together = Vec::new();
        space.expand(&batch, &mut together);
        let mut one_by_one = Vec::new();
        for &i in &batch {
            space.expand(&[i], &mut one_by_one);
        }
        assert_eq!(together, one_by_one);
    }

    /// Spot checks on 10 to 16 cells (the frontier boards, and the grids of 10 to 14 cells
    /// of the kernel in lanes, [`InLanes`]): the kernel agrees with re-ranking, in both
    /// copies of the kernel in lanes (x86-64-v3, and every x86-64).
    #[test]
    fn kernel_matches_reranking_on_large_boards() {
        crate::bfs::on_both_copies(kernel_matches_reranking);
    }

    fn kernel_matches_reranking() {
        for (r, c) in [
            (2, 7),
            (7, 2),
            (4, 4),
            (3, 5),
            (2, 8),
            (3, 4),
            (4, 3),
            (2, 6),
            (6, 2),
            (2, 5),
            (5, 2),
        ] {
            let shape = Shape::new(r, c).unwrap();
            let space = ParitySpace::new(shape, Parity::Even).unwrap();
            for k in 0..3000u64 {
                let i = StateIndex(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) % space.size());
                let board = space.unrank(i);
                assert_eq!(space.rank(&board), Some(i));
                let mut fast = Vec::new();
                space.expand(&[i], &mut fast);
                let slow: Vec<StateIndex> = Direction::ALL
                    .iter()
                    .map(|&d| {
                        board
                            .moved(d)
                            .map_or(StateIndex::NONE, |b| space.rank(&b).unwrap())
                    })
                    .collect();
                assert_eq!(fast, slow, "{shape} index {}", i.0);
            }
        }
    }

    /// A walk's held board ([`Held`]) against ranking from scratch: on random boards of both
    /// classes of large and small grids, every move of both metrics (one row and several),
    /// the neighbour's index is the locate of the slid board, and after the move the held
    /// board (digits, parity, rank) is the one built from the slid cells; a walk of 200
    /// random moves stays so.
    #[test]
    fn held_boards_match_reranking() {
        struct HeldCheck(Shape, u64);
        impl WithHeld for HeldCheck {
            type Out = ();
            fn run<const M: usize, const C: usize>(self) {
                let HeldCheck(shape, seed) = self;
                let mut rng = crate::random::SplitMix64::new(seed);
                let mut targets = [0usize; 32];
                for parity in [Parity::Even, Parity::Odd] {
                    let space = ParitySpace::new(shape, parity).unwrap();
                    for _ in 0..200 {
                        let start = space.unrank(StateIndex(rng.below(space.size())));
                        let mut cells = start.permutation().to_vec();
                        let mut held = Held::<M, C>::new(&cells);
                        for _ in 0..200 {
                            let at = space.locate(&cells).unwrap().0;
                            assert_eq!(held.index(), at, "{shape}");
                            let count = Metric::Mtm.targets_into(shape, held.blank(), &mut targets);
                            for &to in &targets[..count] {
                                let mut next = cells.clone();
                                crate::metric::slide(&mut next, held.blank(), to, C);
                                let want = space.locate(&next).unwrap().0;
                                assert_eq!(held.neighbour(to), want, "{shape} to {to}");
                                let mut moved = held;
                                moved.go(to);
                                let fresh = Held::<M, C>::new(&next);
                                assert_eq!(moved.index(), want);
                                assert_eq!(moved.seq.u, fresh.seq.u, "{shape} to {to}");
                                assert_eq!(moved.seq.rank, fresh.seq.rank);
                            }
                            let to = targets[rng.below(count as u64) as usize];
                            crate::metric::slide(&mut cells, held.blank(), to, C);
                            held.go(to);
                        }
                    }
                }
            }
        }
        for (r, c) in [
            (2, 2),
            (3, 3),
            (3, 4),
            (4, 3),
            (4, 4),
            (2, 7),
            (7, 2),
            (4, 5),
            (2, 10),
        ] {
            let shape = Shape::new(r, c).unwrap();
            with_held(shape, HeldCheck(shape, (r * 31 + c) as u64));
        }
    }

    /// Runs of consecutive indices, as a dense layer hands them over (the cursor keeps a
    /// sequence across a row of boards and, on an even width, swaps its last two tiles for
    /// the other parity), in one batch against each board alone, in both classes, on grids
    /// of both kernels (in lanes up to 14 cells, scalar on 15 and 16), in both copies of the
    /// kernel in lanes.
    #[test]
    fn consecutive_boards_in_one_batch_equal_each_alone() {
        crate::bfs::on_both_copies(consecutive_boards_equal_each_alone);
    }

    fn consecutive_boards_equal_each_alone() {
        for (r, c) in [(2, 6), (6, 2), (2, 7), (7, 2), (3, 4), (4, 4), (3, 5)] {
            for class in [Parity::Even, Parity::Odd] {
                let space = ParitySpace::new(Shape::new(r, c).unwrap(), class).unwrap();
                for start in [0, space.size() / 3, space.size() - 200] {
                    let batch: Vec<StateIndex> = (start..start + 200).map(StateIndex).collect();
                    for across in [false, true] {
                        let run = |b: &[StateIndex], out: &mut Vec<StateIndex>| {
                            if across {
                                space.expand_across(b, out)
                            } else {
                                space.expand(b, out)
                            }
                        };
                        let mut together = Vec::new();
                        run(&batch, &mut together);
                        let mut alone = Vec::new();
                        for &i in &batch {
                            run(&[i], &mut alone);
                        }
                        assert_eq!(together, alone, "{r}x{c} {class:?} from {start}");
                    }
                }
            }
        }
    }

    /// The kernel in lanes ([`InLanes`]) against the scalar closed forms ([`Sequence`]) on
    /// the same sequences, every window start and both directions, for each width it takes
    /// on 8 to 14 tiles' sequences: the same ranks. (A wrong lane, weight half or count
    /// gives another rank for some window.)
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn lanes_agree_with_the_scalar_closed_forms() {
        fn check<const M: usize, const C: usize>() {
            assert!(InLanes::<M, C>::FITS);
            let mut lanes = LaneCursor::<M>::new();
            let mut unranker = SequentialUnranker::<M>::default();
            let mut seq = Sequence::<M>::default();
            let total = rank::factorial(M).unwrap();
            for k in 0..2000u64 {
                let r = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) % total;
                let (even, parity) = (r & !1, (k % 2) as u8);
                lanes.row = lanes.unranker.seek_row(even, parity);
                lanes.rank = even + (lanes.row & 1) as u64;
                seq.rank = even + unranker.unrank_with_parity(even, parity, &mut seq.u);
                assert_eq!(lanes.rank, seq.rank);
                for p in 0..M {
                    assert_eq!(lanes.unranker.value(lanes.row, p), seq.u.perm[p]);
                    assert_eq!(lanes.unranker.digit(lanes.row, p), seq.u.digits[p]);
                }
                for i in 0..=M - C {
                    assert_eq!(
                        lanes.moved_right::<C>(i),
                        seq.moved_right::<C>(i),
                        "M={M} C={C} r={r} i={i}"
                    );
                    assert_eq!(
                        lanes.moved_left::<C>(i),
                        seq.moved_left::<C>(i),
                        "M={M} C={C} r={r} i={i}"
                    );
                }
            }
        }
        check::<7, 2>();
        check::<7, 4>();
        check::<8, 3>();
        check::<9, 2>();
        check::<9, 5>();
        check::<11, 2>();
        check::<11, 3>();
        check::<11, 4>();
        check::<11, 6>();
        check::<13, 7>();
        check::<13, 2>();
        check::<12, 9>();
    }

    /// Issue 24: the multi-tile kernel against the boards' own slides ([`Board::slid`] to
    /// each of [`Metric::targets`], ranked from scratch): exhaustive on every grid up to 9
    /// cells, both classes, in both kernels (`expand` with its padding, `expand_across`
    /// without the moves one index away); sampled on 12 to 20 cells.
    #[test]
    fn multi_tile_kernel_matches_the_slides() {
        let check = |space: &ParitySpace, i: StateIndex| {
            let shape = space.shape();
            let board = space.unrank(i);
            let slides: Vec<StateIndex> = Metric::Mtm
                .targets(shape, board.blank())
                .into_iter()
                .map(|to| space.rank(&board.slid(to).unwrap()).expect("same class"))
                .collect();
            assert_eq!(slides.len(), space.degree());
            let mut fast = Vec::new();
            space.expand(&[i], &mut fast);
            assert_eq!(fast, slides, "{shape} index {}", i.0);
            let mut across = Vec::new();
            space.expand_across(&[i], &mut across);
            let far: Vec<StateIndex> = slides
                .into_iter()
                .filter(|s| {
                    s.0.abs_diff(i.0) != 1
                        || s.0 / shape.cells() as u64 != i.0 / shape.cells() as u64
                })
                .collect();
            assert_eq!(across, far, "{shape} index {} across", i.0);
        };
        for shape in shapes() {
            for class in [Parity::Even, Parity::Odd] {
                let space = ParitySpace::with_metric(shape, class, Metric::Mtm).unwrap();
                for i in 0..space.size() {
                    check(&space, StateIndex(i));
                }
            }
        }
        for (r, c) in [
            (3, 4),
            (4, 3),
            (2, 7),
            (4, 4),
            (5, 3),
            (2, 10),
            (4, 5),
            (5, 4),
        ] {
            let shape = Shape::new(r, c).unwrap();
            let space = ParitySpace::with_metric(shape, Parity::Even, Metric::Mtm).unwrap();
            for k in 0..2000u64 {
                check(
                    &space,
                    StateIndex(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) % space.size()),
                );
            }
        }
    }

    /// [`Lanes::single`] names exactly the boards with one move that is not a lane move (a
    /// blank in the top or the bottom row), on every grid up to 9 cells, both classes; the
    /// multi-tile metric names none (and has no sides, so no driver would skip on it).
    #[test]
    fn lanes_name_the_boards_with_one_move_across() {
        for shape in shapes() {
            for class in [Parity::Even, Parity::Odd] {
                let space = ParitySpace::new(shape, class).unwrap();
                let lanes = space.lanes().unwrap();
                let mut singles = 0;
                for i in 0..space.size() {
                    let mut across = Vec::new();
                    space.expand_across(&[StateIndex(i)], &mut across);
                    let single = lanes.single >> (i % lanes.period) & 1 == 1;
                    assert_eq!(single, across.len() == 1, "{shape} {class:?} index {i}");
                    singles += u64::from(single);
                }
                // The top and bottom rows' share (on two rows, every board).
                assert_eq!(singles * shape.rows() as u64, space.size() * 2, "{shape}");
                let mtm = ParitySpace::with_metric(shape, class, Metric::Mtm).unwrap();
                assert_eq!(mtm.lanes().unwrap().single, 0);
                assert!(mtm.sides().is_none());
            }
        }
    }

    #[test]
    fn the_goal_is_even_and_a_swap_is_odd() {
        let shape = Shape::new(3, 4).unwrap();
        let goal = Board::goal(shape);
        assert_eq!(Parity::of(&goal), Parity::Even);
        let mut cells = goal.permutation().to_vec();
        cells.swap(0, 1);
        let swapped = Board::from_permutation(shape, cells).unwrap();
        assert_eq!(Parity::of(&swapped), Parity::Odd);
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        assert_eq!(space.rank(&goal), Some(StateIndex(11)));
        assert_eq!(space.rank(&swapped), None);
        assert!(ParitySpace::new(Shape::new(1, 5).unwrap(), Parity::Even).is_none());
    }
}
