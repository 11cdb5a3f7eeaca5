//! The integration tests: one test binary (ripgrep's layout) whose modules are the former
//! `tests/*.rs` files, so that `cargo test` links one binary instead of fourteen (issue 62).
//! A module's tests are selected by its path: `cargo test --release --test suite cluster::`.
//!
//! Proptest keeps the failure seeds of `properties.rs` in `tests/proptest-regressions/`
//! (its `SourceParallel` rule: beside the folder that holds this `main.rs`).

mod support;

mod bad_input;
mod cli;
mod cluster;
mod conventions;
mod figures;
mod geometry;
mod interop;
mod limited;
mod mtm;
mod properties;
mod published;
// The API over loopback: `npuzzle serve` exists only with the `serve` feature (the default).
#[cfg(feature = "serve")]
mod serve;
mod solve_cli;
mod table;
