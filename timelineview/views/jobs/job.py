"""A job: a function run on a worker thread, told by a :class:`JobContext` how to report progress, hand
results over to the GUI thread and notice that it was cancelled. No Qt here: the runner delivers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PROGRESS_INTERVAL_S = 0.05  # a worker may count very often; a status line needs ~20 updates a second
HAND_OVER_WAIT_S = 30.0  # the longest a job waits for the GUI to take what it handed over


class JobCancelled(Exception):
    """The job was cancelled (Cancel, a newer open, the window closing): it stops where it noticed."""


class JobFailed(Exception):
    """A failure worded for the user: ``text`` is the message, ``details`` what a details box shows."""

    def __init__(self, text: str, details: str = "") -> None:
        super().__init__(text)
        self.text, self.details = text, details


@dataclass(frozen=True)
class Progress:
    """How far a job is: ``done`` of ``total`` (any unit; total 0 when unknown) and what it does now."""

    done: int
    total: int
    text: str

    @property
    def share(self) -> float:
        """Done over total, in [0, 1] (0 when the total is unknown)."""
        return min(max(self.done / self.total, 0.0), 1.0) if self.total > 0 else 0.0


@dataclass(frozen=True)
class Failure:
    """What the user is told when a job fails."""

    text: str
    details: str = ""


@dataclass(frozen=True)
class Job:
    """``work(context)`` runs on a worker thread; its return value is the job's result. ``name`` says what
    it does ("Loading a.json"): the message of an unexpected failure begins with it."""

    name: str
    work: Callable[[JobContext], Any]


class JobContext:
    """The job's side of the runner: progress (throttled), hand-overs, and the cancel flag."""

    def __init__(self, deliver: Callable[[str, object], None], cancel: threading.Event | None = None,
                 interval_s: float = PROGRESS_INTERVAL_S) -> None:
        self.deliver = deliver
        self.cancel_event = cancel or threading.Event()
        self.handed = threading.Event()  # set by the GUI once it took a hand-over, or by cancel
        self._interval_s = interval_s
        self._last = 0.0
        self._done, self._total, self._text = 0, 0, ""

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def check(self) -> None:
        """Stop here (:class:`JobCancelled`) when the job was cancelled."""
        if self.cancel_event.is_set():
            raise JobCancelled()

    def stage(self, text: str) -> None:
        """What the job does now (always delivered, with the count so far)."""
        self._text = text
        self._last = time.monotonic()
        self.deliver("progress", Progress(self._done, self._total, text))

    def progress(self, done: int, total: int, text: str | None = None) -> None:
        """``done`` of ``total``; delivered at most every ``interval_s`` (and always the last count or a new
        text)."""
        changed = text is not None and text != self._text
        self._done, self._total = int(done), int(total)
        if text is not None:
            self._text = text
        now = time.monotonic()
        if changed or done >= total or now - self._last >= self._interval_s:
            self._last = now
            self.deliver("progress", Progress(self._done, self._total, self._text))

    def hand_over(self, kind: str, payload: object, wait_s: float | None = None) -> None:
        """Deliver ``payload`` to the GUI thread now (the job goes on). With ``wait_s``, wait (at most that
        long) until the GUI has taken it: both threads share one interpreter lock, so a GUI that shows
        something big runs faster with the job paused."""
        self.handed.clear()
        self.check()  # after the clear: a cancel from now on sets it again, so the wait below ends at once
        self.deliver(kind, payload)
        if wait_s is not None:
            self.handed.wait(wait_s)
            self.check()
