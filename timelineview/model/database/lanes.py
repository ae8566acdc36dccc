"""Processes and lanes of a database card, collected as the slices are made, ordered at the end
the way the JSON generation orders them (process sort index, then the lane's)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.model.store.trace_store import LaneTable, ProcessTable

Process = tuple[str, str, int]  # (name, label, sort index): see ``layout``


@dataclass
class LaneBook:
    """Lanes handed out as provisional ids; ``finish`` gives the tables and the id remap."""

    processes: list[Process] = field(default_factory=list)
    lanes: list[tuple[int, str, str, int]] = field(default_factory=list)  # (process, tid, name, sort)
    _lane_of: dict[tuple[int, str], int] = field(default_factory=dict)

    def process(self, proc: Process) -> int:
        if proc not in self.processes:
            self.processes.append(proc)
        return self.processes.index(proc)

    def lane(self, proc: Process, tid: str, name: str, sort: int) -> int:
        p = self.process(proc)
        key = (p, tid)
        if key not in self._lane_of:
            self._lane_of[key] = len(self.lanes)
            self.lanes.append((p, tid, name, sort))
        return self._lane_of[key]

    def finish(self, pid_of: dict[str, str]) -> tuple[ProcessTable, LaneTable, np.ndarray, np.ndarray]:
        """(processes, lanes, lane remap, process remap): provisional id -> display position."""
        p_order = sorted(range(len(self.processes)), key=lambda p: (self.processes[p][2], self.processes[p][0]))
        p_new = np.empty(len(self.processes), dtype=np.int32)
        p_new[p_order] = np.arange(len(p_order), dtype=np.int32)
        procs = ProcessTable(pid=[pid_of.get(self.processes[p][0], self.processes[p][0]) for p in p_order],
                             name=[self.processes[p][0] for p in p_order],
                             label=[self.processes[p][1] for p in p_order],
                             sort_index=np.array([self.processes[p][2] for p in p_order], dtype=np.int64))
        l_order = sorted(range(len(self.lanes)), key=lambda i: (int(p_new[self.lanes[i][0]]), self.lanes[i][3], i))
        l_new = np.empty(len(self.lanes), dtype=np.int32)
        l_new[l_order] = np.arange(len(l_order), dtype=np.int32)
        lanes = LaneTable(process=np.array([p_new[self.lanes[i][0]] for i in l_order], dtype=np.int32),
                          tid=[self.lanes[i][1] for i in l_order], name=[self.lanes[i][2] for i in l_order],
                          sort_index=np.array([self.lanes[i][3] for i in l_order], dtype=np.int64))
        return procs, lanes, l_new, p_new
