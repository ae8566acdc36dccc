"""What a profiler database holds that its reader must say rather than count: kernels without compute
info, memory tables left unread, transfers without a transport, names stored as ids. Each case is a
database written row by row here, its figures computed by hand."""

from __future__ import annotations

import sqlite3

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
    # the producer's own Computing lane: the three kernels alone
    db.rows["OVERLAP_ANALYSIS"] = [(0, a * US, b * US, 0) for a, b in [(0, 100), (200, 300), (400, 500)]]
    store, doc = _card(db, tmp_path)
    assert doc["compute_us"] == pytest.approx(300.0)  # the three kernels: 3 × 100 µs (not 450)
    assert doc["file_overlap"]["compute_us"] == pytest.approx(doc["compute_us"])
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


HASH_AS_TEXT = "1.83976461015564e+19"  # an unresolved operator hash as SQLite writes a real as text


def test_a_name_that_is_a_bare_number_is_said(tmp_path):
    db = CraftedDatabase()
    db.kernel(0, 100 * US, "MatMul_1")
    db.kernel(200 * US, 300 * US, HASH_AS_TEXT)
    db.kernel(400 * US, 450 * US, HASH_AS_TEXT)
    db.kernel(500 * US, 510 * US, "18397646101556412345")  # an integer hash: no name either
    store, doc = _card(db, tmp_path)
    said = [w for w in store.report.warnings if "bare number" in w]
    assert len(said) == 1
    assert said[0].split(": ", 1)[1] == (f"3 kernels of COMPUTE_TASK_INFO are named by a bare number, not a name: a "
                                         f"hash the producer did not resolve (e.g. {HASH_AS_TEXT}); shown as written")
    assert doc["compute_us"] == pytest.approx(260.0)  # still compute: the unit and the type say so


def test_an_id_no_string_names_is_said_unknown_in_args_and_lanes(tmp_path):
    db = CraftedDatabase()
    db.kernel(0, 100 * US, "Add_1")
    db.collective(0, 50 * US, "hcom_allReduce__1_0_1", group="g")
    path = db.write(tmp_path / "ascend_pytorch_profiler_0.db")
    conn = sqlite3.connect(path)
    # the collective's group is an id STRING_IDS lacks; the kernel's op type an id stored as a whole real
    conn.execute("update COMMUNICATION_OP set groupName = 999")
    conn.execute("update COMPUTE_TASK_INFO set opType = cast(opType as real)")
    conn.commit()
    conn.close()
    [store] = load(path)
    assert "Group (unknown name #999) Communication" in list(store.lanes.name)
    kernel = int(classify(store).compute.nonzero()[0][0])
    assert store.args(kernel)["Op Type"] == "Add"  # the real 3.0 is the id 3
    op = [i for i, n in enumerate(store.slices.name) if store.strings[n] == "hcom_allReduce__1_0_1"][0]
    assert store.args(op)["group_name"] == "(unknown name #999)"
