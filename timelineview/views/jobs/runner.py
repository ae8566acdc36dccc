"""JobRunner: runs :class:`Job` s on worker threads and delivers what they report on the GUI thread.

Jobs run in lanes: starting a job supersedes the one running in its lane (it is cancelled and whatever it
still reports is dropped); jobs of different lanes run side by side. Only the current job of a lane is
heard: its progress, its hand-overs, then ``finished`` (the result), ``failed`` (a message for the user)
or ``cancelled``, and ``ended`` last. Automatic garbage collection pauses while any job runs (see
``worker_gc``).
"""

from __future__ import annotations

import functools
import logging
import threading
import traceback
from dataclasses import dataclass, field

from PySide6 import QtCore

from timelineview.views.jobs.job import Failure, Job, JobCancelled, JobContext, JobFailed
from timelineview.views.worker_gc import off_gui_thread

log = logging.getLogger(__name__)
TRACEBACK_DEPTH = 5  # frames in the details of an unexpected failure
MAX_JOB_THREADS = 16  # jobs running at once (loads, summaries, comparisons, background calls, superseded ones)
RESULT, FAILED, CANCELLED, ENDED, PROGRESS = "result", "failed", "cancelled", "ended", "progress"


@dataclass(eq=False)
class JobHandle:
    """A started job: its lane, its context (cancel flag); ``superseded`` once a newer job took its lane
    (nothing it reports is delivered any more); ``done`` is set once its work has returned on its thread."""

    job: Job
    lane: str
    context: JobContext = field(default_factory=lambda: JobContext(lambda kind, payload: None))
    superseded: bool = False
    ended: bool = False
    outcome: str = ""  # RESULT, FAILED or CANCELLED once ended
    tags: dict = field(default_factory=dict)  # what the starter wants to know of it later
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def running(self) -> bool:
        return not self.ended

    def cancel(self) -> None:
        """Ask the job to stop at its next check; a hand-over it waits on is released."""
        self.context.cancel_event.set()
        self.context.handed.set()


def _pool() -> QtCore.QThreadPool:
    """The jobs' threads: a pool of their own, so that a superseded job still finishing never holds a new one
    back (the global pool has as many threads as cores)."""
    global _job_pool
    if _job_pool is None:
        _job_pool = QtCore.QThreadPool()
        _job_pool.setMaxThreadCount(MAX_JOB_THREADS)
    return _job_pool


_job_pool: QtCore.QThreadPool | None = None


class _JobRun(QtCore.QRunnable):
    """One job's run on a pool thread; what it reports goes to ``deliver`` (kind, payload)."""

    def __init__(self, handle: JobHandle) -> None:
        super().__init__()
        self.handle = handle

    @off_gui_thread
    def run(self) -> None:
        handle = self.handle
        deliver = handle.context.deliver
        try:
            handle.context.check()  # superseded before it started: nothing to do
            deliver(RESULT, handle.job.work(handle.context))
        except JobCancelled:
            deliver(CANCELLED, None)
        except JobFailed as exc:
            deliver(FAILED, Failure(exc.text, exc.details))
        except Exception as exc:  # a defect: the window says so and stays up
            log.exception("%s failed", handle.job.name)
            details = f"{type(exc).__name__}: {exc}\n\n{traceback.format_exc(limit=TRACEBACK_DEPTH)}"
            deliver(FAILED, Failure(f"{handle.job.name} failed.", details))
        finally:
            deliver(ENDED, None)
            handle.done.set()


class JobRunner(QtCore.QObject):
    """Starts jobs and delivers their reports, on the thread this object lives on (the GUI's)."""

    progressed = QtCore.Signal(object, object)  # JobHandle, Progress
    handedOver = QtCore.Signal(object, str, object)  # JobHandle, kind, payload
    finished = QtCore.Signal(object, object)  # JobHandle, the result
    failed = QtCore.Signal(object, object)  # JobHandle, Failure
    cancelled = QtCore.Signal(object)  # JobHandle
    ended = QtCore.Signal(object)  # JobHandle; always last, also after a failure or a cancel
    _reported = QtCore.Signal(object, str, object)  # from the worker threads

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.current: dict[str, JobHandle] = {}  # lane -> its running job
        self.superseded: list[JobHandle] = []  # still running, not heard any more
        self._reported.connect(self._deliver, QtCore.Qt.ConnectionType.QueuedConnection)

    def start(self, job: Job, lane: str, **tags) -> JobHandle:
        """Run ``job`` in ``lane``, superseding the job running there."""
        self.supersede(lane)
        handle = JobHandle(job, lane, tags=dict(tags))
        handle.context = JobContext(functools.partial(_report, self._reported, handle))
        self.current[lane] = handle
        _pool().start(_JobRun(handle))
        return handle

    def running(self, lane: str) -> JobHandle | None:
        """The current job of ``lane``, while it runs."""
        return self.current.get(lane)

    @property
    def busy(self) -> bool:
        return bool(self.current)

    def supersede(self, lane: str) -> bool:
        """Cancel ``lane``'s job and drop what it still reports; True when one ran."""
        handle = self.current.pop(lane, None)
        if handle is None:
            return False
        handle.superseded = True
        handle.cancel()
        self.superseded.append(handle)
        return True

    def cancel(self, lane: str) -> bool:
        """Ask ``lane``'s job to stop; it still reports ``cancelled`` and ``ended``. True when one ran."""
        handle = self.current.get(lane)
        if handle is not None:
            handle.cancel()
        return handle is not None

    def shutdown(self) -> None:
        """Cancel every job and wait for its thread (the window closes)."""
        for lane in list(self.current):
            self.supersede(lane)
        for handle in self.superseded:
            handle.done.wait()
        self.superseded.clear()

    def wait(self, lanes: tuple[str, ...], timeout_ms: int) -> bool:
        """Process events until no job of ``lanes`` runs (True) or ``timeout_ms`` passed."""
        timer = QtCore.QElapsedTimer()
        timer.start()
        loop = QtCore.QEventLoop()
        self.ended.connect(loop.quit)
        try:
            while any(lane in self.current for lane in lanes) and timer.elapsed() < timeout_ms:
                QtCore.QTimer.singleShot(max(timeout_ms - timer.elapsed(), 0), loop.quit)
                loop.exec()
        finally:
            self.ended.disconnect(loop.quit)
        return not any(lane in self.current for lane in lanes)

    @QtCore.Slot(object, str, object)
    def _deliver(self, handle: JobHandle, kind: str, payload: object) -> None:
        if kind == ENDED:
            handle.ended = True
            if handle.superseded:
                if handle in self.superseded:  # (after shutdown() it is gone already)
                    self.superseded.remove(handle)
                return
            if self.current.get(handle.lane) is handle:
                del self.current[handle.lane]
            self.ended.emit(handle)
            return
        if handle.superseded:
            return
        if kind == PROGRESS:
            self.progressed.emit(handle, payload)
        elif kind == RESULT:
            handle.outcome = RESULT
            self.finished.emit(handle, payload)
        elif kind == FAILED:
            handle.outcome = FAILED
            self.failed.emit(handle, payload)
        elif kind == CANCELLED:
            handle.outcome = CANCELLED
            self.cancelled.emit(handle)
        else:
            try:
                self.handedOver.emit(handle, kind, payload)
            finally:
                handle.context.handed.set()


def _report(signal, handle: JobHandle, kind: str, payload: object) -> None:
    """Send a job's report to its runner's GUI thread; a runner deleted meanwhile (its widget closed) hears
    nothing."""
    try:
        signal.emit(handle, kind, payload)
    except RuntimeError:  # the runner's C++ object is gone
        pass
