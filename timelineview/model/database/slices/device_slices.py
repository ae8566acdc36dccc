"""``TASK`` on stream lanes, plane tasks on ``Plane N`` lanes, ``COMMUNICATION_OP`` on group lanes."""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.devices import DEVICE_COLUMN
from timelineview.model.database.keys import sorted_unique, unique_inverse
from timelineview.model.database.slices.key_joins import join_one
from timelineview.model.database.slices.slice_parts import KIND_HARDWARE, KIND_OPERATOR, KIND_PLANE, SliceParts
from timelineview.model.database.slices.subtask_parents import without_parents
from timelineview.model.database.slices.table_reads import read_table, table_or_copy
from timelineview.model.database.slices.task_names import task_names
from timelineview.model.database.sqlite.table_names import ROWID
from timelineview.model.database.sqlite.tables import Schema
from timelineview.model.database.strings import UNKNOWN_ID, CardStrings
from timelineview.model.database.transports import note_untransported

TASK_COLUMNS = ("startNs", "endNs", "globalTaskId", "streamId", "taskType")
TASK_OPTIONAL = ("taskId", "contextId", "connectionId", DEVICE_COLUMN)
COMPUTE_COLUMNS = ("globalTaskId", "name", "taskType")
COMM_TASK_COLUMNS = ("globalTaskId", "taskType", "planeId", "groupName")
OP_COLUMNS = ("opName", "startNs", "endNs", "groupName")
OP_OPTIONAL = ("connectionId",)


def add_device(conn: sqlite3.Connection, schema: Schema, parts: SliceParts) -> None:
    """``TASK`` on ``Ascend Hardware`` stream lanes (name and ``Task Type`` from the info tables), plane
    tasks on ``HCCL`` ``Plane N`` lanes, ``COMMUNICATION_OP`` on each group's operator lane."""
    s = parts.strings
    task = read_table(conn, schema, parts, "TASK", TASK_COLUMNS, TASK_OPTIONAL)
    if task is not None:
        if DEVICE_COLUMN in task:
            parts.task_devices = sorted_unique(task.pop(DEVICE_COLUMN))
        task = without_parents(task)
        for done_with in ("taskId", "contextId"):
            task.pop(done_with, None)
    compute = read_table(conn, schema, parts, table_or_copy(schema, parts, "COMPUTE_TASK_INFO"), COMPUTE_COLUMNS)
    comm = read_table(conn, schema, parts, "COMMUNICATION_TASK_INFO", COMM_TASK_COLUMNS)
    if comm is not None and parts.scope is None:  # (of a database of several devices: counted in none)
        note_untransported(conn, schema, parts.notes)
    ops = read_table(conn, schema, parts, "COMMUNICATION_OP", OP_COLUMNS, OP_OPTIONAL)
    group_tid = _group_lanes(comm, ops)
    if task is not None:
        n = len(task["startNs"])
        name, ttype, info = task_names(s, task, compute, parts.notes)
        compute = None  # let go: each table is held only while it is needed (the load's peak)
        uniq, inverse = unique_inverse(task.pop("streamId"))
        lane_of = np.array([parts.book.lane(L.HARDWARE, str(int(u)), L.STREAM_LANE.format(int(u)), int(u))
                            for u in uniq], dtype=np.int32)
        lanes = lane_of[inverse] if n else np.zeros(0, np.int32)
        del inverse
        first = parts.add(start=task["startNs"], end=task["endNs"], lane=lanes, name=name, kind=KIND_HARDWARE,
                          row=task[ROWID], info=info, task_type=ttype)
        del lanes, name, ttype, info
        if "connectionId" in task:
            parts.ends.add("device", task["connectionId"], first)
        if comm is not None:
            _add_planes(parts, task, comm, group_tid)
    if ops is not None:
        groups, inverse = np.unique(ops["groupName"], return_inverse=True)
        lane_of = np.array([parts.book.lane(L.HCCL, str(group_tid[g][0]), L.GROUP_LANE.format(_text(s, g)),
                                            group_tid[g][0]) for g in groups.tolist()], dtype=np.int32)
        lanes = lane_of[inverse.reshape(-1)] if len(groups) else np.zeros(0, np.int32)
        first = parts.add(start=ops["startNs"], end=ops["endNs"], lane=lanes, name=s.of_ids(ops["opName"]),
                          kind=KIND_OPERATOR, row=ops[ROWID])
        if "connectionId" in ops:
            parts.ends.add("device", ops["connectionId"], first)



def _text(s: CardStrings, db_id: int) -> str:
    """The text of a database string id; one ``STRING_IDS`` lacks is said to be unknown, never shown bare."""
    value = s.value(db_id)
    return value if value is not None else UNKNOWN_ID.format(db_id)


def _group_lanes(comm: dict | None, ops: dict | None) -> dict[int, tuple[int, int]]:
    """Per communication group: (tid of its operator lane, planes), as the C++ export numbers them:
    the group's lane at its start index, ``Plane k`` at start + k + 1."""
    groups = set()
    planes: dict[int, int] = {}
    if comm is not None and len(comm["groupName"]):  # one row per plane task: millions, reduced in numpy
        names, inverse = np.unique(comm["groupName"], return_inverse=True)
        top = np.full(len(names), -1, np.int64)
        np.maximum.at(top, inverse.reshape(-1), comm["planeId"])
        planes = dict(zip(names.tolist(), top.tolist(), strict=True))
        groups.update(planes)
    if ops is not None:
        groups.update(np.unique(ops["groupName"]).tolist())
    out, start = {}, 0
    for g in sorted(groups):
        out[g] = (start, planes.get(g, -1) + 1)
        start += planes.get(g, -1) + 2
    return out


def _add_planes(parts: SliceParts, task: dict, comm: dict, group_tid: dict[int, tuple[int, int]]) -> None:
    s = parts.strings
    ti = join_one(comm["globalTaskId"], task["globalTaskId"])
    lost = int((ti < 0).sum())
    if lost:
        parts.notes.append(f"{lost:,} COMMUNICATION_TASK_INFO rows name no TASK row: not drawn")
    keep = ti >= 0
    ti = ti[keep]
    groups, plane_ids = comm["groupName"][keep], comm["planeId"][keep]
    key = np.stack([groups, plane_ids], axis=1) if len(groups) else np.zeros((0, 2), np.int64)
    uniq, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    lane_of = []
    for g, p in uniq.tolist():
        base = group_tid[g][0]
        lane_of.append(parts.book.lane(L.HCCL, str(base + p + 1), L.PLANE_LANE.format(p), base + p + 1))
    lanes = np.array(lane_of, dtype=np.int32)[inverse] if len(uniq) else np.zeros(0, np.int32)
    parts.add(start=task["startNs"][ti], end=task["endNs"][ti], lane=lanes, name=s.of_ids(comm["taskType"][keep]),
              kind=KIND_PLANE, row=task[ROWID][ti], info=comm[ROWID][keep])

