"""Calibration of the verdicts that pick the worst of many (metrics.md §4, §8): false alarms and detection.

    python benchmarks/bench_calibration.py [--runs 100] [--sizes 8,32,64,256,1024] [--verify]

For each cluster size and each of ``--runs`` seeds, the project's generator draws a healthy cluster
(its natural randomness: per-task jitter, idle gaps with random stalls, a data wait that varies by
±10 % per step) and two planted variants of the same seed: one card computing 1.3× slower
(``CardSpec.compute_scale``) and one card waiting 1.3× longer for its data (``CardSpec.data_wait_us``).
Each card's per-step metrics come from the generator's own draws and cluster schedule (what the
ground truth of ``synthetic/truth_builder.py`` records), without writing or loading a trace, so a
1024-card cluster takes a few seconds; ``--verify`` first checks, on small written clusters, that
these documents give the same verdicts as loading the traces.

Printed per rule and size: the false-positive rate (healthy runs in which the rule names anything)
and the detection rate (planted runs in which the rule names the planted card and no rule that names
cards names any other), for the former rule (means over steps, 3 MADs whatever the number of cards,
step time and pure communication flagging too, slow steps at +20 %) and the current one.
Targets (§4): ≤ 1 % false positives and ≥ 95 % detection at every size. The last line is JSON.
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

from timelineview.analysis.cluster.slow_cards import slow_cards  # noqa: E402
from timelineview.analysis.findings.evaluate import slow_steps  # noqa: E402
from timelineview.analysis.findings.rules import RULE_BY_NAME  # noqa: E402
from timelineview.analysis.intervals import union  # noqa: E402
from timelineview.synthetic import cluster_specs  # noqa: E402
from timelineview.synthetic.schedule import build_schedule  # noqa: E402
from timelineview.synthetic.spec import CardSpec  # noqa: E402
from timelineview.synthetic.workload import StepLocal, draw_step  # noqa: E402

SIZES = (8, 32, 64, 256, 1024)
RUNS = 100
STEPS = 8
TASKS_PER_STEP = 200  # §4's detection condition: ≥ 200 operators per step
DATA_WAIT_US = 2000.0
PLANT_FACTOR = 1.3  # the planted card: compute 1.3× slower, or a data wait 1.3× longer
FALSE_ALARM_TARGET = 0.01
DETECTION_TARGET = 0.95
NS_PER_US = 1000.0
HEALTHY, SLOW_COMPUTE, SLOW_DATA = "healthy", "slow_compute", "slow_data"
RULES = ("slow_compute", "slow_data", "slow_cards (any)", "slow_step")

# ------------------------------------------------------------------------- the former rule, for comparison
OLD_METRICS = {"step_time_us": "span_us", "compute_us": "compute_us",
               "pure_communication_us": "pure_communication_us", "step_interval_us": "step_interval_us"}
OLD_MAD_FACTOR, OLD_RELATIVE, OLD_STEP_SHARE, OLD_STEP_EXCESS = 3.0, 0.05, 0.01, 0.20


def _mean(card: dict, key: str) -> float:
    return float(np.mean([s[key] for s in card["steps"]]))


def old_slow_cards(docs: list[dict]) -> list[tuple[str, str]]:
    """(card, metric) flags of the former rule: mean over steps above median + max(5 % of the median,
    3 × 1.4826 × MAD, 1 % of the median step time), on step time, compute, pure communication, interval."""
    step_us = float(np.median([_mean(c, "span_us") for c in docs]))
    out = []
    for metric, key in OLD_METRICS.items():
        values = np.array([_mean(c, key) for c in docs])
        median = float(np.median(values))
        mad = float(np.median(np.abs(values - median)))
        threshold = median + max(OLD_RELATIVE * abs(median), OLD_MAD_FACTOR * 1.4826 * mad, OLD_STEP_SHARE * step_us)
        out += [(c["card"], metric) for c, v in zip(docs, values, strict=True) if v > threshold]
    return out


def old_verdicts(docs: list[dict]) -> dict[str, set[str]]:
    """The cards each rule named under the former rule (slow_compute also from step time while compute
    is above the median, as the findings did)."""
    flags = old_slow_cards(docs)
    compute = {c["card"]: _mean(c, "compute_us") for c in docs}
    median_compute = float(np.median(list(compute.values())))
    by_metric = {m: {c for c, mm in flags if mm == m} for m in OLD_METRICS}
    slow_compute = by_metric["compute_us"] | {c for c in by_metric["step_time_us"] if compute[c] > median_compute}
    steps = set()
    for c in docs:
        spans = np.array([s["span_us"] for s in c["steps"]])
        if len(spans) >= 3 and (spans >= (1 + OLD_STEP_EXCESS) * np.median(spans)).any():
            steps.add(c["card"])
    return {"slow_compute": slow_compute, "slow_data": by_metric["step_interval_us"],
            "slow_cards (any)": {c for c, _ in flags}, "slow_step": steps}


def new_verdicts(docs: list[dict]) -> dict[str, set[str]]:
    """The cards each rule names under the current rule (the project's own functions)."""
    flags = slow_cards(docs)
    rule = RULE_BY_NAME["slow_step"]
    spans = [np.array([s["span_us"] for s in c["steps"]]) for c in docs]
    judged = slow_steps(spans, rule.thresholds["excess_over_median"], int(rule.thresholds["min_steps"]))
    return {"slow_compute": {f.card for f in flags if f.metric == "compute_us"},
            "slow_data": {f.card for f in flags if f.metric == "step_interval_us"},
            "slow_cards (any)": {f.card for f in flags},
            "slow_step": {c["card"] for c, j in zip(docs, judged, strict=True) if j.rows}}


# ------------------------------------------------------------------------- per-card documents from the draws
def draw_cluster(specs: list[CardSpec]) -> list[list[StepLocal]]:
    """``draws[k][card]``: step k + 1 of every card, drawn once."""
    return [[draw_step(s, k + 1) for s in specs] for k in range(specs[0].steps)]


def card_documents(specs: list[CardSpec], draws: list[list[StepLocal]]) -> list[dict]:
    """Per card, per step: span, compute, step interval and pure communication (µs), as the analysis of
    the written trace measures them: compute = |U(compute tasks)|, step interval = first compute − step
    start, pure communication = |U(communication operators) − U(compute)|."""
    sched = build_schedule(specs, draws=draws)
    docs = [{"card": f"rank {s.rank}", "steps": []} for s in specs]
    for k in range(sched.steps):
        start, end = int(sched.step_start[k]), int(sched.step_end[k])
        for c, loc in enumerate(draws[k]):
            compute = ~loc.other
            t0 = int(sched.t0[k, c])
            cs = loc.rel_start[compute] + t0
            ce = cs + loc.dur[compute]
            comp = union(cs, ce).total()
            os_, oe = sched.op_start[k, :, c], sched.op_end[k]
            both = union(np.concatenate((cs, os_)), np.concatenate((ce, oe))).total()
            docs[c]["steps"].append({
                "step": k + 1, "span_us": (end - start) / NS_PER_US, "compute_us": comp / NS_PER_US,
                "step_interval_us": (int(cs.min()) - start) / NS_PER_US,
                "pure_communication_us": (both - comp) / NS_PER_US})
    return docs


def planted(specs: list[CardSpec], draws: list[list[StepLocal]], card: int, **change) -> tuple[list, list]:
    """The specs and draws of the same cluster with ``card`` changed (only its draws are redrawn)."""
    specs = list(specs)
    specs[card] = replace(specs[card], **change)
    draws = [list(step) for step in draws]
    for k in range(len(draws)):
        draws[k][card] = draw_step(specs[card], k + 1)
    return specs, draws


def variants(size: int, seed: int, steps: int = STEPS, tasks: int = TASKS_PER_STEP):
    """(kind, planted card or None, per-card documents) of one seed: healthy, slow compute, slow data."""
    specs = cluster_specs(size, seed=seed, steps=steps, tasks_per_step=tasks, data_wait_us=DATA_WAIT_US)
    draws = draw_cluster(specs)
    yield HEALTHY, None, card_documents(specs, draws)
    rng = np.random.default_rng([seed, size, 7])
    slow, data = (int(x) for x in rng.choice(size, 2, replace=False))
    yield SLOW_COMPUTE, slow, card_documents(*planted(specs, draws, slow, compute_scale=PLANT_FACTOR))
    yield SLOW_DATA, data, card_documents(*planted(specs, draws, data, data_wait_us=PLANT_FACTOR * DATA_WAIT_US))


# ------------------------------------------------------------------------- the rates
def named_alone(verdicts: dict[str, set[str]], rule: str, card: str) -> bool:
    """The rule names ``card`` and the slow-card rules name nobody else."""
    others = (verdicts["slow_cards (any)"] | verdicts[rule]) - {card}
    return card in verdicts[rule] and not others


def run_size(size: int, runs: int, steps: int = STEPS, tasks: int = TASKS_PER_STEP) -> dict:
    counts = {v: {r: {"fp": 0, "hit": 0} for r in RULES} for v in ("old", "new")}
    t = time.perf_counter()
    for seed in range(runs):
        for kind, card, docs in variants(size, 1000 + seed, steps, tasks):
            for version, judge in (("old", old_verdicts), ("new", new_verdicts)):
                verdicts = judge(docs)
                c = counts[version]
                if kind == HEALTHY:
                    for r in RULES:
                        c[r]["fp"] += bool(verdicts[r])
                else:
                    c[kind]["hit"] += named_alone(verdicts, kind, f"rank {card}")
    return {"size": size, "runs": runs, "seconds": time.perf_counter() - t, "counts": counts}


def table(results: list[dict]) -> str:
    lines = [f"{'rule':18} {'size':>5}  {'old FP':>7} {'old det':>7}  {'new FP':>7} {'new det':>7}"]
    for r in RULES:
        for res in results:
            n = res["runs"]
            o, w = res["counts"]["old"][r], res["counts"]["new"][r]
            det = r in (SLOW_COMPUTE, SLOW_DATA)
            old_det, new_det = (f"{100 * x['hit'] / n:6.0f}%" if det else f"{'':>7}" for x in (o, w))
            lines.append(f"{r:18} {res['size']:5d}  {100 * o['fp'] / n:6.0f}% {old_det}  {100 * w['fp'] / n:6.0f}% "
                         f"{new_det}")
    return "\n".join(lines)


def meets_targets(results: list[dict]) -> bool:
    ok = True
    for res in results:
        n, c = res["runs"], res["counts"]["new"]
        ok &= all(c[r]["fp"] <= FALSE_ALARM_TARGET * n for r in RULES)
        ok &= all(c[r]["hit"] >= DETECTION_TARGET * n for r in (SLOW_COMPUTE, SLOW_DATA))
    return bool(ok)


# ------------------------------------------------------------------------- the check against written traces
def verify(seeds: int = 2, size: int = 8) -> bool:
    """On small written clusters: the documents from the draws match the loaded traces' step metrics, and
    both give the same verdicts, under both rules."""
    from timelineview.analysis.session import AnalysisSession
    from timelineview.model import load
    from timelineview.synthetic import generate_cluster

    same = True
    for seed in range(seeds):
        for kind, card, docs in variants(size, 1000 + seed):
            specs = cluster_specs(size, seed=1000 + seed, steps=STEPS, tasks_per_step=TASKS_PER_STEP,
                                  data_wait_us=DATA_WAIT_US)
            if kind == SLOW_COMPUTE:
                specs[card] = replace(specs[card], compute_scale=PLANT_FACTOR)
            elif kind == SLOW_DATA:
                specs[card] = replace(specs[card], data_wait_us=PLANT_FACTOR * DATA_WAIT_US)
            with tempfile.TemporaryDirectory() as tmp:
                generate_cluster(tmp, specs, "msprof")
                session = AnalysisSession(load(tmp))
                loaded = [{"card": c["card"], "steps": c["steps"]} for c in session.stats_document()["cards"]]
            worst = 0.0
            for a, b in zip(docs, loaded, strict=True):
                for sa, sb in zip(a["steps"], b["steps"], strict=True):
                    for key in ("span_us", "compute_us", "step_interval_us", "pure_communication_us"):
                        worst = max(worst, abs(sa[key] - sb[key]))
            for version, judge in (("old", old_verdicts), ("new", new_verdicts)):
                agree = judge(docs) == judge(loaded)
                same &= agree
                print(f"verify seed {seed} {kind:12} {version}: verdicts {'agree' if agree else 'DIFFER'} "
                      f"(largest metric difference {worst:.3f} µs) {judge(loaded)}", flush=True)
    return same


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=RUNS)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--tasks", type=int, default=TASKS_PER_STEP, help="compute tasks per step")
    ap.add_argument("--verify", action="store_true", help="first check the documents against written traces")
    args = ap.parse_args()
    t0 = time.perf_counter()
    verified = verify() if args.verify else None
    results = []
    for size in (int(x) for x in args.sizes.split(",")):
        res = run_size(size, args.runs, args.steps, args.tasks)
        results.append(res)
        print(f"{size} cards: {args.runs} seeds × 3 variants in {res['seconds']:.0f} s", flush=True)
    print(f"{args.steps} steps, {args.tasks} compute tasks per step, planted ×{PLANT_FACTOR}")
    print(table(results))
    ok = meets_targets(results)
    print(f"targets (≤ {FALSE_ALARM_TARGET:.0%} false positives, ≥ {DETECTION_TARGET:.0%} detection alone): "
          f"{'met' if ok else 'NOT met'}; {time.perf_counter() - t0:.0f} s in all")
    print(json.dumps({"verified": verified, "targets_met": ok, "seconds": time.perf_counter() - t0,
                      "results": results}))


if __name__ == "__main__":
    main()
