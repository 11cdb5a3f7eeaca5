#!/usr/bin/env python3
"""Tests of scripts/figures.py's `compare` and `update` on synthetic files: no benchmark runs.

    python3 scripts/test_figures.py            # exits 1 on a failure (tests/suite/figures.rs runs it)
    FIGURES_PY=/path/to/figures.py python3 scripts/test_figures.py   # test another version

Each test copies figures.py into a temporary tree (scripts/, output/bench/figures.csv,
docs/performance.md), so the real files are never touched, writes a MEASURED file as
scripts/bench.sh does, runs the script and reads what it wrote.
"""

import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.environ.get("FIGURES_PY") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "figures.py")
HEADER = "figure,what,value,better,kind,must,must_on,rss_mb,date,commit,note,reason"
ROWS = [
    "mtm,3x4 --metric mtm / 3x4,1.34,lower,ratio,2.0,ratio,80,2026-11-28,abc1234,medians of 3 rounds,",
    "korf100-nodes,mean boards generated,619741.8,lower,exact,,,,2026-11-28,abc1234,deterministic,",
    "frontier,boards per second / 3x4's,0.315,higher,ratio,,,12,2026-11-28,abc1234,medians of 3 rounds,",
    "fresh,a new figure,,lower,ratio,,,,,,,",
]


class Figures(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="figures-test-")
        for d in ("scripts", "output/bench", "docs"):
            os.makedirs(os.path.join(self.root, d))
        self.script = os.path.join(self.root, "scripts", "figures.py")
        shutil.copy(SCRIPT, self.script)
        self.csv = os.path.join(self.root, "output", "bench", "figures.csv")
        self.page = os.path.join(self.root, "docs", "performance.md")
        with open(self.csv, "w") as f:
            f.write("\n".join([HEADER] + ROWS) + "\n")
        with open(self.page, "w") as f:
            f.write("# Performance\n\n<!-- figures:begin -->\n<!-- figures:end -->\n\nafter\n")
        # the page's block as the script renders it, so that `page` passes to begin with
        block = self.run_script("render").stdout
        with open(self.page, "w") as f:
            f.write("# Performance\n\n" + block + "\nafter\n")

    def tearDown(self):
        shutil.rmtree(self.root)

    def run_script(self, *args):
        return subprocess.run([sys.executable, self.script, *args], capture_output=True, text=True,
                              cwd=self.root)

    def files(self):
        return open(self.csv).read(), open(self.page).read()

    def rows(self):
        with open(self.csv, newline="") as f:
            return {row["figure"]: row for row in csv.DictReader(f)}

    def measured(self, *lines):
        """lines: (figure, value, wrong, rss_mb) tuples, written as bench.sh writes them."""
        path = os.path.join(self.root, "measured.tsv")
        with open(path, "w") as f:
            for name, value, wrong, rss in lines:
                f.write(f"{name}\t{value}\t\tside / side\t{wrong}\t{rss}\t0.9-1.1 over 3 rounds\n")
        return path

    def compare(self, *lines):
        return self.run_script("compare", self.measured(*lines))

    def update(self, *lines, reason=None):
        args = ["update", self.measured(*lines), "--date", "2026-11-29", "--commit", "def5678"]
        if reason is not None:
            args += ["--reason", reason]
        return self.run_script(*args)

    # --update
    def test_update_refuses_a_figure_more_than_15_percent_worse_and_writes_nothing(self):
        before = self.files()
        r = self.update(("mtm", "1.61", "", "80"))
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("REFUSED", r.stdout)
        self.assertIn("mtm", r.stdout.splitlines()[-2])
        self.assertEqual(self.files(), before)

    def test_update_with_a_reason_writes_the_worse_figure_and_records_the_reason(self):
        r = self.update(("mtm", "1.61", "", "80"), reason="the multi-tile moves now checked twice")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        row = self.rows()["mtm"]
        self.assertEqual(row["value"], "1.61")
        self.assertEqual(row["reason"], "2026-11-29: the multi-tile moves now checked twice (1.34 -> 1.61)")
        self.assertEqual((row["date"], row["commit"]), ("2026-11-29", "def5678"))
        self.assertIn("0.9-1.1 over 3 rounds", row["note"])
        self.assertIn("checked twice", open(self.page).read())
        self.assertEqual(self.run_script("page").returncode, 0)

    def test_update_within_the_tolerance_needs_no_reason(self):
        r = self.update(("mtm", "1.40", "", "82"))
        self.assertEqual(r.returncode, 0, r.stdout)
        row = self.rows()["mtm"]
        self.assertEqual((row["value"], row["rss_mb"], row["reason"]), ("1.4", "82", ""))

    def test_update_refuses_a_changed_count_and_a_larger_peak_rss(self):
        before = self.files()
        self.assertNotEqual(self.update(("korf100-nodes", "619741.9", "", "")).returncode, 0)
        self.assertNotEqual(self.update(("mtm", "1.34", "", "120")).returncode, 0)
        self.assertEqual(self.files(), before)
        r = self.update(("mtm", "1.34", "", "120"), reason="a larger buffer")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(self.rows()["mtm"]["reason"], "2026-11-29: a larger buffer (peak RSS 80 -> 120 MB)")

    def test_update_writes_nothing_when_outputs_are_wrong_even_with_a_reason(self):
        before = self.files()
        lines = (("mtm", "1.30", "depth counts differ", "80"), ("frontier", "0.33", "", "12"))
        self.assertNotEqual(self.update(*lines).returncode, 0)
        self.assertEqual(self.files(), before)
        self.assertNotEqual(self.update(*lines, reason="whatever").returncode, 0)
        self.assertEqual(self.files(), before)

    def test_update_writes_nothing_when_a_bound_is_broken(self):
        before = self.files()
        self.assertNotEqual(self.update(("mtm", "2.1", "", "80"), reason="slower").returncode, 0)
        self.assertEqual(self.files(), before)

    def test_update_fills_a_figure_not_yet_measured_without_a_reason(self):
        self.assertNotEqual(self.compare(("fresh", "2.5", "", "30")).returncode, 0)
        r = self.update(("fresh", "2.5", "", "30"))
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(self.rows()["fresh"]["value"], "2.5")

    def test_an_improvement_clears_the_reason(self):
        self.update(("mtm", "1.61", "", "80"), reason="slower")
        self.assertEqual(self.update(("mtm", "1.30", "", "80")).returncode, 0)
        self.assertEqual(self.rows()["mtm"]["reason"], "")

    # compare
    def test_a_count_is_compared_exactly(self):
        self.assertEqual(self.compare(("korf100-nodes", "619741.8", "", "")).returncode, 0)
        self.assertEqual(self.compare(("korf100-nodes", "619741.80", "", "")).returncode, 0)
        for value in ("650728.9", "619741.9", "619741.7", "600000"):  # 5 % more, any change
            r = self.compare(("korf100-nodes", value, "", ""))
            self.assertNotEqual(r.returncode, 0, value)
            self.assertIn("FAILED: korf100-nodes", r.stdout)

    def test_the_15_percent_rule_both_ways(self):
        self.assertEqual(self.compare(("mtm", "1.54", "", "80")).returncode, 0)
        self.assertNotEqual(self.compare(("mtm", "1.55", "", "80")).returncode, 0)
        self.assertEqual(self.compare(("frontier", "0.27", "", "12")).returncode, 0)
        self.assertNotEqual(self.compare(("frontier", "0.26", "", "12")).returncode, 0)

    def test_peak_rss_is_compared_with_a_floor_for_small_processes(self):
        self.assertEqual(self.compare(("mtm", "1.34", "", "91")).returncode, 0)
        r = self.compare(("mtm", "1.34", "", "93"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("peak RSS 93 MB", r.stdout)
        self.assertEqual(self.compare(("frontier", "0.315", "", "21")).returncode, 0)
        self.assertNotEqual(self.compare(("frontier", "0.315", "", "23")).returncode, 0)

    def test_a_figure_without_a_committed_value_fails(self):
        r = self.compare(("fresh", "2.5", "", "30"))
        self.assertIn("FAILED: fresh", r.stdout)


if __name__ == "__main__":
    unittest.main()
