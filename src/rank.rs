//! Ranking: the bijection between the `n!` permutations of `0..n` and the dense index
//! `0..n!`, by the lexicographic Lehmer code.
//!
//! A permutation `p` has Lehmer digits `d[i] = #{ j > i : p[j] < p[i] }` (`0 <= d[i] < n - i`)
//! and rank `sum d[i] * (n - 1 - i)!`, so the identity has rank 0 and ranks follow the
//! lexicographic order of permutations (Lehmer 1960; Knuth, TAOCP 7.2.1.2). Ranking is O(n)
//! with a bit set of the values seen; unranking is O(n) divisions plus a select per digit.
//!
//! The `*_array` functions are the same maps for a compile-time `N`, so that the divisions
//! become multiplications; the BFS core uses them.

/// `n!`, or `None` when it does not fit in a `u64` (`n > 20`).
pub fn factorial(n: usize) -> Option<u64> {
    (1..=n as u64).try_fold(1u64, |acc, k| acc.checked_mul(k))
}

/// The positional weights `(n - 1 - i)!` of the Lehmer digits for `N` cells, `N <= 20`.
pub const fn weights<const N: usize>() -> [u64; N] {
    let mut w = [1u64; N];
    let mut i = N;
    while i > 1 {
        i -= 1;
        w[i - 1] = w[i] * (N - i) as u64;
    }
    w
}

/// Lexicographic rank of `perm`, a permutation of `0..perm.len()` with `perm.len() <= 20`.
///
/// The caller guarantees that `perm` is a permutation (a [`crate::Board`] always is); other
/// input gives an unspecified number but never panics in release builds.
pub fn rank(perm: &[u8]) -> u64 {
    debug_assert!(perm.len() <= 20);
    rank_partial(perm, perm.len())
}

/// The permutation of `0..out.len()` with rank `r` (`r < out.len()!`), written to `out`.
pub fn unrank(r: u64, out: &mut [u8]) {
    debug_assert!(out.len() <= 20);
    unrank_partial(r, out.len(), out);
}

/// `n! / (n - k)!`, the number of `k`-permutations of `0..n` (placements of `k` distinct
/// tiles on `n` cells); `None` when it does not fit in a `u64`.
pub fn partial_count(n: usize, k: usize) -> Option<u64> {
    (n.checked_sub(k)? + 1..=n).try_fold(1u64, |acc, m| acc.checked_mul(m as u64))
}

/// Lexicographic rank of the `k`-permutation `values` of `0..n` (`k = values.len() <= n <=
/// 32`) among all [`partial_count`]`(n, k)` of them: the Lehmer code truncated after `k`
/// digits, digit `i` in radix `n - i` (Knuth, TAOCP 7.2.1.2). With `k = n` it is [`rank`].
/// The pattern databases index placements of a pattern's tiles by it.
#[inline(always)]
pub fn rank_partial(values: &[u8], n: usize) -> u64 {
    debug_assert!(values.len() <= n && n <= 32);
    let mut seen = 0u32;
    let mut r = 0u64;
    for (i, &v) in values.iter().enumerate() {
        let below = (seen & ((1u32 << v) - 1)).count_ones();
        seen |= 1 << v;
        r = r * (n - i) as u64 + u64::from(u32::from(v) - below);
    }
    r
}

/// The inverse of [`rank_partial`]: the `k`-permutation of `0..n` with rank `r`
/// (`r < partial_count(n, k)`, `k = out.len() <= n <= 32`), written to `out`.
pub fn unrank_partial(mut r: u64, n: usize, out: &mut [u8]) {
    debug_assert!(out.len() <= n && n <= 32);
    for i in (0..out.len()).rev() {
        let base = (n - i) as u64;
        out[i] = (r % base) as u8;
        r /= base;
    }
    digits_to_values(out, n);
}

/// Replaces Lehmer digits in `digits` by the permutation they encode.
#[inline(always)]
fn digits_to_perm(digits: &mut [u8]) {
    let n = digits.len();
    digits_to_values(digits, n);
}

/// Replaces the first Lehmer digits of a permutation of `0..n` by the values they encode.
#[inline(always)]
fn digits_to_values(digits: &mut [u8], n: usize) {
    let mut free = u32::MAX.checked_shr(32 - n as u32).unwrap_or(0);
    for d in digits.iter_mut() {
        let v = select(free, u32::from(*d));
        free &= !(1 << v);
        *d = v as u8;
    }
}

/// Position of the `k`-th (from 0) set bit of `x`; `x` has more than `k` set bits.
#[inline(always)]
fn select(mut x: u32, k: u32) -> u32 {
    for _ in 0..k {
        x &= x - 1;
    }
    x.trailing_zeros()
}

/// [`rank`] for a compile-time length `N <= 20`.
#[inline(always)]
pub fn rank_array<const N: usize>(perm: &[u8; N]) -> u64 {
    rank(perm)
}

/// [`unrank`] for a compile-time length `N <= 12`, returning the permutation and its Lehmer
/// digits. Ranks of up to 12 cells fit in a `u32`, which keeps the divisions cheap.
#[inline(always)]
pub fn unrank_array<const N: usize>(r: u32) -> ([u8; N], [u8; N]) {
    let mut digits = [0u8; N];
    let mut rest = r;
    let mut i = N;
    while i > 0 {
        i -= 1;
        let base = (N - i) as u32;
        digits[i] = (rest % base) as u8;
        rest /= base;
    }
    let mut perm = digits;
    digits_to_perm(&mut perm);
    (perm, digits)
}

/// Length of the suffix that [`SequentialUnranker`] reads from a table.
const SUFFIX: usize = 6;
/// `SUFFIX!`.
const SUFFIX_COUNT: u64 = 720;

/// One row of the suffix table: a permutation of `0..SUFFIX`, its Lehmer digits, its parity.
#[derive(Clone, Copy)]
struct SuffixRow {
    perm: [u8; SUFFIX],
    digits: [u8; SUFFIX],
    parity: u8,
}

/// `SUFFIX_TABLE[k]`: the permutation of `0..SUFFIX` with rank `k`.
const SUFFIX_TABLE: [SuffixRow; SUFFIX_COUNT as usize] = {
    let mut table = [SuffixRow {
        perm: [0; SUFFIX],
        digits: [0; SUFFIX],
        parity: 0,
    }; SUFFIX_COUNT as usize];
    let mut k = 0;
    while k < SUFFIX_COUNT as usize {
        let mut digits = [0u8; SUFFIX];
        let mut rest = k;
        let mut i = SUFFIX;
        let mut parity = 0u8;
        while i > 0 {
            i -= 1;
            digits[i] = (rest % (SUFFIX - i)) as u8;
            rest /= SUFFIX - i;
            parity ^= digits[i] & 1;
        }
        let mut perm = [0u8; SUFFIX];
        let mut used = [false; SUFFIX];
        let mut p = 0;
        while p < SUFFIX {
            let mut skip = digits[p];
            let mut v = 0;
            while used[v] || skip > 0 {
                if !used[v] {
                    skip -= 1;
                }
                v += 1;
            }
            used[v] = true;
            perm[p] = v as u8;
            p += 1;
        }
        table[k] = SuffixRow {
            perm,
            digits,
            parity,
        };
        k += 1;
    }
    table
};

/// A permutation of `0..N` unranked by [`SequentialUnranker`]: the values, their Lehmer
/// digits, and the permutation's parity (the parity of the digits' sum, 0 for even).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unranked<const N: usize> {
    /// The permutation.
    pub perm: [u8; N],
    /// Its Lehmer digits.
    pub digits: [u8; N],
    /// 0 when even, 1 when odd.
    pub parity: u8,
}

/// Unranks runs of nearby ranks (as met when scanning a dense index in order) faster than
/// [`unrank`]: the last 6 digits come from a table and the prefix is recomputed only when it
/// changes (every 720 ranks). Permutations of `0..N`, `N <= 20`; for `N <= 6`, plain
/// unranking. Both engine indices ([`crate::bfs`]) unrank through it.
pub struct SequentialUnranker<const N: usize> {
    prefix: u64,
    head: Unranked<N>,
    /// `masks[i]`: the values not in the prefix's first `i` places (`i <= N - 6 < N`), as bits.
    masks: [u32; N],
    free: [u8; SUFFIX],
    lanes: HeadLanes,
}

/// The current prefix of a [`SequentialUnranker`] in 16 byte lanes, for vector code that
/// reads a permutation as its prefix's lanes together with its suffix row's
/// ([`SuffixLanes`]), the two never both non-zero in a lane, instead of writing the
/// permutation out ([`SequentialUnranker::seek_row`]). Valid for `6 < N <= 16`.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
pub struct HeadLanes {
    /// Lane `p < N - 6`: the value at `p`; 0 in the others.
    pub perm: [u8; 16],
    /// Lane `p < N - 6`: the Lehmer digit at `p`; 0 in the others.
    pub digits: [u8; 16],
    /// Lane `v`: how many of the 6 values after the prefix (the free ones) are at most `v`.
    pub at_most: [u8; 16],
    /// 0, then the free values in ascending order: `free[k + 1]` is the value of a suffix
    /// row's order `k` ([`SuffixLanes::ORDER`] holds `k + 1`).
    pub free: [u8; 16],
}

// The vector loads of `HeadLanes::perm` and `digits` are aligned loads.
const _: () = assert!(
    std::mem::offset_of!(HeadLanes, perm) == 0 && std::mem::offset_of!(HeadLanes, digits) == 16
);

/// The rows of the suffix table in 16 byte lanes for permutations of `0..N` (`6 < N <= 16`):
/// lanes `N - 6 .. N` hold the suffix, the others 0 (see [`HeadLanes`]).
pub struct SuffixLanes<const N: usize>;

impl<const N: usize> SuffixLanes<N> {
    /// Row `k`, lane `N - 6 + j`: 1 + the order of the suffix's value `j` among the 6 free
    /// values (0 for the smallest), so that lanes are 0 exactly outside the suffix.
    /// (References, so that a read indexes one static table rather than a copy of it.)
    pub const ORDER: &'static [[u8; 16]; SUFFIX_COUNT as usize] = &Self::lanes(false);
    /// Row `k`, lane `N - 6 + j`: the suffix's Lehmer digit `j`.
    pub const DIGITS: &'static [[u8; 16]; SUFFIX_COUNT as usize] = &Self::lanes(true);

    const fn lanes(digits: bool) -> [[u8; 16]; SUFFIX_COUNT as usize] {
        let mut out = [[0u8; 16]; SUFFIX_COUNT as usize];
        if N <= SUFFIX || N > 16 {
            return out;
        }
        let mut k = 0;
        while k < SUFFIX_COUNT as usize {
            let mut j = 0;
            while j < SUFFIX {
                out[k][N - SUFFIX + j] = if digits {
                    SUFFIX_TABLE[k].digits[j]
                } else {
                    SUFFIX_TABLE[k].perm[j] + 1
                };
                j += 1;
            }
            k += 1;
        }
        out
    }
}

impl<const N: usize> Default for SequentialUnranker<N> {
    fn default() -> Self {
        SequentialUnranker {
            prefix: u64::MAX,
            head: Unranked {
                perm: [0; N],
                digits: [0; N],
                parity: 0,
            },
            masks: [0; N],
            free: [0; SUFFIX],
            lanes: HeadLanes {
                perm: [0; 16],
                digits: [0; 16],
                at_most: [0; 16],
                free: [0; 16],
            },
        }
    }
}

impl<const N: usize> SequentialUnranker<N> {
    /// The permutation of rank `r` (`r < N!`), its digits and parity.
    #[inline(always)]
    pub fn unrank(&mut self, r: u64) -> Unranked<N> {
        let mut out = Unranked {
            perm: [0; N],
            digits: [0; N],
            parity: 0,
        };
        self.unrank_into(r, &mut out);
        out
    }

    /// [`SequentialUnranker::unrank`] into `out`, which is overwritten whole (this avoids
    /// copying a permutation that was just written byte by byte).
    #[inline(always)]
    pub fn unrank_into(&mut self, r: u64, out: &mut Unranked<N>) {
        if N <= SUFFIX {
            let mut digits = [0u8; N];
            let mut rest = r;
            let mut parity = 0;
            for i in (0..N).rev() {
                digits[i] = (rest % (N - i) as u64) as u8;
                rest /= (N - i) as u64;
                parity ^= digits[i] & 1;
            }
            let mut perm = digits;
            digits_to_perm(&mut perm);
            *out = Unranked {
                perm,
                digits,
                parity,
            };
            return;
        }
        let prefix = r / SUFFIX_COUNT;
        if prefix != self.prefix {
            self.set_prefix(prefix);
        }
        self.fill(&SUFFIX_TABLE[(r % SUFFIX_COUNT) as usize], out);
    }

    /// Writes the permutation of the current prefix followed by suffix `row` into `out`.
    #[inline(always)]
    fn fill(&self, row: &SuffixRow, out: &mut Unranked<N>) {
        let head = N - SUFFIX;
        out.perm[..head].copy_from_slice(&self.head.perm[..head]);
        out.digits[..head].copy_from_slice(&self.head.digits[..head]);
        for k in 0..SUFFIX {
            out.perm[head + k] = self.free[row.perm[k] as usize];
            out.digits[head + k] = row.digits[k];
        }
        out.parity = self.head.parity ^ row.parity;
    }

    /// Of the two permutations of ranks `r` and `r + 1` (`r` even, `r + 1 < N!`, `N >= 2`),
    /// which differ only by the order of their last two values and so have opposite
    /// parities, the one of parity `parity` (0 even, 1 odd), into `out`; returns 0 when that
    /// is rank `r`, 1 when it is `r + 1`. The table row is chosen by the parity, so no
    /// branch depends on it (a frontier board of a new `q` in the parity index's kernel,
    /// [`crate::bfs::ParitySpace`], would otherwise take a branch mispredicted half the
    /// time).
    #[inline(always)]
    pub fn unrank_with_parity(&mut self, r: u64, parity: u8, out: &mut Unranked<N>) -> u64 {
        debug_assert!(r % 2 == 0 && N >= 2);
        if N <= SUFFIX {
            self.unrank_into(r, out);
            let odd = u64::from(out.parity != parity);
            if odd == 1 {
                out.perm.swap(N - 2, N - 1);
                out.digits[N - 2] ^= 1;
                out.parity ^= 1;
            }
            return odd;
        }
        let row = self.seek_row(r, parity);
        self.fill(&SUFFIX_TABLE[row], out);
        (row & 1) as u64
    }

    /// Of ranks `r` and `r + 1` (`r` even, `r + 1 < N!`, `N > 6`), the suffix row
    /// (`0..720`) of the one of parity `parity`, after moving to their prefix: the
    /// permutation is then (for `N <= 16`) [`SequentialUnranker::head_lanes`] together with
    /// that row of [`SuffixLanes`], and its rank `r - r % 720 + row`. Nothing is written out.
    #[inline(always)]
    pub fn seek_row(&mut self, r: u64, parity: u8) -> usize {
        debug_assert!(r % 2 == 0 && N > SUFFIX);
        let prefix = r / SUFFIX_COUNT;
        if prefix != self.prefix {
            self.set_prefix(prefix);
        }
        // `SUFFIX_COUNT` is even, so rows `r % SUFFIX_COUNT` and the next one share the prefix.
        let even_row = (r % SUFFIX_COUNT) as usize;
        even_row + usize::from(self.head.parity ^ SUFFIX_TABLE[even_row].parity != parity)
    }

    /// The current prefix in lanes (see [`SequentialUnranker::seek_row`]).
    #[inline(always)]
    pub fn head_lanes(&self) -> &HeadLanes {
        &self.lanes
    }

    /// The value at position `p < N` of the permutation of the current prefix and suffix
    /// `row` (see [`SequentialUnranker::seek_row`]); no branch on `p`.
    #[inline(always)]
    pub fn value(&self, row: usize, p: usize) -> u8 {
        self.lanes.perm[p] | self.lanes.free[usize::from(SuffixLanes::<N>::ORDER[row][p])]
    }

    /// The Lehmer digit at position `p < N` of that permutation.
    #[inline(always)]
    pub fn digit(&self, row: usize, p: usize) -> u8 {
        self.lanes.digits[p] | SuffixLanes::<N>::DIGITS[row][p]
    }

    /// Moves to prefix `prefix` (`< N! / 720`). Only the places from the first digit that
    /// differs from the current prefix's are unranked again: ranks met in ascending order,
    /// even far apart (a sparse layer's boards), mostly change only the prefix's last digits.
    #[inline(never)]
    fn set_prefix(&mut self, prefix: u64) {
        let head = N - SUFFIX;
        let mut digits = [0u8; N];
        let mut rest = prefix;
        for i in (0..head).rev() {
            let base = (N - i) as u64;
            digits[i] = (rest % base) as u8;
            rest /= base;
        }
        let first = match self.prefix {
            u64::MAX => {
                self.masks[0] = u32::MAX >> (32 - N as u32);
                0
            }
            _ => (0..head)
                .find(|&i| digits[i] != self.head.digits[i])
                .unwrap_or(head),
        };
        self.prefix = prefix;
        let mut free = self.masks[first];
        for (i, &d) in digits.iter().enumerate().take(head).skip(first) {
            let v = select(free, u32::from(d));
            free &= !(1 << v);
            self.head.perm[i] = v as u8;
            self.head.digits[i] = d;
            self.masks[i + 1] = free;
        }
        self.head.parity = digits[..head].iter().fold(0, |p, d| p ^ (d & 1));
        let rest = free;
        for slot in self.free.iter_mut() {
            *slot = free.trailing_zeros() as u8;
            free &= free - 1;
        }
        if N > SUFFIX && N <= 16 {
            let lanes = &mut self.lanes;
            lanes.perm[first..head].copy_from_slice(&self.head.perm[first..head]);
            lanes.digits[first..head].copy_from_slice(&self.head.digits[first..head]);
            lanes.free[1..=SUFFIX].copy_from_slice(&self.free);
            for (v, slot) in lanes.at_most.iter_mut().enumerate() {
                *slot = (rest & (u32::MAX >> (31 - v))).count_ones() as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factorials() {
        assert_eq!(factorial(0), Some(1));
        assert_eq!(factorial(9), Some(362_880));
        assert_eq!(factorial(12), Some(479_001_600));
        assert_eq!(factorial(20), Some(2_432_902_008_176_640_000));
        assert_eq!(factorial(21), None);
        assert_eq!(weights::<4>(), [6, 2, 1, 1]);
    }

    /// `k`-permutations: an exhaustive round trip in lexicographic order, the count, and the
    /// full permutations as the case `k = n`.
    #[test]
    fn partial_ranks_are_a_lexicographic_bijection() {
        for (n, k) in [(6, 3), (9, 4), (16, 2), (5, 5), (4, 0)] {
            let total = partial_count(n, k).unwrap();
            let mut values = vec![0u8; k];
            let mut prev: Option<Vec<u8>> = None;
            let mut seen = std::collections::HashSet::new();
            for r in 0..total {
                unrank_partial(r, n, &mut values);
                assert_eq!(rank_partial(&values, n), r, "n={n} k={k}");
                assert!(values.iter().all(|&v| (v as usize) < n));
                assert!(seen.insert(values.clone()));
                if let Some(q) = &prev {
                    assert!(q < &values);
                }
                prev = Some(values.clone());
            }
        }
        assert_eq!(partial_count(16, 8), Some(518_918_400));
        assert_eq!(partial_count(16, 7), Some(57_657_600));
        assert_eq!(partial_count(9, 9), factorial(9));
        assert_eq!(partial_count(3, 4), None);
        let perm = [3u8, 0, 4, 1, 2];
        assert_eq!(rank_partial(&perm, 5), rank(&perm));
    }

    #[test]
    fn known_ranks() {
        assert_eq!(rank(&[0, 1, 2, 3, 4, 5, 6, 7, 8]), 0);
        assert_eq!(rank(&[8, 7, 6, 5, 4, 3, 2, 1, 0]), 362_879);
        // 1 0 2: digits 1,0,0 -> 1 * 2! = 2.
        assert_eq!(rank(&[1, 0, 2]), 2);
        let mut p = [0u8; 3];
        unrank(2, &mut p);
        assert_eq!(p, [1, 0, 2]);
    }

    /// Exhaustive round trip on every length up to 9 (every board of 1x4, 2x2, 2x3, 3x2, 3x3),
    /// and the order is lexicographic.
    #[test]
    fn round_trip_is_a_lexicographic_bijection() {
        for n in 1..=9usize {
            let total = factorial(n).unwrap();
            let mut prev: Option<Vec<u8>> = None;
            let mut p = vec![0u8; n];
            for r in 0..total {
                unrank(r, &mut p);
                assert_eq!(rank(&p), r, "n={n}");
                if let Some(q) = &prev {
                    assert!(q < &p, "ranks must follow lexicographic order");
                }
                prev = Some(p.clone());
            }
        }
    }

    #[test]
    fn sequential_unranker_agrees() {
        fn check<const N: usize>(step: usize) {
            let mut seq = SequentialUnranker::<N>::default();
            let mut p = [0u8; N];
            for r in (0..factorial(N).unwrap()).step_by(step) {
                let got = seq.unrank(r);
                unrank(r, &mut p);
                assert_eq!(got.perm, p, "N={N} rank {r}");
                let w = weights::<N>();
                let value: u64 = got
                    .digits
                    .iter()
                    .zip(w)
                    .map(|(&d, w)| u64::from(d) * w)
                    .sum();
                assert_eq!(value, r);
                let sum: u32 = got.digits.iter().map(|&d| u32::from(d)).sum();
                assert_eq!(u32::from(got.parity), sum % 2);
            }
        }
        check::<4>(1);
        check::<9>(7);
        check::<13>(999_999_937);
        check::<19>(usize::MAX / 70_001);
    }

    /// A walk of ranks with gaps of every scale (the next rank of a dense layer, the next of
    /// a sparse one some prefixes on, a jump to another segment, a step back) unranks as plain
    /// unranking does, and the prefix's lanes read the same permutation: the prefix unranked
    /// again only from its first changed digit must leave nothing of the one before.
    #[test]
    fn sequential_unranker_follows_any_walk() {
        fn check<const N: usize>() {
            let total = factorial(N).unwrap();
            let mut seq = SequentialUnranker::<N>::default();
            let mut p = [0u8; N];
            let mut state = 0x9E37_79B9_7F4A_7C15u64;
            let mut r = 0u64;
            for step in 0..200_000u64 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let scale = [1, 720, 50_000, total / 3][(state % 4) as usize];
                r = match step % 97 {
                    0 => state % total,
                    _ => (r + state % scale.max(1)) % total,
                };
                let got = seq.unrank(r);
                unrank(r, &mut p);
                assert_eq!(got.perm, p, "N={N} rank {r}");
                let sum: u32 = got.digits.iter().map(|&d| u32::from(d)).sum();
                assert_eq!(u32::from(got.parity), sum % 2, "N={N} rank {r}");
                if N <= 16 {
                    let row = (r % SUFFIX_COUNT) as usize;
                    for (i, (&v, &d)) in got.perm.iter().zip(&got.digits).enumerate() {
                        assert_eq!(seq.value(row, i), v, "N={N} rank {r} place {i}");
                        assert_eq!(seq.digit(row, i), d, "N={N} rank {r} place {i}");
                    }
                    let suffix = &got.perm[N - SUFFIX..];
                    for (v, &n) in seq.head_lanes().at_most.iter().enumerate() {
                        let want = suffix.iter().filter(|&&f| usize::from(f) <= v).count();
                        assert_eq!(usize::from(n), want, "N={N} rank {r} value {v}");
                    }
                }
            }
        }
        check::<9>();
        check::<12>();
        check::<16>();
        check::<19>();
    }

    /// [`SequentialUnranker::unrank_with_parity`] gives, of ranks `2q` and `2q + 1`, the one
    /// of the parity asked for, as plain unranking does (exhaustive for `N` = 4 and 7,
    /// sampled for 9 and 13, both parities).
    #[test]
    fn unranking_by_parity_picks_the_rank_of_that_parity() {
        fn check<const N: usize>(step: usize) {
            let mut seq = SequentialUnranker::<N>::default();
            let mut out = seq.unrank(0);
            let mut p = [0u8; N];
            for r in (0..factorial(N).unwrap()).step_by(step) {
                let r = r & !1;
                for parity in [0, 1] {
                    let odd = seq.unrank_with_parity(r, parity, &mut out);
                    assert!(odd <= 1);
                    let want = seq.unrank(r + odd);
                    assert_eq!(out, want, "N={N} rank {r} parity {parity}");
                    assert_eq!(out.parity, parity, "N={N} rank {r}");
                    unrank(r + odd, &mut p);
                    assert_eq!(out.perm, p);
                }
            }
        }
        check::<4>(2);
        check::<7>(2);
        check::<9>(1_001);
        check::<13>(999_999_937);
    }

    #[test]
    fn array_versions_agree() {
        for r in (0..479_001_600u32).step_by(1_000_003) {
            let (p, d) = unrank_array::<12>(r);
            let mut q = [0u8; 12];
            unrank(u64::from(r), &mut q);
            assert_eq!(p, q);
            assert_eq!(rank_array(&p), u64::from(r));
            let w = weights::<12>();
            let from_digits: u64 = d.iter().zip(w).map(|(&d, w)| u64::from(d) * w).sum();
            assert_eq!(from_digits, u64::from(r));
        }
    }
}
