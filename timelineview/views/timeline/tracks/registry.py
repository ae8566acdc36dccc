"""Every lane kind of the timeline, registered in one place.

A :class:`TrackKind` says, for one row kind: which graphics item paints those rows (one item per
item class per card), which rows a card contributes to the layout and under which group, how a
point on such a row is hit-tested (Qt-free, ``viewstate.hit_test``), how the lane tree titles the
row, and which row a card shows under a single-kind lane filter. The canvas, the widget, the lane
tree, the background and the layout loop over :data:`TRACK_KINDS`; adding a lane kind is its
item module, its rows, and one line here.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.tracks.counter_track import CounterTrackItem
from timelineview.views.timeline.tracks.derived_track import DerivedTrackItem
from timelineview.views.timeline.tracks.instant_track import InstantTrackItem
from timelineview.views.timeline.tracks.memory_track import MemoryTrackItem
from timelineview.views.timeline.tracks.slice_track import SliceTrackItem
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.comm_wait_lane import comm_wait_filter_row, comm_wait_rows
from timelineview.viewstate.timeline.hit_test import HitTest, derived_interval_at, instant_at, slice_at, step_at
from timelineview.viewstate.timeline.lane_filter import MAX_DERIVED_ROW_H, MAX_STEPS_ROW_H
from timelineview.viewstate.timeline.lane_layout import (
    CARD,
    COUNTER,
    DERIVED,
    LANE,
    OVERVIEW,
    PROCESS,
    STEPS,
    Row,
)
from timelineview.viewstate.timeline.memory_rows import MEMORY, memory_rows
from timelineview.viewstate.timeline.track_rows import (
    counter_rows,
    derived_filter_row,
    derived_rows,
    lane_rows,
    steps_filter_row,
    steps_rows,
)


class HeaderStyle(enum.Enum):
    """How the lane tree (and the background) present a row."""

    CARD = "card"  # bold title on a darker band
    GROUP = "group"  # a collapsible header (overview, process)
    LANE = "lane"  # a lane, in alternating bands
    SECONDARY = "secondary"  # a lane in muted text (derived lanes under their card)


def _no_rows(card: CardView, process: int) -> list[Row]:
    return []


def _no_filter_row(card: CardView, key: str) -> Row | None:
    return None


@dataclass(frozen=True)
class TrackKind:
    """One lane kind: how it is laid out, painted, hit and titled."""

    kind: str  # the row kind
    item: type[CardTrackItem]  # paints every row of this kind of one card
    group: str  # OVERVIEW or PROCESS: the group header its rows sit under
    rows: Callable[[CardView, int], list[Row]] = _no_rows  # (card, process) -> its rows of this kind
    hit: HitTest | None = None
    header: HeaderStyle = HeaderStyle.LANE
    filter_row: Callable[[CardView, str], Row | None] = _no_filter_row  # single-kind lane filter
    compact_h: int = 0  # tallest row under a single-kind filter (0: never alone)


TRACK_KINDS: tuple[TrackKind, ...] = (
    TrackKind(DERIVED, DerivedTrackItem, OVERVIEW, derived_rows, derived_interval_at, HeaderStyle.SECONDARY,
              derived_filter_row, MAX_DERIVED_ROW_H),
    TrackKind(DERIVED, DerivedTrackItem, OVERVIEW, comm_wait_rows, None, HeaderStyle.SECONDARY, comm_wait_filter_row,
              MAX_DERIVED_ROW_H),  # communication wait (§6)
    TrackKind(STEPS, DerivedTrackItem, OVERVIEW, steps_rows, step_at, filter_row=steps_filter_row,
              compact_h=MAX_STEPS_ROW_H),
    TrackKind(MEMORY, MemoryTrackItem, OVERVIEW, memory_rows),  # device memory per component (§11)
    TrackKind(LANE, SliceTrackItem, PROCESS, lane_rows, slice_at),
    TrackKind(LANE, InstantTrackItem, PROCESS, hit=instant_at),  # pins on the slice lanes; a slice wins a tie
    TrackKind(COUNTER, CounterTrackItem, PROCESS, counter_rows),
)

_GROUP_HEADERS = {CARD: HeaderStyle.CARD, OVERVIEW: HeaderStyle.GROUP, PROCESS: HeaderStyle.GROUP}

# The functions below read TRACK_KINDS when called (not at import), so the registry stays the one
# place to change; their tables are rebuilt only when TRACK_KINDS is another object (they run per
# row per frame: hashing the registry each time would cost more than the lookup).
_tables: tuple[tuple[TrackKind, ...], dict[str, tuple[HitTest, ...]], dict[str, HeaderStyle]] | None = None


def _tables_of(kinds: tuple[TrackKind, ...]) -> tuple[dict[str, tuple[HitTest, ...]], dict[str, HeaderStyle]]:
    global _tables
    if _tables is None or _tables[0] is not kinds:
        hits = {kind: tuple(k.hit for k in kinds if k.kind == kind and k.hit is not None)
                for kind in dict.fromkeys(k.kind for k in kinds)}
        headers = {**{k.kind: k.header for k in kinds}, **_GROUP_HEADERS}
        _tables = (kinds, hits, headers)
    return _tables[1], _tables[2]


def hit_tests() -> dict[str, tuple[HitTest, ...]]:
    """Row kind -> its hit tests, in registry order (the first hit wins)."""
    return _tables_of(TRACK_KINDS)[0]


def item_classes() -> list[type[CardTrackItem]]:
    """The item classes a card needs, in painting order (first is lowest)."""
    return list(dict.fromkeys(k.item for k in TRACK_KINDS))


def header_style(row: Row) -> HeaderStyle:
    """How the lane tree and the background present ``row``."""
    return _tables_of(TRACK_KINDS)[1].get(row.kind, HeaderStyle.LANE)
