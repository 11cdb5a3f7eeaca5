//! The `solve` benchmark (run by `scripts/bench_solve.sh`, which explains the figures).
//!
//!     cargo bench --bench solve -- [BOARDS] [OPTIONS]
//!     cargo bench --bench solve -- --make-boards [ROWSxCOLS] [COUNT] [SEED]
//!
//! `--make-boards` writes random solvable boards instead, one per line (row-major, 0 = blank),
//! the format of `npuzzle solve --batch`: uniform over the solvable half (a uniform shuffle,
//! parity fixed by swapping two tiles; see `npuzzle::random`), from a fixed seed.
//! Defaults `4x4 100 2024`, which is `benches/data/4x4_random100.txt`
//! (`scripts/make_boards.sh` writes it).
//!
//! 1. Builds the 4x4 pattern databases (7-8, the default, then 6-6-3) into a fresh temporary
//!    cache folder and times it, then times loading them back (the load includes the sanity
//!    check). `--cache DIR` uses that folder instead (building only what is missing there).
//! 2. Solves every board of `BOARDS` (default `benches/data/4x4_random100.txt`) with IDA* and
//!    each partition's pattern databases, then linear conflict, then Manhattan distance on the first
//!    `--manhattan-boards N` (default 10) with at most `--cap N` expansions per board
//!    (default 300,000,000); reports total and median time and expansions, the mean of the
//!    boards generated (the "nodes generated" of Felner, Korf & Hanan 2004: 36,710 for 7-8 and
//!    617,555 for 6-6-3 on Korf's 100 instances), and checks that every heuristic finds the
//!    same (optimal) lengths. `--only-pdb` stops after the pattern databases.
//! 3. 3x3: the median time of A*-Manhattan, IDA* with linear conflict and IDA* with pattern
//!    databases over 1,000 random solvable boards (seed 7).
//! 4. Boards over 64 cells (issue 62): `benches/data/9x9_10moves.txt` and
//!    `benches/data/10x10_16moves.txt` (the assignment's format) solved by IDA* with linear
//!    conflict ([`npuzzle::solve::wide`]), the median and max of 5 runs, each length checked.
//!    `--only-wide` runs this step alone. The two boards are random walks of the blank from
//!    the goal, never undoing a move (16 and 10 moves), picked among a few hundred such walks
//!    for an optimal length equal to the walk's with the lowest Manhattan distance (8 and 6):
//!    boards IDA* must search, not merely descend.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use npuzzle::random::{SplitMix64, random_solvable};
use npuzzle::solve::input::AnyBoard;
use npuzzle::solve::pdb::{Partition, PatternDatabases};
use npuzzle::solve::{
    self, Algorithm, Heuristic, HeuristicKind, Limits, SolveError, cache, input, wide,
};
use npuzzle::{Board, Metric, NoProgress, Shape};

struct Options {
    boards: String,
    manhattan_boards: usize,
    cap: u64,
    cache: Option<PathBuf>,
    only_pdb: bool,
    only_wide: bool,
}

fn options() -> Options {
    let mut o = Options {
        boards: "benches/data/4x4_random100.txt".into(),
        manhattan_boards: 10,
        cap: 300_000_000,
        cache: None,
        only_pdb: false,
        only_wide: false,
    };
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--manhattan-boards" => {
                o.manhattan_boards = value().parse().unwrap_or_else(|_| fail("not a count"))
            }
            "--cap" => o.cap = value().parse().unwrap_or_else(|_| fail("not a count")),
            "--cache" => o.cache = Some(value().into()),
            "--only-pdb" => o.only_pdb = true,
            "--only-wide" => o.only_wide = true,
            _ if !arg.starts_with("--") => o.boards = arg,
            _ => fail(&format!("unknown option {arg}")),
        }
    }
    o
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.first().map(String::as_str) == Some("--make-boards") {
        make_boards(&args[1..]);
        return;
    }
    let o = options();
    if o.only_wide {
        wide_boards();
        return;
    }
    let path = o.boards.as_str();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let boards: Vec<Board> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| input::parse_flat(l, None).unwrap_or_else(|e| fail(&format!("{path}: {e}"))))
        .collect();
    let shape = boards
        .first()
        .map_or_else(|| fail("no boards"), Board::shape);

    // 1. Pattern databases: build, then load; 2. the boards, per heuristic.
    let fresh = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let dir = o.cache.as_deref().unwrap_or(fresh.path());
    let names: &[&str] = if shape.rows() == 4 && shape.cols() == 4 {
        &["7-8", "6-6-3"]
    } else {
        &["default"]
    };
    let mut reference: Option<Vec<Option<usize>>> = None;
    let mut rows = Vec::new();
    for name in names {
        let partition = Partition::named(shape, name).unwrap_or_else(|e| fail(&e.to_string()));
        let started = Instant::now();
        let (built, events) = cache::load_or_build(Some(dir), &partition, &NoProgress)
            .unwrap_or_else(|e| fail(&e.to_string()));
        let build_time = started.elapsed();
        let all_built = events
            .iter()
            .all(|e| matches!(e, cache::CacheEvent::Built { .. }));
        drop(built);
        let started = Instant::now();
        let (loaded, events) = cache::load_or_build(Some(dir), &partition, &NoProgress)
            .unwrap_or_else(|e| fail(&e.to_string()));
        let load_time = started.elapsed();
        assert!(
            events
                .iter()
                .all(|e| matches!(e, cache::CacheEvent::Loaded { .. }))
        );
        println!(
            "pattern databases {shape} {}: {} in {:.2} s, loaded and checked in {:.3} s ({} MB)",
            partition.name(),
            if all_built {
                "built"
            } else {
                "read from --cache (some built)"
            },
            build_time.as_secs_f64(),
            load_time.as_secs_f64(),
            partition.table_bytes() / 1_000_000
        );
        rows.push((format!("pdb ({}, reflected)", partition.name()), loaded));
    }
    println!(
        "{:<24} {:>7} {:>9} {:>10} {:>13} {:>11} {:>14}",
        "IDA* heuristic",
        "solved",
        "total s",
        "median ms",
        "expanded",
        "median exp",
        "mean generated"
    );
    for (name, loaded) in rows {
        let pdb = Heuristic::pdb(Arc::new(loaded));
        let lengths = run(&name, &boards, &pdb, Limits::NONE, reference.as_deref());
        reference.get_or_insert(lengths);
    }
    let reference = reference.unwrap_or_default();
    if o.only_pdb {
        return;
    }
    let lc = Heuristic::linear_conflict(shape);
    run(
        "linear-conflict",
        &boards,
        &lc,
        Limits::NONE,
        Some(&reference),
    );
    let cap = Limits {
        max_expanded: Some(o.cap),
        ..Limits::NONE
    };
    let first = &boards[..o.manhattan_boards.min(boards.len())];
    let name = format!("manhattan (first {})", first.len());
    run(
        &name,
        first,
        &Heuristic::manhattan(shape),
        cap,
        Some(&reference),
    );
    let mut lengths: Vec<usize> = reference.iter().flatten().copied().collect();
    lengths.sort();
    println!(
        "optimal lengths: min {}, median {}, max {}",
        lengths.first().unwrap_or(&0),
        lengths.get(lengths.len() / 2).unwrap_or(&0),
        lengths.last().unwrap_or(&0)
    );

    // 3. 3x3.
    let s33 = Shape::square(3).unwrap_or_else(|e| fail(&e.to_string()));
    let mut rng = SplitMix64::new(7);
    let sample: Vec<Board> = (0..1000).map(|_| random_solvable(s33, &mut rng)).collect();
    let partition33 = Partition::default_for(s33).unwrap_or_else(|e| fail(&e.to_string()));
    let pdb33 =
        PatternDatabases::build(&partition33, &NoProgress).unwrap_or_else(|e| fail(&e.to_string()));
    for (name, algorithm, heuristic) in [
        ("A*-manhattan", Algorithm::AStar, Heuristic::manhattan(s33)),
        (
            "IDA*-linear-conflict",
            Algorithm::IdaStar,
            Heuristic::linear_conflict(s33),
        ),
        (
            "IDA*-pdb (4-4)",
            Algorithm::IdaStar,
            Heuristic::pdb(Arc::new(pdb33)),
        ),
    ] {
        let mut times: Vec<Duration> = sample
            .iter()
            .map(|b| {
                solve::solve(b, Metric::Stm, algorithm, &heuristic, &Limits::NONE)
                    .unwrap_or_else(|e| fail(&e.to_string()))
                    .elapsed
            })
            .collect();
        times.sort();
        println!(
            "3x3 {name}: median {:.3} ms, max {:.3} ms over {} random boards",
            times[times.len() / 2].as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3,
            times.len()
        );
    }

    // 4. Boards over 64 cells.
    wide_boards();
}

/// Step 4: the committed 9x9 and 10x10 boards, median of 5 solves each.
fn wide_boards() {
    for (file, optimal) in [
        ("benches/data/9x9_10moves.txt", 10),
        ("benches/data/10x10_16moves.txt", 16),
    ] {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| fail(&format!("{file}: {e}")));
        let board = match input::parse_assignment_any(&text) {
            Ok(AnyBoard::Wide(board)) => board,
            Ok(AnyBoard::Board(_)) => fail(&format!("{file}: not over 64 cells")),
            Err(e) => fail(&format!("{file}: {e}")),
        };
        let mut times: Vec<Duration> = (0..5)
            .map(|_| {
                let kind = HeuristicKind::LinearConflict;
                let s = wide::solve(&board, kind, &Limits::NONE, &NoProgress)
                    .unwrap_or_else(|e| fail(&e.to_string()));
                if s.length() != optimal {
                    fail(&format!("{file}: {} moves, not {optimal}", s.length()));
                }
                s.elapsed
            })
            .collect();
        times.sort();
        println!(
            "{board} ({file}): {optimal} moves, IDA*-linear-conflict median {:.3} ms, max {:.3} ms \
             over {} runs",
            times[times.len() / 2].as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3,
            times.len()
        );
    }
}

/// Solves `boards`, prints one row, returns each board's length (`None` when capped).
fn run(
    name: &str,
    boards: &[Board],
    heuristic: &Heuristic,
    limits: Limits,
    reference: Option<&[Option<usize>]>,
) -> Vec<Option<usize>> {
    let mut times = Vec::new();
    let mut nodes = Vec::new();
    let mut generated = 0u64;
    let mut lengths = Vec::new();
    let started = Instant::now();
    for (i, board) in boards.iter().enumerate() {
        match solve::idastar(board, heuristic, &limits) {
            Ok(s) => {
                assert_eq!(
                    solve::replay(board, &s.moves),
                    Some(Board::goal(board.shape()))
                );
                if let Some(Some(expected)) = reference.map(|r| r[i]) {
                    assert_eq!(s.moves.len(), expected, "board {} disagrees", i + 1);
                }
                times.push(s.elapsed);
                nodes.push(s.expanded);
                generated += s.generated;
                lengths.push(Some(s.moves.len()));
            }
            Err(SolveError::LimitReached { expanded, .. }) => {
                nodes.push(expanded);
                lengths.push(None);
            }
            Err(e) => fail(&e.to_string()),
        }
    }
    let total = started.elapsed();
    let solved = lengths.iter().flatten().count();
    times.sort();
    nodes.sort();
    let median_ms = times
        .get(times.len() / 2)
        .map_or(f64::NAN, |t| t.as_secs_f64() * 1e3);
    println!(
        "{:<24} {:>7} {:>9.2} {:>10.2} {:>13} {:>11} {:>14.0}",
        name,
        format!("{solved}/{}", boards.len()),
        total.as_secs_f64(),
        median_ms,
        nodes.iter().sum::<u64>(),
        nodes[nodes.len() / 2],
        generated as f64 / solved.max(1) as f64
    );
    lengths
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}

/// Prints `COUNT` random solvable boards of `ROWSxCOLS` from `SEED` (see the module doc).
fn make_boards(args: &[String]) {
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
    println!("# made by: cargo bench --bench solve -- --make-boards {shape} {count} {seed}");
    let mut rng = SplitMix64::new(seed);
    for _ in 0..count {
        let board = random_solvable(shape, &mut rng);
        let tiles: Vec<String> = board.tiles().map(|t| t.to_string()).collect();
        println!("{}", tiles.join(" "));
    }
}
