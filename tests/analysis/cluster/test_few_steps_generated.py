"""Slow cards and who the others wait for on generated 32-card clusters of 3 steps (metrics.md §4): the
generator's shared heavy-tailed step noise (one step in ten 20–50 % long on every card), host bubbles that
move step markers and kernels that now and then run several times their length. A healthy cluster names
nobody; a card computing 1.3x slower is named, alone.

The step metrics and collective waits are taken from the generator's own draws and schedule (what the
analysis of the written trace measures), so the truth does not go through the loader or the rule."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.cluster.slow_cards import median_step_time, slow_cards
from timelineview.analysis.findings.marks import wait_verdict
from timelineview.analysis.intervals import union
from timelineview.synthetic import cluster_specs
from timelineview.synthetic.comm.planes import WAIT_AFTER_NS
from timelineview.synthetic.schedule import build_schedule
from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND, draw_step

CARDS = 32
STEPS = 3
NS_PER_US = 1000.0
FIRST_WAIT_MIN_NS = 20  # the generator's least first wait on a plane
# (seed, operators per step): the first four are healthy clusters that the former by-chance check named a
# card in (two stalls of one card in 3 steps, no other step as high), the last two any others
HEALTHY = [(1018, 55), (1021, 169), (1023, 200), (1025, 104), (1000, 120), (1001, 80)]
PLANTED = [1000, 1001, 1002, 1003]


def generated(seed: int, tasks: int, **change) -> tuple[list[dict], np.ndarray, np.ndarray]:
    """Per card its step documents (span, compute = |U(compute tasks)|, step interval = first compute − the
    card's step start, µs), and the collectives' first waits on the main plane (ns, collectives × cards)
    with each collective's step."""
    specs = cluster_specs(CARDS, seed=seed, steps=STEPS, tasks_per_step=tasks, data_wait_us=2000.0,
                          step_stall_share=0.1, host_bubble_share=0.1, **change)
    draws = [[draw_step(s, k + 1) for s in specs] for k in range(STEPS)]
    sched = build_schedule(specs, draws=draws)
    docs = [{"card": f"rank {s.rank}", "steps": []} for s in specs]
    for k in range(STEPS):
        for c, loc in enumerate(draws[k]):
            start, end = sched.card_bounds(k, c)
            compute = ~loc.other
            cs = loc.rel_start[compute] + int(sched.t0[k, c])
            docs[c]["steps"].append({"step": k + 1, "span_us": (end - start) / NS_PER_US,
                                     "compute_us": union(cs, cs + loc.dur[compute]).total() / NS_PER_US,
                                     "step_interval_us": (int(cs.min()) - start) / NS_PER_US})
    waits, steps = [], []
    for k in range(STEPS):
        for j, kind in enumerate(sched.kinds):
            if kind in (KIND_SEND, KIND_RECEIVE):
                continue  # point-to-point, not a collective
            arrive = sched.op_start[k, j].astype(np.int64)
            # every card waits until the last one arrives: the collective's end less its transfer
            wait_end = np.maximum(sched.op_end[k, j].astype(np.int64) - sched.op_xfer[k, j].astype(np.int64), arrive)
            first = arrive + WAIT_AFTER_NS
            waits.append(np.maximum(wait_end, first + FIRST_WAIT_MIN_NS) - first)
            steps.append(k + 1)
    return docs, np.array(waits, dtype=np.float64), np.array(steps, dtype=np.int64)


def waited_for(docs: list[dict], waits: np.ndarray, steps: np.ndarray) -> list[str]:
    return [f.card for f in wait_verdict([d["card"] for d in docs], waits, steps, median_step_time(docs)).flags]


@pytest.mark.parametrize(("seed", "tasks"), HEALTHY)
def test_a_healthy_three_step_cluster_names_nobody(seed, tasks):
    docs, waits, steps = generated(seed, tasks)
    assert slow_cards(docs) == []
    assert waited_for(docs, waits, steps) == []


@pytest.mark.parametrize("seed", PLANTED)
def test_a_card_computing_1_3x_slower_in_a_three_step_cluster_is_named_alone(seed):
    slow = seed % CARDS
    docs, waits, steps = generated(seed, 200, slow_card=slow, slow_factor=1.3)
    assert [(f.card, f.metric) for f in slow_cards(docs)] == [(f"rank {slow}", "compute_us")]
    # the others wait for it, or the headline names nobody: never another card
    assert set(waited_for(docs, waits, steps)) <= {f"rank {slow}"}
