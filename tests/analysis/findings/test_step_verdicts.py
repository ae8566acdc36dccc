"""Slow steps as a property of the job (metrics.md §4, revised): a step slow on every card is one finding
about the job; a step slow on one card only is judged among cards × steps; a host bubble that moves a step
marker is not a slow step; heavy-tailed step-to-step noise is not one either."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.findings import evaluate_findings
from timelineview.analysis.findings.step_verdicts import MIN_STEP_RATIO, StepGrid, net_boundary_shifts, slow_steps
from timelineview.analysis.findings.text import findings_text
from timelineview.analysis.session import AnalysisSession
from timelineview.synthetic import cluster_specs
from timelineview.synthetic.schedule import build_schedule

from .planted import StepShape, card

STEP_US = 50 + 10 * 100 + 100 + 20  # a planted StepShape(): interval, 10 operators of 100 µs, all-reduce, pad
SLOW_US = 50 + 30 * 100 + 100 + 20  # with 30 operators: 2.7x


def grid_of(rows) -> StepGrid:
    return StepGrid.from_cards([{k + 1: v for k, v in enumerate(row)} for row in rows])


def step_findings(stores) -> list:
    return [f for f in evaluate_findings(AnalysisSession(stores)) if f.rule == "slow_step"]


# ------------------------------------------------------------------------------------------ the job's steps
def test_a_step_long_on_every_card_is_one_job_finding_with_no_card_list():
    shapes = [StepShape()] * 5
    shapes[2] = StepShape(ops=30)
    [f] = step_findings([card(shapes, f"rank {r}", r) for r in range(6)])
    assert f.step == 3 and f.cards == [] and f.document()["cards"] == []
    assert f.value == pytest.approx(SLOW_US) and f.reference == pytest.approx(STEP_US)
    assert "on all cards against 1.17 ms for the median step" in f.advice
    assert [e.card for e in f.evidence] == ["rank 0"]  # the card whose step is the cluster's median (a tie)
    assert "slow_step — all cards, step 3" in findings_text([f.document()])  # what `stats` prints


def test_a_step_30_percent_long_on_every_card_names_nobody_and_twice_as_long_names_the_step():
    # 64 lockstep cards, 8 steps: step 7 is 30-37 % long on every card (a data-loader hiccup). The former
    # rule judged each card on its own steps and named the few whose hiccup passed +20 % and its z.
    rng = np.random.default_rng(5)
    base = np.array([100.0, 103.0, 98.0, 101.0, 99.0, 102.0, 100.0, 97.0])
    rows = base * rng.uniform(0.995, 1.005, (64, 8))
    rows[:, 6] *= rng.uniform(1.30, 1.37, 64)
    assert slow_steps(grid_of(rows)) == []
    rows[:, 6] = base[6] * rng.uniform(2.4, 2.6, 64)
    [v] = slow_steps(grid_of(rows))
    assert v.job and v.cards == [] and v.step == 7 and v.compared == 8
    assert v.value == pytest.approx(np.median(rows[:, 6]))
    assert v.reference == pytest.approx(np.median(np.median(rows, axis=0)))


# ------------------------------------------------------------------------------------------ one card's steps
def test_a_planted_slow_step_on_one_card_is_found_and_names_that_card():
    shapes = [StepShape()] * 5
    slow = list(shapes)
    slow[2] = StepShape(ops=30)  # its later steps start later but are not shorter: not a boundary shift
    stores = [card(slow if r == 2 else shapes, f"rank {r}", r) for r in range(6)]
    [f] = step_findings(stores)
    assert f.step == 3 and f.cards == ["rank 2"]
    assert f.value == pytest.approx(SLOW_US) and f.reference == pytest.approx(STEP_US)
    assert "on rank 2 against 1.17 ms for the median card in that step" in f.advice
    assert {e.card for e in f.evidence} == {"rank 2"}


def test_a_card_local_step_is_judged_among_cards_times_steps():
    rng = np.random.default_rng(8)
    rows = 100.0 * rng.uniform(0.98, 1.02, (32, 10))
    rows[17, 4] = 260.0
    [v] = slow_steps(grid_of(rows))
    assert not v.job and v.cards == [17] and v.step == 5 and v.compared == 320
    assert v.reference == pytest.approx(np.median(rows[:, 4]))
    rows[17, 4] = 1.9 * np.median(rows[:, 4])  # below the floor of twice the step's median
    assert MIN_STEP_RATIO == 2.0 and slow_steps(grid_of(rows)) == []


def test_a_host_bubble_that_moves_a_step_marker_is_not_a_slow_step():
    # 8 cards; step 3 is a short step (500 µs). On card 3 a host bubble wrote the marker between steps 3
    # and 4 600 µs late: its step 3 is 2.2x the step's median, its step 4 short by as much.
    rows = np.tile([1000.0, 1000.0, 500.0, 1000.0, 1000.0, 1000.0], (8, 1))
    rows[3, 2], rows[3, 3] = 1100.0, 400.0
    assert slow_steps(grid_of(rows)) == []
    netted = net_boundary_shifts(rows, np.median(rows, axis=0))
    assert netted[3].tolist() == [1000.0, 1000.0, 500.0, 1000.0, 1000.0, 1000.0]
    # the same long step without the short one after it is slow on that card
    rows[3, 3] = 1000.0
    [v] = slow_steps(grid_of(rows))
    assert (v.step, v.cards, v.value, v.reference) == (3, [3], 1100.0, 500.0)


# ------------------------------------------------------------------------------------------ healthy clusters
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_healthy_heavy_tailed_64_card_cluster_has_no_slow_step(seed):
    # The generator's shared hiccups (one step in ten 20-50 % long on every card) and host bubbles (one
    # boundary in ten of each card moved into the next step's data wait), 20 steps of 40 operators; the
    # cards' step lengths as their step markers say (what a loaded trace gives, see tests/synthetic).
    specs = cluster_specs(64, seed=seed, steps=20, tasks_per_step=40, step_stall_share=0.1, host_bubble_share=0.1)
    sched = build_schedule(specs)
    rows = np.array([[np.subtract(*sched.card_bounds(k, c)[::-1]) for k in range(20)] for c in range(64)], float)
    median = np.median(rows, axis=0)
    assert (median > 1.15 * np.median(median)).any()  # a hiccup on every card
    moved = rows / median - 1.0
    assert (moved > 0.15).sum() >= 20  # host bubbles: single cards' steps well past the step's median
    assert slow_steps(grid_of(rows)) == []
