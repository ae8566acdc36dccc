"""ShownData: the data set on screen, as the window and its tabs read it.

Loaded traces and a summary folder (metrics.md §10) differ in what they can show: a summary has no slices
(a click opens the card from its summary, not its slices), no trace to compare or plot memory of, its own
load report and title. That difference is said here, once, by the two constructors; the tabs and the
window ask the data what it can show instead of testing which kind it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from timelineview.views.analysis_tabs.tab_inputs import TabCard, TabSession, loaded_cards, summary_cards
from timelineview.views.panels.load_report import ReportText, summary_report, trace_report

APP_TITLE = "timelineview"
NOT_COMPARABLE = ("A summary folder is open: comparing two runs reads their traces. Open the traces of the run "
                  "(not its summary), then File ▸ Compare with….")


@dataclass(frozen=True)
class ShownData:
    """One data set on screen. ``cards`` are as the tabs name them (their stores only when traces are loaded);
    ``has_slices``: a row or evidence opens slices and lanes (else its card, from the summary)."""

    session: TabSession
    cards: list[TabCard]
    title: str  # the window's title while it is shown
    name: str  # how a header names it ("the run on screen", "the summary s")
    has_slices: bool
    cards_are: str  # "loaded" or "summarised"
    click_opens: str  # what a click on a finding's evidence or a table row does
    without_slices: str  # what the user is told a click cannot show ("" when it can show everything)
    views: list = field(default_factory=list)  # the CardViews of the loaded cards (none of a summary folder)
    compare_base: Any = None  # the AnalysisSession a second run is compared with (None: NOT_COMPARABLE)
    not_comparable: str = ""
    operators_across: Callable[[], list] | None = None  # computed by the session (None: a tab computes it)
    query_session: Callable[[], Any] = field(default=lambda: None)  # the api Session the Query tab runs on
    report: Callable[[Sequence, list[str]], ReportText] = field(default=lambda cards, failures: None)

    @property
    def traced_cards(self) -> list[TabCard]:
        """The cards whose traces are loaded (memory, slices)."""
        return [c for c in self.cards if c.store is not None]


def trace_data(session, cards: Sequence, names: str = "") -> ShownData:
    """Loaded traces: ``session`` (an ``AnalysisSession``) over the ``CardView`` s shown."""
    from timelineview.api.session import Session

    title = f"{APP_TITLE} — {names}" if names else APP_TITLE
    return ShownData(session, loaded_cards(cards), title, "the run on screen", True, "loaded",
                     "see it in the timeline", "", views=list(cards), compare_base=session,
                     query_session=lambda: Session(session.stores, min_gap_ns=session.min_gap_ns, analysis=session),
                     report=lambda shown, failures: trace_report(shown, failures))


def summary_data(session) -> ShownData:
    """A summary folder's ``SummarySession``; ``shown`` cards in its report are traces loaded from it."""
    from timelineview.api.session import Session

    name = f"the summary {session.folder.name}"
    return ShownData(session, summary_cards(session), summary_title(session), name, False, "summarised",
                     "open its card from the summary", " (its slices need the trace)",
                     not_comparable=NOT_COMPARABLE,
                     operators_across=lambda: session.operators_across_all_cards,
                     query_session=lambda: Session(summary=session),
                     report=lambda shown, failures: summary_report(session, shown))


def summary_title(session) -> str:
    """The window's title while a summary folder is open."""
    return f"{APP_TITLE} — {session.folder.name} (summary of {len(session.cards)} cards)"
