#!/usr/bin/env bash
# What CI runs: formatting, lints, then the test suite: the README's test command
# (`cargo test --release`, which reuses the crates of the README's first command) with the
# tests it leaves out, marked `#[ignore = "slow: ..."]`, run too (`--include-ignored`). Two
# ignored tests stay out, being no checks of CI's: the 4x4 7-8 pattern databases' build
# (6 minutes; docs/pattern-databases.md) and the sample charts written for looking at them.
# Arguments go to the test harness (`scripts/check.sh --nocapture`: .ci/run reads the
# `skipped:` notes).
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --release --locked -- --include-ignored \
  --skip solve_cli::default_method_on_4x4 --skip plot::tests::sample_charts "$@"
