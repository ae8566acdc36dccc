"""A pipeline of stages (CardSpec.pipeline_stages): rank r receives from rank r − 1's send, the pair ends
together, each stage's forward starts after its receive, and nothing goes from the last rank to the first."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster
from timelineview.synthetic.comm.link_delay import FIT_MARGIN
from timelineview.synthetic.comm.planes import EDGE_NS, GAP_NS, PEER_WAIT_NS, WAIT_AFTER_NS
from timelineview.synthetic.schedule import build_schedule, card_steps
from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND, draw_step

CARDS = 4
BASE = {"seed": 3, "steps": 2, "tasks_per_step": 160, "pipeline": True, "pipeline_stages": True}


def test_each_receive_ends_with_the_previous_stages_send():
    specs = cluster_specs(CARDS, **BASE)
    sched = build_schedule(specs)
    recv, send = sched.kinds.index(KIND_RECEIVE), sched.kinds.index(KIND_SEND)
    assert sched.present[recv].tolist() == [False] + [True] * (CARDS - 1)  # the first stage receives nothing
    assert sched.present[send].tolist() == [True] * (CARDS - 1) + [False]  # the last sends nothing
    for k in range(sched.steps):
        start = int(sched.step_start[k])
        for c in range(1, CARDS):
            end = int(sched.op_end[k, recv, c])
            assert end == int(sched.op_end[k, send, c - 1])
            launched = max(int(sched.op_start[k, recv, c]), int(sched.op_start[k, send, c - 1]))
            assert end == launched + int(sched.op_xfer[k, send, c - 1]) == launched + int(sched.op_xfer[k, recv, c])
            # the stage waits for its data, then for its activations; its forward ends before its send
            assert int(sched.op_start[k, recv, c]) == start + draw_step(specs[c], k + 1).wait
            assert sched.t0[k, c] > end
        for c in range(CARDS - 1):
            assert sched.op_start[k, send, c] == sched.t0[k, c] + draw_step(specs[c], k + 1).ready[send]
        # receives end in rank order: each stage's send waits for its own forward, after its receive
        assert np.all(np.diff(sched.op_end[k, recv, 1:]) > 0)
        # every collective after the pipeline's pairs is launched after each card's last pair ended
        first_collective = send + 1
        last_pair = np.where(sched.present[recv], sched.op_end[k, recv], 0)
        last_pair = np.maximum(last_pair, np.where(sched.present[send], sched.op_end[k, send], 0))
        assert np.all(sched.op_start[k, first_collective] > last_pair)


def test_a_card_writes_only_the_operators_it_runs():
    specs = cluster_specs(CARDS, **BASE)
    sched = build_schedule(specs)
    kinds = [next(card_steps(spec, sched, c)).op_kind for c, spec in enumerate(specs)]
    assert KIND_RECEIVE not in kinds[0] and KIND_SEND in kinds[0]
    assert KIND_SEND not in kinds[-1] and KIND_RECEIVE in kinds[-1]
    # operators keep their running numbers, so a collective has the same name on every card
    seqs = [next(card_steps(spec, sched, c)).op_seq for c, spec in enumerate(specs)]
    assert seqs[0][-1] == seqs[1][-1] == seqs[-1][-1]


def test_without_stages_the_pipeline_is_as_before():
    specs = cluster_specs(CARDS, **{**BASE, "pipeline_stages": False})
    sched = build_schedule(specs)
    assert sched.present.all()
    assert np.all(sched.op_end == sched.op_end[:, :, :1])  # every operator ends together on every card


SLOW_LINK = {"slow_link": (1, 2), "slow_link_factor": 3.0, "slow_link_delays": True}


def test_a_slow_link_slows_only_its_own_pair():
    """The same seed with and without a slow link 1→2: only pair 1→2's transfer is longer, by the time the
    slower link needs for the bytes the healthy one moves in its window ((factor − 1) times FIT_MARGIN of what
    the window's edges, its gaps and, when the sender was launched last, its opening wait leave, as the
    planes lay them out); every other pair keeps its transfer."""
    good = build_schedule(cluster_specs(CARDS, **BASE))
    bad = build_schedule(cluster_specs(CARDS, **BASE, **SLOW_LINK))
    recv, send = good.kinds.index(KIND_RECEIVE), good.kinds.index(KIND_SEND)
    src, dst = SLOW_LINK["slow_link"]
    for k in range(good.steps):
        healthy = good.op_xfer[k, send, :-1]
        assert np.all(healthy == healthy[0])  # every pair moves the same bytes over the same kind of link
        np.testing.assert_array_equal(good.op_xfer[k, recv, 1:], healthy)  # one transfer ends both sides
        extra = bad.op_xfer[k, send, :-1] - healthy
        lead = int(bad.op_start[k, recv, dst]) - int(bad.op_start[k, send, src])  # the sender this much earlier
        opening = max(0, WAIT_AFTER_NS + 20 - max(lead, 0))
        room = int(healthy[0]) - 2 * EDGE_NS - opening - (PEER_WAIT_NS + GAP_NS) - GAP_NS
        want = round(FIT_MARGIN * room * (SLOW_LINK["slow_link_factor"] - 1.0))
        assert abs(int(extra[src]) - want) <= 2
        assert int(bad.op_extra[k, send, src]) == int(bad.op_extra[k, recv, dst]) == int(extra[src])
        assert np.count_nonzero(extra) == 1
        np.testing.assert_array_equal(bad.op_xfer[k, recv, 1:], bad.op_xfer[k, send, :-1])
        # from the step's start (the collectives over the slow link lengthen the steps before), the pairs
        # before the slow one end as without it, and the slow pair's receive ends that much later
        bad_end = bad.op_end[k, recv] - bad.step_start[k]
        good_end = good.op_end[k, recv] - good.step_start[k]
        np.testing.assert_array_equal(bad_end[1:dst], good_end[1:dst])
        assert bad_end[dst] - good_end[dst] == extra[src]
        assert bad.op_xfer[k, recv, 0] == bad.op_xfer[k, send, -1] == -1  # the operators the ends lack


@pytest.mark.parametrize("extra", [{}, {"pipeline": True}, SLOW_LINK, {"pipeline": True, **SLOW_LINK},
                                   {"step_stall_share": 0.5, "host_bubble_share": 0.5}])
def test_without_stages_every_operator_is_one_transfer_after_its_last_member(extra):
    """Without stages the cards' operators are collectives (a ring pipeline's sends and receives too):
    on every card an operator ends its one transfer after the last member was launched."""
    sched = build_schedule(cluster_specs(CARDS, **{"seed": 5, "steps": 3, "tasks_per_step": 120, **extra}))
    assert sched.present.all()
    assert np.all(sched.op_xfer == sched.op_xfer[:, :, :1]) and np.all(sched.op_xfer > 0)
    np.testing.assert_array_equal(sched.op_end, sched.op_start.max(axis=2, keepdims=True) + sched.op_xfer)
    specs = cluster_specs(CARDS, **{"seed": 5, "steps": 3, "tasks_per_step": 120, **extra})
    for c, spec in enumerate(specs):
        for k, step in enumerate(card_steps(spec, sched, c)):
            np.testing.assert_array_equal(step.op_xfer, sched.op_xfer[k, :, c])


@pytest.fixture(scope="module")
def stages_session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stages")
    generate_cluster(folder, cluster_specs(CARDS, **BASE), "msprof", options=WriteOptions(step_trace=True))
    return AnalysisSession(load(folder))


def test_the_trace_names_each_pairs_peer(stages_session):
    """The loaded send moves its data to the next rank; the loaded receive's notifications name the
    previous rank: what pairs them in the trace."""
    s = stages_session
    for i in s.order:
        source = s.sources[i]
        rank = source.rank
        comm = source.analyse(("communication",)).communication
        names = [source.store.strings[source.store.slices.name[x]] for x in comm.ops.slice.tolist()]
        tasks = comm.tasks
        sends = [k for k, n in enumerate(names) if n.startswith("hcom_send")]
        receives = [k for k, n in enumerate(names) if n.startswith("hcom_receive")]
        assert len(sends) == (BASE["steps"] if rank < CARDS - 1 else 0)
        assert len(receives) == (BASE["steps"] if rank > 0 else 0)
        for k in sends:
            mine = np.flatnonzero((comm.task_op == k) & tasks.transfer)
            assert len(mine) and set(tasks.dst[mine].tolist()) == {rank + 1}
        for k in receives:
            mine = np.flatnonzero((comm.task_op == k) & tasks.wait)
            assert len(mine) and set(tasks.dst[mine].tolist()) == {rank - 1}
            assert not ((comm.task_op == k) & tasks.transfer).any()  # its sender reports the transfer


@pytest.mark.parametrize("extra", [{}, {"microbatches": 3}])
def test_a_delaying_slow_link_moves_the_healthy_bytes_more_slowly(tmp_path, extra):
    """Same seed with and without the slow link 1→2 (its delays on): the slow link moves the bytes the
    healthy run moves over it, in (factor ± jitter) times the time; so removing the slow link's extra time
    is removing the time those bytes took beyond the healthy speed (what the link what-if replays). (Bytes
    follow each operator's window, which a card's opening wait shortens when it arrives last; the slow link
    changes who arrives last at a few operators, hence 1 %, well under the ~7 % the slow link once lost.)"""
    runs = {}
    for name, slow in (("healthy", {}), ("slow", SLOW_LINK)):
        truths = generate_cluster(tmp_path / name, cluster_specs(CARDS, **BASE, **extra, **slow), "msprof")
        runs[name] = {(r["src"], r["dst"]): r for t in truths for r in t.links}
    src, dst = SLOW_LINK["slow_link"]
    assert runs["healthy"].keys() == runs["slow"].keys()
    for key, healthy in runs["healthy"].items():
        slow = runs["slow"][key]
        assert slow["count"] == healthy["count"]
        assert slow["bytes"] == pytest.approx(healthy["bytes"], rel=0.01)
        if key == (src, dst):
            ratio = slow["transit_ns"] / healthy["transit_ns"]
            assert SLOW_LINK["slow_link_factor"] * 0.9 < ratio < SLOW_LINK["slow_link_factor"] * 1.1
        else:
            assert slow["transit_ns"] == pytest.approx(healthy["transit_ns"], rel=0.01)
