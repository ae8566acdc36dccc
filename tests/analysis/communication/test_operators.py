"""Per-operator transit / wait / synchronisation / idle and per-link totals on hand-made operators,
against the plain pass of ``reference``."""

from __future__ import annotations

import numpy as np
import pytest

from tests.analysis.communication import reference as ref
from tests.analysis.factory import COMM, HW, Sl, build_store
from timelineview.analysis.communication import analyse_card
from timelineview.analysis.communication.names import operator_kind

PLANE0, PLANE1 = "HCCL/Plane 0", "HCCL/Plane 1"
INVALID = 4294967295


def xfer(src: int, dst: int, size: int, transport: str = "SDMA", link: str = "HCCS", name: str = "Memcpy") -> dict:
    return {"task type": name, "src rank": src, "dst rank": dst, "transport type": transport,
            "size(Byte)": size, "link type": link, "bandwidth(GB/s)": 1.0}


def wait(peer: int = 1, name: str = "Notify_Wait") -> dict:
    return {"task type": name, "src rank": 0, "dst rank": peer, "transport type": "LOCAL", "size(Byte)": 0,
            "link type": "INVALID_TYPE", "bandwidth(GB/s)": 0.0}


# (lane, name, start, dur, args): the plane tasks of three operators [100, 400], [400, 700], [900, 1000]
TASKS = [
    # op 0: a wait, then overlapping transfers on two planes, one of them touching the next
    (PLANE0, "Notify_Wait", 100, 60, wait()),
    (PLANE1, "Notify_Wait", 110, 80, wait(2)),
    (PLANE0, "Memcpy", 170, 50, xfer(0, 1, 1000)),
    (PLANE1, "Reduce_Inline", 200, 40, xfer(0, 2, 600, name="Reduce_Inline")),
    (PLANE0, "Memcpy", 220, 30, xfer(0, 1, 500)),  # touches the previous one on its plane
    (PLANE1, "Notify_Wait", 230, 50, wait(2)),  # partly under a transfer of plane 0
    (PLANE0, "Reduce_Inline", 300, 2, xfer(0, INVALID, 4, link="ON_CHIP", name="Reduce_Inline")),  # no dst
    (PLANE0, "Memcpy", 310, 5, xfer(0, 0, 4096, link="ON_CHIP")),  # to itself: not a transfer
    (PLANE0, "Notify_Wait", 350, 30, wait()),  # a wait after the last transfer
    (PLANE0, "Notify_Wait", 350, 30, wait()),  # the same task again
    (PLANE1, "Memcpy", 390, 40, xfer(0, 3, 800, "RDMA", "ROCE", name="RDMASend")),  # straddles into op 1
    # op 1: transfers without a wait; a wait known only by its task type
    (PLANE0, "Memcpy", 450, 100, xfer(0, 1, 5000)),
    (PLANE1, "Memcpy", 460, 100, xfer(0, 2, 7000)),
    (PLANE1, "Memcpy", 460, 100, xfer(0, 2, 7000)),  # duplicated
    (PLANE0, "Notify Record", 600, 10, wait(name="Notify_Record")),  # neither wait nor transfer
    (PLANE0, "Task", 620, 50, wait(name="Notify Wait")),
    (PLANE0, "Memcpy", 680, 0, xfer(0, 1, 99)),  # zero-length transfer
    # op 2: waits only
    (PLANE0, "Notify_Wait", 900, 40, wait()),
    (PLANE1, "NOTIFY_WAIT", 930, 20, {"src rank": "0", "dst rank": "1"}),  # text ranks, no size
    # outside every operator: counts for its link only
    (PLANE0, "Memcpy", 2000, 10, xfer(0, 1, 300)),
]
OPS = [("hcom_allReduce__271_0_1", 100, 300), ("hcom_allReduce__271_1_1", 400, 300),
       ("hcom_allGather__271_2_1", 900, 100)]


def _store(tasks=TASKS, ops=OPS):
    slices = [Sl(HW, "MatMul", 0, 50, "AI_CORE")]
    slices += [Sl(COMM, name, s, d) for name, s, d in ops]
    slices += [Sl(lane, name, s, d, args=dict(args)) for lane, name, s, d, args in tasks]
    return build_store(slices)


def _reference(tasks=TASKS, ops=OPS):
    windows = [(s, s + d) for _, s, d in ops]
    plain = ref.distinct([(s, d, name, args) for _lane, name, s, d, args in tasks])
    per_op: list[list] = [[] for _ in ops]
    for t in plain:
        i = ref.assign(windows, t[0])
        if i is not None:
            per_op[i].append(t)
    return [ref.operator_times(w, mine) for w, mine in zip(windows, per_op, strict=True)], ref.links(plain)


def test_operator_times_match_a_plain_pass() -> None:
    cc = analyse_card(_store())
    expected, _ = _reference()
    ops = cc.ops
    assert ops.name == [name for name, _, _ in OPS]
    for i, exp in enumerate(expected):
        got = {"elapse": int(ops.elapse[i]), "transit": int(ops.transit[i]), "wait": int(ops.wait[i]),
               "synchronization": int(ops.synchronization[i]), "idle": int(ops.idle[i])}
        assert got == exp, OPS[i][0]
    # the cases the table was built for really happened
    assert expected[0]["wait"] > expected[0]["synchronization"] > 0  # a wait after the transfers
    assert expected[2]["transit"] == 0 and expected[2]["synchronization"] == expected[2]["wait"] == 50


def test_wait_ratio_and_totals() -> None:
    cc = analyse_card(_store())
    expected, _ = _reference()
    ratio = cc.ops.wait_ratio
    for i, exp in enumerate(expected):
        both = exp["wait"] + exp["transit"]
        assert ratio[i] == pytest.approx(exp["wait"] / both)
    t = cc.totals
    assert (t.count, t.transit, t.wait, t.idle) == (3, sum(e["transit"] for e in expected),
                                                    sum(e["wait"] for e in expected),
                                                    sum(e["idle"] for e in expected))
    by_name = cc.by_name()
    assert set(by_name) == {"hcom_allReduce", "hcom_allGather"}
    assert by_name["hcom_allReduce"].count == 2
    assert by_name["hcom_allReduce"].transit == expected[0]["transit"] + expected[1]["transit"]


def test_links_match_a_plain_pass() -> None:
    cc = analyse_card(_store())
    _, expected = _reference()
    links = cc.links
    got = {(int(links.src[i]), int(links.dst[i]), links.transport[i], links.link_type[i]):
           {"bytes": int(links.bytes[i]), "transit": int(links.transit[i]), "count": int(links.count[i])}
           for i in range(len(links))}
    assert got == expected
    bw = links.bandwidth_gbps
    for i in range(len(links)):
        row = got[(int(links.src[i]), int(links.dst[i]), links.transport[i], links.link_type[i])]
        assert bw[i] == pytest.approx(row["bytes"] / row["transit"])  # bytes per ns = GB/s
    assert (0, 0, "SDMA", "ON_CHIP") not in got and not any(k[1] == INVALID for k in got)


def test_a_task_straddling_two_operators_belongs_to_the_one_holding_its_start() -> None:
    cc = analyse_card(_store())
    straddler = np.flatnonzero((cc.tasks.start == 390) & cc.tasks.transfer)
    assert len(straddler) == 1 and cc.task_op[straddler[0]] == 0
    outside = np.flatnonzero(cc.tasks.start == 2000)
    assert cc.task_op[outside[0]] == -1


def test_operators_in_steps() -> None:
    from timelineview.analysis.steps import StepWindow

    steps = [StepWindow(1, 0, 500, 0, 0, "test"), StepWindow(2, 500, 1500, 500, 500, "test")]
    cc = analyse_card(_store(), steps=steps)
    assert cc.ops.step.tolist() == [1, 1, 2]
    per_step = cc.by_step()
    expected, _ = _reference()
    assert per_step[1].wait == expected[0]["wait"] + expected[1]["wait"]
    assert per_step[2].count == 1


def test_no_plane_tasks_means_no_analysis() -> None:
    assert analyse_card(_store(tasks=[])) is None


@pytest.mark.parametrize(("name", "kind"), [("hcom_allReduce__271_12_1", "hcom_allReduce"),
                                            ("Default/AllReduce-op534_0", "Default/AllReduce-op534"),
                                            ("hcom_send", "hcom_send")])
def test_operator_kind(name: str, kind: str) -> None:
    assert operator_kind(name) == kind


def test_overlapping_operators_of_two_groups_keep_their_own_plane_tasks() -> None:
    """A plane belongs to the group thread listed before it; its tasks go to that group's operator even
    while an operator of another group also covers their start."""
    g1, g2 = "HCCL/Group 1 Communication", "HCCL/Group 2 Communication"
    slices = [Sl(HW, "MatMul", 0, 50, "AI_CORE"),
              Sl(g1, "hcom_allReduce__1_0_1", 0, 1000), Sl(PLANE0, "Memcpy", 600, 100, args=xfer(0, 1, 100)),
              Sl(g2, "hcom_send__2_0_1", 500, 300), Sl(PLANE1, "Memcpy", 600, 50, args=xfer(0, 2, 100)),
              Sl(PLANE1, "Memcpy", 900, 10, args=xfer(0, 2, 100))]  # after its group's operator: any that holds it
    cc = analyse_card(build_store(slices))
    assert cc.ops.name == ["hcom_allReduce__1_0_1", "hcom_send__2_0_1"]
    assert cc.ops.transit.tolist() == [100 + 10, 50]
    assert cc.task_op.tolist() == [0, 1, 0]


def test_a_collective_everyone_waited_alike_for_has_nobody_waited_for():
    from timelineview.analysis.communication.waits import MIN_WAIT_SPREAD_NS, NOBODY, collective_waits

    class Ops:  # the three fields collective_waits reads
        def __init__(self, waits):
            self.name = ["hcom_allReduce__1_0_1", "hcom_allReduce__1_1_1"]
            self.wait = np.array(waits, dtype=np.int64)
            self.step = np.full(2, -1, np.int32)  # no step markers: one window

    # first collective: card 2 arrives last (waits least); second: all within 1 µs of each other
    cw = collective_waits(["rank 0", "rank 1", "rank 2"],
                          [Ops([50_000, 20]), Ops([40_000, 520]), Ops([20, 20 + MIN_WAIT_SPREAD_NS - 1])])
    assert cw.waited_for.tolist() == [2, NOBODY]
    assert cw.least_wait_counts().tolist() == [0, 0, 1]
