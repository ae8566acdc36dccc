"""MainWindow: the timeline, the cluster and analysis tabs, the Details dock, and the one set of slots that
hears the window's jobs (a trace load, a summary folder's reading). Menus, opening, job progress, messages
and recent paths are in ``views.window``; the jobs in ``views.jobs``."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.cluster.cluster_tab import ClusterTab
from timelineview.views.jobs.job import Failure, Progress
from timelineview.views.jobs.load_job import ANALYSIS_FAILED, PARTIAL, LoadedRun, load_job
from timelineview.views.jobs.runner import JobHandle, JobRunner
from timelineview.views.jobs.summary_job import OPENED, SummaryAnalysis, release_frozen, summary_job
from timelineview.views.panels.details_panel import DetailsPanel
from timelineview.views.panels.load_report import trace_report
from timelineview.views.search_bar import SearchBar
from timelineview.views.shortcut_sheet import ShortcutSheet
from timelineview.views.shown_data import APP_TITLE
from timelineview.views.theme import system_is_dark
from timelineview.views.timeline.widget import TimelineWidget
from timelineview.views.window import opening
from timelineview.views.window.capture_choice import CHOICE_TITLE, CaptureChoice, choice_text
from timelineview.views.window.job_status import JobStatus
from timelineview.views.window.menus import build_menus
from timelineview.views.window.messages import Messages
from timelineview.views.window.outcomes import (
    LOAD_REPORT_MENU,
    load_outcome,
    shown_counts,
    summary_status,
    unsummarised_status,
)
from timelineview.views.window.recent import RecentPaths

LOAD, SUMMARY = "load", "summary"  # the window's job lanes: a summary's analysis may run beside a card's load
DEFAULT_SIZE = QtCore.QSize(1400, 860)
SCREEN_SHARE = 0.9  # on a smaller screen the first window takes this much of it
DOCK_HEIGHT = 240
STATUS_MS = 10_000  # how long a job's outcome stays on the status line
CANCELLED_MS = 5_000
TEXT_INPUTS = (QtWidgets.QLineEdit, QtWidgets.QTextEdit, QtWidgets.QPlainTextEdit,
               QtWidgets.QAbstractSpinBox)
NAV_KEYS = {QtCore.Qt.Key.Key_W, QtCore.Qt.Key.Key_A, QtCore.Qt.Key.Key_S, QtCore.Qt.Key.Key_D,
            QtCore.Qt.Key.Key_F, QtCore.Qt.Key.Key_M, QtCore.Qt.Key.Key_0, QtCore.Qt.Key.Key_Question}


def default_size(available: QtCore.QSize) -> QtCore.QSize:
    """The first window's size: :data:`DEFAULT_SIZE`, shrunk to fit a smaller screen."""
    return QtCore.QSize(min(DEFAULT_SIZE.width(), int(available.width() * SCREEN_SHARE)),
                        min(DEFAULT_SIZE.height(), int(available.height() * SCREEN_SHARE)))


class MainWindow(QtWidgets.QMainWindow):
    """The viewer window. ``settings`` defaults to the user's QSettings (tests pass their own)."""

    loadFinished = QtCore.Signal(bool)  # True when cards (or a summary's comparison) were shown

    def __init__(self, settings: QtCore.QSettings | None = None, interactive: bool = True) -> None:
        super().__init__()
        self.settings = settings or QtCore.QSettings("timelineview", "timelineview")
        self.interactive = interactive  # False for --screenshot: no dialogs
        self.setWindowTitle(APP_TITLE)
        self.setAcceptDrops(True)
        self.timeline = TimelineWidget()
        self.search = SearchBar(self.timeline)
        self.cluster = ClusterTab(self, self.timeline)  # comparison tab, drill-down, lane filter
        self.analysis_failures: list[str] = []  # parts of the last load's analysis that failed, in one line each
        central = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.search)
        lay.addWidget(self.cluster.bar)
        lay.addWidget(self.timeline, 1)
        self.setCentralWidget(self.cluster.wrap(central))
        self.cluster.analysis.failed.connect(self._note_analysis_failure)
        self.details = DetailsPanel(self.timeline)
        self.dock = QtWidgets.QDockWidget("Details", self)
        self.dock.setObjectName("details")
        self.dock.setWidget(self.details)
        self.dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                              | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(QtCore.Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self._docked = False
        self.cursor_label = QtWidgets.QLabel()
        self.cursor_label.setMinimumWidth(200)
        self.cursor_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.statusBar().addWidget(self.cursor_label, 1)
        self.counts_label = QtWidgets.QLabel()  # what the data on screen holds: stays (a message goes at a click)
        self.counts_label.setObjectName("shown_counts")
        self.statusBar().addPermanentWidget(self.counts_label)
        self.job_status = JobStatus(self.statusBar(), self.cancel_load)
        self.progress, self.cancel_button = self.job_status.progress, self.job_status.cancel_button
        menus = build_menus(self)
        self.align_action, self.plane_colour_action = menus.align, menus.plane_colours
        self.recent = RecentPaths(self.settings, menus.recent, lambda p: self.open_paths([p]))
        self.messages = Messages(self, interactive)
        self.sheet: ShortcutSheet | None = None
        self.capture_choice: CaptureChoice | None = None  # open while the user picks one of a folder's captures
        self.paths: list[Path] = []
        self._partial_shown = False  # the running load's picture in progress is on the timeline
        self.jobs = JobRunner(self)
        self.jobs.progressed.connect(self._on_job_progress)
        self.jobs.handedOver.connect(self._on_job_handed_over)
        self.jobs.finished.connect(self._on_job_finished)
        self.jobs.failed.connect(self._on_job_failed)
        self.jobs.cancelled.connect(self._on_job_cancelled)
        self.jobs.ended.connect(self._on_job_ended)
        self.timeline.cursorMoved.connect(self.cursor_label.setText)
        self.timeline.helpRequested.connect(self.show_shortcuts)
        QtWidgets.QApplication.instance().installEventFilter(self)
        geo = self.settings.value("geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        else:
            self.resize(default_size(self.screen().availableGeometry().size()))
        state = self.settings.value("window_state")
        if state is not None:
            self.restoreState(state)

    # ------------------------------------------------------------------ the timeline's view toggles
    def _toggle_alignment(self) -> None:
        on = self.align_action.isChecked()
        self.timeline.set_card_offsets({c.number: c.estimated_offset_ns if on else 0 for c in self.timeline.cards})

    def _toggle_plane_colours(self) -> None:
        self.timeline.set_plane_colours(self.plane_colour_action.isChecked())

    def _set_all_collapsed(self, collapsed: bool) -> None:
        self.timeline.collapse_all(collapsed)

    # ------------------------------------------------------------------ opening
    def open_file_dialog(self) -> None:
        paths = opening.ask_files(self, self.recent.last_dir())
        if paths:
            self.open_paths(paths)

    def open_folder_dialog(self) -> None:
        paths = opening.ask_folder(self, self.recent.last_dir())
        if paths:
            self.open_paths(paths)

    def open_sample(self) -> bool:
        """Open the bundled sample cluster (what the app shows when started without a path)."""
        path = opening.sample_path()
        if path is None:
            self.show_message("No bundled sample", opening.NO_SAMPLE, warning=False)
            return False
        self.open_paths([path], remember=False)
        return True

    def recent_paths(self) -> list[str]:
        return self.recent.paths()

    def open_paths(self, paths: list[Path], remember: bool = True) -> None:
        """Open ``paths`` in the background: a summary folder is read, files or folders of one trace loaded."""
        folder = opening.summary_folder(paths)
        if folder is not None:
            self.open_summary(folder, remember)
            return
        captures = opening.separate_captures_of(paths) if not self.cluster.loading_card_trace else []
        if captures:  # a load would read one of them per card: the user says which
            self._choose_capture(Path(paths[0]), captures, remember)
            return
        release_frozen()  # what a summary kept from the cyclic collector may be garbage from now on
        reading = self.jobs.running(SUMMARY)
        if reading is not None and not reading.tags["opened"]:  # not on screen yet: it would replace these
            self.jobs.supersede(SUMMARY)
        self._begin([Path(p) for p in paths], remember, forget=not self.cluster.loading_card_trace)
        self.analysis_failures = []
        self._partial_shown = False
        self.cluster.watch(self.jobs.start(load_job(self.paths), LOAD))  # the running load's results: ignored
        names = ", ".join(p.name for p in self.paths)
        self.job_status.begin("Reading")
        self.timeline.set_loading(names)
        self.setWindowTitle(f"{APP_TITLE} — loading {names}")

    def _choose_capture(self, folder: Path, captures: list[Path], remember: bool) -> None:
        """Ask which of ``captures`` (under ``folder``) to open; headless, the first opens and the others are
        named."""
        if not self.interactive:
            self.open_paths([captures[0]], remember)
            self.show_message(CHOICE_TITLE, f"{choice_text(folder, captures)} Opened {captures[0]}; not opened: "
                              + ", ".join(str(c) for c in captures[1:]) + ".", warning=False)
            return
        if self.capture_choice is not None:
            self.capture_choice.close()
        self.capture_choice = CaptureChoice(folder, captures, self)
        self.capture_choice.chosen.connect(lambda capture: self.open_paths([capture], remember))
        self.capture_choice.open()

    def open_summary(self, folder: Path, remember: bool = True) -> None:
        """Open a folder written by ``timelineview summarize`` on the cluster tabs, read and analysed in the
        background: the comparison first, then the Diagnosis, Operators and Communication tabs."""
        if self.jobs.supersede(LOAD):  # a trace load: superseded, its late results ignored
            if self._partial_shown:  # its picture in progress goes with it
                self.timeline.set_cards([])
                self._partial_shown = False
            self.timeline.set_loading("")
        release_frozen()
        self._begin([Path(folder)], remember, forget=True)
        self.jobs.start(summary_job(Path(folder)), SUMMARY, opened=False)  # an earlier reading: superseded
        self.job_status.begin("Reading summary")
        self.setWindowTitle(f"{APP_TITLE} — reading the summary {Path(folder).name}")

    def _begin(self, paths: list[Path], remember: bool, forget: bool) -> None:
        """What every open does first: the paths kept (and remembered); with ``forget``, the status line's
        counts (findings, cards) of the data before go, the new data's come when it is read."""
        self.paths = paths
        if remember:
            self.recent.remember(paths)
        if forget:
            self.statusBar().clearMessage()
            self.counts_label.clear()  # back when the jobs end: the new data's, or the data kept on screen
            self.cluster.analysis.hide_status()

    @property
    def worker(self) -> JobHandle | None:
        """The running trace load, if any."""
        return self.jobs.running(LOAD)

    @property
    def summary_worker(self) -> JobHandle | None:
        """The running reading of a summary folder, if any."""
        return self.jobs.running(SUMMARY)

    def cancel_load(self) -> None:
        """Cancel: the trace load first, else the summary's reading."""
        if any(self.jobs.cancel(lane) for lane in (LOAD, SUMMARY)):
            self.job_status.cancelling()

    def wait_loaded(self, timeout_ms: int = 600_000) -> bool:
        """Block (processing events) until the current load and summary read end; for headless use and tests."""
        return self.jobs.wait((LOAD, SUMMARY), timeout_ms)

    # ------------------------------------------------------------------ the jobs' reports
    @QtCore.Slot(object, object)
    def _on_job_progress(self, job: JobHandle, progress: Progress) -> None:
        if job.lane == LOAD or self.jobs.running(LOAD) is None:  # a trace load's progress comes first
            self.job_status.show(progress)

    @QtCore.Slot(object, str, object)
    def _on_job_handed_over(self, job: JobHandle, kind: str, payload) -> None:
        if kind == OPENED:
            self._show_summary(job, payload)
        elif kind == PARTIAL and any(len(c.store.slices) for c in payload.cards) \
                and not self.cluster.card_trace_running:  # a summarised card's pyramid stays till its trace is there
            self.timeline.show_partial([c for c in payload.cards if c.drawable], payload.unloaded)
            self._partial_shown = True  # navigable while the rest arrives
        elif kind == ANALYSIS_FAILED:
            self._note_analysis_failure(payload)
        if job.lane == LOAD:
            self.cluster.load_reported(job, kind, payload)

    @QtCore.Slot(object, object)
    def _on_job_finished(self, job: JobHandle, result: LoadedRun | SummaryAnalysis) -> None:
        if job.lane == LOAD:
            self._show_loaded(job, result)
        elif self.cluster.shown is None or self.cluster.shown.session is not result.session:
            return  # another data set is on screen now
        elif result.error:
            self.cluster.analysis.clear(f"The analysis of the summary failed: {result.error}")
        else:
            self.cluster.analysis.show_data(self.cluster.shown)
            self.statusBar().showMessage(summary_status(result.session), STATUS_MS)

    @QtCore.Slot(object, object)
    def _on_job_failed(self, job: JobHandle, failure: Failure) -> None:
        self.show_message("Could not open", failure.text, failure.details)

    @QtCore.Slot(object)
    def _on_job_cancelled(self, job: JobHandle) -> None:
        self.statusBar().showMessage("Loading cancelled", CANCELLED_MS)

    @QtCore.Slot(object)
    def _on_job_ended(self, job: JobHandle) -> None:
        if job.lane == LOAD:
            if self._partial_shown and self.timeline.ctx.unloaded is not None:  # failed or cancelled: no half picture
                self.timeline.set_cards([])
            self._partial_shown = False
            self.timeline.set_loading("")
            self.cluster.load_ended(job)
            shown = bool(self.timeline.cards)
        else:
            shown = job.tags["opened"]
        if not self.jobs.busy:
            self.job_status.end()
            self.cluster.analysis.show_status()  # the tabs' counts of what they hold (the data before if failed)
            self.counts_label.setText(shown_counts(self.cluster.shown))
        self.setWindowTitle(self.cluster.shown.title if self.cluster.shown is not None else APP_TITLE)
        self.loadFinished.emit(shown)

    def _show_summary(self, job: JobHandle, session) -> None:
        """The comparison and the heat map of the summary; the analysis tabs wait for the rest."""
        job.tags["opened"] = True
        self.cluster.open_summary(session)
        self.cluster.analysis.clear(f"Analysing the summary of {len(session.cards)} cards…")
        self.counts_label.setText(shown_counts(self.cluster.shown))
        self.setWindowTitle(self.cluster.shown.title)
        failed = unsummarised_status(session)
        if failed:
            self.statusBar().showMessage(failed, STATUS_MS)

    def _show_loaded(self, job: JobHandle, run: LoadedRun) -> None:
        names = ", ".join(p.name for p in run.paths)
        outcome = load_outcome(run.cards, names, self.analysis_failures, run.session.clock_note)
        if outcome.shown:
            if not self.cluster.card_trace_running:  # a summarised card's trace: the cluster tab shows it (or not)
                self.timeline.set_cards(outcome.shown, keep_view=self._partial_shown)
            self.timeline.setFocus()
        elif outcome.clear:  # an empty capture: nothing on screen any more
            self.timeline.set_cards([])
            self.cluster.show_nothing()
        if outcome.status:
            self.statusBar().showMessage(outcome.status, STATUS_MS if outcome.shown else 0)
        self.cluster.load_finished(job, run)
        if outcome.message is not None:
            m = outcome.message
            self.show_message(m.title, m.text, m.details, m.warning)

    @QtCore.Slot(str)
    def _note_analysis_failure(self, text: str) -> None:
        """A part of the analysis failed (the load's, or a tab's): said in the status bar and the load report."""
        self.analysis_failures.append(text)
        self.statusBar().showMessage(f"{text} ({LOAD_REPORT_MENU})")

    # ------------------------------------------------------------------ messages
    @property
    def last_message(self) -> str:
        return self.messages.last

    @property
    def message(self) -> QtWidgets.QDialog | None:
        return self.messages.dialog

    def show_message(self, title: str, text: str, details: str = "", warning: bool = True) -> None:
        """A non-blocking message (the window stays usable); printed instead when headless."""
        self.messages.show(title, text, details, warning)

    def show_load_report(self) -> None:
        """Every remark of the data on screen (dropped events, truncation, overlaps, dangling flows), counts
        first; on a summary folder, its cards' saved reports or where they are printed."""
        shown = self.cluster.shown
        cards = self.cluster.all_cards or self.timeline.cards
        self.messages.show_report(shown.report(cards, self.analysis_failures) if shown is not None
                                  else trace_report(self.timeline.cards, self.analysis_failures))

    def show_shortcuts(self) -> None:
        if self.sheet is None:
            self.sheet = ShortcutSheet(self, self.cluster.tabs)
        self.sheet.show()
        self.sheet.raise_()

    # ------------------------------------------------------------------ events
    def showEvent(self, ev: QtGui.QShowEvent) -> None:
        super().showEvent(ev)
        if not self._docked:
            self._docked = True
            if self.settings.value("window_state") is None:
                self.resizeDocks([self.dock], [DOCK_HEIGHT], QtCore.Qt.Orientation.Vertical)

    def dragEnterEvent(self, ev: QtGui.QDragEnterEvent) -> None:
        if ev.mimeData().hasUrls():
            ev.acceptProposedAction()

    def dropEvent(self, ev: QtGui.QDropEvent) -> None:
        paths = opening.dropped_paths(ev)
        if paths:
            ev.acceptProposedAction()
            self.open_paths(paths)

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        """Navigation letters reach the timeline from any non-text widget of this window."""
        if ev.type() in (QtCore.QEvent.Type.KeyPress, QtCore.QEvent.Type.KeyRelease):
            focus = QtWidgets.QApplication.focusWidget()
            if (focus is not None and focus is not self.timeline and self.isAncestorOf(focus)
                    and not isinstance(focus, TEXT_INPUTS) and obj is focus
                    and ev.key() in NAV_KEYS and self.timeline.isVisible()
                    and not ev.modifiers() & ~QtCore.Qt.KeyboardModifier.ShiftModifier):
                if ev.type() == QtCore.QEvent.Type.KeyPress:
                    self.timeline.keyPressEvent(ev)
                else:
                    self.timeline.keyReleaseEvent(ev)
                return True
        return super().eventFilter(obj, ev)

    def changeEvent(self, ev: QtCore.QEvent) -> None:
        if ev.type() in (QtCore.QEvent.Type.PaletteChange, QtCore.QEvent.Type.ThemeChange):
            self.timeline.set_theme(system_is_dark())
        super().changeEvent(ev)

    def closeEvent(self, ev: QtGui.QCloseEvent) -> None:
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("window_state", self.saveState())
        self.jobs.shutdown()  # the jobs stop at their next cancel check
        QtWidgets.QApplication.instance().removeEventFilter(self)
        super().closeEvent(ev)
