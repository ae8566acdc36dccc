"""The timeline's shared state (no Qt): window, rows, scroll, track area, selection, search, marks.

The widget owns one :class:`ViewState` and changes it only through one path
(``TimelineWidget.changed``): what changed is named by a :class:`Change` flag, which bumps the
generation counters the graphics items key their caches on.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.lane_layout import LaneLayout, Row
from timelineview.viewstate.timeline.search import CardMatches
from timelineview.viewstate.timeline.viewport import Viewport

AXIS_H = 26  # px of the time ruler above the track area


@dataclass(frozen=True)
class Rect:
    """Integer pixel rectangle; ``right``/``bottom`` are the last column/row inside (as in Qt)."""

    left: int
    top: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.left + self.width - 1

    @property
    def bottom(self) -> int:
        return self.top + self.height - 1


class Change(enum.Flag):
    """What a state change touched; decides which caches go stale and which signals fire."""

    NONE = 0
    WINDOW = enum.auto()  # the visible time window (or the cards' clock offsets)
    SCROLL = enum.auto()  # vertical scroll position
    LAYOUT = enum.auto()  # cards, rows, track area or theme: every item re-prepares its geometry
    SEARCH = enum.auto()  # the search matches
    MATCH = enum.auto()  # the current search match moved (nothing to repaint)
    SELECTION = enum.auto()  # the selected slice, instant or area (finished)
    OVERLAY = enum.auto()  # marks, or an area still being dragged: repaint only
    CURSOR = enum.auto()  # the cursor line: moves alone, no full repaint


REPAINT = Change.WINDOW | Change.SCROLL | Change.LAYOUT | Change.SEARCH | Change.SELECTION | Change.OVERLAY


@dataclass(frozen=True)
class SliceRef:
    """One slice of one card."""

    card: int
    index: int


@dataclass(frozen=True)
class InstantRef:
    """One instant of one card: ``index`` is its position in the card's ``instants_by_lane``."""

    card: int
    index: int


@dataclass(frozen=True)
class IntervalRef:
    """A time window [t0, t1] (relative ns) picked on one card's derived or Steps row."""

    card: int
    t0: int
    t1: int


Hit = SliceRef | InstantRef | IntervalRef


@dataclass
class AreaSelection:
    """A time window across a band of rows (layout y range), in relative ns."""

    t0: int
    t1: int
    y0: int
    y1: int
    cards: list[int] = field(default_factory=list)
    lanes: dict[int, list[int]] = field(default_factory=dict)  # card -> lanes inside the band


class ViewState:
    """What every part of the timeline reads; the widget owns and mutates it."""

    def __init__(self) -> None:
        self.viewport = Viewport()
        self.cards: list[CardView] = []
        self.layout = LaneLayout()
        self.origin = 0  # absolute ns of relative time 0 (before card offsets)
        self.scroll_y = 0
        self.area = Rect(0, AXIS_H, 100, 100)  # track area in scene pixels
        self.generation = 0  # bumped by Change.LAYOUT: invalidates item caches
        self.matches: dict[int, CardMatches] = {}
        self.match_cum: dict[int, np.ndarray] = {}  # card -> prefix count of matches in index order
        self.search_generation = 0
        self.selection: SliceRef | None = None
        self.instant_selection: InstantRef | None = None
        self.area_selection: AreaSelection | None = None
        self.marks: list[tuple[int, int]] = []
        # a step's critical path shown on the timeline: card number -> its slices on the path (outlined)
        self.path_slices: dict[int, np.ndarray] = {}
        self.cursor_t: int | None = None
        self.loading = ""  # what is being opened ("" when nothing is): the empty canvas says so
        self.empty_hint = ""  # what the empty canvas says instead of how to open a trace ("": that)
        self.plane_colours = False  # HCCL plane tasks coloured by transport / link type (viewstate.plane_colours)

    def note(self, what: Change) -> None:
        """Bump the generation counters ``what`` makes stale."""
        if what & Change.LAYOUT:
            self.generation += 1
        if what & Change.SEARCH:
            self.search_generation += 1

    # ------------------------------------------------------------------ time
    def card_shift(self, card: CardView) -> int:
        """Absolute ns of relative 0 for this card: the origin plus its clock offset."""
        return self.origin + int(card.offset_ns)

    def abs_window(self, card: CardView) -> tuple[int, int]:
        """The visible window in the card's own absolute ns."""
        shift = self.card_shift(card)
        return self.viewport.t0 + shift, self.viewport.t1 + shift

    def rel(self, card: CardView, t_abs: int) -> int:
        return int(t_abs) - self.card_shift(card)

    def scene_x(self, t_rel: int) -> float:
        return self.area.left + self.viewport.x_of(t_rel)

    def scene_x_abs(self, card: CardView, t_abs: int) -> float:
        return self.scene_x(self.rel(card, t_abs))

    def t_at(self, scene_x: float) -> int:
        """Relative ns under a scene x."""
        return self.viewport.t_of(scene_x - self.area.left)

    # ------------------------------------------------------------------ rows
    def scene_y(self, layout_y: float) -> float:
        return self.area.top + layout_y - self.scroll_y

    def layout_y(self, scene_y: float) -> float:
        return scene_y - self.area.top + self.scroll_y

    def row_under(self, scene_y: float) -> Row | None:
        """The row at a scene y, or None above the track area or below the last row."""
        if scene_y < self.area.top:
            return None
        return self.layout.row_at(self.layout_y(scene_y))

    def visible_rows(self, card: int | None = None) -> list[Row]:
        rows = self.layout.visible(self.scroll_y, self.scroll_y + self.area.height)
        return rows if card is None else [r for r in rows if r.card == card]

    def view_key(self) -> tuple:
        """Everything a cached frame depends on, except the search and the selection."""
        v = self.viewport
        a = self.area
        return (v.t0, v.t1, a.left, a.top, a.width, a.height, self.scroll_y, self.generation)

    def card_by_number(self, number: int) -> CardView | None:
        for c in self.cards:
            if c.number == number:
                return c
        return None
