//! A chunk's run: its boards' neighbours from the kernel (only the moves off the lanes, where
//! the space has lanes), bucket-sorted and deduplicated, with the lane neighbours merged in,
//! written as pieces.

use rayon::prelude::*;

use super::runs::{Piece, PieceWriter};
use super::sort::{SAMPLE_PER_BUCKET, Splits, bucket_count, sort_into_buckets};
use super::tournament::EXHAUSTED;
use crate::bfs::{Lanes, StateIndex, StateSpace};

/// Boards expanded by one parallel task (each keeps its neighbours in its own block).
pub(super) const PART: usize = 1 << 16;
/// Boards handed to the kernel at once.
const BATCH: usize = 4096;

/// Ascending, distinct: the union of three ascending, distinct lists, each ending with
/// [`EXHAUSTED`], passed to `f`.
#[inline]
fn union3(a: &[u64], b: &[u64], c: &[u64], mut f: impl FnMut(u64)) {
    debug_assert!([a, b, c].iter().all(|l| l.last() == Some(&EXHAUSTED)));
    let (mut i, mut j, mut k) = (0, 0, 0);
    loop {
        let x = a[i].min(b[j]).min(c[k]);
        if x == EXHAUSTED {
            return;
        }
        i += usize::from(a[i] == x);
        j += usize::from(b[j] == x);
        k += usize::from(c[k] == x);
        f(x);
    }
}

/// What the expansion of every chunk of a layer shares.
pub(super) struct Expansion<'a, S> {
    pub(super) space: &'a S,
    pub(super) size: u64,
    /// Of the layers (and so of the pieces).
    pub(super) span: u64,
    pub(super) lanes: Option<Lanes>,
}

impl<S: StateSpace> Expansion<'_, S> {
    /// The neighbours of `boards` (ascending) but the lane moves, in the order found: the
    /// kernel's [`StateSpace::expand_across`] (every neighbour, for a space without lanes).
    fn neighbours(&self, boards: &[StateIndex]) -> Vec<u64> {
        let mut out: Vec<StateIndex> = Vec::with_capacity(2 * boards.len());
        for batch in boards.chunks(BATCH) {
            self.space.expand_across(batch, &mut out);
        }
        out.into_iter().map(|i| i.0).collect()
    }

    /// The buckets of the sort of `boards`' neighbours ([`Splits`]), drawn from the
    /// neighbours of a sample of the boards.
    fn splits(&self, boards: &[StateIndex]) -> Splits {
        let buckets = bucket_count(boards.len(), self.size);
        let mut sample = match buckets {
            1 => Vec::new(),
            _ => {
                let step = (boards.len() / (buckets * SAMPLE_PER_BUCKET)).max(1);
                let sampled: Vec<StateIndex> = boards.iter().step_by(step).copied().collect();
                self.neighbours(&sampled)
            }
        };
        Splits::new(&mut sample, buckets, self.size)
    }

    /// One chunk's run: the distinct neighbours of `boards` (ascending, distinct), as the
    /// bytes and pieces of each bucket in index order.
    pub(super) fn run(&self, boards: &[StateIndex]) -> Vec<(Vec<u8>, Vec<Piece>)> {
        let splits = self.splits(boards);
        let buckets = splits.len();
        let sorted = |b: &[StateIndex]| sort_into_buckets(self.neighbours(b), &splits);
        let parallel = boards.len() > PART;
        let parts: Vec<(Vec<u64>, Vec<u32>)> = if parallel {
            boards.par_chunks(PART).map(sorted).collect()
        } else {
            vec![sorted(boards)]
        };
        let bucket = |b: usize| {
            let (lo, hi) = splits.range(b);
            let mut values =
                Vec::with_capacity(parts.iter().map(|(_, s)| (s[b + 1] - s[b]) as usize).sum());
            for (part, starts) in &parts {
                values.extend_from_slice(&part[starts[b] as usize..starts[b + 1] as usize]);
            }
            values.sort_unstable();
            values.dedup();
            let mut writer = PieceWriter::new(self.span, lo);
            writer.bytes.reserve(2 * values.len());
            values.push(EXHAUSTED);
            // The lane neighbours in lo..hi: x + 1 and x - 1 of the boards x in lo - 1..hi + 1,
            // each list ascending as the boards are.
            let (mut right, mut left) = (Vec::new(), Vec::new());
            if let Some(lanes) = self.lanes {
                let from = boards.partition_point(|i| i.0 + 1 < lo);
                let to = boards.partition_point(|i| i.0 < hi.saturating_add(1));
                right.reserve(to - from + 1);
                left.reserve(to - from + 1);
                for &StateIndex(x) in &boards[from..to] {
                    let (to_next, to_previous) = lanes.lane_moves(x);
                    if to_next && x + 1 >= lo && x + 1 < hi && x + 1 < self.size {
                        right.push(x + 1);
                    }
                    if x > lo && x <= hi && to_previous {
                        left.push(x - 1);
                    }
                }
            }
            right.push(EXHAUSTED);
            left.push(EXHAUSTED);
            union3(&values, &right, &left, |x| writer.push(x));
            writer.finish()
        };
        if parallel {
            (0..buckets).into_par_iter().map(bucket).collect()
        } else {
            (0..buckets).map(bucket).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::codec::{Part, read_memory};
    use crate::bfs::{Parity, ParitySpace};
    use crate::shape::Shape;

    /// A chunk's run holds exactly its boards' distinct neighbours, lane moves included,
    /// sorted, each piece within its bucket and segment, whether the chunk is sorted in one
    /// bucket or many.
    #[test]
    fn a_run_is_the_sorted_distinct_neighbours() {
        let shape = Shape::new(3, 3).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let boards: Vec<StateIndex> = (0..space.size()).step_by(3).map(StateIndex).collect();
        let mut expected = Vec::new();
        space.expand(&boards, &mut expected);
        let mut expected: Vec<u64> = expected
            .into_iter()
            .filter(|&i| i != StateIndex::NONE)
            .map(|i| i.0)
            .collect();
        expected.sort_unstable();
        expected.dedup();
        for segments in [1u64, 3, 1024] {
            let plan = Expansion {
                space: &space,
                size: space.size(),
                span: space.size().div_ceil(segments),
                lanes: space.lanes(),
            };
            for cut in [boards.len(), 1000] {
                let mut all = Vec::new();
                let mut pieces = 0;
                for part in boards.chunks(cut) {
                    let buckets = plan.run(part);
                    for (bytes, ps) in &buckets {
                        for p in ps {
                            let from = p.start as usize;
                            let part = Part {
                                base: p.base,
                                end: (u64::from(p.segment) + 1) * plan.span,
                                count: p.count,
                                len: p.len,
                            };
                            let mut reader = read_memory(&bytes[from..from + p.len as usize], part);
                            let xs: Vec<u64> = reader.by_ref().collect();
                            reader.finish().unwrap();
                            assert!(!xs.is_empty());
                            assert!(xs.iter().all(|&x| x / plan.span == u64::from(p.segment)));
                            assert!(xs.is_sorted());
                            pieces += 1;
                            all.extend(xs);
                        }
                    }
                }
                if cut == boards.len() {
                    assert!(pieces > 1 || segments == 1);
                    assert_eq!(all, expected, "segments {segments}");
                } else {
                    all.sort_unstable();
                    all.dedup();
                    assert_eq!(all, expected, "segments {segments}, chunks of {cut}");
                }
            }
        }
    }
}
