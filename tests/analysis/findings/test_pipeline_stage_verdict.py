"""pipeline_stage_imbalance on generated pipelines of stages: a healthy one (equal compute per stage) marks
nothing although MindSpore's stage time grows along it; a stage computing 1.3x as long is named alone."""

from __future__ import annotations

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


@pytest.mark.parametrize("microbatches", [0, 4])
def test_a_slow_stage_is_named_alone(tmp_path, microbatches):
    session = _session(tmp_path, microbatches=microbatches, slow_card=SLOW_STAGE, slow_factor=SLOW_FACTOR)
    [finding] = _stage_findings(session)
    assert finding.cards == [f"rank {SLOW_STAGE}"] and finding.metric == "stage_own_us"
    # its own time (step - pure communication), from the comparison's rows independently of the rule
    rows = {r["card"]: r for r in session.comparison.rows()}
    own = rows[f"rank {SLOW_STAGE}"]["step_time_us"] - rows[f"rank {SLOW_STAGE}"]["pure_communication_us"]
    assert finding.value == pytest.approx(own, rel=1e-6)
    assert finding.value >= 1.1 * finding.reference
