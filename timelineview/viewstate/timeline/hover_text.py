"""What the status line says of the thing under the mouse, one function per lane kind (no Qt).

Every function has the hit tests' signature, ``text(state, row, x, y)``, and returns the words after the
time ("MatMul  (1.2 ms)") or None when nothing of its kind is there; the registry lists them per lane kind.
"""

from __future__ import annotations

from timelineview.viewstate.time_format import format_duration
from timelineview.viewstate.timeline.hit_test import coverage_sample, instant_at, slice_at
from timelineview.viewstate.timeline.lane_layout import Row
from timelineview.viewstate.timeline.view_state import ViewState


def slice_text(state: ViewState, row: Row, x: float, y: float) -> str | None:
    """The slice's name and duration."""
    hit = slice_at(state, row, x, y)
    if hit is None:
        return None
    card = state.card_by_number(hit.card)
    s = card.store.slices
    name = card.store.strings[int(s.name[hit.index])] if s.name[hit.index] >= 0 else "(unnamed)"
    return f"{name}  ({format_duration(int(s.dur[hit.index]))})"


def instant_text(state: ViewState, row: Row, x: float, y: float) -> str | None:
    """The instant's name."""
    hit = instant_at(state, row, x, y)
    if hit is None:
        return None
    return f"{state.card_by_number(hit.card).instant_name(hit.index)}  (instant)"


def coverage_text(state: ViewState, row: Row, x: float, y: float) -> str | None:
    """How busy the row's sample (a pyramid's bucket) under the mouse is, and what it stands for."""
    found = coverage_sample(state, row, x)
    if found is None:
        return None
    source, sample = found
    length = format_duration(sample.t1 - sample.t0, 2)
    what = "bucket (from the summary)" if source.finest_ns else "pixel"
    return f"{sample.row}: busy {sample.share:.0%} of its {length} {what}"
