"""Where a slow step's excess lies: the phase of the step that exceeds its median over the card's steps
the most (metrics.md §8, ``slow_step``), and the step of the tuning method that phase belongs to. No Qt."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from timelineview.analysis.findings.rules import METHOD_FORWARD_BACKWARD, METHOD_STEP_INTERVAL, METHOD_TAIL
from timelineview.analysis.steps import StepWindow


class Phase(NamedTuple):
    """One phase of a step: its key, the words the advice uses, its bounds (``StepWindow`` fields) and
    the step of the tuning method that looks at it."""

    key: str
    words: str
    start: str
    end: str
    method: str


PHASES = (
    Phase("step_interval_us", "step interval (waiting for data)", "start", "fp", METHOD_STEP_INTERVAL),
    Phase("fp_bp_us", "forward/backward", "fp", "bp", METHOD_FORWARD_BACKWARD),
    Phase("tail_us", "tail (gradient synchronisation and the update)", "bp", "end", METHOD_TAIL),
)


class PhaseExcess(NamedTuple):
    """The phase of one step furthest above its median over the card's steps (ns)."""

    phase: Phase
    value_ns: int
    median_ns: float

    @property
    def excess_ns(self) -> float:
        return self.value_ns - self.median_ns


def largest_phase_excess(steps: list[StepWindow], row: int) -> PhaseExcess | None:
    """The phase of ``steps[row]`` whose length exceeds its median over ``steps`` the most; None when
    the steps have no measured phases (a whole-trace window) or no phase of that step is above its
    median."""
    if not steps[row].has_phases:
        return None
    measured = [s for s in steps if s.has_phases]
    best = None
    for phase in PHASES:
        lengths = np.array([getattr(s, phase.end) - getattr(s, phase.start) for s in measured], dtype=np.int64)
        value = getattr(steps[row], phase.end) - getattr(steps[row], phase.start)
        found = PhaseExcess(phase, int(value), float(np.median(lengths)))
        if found.excess_ns > 0 and (best is None or found.excess_ns > best.excess_ns):
            best = found
    return best
