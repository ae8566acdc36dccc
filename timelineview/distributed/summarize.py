"""``summarize``: cards summarised as Dask tasks, then the cluster-level results from the summaries.

The client finds the cards (``find_cards``) while the local cluster starts, submits them in batches
(:func:`plan_batches`: several small cards to a task, one large card alone) to
:func:`~timelineview.distributed.card_task.summarize_cards`, prints each card as its batch completes,
and writes ``index.json``: per card its status, error, worker and time, and the cluster's clock
offsets, slow cards, links, slow links and findings, computed by
:class:`~timelineview.analysis.summaries.summary_session.SummarySession` from the card summaries.
The traces and the output folder must be reachable under the same paths from the workers and the
client (a shared file system, as on a training cluster).

A summary folder is one run or says it is not: ``summarize`` holds a lock on it while it writes (a
second ``summarize`` into the same folder refuses, :class:`SummaryBusy`), writes an index whose state is
``incomplete`` before it touches a card, and replaces it (by a rename) with the complete index at the
end, which names the run and per card the run that made it and its manifest's digest.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.analysis.kernels.slow_card_excess import with_op_type_excess
from timelineview.distributed import first_run
from timelineview.distributed.card_task import (
    FAILED,
    OLD_PREFIX,
    PARTIAL_PREFIX,
    CardResult,
    card_bytes,
    card_dir_names,
    summarize_cards,
)
from timelineview.model.discovery import CardSource
from timelineview.model.load.loader import card_sources
from timelineview.terminal_text import terminal_safe

if TYPE_CHECKING:
    from timelineview.analysis.summaries.summary_session import SummarySession

LOCK_FILE = ".summarize.lock"  # held (flock) by the summarize that writes the folder
TASK_RETRIES = 2  # a task that raised is rerun (a lost worker's tasks are rerun by the scheduler anyway)
MB = 1 << 20
BATCH_BYTES = 32 * MB  # cards of a task, in trace bytes: a 4 MB card takes ~50 ms, a task ~6 ms of CPU
GUIDED_SHARE = 3  # a batch holds at most 1/(3 × workers) of the cards left: the last tasks are small
Progress = Callable[[int, int, CardResult], None]  # cards done, cards in all, the card's result
Note = Callable[[str], None]  # what the run does that is worth saying once (a first run)


def progress_line(done: int, total: int, r: CardResult) -> str:
    """``[3/4] rank 1: ok, 1 event dropped in 0.51 s on worker 0 (tcp://…)``; a reused card names no worker
    (the one that made it belonged to an earlier run)."""
    state = r.status + (f", {r.load}" if r.load else "")
    if r.reused:
        return f"[{done}/{total}] {r.card}: reused from the earlier summary" + (f" ({r.load})" if r.load else "")
    line = f"[{done}/{total}] {r.card}: {state} in {r.seconds:.2f} s on {_worker_text(r.worker)}"
    return line + (f" — {r.error}" if r.error else "")


def _worker_text(identity: str) -> str:
    """``worker 0 (tcp://…)`` from ``card_task.worker_identity``'s "<name> <address>"."""
    name, _, address = identity.partition(" ")
    return f"worker {name} ({address})" if address else identity


def _print_progress(done: int, total: int, r: CardResult) -> None:
    print(terminal_safe(progress_line(done, total, r)), file=sys.stderr, flush=True)


def _print_note(text: str) -> None:
    print(terminal_safe(text, lines=True), file=sys.stderr, flush=True)


# Dask's own diagnostics, for a dashboard the local cluster does not start: the event-loop tick (every
# 20 ms in the scheduler, each nanny, the client and each worker), the workers' stack sampling (every
# 10 ms) and the resource monitor (every 0.5 s) cost 0.1 CPU second per second of a run on this machine
# (0.01 with these), as much as ~3 cards.
QUIET_CLUSTER = {"distributed.admin.tick.interval": "1s", "distributed.worker.profile.enabled": False,
                 "distributed.admin.system-monitor.interval": "5s"}


def local_client(workers: int):
    """A ``LocalCluster`` of ``workers`` processes of one thread each (a task is one card or a batch:
    processes run them side by side without sharing a GIL) and its client. Each worker imports the
    card task and readies the scanner as it starts (``warm_worker``), not in its first task."""
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set(QUIET_CLUSTER):  # read as the scheduler, the nannies and the workers start
        # no dashboard; its HTTP server (health checks) on a free port, not 8787 that another cluster may hold
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               scheduler_kwargs={"dashboard_address": ":0"}, memory_limit=0,
                               preload=["timelineview.distributed.warm_worker"])
    return Client(cluster)


def plan_batches(sizes: list[int], workers: int, batch_bytes: int = BATCH_BYTES,
                 batch_cards: int | None = None) -> list[list[int]]:
    """The cards (indices into ``sizes``, bytes per card) of each task, in order: consecutive cards up
    to ``batch_bytes`` and at most 1/(``GUIDED_SHARE`` × ``workers``) of the cards left (a card larger
    than ``batch_bytes`` alone), so tasks shrink toward the end and no worker waits long on the last
    one. ``batch_cards``: exactly that many cards per task instead."""
    batches: list[list[int]] = []
    k, n = 0, len(sizes)
    while k < n:
        most = batch_cards or max(1, (n - k) // (GUIDED_SHARE * max(1, workers)))
        batch, total = [k], sizes[k]
        k += 1
        while k < n and len(batch) < most and (batch_cards or total + sizes[k] <= batch_bytes):
            batch.append(k)
            total += sizes[k]
            k += 1
        batches.append(batch)
    return batches


def _worker_threads(client) -> int:
    return max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))


def _clean_leftovers(out: Path) -> None:
    """Folders of tasks that died while writing (a rerun made the card again)."""
    for p in out.iterdir():
        if p.is_dir() and (p.name.startswith(PARTIAL_PREFIX) or p.name.startswith(OLD_PREFIX)):
            shutil.rmtree(p, ignore_errors=True)


class SummaryBusy(RuntimeError):
    """Another ``summarize`` is writing the output folder (the message says which and what to do)."""


class _FolderLock:
    """An exclusive ``flock`` on ``DIR/.summarize.lock`` for the run, refused at once when another holds it.

    Refused rather than waited for: the other run writes the same cards from the same or other traces, and
    whichever came second would only redo or reuse them after possibly hours; the user decides. The lock
    file says who holds it. A file system without locks (``ENOLCK``) leaves the folder unlocked: the run
    ids in the index and cards still tell a reader that two runs mixed."""

    def __init__(self, out: Path) -> None:
        import fcntl

        self.path = out / LOCK_FILE
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.fd, 4096, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(self.fd)
            raise SummaryBusy(f"{out} is being written by another summarize ({holder}); wait for it to end "
                              "or choose another --out") from None
        except OSError:
            pass  # no locks on this file system
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"pid {os.getpid()} on {socket.gethostname()} since {time.ctime()}".encode(), 0)

    def release(self) -> None:
        os.close(self.fd)  # closing drops the flock


def summarize(path: str | os.PathLike, out: str | os.PathLike, scheduler: str | None = None, workers: int = 2,
              min_gap_ns: int = DEFAULT_MIN_GAP_NS, progress: Progress | None = _print_progress,
              client=None, batch_cards: int | None = None, note: Note | None = _print_note,
              cache: bool = True) -> dict:
    """Summarise every card under ``path`` into ``out``; returns the index written there.

    ``client``: an existing Dask client (otherwise one to ``scheduler``, or a local cluster of
    ``workers`` processes, started while the cards are found, and closed at the end).
    ``batch_cards``: cards per task (default: :func:`plan_batches` from their sizes).
    ``note``: said once, at the start, when the workers have no compiled scanner (``first_run``).
    ``cache``: the workers load the cards through the card cache, as ``stats`` and the window do (read and
    fill it: a card summarised again, or opened after, reopens its columns and its analysis).
    """
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    lock = _FolderLock(out)
    try:
        return _summarize_locked(path, out, scheduler, workers, min_gap_ns, progress, client, batch_cards, note,
                                 cache)
    finally:
        lock.release()


def _summarize_locked(path, out: Path, scheduler, workers: int, min_gap_ns: int, progress: Progress | None,
                      client, batch_cards: int | None, note: Note | None, cache: bool = True) -> dict:
    started = time.time()
    run = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime(started))}-{uuid.uuid4().hex[:12]}"
    own = client is None
    with ThreadPoolExecutor(1) as starter:
        starting = starter.submit(_connect, scheduler, workers) if own else None
        from timelineview.analysis.summaries.code_stamp import current_stamp  # these while it starts
        from timelineview.analysis.summaries.summary_session import (
            COMPLETE,
            INCOMPLETE,
            INDEX_FORMAT,
            INDEX_KIND,
            SummarySession,
        )

        stamp = current_stamp()
        head = {"schema": f"timelineview.summary/{INDEX_FORMAT}", "kind": INDEX_KIND, "format": INDEX_FORMAT,
                "state": INCOMPLETE, "run": run,
                "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started)),
                "version": stamp.version, "code": stamp.code, "source": str(Path(path).resolve()),
                "min_gap_ns": min_gap_ns}
        _write_index(out, {**head, "cards": []})  # before any card changes: a reader knows it is in flux
        sources = card_sources(path)
        names = card_dir_names(sources)
        sizes = [card_bytes(src) for src in sources]
        if own:
            client = starting.result()
    try:
        cold = first_run.cold_workers(client)
        if cold and note is not None:
            note(first_run.FIRST_RUN_NOTE)
        results = _run_batches(client, sources, names, sizes, str(out), min_gap_ns, run, progress, batch_cards,
                               cache)
        first_run.start_compile(client, cold)  # once the cards are done: beside them it slows them down
    finally:
        if own:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()
    _clean_leftovers(out)
    index = {**head, "state": COMPLETE, "seconds": 0.0, "cards": [r.to_json() for r in results]}
    index.update(cluster_results(SummarySession(out, index)))  # the cards as written, in memory: still incomplete
    index["seconds"] = time.time() - started
    _write_index(out, index)  # last, by a rename: the folder is complete
    return index


def _connect(scheduler: str | None, workers: int):
    from distributed import Client

    from timelineview.distributed.scheduler_probe import CONNECT_TIMEOUT_S

    return Client(scheduler, timeout=CONNECT_TIMEOUT_S) if scheduler else local_client(workers)


def _run_batches(client, sources: list[CardSource], names: list[str], sizes: list[int], out: str, min_gap_ns: int,
                 run: str, progress: Progress | None, batch_cards: int | None,
                 cache: bool = True) -> list[CardResult]:
    """Every card's result: the batches of :func:`plan_batches`, then, card by card, those of a batch the
    scheduler gave up on (e.g. one that killed every worker it ran on: its other cards still get made)."""
    from distributed import as_completed

    results: list[CardResult | None] = [None] * len(sources)
    done = 0

    def submit(batch: list[int]):
        label = names[batch[0]] if len(batch) == 1 else f"{names[batch[0]]}+{len(batch) - 1}"
        return client.submit(summarize_cards, [(sources[k], names[k]) for k in batch], out, min_gap_ns, run, cache,
                             key=f"summarize-{label}-{run}", pure=False, retries=TASK_RETRIES)

    futures = {submit(b): b for b in plan_batches(sizes, _worker_threads(client), batch_cards=batch_cards)}
    pending = as_completed(futures)
    for fut in pending:
        batch = futures.pop(fut)
        try:
            got = fut.result()
        except Exception as exc:  # the scheduler gave up on this task
            if len(batch) > 1:
                for k in batch:
                    again = submit([k])
                    futures[again] = [k]
                    pending.add(again)
                continue
            got = [CardResult(sources[batch[0]].label, sources[batch[0]].rank, names[batch[0]], FAILED,
                              error=f"{type(exc).__name__}: {exc}")]
        for k, r in zip(batch, got):
            results[k] = r
            done += 1
            if progress is not None:
                progress(done, len(sources), r)
    return results


def cluster_results(session: SummarySession) -> dict:
    """The index's cluster-level fields, from the card summaries."""
    offsets = {session.cards[i].card: float(session.clock_offsets_ns[i]) / 1000.0 for i in session.order}
    slow = with_op_type_excess([f.document() for f in session.slow_cards], session.card_documents)
    return {"clock_offsets_us": offsets, "slow_cards": slow, **_links(session),
            "findings": [f.document() for f in session.findings]}


def _links(session: SummarySession) -> dict:
    from timelineview.analysis.communication.document import cluster_json

    return cluster_json(session.communication)


def _write_index(out: Path, index: dict) -> None:
    from timelineview.analysis.summaries.summary_session import INDEX

    tmp = out / f"{INDEX}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(orjson.dumps(index, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
        f.flush()
        os.fsync(f.fileno())  # the rename must not reach the disk before the bytes
    tmp.replace(out / INDEX)
