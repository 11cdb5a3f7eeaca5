//! npuzzle: the whole state space of sliding-tile puzzles (the 8-puzzle, its rectangular
//! cousins, up to 14 cells on one 24 GB machine, beyond across machines), and optimal
//! solutions for single boards.
//!
//! # Codemap
//!
//! - [`shape`]: `Shape { rows, cols }`, cell numbering (row-major), adjacency, edge count.
//! - [`board`]: one board; the R-analysis label, the assignment's tile list, grids, parity.
//! - [`metric`]: what one move is: single-tile (STM, the default) or multi-tile (MTM: the
//!   blank jumps along its row or column); each space takes one. The metric's properties
//!   are its methods, and the rest of the crate asks them rather than comparing with a
//!   variant: its header code ([`metric::Metric::code`]), whether its graphs are bipartite
//!   (the marks as a table, the parity index's sides), whether a move slides one tile (the
//!   admissible heuristics, the additive pattern databases), the rectangle's symmetries that
//!   keep its moves (the orbits of [`geometry`]), its folder suffix. A third metric goes
//!   there: a variant, its moves ([`metric::Metric::targets_into`]) and each property, then
//!   every exhaustive `match` on the metric the compiler names.
//! - [`rank`]: Lehmer-code rank/unrank between permutations and `0..n!`, and of
//!   `k`-permutations (pattern placements) onto `0..n!/(n-k)!`; the sequential unranker both
//!   engine indices use.
//! - [`moves`]: neighbour ranks from Lehmer-digit deltas (O(1) horizontal, O(cols) vertical).
//! - [`graph`]: the implicit game graph; petgraph's visit traits; materialization for tests.
//! - [`bfs`]: the engine. [`bfs::StateIndex`] (u64), the [`bfs::StateSpace`] trait (size,
//!   rank/unrank, the kernel from a batch of indices to neighbour indices), two spaces
//!   ([`bfs::ParitySpace`]: one component, `n!/2` boards, up to 20 cells; [`bfs::LexSpace`]:
//!   all `n!` boards, up to 12), two-bit marks (Korf's frontier codes, or codes that keep
//!   each board's depth, [`bfs::Marking`], from the sides of a bipartite index,
//!   [`bfs::Sides`]), the layer loop every marks driver runs (`bfs/layers.rs`, with the
//!   pull step of `bfs/pull.rs`) and the push step it takes (`bfs/step.rs`: the frontier scan with word-wide lane claims, the batched kernel, an
//!   owner per neighbour), the one-machine driver ([`bfs::run`], rayon; random or bucketed
//!   claims, [`bfs::Claims`]), the distributed driver ([`bfs::cluster`], timely-dataflow, one
//!   worker per process whose threads share its marks, checkpoints on a schedule, a
//!   distance table gathered by process 0 into a [`bfs::cluster::MarksSink`]), the
//!   depth-limited frontier search ([`bfs::frontier`]: layers in memory or on disk, a memory
//!   budget, resumable checkpoints; across processes through its `Exchange` hooks, which
//!   `bfs/cluster/frontier.rs` implements over the distributed driver's connections, the
//!   folders depending `cluster -> frontier` only; its cost projected before a run from
//!   published layer sizes and measured per-board rates, [`bfs::frontier::plan`]),
//!   [`bfs::DepthArray`] and the gap
//!   encoding of sorted index lists ([`bfs::codec`]). Outside its tests the engine imports
//!   only [`durable`], [`board`], [`shape`], [`rank`], [`metric`], [`moves`] (the
//!   lexicographic space's kernel, and `with_cells!`), [`progress`] (the frontier search's
//!   and the distributed driver's reports) and [`frontend`] (its messages' words); its
//!   tests also take [`published`], [`components`] and [`solve`].
//! - [`frontend`]: whose words messages use for the inputs they ask for: the command line's
//!   (`--rows`, the default) or the Python package's (`rows=`), chosen once by the front end.
//! - [`durable`]: below the engine and the exporters: files written to a temporary name,
//!   synced and renamed, the temporary-file sweep on a signal, and the checksummed checkpoint
//!   container (one CRC-32 over header and body).
//! - [`distances`]: BFS from a goal: depth per board, depth distribution, antipodes.
//! - [`components`]: connected components, by search or by the parity theorem.
//! - [`analysis`]: the memory plan (the one place that says how large a board can be), the
//!   choice of engine ([`analysis::Engine`]: the index a board's BFS, per-board results and
//!   a distance table share), and the whole analysis of one board; a folder of one concern
//!   a file: `memory.rs` (the plan), `whole.rs` (one machine's BFS), `distributed.rs` (across
//!   processes), `limited.rs` (to a depth, by frontier search).
//! - [`geometry`]: the whole game graph's eccentricities, diameter, radius, centre,
//!   periphery, mean distance and distance table, from one BFS per orbit of blank cells under
//!   the rectangle's symmetries that keep the metric's moves ([`metric::Metric::symmetries`];
//!   tile relabellings are automorphisms); pair counts in `u128`.
//! - [`export`]: `edges.csv`, `nodes.csv`, `depths.csv`, `hardest.txt`, `summary.json` (with
//!   its provenance, [`export::Provenance`]: the version, the git commit `build.rs` records,
//!   and the command line the caller gives).
//! - [`results`]: an analysis's results folder (the exports, `table.npt`, the small files and
//!   the chart), written by one function for every front end: the CLI's `analyze` and the
//!   Python package call [`results::write`]; each keeps only its notes and its errors.
//! - [`interop`]: the whole game graph as GraphML and DOT, the formats graph tools read natively.
//! - [`drawing`]: DOT pictures of small game graphs (the 2x2 graph, a goal's neighbourhood),
//!   each vertex drawn as its board.
//! - [`neighbourhood`]: the boards within `k` moves of a board, explored breadth-first as
//!   values (any size, no index): what `draw` pictures and the page's `/api/graph` answers.
//! - [`plot`]: PNG charts of depth distributions (plotters, embedded DejaVu font).
//! - [`progress`]: the [`progress::Progress`] callback through which algorithms report.
//! - [`published`]: the OEIS depth distributions the tests check against, kept once.
//! - [`random`]: seeded random boards, one generator ([`random::SplitMix64`], written out
//!   here) for all: uniform over a goal's component (by the parity theorem), a random walk,
//!   a table's samples, the test and benchmark boards; the same seed gives the same boards on
//!   every machine, thread count and version.
//! - [`table`]: distance tables (`table.npt`): every board's depth in two bits (the
//!   single-tile BFS's own marks, or depth mod 3), written from a finished analysis (or
//!   streamed from a distributed one, [`table::Spool`]), memory-mapped (or built in memory
//!   from a finished analysis, [`table::DistanceTable::from_analysis`]) and walked to answer
//!   any board without searching. A file a concern: the format, its constants and errors
//!   (`table/mod.rs`), writing (`table/write.rs`), opening and checking, the header and the
//!   codes (`table/read.rs`), the walks down the table (`table/descent.rs`), random boards
//!   at a depth (`table/sample.rs`).
//! - [`serve`]: `npuzzle serve`'s page (HTML, CSS and JavaScript inside the binary) and its
//!   JSON API over axum; the answers ([`serve::answers`]) from distance tables (found in a
//!   folder or built in memory) or the solver, each request bounded in size and time. Cargo
//!   feature `serve`, on by default (the Python package builds without it).
//! - [`threads`]: how many worker threads a request gets (at most 4 per core, one rule for
//!   the command line's `--threads` and the Python package's `threads=`).
//! - [`faults`]: the guard against a mapped table truncated under the process (SIGBUS), one
//!   mechanism for the server (the fault read as zeros and counted) and the CLI (one line,
//!   exit 1).
//! - [`solve`]: optimal solutions for single boards: BFS, uniform-cost, A*, IDA*; Hamming,
//!   Manhattan, linear conflict, pattern databases (on 4x4 the 7-8 partition once built, the
//!   quick 6-6-3 until the work repays its build, [`solve::pdb::Partition::for_work`]; each
//!   built by [`bfs::run`] over its pattern's abstract space, [`solve::pattern_space`], and
//!   cached in files by [`solve::cache`]), walking distance ([`solve::walking`]), the exact
//!   table; in the multi-tile metric walking distance, the domain-abstraction databases of
//!   [`solve::domain`] and the MTM exact table; reading boards as users write them; boards
//!   over 64 cells, up to the assignment's 127x127 ([`solve::wide`]: tiles in `u16`, IDA*
//!   with linear conflict, the move rule, parity rule, line-conflict count and grid shared
//!   with [`board`] and [`solve::heuristic`]).
//!
//!
//! Outside this crate, `python/` is the Python package (PyO3, its own crate and workspace,
//! not built by `cargo test` here): bindings only, every computation one of this library's.
//!
//! # Where an extension goes
//!
//! - **A third metric**: a variant of [`metric::Metric`] with its moves
//!   ([`metric::Metric::targets_into`]) and each of its properties (its header code, whether
//!   its graphs are bipartite, whether a move slides one tile, its names and folder suffix;
//!   its symmetries follow from its moves), then every exhaustive `match` on the metric that
//!   the compiler names (the lexicographic space's kernel, IDA*'s move rule, the heuristics'
//!   [`solve::HeuristicKind::admissible_in`], the plan's neighbours per board, the texts of
//!   the CLI, the page and the Python package), and its published distributions in
//!   `output/bench/plan/distributions.csv`.
//! - **A fourth driver** (beside one machine's marks BFS, the distributed one and the frontier
//!   search): a marks driver implements the layer loop's `Stepper` (`bfs/layers.rs`: who owns
//!   a board, how a layer's size is agreed) and runs its loop; a frontier driver implements
//!   [`bfs::frontier::Exchange`] (where a chunk's run goes, how a layer ends); [`analysis`]
//!   chooses among the drivers (its memory plan and [`analysis::Engine`], the index).
//! - **A third front end** (beside the command line and the Python package): its words for
//!   the inputs ([`frontend`]), its progress sink ([`progress::Progress`]), the results folder
//!   by [`results::write`], the provenance of how a run was asked
//!   ([`export::Provenance::of_call`]), and its own mapping of the library's error types.
//!
//! # Invariants
//!
//! - A board is a permutation of `0..n` where value `v` is the piece whose goal cell is `v`
//!   (the blank is `n - 1`), so the goal is the identity and has rank 0.
//! - `rank` is a bijection from the `n!` permutations onto `0..n!` that preserves
//!   lexicographic order; `unrank` is its inverse. A [`bfs::StateSpace`]'s `rank` and
//!   `unrank` are inverse bijections between its boards and `0..size` (the parity index: the
//!   `n!/2` boards of one class; a pattern's abstract space: its states and the indices of
//!   their canonical blank cells, the other indices having no neighbours), and its kernel
//!   never leaves the space.
//! - Algorithms take a space through the trait; no driver knows a layout beyond what the
//!   trait says (its [`bfs::Lanes`] and [`bfs::Sides`] included).
//! - A table's walk from a board at depth `d` reaches the goal in exactly `d` moves: its
//!   codes tell a neighbour at `d - 1` from those at `d` and `d + 1`.
//! - `v` is a neighbour of `u` iff `u` is a neighbour of `v`; each undirected edge is listed
//!   once, from the board whose blank moves right or down.
//! - Algorithms never print; they report progress (and warnings) through a callback. Only
//!   [`export`], [`interop`], [`plot`], [`solve::cache`] (the pattern databases) and the
//!   binary write outputs, always to a temporary file, synced, then renamed
//!   ([`durable::commit`]; a signal removes the temporary files, [`durable::abandon`]); the
//!   engine touches files only in the folders it is given for scratch data and checkpoints
//!   (unnamed scratch files, checkpoints in [`durable::container`]s, layer files named in a
//!   checksummed state);
//!   [`drawing`] returns DOT text, and the binary runs Graphviz on it.
//! - The same inputs give the same output bytes (parallel work is merged in rank order).
//! - [`geometry::cell_orbits`] partitions the cells (each in exactly one orbit); every board
//!   with its blank in one orbit has the same eccentricity and distance distribution, whose
//!   sum is its component's size.
//! - Every solution returned by [`solve`] is optimal in its metric (a heuristic is used only
//!   in a metric where it is admissible, [`solve::HeuristicKind::admissible_in`]), and
//!   unsolvable boards are recognised by parity before any search.

#![warn(missing_docs)]

pub mod analysis;
pub mod bfs;
pub mod board;
pub mod components;
pub mod distances;
pub mod drawing;
pub mod durable;
pub mod export;
#[cfg(unix)]
pub mod faults;
pub mod frontend;
pub mod geometry;
pub mod graph;
pub mod interop;
pub mod metric;
pub mod moves;
pub mod neighbourhood;
pub mod plot;
pub mod progress;
pub mod published;
pub mod random;
pub mod rank;
pub mod results;
#[cfg(feature = "serve")]
pub mod serve;
pub mod shape;
pub mod solve;
pub mod table;
pub mod threads;

pub use board::{Board, BoardError, Direction};
pub use metric::Metric;
pub use progress::{NoProgress, Progress};
pub use shape::{Shape, ShapeError};
