"""``by_op_type`` against the producer's own ``op_statistic.csv`` on the real torch_npu captures, and against
an SQL count of ``COMPUTE_TASK_INFO`` on the database captures (skipped when ../shared/samples is absent)."""

import csv
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from timelineview.analysis.card_analysis import analyse_card
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"
pytestmark = [pytest.mark.samples,
              pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")]


def _kernels(path: Path) -> dict:
    [store] = load(path, cache=False)
    return analyse_card(store, ("document",)).document["kernels"]


@pytest.mark.parametrize("rank", [0, 1])
def test_by_op_type_equals_op_statistic(rank):
    folder = SAMPLES / "torch_npu" / f"rank{rank}_ascend_pt"
    kernels = _kernels(folder)
    assert kernels["source"] == "kernel_details.csv" and kernels["described"] == kernels["tasks"]
    with open(folder / "ASCEND_PROFILER_OUTPUT" / "op_statistic.csv", newline="") as f:
        producer = list(csv.DictReader(f))
    ours = {(r["op_type"], r["core_type"]): r for r in kernels["by_op_type"]}
    assert set(ours) == {(r["OP Type"], r["Core Type"]) for r in producer}
    for r in producer:
        row = ours[(r["OP Type"], r["Core Type"])]
        assert row["count"] == int(r["Count"])
        for key, column in (("total_us", "Total Time(us)"), ("min_us", "Min Time(us)"), ("mean_us", "Avg Time(us)"),
                            ("max_us", "Max Time(us)")):
            assert row[key] == pytest.approx(float(r[column]), rel=0.005), (r["OP Type"], key)
        assert 100 * row["share"] == pytest.approx(float(r["Ratio(%)"]), rel=0.005, abs=0.001)


def _database(level: str) -> Path:
    [db] = list((SAMPLES / "torch_npu_db" / level / "rank0_ascend_pt").glob("ASCEND_PROFILER_OUTPUT/*_profiler_*.db"))
    return db


def _counts(kernels: dict) -> Counter:
    counts = Counter()
    for row in kernels["by_op_type"]:
        counts[row["op_type"]] += row["count"]
    return counts


def test_database_op_types_equal_its_compute_task_info():
    db = _database("level1")
    kernels = _kernels(db)
    conn = sqlite3.connect(db)
    try:
        query = ("select s.value, count(*) from COMPUTE_TASK_INFO c join STRING_IDS s on s.id = c.opType "
                 "join TASK t on t.globalTaskId = c.globalTaskId group by s.value")
        expected = dict(conn.execute(query).fetchall())
        device = conn.execute("select name from NPU_INFO").fetchone()[0]
    finally:
        conn.close()
    assert kernels["source"] == "database" and kernels["described"] == kernels["tasks"] == sum(expected.values())
    assert _counts(kernels) == expected
    assert kernels["device"] == device and kernels["peak_tflops"] is not None


def test_a_database_without_op_types_reads_them_off_the_names():
    """A level0 capture writes N/A for every op type (and shape): the names say the type, as the level1 capture
    of the same job writes it in its table, and the shapes come from the host operators (PYTORCH_API)."""
    named = _kernels(_database("level0"))
    assert named["source"] == "host operator (flows)" and 0 < named["described"] <= named["tasks"]
    assert _counts(named) == _counts(_kernels(_database("level1")))


def test_without_the_kernel_table_shapes_come_from_the_launching_host_operators(tmp_path):
    """The same trace alone in a folder: op types from the names equal the producer's, shapes from the host
    operators' Input Dims, and every matrix product counts the FLOPs its kernel_details.csv row gives."""
    import numpy as np

    from timelineview.analysis.classify import classify
    from timelineview.analysis.kernels import card_kernels

    folder = SAMPLES / "torch_npu" / "rank0_ascend_pt"
    shutil.copy(folder / "ASCEND_PROFILER_OUTPUT" / "trace_view.json", tmp_path / "trace_view.json")
    [alone] = load(tmp_path / "trace_view.json", cache=False)
    [beside] = load(folder, cache=False)
    host, table = card_kernels(alone, classify(alone)), card_kernels(beside, classify(beside))
    assert host.source == "host operator (flows)" and table.source == "kernel_details.csv"
    assert np.array_equal(host.slices, table.slices)
    op_types = table.groups.text(table.groups.op_type[table.group])
    assert host.groups.text(host.groups.op_type[host.group]) == op_types
    assert host.described > 0.9 * len(host)
    matrix = np.array([t.startswith("MatMul") for t in op_types])
    assert matrix.sum() >= 8
    assert host.task_flops[matrix] == pytest.approx(table.task_flops[matrix])


def test_locating_the_tasks_a_chunk_at_a_time_changes_nothing(monkeypatch):
    from timelineview.model.database import compute_info

    whole = _kernels(_database("level1"))
    monkeypatch.setattr(compute_info, "LOCATE_CHUNK", 50)  # 187 tasks: four chunks
    assert _kernels(_database("level1")) == whole
