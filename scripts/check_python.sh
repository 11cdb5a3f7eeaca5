#!/usr/bin/env bash
# The Python package's checks (issue 52), a step of .ci/run: a fresh virtual environment with
# maturin, numpy, pytest and networkx from PyPI; the package built into it from ./python
# (release, `pip install ./python`, the README's command); its stubs checked by mypy's stubtest;
# its pytest suite run against the release binary of this tree, the oracle. The package is a
# member of the root's workspace (issue 62): after scripts/check.sh it compiles only pyo3,
# numpy and its own crate (maturin's cargo output is shown: `pip install -v`).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0

# The CLI the tests compare against, and the package, share target/ and Cargo.lock (one
# workspace): the library is compiled once for both.
export CARGO_TARGET_DIR=$PWD/target
cargo build --release --locked --quiet

# The package's crate: lint-free as the root's (scripts/check.sh; its `cargo fmt --all`
# covers the workspace, this crate included).
cargo clippy --locked -p npuzzle-python --all-targets --quiet -- -D warnings

python=${PYTHON:-python3}
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
"$python" -m venv "$venv"
export PATH=$venv/bin:$PATH  # maturin, for pip's build of ./python
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9,<2" numpy pytest networkx mypy
"$venv/bin/python" -m pip install -v --disable-pip-version-check --no-build-isolation ./python 2>&1 |
  grep -E '(Compiling|Finished|Built wheel|Successfully installed|error|warning)'
echo "python package built and installed in ${SECONDS} s"
status=0
# The hand-written stubs against the built module (issue 61): every name, signature and
# property of npuzzle/__init__.pyi as the module has it; what stubtest cannot see is listed,
# with the reason, in python/stubtest-allowlist.txt.
"$venv/bin/python" -m mypy.stubtest npuzzle --allowlist python/stubtest-allowlist.txt || status=$?
NPUZZLE_BIN=$PWD/target/release/npuzzle "$venv/bin/python" -m pytest python/tests -q -rs -p no:cacheprovider ||
  status=$?
echo "python package checked in ${SECONDS} s"
exit "$status"
