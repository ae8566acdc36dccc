"""A host bubble that moved one card's step marker is put back before its step interval is judged
(metrics.md §4): the card waiting 1.3x longer for its data is named though two of its three markers moved."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.cluster.marker_shifts import marker_shifts
from timelineview.analysis.cluster.slow_cards import slow_cards

CARDS, STEPS = 16, 3
STEP_US, WAIT_US, SLOW_WAIT_US = 10_000.0, 2_000.0, 2_600.0  # the slow card waits 1.3x as long
SLOW, SHIFTED = 5, 9
BUBBLE_US = 1_500.0


def _docs(shifts: dict[tuple[int, int], float]) -> list[dict]:
    """Lockstep cards (every step as long on every card), noisy data waits; ``shifts``: (card, step) -> how
    much later that card's marker of that step was written (its step before longer, that step shorter and its
    step interval shorter by as much)."""
    rng = np.random.default_rng(3)
    docs = []
    for c in range(CARDS):
        steps = []
        for k in range(STEPS):
            wait = (SLOW_WAIT_US if c == SLOW else WAIT_US) + float(rng.normal(0, 40))
            here, after = shifts.get((c, k), 0.0), shifts.get((c, k + 1), 0.0)
            steps.append({"step": k + 1, "span_us": STEP_US - here + after, "step_interval_us": wait - here,
                          "compute_us": 6_000.0 + float(rng.normal(0, 40))})
        docs.append({"card": f"rank {c}", "steps": steps})
    return docs


def test_a_moved_marker_is_told_by_the_two_steps_it_shares():
    docs = _docs({(SHIFTED, 1): BUBBLE_US})
    spans = np.array([[s["span_us"] for s in d["steps"]] for d in docs])
    want = np.zeros(spans.shape)
    want[SHIFTED, 1] = BUBBLE_US  # its marker of step 2 came 1.5 ms late: step 1 long, step 2 short
    assert marker_shifts(spans) == pytest.approx(want)


def test_noise_among_cards_that_run_apart_is_not_a_shift():
    rng = np.random.default_rng(5)
    spans = STEP_US + rng.normal(0, 300, (CARDS, 8))  # no lockstep: every card's steps differ
    assert not marker_shifts(spans).any()


def test_the_slow_data_card_is_named_though_its_markers_moved():
    docs = _docs({(SLOW, 1): BUBBLE_US, (SLOW, 2): BUBBLE_US, (SHIFTED, 1): BUBBLE_US})
    flags = slow_cards(docs)
    assert [(f.card, f.metric) for f in flags] == [(f"rank {SLOW}", "step_interval_us")]
    assert flags[0].steps_above == STEPS  # each step's interval with its marker put back
    # the value is the card's step interval with the moved markers put back: about 2.6 ms, not 1.1 ms
    assert flags[0].value == pytest.approx(SLOW_WAIT_US, abs=150)


def test_a_card_whose_marker_moved_is_not_slow():
    assert slow_cards(_docs({(SHIFTED, 1): BUBBLE_US, (SHIFTED, 2): 2 * BUBBLE_US})) == [
        f for f in slow_cards(_docs({})) if f.card != f"rank {SHIFTED}"]


def test_many_shifts_of_any_size_are_each_put_back():
    """Markers moved by amounts a float sum does not bring back to exactly 0 (1081.3 − 1081.3 + …), some on
    neighbouring boundaries: each run of deviations that comes back within a ns is a shift, found to the ns."""
    steps = 17
    true = np.zeros((CARDS, steps))
    for c in range(CARDS):  # two moved markers per card, a few cards per step (the cards' median is on time)
        true[c, 1 + c % 16] = 200.0 + 73.37 * c
        true[c, 1 + (c + 1 + c % 3) % 16] = 1081.3 - 11.11 * c
    end = np.concatenate([true[:, 1:], np.zeros((CARDS, 1))], axis=1)  # a step ends at the next one's marker
    spans = 10_000.0 + end - true
    assert marker_shifts(spans) == pytest.approx(true, abs=1e-6)


def test_a_marker_written_early_is_no_host_bubble():
    """The host can be late to write a marker, never early: a short step followed by a long one is left alone."""
    spans = np.full((CARDS, 4), STEP_US)
    spans[SHIFTED, 1], spans[SHIFTED, 2] = STEP_US - BUBBLE_US, STEP_US + BUBBLE_US
    assert not marker_shifts(spans).any()
