//! The check of a space's layout facts against its kernel: the drivers' skips trust
//! [`StateSpace::lanes`] and [`StateSpace::sides`] (a lane move is claimed without asking the
//! kernel, a board with a single move across is not expanded, a depth's parity is read from the
//! index), so a space whose facts disagree with its own moves would give wrong counts without
//! an error. [`verify`] compares them, board by board, on every board of a small space and on
//! an even sample of a large one.

use super::{StateIndex, StateSpace};

/// Boards checked by [`verify`]: every board of a space up to this size, else this many spread
/// evenly over it (plus the first and the last few periods). In builds with debug assertions,
/// twice as many.
const SAMPLE: u64 = if cfg!(debug_assertions) {
    1 << 13
} else {
    1 << 12
};

/// Checks `space`'s [`Lanes`](super::Lanes) and [`Sides`](super::Sides) against its kernel
/// ([`StateSpace::expand`], [`StateSpace::expand_across`] and
/// [`StateSpace::expand_off_lanes`]) on every board of a space of at most `SAMPLE` boards,
/// else on `SAMPLE` boards spread over it; a space without either passes at once. Costs a
/// few kernel calls per board checked (milliseconds).
///
/// For each board `i` checked, with `N(i)` its neighbours by [`StateSpace::expand`]:
/// - the periods are in `1..=64`, and every lane move that [`Lanes`](super::Lanes) gives
///   (`i ± k`, `1 <= k <= reach`, every step on a set bit of `right`) is in `N(i)`;
/// - `expand_off_lanes(i)` plus those lane moves is `N(i)`, and `expand_across(i)` plus the
///   lane moves of one step is `N(i)` (as multisets);
/// - a board on a set bit of `single` has exactly one neighbour that is not a lane move;
/// - every neighbour is on the other side ([`Sides::of`](super::Sides::of)).
///
/// # Errors
/// The first disagreement, naming the board's index and the fact that fails.
pub fn verify<S: StateSpace>(space: &S) -> Result<(), String> {
    let (lanes, sides) = (space.lanes(), space.sides());
    if lanes.is_none() && sides.is_none() {
        return Ok(());
    }
    let size = space.size();
    if let Some(l) = lanes
        && !(1..=64).contains(&l.period)
    {
        return Err(format!("lanes of period {} (1 to 64)", l.period));
    }
    if let Some(s) = sides
        && !(1..=64).contains(&s.period)
    {
        return Err(format!("sides of period {} (1 to 64)", s.period));
    }
    let period = lanes
        .map_or(1, |l| l.period)
        .max(sides.map_or(1, |s| s.period));
    let mut checked: Vec<u64> = if size <= SAMPLE {
        (0..size).collect()
    } else {
        let edge = 2 * period;
        let stride = size / SAMPLE;
        (0..edge)
            .chain((0..SAMPLE).map(|k| k * stride + k % period))
            .chain(size - edge..size)
            .filter(|&i| i < size)
            .collect()
    };
    checked.sort_unstable();
    checked.dedup();
    let (mut all, mut part) = (Vec::new(), Vec::new());
    for i in checked {
        let fail = |what: &str| Err(format!("board {i}: {what}"));
        all.clear();
        space.expand(&[StateIndex(i)], &mut all);
        super::drop_none(&mut all, 0);
        all.sort_unstable();
        if let Some(s) = sides
            && let Some(n) = all.iter().find(|&&n| s.of(n) == s.of(StateIndex(i)))
        {
            return fail(&format!("its neighbour {} is on its own side", n.0));
        }
        let Some(l) = lanes else { continue };
        // The lane moves: i + k while every step i..i+k-1 is on a lane, and i - k likewise.
        let mut lane = Vec::new();
        let mut one_step = Vec::new();
        for k in 1..=l.reach {
            if i + k < size && l.reaches_next(i, k) {
                lane.push(StateIndex(i + k));
                if k == 1 {
                    one_step.push(StateIndex(i + k));
                }
            }
            if k <= i && l.reaches_previous(i, k) {
                lane.push(StateIndex(i - k));
                if k == 1 {
                    one_step.push(StateIndex(i - k));
                }
            }
        }
        if let Some(n) = lane.iter().find(|n| all.binary_search(n).is_err()) {
            return fail(&format!("the lane move to {} is not a move", n.0));
        }
        for (name, extra, expand) in [
            (
                "expand_off_lanes",
                &lane,
                S::expand_off_lanes as fn(&S, &[StateIndex], &mut Vec<StateIndex>),
            ),
            ("expand_across", &one_step, S::expand_across),
        ] {
            part.clear();
            expand(space, &[StateIndex(i)], &mut part);
            part.extend_from_slice(extra);
            part.sort_unstable();
            if part != all {
                return fail(&format!(
                    "{name} and the lane moves give {:?}, the kernel {:?}",
                    part.iter().map(|n| n.0).collect::<Vec<_>>(),
                    all.iter().map(|n| n.0).collect::<Vec<_>>()
                ));
            }
        }
        if l.single >> (i % l.period) & 1 == 1 && all.len() != lane.len() + 1 {
            return fail(&format!(
                "marked as having one move across, it has {}",
                all.len() - lane.len()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::parity::{Parity, ParitySpace};
    use crate::bfs::{Lanes, Sides};
    use crate::{Board, Metric, Shape};

    /// A space whose layout facts are altered, to see the check fail.
    struct Altered<'a> {
        inner: &'a ParitySpace,
        lanes: Option<Lanes>,
        sides: Option<Sides>,
    }

    impl StateSpace for Altered<'_> {
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
        fn degree(&self) -> usize {
            self.inner.degree()
        }
        fn lanes(&self) -> Option<Lanes> {
            self.lanes
        }
        fn sides(&self) -> Option<Sides> {
            self.sides
        }
        fn expand_across(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
            self.inner.expand_across(batch, out);
        }
        fn expand_off_lanes(&self, batch: &[StateIndex], out: &mut Vec<StateIndex>) {
            self.inner.expand_off_lanes(batch, out);
        }
    }

    #[test]
    fn every_shipped_layout_checks_out() {
        for (r, c) in [
            (2, 2),
            (2, 3),
            (3, 2),
            (3, 3),
            (2, 5),
            (3, 4),
            (4, 4),
            (4, 5),
        ] {
            for metric in [Metric::Stm, Metric::Mtm] {
                let shape = Shape::new(r, c).unwrap();
                for parity in [Parity::Even, Parity::Odd] {
                    let space = ParitySpace::with_metric(shape, parity, metric).unwrap();
                    verify(&space).unwrap_or_else(|e| panic!("{shape} {metric:?}: {e}"));
                }
            }
        }
    }

    #[test]
    fn altered_layouts_are_caught() {
        let shape = Shape::new(3, 3).unwrap();
        let space = ParitySpace::with_metric(shape, Parity::Even, Metric::Stm).unwrap();
        let (lanes, sides) = (space.lanes().unwrap(), space.sides().unwrap());
        let altered = |lanes: Lanes, sides: Sides| Altered {
            inner: &space,
            lanes: Some(lanes),
            sides: Some(sides),
        };
        let cases = [
            // A lane where the row ends (cell 2 to cell 3).
            (
                altered(
                    Lanes {
                        right: lanes.right | 1 << 2,
                        ..lanes
                    },
                    sides,
                ),
                "is not a move",
            ),
            // A middle-row blank said to have one move across.
            (
                altered(
                    Lanes {
                        single: lanes.single | 1 << 4,
                        ..lanes
                    },
                    sides,
                ),
                "one move across",
            ),
            // The sides flipped on one cell.
            (
                altered(
                    lanes,
                    Sides {
                        odd: sides.odd ^ 1,
                        ..sides
                    },
                ),
                "on its own side",
            ),
            // Jumps along rows in the single-tile metric.
            (altered(Lanes { reach: 2, ..lanes }, sides), "not a move"),
            (altered(Lanes { period: 0, ..lanes }, sides), "period 0"),
        ];
        for (space, what) in cases {
            let e = verify(&space).unwrap_err();
            assert!(e.contains(what), "{e}");
        }
    }
}
