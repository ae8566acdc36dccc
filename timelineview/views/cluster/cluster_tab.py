"""ClusterTab: wires the cluster comparison into the main window (tabs, loading, drill-down).

The window's timeline page and the :class:`ClusterView` become two tabs. While a folder of
ranks loads, the comparison tab shows each card's progress; when it is done it shows the
table. A drill-down puts the chosen cards in the timeline, zoomed to the step window and
aligned by the cards' clock offsets.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.summaries.card_summary import SummaryCard
from timelineview.analysis.summaries.summary_session import SummarySession
from timelineview.model.store.report import EMPTY_CAPTURE
from timelineview.producers.wording import shared_wording
from timelineview.views.analysis_tabs.host import AnalysisTabsHost
from timelineview.views.analysis_tabs.jump import jump_to
from timelineview.views.cluster.card_overview import STEP_MARGIN, CardOverview
from timelineview.views.cluster.cluster_bar import ClusterBar
from timelineview.views.cluster.cluster_view import EMPTY_HINT, ClusterView
from timelineview.views.cluster.heat_map import HeatMapView
from timelineview.views.jobs.load_job import (
    ANALYSIS_FAILED,
    CARD_PROGRESS,
    CARDS_FOUND,
    COMPARISON_FAILED,
    LoadedRun,
)
from timelineview.views.jobs.runner import JobHandle
from timelineview.views.shown_data import ShownData, summary_data, trace_data
from timelineview.views.tab_keys import bind_tab_keys
from timelineview.views.timeline.widget import TimelineWidget
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.tabs.run_alignment import RunCardView
from timelineview.viewstate.timeline.lane_filter import ALL
from timelineview.viewstate.timeline.steps_on_screen import StepSpan, StepSpans

LANE_FILTER_KEY = "Ctrl+L"


class CardsOnTimeline(NamedTuple):
    """What the strip says of the timeline's cards."""

    titles: list[str]  # the cards shown
    total: int  # of how many
    source: str  # where they are drawn from when not from their traces' slices ("": from them)
    card: SummaryCard | None  # a summary's card drilled into, its steps the strip's; None: loaded traces
    side_by_side: bool  # 'all cards' and the lane filter apply (a summarised card's rows are its own, alone)


class ClusterTab(QtCore.QObject):
    """Owns the tabs, the comparison view and the strip above the timeline."""

    def __init__(self, window: QtWidgets.QMainWindow, timeline: TimelineWidget) -> None:
        super().__init__(window)
        self.window = window
        self.timeline = timeline
        self.view = ClusterView()
        self.bar = ClusterBar()
        self.bar.hide()
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.all_cards: list[CardView] = []
        self.shown_step: int | None = None  # the one step the timeline's window shows (the strip names it)
        self._step_spans: tuple[tuple, StepSpans] | None = None  # (what they were built for, the spans)
        self._dock_visible: bool | None = None
        self.heat = HeatMapView()  # rank × step of any metric
        # a summarised card on the timeline, from its pyramid, then its trace when zoomed past it
        self.overview = CardOverview(timeline, self._load_card_trace, self._status)
        self._trace_job: JobHandle | None = None  # the running load is a summarised card's trace (the summary stays)
        self._trace_wanted = False
        self.summary: SummarySession | None = None  # set while a summary folder is open
        self.shown: ShownData | None = None  # the data set on screen: what it is and what it can show
        self.view.drillRequested.connect(self.drill)
        self.heat.cardsActivated.connect(self.drill)
        self.bar.backRequested.connect(self.show_comparison)
        self.bar.showAllRequested.connect(self.show_all_cards)
        self.bar.filterChanged.connect(self.set_lane_filter)
        timeline.laneFilterChanged.connect(self.set_lane_filter)  # keeps the strip's choice in step
        timeline.windowChanged.connect(self._window_moved)  # a search, a jump, a pan: the step on screen
        window.installEventFilter(self)

    def wrap(self, timeline_page: QtWidgets.QWidget) -> QtWidgets.QTabWidget:
        """The window's central widget: the timeline page, the comparison, the heat map and the analysis tabs,
        Ctrl+1, Ctrl+2, … in the order shown."""
        self.tabs.addTab(timeline_page, "Timeline")
        self.overview.shownChanged.connect(lambda: self._on_tab(self.tabs.currentIndex()))
        self.tabs.addTab(self.view, "Cluster comparison")
        self.tabs.addTab(self.heat, "Heat map")
        self.tabs.setTabToolTip(1, "Every card side by side: which one holds the others back")
        self.tabs.setTabToolTip(2, "Any metric of every card at every step, rank by step")
        self.tabs.currentChanged.connect(self._on_tab)
        QtGui.QShortcut(QtGui.QKeySequence(LANE_FILTER_KEY), self.window).activated.connect(self.open_lane_filter)
        self.analysis = AnalysisTabsHost(self.window, self.tabs, lambda target: jump_to(self, target))
        if "compare" in self.analysis.widgets:  # shows both runs on this timeline
            self.analysis.widgets["compare"].attach(self)
        if "critical_path" in self.analysis.widgets:  # outlines a step's path on this timeline
            self.analysis.widgets["critical_path"].attach(self)
        bind_tab_keys(self.window, self.tabs)
        return self.tabs

    def open_lane_filter(self) -> None:
        """Ctrl+L: the lane filter's list, on the timeline of a cluster (it means nothing for one card)."""
        if len(self.all_cards) < 2:
            return
        self.tabs.setCurrentIndex(0)
        self.bar.filter.setFocus()
        self.bar.filter.showPopup()

    # ------------------------------------------------------------------ loading
    def watch(self, job: JobHandle) -> None:
        """Follow a load job that the window just started (the window passes on what it reports)."""
        if self._trace_job is not None and not self._trace_wanted:  # a card's trace load, superseded
            self.overview.trace_ended()
        self.view.hint.setText(EMPTY_HINT)  # a failed comparison's reason, shown in its place, is of that load
        self._trace_job, self._trace_wanted = (job if self._trace_wanted else None), False

    @property
    def loading_card_trace(self) -> bool:
        """The load the window starts now is a summarised card's trace (the summary stays on screen)."""
        return self._trace_wanted

    @property
    def card_trace_running(self) -> bool:
        """The window's running load is a summarised card's trace (its pyramid stays on the timeline till done)."""
        return self._trace_job is not None

    def load_reported(self, job: JobHandle, kind: str, payload) -> None:
        """What the window's current load hands over on the way (card labels, card progress, failures)."""
        if job is self._trace_job:
            return
        if kind == CARDS_FOUND:
            self.view.start_loading(payload)
            if len(payload) > 1 and getattr(self.window, "interactive", False):
                self.tabs.setCurrentWidget(self.view)
        elif kind == CARD_PROGRESS:
            self.view.card_progress(payload.index, payload.done, payload.total, payload.unit)
        elif kind == ANALYSIS_FAILED and payload.startswith(COMPARISON_FAILED):
            why = payload[:1].upper() + payload[1:]  # its tab says why, not the hint of an empty window
            self.view.hint.setText(why)
            self.heat.note.setText(why)  # the heat map is drawn from the comparison too

    def load_finished(self, job: JobHandle, run: LoadedRun) -> None:
        """The load's cards: a summarised card's trace goes to its overview; else the comparison, the
        analysis tabs and the strip show the run (the window has put its cards on the timeline)."""
        if job is self._trace_job:
            self.all_cards = self.overview.trace_loaded([c for c in run.cards if len(c.store.slices)])
            self.shown_step = None
            self._show_bar()  # the strip says what this card's trace shows, not what the timeline held before
            return
        failed = {i: c.store.report.error or (EMPTY_CAPTURE if c.store.report.read_whole_capture
                                              else "no slices could be read")
                  for i, c in enumerate(run.cards) if not c.drawable}
        self.view.progress_list.finish(failed)
        shown = [c for c in run.cards if c.drawable]
        if not shown:
            return
        self.all_cards = list(self.timeline.cards)
        self.shown_step = None
        self.summary = None
        self.shown = trace_data(run.session, shown, ", ".join(p.name for p in run.paths))
        self.overview.close_summary()
        self.view.set_comparison(run.comparison)
        self.analysis.show_data(self.shown)
        self.heat.set_comparison(run.comparison)
        self._show_bar()
        # A lane filter was chosen for the run it was set on: a new run opens with every lane (kept, it
        # would hide lanes the new run has and the old one lacked, e.g. its memory curves).
        if self.timeline.lane_filter != ALL or self.bar.lane_filter() != ALL:
            self.set_lane_filter(ALL)
        if len(shown) > 1 and getattr(self.window, "interactive", False):
            if not self.analysis.open_wanted():  # a cluster opens on its findings when it has any
                self.tabs.setCurrentWidget(self.view)
        elif len(shown) == 1:
            self.tabs.setCurrentIndex(0)  # a one-card comparison says nothing: show its timeline

    def show_nothing(self) -> None:
        """A load replaced what was on screen with nothing (an empty capture): no data set is shown; the
        comparison tab keeps the new load's card list, which says why."""
        self.summary = self.shown = None
        self.all_cards = []
        self.shown_step = None
        self.overview.close_summary()
        self.analysis.clear()
        self.bar.hide()

    def load_ended(self, job: JobHandle) -> None:
        if job is self._trace_job:
            self._trace_job = None
            self.overview.trace_ended()
            return
        self.view.load_ended({i: c.note for i, c in enumerate(self.view.progress_list.cards)
                              if c.status == "failed"})

    # ------------------------------------------------------------------ drill-down
    def drill(self, numbers: list[int], step: int | None = None) -> None:
        """Show these cards in the timeline at ``step`` (None: the first card's drill step), aligned."""
        cards = [c for c in self.all_cards if c.number in set(numbers)]
        if not cards and self.shown is not None and not self.shown.has_slices:  # the first card from its summary
            self.show_overview(numbers[0], step)
            return
        if not cards:
            return
        if step is None:
            rows = {r["number"]: r for r in self.view.current_rows()}
            step = (rows.get(numbers[0]) or {}).get("drill_step")
        self._sync_offsets()
        self.timeline.set_cards(cards)
        window = self.step_window(cards, step)
        if window is not None:
            t0, t1 = window
            margin = int((t1 - t0) * STEP_MARGIN)
            self.timeline.set_range(t0 - margin, t1 + margin)
        self.update_bar()
        self.overview.show_timeline()
        self.tabs.setCurrentIndex(0)
        self.timeline.setFocus()

    def step_window(self, cards: list[CardView], step: int | None) -> tuple[int, int] | None:
        """Relative [t0, t1] covering ``step`` on every shown card (each on its aligned clock)."""
        cmp = self.view.comparison
        if cmp is None or step is None:
            return None
        by_number = {c.number: c for c in cmp.cards}
        spans = []
        for card in cards:
            cc = by_number.get(card.number)
            for s in cc.steps if cc is not None else []:
                if s["step"] == step:
                    spans.append((self.timeline.ctx.rel(card, s["start_ns"]), self.timeline.ctx.rel(card, s["end_ns"])))
        if not spans:
            return None
        return min(a for a, _ in spans), max(b for _, b in spans)

    def show_all_cards(self) -> None:
        """Every card again, keeping the visible window (in aligned absolute time)."""
        ctx = self.timeline.ctx
        v0, v1, origin = ctx.viewport.t0, ctx.viewport.t1, ctx.origin
        self._sync_offsets()
        self.timeline.set_cards(self.all_cards)
        self.timeline.set_range(v0 + origin - ctx.origin, v1 + origin - ctx.origin)
        self.update_bar()

    def _sync_offsets(self) -> None:
        """Cards not on screen follow View ▸ Align card clocks too (the window sets only the shown ones)."""
        action = getattr(self.window, "align_action", None)
        aligned = action is None or action.isChecked()
        for c in self.all_cards:
            c.offset_ns = c.estimated_offset_ns if aligned else 0

    def set_lane_filter(self, kind: str) -> None:
        self.timeline.set_lane_filter(kind)
        if self.bar.lane_filter() != kind:
            self.bar.set_lane_filter(kind)

    # ------------------------------------------------------------------ summary folders (metrics.md §10)
    def open_summary(self, session: SummarySession) -> None:
        """Show a summary folder's cards: the comparison, the heat map and, on drill-down, a card's overview."""
        self.summary = session
        self.shown = summary_data(session)
        self.all_cards = []
        self.shown_step = None
        self.bar.hide()  # it described the traces on the timeline before (e.g. both runs of a compare)
        self.view.set_comparison(session.comparison)
        self.heat.set_comparison(session.comparison)
        self.overview.open_summary()
        self.tabs.setCurrentWidget(self.view)

    def show_overview(self, number: int, step: int | None = None) -> None:
        """Card ``number`` of the open summary in the Timeline tab, drawn from its pyramid (at ``step``)."""
        self.overview.show_card(number, self.summary.cards[number], step)
        self._show_bar()  # the strip: which card of the summary, the step, the way back to the comparison
        self.tabs.setCurrentIndex(0)

    def _load_card_trace(self, paths: list) -> None:
        """Load a summarised card's trace the way File ▸ Open loads (progress, Cancel); its results come
        back to the overview, and the comparison keeps the summary."""
        self._trace_wanted = True  # watch() marks the load the window starts now
        self.window.open_paths(paths, remember=False)
        self._trace_wanted = False

    def _status(self, text: str, ms: int) -> None:
        self.window.statusBar().showMessage(text, ms)

    def show_comparison(self) -> None:
        self.tabs.setCurrentWidget(self.view)

    def _on_timeline(self) -> CardsOnTimeline:
        """What the timeline shows now, for the strip: the one place that tells a summarised card drilled into
        (from its pyramid, or its trace loaded by zooming) from loaded traces."""
        card = self.overview.card if self.overview.number is not None else None
        if self.summary is not None and card is not None:  # one card of the summary's, shown alone
            source = "from its summary" if self.overview.showing_pyramid else "its trace"
            return CardsOnTimeline([card.card], len(self.summary.cards), source, card, False)
        numbers = {c.number for c in self.all_cards}
        titles = [c.title for c in self.timeline.cards if c.number in numbers]
        return CardsOnTimeline(titles, len(self.all_cards), "", None, True)

    def update_bar(self) -> None:
        """The strip says which cards the timeline shows, of how many, and the one step on screen."""
        if not any(isinstance(c, RunCardView) for c in self.timeline.cards):
            self.bar.show_runs(None)
        self.shown_step = self._step_on_screen()
        on = self._on_timeline()
        self.bar.set_state(on.titles, on.total, self.shown_step, on.source)
        self.bar.set_wording(shared_wording(c.wording for c in self.timeline.cards))
        if not on.side_by_side:
            self.bar.all.setEnabled(False)

    def _show_bar(self) -> None:
        """The strip over a timeline of several cards (or of one card of a summary of several), saying
        what it shows now."""
        on = self._on_timeline()
        self.bar.setVisible(on.total > 1)
        self.bar.filter.setEnabled(on.side_by_side)  # a summarised card's rows are its own, unfiltered
        self.update_bar()

    def show_step(self, step: int | None) -> None:
        """Kept for callers that know the step they show: the strip follows the window in any case."""
        self.update_bar()

    def _window_moved(self) -> None:
        if self.bar.isVisible() and self._step_on_screen() != self.shown_step:
            self.update_bar()

    def _step_on_screen(self) -> int | None:
        """The one step the timeline's window shows on the cards on it (None: several or none)."""
        v = self.timeline.ctx.viewport
        spans = self._spans()
        return spans.step_shown(v.t0, v.t1) if spans is not None else None

    def _spans(self) -> StepSpans | None:
        """The steps of the cards on the timeline, on its clock; built again when the cards, their
        offsets or the comparison change."""
        ctx, cards = self.timeline.ctx, self.timeline.cards
        drilled = self._on_timeline().card
        cmp = self.view.comparison
        key = (id(drilled), id(cmp), ctx.origin, tuple((c.number, c.offset_ns) for c in cards))
        if self._step_spans is not None and self._step_spans[0] == key:
            return self._step_spans[1]
        spans = []
        if drilled is not None and cards:
            spans = [StepSpan(int(s.step), ctx.rel(cards[0], s.start), ctx.rel(cards[0], s.end))
                     for s in drilled.steps]
        elif cmp is not None:
            by_number = {c.number: c for c in cmp.cards}
            for card in cards:
                cc = by_number.get(card.number) if not isinstance(card, RunCardView) else None
                spans += [StepSpan(int(s["step"]), ctx.rel(card, s["start_ns"]), ctx.rel(card, s["end_ns"]))
                          for s in (cc.steps if cc is not None else [])
                          if s.get("start_ns") is not None and s.get("end_ns") is not None]
        self._step_spans = (key, StepSpans(spans))
        return self._step_spans[1]

    def steps_of(self, number: int) -> list[dict]:
        """Card ``number``'s steps as the comparison lists them (``step``, ``start_ns``, ``end_ns``)."""
        cmp = self.view.comparison
        card = next((c for c in cmp.cards if c.number == number), None) if cmp is not None else None
        return list(card.steps) if card is not None else []

    # ------------------------------------------------------------------ tabs and the details dock
    def dock_wanted(self, index: int | None = None) -> bool:
        """Whether the Details dock has something to say on tab ``index`` (default: the current one): it
        describes the timeline's cards, so only the Timeline tab showing the timeline. Elsewhere it would
        show another card's figures (the timeline keeps the last trace loaded while a summary's analysis
        tabs or another card's pyramid are on screen) or an empty 'click a slice' over the tab."""
        index = self.tabs.currentIndex() if index is None else index
        return index == 0 and not self.overview.showing_pyramid

    def _on_tab(self, index: int) -> None:
        """The details dock belongs to the timeline: hidden on the other tabs, and while a summarised card's
        pyramid is in the Timeline tab; back (when the user had it) with the timeline."""
        dock = getattr(self.window, "dock", None)
        if dock is None:
            return
        if not self.dock_wanted(index):
            if self._dock_visible is None:  # from the comparison to a pyramid: still the user's choice
                self._dock_visible = not dock.isHidden()  # the window may not be shown yet
            dock.hide()
        else:
            if self._dock_visible:
                dock.show()
            self._dock_visible = None

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if obj is self.window and ev.type() == QtCore.QEvent.Type.Close and self._dock_visible:
            self.window.dock.show()  # the saved window state keeps the user's dock
        return False
