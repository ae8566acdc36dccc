"""Cyclic garbage is collected on the GUI thread only, never in a worker.

Python's cyclic collector runs in whichever thread allocates past its threshold. When that is a worker (a
load, a comparison, a query) and the garbage holds Qt objects (the widgets of a closed dialog or a replaced
tab), their C++ destructors run in the worker while the GUI thread deletes other widgets; each then waits
for a lock the other holds (the GIL, Qt's signal-slot mutex) and the window hangs. While any worker runs,
automatic collection is paused; when the last one ends, the GUI thread collects and turns it back on.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable
from typing import TypeVar

from PySide6 import QtCore

F = TypeVar("F", bound=Callable)

_lock = threading.Lock()
_running = 0  # workers between pause and resume
_resume_needed = False  # collection was on when the first of them started


class _GuiThreadResume(QtCore.QObject):
    """Turns collection back on, on the thread it lives on: the application's."""

    due = QtCore.Signal()

    def __init__(self) -> None:
        super().__init__()
        self.due.connect(self._resume, QtCore.Qt.ConnectionType.QueuedConnection)

    @QtCore.Slot()
    def _resume(self) -> None:
        if _claim_resume():
            gc.collect()
            gc.enable()


def _claim_resume() -> bool:
    """True for the one caller that turns collection back on: it was paused and no worker runs (one that
    started meanwhile resumes when it ends)."""
    global _resume_needed
    with _lock:
        if _running or not _resume_needed:
            return False
        _resume_needed = False
        return True


_resumer: _GuiThreadResume | None = None


def _gui_resumer() -> _GuiThreadResume | None:
    global _resumer
    app = QtCore.QCoreApplication.instance()
    if app is None:
        return None
    if _resumer is None:
        _resumer = _GuiThreadResume()
        if _resumer.thread() is not app.thread():
            _resumer.moveToThread(app.thread())
    return _resumer


def pause() -> None:
    """A worker starts: automatic collection stops until every worker has ended."""
    global _running, _resume_needed
    with _lock:
        if _running == 0 and gc.isenabled():
            gc.disable()
            _resume_needed = True
        _running += 1


def end() -> None:
    """A worker ends: the last one asks the GUI thread to collect and turn collection back on (at once when
    there is no application, as in a script)."""
    global _running
    with _lock:
        _running -= 1
        last = _running == 0
    if not last:
        return
    resumer = _gui_resumer()
    if resumer is not None:
        resumer.due.emit()
    elif _claim_resume():
        gc.enable()


def off_gui_thread(run: F) -> F:
    """Decorate a worker's entry point: it runs with automatic collection paused (see the module)."""
    @functools.wraps(run)
    def guarded(*args, **kwargs):
        pause()
        try:
            return run(*args, **kwargs)
        finally:
            end()
    return guarded  # type: ignore[return-value]
