"""Step markers a host bubble moved (metrics.md §4): put back before a card's step interval is judged.

A card's step starts at its own step marker. When the host is late to write one (a host bubble), the
marker of step k moves later by d on that card alone: its step k − 1 is d longer than the other cards',
its step k d shorter, and its step interval of step k d shorter, though it waited for its data as long.
In a job that runs in lockstep every card's step has the same length (the collectives hold them
together), so a card's deviation from the cards' median length in two neighbouring steps, one long and
one short by as much, is such a shift. The cards' step lengths tell it, as ``net_boundary_shifts``
nets it for the slow steps. No Qt.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.worst_of_many import median_and_sigma

# a step's deviation counts toward a shift when it passes this many of the step's deviations' robust sigma
# (in lockstep that sigma is about 0 and every shift passes; among cards that run apart, only the clear
# outliers are netted)
SHIFT_Z = 5.0
BACK_ON_TIME_US = 0.001  # a run of deviations that sums to within 1 ns of 0 has come back (float sums)


def _deviation_sigma(dev: np.ndarray) -> float:
    finite = dev[np.isfinite(dev)]
    return median_and_sigma(finite)[1] if len(finite) >= 3 else float("inf")


def marker_shifts(spans: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """Per card (rows) and step (columns, in order), how much later its marker of that step started than the
    cards' (0 where no shift is told apart). A card's step deviates from the cards' median length by the
    shift of its end marker minus that of its start, so the shift of marker k is the sum of its deviations in
    steps 0 … k − 1. Only deviations past ``floor`` and ``SHIFT_Z`` × the robust sigma of the step's
    deviations count (in lockstep that sigma is about 0; among cards that run apart only clear outliers), and
    only shifts that come back: a run of moved markers ends where the deviations sum to about 0 again (a
    marker written late, then one on time). A long step not followed by a short one is no shift: it is
    left to the verdicts. ``spans``: step lengths (NaN where a card lacks the step)."""
    shifts = np.zeros(spans.shape)
    if spans.shape[0] < 3 or spans.shape[1] < 2:
        return shifts
    with np.errstate(all="ignore"):
        dev = spans - np.nanmedian(spans, axis=0)
    bound = np.array([max(floor, BACK_ON_TIME_US, SHIFT_Z * _deviation_sigma(dev[:, k]))
                      for k in range(spans.shape[1])])
    counted = np.where(np.isfinite(dev) & (np.abs(dev) > bound), dev, 0.0)
    for c in np.flatnonzero(counted.any(axis=1)).tolist():
        moved, start = 0.0, None
        for k in range(1, spans.shape[1]):
            moved += counted[c, k - 1]
            if start is None and abs(moved) > bound[k - 1]:
                start = k
            shifts[c, k] = moved
            if start is not None and abs(moved) <= bound[k - 1]:  # back on time: the run is a shift
                shifts[c, k] = 0.0
                _keep_late(shifts[c], start, k)
                moved, start = 0.0, None
        last = spans.shape[1] - 1
        if start is not None:
            if abs(moved + counted[c, last]) > bound[last]:
                shifts[c, start:] = 0.0  # never came back: a long (or short) step, not a moved marker
            else:
                _keep_late(shifts[c], start, last + 1)
    return shifts


def _keep_late(row: np.ndarray, start: int, stop: int) -> None:
    """A run of markers is a host bubble's only when every one came late: the host can delay writing a marker,
    not write it early. A run with an early one (the cards' median itself moved, or noise) is dropped."""
    if (row[start:stop] <= 0).any():
        row[start:stop] = 0.0
