"""The rows each lane kind contributes to a card's layout (no Qt).

Row builders return rows at y 0 and indent 0; the layout places and indents them. A filter row
is the one row a card shows for a kind under a single-kind lane filter (``lane_filter``), titled
by the card; the filter sizes it.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.summaries.card_summary import DERIVED_TITLES
from timelineview.producers.kineto import WORDING as GPU_WORDING
from timelineview.producers.wording import ASCEND_WORDING, reword
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.counter_units import counter_unit
from timelineview.viewstate.timeline.lane_layout import (
    COUNTER,
    COUNTER_H,
    COVERAGE,
    DERIVED,
    DERIVED_H,
    LANE,
    SLICE_ROW_H,
    STEPS,
    Row,
    lane_height,
)

STEPS_H = SLICE_ROW_H + 2
STEPS_TIP = "step interval (wait for data) | forward-backward | tail"
WHOLE_TRACE_TIP = "no step markers in this trace: one window, the whole trace, without phases"
STEP_LEGEND = (("step_interval", "wait"), ("fp_bp", "fwd/bwd"), ("tail", "tail"))
WHOLE_TRACE_LEGEND = (("step", "whole trace"),)
# short names of the colours of a derived lane with several (one colour: the title says it)
PART_LABELS = {"idle_gap_communication": "comm.", "idle_gap_free": "idle"}
STEPS_FILTER_KEY = "steps"  # the lane filter key of the Steps lane (derived lanes use DerivedLane.key)


def derived_rows(card: CardView, process: int) -> list[Row]:
    """One row per derived lane of the card (Computing, Communication, …)."""
    return [Row(DERIVED, card.number, 0, DERIVED_H, 0, d.title, ("derived", card.number, i), derived=i,
                tooltip=d.tooltip, legend=derived_legend(d)) for i, d in enumerate(card.derived_lanes)]


def derived_legend(lane) -> tuple[tuple[str, str], ...]:
    """(colour, label) per part of a derived lane; labels only where the lane has several colours."""
    colours = [part[0] for part in lane.parts]
    return tuple((c, PART_LABELS.get(c, "") if len(colours) > 1 else "") for c in colours)


def steps_legend(card: CardView) -> tuple[tuple[str, str], ...]:
    """The Steps lane's colours: the three phases, or one plain bar for the whole trace."""
    return STEP_LEGEND if card.steps is not None and card.steps.phases.any() else WHOLE_TRACE_LEGEND


def steps_rows(card: CardView, process: int) -> list[Row]:
    """The Steps row, when the card has steps."""
    if card.steps is None:
        return []
    legend = steps_legend(card)
    return [Row(STEPS, card.number, 0, STEPS_H, 0, "Steps", ("steps", card.number),
                tooltip=STEPS_TIP if legend is STEP_LEGEND else WHOLE_TRACE_TIP, legend=legend)]


def lane_rows(card: CardView, process: int) -> list[Row]:
    """One row per lane of the process holding slices or instants, as tall as its nesting."""
    st = card.store
    shown = card.lanes_with_slices() | card.lanes_with_instants()
    rows = []
    for ln in st.lanes_of_process(process):
        ln = int(ln)
        if not shown[ln]:
            continue
        levels = int(st.index.lane_row_count[ln]) if st.index is not None else 1
        lname = st.lanes.name[ln] or f"tid {st.lanes.tid[ln]}"
        rows.append(Row(LANE, card.number, 0, lane_height(levels), 0, lname, ("lane", card.number, ln),
                        lane=ln, process=process, levels=levels,
                        tooltip=f"{st.lane_full_name(ln)} (tid {st.lanes.tid[ln]})"))
    return rows


def counter_rows(card: CardView, process: int) -> list[Row]:
    """One row per counter series of the process."""
    counters = card.store.counters
    if not len(counters):
        return []
    series = np.flatnonzero(np.asarray(counters.series_process) == process)
    return [Row(COUNTER, card.number, 0, COUNTER_H, 0, counter_title(counters.series_name[s], counters.series_key[s]),
                ("counter", card.number, int(s)), series=int(s), process=process,
                tooltip=f"counter {counters.series_name[s]} ({counters.series_key[s]})")
            for s in series.tolist()]


def counter_title(name: str, key: str) -> str:
    """The series name with its unit ('AI Core Freq (MHz)'), unless the name already says it."""
    unit = counter_unit(name, key).unit
    return f"{name} ({unit})" if unit and not name.rstrip().endswith(")") else name


def derived_filter_row(card: CardView, key: str) -> Row | None:
    """The card's derived lane keyed ``key`` as one row titled by the card, or None."""
    i = next((k for k, d in enumerate(card.derived_lanes) if d.key == key), None)
    if i is None:
        return None
    return Row(DERIVED, card.number, 0, 0, 0, card.title, ("derived", card.number, i), derived=i,
               tooltip=card.derived_lanes[i].tooltip, legend=derived_legend(card.derived_lanes[i]))


def steps_filter_row(card: CardView, key: str) -> Row | None:
    """The card's Steps lane as one row titled by the card, or None."""
    if key != STEPS_FILTER_KEY or card.steps is None:
        return None
    return Row(STEPS, card.number, 0, 0, 0, card.title, ("steps", card.number), legend=steps_legend(card))


# a coverage row titled as a derived set is drawn in that derived lane's colour; a lane in the busy strip's
COVERAGE_COLOURS = {title: name for name, title in DERIVED_TITLES.items()}
# the derived lanes' colour for gaps where nothing ran, in every producer's words
COVERAGE_COLOURS.update({reword("Idle AI Core gaps", w): "idle_gap_free" for w in (ASCEND_WORDING, GPU_WORDING)})


def coverage_rows(card: CardView, process: int) -> list[Row]:
    """One row per row of a summarised card's window source (the derived sets, then every lane with slices)."""
    source = card.coverage_source
    if source is None:
        return []
    tip = f"{source.kind}: the share of each pixel's time the row's intervals cover"
    rows = []
    for i, title in enumerate(source.rows):
        colour = COVERAGE_COLOURS.get(title)
        rows.append(Row(COVERAGE, card.number, 0, SLICE_ROW_H, 0, title, ("coverage", card.number, i), source_row=i,
                        tooltip=f"{title} — {tip}", legend=((colour, ""),) if colour else ()))
    return rows
