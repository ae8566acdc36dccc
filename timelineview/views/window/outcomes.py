"""What the window says when a job ends: a load's status line and messages, a summary's status line."""

from __future__ import annotations

from dataclasses import dataclass

from timelineview.model.store.report import EMPTY_CAPTURE
from timelineview.views.jobs.summary_job import FAILED_SHOWN

LOAD_REPORT_MENU = "File ▸ Load report…"  # where the status line sends the user for the details
SEPARATOR = "  ·  "


@dataclass(frozen=True)
class Message:
    """A message box: title, text, details, and whether it warns."""

    title: str
    text: str
    details: str = ""
    warning: bool = True


@dataclass(frozen=True)
class LoadOutcome:
    """What a finished load shows: the cards for the timeline (none: keep what is there unless ``clear``),
    the status line, and a message (or None)."""

    shown: list
    status: str
    message: Message | None
    clear: bool = False


def _lost_data(card) -> bool:
    r = card.store.report
    return bool(r.error or r.truncated or r.dropped_events)


def first_problem(cards) -> str:
    """The first card that lost data and what it lost, where, in one line ('' when none did): the message
    says it at once, the details list every card's report."""
    lost = [c for c in cards if _lost_data(c)]
    if not lost:
        return ""
    what = lost[0].store.report.headline().rstrip(".")  # the message ends the sentence
    line = f"{lost[0].title}: {what}" if len(cards) > 1 else what  # one card: the file names it
    return line + (f" (and {len(lost) - 1} other card(s): see the details)" if len(lost) > 1 else "")


def problems_text(cards, notes: bool = False) -> str:
    """Load report lines of the cards that lost data ('' when none did); ``notes``: any remark."""
    parts = []
    for c in cards:
        r = c.store.report
        remarks = r.summary()
        if _lost_data(c) or (notes and remarks):
            parts.append(f"{c.title} ({', '.join(str(p) for p in c.store.paths) or 'no file'}):\n{remarks}")
    return "\n\n".join(parts)


def load_outcome(cards, names: str, failures: list[str], clock_note: str = "") -> LoadOutcome:
    """The outcome of a load of ``names`` that read ``cards`` (drawable or not); ``failures``: the parts of
    the analysis that failed, one line each; ``clock_note``: how the cards' clocks were aligned when that is
    not one clock (``AnalysisSession.clock_note``)."""
    shown = [c for c in cards if c.drawable]
    problems = problems_text(cards)
    if not shown and cards and all(c.store.report.read_whole_capture for c in cards):  # valid, and empty
        return LoadOutcome([], f"{names}: {EMPTY_CAPTURE}",
                           Message("Empty capture", f"{names} was read whole: {EMPTY_CAPTURE}.", warning=False),
                           clear=True)
    if not shown:
        why = first_problem(cards)
        return LoadOutcome([], "", Message("Nothing to show", f"No slices could be read from {names}"
                                           + (f": {why}." if why else "."), problems))
    remarks = [clock_note] if clock_note else []  # the counts of what is shown stay on the line's right (shown_counts)
    errors = [c.analysis_error for c in shown if c.analysis_error]
    if errors:
        remarks.append(errors[0])
    if failures:
        remarks.append(f"{failures[0]} ({LOAD_REPORT_MENU})")
    message = None
    if problems:
        message = Message("Loaded with problems", f"{names} was only partly readable: {first_problem(cards)}. "
                          "What could be read is shown.", problems)
    elif problems_text(shown, notes=True):
        remarks.append(f"the loader left remarks: {LOAD_REPORT_MENU}")
    return LoadOutcome(shown, SEPARATOR.join(remarks), message)


def summary_status(session) -> str:
    """The status line once a summary folder is analysed: its cards, findings, and what to know of them."""
    n = len(session.findings)
    text = f"{n} finding{'s' if n != 1 else ''}"  # the card count stays on the line's right (shown_counts)
    if session.failed:
        text += f"  ·  {len(session.failed)} card(s) could not be summarised"
    if session.stamps:  # made by another version or code: their numbers may differ from this one's
        text += f"  ·  {len(session.stamps)} card(s) summarised by another timelineview (summarize again)"
    return text


def shown_counts(shown) -> str:
    """What the data on screen (a ``ShownData``, or None) holds, for the status line's permanent right part:
    its cards and slices, or a summary's cards; it stays there (a transient message would go at the next
    click or hover)."""
    if shown is None:
        return ""
    if not shown.has_slices:
        return f"{len(shown.cards)} summarised card(s)"
    total = sum(len(v.store.slices) for v in shown.views)
    slices = f"{total:,}".replace(",", " ")  # digits grouped by spaces, as the window's other counts
    return f"{len(shown.views)} card(s), {slices} slices"


def unsummarised_status(session) -> str:
    """The status line when a summary opens with cards that could not be summarised ("" when none)."""
    if not session.failed:
        return ""
    return (f"{len(session.failed)} card(s) could not be summarised: "
            + ", ".join(str(e.get("card")) for e in session.failed[:FAILED_SHOWN]))
