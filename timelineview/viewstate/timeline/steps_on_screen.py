"""Which step the timeline's visible window shows, for the strip above it (no Qt).

The strip names a step only while the window shows that one step: a drill-down to it, a jump or a search
that landed in it, a zoom inside it. A step is on screen when it fills at least half of the window or at
least half of it is in the window (so the margins a drill-down leaves around a step do not count its
neighbours); a window showing several steps, or none, names none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

ON_SCREEN_SHARE = 0.5  # of the window, or of the step, that the overlap must reach


@dataclass(frozen=True)
class StepSpan:
    """Step ``step`` of one card over [t0, t1), relative ns on the timeline's clock."""

    step: int
    t0: int
    t1: int


class StepSpans:
    """The steps of the cards on the timeline, as columns: asked for the step on screen at every window
    change (many cards, many steps: one vectorised pass)."""

    def __init__(self, spans: Iterable[StepSpan]) -> None:
        spans = list(spans)
        self.step = np.array([s.step for s in spans], dtype=np.int64)
        self.t0 = np.array([s.t0 for s in spans], dtype=np.int64)
        self.t1 = np.array([s.t1 for s in spans], dtype=np.int64)

    def on_screen(self, v0: int, v1: int) -> list[int]:
        """The steps the window [v0, v1) shows (sorted)."""
        if v1 <= v0 or not len(self.step):
            return []
        overlap = np.minimum(self.t1, v1) - np.maximum(self.t0, v0)
        length = np.maximum(self.t1 - self.t0, 1)
        shown = (overlap > 0) & ((overlap >= ON_SCREEN_SHARE * (v1 - v0)) | (overlap >= ON_SCREEN_SHARE * length))
        return sorted({int(s) for s in self.step[shown]})

    def step_shown(self, v0: int, v1: int) -> int | None:
        """The one step the window shows, or None (several steps, or none)."""
        steps = self.on_screen(v0, v1)
        return steps[0] if len(steps) == 1 else None
