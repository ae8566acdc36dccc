"""TimelineWidget: lane tree + canvas + scroll bar, and everything the user does with them.

Owns the :class:`ViewContext` (window, layout, selection, search) and turns keys, mouse gestures
and API calls into changes of it, then asks the canvas to repaint. Keyboard navigation lives here
so keys only fire when the timeline (not a text field) has focus.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.keys import (
    PAN_RIGHT,
    STEP_PAN,
    STEP_ZOOM,
    ZOOM_IN,
    HeldKeys,
    discrete_action,
    physical_action,
)
from timelineview.views.theme import Theme, system_is_dark
from timelineview.views.timeline.canvas import TimelineCanvas
from timelineview.views.timeline.lane_tree import LaneTree
from timelineview.views.timeline.navigation import NavigationMixin
from timelineview.views.timeline.overlay import slice_layout_rect
from timelineview.views.timeline.scroll_bar import LaneScrollBar
from timelineview.views.timeline.search import SearchMixin
from timelineview.views.timeline.view_context import AreaSelection, SliceRef, ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.lane_filter import ALL, build_filtered_layout, is_single_kind
from timelineview.viewstate.lane_layout import CARD, DERIVED, LANE, LANE_PAD, PROCESS, SLICE_ROW_H, STEPS
from timelineview.viewstate.time_format import format_duration, format_exact

WHEEL_ZOOM = 0.85  # per 120 units of wheel (one notch)
WHEEL_GESTURE_S = 0.6  # wheel events closer than this form one undo step
HIT_SLOP_PX = 2
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


class TimelineWidget(NavigationMixin, SearchMixin, QtWidgets.QWidget):
    """The timeline of one or more cards, stacked and time-aligned."""

    viewChanged = QtCore.Signal()
    selectionChanged = QtCore.Signal()  # slice selection (ctx.selection) changed
    areaChanged = QtCore.Signal()  # area selection (ctx.area_selection) changed
    cursorMoved = QtCore.Signal(str)  # status text for the time and the thing under the mouse
    searchChanged = QtCore.Signal()
    helpRequested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ViewContext()
        self.ctx.theme = Theme.build(system_is_dark())
        self.collapsed: set[tuple] = set()
        self.lane_filter = ALL  # one kind of lane across all cards (lane_filter.LANE_FILTERS), issue 5
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
        self._search_query = ""
        self._search_pos: tuple[int, int, int] | None = None  # (t, card, slice) of the current match
        hints = QtGui.QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(lambda *_: self.set_theme(system_is_dark()))

    # ------------------------------------------------------------------ content
    @property
    def cards(self) -> list[CardView]:
        return self.ctx.cards

    @property
    def viewport(self):
        return self.ctx.viewport

    def set_cards(self, cards: list[CardView]) -> None:
        """Show these cards (stacked in order), the whole trace visible."""
        self.ctx.cards = list(cards)
        self.ctx.selection = None
        self.ctx.instant_selection = None
        self.ctx.area_selection = None
        self.ctx.marks = []
        self.ctx.matches, self.ctx.match_cum = {}, {}
        self._search_query = ""
        self.collapsed = default_collapsed(self.ctx.cards)
        self._update_extent(keep_window=False)
        self.canvas.set_cards(self.ctx.cards)
        self.rebuild_layout()
        self.set_scroll(0)
        self._view_changed()
        self.selectionChanged.emit()
        self.areaChanged.emit()

    def set_card_offsets(self, offsets_ns: dict[int, int]) -> None:
        """Clock offsets per card number (subtracted from its times); issue 5 feeds this."""
        for c in self.ctx.cards:
            c.offset_ns = int(offsets_ns.get(c.number, c.offset_ns))
        self._update_extent(keep_window=True)
        if self._search_query:
            self.run_search(self._search_query)
        self.ctx.generation += 1
        self._view_changed()

    def _update_extent(self, keep_window: bool) -> None:
        cards = [c for c in self.ctx.cards if len(c.store.slices)]
        old = (self.ctx.viewport.t0 + self.ctx.origin, self.ctx.viewport.t1 + self.ctx.origin)
        if not cards:
            self.ctx.origin = 0
            self.ctx.viewport.set_extent(0, 1_000_000)
            return
        self.ctx.origin = min(c.store.t_origin - c.offset_ns for c in cards)
        t_max = max(c.store.t_end - c.offset_ns for c in cards) - self.ctx.origin
        self.ctx.viewport.set_extent(0, max(t_max, 1))
        if keep_window:
            self.ctx.viewport.set_range(old[0] - self.ctx.origin, old[1] - self.ctx.origin, remember=False)

    def rebuild_layout(self) -> None:
        self.ctx.layout = build_filtered_layout(self.ctx.cards, self.lane_filter, self.collapsed,
                                                self.ctx.area.height())
        self.ctx.generation += 1
        self._update_scrollbar()
        self.canvas.refresh()
        self.tree.update()

    def toggle_group(self, key: tuple) -> None:
        """Collapse or expand a card, its overview group or a process."""
        self.collapsed.symmetric_difference_update({key})
        self.rebuild_layout()

    def set_collapsed(self, key: tuple, collapsed: bool) -> None:
        if (key in self.collapsed) != collapsed:
            self.toggle_group(key)

    def set_theme(self, dark: bool) -> None:
        self.ctx.theme = Theme.build(dark)
        self.ctx.generation += 1
        self.canvas.refresh()
        self.tree.update()

    # ------------------------------------------------------------------ scrolling
    def _update_scrollbar(self) -> None:
        page = self.ctx.area.height()
        self.scrollbar.blockSignals(True)
        self.scrollbar.setRange(0, max(self.ctx.layout.height - page, 0))
        self.scrollbar.setPageStep(max(page, 1))
        self.scrollbar.setSingleStep(SLICE_ROW_H)
        self.scrollbar.setValue(self.ctx.scroll_y)
        self.scrollbar.blockSignals(False)

    def set_scroll(self, y: int) -> None:
        y = int(min(max(y, 0), max(self.ctx.layout.height - self.ctx.area.height(), 0)))
        if y == self.ctx.scroll_y and self.scrollbar.value() == y:
            return
        self.ctx.scroll_y = y
        self._update_scrollbar()
        self.tree.update()
        self.canvas.redraw()

    def set_lane_filter(self, kind: str) -> None:
        """Keep only lanes of ``kind`` on every card (``lane_filter.ALL``: every lane)."""
        self.lane_filter = kind
        self.rebuild_layout()
        self.set_scroll(0)

    def on_resized(self) -> None:
        if is_single_kind(self.lane_filter):  # rows are sized to fit the height
            self.rebuild_layout()
        self._update_scrollbar()
        self.set_scroll(self.ctx.scroll_y)
        self.tree.update()

    # ------------------------------------------------------------------ window
    def _view_changed(self) -> None:
        self.canvas.cursor_item.move_to(self.ctx.cursor_t)
        self.canvas.redraw()
        self.viewChanged.emit()

    def set_range(self, t0: int, t1: int, remember: bool = True) -> None:
        """Show [t0, t1] ns relative to the origin."""
        self.ctx.viewport.set_range(t0, t1, remember=remember)
        self._view_changed()

    def set_range_us(self, t0_us: float, t1_us: float) -> None:
        """Show [t0, t1] given in µs relative to the trace origin (``--range``)."""
        self.set_range(round(t0_us * 1000), round(t1_us * 1000))

    def show_all(self) -> None:
        self.ctx.viewport.show_all()
        self._view_changed()

    def undo_view(self) -> bool:
        done = self.ctx.viewport.undo()
        if done:
            self._view_changed()
        return done

    def mouse_x(self) -> float | None:
        """Mouse x inside the track area, or None when the mouse is elsewhere."""
        pos = self.canvas.mapFromGlobal(QtGui.QCursor.pos())
        if self.canvas.rect().contains(pos) and pos.y() >= self.ctx.area.top():
            return float(pos.x() - self.ctx.area.left())
        return None

    def _nav_step(self, action: str, amount: float | None) -> None:
        """One W/A/S/D press (amount None) or a continuous held-key increment."""
        v = self.ctx.viewport
        if action in (ZOOM_IN, "zoom_out"):
            if amount is None:
                factor = STEP_ZOOM if action == ZOOM_IN else 1 / STEP_ZOOM
                v.zoom_at_px(factor, self.mouse_x(), remember=True)
            else:
                factor = float(np.exp(-amount if action == ZOOM_IN else amount))
                v.zoom_at_px(factor, self.mouse_x())
        else:
            sign = 1 if action == PAN_RIGHT else -1
            v.pan_fraction(sign * (STEP_PAN if amount is None else amount), remember=amount is None)
        self._view_changed()

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, ev: QtGui.QKeyEvent) -> None:
        action = physical_action(ev)
        if action is not None:
            if not ev.isAutoRepeat():
                self.held.press(action)
            ev.accept()
            return
        action = discrete_action(ev)
        if action is not None and self.run_action(action):
            ev.accept()
            return
        super().keyPressEvent(ev)

    def keyReleaseEvent(self, ev: QtGui.QKeyEvent) -> None:
        action = physical_action(ev)
        if action is not None and not ev.isAutoRepeat():
            self.held.release(action)
            ev.accept()
            return
        super().keyReleaseEvent(ev)

    def focusOutEvent(self, ev: QtGui.QFocusEvent) -> None:
        self.held.release_all()  # a key released elsewhere must not keep the view moving
        super().focusOutEvent(ev)

    # ------------------------------------------------------------------ mouse (CanvasController)
    def on_click(self, pos: QtCore.QPointF, modifiers: QtCore.Qt.KeyboardModifier) -> None:
        self.setFocus()
        ref = self.slice_at(pos)
        if ref is not None:
            self.select_slice(ref.card, ref.index, reveal=False)
            return
        instant = self.instant_at(pos)
        if instant is not None:
            self.select_instant(*instant)
            return
        row = self.ctx.layout.row_at(self.ctx.layout_y(pos.y()))
        if row is not None and row.kind in (STEPS, DERIVED):
            span = self._interval_at(row, pos.x())
            if span is not None:
                self.select_area(span[0], span[1], rows_of_card=row.card)
                return
        self.clear_selection()

    def on_double_click(self, pos: QtCore.QPointF) -> None:
        ref = self.slice_at(pos)
        if ref is not None:
            self.select_slice(ref.card, ref.index, reveal=False)
            self.fit_selection()

    def on_area_drag(self, start: QtCore.QPointF, end: QtCore.QPointF, done: bool) -> None:
        self.setFocus()
        a = self.ctx.area
        xs = sorted(min(max(x, a.left()), a.right()) for x in (start.x(), end.x()))
        t0 = self.ctx.viewport.t_of(xs[0] - a.left())
        t1 = self.ctx.viewport.t_of(xs[1] - a.left())
        ly = sorted(self.ctx.layout_y(min(max(y, a.top()), a.bottom())) for y in (start.y(), end.y()))
        self.select_area(t0, t1, ly[0], ly[1], emit=done)

    def on_pan_drag(self, dx: float, start: bool) -> None:
        if start:
            self.setFocus()
            self.ctx.viewport.remember()
            return
        self.ctx.viewport.pan_px(dx)
        self._view_changed()

    def on_wheel(self, ev: QtGui.QWheelEvent) -> None:
        dy, dx = ev.angleDelta().y(), ev.angleDelta().x()
        mods = ev.modifiers()
        if mods & QtCore.Qt.KeyboardModifier.ShiftModifier and not mods & QtCore.Qt.KeyboardModifier.ControlModifier:
            self.set_scroll(self.ctx.scroll_y - (dy or dx) // 2)
            return
        if dx and not dy or mods & QtCore.Qt.KeyboardModifier.AltModifier:
            self.ctx.viewport.pan_px((dx or dy) / 4)
            self._view_changed()
            return
        now = time.monotonic()
        remember = now - self._last_wheel > WHEEL_GESTURE_S
        self._last_wheel = now
        x = ev.position().x() - self.ctx.area.left()
        self.ctx.viewport.zoom_at_px(WHEEL_ZOOM ** (dy / 120), x, remember=remember)
        self._view_changed()

    def on_hover(self, pos: QtCore.QPointF | None) -> None:
        if pos is None or pos.y() < self.ctx.area.top() or not self.ctx.cards:
            self.ctx.cursor_t = None
            self.canvas.cursor_item.move_to(None)
            self.cursorMoved.emit("")
            return
        t = self.ctx.viewport.t_of(pos.x() - self.ctx.area.left())
        self.ctx.cursor_t = t
        self.canvas.cursor_item.move_to(t)
        text = f"t = {format_exact(t)}"
        ref = self.slice_at(pos)
        if ref is not None:
            card = self.ctx.card_by_number(ref.card)
            s = card.store.slices
            name = card.store.strings[int(s.name[ref.index])] if s.name[ref.index] >= 0 else "(unnamed)"
            text += f"   ·   {name}  ({format_duration(int(s.dur[ref.index]))})"
        else:
            instant = self.instant_at(pos)
            if instant is not None:
                card = self.ctx.card_by_number(instant[0])
                text += f"   ·   {card.instant_name(instant[1])}  (instant)"
        self.cursorMoved.emit(text)

    def instant_at(self, pos: QtCore.QPointF) -> tuple[int, int] | None:
        """(card, position in its ``instants_by_lane``) of the instant marker under a canvas
        position (within a couple of pixels), or None."""
        ctx = self.ctx
        row = ctx.layout.row_at(ctx.layout_y(pos.y())) if pos.y() >= ctx.area.top() else None
        if row is None or row.kind != LANE:
            return None
        card = ctx.card_by_number(row.card)
        t = ctx.viewport.t_of(pos.x() - ctx.area.left()) + ctx.card_shift(card)
        k = card.instant_near(row.lane, t, int(ctx.viewport.ns_per_px * HIT_SLOP_PX))
        return None if k is None else (row.card, k)

    # ------------------------------------------------------------------ hit testing
    def slice_at(self, pos: QtCore.QPointF) -> SliceRef | None:
        """The slice under a canvas position (within a couple of pixels), or None."""
        ctx = self.ctx
        if pos.y() < ctx.area.top():
            return None
        ly = ctx.layout_y(pos.y())
        row = ctx.layout.row_at(ly)
        if row is None or row.kind != LANE:
            return None
        card = ctx.card_by_number(row.card)
        index = card.store.index if card else None
        if index is None:
            return None
        level = int((ly - row.y - LANE_PAD) // SLICE_ROW_H)
        if not 0 <= level < row.levels:
            return None
        t_rel = ctx.viewport.t_of(pos.x() - ctx.area.left())
        slop = int(ctx.viewport.ns_per_px * HIT_SLOP_PX)
        hit = index.hit(int(index.lane_first_row[row.lane]) + level, t_rel + ctx.card_shift(card), slop)
        return SliceRef(row.card, hit) if hit >= 0 else None

    def _interval_at(self, row, x: float) -> tuple[int, int] | None:
        """The step window or derived interval under x on a Steps / derived row (relative ns)."""
        card = self.ctx.card_by_number(row.card)
        t = self.ctx.viewport.t_of(x - self.ctx.area.left()) + self.ctx.card_shift(card)
        slop = int(self.ctx.viewport.ns_per_px * HIT_SLOP_PX)
        if row.kind == STEPS and card.steps is not None:
            s = card.steps
            k = np.flatnonzero((s.start <= t + slop) & (s.end >= t - slop))
            if len(k):
                return self.ctx.rel(card, int(s.start[k[0]])), self.ctx.rel(card, int(s.end[k[0]]))
            return None
        for _, starts, ends, _ in card.derived_lanes[row.derived].parts:
            k = int(np.searchsorted(ends, t - slop, side="left"))
            if k < len(starts) and starts[k] <= t + slop:
                return self.ctx.rel(card, int(starts[k])), self.ctx.rel(card, int(ends[k]))
        return None

    # ------------------------------------------------------------------ selection
    def select_slice(self, card: int, index: int, reveal: bool = True) -> None:
        self.ctx.selection = SliceRef(card, int(index))
        self.ctx.instant_selection = None
        if reveal:
            self.reveal_slice(card, index)
        self.canvas.redraw()
        self.selectionChanged.emit()

    def select_instant(self, card: int, k: int) -> None:
        """Select an instant (``k``: its position in the card's ``instants_by_lane``)."""
        self.ctx.selection = None
        self.ctx.area_selection = None
        self.ctx.instant_selection = (card, int(k))
        self.canvas.redraw()
        self.selectionChanged.emit()

    def clear_selection(self) -> None:
        ctx = self.ctx
        changed = ctx.selection is not None or ctx.area_selection is not None or ctx.instant_selection is not None
        self.ctx.selection = None
        self.ctx.area_selection = None
        self.ctx.instant_selection = None
        if changed:
            self.canvas.redraw()
            self.selectionChanged.emit()
            self.areaChanged.emit()

    def select_area(self, t0: int, t1: int, y0: float | None = None, y1: float | None = None,
                    rows_of_card: int | None = None, emit: bool = True) -> None:
        """Select [t0, t1] across the rows between layout y0 and y1 (or all rows of one card)."""
        rows = self.ctx.layout.rows
        if rows_of_card is not None:
            band = [r for r in rows if r.card == rows_of_card]
        else:
            band = [r for r in rows if r.bottom > y0 and r.y <= y1]
        if not band or t1 <= t0:
            return
        sel = AreaSelection(int(t0), int(t1), band[0].y, band[-1].bottom)
        for r in band:
            if r.card not in sel.cards:
                sel.cards.append(r.card)
            card = self.ctx.card_by_number(r.card)
            has = card.lanes_with_slices()
            if r.kind == LANE:
                sel.lanes.setdefault(r.card, []).append(r.lane)
            elif r.collapsed and r.kind == PROCESS:
                sel.lanes.setdefault(r.card, []).extend(
                    int(x) for x in card.store.lanes_of_process(r.process) if has[x])
            elif r.collapsed and r.kind == CARD:
                sel.lanes.setdefault(r.card, []).extend(int(x) for x in np.flatnonzero(has))
        self.ctx.area_selection = sel
        self.ctx.selection = None
        self.ctx.instant_selection = None
        self.canvas.redraw()
        if emit:
            self.selectionChanged.emit()
            self.areaChanged.emit()

    def selection_span(self) -> tuple[int, int] | None:
        """Relative [t0, t1] of the selected slice or area."""
        ctx = self.ctx
        if ctx.selection is not None:
            card = ctx.card_by_number(ctx.selection.card)
            s = card.store.slices
            t0 = ctx.rel(card, int(s.start[ctx.selection.index]))
            return t0, t0 + int(s.dur[ctx.selection.index])
        if ctx.area_selection is not None:
            return ctx.area_selection.t0, ctx.area_selection.t1
        return None

    def reveal_slice(self, card_no: int, index: int) -> None:
        """Scroll the slice's lane into view and pan so the slice is visible (zoom kept)."""
        card = self.ctx.card_by_number(card_no)
        geo = slice_layout_rect(self.ctx, card, index)
        if geo is None:
            return
        t0, t1, y, h = geo
        v = self.ctx.viewport
        if t1 < v.t0 or t0 > v.t1:
            v.pan(t0 - v.t0 - v.span // 2 + min(t1 - t0, v.span) // 2, remember=True)
            self._view_changed()
        top, page = self.ctx.scroll_y, self.ctx.area.height()
        if y < top or y + h > top + page:
            self.set_scroll(int(y - page / 3))
