"""BackgroundCall: run a pure function on the thread pool and get its result on the GUI thread."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore

from timelineview.views.worker_gc import off_gui_thread


class _Job(QtCore.QRunnable):
    def __init__(self, owner: BackgroundCall, token: int, fn: Callable[[], Any]) -> None:
        super().__init__()
        self.owner, self.token, self.fn = owner, token, fn

    @off_gui_thread
    def run(self) -> None:
        try:
            result = self.fn()
        except Exception as exc:  # delivered as the result: the GUI decides what to show
            result = RuntimeError(f"{exc}\n{traceback.format_exc(limit=3)}")
        self.owner.finished.emit(self.token, result)


class BackgroundCall(QtCore.QObject):
    """Only the latest call's result is delivered (``ready``); earlier ones are dropped."""

    finished = QtCore.Signal(int, object)  # internal: emitted from the pool thread
    ready = QtCore.Signal(object)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._token = 0
        self.finished.connect(self._deliver, QtCore.Qt.ConnectionType.QueuedConnection)

    def start(self, fn: Callable[[], Any]) -> None:
        self._token += 1
        QtCore.QThreadPool.globalInstance().start(_Job(self, self._token, fn))

    def cancel(self) -> None:
        self._token += 1  # a running job still finishes, but its result is ignored

    @QtCore.Slot(int, object)
    def _deliver(self, token: int, result: object) -> None:
        if token == self._token:
            self.ready.emit(result)
