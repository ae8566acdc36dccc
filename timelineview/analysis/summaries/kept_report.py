"""A card's load report as its summary keeps it (the manifest's ``load_report``), and back.

The manifest holds ``LoadReport.to_json()`` (what the Load report dialog lists) plus the one field that
object leaves out, ``truncated_path``; :func:`report_from_json` rebuilds a :class:`LoadReport` whose
``overview`` and ``to_json`` are those of the card's load, so ``stats`` on a summary says on stderr what
it says on the traces. No Qt.
"""

from __future__ import annotations

import re
from collections import Counter

from timelineview.model.store.report import LoadReport, Problem

KEY = "load_report"
# ``Problem.__str__``: "PATH[ @ byte N][, event #K]: reason"
_PLACED = re.compile(r"(?P<path>.+?) @ byte (?P<offset>\d+)(?:, event #(?P<event>\d+))?: (?P<reason>.*)", re.S)
_UNPLACED = re.compile(r"(?P<path>.*?)(?:, event #(?P<event>\d+))?: (?P<reason>.*)", re.S)


def report_json(report: LoadReport) -> dict:
    """What a card's manifest keeps of its load report."""
    return {**report.to_json(), "truncated_path": report.truncated_path if report.truncated else ""}


def report_from_json(doc: dict) -> LoadReport:
    """The :class:`LoadReport` a manifest's ``load_report`` was made from (its examples, counts, warnings)."""
    r = LoadReport()
    r.counts_by_ph = Counter(doc.get("counts_by_ph") or {})
    r.dropped = Counter(doc.get("dropped_by_reason") or {})
    r.examples = [_problem(text) for text in doc.get("examples") or []]
    warnings = list(doc.get("warnings") or [])
    r.truncated = bool(doc.get("truncated"))
    if r.truncated:
        r.truncated_path = doc.get("truncated_path", "")
        r.truncated_offset = int(doc.get("truncated_offset", -1))
        if warnings:  # ``to_json`` put the truncation first among the warnings
            warnings.pop(0)
    r.warnings = warnings
    r.duplicates_dropped = int(doc.get("duplicates_dropped", 0))
    r.overlapping_slices = int(doc.get("overlapping_slices", 0))
    r.open_slices = int(doc.get("open_slices", 0))
    return r


def manifest_report(manifest: dict) -> LoadReport | None:
    """The load report a card's manifest keeps (None for a summary made before it was kept)."""
    doc = manifest.get(KEY)
    return report_from_json(doc) if isinstance(doc, dict) else None


def remark(report: LoadReport) -> str:
    """The load's problems in a few words for ``summarize``'s line ("" when there is nothing to say)."""
    parts = []
    if report.dropped_events:
        n = report.dropped_events
        parts.append(f"{n:,} event{'' if n == 1 else 's'} dropped")
    if report.truncated:
        parts.append(f"truncated at byte {report.truncated_offset}")
    if report.warnings and not parts:
        n = len(report.warnings)
        parts.append(f"{n} load warning{'' if n == 1 else 's'}")
    return ", ".join(parts)


def _problem(text: str) -> Problem:
    placed = _PLACED.fullmatch(text)
    if placed:
        return Problem(placed["path"], int(placed["offset"]), int(placed["event"] or -1), placed["reason"])
    unplaced = _UNPLACED.fullmatch(text)
    if unplaced:
        return Problem(unplaced["path"], -1, int(unplaced["event"] or -1), unplaced["reason"])
    return Problem("", -1, -1, text)
