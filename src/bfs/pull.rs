//! The pull half of a layer step (the direction-optimizing BFS of Beamer, Asanović &
//! Patterson 2012), shared by every driver that holds all of a space's marks: once the boards
//! not yet reached are fewer than the frontier, each unseen board goes through the kernel and
//! joins the next layer when one of its neighbours is in the frontier ([`pull`]; over a list of
//! the boards left once they fit the list limit, [`pull_listed`]). Also the two passes around
//! pull steps: [`find_frontier`] (the one layer a pull step may not have listed) and
//! [`settle`] (the marks' final codes after the last pull step).
//!
//! A pull step over the marks writes only the words its thread scans, so it needs no atomic
//! operation. In an undirected graph an unseen board cannot be adjacent to a layer before the
//! frontier, so the frontier code alone identifies the frontier and pull steps retire nothing.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::marks::{self, FIELDS_PER_WORD, LOW_BITS, PARALLEL_LIST};
use super::step::{BATCH, LayerCodes, Marking};
use super::{OnVisit, StateIndex, StateMarks, StateSpace};

/// How many boards ahead a neighbour's word is prefetched.
const AHEAD: usize = 16;
/// Pull once the frontier is at least this many times the boards left.
pub(super) const PULL_RATIO: u64 = 1;

/// After pull steps from layer `from` on: under [`Marking::Frontier`] marks every reached
/// board `DONE` (pull steps leave their layers with frontier codes); under
/// [`Marking::Depths`] gives layer `from`, the one frontier left unexpanded (later pull steps
/// write their boards' final codes), its final code.
pub(super) fn settle(marks: &StateMarks, marking: Marking, from: u32) {
    marks.par_chunks().for_each(|(_, words)| {
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
        .par_chunks()
        .flat_map_iter(|(first, words)| {
            let mut found = Vec::new();
            for (k, word) in words.iter().enumerate() {
                let base = first + k as u64 * FIELDS_PER_WORD;
                let live = codes.live(word.load(Relaxed), base);
                found.extend(marks::fields(base, live).filter(|r| r.0 < size));
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
        .par_chunks()
        .map(|(first, words)| {
            let mut batch = Vec::with_capacity(BATCH + 32);
            let mut slots = Vec::with_capacity(space.degree() * (BATCH + 32));
            let mut found = 0u64;
            let mut examined = 0u64;
            let mut next = Some(Vec::new());
            // The boards left unseen (a board on the frontier's side under `Marking::Depths`
            // or the across flag is not examined, and stays).
            let mut left = keep_left.then(Vec::new);
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
                        for board in marks::fields(base, frontier_side) {
                            if board.0 < size {
                                push_bounded(&mut left, board, list_limit);
                            }
                        }
                    }
                }
                for board in marks::fields(base, unseen) {
                    if board.0 >= size {
                        break;
                    }
                    batch.push(board);
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
/// examined instead of every field of the marks (on 2x7 the last dozen layers hold a few
/// million boards at most, against 10.9 GB of marks). The boards that join are removed from
/// `left`. Returns the next layer's size, its list (no longer than `left` was), and the boards
/// examined.
pub(super) fn pull_listed<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    codes: &LayerCodes,
    depth: u32,
    visit: &impl OnVisit,
    left: &mut Vec<StateIndex>,
) -> (u64, Option<Vec<StateIndex>>, u64) {
    let pc = PullCodes::new(codes, depth);
    let expand = |chunk: &[StateIndex]| -> (Vec<StateIndex>, u64) {
        let mut examined = 0u64;
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
            examined += batch.len() as u64;
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
        (next, examined)
    };
    let (next, examined) = if left.len() < PARALLEL_LIST {
        expand(left)
    } else {
        left.par_chunks(PARALLEL_LIST).map(expand).reduce(
            || (Vec::new(), 0),
            |(mut na, ea), (nb, eb)| {
                na.extend(nb);
                (na, ea + eb)
            },
        )
    };
    left.retain(|&b| marks.get(b) == super::marks::UNSEEN);
    (next.len() as u64, Some(next), examined)
}

/// One pull step of layer `depth`, with the list of the boards left when an earlier step
/// made it: over `left` ([`pull_listed`]) when it holds a list, else over the marks ([`pull`]),
/// which lists the boards left in `left` (ascending) when `keep_left` and they fit the list
/// limit. Returns the next layer's size, its list (ascending) when it has at most
/// `list_limit` boards, and the boards examined.
#[allow(clippy::too_many_arguments)]
pub(super) fn pull_step<S: StateSpace>(
    space: &S,
    marks: &StateMarks,
    codes: &LayerCodes,
    depth: u32,
    list_limit: usize,
    visit: &impl OnVisit,
    left: &mut Option<Vec<StateIndex>>,
    keep_left: bool,
) -> (u64, Option<Vec<StateIndex>>, u64) {
    let (found, next, examined) = match left.as_mut() {
        Some(l) => pull_listed(space, marks, codes, depth, visit, l),
        None => {
            let (found, next, examined, l) =
                pull(space, marks, codes, depth, list_limit, visit, keep_left);
            *left = l.map(|mut l| {
                l.par_sort_unstable();
                l
            });
            (found, next, examined)
        }
    };
    let next = next.map(|mut l| {
        l.par_sort_unstable();
        l
    });
    (found, next, examined)
}
