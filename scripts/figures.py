#!/usr/bin/env python3
"""The advertised performance figures: output/bench/figures.csv, and the block of docs/performance.md
rendered from it.

    python3 scripts/figures.py render            # the page's block, from figures.csv, on stdout
    python3 scripts/figures.py page              # exit 1 unless docs/performance.md's block is that rendering
    python3 scripts/figures.py compare MEASURED  # measured figures against figures.csv, PASS/FAIL lines
    python3 scripts/figures.py update MEASURED --date D --commit C
                                                 # compare, then write the measured values into
                                                 # figures.csv and docs/performance.md's block
    python3 scripts/figures.py boards N SEED ROWS COLS FILE
                                                 # N random solvable boards, one a line

`scripts/bench.sh check` measures the figures and calls `compare` (or `update`); tests/figures.rs
calls `render`. The rendering lives here only.

figures.csv (one row per figure; plain CSV, the header names the columns):
  figure    the figure's name (`scripts/bench.sh check NAME` measures it alone)
  what      what it measures, short
  value     the committed value (a ratio of two walls or rates measured side by side, or a count)
  better    `lower` or `higher`: the direction in which the value improves
  must      the issue's bound, empty if none
  must_on   what the bound applies to: `ratio` (the value; broken = FAIL), `wall` (the measured
            side's median wall in seconds; broken = FAIL) or `report` (the value; printed only)
  date      the day of the measurement (UTC), empty for a placeholder
  commit    the commit measured, empty for a placeholder
  note      how it was measured, or `placeholder: ...` for a value copied from the README

MEASURED (written by bench.sh): tab-separated lines `figure value wall sides wrong`, where
`wall` is the measured side's median in seconds, `sides` prints the two medians, and `wrong`
(empty when all is well) says which outputs were wrong.

`compare` fails a figure (and exits with the number of failures, naming each) when its outputs
were wrong, when it is more than 15 % worse than its committed value (worse = larger for `lower`,
smaller for `higher`), when a `ratio` or `wall` bound is broken, or when it has no row in
figures.csv; the page's block counts as a figure (`page`) when it is not the rendering.
`update` takes the new values whatever the 15 % rule says, but keeps the row of a figure whose
outputs were wrong; it exits with the number of figures wrong or out of bounds.
"""

import csv
import io
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_PATH = os.path.join(ROOT, "output", "bench", "figures.csv")
PAGE_PATH = os.path.join(ROOT, "docs", "performance.md")
COLUMNS = ["figure", "what", "value", "better", "must", "must_on", "date", "commit", "note"]
BEGIN, END = "<!-- figures:begin -->", "<!-- figures:end -->"
TOLERANCE = 0.15


def read_rows():
    with open(CSV_PATH, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        missing = [c for c in COLUMNS if row.get(c) is None]
        if missing:
            sys.exit(f"{CSV_PATH}: row {row.get('figure')!r} lacks {', '.join(missing)}")
    return rows


def write_rows(rows):
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({c: row[c] for c in COLUMNS})
    with open(CSV_PATH + ".tmp", "w", newline="") as f:
        f.write(out.getvalue())
    os.replace(CSV_PATH + ".tmp", CSV_PATH)


def number(text):
    """The value as figures.csv stores it: an integer from 100 up, else 3 significant digits."""
    v = float(text)
    return str(round(v)) if abs(v) >= 100 else f"{v:.3g}"


def shown(text):
    """A value as the page shows it: thousands separated."""
    v = float(text)
    return f"{round(v):,}" if abs(v) >= 1000 else text


def must_text(row):
    if not row["must"]:
        return ""
    sign = "<=" if row["better"] == "lower" else ">="
    if row["must_on"] == "wall":
        return f"wall <= {row['must']} s"
    if row["must_on"] == "report":
        return f"{sign} {row['must']} (reported, not enforced)"
    return f"{sign} {row['must']}"


def render(rows):
    lines = [
        BEGIN,
        "<!-- Generated from output/bench/figures.csv by scripts/figures.py: `scripts/bench.sh check"
        " --update` rewrites it, `scripts/bench.sh check` and tests/figures.rs compare it. -->",
        "",
        "| figure | what: side / other side, measured alternately in one run | value | must | measured |",
        "|---|---|---:|---|---|",
    ]
    for row in rows:
        when = f"{row['date']}, `{row['commit']}`" if row["date"] else "placeholder"
        better = "lower is better" if row["better"] == "lower" else "higher is better"
        lines.append(f"| `{row['figure']}` | {row['what']} ({better}) | {shown(row['value'])} "
                     f"| {must_text(row)} | {when} |")
    lines.append("")
    lines.append(END)
    return "\n".join(lines) + "\n"


def page_block():
    text = open(PAGE_PATH).read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return text, None, None
    return text, start, end + len(END) + 1


def page_ok(rows):
    text, start, end = page_block()
    return start is not None and text[start:end] == render(rows)


def write_page(rows):
    text, start, end = page_block()
    if start is None:
        sys.exit(f"{PAGE_PATH}: no {BEGIN} ... {END} block")
    with open(PAGE_PATH + ".tmp", "w") as f:
        f.write(text[:start] + render(rows) + text[end:])
    os.replace(PAGE_PATH + ".tmp", PAGE_PATH)


def read_measured(path):
    measured = []
    for line in open(path):
        if line.strip():
            name, value, wall, sides, wrong = (line.rstrip("\n").split("\t") + [""] * 5)[:5]
            measured.append({"figure": name, "value": value, "wall": wall, "sides": sides,
                             "wrong": wrong})
    return measured


def compare(rows, measured, page=True):
    """Prints one verdict a figure; returns {name: [(kind, why), ...]} of the failing ones, kind
    one of `wrong`, `worse` (the 15 % rule), `must`, `missing`, `page`."""
    committed = {row["figure"]: row for row in rows}
    failed = {}
    for m in measured:
        name, row, why = m["figure"], committed.get(m["figure"]), []
        value = float(m["value"]) if m["value"] not in ("", "nan") else None
        if m["wrong"]:
            why.append(("wrong", f"outputs wrong: {m['wrong']}"))
        if value is None:
            why.append(("wrong", "not measured"))
        if row is None:
            why.append(("missing", "no row in output/bench/figures.csv"))
            text = "no committed value"
        else:
            c = float(row["value"])
            lower = row["better"] == "lower"
            limit = c * (1 + TOLERANCE) if lower else c * (1 - TOLERANCE)
            kind = "" if row["date"] else "placeholder "
            shown_limit = f"{limit:,.0f}" if limit >= 1000 else f"{limit:.4g}"
            text = (f"committed {kind}{row['value']}, {row['better']} is better, "
                    f"FAIL {'above' if lower else 'below'} {shown_limit}")
            if value is not None and (value > limit if lower else value < limit):
                worse = (value / c - 1) if lower else (1 - value / c)
                why.append(("worse", f"{worse:.0%} worse than committed {row['value']}"))
            if row["must"]:
                bound = float(row["must"])
                if row["must_on"] == "wall":
                    wall = float(m["wall"]) if m["wall"] else None
                    ok = wall is not None and wall <= bound
                    text += f"; must: wall {m['wall'] or '?'} s <= {row['must']} s"
                else:
                    ok = value is not None and (value <= bound if lower else value >= bound)
                    text += f"; must {must_text(row)}"
                text += ": met" if ok else ": broken"
                if not ok and row["must_on"] != "report":
                    why.append(("must", f"must {must_text(row)} broken"))
        print(f"{'FAIL' if why else 'PASS'} {name:<14} {'-' if value is None else m['value']:>8}"
              f" = {m['sides']}")
        print(f"{'':20}{text}")
        for _, w in why:
            print(f"{'':20}FAIL: {w}")
        if why:
            failed[name] = why
    if page:
        if page_ok(rows):
            print(f"PASS {'page':<14} the figures block is what output/bench/figures.csv renders")
        else:
            print(f"FAIL {'page':<14} the figures block of docs/performance.md is not what output/bench/figures.csv"
                  " renders (python3 scripts/figures.py render; scripts/bench.sh check --update rewrites it)")
            failed["page"] = [("page", "docs/performance.md block")]
    return failed


def boards(n, seed, rows, cols, path):
    """n boards, each a uniform random permutation of the cells made solvable: 0 is the blank, the
    goal `1 2 ... 0`. A board is solvable when the parity of its permutation of the goal equals the
    parity of the blank's distance from its goal cell (for 3x4 this is the inversions rule:
    inversions + the blank's row from the bottom odd); if not, the first two tiles are swapped."""
    cells = rows * cols
    rng = random.Random(seed)
    rnd = rng.random
    goal = list(range(1, cells)) + [0]
    names = [str(x) for x in range(cells)]
    steps = [(i, i + 1) for i in range(cells - 1, 0, -1)]
    out = []
    for _ in range(n):
        p = goal[:]
        odd = 0
        for i, m in steps:  # Fisher-Yates, counting the transpositions
            j = int(rnd() * m)
            if j != i:
                p[i], p[j] = p[j], p[i]
                odd ^= 1
        z = p.index(0)
        if odd != (rows - 1 - z // cols + cols - 1 - z % cols) & 1:
            i, j = (0, 1) if z > 1 else ((1, 2) if z == 0 else (0, 2))
            p[i], p[j] = p[j], p[i]
        out.append(" ".join([names[x] for x in p]))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd, args = argv[1], argv[2:]
    if cmd == "render" and not args:
        sys.stdout.write(render(read_rows()))
        return 0
    if cmd == "page" and not args:
        if page_ok(read_rows()):
            return 0
        print(f"docs/performance.md's figures block is not what {CSV_PATH} renders", file=sys.stderr)
        return 1
    if cmd == "compare" and len(args) == 1:
        failed = compare(read_rows(), read_measured(args[0]))
        if failed:
            print(f"FAILED: {' '.join(failed)}")
        return min(len(failed), 100)
    if cmd == "update" and len(args) == 5 and args[1] == "--date" and args[3] == "--commit":
        # The new values replace the committed ones whatever the 15 % rule says; a figure whose
        # outputs were wrong keeps its row, and fails, as does a broken bound.
        rows, measured = read_rows(), read_measured(args[0])
        failed = compare(rows, measured, page=False)
        by_name = {row["figure"]: row for row in rows}
        for m in measured:
            if not any(kind in ("wrong", "missing") for kind, _ in failed.get(m["figure"], [])):
                by_name[m["figure"]].update(
                    value=number(m["value"]), date=args[2], commit=args[4],
                    note=os.environ.get("FIGURES_NOTE", "scripts/bench.sh check --update"))
        write_rows(rows)
        write_page(rows)
        print(f"wrote {os.path.relpath(CSV_PATH, ROOT)} and the block of docs/performance.md")
        bad = [name for name, why in failed.items() if any(kind != "worse" for kind, _ in why)]
        if bad:
            print(f"FAILED (outputs wrong, no row, or a bound broken; rows with wrong outputs kept): {' '.join(bad)}")
        return min(len(bad), 100)
    if cmd == "boards" and len(args) == 5:
        boards(int(args[0]), int(args[1]), int(args[2]), int(args[3]), args[4])
        return 0
    print(f"usage: see python3 {argv[0]} --help", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
