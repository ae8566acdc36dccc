"""The vocabulary as a Markdown table, for docs/metrics.md: the docs render the declarations rather than
repeat them, and a test keeps the file equal to the rendering."""

from __future__ import annotations

from timelineview.analysis.vocabulary.declared import QUANTITIES

BEGIN = "<!-- vocabulary: generated from timelineview/analysis/vocabulary, do not edit by hand -->"
END = "<!-- end of vocabulary -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def vocabulary_table() -> str:
    """One row per quantity: key, label, unit, definition, the producer's name, the section defining it."""
    lines = ["| key | label | unit | definition | producer's name | § |", "|---|---|---|---|---|---|"]
    lines += [f"| `{q.key}` | {q.label} | {q.unit} | {_cell(q.definition)} | {q.producer or '—'} | {q.section} |"
              for q in QUANTITIES]
    return "\n".join(lines)


def replace_marked(text: str, begin: str, end: str, body: str) -> str:
    """``text`` with what lies between the ``begin`` and ``end`` marker lines replaced by ``body``."""
    head, found, rest = text.partition(begin)
    if not found or end not in rest:
        raise ValueError(f"the markers {begin!r} … {end!r} are missing")
    return f"{head}{begin}\n{body}\n{end}{rest.partition(end)[2]}"
