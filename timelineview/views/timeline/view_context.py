"""State shared by the graphics items of one timeline: window, layout, selection, search."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6 import QtCore

from timelineview.views.theme import Theme
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.lane_layout import LaneLayout
from timelineview.viewstate.search import CardMatches
from timelineview.viewstate.viewport import Viewport

AXIS_H = 26


@dataclass
class SliceRef:
    """One slice of one card."""

    card: int
    index: int


@dataclass
class AreaSelection:
    """A time window across a band of rows (layout y range), in relative ns."""

    t0: int
    t1: int
    y0: int
    y1: int
    cards: list[int] = field(default_factory=list)
    lanes: dict[int, list[int]] = field(default_factory=dict)  # card -> lanes inside the band


class ViewContext:
    """What every item of the timeline reads while painting; the widget owns and mutates it."""

    def __init__(self) -> None:
        self.viewport = Viewport()
        self.cards: list[CardView] = []
        self.layout = LaneLayout()
        self.origin = 0  # absolute ns of relative time 0 (before card offsets)
        self.scroll_y = 0
        self.area = QtCore.QRect(0, AXIS_H, 100, 100)  # track area in scene pixels
        self.theme = Theme.build(False)
        self.generation = 0  # bumped when cards, layout or theme change: invalidates item caches
        self.matches: dict[int, CardMatches] = {}
        self.match_cum: dict[int, np.ndarray] = {}  # card -> prefix count of matches in index order
        self.search_generation = 0
        self.selection: SliceRef | None = None
        self.instant_selection: tuple[int, int] | None = None  # card, position in its instants_by_lane
        self.area_selection: AreaSelection | None = None
        self.marks: list[tuple[int, int]] = []
        self.cursor_t: int | None = None

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
        return self.area.left() + self.viewport.x_of(t_rel)

    def scene_x_abs(self, card: CardView, t_abs: int) -> float:
        return self.scene_x(self.rel(card, t_abs))

    # ------------------------------------------------------------------ rows
    def scene_y(self, layout_y: float) -> float:
        return self.area.top() + layout_y - self.scroll_y

    def layout_y(self, scene_y: float) -> float:
        return scene_y - self.area.top() + self.scroll_y

    def visible_rows(self, card: int | None = None) -> list:
        rows = self.layout.visible(self.scroll_y, self.scroll_y + self.area.height())
        return rows if card is None else [r for r in rows if r.card == card]

    def view_key(self) -> tuple:
        """Everything a cached frame depends on, except the search and the selection."""
        v = self.viewport
        a = self.area
        return (v.t0, v.t1, a.left(), a.top(), a.width(), a.height(), self.scroll_y, self.generation)

    def card_by_number(self, number: int) -> CardView | None:
        for c in self.cards:
            if c.number == number:
                return c
        return None
