"""``summarize``: one Dask task per card, then the cluster-level results from the summaries.

The client finds the cards (``find_cards``), submits :func:`~timelineview.distributed.card_task.summarize_card`
for each, prints each card as it completes, and writes ``index.json``: per card its status, error,
worker and time, and the cluster's clock offsets, slow cards, links, slow links and findings,
computed by :class:`~timelineview.analysis.summaries.summary_session.SummarySession` from the card summaries.
The traces and the output folder must be reachable under the same paths from the workers and the
client (a shared file system, as on a training cluster).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.analysis.summaries.summary_session import INDEX, INDEX_KIND, SummarySession
from timelineview.distributed.card_task import (
    FAILED,
    OLD_PREFIX,
    PARTIAL_PREFIX,
    CardResult,
    card_dir_names,
    summarize_card,
)
from timelineview.model.load.loader import card_sources

INDEX_FORMAT = 1
TASK_RETRIES = 2  # a task whose worker died is rerun on another (Dask counts it as a failure of that try)
Progress = Callable[[int, int, CardResult], None]  # cards done, cards in all, the card's result


def _print_progress(done: int, total: int, r: CardResult) -> None:
    state = "reused" if r.reused else r.status
    line = f"[{done}/{total}] {r.card}: {state} in {r.seconds:.2f} s on {r.worker}"
    if r.error:
        line += f" — {r.error}"
    print(line, file=sys.stderr, flush=True)


def local_client(workers: int):
    """A ``LocalCluster`` of ``workers`` processes of one thread each (a card is one task: processes
    run cards side by side without sharing a GIL) and its client."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                           memory_limit=0)
    return Client(cluster)


def _clean_leftovers(out: Path) -> None:
    """Folders of tasks that died while writing (a rerun made the card again)."""
    for p in out.iterdir():
        if p.is_dir() and (p.name.startswith(PARTIAL_PREFIX) or p.name.startswith(OLD_PREFIX)):
            shutil.rmtree(p, ignore_errors=True)


def summarize(path: str | os.PathLike, out: str | os.PathLike, scheduler: str | None = None, workers: int = 2,
              min_gap_ns: int = DEFAULT_MIN_GAP_NS, progress: Progress | None = _print_progress,
              client=None) -> dict:
    """Summarise every card under ``path`` into ``out``; returns the index written there.

    ``client``: an existing Dask client (otherwise one to ``scheduler``, or a local cluster of
    ``workers`` processes, closed at the end).
    """
    from distributed import Client, as_completed

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    sources = card_sources(path)
    names = card_dir_names(sources)
    own = client is None
    if own:
        client = Client(scheduler) if scheduler else local_client(workers)
    try:
        futures = {client.submit(summarize_card, src, str(out), name, min_gap_ns, key=f"summarize-{name}-{started}",
                                 pure=False, retries=TASK_RETRIES): k
                   for k, (src, name) in enumerate(zip(sources, names))}
        results: list[CardResult | None] = [None] * len(sources)
        for done, fut in enumerate(as_completed(futures), 1):
            k = futures[fut]
            try:
                results[k] = fut.result()
            except Exception as exc:  # the scheduler gave up on it (e.g. it killed every worker it ran on)
                results[k] = CardResult(sources[k].label, sources[k].rank, names[k], FAILED,
                                        error=f"{type(exc).__name__}: {exc}")
            if progress is not None:
                progress(done, len(sources), results[k])
    finally:
        if own:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()
    _clean_leftovers(out)
    index = {"kind": INDEX_KIND, "format": INDEX_FORMAT, "source": str(Path(path).resolve()),
             "min_gap_ns": min_gap_ns, "seconds": 0.0, "cards": [r.to_json() for r in results]}
    _write_index(out, index)
    index.update(cluster_results(SummarySession(out, index)))
    index["seconds"] = time.time() - started
    _write_index(out, index)
    return index


def cluster_results(session: SummarySession) -> dict:
    """The index's cluster-level fields, from the card summaries."""
    offsets = {session.cards[i].card: float(session.clock_offsets_ns[i]) / 1000.0 for i in session.order}
    return {"clock_offsets_us": offsets, "slow_cards": session.slow_cards, **_links(session),
            "findings": [f.document() for f in session.findings]}


def _links(session: SummarySession) -> dict:
    from timelineview.analysis.communication.document import cluster_json

    return cluster_json(session.communication)


def _write_index(out: Path, index: dict) -> None:
    tmp = out / f"{INDEX}.tmp-{os.getpid()}"
    tmp.write_bytes(orjson.dumps(index, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
    tmp.replace(out / INDEX)
