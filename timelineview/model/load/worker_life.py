"""Decode workers end with the process that started them: a killed or crashed app leaves no worker behind
(and so no multiprocessing resource tracker, which ends once the last process holding it has gone)."""

from __future__ import annotations

import os
import threading

PARENT_POLL_S = 0.5  # how often a worker looks whether its parent is still there


def end_with_parent(parent: int) -> None:
    """A pool initializer: watch, on a daemon thread, whether ``parent`` still is this process's parent, and
    end this process at once when it is not (the parent ended, however it ended)."""
    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=_watch, args=(parent,), name="parent-watch", daemon=True).start()


def _watch(parent: int) -> None:
    pause = threading.Event()
    while not pause.wait(PARENT_POLL_S):
        if os.getppid() != parent:
            os._exit(0)  # no cleanup to wait for: the work was for a process that is gone
