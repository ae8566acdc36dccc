"""A run's step broken down as msprof-analyze's ``compare`` does (metrics.md §13): computation,
communication, free and the host launch overhead, per step, for comparing an NPU run with a GPU run.

* computation = ``compute_us`` of the step window (§2: time some compute task or kernel runs);
* communication = ``pure_communication_us`` (communication no computation hides), so that computation,
  communication and free add up to the step's captured time;
* free = ``free_us`` (neither runs);
* host launch overhead = the part of free time the device spent waiting for the host to launch: a free
  interval whose end is the start of device work that was launched (its launch's timestamp, as the launch
  flow or correlation id ties them) after the interval began. The device had finished everything queued,
  and the next kernel had not yet been queued: the host, not the device, set the pace. It is part of
  free, never more than it.

Each figure is the mean over the card's steps (its whole span as one step when it has none), then the mean
over the run's cards. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.intervals import Intervals, subtract
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.window import window_metrics
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers.launches import launch_edges

NS_PER_US = 1000.0


@dataclass(frozen=True)
class StepBreakdown:
    """The mean step of a run (µs): computation, communication, free and host launch overhead."""

    computation_us: float
    communication_us: float
    free_us: float
    host_launch_overhead_us: float

    def document(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


BREAKDOWN_KEYS = tuple(f.name for f in fields(StepBreakdown))


def launch_bound_free(store: TraceStore, derived: DerivedIntervals) -> Intervals:
    """The free intervals of a card that end where device work starts that was launched after they
    began (the device waited for the host's launch)."""
    free = derived.free
    edges = launch_edges(store)
    if not len(free) or not len(edges):
        return Intervals.empty()
    device_start = store.slices.start[edges.device_slice]
    at = np.searchsorted(free.ends, device_start)
    ends_a_gap = at < len(free.ends)
    ends_a_gap[ends_a_gap] = free.ends[at[ends_a_gap]] == device_start[ends_a_gap]
    late = np.zeros(len(free.ends), dtype=bool)
    gaps = at[ends_a_gap]
    late[gaps[edges.src_ts[ends_a_gap] > free.starts[gaps]]] = True
    bound = Intervals(free.starts[late], free.ends[late])
    # the time no file captured is in no figure of the step: the overhead stays inside free_us
    return subtract(bound, derived.uncaptured) if len(derived.uncaptured) else bound


def card_breakdown(session: AnalysisSession, number: int) -> StepBreakdown | None:
    """The mean step of card ``number`` (None when it cannot be analysed or has no span)."""
    a = session.analyse(number, ("derived", "steps"))
    if a.error or a.derived is None:
        return None
    derived = a.derived
    windows = [(int(s.start), int(s.end)) for s in (a.steps or [])] or [tuple(map(int, derived.span))]
    windows = [(t0, t1) for t0, t1 in windows if t1 > t0]
    if not windows:
        return None
    bound = launch_bound_free(session.stores[number], derived)
    rows = []
    for t0, t1 in windows:
        m = window_metrics(derived, t0, t1)
        rows.append((m["compute_us"], m["pure_communication_us"], m["free_us"], bound.measure(t0, t1) / NS_PER_US))
    return StepBreakdown(*(float(v) for v in np.mean(np.array(rows, dtype=float), axis=0)))


def run_breakdown(session: AnalysisSession, numbers: list[int]) -> StepBreakdown | None:
    """The mean of the cards' mean steps (None when no card of ``numbers`` gives one)."""
    cards = [b for b in (card_breakdown(session, i) for i in numbers) if b is not None]
    if not cards:
        return None
    rows = np.array([[getattr(b, k) for k in BREAKDOWN_KEYS] for b in cards], dtype=float)
    return StepBreakdown(*(float(v) for v in rows.mean(axis=0)))


@dataclass(frozen=True)
class StepBreakdownDiff:
    """The mean step of both runs side by side."""

    base: StepBreakdown
    new: StepBreakdown

    @property
    def delta(self) -> dict:
        return {k: getattr(self.new, k) - getattr(self.base, k) for k in BREAKDOWN_KEYS}

    def document(self) -> dict:
        return {"base": self.base.document(), "new": self.new.document(), "delta": self.delta}


def step_breakdown_diff(base: AnalysisSession, new: AnalysisSession, base_cards: list[int],
                        new_cards: list[int]) -> StepBreakdownDiff | None:
    """Both runs' mean steps over their matched cards (None when either run gives none)."""
    b, n = run_breakdown(base, base_cards), run_breakdown(new, new_cards)
    return StepBreakdownDiff(b, n) if b is not None and n is not None else None
