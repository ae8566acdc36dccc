"""Calibration of ``pipeline_stage_imbalance`` and ``flops_imbalance`` on generated pipelines of stages.

    python benchmarks/bench_pipeline_stages.py               # a few seeds per shape
    python benchmarks/bench_pipeline_stages.py --seeds 20    # more

Each run writes a pipeline of stages with the generator (chain pipelines without microbatches and 1F1B ones
with 2 to 4, 4/8/16 stages, 3 to 8 steps, the shared heavy-tailed step stalls and per-card host bubbles on),
loads it and evaluates the findings. Healthy runs (every stage computes the same) count a false mark when
either rule fires; planted runs (one stage computing 1.3x slower) count a detection when
``pipeline_stage_imbalance`` names that stage alone. Targets: <= 1 % false marks, >= 95 % detection.
The written traces are analysed in full, so a run takes seconds: use few seeds on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from timelineview.analysis.findings.evaluate import session_signals  # noqa: E402
from timelineview.analysis.session import AnalysisSession  # noqa: E402
from timelineview.model import load  # noqa: E402
from timelineview.synthetic import cluster_specs, generate_cluster  # noqa: E402

STAGES = (4, 8, 16)
MICROBATCHES = (0, 2, 3, 4)  # 0: a chain pipeline
STEPS = (3, 8)
TASKS_PER_STEP = 160
SLOW_FACTOR = 1.3
STEP_STALL_SHARE = 0.1
HOST_BUBBLE_SHARE = 0.1
RULES = ("pipeline_stage_imbalance", "flops_imbalance")


def run(stages: int, microbatches: int, seed: int, slow: int | None) -> dict:
    """The cards each of ``RULES`` names on one generated pipeline (a list per finding), and under ``ratio``
    the highest stage's compute per step over the median of the other stages' (what the rule compares to 1.10)."""
    steps = int(np.random.default_rng([seed, stages, microbatches]).integers(STEPS[0], STEPS[1] + 1))
    specs = cluster_specs(stages, seed=seed, steps=steps, tasks_per_step=TASKS_PER_STEP, pipeline=True,
                          pipeline_stages=True, microbatches=microbatches, slow_card=slow, slow_factor=SLOW_FACTOR,
                          step_stall_share=STEP_STALL_SHARE, host_bubble_share=HOST_BUBBLE_SHARE)
    with tempfile.TemporaryDirectory() as folder:
        generate_cluster(folder, specs, "msprof")
        session = AnalysisSession(load(folder))
        found = session.findings
        compute = np.array([s.compute_us for s in session_signals(session).values() if s.stage_us is not None])
    top = int(np.argmax(compute))
    out = {rule: [f.cards for f in found if f.rule == rule] for rule in RULES}
    out["ratio"] = float(compute[top] / np.median(np.delete(compute, top)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3, help="seeds per (stages, microbatches)")
    ap.add_argument("--stages", default=",".join(map(str, STAGES)))
    ap.add_argument("--microbatches", default=",".join(map(str, MICROBATCHES)), help="0: a chain pipeline")
    ap.add_argument("--first-seed", type=int, default=0)
    args = ap.parse_args()
    print(f"{'stages':>6} {'micro':>5} {'runs':>4} {'healthy stage %':>15} {'healthy flops %':>15} "
          f"{'detected %':>10} {'healthy max ratio':>17} {'planted min ratio':>17}")
    results = []
    for stages in map(int, args.stages.split(",")):
        for micro in map(int, args.microbatches.split(",")):
            false_stage = false_flops = detected = 0
            healthy_ratios, planted_ratios = [], []
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                healthy = run(stages, micro, seed, None)
                false_stage += bool(healthy["pipeline_stage_imbalance"])
                false_flops += bool(healthy["flops_imbalance"])
                slow = 1 + seed % (stages - 1)  # a different stage each seed
                planted = run(stages, micro, seed, slow)
                detected += planted["pipeline_stage_imbalance"] == [[f"rank {slow}"]]
                healthy_ratios.append(healthy["ratio"])
                planted_ratios.append(planted["ratio"])
            n = args.seeds
            row = {"stages": stages, "microbatches": micro, "runs": n, "healthy_stage_pct": 100 * false_stage / n,
                   "healthy_flops_pct": 100 * false_flops / n, "detected_pct": 100 * detected / n,
                   "healthy_max_ratio": max(healthy_ratios), "planted_min_ratio": min(planted_ratios)}
            results.append(row)
            print(f"{stages:>6} {micro:>5} {n:>4} {row['healthy_stage_pct']:>15.1f} {row['healthy_flops_pct']:>15.1f} "
                  f"{row['detected_pct']:>10.1f} {row['healthy_max_ratio']:>17.3f} {row['planted_min_ratio']:>17.3f}",
                  flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
