"""A 1F1B pipeline of stages (CardSpec.microbatches): each stage runs every microbatch's forward and backward
once, one forward then one backward after filling the pipeline; forwards send to the next stage and backwards
to the previous one; each send ends with its receive, its pair's transfer after the later launch."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster
from timelineview.synthetic.comm.link_delay import FIT_MARGIN
from timelineview.synthetic.one_f_one_b import BACKWARD, FORWARD, Compute, Transfer, compute_order, stage_orders
from timelineview.synthetic.schedule import build_schedule, card_steps
from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND

SIZES = [(2, 1), (4, 2), (4, 4), (8, 3), (16, 2)]  # (stages, microbatches)


def base(micro: int) -> dict:
    return {"seed": 4, "steps": 2, "tasks_per_step": 120, "pipeline": True, "pipeline_stages": True,
            "microbatches": micro}


@pytest.mark.parametrize(("stages", "micro"), SIZES)
def test_each_stage_runs_one_forward_one_backward(stages, micro):
    for s in range(stages):
        order = [(c.phase, c.micro) for c in compute_order(s, stages, micro)]
        assert sorted(order) == sorted((p, m) for p in (FORWARD, BACKWARD) for m in range(micro))
        warm = min(stages - s - 1, micro)  # forwards before the first backward fill the pipeline
        assert order[:warm] == [(FORWARD, m) for m in range(warm)]
        steady = order[warm:warm + 2 * (micro - warm)]
        assert steady[0::2] == [(FORWARD, m) for m in range(warm, micro)]  # then alternate
        assert steady[1::2] == [(BACKWARD, m) for m in range(micro - warm)]
        assert order.index((FORWARD, micro - 1)) < order.index((BACKWARD, micro - 1))


@pytest.mark.parametrize(("stages", "micro"), SIZES)
def test_transfers_go_to_the_neighbours_and_two_stages_meet_them_in_one_order(stages, micro):
    orders = stage_orders(stages, micro)
    for s, order in enumerate(orders):
        for i, ev in enumerate(order):
            if not isinstance(ev, Transfer):
                continue
            # a forward's activations go to the next stage, a backward's gradients to the previous one
            src, dst = (s, ev.peer) if ev.kind == KIND_SEND else (ev.peer, s)
            assert dst == src + (1 if ev.phase == FORWARD else -1)
            work = order.index(Compute(ev.phase, ev.micro))
            # a stage receives before the work that needs it and sends after the work that made it
            assert (i < work) if ev.kind == KIND_RECEIVE else (i > work)
    for s in range(stages - 1):
        seen_by_s = [(ev.phase, ev.micro) for ev in orders[s] if isinstance(ev, Transfer) and ev.peer == s + 1]
        seen_by_next = [(ev.phase, ev.micro) for ev in orders[s + 1] if isinstance(ev, Transfer) and ev.peer == s]
        assert seen_by_s == seen_by_next
        assert len(seen_by_s) == 2 * micro


SLOW = {"slow_link": (2, 3), "slow_link_factor": 3.0, "slow_link_delays": True}  # (factor − 1 = 2)


@pytest.mark.parametrize(("stages", "micro", "extra"),
                         [(4, 2, {}), (8, 3, SLOW), (4, 3, {**SLOW, "slow_link": (3, 2)})])
def test_the_schedule_joins_each_pair_and_keeps_each_card_in_order(stages, micro, extra):
    specs = cluster_specs(stages, **base(micro), **extra)
    sched = build_schedule(specs)
    healthy = build_schedule(cluster_specs(stages, **base(micro)))
    orders = stage_orders(stages, micro)
    n_p2p = sum(isinstance(ev, Transfer) for order in orders for ev in order)
    assert np.all(sched.present[:n_p2p].sum(axis=1) == 1)  # each pipeline slot is one card's
    assert sched.present[n_p2p:].all()  # the collectives every card's
    for k in range(sched.steps):
        ends = {}
        for c in range(stages):
            mine = np.flatnonzero(sched.present[:n_p2p, c])
            for j in mine.tolist():
                peer = int(sched.op_peer[j, c])
                src, dst = (c, peer) if sched.kinds[j] == KIND_SEND else (peer, c)
                ends.setdefault((src, dst), []).append((int(sched.op_start[k, j, c]), int(sched.op_end[k, j, c]),
                                                        int(sched.op_xfer[k, j, c]), sched.kinds[j], c))
            # the card's operators one after the other, none before its step's data wait
            s, e = sched.op_start[k, mine, c], sched.op_end[k, mine, c]
            assert np.all(s[1:] > e[:-1]) and s[0] >= sched.step_start[k]
        healthy_x = {}
        for (src, dst), rows in ends.items():
            sends = [r for r in rows if r[3] == KIND_SEND and r[4] == src]
            recvs = [r for r in rows if r[3] == KIND_RECEIVE and r[4] == dst]
            assert len(sends) == len(recvs) == micro
            for a, b in zip(sends, recvs, strict=True):  # the n-th send with the n-th receive
                assert a[1] == b[1] == max(a[0], b[0]) + a[2] and a[2] == b[2]
            healthy_x[(src, dst)] = sends[0][2]
        # forward pairs share one transfer time, backward pairs another; a slow link lengthens only its own
        for (src, dst), x in healthy_x.items():
            planted = extra.get("slow_link") == (src, dst)
            want = healthy_x[(0, 1) if dst == src + 1 else (1, 0)] if (src, dst) not in ((0, 1), (1, 0)) else x
            if planted:  # by (factor − 1) times the healthy bytes' time, a little less than FIT_MARGIN of it
                assert 0.8 * FIT_MARGIN * want * 2.0 < x - want <= FIT_MARGIN * want * 2.0
            else:
                assert x == want
        # every collective after the pipeline starts once each card's last transfer ended
        last = np.where(sched.present[:n_p2p], sched.op_end[k, :n_p2p], 0).max(axis=0)
        assert np.all(sched.op_start[k, n_p2p] > last)
    assert healthy.steps == sched.steps


def test_a_stages_microbatch_chunks_fill_the_gaps_between_its_transfers():
    """On every card the compute of a step lies between its transfers (none overlaps one), and it is the
    drawn compute, moved chunk by chunk (same tasks, same durations)."""
    stages, micro = 4, 3
    specs = cluster_specs(stages, **base(micro))
    sched = build_schedule(specs)
    for c, spec in enumerate(specs):
        for step in card_steps(spec, sched, c):
            compute = ~step.other
            s, e = step.item_start[compute], step.item_start[compute] + step.item_dur[compute]
            p2p = np.isin(step.op_kind, (KIND_SEND, KIND_RECEIVE))
            for a, b in zip(step.op_start[p2p].tolist(), step.op_end[p2p].tolist(), strict=True):
                assert not np.any((s < b) & (e > a))
            assert step.op_peer is not None and set(step.op_peer[p2p].tolist()) <= {c - 1, c + 1}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("1f1b")
    generate_cluster(folder, cluster_specs(4, **base(2)), "msprof", options=WriteOptions(step_trace=True))
    return AnalysisSession(load(folder))


def test_the_trace_names_each_transfers_peer_both_ways(loaded):
    """A stage's sends move data to both neighbours (activations forward, gradients back), and its receives'
    notifications name both: what pairs them in the trace."""
    stages, micro, steps = 4, 2, 2
    for i in loaded.order:
        source = loaded.sources[i]
        rank = source.rank
        comm = source.analyse(("communication",)).communication
        names = [source.store.strings[source.store.slices.name[x]] for x in comm.ops.slice.tolist()]
        tasks = comm.tasks
        neighbours = {r for r in (rank - 1, rank + 1) if 0 <= r < stages}
        for prefix, column in (("hcom_send", tasks.transfer), ("hcom_receive", tasks.wait)):
            ops = [k for k, n in enumerate(names) if n.startswith(prefix)]
            assert len(ops) == steps * micro * len(neighbours)
            peers = []
            for k in ops:
                mine = np.flatnonzero((comm.task_op == k) & column)
                assert len(mine) and len(set(tasks.dst[mine].tolist())) == 1
                peers.append(int(tasks.dst[mine][0]))
            assert {p: peers.count(p) for p in set(peers)} == {p: steps * micro for p in neighbours}


def test_the_command_line_writes_a_1f1b_pipeline(tmp_path):
    """``--microbatches N`` alone makes the ranks a 1F1B pipeline: a middle stage sends to both neighbours."""
    from timelineview.synthetic.__main__ import main as synth_main

    out = tmp_path / "cli"
    assert synth_main([str(out), "--cards", "3", "--microbatches", "2", "--steps", "1", "--tasks-per-step", "60"]) == 0
    session = AnalysisSession(load(out))
    source = next(session.sources[i] for i in session.order if session.sources[i].rank == 1)
    comm = source.analyse(("communication",)).communication
    names = [source.store.strings[source.store.slices.name[x]] for x in comm.ops.slice.tolist()]
    sends = [k for k, n in enumerate(names) if n.startswith("hcom_send")]
    dst = [int(comm.tasks.dst[(comm.task_op == k) & comm.tasks.transfer][0]) for k in sends]
    assert sorted(dst) == [0, 0, 2, 2]  # 2 microbatches: activations forward, gradients back
