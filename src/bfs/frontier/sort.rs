//! The buckets of a chunk's sort: ranges of the index balanced on a sample of its neighbours
//! ([`Splits`]), and the counting pass that puts each neighbour in its bucket.

/// Most buckets of a chunk's sort.
pub(super) const MAX_BUCKETS: usize = 1024;
/// Boards of a chunk per bucket of its sort, at least (so small chunks take few buckets).
const BOARDS_PER_BUCKET: usize = 2048;

/// Bits of the largest index of a space of `size` boards.
fn index_bits(size: u64) -> u32 {
    64 - size.saturating_sub(1).leading_zeros()
}

/// Buckets for a chunk of `boards` boards: a power of two, at most [`MAX_BUCKETS`] and at
/// most what the bits of an index of a space of `size` boards can address.
pub(super) fn bucket_count(boards: usize, size: u64) -> usize {
    let bits = index_bits(size);
    let log = (boards / BOARDS_PER_BUCKET)
        .max(1)
        .next_power_of_two()
        .min(MAX_BUCKETS)
        .trailing_zeros()
        .min(bits);
    1 << log
}

/// log2 of the fine bins per bucket [`Splits`] groups (at most 2^16 fine bins in all).
const FINE_PER_BUCKET_BITS: u32 = 6;
/// Sampled boards per bucket when [`Splits`] are drawn.
pub(super) const SAMPLE_PER_BUCKET: usize = 16;

/// How a chunk's neighbours are cut into the buckets of its sort: the index is cut into fine
/// bins by its top bits (64 per bucket, at most `2^16`), and runs of consecutive fine bins are
/// grouped into buckets that each hold about the same share of a sample of the neighbours.
/// Buckets of equal index ranges (the top bits alone) were very unequal: near the goal a
/// layer's boards crowd into a few ranges of the index (their first tiles in place), and on
/// 4x4 one thread sorted most of each chunk while the other waited
/// (`output/bench/4x4-d33/report.txt`). Any split gives the same run; only the balance changes.
pub(super) struct Splits {
    /// Fine bin of index `x`: `x >> shift`.
    shift: u32,
    /// Per fine bin, its bucket (non-decreasing).
    map: Vec<u16>,
    /// Per bucket, its first index (`starts[0] == 0`).
    starts: Vec<u64>,
}

impl Splits {
    /// Up to `buckets` buckets (at most `u16::MAX`) over the indices of a space of `size`
    /// boards, balanced for the values of `sample` (any order; sorted here).
    pub(super) fn new(sample: &mut [u64], buckets: usize, size: u64) -> Splits {
        if buckets <= 1 {
            // (Indices are below 2^63: every one is in fine bin 0, bucket 0.)
            return Splits {
                shift: 63,
                map: vec![0],
                starts: vec![0],
            };
        }
        let bits = index_bits(size);
        let fine_bits = bits.min(buckets.ilog2() + FINE_PER_BUCKET_BITS).min(16);
        let shift = bits - fine_bits;
        sample.sort_unstable();
        // The fine bin where each bucket after the first starts, strictly increasing.
        let mut firsts = Vec::with_capacity(buckets);
        for b in 1..buckets.min(usize::from(u16::MAX)) {
            let Some(&x) = sample.get(b * sample.len() / buckets) else {
                break;
            };
            let fine = x >> shift;
            if fine > firsts.last().copied().unwrap_or(0) {
                firsts.push(fine);
            }
        }
        let mut map = vec![0u16; 1 << fine_bits];
        let mut bucket = 0u16;
        for (fine, slot) in map.iter_mut().enumerate() {
            if firsts.get(usize::from(bucket)) == Some(&(fine as u64)) {
                bucket += 1;
            }
            *slot = bucket;
        }
        let starts = std::iter::once(0)
            .chain(firsts.iter().map(|&f| f << shift))
            .collect();
        Splits { shift, map, starts }
    }

    /// The bucket of index `x` (below the space's size).
    #[inline(always)]
    pub(super) fn of(&self, x: u64) -> usize {
        usize::from(self.map[(x >> self.shift) as usize])
    }

    /// Buckets.
    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// The indices bucket `b` holds: `lo..hi` (`hi` is `u64::MAX` for the last).
    pub(super) fn range(&self, b: usize) -> (u64, u64) {
        (
            self.starts[b],
            self.starts.get(b + 1).copied().unwrap_or(u64::MAX),
        )
    }
}

/// `values` in bucket order (by one counting pass); and where each bucket starts
/// (`splits.len() + 1` offsets).
pub(super) fn sort_into_buckets(values: Vec<u64>, splits: &Splits) -> (Vec<u64>, Vec<u32>) {
    let buckets = splits.len();
    let mut starts = vec![0u32; buckets + 1];
    if buckets == 1 {
        starts[1] = values.len() as u32;
        return (values, starts);
    }
    for &x in &values {
        starts[splits.of(x) + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut at = starts.clone();
    let mut sorted = vec![0u64; values.len()];
    for x in values {
        let b = splits.of(x);
        sorted[at[b] as usize] = x;
        at[b] += 1;
    }
    (sorted, starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counting pass puts every value in its bucket, the buckets cut the index into
    /// ascending ranges, and they share a skewed sample about equally (where buckets of equal
    /// index ranges would put nearly all of it in one); the bucket count fits the space.
    #[test]
    fn buckets_are_ranges_balanced_by_the_sample() {
        let size = 1u64 << 40;
        // 90 % of the values in the lowest 1/64 of the index (where 64 buckets of equal ranges
        // would put them all in the first), the rest spread out.
        let values: Vec<u64> = (0..100_000u64)
            .map(|i| match i % 10 {
                9 => i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % size,
                _ => i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % (size >> 6),
            })
            .collect();
        let mut sample: Vec<u64> = values.iter().step_by(7).copied().collect();
        let splits = Splits::new(&mut sample, 64, size);
        assert!(splits.len() > 32, "{} buckets", splits.len());
        assert!(splits.starts.is_sorted() && splits.starts[0] == 0);
        let (sorted, starts) = sort_into_buckets(values.clone(), &splits);
        assert_eq!(starts.len(), splits.len() + 1);
        assert_eq!(starts[splits.len()] as usize, values.len());
        for b in 0..splits.len() {
            let (lo, hi) = splits.range(b);
            let bucket = &sorted[starts[b] as usize..starts[b + 1] as usize];
            assert!(bucket.iter().all(|&x| lo <= x && x < hi), "bucket {b}");
            assert!(
                bucket.len() < 4 * values.len() / 64,
                "bucket {b}: {}",
                bucket.len()
            );
        }
        let (mut a, mut b) = (sorted, values);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        // One bucket: unchanged; a tiny space: every index its own fine bin.
        let one = Splits::new(&mut [], 1, size);
        assert_eq!(sort_into_buckets(vec![3, 1, 2], &one).0, [3, 1, 2]);
        let tiny = Splits::new(&mut [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 4, 12);
        assert_eq!(tiny.starts, [0, 3, 6, 9]);
        assert_eq!((tiny.of(2), tiny.of(3), tiny.of(11)), (0, 1, 3));
        assert_eq!(tiny.range(3), (9, u64::MAX));
        // Buckets: 1 for small chunks, 1,024 at most, never past the index's bits.
        assert_eq!(bucket_count(100, 1 << 40), 1);
        assert_eq!(bucket_count(1 << 27, 1 << 40), 1024);
        assert_eq!(bucket_count(1 << 27, 12), 16);
        assert_eq!(bucket_count(1 << 27, 1), 1);
    }
}
