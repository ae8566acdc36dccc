"""The load job: finds, loads and analyses traces (one ``AnalysisSession``), reporting progress by bytes.

Hand-overs on the way: :data:`CARDS_FOUND` (the card labels, in the order of the card progress indices),
:data:`CARD_PROGRESS` (:class:`CardProgress`), :data:`PARTIAL` (:class:`PartialPicture`, what is decoded so
far) and :data:`ANALYSIS_FAILED` (a part of the analysis that failed, in one line: the load still shows).
The result is a :class:`LoadedRun`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from timelineview.analysis.card_analysis import CardAnalysis
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.analysis.session import AnalysisSession
from timelineview.model.load.partial_load import PartialLoad
from timelineview.views.jobs.job import PROGRESS_INTERVAL_S, Job, JobCancelled, JobContext
from timelineview.viewstate.card_view import CardView, align_clocks, prepare_card
from timelineview.viewstate.load_progress import BYTES, ROWS

CARDS_FOUND, CARD_PROGRESS, PARTIAL, ANALYSIS_FAILED = "cards_found", "card_progress", "partial", "analysis_failed"
COMPARISON_FAILED = "the comparison of the cards failed"  # how an ANALYSIS_FAILED line begins when it is that
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CardProgress:
    """Card ``index`` (of the CARDS_FOUND labels) has read ``done`` of ``total`` ``unit`` (a database card
    counts the rows of its tables, a trace file its bytes)."""

    index: int
    done: int
    total: int
    unit: str = BYTES


@dataclass(frozen=True)
class PartialPicture:
    """What the load has decoded so far (not analysed) and the model's ``UnloadedSpan`` (or None)."""

    cards: list[CardView]
    unloaded: Any


@dataclass
class LoadedRun:
    """A finished load: every card's view (drawable or not), the session that analysed them, the cluster
    comparison (None when it failed) and the parts of the analysis that failed."""

    paths: list[Path]
    cards: list[CardView]
    session: AnalysisSession
    comparison: Any = None
    failures: list[str] = field(default_factory=list)


def load_job(paths: list[Path], cache: bool = True, compare: bool = True, diagnose: bool = True) -> Job:
    """Load ``paths`` (files or folders, one trace); ``cache``: cards re-open from memory-mapped columns
    while their files are unchanged; ``compare``/``diagnose``: compute the cluster comparison / the
    findings here, off the GUI thread."""
    paths = [Path(p) for p in paths]
    return Job(f"Loading {', '.join(p.name for p in paths)}",
               lambda ctx: load_run(ctx, paths, cache, compare, diagnose))


def load_run(ctx: JobContext, paths: list[Path], cache: bool = True, compare: bool = True,
             diagnose: bool = True) -> LoadedRun:
    """The load job's work (see the module)."""
    from timelineview.model import LoadCancelled, load_cards
    from timelineview.model.database.card import is_database_source
    from timelineview.model.load.loader import card_sources

    card_last: dict[int, float] = {}
    databases: set[int] = set()

    def card_progress(card: int, done: int, total: int) -> None:
        now = time.monotonic()
        if now - card_last.get(card, 0.0) >= PROGRESS_INTERVAL_S or done >= total:
            card_last[card] = now
            unit = ROWS if card in databases else BYTES
            ctx.hand_over(CARD_PROGRESS, CardProgress(int(card), int(done), int(total), unit))

    def partial(part: PartialLoad) -> None:  # the slices alone: analysing a part would be wasted
        cards = [prepare_card(store, i, analysis=CardAnalysis.of(store, i, DEFAULT_MIN_GAP_NS))
                 for i, store in enumerate(part.stores)]
        ctx.hand_over(PARTIAL, PartialPicture(cards, part.unloaded()))

    try:
        ctx.stage("Reading")
        sources = card_sources(paths)
        databases.update(i for i, s in enumerate(sources) if is_database_source(s))
        ctx.hand_over(CARDS_FOUND, [s.label for s in sources])
        stores = load_cards(sources, progress=lambda done, total: ctx.progress(done, total, "Reading"),
                            cancel=ctx.cancel_event, card_progress=card_progress, cache=cache, note=ctx.stage,
                            partial=partial)
        ctx.progress(1, 1)  # read: the bar stays full while the cards are analysed
        session = AnalysisSession(stores, tolerant=True)
        cards = []
        for i, store in enumerate(stores):
            ctx.check()
            ctx.stage(f"Analysing {store.card}")
            cards.append(prepare_card(store, i, analysis=session.analyse(i)))
    except LoadCancelled as exc:
        raise JobCancelled() from exc
    ctx.stage("Aligning clocks")
    align_clocks(cards, session.clock_offsets_ns)
    run = LoadedRun(paths, cards, session)
    if compare:
        ctx.stage("Comparing cards")
        run.comparison = _extra(ctx, run, COMPARISON_FAILED, lambda: session.comparison)
    if diagnose:
        ctx.stage("Diagnosing")
        _extra(ctx, run, "the diagnosis failed", lambda: session.findings)
    return run


def _extra(ctx: JobContext, run: LoadedRun, what: str, compute):
    """An extra of the load (the timeline opens without it): its value, or None and ``what`` failed said."""
    try:
        return compute()
    except Exception as exc:
        log.exception(what)
        line = f"{what}: {type(exc).__name__}: {exc}"
        run.failures.append(line)
        ctx.hand_over(ANALYSIS_FAILED, line)
        return None
