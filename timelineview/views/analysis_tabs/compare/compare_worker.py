"""CompareWorker: loads the comparison run like the main load and compares it with the base run's
session, off the GUI thread."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6 import QtCore

from timelineview.analysis.diff.run_diff import diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.views.load_worker import LoadWorker


class NothingReadable(Exception):
    """The comparison run holds no slice."""


class CompareWorker(LoadWorker):
    """The main load's worker (same loader, same ``AnalysisSession``), whose last stage compares the
    run with ``base`` instead of diagnosing it: ``diffed`` carries the ``RunDiff`` (or None with
    ``diff_error`` set) just before ``analysed`` and ``loaded``."""

    diffed = QtCore.Signal(object)  # RunDiff | None

    def __init__(self, paths: list[Path], base: AnalysisSession, cache: bool = True) -> None:
        super().__init__(paths, cache)
        self.base = base
        self.diff = None  # RunDiff, set before ``diffed``, ``analysed`` and ``loaded``
        self.diff_error = ""

    def _compare(self, session: AnalysisSession) -> None:
        pass  # the new run's own cluster comparison is not shown

    def _diagnose(self, session: AnalysisSession) -> None:
        self.stage.emit("Comparing runs")
        try:
            if not any(len(s.slices) for s in session.stores):  # a comparison is of slices
                raise NothingReadable("; ".join(s.report.error or f"{s.card}: no slices" for s in session.stores)
                                      or "no trace found")
            diff = diff_runs(self.base, session)
        except NothingReadable as exc:
            diff = None
            self.diff_error = f"nothing readable in the new run ({exc})"
        except Exception as exc:  # the new run still opens on the timeline; the tab says why
            logging.getLogger(__name__).exception("comparing the runs failed")
            diff = None
            self.diff_error = f"{type(exc).__name__}: {exc}"
        self.diff = diff
        self.diffed.emit(diff)
        self.analysed.emit(session)


def start_compare(paths: list[Path], base: AnalysisSession) -> tuple[CompareWorker, QtCore.QThread]:
    """A compare worker on its own thread, started; the caller keeps both until ``done`` (then
    ``load_worker.finish_load``), as for the main load."""
    thread = QtCore.QThread()
    worker = CompareWorker(paths, base)
    worker.moveToThread(thread)
    thread.started.connect(worker.run)
    thread.start()
    return worker, thread
