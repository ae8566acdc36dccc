"""CardOverview: a card of a summary folder in the Timeline tab — from its pyramid, then from its trace.

A drill-down on a summarised card shows it on the window's one timeline as a card of coverage lanes
drawn from its pyramid (``viewstate.card_view.summary_card``): the timeline's navigation, axis, undo,
area marks and screenshots work on it as on any card. When the user zooms in past the pyramid's finest
level and the card's trace (``sources`` in its manifest) is on this machine, the trace is loaded once,
through the window's own loading (File ▸ Open's path, with its progress and Cancel), and replaces the
summarised card at the window the user was looking at. When the trace is not reachable, the status line
says so once per card and the pyramid stays. The Cluster tabs keep the summary throughout; drilling
another card shows its pyramid.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6 import QtCore

from timelineview.analysis.summaries.card_summary import SummaryCard
from timelineview.analysis.summaries.pyramid import Pyramid
from timelineview.model.discovery import find_cards
from timelineview.views.timeline.widget import TimelineWidget
from timelineview.viewstate.card_view import CardView, summary_card
from timelineview.viewstate.timeline.lane_filter import ALL
from timelineview.viewstate.timeline.window_source import depth_text, resolves

STEP_MARGIN = 0.02  # of the step length, either side of a drilled step (as the timeline's drill-down)
UNREACHABLE_MS = 15_000  # how long the status line says a trace is not on this machine
PICK_HINT = "Double-click a card in the Cluster comparison or the Heat map to see its timeline"
LOADING_NOTE = "loading the trace…"
UNREACHABLE_NOTE = "the trace is not on this machine"
ZOOM_NOTE = "zoom in past it to load the trace"


def missing_sources(card: SummaryCard) -> list[str]:
    """The card's trace files that are not on this machine (all of them when the summary names none)."""
    sources = card.manifest.get("sources") or []
    return [s for s in sources if not Path(s).is_file()] if sources else ["(the summary names no trace)"]


def trace_paths(sources: list[str]) -> list[Path]:
    """What to open for one card's trace files: the file, or the folder holding exactly these files as one
    card (files opened one by one would each be a card, e.g. a capture's per-iteration parts)."""
    files = [Path(s) for s in sources]
    if len(files) < 2:
        return files
    folder = Path(os.path.commonpath([str(f) for f in files]))
    found = find_cards(folder)
    if len(found) == 1 and sorted(map(str, found[0].files)) == sorted(map(str, files)):
        return [folder]
    return files


class CardOverview(QtCore.QObject):
    """Shows summarised cards on the timeline and loads a card's trace when its pyramid runs out.

    ``load_trace(paths)`` starts the window's load of a summary card's trace (the cluster tab routes
    that load's results back here: :meth:`trace_loaded`, :meth:`trace_ended`)."""

    shownChanged = QtCore.Signal()  # a summarised card came onto the timeline, or went off it

    def __init__(self, timeline: TimelineWidget, load_trace: Callable[[list[Path]], None],
                 status: Callable[[str, int], None]) -> None:
        super().__init__(timeline)
        self.timeline = timeline
        self.load_trace = load_trace
        self.status = status  # (text, ms) on the window's status line
        self.card: SummaryCard | None = None
        self.number: int | None = None  # the summary's number of the card on screen
        self.loading: int | None = None  # the card whose trace is loading
        self.told: set[int] = set()  # cards whose trace the status line said is not here
        self.given_up: set[int] = set()  # cards whose trace load failed or was cancelled
        # what the user last looked at on the summarised card (its own clock, ns): the trace opens there
        self.window: tuple[int, int] | None = None
        self.mark: tuple[int, int] | None = None  # a jump's span marked on it (its area selection)
        self.loaded: list[CardView] = []  # the last summarised card whose trace was loaded
        timeline.windowChanged.connect(self._window_changed)
        timeline.selectionChanged.connect(self._remember)

    @property
    def shown(self) -> CardView | None:
        """The summarised card on the timeline, or None (the timeline shows traces)."""
        cards = self.timeline.cards
        return cards[0] if len(cards) == 1 and cards[0].coverage_source is not None else None

    @property
    def showing_pyramid(self) -> bool:
        return self.shown is not None

    @property
    def pyramid(self) -> Pyramid | None:
        """The pyramid of the summarised card on the timeline."""
        shown = self.shown
        return shown.coverage_source.pyramid if shown is not None else None

    def open_summary(self) -> None:
        """A summary folder was opened: no card yet (the timeline says how to pick one)."""
        self.card = self.number = self.loading = None
        self.window = self.mark = None
        self.loaded = []
        self.told.clear()
        self.given_up.clear()
        self.timeline.set_empty_hint(PICK_HINT)
        self.timeline.set_cards([])
        self.shownChanged.emit()

    def close_summary(self) -> None:
        """Traces were opened instead: the timeline shows them."""
        self.card = self.number = self.loading = None
        self.timeline.set_empty_hint("")
        self.shownChanged.emit()

    def show_card(self, number: int, card: SummaryCard, step: int | None = None,
                  window: tuple[int, int] | None = None) -> None:
        """Card ``number`` of the summary from its pyramid, at ``step``'s window when given (else ``window``,
        its own clock in ns, else whole)."""
        pyramid = card.pyramid()
        self.card, self.number = card, number
        self.window = self.mark = None
        for s in card.steps if step is not None else []:
            if s.step == step:
                margin = int((s.end - s.start) * STEP_MARGIN)
                window = (s.start - margin, s.end + margin)
        view = summary_card(number, pyramid, f"{card.card}  (summary)", card.producer)
        view.coverage_note = self._note(number, card)
        if self.timeline.lane_filter != ALL:  # a cluster's lane filter keeps none of a summarised card's rows
            self.timeline.set_lane_filter(ALL)
        self.timeline.set_cards([view])
        if window is not None:
            self.set_range(window[0] - pyramid.t0, window[1] - pyramid.t0, remember=False)
        self.timeline.setFocus()
        self.shownChanged.emit()
        self._window_changed()  # a step shorter than the pyramid's buckets wants the trace at once

    def _note(self, number: int, card: SummaryCard) -> str:
        """What card ``number``'s header adds: its trace loading, not here, or that zooming in loads it."""
        if self.loading == number:
            return LOADING_NOTE
        if missing_sources(card):
            return UNREACHABLE_NOTE
        return ZOOM_NOTE if number not in self.given_up else ""

    def set_range(self, t0: int, t1: int, remember: bool = True) -> None:
        """Show [t0, t1] ns relative to the start of the summarised card on screen."""
        shown = self.shown
        if shown is not None:
            ctx = self.timeline.ctx
            a = shown.coverage_source.t0
            self.timeline.set_range(ctx.rel(shown, a + t0), ctx.rel(shown, a + t1), remember=remember)

    def show_span(self, t0: int, t1: int, mark: tuple[int, int] | None = None) -> None:
        """Show [t0, t1] (the card's own clock, ns) of the card on screen: on its pyramid, or on its
        trace when that is loaded (a span finer than the pyramid loads the trace, as zooming does).
        ``mark``: the jump's target span (same clock), selected as an area across the card's rows (as a
        jump on a loaded trace does); it follows the trace when it loads."""
        if not self.timeline.cards:
            return
        card, ctx = self.timeline.cards[0], self.timeline.ctx
        if mark is not None:  # marked first: the window may start the trace's load, which carries the mark
            self.timeline.select_area(ctx.rel(card, mark[0]), ctx.rel(card, mark[1]), rows_of_card=card.number)
        self.timeline.set_range(ctx.rel(card, t0), ctx.rel(card, t1))

    def show_timeline(self) -> None:
        """The timeline shows traces again (a drill-down on a loaded card): no summarised card is on screen,
        so a trace still loading for one does not come back to it."""
        self.card = self.number = None
        self.window = self.mark = None
        self.shownChanged.emit()

    # ------------------------------------------------------------------ the trace
    def _remember(self) -> None:
        """Keep what the user looks at on the summarised card (its window and mark), for its trace."""
        shown = self.shown
        if shown is None or shown.number != self.number:
            return
        ctx = self.timeline.ctx
        a, b = ctx.abs_window(shown)
        self.window = (a, b)
        sel = ctx.area_selection
        self.mark = (sel.t0 + ctx.card_shift(shown), sel.t1 + ctx.card_shift(shown)) if sel is not None else None

    def _window_changed(self) -> None:
        """A new window on the summarised card: past the pyramid's finest level, its trace is wanted."""
        self._remember()
        shown = self.shown
        if shown is None:
            return
        a, b = self.timeline.ctx.abs_window(shown)
        if not resolves(shown.coverage_source, a, b, self.timeline.ctx.viewport.width_px):
            self.want_trace()

    def want_trace(self) -> None:
        """The user zoomed in past the pyramid: load the card's trace once, or say once that it is not here."""
        number, card = self.number, self.card
        if card is None or not self.showing_pyramid or self.loading is not None or number in self.given_up:
            return
        missing = missing_sources(card)
        if missing:
            if number not in self.told:
                self.told.add(number)
                depth = depth_text(self.shown.coverage_source)
                self.status(f"the trace {missing[0]} is not on this machine; the summary holds this card "
                            f"down to {depth}", UNREACHABLE_MS)
                self.timeline.set_card_note(number, UNREACHABLE_NOTE)
            return
        self.loading = number
        self.timeline.set_card_note(number, LOADING_NOTE)
        self.load_trace(trace_paths(card.manifest["sources"]))

    def trace_loaded(self, cards: list[CardView]) -> list[CardView]:
        """The card's trace is loaded: it takes the summary's card number and, while its pyramid is still
        what the user looks at, replaces it on the timeline at the window the pyramid showed (with the
        jump's mark). Returns the cards the comparison can drill into."""
        number = self.loading
        self.loading = None
        if number is None or not cards:
            if number is not None:
                self.given_up.add(number)  # nothing readable in it (the window says so)
                self._show_again()
            return list(self.loaded)
        cards = cards[:1]  # one card's files (several only if they could not be opened as one)
        cards[0].number = number  # analysis tabs and drill-downs name the card by its number in the summary
        self.loaded = list(cards)
        if number != self.number or self.card is None:
            self._show_again()  # the user went to another card meanwhile: its pyramid stays
            return list(cards)
        window, mark = self.window, self.mark
        self.timeline.set_cards(cards)
        ctx = self.timeline.ctx
        if window is not None:
            self.timeline.set_range(ctx.rel(cards[0], window[0]), ctx.rel(cards[0], window[1]), remember=False)
        if mark is not None:  # the jump's mark carries over to the trace
            self.timeline.select_area(ctx.rel(cards[0], mark[0]), ctx.rel(cards[0], mark[1]), rows_of_card=number)
        self.card = None
        self.shownChanged.emit()
        self.timeline.setFocus()
        return list(cards)

    def _show_again(self) -> None:
        """The summarised card the user looks at, back on the timeline (at its window) if something replaced it."""
        if self.card is None or self.number is None:
            return
        shown = self.shown
        if shown is not None and shown.number == self.number:
            self.timeline.set_card_note(self.number, self._note(self.number, self.card))
            return
        window = self.window
        self.show_card(self.number, self.card, window=window)

    def trace_ended(self) -> None:
        """The trace load ended without a picture (failed or cancelled): the pyramid stays, and this card's
        trace is not loaded again by zooming (a drill-down on a loaded card shows its timeline)."""
        if self.loading is not None:
            self.given_up.add(self.loading)
            self.loading = None
            self._show_again()
