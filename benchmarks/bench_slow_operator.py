"""Calibration of the slow-operator verdict (metrics.md §7.1 with §4's machinery): an op type slower on one card.

    python benchmarks/bench_slow_operator.py            # fast: a few runs per size
    python benchmarks/bench_slow_operator.py --full     # the calibration: hundreds of runs per size
    python benchmarks/bench_slow_operator.py --verify   # first check the verdicts against written traces

Each run draws a cluster as ``bench_calibration`` does (the generator with its heavy-tailed step noise and host
bubbles, 3 to 20 steps), per seed: a healthy cluster with 40 to 200 operators per step, a healthy one with 200,
and three variants of the latter (same seed): one op type 1.5× slower on one card, the same op type 2× slower on
that card (a margin), and one card 1.3× slower in all its compute (a slow card: ``slow_compute``'s verdict, not an
operator's). The planted op type is drawn among those whose 1.5× excess passes the practical floor with room (the
op types holding at least ``MIN_PLANT_SHARE`` of the median step; smaller ones cannot be told apart from the
floor's 1 % of the step by any rule). The op-type tables come from the generator's draws (each task's op type is
its base op, as the analysis reads it off the written names; ``--verify`` checks this on written clusters).

Printed per size: the share of healthy runs in which ``slow_operator`` names anything, the share of planted runs
in which it names the planted (op type, card) and nothing else, and the share of slow-card runs in which it names
anything. Targets: ≤ 1 % false marks, ≥ 95 % named alone. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_calibration as cal  # noqa: E402

from timelineview.analysis.cluster.slow_cards import typical  # noqa: E402
from timelineview.analysis.findings.slow_operators import CardOpTimes, slow_operators  # noqa: E402
from timelineview.synthetic.names import POOL  # noqa: E402
from timelineview.synthetic.schedule import build_schedule  # noqa: E402
from timelineview.synthetic.workload import draw_step  # noqa: E402

SIZES = (8, 32, 64, 256, 1024)
FAST_RUNS = {8: 40, 32: 20, 64: 20, 256: 6, 1024: 2}
FULL_RUNS = {8: 300, 32: 200, 64: 200, 256: 100, 1024: 30}
OP_FACTOR = 1.5
MARGIN_FACTOR = 2.0
CARD_FACTOR = 1.3
MIN_PLANT_SHARE = 0.04  # of the median step: its 1.5× excess (2 %) is twice the practical floor (1 %)
HEALTHY, PLANTED, MARGIN, SLOW_CARD = "healthy", "op type 1.5x", "op type 2x", "slow card 1.3x"
NS_PER_US = 1000.0
WHOLE_RUN_ONLY = False  # --whole-run: the verdict before its per-step check, for comparison
BASE = np.asarray(POOL.base)


def op_tables(specs, draws) -> tuple[list[CardOpTimes], float]:
    """Per card its op types' counts and totals (µs) over its steps, and the cluster's median step time (µs)."""
    sched = build_schedule(specs, draws=draws)
    cards, typical_steps = [], []
    for c, s in enumerate(specs):
        rows: dict[str, list[float]] = {}
        split: dict[str, tuple[list[int], list[float]]] = {}  # per op type: tasks and µs per step
        spans = []
        for k in range(sched.steps):
            loc = draws[k][c]
            compute = ~loc.other
            types = BASE[loc.kind[compute]]
            names, inverse = np.unique(types, return_inverse=True)
            totals = np.bincount(inverse, weights=loc.dur[compute] / NS_PER_US)
            counts = np.bincount(inverse)
            for name, n, v in zip(names.tolist(), counts.tolist(), totals.tolist(), strict=True):
                row = rows.setdefault(name, [0, 0.0])
                row[0] += n
                row[1] += v
                counts_of, us_of = split.setdefault(name, ([0] * sched.steps, [0.0] * sched.steps))
                counts_of[k], us_of[k] = n, v
            start, end = sched.card_bounds(k, c)
            spans.append((end - start) / NS_PER_US)
        cards.append(CardOpTimes(f"rank {s.rank}", sched.steps, {k: (int(n), v) for k, (n, v) in rows.items()},
                                 {} if WHOLE_RUN_ONLY else split))
        typical_steps.append(typical(spans))
    return cards, float(np.median(typical_steps))


def marks(specs, draws) -> set[str]:
    cards, step_us = op_tables(specs, draws)
    return {f"{v.key} on {v.card}" for v in slow_operators(cards, step_us)}


def redraw(specs, draws, card: int, **change):
    specs = list(specs)
    specs[card] = replace(specs[card], **change)
    draws = [list(step) for step in draws]
    for k in range(len(draws)):
        draws[k][card] = draw_step(specs[card], k + 1)
    return specs, draws


def plantable(specs, draws) -> list[str]:
    """The op types holding at least ``MIN_PLANT_SHARE`` of the median step (per step, the cards' median)."""
    cards, step_us = op_tables(specs, draws)
    types = sorted({k for c in cards for k in c.rows})
    per_step = {t: float(np.median([c.rows.get(t, (0, 0.0))[1] / c.steps for c in cards])) for t in types}
    return [t for t in types if per_step[t] >= MIN_PLANT_SHARE * step_us]


def variants(size: int, seed: int):
    """(kind, what must be named or None, specs, draws) of one seed."""
    rng = np.random.default_rng([seed, size, 7])
    steps = int(rng.integers(cal.STEPS[0], cal.STEPS[1] + 1))
    healthy_tasks = int(rng.integers(cal.HEALTHY_TASKS[0], cal.HEALTHY_TASKS[1] + 1))
    specs = cal.run_specs(size, seed, healthy_tasks, steps)
    yield HEALTHY, None, specs, cal.draw_cluster(specs)
    specs = cal.run_specs(size, seed, cal.DETECTION_TASKS, steps)
    draws = cal.draw_cluster(specs)
    yield HEALTHY, None, specs, draws
    card = int(rng.integers(size))
    candidates = plantable(specs, draws)
    op = candidates[int(rng.integers(len(candidates)))]
    for kind, factor in ((PLANTED, OP_FACTOR), (MARGIN, MARGIN_FACTOR)):
        yield kind, f"{op} on rank {card}", *redraw(specs, draws, card, slow_op_types=(op,), slow_op_factor=factor)
    yield SLOW_CARD, None, *redraw(specs, draws, card, compute_scale=CARD_FACTOR)


def run_size(size: int, runs: int) -> dict:
    counts = {HEALTHY: [0, 0], PLANTED: [0, 0], MARGIN: [0, 0], SLOW_CARD: [0, 0]}
    t = time.perf_counter()
    for seed in range(runs):
        for kind, name, specs, draws in variants(size, 1000 + seed):
            found = marks(specs, draws)
            counts[kind][0] += 1
            counts[kind][1] += (found == {name}) if name is not None else bool(found)
    return {"size": size, "runs": runs, "seconds": time.perf_counter() - t, "counts": counts}


def verify(seeds: int = 2, size: int = 8) -> bool:
    """On small written clusters with a planted op type: the verdicts from the draws equal the session's
    ``slow_operator`` findings."""
    from timelineview.analysis.session import AnalysisSession
    from timelineview.model import load
    from timelineview.synthetic import generate_cluster

    same = True
    for seed in range(seeds):
        for kind, name, specs, draws in variants(size, 1000 + seed):
            if kind == HEALTHY and name is None and specs[0].tasks_per_step != cal.DETECTION_TASKS:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                generate_cluster(tmp, specs, "msprof")
                session = AnalysisSession(load(tmp, cache=False))
                theirs = {f"{f.advice.split(' runs slower on ')[0]} on {f.cards[0]}" for f in session.findings
                          if f.rule == "slow_operator"}
            mine = marks(specs, draws)
            agree = mine == theirs
            same &= agree
            print(f"verify seed {seed} {kind:14}: {'agree' if agree else 'DIFFER'} (draws {mine}, session {theirs})",
                  flush=True)
    return same


def _pct(hit: int, of: int) -> str:
    return f"{100 * hit / of:5.1f}%" if of else "    -"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--runs", type=int)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--whole-run", action="store_true", help="judge the run's totals alone (no per-step check)")
    args = ap.parse_args()
    global WHOLE_RUN_ONLY
    WHOLE_RUN_ONLY = args.whole_run
    t0 = time.perf_counter()
    verified = verify() if args.verify else None
    results = []
    print(f"{'size':>5} {'runs':>5} {'healthy: any mark':>18} {'1.5x op named alone':>20} {'2x op named alone':>18} "
          f"{'slow card: any mark':>20}", flush=True)
    for size in (int(x) for x in args.sizes.split(",")):
        runs = args.runs or (FULL_RUNS if args.full else FAST_RUNS).get(size, 10)
        res = run_size(size, runs)
        results.append(res)
        c = res["counts"]
        print(f"{size:5d} {runs:5d} {_pct(*c[HEALTHY][::-1]):>18} {_pct(*c[PLANTED][::-1]):>20} "
              f"{_pct(*c[MARGIN][::-1]):>18} {_pct(*c[SLOW_CARD][::-1]):>20}   ({res['seconds']:.0f} s)", flush=True)
    ok = all(r["counts"][HEALTHY][1] <= cal.FALSE_MARK_TARGET * r["counts"][HEALTHY][0]
             and r["counts"][PLANTED][1] >= cal.DETECTION_TARGET * r["counts"][PLANTED][0] for r in results)
    print(f"targets (≤ {cal.FALSE_MARK_TARGET:.0%} false marks, ≥ {cal.DETECTION_TARGET:.0%} named alone): "
          f"{'met' if ok else 'NOT met'}; {time.perf_counter() - t0:.0f} s in all")
    print(json.dumps({"verified": verified, "targets_met": ok, "results": results}))


if __name__ == "__main__":
    main()
