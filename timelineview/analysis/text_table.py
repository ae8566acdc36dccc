"""Plain-text tables for the terminal: text left-aligned, numbers right-aligned."""

from __future__ import annotations

from typing import Any

from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.terminal_text import terminal_safe


def format_cell(value: Any) -> str:
    """A cell's text, control characters escaped (``terminal_text``): cells hold names from traces."""
    if value is None:
        return "-"
    if isinstance(value, (bool, int, float)):  # the text surface's one formatter: grouped digits, 3 decimals
        return format_number(value)
    return terminal_safe(value)


def format_table(header: list[str], rows: list[list[Any]]) -> str:
    """Columns padded to their widest cell; a rule under the header. The header is escaped as the cells are
    (a query's column names may come from a trace: a ``PIVOT`` on names)."""
    header = [terminal_safe(h) for h in header]
    cells = [[format_cell(v) for v in row] for row in rows]
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in rows) if rows else False
               for i in range(len(header))]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric, strict=True)).rstrip()

    out = [line(list(header)), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in cells)
    return "\n".join(out)
