"""pipeline_stage_imbalance on generated pipelines of stages: a healthy one (equal compute per stage) marks
nothing although MindSpore's stage time grows along it; a stage computing 1.3x as long is named alone."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

STAGES = 8
SLOW_STAGE = 5
SLOW_FACTOR = 1.3
BASE = {"seed": 3, "steps": 4, "tasks_per_step": 160, "pipeline": True, "pipeline_stages": True}


def _session(folder, **extra) -> AnalysisSession:
    generate_cluster(folder, cluster_specs(STAGES, **BASE, **extra), "msprof")
    return AnalysisSession(load(folder))


def _stage_findings(session: AnalysisSession) -> list:
    return [f for f in session.findings if f.rule == "pipeline_stage_imbalance"]


@pytest.mark.parametrize("microbatches", [0, 4])
def test_a_healthy_pipeline_has_no_stage_imbalance(tmp_path, microbatches):
    session = _session(tmp_path, microbatches=microbatches)
    rows = {r["card"]: r for r in session.comparison.rows()}
    # MindSpore's stage time (step - receive-only) counts the waits in sends, fill and drain: it falls or
    # grows along the stages by far more than 10 % although every stage computes the same
    stage = [rows[f"rank {r}"]["pipeline_stage_us"] for r in range(1, STAGES)]
    assert max(stage) > 1.2 * min(stage)
    assert _stage_findings(session) == []
    assert [f for f in session.findings if f.rule == "flops_imbalance"] == []  # every stage computes the same


@pytest.mark.parametrize("microbatches", [0, 4])
def test_a_slow_stage_is_named_alone(tmp_path, microbatches):
    session = _session(tmp_path, microbatches=microbatches, slow_card=SLOW_STAGE, slow_factor=SLOW_FACTOR)
    [finding] = _stage_findings(session)
    assert finding.cards == [f"rank {SLOW_STAGE}"] and finding.metric == "compute_us"
    # its compute per step: the mean over its steps of the comparison's per-step rows, independently of the
    # rule; the reference is the median of the other stages'
    compute = {c.card: float(np.mean([s["compute_us"] for s in c.steps])) for c in session.comparison.cards}
    assert finding.value == pytest.approx(compute[f"rank {SLOW_STAGE}"], rel=1e-6)
    # a chain pipeline's first stage receives nothing: it has no stage time and is not compared
    others = [v for card, v in compute.items() if card != f"rank {SLOW_STAGE}" and (microbatches or card != "rank 0")]
    assert finding.reference == pytest.approx(float(np.median(others)), rel=1e-6)
    assert finding.value >= 1.1 * finding.reference
