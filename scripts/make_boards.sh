#!/usr/bin/env bash
# Writes benches/data/4x4_random100.txt: 100 random solvable 4x4 boards, uniform over the
# solvable half, seed 2024 (see benches/solve.rs). The output is committed; running
# this again must leave it unchanged.
set -euo pipefail
# --help: the comment block above.
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
mkdir -p benches/data
cargo bench --quiet --bench solve -- --make-boards 4x4 100 2024 > benches/data/4x4_random100.txt
echo "wrote benches/data/4x4_random100.txt"
