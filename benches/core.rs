//! Micro-benchmarks of the core, release build: `cargo bench --bench core [-- 3x4]`.
//!
//! 1. Neighbour ranks: the Lehmer-digit delta of `moves` against re-ranking every neighbour
//!    from scratch (the "do not re-rank unless a benchmark shows it is as fast").
//! 2. The BFS engine alone (goal BFS + components) on 3x3, 2x5 and, when asked, 3x4.
//!
//! Plain `std::time::Instant` timing, median of 5 runs; quote ratios, not absolute times.

use std::hint::black_box;
use std::time::Instant;

use npuzzle::Shape;
use npuzzle::bfs::{Engine, StateMarks};
use npuzzle::moves::{self, MoveTable};
use npuzzle::rank;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn neighbour_ranks() {
    const N: usize = 12;
    let shape = Shape::new(3, 4).unwrap();
    let table = MoveTable::new(shape);
    let ranks: Vec<u32> = (0..2_000_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 479_001_600)
        .collect();
    let delta = time(5, || {
        let mut sum = 0u64;
        for &r in &ranks {
            moves::for_each_neighbor::<N>(r, &table, |nb, _| sum += u64::from(nb));
        }
        black_box(sum);
    });
    let full = time(5, || {
        let mut sum = 0u64;
        for &r in &ranks {
            let (perm, _) = rank::unrank_array::<N>(r);
            let b = perm.iter().position(|&v| v as usize == N - 1).unwrap();
            for &to in table.targets(b) {
                let mut next = perm;
                next.swap(b, to as usize);
                sum += rank::rank_array(&next);
            }
        }
        black_box(sum);
    });
    println!(
        "neighbour ranks, 3x4, 2M boards: delta {:.1} ns/board, full re-rank {:.1} ns/board, ratio {:.2}",
        delta * 1e9 / ranks.len() as f64,
        full * 1e9 / ranks.len() as f64,
        full / delta
    );
}

fn engine(r: usize, c: usize, runs: usize) {
    let shape = Shape::new(r, c).unwrap();
    let boards = shape.board_count().unwrap();
    let engine = Engine::new(shape);
    let t = time(runs, || {
        let marks = StateMarks::new(boards);
        let mut reached = engine.run(&marks, 0, &(), |_, _, _| {}).reached();
        let mut from = 0;
        while let Some(seed) = marks.next_unseen(from) {
            reached += engine.run(&marks, seed, &(), |_, _, _| {}).reached();
            from = u64::from(seed) + 1;
        }
        assert_eq!(reached, boards);
    });
    println!(
        "BFS engine {shape}: {:.3} s for {boards} boards, {:.1} ns/board, {:.1} M boards/s",
        t,
        t * 1e9 / boards as f64,
        boards as f64 / t / 1e6
    );
}

fn main() {
    let big = std::env::args().any(|a| a == "3x4");
    if !std::env::args().any(|a| a == "engine") {
        neighbour_ranks();
    }
    engine(3, 3, 9);
    engine(2, 5, 5);
    if big {
        engine(3, 4, 3);
    }
}
