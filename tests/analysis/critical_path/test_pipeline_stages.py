"""Critical path and what-if on a pipeline of stages: rank r receives rank r − 1's activations, so the
cards hold different operators (the first stage receives nothing, the last sends nothing) and a receive
ends with its peer's send, not with every card (metrics.md §12)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.analysis.critical_path.path_checks import (
    assert_replay_gives_the_measured_steps,
    assert_slow_card_holds_its_lengthened_steps,
    measured_steps_us,
)
from timelineview.analysis.critical_path.cluster_graph import session_graph
from timelineview.analysis.critical_path.replay import ReplayInputs, replay
from timelineview.analysis.critical_path.slots import (
    COLLECTIVE,
    RECEIVE,
    SEND,
    SlotLayout,
    run_levels,
    step_slots,
)
from timelineview.analysis.critical_path.what_if import CARD_AT_MEDIAN, LINK_AT_MEDIAN, Change, predict
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster

CARDS = 8
SLOW = 5
BASE = {"seed": 7, "steps": 3, "tasks_per_step": 160, "pipeline": True, "pipeline_stages": True}
SLOW_LINK = (2, 3)  # the pair of stages 2 → 3 (and the collectives' link between them)
PROBLEMS = {"healthy": {}, "slow_card": {"slow_card": SLOW, "slow_factor": 1.3},
            "slow_link": {"slow_link": SLOW_LINK, "slow_link_factor": 3.0, "slow_link_delays": True}}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    out = {}
    for name, extra in PROBLEMS.items():
        out[name] = tmp_path_factory.mktemp(f"stages_{name}")
        generate_cluster(out[name], cluster_specs(CARDS, **BASE, **extra), "msprof",
                         options=WriteOptions(step_trace=True))
    return out


@pytest.fixture(scope="module")
def sessions(folders):
    return {name: AnalysisSession(load(folder)) for name, folder in folders.items()}



def test_the_graph_pairs_each_receive_with_the_previous_stages_send(sessions):
    g = session_graph(sessions["healthy"])
    assert g is not None and not g.skipped_steps and len(g.steps) == BASE["steps"]
    lay = g.layout
    recv = int(np.flatnonzero(lay.kind == RECEIVE)[0])
    send = int(np.flatnonzero(lay.kind == SEND)[0])
    assert lay.present[recv].tolist() == [False] + [True] * (CARDS - 1)
    assert lay.present[send].tolist() == [True] * (CARDS - 1) + [False]
    for c in range(1, CARDS):
        assert (lay.peer_slot[recv, c], lay.peer_card[recv, c]) == (send, c - 1)
        assert (lay.peer_slot[send, c - 1], lay.peer_card[send, c - 1]) == (recv, c)


def test_replay_without_change_gives_the_measured_steps(sessions):
    assert_replay_gives_the_measured_steps(sessions.values())


def test_a_receive_ends_with_its_peers_send(sessions):
    """Replayed, both sides of a pair end at the later launch plus their transit, so a receive's end is
    never before its peer's send was launched."""
    g = session_graph(sessions["slow_card"])
    tl = replay(g, ReplayInputs.measured(g))
    lay = g.layout
    recv = int(np.flatnonzero(lay.kind == RECEIVE)[0])
    for c in range(1, CARDS):
        send, peer = int(lay.peer_slot[recv, c]), int(lay.peer_card[recv, c])
        later = np.maximum(tl.arrival[:, recv, c], tl.arrival[:, send, peer])
        np.testing.assert_allclose(tl.ends[:, recv, c], later + g.transit[:, recv, c])
        assert np.all(tl.ends[:, recv, c] >= tl.arrival[:, send, peer])


def test_a_slow_stage_is_on_the_path_of_its_lengthened_steps(sessions):
    assert_slow_card_holds_its_lengthened_steps(sessions["slow_card"], sessions["healthy"], f"rank {SLOW}")


def test_path_segments_tile_the_step(sessions):
    doc = sessions["slow_card"].stats_document()
    offsets = {c["card"]: round(c["clock_offset_us"] * 1000) for c in doc["cards"]}
    for step in doc["critical_path"]:
        segs = step["segments"]
        assert sum(s["dur_us"] for s in segs) == pytest.approx(step["step_us"], abs=0.01 * len(segs))
        aligned = [s["start_ns"] - offsets.get(s["card"], 0) for s in segs]
        for a, b, s in zip(aligned, aligned[1:], segs, strict=False):
            # each segment starts where the previous ended (in int: ns since the epoch as float are 256 ns apart)
            assert abs(a + round(s["dur_us"] * 1000) - b) <= 2


@pytest.mark.parametrize(("problem", "change"), [
    ("slow_card", Change(CARD_AT_MEDIAN, f"rank {SLOW}")),
    # the slow link slows its own pair of stages (and the collectives over it), not every pair
    ("slow_link", Change(LINK_AT_MEDIAN, f"{SLOW_LINK[0]}-{SLOW_LINK[1]}")),
])
def test_the_what_if_meets_the_counterfactual(sessions, problem, change):
    now = measured_steps_us(sessions[problem]).mean()
    truth = measured_steps_us(sessions["healthy"]).mean()
    true_gain = now - truth
    assert true_gain > 0.01 * now  # the planted problem costs time, else the check says nothing
    w = predict(session_graph(sessions[problem]), change)
    assert w.step_us_now == pytest.approx(now, abs=0.5)
    assert abs(w.step_us_predicted - truth) <= max(0.005 * truth, 0.2 * true_gain)


def test_a_summary_folder_gives_the_same_path_and_what_ifs(folders, sessions, tmp_path):
    """A summary keeps each operator's peer, so the pairs are rebuilt from it as from the traces."""
    pytest.importorskip("distributed")
    from timelineview.analysis.summaries.summary_session import SummarySession, read_checked_index
    from timelineview.distributed.summarize import summarize

    out = tmp_path / "summary"
    summarize(folders["slow_card"], out, workers=1, progress=None, note=None)
    summary = SummarySession(out, read_checked_index(out), tolerant=True, whole=True)
    kept = summary.stats_document()
    loaded = sessions["slow_card"].stats_document()
    # the task counts the slow card's what-if prices its operators by come back from the summary
    counts = session_graph(summary).type_count
    assert counts is not None
    np.testing.assert_array_equal(counts, session_graph(sessions["slow_card"]).type_count)
    assert len(kept["critical_path"]) == BASE["steps"]
    for a, b in zip(kept["critical_path"], loaded["critical_path"], strict=True):
        assert a["step_us"] == pytest.approx(b["step_us"]) and a["cards"] == b["cards"]
        assert a["share_by_card"] == pytest.approx(b["share_by_card"])
    assert [(w["kind"], w["target"], w["gain_us"]) for w in kept["what_if"]] == \
        [(w["kind"], w["target"], w["gain_us"]) for w in loaded["what_if"]]


def _kinds(*seq: int) -> np.ndarray:
    return np.array(seq, np.int64)


def test_slots_of_a_pipeline_by_hand():
    """Three stages, then an all-reduce: the first sends, the middle receives and sends, the last
    receives; their runs fit slots (receive, send) and each receive pairs with the send before it."""
    kinds = [_kinds(SEND, COLLECTIVE), _kinds(RECEIVE, SEND, COLLECTIVE), _kinds(RECEIVE, COLLECTIVE)]
    peers = [_kinds(1, -1), _kinds(0, 2, -1), _kinds(1, -1)]
    found = step_slots(kinds, peers, {0: 0, 1: 1, 2: 2})
    assert found is not None
    assert list(found.key[0]) == [RECEIVE, SEND, COLLECTIVE]
    assert found.rows.tolist() == [[-1, 0, 0], [0, 1, -1], [1, 2, 1]]


def test_slots_refuse_what_cannot_pair():
    kinds = [_kinds(SEND, COLLECTIVE), _kinds(COLLECTIVE)]
    assert step_slots(kinds, [_kinds(1, -1), _kinds(-1)], {0: 0, 1: 1}) is None  # a send nobody receives
    kinds = [_kinds(COLLECTIVE, COLLECTIVE), _kinds(COLLECTIVE)]
    assert step_slots(kinds, [_kinds(-1, -1), _kinds(-1)], {0: 0, 1: 1}) is None  # collectives differ


def test_a_pairing_that_waits_in_a_circle_has_no_order():
    """Two cards that each receive from the other before sending to it wait for each other forever;
    a chain of three stages has an order in which each receive follows its peer's launch."""
    circle = SlotLayout(np.array([RECEIVE, SEND]), np.ones((2, 2), bool), np.array([[1, 1], [0, 0]]),
                        np.array([[1, 0], [1, 0]]))
    assert run_levels(circle) is None
    kinds = [_kinds(SEND), _kinds(RECEIVE, SEND), _kinds(RECEIVE)]
    found = step_slots(kinds, [_kinds(1), _kinds(0, 2), _kinds(1)], {0: 0, 1: 1, 2: 2})
    _, present, peer_slot, peer_card = found.key
    n = found.rows.shape
    chain = SlotLayout(np.array(found.key[0]), np.frombuffer(present, bool).reshape(n),
                       np.frombuffer(peer_slot, np.int64).reshape(n), np.frombuffer(peer_card, np.int64).reshape(n))
    runs = run_levels(chain)
    assert runs is not None and len(runs) == 1
    level_of = {}
    for lv, (nodes, slots, cards) in enumerate(runs[0].levels):
        for t, j, c in zip(nodes.tolist(), slots.tolist(), cards.tolist(), strict=True):
            level_of[(t, j, c)] = lv
    # card 2's receive (slot 0) ends after card 1 launched its send (slot 1), which follows card 1's
    # receive's end, which follows card 0's send launch
    assert level_of[(1, 0, 2)] > level_of[(0, 1, 1)] > level_of[(1, 0, 1)] > level_of[(0, 1, 0)]


def test_lanes_show_each_cards_own_end_of_a_pair(sessions):
    """In the lanes a card is in a receive until its own pair ends, and a card that does not run the
    slot is never in it."""
    from timelineview.analysis.critical_path.document import analyse_critical_path
    from timelineview.analysis.critical_path.step_lanes import IN_COLLECTIVE

    g = session_graph(sessions["healthy"])
    result = analyse_critical_path(g, [])
    tl = replay(g, ReplayInputs.measured(g))
    recv = int(np.flatnonzero(g.layout.kind == RECEIVE)[0])
    name = g.op_names[0][recv]
    lanes = result.step_lanes(0)
    for c in range(CARDS):
        rows = [i for i in lanes.of_card(c).tolist() if lanes.kind[i] == IN_COLLECTIVE and lanes.name[i] == name]
        if c == 0:
            assert not rows  # the first stage receives nothing
            continue
        assert len(rows) == 1
        assert lanes.start[rows[0]] == pytest.approx(tl.arrival[0, recv, c])
        assert lanes.end[rows[0]] == pytest.approx(tl.ends[0, recv, c])
    # the stages' receives end one after another, not together as a collective would
    assert np.all(np.diff(tl.ends[0, recv, 1:]) > 0)


def test_slots_refuse_a_pair_across_a_collective():
    """A step window that holds the previous step's last collective on some cards only (as per-iteration
    files can cut them) would pair a receive with a send before another collective; the step does not fit
    (the replay's levels ran past the run and raised IndexError)."""
    kinds = [_kinds(SEND, COLLECTIVE, COLLECTIVE), _kinds(COLLECTIVE, RECEIVE, COLLECTIVE)]
    peers = [_kinds(1, -1, -1), _kinds(-1, 0, -1)]
    assert step_slots(kinds, peers, {0: 0, 1: 1}) is None
    # the same cards with the pair between the same collectives fit
    kinds = [_kinds(SEND, COLLECTIVE, COLLECTIVE), _kinds(RECEIVE, COLLECTIVE, COLLECTIVE)]
    assert step_slots(kinds, [_kinds(1, -1, -1), _kinds(0, -1, -1)], {0: 0, 1: 1}) is not None


def test_a_per_iteration_pipeline_of_stages_gives_a_graph(tmp_path):
    """Per-iteration files of a pipeline of stages cut some collectives into the next step's window: the graph
    keeps the steps whose cards agree instead of failing."""
    generate_cluster(tmp_path, cluster_specs(4, seed=3, steps=2, tasks_per_step=100, pipeline=True,
                                             pipeline_stages=True), "msprof_per_iteration")
    g = session_graph(AnalysisSession(load(tmp_path)))
    assert g is not None and len(g.steps) >= 1
    tl = replay(g, ReplayInputs.measured(g))
    np.testing.assert_allclose(tl.step, g.step_ns, atol=500.0)
