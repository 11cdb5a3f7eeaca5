#!/usr/bin/env bash
# What CI runs: formatting, lints, then the test suite (the README's test command).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
