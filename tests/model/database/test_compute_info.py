"""The database reader's compute-task columns (``COMPUTE_TASK_INFO`` per task asked, the chip) against a plain
sqlite3 join, and a card whose info table lacks the shape columns described through them end to end."""

from __future__ import annotations

import random
import sqlite3

import numpy as np
import pytest

from tests.model.database.crafted import CraftedDatabase
from timelineview.analysis.classify import classify
from timelineview.analysis.kernels import card_kernels
from timelineview.analysis.kernels.table import SOURCE_DATABASE
from timelineview.model import load
from timelineview.model.database import compute_info

US = 1000  # ns
OPS = ("MatMul", "Add", "TransData")


def _database(path, drop_row: bool = True):
    """Kernels of three op types (one without its info row unless not ``drop_row``: a gap among the rowids), a
    collective's plane task (no info row) and an NPU_INFO naming the chip."""
    rng = random.Random(11)
    db = CraftedDatabase(extra_tables={"NPU_INFO": "id INTEGER, name TEXT"})
    for k in range(60):
        db.kernel(k * 10 * US, (k * 10 + 3) * US, f"{rng.choice(OPS)}_{k}")
    db.plane_task(700 * US, 705 * US, "Reduce_Inline", 0, 1, 64, 0)
    db.collective(700 * US, 706 * US, "hcom_allReduce__1_0_1")
    if drop_row:
        db.rows["COMPUTE_TASK_INFO"] = [r for r in db.rows["COMPUTE_TASK_INFO"] if r[1] != 5]  # task 5: no row
    db.rows["NPU_INFO"] = [(0, " Ascend910B3 ")]
    return db.write(path)


def _plain(path) -> dict[int, tuple[int, int]]:
    """globalTaskId -> (opType string id, blockDim) by a plain join."""
    conn = sqlite3.connect(path)
    try:
        return {gid: (op, block) for gid, op, block in conn.execute(
            "select globalTaskId, opType, blockDim from COMPUTE_TASK_INFO")}
    finally:
        conn.close()


def _task_ids(path) -> dict[int, int]:
    conn = sqlite3.connect(path)
    try:
        return {start: gid for start, gid in conn.execute("select startNs, globalTaskId from TASK")}
    finally:
        conn.close()


@pytest.mark.parametrize("drop_row", [True, False])  # rowids with a gap (searched) and without (offsets)
def test_columns_follow_the_tasks_asked_in_their_order(tmp_path, monkeypatch, drop_row):
    path = _database(tmp_path / "ascend_pytorch_profiler_0.db", drop_row)
    [store] = load(path, cache=False)
    sl = store.slices
    starts = _task_ids(path)
    asked = np.array([i for i in range(len(sl)) if int(sl.start[i]) in starts and sl.dur[i] > 0], np.int64)
    asked = asked[np.random.default_rng(3).permutation(len(asked))]  # any order: the columns follow it
    monkeypatch.setattr(compute_info, "LOCATE_CHUNK", 7)  # located and gathered a few tasks at a time
    got = compute_info.compute_task_columns(store, asked)
    plain = _plain(path)
    assert got is not None and got.device == "Ascend910B3"
    assert got.shapes is None and got.dtypes is None and got.formats is None and got.out_shapes is None
    assert got.global_task_id is None  # no PMU table to join on it
    expected_row = [starts[int(sl.start[i])] in plain for i in asked.tolist()]
    assert got.has_row.tolist() == expected_row
    assert sum(expected_row) == 60 - drop_row < len(asked)  # the 60 kernels but task 5 when dropped; no plane task
    for k, i in enumerate(asked.tolist()):
        op, block = plain.get(starts[int(sl.start[i])], (compute_info.NO_ID, compute_info.NO_ID))
        assert (int(got.op_type[k]), int(got.block_dim[k])) == (op, block)
        name = store.strings[int(sl.name[i])]  # the crafted kernel's op type is its name's prefix
        assert got.text(int(got.op_type[k])) == (name.split("_")[0] if expected_row[k] else None)


def test_a_card_without_shape_columns_is_described_by_op_type_alone(tmp_path):
    """The columns the table lacks are NO_VALUE for every task (a view of one value), the core type comes from
    the task type: groups by op type and unit, no shapes."""
    path = _database(tmp_path / "ascend_pytorch_profiler_0.db")
    [store] = load(path, cache=False)
    table = card_kernels(store, classify(store))
    assert table.source == SOURCE_DATABASE and table.device == "Ascend910B3"
    g = table.groups
    names = [store.strings[int(store.slices.name[i])] for i in table.slices.tolist()]
    assert g.text(g.op_type[table.group]) == [n.split("_")[0] for n in names]
    assert set(g.text(g.shapes)) == {""} and set(g.text(g.dtypes)) == {""} and set(g.text(g.out_shapes)) == {""}
    assert len(g) == len(set(g.text(g.op_type)))  # one unit in this card: a group per op type
    assert len(table) == 59 and table.described == len(table)  # task 5, without its info row, is no kernel here
    assert (table.block_dim == 8).all()
