//! Writes random solvable boards, one per line (row-major, 0 = blank), the format of
//! `npuzzle solve --batch`. Boards are uniform over the solvable half (a uniform shuffle,
//! parity fixed by swapping two tiles; see `npuzzle::solve::random`), from a fixed seed.
//!
//!     cargo run --release --example make_boards -- [ROWSxCOLS] [COUNT] [SEED]
//!
//! Defaults: `4x4 100 2024`, which is `benches/data/4x4_random100.txt`
//! (`scripts/make_boards.sh` writes it).

use npuzzle::Shape;
use npuzzle::solve::random::{SplitMix64, random_solvable};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shape_arg = args.first().map_or("4x4", String::as_str);
    let count: usize = args.get(1).and_then(|c| c.parse().ok()).unwrap_or(100);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2024);
    let shape = shape_arg
        .split_once('x')
        .and_then(|(r, c)| Shape::new(r.parse().ok()?, c.parse().ok()?).ok());
    let Some(shape) = shape else {
        eprintln!("error: '{shape_arg}' is not a shape like 4x4");
        std::process::exit(2);
    };
    println!(
        "# {count} random solvable {shape} boards, uniform over the solvable half, seed {seed}"
    );
    println!("# made by: cargo run --release --example make_boards -- {shape} {count} {seed}");
    let mut rng = SplitMix64::new(seed);
    for _ in 0..count {
        let board = random_solvable(shape, &mut rng);
        let tiles: Vec<String> = board.tiles().map(|t| t.to_string()).collect();
        println!("{}", tiles.join(" "));
    }
}
