"""Name search over a card's slices: the time of one keystroke's mask on 10 M slices (target: < 100 ms).

    python benchmarks/bench_search.py [--slices 10000000] [--names 50000] [--runs 5]

Prints the median and the best of ``--runs`` masks, after the first keystroke has built the lower-case
table, and the number of matches. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from timelineview.viewstate.timeline.search import NameSearch

TARGET_S = 0.1
KINDS = ("MatMul", "Add", "Conv2D")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slices", type=int, default=10_000_000)
    parser.add_argument("--names", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    strings = [f"op_{i}_{KINDS[i % len(KINDS)]}" for i in range(args.names)]
    names = rng.integers(0, len(strings), args.slices).astype(np.int32)
    search = NameSearch(strings)
    search.slice_mask(names[:10], "x")  # the first keystroke builds the lower-case table
    times, matches = [], 0
    for _ in range(args.runs):
        t0 = time.perf_counter()
        matches = int(np.count_nonzero(search.slice_mask(names, "conv2d")))
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    print(f"{args.slices:,} slices, {args.names:,} names: median {median * 1e3:.1f} ms, best "
          f"{min(times) * 1e3:.1f} ms (target < {TARGET_S * 1e3:.0f} ms), {matches:,} matches")
    print(json.dumps({"slices": args.slices, "median_s": median, "best_s": min(times), "matches": matches}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
