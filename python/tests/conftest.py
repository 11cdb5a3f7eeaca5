"""Fixtures of the Python package's tests: the CLI built from the same tree, run as the
oracle, and a temporary folder per test."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """A function running the release binary of this tree (``$NPUZZLE_BIN``, else
    ``target/release/npuzzle``, built here when missing) with the given arguments; returns the
    completed process (text, checked unless ``check=False``)."""
    binary = os.environ.get("NPUZZLE_BIN") or str(REPO / "target" / "release" / "npuzzle")
    if not Path(binary).exists():
        subprocess.run(
            ["cargo", "build", "--release", "--locked", "--quiet"], cwd=REPO, check=True
        )

    def run(*args, check=True, stdin=None):
        return subprocess.run(
            [binary, *map(str, args)],
            input=stdin,
            capture_output=True,
            text=True,
            check=check,
            env={**os.environ, "NPUZZLE_PROGRESS": "none"},
        )

    return run
