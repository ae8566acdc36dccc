"""SummaryWorker: reads a summary folder (metrics.md §10) in a QThread and analyses it there.

First the index and every card's manifest (progress per card), the clock offsets and the comparison:
``opened`` — the comparison can show. Then every card's tables and the cluster-level results the
analysis tabs show (communication, operators across the cards, findings): ``analysed``. The GUI thread
only displays what the session computed.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
import traceback
from pathlib import Path

from PySide6 import QtCore

from timelineview.analysis.summaries.summary_session import SummarySession, UnreadableSummary, read_checked_index
from timelineview.views.worker_gc import off_gui_thread

PROGRESS_INTERVAL_S = 0.05  # ~20 updates a second are enough for a status line
SHOWN_WAIT_S = 30.0  # the longest the worker leaves the GUI alone to show the comparison
FREEZE_EVERY = 256  # cards read between two freezes of what was read (see keep_read_out_of_gc)
FAILED_SHOWN = 5  # failed cards named in a message

log = logging.getLogger(__name__)


class SummaryCancelled(Exception):
    """A newer open (or the window closing) stopped the reading."""


def failed_text(session: SummarySession) -> str:
    """The cards that could not be summarised (or read), one line each."""
    return "\n".join(f"{e.get('card', e.get('dir', '?'))}: {e.get('error') or e.get('status')}"
                     for e in session.failed)


class SummaryWorker(QtCore.QObject):
    """Reads and analyses one summary folder; never touches widgets. Signals in the order they come."""

    progress = QtCore.Signal(object, object)  # cards done, cards in all (of the current stage)
    stage = QtCore.Signal(str)  # e.g. "Reading summary: 1200 / 4096 cards"
    opened = QtCore.Signal(object)  # the SummarySession, its clock offsets and comparison computed
    analysed = QtCore.Signal(object, str)  # the same session, its tab results computed; the error or ""
    failed = QtCore.Signal(str, str)  # what went wrong, details
    cancelled = QtCore.Signal()
    done = QtCore.Signal()  # always last

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.cancel_event = threading.Event()
        # Set by the window once the comparison is on screen: until then the worker waits, since both
        # threads running Python share one interpreter lock (the GUI took twice as long beside it).
        self.comparison_shown = threading.Event()
        self._last = 0.0

    def cancel(self) -> None:
        self.cancel_event.set()
        self.comparison_shown.set()

    def _counter(self, what: str):
        """A progress callback that says ``what: done / total cards`` (throttled) and stops when cancelled."""
        def report(done: int, total: int) -> None:
            if self.cancel_event.is_set():
                raise SummaryCancelled()
            if done % FREEZE_EVERY == 0:
                keep_read_out_of_gc()
            now = time.monotonic()
            if now - self._last >= PROGRESS_INTERVAL_S or done >= total:
                self._last = now
                self.progress.emit(int(done), int(total))
                self.stage.emit(f"{what}: {done} / {total} cards")
        return report

    @QtCore.Slot()
    @off_gui_thread
    def run(self) -> None:
        try:
            session = self._open()
            if session is None:
                return
            self.opened.emit(session)
            self.comparison_shown.wait(SHOWN_WAIT_S)
            self._analyse(session)
        except SummaryCancelled:
            self.cancelled.emit()
        except Exception as exc:  # say so and keep the window up
            log.exception("reading the summary %s failed", self.folder)
            self.failed.emit(f"Reading the summary {self.folder.name} failed.",
                             f"{type(exc).__name__}: {exc}\n\n{traceback.format_exc(limit=5)}")
        finally:
            self.done.emit()

    def _open(self) -> SummarySession | None:
        self.stage.emit("Reading summary")
        try:
            index = read_checked_index(self.folder)
        except UnreadableSummary as exc:
            self.failed.emit(f"{exc}.", "")
            return None
        session = SummarySession(self.folder, index, progress=self._counter("Reading summary"), tolerant=True)
        keep_read_out_of_gc()
        if not session.cards:
            self.failed.emit(f"The summary {self.folder.name} holds no card that was summarised "
                             f"({len(session.failed)} failed).", failed_text(session))
            return None
        self.stage.emit("Comparing cards")
        session.comparison.rows(None)  # cached (with the clock offsets): the comparison view shows them first
        return session

    def _analyse(self, session: SummarySession) -> None:
        """The tables of every card, then what the tabs show; a failure here leaves the comparison open."""
        try:
            session.read_tables(self._counter("Reading operator and link tables"))
            keep_read_out_of_gc()
            self.stage.emit("Analysing summary: links, operators, findings")
            session.communication  # noqa: B018 - cached properties: computing them here is the point
            session.operators_across_all_cards  # noqa: B018
            session.findings  # noqa: B018
        except SummaryCancelled:
            raise
        except Exception as exc:
            log.exception("analysing the summary %s failed", self.folder)
            self.analysed.emit(session, f"{type(exc).__name__}: {exc}")
            return
        self.analysed.emit(session, "")


def keep_read_out_of_gc() -> None:
    """Keep every object alive now out of Python's cyclic collector: each full collection walking
    thousands of cards' records stopped every thread, the window too, for 0.4-0.9 s (four or five times
    while 4096 cards were read, and again later). They stay frozen while the summary is on screen (freed
    by reference counting as usual); :func:`release_frozen` gives them back at the next open."""
    gc.freeze()


def release_frozen() -> None:
    """Back into the cyclic collector (a new open: what the last summary froze may be garbage now)."""
    gc.unfreeze()


def start_summary(folder: Path) -> tuple[SummaryWorker, QtCore.QThread]:
    """A worker on its own thread, not started yet (connect first, then ``thread.start()``); stop it
    with ``load_worker.finish_load`` after ``done``, like a trace load."""
    thread = QtCore.QThread()
    worker = SummaryWorker(folder)
    worker.moveToThread(thread)
    thread.started.connect(worker.run)
    return worker, thread
