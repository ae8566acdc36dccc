"""Name search of the timeline: highlight matches, count them, step through them in time order."""

from __future__ import annotations

import numpy as np

from timelineview.viewstate.search import CardMatches, match_key_before, step_match
from timelineview.viewstate.view_state import Change, SliceRef


class SearchMixin:
    """Search state and actions; mixed into TimelineWidget (uses its ctx, selection and ``changed``)."""

    _search_query = ""
    _search_pos: tuple[int, int, int] | None = None  # (t, card, slice) of the current match

    def run_search(self, query: str) -> int:
        """Highlight slices whose name contains ``query`` (case-insensitive); returns the count."""
        ctx = self.ctx
        self._search_query = query
        self._search_pos = None
        ctx.matches, ctx.match_cum = {}, {}
        total = 0
        if query.strip():
            for c in ctx.cards:
                mask = c.search.slice_mask(c.store.slices.name, query)
                idx = np.flatnonzero(mask)
                if len(idx) == 0:
                    continue
                starts = c.store.slices.start[idx] - ctx.card_shift(c)
                ctx.matches[c.number] = CardMatches(c.number, idx, starts, mask)
                if c.store.index is not None:
                    cum = np.zeros(len(mask) + 1, dtype=np.int32)
                    np.cumsum(mask[c.store.index.order], out=cum[1:])
                    ctx.match_cum[c.number] = cum
                total += len(idx)
        self.changed(Change.SEARCH)
        return total

    @property
    def match_count(self) -> int:
        return sum(len(m.slices) for m in self.ctx.matches.values())

    def match_position(self) -> int:
        """1-based rank of the current match, 0 when none is current."""
        if self._search_pos is None:
            return 0
        t, card, idx = self._search_pos
        return match_key_before(list(self.ctx.matches.values()), t, card, idx) + 1

    def step_search(self, direction: int) -> SliceRef | None:
        """Go to the next (direction > 0) or previous match: select it and zoom to it."""
        matches = list(self.ctx.matches.values())
        if not matches:
            return None
        if self._search_pos is None:
            t = self.ctx.viewport.t0 if direction > 0 else self.ctx.viewport.t1
            key = (t, -1, -1) if direction > 0 else (t, 1 << 30, 1 << 62)
        else:
            key = self._search_pos
        found = step_match(matches, *key, direction)
        if found is None:
            return None
        card_no, idx = found
        card = self.ctx.card_by_number(card_no)
        self._search_pos = (self.ctx.rel(card, int(card.store.slices.start[idx])), card_no, idx)
        self.select_slice(card_no, idx, reveal=False)
        self.fit_selection(min_span_ns=2_000)
        self.reveal_slice(card_no, idx)
        self.changed(Change.MATCH)
        return SliceRef(card_no, idx)
