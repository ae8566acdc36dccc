"""The advisor's facts of one card, computed once with its other finding facts (``signal_facts``) and kept with
them (a summary keeps them too): each check's figures and its evidence as spans on the card's own clock."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from timelineview.analysis.advisor.block_dim import low_block_dim
from timelineview.analysis.advisor.device_info import device_info
from timelineview.analysis.advisor.dynamic_shapes import dynamic_shapes
from timelineview.analysis.advisor.frequency import FREQUENCY_COUNTER, frequency_drops
from timelineview.analysis.advisor.op_type_times import op_type_times
from timelineview.analysis.advisor.tasks import StepWindows, Tasks, card_tasks
from timelineview.analysis.advisor.vector_runs import vector_runs
from timelineview.analysis.findings.records import Evidence
from timelineview.model.store.trace_store import TraceStore

NS_PER_US = 1000.0


class _Spans:
    """Evidence documents of a card's tasks and spans (ns on the card's clock, as its slices carry them)."""

    def __init__(self, store: TraceStore, tasks: Tasks, card: str) -> None:
        self.store, self.tasks, self.card = store, tasks, card

    def span(self, start_ns: int, end_ns: int, lane: str | None, name: str | None = None) -> dict:
        return Evidence(self.card, int(start_ns), int(end_ns), lane, name).document()

    def lane(self, k: int) -> str:
        lanes = self.store.lanes
        ln = int(self.tasks.lane[k])
        return f"{self.store.processes.name[lanes.process[ln]]}/{lanes.name[ln]}"

    def task(self, k: int) -> dict:
        t = self.tasks
        name_id = int(self.store.slices.name[t.slices[k]])
        return self.span(t.start[k], t.end[k], self.lane(k), self.store.strings[name_id] if name_id >= 0 else None)

    def tasks_of(self, positions) -> list[dict]:
        return [self.task(int(k)) for k in positions]


def advisor_facts(store: TraceStore, a, evidence: int) -> dict | None:
    """The advisor's facts of a card with analysis ``a`` (its ``kernels`` and ``steps`` computed); ``evidence``:
    spans kept per check. None without a kernel table."""
    table = a.kernels
    if table is None:
        return None
    tasks = card_tasks(store, table)
    spans = _Spans(store, tasks, a.card)
    device = device_info(list(store.paths), table.device)
    windows = sorted(a.steps or [], key=lambda w: w.start)
    steps = StepWindows(np.array([w.start for w in windows], np.int64), np.array([w.end for w in windows], np.int64))
    times = op_type_times(tasks, evidence, steps)
    out: dict = {
        "steps": len(a.steps or []),
        "op_types": {"by_op_type": times["by_op_type"], "by_shape": times["by_shape"],
                     "by_op_type_steps": times["by_op_type_steps"], "by_shape_steps": times["by_shape_steps"],
                     "longest": {k: spans.tasks_of(v) for k, v in times["longest"].items()}},
        "device": asdict(device),
        "frequency": None, "dynamic": None, "block_dim": None, "vector_runs": None,
    }
    drops = frequency_drops(store, list(a.steps or []), device.nominal_mhz, device.source)
    if drops is not None:
        below = drops.below
        top = np.argsort(-(below.ends - below.starts), kind="stable")[:evidence]
        out["frequency"] = {"nominal_mhz": drops.nominal_mhz, "nominal_source": drops.nominal_source,
                            "lowest_mhz": drops.lowest_mhz, "samples": drops.samples,
                            "below_us": drops.below_ns / NS_PER_US,
                            "steps_us": drops.steps_ns / NS_PER_US, "share": drops.share,
                            "evidence": [spans.span(below.starts[k], below.ends[k], FREQUENCY_COUNTER)
                                         for k in top.tolist()]}
    dyn = dynamic_shapes(tasks, evidence)
    if dyn is not None:
        out["dynamic"] = {"tasks": dyn.tasks, "dynamic_tasks": dyn.dynamic_tasks,
                          "dynamic_us": dyn.dynamic_ns / NS_PER_US,
                          "compute_us": dyn.compute_ns / NS_PER_US, "share": dyn.share,
                          "top": [[t.op_type, t.count, t.total_ns / NS_PER_US, t.shapes] for t in dyn.top],
                          "evidence": spans.tasks_of(dyn.longest)}
    low = low_block_dim(tasks, device, evidence)
    if low is not None:
        out["block_dim"] = {"count": low.count, "total_us": low.total_ns / NS_PER_US,
                            "compute_us": low.compute_ns / NS_PER_US, "share": low.share,
                            "top": [[t.op_type, t.core_type, t.block_dim, t.cores, t.count, t.total_ns / NS_PER_US]
                                    for t in low.top],
                            "evidence": spans.tasks_of(low.longest)}
    runs = vector_runs(tasks, evidence)
    out["vector_runs"] = {"repeated_us": runs.repeated_ns / NS_PER_US, "compute_us": runs.compute_ns / NS_PER_US,
                          "share": runs.share,
                          "sequences": [{"op_types": list(s.op_types), "count": s.count,
                                         "total_us": s.total_ns / NS_PER_US,
                                         "evidence": [spans.span(tasks.start[f], tasks.end[e], spans.lane(f))
                                                      for f, e in s.longest]}
                                        for s in runs.sequences]}
    return out
