"""One card per device of a database that holds several (msprof's, of a whole ``PROF_*`` folder).

The devices are those ``RANK_DEVICE_MAP`` lists. A device's card holds the rows of the tables with
a ``deviceId`` column that name it (``TASK``, ``OVERLAP_ANALYSIS``, counters), the info rows of
its tasks, the collectives its plane tasks belong to (``opId``), and the host rows (``CANN_API``,
``PYTORCH_API``) of the processes that launched its tasks (``TASK.globalPid``, the high half of
``globalTid``); the first device's card also takes the rows no device claims. ``STEP_TIME`` is
every card's.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.tables import read_schema

RANK_TABLE = "RANK_DEVICE_MAP"
DEVICE_COLUMN = "deviceId"
PID_SHIFT = 32  # globalTid = pid << 32 | tid


@dataclass(frozen=True)
class DeviceCard:
    """One device of a database and the rank ``RANK_DEVICE_MAP`` gives it (None when it gives none)."""

    device: int
    rank: int | None


def database_devices(path: str | os.PathLike) -> list[DeviceCard]:
    """The devices ``RANK_DEVICE_MAP`` lists, by device id (empty when absent or unreadable)."""
    try:
        conn = connect(path)
    except (sqlite3.Error, OSError):
        return []
    try:
        if not read_schema(conn).has(RANK_TABLE, "rankId", DEVICE_COLUMN):
            return []
        rows = conn.execute(f"select {DEVICE_COLUMN}, rankId from {RANK_TABLE}").fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    ranks: dict[int, int | None] = {}
    for device, rank in rows:
        if isinstance(device, int) and 0 <= device != L.NONE_U32:
            valid = isinstance(rank, int) and 0 <= rank != L.NONE_U32
            ranks[device] = rank if valid else ranks.get(device)
    return [DeviceCard(d, ranks[d]) for d in sorted(ranks)]


@dataclass
class DeviceScope:
    """Which rows of a several-device database one card keeps."""

    device: int
    first: bool  # also the rows no device claims
    pids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # its tasks' host processes
    others: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # the other devices' processes
    task_ids: np.ndarray | None = None  # its tasks' globalTaskId, sorted
    ops: np.ndarray | None = None  # opId of its plane tasks, sorted
    other_ops: np.ndarray | None = None

    def device_rows(self, device: np.ndarray) -> np.ndarray:
        """The rows of a table's ``deviceId`` column that are this card's."""
        return device == self.device

    def note_tasks(self, task: dict[str, np.ndarray], keep: np.ndarray) -> None:
        """Remember the processes (``globalPid``) and task ids of this device's tasks, and the others'."""
        if "globalPid" in task:
            pid = task["globalPid"]
            self.pids = np.unique(pid[keep])
            self.others = np.setdiff1d(np.unique(pid[~keep]), self.pids)
        self.task_ids = np.sort(task["globalTaskId"][keep])

    def host_rows(self, global_tid: np.ndarray) -> np.ndarray:
        """The host rows (by ``globalTid``) of this device's processes (+ no device's on the first card)."""
        pid = np.where(global_tid >= 0, global_tid >> PID_SHIFT, -1)
        mine = np.isin(pid, self.pids)
        if self.first:
            mine |= ~np.isin(pid, self.others)
        return mine

    def op_rows(self, op_id: np.ndarray | None) -> np.ndarray | None:
        """The collectives (by ``opId``) of this device's plane tasks (+ no device's on the first card);
        None when they cannot be told apart (then the first card takes them all)."""
        if op_id is None or self.ops is None:
            return None
        mine = np.isin(op_id, self.ops)
        if self.first:
            mine |= ~np.isin(op_id, self.other_ops)
        return mine
