"""The ``slow_data`` finding shows a span for every step its advice counts: "above ... in 4 of 4 steps"
lists four step intervals, not the usual three."""

from __future__ import annotations

import re

from timelineview.analysis.findings import evaluate_findings
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

STEPS = 4
SLOW_DATA_CARD = 5


def test_slow_data_lists_a_span_for_each_step_it_counts(tmp_path):
    generate_cluster(tmp_path, cluster_specs(8, seed=3, steps=STEPS, tasks_per_step=60,
                                             slow_data_card=SLOW_DATA_CARD), "msprof")
    stores = load(tmp_path)
    [finding] = [f for f in evaluate_findings(AnalysisSession(stores)) if f.rule == "slow_data"]
    above, steps = (int(x) for x in re.search(r"in (\d+) of (\d+) steps", finding.advice).groups())
    assert steps == STEPS and above > 3  # more steps than the usual three spans
    assert len(finding.evidence) == above
    # each span is one step's interval of that card: distinct, and none holds another's start
    starts = sorted(e.start_ns for e in finding.evidence)
    assert len(set(starts)) == above
    assert all(e.card == f"rank {SLOW_DATA_CARD}" for e in finding.evidence)
    spans = sorted((e.start_ns, e.end_ns) for e in finding.evidence)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
