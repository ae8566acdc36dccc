"""Checks the counterfactual tests of the critical path share: the measured steps, independent of the graph,
and what a slow card's lengthened steps must show on its path."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.critical_path.cluster_graph import session_graph
from timelineview.analysis.critical_path.replay import ReplayInputs, replay

LONGER = 1.005  # a step this much longer than its healthy twin is one the slow card lengthened
HELD_SHARE = 0.5  # of the lengthening, at least this much must be the slow card's own time on the path


def measured_steps_us(session) -> np.ndarray:
    """Each step's duration, the median over the cards of their step windows (independent of the graph)."""
    return np.median([[s["dur_us"] for s in card["steps"]] for card in session.card_documents], axis=0)


def assert_slow_card_holds_its_lengthened_steps(slow_session, healthy_session, card: str) -> None:
    """Every step the slow card lengthened has it on the path, holding more of the step than in the healthy
    twin: at least half of the lengthening."""
    slow = slow_session.stats_document()["critical_path"]
    healthy = healthy_session.stats_document()["critical_path"]
    bad, good = measured_steps_us(slow_session), measured_steps_us(healthy_session)
    longer = [k for k in range(len(bad)) if bad[k] > good[k] * LONGER]
    assert longer
    for k in longer:
        assert card in slow[k]["cards"]
        held = slow[k]["share_by_card"][card] * slow[k]["step_us"]
        was = healthy[k]["share_by_card"].get(card, 0.0) * healthy[k]["step_us"]
        assert held - was >= HELD_SHARE * (bad[k] - good[k])


def assert_replay_gives_the_measured_steps(sessions) -> None:
    """Replayed without a change, each session's graph gives its measured steps. The graph frames a step by the
    median start and end over the cards, the reference by the median duration: they differ by the trace
    timestamps' rounding only (within 0.5 µs)."""
    for session in sessions:
        g = session_graph(session)
        assert g is not None and not g.skipped_steps
        tl = replay(g, ReplayInputs.measured(g))
        np.testing.assert_allclose(tl.step / 1000.0, measured_steps_us(session), atol=0.5)
