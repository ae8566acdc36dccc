"""File ▸ Load report: what the loader said about the open cards, readable at once.

The dialog opens on the counts (how many cards lost data, and of what, one line per card), with every card's
full report in a scrollable text under them. On a summary folder the traces are not loaded here: each card's
report comes from its manifest (``load_report``) when the summary kept it; otherwise the dialog says where
those reports are printed, and names the cards that could not be summarised.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6 import QtCore, QtWidgets

from timelineview.model.store.report import LoadReport

NO_REMARKS = "The open trace loaded without remarks."
SUMMARY_REPORTS = "Load reports of summarised cards are printed by `timelineview summarize`."
DIALOG_SIZE = (760, 460)


class ReportText(NamedTuple):
    """The dialog's text: the counts first (``headline``), then each card's report (``body``)."""

    headline: str
    body: str


class CardCounts(NamedTuple):
    """One card's report as counts: what was lost, what was repaired, and the other remarks."""

    error: str
    dropped: int
    truncated_at: int | None
    duplicates: int
    overlapping: int
    open_slices: int
    warnings: int

    @property
    def lost(self) -> bool:
        return bool(self.error or self.dropped or self.truncated_at is not None)

    def text(self) -> str:
        """"2 events dropped, truncated at byte 812, 1 warning" ("" when there is nothing)."""
        parts = []
        if self.error:
            parts.append(f"unreadable ({self.error})")
        if self.dropped:
            parts.append(_count(self.dropped, "event") + " dropped")
        if self.truncated_at is not None:
            parts.append(f"truncated at byte {self.truncated_at}")
        if self.duplicates:
            parts.append(_count(self.duplicates, "duplicate slice") + " dropped")
        if self.overlapping:
            parts.append(_count(self.overlapping, "overlapping slice") + " moved to extra rows")
        if self.open_slices:
            parts.append(_count(self.open_slices, "unclosed B event") + " drawn to the end")
        if self.warnings:
            parts.append(_count(self.warnings, "warning"))
        return ", ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}".replace(",", " ")


def counts_of(report: LoadReport) -> CardCounts:
    return CardCounts(report.error, report.dropped_events, report.truncated_offset if report.truncated else None,
                      report.duplicates_dropped, report.overlapping_slices, report.open_slices, len(report.warnings))


def counts_of_json(doc: dict) -> CardCounts:
    """The counts of a report saved as :meth:`LoadReport.to_json` (its warnings hold the truncation too)."""
    truncated = bool(doc.get("truncated"))
    warnings = len(doc.get("warnings") or []) - int(truncated)
    return CardCounts("", int(doc.get("dropped_events") or 0), doc.get("truncated_offset") if truncated else None,
                      int(doc.get("duplicates_dropped") or 0), int(doc.get("overlapping_slices") or 0),
                      int(doc.get("open_slices") or 0), max(warnings, 0))


def json_lines(doc: dict) -> str:
    """A saved report's lines, as :meth:`LoadReport.summary` words a loaded one."""
    lines = list(doc.get("warnings") or [])
    for reason, n in sorted((doc.get("dropped_by_reason") or {}).items(), key=lambda kv: -kv[1]):
        lines.append(f"  {n} × {reason}")
    examples = doc.get("examples") or []
    if examples:
        lines.append("First problems:")
        lines.extend(f"  {e}" for e in examples[:10])
    return "\n".join(lines)


class CardReport(NamedTuple):
    """One card in the dialog: its name, its counts, its report's lines and where it was read from."""

    card: str
    counts: CardCounts
    text: str
    source: str = ""


def _compose(entries: list[CardReport], notes: list[str]) -> ReportText:
    """Counts first (a total, then one line per card with remarks, those that lost data first), then each
    card's full report; ``notes`` follow the counts."""
    with_remarks = [e for e in entries if e.counts.text() or e.text]
    lost = [e for e in with_remarks if e.counts.lost]
    ordered = lost + [e for e in with_remarks if not e.counts.lost]
    if not with_remarks:
        head = [] if notes else [NO_REMARKS]  # not with cards unsummarised or without a kept report
    else:
        total = f"{_count(len(entries), 'card')}: {len(lost)} lost data"
        if len(with_remarks) > len(lost):
            total += f", {len(with_remarks) - len(lost)} with remarks only"
        head = [total + "."] + [f"{e.card}: {e.counts.text() or 'remarks'}" for e in ordered]
    body = "\n\n".join(f"{e.card}{f' ({e.source})' if e.source else ''}:\n{e.text}" for e in ordered if e.text)
    return ReportText("\n".join(head + notes), body)


def trace_report(cards, notes: list[str] | None = None) -> ReportText:
    """The report of loaded cards (``CardView``s: their stores' reports); ``notes``: parts of the analysis
    that failed, after the counts."""
    entries = []
    for c in cards:
        r = c.store.report
        paths = ", ".join(str(p) for p in c.store.paths) or "no file"
        entries.append(CardReport(c.title, counts_of(r), r.summary(), paths))
    return _compose(entries, list(notes or []))


def summary_report(session, loaded_cards) -> ReportText:
    """The report of a summary folder: its cards' saved reports (or where they are printed), the cards that
    could not be summarised, and the report of any card trace loaded from it (``loaded_cards``)."""
    entries = []
    kept = False
    for card in session.cards:
        doc = card.manifest.get("load_report")
        if isinstance(doc, dict):
            kept = True
            entries.append(CardReport(card.card, counts_of_json(doc), json_lines(doc)))
        elif isinstance(doc, str):
            kept = True
            entries.append(CardReport(card.card, CardCounts("", 0, None, 0, 0, 0, int(bool(doc))), doc))
    notes = []
    failed = list(session.failed or [])
    if failed:
        notes.append(f"{_count(len(failed), 'card')} could not be summarised:")
        notes += [f"  {e.get('card')}: {e.get('error') or 'failed'}" for e in failed]
    if not kept:
        notes.append(SUMMARY_REPORTS)
    text = _compose(entries, notes) if kept else ReportText("\n".join(notes), "")
    loaded = trace_report(loaded_cards) if loaded_cards else None
    if loaded is not None:
        traces = "Traces loaded from the summary: " + loaded.headline.replace("\n", "\n  ")
        body = "\n\n".join(t for t in (text.body, loaded.body) if t)
        return ReportText(f"{text.headline}\n{traces}".strip(), body)
    return text


class LoadReportDialog(QtWidgets.QDialog):
    """The counts at the top, every card's report in a scrollable text under them; not modal."""

    def __init__(self, report: ReportText, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Load report")
        self.setModal(False)
        lay = QtWidgets.QVBoxLayout(self)
        self.headline = QtWidgets.QLabel(report.headline)
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.headline.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.headline)
        self.text = QtWidgets.QPlainTextEdit(report.body)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)  # paths and bytes on one line
        self.text.setVisible(bool(report.body))
        lay.addWidget(self.text, 1)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay.addWidget(buttons)
        if report.body:
            self.resize(*DIALOG_SIZE)
