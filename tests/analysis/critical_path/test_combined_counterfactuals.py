"""What-if on clusters holding two problems at once (metrics.md §12): a 1.15× card and a 3× link. Each
change is replayed while the other problem stays, so its truth is the same seed generated with only the
other problem — the twin in which this one was never planted."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.critical_path.cluster_graph import session_graph
from timelineview.analysis.critical_path.what_if import CARD_AT_MEDIAN, LINK_AT_MEDIAN, Change, predict
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster

SLOW_CARD = {"slow_card": 5, "slow_factor": 1.15}
SLOW_LINK = {"slow_link": (2, 3), "slow_link_factor": 3.0, "slow_link_delays": True}
# (seed, compute tasks a step): with few tasks the slow link holds back the collectives after it, so
# every card's launch of the next one is queued behind it and tells nothing of when the card was ready.
CASES = [(7, 160), (1, 160), (11, 160), (3, 400)]


def measured_step_us(session) -> float:
    """The mean step, each the median over the cards of their step windows (independent of the graph)."""
    return float(np.median([[s["dur_us"] for s in c["steps"]] for c in session.card_documents], axis=0).mean())


@pytest.fixture(scope="module", params=CASES, ids=[f"seed{s}-{n}tasks" for s, n in CASES])
def clusters(request, tmp_path_factory):
    seed, tasks = request.param
    base = {"seed": seed, "steps": 3, "tasks_per_step": tasks}
    out = {}
    for name, extra in {"both": {**SLOW_CARD, **SLOW_LINK}, "card_only": SLOW_CARD, "link_only": SLOW_LINK}.items():
        folder = tmp_path_factory.mktemp(f"seed{seed}_{tasks}_{name}")
        generate_cluster(folder, cluster_specs(8, **base, **extra), "msprof", options=WriteOptions(step_trace=True))
        out[name] = AnalysisSession(load(folder))
    return out


@pytest.mark.parametrize(("change", "twin"), [
    (Change(CARD_AT_MEDIAN, "rank 5"), "link_only"),
    (Change(LINK_AT_MEDIAN, "2-3"), "card_only"),
], ids=["card", "link"])
def test_each_change_meets_the_twin_without_its_problem(clusters, change, twin):
    now = measured_step_us(clusters["both"])
    truth = measured_step_us(clusters[twin])
    true_gain = now - truth
    assert true_gain > 0.01 * now  # the problem costs time with the other one there, else the check says nothing
    w = predict(session_graph(clusters["both"]), change)
    assert w.step_us_now == pytest.approx(now, abs=0.5)
    assert abs(w.step_us_predicted - truth) <= max(0.005 * truth, 0.2 * true_gain)
