"""Load trace files or folders into ``TraceStore``s: parallel chunk decode, progress, cancel.

Every chunk of every file of every card goes to one process pool, so a folder of cards
loads in parallel and a single large file uses all cores. Boundaries between chunks are
confirmed in file order after decoding (see ``layout_scan``); a chunk whose start turns
out not to be a real boundary is decoded again from the right place. That decode of the JSON files
is ``chunked``'s; database cards are read by ``model.database``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from timelineview.model.database import database_bytes, is_database_source, load_database_source
from timelineview.model.database.progress import ReadCancelled
from timelineview.model.decode.chunk_decode import release_read_buffers
from timelineview.model.decode.layout_scan import locate_array, plan_ranges
from timelineview.model.discovery import CardSource, find_cards
from timelineview.model.load import gunzip, heap
from timelineview.model.load.cached_cards import CachedCards
from timelineview.model.load.chunked.card_feed import CardFeed
from timelineview.model.load.chunked.decode_pool import get_pool, shutdown_pool, warm_pool
from timelineview.model.load.chunked.decode_run import decode_all, first_run
from timelineview.model.load.chunked.file_job import FileJob
from timelineview.model.load.chunked.progress_meter import CardProgress, Progress, ProgressMeter
from timelineview.model.load.collector import fewer_full_collections
from timelineview.model.load.file_access import file_problem
from timelineview.model.load.jit import compile_in_background
from timelineview.model.load.load_cancelled import LoadCancelled
from timelineview.model.load.partial_load import Partial, PartialCards
from timelineview.model.store.report import LoadReport
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers.recognition import load_note

# the decode pool is started, warmed and shut down by the load's callers
__all__ = ["CHUNK_BYTES", "LoadCancelled", "card_sources", "get_pool", "load", "load_cards", "shutdown_pool",
           "warm_pool"]

Note = Callable[[str], None]  # what the load is doing, in words, when it is worth saying
CHUNK_BYTES = 256 << 10  # one decode: small enough that its objects stay in the CPU cache
COMPILING_NOTE = "Reading (first run: the fast reader is compiled after this load, in the background, for next time)"


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
    if copy.problem:  # also said with the truncation when the trace is cut short there (``file_report``)
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
    jobs: list[FileJob] = []
    for ci, src in enumerate(sources):
        for fi, f in enumerate(src.files):
            report = LoadReport()
            readable = str(f)
            if f.suffix == ".gz":
                readable = _decompress(f, cancel, report)
            jobs.append(FileJob(ci, fi, str(f), readable, report))
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
    feeds = [CardFeed(src, [j for j in jobs if j.card == ci]) for ci, src in enumerate(sources)]
    meter = ProgressMeter(jobs, len(sources), progress, card_progress)
    cancelled = False
    compile_after = first_run(jobs)
    if compile_after and note is not None:
        note(COMPILING_NOTE)
    try:
        decode_all(jobs, feeds, meter, cancel, workers, partial)
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


def _release(jobs: list[FileJob], feeds: list[CardFeed]) -> None:
    """Let go of a cancelled load's decoded chunks and half-built cards, and hand the freed
    pages back: the exception raised next carries no frame that holds them."""
    for job in jobs:
        job.results.clear()
        job.packed.clear()
    jobs.clear()
    feeds.clear()
    gc.collect()
