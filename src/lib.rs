//! npuzzle: the whole state space of sliding-tile puzzles, and optimal solutions for single
//! boards.
//!
//! # Codemap
//!
//! - [`shape`]: `Shape { rows, cols }`, cell numbering (row-major), adjacency.
//! - [`board`]: one board; the R-analysis label, the assignment's tile list, grids, parity.
//! - [`rank`]: Lehmer-code rank/unrank between permutations and the dense index `0..n!`.
//! - [`plot`]: PNG charts of depth distributions (plotters, embedded DejaVu font), written atomically.
//!
//! # Invariants
//!
//! - A board is a permutation of `0..n` where value `v` is the piece whose goal cell is `v`
//!   (the blank is `n - 1`), so the goal is the identity and has rank 0.
//! - `rank` is a bijection from the `n!` permutations onto `0..n!` that preserves
//!   lexicographic order; `unrank` is its inverse.
//! - Algorithms never print or touch files; they report progress through a callback.

#![warn(missing_docs)]

pub mod board;
pub mod plot;
pub mod rank;
pub mod shape;

pub use board::{Board, BoardError, Direction};
pub use shape::{Shape, ShapeError};
