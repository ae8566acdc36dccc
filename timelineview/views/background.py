"""BackgroundCall: run a pure function as a job and get its result on the GUI thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore

from timelineview.views.jobs.job import Failure, Job
from timelineview.views.jobs.runner import JobHandle, JobRunner

CALL = "call"  # the lane of a background call: a new one supersedes the last


class BackgroundCall(QtCore.QObject):
    """Only the latest call's result is delivered (``ready``); earlier ones are dropped. A call that raised
    delivers a ``RuntimeError`` saying why, as its result: the GUI decides what to show."""

    ready = QtCore.Signal(object)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = JobRunner(self)
        self.jobs.finished.connect(lambda job, result: self.ready.emit(result))
        self.jobs.failed.connect(self._failed)

    def start(self, fn: Callable[[], Any]) -> None:
        self.jobs.start(Job("A background computation", lambda ctx: fn()), CALL)

    def cancel(self) -> None:
        self.jobs.supersede(CALL)  # a running call still finishes, but its result is ignored

    @QtCore.Slot(object, object)
    def _failed(self, job: JobHandle, failure: Failure) -> None:
        self.ready.emit(RuntimeError(failure.details or failure.text))
