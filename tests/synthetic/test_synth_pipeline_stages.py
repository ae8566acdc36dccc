"""A pipeline of stages (CardSpec.pipeline_stages): rank r receives from rank r − 1's send, the pair ends
together, each stage's forward starts after its receive, and nothing goes from the last rank to the first."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster
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
