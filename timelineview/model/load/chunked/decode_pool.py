"""The shared decode pool: threads running the compiled scanner, or worker processes."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context

from timelineview.model.load import heap
from timelineview.model.load.jit import scanner_available, scanner_cached, scanner_is_warm, warm_scanner
from timelineview.model.load.worker_life import end_with_parent

_pool: Executor | None = None
_pool_workers = 0
_pool_lock = threading.Lock()


def worker_count() -> int:
    return max(1, os.cpu_count() or 1)


def scanner_ready() -> bool:
    """The compiled scanner is usable without a compile: ready here, or in numba's cache."""
    return scanner_available() and (scanner_is_warm() or scanner_cached())


def use_threads(scanner: bool | None = None) -> bool:
    """Decode in threads: the compiled scanner runs without the GIL, and threads share one
    copy of the libraries and of the compiled code (a process would load its own, ~100 MB)
    and need no pickling. The typed decode holds the GIL, so without the scanner (``scanner``
    false; default: whether it is ready) the decode takes processes, as it does with
    ``TIMELINEVIEW_POOL=processes``."""
    if scanner is None:
        scanner = scanner_ready()
    return os.environ.get("TIMELINEVIEW_POOL") != "processes" and scanner


def get_pool(workers: int | None = None, threads: bool | None = None) -> Executor:
    """The shared decode pool: threads running the compiled scanner, or without it spawned
    processes (safe next to a running Qt app). ``threads`` defaults to ``use_threads()``."""
    global _pool, _pool_workers
    workers = workers or worker_count()
    threads = use_threads() if threads is None else threads
    with _pool_lock:
        if _pool is None or _pool_workers != workers or isinstance(_pool, ThreadPoolExecutor) != threads:
            if _pool is not None:
                _pool.shutdown(wait=False, cancel_futures=True)
            if threads:
                heap.limit_arenas()
                _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="decode")
            else:
                _pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                            initializer=end_with_parent, initargs=(os.getpid(),))
            _pool_workers = workers
        return _pool


def _warm_worker(scanner: bool) -> int:
    if scanner:
        warm_scanner()  # imports and loading the compiled scanner are the slow part of a start
    time.sleep(0.05)  # keep this worker busy so the pool starts the next one
    return os.getpid()


def warm_pool(workers: int | None = None) -> list[int]:
    """Ready the decoders now, not during the first load. With decode threads (or one
    worker) decoding happens in this process, so the compiled scanner is readied here;
    otherwise every worker process starts (imports included). A scanner not in numba's
    cache yet is not compiled here: the first large load starts that compile once its decode
    is over, not beside it. Returns the workers' pids."""
    ready = scanner_ready()
    if (workers or worker_count()) == 1 or use_threads(ready):
        if ready:
            warm_scanner()
        return []
    pool = get_pool(workers, threads=False)
    futures = [pool.submit(_warm_worker, ready) for _ in range(_pool_workers * 2)]
    return sorted({f.result() for f in futures})


def shutdown_pool() -> None:
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.shutdown(wait=True, cancel_futures=True)
            _pool = None


def pool_workers() -> int:
    """The workers of the pool ``get_pool`` made last."""
    return _pool_workers
