"""Every lane kind of the timeline, registered in one place.

A :class:`TrackKind` says, for one row kind: which graphics item paints those rows (one item per
item class per card), which rows a card contributes to the layout and under which group, how a
point on such a row is hit-tested (Qt-free, ``viewstate.hit_test``), what the status line says of the
thing under the mouse there, which selection a click there makes and how the details panel shows it,
how the lane tree titles the row, and which row a card shows under a single-kind lane filter. The
canvas, the widget, the details panel, the lane tree, the background and the layout loop over
:data:`TRACK_KINDS`; adding a lane kind is its item module, its rows, and one entry here. A row of a
kind no entry names is an error (:class:`UnknownLaneKind`), never drawn or hit as something else.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.tracks.counter_track import CounterTrackItem
from timelineview.views.timeline.tracks.coverage_track import CoverageTrackItem
from timelineview.views.timeline.tracks.derived_track import DerivedTrackItem
from timelineview.views.timeline.tracks.instant_track import InstantTrackItem
from timelineview.views.timeline.tracks.memory_track import MemoryTrackItem
from timelineview.views.timeline.tracks.selection_details import (
    DetailsView,
    area_details,
    instant_details,
    slice_details,
)
from timelineview.views.timeline.tracks.slice_track import SliceTrackItem
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.comm_wait_lane import comm_wait_filter_row, comm_wait_rows
from timelineview.viewstate.timeline.hit_test import (
    HitTest,
    coverage_sample_at,
    derived_interval_at,
    instant_at,
    slice_at,
    step_at,
)
from timelineview.viewstate.timeline.hover_text import coverage_text, instant_text, slice_text
from timelineview.viewstate.timeline.lane_filter import MAX_DERIVED_ROW_H, MAX_STEPS_ROW_H
from timelineview.viewstate.timeline.lane_layout import (
    CARD,
    COUNTER,
    COVERAGE,
    DERIVED,
    GROUP_KINDS,
    LANE,
    OVERVIEW,
    PROCESS,
    STEPS,
    Row,
)
from timelineview.viewstate.timeline.memory_rows import MEMORY, memory_rows
from timelineview.viewstate.timeline.track_rows import (
    counter_rows,
    coverage_rows,
    derived_filter_row,
    derived_rows,
    lane_rows,
    steps_filter_row,
    steps_rows,
)
from timelineview.viewstate.timeline.view_state import AreaSelection, InstantRef, SliceRef, ViewState

HoverText = Callable[[ViewState, Row, float, float], "str | None"]


class UnknownLaneKind(KeyError):
    """A row or a selection of a kind that no registry entry names."""


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


@dataclass(frozen=True, kw_only=True)
class TrackKind:
    """One lane kind: how it is laid out, painted, hit, described and titled."""

    kind: str  # the row kind
    item: type[CardTrackItem]  # paints every row of this kind of one card
    group: str  # CARD, OVERVIEW or PROCESS: the group its rows sit under
    rows: Callable[[CardView, int], list[Row]] = _no_rows  # (card, process) -> its rows of this kind
    hit: HitTest | None = None
    hover: HoverText | None = None  # the status line's words for the thing under the mouse
    selects: type | None = None  # what a click on a hit makes: SliceRef, InstantRef or AreaSelection
    details: DetailsView | None = None  # how the details panel shows that selection
    header: HeaderStyle = HeaderStyle.LANE
    filter_row: Callable[[CardView, str], Row | None] = _no_filter_row  # single-kind lane filter
    compact_h: int = 0  # tallest row under a single-kind filter (0: never alone)


TRACK_KINDS: tuple[TrackKind, ...] = (
    TrackKind(kind=COVERAGE, item=CoverageTrackItem, group=CARD, rows=coverage_rows, hit=coverage_sample_at,
              hover=coverage_text, selects=AreaSelection, details=area_details),  # a summarised card (§10)
    TrackKind(kind=DERIVED, item=DerivedTrackItem, group=OVERVIEW, rows=derived_rows, hit=derived_interval_at,
              selects=AreaSelection, details=area_details, header=HeaderStyle.SECONDARY,
              filter_row=derived_filter_row, compact_h=MAX_DERIVED_ROW_H),
    TrackKind(kind=DERIVED, item=DerivedTrackItem, group=OVERVIEW, rows=comm_wait_rows, header=HeaderStyle.SECONDARY,
              filter_row=comm_wait_filter_row, compact_h=MAX_DERIVED_ROW_H),  # communication wait (§6)
    TrackKind(kind=STEPS, item=DerivedTrackItem, group=OVERVIEW, rows=steps_rows, hit=step_at, selects=AreaSelection,
              details=area_details, filter_row=steps_filter_row, compact_h=MAX_STEPS_ROW_H),
    TrackKind(kind=MEMORY, item=MemoryTrackItem, group=OVERVIEW, rows=memory_rows),  # device memory per component (§11)
    TrackKind(kind=LANE, item=SliceTrackItem, group=PROCESS, rows=lane_rows, hit=slice_at, hover=slice_text,
              selects=SliceRef, details=slice_details),
    TrackKind(kind=LANE, item=InstantTrackItem, group=PROCESS, hit=instant_at, hover=instant_text,
              selects=InstantRef, details=instant_details),  # pins on the slice lanes; a slice wins a tie
    TrackKind(kind=COUNTER, item=CounterTrackItem, group=PROCESS, rows=counter_rows),
)

_GROUP_HEADERS = {CARD: HeaderStyle.CARD, OVERVIEW: HeaderStyle.GROUP, PROCESS: HeaderStyle.GROUP}


@dataclass(frozen=True)
class _Tables:
    """What the registry answers per row kind, built once per registry object."""

    kinds: tuple[TrackKind, ...]
    hits: dict[str, tuple[HitTest, ...]]
    hovers: dict[str, tuple[HoverText, ...]]
    headers: dict[str, HeaderStyle]
    details: dict[type, DetailsView]


# The functions below read TRACK_KINDS when called (not at import), so the registry stays the one
# place to change; their tables are rebuilt only when TRACK_KINDS is another object (they run per
# row per frame: hashing the registry each time would cost more than the lookup).
_tables: _Tables | None = None


def _tables_of(kinds: tuple[TrackKind, ...]) -> _Tables:
    global _tables
    if _tables is None or _tables.kinds is not kinds:
        names = [*dict.fromkeys(k.kind for k in kinds), *GROUP_KINDS]
        hits = {kind: tuple(k.hit for k in kinds if k.kind == kind and k.hit is not None) for kind in names}
        hovers = {kind: tuple(k.hover for k in kinds if k.kind == kind and k.hover is not None) for kind in names}
        headers = {**{k.kind: k.header for k in kinds}, **_GROUP_HEADERS}
        details: dict[type, DetailsView] = {}
        for k in kinds:
            if k.selects is not None and k.details is not None:
                details.setdefault(k.selects, k.details)
        _tables = _Tables(kinds, hits, hovers, headers, details)
    return _tables


def _of_kind(table: dict, kind: str):
    try:
        return table[kind]
    except KeyError:
        raise UnknownLaneKind(f"no lane kind {kind!r} in the track registry") from None


def hit_tests() -> dict[str, tuple[HitTest, ...]]:
    """Row kind -> its hit tests, in registry order (the first hit wins); every registered and group kind."""
    return _tables_of(TRACK_KINDS).hits


def hover_text(state: ViewState, x: float, y: float) -> str | None:
    """The status line's words for what lies under (x, y): the first registered hover text of the row's kind."""
    row = state.row_under(y)
    if row is None:
        return None
    for text in _of_kind(_tables_of(TRACK_KINDS).hovers, row.kind):
        words = text(state, row, x, y)
        if words is not None:
            return words
    return None


def details_of(selection: object) -> DetailsView:
    """How the details panel shows ``selection``: the view of the first entry that makes selections of its type."""
    try:
        return _tables_of(TRACK_KINDS).details[type(selection)]
    except KeyError:
        raise UnknownLaneKind(f"no lane kind shows a {type(selection).__name__} in the details panel") from None


def item_classes() -> list[type[CardTrackItem]]:
    """The item classes a card needs, in painting order (first is lowest)."""
    return list(dict.fromkeys(k.item for k in TRACK_KINDS))


def header_style(row: Row) -> HeaderStyle:
    """How the lane tree and the background present ``row`` (raises :class:`UnknownLaneKind` for a kind no
    entry names)."""
    return _of_kind(_tables_of(TRACK_KINDS).headers, row.kind)
