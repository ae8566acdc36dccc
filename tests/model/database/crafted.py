"""Small profiler databases written row by row in a test, so that every figure read back can be
computed by hand: only the tables a case needs, torch_npu's / msprof's column names."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

NONE_U32 = 4294967295
TABLES = {
    "META_DATA": "name TEXT, value TEXT",
    "STRING_IDS": "id INTEGER PRIMARY KEY, value TEXT",
    "ENUM_HCCL_TRANSPORT_TYPE": "id INTEGER PRIMARY KEY, name TEXT",
    "ENUM_HCCL_LINK_TYPE": "id INTEGER PRIMARY KEY, name TEXT",
    "TASK": "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, "
            "globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, "
            "modelId INTEGER",
    "COMPUTE_TASK_INFO": "name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, taskType INTEGER, "
                         "opType INTEGER",
    "COMMUNICATION_TASK_INFO": "name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, "
                               "groupName INTEGER, notifyId INTEGER, srcRank INTEGER, dstRank INTEGER, "
                               "transportType INTEGER, size INTEGER, linkType INTEGER, opId INTEGER",
    "COMMUNICATION_OP": "opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, "
                        "groupName INTEGER, opId INTEGER PRIMARY KEY",
    "OVERLAP_ANALYSIS": "deviceId INTEGER, startNs INTEGER, endNs INTEGER, type INTEGER",
}
TRANSPORTS = {0: "SDMA", 1: "RDMA", 2: "LOCAL", 65534: "N/A", 65535: "INVALID_TYPE"}
LINKS = {0: "ON_CHIP", 1: "HCCS", 65534: "N/A"}


@dataclass
class CraftedDatabase:
    """Rows to write; names go through ``STRING_IDS`` (``sid``)."""

    strings: dict[str, int] = field(default_factory=dict)
    rows: dict[str, list[tuple]] = field(default_factory=dict)
    extra_tables: dict[str, str] = field(default_factory=dict)
    next_task: int = 1

    def sid(self, text: str) -> int:
        return self.strings.setdefault(text, len(self.strings) + 1)

    def task(self, start: int, end: int, task_type: str, stream: int = 2, task_id: int | None = None) -> int:
        """A TASK row; returns its globalTaskId."""
        gid = self.next_task
        self.next_task += 1
        self.rows.setdefault("TASK", []).append(
            (start, end, 0, NONE_U32, gid, 1, self.sid(task_type), NONE_U32, stream,
             gid if task_id is None else task_id, NONE_U32))
        return gid

    def kernel(self, start: int, end: int, name: str, unit: str = "AI_CORE") -> int:
        """A TASK row with its COMPUTE_TASK_INFO row."""
        gid = self.task(start, end, "KERNEL_AICORE" if unit == "AI_CORE" else unit)
        self.rows.setdefault("COMPUTE_TASK_INFO", []).append((self.sid(name), gid, 8, self.sid(unit),
                                                              self.sid(name.split("_")[0])))
        return gid

    def plane_task(self, start: int, end: int, task_type: str, src: int, dst: int, size: int,
                   transport: int | None, op_id: int = 1, group: str = "group0", plane: int = 0) -> int:
        gid = self.task(start, end, task_type, stream=9)
        self.rows.setdefault("COMMUNICATION_TASK_INFO", []).append(
            (self.sid("hcom_allReduce__1_0_1"), gid, self.sid(task_type), plane, self.sid(group), 0, src, dst,
             transport, size, 1, op_id))
        return gid

    def collective(self, start: int, end: int, name: str, group: str = "group0", op_id: int = 1) -> None:
        self.rows.setdefault("COMMUNICATION_OP", []).append((self.sid(name), start, end, NONE_U32,
                                                             self.sid(group), op_id))

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
        try:
            tables = {**TABLES, **self.extra_tables}
            for table, cols in tables.items():
                conn.execute(f"create table {table} ({cols})")
            conn.execute("insert into META_DATA values ('SCHEMA_VERSION', '1.0.0')")
            conn.executemany("insert into STRING_IDS values (?, ?)", [(i, s) for s, i in self.strings.items()])
            conn.executemany("insert into ENUM_HCCL_TRANSPORT_TYPE values (?, ?)", TRANSPORTS.items())
            conn.executemany("insert into ENUM_HCCL_LINK_TYPE values (?, ?)", LINKS.items())
            for table, rows in self.rows.items():
                marks = ", ".join("?" * len(rows[0]))
                conn.executemany(f"insert into {table} values ({marks})", rows)
            conn.commit()
        finally:
            conn.close()
        return path
