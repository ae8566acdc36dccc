"""LoadWorker: finds, loads and analyses traces in a QThread, reporting progress by signals.

Cards are found once (the progress list and the loader get the same list) and analysed once,
in one ``AnalysisSession`` whose results the views show.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from pathlib import Path

from PySide6 import QtCore

from timelineview.analysis.card_analysis import CardAnalysis
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.analysis.session import AnalysisSession
from timelineview.model.load.partial_load import PartialLoad
from timelineview.views.worker_gc import off_gui_thread
from timelineview.viewstate.card_view import align_clocks, prepare_card

PROGRESS_INTERVAL_S = 0.05  # the loader may call back very often; the GUI needs ~20 updates/s
log = logging.getLogger(__name__)
COMPARISON_FAILED = "the comparison of the cards failed"  # how analysisFailed begins when it is that


class LoadWorker(QtCore.QObject):
    """Runs ``model.load`` then the per-card analysis; never touches widgets."""

    progress = QtCore.Signal(object, object)  # done bytes, total bytes (may exceed 2**31)
    stage = QtCore.Signal(str)
    loaded = QtCore.Signal(object)  # list[CardView]
    failed = QtCore.Signal(str)
    cancelled = QtCore.Signal()
    done = QtCore.Signal()  # always last
    cardsFound = QtCore.Signal(object)  # card names, in the order of cardProgress indices
    cardProgress = QtCore.Signal(int, object, object)  # card index, done bytes, total bytes of that card
    compared = QtCore.Signal(object)  # analysis ClusterComparison, emitted just before ``loaded``
    analysed = QtCore.Signal(object)  # the AnalysisSession, its findings computed, just before ``loaded``
    # a picture of the load in progress: list[CardView] of what is decoded so far (not
    # analysed), and the model's UnloadedSpan (or None); ``loaded`` replaces it
    partialLoaded = QtCore.Signal(object, object)
    # a part of the analysis that failed, in one line ("the diagnosis failed: …"); the load still shows
    analysisFailed = QtCore.Signal(str)

    def __init__(self, paths: list[Path], cache: bool = True) -> None:
        super().__init__()
        self.paths = [Path(p) for p in paths]
        self.cache = cache  # cards re-open from memory-mapped columns while their files are unchanged
        self.cancel_event = threading.Event()
        self._last = 0.0
        self._card_last: dict[int, float] = {}

    def cancel(self) -> None:
        self.cancel_event.set()

    def _progress(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last >= PROGRESS_INTERVAL_S or done >= total:
            self._last = now
            self.progress.emit(int(done), int(total))

    def _card_progress(self, card: int, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._card_last.get(card, 0.0) >= PROGRESS_INTERVAL_S or done >= total:
            self._card_last[card] = now
            self.cardProgress.emit(int(card), int(done), int(total))

    def _partial(self, part: PartialLoad) -> None:
        """Views of what is decoded so far: the slices alone (analysing a part would be wasted)."""
        cards = [prepare_card(store, i, analysis=CardAnalysis.of(store, i, DEFAULT_MIN_GAP_NS))
                 for i, store in enumerate(part.stores)]
        self.partialLoaded.emit(cards, part.unloaded())

    @QtCore.Slot()
    @off_gui_thread
    def run(self) -> None:
        from timelineview.model import LoadCancelled, load_cards
        from timelineview.model.load.loader import card_sources

        try:
            self.stage.emit("Reading")
            sources = card_sources(self.paths)
            self.cardsFound.emit([s.label for s in sources])
            stores = load_cards(sources, progress=self._progress, cancel=self.cancel_event,
                                card_progress=self._card_progress, cache=self.cache, note=self.stage.emit,
                                partial=self._partial)
            session = AnalysisSession(stores, tolerant=True)
            cards = []
            for i, store in enumerate(stores):
                if self.cancel_event.is_set():
                    raise LoadCancelled()
                self.stage.emit(f"Analysing {store.card}")
                cards.append(prepare_card(store, i, analysis=session.analyse(i)))
            self.stage.emit("Aligning clocks")
            align_clocks(cards, session.clock_offsets_ns)
            self._compare(session)
            self._diagnose(session)
            self.loaded.emit(cards)
        except LoadCancelled:
            self.cancelled.emit()
        except Exception as exc:  # the loader should not raise; if it does, say so and stay up
            log.exception("loading %s failed", ", ".join(map(str, self.paths)))
            self.failed.emit(f"{type(exc).__name__}: {exc}\n\n{traceback.format_exc(limit=5)}")
        finally:
            self.done.emit()

    def _diagnose(self, session: AnalysisSession) -> None:
        self.stage.emit("Diagnosing")
        try:
            _diagnose_session(session)
        except Exception as exc:  # the tabs are extra: the timeline and the comparison still open, and say why
            log.exception("the diagnosis failed")
            self.analysisFailed.emit(f"the diagnosis failed: {type(exc).__name__}: {exc}")
        self.analysed.emit(session)

    def _compare(self, session: AnalysisSession) -> None:
        self.stage.emit("Comparing cards")
        try:
            self.compared.emit(session.comparison)
        except Exception as exc:  # the comparison is extra: the timeline still opens without it
            log.exception(COMPARISON_FAILED)
            self.analysisFailed.emit(f"{COMPARISON_FAILED}: {type(exc).__name__}: {exc}")
            self.compared.emit(None)


def _diagnose_session(session: AnalysisSession) -> None:
    """Compute here, off the GUI thread, what the analysis tabs show (findings read the operators and
    the communication of every card)."""
    session.findings  # noqa: B018 - a cached property: computing it is the point


def start_load(paths: list[Path]) -> tuple[LoadWorker, QtCore.QThread]:
    """A worker on its own thread, not started yet: the caller connects to its signals, then
    calls ``thread.start()`` (a worker started first could emit its first signals, such as
    ``cardsFound``, before anyone listens). Both are owned by Python (no Qt parent, no
    deleteLater): the caller keeps them until ``done``, then calls :func:`finish_load`."""
    thread = QtCore.QThread()
    worker = LoadWorker(paths)
    worker.moveToThread(thread)
    thread.started.connect(worker.run)
    return worker, thread


def finish_load(thread: QtCore.QThread) -> None:
    """Stop the (idle) worker thread and wait for it, so both objects can be dropped safely."""
    thread.quit()
    thread.wait()


def finish_abandoned(abandoned: list, sender) -> bool:
    """If ``sender`` is the worker of an abandoned (worker, thread) pair, stop that thread and forget the
    pair; True when it was one."""
    for pair in list(abandoned):
        if pair[0] is sender:
            finish_load(pair[1])
            abandoned.remove(pair)
            return True
    return False
