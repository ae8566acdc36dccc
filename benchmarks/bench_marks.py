"""Every mark the surfaces show, counted on written and loaded generated clusters (metrics.md §4, "every mark is
a verdict"): the former rules against the current ones.

    python benchmarks/bench_marks.py [--runs 10] [--sizes 8,16,32] [--steps 4] [--tasks 200]

For each size and each of ``--runs`` seeds, the generator writes a healthy cluster and the same seed with one
card computing 1.3× slower; both are loaded and analysed as the window does, and ``findings.marks`` lists the
marks of every surface (slow cards, operator cells, the communication headline and its rows, heat-map frames).
The former rules are computed beside them: an operator cell at max ≥ 1.2× the mean, the headline naming the
card with most least-wait collectives (ties to the lowest rank), the heat map framing nothing.
Printed per size and surface: the share of healthy runs with any mark, and the share of planted runs in which
the planted card is marked and no other card is (where a surface marks at all). The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from timelineview.analysis.findings.marks import session_marks  # noqa: E402
from timelineview.analysis.session import AnalysisSession  # noqa: E402
from timelineview.model import load  # noqa: E402
from timelineview.synthetic import cluster_specs, generate_cluster  # noqa: E402

PLANT_FACTOR = 1.3
FORMER_OPERATOR_SPREAD = 1.2
OPERATORS, HEADLINE = "operators", "communication.headline"


def _card_of(item: str) -> str:
    """The card a mark's item names ("X on rank 5", "rank 5", "name #1: rank 5", "metric of rank 5 in step 2")."""
    for sep in (" on ", ": "):
        if sep in item:
            return item.rsplit(sep, 1)[1]
    if " of " in item:
        return item.split(" of ", 1)[1].split(" in step")[0]
    return item


def former_marks(session: AnalysisSession) -> dict[str, set[str]]:
    """The cards the former rules marked: operator cells at max ≥ 1.2× the mean; the headline's card."""
    ops = {o.max_card for o in session.operators_across_all_cards
           if o.mean_total_ns and o.max_total_ns >= FORMER_OPERATOR_SPREAD * o.mean_total_ns}
    waits = session.communication.waits
    least = np.nanargmin(waits.wait, axis=1) if len(waits) else np.zeros(0, np.int64)
    spread = np.nanmax(waits.wait, axis=1) - np.nanmin(waits.wait, axis=1) if len(waits) else least
    counts = np.bincount(least[spread >= 1000], minlength=len(waits.cards)) if len(waits) else np.zeros(0)
    headline = {waits.cards[int(np.argmax(counts))]} if len(counts) and counts.max() > 0 else set()
    return {OPERATORS: ops, HEADLINE: headline}


def current_marks(session: AnalysisSession) -> tuple[dict[str, set[str]], int]:
    """The cards each surface marks now, and how many marks in all."""
    out: dict[str, set[str]] = defaultdict(set)
    marks = session_marks(session)
    for m in marks:
        out[m.surface].add(_card_of(m.item))
    return out, len(marks)


def run(cards: int, seed: int, steps: int, tasks: int, planted: int | None
        ) -> tuple[dict[str, set[str]], int, dict[str, set[str]]]:
    """(current marks by surface, their count, former marks by surface) of one written and loaded cluster."""
    with tempfile.TemporaryDirectory() as d:
        generate_cluster(d, cluster_specs(cards, seed=seed, steps=steps, tasks_per_step=tasks, slow_card=planted,
                                          slow_factor=PLANT_FACTOR))
        session = AnalysisSession(load(d, cache=False))
        return (*current_marks(session), former_marks(session))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--sizes", default="8,16,32")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--tasks", type=int, default=200)
    args = ap.parse_args()
    t0 = time.perf_counter()
    table = {}
    for size in [int(s) for s in args.sizes.split(",")]:
        false_any = {"former": defaultdict(int), "current": defaultdict(int)}
        alone = {"former": defaultdict(int), "current": defaultdict(int)}
        healthy_marks = 0
        for seed in range(args.runs):
            slow = seed % size
            now_h, n, old_h = run(size, seed, args.steps, args.tasks, None)
            now_p, _, old_p = run(size, seed, args.steps, args.tasks, slow)
            healthy_marks += n
            for rule, h, p in (("former", old_h, old_p), ("current", now_h, now_p)):
                for surface in set(h) | set(p) | {OPERATORS, HEADLINE}:
                    false_any[rule][surface] += bool(h.get(surface))
                    alone[rule][surface] += p.get(surface, set()) == {f"rank {slow}"}
        row = {}
        for rule in ("former", "current"):
            for surface in sorted(set(false_any[rule]) | set(alone[rule])):
                row[f"{rule} {surface}"] = {"healthy_marked": false_any[rule][surface] / args.runs,
                                            "planted_alone": alone[rule][surface] / args.runs}
        table[size] = row
        print(f"{size} cards, {args.runs} runs ({args.steps} steps, {args.tasks} tasks/step); healthy marks: "
              f"{healthy_marks}")
        for key, v in row.items():
            print(f"  {key:38s} healthy runs marked {100 * v['healthy_marked']:5.1f} %   planted card alone "
                  f"{100 * v['planted_alone']:5.1f} %")
    print(json.dumps({"sizes": table, "seconds": round(time.perf_counter() - t0, 1)}))


if __name__ == "__main__":
    main()
