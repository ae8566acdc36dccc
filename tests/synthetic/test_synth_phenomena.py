"""What real clusters do and the generator can now plant (both off by default): data-loader hiccups shared by
every card (``step_stall_share``) and host bubbles that move one card's step marker (``host_bubble_share``).
Checked on the loaded traces of both layout families against the same cluster without them."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.schedule import build_schedule

CARDS, STEPS = 4, 6


def steps_of(tmp_path, layout: str, **phenomena) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """(span, compute, step interval) per card and step (µs) of the loaded traces, and the ground truths."""
    specs = cluster_specs(CARDS, seed=11, steps=STEPS, tasks_per_step=80, **phenomena)
    root = tmp_path / "_".join(f"{k}{v}" for k, v in phenomena.items())
    truths = generate_cluster(root, specs, layout)
    cards = AnalysisSession(load(root)).stats_document()["cards"]
    table = np.array([[[s[k] for s in c["steps"]] for c in cards]
                      for k in ("span_us", "compute_us", "step_interval_us")])
    return table[0], table[1], table[2], truths


@pytest.mark.parametrize("layout", ["msprof", "mindspore_gen_c"])
def test_a_host_bubble_moves_one_cards_marker_and_nothing_else(tmp_path, layout):
    span0, compute0, interval0, _ = steps_of(tmp_path, layout)
    span, compute, interval, truths = steps_of(tmp_path, layout, host_bubble_share=0.5)
    # how much later each card's step start marker was written (µs; step 1's never moves)
    moved = build_schedule(cluster_specs(CARDS, seed=11, steps=STEPS, tasks_per_step=80,
                                         host_bubble_share=0.5)).marker_shift.T / 1000.0
    assert (moved[:, 0] == 0).all() and (moved > 0).sum() >= 3 and (moved == 0).sum() >= 3
    # the device work is where it was: every step computes the same
    np.testing.assert_allclose(compute, compute0, atol=1e-3)
    # a moved boundary makes step k longer and step k + 1 shorter by as much, on that card only
    end_moved = np.hstack([moved[:, 1:], np.zeros((CARDS, 1))])
    np.testing.assert_allclose(span - span0, end_moved - moved, atol=1e-3)
    np.testing.assert_allclose(interval0 - interval, moved, atol=1e-3)
    # a marker never passes the device work of the step it opens: it stays inside the data wait
    assert (interval > 0).all()
    # the ground truth says where the markers are
    for c, t in enumerate(truths):
        np.testing.assert_allclose(np.diff(t.step_start_ns) / 1000.0, span[c, :-1], atol=1e-3)


@pytest.mark.parametrize("layout", ["msprof", "mindspore_gen_c"])
def test_a_shared_hiccup_lengthens_a_steps_data_wait_alike_on_every_card(tmp_path, layout):
    span0, compute0, interval0, _ = steps_of(tmp_path, layout)
    span, compute, interval, _ = steps_of(tmp_path, layout, step_stall_share=0.5)
    np.testing.assert_allclose(compute, compute0, atol=1e-3)
    extra = interval - interval0
    np.testing.assert_allclose(extra, np.broadcast_to(extra[0], extra.shape), atol=1e-3)  # the same on every card
    hit = extra[0] > 0
    assert 1 <= hit.sum() < STEPS
    # 20-50 % of the step's nominal work: a step of the hiccup is that much longer on every card
    share = extra[0][hit] / np.median(span0, axis=0)[hit]
    assert ((share > 0.19) & (share < 0.51)).all()
    np.testing.assert_allclose(span - span0, np.broadcast_to(extra[0], span.shape), atol=1e-3)
