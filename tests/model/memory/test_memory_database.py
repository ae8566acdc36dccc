"""The profiler database's memory tables, on small databases written here (names through STRING_IDS)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from timelineview.model.memory import NEVER, load_memory
from timelineview.model.memory.database import BAD_NUMBER, NO_VALUE, RELEASE_BEFORE_ALLOCATION, UNKNOWN_NAME

STRINGS = {1: "PTA", 2: "GE", 3: "aten::mm", 4: "Conv2D1", 5: "allocate", 6: "release", 7: "app", 8: "PTA+GE"}
SCHEMA = {
    "MEMORY_RECORD": "component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER, "
                     "totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER",
    "OP_MEMORY": "name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER, streamPtr INTEGER, "
                 "deviceId INTEGER",
    "NPU_OP_MEM": "operatorName INTEGER, addr INTEGER, type INTEGER, size INTEGER, timestampNs INTEGER, "
                  "globalTid INTEGER, totalAllocate NUMERIC, totalReserve NUMERIC, component INTEGER, deviceId INTEGER",
    "NPU_MODULE_MEM": "moduleId INTEGER, timestampNs INTEGER, totalReserved NUMERIC, deviceId INTEGER",
    "NPU_MEM": "type INTEGER, ddr NUMERIC, hbm NUMERIC, timestampNs INTEGER, deviceId INTEGER",
}


def make_db(folder: Path, rows: dict[str, list[tuple]], skip: tuple[str, ...] = (),
            schema: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ascend_pytorch_profiler_0.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
    db.executemany("INSERT INTO STRING_IDS VALUES (?, ?)", STRINGS.items())
    db.execute("CREATE TABLE ENUM_MODULE (id INTEGER PRIMARY KEY, name TEXT)")
    db.executemany("INSERT INTO ENUM_MODULE VALUES (?, ?)", [(0, "SLOG"), (3, "HCCL")])
    for table, cols in (schema or SCHEMA).items():
        if table in skip:
            continue
        db.execute(f"CREATE TABLE {table} ({cols})")
        for row in rows.get(table, []):
            db.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(row))})", row)
    db.commit()
    db.close()
    return path


def test_tables_read_exactly(tmp_path):
    path = make_db(tmp_path, {
        "MEMORY_RECORD": [(1, 1000, 300, 500, 300, 9, 0), (8, 1000, 310, 520, 300, 9, 0),
                          (2, 900, 10, 20, None, None, 0)],
        "OP_MEMORY": [(3, 4096, 100, None, 9, 0), (4, 512, 200, 250, None, 0)],
        "NPU_MODULE_MEM": [(0, 50, 0, 0), (3, 50, 1048576, 0)],
        "NPU_MEM": [(7, 1, 2047, 60, 0)],
    })
    m = load_memory([path])
    c = m.curves
    assert [m.name(k) for k in c.component] == ["PTA", "PTA+GE", "GE", "APP"]
    assert c.time_ns.tolist() == [1000, 1000, 900, 60]
    assert c.allocated.tolist() == [300, 310, 10, -1] and c.reserved.tolist() == [500, 520, 20, 2048]
    assert c.active.tolist() == [300, 300, -1, -1]
    a = m.allocations
    assert [m.name(k) for k in a.name] == ["aten::mm", "Conv2D1"]
    assert [m.name(k) for k in a.component] == ["PTA", "GE"]  # no allocator stream: a graph-engine block
    assert a.size.tolist() == [4096, 512] and a.allocated_ns.tolist() == [100, 200]
    assert a.released_ns.tolist() == [NEVER, 250]
    assert [m.name(k) for k in m.modules.module] == ["SLOG", "HCCL"] and m.modules.reserved.tolist() == [0, 1048576]
    assert m.report.dropped_rows == 0 and not m.report.warnings and m.sources == [str(path)]


def test_database_beside_a_trace_is_found(tmp_path):
    make_db(tmp_path, {"OP_MEMORY": [(3, 4096, 100, 200, 9, 0)]})
    (tmp_path / "trace_view.json").write_text("[]")
    assert len(load_memory([tmp_path / "trace_view.json"]).allocations) == 1


def test_bad_rows_counted(tmp_path):
    path = make_db(tmp_path, {"OP_MEMORY": [
        (3, 4096, 100, 200, 9, 0),  # good
        (3, None, 100, 200, 9, 0),  # no size
        (3, "big", 100, 200, 9, 0),  # text for a size
        (3, -5, 100, 200, 9, 0),  # negative size
        (99, 4096, 100, 200, 9, 0),  # name id no table knows
        (3, 4096, 300, 200, 9, 0),  # released before allocated
    ]})
    m = load_memory([path])
    assert m.allocations.size.tolist() == [4096]
    assert dict(m.report.dropped) == {NO_VALUE: 1, BAD_NUMBER: 2, UNKNOWN_NAME: 1, RELEASE_BEFORE_ALLOCATION: 1}
    assert f"{path.name} OP_MEMORY row 2: no value" in m.report.examples


def test_missing_table_and_column(tmp_path):
    schema = dict(SCHEMA, MEMORY_RECORD="component INTEGER, totalReserved INTEGER")  # no timestamp
    path = make_db(tmp_path, {"MEMORY_RECORD": [(1, 5)], "NPU_MODULE_MEM": [(0, 50, 7, 0)]},
                   skip=("OP_MEMORY", "NPU_OP_MEM"), schema=schema)
    m = load_memory([path])
    assert len(m.curves) == 0 and len(m.modules) == 1 and len(m.allocations) == 0
    assert any("MEMORY_RECORD has no column timestamp" in w for w in m.report.warnings)
    assert any("no table OP_MEMORY" in w for w in m.report.warnings)


def test_npu_op_mem_pairs_allocate_and_release_when_op_memory_is_absent(tmp_path):
    path = make_db(tmp_path, {"NPU_OP_MEM": [
        (4, 0xA0, 5, 1024, 100, 0, 0, 0, 2, 0),  # allocate A at 100
        (3, 0xB0, 5, 2048, 110, 0, 0, 0, 2, 0),  # allocate B at 110, never released
        (4, 0xA0, 6, 1024, 150, 0, 0, 0, 2, 0),  # release A at 150
        (4, 0xA0, 5, 4096, 160, 0, 0, 0, 2, 0),  # A's address again at 160
        (4, 0xA0, 6, 4096, 190, 0, 0, 0, 2, 0),
    ]}, skip=("OP_MEMORY",))
    m = load_memory([path])
    a = m.allocations
    got = sorted(zip(a.allocated_ns.tolist(), a.released_ns.tolist(), a.size.tolist(), strict=True))
    assert got == [(100, 150, 1024), (110, NEVER, 2048), (160, 190, 4096)]
    assert {m.name(k) for k in a.component} == {"GE"}


def test_not_a_database(tmp_path):
    path = tmp_path / "ascend_pytorch_profiler_0.db"
    path.write_bytes(b"this is no sqlite file" * 100)
    m = load_memory([path])
    assert m.empty and any("cannot be read as a database" in w for w in m.report.warnings)


def test_npu_op_mem_beside_op_memory_is_named_not_read(tmp_path):
    """With OP_MEMORY read, NPU_OP_MEM's events would count its graph-engine blocks twice: not read, and
    said, with what each table holds (3 rows, 2 allocations; OP_MEMORY's 1 row without a stream)."""
    path = make_db(tmp_path, {
        "OP_MEMORY": [(3, 4096, 100, 200, 9, 0), (4, 1024, 100, 150, None, 0)],
        "NPU_OP_MEM": [(4, 0xA0, 5, 1024, 100, 0, 0, 0, 2, 0), (4, 0xA0, 6, 1024, 150, 0, 0, 0, 2, 0),
                       (3, 0xB0, 5, 2048, 110, 0, 0, 0, 2, 0)],
    })
    m = load_memory([path])
    assert m.allocations.size.tolist() == [4096, 1024]  # OP_MEMORY's rows only
    assert (f"{path.name}: table NPU_OP_MEM not read, 3 rows (2 allocations against OP_MEMORY's 1 "
            f"without a stream): the allocations are read from OP_MEMORY") in m.report.warnings
    assert "NPU_OP_MEM" in m.report.headline()


def test_an_empty_npu_op_mem_says_nothing(tmp_path):
    path = make_db(tmp_path, {"OP_MEMORY": [(3, 4096, 100, 200, 9, 0)]})
    assert not load_memory([path]).report.warnings


def test_an_allocation_named_by_a_bare_number_is_said(tmp_path):
    """An operator hash the producer did not resolve reaches STRING_IDS as a number written as text."""
    strings = dict(STRINGS)
    strings[9] = "1.83976461015564e+19"
    path = tmp_path / "ascend_pytorch_profiler_0.db"
    make_db(tmp_path, {"NPU_OP_MEM": [(9, 0xA0, 5, 1024, 100, 0, 0, 0, 2, 0), (9, 0xA0, 6, 1024, 150, 0, 0, 0, 2, 0),
                                      (3, 0xB0, 5, 2048, 110, 0, 0, 0, 2, 0)]}, skip=("OP_MEMORY",))
    db = sqlite3.connect(path)
    db.execute("INSERT INTO STRING_IDS VALUES (9, ?)", (strings[9],))
    db.commit()
    db.close()
    m = load_memory([path])
    assert sorted(m.name(k) for k in m.allocations.name) == ["1.83976461015564e+19", "aten::mm"]
    assert (f"{path.name}: 1 allocations of NPU_OP_MEM are named by a bare number, not a name: a hash the producer "
            f"did not resolve (e.g. 1.83976461015564e+19); shown as written") in m.report.warnings
