"""CardOverview: a card of a summary folder in the Timeline tab — from its pyramid, then from its trace.

A drill-down on a summarised card puts a :class:`PyramidTimeline` in the Timeline tab's place (a
stack over the window's timeline page). When the user zooms in past the pyramid's finest level and
the card's trace (``sources`` in its manifest) is on this machine, the trace is loaded once, through
the window's own loading (File ▸ Open's path, with its progress and Cancel), and shown in the real
timeline at the window the user was looking at. When the trace is not reachable, the status line
says so once per card and the pyramid stays. The Cluster tabs keep the summary throughout; drilling
another card shows its pyramid.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from timelineview.analysis.summaries.card_summary import SummaryCard
from timelineview.model.discovery import find_cards
from timelineview.views.timeline.pyramid_timeline import PyramidTimeline
from timelineview.views.timeline.widget import TimelineWidget
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.time_format import format_duration
from timelineview.viewstate.timeline.pyramid_frame import finest_bucket_ns

STEP_MARGIN = 0.02  # of the step length, either side of a drilled step (as the timeline's drill-down)
UNREACHABLE_MS = 15_000  # how long the status line says a trace is not on this machine
TIMELINE_PAGE, PYRAMID_PAGE = 0, 1
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
    """Shows summarised cards in the Timeline tab and loads a card's trace when its pyramid runs out.

    ``load_trace(paths)`` starts the window's load of a summary card's trace (the cluster tab routes
    that load's results back here: :meth:`trace_loaded`, :meth:`trace_ended`)."""

    def __init__(self, timeline: TimelineWidget, load_trace: Callable[[list[Path]], None],
                 status: Callable[[str, int], None]) -> None:
        super().__init__(timeline)
        self.timeline = timeline
        self.load_trace = load_trace
        self.status = status  # (text, ms) on the window's status line
        self.widget = PyramidTimeline()
        self.stack = QtWidgets.QStackedWidget()
        self.card: SummaryCard | None = None
        self.number: int | None = None  # the summary's number of the card on screen
        self.loading: int | None = None  # the card whose trace is loading
        self.told: set[int] = set()  # cards whose trace the status line said is not here
        self.given_up: set[int] = set()  # cards whose trace load failed or was cancelled
        self.widget.detailWanted.connect(self.want_trace)

    def page(self, timeline_page: QtWidgets.QWidget) -> QtWidgets.QStackedWidget:
        """The Timeline tab's page: the window's timeline page, or a summarised card's pyramid."""
        self.stack.addWidget(timeline_page)
        self.stack.addWidget(self.widget)
        return self.stack

    @property
    def showing_pyramid(self) -> bool:
        return self.stack.currentIndex() == PYRAMID_PAGE

    def open_summary(self) -> None:
        """A summary folder was opened: no card yet (the tab says how to pick one)."""
        self.card = self.number = self.loading = None
        self.told.clear()
        self.given_up.clear()
        self.widget.pyramid = None
        self.stack.setCurrentIndex(PYRAMID_PAGE)
        self.widget.update()

    def close_summary(self) -> None:
        """Traces were opened instead: the Timeline tab is the timeline again."""
        self.card = self.number = self.loading = None
        self.stack.setCurrentIndex(TIMELINE_PAGE)

    def show_card(self, number: int, card: SummaryCard, step: int | None = None) -> None:
        """Card ``number`` of the summary from its pyramid, at ``step``'s window when given (else whole)."""
        pyramid = card.pyramid()
        self.card, self.number = card, number
        window = None
        for s in card.steps if step is not None else []:
            if s.step == step:
                margin = int((s.end - s.start) * STEP_MARGIN)
                window = (s.start - pyramid.t0 - margin, s.end - pyramid.t0 + margin)
        self.widget.set_pyramid(pyramid, f"{card.card}  (summary)", window)  # before it shows (and resizes)
        self.stack.setCurrentIndex(PYRAMID_PAGE)
        if self.loading == number:
            self.widget.set_note(LOADING_NOTE)
        elif missing_sources(card):
            self.widget.set_note(UNREACHABLE_NOTE)
        elif number not in self.given_up:
            self.widget.set_note(ZOOM_NOTE)
        self.widget.setFocus()
        self.widget.changed(window=True)  # a step shorter than the pyramid's buckets wants the trace at once

    def show_span(self, t0: int, t1: int, mark: tuple[int, int] | None = None) -> None:
        """Show [t0, t1] (the card's own clock, ns) of the card on screen: on its pyramid, or on its
        trace when that is loaded (a span finer than the pyramid loads the trace, as zooming does).
        ``mark``: the jump's target span (same clock), marked on the pyramid, or selected as an area of
        the card on its timeline (as a jump on a loaded trace does); it follows the trace when it loads."""
        pyramid = self.widget.pyramid
        if self.showing_pyramid and pyramid is not None:
            self.widget.set_target((mark[0] - pyramid.t0, mark[1] - pyramid.t0) if mark is not None else None)
            self.widget.set_range(t0 - pyramid.t0, t1 - pyramid.t0)  # may start the trace's load: marked first
        elif self.timeline.cards:
            card, ctx = self.timeline.cards[0], self.timeline.ctx
            self.timeline.set_range(ctx.rel(card, t0), ctx.rel(card, t1))
            if mark is not None:
                self.timeline.select_area(ctx.rel(card, mark[0]), ctx.rel(card, mark[1]), rows_of_card=card.number)

    def show_timeline(self) -> None:
        self.stack.setCurrentIndex(TIMELINE_PAGE)

    # ------------------------------------------------------------------ the trace
    def want_trace(self) -> None:
        """The user zoomed in past the pyramid: load the card's trace once, or say once that it is not here."""
        number, card = self.number, self.card
        if card is None or not self.showing_pyramid or self.loading is not None or number in self.given_up:
            return
        missing = missing_sources(card)
        if missing:
            if number not in self.told:
                self.told.add(number)
                depth = format_duration(finest_bucket_ns(self.widget.pyramid), 2)
                self.status(f"the trace {missing[0]} is not on this machine; the summary holds this card "
                            f"down to {depth}", UNREACHABLE_MS)
                self.widget.set_note(UNREACHABLE_NOTE)
            return
        self.loading = number
        self.widget.set_note(LOADING_NOTE)
        self.load_trace(trace_paths(card.manifest["sources"]))

    def trace_loaded(self, cards: list[CardView]) -> list[CardView]:
        """The card's trace is loaded (the window's timeline holds it): it takes the summary's card
        number and, while its pyramid is still on screen, is shown at the window the pyramid showed.
        Returns the cards now on the timeline."""
        number, pyramid = self.loading, self.widget.pyramid
        self.loading = None
        if number is None or not cards:
            if number is not None:
                self.given_up.add(number)  # nothing readable in it (the window says so)
            return list(self.timeline.cards)
        cards = cards[:1]  # one card's files (several only if they could not be opened as one)
        cards[0].number = number  # analysis tabs and drill-downs name the card by its number in the summary
        self.timeline.set_cards(cards)
        if number != self.number or pyramid is None or not self.showing_pyramid:
            return list(cards)  # the user went to another card meanwhile: its pyramid stays
        v = self.widget.viewport
        a0, a1 = pyramid.t0 + v.t0, pyramid.t0 + v.t1  # the card's own clock, as the trace has it
        ctx = self.timeline.ctx
        self.timeline.set_range(ctx.rel(cards[0], a0), ctx.rel(cards[0], a1), remember=False)
        target = self.widget.target
        if target is not None:  # the jump's mark carries over to the trace
            m0, m1 = pyramid.t0 + target[0], pyramid.t0 + target[1]
            self.timeline.select_area(ctx.rel(cards[0], m0), ctx.rel(cards[0], m1), rows_of_card=number)
        self.widget.set_note("")
        self.show_timeline()
        self.timeline.setFocus()
        return list(cards)

    def trace_ended(self) -> None:
        """The trace load ended without a picture (failed or cancelled): the pyramid stays, and this card's
        trace is not loaded again by zooming (a drill-down on a loaded card shows its timeline)."""
        if self.loading is not None:
            self.given_up.add(self.loading)
            self.loading = None
            self.widget.set_note("")
