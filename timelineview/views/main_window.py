"""MainWindow: menus, opening (dialogs, drag and drop, recent files), loading, panels, status bar."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.summaries.summary_session import SummarySession, looks_like_summary
from timelineview.model.store.report import EMPTY_CAPTURE
from timelineview.terminal_text import terminal_safe
from timelineview.views.analysis_tabs.compare.open_menu import add_compare_menu
from timelineview.views.cluster.cluster_tab import ClusterTab
from timelineview.views.load_worker import LoadWorker, finish_abandoned, finish_load, start_load
from timelineview.views.panels.details_panel import DetailsPanel
from timelineview.views.panels.load_report import LoadReportDialog, summary_report, trace_report
from timelineview.views.search_bar import SearchBar
from timelineview.views.shortcut_sheet import ShortcutSheet
from timelineview.views.summary_worker import FAILED_SHOWN, SummaryWorker, release_frozen, start_summary
from timelineview.views.theme import system_is_dark
from timelineview.views.timeline.widget import TimelineWidget

MAX_RECENT = 10
DEFAULT_SIZE = QtCore.QSize(1400, 860)
SCREEN_SHARE = 0.9  # on a smaller screen the first window takes this much of it
DOCK_HEIGHT = 240
LOAD_REPORT_MENU = "File ▸ Load report…"  # where the status line sends the user for the details
TEXT_INPUTS = (QtWidgets.QLineEdit, QtWidgets.QTextEdit, QtWidgets.QPlainTextEdit,
               QtWidgets.QAbstractSpinBox)
NAV_KEYS = {QtCore.Qt.Key.Key_W, QtCore.Qt.Key.Key_A, QtCore.Qt.Key.Key_S, QtCore.Qt.Key.Key_D,
            QtCore.Qt.Key.Key_F, QtCore.Qt.Key.Key_M, QtCore.Qt.Key.Key_0, QtCore.Qt.Key.Key_Question}


def problems_text(cards, notes: bool = False) -> str:
    """Load report lines of the cards that lost data ('' when none did); ``notes``: any remark."""
    parts = []
    for c in cards:
        r = c.store.report
        lost = bool(r.error or r.truncated or r.dropped_events)
        if lost or (notes and r.summary()):
            parts.append(f"{c.title} ({', '.join(str(p) for p in c.store.paths) or 'no file'}):\n{r.summary()}")
    return "\n\n".join(parts)


def summary_title(session: SummarySession) -> str:
    """The window's title while a summary folder is open."""
    return f"timelineview — {session.folder.name} (summary of {len(session.cards)} cards)"


def default_size(available: QtCore.QSize) -> QtCore.QSize:
    """The first window's size: :data:`DEFAULT_SIZE`, shrunk to fit a smaller screen."""
    return QtCore.QSize(min(DEFAULT_SIZE.width(), int(available.width() * SCREEN_SHARE)),
                        min(DEFAULT_SIZE.height(), int(available.height() * SCREEN_SHARE)))


class MainWindow(QtWidgets.QMainWindow):
    """The viewer window. ``settings`` defaults to the user's QSettings (tests pass their own)."""

    loadFinished = QtCore.Signal(bool)  # True when cards were shown

    def __init__(self, settings: QtCore.QSettings | None = None, interactive: bool = True) -> None:
        super().__init__()
        self.settings = settings or QtCore.QSettings("timelineview", "timelineview")
        self.interactive = interactive  # False for --screenshot: no dialogs
        self.setWindowTitle("timelineview")
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
        self.cluster.analysis.failed.connect(self._on_analysis_failed)
        self.details = DetailsPanel(self.timeline)
        self.dock = QtWidgets.QDockWidget("Details", self)
        self.dock.setObjectName("details")
        self.dock.setWidget(self.details)
        self.dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                              | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(QtCore.Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self._docked = False
        self._build_status_bar()
        self._build_menus()
        self.sheet: ShortcutSheet | None = None
        self.message: QtWidgets.QDialog | None = None  # one message or report open at a time
        self.last_message = ""
        self.worker: LoadWorker | None = None
        self.thread: QtCore.QThread | None = None
        # a summary folder read in the background (metrics.md §10); it may run beside the load of one of
        # its cards' traces, so it has its own pair
        self.summary_worker: SummaryWorker | None = None
        self.summary_thread: QtCore.QThread | None = None
        self._summary_opened = False  # the running summary read has shown its comparison
        self.paths: list[Path] = []
        self._abandoned: list[tuple[LoadWorker, QtCore.QThread]] = []
        self._partial_shown = False  # the running load's picture in progress is on the timeline
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

    # ------------------------------------------------------------------ building
    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.cursor_label = QtWidgets.QLabel()
        self.cursor_label.setMinimumWidth(200)
        self.cursor_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                        QtWidgets.QSizePolicy.Policy.Preferred)
        sb.addWidget(self.cursor_label, 1)
        self.stage_label = QtWidgets.QLabel()
        self.progress = QtWidgets.QProgressBar()
        self.progress.setFixedWidth(220)
        self.progress.setRange(0, 1000)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_load)
        for w in (self.stage_label, self.progress, self.cancel_button):
            sb.addPermanentWidget(w)
            w.hide()

    def _build_menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        self._action(m, "&Open file…", "Ctrl+O", self.open_file_dialog)
        self._action(m, "Open &folder…", "Ctrl+Shift+O", self.open_folder_dialog)
        self.recent_menu = m.addMenu("Open &recent")
        self._fill_recent()
        add_compare_menu(self, m)  # a second run compared with this one
        m.addSeparator()
        self._action(m, "Open &sample cluster", None, self.open_sample)
        self._action(m, "Load &report…", None, self.show_load_report)
        m.addSeparator()
        self._action(m, "&Quit", "Ctrl+Q", self.close)
        v = self.menuBar().addMenu("&View")
        self._action(v, "&Find…", "Ctrl+F", self.search.open_search)
        self._action(v, "Show &all  (0)", None, self.timeline.show_all)
        self._action(v, "&Fit selection  (F)", None, self.timeline.fit_selection)
        self._action(v, "&Undo zoom/pan  (Backspace)", None, self.timeline.undo_view)
        v.addSeparator()
        self._action(v, "&Collapse all processes", None, lambda: self._set_all_collapsed(True))
        self._action(v, "&Expand all", None, lambda: self._set_all_collapsed(False))
        self.align_action = self._action(v, "Align card &clocks", None, self._toggle_alignment)
        self.align_action.setCheckable(True)
        self.align_action.setChecked(True)
        self.align_action.setToolTip("Shift each card by its clock offset estimated from collective ends")
        self.plane_colour_action = self._action(v, "Colour HCCL plane tasks by &transport / link type", None,
                                                self._toggle_plane_colours)
        self.plane_colour_action.setCheckable(True)
        v.addSeparator()
        v.addAction(self.dock.toggleViewAction())
        h = self.menuBar().addMenu("&Help")
        self._action(h, "&Keyboard and mouse  (?)", None, self.show_shortcuts)

    def _action(self, menu: QtWidgets.QMenu, text: str, shortcut: str | None, slot) -> QtGui.QAction:
        a = QtGui.QAction(text, self)
        if shortcut:
            a.setShortcut(QtGui.QKeySequence(shortcut))
        a.triggered.connect(lambda *_: slot())
        menu.addAction(a)
        return a

    def _toggle_alignment(self) -> None:
        on = self.align_action.isChecked()
        self.timeline.set_card_offsets({c.number: c.estimated_offset_ns if on else 0 for c in self.timeline.cards})

    def _toggle_plane_colours(self) -> None:
        self.timeline.set_plane_colours(self.plane_colour_action.isChecked())

    def _set_all_collapsed(self, collapsed: bool) -> None:
        self.timeline.collapse_all(collapsed)

    # ------------------------------------------------------------------ opening
    def open_file_dialog(self) -> None:
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(
            self, "Open trace files", self._last_dir(), "Traces (*.json *.json.gz *.db);;All files (*)")
        if paths:
            self.open_paths([Path(p) for p in paths])

    def open_folder_dialog(self) -> None:
        path = QtWidgets.QFileDialog.getExistingDirectory(self, "Open a profiler folder", self._last_dir())
        if path:
            self.open_paths([Path(path)])

    def _last_dir(self) -> str:
        recent = self.recent_paths()
        return str(Path(recent[0]).parent) if recent else str(Path.home())

    def open_sample(self) -> bool:
        """Open the bundled sample cluster (what the app shows when started without a path)."""
        from timelineview.views.resources import sample_cluster_path

        path = sample_cluster_path()
        if path is None:
            self.show_message("No bundled sample", "The sample cluster (resources/sample_cluster) is not "
                              "installed. Open a trace with File ▸ Open (Ctrl+O) or drop one here.",
                              warning=False)
            return False
        self.open_paths([path], remember=False)
        return True

    def open_paths(self, paths: list[Path], remember: bool = True) -> None:
        """Load ``paths`` (files or folders, one trace) in the background."""
        if len(paths) == 1 and looks_like_summary(paths[0]):  # metrics.md §10: summaries, no trace to load
            self.open_summary(Path(paths[0]), remember)
            return
        release_frozen()  # what a summary kept from the cyclic collector may be garbage from now on
        self._abandon_load()  # the running load's late results are ignored
        if not self._summary_opened:  # a summary not on screen yet would replace these traces when read
            self._abandon_summary()
        self.paths = [Path(p) for p in paths]
        if remember:
            self._remember(self.paths)
        if not self.cluster.loading_card_trace:
            self._forget_counts()
        self.worker, self.thread = start_load(self.paths)
        self.analysis_failures = []
        self.worker.analysisFailed.connect(self._on_analysis_failed)
        self.worker.progress.connect(self._on_progress)
        self.worker.stage.connect(self._on_stage)
        self.worker.loaded.connect(self._on_loaded)
        self.worker.partialLoaded.connect(self._on_partial)
        self._partial_shown = False
        self.worker.failed.connect(self._on_failed)
        self.worker.cancelled.connect(self._on_cancelled)
        self.worker.done.connect(self._on_done)
        self.cluster.watch(self.worker)
        self.thread.start()  # every slot connected: no signal of this load is missed
        self.progress.setValue(0)
        for w in (self.stage_label, self.progress, self.cancel_button):
            w.show()
        self.stage_label.setText("Reading")
        names = ", ".join(p.name for p in self.paths)
        self.timeline.set_loading(names)
        self.setWindowTitle(f"timelineview — loading {names}")

    def open_summary(self, folder: Path, remember: bool = True) -> None:
        """Open a folder written by ``timelineview summarize`` on the cluster tabs, read and analysed in the
        background: the comparison first, then the Diagnosis, Operators and Communication tabs."""
        if self._abandon_load():  # a trace load: superseded, its late results ignored
            if self._partial_shown:  # its picture in progress goes with it
                self.timeline.set_cards([])
                self._partial_shown = False
            self.timeline.set_loading("")
        self._abandon_summary()  # an earlier summary read likewise
        release_frozen()
        self._forget_counts()
        self.paths = [Path(folder)]
        if remember:
            self._remember(self.paths)
        self.summary_worker, self.summary_thread = start_summary(Path(folder))
        w = self.summary_worker
        w.progress.connect(self._on_summary_progress)
        w.stage.connect(self._on_summary_stage)
        w.opened.connect(self._on_summary_opened)
        w.analysed.connect(self._on_summary_analysed)
        w.failed.connect(self._on_summary_failed)
        w.cancelled.connect(self._on_cancelled)
        w.done.connect(self._on_done)
        self._summary_opened = False
        self.summary_thread.start()  # every slot connected
        self.progress.setValue(0)
        for widget in (self.stage_label, self.progress, self.cancel_button):
            widget.show()
        self.stage_label.setText("Reading summary")
        self.setWindowTitle(f"timelineview — reading the summary {folder.name}")

    def _forget_counts(self) -> None:
        """A load that replaces what is on screen began: the status line's counts (findings, cards) of the
        data before go; the new data's come when it is read."""
        self.statusBar().clearMessage()
        self.cluster.analysis.hide_status()

    def _abandon_load(self) -> bool:
        """Stop the running trace load, if any (True); its late results are ignored."""
        if self.worker is None:
            return False
        self.worker.cancel()
        self._abandoned.append((self.worker, self.thread))
        self.worker = self.thread = None
        return True

    def _abandon_summary(self) -> None:
        """Stop the running summary read; its late results are ignored."""
        if self.summary_worker is not None:
            self.summary_worker.cancel()
            self._abandoned.append((self.summary_worker, self.summary_thread))
            self.summary_worker = self.summary_thread = None
        self._summary_opened = False

    def _from_current_summary(self) -> bool:
        sender = self.sender()
        return sender is not None and sender is self.summary_worker

    @QtCore.Slot(object, object)
    def _on_summary_progress(self, done: int, total: int) -> None:
        if self._from_current_summary() and self.worker is None:  # a trace load's progress comes first
            self.progress.setValue(int(1000 * done / total) if total else 0)

    @QtCore.Slot(str)
    def _on_summary_stage(self, text: str) -> None:
        if self._from_current_summary() and self.worker is None:
            self.stage_label.setText(text)

    @QtCore.Slot(object)
    def _on_summary_opened(self, session: SummarySession) -> None:
        """The comparison and the heat map of the summary; the analysis tabs wait for the rest."""
        if not self._from_current_summary():
            return
        self._summary_opened = True
        self.cluster.open_summary(session)
        self.summary_worker.comparison_shown.set()  # the worker goes on with the tabs' analysis
        self.cluster.analysis.clear(f"Analysing the summary of {len(session.cards)} cards…")
        self.setWindowTitle(summary_title(session))
        if session.failed:
            self.statusBar().showMessage(f"{len(session.failed)} card(s) could not be summarised: "
                                         + ", ".join(str(e.get("card")) for e in session.failed[:FAILED_SHOWN]), 10000)

    @QtCore.Slot(object, str)
    def _on_summary_analysed(self, session: SummarySession, error: str) -> None:
        """The analysis tabs, while this summary is still the one on screen."""
        if not self._from_current_summary() or self.cluster.summary is not session:
            return
        if error:
            self.cluster.analysis.clear(f"The analysis of the summary failed: {error}")
            return
        self.cluster.analysis.show_summary(session)
        n = len(session.findings)
        text = f"{len(session.cards)} summarised card(s), {n} finding{'s' if n != 1 else ''}"
        if session.failed:
            text += f"  ·  {len(session.failed)} card(s) could not be summarised"
        if session.stamps:  # made by another version or code: their numbers may differ from this one's
            text += f"  ·  {len(session.stamps)} card(s) summarised by another timelineview (summarize again)"
        self.statusBar().showMessage(text, 10000)

    @QtCore.Slot(str, str)
    def _on_summary_failed(self, text: str, details: str) -> None:
        if self._from_current_summary():
            self.show_message("Could not open", text, details)

    def cancel_load(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.stage_label.setText("Cancelling…")
        elif self.summary_worker is not None:
            self.summary_worker.cancel()
            self.stage_label.setText("Cancelling…")

    def wait_loaded(self, timeout_ms: int = 600_000) -> bool:
        """Block (processing events) until the current load and summary read end; for headless use and tests."""
        if self.thread is None and self.summary_thread is None:
            return True
        loop = QtCore.QEventLoop()
        self.loadFinished.connect(loop.quit)
        timer = QtCore.QElapsedTimer()
        timer.start()
        while (self.worker is not None or self.summary_worker is not None) and timer.elapsed() < timeout_ms:
            QtCore.QTimer.singleShot(max(timeout_ms - timer.elapsed(), 0), loop.quit)
            loop.exec()
        self.loadFinished.disconnect(loop.quit)
        return self.worker is None and self.summary_worker is None

    def _from_current_load(self) -> bool:
        """Whether the signal being handled comes from the running load (not a superseded one, nor
        one the window dropped when it closed: then both are None)."""
        sender = self.sender()
        return sender is not None and sender is self.worker

    @QtCore.Slot(object, object)
    def _on_progress(self, done: int, total: int) -> None:
        if not self._from_current_load():
            return
        self.progress.setValue(int(1000 * done / total) if total else 0)

    @QtCore.Slot(str)
    def _on_stage(self, text: str) -> None:
        if not self._from_current_load():
            return
        self.stage_label.setText(text)
        if text.startswith("Analysing"):
            self.progress.setValue(1000)

    @QtCore.Slot(object, object)
    def _on_partial(self, cards, unloaded) -> None:
        """What the load has so far, on the timeline: navigable while the rest arrives."""
        if not self._from_current_load() or not any(len(c.store.slices) for c in cards):
            return
        if self.cluster.card_trace_running:  # a summarised card's trace: its pyramid stays till the trace is there
            return
        self.timeline.show_partial([c for c in cards if c.drawable], unloaded)
        self._partial_shown = True

    @QtCore.Slot(object)
    def _on_loaded(self, cards) -> None:
        if not self._from_current_load():
            return
        shown = [c for c in cards if c.drawable]
        problems = problems_text(cards)
        names = ", ".join(p.name for p in self.paths)
        if not shown and cards and all(c.store.report.read_whole_capture for c in cards):  # valid, and empty
            self.timeline.set_cards([])
            self.setWindowTitle(f"timelineview — {names}")
            self.statusBar().showMessage(f"{names}: {EMPTY_CAPTURE}")
            self.show_message("Empty capture", f"{names} was read whole: {EMPTY_CAPTURE}.", warning=False)
            return
        if not shown:
            self.show_message("Nothing to show", f"No slices could be read from {names}.", problems)
            return
        if not self.cluster.card_trace_running:  # a summarised card's trace: the cluster tab shows it (or not)
            self.timeline.set_cards(shown, keep_view=self._partial_shown)
        self.timeline.setFocus()
        total = sum(len(c.store.slices) for c in shown)
        self.setWindowTitle(f"timelineview — {names}")
        status = f"{len(shown)} card(s), {total:,} slices".replace(",", " ")
        errors = [c.analysis_error for c in shown if c.analysis_error]
        if errors:
            status += f"  ·  {errors[0]}"
        if self.analysis_failures:
            status += f"  ·  {self.analysis_failures[0]} ({LOAD_REPORT_MENU})"
        if problems:
            self.show_message("Loaded with problems", f"{names} was only partly readable; what "
                              "could be read is shown.", problems)
        elif problems_text(shown, notes=True):
            status += f"  ·  the loader left remarks: {LOAD_REPORT_MENU}"
        self.statusBar().showMessage(status, 10000)

    @QtCore.Slot(str)
    def _on_analysis_failed(self, text: str) -> None:
        """A part of the analysis failed (the worker's, or a tab's): said in the status bar and the load report."""
        if self.sender() is not self.worker and self.sender() is not self.cluster.analysis:
            return  # an abandoned load's
        self.analysis_failures.append(text)
        self.statusBar().showMessage(f"{text} ({LOAD_REPORT_MENU})")

    @QtCore.Slot(str)
    def _on_failed(self, text: str) -> None:
        if not self._from_current_load():
            return
        self.show_message("Could not open", f"Loading {', '.join(p.name for p in self.paths)} failed.", text)

    @QtCore.Slot()
    def _on_cancelled(self) -> None:
        if self._from_current_load() or self._from_current_summary():
            self.statusBar().showMessage("Loading cancelled", 5000)

    @QtCore.Slot()
    def _on_done(self) -> None:
        sender = self.sender()
        if finish_abandoned(self._abandoned, sender):
            return
        if sender is not None and sender is self.summary_worker:
            self._summary_done()
            return
        if sender is None or sender is not self.worker:  # None: a load the closed window dropped
            return
        if self._partial_shown and self.timeline.ctx.unloaded is not None:  # failed or cancelled: no half picture
            self.timeline.set_cards([])
        self._partial_shown = False
        finish_load(self.thread)
        self.worker = None
        self.thread = None
        self.timeline.set_loading("")
        self._loading_ended()
        self.loadFinished.emit(bool(self.timeline.cards))

    def _summary_done(self) -> None:
        finish_load(self.summary_thread)
        opened = self._summary_opened
        self.summary_worker = self.summary_thread = None
        self._summary_opened = False
        if not opened and self.cluster.summary is not None:  # a failed read: the summary shown before stays
            self.setWindowTitle(summary_title(self.cluster.summary))
        self._loading_ended()
        self.loadFinished.emit(opened)

    def _loading_ended(self) -> None:
        """Hide the progress once nothing is read any more; the plain title when nothing is shown; the
        tabs' counts of what they hold (the data before, when the load failed or was cancelled)."""
        if self.worker is None and self.summary_worker is None:
            for w in (self.stage_label, self.progress, self.cancel_button):
                w.hide()
            self.cluster.analysis.show_status()
        if not self.timeline.cards and self.cluster.summary is None:
            self.setWindowTitle("timelineview")

    def _printed(self, message: str) -> bool:
        """Keep ``message`` as the last one; headless, print it instead of showing it (True)."""
        self.last_message = message
        if not self.interactive:
            print(terminal_safe(message, lines=True), file=sys.stderr)  # names and paths from the traces
        return not self.interactive

    def show_message(self, title: str, text: str, details: str = "", warning: bool = True) -> None:
        """A non-blocking message (the window stays usable); printed instead when headless."""
        if self._printed(f"{title}: {text}\n{details}".strip()):
            return
        icon = QtWidgets.QMessageBox.Icon.Warning if warning else QtWidgets.QMessageBox.Icon.Information
        self._close_message()
        box = QtWidgets.QMessageBox(icon, title, text, QtWidgets.QMessageBox.StandardButton.Ok, self)
        if details:
            box.setDetailedText(details)
        box.setModal(False)
        box.show()
        self.message = box

    def _close_message(self) -> None:
        """One dialog at a time: a new message or report replaces the one open."""
        if self.message is not None:
            self.message.close()
            self.message.deleteLater()
            self.message = None

    def show_load_report(self) -> None:
        """Every remark of the last load (dropped events, truncation, overlaps, dangling flows), counts first;
        on a summary folder, its cards' saved reports or where they are printed."""
        if self.cluster.summary is not None:
            report = summary_report(self.cluster.summary, self.cluster.all_cards)
        else:
            report = trace_report(self.timeline.cards, self.analysis_failures)
        if self._printed(f"Load report: {report.headline}\n{report.body}".strip()):
            return
        self._close_message()
        self.message = LoadReportDialog(report, self)
        self.message.show()

    def showEvent(self, ev: QtGui.QShowEvent) -> None:
        super().showEvent(ev)
        if not self._docked:
            self._docked = True
            if self.settings.value("window_state") is None:
                self.resizeDocks([self.dock], [DOCK_HEIGHT], QtCore.Qt.Orientation.Vertical)

    # ------------------------------------------------------------------ recent files
    def recent_paths(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _remember(self, paths: list[Path]) -> None:
        recent = self.recent_paths()
        for p in reversed(paths):
            s = str(Path(p).resolve())
            if s in recent:
                recent.remove(s)
            recent.insert(0, s)
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_paths()
        for p in recent:
            a = self.recent_menu.addAction(p)
            a.triggered.connect(lambda *_, p=p: self.open_paths([Path(p)]))
        self.recent_menu.setEnabled(bool(recent))

    # ------------------------------------------------------------------ events
    def show_shortcuts(self) -> None:
        if self.sheet is None:
            self.sheet = ShortcutSheet(self, self.cluster.tabs)
        self.sheet.show()
        self.sheet.raise_()

    def dragEnterEvent(self, ev: QtGui.QDragEnterEvent) -> None:
        if ev.mimeData().hasUrls():
            ev.acceptProposedAction()

    def dropEvent(self, ev: QtGui.QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in ev.mimeData().urls() if u.isLocalFile()]
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
        self._abandon_load()
        self._abandon_summary()
        for worker, thread in self._abandoned:  # loads stop at their next cancel check
            worker.cancel()
            finish_load(thread)
        self._abandoned.clear()
        QtWidgets.QApplication.instance().removeEventFilter(self)
        super().closeEvent(ev)
