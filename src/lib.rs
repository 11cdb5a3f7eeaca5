//! npuzzle: the whole state space of sliding-tile puzzles, and optimal solutions for single
//! boards.
//!
//! # Codemap
//!
//! - [`shape`]: `Shape { rows, cols }`, cell numbering (row-major), adjacency.
//! - [`board`]: one board; the R-analysis label, the assignment's tile list, grids, parity.
//! - [`rank`]: Lehmer-code rank/unrank between permutations and the dense index `0..n!`.
//! - [`progress`]: the [`progress::Progress`] callback through which algorithms report.
//! - [`solve`]: optimal solutions for single boards: BFS, uniform-cost, A*, IDA*; Hamming,
//!   Manhattan, linear conflict, pattern databases (cached in files by [`solve::cache`]),
//!   the exact table; reading boards as users write them.
//!
//! # Invariants
//!
//! - A board is a permutation of `0..n` where value `v` is the piece whose goal cell is `v`
//!   (the blank is `n - 1`), so the goal is the identity and has rank 0.
//! - `rank` is a bijection from the `n!` permutations onto `0..n!` that preserves
//!   lexicographic order; `unrank` is its inverse.
//! - Algorithms never print or touch files; they report progress through a callback. In
//!   `solve`, only [`solve::cache`] reads and writes files (the pattern databases).
//! - Every solution returned by [`solve`] is optimal, and unsolvable boards are recognised
//!   by parity before any search.

#![warn(missing_docs)]

pub mod board;
pub mod progress;
pub mod rank;
pub mod shape;
pub mod solve;

pub use board::{Board, BoardError, Direction};
pub use progress::{NoProgress, Progress};
pub use shape::{Shape, ShapeError};
