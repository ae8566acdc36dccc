"""The Communication wait lane of a card: its wait tasks not under transfers (metrics.md §6). No Qt.

A derived lane like Computing or Free (drawn, hit and filtered as one), built from the card's
communication analysis when the session has computed it (the load computes it for the findings).
"""

from __future__ import annotations

from timelineview.viewstate.card_view import CardView, DerivedLane
from timelineview.viewstate.tabs.comm_targets import wait_intervals
from timelineview.viewstate.timeline.lane_layout import DERIVED, DERIVED_H, Row
from timelineview.viewstate.timeline.lod import prefix_lengths
from timelineview.viewstate.timeline.track_rows import derived_legend

KEY = "communication_wait"
TITLE = "Communication wait"
COLOUR = "idle_gap_communication"  # the colour that already means "waiting on communication"
TOOLTIP = ("Notify_Wait tasks on the HCCL planes that no transfer overlaps: this card waits for its peers "
           "(the all-planes wait; the producer's Wait counts only each collective's main plane)")


def wait_lane(card: CardView) -> DerivedLane | None:
    """The lane, or None when the card has no plane tasks (or their analysis is not computed)."""
    cc = getattr(card.analysis, "communication", None)
    if cc is None:
        return None
    iv = wait_intervals(cc)
    return DerivedLane(KEY, TITLE, [(COLOUR, iv.starts, iv.ends, prefix_lengths(iv.starts, iv.ends))], TOOLTIP)


def _join(card: CardView) -> int | None:
    """Append the lane to ``card.derived_lanes`` (so it is painted, hit, selected and filtered like
    any derived lane); its index there, or None when the card has none."""
    lane = wait_lane(card)
    if lane is None:
        return None
    card.derived_lanes.append(lane)
    return len(card.derived_lanes) - 1


def comm_wait_rows(card: CardView, process: int) -> list[Row]:
    """The wait row, right after the card's other derived lanes. Once the lane has joined the
    card's derived lanes, ``derived_rows`` lists it at that same place: this returns it only once."""
    if any(d.key == KEY for d in card.derived_lanes):
        return []
    i = _join(card)
    if i is None:
        return []
    lane = card.derived_lanes[i]
    return [Row(DERIVED, card.number, 0, DERIVED_H, 0, TITLE, ("derived", card.number, i), derived=i,
                tooltip=TOOLTIP, legend=derived_legend(lane))]


def comm_wait_filter_row(card: CardView, key: str) -> Row | None:
    """The card's wait row under the "Communication wait only" lane filter (``derived_filter_row``
    finds it once it has joined the derived lanes; this covers a filter chosen before that)."""
    if key != KEY or any(d.key == KEY for d in card.derived_lanes):
        return None
    i = _join(card)
    if i is None:
        return None
    return Row(DERIVED, card.number, 0, 0, 0, card.title, ("derived", card.number, i), derived=i, tooltip=TOOLTIP)
