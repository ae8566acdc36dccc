"""Where a statistic points on the timeline: a card, a time span on its own clock, a lane or operator.

The analysis tabs (communication, operators, diagnosis, comparison of runs) say where to go with a
:class:`JumpTarget`; the window turns it into cards shown, a zoom and a selection. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class JumpTarget:
    """Card ``card`` (its number in the loaded list) over [start_ns, end_ns) of its own clock (absolute
    ns as in its file); ``lane``: "<process>/<lane>" of a trace lane or the title of a derived lane;
    ``name``: an operator whose slices in the span are selected; ``slices``: the slice indices of a group of
    tasks (an op type, a shape) to highlight instead, ``name`` then labelling them."""

    card: int
    start_ns: int
    end_ns: int
    lane: str | None = None
    name: str | None = None
    slices: np.ndarray | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_evidence(cls, card: int, t_origin_ns: int, evidence: dict) -> JumpTarget:
        """From a finding's evidence (its instants in ns on the card's clock)."""
        start, end = int(evidence["start_ns"]), int(evidence["end_ns"])
        return cls(card, start, max(end, start + 1), evidence.get("lane"), evidence.get("name"))


def lane_index(process_names: list[str], lane_process: list[int], lane_names: list[str], key: str) -> int | None:
    """The lane called ``"<process>/<lane>"``, or None."""
    for ln, (p, name) in enumerate(zip(lane_process, lane_names, strict=True)):
        if f"{process_names[p]}/{name}" == key:
            return ln
    return None


def step_holding(steps: list[dict], start_ns: int, end_ns: int) -> int | None:
    """The number of the step (``step``, ``start_ns``, ``end_ns`` on the card's own clock, as the cluster
    comparison lists them) that holds all of [start_ns, end_ns); None when no one step does (the span
    crosses steps, or lies outside every step)."""
    for s in steps:
        s0, s1 = s.get("start_ns"), s.get("end_ns")
        if s0 is not None and s1 is not None and s0 <= start_ns and end_ns <= s1:
            return int(s["step"])
    return None
