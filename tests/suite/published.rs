//! The analysis against the published record and against petgraph on the same graphs.
//!
//! Depth distributions are copied from the OEIS (see ../shared/reference/depths.csv):
//! A089473 (3x3), A090034 (2x3), A090035 (2x4), A090036 (2x5); whole-graph counts from the
//! reference README ("Whole graph" table).

use std::collections::BTreeMap;

use npuzzle::analysis::{Options, analyze_unchecked};
use npuzzle::bfs::{LexSpace, Parity, ParitySpace, StateMarks, StateSpace};
use npuzzle::components::Method;
use npuzzle::graph::GameGraph;
use npuzzle::{Board, NoProgress, Shape};
use petgraph::algo::{connected_components, dijkstra};
use proptest::prelude::*;

use npuzzle::published::{A089473, A090034, A090035, A090036};

fn shape(r: usize, c: usize) -> Shape {
    Shape::new(r, c).unwrap()
}

/// `check(shape, published layer sizes)`: the distribution, reachable count and components.
fn check(r: usize, c: usize, expected: &[u64]) {
    let a = analyze_unchecked(&Board::goal(shape(r, c)), Options::default(), &NoProgress).unwrap();
    assert_eq!(a.distances.layer_sizes, expected, "{r}x{c}");
    let half = a.boards / 2;
    assert_eq!(a.distances.reachable(), half);
    assert_eq!(a.components.count, 2);
    assert_eq!(a.components.sizes, BTreeMap::from([(half, 2)]));
}

#[test]
fn depth_distributions_match_oeis() {
    check(2, 2, &[1, 2, 2, 2, 2, 2, 1]); // A090033
    check(2, 3, &A090034);
    check(3, 2, &A090034);
    check(2, 4, &A090035);
    check(4, 2, &A090035);
    check(3, 3, &A089473);
}

#[test]
fn two_by_five_matches_a090036() {
    check(2, 5, &A090036);
    check(5, 2, &A090036);
}

/// The computed and the stated component structure agree: a BFS over all `n!` boards (the
/// lexicographic index, which assumes nothing) reaches from the goal exactly the boards of the
/// goal's parity class, `n!/2` of them, and from a board of the other class exactly the other
/// class (Johnson & Story 1879; Wilson 1974). Every board of 2 rows and 2 columns or more up to
/// 10 cells; 11 and 12 cells with `NPUZZLE_SLOW=1` (a minute in release).
#[test]
fn computed_components_are_the_parity_classes() {
    let cells = if std::env::var_os("NPUZZLE_SLOW").is_some() {
        12
    } else {
        10
    };
    for s in Shape::all_up_to(cells).filter(|s| s.is_grid()) {
        let lex = LexSpace::new(s).unwrap();
        let marks = StateMarks::new(lex.size());
        let goal = Board::goal(s);
        let from_goal =
            npuzzle::bfs::run(&lex, &marks, lex.rank(&goal).unwrap(), &(), |_, _, _| {});
        assert_eq!(from_goal.reached(), lex.size() / 2, "{s}");
        let mut other = goal.permutation().to_vec();
        other.swap(0, 1);
        let other = Board::from_permutation(s, other).unwrap();
        assert_eq!(Parity::of(&other), Parity::Odd);
        let seed = lex.rank(&other).unwrap();
        let from_other = npuzzle::bfs::run(&lex, &marks, seed, &(), |_, _, _| {});
        assert_eq!(from_other.reached(), lex.size() / 2, "{s}");
        assert_eq!(
            marks.next_unseen(0),
            None,
            "{s}: two components cover every board"
        );
        // Each class is what the parity space indexes, with the same layers from the goal.
        let even = ParitySpace::new(s, Parity::Even).unwrap();
        let parity_marks = StateMarks::new(even.size());
        let layers = npuzzle::bfs::run(
            &even,
            &parity_marks,
            even.rank(&goal).unwrap(),
            &(),
            |_, _, _| {},
        );
        assert_eq!(layers.sizes, from_goal.sizes, "{s}");
        // And the analysis reports the same structure, searched and stated.
        let searched = Options {
            search_components: true,
            ..Options::default()
        };
        let a = analyze_unchecked(&goal, searched, &NoProgress).unwrap();
        assert_eq!(a.components.method, Method::Search);
        assert_eq!(a.components.sizes, BTreeMap::from([(lex.size() / 2, 2)]));
        let a = analyze_unchecked(&goal, Options::default(), &NoProgress).unwrap();
        assert_eq!(a.components.method, Method::Theorem);
        assert_eq!(a.components.sizes, BTreeMap::from([(lex.size() / 2, 2)]));
    }
    // Every board of a class lies where the theorem says: spot check of 3x3 by board.
    let s = shape(3, 3);
    let lex = LexSpace::new(s).unwrap();
    let marks = StateMarks::new(lex.size());
    npuzzle::bfs::run(
        &lex,
        &marks,
        lex.rank(&Board::goal(s)).unwrap(),
        &(),
        |_, _, _| {},
    );
    for rank in (0..lex.size()).step_by(37) {
        let b = Board::from_rank(s, rank);
        let reached = marks.get(npuzzle::bfs::StateIndex(rank)) != npuzzle::bfs::UNSEEN;
        assert_eq!(reached, Parity::of(&b) == Parity::Even, "{}", b.label());
        assert_eq!(reached, b.is_solvable(), "{}", b.label());
    }
}

/// OEIS A089474: the 3x3 goal with the blank in the centre has radius 30 and 148 antipodes.
#[test]
fn blank_centre_goal_matches_a089474() {
    let goal = Board::parse_tiles(shape(3, 3), "1 2 3 4 0 5 6 7 8").unwrap();
    let a = analyze_unchecked(&goal, Options::default(), &NoProgress).unwrap();
    assert_eq!(a.distances.max_depth(), 30);
    assert_eq!(a.distances.layer_sizes[30], 148);
    assert_eq!(a.distances.antipodes.len(), 148);
    assert_eq!(a.distances.reachable(), 181_440);
    assert_eq!(&a.distances.layer_sizes[..4], &[1, 4, 8, 8]);
}

#[test]
fn the_two_3x3_antipodes() {
    // OEIS A089473's examples, 31 moves from the goal.
    let a = analyze_unchecked(&Board::goal(shape(3, 3)), Options::default(), &NoProgress).unwrap();
    let labels: Vec<String> = a.distances.antipodes.iter().map(Board::label).collect();
    let expected: Vec<String> = ["8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1"]
        .iter()
        .map(|t| Board::parse_tiles(shape(3, 3), t).unwrap().label())
        .collect();
    let mut expected = expected;
    expected.sort();
    assert_eq!(labels, expected);
    assert_eq!(a.distances.max_depth(), 31);
}

#[test]
fn one_by_n_has_factorial_many_components() {
    // Tiles never pass each other on a 1xN board: (N-1)! components of N boards.
    for n in 2..=8usize {
        let a =
            analyze_unchecked(&Board::goal(shape(1, n)), Options::default(), &NoProgress).unwrap();
        let fact = (1..n as u64).product::<u64>();
        assert_eq!(a.components.count, fact, "1x{n}");
        assert_eq!(a.components.sizes, BTreeMap::from([(n as u64, fact)]));
        assert_eq!(a.distances.max_depth() as usize, n - 1);
    }
}

/// Issue 23: from 11 cells on, a one-row board's components are stated, not searched one by
/// one (1x12 has 39.9 million; one BFS each took about 80 s): (n-1)! paths of n boards, the
/// goal's path searched, in well under a second.
#[test]
fn long_lines_state_their_components() {
    for n in [11usize, 12] {
        let started = std::time::Instant::now();
        let a =
            analyze_unchecked(&Board::goal(shape(1, n)), Options::default(), &NoProgress).unwrap();
        assert!(
            started.elapsed().as_secs() < 10,
            "1x{n}: {:?}",
            started.elapsed()
        );
        let fact = (1..n as u64).product::<u64>();
        assert_eq!(a.components.method, Method::Theorem);
        assert_eq!(a.components.count, fact, "1x{n}");
        assert_eq!(a.components.sizes, BTreeMap::from([(n as u64, fact)]));
        assert_eq!(a.distances.max_depth() as usize, n - 1);
    }
}

/// Our BFS depths and components equal petgraph's (dijkstra on unit weights, and
/// connected_components) on the materialized graph, for every shape up to 10 cells.
#[test]
fn depths_and_components_agree_with_petgraph() {
    // Every shape up to 10 cells but the single columns of 3 or more (the same graphs as the
    // single rows).
    let shapes = Shape::all_up_to(10).filter(|s| s.cols() > 1 || s.rows() == 2);
    for s in shapes {
        let ours = analyze_unchecked(
            &Board::goal(s),
            Options {
                per_board: true,
                search_components: true,
                ..Options::default()
            },
            &NoProgress,
        )
        .unwrap();
        let per_board = ours.per_board.as_ref().unwrap();
        let g = GameGraph::new(s).to_petgraph();
        assert_eq!(g.edge_count() as u64, ours.edges);
        assert_eq!(
            connected_components(&g) as u64,
            ours.components.count,
            "{s}"
        );
        let theirs = dijkstra(&g, 0.into(), None, |_| 1u32);
        assert_eq!(theirs.len() as u64, ours.distances.reachable(), "{s}");
        for rank in 0..ours.boards {
            let node = petgraph::graph::NodeIndex::new(rank as usize);
            let expected = theirs.get(&node).map(|&d| d as u8);
            let board = Board::from_rank(s, rank);
            assert_eq!(
                per_board.get(board.permutation(), rank).1,
                expected,
                "{s} rank {rank}"
            );
        }
        // Two boards share a component id exactly when petgraph joins them: compare the
        // partition through one representative rank per component.
        let mut uf = petgraph::unionfind::UnionFind::<u32>::new(ours.boards as usize);
        for e in g.edge_indices() {
            let (a, b) = g.edge_endpoints(e).unwrap();
            uf.union(a.index() as u32, b.index() as u32);
        }
        let mut rep: BTreeMap<u32, u32> = BTreeMap::new();
        for rank in 0..ours.boards {
            let id = per_board
                .get(Board::from_rank(s, rank).permutation(), rank)
                .0;
            let root = uf.find(rank as u32);
            assert_eq!(*rep.entry(id).or_insert(root), root, "{s} rank {rank}");
        }
        assert_eq!(rep.len() as u64, ours.components.count);
    }
}

/// petgraph's own algorithms on the implicit graph (no edges stored).
#[test]
fn petgraph_runs_on_the_implicit_graph() {
    let g = GameGraph::new(shape(2, 3));
    assert_eq!(connected_components(&g), 2);
    let d = dijkstra(&g, 0, None, |_| 1u32);
    assert_eq!(d.len(), 360);
    assert_eq!(d.values().max(), Some(&21));
    let mut bfs = petgraph::visit::Bfs::new(&g, 0);
    let mut seen = 0;
    while bfs.next(&g).is_some() {
        seen += 1;
    }
    assert_eq!(seen, 360);
}

proptest! {
    /// Rank/unrank round trip on random 12-cell boards (exhaustive tests cover <= 9 cells).
    #[test]
    fn rank_round_trip_12_cells(rank in 0u64..479_001_600) {
        let b = Board::from_rank(shape(3, 4), rank);
        prop_assert_eq!(b.rank(), rank);
        prop_assert_eq!(Board::from_label(shape(3, 4), &b.label()).unwrap(), b);
    }
}
