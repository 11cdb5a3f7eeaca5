#!/usr/bin/env bash
# What CI runs: formatting, lints, then the test suite (the README's test command).
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
