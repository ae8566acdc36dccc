"""AI Core frequency below its nominal: the time inside the card's steps during which the ``AI Core Freq``
counter (JSON traces' counter track, a database's ``AICORE_FREQ`` table) reads less than the nominal frequency.

A counter sample holds until the next one; the last holds to the end of the card's trace, and the time before the
first sample is not known (not counted). The nominal frequency is the capture's (its device description) when
it gives one, else the highest value the counter reads on that card (a card that never ran at its nominal
frequency cannot be told from the counter alone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.intervals import Intervals, intersect, union
from timelineview.analysis.steps import StepWindow
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers.ascend import FREQUENCY_COUNTER

NOMINAL_FROM_COUNTER = f"the highest value of the card's {FREQUENCY_COUNTER} counter"


@dataclass(frozen=True)
class FrequencyDrops:
    """Where the AI Cores ran below ``nominal_mhz`` inside the steps: ``below`` (ns spans), its share of the steps'
    time, the lowest reading, and where the nominal figure comes from."""

    nominal_mhz: float
    nominal_source: str
    lowest_mhz: float
    samples: int
    below: Intervals
    steps_ns: int

    @property
    def below_ns(self) -> int:
        return int(self.below.total())

    @property
    def share(self) -> float:
        return self.below_ns / self.steps_ns if self.steps_ns > 0 else 0.0


def frequency_series(store: TraceStore) -> tuple[np.ndarray, np.ndarray] | None:
    """(times ns, MHz) of the card's AI Core frequency counter, in time order; None without one."""
    counters = store.counters
    for i in range(len(counters)):
        if counters.series_counter[i] == FREQUENCY_COUNTER:
            ts, value = counters.series(i)
            if len(ts):
                order = np.argsort(ts, kind="stable")
                return ts[order].astype(np.int64), value[order].astype(np.float64)
    return None


def frequency_drops(store: TraceStore, steps: list[StepWindow], nominal_mhz: float = 0.0,
                    nominal_source: str = "") -> FrequencyDrops | None:
    """The card's time below the nominal AI Core frequency inside its steps; None without the counter."""
    series = frequency_series(store)
    if series is None:
        return None
    ts, mhz = series
    if nominal_mhz <= 0:
        nominal_mhz, nominal_source = float(mhz.max()), NOMINAL_FROM_COUNTER
    ends = np.append(ts[1:], max(int(store.t_end), int(ts[-1])))
    low = mhz < nominal_mhz
    held = union(ts[low], ends[low]) if low.any() else Intervals.empty()
    windows = union(np.array([w.start for w in steps], np.int64), np.array([w.end for w in steps], np.int64)) \
        if steps else Intervals.empty()
    return FrequencyDrops(nominal_mhz, nominal_source, float(mhz.min()), len(ts), intersect(held, windows),
                          int(windows.total()))
