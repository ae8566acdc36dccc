"""The critical path and what-ifs as text tables (``stats`` without ``--json``)."""

from __future__ import annotations

from timelineview.analysis.critical_path.document import block_split, steps_on_path
from timelineview.analysis.text_table import format_table
from timelineview.analysis.vocabulary.number_text import DECIMALS, format_number
from timelineview.analysis.vocabulary.quantity import MICROSECONDS

TOP_SHARES = 3  # op types and collectives named per step


def critical_path_text(doc: dict) -> str:
    """'What it costs' (metrics.md §12): the what-ifs, then per step the cards and the largest shares on
    its path, and how much of its compute blocks the cards computed and how much were dispatch gaps; "" when
    the document has no critical path."""
    steps = doc.get("critical_path") or []
    if not steps:
        return ""
    rows = [[w["change"], w["step_us_now"], w["step_us_predicted"], w["gain_us"]] for w in doc.get("what_if", [])]
    parts = ["What it costs: what-if (mean step, µs; each replays the steps with one change)\n"
             + format_table(["change", "now", "predicted", "gain"], rows)]
    on_path = steps_on_path(steps)
    lines = ["Critical path per step (share of the step)",
             "  on the path: " + ", ".join(f"{card} in {n} of {len(steps)} steps" for card, n in on_path.items())]
    for s in steps:
        top = list(s["share_by_op_type"].items())[:TOP_SHARES] + list(s["share_by_collective"].items())[:TOP_SHARES]
        cards = ", ".join(f"{c} {100 * v:.0f} %" for c, v in s["share_by_card"].items())
        split = block_split(s["segments"])
        lines.append(f"  step {s['step']} ({_us(s['step_us'])} µs): {cards}; "
                     + ", ".join(f"{name} {100 * v:.0f} %" for name, v in top)
                     + f"; its compute blocks: computing {_us(split.compute_us)} µs, "
                       f"dispatch gaps {_us(split.dispatch_gap_us)} µs")
    parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _us(value: float) -> str:
    """µs as every text table prints them: digits grouped, three decimals."""
    return format_number(value, DECIMALS[MICROSECONDS])
