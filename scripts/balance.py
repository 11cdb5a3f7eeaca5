#!/usr/bin/env python3
"""How evenly a deal of segments to processes shares a frontier search's layers (issue 74).

Reads the segments' sizes a search wrote with NPUZZLE_SEGMENT_SIZES=FILE (CSV rows
`depth,segment,boards,bytes`, one per segment holding boards, appended after each layer) and,
for each number of processes, prints how much more than the mean the fullest process holds at
the peak of its disk (layers d - 1, d and d + 1 at once, as the search holds them while it
builds d + 1) and expands over the run, under the deal of src/bfs/frontier/exchange.rs
(`Deal::new`: the segments in golden-ratio order by Fibonacci hashing, dealt in rounds of P,
every other round reversed) and under the rule before it (`k mod P`), for comparison.

    NPUZZLE_SEGMENT_SIZES=/tmp/sizes.csv npuzzle analyze --size 4 --max-depth 33 --edges none
    scripts/balance.py /tmp/sizes.csv SEGMENTS [P ...]

SEGMENTS is the search's count of segments (its report's "segments a layer"; the deal depends
on it). A search across P processes cuts finer than one machine (PER_PROCESS in config.rs): to
measure its deal on one machine, run one machine with as many segments (NPUZZLE_SEGMENTS).
"""

import csv
import sys

FIBONACCI = 0x9E3779B97F4A7C15
MASK = (1 << 64) - 1


def deal(segments, processes):
    """Deal::new, as src/bfs/frontier/exchange.rs computes it."""
    order = sorted(range(segments), key=lambda k: ((k * FIBONACCI) & MASK, k))
    owners = [0] * segments
    for at, k in enumerate(order):
        rnd, seat = divmod(at, processes)
        owners[k] = seat if rnd % 2 == 0 else processes - 1 - seat
    return owners


def load(path):
    boards, sizes = {}, {}
    for depth, segment, count, nbytes in csv.reader(open(path)):
        d, s = int(depth), int(segment)
        boards.setdefault(d, {})[s] = int(count)
        sizes.setdefault(d, {})[s] = int(nbytes)
    return boards, sizes


def fullest(boards, sizes, owners, processes):
    """(peak disk, work) of the fullest process over the mean, as fractions past 1."""
    depths = sorted(sizes)
    share = {}
    for d in depths:
        held = [0] * processes
        for s, b in sizes[d].items():
            held[owners[s]] += b
        share[d] = held
    peak = [0] * processes
    work = [0] * processes
    for d in depths:
        for p in range(processes):
            window = sum(share[e][p] for e in (d - 1, d, d + 1) if e in share)
            peak[p] = max(peak[p], window)
        for s, b in boards[d].items():
            work[owners[s]] += b
    return max(peak) * processes / sum(peak) - 1, max(work) * processes / sum(work) - 1


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    boards, sizes = load(sys.argv[1])
    segments = int(sys.argv[2])
    counts = [int(p) for p in sys.argv[3:]] or [2, 3, 4, 8, 16]
    print(f"{sys.argv[1]}: depths {min(sizes)}..{max(sizes)}, {segments} segments")
    print("processes  deal: peak disk, work (fullest over the mean)   k mod P: peak disk, work")
    for p in counts:
        a = fullest(boards, sizes, deal(segments, p), p)
        b = fullest(boards, sizes, [k % p for k in range(segments)], p)
        print(f"{p:9}  {100 * a[0]:+11.1f} % {100 * a[1]:+7.1f} %"
              f"                       {100 * b[0]:+11.1f} % {100 * b[1]:+7.1f} %")


if __name__ == "__main__":
    main()
