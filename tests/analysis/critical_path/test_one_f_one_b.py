"""Critical path and what-if on generated 1F1B pipelines (metrics.md §12): forwards send activations to the
next stage and backwards send gradients to the previous one in the same step, microbatch after microbatch.
Every check compares against the counterfactual run: the same seed generated without the planted problem."""

from __future__ import annotations

import numpy as np
import pytest

from tests.analysis.critical_path.path_checks import (
    assert_replay_gives_the_measured_steps,
    assert_slow_card_holds_its_lengthened_steps,
    measured_steps_us,
)
from timelineview.analysis.critical_path.cluster_graph import session_graph
from timelineview.analysis.critical_path.slots import RECEIVE, SEND
from timelineview.analysis.critical_path.what_if import CARD_AT_MEDIAN, LINK_AT_MEDIAN, Change, predict
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster

# (stages, microbatches, seed, slow stage): sizes and layouts of the pipeline; a slow stage near the start
# holds many transfers in a row (its previous operator several slots back)
CASES = [(4, 2, 7, 3), (8, 4, 3, 5), (16, 3, 5, 9), (4, 4, 11, 1)]
SLOW_FACTOR = 1.3
LINK_FACTOR = 3.0
TASKS_PER_STEP = 160


def problems(slow: int) -> dict[str, dict]:
    """The planted problems: a slow stage, a slow link on the forward direction 2 → 3 and one on the
    backward direction 3 → 2 (each slows only the transfers that go its way)."""
    return {"slow_card": {"slow_card": slow, "slow_factor": SLOW_FACTOR},
            "slow_forward_link": {"slow_link": (2, 3), "slow_link_factor": LINK_FACTOR, "slow_link_delays": True},
            "slow_backward_link": {"slow_link": (3, 2), "slow_link_factor": LINK_FACTOR, "slow_link_delays": True}}


def changes(slow: int) -> dict[str, Change]:
    return {"slow_card": Change(CARD_AT_MEDIAN, f"rank {slow}"),
            "slow_forward_link": Change(LINK_AT_MEDIAN, "2-3"), "slow_backward_link": Change(LINK_AT_MEDIAN, "3-2")}


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0]}stages_{c[1]}micro_seed{c[2]}_slow{c[3]}")
def pipeline(request, tmp_path_factory):
    """Per case, the sessions of the healthy pipeline and of each planted problem (same seed)."""
    stages, micro, seed, slow = request.param
    base = {"seed": seed, "steps": 3, "tasks_per_step": TASKS_PER_STEP, "pipeline": True, "pipeline_stages": True,
            "microbatches": micro}
    out = {}
    for name, extra in {"healthy": {}, **problems(slow)}.items():
        folder = tmp_path_factory.mktemp(f"1f1b_{stages}_{micro}_{name}")
        generate_cluster(folder, cluster_specs(stages, **base, **extra), "msprof",
                         options=WriteOptions(step_trace=True))
        out[name] = AnalysisSession(load(folder))
    return stages, micro, out, slow



def test_the_graph_pairs_transfers_both_ways(pipeline):
    """Each stage but the ends holds 2 × microbatches receives and as many sends, half each way, and each
    pairs with its peer's opposite operator."""
    stages, micro, sessions, _ = pipeline
    g = session_graph(sessions["healthy"])
    assert g is not None and not g.skipped_steps and len(g.steps) == 3
    lay = g.layout
    for c in range(stages):
        for kind in (SEND, RECEIVE):
            slots = np.flatnonzero((lay.kind == kind) & lay.present[:, c])
            peers = lay.peer_card[slots, c]
            toward = {c - 1: int((peers == c - 1).sum()), c + 1: int((peers == c + 1).sum())}
            assert len(slots) == sum(toward.values())  # only neighbours
            assert toward == {c - 1: micro if c > 0 else 0, c + 1: micro if c < stages - 1 else 0}
            back = lay.peer_slot[slots, c]
            assert np.all(lay.kind[back] == (RECEIVE if kind == SEND else SEND))
            assert np.all(lay.peer_card[back, peers] == c)


def test_each_stage_counts_the_compute_tasks_of_its_steps(pipeline):
    """What the what-if of a slow stage prices its operators by: every stage runs the step's drawn compute
    tasks (``tasks_per_step`` of them, chores aside), whatever its place in the pipeline."""
    stages, _, sessions, _ = pipeline
    g = session_graph(sessions["healthy"])
    assert g.type_count is not None
    np.testing.assert_array_equal(g.type_count.sum(axis=2), np.full((len(g.steps), stages), TASKS_PER_STEP))


def test_replay_without_change_gives_the_measured_steps(pipeline):
    assert_replay_gives_the_measured_steps(pipeline[2].values())


def test_a_slow_stage_is_on_the_path_of_its_lengthened_steps(pipeline):
    _, _, sessions, slow = pipeline
    assert_slow_card_holds_its_lengthened_steps(sessions["slow_card"], sessions["healthy"], f"rank {slow}")


@pytest.mark.parametrize("problem", ["slow_card", "slow_forward_link", "slow_backward_link"])
def test_the_what_if_meets_the_counterfactual(pipeline, problem):
    _, _, sessions, slow = pipeline
    now = measured_steps_us(sessions[problem]).mean()
    truth = measured_steps_us(sessions["healthy"]).mean()
    true_gain = now - truth
    assert true_gain > 0.01 * now  # the planted problem costs time, else the check says nothing
    w = predict(session_graph(sessions[problem]), changes(slow)[problem])
    assert w.step_us_now == pytest.approx(now, abs=0.5)
    assert abs(w.step_us_predicted - truth) <= max(0.005 * truth, 0.2 * true_gain)


def test_path_segments_name_each_cards_own_operator(pipeline):
    """A 1F1B slot holds a different operator on each card (each stage's own send or receive): a segment on
    the path names the operator its card ran, as the card's trace names it, so clicking it finds it."""
    _, _, sessions, _ = pipeline
    session = sessions["slow_card"]
    names = {}
    for i in session.order:
        source = session.sources[i]
        comm = source.analyse(("communication",)).communication
        strings, name_of = source.store.strings, source.store.slices.name
        names[f"rank {source.rank}"] = {strings[name_of[x]] for x in comm.ops.slice.tolist()}
    checked = 0
    for step in session.stats_document()["critical_path"]:
        for seg in step["segments"]:
            if seg["kind"] in ("collective", "launch") and seg["name"]:
                assert seg["name"] in names[seg["card"]], seg
                checked += 1
    assert checked
