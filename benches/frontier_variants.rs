//! Issue 74's two ways of removing duplicates in a segment map, side by side, on one thread
//! and one segment (the whole goal's component, in memory), release build:
//! `cargo bench --bench frontier_variants [-- 3x4|2x6|3x3]`.
//!
//! - **(a) one bit a board, layer d-1 subtracted** (what `bfs::frontier` does): each layer's
//!   boards expanded into a bitmap, the previous layer's bits cleared, the map read out in
//!   index order as the next layer.
//! - **(b) four used-operator bits a board** (Korf 2008; lightln2/SlidingTilesSolver): a board
//!   of the next layer keeps, for each of its parents, the move that leads back to it (the
//!   opposite of the parent's move); expanding it skips those moves, which are exactly its
//!   moves back to layer d-1 (every neighbour there is a parent that reached it), so nothing
//!   is subtracted. The map holds 4 bits a board (4 times (a)'s), and a layer carries its
//!   boards' bits.
//!
//! Both use the engine's kernel, which computes all four moves of a board (a kernel told to
//! skip moves would save more in (b); the kernel's own time is printed beside, to bound what
//! skipping could save: over a whole search of a bipartite graph, exactly half of the moves
//! generated lead back a layer, by the handshake lemma). Both searches' layer sizes are
//! checked equal and to sum to the component. Plain `std::time::Instant` timing, median of
//! 3 alternated runs; quote ratios, not absolute times: the machines are shared.

use std::hint::black_box;
use std::time::Instant;

use npuzzle::bfs::{Parity, ParitySpace, StateIndex, StateSpace};
use npuzzle::{Board, Shape};

const BATCH: usize = 512;

/// The layer sizes of the search from `goal`, variant (a).
fn one_bit(space: &ParitySpace, goal: StateIndex) -> Vec<u64> {
    let n = space.size();
    let mut map = vec![0u64; n.div_ceil(64) as usize];
    let (mut previous, mut current) = (Vec::new(), vec![goal]);
    let mut out = Vec::with_capacity(4 * BATCH);
    let mut sizes = vec![1u64];
    loop {
        for batch in current.chunks(BATCH) {
            out.clear();
            space.expand(batch, &mut out);
            for &StateIndex(y) in &out {
                if y != StateIndex::NONE.0 {
                    map[(y >> 6) as usize] |= 1 << (y & 63);
                }
            }
        }
        for &StateIndex(x) in &previous {
            map[(x >> 6) as usize] &= !(1u64 << (x & 63));
        }
        let mut next = Vec::new();
        for (w, slot) in map.iter_mut().enumerate() {
            let mut word = std::mem::take(slot);
            while word != 0 {
                next.push(StateIndex(
                    (w as u64) << 6 | u64::from(word.trailing_zeros()),
                ));
                word &= word - 1;
            }
        }
        if next.is_empty() {
            return sizes;
        }
        sizes.push(next.len() as u64);
        previous = std::mem::replace(&mut current, next);
    }
}

/// The layer sizes of the search from `goal`, variant (b). Slot `k` of the kernel is the
/// blank's move up, down, left, right; the move back from its target is `k ^ 1`.
fn operator_bits(space: &ParitySpace, goal: StateIndex) -> Vec<u64> {
    let n = space.size();
    // 16 boards a word, 4 bits each.
    let mut map = vec![0u64; n.div_ceil(16) as usize];
    let (mut current, mut used) = (vec![goal], vec![0u8]);
    let mut out = Vec::with_capacity(4 * BATCH);
    let mut sizes = vec![1u64];
    loop {
        for (batch, ops) in current.chunks(BATCH).zip(used.chunks(BATCH)) {
            out.clear();
            space.expand(batch, &mut out);
            for (slots, &op) in out.chunks_exact(4).zip(ops) {
                for (k, &StateIndex(y)) in slots.iter().enumerate() {
                    if op >> k & 1 == 0 && y != StateIndex::NONE.0 {
                        map[(y >> 4) as usize] |= 1u64 << ((k ^ 1) as u64 | (y & 15) << 2);
                    }
                }
            }
        }
        let (mut next, mut next_used) = (Vec::new(), Vec::new());
        for (w, slot) in map.iter_mut().enumerate() {
            let word = std::mem::take(slot);
            if word == 0 {
                continue;
            }
            // A bit of each nibble that holds any.
            let mut any = (word | word >> 1 | word >> 2 | word >> 3) & 0x1111_1111_1111_1111;
            while any != 0 {
                let at = any.trailing_zeros();
                next.push(StateIndex((w as u64) << 4 | u64::from(at >> 2)));
                next_used.push((word >> at & 15) as u8);
                any &= any - 1;
            }
        }
        if next.is_empty() {
            return sizes;
        }
        sizes.push(next.len() as u64);
        current = next;
        used = next_used;
    }
}

/// The kernel alone over every board of the component, in ascending batches: the time both
/// variants spend in it.
fn kernel_only(space: &ParitySpace) -> u64 {
    let mut out = Vec::with_capacity(4 * BATCH);
    let mut batch = Vec::with_capacity(BATCH);
    let mut sum = 0u64;
    for x in 0..space.size() {
        batch.push(StateIndex(x));
        if batch.len() == BATCH || x + 1 == space.size() {
            out.clear();
            space.expand(&batch, &mut out);
            sum = out.iter().fold(sum, |s, i| s.wrapping_add(i.0));
            batch.clear();
        }
    }
    black_box(sum)
}

fn seconds(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let asked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let shapes = match asked.is_empty() {
        true => vec!["3x4".to_string(), "2x6".to_string()],
        false => asked,
    };
    for name in shapes {
        let Some((r, c)) = name.split_once('x') else {
            panic!("a shape such as 3x4, not {name}");
        };
        let shape = Shape::new(r.parse().unwrap(), c.parse().unwrap()).unwrap();
        let space = ParitySpace::new(shape, Parity::Even).unwrap();
        let goal = space.rank(&Board::goal(shape)).expect("the goal's class");
        let (mut a, mut b, mut k) = (Vec::new(), Vec::new(), Vec::new());
        let (mut sizes_a, mut sizes_b) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            a.push(seconds(|| sizes_a = one_bit(&space, goal)));
            b.push(seconds(|| sizes_b = operator_bits(&space, goal)));
            k.push(seconds(|| {
                kernel_only(&space);
            }));
        }
        assert_eq!(sizes_a, sizes_b, "{name}: the two variants' layers");
        assert_eq!(sizes_a.iter().sum::<u64>(), space.size(), "{name}");
        let ns = |s: Vec<f64>| median(s) * 1e9 / space.size() as f64;
        let (a, b, k) = (ns(a), ns(b), ns(k));
        println!(
            "{name}: {} boards, radius {}: (a) one bit, d-1 subtracted {a:.1} ns a board; \
             (b) used-operator bits {b:.1} ns ({:.2}x (a)); the kernel alone {k:.1} ns \
             (all four moves: a kernel skipping the moves back would save up to half of it)",
            space.size(),
            sizes_a.len() - 1,
            b / a
        );
    }
}
