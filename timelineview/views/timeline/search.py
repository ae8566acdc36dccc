"""Name search of the timeline: highlight matches, count them, step through them in time order."""

from __future__ import annotations

import numpy as np

from timelineview.viewstate.timeline.search import CardMatches, match_key_before, step_match
from timelineview.viewstate.timeline.view_state import Change, SliceRef


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
                total += self._set_matches(c, c.search.slice_mask(c.store.slices.name, query))
        self.changed(Change.SEARCH)
        return total

    def _set_matches(self, card, mask: np.ndarray) -> int:
        """Record the slices of ``mask`` as the card's matches; returns how many."""
        ctx = self.ctx
        idx = np.flatnonzero(mask)
        if len(idx) == 0:
            return 0
        starts = card.store.slices.start[idx] - ctx.card_shift(card)
        ctx.matches[card.number] = CardMatches(card.number, idx, starts, mask)
        if card.store.index is not None:
            cum = np.zeros(len(mask) + 1, dtype=np.int32)
            np.cumsum(mask[card.store.index.order], out=cum[1:])
            ctx.match_cum[card.number] = cum
        return len(idx)

    def highlight_name(self, card_no: int, name: str, t0_abs: int, t1_abs: int,
                       lanes: list[int] | None = None, select: bool = True) -> SliceRef | None:
        """Highlight the slices of one card named exactly ``name`` that meet [t0, t1) (its own
        absolute ns) on ``lanes`` (None: any) — a row of the per-name table — and select the first
        (``select=False``: only highlight them, the selection stays; the first Enter selects the first);
        Enter / Shift+Enter then step through them. Returns the first."""
        ctx = self.ctx
        card = ctx.card_by_number(card_no)
        sid = card.store.string_id(name) if card is not None else -1
        if card is None or sid < 0:
            return None
        s = card.store.slices
        mask = (s.name == sid) & (s.start < t1_abs) & (s.start + s.dur > t0_abs)
        if lanes is not None:
            mask &= np.isin(s.lane, lanes)
        return self._highlight_mask(card, mask, name, select)

    def highlight_slices(self, card_no: int, slice_indices: np.ndarray, label: str) -> SliceRef | None:
        """Highlight the slices ``slice_indices`` of one card (a group of tasks: an op type, a shape) and
        select the first in time; Enter / Shift+Enter step through them. ``label`` names the search."""
        ctx = self.ctx
        card = ctx.card_by_number(card_no)
        if card is None:
            return None
        s = card.store.slices
        mask = np.zeros(len(s), bool)
        mask[np.asarray(slice_indices, dtype=np.int64)] = True
        return self._highlight_mask(card, mask, label, True)

    def _highlight_mask(self, card, mask: np.ndarray, label: str, select: bool) -> SliceRef | None:
        """Make the slices of ``mask`` (one card's) the search named ``label`` and select the first in time
        (``select=False``: Enter goes to it); returns it."""
        ctx = self.ctx
        s = card.store.slices
        self._search_query = label
        self._search_pos = None
        ctx.matches, ctx.match_cum = {}, {}
        self._set_matches(card, mask)
        self.changed(Change.SEARCH)
        idx = np.flatnonzero(mask)
        if not len(idx):
            return None
        first = int(idx[np.argmin(s.start[idx])])
        if not select:  # just before the first: Enter goes to it
            self._search_pos = (ctx.rel(card, int(s.start[first])), -1, -1)
        else:
            self._search_pos = (ctx.rel(card, int(s.start[first])), card.number, first)
            self.select_slice(card.number, first, reveal=True)
        self.changed(Change.MATCH)
        return SliceRef(card.number, first)

    def highlight_in_cards(self, name: str, spans: dict[int, tuple[int, int]]) -> int:
        """Highlight the slices named ``name`` of several cards at once, each inside its own span (card number
        -> [t0, t1) of its absolute ns); the first card's first one is selected, Enter steps through all, and
        each card's lane of its first one is opened. Returns how many."""
        ctx = self.ctx
        matches, cums = {}, {}
        # highlight_name keeps one card's matches: collect each card's, the first card last so that its
        # first slice stays selected
        for number in reversed(list(spans)):
            t0, t1 = spans[number]
            self.highlight_name(number, name, t0, t1)
            matches.update(ctx.matches)
            cums.update(ctx.match_cum)
        ctx.matches, ctx.match_cum = matches, cums
        for number, found in matches.items():
            card = ctx.card_by_number(number)
            if card is not None and len(found.slices):
                self.expand_to_lane(number, int(card.store.slices.lane[found.slices[0]]))
        self.changed(Change.SEARCH | Change.MATCH)
        return self.match_count

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
