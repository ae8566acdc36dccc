"""The summary job: reads a summary folder (metrics.md §10) and analyses it, off the GUI thread.

First the index and every card's manifest (progress per card), the clock offsets and the comparison: handed
over as :data:`OPENED` (the ``SummarySession``), and the job waits until the window has shown it. Then every
card's tables and what the analysis tabs show (communication, operators across the cards, findings); the
result is a :class:`SummaryAnalysis`. A folder that cannot be read fails with what the user is told.
"""

from __future__ import annotations

import gc
import logging
import traceback
from dataclasses import dataclass
from pathlib import Path

from timelineview.analysis.summaries.summary_session import SummarySession, UnreadableSummary, read_checked_index
from timelineview.views.jobs.job import HAND_OVER_WAIT_S, Job, JobCancelled, JobContext, JobFailed

OPENED = "opened"
FREEZE_EVERY = 256  # cards read between two freezes of what was read (see keep_read_out_of_gc)
FAILED_SHOWN = 5  # failed cards named in a message
TRACEBACK_DEPTH = 5
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SummaryAnalysis:
    """The summary read and analysed; ``error`` says why the tabs' analysis failed ("" when it did not)."""

    session: SummarySession
    error: str = ""


def failed_text(session: SummarySession) -> str:
    """The cards that could not be summarised (or read), one line each."""
    return "\n".join(f"{e.get('card', e.get('dir', '?'))}: {e.get('error') or e.get('status')}"
                     for e in session.failed)


def summary_job(folder: Path) -> Job:
    """Read and analyse the summary folder ``folder``."""
    folder = Path(folder)
    return Job(f"Reading the summary {folder.name}", lambda ctx: read_summary(ctx, folder))


def read_summary(ctx: JobContext, folder: Path) -> SummaryAnalysis:
    """The summary job's work (see the module)."""
    try:
        session = _open(ctx, folder)
        ctx.hand_over(OPENED, session, wait_s=HAND_OVER_WAIT_S)
        return _analyse(ctx, session)
    except UnreadableSummary as exc:
        raise JobFailed(f"{exc}.") from exc
    except (JobCancelled, JobFailed):
        raise
    except Exception as exc:  # said with the folder's name, and logged
        log.exception("reading the summary %s failed", folder)
        raise JobFailed(f"Reading the summary {folder.name} failed.",
                        f"{type(exc).__name__}: {exc}\n\n{traceback.format_exc(limit=TRACEBACK_DEPTH)}") from exc


def _counter(ctx: JobContext, what: str):
    """A progress callback that says ``what: done / total cards`` and stops when cancelled."""
    def report(done: int, total: int) -> None:
        ctx.check()
        if done % FREEZE_EVERY == 0:
            keep_read_out_of_gc()
        ctx.progress(done, total, f"{what}: {done} / {total} cards")
    return report


def _open(ctx: JobContext, folder: Path) -> SummarySession:
    ctx.stage("Reading summary")
    index = read_checked_index(folder)
    session = SummarySession(folder, index, progress=_counter(ctx, "Reading summary"), tolerant=True)
    keep_read_out_of_gc()
    if not session.cards:
        raise JobFailed(f"The summary {folder.name} holds no card that was summarised "
                        f"({len(session.failed)} failed).", failed_text(session))
    ctx.stage("Comparing cards")
    session.comparison.rows(None)  # cached (with the clock offsets): the comparison view shows them first
    return session


def _analyse(ctx: JobContext, session: SummarySession) -> SummaryAnalysis:
    """The tables of every card, then what the tabs show; a failure here leaves the comparison open."""
    try:
        session.read_tables(_counter(ctx, "Reading operator and link tables"))
        keep_read_out_of_gc()
        ctx.stage("Analysing summary: links, operators, findings")
        session.communication  # noqa: B018 - cached properties: computing them here is the point
        session.operators_across_all_cards  # noqa: B018
        session.findings  # noqa: B018
    except JobCancelled:
        raise
    except Exception as exc:
        log.exception("analysing the summary %s failed", session.folder)
        return SummaryAnalysis(session, f"{type(exc).__name__}: {exc}")
    return SummaryAnalysis(session)


def keep_read_out_of_gc() -> None:
    """Keep every object alive now out of Python's cyclic collector: each full collection walking
    thousands of cards' records stopped every thread, the window too, for 0.4-0.9 s (four or five times
    while 4096 cards were read, and again later). They stay frozen while the summary is on screen (freed
    by reference counting as usual); :func:`release_frozen` gives them back at the next open."""
    gc.freeze()


def release_frozen() -> None:
    """Back into the cyclic collector (a new open: what the last summary froze may be garbage now)."""
    gc.unfreeze()
