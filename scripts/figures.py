#!/usr/bin/env python3
"""The advertised performance figures: output/bench/figures.csv, and the block of docs/performance.md
rendered from it.

    python3 scripts/figures.py render            # the page's block, from figures.csv, on stdout
    python3 scripts/figures.py page              # exit 1 unless docs/performance.md's block is that rendering
    python3 scripts/figures.py compare MEASURED  # measured figures against figures.csv, PASS/FAIL lines
    python3 scripts/figures.py update MEASURED --date D --commit C [--reason TEXT]
                                                 # compare, then write the measured values into
                                                 # figures.csv and docs/performance.md's block
    python3 scripts/figures.py boards N SEED ROWS COLS FILE
                                                 # N random solvable boards, one a line

`scripts/bench.sh check` measures the figures and calls `compare` (or `update`); tests/suite/figures.rs
calls `render` and scripts/test_figures.py (which runs `compare` and `update` on synthetic
files). The rendering lives here only.

figures.csv (one row per figure; plain CSV, the header names the columns):
  figure    the figure's name (`scripts/bench.sh check NAME` measures it, with its companions)
  what      what it measures, short
  value     the committed value: a measurement (a median of per-round ratios of two sides
            measured in the same round, or a count), never a bound; empty until first measured
  better    `lower` or `higher`: the direction in which the value improves
  kind      `ratio`: more than 15 % worse fails; `exact`: a deterministic count, any change fails
  must      the issue's bound, empty if none
  must_on   what the bound applies to: `ratio` (the value; broken = FAIL), `wall` (the measured
            side's median wall in seconds; broken = FAIL) or `report` (the value; printed only)
  rss_mb    the measured side's peak RSS in MB (10^6 bytes; GNU time's %M, the largest over the
            rounds), empty where the figure has no process of its own; more than 15 % and more
            than 10 MB above it fails
  date      the day of the measurement (UTC), empty for a placeholder
  commit    the commit measured, empty for a placeholder
  note      how it was measured: the rounds, the spread of the per-round values
  reason    why a worse value (or a changed count, or a larger RSS) was accepted, given to
            `update --reason`, with the day and the change; empty otherwise, and cleared when
            the figure improves

MEASURED (written by bench.sh): tab-separated lines `figure value wall sides wrong rss_mb spread`,
where `value` is the median of the per-round values (a count: its exact decimal), `wall` the
measured side's median in seconds (for `must_on` = `wall`), `sides` prints the two sides,
`wrong` (empty when all is well) says which outputs were wrong, `rss_mb` is the measured side's
peak RSS (MB, empty if none) and `spread` the per-round values' range and number of rounds.

`compare` fails a figure (and exits with the number of failures, naming each) when its outputs
were wrong (`wrong`), when it has no row or no committed value (`missing`), when it is more than
15 % worse than its committed value (`worse`; worse = larger for `lower`, smaller for
`higher`), when a count differs at all (`changed`), when its peak RSS is more than 15 % and
10 MB above the committed one (`rss`), or when a `ratio` or `wall` bound is broken (`must`); the
page's block counts as a figure (`page`) when it is not the rendering.
`update` writes nothing, and exits non-zero, when any figure fails for a reason other than
`worse`, `changed` or `rss`, or fails for one of those three and no `--reason` is given (a
placeholder's value, not a measurement, may be replaced by a worse one). With `--reason TEXT`
the worse values are written, and TEXT (with the day and the change) goes into their `reason`.
"""

import csv
import io
import os
import random
import sys
from decimal import Decimal, InvalidOperation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_PATH = os.path.join(ROOT, "output", "bench", "figures.csv")
PAGE_PATH = os.path.join(ROOT, "docs", "performance.md")
COLUMNS = ["figure", "what", "value", "better", "kind", "must", "must_on", "rss_mb", "date", "commit",
           "note", "reason"]
KINDS = ("ratio", "exact")
BEGIN, END = "<!-- figures:begin -->", "<!-- figures:end -->"
TOLERANCE = 0.15
RSS_TOLERANCE, RSS_FLOOR_MB = 0.15, 10.0
# The failures `update --reason` may accept; all others write nothing.
SOFT = ("worse", "changed", "rss")


def read_rows():
    with open(CSV_PATH, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        missing = [c for c in COLUMNS if row.get(c) is None]
        if missing:
            sys.exit(f"{CSV_PATH}: row {row.get('figure')!r} lacks {', '.join(missing)}")
        if row["kind"] not in KINDS:
            sys.exit(f"{CSV_PATH}: row {row['figure']!r}: kind {row['kind']!r} is not one of {', '.join(KINDS)}")
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


def number(text, kind="ratio"):
    """The value as figures.csv stores it: a count exactly; else an integer from 100 up, else 3
    significant digits."""
    if kind == "exact":
        return format(Decimal(text).normalize(), "f")
    v = float(text)
    return str(round(v)) if abs(v) >= 100 else f"{v:.3g}"


def shown(text):
    """A value as the page shows it: thousands separated."""
    if text == "":
        return "not yet measured"
    v = float(text)
    if abs(v) < 1000:
        return text
    whole, _, frac = text.partition(".")
    return f"{int(whole):,}" + (f".{frac}" if frac else "")


def must_text(row):
    if not row["must"]:
        return ""
    sign = "<=" if row["better"] == "lower" else ">="
    if row["must_on"] == "wall":
        return f"wall <= {row['must']} s"
    if row["must_on"] == "report":
        return f"{sign} {row['must']} (reported, not enforced)"
    return f"{sign} {row['must']}"


def cell(text):
    return text.replace("|", "\\|")


def render(rows):
    lines = [
        BEGIN,
        "<!-- Generated from output/bench/figures.csv by scripts/figures.py: `scripts/bench.sh check"
        " --update` rewrites it, `scripts/bench.sh check` and tests/suite/figures.rs compare it. -->",
        "",
        "| figure | what: side / other side, measured in the same rounds | value | peak RSS | must | measured |",
        "|---|---|---:|---:|---|---|",
    ]
    for row in rows:
        when = f"{row['date']}, `{row['commit']}`" if row["date"] else "placeholder"
        if row["reason"]:
            when += f"; accepted worse: {row['reason']}"
        better = "lower is better" if row["better"] == "lower" else "higher is better"
        value = shown(row["value"]) + (" (exact)" if row["kind"] == "exact" and row["value"] else "")
        rss = f"{row['rss_mb']} MB" if row["rss_mb"] else ""
        lines.append(f"| `{row['figure']}` | {cell(row['what'])} ({better}) | {value} | {rss} "
                     f"| {must_text(row)} | {cell(when)} |")
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


def new_page(rows):
    text, start, end = page_block()
    if start is None:
        sys.exit(f"{PAGE_PATH}: no {BEGIN} ... {END} block")
    return text[:start] + render(rows) + text[end:]


def write_page(text):
    with open(PAGE_PATH + ".tmp", "w") as f:
        f.write(text)
    os.replace(PAGE_PATH + ".tmp", PAGE_PATH)


def read_measured(path):
    measured = []
    for line in open(path):
        if line.strip():
            name, value, wall, sides, wrong, rss, spread = (line.rstrip("\n").split("\t") + [""] * 7)[:7]
            measured.append({"figure": name, "value": value, "wall": wall, "sides": sides,
                             "wrong": wrong, "rss_mb": rss, "spread": spread})
    return measured


def decimal(text):
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def compare(rows, measured, page=True):
    """Prints one verdict a figure; returns {name: [(kind, why), ...]} of the failing ones, kind
    one of `wrong`, `missing`, `worse` (the 15 % rule), `changed` (a count), `rss`, `must`,
    `page`."""
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
        elif row["value"] == "":
            why.append(("missing", "no committed value yet (scripts/bench.sh check --update records one)"))
            text = "no committed value"
        elif row["kind"] == "exact":
            text = f"committed {row['value']}, a count: FAIL on any change"
            if value is not None and decimal(m["value"]) != decimal(row["value"]):
                why.append(("changed", f"{m['value']} where {row['value']} is committed (a count, compared exactly)"))
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
        if row is not None and row["must"]:
            lower = row["better"] == "lower"
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
        if row is not None and row["rss_mb"] and m["rss_mb"]:
            c, got = float(row["rss_mb"]), float(m["rss_mb"])
            limit = max(c * (1 + RSS_TOLERANCE), c + RSS_FLOOR_MB)
            text += f"; peak RSS {m['rss_mb']} MB, committed {row['rss_mb']} MB, FAIL above {limit:.0f} MB"
            if got > limit:
                why.append(("rss", f"peak RSS {m['rss_mb']} MB, {got / c - 1:.0%} above committed {row['rss_mb']} MB"))
        elif m["rss_mb"]:
            text += f"; peak RSS {m['rss_mb']} MB (none committed)"
        spread = f" ({m['spread']})" if m["spread"] else ""
        print(f"{'FAIL' if why else 'PASS'} {name:<14} {'-' if value is None else m['value']:>8}"
              f" = {m['sides']}{spread}")
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


def better_than(row, value):
    """Whether the measured value improves on the committed one (a count never does)."""
    if row["kind"] == "exact" or not row["value"]:
        return False
    c, v = float(row["value"]), float(value)
    return v < c if row["better"] == "lower" else v > c


def update(rows, measured, date, commit, reason):
    """Writes the measured values into figures.csv and the page's block, or nothing; returns
    the exit status (the number of figures that stopped it)."""
    failed = compare(rows, measured, page=False)
    by_name = {row["figure"]: row for row in rows}

    def unset(name):  # a new row, or a placeholder: no measurement to be worse than
        row = by_name.get(name)
        return row is not None and (row["value"] == "" or row["date"] == "")

    hard = [name for name, why in failed.items()
            if any(kind not in SOFT and not (kind == "missing" and unset(name)) for kind, _ in why)]
    soft = [name for name, why in failed.items()
            if name not in hard and any(kind in SOFT for kind, _ in why) and not unset(name)]
    if hard:
        print(f"FAILED (outputs wrong, no row, or a bound broken; nothing written): {' '.join(hard)}")
        return min(len(hard), 100)
    if soft and not reason:
        print(f"REFUSED (worse than committed, a count changed, or a larger peak RSS; nothing written): "
              f"{' '.join(soft)}")
        print("  to accept them, give the reason: scripts/bench.sh check --update --reason \"...\" "
              "(recorded beside each figure in output/bench/figures.csv)")
        return min(len(soft), 100)
    note = os.environ.get("FIGURES_NOTE", "scripts/bench.sh check --update")
    for m in measured:
        row = by_name[m["figure"]]
        old, old_rss = row["value"], row["rss_mb"]
        value = number(m["value"], row["kind"])
        rss = f"{float(m['rss_mb']):.0f}" if m["rss_mb"] else ""
        if m["figure"] in soft:
            kinds = {kind for kind, _ in failed[m["figure"]]}
            changes = []
            if kinds & {"worse", "changed"}:
                changes.append(f"{old} -> {value}")
            if "rss" in kinds:
                changes.append(f"peak RSS {old_rss} -> {rss} MB")
            row["reason"] = f"{date}: {reason} ({', '.join(changes)})"
        elif better_than(row, value):
            row["reason"] = ""
        row.update(value=value, rss_mb=rss, date=date, commit=commit,
                   note=note + (f"; {m['spread']}" if m["spread"] else ""))
    page = new_page(rows)
    write_rows(rows)
    write_page(page)
    print(f"wrote {os.path.relpath(CSV_PATH, ROOT)} and the block of docs/performance.md"
          + (f"; accepted, with the reason recorded: {' '.join(soft)}" if soft else ""))
    return 0


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
    if cmd == "update" and args:
        opts, i = {}, 1
        while i < len(args):
            if args[i] in ("--date", "--commit", "--reason") and i + 1 < len(args):
                opts[args[i]] = args[i + 1]
                i += 2
            else:
                break
        if i == len(args) and "--date" in opts and "--commit" in opts:
            reason = opts.get("--reason", "").strip()
            if "--reason" in opts and not reason:
                print("update: --reason needs a text", file=sys.stderr)
                return 2
            return update(read_rows(), read_measured(args[0]), opts["--date"], opts["--commit"], reason)
    if cmd == "boards" and len(args) == 5:
        boards(int(args[0]), int(args[1]), int(args[2]), int(args[3]), args[4])
        return 0
    print(f"usage: see python3 {argv[0]} --help", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
