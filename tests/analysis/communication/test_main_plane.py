"""The producer's per-operator figures (metrics.md §6, main plane) on a hand-made card: every expected
value below is worked out by hand from the task list."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.analysis.factory import COMM, HW, Sl, build_store
from timelineview.analysis.communication import analyse_card
from timelineview.analysis.communication.document import card_json, format_text
from timelineview.analysis.summary import stats_document

PLANE0, PLANE1, PLANE2 = "HCCL/Plane 0", "HCCL/Plane 1", "HCCL/Plane 2"
INVALID = 4294967295


def xfer(size: int, transport: str = "SDMA", link: str = "HCCS", name: str = "Memcpy", dst: int = 1) -> dict:
    return {"task type": name, "src rank": 0, "dst rank": dst, "transport type": transport, "size(Byte)": size,
            "link type": link, "bandwidth(GB/s)": 1.0}


def wait() -> dict:
    return {"task type": "Notify_Wait", "src rank": 0, "dst rank": 1, "transport type": "LOCAL", "size(Byte)": 0,
            "link type": "INVALID_TYPE", "bandwidth(GB/s)": 0.0}


def rdma(size: int) -> dict:
    return xfer(size, "RDMA", "ROCE", "RDMASend")


PAYLOAD, NOTIFY = 1 << 20, 4
OPS = [("hcom_allReduce__1_0_1", 1000, 1000), ("hcom_allGather__1_1_1", 3000, 1000), ("hcom_send__1_2_1", 5000, 400),
       ("hcom_allReduce__1_3_1", 6000, 500), ("hcom_broadcast__1_4_1", 7000, 100)]
# (lane, name, start, dur, args). Plane 2 is listed first: the main plane is the lowest *number* with a wait.
TASKS = [
    # op 0: Plane 0 has copies but no wait; Plane 1 (lower than Plane 2) is the main plane
    (PLANE2, "Notify_Wait", 1000, 500, wait()),
    (PLANE0, "Memcpy", 1100, 200, xfer(1000)),
    (PLANE1, "Notify_Wait", 1010, 40, wait()),  # sync
    (PLANE1, "Reduce_Inline", 1060, 5, xfer(4, link="ON_CHIP", name="Reduce_Inline", dst=INVALID)),  # not transit
    (PLANE1, "Notify_Wait", 1070, 30, wait()),  # sync: the on-chip reduce is no transit
    (PLANE1, "Memcpy", 1100, 100, xfer(5000)),  # transit 100
    (PLANE1, "Notify_Wait", 1210, 20, wait()),  # wait
    (PLANE1, "Memcpy", 1240, 60, xfer(3000, link="PCIE")),  # transit 60
    (PLANE1, "Notify_Wait", 1900, 200, wait()),  # wait 200, outliving the operator: not clipped
    # op 1, a collective over RDMA on Plane 0: a notify alone, then two payloads closed by notify, wait, notify, wait
    (PLANE0, "Notify_Wait", 3000, 50, wait()),  # sync
    (PLANE0, "RDMASend", 3060, 10, rdma(NOTIFY)),  # a run of one RDMA task: no payload
    (PLANE0, "Notify_Wait", 3080, 20, wait()),  # sync
    (PLANE0, "RDMASend", 3110, 100, rdma(PAYLOAD)),  # transit from here ...
    (PLANE0, "RDMASend", 3220, 100, rdma(PAYLOAD)),
    (PLANE0, "RDMASend", 3330, 10, rdma(NOTIFY)),
    (PLANE0, "Notify_Wait", 3350, 150, wait()),  # closing: not a wait
    (PLANE0, "RDMASend", 3510, 10, rdma(NOTIFY)),
    (PLANE0, "Notify_Wait", 3530, 70, wait()),  # ... to the end of this one, 3600: 490
    (PLANE0, "Notify_Wait", 3700, 30, wait()),  # wait
    # op 2, a send: a payload closed by one notify and one wait
    (PLANE0, "Notify_Wait", 5000, 20, wait()),  # sync
    (PLANE0, "RDMASend", 5030, 100, rdma(PAYLOAD)),  # transit 5030 ...
    (PLANE0, "RDMASend", 5140, 10, rdma(NOTIFY)),
    (PLANE0, "Notify_Wait", 5160, 40, wait()),  # ... 5200: 170
    (PLANE0, "Notify_Wait", 5300, 10, wait()),  # wait (a collective's closing would have taken it)
    # op 3, a collective whose payload is not closed before it ends: the payload counts for nothing
    (PLANE0, "Notify_Wait", 6000, 10, wait()),  # sync
    (PLANE0, "RDMASend", 6020, 100, rdma(PAYLOAD)),
    (PLANE0, "RDMASend", 6130, 10, rdma(NOTIFY)),
    (PLANE0, "Notify_Wait", 6150, 30, wait()),  # sync: no transit before it
    # op 4: no wait on any plane: no main plane
    (PLANE0, "Memcpy", 7010, 50, xfer(800)),
]
# per operator: (plane, transit, wait, synchronization, idle = elapse - transit - wait), ns
EXPECTED = [
    (1, 160, 290, 70, 1000 - 160 - 290),
    (0, 490, 100, 70, 1000 - 490 - 100),
    (0, 170, 30, 20, 400 - 170 - 30),
    (0, 0, 40, 40, 500 - 40),
    None,
]


def _store():
    slices = [Sl(COMM, name, s, d) for name, s, d in OPS] + [Sl(HW, "MatMul", 0, 50, "AI_CORE")]
    slices += [Sl(lane, name, s, d, args=dict(args)) for lane, name, s, d, args in TASKS]
    return build_store(slices)


def test_main_plane_figures_by_hand() -> None:
    cc = analyse_card(_store())
    main = cc.ops.main
    assert cc.ops.name == [name for name, _, _ in OPS]
    got = [None if main.plane[i] < 0 else (int(main.plane[i]), int(main.transit[i]), int(main.wait[i]),
                                            int(main.synchronization[i]), int(main.idle[i]))
           for i in range(len(main))]
    assert got == EXPECTED


def test_the_json_headline_is_theirs_and_the_unions_are_all_planes() -> None:
    """The producer's words mean the producer's figures: an operator's transit / wait / sync / idle /
    wait_ratio are its main-plane figures; the unions over every plane are under ``all_planes``."""
    cc = analyse_card(_store())
    doc = card_json(cc)
    ops = doc["comm_ops"]
    head = {k: ops[0][k] for k in ("plane", "transit_us", "wait_us", "synchronization_us", "idle_us", "wait_ratio")}
    assert head == {"plane": 1, "transit_us": 0.16, "wait_us": 0.29, "synchronization_us": 0.07, "idle_us": 0.55,
                    "wait_ratio": pytest.approx(290 / (290 + 160))}
    assert all(ops[4][k] is None for k in ("plane", "transit_us", "wait_us", "synchronization_us", "idle_us",
                                           "wait_ratio"))
    # the §6 unions: op 0's transit is the union of its copies on every plane ([1100, 1300) on Plane 0
    # covers Plane 1's [1100, 1200); Plane 1's [1240, 1300) too)
    assert ops[0]["all_planes"]["transit_us"] == pytest.approx(0.2)
    assert ops[4]["all_planes"]["transit_us"] == pytest.approx(0.05)  # no main plane, still a union
    rows = [e for e in EXPECTED if e is not None]
    totals = np.array([r[1:] for r in rows]).sum(axis=0) / 1000
    assert doc["measured_operators"] == 4
    assert [doc[k] for k in ("transit_us", "wait_us", "synchronization_us", "idle_us")] == pytest.approx(totals)
    assert doc["wait_ratio"] == pytest.approx(totals[1] / (totals[0] + totals[1]))
    assert doc["all_planes"]["transit_us"] == pytest.approx(sum(op["all_planes"]["transit_us"] for op in ops))


def test_the_text_shows_the_producers_figures_and_the_all_planes_wait() -> None:
    text = format_text(stats_document([_store()]))
    header, _rule, row = text.split("Communication (µs)\n")[1].splitlines()[:3]
    # headed by the vocabulary's labels: the producer's words for the producer's figures, the union named apart
    assert re.split(r"\s{2,}", header.strip()) == ["card", "Operators", "Measured operators", "Transit", "Wait",
                                                   "Synchronization", "Idle", "All-planes wait"]
    assert "Wait: time waiting on the main plane, transfers excluded (the producer's Wait Time)." in text
    cells = row.split()
    assert cells[-4] == f"{(290 + 100 + 30 + 40) / 1000:.3f}"  # the producer's wait, summed
    assert float(cells[-1]) > 0
