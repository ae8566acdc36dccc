"""Geometry of the Compare tab's paired bars: per card and step phase, the base run's bar above the new
run's, on one scale. No Qt: the widget only paints these rectangles."""

from __future__ import annotations

from typing import NamedTuple

from timelineview.analysis.vocabulary import declared, label

LABEL_W = 190  # px: "rank 12 · Step interval"
VALUE_W = 150  # px right of the bars: "+1.23 ms (+12 %)"
ROW_H = 30  # px per card and phase: two bars and a gap
BAR_H = 11
BAR_GAP = 2
GROUP_GAP = 8  # px between cards


def phase_title(key: str) -> str:
    """The title of a step phase: its label in the vocabulary, else its key in words."""
    return label(key) if declared(key) else key.removesuffix("_us").replace("_", " ").capitalize()


class Rect(NamedTuple):
    x: float
    y: float
    w: float
    h: float


class PairedBar(NamedTuple):
    """One card's phase: values (µs, None when a run lacks it) and where its two bars go."""

    card: str
    phase: str
    base_us: float | None
    new_us: float | None
    label_y: float
    base: Rect
    new: Rect

    @property
    def delta_us(self) -> float | None:
        return None if self.base_us is None or self.new_us is None else self.new_us - self.base_us


class PhaseValues(NamedTuple):
    """Input of one row: a card, a phase key, its mean in both runs (µs)."""

    card: str
    phase: str
    base_us: float | None
    new_us: float | None


def paired_bars(rows: list[PhaseValues], width: float) -> tuple[list[PairedBar], float]:
    """The bars of ``rows`` in a chart ``width`` px wide, and the chart's height. Bars start at
    :data:`LABEL_W` and the longest value of either run spans the space up to :data:`VALUE_W`
    from the right; a missing value has a zero-width bar."""
    values = [v for r in rows for v in (r.base_us, r.new_us) if v is not None]
    longest = max(values, default=0.0)
    span = max(width - LABEL_W - VALUE_W, 1.0)
    scale = span / longest if longest > 0 else 0.0
    out, y, last_card = [], 0.0, None
    for r in rows:
        if last_card is not None and r.card != last_card:
            y += GROUP_GAP
        last_card = r.card
        top = y + (ROW_H - 2 * BAR_H - BAR_GAP) / 2
        base = Rect(LABEL_W, top, (r.base_us or 0.0) * scale, BAR_H)
        new = Rect(LABEL_W, top + BAR_H + BAR_GAP, (r.new_us or 0.0) * scale, BAR_H)
        out.append(PairedBar(r.card, r.phase, r.base_us, r.new_us, y + ROW_H / 2, base, new))
        y += ROW_H
    return out, y
