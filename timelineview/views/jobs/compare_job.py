"""The compare job: loads a second run like the main load and compares it with the run on screen (``RunDiff``
of ``analysis.diff.run_diff``, metrics.md §9), off the GUI thread. Its result is a :class:`ComparedRun`."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from timelineview.analysis.diff.run_diff import RunDiff, diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.views.jobs.job import Job, JobContext
from timelineview.views.jobs.load_job import load_run
from timelineview.viewstate.card_view import CardView

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ComparedRun:
    """The new run's cards and its diff with the base run; ``error`` says why there is no diff."""

    cards: list[CardView]
    diff: RunDiff | None
    error: str = ""


def compare_job(paths: list[Path], base: AnalysisSession, cache: bool = True) -> Job:
    """Load ``paths`` (the new run) and compare it with ``base``."""
    paths = [Path(p) for p in paths]
    return Job(f"Loading {', '.join(p.name for p in paths)} to compare",
               lambda ctx: compare_run(ctx, paths, base, cache))


def compare_run(ctx: JobContext, paths: list[Path], base: AnalysisSession, cache: bool = True) -> ComparedRun:
    """The compare job's work: the new run's own comparison and findings are not computed."""
    run = load_run(ctx, paths, cache, compare=False, diagnose=False)
    ctx.stage("Comparing runs")
    stores = run.session.stores
    if not any(len(s.slices) for s in stores):  # a comparison is of slices
        why = "; ".join(s.report.error or f"{s.card}: no slices" for s in stores) or "no trace found"
        return ComparedRun(run.cards, None, f"nothing readable in the new run ({why})")
    try:
        return ComparedRun(run.cards, diff_runs(base, run.session))
    except Exception as exc:  # the tab says why
        log.exception("comparing the runs failed")
        return ComparedRun(run.cards, None, f"{type(exc).__name__}: {exc}")
