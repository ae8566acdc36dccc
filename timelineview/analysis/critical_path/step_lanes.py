"""One step of a replayed graph as lanes, one per card: the data wait, the compute blocks (each as its
compute, then its dispatch gaps), the waits for a launch and the time in each collective (ns from the
step's start). The what-if panel draws the measured step and the step a change predicts this way, one
above the other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.critical_path.graph import StepGraph
from timelineview.analysis.critical_path.replay import Timeline

DATA_WAIT, COMPUTE, LAUNCH_WAIT, IN_COLLECTIVE = "data_wait", "compute", "launch_wait", "collective"
DISPATCH_GAP = "dispatch_gap"  # the part of a block in which the card computed nothing


@dataclass
class StepLanes:
    """Columns of intervals of one step, each on card ``card`` (a column of the graph's cards)."""

    step: int  # the step number
    step_ns: float  # when the step ends (from its start)
    card: np.ndarray  # int64
    kind: list[str]
    name: list[str]  # the collective's name ("" otherwise)
    start: np.ndarray  # float64 ns from the step's start
    end: np.ndarray

    def of_card(self, c: int) -> np.ndarray:
        """Rows of card column ``c``."""
        return np.flatnonzero(self.card == c)

    def total(self, c: int, kind: str) -> float:
        """Time card column ``c`` spends in intervals of ``kind``."""
        rows = [i for i in self.of_card(c).tolist() if self.kind[i] == kind]
        return float((self.end[rows] - self.start[rows]).sum()) if rows else 0.0


def step_lanes(g: StepGraph, tl: Timeline, k: int) -> StepLanes:
    """Row ``k`` of the replay ``tl`` of ``g`` as lanes."""
    card, kind, name, start, end = [], [], [], [], []

    def add(c: int, what: str, a: float, b: float, label: str = "") -> None:
        if b > a:
            card.append(c)
            kind.append(what)
            name.append(label)
            start.append(a)
            end.append(b)

    n_ops = g.n_ops
    for c in range(len(g.cards)):
        add(c, DATA_WAIT, 0.0, float(tl.block_start[k, 0, c]))
        for i in range(n_ops + 1):
            if i and tl.block_start[k, i, c] > tl.ready[k, i - 1, c]:  # waited for the previous collective
                add(c, LAUNCH_WAIT, float(tl.ready[k, i - 1, c]), float(tl.block_start[k, i, c]))
            # the replay knows how much of a block is gaps, not where they fell: its compute is drawn first
            begun, ready = float(tl.block_start[k, i, c]), float(tl.ready[k, i, c])
            computed = min(begun + float(tl.busy[k, i, c]), ready)
            add(c, COMPUTE, begun, computed)
            add(c, DISPATCH_GAP, computed, ready)
            if i < n_ops:
                add(c, IN_COLLECTIVE, float(tl.arrival[k, i, c]), float(tl.ends[k, i, c]), g.op_name(k, i, c))
    return StepLanes(int(g.steps[k]), float(tl.step[k]), np.array(card, np.int64), kind, name,
                     np.array(start, np.float64), np.array(end, np.float64))
