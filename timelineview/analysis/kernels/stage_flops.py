"""FLOPs per pipeline stage (metrics.md §7.1, MindInsight's "FLOPs heat map"): per card with pipeline
parallelism, the mean over its steps of the FLOPs its compute tasks count and its MFU.

The trace names no stage: each card with receive operators is one stage's member. Data-parallel replicas of a
stage compute the same FLOPs, so the cards' extremes are the stages' (``flops_imbalance`` compares them).
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.cluster.comparison import ClusterComparison


def _mean(values: list) -> float | None:
    present = [float(v) for v in values if v is not None]
    return float(np.mean(present)) if present else None


def pipeline_stages(comparison: ClusterComparison) -> list[dict]:
    """Per usable card with pipeline parallelism (by rank): ``card``, ``rank``, ``steps``, ``flops_per_step``
    and ``mfu`` (means over its steps; ``mfu`` null without a known peak). Empty when no card has a pipeline
    or none counts FLOPs."""
    out = []
    for c in comparison.cards:
        if not c.usable or not any(s.get("pipeline") for s in c.steps):
            continue
        out.append({"card": c.card, "rank": c.rank, "steps": len(c.steps),
                    "flops_per_step": _mean([s.get("flops") for s in c.steps]),
                    "mfu": _mean([s.get("mfu") for s in c.steps])})
    return out if any(s["flops_per_step"] for s in out) else []

