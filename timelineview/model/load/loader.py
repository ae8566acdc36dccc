"""Load trace files or folders into ``TraceStore``s: parallel chunk decode, progress, cancel.

Every chunk of every file of every card goes to one process pool, so a folder of cards
loads in parallel and a single large file uses all cores. Boundaries between chunks are
confirmed in file order after decoding (see ``layout_scan``); a chunk whose start turns
out not to be a real boundary is decoded again from the right place.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from operator import itemgetter
from pathlib import Path

from timelineview.model.database import database_bytes, is_database_source, load_database_source
from timelineview.model.database.progress import ReadCancelled
from timelineview.model.decode.chunk_decode import decode_range, release_read_buffers, split_chunk, unread
from timelineview.model.decode.chunk_result import MAX_NAME_CHARS, ChunkResult, PackedResults, pack, unpack
from timelineview.model.decode.layout_scan import ArrayBounds, locate_array, plan_ranges
from timelineview.model.decode.scan.scan_decode import decode_group
from timelineview.model.discovery import CardSource, find_cards
from timelineview.model.load import gunzip, heap
from timelineview.model.load.cached_cards import CachedCards
from timelineview.model.load.collector import fewer_full_collections
from timelineview.model.load.file_access import file_problem
from timelineview.model.load.jit import (
    compile_in_background,
    scanner_available,
    scanner_cached,
    scanner_is_warm,
    warm_scanner,
)
from timelineview.model.load.partial_load import Partial, PartialCards
from timelineview.model.load.worker_life import end_with_parent
from timelineview.model.store.assemble import CardBuilder
from timelineview.model.store.report import MAX_EXAMPLES, LoadReport
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers.recognition import load_note

Progress = Callable[[int, int], None]
CardProgress = Callable[[int, int, int], None]  # card index, bytes done, bytes of that card
Note = Callable[[str], None]  # what the load is doing, in words, when it is worth saying
CHUNK_BYTES = 256 << 10  # one decode: small enough that its objects stay in the CPU cache
TASK_BYTES = 8 << 20  # consecutive ranges per worker task (amortises the hand-over)
TYPED_TASK_BYTES = 2 << 20  # the typed decode's tasks: ~4x slower per byte, so the same progress steps
INLINE_BYTES = 4 << 20  # below this a load decodes in the calling thread
CANCEL_WAIT_S = 5.0  # longest wait, on cancel, for decode tasks already running (one task: ~0.1-0.5 s)
# below this, a process without the scanner ready decodes in the calling thread with the typed path:
# loading numba and the cached machine code (~0.45 s) or starting worker processes costs more
SCANNER_WORTH_BYTES = 16 << 20
READY_WAIT_S = 5.0  # readying a cached scanner takes ~0.5 s; longer means it compiles after all
_REASON = itemgetter(2)  # of a chunk's drop: (offset, ordinal, reason)
COMPILING_NOTE = "Reading (first run: the fast reader is compiled after this load, in the background, for next time)"


class LoadCancelled(Exception):
    """Raised by ``load`` when its cancel event is set."""


_pool: Executor | None = None
_pool_workers = 0
_pool_lock = threading.Lock()


def worker_count() -> int:
    return max(1, os.cpu_count() or 1)


def _scanner_ready() -> bool:
    """The compiled scanner is usable without a compile: ready here, or in numba's cache."""
    return scanner_available() and (scanner_is_warm() or scanner_cached())


def _threads(scanner: bool | None = None) -> bool:
    """Decode in threads: the compiled scanner runs without the GIL, and threads share one
    copy of the libraries and of the compiled code (a process would load its own, ~100 MB)
    and need no pickling. The typed decode holds the GIL, so without the scanner (``scanner``
    false; default: whether it is ready) the decode takes processes, as it does with
    ``TIMELINEVIEW_POOL=processes``."""
    if scanner is None:
        scanner = _scanner_ready()
    return os.environ.get("TIMELINEVIEW_POOL") != "processes" and scanner


def get_pool(workers: int | None = None, threads: bool | None = None) -> Executor:
    """The shared decode pool: threads running the compiled scanner, or without it spawned
    processes (safe next to a running Qt app). ``threads`` defaults to ``_threads()``."""
    global _pool, _pool_workers
    workers = workers or worker_count()
    threads = _threads() if threads is None else threads
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
    ready = _scanner_ready()
    if (workers or worker_count()) == 1 or _threads(ready):
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


@dataclass
class _FileJob:
    card: int
    index: int  # file index within the card
    path: str  # the file the user gave: what the report and the store name
    read_path: str  # the file read: ``path``, or for a ``.gz`` its decompressed copy ("" if none)
    report: LoadReport
    bounds: ArrayBounds | None = None
    ranges: list[tuple[int, int]] = field(default_factory=list)
    results: dict[int, ChunkResult] = field(default_factory=dict)
    packed: dict[int, PackedResults] = field(default_factory=dict)  # by first range of the task


def _decompress(path: Path, cancel: threading.Event | None, report: LoadReport) -> str:
    """A ``.gz`` trace's decompressed copy to read ("" when nothing decompressed: the error
    is in ``report``); where it ended early, the report says so and the part before loads."""
    try:
        copy = gunzip.decompress(path, cancel)
    except gunzip.Cancelled:
        raise LoadCancelled() from None
    except OSError as exc:
        report.error = f"{path}: cannot decompress ({exc.strerror or exc})"
        return ""
    if copy.problem and copy.size == 0:
        report.error = f"{path}: cannot decompress ({copy.problem})"
        return ""
    if copy.problem:  # also said with the truncation when the trace is cut short there (``_file_report``)
        report.truncated_why = copy.problem
        report.warn(f"{path}: {copy.problem}; the {copy.size:,} bytes before are read")
    return copy.read_path


def load(paths: str | os.PathLike | Sequence[str | os.PathLike], progress: Progress | None = None,
         cancel: threading.Event | None = None, workers: int | None = None,
         chunk_bytes: int = CHUNK_BYTES, card_progress: CardProgress | None = None,
         cache: bool | str | os.PathLike | None = None, *, note: Note | None = None,
         partial: Partial | None = None) -> list[TraceStore]:
    """Load every card found under ``paths`` (files or folders); one store per card.

    Problems in the input never raise: they are in each store's ``report``. Only
    cancellation raises (``LoadCancelled``).
    """
    return load_cards(card_sources(paths), progress, cancel, workers, chunk_bytes, card_progress, cache,
                      note=note, partial=partial)


def card_sources(paths: str | os.PathLike | Sequence[str | os.PathLike]) -> list[CardSource]:
    """The cards ``load(paths)`` loads, in its order: each path's ``find_cards``, or one empty
    card named after a path holding no trace (its report says so)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    sources: list[CardSource] = []
    for p in paths:
        found = find_cards(p)
        sources.extend(found or [CardSource(Path(p).name, None, [])])
    return sources


def load_cards(sources: list[CardSource], progress: Progress | None = None,
               cancel: threading.Event | None = None, workers: int | None = None,
               chunk_bytes: int = CHUNK_BYTES, card_progress: CardProgress | None = None,
               cache: bool | str | os.PathLike | None = None, *, note: Note | None = None,
               partial: Partial | None = None) -> list[TraceStore]:
    """Load the given cards (from ``find_cards``) in parallel.

    ``progress(done, total)`` counts bytes over all cards; ``card_progress(card, done,
    total)`` the bytes of one card. Both are called from the loading thread. With
    ``cache`` (True for the default folder, or a folder) cards are kept on disk as
    memory-mappable columns and re-opened from there while their files are unchanged.
    ``note(text)`` says what the load is doing when that is unusual (a first run decoding
    without the compiled scanner). ``partial(stores)`` receives, every second or so, stores
    of what has been decoded so far (see ``PartialLoad``), for showing a load in progress.
    """
    fewer_full_collections()  # many cards' results are about to live in this process
    with contextlib.ExitStack() as heap_settings:
        cards = CachedCards(sources, cache)  # the files' stamps, taken before anything reads them
        databases = {ci for ci, src in enumerate(sources) if is_database_source(src)}  # read as fast as the cache
        if databases:  # their column-sized blocks given back as freed (a JSON load keeps glibc's own thresholds)
            heap_settings.enter_context(heap.load_mmap_threshold())
        cached = {ci: None if ci in databases else cards.lookup(ci) for ci in range(len(sources))}
        _load_databases(sources, sorted(databases), cached, progress, cancel, card_progress)
        todo = [ci for ci in range(len(sources)) if cached[ci] is None]
        pictures = None if partial is None else PartialCards(partial, [cached[ci] for ci in range(len(sources))])
        stores = _load_fresh([sources[ci] for ci in todo], progress, cancel, workers, chunk_bytes,
                             None if card_progress is None else lambda c, d, t: card_progress(todo[c], d, t),
                             note, pictures) if todo else []
        if not todo and progress is not None and not databases:  # every card from the cache: the load is done
            progress(1, 1)
        for ci, store in zip(todo, stores):
            cards.keep(ci, store)
            cached[ci] = store
        for ci, source in enumerate(sources):  # after the cache: what lies beside a card's files may change
            cached[ci].report.warn_all(source.skipped)
            if not is_database_source(source):  # a database is always an Ascend producer's
                _note_producer(cached[ci])
        return [cached[ci] for ci in range(len(sources))]


def _note_producer(store: TraceStore) -> None:
    """Say in the card's load report how a trace no Ascend producer wrote was read (Kineto), or that it
    was not read as any producer's (a trace of another tool)."""
    note = load_note(store)
    if note:
        store.report.warn(note)


def _load_databases(sources: list[CardSource], databases: list[int], cached: dict, progress: Progress | None,
                    cancel: threading.Event | None, card_progress: CardProgress | None) -> None:
    """Read the database cards one after the other into ``cached``: each card's progress in rows read,
    the load's in the databases' bytes (a card's share of its file by its rows read)."""
    sizes = {ci: database_bytes(sources[ci]) for ci in databases}
    total = sum(sizes.values()) or 1
    before = 0
    for ci in databases:
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()

        def rows_read(done: int, rows: int, ci: int = ci, before: int = before) -> None:
            if card_progress is not None:
                card_progress(ci, done, rows)
            if progress is not None:
                progress(before + sizes[ci] * done // max(rows, 1), total)

        try:
            cached[ci] = load_database_source(sources[ci], rows_read, cancel)
        except ReadCancelled:
            raise LoadCancelled() from None
        before += sizes[ci]


def _load_fresh(sources: list[CardSource], progress: Progress | None, cancel: threading.Event | None,
                workers: int | None, chunk_bytes: int, card_progress: CardProgress | None,
                note: Note | None = None, partial: PartialCards | None = None) -> list[TraceStore]:
    jobs: list[_FileJob] = []
    for ci, src in enumerate(sources):
        for fi, f in enumerate(src.files):
            report = LoadReport()
            readable = str(f)
            if f.suffix == ".gz":
                readable = _decompress(f, cancel, report)
            jobs.append(_FileJob(ci, fi, str(f), readable, report))
    for job in jobs:
        if job.read_path:
            problem = file_problem(job.read_path)  # never opens a FIFO or a device: they would not end
            if problem:
                job.report.error = f"{job.path}: {problem}"
                continue
            try:
                job.bounds = locate_array(job.read_path)
                if not job.bounds.error:
                    job.ranges = plan_ranges(job.read_path, job.bounds, chunk_bytes)
            except OSError as exc:  # gone or unreadable since the check: this card fails, not the load
                job.bounds, job.ranges = None, []
                job.report.error = f"{job.path}: cannot read ({exc.strerror or exc})"
                continue
            if job.bounds.error:
                job.report.error = f"{job.path}: {job.bounds.error}"
            else:
                for problem in job.bounds.problems:
                    job.report.warn(f"{job.path}: {problem}")
    feeds = [_CardFeed(src, [j for j in jobs if j.card == ci]) for ci, src in enumerate(sources)]
    meter = _ProgressMeter(jobs, len(sources), progress, card_progress)
    cancelled = False
    compile_after = _first_run(jobs)
    if compile_after and note is not None:
        note(COMPILING_NOTE)
    try:
        _decode_all(jobs, feeds, meter, cancel, workers, partial)
    except LoadCancelled:
        cancelled = True  # raised again below, once this load's memory is let go
    finally:
        release_read_buffers()
        if compile_after:  # for the next load, once this one's decode no longer needs the CPU (a
            compile_in_background()  # compile beside it, even at idle priority, cost it 1.3-1.9x)
    if cancelled:
        _release(jobs, feeds)
        raise LoadCancelled()
    meter.finish()
    heap.trim()  # what decoding freed, before the index build adds the load's peak
    return [feed.finish() for feed in feeds]


def _release(jobs: list[_FileJob], feeds: list[_CardFeed]) -> None:
    """Let go of a cancelled load's decoded chunks and half-built cards, and hand the freed
    pages back: the exception raised next carries no frame that holds them."""
    for job in jobs:
        job.results.clear()
        job.packed.clear()
    jobs.clear()
    feeds.clear()
    gc.collect()
    heap.trim()


class _CardFeed:
    """Hands a card's decoded chunks to its ``CardBuilder`` in file order, as they arrive.

    Chunk k is taken only once chunk k-1 has been, because k-1's end says whether k
    started at a real boundary (see ``layout_scan``).
    """

    def __init__(self, src: CardSource, jobs: list[_FileJob]) -> None:
        self.src = src
        self.jobs = jobs
        size = sum(b - a for j in jobs for a, b in j.ranges)
        self.builder = CardBuilder(src.label, src.rank, [j.path for j in jobs], [j.read_path for j in jobs],
                                   size // 200)
        self.j = 0
        self.k = 0

    def pump(self) -> None:
        while self.j < len(self.jobs):
            job = self.jobs[self.j]
            if self.k >= len(job.ranges):
                self.j, self.k = self.j + 1, 0
                continue
            if self.k not in job.results:
                return
            packed = job.packed.pop(self.k, None)
            if packed is not None and _starts_confirmed(job, self.k, len(packed.results)):
                self.builder.add_packed(packed)  # the whole task at once: one remap, one copy
                self.k += len(packed.results)
                continue
            if self.k > 0:
                _confirm_start(job, self.k)
            self.builder.add(job.results[self.k])
            self.k += 1

    @property
    def taken(self) -> int:
        """Elements handed to the builder so far."""
        return self.builder.base

    @property
    def taken_bytes(self) -> int:
        """The bytes of the chunks handed to the builder so far."""
        return sum(p.end - p.start for p in self.builder.places)

    def snapshot(self) -> TraceStore:
        """A store of the chunks taken so far (the file's first part), for a picture in progress."""
        return self.builder.snapshot()

    def finish(self) -> TraceStore:
        self.pump()
        report = LoadReport()
        for job in self.jobs:
            _file_report(job)
            report.merge(job.report)
        if not self.src.files:
            report.error = f"{self.src.label}: no trace files found" if not self.src.problems else \
                f"{self.src.label}: no readable trace file ({'; '.join(self.src.problems)})"
        for problem in self.src.problems if self.src.files else ():  # files found but not read
            report.warn(problem)
        return self.builder.finish(report)


def _tasks(jobs: list[_FileJob], task_bytes: int | None = None) -> list[tuple[_FileJob, list[int]]]:
    """Group consecutive ranges of each file into tasks of about ``task_bytes`` (TASK_BYTES).

    Cards take turns (their files in order), so every card of a cluster makes progress
    from the start instead of one card after another.
    """
    per_card: dict[int, list] = {}
    for job in jobs:
        tasks = per_card.setdefault(job.card, [])
        group: list[int] = []
        size = 0
        for k, (a, b) in enumerate(job.ranges):
            group.append(k)
            size += b - a
            if size >= (task_bytes or TASK_BYTES):
                tasks.append((job, group))
                group, size = [], 0
        if group:
            tasks.append((job, group))
    queues = list(per_card.values())
    return [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]


def _task_args(job: _FileJob, group: list[int], scanner: bool) -> tuple:
    """``decode_group`` arguments of one task."""
    return job.read_path, job.index, [job.ranges[k] for k in group], group[-1] == len(job.ranges) - 1, scanner


def _file_task(job: _FileJob, group: list[int], packed: PackedResults) -> None:
    """Keep a decoded task: joined columns for a whole-task merge, and each range's result."""
    job.packed[group[0]] = packed
    for k, res in zip(group, unpack(packed)):
        job.results[k] = res


class _ProgressMeter:
    """Bytes decoded, over all cards and per card."""

    def __init__(self, jobs: list[_FileJob], n_cards: int, progress: Progress | None,
                 card_progress: CardProgress | None) -> None:
        self.progress, self.card_progress = progress, card_progress
        self.card_total = [0] * n_cards
        for job in jobs:
            self.card_total[job.card] += sum(b - a for a, b in job.ranges)
        self.card_done = [0] * n_cards
        self.total = sum(self.card_total) or 1
        self.done = 0
        if progress:
            progress(0, self.total)
        if card_progress:
            for c, t in enumerate(self.card_total):
                card_progress(c, 0, t)

    def finish(self) -> None:
        if self.progress and self.done < self.total:
            self.done = self.total
            self.progress(self.total, self.total)

    def add(self, card: int, nbytes: int) -> None:
        self.done += nbytes
        self.card_done[card] += nbytes
        if self.card_progress:
            self.card_progress(card, self.card_done[card], self.card_total[card])
        if self.progress:
            self.progress(self.done, self.total)


def _ready_scanner(cancel: threading.Event | None, limit_s: float = READY_WAIT_S) -> bool:
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


def _first_run(jobs: list[_FileJob]) -> bool:
    """This load is large enough for the scanner, which numba's cache does not hold yet: it decodes
    with the typed path, and the next load wants the scanner compiled."""
    nbytes = sum(b - a for job in jobs for a, b in job.ranges)
    return scanner_available() and not _scanner_ready() and not _small(nbytes)


def _decode_all(jobs: list[_FileJob], feeds: list[_CardFeed], meter: _ProgressMeter,
                cancel: threading.Event | None, workers: int | None,
                partial: PartialCards | None = None) -> None:
    """Decode every range (in worker processes or threads, else here) and feed the results in file order."""
    tasks = _tasks(jobs)
    sizes = [sum(job.ranges[k][1] - job.ranges[k][0] for k in group) for job, group in tasks]
    small = _small(sum(sizes))
    inline = small or workers == 1
    ready = _scanner_ready()
    scanner_here = ready and (not small or scanner_is_warm())
    if scanner_here and (inline or _threads(True)):
        scanner_here = _ready_scanner(cancel)  # here, once, before decode threads would each import it
    threads = _threads(scanner_here)
    worker_scanner = scanner_here if threads else ready  # a worker process readies its own
    if not (inline or worker_scanner):  # the first progress and picture come as soon with the typed decode
        tasks = _tasks(jobs, TYPED_TASK_BYTES)
        sizes = [sum(job.ranges[k][1] - job.ranges[k][0] for k in group) for job, group in tasks]
    pending: set[Future] = set()
    futures: dict[Future, int] = {}
    todo = iter(range(len(tasks)))

    def submit(n: int) -> None:
        """Keep a few tasks in flight, not all: results wait for the merge in file order,
        and decoders running far ahead would hold them all in memory."""
        try:
            for t in itertools.islice(todo, n):
                fut = pool.submit(decode_group, *_task_args(*tasks[t], worker_scanner))
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
            submit(_pool_workers + 1)
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
                    _file_task(job, group, fut.result())
                except BrokenProcessPool:
                    continue  # decoded below, in this process
                except OSError as exc:  # the file went away while it was read: what was read stays
                    _file_task(job, group, _unreadable(job, group, exc))
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
            packed = decode_group(*_task_args(job, group, scanner_here))
        except OSError as exc:
            packed = _unreadable(job, group, exc)
        _file_task(job, group, packed)
        feeds[job.card].pump()
        meter.add(job.card, sizes[t])
        if partial is not None:
            partial.offer(feeds, meter)


def _unreadable(job: _FileJob, group: list[int], exc: OSError) -> PackedResults:
    """Empty results for a task whose file could not be read any more (removed, cut, unreadable
    since its layout was read): the report says the file ends where the task began."""
    reason = f"cannot be read from here on ({exc.strerror or exc})"
    return pack(unread([job.ranges[k] for k in group], job.index, reason))


def _ends_at_cut(job: _FileJob, k: int) -> bool:
    """Chunk k ended exactly at its planned cut (or, its last event damaged, where chunk k+1
    starts: its resync point), so chunk k+1 starts at a real boundary. (A chunk decoded again
    from where the one before it really ended may end past its cut, inside chunk k+1.)"""
    res = job.results.get(k)
    return res is not None and (res.end == job.ranges[k][1]
                                or k + 1 < len(job.ranges) and res.end == job.ranges[k + 1][0])


def _starts_confirmed(job: _FileJob, k: int, count: int) -> bool:
    """Whether ranges k .. k+count-1 all start at real boundaries (no re-decode needed)."""
    return all(_ends_at_cut(job, j - 1) for j in range(max(k, 1), k + count))


def _confirm_start(job: _FileJob, k: int) -> None:
    """Re-decode chunk k if chunk k-1 showed that k's start was not a real boundary."""
    if _ends_at_cut(job, k - 1):
        return
    prev = job.results[k - 1]
    nominal_end = job.ranges[k - 1][1]
    if prev.end > nominal_end:
        # the previous chunk's last event ran past the cut: decode from its real end
        a, b = prev.end, max(job.ranges[k][1], prev.end)
        job.results[k] = decode_range(job.read_path, job.index, a, b, k == len(job.ranges) - 1)
    else:
        job.report.drop("unreadable bytes between events", job.path, prev.end)


class _ElementPlaces:
    """File offsets of a decoded range's elements by ordinal, found when first asked for
    (the fast decode paths do not keep them; only reported events need them)."""

    def __init__(self, path: str, chunk: ChunkResult) -> None:
        self.path, self.chunk = path, chunk
        self.starts: list[int] | None = None

    def __call__(self, ordinal: int) -> int:
        if self.starts is None:
            ch = self.chunk
            try:
                self.starts = (split_chunk(self.path, ch.start, ch.end)[1].starts + ch.start).tolist()
            except OSError:
                self.starts = []
        return self.starts[ordinal] if 0 <= ordinal < len(self.starts) else self.chunk.start


def _file_report(job: _FileJob) -> None:
    """Turn the chunks' drops and notes into the file's report (per-file event indices)."""
    rep = job.report
    first = cut = 0
    lossy = False
    for k in range(len(job.ranges)):
        ch = job.results[k]
        rep.bytes_read += ch.end - ch.start
        rep.counts_by_ph.update(ch.counts_by_ph)
        place = _ElementPlaces(job.read_path, ch)
        shown = max(0, MAX_EXAMPLES - len(rep.examples))  # drops with their places; the rest are counted
        for offset, ordinal, reason in ch.dropped[:shown]:
            if offset < 0:  # the fast paths do not keep places
                offset = place(ordinal)
            rep.drop(reason, job.path, offset, first + ordinal)
        if len(ch.dropped) > shown:
            rep.count_dropped(Counter(map(_REASON, ch.dropped[shown:])))
        rep.warn_all([f"{job.path} @ byte {offset if offset >= 0 else place(ordinal)}, event #{first + ordinal}: {note}"
                      for offset, ordinal, note in ch.notes]
                     + [f"{job.path} @ byte {offset}: {text}" for offset, text in ch.problems])
        lossy |= ch.lossy_numbers
        cut += ch.cut_names
        first += ch.n_elements
    if lossy:
        rep.warn(f"{job.path}: numeric timestamps of 2^42 µs or more are only as exact as float64 "
                 "(write them as strings for ns precision)")
    if cut:
        rep.warn(f"{job.path}: {cut} name(s) longer than {MAX_NAME_CHARS:,} characters cut to that length")
    if job.bounds is None or job.bounds.error:
        return
    last = job.results.get(len(job.ranges) - 1)
    if job.ranges and last is not None:
        cut_short = last.truncated or (not job.bounds.closed and not last.closed)
        if cut_short:
            rep.truncated = True
            rep.truncated_path = job.path
            with_data = [r for r in job.results.values() if r.n_elements]
            rep.truncated_offset = max((r.end for r in with_data), default=job.bounds.start)
    elif not job.bounds.closed and job.bounds.form != "empty":
        rep.truncated = True
        rep.truncated_path = job.path
        rep.truncated_offset = job.bounds.start
    if not rep.truncated:  # the copy's end is the truncation's cause only when the trace is cut short there
        rep.truncated_why = ""
