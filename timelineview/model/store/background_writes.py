"""Cache files written by one thread in the background, so that an analysis does not wait for the file system.

Creating a small file costs about as much as analysing a small card's field (0.5-1 ms on a loaded disk: the
kept analysis writes some twenty per card). The writes are queued here, in order, and done by one thread while
the analysis goes on; what they write is complete before it is queued (encoded, its checksums taken), so a
write done late writes the same bytes. A file is still never read before it was written whole: each write
replaces its file at once, and a reader of a path with a write pending waits for it (:func:`settle`). The
process waits for the queue before it exits (and a command before it returns); a write that fails is only
not written, as before.
"""

from __future__ import annotations

import atexit
import queue
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

_queue: queue.Queue[tuple[Callable[[], object], tuple[Path, ...]]] = queue.Queue()
_pending: Counter[Path] = Counter()  # paths with a write queued or under way
_lock = threading.Lock()
_thread: threading.Thread | None = None


def submit(write: Callable[[], object], paths: Iterable[Path]) -> None:
    """Run ``write`` (which writes ``paths``) after the writes queued before it."""
    global _thread
    paths = tuple(paths)
    with _lock:
        _pending.update(paths)
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_run, name="cache-writes", daemon=True)
            _thread.start()
    _queue.put((write, paths))


def _run() -> None:
    while True:
        write, paths = _queue.get()
        try:
            write()
        except Exception:  # noqa: BLE001 - a cache file that cannot be written is only not written
            pass
        finally:
            with _lock:
                _pending.subtract(paths)
                for p in paths:
                    if _pending[p] <= 0:
                        del _pending[p]
            _queue.task_done()


def pending(path: Path) -> bool:
    """Whether a write of ``path`` is queued or under way."""
    with _lock:
        return path in _pending


def settle(paths: Iterable[Path]) -> None:
    """Wait for the queued writes when one of them writes one of ``paths`` (nothing to wait for otherwise)."""
    if any(pending(p) for p in paths):
        flush()


def settle_under(folder: Path) -> None:
    """Wait for the queued writes when one of them writes into ``folder``."""
    with _lock:
        waiting = any(p.parent == folder for p in _pending)
    if waiting:
        flush()


def flush() -> None:
    """Wait until every queued write is done."""
    if _thread is not None:
        _queue.join()


atexit.register(flush)
