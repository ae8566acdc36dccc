"""One Dask task: summarise one card where its files are (load, analyse, write its summary folder).

The task returns a small :class:`CardResult` record only; the card's columns never travel to the
client. A card whose summary was made from the same files (same key) is not loaded again. A card
that cannot be read or analysed yields a failed result, not an exception: that failure would only
repeat on another worker, whereas a worker lost mid-task is retried by the scheduler.

Small cards go several to a task (:func:`summarize_cards`): a task costs the client, the scheduler
and the worker about 6 ms of CPU, a 4 MB card about 50 ms. Each card is still written on its own and
tagged with the run: when a lost worker's batch is rerun, the cards it finished are kept (not redone,
not counted as reused) and only the others are summarised again.

A card is reused only when its key is the same: a digest of every byte of its files (not a sample: an
edit between sampled blocks with the modification time put back must not keep a stale summary), the
package version and the stamp of the code that computes a summary (``analysis/summaries/code_stamp``).
Each trace is read once: a card with no summary that could be reused (none, or one whose identity, the
key without the files' content, differs) is loaded first and its digest taken from the loader's reads
(``model/store/file_digest``); only a card whose summary could be reused is read for its key first. Cards
are loaded through the card cache, as ``stats`` and the window load them (``cache=False``: not).
"""

from __future__ import annotations

import hashlib
import os
import re
import resource
import shutil
import socket
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from timelineview.analysis.card_analysis import analyse_card
from timelineview.analysis.cluster.comparison import comparison_error
from timelineview.analysis.summaries import code_stamp, kept_report
from timelineview.analysis.summaries.card_summary import (
    FORMAT,
    MANIFEST,
    parse_manifest,
    read_manifest_bytes,
    write_card_summary,
)
from timelineview.model.discovery import CardSource
from timelineview.model.store.file_digest import WatchedFile, content_digest, watch_reads
from timelineview.model.store.file_stamp import file_stamp
from timelineview.model.summary.guarded_files import SummaryFileError, digest

# What a summary holds of a card's analysis (and what those need): the §5 object, the comparison rows,
# operator and communication tables. The findings' store lookups are made while writing.
SUMMARY_FIELDS = ("document", "comparison_steps", "operators", "communication")
PARTIAL_PREFIX = ".partial-"
OLD_PREFIX = ".old-"
OK, FAILED = "ok", "failed"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
KB = 1024


@dataclass
class CardResult:
    """What a task reports for one card (the index's per-card entry)."""

    card: str
    rank: int | None
    dir: str
    status: str  # "ok" or "failed"
    error: str = ""
    worker: str = ""
    seconds: float = 0.0
    reused: bool = False  # the summary of unchanged files was kept
    peak_rss_mb: float = 0.0  # the worker process' peak resident memory so far
    load: str = ""  # the card's load problems in a few words ("1 event dropped"; "" when none)
    run: str = ""  # the run of summarize that made the card's summary (an earlier one when reused)
    manifest: str = ""  # the digest of the card's card.json, which a reader checks

    def to_json(self) -> dict:
        return asdict(self)


def card_dir_names(sources: list[CardSource]) -> list[str]:
    """One folder name per card, from its label (made unique)."""
    names, seen = [], set()
    for src in sources:
        base = _UNSAFE.sub("_", src.label).strip("._") or "card"
        name, k = base, 1
        while name in seen:
            k += 1
            name = f"{base}~{k}"
        seen.add(name)
        names.append(name)
    return names


def _key_head(source: CardSource, min_gap_ns: int) -> list[str]:
    stamp = code_stamp.current_stamp()
    return [f"summary {FORMAT}", stamp.version, stamp.code, source.label, str(source.rank), str(min_gap_ns)]


def _sha1(parts: list[str]) -> str:
    return hashlib.sha1("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def summary_key(source: CardSource, min_gap_ns: int,
                contents: list[tuple[int, str]] | None = None) -> str | None:
    """Key of a card's summary as it would be made now: the summary format, the timelineview version and
    code stamp, the card and the gap threshold, and per file its path, size and a digest of all its
    bytes (``contents``: (size, digest) per file, as ``file_digest`` gives them; default: read them now);
    None when a file cannot be read."""
    parts = _key_head(source, min_gap_ns)
    for k, f in enumerate(source.files):
        try:
            size, whole = contents[k] if contents is not None else content_digest(f)
        except OSError:
            return None
        parts.append(f"{Path(f).resolve()}|{size}|{whole}")
    return _sha1(parts)


def identity_key(source: CardSource, min_gap_ns: int) -> str:
    """The summary key without the files' content (their sizes instead): two cards of different identities
    cannot have the same key, so a summary of another identity is redone without reading the files first."""
    parts = _key_head(source, min_gap_ns)
    for f in source.files:
        stamp = file_stamp(f)
        parts.append(f"{Path(f).resolve()}|{stamp.size if stamp is not None else -1}")
    return _sha1(parts)


def _watched_key(source: CardSource, min_gap_ns: int, watched: dict[str, WatchedFile]) -> str | None:
    """``summary_key`` of a card whose files' reads were watched (what the load did not read is read now)."""
    try:
        return summary_key(source, min_gap_ns, [watched[str(f)].digest() for f in source.files])
    except OSError:
        return None


def worker_identity() -> str:
    """``"<Dask worker name> <address>"``; outside a worker, host and process."""
    try:
        from distributed import get_worker

        w = get_worker()
        return f"{w.name} {w.address}"
    except (ImportError, ValueError):
        return f"{socket.gethostname()}-{os.getpid()} local"


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (KB * KB) if sys.platform == "darwin" else peak / KB  # bytes on macOS, KiB on Linux


def _replace(folder: Path, partial: Path) -> None:
    """Put the finished ``partial`` folder in place of ``folder`` (a reader never sees half a card)."""
    old = None
    if folder.exists():
        old = folder.with_name(f"{OLD_PREFIX}{folder.name}-{os.getpid()}")
        folder.rename(old)
    partial.rename(folder)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def summarize_cards(cards: list[tuple[CardSource, str]], out: str, min_gap_ns: int, run: str = "",
                    cache: bool = True) -> list[CardResult]:
    """Summarise each (card, folder name) of a batch into ``out`` (the task each worker runs), one result
    per card, in order. ``run``: the run's id, kept in each manifest, by which a rerun of a lost worker's
    batch knows the cards that worker finished. ``cache``: load through the card cache (read and fill it).

    The batch's cards that need summarising are loaded by one ``load_cards`` (as ``stats`` loads a
    folder): the loader hands the freed heap back to the system once per load, and each time costs the
    next card ~2 000 page faults (~3.5 ms of system time per 4 MB card, a tenth of its work). Each
    card is then analysed, written and let go in turn; the heap is trimmed once, after the batch, so
    a worker holds at most one batch's cards (``BATCH_BYTES`` of trace, or one larger card)."""
    from timelineview.model.load import heap

    jobs = [_CardJob(source, name) for source, name in cards]
    try:
        todo = [job for job in jobs if not _settled(job, out, min_gap_ns, run)]
        t_load = time.perf_counter()
        unkeyed = [job for job in todo if job.key is None]
        with watch_reads([f for job in unkeyed for f in job.source.files]) as watched:
            stores = _load([job.source for job in todo], cache)
            for job in unkeyed:
                job.key = _watched_key(job.source, min_gap_ns, watched)
        load_s = time.perf_counter() - t_load
        share = _shares([job.source for job in todo])
        for k, job in enumerate(todo):
            t0 = time.perf_counter() - load_s * share[k]  # its part of the load, by its bytes
            _summarize_loaded(job, stores[k], out, min_gap_ns, run)
            stores[k] = None  # the card's memory goes before the next card's analysis
            _finish(job.result, t0)
    finally:
        heap.trim()  # what the batch freed, before the worker takes the next batch
    return [job.result for job in jobs]


@dataclass
class _CardJob:
    source: CardSource
    name: str
    key: str | None = None
    identity: str = ""
    result: CardResult | None = None


def _settled(job: _CardJob, out: str, min_gap_ns: int, run: str) -> bool:
    """Decide ``job`` without loading it when possible: its summary is there from the same files (made
    by an earlier run: reused; or by an earlier try of this task, on a worker since lost), or it has no
    file to read. Sets its key and result; False when the card is to be loaded."""
    t0 = time.perf_counter()
    source = job.source
    job.result = CardResult(source.label, source.rank, job.name, FAILED, worker=worker_identity())
    job.identity = identity_key(source, min_gap_ns)
    old, old_digest = _old_manifest(Path(out) / job.name)
    if old is not None and not old.get("error") and isinstance(old.get("run"), str) \
            and old.get("identity", job.identity) == job.identity:  # could be reused: read the files for the key
        job.key = summary_key(source, min_gap_ns)
    if job.key is not None and old is not None and old.get("key") == job.key:
        made_now = bool(run) and old.get("run") == run
        job.result.status, job.result.reused, job.result.worker = OK, not made_now, old.get("worker", "")
        job.result.run, job.result.manifest = old["run"], old_digest
        kept = kept_report.manifest_report(old)
        job.result.load = kept_report.remark(kept) if kept is not None else ""
        _finish(job.result, t0)
        return True
    if source.problems and not source.files:
        job.result.error = "; ".join(source.problems)
        _finish(job.result, t0)
        return True
    return False


def _old_manifest(folder: Path) -> tuple[dict | None, str]:
    """The manifest already in ``folder`` and its digest, (None, "") when there is none or it is unreadable."""
    try:
        data = read_manifest_bytes(folder)
        return parse_manifest(data, folder / MANIFEST), digest(data)
    except (OSError, SummaryFileError):
        return None, ""


def _load(sources: list[CardSource], cache: bool = True) -> list:
    """Each card's store, or the exception that loading it alone raised (one load for all of them; one per
    card when that raised, so that the exception stays with its card); through the card cache with ``cache``."""
    from timelineview.model.load.loader import load_cards

    if not sources:
        return []
    ready_cached_scanner()
    try:
        return list(load_cards(sources, workers=1, cache=cache))
    except Exception:  # noqa: BLE001 - said per card below
        pass
    stores: list = []
    for source in sources:
        try:
            stores.append(load_cards([source], workers=1, cache=cache)[0])
        except Exception as exc:  # noqa: BLE001 - this card fails, the others go on
            stores.append(exc)
    return stores


def ready_cached_scanner() -> bool:
    """Ready the compiled scanner in this worker when numba's cache holds it (~0.5 s, once), never by a
    compile (20-30 s): without it the loader reads with the typed decode. Between cards,
    so a worker picks up the scanner a background compile cached during the run. Returns whether ready."""
    from timelineview.model.load import jit

    if not jit.scanner_is_warm() and jit.scanner_cached():
        jit.warm_scanner()
    return jit.scanner_is_warm()


def card_bytes(source: CardSource) -> int:
    """Bytes of a card's trace files (0 for those that cannot be stat'ed)."""
    total = 0
    for f in source.files:
        try:
            total += os.stat(f).st_size
        except OSError:
            pass
    return total


def _shares(sources: list[CardSource]) -> list[float]:
    """Each card's share of the batch's bytes (equal shares when none can be measured)."""
    sizes = [card_bytes(source) for source in sources]
    total = sum(sizes)
    return [size / total if total else 1.0 / len(sources) for size in sizes]


def _summarize_loaded(job: _CardJob, store, out: str, min_gap_ns: int, run: str) -> None:
    """Analyse and write one loaded card (``store``: a TraceStore, or the exception loading it raised)."""
    result, name = job.result, job.name
    try:
        if isinstance(store, Exception):
            raise store
        if store.report.error:
            result.error = store.report.error
            return
        result.load = kept_report.remark(store.report)
        analysis = analyse_card(store, SUMMARY_FIELDS, min_gap_ns=min_gap_ns)
        partial = Path(tempfile.mkdtemp(prefix=f"{PARTIAL_PREFIX}{name}-", dir=out))
        manifest = write_card_summary(partial, store, analysis, comparison_error(store, analysis.derived),
                                      {"dir": name, "key": job.key, "identity": job.identity,
                                       "worker": result.worker, "run": run,
                                       "sources": [str(f) for f in job.source.files]})
        if superseded(out, run):  # a straggler of a stopped run must not replace a later run's card
            shutil.rmtree(partial, ignore_errors=True)
            result.error = f"superseded: a later run of summarize writes {out} now"
            return
        _replace(Path(out) / name, partial)
        result.status, result.run, result.manifest = OK, run, manifest
    except Exception as exc:  # this card fails, the others go on
        result.error = f"{type(exc).__name__}: {exc}"


def superseded(out: str, run: str) -> bool:
    """Whether ``out``'s index names another run than ``run``: a run that was stopped (its caller gone) may
    still have tasks on the workers, and a later run has since begun writing the folder. Each run writes its
    index before any card, so a task that checks just before putting its card in place cannot overwrite a
    later run's card (it may still lose that card: the later run makes it again)."""
    if not run:
        return False
    from timelineview.analysis.summaries.summary_session import read_index

    try:
        index = read_index(out)
    except (OSError, ValueError):  # no index (a task run on its own) or one being replaced: not superseded
        return False
    return isinstance(index, dict) and index.get("run", run) != run


def _finish(result: CardResult, t0: float) -> CardResult:
    result.seconds = time.perf_counter() - t0
    result.peak_rss_mb = _peak_rss_mb()
    return result
