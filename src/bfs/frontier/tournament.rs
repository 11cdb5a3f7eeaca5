//! The k-way merge of ascending sources that the merge of the runs takes: a tournament of
//! losers.

/// Exhausted source of a [`Tournament`] (above every index).
pub(super) const EXHAUSTED: u64 = u64::MAX;

/// A k-way merge of ascending sources by a tournament of losers (Knuth, "The Art of Computer
/// Programming", vol. 3, 5.4.1): every value of every source, duplicates included, ascending,
/// at `log2 k` comparisons each. Sources must not yield `u64::MAX`.
pub(super) struct Tournament<I> {
    sources: Vec<I>,
    /// The head of each leaf (padded to a power of two), [`EXHAUSTED`] once it is empty.
    heads: Vec<u64>,
    /// `losers[n]`: the leaf that lost at internal node `n` (`1..leaves`); `losers[0]`: the
    /// winner.
    losers: Vec<usize>,
}

impl<I: Iterator<Item = u64>> Tournament<I> {
    pub(super) fn new(mut sources: Vec<I>) -> Tournament<I> {
        let leaves = sources.len().max(1).next_power_of_two();
        let mut heads: Vec<u64> = sources
            .iter_mut()
            .map(|s| s.next().unwrap_or(EXHAUSTED))
            .collect();
        heads.resize(leaves, EXHAUSTED);
        let mut winners = vec![0usize; 2 * leaves];
        let mut losers = vec![0usize; leaves];
        for (leaf, w) in winners[leaves..].iter_mut().enumerate() {
            *w = leaf;
        }
        for n in (1..leaves).rev() {
            let (a, b) = (winners[2 * n], winners[2 * n + 1]);
            let (w, l) = if heads[b] < heads[a] { (b, a) } else { (a, b) };
            winners[n] = w;
            losers[n] = l;
        }
        losers[0] = if leaves > 1 { winners[1] } else { 0 };
        Tournament {
            sources,
            heads,
            losers,
        }
    }
}

impl<I: Iterator<Item = u64>> Iterator for Tournament<I> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        let mut winner = self.losers[0];
        let value = self.heads[winner];
        if value == EXHAUSTED {
            return None;
        }
        let head = self.sources[winner].next().unwrap_or(EXHAUSTED);
        debug_assert!(head >= value, "sources ascend");
        self.heads[winner] = head;
        let mut n = (winner + self.heads.len()) / 2;
        while n > 0 {
            let l = self.losers[n];
            if self.heads[l] < self.heads[winner] {
                self.losers[n] = winner;
                winner = l;
            }
            n /= 2;
        }
        self.losers[0] = winner;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tournament yields every value of every source, ascending, for 0 to 9 sources
    /// (empty ones, duplicates within and between sources, a source longer than the rest).
    #[test]
    fn the_tournament_merges_sorted_sources() {
        for k in 0..10u64 {
            let sources: Vec<Vec<u64>> = (0..k)
                .map(|s| {
                    let len = if s == 2 { 0 } else { 3 + 5 * (s % 3) };
                    let mut v: Vec<u64> = (0..len).map(|j| (j * (s + 3) + s * 7) % 41).collect();
                    v.sort_unstable();
                    v
                })
                .collect();
            let mut expected: Vec<u64> = sources.iter().flatten().copied().collect();
            expected.sort_unstable();
            let merged: Vec<u64> =
                Tournament::new(sources.into_iter().map(Vec::into_iter).collect()).collect();
            assert_eq!(merged, expected, "{k} sources");
        }
        let t = Tournament::new(vec![vec![5u64, 5, 9].into_iter(), vec![1, 5].into_iter()]);
        assert_eq!(t.collect::<Vec<_>>(), [1, 5, 5, 5, 9]);
    }
}
