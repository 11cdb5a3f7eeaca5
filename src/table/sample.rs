//! Random boards at one depth, drawn from a table ([`DistanceTable::sample`]).

use crate::board::Board;

use super::{CORRUPT, DistanceTable, TableError};

/// A board drawn by rejection ([`DistanceTable::sample_each`]) takes at most this many
/// times the mean number of tries: a sound table runs out with a probability below
/// `e^-64`.
pub const MAX_TRIES: u64 = 64;

impl DistanceTable {
    /// `count` boards drawn uniformly and independently (with replacement) among those exactly
    /// `depth` moves from the goal, from the seed `seed` (the same seed, the same boards), in a
    /// vector: [`DistanceTable::sample_each`] collected.
    ///
    /// # Errors
    /// As [`DistanceTable::sample_each`].
    pub fn sample(&self, depth: u32, count: u64, seed: u64) -> Result<Vec<Board>, TableError> {
        let mut out = Vec::with_capacity(count.min(1 << 20) as usize);
        self.sample_each(depth, count, seed, |board| {
            out.push(board);
            std::ops::ControlFlow::Continue(())
        })?;
        Ok(out)
    }

    /// Draws `count` boards uniformly and independently (with replacement) among those
    /// exactly `depth` moves from the goal, from the seed `seed` (the same seed, the same
    /// boards in the same order), and gives each to `each` as it is drawn, until `each` says
    /// [`std::ops::ControlFlow::Break`]: memory stays bounded whatever `count`. See the module
    /// documentation for how. A board drawn by rejection takes at most [`MAX_TRIES`] times the
    /// mean number of tries (`boards / layer`, plus 65,536): a table whose codes do not hold
    /// the layer its header counts (damaged, unverified) is an error rather than an endless
    /// loop.
    ///
    /// # Errors
    /// [`TableError::WrongBoard`] when no board lies at `depth`; [`TableError::Invalid`] for a
    /// damaged table (a listed board out of range, a walk that fails its checks, a layer not
    /// found within the tries).
    pub fn sample_each(
        &self,
        depth: u32,
        count: u64,
        seed: u64,
        mut each: impl FnMut(Board) -> std::ops::ControlFlow<()>,
    ) -> Result<(), TableError> {
        let size = self.layers.get(depth as usize).copied().unwrap_or(0);
        if size == 0 {
            return Err(TableError::WrongBoard(format!(
                "no {} board lies {depth} moves from the goal (the farthest lie {} moves away)",
                self.shape,
                self.layers.len().saturating_sub(1)
            )));
        }
        let mut rng = crate::random::SplitMix64::new(seed);
        let board_at = |index: u64| -> Board {
            match &self.space {
                Some(space) => crate::bfs::StateSpace::unrank(space, crate::bfs::StateIndex(index)),
                None => Board::from_rank(self.shape, index),
            }
        };
        if let Some(Some(start)) = self.listed.get(depth as usize) {
            for _ in 0..count {
                let k = rng.below(size) as usize;
                let at = start + 8 * k;
                let index = u64::from_le_bytes(self.map[at..at + 8].try_into().unwrap_or_default());
                if index >= self.boards {
                    return Err(TableError::Invalid {
                        path: self.path.clone(),
                        why: format!("corrupt: a listed board of index {index}"),
                    });
                }
                if each(board_at(index)).is_break() {
                    break;
                }
            }
            return Ok(());
        }
        let want = (depth % u32::from(self.modulus())) as u8;
        let tries = MAX_TRIES.saturating_mul(self.boards / size + 1) + (1 << 16);
        for _ in 0..count {
            let mut left = tries;
            let board = loop {
                if left == 0 {
                    return Err(TableError::Invalid {
                        path: self.path.clone(),
                        why: format!(
                            "damaged: no board at depth {depth} in {tries} draws, where the \
                             header counts {size} of {} (checksum not verified?)",
                            self.boards
                        ),
                    });
                }
                left -= 1;
                let index = rng.below(self.boards);
                match self.class_at(index) {
                    Some(CORRUPT) => {
                        if let Some(damage) = self.damage() {
                            return Err(damage);
                        }
                        continue;
                    }
                    Some(class) if class == want => {}
                    _ => continue,
                }
                let board = board_at(index);
                if self.depth_of(board.permutation())? == Some(depth) {
                    break board;
                }
            };
            if each(board).is_break() {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::TableMarks;
    use crate::bfs::StateSpace;
    use crate::metric::Metric;
    use crate::table::tests::analysis;
    use crate::table::write::{Target, write_marks};
    use crate::table::{Codes, write, write_with};

    /// Pearson's chi-square statistic of `counts` against equal expected counts.
    fn chi_square(counts: &std::collections::HashMap<Board, u64>, cells: usize, draws: u64) -> f64 {
        let expected = draws as f64 / cells as f64;
        let seen: f64 = counts
            .values()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        // Boards never drawn contribute their expected count each.
        seen + (cells - counts.len()) as f64 * expected
    }

    /// `sample` is uniform over a depth (issue 25): on 2x4, seeded, for a listed layer and,
    /// with nothing listed, for the rejection draws, in both kinds of codes (written from the
    /// per-board depths and from the marks); the chi-square statistic of the counts
    /// stays below the 0.999 quantile of its distribution (with `k - 1` degrees of freedom,
    /// approximated by Wilson-Hilferty). On 3x3, both antipodes (OEIS A089473: 2 boards at
    /// depth 31) come about half the time each over 10,000 draws.
    #[test]
    fn samples_are_uniform_over_a_depth() {
        let dir = tempfile::tempdir().unwrap();
        let a = analysis(2, 4, Metric::Stm);
        let depth = 12u32;
        let size = a.distances.layer_sizes[depth as usize];
        assert!(size > 50, "{size}");
        let per_board = a.per_board.as_ref().unwrap();
        let marked = a.marked.as_ref().unwrap();
        let mut layers = vec![Vec::new(); a.distances.layer_sizes.len()];
        for i in 0..marked.space.size() {
            let d = per_board.depth_at(i).unwrap();
            layers[d as usize].push(crate::bfs::StateIndex(i));
        }
        let all: Vec<_> = (0..).zip(layers).collect();
        for (limit, codes) in [
            (u64::MAX, Codes::Mod3),
            (0, Codes::Mod3),
            (u64::MAX, Codes::Marks),
            (0, Codes::Marks),
        ] {
            let path = dir.path().join(format!("t{limit}-{codes:?}.npt"));
            match codes {
                Codes::Mod3 => write_with(&path, &a, limit).unwrap(),
                Codes::Marks => {
                    let listed = TableMarks {
                        space: marked.space.clone(),
                        marks: crate::bfs::StateMarks::new(0),
                        listed: if limit == 0 { Vec::new() } else { all.clone() },
                        limit,
                    };
                    write_marks(
                        Target::File(&path),
                        &a,
                        &TableMarks {
                            marks: copy(&marked.marks),
                            ..listed
                        },
                    )
                    .unwrap()
                }
            }
            let table = DistanceTable::open(&path, true).unwrap();
            assert_eq!(table.codes(), codes);
            let draws = 40 * size;
            let mut counts = std::collections::HashMap::new();
            for board in table.sample(depth, draws, 7).unwrap() {
                let walked = table.solve(&board).unwrap().unwrap();
                assert_eq!(walked.len(), depth as usize, "{}", board.label());
                *counts.entry(board).or_insert(0u64) += 1;
            }
            assert!(counts.len() as u64 <= size);
            let k = (size - 1) as f64;
            // Wilson-Hilferty: the 0.999 quantile of chi-square with k degrees of freedom.
            let z = 3.09;
            let critical = k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3);
            let stat = chi_square(&counts, size as usize, draws);
            assert!(stat < critical, "limit {limit}: {stat} >= {critical}");
            // The same seed, the same boards.
            assert_eq!(
                table.sample(depth, 5, 7).unwrap(),
                table.sample(depth, 5, 7).unwrap()
            );
        }
        assert!(table_of(&dir, 2, 4).sample(99, 1, 0).is_err());

        let a = analysis(3, 3, Metric::Stm);
        let path = dir.path().join("3x3.npt");
        write(&path, &a).unwrap();
        let table = DistanceTable::open(&path, true).unwrap();
        let mut counts = std::collections::HashMap::new();
        for board in table.sample(31, 10_000, 1).unwrap() {
            *counts.entry(board.label()).or_insert(0u64) += 1;
        }
        assert_eq!(counts.len(), 2);
        let stat = chi_square_labels(&counts, 10_000);
        // 1 degree of freedom, 0.999 quantile: 10.83.
        assert!(stat < 10.83, "{counts:?}");
    }

    /// A copy of `marks`.
    fn copy(marks: &crate::bfs::StateMarks) -> crate::bfs::StateMarks {
        let mut bytes = Vec::new();
        // SAFETY: the test's marks, changed by no other thread.
        unsafe { marks.write_words(&mut bytes) }.unwrap();
        let mut out = crate::bfs::StateMarks::new(marks.len());
        out.read_words(&mut &bytes[..]).unwrap();
        out
    }

    fn table_of(dir: &tempfile::TempDir, r: usize, c: usize) -> DistanceTable {
        let path = dir.path().join(format!("{r}x{c}.npt"));
        write(&path, &analysis(r, c, Metric::Stm)).unwrap();
        DistanceTable::open(&path, true).unwrap()
    }

    fn chi_square_labels(counts: &std::collections::HashMap<String, u64>, draws: u64) -> f64 {
        let expected = draws as f64 / counts.len() as f64;
        counts
            .values()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum()
    }
}
