#!/usr/bin/env bash
# The page of `npuzzle serve` in a real browser (issue 53), a step of .ci/run: headless
# Chromium and its driver (Debian's chromium and chromium-driver), Selenium and pytest from
# PyPI in a fresh virtual environment, the tests of scripts/browser/ against the release binary
# on loopback (screenshots: NPUZZLE_SHOTS, below). Without Chromium or its driver
# it says `skipped:` and passes, as the Graphviz tests do.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
chromium=$(command -v chromium || command -v chromium-browser || true)
driver=$(command -v chromedriver || true)
if [ -z "$chromium" ] || [ -z "$driver" ]; then
  echo "skipped: the browser tests need Chromium and chromedriver (Debian: apt-get install chromium chromium-driver)"
  exit 0
fi
export CARGO_TARGET_DIR=$PWD/target
cargo build --release --locked --quiet
python=${PYTHON:-python3}
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check selenium pytest
# axe-core (4.12.1) for the accessibility test, from the PyPI package that bundles its script;
# without its Playwright dependency, which the tests do not use (issue 61).
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps axe-playwright-python==0.1.8
# The screenshots go to a temporary folder unless NPUZZLE_SHOTS names one (the committed ones:
# NPUZZLE_SHOTS=output/bench/serve-61).
shots=${NPUZZLE_SHOTS:-$venv/shots}
CHROMIUM=$chromium CHROMEDRIVER=$driver NPUZZLE_BIN=$PWD/target/release/npuzzle NPUZZLE_SHOTS=$shots \
  "$venv/bin/python" -m pytest scripts/browser -q -rs -p no:cacheprovider
echo "browser tests passed in ${SECONDS} s"
