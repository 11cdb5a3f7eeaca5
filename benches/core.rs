//! Micro-benchmarks of the engine, release build: `cargo bench --bench core [-- 3x4]`.
//!
//! 1. The kernels: neighbour indices per board for the parity index (one component, `u64`)
//!    and the lexicographic index (all boards), on the same boards of 3x4, in ascending
//!    batches of 512 as the driver hands them over.
//!    Then the parity index's kernel on 2x7 for the moves that leave a board's lane, at the
//!    density of 2x7's widest layers (`cargo bench --bench core -- kernel`: the kernels only).
//! 2. The layer driver alone: the goal's component of 3x3, 2x5 and, when asked, 3x4, on both
//!    indices (the lexicographic one searches only the goal's component here too).
//!
//! Plain `std::time::Instant` timing, median of several runs; quote ratios, not absolute
//! times: the machines are shared.

use std::hint::black_box;
use std::time::Instant;

use npuzzle::bfs::{self, LexSpace, Parity, ParitySpace, StateIndex, StateMarks, StateSpace};
use npuzzle::{Board, Shape};

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

/// ns per board of `space`'s kernel over `boards` (ascending batches of 512): `expand`, or
/// `expand_across` when `across`.
fn kernel_ns<S: StateSpace>(space: &S, boards: &[StateIndex], across: bool) -> f64 {
    let mut out = Vec::with_capacity(4 * 512);
    let t = time(7, || {
        let mut sum = 0u64;
        for batch in boards.chunks(512) {
            out.clear();
            if across {
                space.expand_across(batch, &mut out);
            } else {
                space.expand(batch, &mut out);
            }
            sum = out.iter().fold(sum, |s, i| s.wrapping_add(i.0));
        }
        black_box(sum);
    });
    t * 1e9 / boards.len() as f64
}

fn kernels() {
    let shape = Shape::new(3, 4).unwrap();
    let parity = ParitySpace::new(shape, Parity::Even).unwrap();
    let lex = LexSpace::new(shape).unwrap();
    // The same 2M boards in both indices, each list ascending (about 1 board in 120, as in a
    // mid-depth layer).
    let mut on_parity: Vec<StateIndex> = (0..2_000_000u64)
        .map(|i| StateIndex(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % parity.size()))
        .collect();
    on_parity.sort_unstable();
    let mut on_lex: Vec<StateIndex> = on_parity
        .iter()
        .map(|&i| lex.rank(&parity.unrank(i)).unwrap())
        .collect();
    on_lex.sort_unstable();
    let p = kernel_ns(&parity, &on_parity, false);
    let l = kernel_ns(&lex, &on_lex, false);
    println!(
        "kernel, 3x4, 2M boards: parity index {p:.1} ns/board, lexicographic {l:.1} ns/board, ratio {:.2}",
        l / p
    );
}

/// ns per board of the parity index's kernel on 2x7 for the moves that leave the board's lane
/// ([`StateSpace::expand_across`], as the dense driver asks), over 4M boards of a run of
/// consecutive indices at the density of 2x7's widest layers (about 1 in 23).
fn kernel_2x7() {
    let space = ParitySpace::new(Shape::new(2, 7).unwrap(), Parity::Even).unwrap();
    let start = space.size() / 3;
    let boards: Vec<StateIndex> = (0..4_000_000u64 * 23)
        .filter(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 23 == 0)
        .map(|i| StateIndex(start + i))
        .collect();
    let ns = kernel_ns(&space, &boards, true);
    println!(
        "kernel, 2x7 across, {} boards at 1 in 23: {ns:.2} ns/board",
        boards.len()
    );
}

fn driver<S: StateSpace>(name: &str, space: &S, runs: usize) -> f64 {
    let goal = Board::goal(space.shape());
    let mut reached = 0;
    let t = time(runs, || {
        let marks = StateMarks::new(space.size());
        let seed = space.rank(&goal).unwrap();
        reached = bfs::run(space, &marks, seed, &(), |_, _, _| {}).reached();
    });
    println!(
        "driver {} {name}: {t:.3} s for the goal's {reached} boards, {:.1} ns/board",
        space.shape(),
        t * 1e9 / reached as f64
    );
    t
}

fn drivers(r: usize, c: usize, runs: usize) {
    let shape = Shape::new(r, c).unwrap();
    let p = driver(
        "parity",
        &ParitySpace::new(shape, Parity::Even).unwrap(),
        runs,
    );
    let l = driver("lexicographic", &LexSpace::new(shape).unwrap(), runs);
    println!("driver {shape}: lexicographic / parity = {:.2}", l / p);
}

fn main() {
    let big = std::env::args().any(|a| a == "3x4");
    if std::env::args().any(|a| a == "kernel") {
        kernels();
        kernel_2x7();
        return;
    }
    kernels();
    kernel_2x7();
    drivers(3, 3, 9);
    drivers(2, 5, 5);
    if big {
        drivers(3, 4, 3);
    }
}
