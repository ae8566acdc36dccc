"""The database source's descriptions against a plain sqlite3 + Python reading of a generated database: info rows
out of task order with gaps in their rowids and rows no task has, NULL / "N/A" / quoted texts, PMU figures for
some tasks only; read whole and a few tasks at a time."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from tests.model.database.crafted import CraftedDatabase
from timelineview.analysis.classify import classify
from timelineview.analysis.kernels.table import NO_VALUE, Interner
from timelineview.analysis.kernels.task_sources import database_source
from timelineview.model import load
from timelineview.model.database import compute_info

US = 1000  # ns
KERNELS = 120
TEXT_COLUMNS = ("opType", "inputShapes", "inputDataTypes", "inputFormats", "outputShapes")
INFO_COLUMNS = ("name INTEGER, globalTaskId INTEGER, blockDim INTEGER, taskType INTEGER, opType INTEGER, "
                "inputShapes INTEGER, inputDataTypes INTEGER, inputFormats INTEGER, outputShapes INTEGER")
PMU_NAMES = ("aic_mac_ratio", "aic_scalar_ratio", "aiv_vec_ratio")


def _text_id(db: CraftedDatabase, rng: random.Random, choices: list[str | None]) -> int | None:
    text = rng.choice(choices)
    return None if text is None else db.sid(text)


def _generated(path: Path) -> Path:
    rng = random.Random(7)
    db = CraftedDatabase(extra_tables={"COMPUTE_TASK_INFO": INFO_COLUMNS,
                                       "TASK_PMU_INFO": "globalTaskId INTEGER, name INTEGER, value REAL"})
    info, pmu = [], []
    for k in range(KERNELS):
        gid = db.task(k * 10 * US, (k * 10 + 4) * US, "KERNEL_AICORE", stream=2 + k % 3)
        op = rng.choice(["MatMul", "Add", "TransData", "N/A", None])
        shapes = ["\"4,8;8,16\"", "1,3,224,224", "N/A", "", None]
        row = (db.sid(f"{op}_{k}"), gid, rng.randrange(1, 49), db.sid("AI_CORE"),
               None if op is None else db.sid(op), _text_id(db, rng, shapes),
               _text_id(db, rng, ["FLOAT16;FLOAT16", "FLOAT", None]), _text_id(db, rng, ["ND;ND", "NC1HWC0", None]),
               _text_id(db, rng, shapes))
        info.append(row)
        for name in PMU_NAMES:
            if rng.random() < 0.7:
                pmu.append((gid, db.sid(name), round(rng.random(), 3)))
    for k in range(40):  # rows no task has, some deleted below: gaps among the rowids
        info.append((db.sid("Orphan"), 100_000 + k, 1, db.sid("AI_CORE"), db.sid("Orphan"), None, None, None, None))
    pmu.append((999_999, db.sid(PMU_NAMES[0]), 0.5))
    rng.shuffle(info)
    rng.shuffle(pmu)
    db.rows["COMPUTE_TASK_INFO"] = info
    db.rows["TASK_PMU_INFO"] = pmu
    written = db.write(path)
    conn = sqlite3.connect(written)
    conn.execute("delete from COMPUTE_TASK_INFO where globalTaskId >= 100000 and globalTaskId % 3 = 0")
    conn.commit()
    conn.close()
    return written


def _reference(path: Path) -> tuple[list[dict], dict[str, dict[int, float]]]:
    """Per kernel in start order: its texts (None for none), block dim and task id; the PMU figures by name."""
    conn = sqlite3.connect(path)
    try:
        strings = dict(conn.execute("select id, value from STRING_IDS"))
        rows = conn.execute(f"select t.globalTaskId, c.blockDim, {', '.join('c.' + c for c in TEXT_COLUMNS)} "
                            "from TASK t join COMPUTE_TASK_INFO c on c.globalTaskId = t.globalTaskId "
                            "order by t.startNs").fetchall()
        pmu: dict[str, dict[int, float]] = {}
        for gid, name, value in conn.execute("select globalTaskId, name, value from TASK_PMU_INFO"):
            pmu.setdefault(strings[name], {})[gid] = value
    finally:
        conn.close()
    tasks = []
    for gid, block_dim, *ids in rows:
        texts = {}
        for column, i in zip(TEXT_COLUMNS, ids, strict=True):
            text = strings.get(i)
            if text is not None and column in ("inputShapes", "outputShapes"):
                text = text.strip().strip('"').strip()
            texts[column] = None if text in (None, "", "N/A") else text
        tasks.append({"gid": gid, "block_dim": block_dim, **texts})
    return tasks, pmu


@pytest.mark.parametrize("chunk", [None, 7])
def test_descriptions_equal_a_plain_reading_of_the_tables(tmp_path, monkeypatch, chunk):
    if chunk is not None:
        monkeypatch.setattr(compute_info, "LOCATE_CHUNK", chunk)
    path = _generated(tmp_path / "ascend_pytorch_profiler_0.db")
    [store] = load(path, cache=False)
    compute = np.flatnonzero(classify(store).compute)
    compute = compute[np.argsort(store.slices.start[compute], kind="stable")]
    interner = Interner()
    result = database_source.database_descriptions(store, compute, interner)
    tasks, pmu = _reference(path)
    assert result is not None and len(compute) == len(tasks) == KERNELS

    def texts(ids: np.ndarray) -> list[str | None]:
        return [interner.strings[i] if i != NO_VALUE else None for i in ids.tolist()]

    found = result.found
    for column, ids in (("opType", found.op_type), ("inputShapes", found.shapes), ("inputDataTypes", found.dtypes),
                        ("inputFormats", found.formats), ("outputShapes", found.out_shapes)):
        assert texts(ids) == [t[column] for t in tasks], column
    described = [t["opType"] is not None or t["inputShapes"] is not None for t in tasks]
    assert result.described.tolist() == described
    assert 0 < sum(described) < KERNELS
    assert result.block_dim.tolist() == [t["block_dim"] for t in tasks]
    assert set(result.pmu) == set(PMU_NAMES)
    for name, column in result.pmu.items():
        expected = [pmu[name].get(t["gid"], np.nan) if d else np.nan for t, d in zip(tasks, described, strict=True)]
        np.testing.assert_array_equal(column, np.array(expected, np.float32))
