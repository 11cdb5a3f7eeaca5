//! Issue 51: the whole game graph's geometry (`analyze --all-pairs`, [`npuzzle::geometry`]),
//! checked against an independent oracle (one BFS from every board) and through the binary.

use std::collections::VecDeque;
use std::fs;
use std::path::Path;

use crate::support::npuzzle;
use npuzzle::geometry::{self, Geometry};
use npuzzle::metric::Metric;
use npuzzle::progress::NoProgress;
use npuzzle::{Board, Shape};
use predicates::prelude::*;
use rayon::prelude::*;

/// What one BFS from every board gives: each board's eccentricity and sum of distances to
/// its component (by lexicographic rank), and the ordered pairs at each distance.
struct Oracle {
    eccentricity: Vec<u32>,
    distance_sum: Vec<u64>,
    /// `ordered[d]`: ordered pairs `(u, v)` at distance `d`.
    ordered: Vec<u128>,
}

/// The game graph of `shape` in `metric` as adjacency lists over lexicographic ranks, from
/// [`Board::slid`] (not the engine's Lehmer-digit moves), then one plain BFS from every
/// board, in parallel.
fn oracle(shape: Shape, metric: Metric) -> Oracle {
    let n = shape.board_count().unwrap() as usize;
    let adjacency: Vec<Vec<u32>> = (0..n as u64)
        .into_par_iter()
        .map(|rank| {
            let board = Board::from_rank(shape, rank);
            metric
                .targets(shape, board.blank())
                .into_iter()
                .map(|to| board.slid(to).unwrap().rank() as u32)
                .collect()
        })
        .collect();
    let per_board: Vec<(u32, u64, Vec<u64>)> = (0..n)
        .into_par_iter()
        .map_init(
            || (vec![u32::MAX; n], VecDeque::new()),
            |(dist, queue), source| {
                dist.fill(u32::MAX);
                dist[source] = 0;
                queue.clear();
                queue.push_back(source as u32);
                let mut counts = vec![1u64];
                let mut sum = 0u64;
                while let Some(u) = queue.pop_front() {
                    let d = dist[u as usize] + 1;
                    for &v in &adjacency[u as usize] {
                        if dist[v as usize] == u32::MAX {
                            dist[v as usize] = d;
                            queue.push_back(v);
                            if counts.len() <= d as usize {
                                counts.push(0);
                            }
                            counts[d as usize] += 1;
                            sum += u64::from(d);
                        }
                    }
                }
                ((counts.len() - 1) as u32, sum, counts)
            },
        )
        .collect();
    let depth = per_board.iter().map(|p| p.2.len()).max().unwrap();
    let mut ordered = vec![0u128; depth];
    for (_, _, counts) in &per_board {
        for (d, &c) in counts.iter().enumerate().skip(1) {
            ordered[d] += u128::from(c);
        }
    }
    Oracle {
        eccentricity: per_board.iter().map(|p| p.0).collect(),
        distance_sum: per_board.iter().map(|p| p.1).collect(),
        ordered,
    }
}

/// Every board of up to 8 cells (1x2 to 1x8 and their columns, 2x2, 2x3, 3x2, 2x4, 4x2), in
/// both metrics: the symmetric computation (one BFS per orbit of blank cells) equals the
/// oracle exactly: each board's eccentricity and mean distance, the distance table, the
/// unconnected pairs, the diameter, the radius, the centre, the periphery.
#[test]
#[ignore = "slow: a BFS from every board up to 8 cells (88 s on a loaded machine); CI runs it"]
fn one_bfs_per_orbit_equals_one_bfs_per_board_up_to_8_cells() {
    for shape in Shape::all_up_to(8) {
        for metric in [Metric::Stm, Metric::Mtm] {
            let g = geometry::all_pairs(shape, metric, &NoProgress).unwrap();
            let o = oracle(shape, metric);
            let what = format!("{shape} {}", metric.name());
            assert!(g.complete(), "{what}");
            // The distance table: each unordered pair once.
            let table: Vec<u128> = o.ordered.iter().map(|p| p / 2).collect();
            assert_eq!(g.distance_table(), table, "{what}");
            let n = u128::from(shape.board_count().unwrap());
            let connected: u128 = table.iter().sum();
            assert_eq!(g.connected_pairs(), Some(connected), "{what}");
            assert_eq!(
                g.unconnected_pairs(),
                Some(n * (n - 1) / 2 - connected),
                "{what}"
            );
            // Every board's eccentricity and distance sum, by its blank cell's orbit.
            for rank in 0..n as u64 {
                let board = Board::from_rank(shape, rank);
                let orbit = &g.orbits[g.orbit_of(board.blank()).unwrap()];
                assert_eq!(
                    orbit.eccentricity(),
                    Some(o.eccentricity[rank as usize]),
                    "{what}: {}",
                    board.label()
                );
                assert_eq!(
                    orbit.distance_sum(),
                    u128::from(o.distance_sum[rank as usize]),
                    "{what}: {}",
                    board.label()
                );
            }
            let max = *o.eccentricity.iter().max().unwrap();
            let min = *o.eccentricity.iter().min().unwrap();
            assert_eq!(g.diameter(), Some(max), "{what}");
            assert_eq!(g.radius(), Some(min), "{what}");
            let with = |e: u32| o.eccentricity.iter().filter(|&&x| x == e).count() as u128;
            assert_eq!(g.centre().unwrap().1, with(min), "{what}");
            assert_eq!(g.periphery().unwrap().1, with(max), "{what}");
            assert_eq!(g.pairs_at_diameter(), Some(table[max as usize]), "{what}");
        }
    }
}

/// Issue 64: the orbits are those of the symmetries that keep the metric's moves, checked
/// cell by cell on 3x3 and 3x4 in both metrics: one BFS from one board per cell
/// ([`geometry::start_board`], by the engine) gives exactly its orbit's distribution, as
/// [`Geometry`] assumes, and cells of different orbits differ (so no symmetry was missed
/// that would merge two orbits, on these boards).
#[test]
#[ignore = "slow: 42 BFS of up to 239.5 M boards (about 2 min); CI runs it"]
fn every_cells_own_bfs_equals_its_orbits_distribution() {
    for (r, c) in [(3, 3), (3, 4)] {
        let shape = Shape::new(r, c).unwrap();
        for metric in Metric::ALL {
            let options = npuzzle::analysis::Options {
                metric,
                ..Default::default()
            };
            let per_cell: Vec<Vec<u64>> = (0..shape.cells())
                .map(|cell| {
                    let start = geometry::start_board(shape, cell);
                    npuzzle::analysis::analyze(&start, options, &NoProgress)
                        .unwrap()
                        .distances
                        .layer_sizes
                })
                .collect();
            let g = Geometry::new(shape, metric, |_, cells, start| {
                assert_eq!(start.blank(), *cells.last().unwrap());
                Ok::<_, ()>((per_cell[start.blank()].clone(), true))
            })
            .unwrap();
            for cell in 0..shape.cells() {
                let orbit = g.orbit_of(cell).unwrap();
                for other in 0..shape.cells() {
                    assert_eq!(
                        per_cell[cell] == per_cell[other],
                        g.orbit_of(other) == Some(orbit),
                        "{shape} {metric}: cells {cell} and {other}"
                    );
                }
            }
        }
    }
}

/// Each orbit's distribution adds up to its component's size: `n!/2` on boards of 2 rows and
/// 2 columns (the parity theorem), `n` on a line (its components are paths of `n` boards);
/// the orbits cover each cell once.
#[test]
fn each_cells_distribution_adds_up_to_its_component() {
    for (r, c) in [(3, 3), (2, 5), (5, 2), (1, 9), (7, 1)] {
        let shape = Shape::new(r, c).unwrap();
        for metric in [Metric::Stm, Metric::Mtm] {
            let g = geometry::all_pairs(shape, metric, &NoProgress).unwrap();
            let n = shape.cells() as u64;
            let component = if shape.is_grid() {
                shape.board_count().unwrap() / 2
            } else {
                n
            };
            let mut cells: Vec<usize> = Vec::new();
            for o in &g.orbits {
                assert_eq!(o.reached(), component, "{shape}: {:?}", o.cells);
                assert_eq!(o.counts[0], 1);
                cells.extend(&o.cells);
            }
            cells.sort_unstable();
            assert_eq!(cells, (0..shape.cells()).collect::<Vec<_>>(), "{shape}");
            assert_eq!(g.component_size(), Some(component));
        }
    }
}

/// The 8-puzzle's figures: from a board with the blank on a corner, the depth distribution
/// of OEIS A089473 (max 31); the graph's diameter 31 (the standard goal's God's number), and
/// its radius 30: a board with the blank in the centre is at most 30 moves from any board
/// (Reinefeld 1993, "Complete solution of the eight-puzzle": 30 for goals with the blank in
/// the middle). In the multi-tile metric, the radius from the standard goal is 24
/// (lightln2/SlidingTilesSolver, as tests/suite/mtm.rs).
#[test]
fn the_8_puzzle() {
    let shape = Shape::new(3, 3).unwrap();
    let g = geometry::all_pairs(shape, Metric::Stm, &NoProgress).unwrap();
    assert_eq!(g.orbits[0].counts, npuzzle::published::A089473);
    assert_eq!(g.orbits.len(), 3);
    assert_eq!(g.diameter(), Some(31));
    assert_eq!(g.radius(), Some(30));
    assert_eq!(g.centre().unwrap(), (vec![4], 40_320));
    // 181,440 x 181,440 pairs lie in different components (2 components of 9!/2).
    assert_eq!(g.unconnected_pairs(), Some(181_440u128 * 181_440));
    let m = g.orbits.iter().map(|o| o.eccentricity().unwrap());
    assert_eq!(m.collect::<Vec<_>>(), [31, 31, 30]);
    let mtm = geometry::all_pairs(shape, Metric::Mtm, &NoProgress).unwrap();
    assert_eq!(mtm.orbits[0].eccentricity(), Some(24));
}

/// 2x7's pairs pass `u64`: the sums are kept in `u128` (checked with the orbit counts alone,
/// without a BFS: every orbit's component is 2x7's, 43,589,145,600 boards).
#[test]
fn pair_counts_of_2x7_are_exact_past_u64() {
    let shape = Shape::new(2, 7).unwrap();
    let component = shape.board_count().unwrap() / 2;
    let g = Geometry::new(shape, Metric::Stm, |_, _, _| {
        // A made-up distribution of the right total: 1 board at 0, the rest at 1.
        Ok::<_, ()>((vec![1, component - 1], true))
    })
    .unwrap();
    let n = u128::from(shape.board_count().unwrap());
    let connected = 2 * (u128::from(component) * (u128::from(component) - 1) / 2);
    assert!(connected > u128::from(u64::MAX));
    assert_eq!(g.connected_pairs(), Some(connected));
    assert_eq!(g.unconnected_pairs(), Some(n * (n - 1) / 2 - connected));
}

/// One hermetic command: the built binary, an empty environment.
fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `analyze --all-pairs` on 2x3 writes its four files into `2x3/geometry/`, with the
/// library's figures, the same bytes twice, and leaves the single-goal results alone.
#[test]
fn all_pairs_writes_the_geometry_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path();
    npuzzle()
        .args([
            "analyze", "--rows", "2", "--cols", "3", "--quiet", "--output",
        ])
        .arg(out)
        .assert()
        .success();
    let single = read(&out.join("2x3/summary.json"));
    let run = || {
        npuzzle()
            .args([
                "analyze",
                "--rows",
                "2",
                "--cols",
                "3",
                "--all-pairs",
                "--output",
            ])
            .arg(out)
            .assert()
            .success()
            .stdout(predicate::str::contains("diameter 21, radius "))
            .stdout(predicate::str::contains("orbit 1, blank on cells 1, 4:"))
    };
    run();
    let dir = out.join("2x3/geometry");
    let files: Vec<String> = ["eccentricity.csv", "distance_table.csv", "summary.json"]
        .iter()
        .map(|f| read(&dir.join(f)))
        .collect();
    assert!(dir.join("distances_by_cell.png").is_file());
    run();
    for (i, f) in ["eccentricity.csv", "distance_table.csv", "summary.json"]
        .iter()
        .enumerate()
    {
        assert_eq!(read(&dir.join(f)), files[i], "{f} is deterministic");
    }
    assert_eq!(read(&out.join("2x3/summary.json")), single);

    let g = geometry::all_pairs(Shape::new(2, 3).unwrap(), Metric::Stm, &NoProgress).unwrap();
    let ecc = &files[0];
    assert!(ecc.starts_with("cell,row,col,orbit,boards,eccentricity,mean_distance\n"));
    assert_eq!(ecc.lines().count(), 7);
    for line in ecc.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let o = &g.orbits[f[3].parse::<usize>().unwrap()];
        assert!(o.cells.contains(&f[0].parse().unwrap()), "{line}");
        assert_eq!(f[4], "120", "{line}: 5! boards with the blank there");
        assert_eq!(f[5], o.eccentricity().unwrap().to_string(), "{line}");
        assert_eq!(f[6], o.mean_distance().unwrap().to_string(), "{line}");
    }
    let table = &files[1];
    let mut rows = table.lines().skip(1);
    for (d, pairs) in g.distance_table().iter().enumerate().skip(1) {
        assert_eq!(rows.next(), Some(format!("{d},{pairs}").as_str()));
    }
    // 2 components of 360: 360 x 360 pairs between them.
    assert_eq!(rows.next(), Some("Inf,129600"));
    assert_eq!(rows.next(), None);
    let summary: serde_json::Value = serde_json::from_str(&files[2]).unwrap();
    assert_eq!(summary["diameter"], g.diameter().unwrap());
    assert_eq!(summary["radius"], g.radius().unwrap());
    assert_eq!(summary["components"], 2);
    assert_eq!(summary["orbits"].as_array().unwrap().len(), 2);
    assert_eq!(
        summary["npuzzle"]["command"]
            .as_str()
            .map(|c| c.contains("--all-pairs")),
        Some(true)
    );
}

/// `--all-pairs` on a board too large for one BFS is refused in one line before any work (no
/// folder made), naming the largest boards that fit; flags that do not go with it are refused.
#[test]
fn all_pairs_refuses_what_it_cannot_do() {
    let tmp = tempfile::tempdir().unwrap();
    npuzzle()
        .args(["analyze", "--size", "4", "--all-pairs", "--output"])
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the largest boards that fit"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    assert!(!tmp.path().join("4x4").exists());
    for flags in [
        &["--goal", "123405678"][..],
        &["--table"],
        &["--edges", "ranks"],
        &["--search-components"],
    ] {
        npuzzle()
            .args(["analyze", "--size", "3", "--all-pairs"])
            .args(flags)
            .arg("--output")
            .arg(tmp.path())
            .assert()
            .code(2);
    }
}

/// With `--max-depth`, each orbit's BFS is a frontier search to that depth: the pair counts up
/// to it equal the whole run's, and nothing is claimed beyond (no diameter, no `Inf` row).
#[test]
fn all_pairs_to_a_depth_is_partial_and_exact_up_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    npuzzle()
        .args([
            "analyze",
            "--size",
            "3",
            "--all-pairs",
            "--max-depth",
            "12",
            "--output",
        ])
        .arg(tmp.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "partial: distances searched to 12",
        ));
    let dir = tmp.path().join("3x3/geometry");
    let table = read(&dir.join("distance_table.csv"));
    let g = geometry::all_pairs(Shape::new(3, 3).unwrap(), Metric::Stm, &NoProgress).unwrap();
    let expected: String = std::iter::once("distance,pairs\n".to_string())
        .chain(
            g.distance_table()
                .iter()
                .enumerate()
                .take(13)
                .skip(1)
                .map(|(d, p)| format!("{d},{p}\n")),
        )
        .collect();
    assert_eq!(table, expected);
    let summary: serde_json::Value =
        serde_json::from_str(&read(&dir.join("summary.json"))).unwrap();
    assert_eq!(summary["complete"], false);
    assert!(summary["diameter"].is_null());
    assert!(summary["mean_distance"].is_null());
    let ecc = read(&dir.join("eccentricity.csv"));
    assert!(ecc.lines().nth(1).unwrap().ends_with(",40320,,"), "{ecc}");
}
