"""Every range of a load decoded: with the compiled scanner or the typed path, here, in threads or in
worker processes; the results fed to their cards in file order as they arrive."""

from __future__ import annotations

import itertools
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool

from timelineview.model.decode.scan.scan_decode import decode_group
from timelineview.model.load.chunked.card_feed import CardFeed
from timelineview.model.load.chunked.decode_pool import get_pool, pool_workers, scanner_ready, use_threads
from timelineview.model.load.chunked.decode_tasks import group_tasks, keep_task, task_args, unreadable_task
from timelineview.model.load.chunked.file_job import FileJob
from timelineview.model.load.chunked.progress_meter import ProgressMeter
from timelineview.model.load.jit import scanner_available, scanner_is_warm, warm_scanner
from timelineview.model.load.load_cancelled import LoadCancelled
from timelineview.model.load.partial_load import PartialCards

TYPED_TASK_BYTES = 2 << 20  # the typed decode's tasks: ~4x slower per byte, so the same progress steps
INLINE_BYTES = 4 << 20  # below this a load decodes in the calling thread
CANCEL_WAIT_S = 5.0  # longest wait, on cancel, for decode tasks already running (one task: ~0.1-0.5 s)
# below this, a process without the scanner ready decodes in the calling thread with the typed path:
# loading numba and the cached machine code (~0.45 s) or starting worker processes costs more
SCANNER_WORTH_BYTES = 16 << 20
READY_WAIT_S = 5.0  # readying a cached scanner takes ~0.5 s; longer means it compiles after all


def ready_scanner(cancel: threading.Event | None, limit_s: float = READY_WAIT_S) -> bool:
    """Ready the compiled scanner in this process (from numba's cache: ~0.5 s). Should that
    turn into a compile (the cache was removed under us), the load does not wait for it past
    ``limit_s``; the wait honours a cancel. Returns whether the scanner is ready."""
    if scanner_is_warm():
        return True
    done = threading.Event()

    def ready() -> None:
        try:
            warm_scanner()
        finally:
            done.set()

    threading.Thread(target=ready, name="scanner-warm-up", daemon=True).start()
    deadline = time.monotonic() + limit_s
    while not done.wait(0.1):
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()
        if time.monotonic() > deadline:
            return False
    return scanner_is_warm()


def _small(nbytes: int) -> bool:
    """The compiled scanner costs this process ~0.45 s and ~100 MB to load: worth it for large
    inputs, or when it is here already; never worth a compile (20-30 s) in a load."""
    return nbytes <= (INLINE_BYTES if scanner_is_warm() else SCANNER_WORTH_BYTES)


def first_run(jobs: list[FileJob]) -> bool:
    """This load is large enough for the scanner, which numba's cache does not hold yet: it decodes
    with the typed path, and the next load wants the scanner compiled."""
    nbytes = sum(b - a for job in jobs for a, b in job.ranges)
    return scanner_available() and not scanner_ready() and not _small(nbytes)


def decode_all(jobs: list[FileJob], feeds: list[CardFeed], meter: ProgressMeter,
                cancel: threading.Event | None, workers: int | None,
                partial: PartialCards | None = None) -> None:
    """Decode every range (in worker processes or threads, else here) and feed the results in file order."""
    tasks = group_tasks(jobs)
    sizes = [sum(job.ranges[k][1] - job.ranges[k][0] for k in group) for job, group in tasks]
    small = _small(sum(sizes))
    inline = small or workers == 1
    ready = scanner_ready()
    scanner_here = ready and (not small or scanner_is_warm())
    if scanner_here and (inline or use_threads(True)):
        scanner_here = ready_scanner(cancel)  # here, once, before decode threads would each import it
    threads = use_threads(scanner_here)
    worker_scanner = scanner_here if threads else ready  # a worker process readies its own
    if not (inline or worker_scanner):  # the first progress and picture come as soon with the typed decode
        tasks = group_tasks(jobs, TYPED_TASK_BYTES)
        sizes = [sum(job.ranges[k][1] - job.ranges[k][0] for k in group) for job, group in tasks]
    pending: set[Future] = set()
    futures: dict[Future, int] = {}
    todo = iter(range(len(tasks)))

    def submit(n: int) -> None:
        """Keep a few tasks in flight, not all: results wait for the merge in file order,
        and decoders running far ahead would hold them all in memory."""
        try:
            for t in itertools.islice(todo, n):
                fut = pool.submit(decode_group, *task_args(*tasks[t], worker_scanner))
                futures[fut] = t
                pending.add(fut)
        except (OSError, RuntimeError, BrokenProcessPool):
            pass  # no (more) workers here (frozen app, sandbox): what is left is decoded below

    if not inline:
        try:
            pool = get_pool(workers, threads)
        except (OSError, RuntimeError):
            inline = True
        else:
            submit(pool_workers() + 1)
    finished_tasks: set[int] = set()
    try:
        while pending:
            finished, pending_left = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            pending.intersection_update(pending_left)
            if cancel is not None and cancel.is_set():
                raise LoadCancelled()
            for fut in finished:
                t = futures[fut]
                job, group = tasks[t]
                try:
                    keep_task(job, group, fut.result())
                except BrokenProcessPool:
                    continue  # decoded below, in this process
                except OSError as exc:  # the file went away while it was read: what was read stays
                    keep_task(job, group, unreadable_task(job, group, exc))
                finished_tasks.add(t)
                feeds[job.card].pump()
                meter.add(job.card, sizes[t])
            if partial is not None and finished:
                partial.offer(feeds, meter)
            submit(len(finished))
    except BaseException:
        for fut in pending:
            fut.cancel()
        # tasks already running cannot be stopped: let them end, so what they allocate is
        # freed (and trimmed) before the caller sees the cancel, not some time after it
        wait([fut for fut in pending if not fut.cancelled()], timeout=CANCEL_WAIT_S)
        raise
    for t, (job, group) in enumerate(tasks):
        if t in finished_tasks:
            continue
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()
        try:
            packed = decode_group(*task_args(job, group, scanner_here))
        except OSError as exc:
            packed = unreadable_task(job, group, exc)
        keep_task(job, group, packed)
        feeds[job.card].pump()
        meter.add(job.card, sizes[t])
        if partial is not None:
            partial.offer(feeds, meter)

