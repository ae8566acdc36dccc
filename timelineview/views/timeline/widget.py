"""TimelineWidget: lane tree + canvas + scroll bar, and everything the user does with them.

Owns the :class:`ViewContext` (window, layout, selection, search) and turns keys, mouse gestures
and API calls into changes of it. Every change goes through :meth:`TimelineWidget.changed`, which
bumps the caches it makes stale, schedules one repaint and emits one signal per kind of change.
Keyboard navigation lives here so keys only fire when the timeline (not a text field) has focus.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.model.load.partial_load import UnloadedSpan
from timelineview.views.keys import (
    HeldKeyEvents,
    HeldKeys,
    discrete_action,
    nav_step,
    wheel_zoom,
)
from timelineview.views.theme import Theme, system_is_dark
from timelineview.views.timeline.canvas import TimelineCanvas
from timelineview.views.timeline.lane_tree import LaneTree
from timelineview.views.timeline.navigation import NavigationMixin
from timelineview.views.timeline.overlay import slice_layout_rect
from timelineview.views.timeline.scroll_bar import LaneScrollBar
from timelineview.views.timeline.search import SearchMixin
from timelineview.views.timeline.tracks import registry
from timelineview.views.timeline.view_context import ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.time_format import format_exact
from timelineview.viewstate.timeline.hit_test import hit_at
from timelineview.viewstate.timeline.lane_filter import ALL, build_filtered_layout, is_single_kind
from timelineview.viewstate.timeline.lane_layout import LANE_PAD, SLICE_ROW_H, LaneLayout
from timelineview.viewstate.timeline.selection import area_selection, dragged_window
from timelineview.viewstate.timeline.view_state import (
    REPAINT,
    Change,
    Hit,
    InstantRef,
    IntervalRef,
    SliceRef,
)

TALL_PROCESS_PX = 360  # deep call stacks (host Python) start collapsed: the device lanes stay in view
DEEP_LANE_LEVELS = 6


def default_collapsed(cards: list[CardView]) -> set[tuple]:
    """Groups that start collapsed, so the first screen shows what matters.

    Processes taller than :data:`TALL_PROCESS_PX` with a lane at least :data:`DEEP_LANE_LEVELS`
    deep (host call stacks, not many shallow device streams) start collapsed. With more than
    two cards every process does: each card shows its derived lanes and one busy strip per
    process, so the cards compare at a glance (a click on a process opens it).
    """
    keys = set()
    for c in cards:
        n_proc = len(c.store.processes)
        if len(cards) > 2:
            keys |= {("process", c.number, p) for p in range(n_proc)}
            continue
        index = c.store.index
        if index is None:
            continue
        levels = index.lane_row_count[: len(c.store.lanes)]
        heights = np.where(levels > 0, np.maximum(levels, 1) * SLICE_ROW_H + 2 * LANE_PAD, 0)
        procs = c.store.lanes.process
        per_process = np.bincount(procs, weights=heights, minlength=n_proc)
        deepest = np.zeros(n_proc, dtype=np.int64)
        np.maximum.at(deepest, procs, levels)
        tall = (per_process > TALL_PROCESS_PX) & (deepest >= DEEP_LANE_LEVELS)
        keys |= {("process", c.number, int(p)) for p in np.flatnonzero(tall)}
    return keys


class TimelineWidget(HeldKeyEvents, NavigationMixin, SearchMixin, QtWidgets.QWidget):
    """The timeline of one or more cards, stacked and time-aligned."""

    windowChanged = QtCore.Signal()  # the visible time window (or the cards' clock offsets)
    layoutChanged = QtCore.Signal()  # cards, rows, track area or theme
    selectionChanged = QtCore.Signal()  # the selected slice, instant or area (once per finished change)
    searchChanged = QtCore.Signal()  # the matches or the current match
    cursorMoved = QtCore.Signal(str)  # status text for the time and the thing under the mouse
    helpRequested = QtCore.Signal()
    laneFilterChanged = QtCore.Signal(str)  # the lane filter changed here (e.g. a hit the filter hid)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ViewContext()
        self.ctx.theme = Theme.build(system_is_dark())
        self.collapsed: set[tuple] = set()
        self.lane_filter = ALL  # one kind of lane across all cards (lane_filter.LANE_FILTERS)
        self.layout_builder = None  # (cards, collapsed) -> LaneLayout | None: other rows for every lane
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.tree = LaneTree(self.ctx)
        self.canvas = TimelineCanvas(self.ctx, self)
        self.scrollbar = LaneScrollBar()
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(self.canvas)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([240, 1000])
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setHandleWidth(3)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.splitter, 1)
        lay.addWidget(self.scrollbar)
        self.tree.toggled.connect(self.toggle_group)
        self.tree.scrolled.connect(lambda dy: self.set_scroll(self.ctx.scroll_y + dy))
        self.scrollbar.valueChanged.connect(self.set_scroll)
        self.held = HeldKeys(self._nav_step, self)
        self._last_wheel = 0.0
        self._hover_pos: QtCore.QPointF | None = None  # where the mouse last hovered the track area
        self._search_query = ""
        self._search_pos: tuple[int, int, int] | None = None  # (t, card, slice) of the current match
        self._fitted: tuple[int, int] | None = None  # the window set_cards fitted last, None: one the user chose
        hints = QtGui.QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(lambda *_: self.set_theme(system_is_dark()))

    # ------------------------------------------------------------------ the one change path
    def changed(self, what: Change) -> None:
        """Record a change of ``ctx``: bump the caches it makes stale, schedule one repaint and
        emit one signal per kind of change. Every mutation of the timeline state ends here."""
        ctx = self.ctx
        ctx.note(what)
        if what & Change.LAYOUT:
            self.canvas.refresh()
        if what & (Change.LAYOUT | Change.SCROLL):
            self._update_scrollbar()
            self.tree.update()
        if what & Change.WINDOW and self._hover_pos is not None:
            self._hover_at(self._hover_pos)  # keys moved the window under a still mouse: new time there
        if what & (Change.WINDOW | Change.LAYOUT | Change.CURSOR):
            self.canvas.cursor_item.move_to(ctx.cursor_t)
        if what & REPAINT:
            self.canvas.redraw()
        if what & Change.WINDOW:
            self.windowChanged.emit()
        if what & Change.LAYOUT:
            self.layoutChanged.emit()
        if what & Change.SELECTION:
            self.selectionChanged.emit()
        if what & (Change.SEARCH | Change.MATCH):
            self.searchChanged.emit()

    # ------------------------------------------------------------------ content
    @property
    def cards(self) -> list[CardView]:
        return self.ctx.cards

    @property
    def viewport(self):
        return self.ctx.viewport

    def set_cards(self, cards: list[CardView], keep_view: bool = False) -> None:
        """Show these cards (stacked in order), the whole trace visible. ``keep_view``: they replace
        a picture of the same load in progress (``show_partial``), so a window the user chose
        there, the scroll and the groups opened or closed stay."""
        ctx = self.ctx
        chosen = keep_view and (ctx.viewport.t0, ctx.viewport.t1) != self._fitted
        old_defaults = default_collapsed(ctx.cards) if keep_view else set()
        ctx.cards = list(cards)
        ctx.unloaded = None
        ctx.selection = None
        ctx.instant_selection = None
        ctx.area_selection = None
        ctx.marks = []
        ctx.matches, ctx.match_cum = {}, {}
        self._search_query = ""
        if keep_view:  # groups that appeared since take their default
            self.collapsed |= default_collapsed(ctx.cards) - old_defaults
        else:
            self.collapsed = default_collapsed(ctx.cards)
        self._update_extent(keep_window=chosen)
        self._fitted = None if chosen else (ctx.viewport.t0, ctx.viewport.t1)
        self.canvas.set_cards(ctx.cards)
        ctx.layout = self._build_layout()
        ctx.scroll_y = self._clamped_scroll(ctx.scroll_y) if keep_view else 0
        self.changed(Change.LAYOUT | Change.SCROLL | Change.WINDOW | Change.SEARCH | Change.SELECTION)

    def show_partial(self, cards: list[CardView], unloaded: UnloadedSpan | None) -> None:
        """Show what a load has decoded so far (the files' first parts), ``unloaded`` marked as not
        loaded yet; the window reaches its guessed end. Navigation works on it; the next picture
        keeps a window the user chose, and ``set_cards(cards, keep_view=True)`` ends it."""
        self.set_cards(cards, keep_view=self.ctx.unloaded is not None)  # the first picture starts afresh
        if unloaded is None:
            return
        ctx = self.ctx
        ctx.unloaded = unloaded
        if (ctx.viewport.t0, ctx.viewport.t1) == self._fitted:
            ctx.viewport.set_extent(0, max(unloaded.end - ctx.origin, ctx.viewport.t_max))
            self._fitted = (ctx.viewport.t0, ctx.viewport.t1)
        self.changed(Change.WINDOW | Change.OVERLAY)

    def set_card_note(self, number: int, text: str) -> None:
        """What a summarised card's header adds after its resolution (its trace loading, not on this machine…)."""
        card = self.ctx.card_by_number(number)
        if card is None or card.coverage_note == text:
            return
        card.coverage_note = text
        self.changed(Change.OVERLAY)

    def show_path(self, slices: dict[int, np.ndarray]) -> None:
        """Outline a critical path's slices (card number -> slice indices; empty: none)."""
        self.ctx.path_slices = {int(k): np.asarray(v, np.int64) for k, v in slices.items()}
        self.changed(Change.OVERLAY)

    def set_empty_hint(self, text: str) -> None:
        """What the canvas says while it shows no card ("": how to open a trace)."""
        self.ctx.empty_hint = text
        self.changed(Change.OVERLAY)

    def set_loading(self, what: str) -> None:
        """Say on an empty canvas that ``what`` is loading ("" when no load runs)."""
        self.ctx.loading = what
        self.changed(Change.OVERLAY)

    def set_card_offsets(self, offsets_ns: dict[int, int]) -> None:
        """Clock offsets per card number (subtracted from its times); the cluster comparison feeds this."""
        for c in self.ctx.cards:
            c.offset_ns = int(offsets_ns.get(c.number, c.offset_ns))
        self._update_extent(keep_window=True)
        if self._search_query:
            self.run_search(self._search_query)
        self.changed(Change.WINDOW | Change.LAYOUT)

    def _update_extent(self, keep_window: bool) -> None:
        spans = [(span[0] - c.offset_ns, span[1] - c.offset_ns) for c in self.ctx.cards
                 if (span := c.span) is not None]
        old = (self.ctx.viewport.t0 + self.ctx.origin, self.ctx.viewport.t1 + self.ctx.origin)
        if not spans:
            self.ctx.origin = 0
            self.ctx.viewport.set_extent(0, 1_000_000)
            return
        self.ctx.origin = min(a for a, _ in spans)
        t_max = max(b for _, b in spans) - self.ctx.origin
        self.ctx.viewport.set_extent(0, max(t_max, 1))
        if keep_window:
            self.ctx.viewport.set_range(old[0] - self.ctx.origin, old[1] - self.ctx.origin, remember=False)

    def _build_layout(self) -> LaneLayout:
        if self.layout_builder is not None and self.lane_filter == ALL:
            layout = self.layout_builder(self.ctx.cards, self.collapsed)
            if layout is not None:
                return layout
        return build_filtered_layout(self.ctx.cards, self.lane_filter, self.collapsed, self.ctx.area.height,
                                     registry.TRACK_KINDS)

    def rebuild_layout(self) -> None:
        """Lay the rows out again (after a change of ``collapsed`` or of the lane filter)."""
        self.ctx.layout = self._build_layout()
        self.changed(Change.LAYOUT)

    def toggle_group(self, key: tuple) -> None:
        """Collapse or expand a card, its overview group or a process."""
        self.collapsed.symmetric_difference_update({key})
        self.rebuild_layout()

    def set_theme(self, dark: bool) -> None:
        self.ctx.theme = Theme.build(dark)
        self.changed(Change.LAYOUT)

    def set_plane_colours(self, on: bool) -> None:
        """Colour HCCL plane tasks by transport / link type (``viewstate.plane_colours``), or by name."""
        if on == self.ctx.plane_colours:
            return
        self.ctx.plane_colours = on
        self.changed(Change.LAYOUT)  # every slice track re-prepares its colours

    def collapse_all(self, collapsed: bool) -> None:
        """Collapse every process of every card (also those inside collapsed cards), or expand every group."""
        keys: set[tuple] = set()
        if collapsed:
            keys = {r.key for r in self.ctx.layout.rows if r.kind == "process"}
            keys |= {("process", c.number, p) for c in self.ctx.cards for p in range(len(c.store.processes))}
        self.collapsed = keys
        self.rebuild_layout()

    def set_layout_builder(self, builder) -> None:
        """Another row order for every lane (``(cards, collapsed) -> LaneLayout | None``); None: the usual one.
        Takes effect with the next ``set_cards`` or ``rebuild_layout``."""
        self.layout_builder = builder

    # ------------------------------------------------------------------ scrolling
    def _update_scrollbar(self) -> None:
        page = self.ctx.area.height
        self.scrollbar.blockSignals(True)
        self.scrollbar.setRange(0, max(self.ctx.layout.height - page, 0))
        self.scrollbar.setPageStep(max(page, 1))
        self.scrollbar.setSingleStep(SLICE_ROW_H)
        self.scrollbar.setValue(self.ctx.scroll_y)
        self.scrollbar.blockSignals(False)

    def _clamped_scroll(self, y: float) -> int:
        return int(min(max(y, 0), max(self.ctx.layout.height - self.ctx.area.height, 0)))

    def set_scroll(self, y: int) -> None:
        y = self._clamped_scroll(y)
        if y == self.ctx.scroll_y and self.scrollbar.value() == y:
            return
        self.ctx.scroll_y = y
        self.changed(Change.SCROLL)

    def set_lane_filter(self, kind: str) -> None:
        """Keep only lanes of ``kind`` on every card (``lane_filter.ALL``: every lane)."""
        if kind == self.lane_filter:
            return
        self.lane_filter = kind
        self.rebuild_layout()
        self.set_scroll(0)
        self.laneFilterChanged.emit(kind)

    def on_resized(self) -> None:
        if is_single_kind(self.lane_filter):  # rows are sized to fit the height
            self.ctx.layout = self._build_layout()
        self.ctx.scroll_y = self._clamped_scroll(self.ctx.scroll_y)
        self.changed(Change.LAYOUT | Change.SCROLL)

    # ------------------------------------------------------------------ window
    def set_range(self, t0: int, t1: int, remember: bool = True) -> None:
        """Show [t0, t1] ns relative to the origin."""
        self.ctx.viewport.set_range(t0, t1, remember=remember)
        self.changed(Change.WINDOW)

    def set_range_us(self, t0_us: float, t1_us: float) -> None:
        """Show [t0, t1] given in µs relative to the trace origin (``--range``)."""
        self.set_range(round(t0_us * 1000), round(t1_us * 1000))

    def show_all(self) -> None:
        self.ctx.viewport.show_all()
        self.changed(Change.WINDOW)

    def undo_view(self) -> bool:
        done = self.ctx.viewport.undo()
        if done:
            self.changed(Change.WINDOW)
        return done

    def mouse_x(self) -> float | None:
        """Mouse x inside the track area, or None when the mouse is elsewhere."""
        pos = self.canvas.mapFromGlobal(QtGui.QCursor.pos())
        if self.canvas.rect().contains(pos) and pos.y() >= self.ctx.area.top:
            return float(pos.x() - self.ctx.area.left)
        return None

    def _nav_step(self, action: str, amount: float | None) -> None:
        """One W/A/S/D press (amount None) or a continuous held-key increment."""
        nav_step(self.ctx.viewport, action, amount, self.mouse_x())
        self.changed(Change.WINDOW)

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, ev: QtGui.QKeyEvent) -> None:
        if self.held.take_press(ev):
            ev.accept()
            return
        action = discrete_action(ev)
        if action is not None and self.run_action(action):
            ev.accept()
            return
        super().keyPressEvent(ev)

    # ------------------------------------------------------------------ mouse (CanvasController)
    def hit(self, pos: QtCore.QPointF) -> Hit | None:
        """What lies under a canvas position (the registered hit test of the row there)."""
        return hit_at(self.ctx, pos.x(), pos.y(), registry.hit_tests())

    def on_click(self, pos: QtCore.QPointF, modifiers: QtCore.Qt.KeyboardModifier) -> None:
        self.setFocus()
        hit = self.hit(pos)
        if isinstance(hit, SliceRef):
            self.select_slice(hit.card, hit.index, reveal=False)
        elif isinstance(hit, InstantRef):
            self.select_instant(hit.card, hit.index)
        elif isinstance(hit, IntervalRef):
            self.select_area(hit.t0, hit.t1, rows_of_card=hit.card)
        else:
            self.clear_selection()

    def on_double_click(self, pos: QtCore.QPointF) -> None:
        hit = self.hit(pos)
        if isinstance(hit, SliceRef):
            self.select_slice(hit.card, hit.index, reveal=False)
            self.fit_selection()

    def on_area_drag(self, start: QtCore.QPointF, end: QtCore.QPointF, done: bool) -> None:
        self.setFocus()
        t0, t1, ly0, ly1 = dragged_window(self.ctx, start.x(), start.y(), end.x(), end.y())
        self.select_area(t0, t1, ly0, ly1, emit=done)

    def on_pan_drag(self, dx: float, start: bool) -> None:
        if start:
            self.setFocus()
            self.ctx.viewport.remember()
            return
        self.ctx.viewport.pan_px(dx)
        self.changed(Change.WINDOW)

    def on_wheel(self, ev: QtGui.QWheelEvent) -> None:
        dy, dx = ev.angleDelta().y(), ev.angleDelta().x()
        mods = ev.modifiers()
        if mods & QtCore.Qt.KeyboardModifier.ShiftModifier and not mods & QtCore.Qt.KeyboardModifier.ControlModifier:
            self.set_scroll(self.ctx.scroll_y - (dy or dx) // 2)
            return
        if dx and not dy or mods & QtCore.Qt.KeyboardModifier.AltModifier:
            self.ctx.viewport.pan_px((dx or dy) / 4)
            self.changed(Change.WINDOW)
            return
        self._last_wheel = wheel_zoom(self.ctx.viewport, dy, ev.position().x() - self.ctx.area.left, self._last_wheel)
        self.changed(Change.WINDOW)

    def on_hover(self, pos: QtCore.QPointF | None) -> None:
        if pos is None or pos.y() < self.ctx.area.top or not self.ctx.cards:
            self._hover_pos = None
            self.ctx.cursor_t = None
            self.changed(Change.CURSOR)
            self.cursorMoved.emit("")
            return
        self._hover_pos = QtCore.QPointF(pos)
        self._hover_at(pos)
        self.changed(Change.CURSOR)

    def _hover_at(self, pos: QtCore.QPointF) -> None:
        """The cursor time and the status text for the mouse at ``pos`` (no repaint)."""
        self.ctx.cursor_t = self.ctx.t_at(pos.x())
        self.cursorMoved.emit(self.status_text(pos))

    def status_text(self, pos: QtCore.QPointF) -> str:
        """The status line: the time under the mouse, and what the lane kind there says of the thing under
        it (a slice's name and duration, a summary bucket's busy share, …)."""
        text = f"t = {format_exact(self.ctx.t_at(pos.x()))}"
        words = registry.hover_text(self.ctx, pos.x(), pos.y())
        return f"{text}   ·   {words}" if words else text

    # ------------------------------------------------------------------ selection
    def select_slice(self, card: int, index: int, reveal: bool = True) -> None:
        self.ctx.selection = SliceRef(card, int(index))
        self.ctx.instant_selection = None
        if reveal:
            self.reveal_slice(card, index)
        self.changed(Change.SELECTION)

    def select_instant(self, card: int, k: int) -> None:
        """Select an instant (``k``: its position in the card's ``instants_by_lane``)."""
        self.ctx.selection = None
        self.ctx.area_selection = None
        self.ctx.instant_selection = InstantRef(card, int(k))
        self.changed(Change.SELECTION)

    def clear_selection(self) -> None:
        ctx = self.ctx
        if ctx.selection is None and ctx.area_selection is None and ctx.instant_selection is None:
            return
        ctx.selection = None
        ctx.area_selection = None
        ctx.instant_selection = None
        self.changed(Change.SELECTION)

    def select_area(self, t0: int, t1: int, y0: float | None = None, y1: float | None = None,
                    rows_of_card: int | None = None, emit: bool = True) -> None:
        """Select [t0, t1] across the rows between layout y0 and y1 (or all rows of one card);
        ``emit=False`` while the area is still being dragged (repaint, no selection signal)."""
        sel = area_selection(self.ctx, t0, t1, y0, y1, rows_of_card)
        if sel is None:
            return
        self.ctx.area_selection = sel
        self.ctx.selection = None
        self.ctx.instant_selection = None
        self.changed(Change.SELECTION if emit else Change.OVERLAY)

    def expand_to_lane(self, card_no: int, lane: int) -> bool:
        """Open the card and the process that hold ``lane`` when they are collapsed; True if any was."""
        card = self.ctx.card_by_number(card_no)
        if card is None:
            return False
        shut = {("card", card_no), ("process", card_no, int(card.store.lanes.process[lane]))} & self.collapsed
        if shut:
            self.collapsed -= shut
            self.rebuild_layout()
        return bool(shut)

    def reveal_rows(self, y0: float, y1: float) -> None:
        """Scroll so the layout band [y0, y1) is on screen: untouched when it is; else its top a third
        down the page, or at the top when the band is taller than the page."""
        top, page = self.ctx.scroll_y, self.ctx.area.height
        if y0 >= top and y1 <= top + page:
            return
        self.set_scroll(int(y0 if y1 - y0 > page * 2 / 3 else y0 - page / 3))

    def reveal_slice(self, card_no: int, index: int) -> None:
        """Open the slice's card and process if collapsed, scroll its lane into view and pan so the
        slice is visible (zoom kept)."""
        card = self.ctx.card_by_number(card_no)
        if card is None:
            return
        self.expand_to_lane(card_no, int(card.store.slices.lane[index]))
        geo = slice_layout_rect(self.ctx, card, index)
        if geo is None and self.lane_filter != ALL:  # the lane filter hides it: every lane again
            self.set_lane_filter(ALL)
            geo = slice_layout_rect(self.ctx, card, index)
        if geo is None:
            return
        t0, t1, y, h = geo
        v = self.ctx.viewport
        if t1 < v.t0 or t0 > v.t1:
            v.pan(t0 - v.t0 - v.span // 2 + min(t1 - t0, v.span) // 2, remember=True)
            self.changed(Change.WINDOW)
        top, page = self.ctx.scroll_y, self.ctx.area.height
        if y < top or y + h > top + page:
            self.set_scroll(int(y - page / 3))
