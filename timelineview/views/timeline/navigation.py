"""Single-shot keyboard actions of the timeline: fit, show all, undo, mark, slice and lane steps."""

from __future__ import annotations

from timelineview.viewstate.timeline.lane_layout import SLICE_ROW_H
from timelineview.viewstate.timeline.selection import selection_span
from timelineview.viewstate.timeline.view_state import Change


class NavigationMixin:
    """Discrete actions; mixed into TimelineWidget (uses its ctx, selection methods and ``changed``)."""

    def run_action(self, action: str) -> bool:
        """Perform a discrete action by name; False when it does not apply."""
        handlers = {
            "fit": self.fit_selection, "show_all": self.show_all, "undo": self.undo_view,
            "mark": self.toggle_mark, "help": self.helpRequested.emit,
            "prev": lambda: self.step_slice(-1), "next": lambda: self.step_slice(1),
            "up": lambda: self.step_lane(-1), "down": lambda: self.step_lane(1),
            "escape": self.clear_selection,
            "next_match": lambda: self.step_search(1), "previous_match": lambda: self.step_search(-1),
        }
        handler = handlers.get(action)
        if handler is None:
            return False
        handler()
        return True

    def fit_selection(self, min_span_ns: int = 0) -> bool:
        """F: show the selected slice or area with a small margin."""
        span = selection_span(self.ctx)
        if span is None:
            return False
        t0, t1 = span
        if t1 - t0 < min_span_ns:
            mid = (t0 + t1) // 2
            t0, t1 = mid - min_span_ns // 2, mid + min_span_ns // 2
        self.ctx.viewport.fit(t0, t1)
        self.changed(Change.WINDOW)
        return True

    def toggle_mark(self) -> bool:
        """M: mark the selection's span (again: remove that mark)."""
        span = selection_span(self.ctx)
        if span is None:
            return False
        if span in self.ctx.marks:
            self.ctx.marks.remove(span)
        else:
            self.ctx.marks.append(span)
        self.changed(Change.OVERLAY)
        return True

    def step_slice(self, direction: int) -> bool:
        """Left/Right: previous/next slice on the selected slice's row; pans when nothing is selected."""
        sel = self.ctx.selection
        if sel is None:
            self.ctx.viewport.pan_fraction(0.1 * direction, remember=True)
            self.changed(Change.WINDOW)
            return True
        card = self.ctx.card_by_number(sel.card)
        index, s = card.store.index, card.store.slices
        row = index.row_of(int(s.lane[sel.index]), int(s.depth[sel.index]))
        nxt = index.neighbour(row, int(s.start[sel.index]), direction)
        if nxt < 0:
            return False
        self.select_slice(sel.card, nxt, reveal=True)
        return True

    def _slice_rows(self) -> list[tuple[int, int, int]]:
        """(card, lane, level) of every shown slice row, top to bottom (only slice lanes have levels)."""
        return [(r.card, r.lane, level) for r in self.ctx.layout.rows for level in range(r.levels)]

    def step_lane(self, direction: int) -> bool:
        """Up/Down: select the slice nearest in time on the row above/below; scrolls without selection."""
        sel = self.ctx.selection
        if sel is None:
            self.set_scroll(self.ctx.scroll_y + direction * 3 * SLICE_ROW_H)
            return True
        card = self.ctx.card_by_number(sel.card)
        s = card.store.slices
        here = (sel.card, int(s.lane[sel.index]), int(s.depth[sel.index]))
        rows = self._slice_rows()
        if here not in rows:
            return False
        t_mid = int(s.start[sel.index]) + int(s.dur[sel.index]) // 2 - self.ctx.card_shift(card)
        k = rows.index(here) + direction
        while 0 <= k < len(rows):
            c_no, lane, level = rows[k]
            c = self.ctx.card_by_number(c_no)
            index = c.store.index
            hit = index.hit(index.row_of(lane, level), t_mid + self.ctx.card_shift(c),
                            slop=max(self.ctx.viewport.span, 1))
            if hit >= 0:
                self.select_slice(c_no, hit, reveal=True)
                return True
            k += direction
        return False
