"""What a profiler database holds that its reader must say rather than count: kernels without compute
info, memory tables left unread, transfers without a transport, names stored as ids. Each case is a
database written row by row here, its figures computed by hand."""

from __future__ import annotations

import pytest

from tests.model.database.crafted import CraftedDatabase
from timelineview.analysis.classify import classify
from timelineview.analysis.summary import stats_document
from timelineview.model import load

US = 1000  # ns


def _card(db: CraftedDatabase, tmp_path):
    [store] = load(db.write(tmp_path / "ascend_pytorch_profiler_0.db"))
    return store, stats_document([store])["cards"][0]


def test_kernels_without_compute_info_are_said_and_not_compute(tmp_path):
    db = CraftedDatabase()
    for k, (a, b) in enumerate([(0, 100), (200, 300), (400, 500)]):
        db.kernel(a * US, b * US, f"MatMul_{k}")
    db.task(600 * US, 700 * US, "AI_CORE")  # a kernel nothing says the operator of
    db.task(800 * US, 850 * US, "AI_CORE")
    db.task(900 * US, 950 * US, "EVENT_RECORD")  # not a kernel: typed by its own type, as before
    store, doc = _card(db, tmp_path)
    assert doc["compute_us"] == pytest.approx(300.0)  # the three kernels: 3 × 100 µs (not 450)
    said = [w for w in store.report.warnings if "no COMPUTE_TASK_INFO row" in w]
    assert len(said) == 1 and said[0].split(": ", 1)[1].startswith("2 TASK rows of a compute unit (AI_CORE ×2)")
    # still drawn, named by their unit, without a Task Type
    names = [store.strings[i] for i in store.slices.name]
    assert names.count("AI_CORE") == 2
    untyped = [i for i, n in enumerate(names) if n == "AI_CORE"]
    assert all(store.slices.task_type[i] == -1 for i in untyped)
    assert not classify(store).compute[untyped].any()


def test_every_kernel_with_compute_info_says_nothing(tmp_path):
    db = CraftedDatabase()
    db.kernel(0, 100 * US, "Add_1")
    db.task(200 * US, 210 * US, "EVENT_WAIT")
    store, doc = _card(db, tmp_path)
    assert doc["compute_us"] == pytest.approx(100.0)
    assert not [w for w in store.report.warnings if "COMPUTE_TASK_INFO" in w]


SDMA, NA = 0, 65534


def _transfers(db: CraftedDatabase) -> None:
    """Two SDMA transfers 0→1 (1 000 + 3 000 bytes in 1 + 1 µs), and transfers naming no transport: 0→2
    with a NULL transport, 0→3 as N/A, 0→4 with an id the enumeration lacks (4 bytes each in 5 µs)."""
    db.collective(0, 100 * US, "hcom_allReduce__1_0_1")
    db.plane_task(10 * US, 11 * US, "Memcpy", 0, 1, 1000, SDMA)
    db.plane_task(20 * US, 21 * US, "Memcpy", 0, 1, 3000, SDMA)
    db.plane_task(30 * US, 35 * US, "Notify_Record", 0, 2, 4, None)
    db.plane_task(40 * US, 45 * US, "Notify_Record", 0, 3, 4, NA)
    db.plane_task(50 * US, 55 * US, "Notify_Record", 0, 4, 4, 77)
    db.plane_task(60 * US, 61 * US, "Notify_Wait", 0, 0, 0, None)  # moves nothing: not counted


def test_no_link_without_a_transport(tmp_path):
    db = CraftedDatabase()
    _transfers(db)
    store, doc = _card(db, tmp_path)
    links = doc["communication"]["links"]
    assert [(x["link"], x["transport"], x["bytes"], x["count"]) for x in links] == [("0-1", "SDMA", 4000, 2)]
    assert links[0]["bandwidth_gbps"] == pytest.approx(4000 / 2000)  # bytes / transit ns
    said = [w for w in store.report.warnings if "no named transport" in w]
    assert len(said) == 1
    assert said[0].endswith("3 COMMUNICATION_TASK_INFO rows move 12 bytes between two ranks over no named "
                            "transport: in no link")
