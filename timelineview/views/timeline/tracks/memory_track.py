"""MemoryTrackItem: a card's memory components as step plots aligned with its timeline (metrics.md §11)."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.views.painting import draw_rects
from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.tracks.column_plot import merged_columns, value_y
from timelineview.views.timeline.view_context import ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.lod import counter_columns
from timelineview.viewstate.timeline.memory_rows import MEMORY, card_memory, shown_values

# each memory component's colour, on its timeline lane and in the Memory tab
COLOURS = {"APP": (140, 140, 140), "PTA": (40, 110, 200), "GE": (230, 140, 30), "PTA+GE": (60, 160, 80),
           "DEVICE": (150, 90, 170)}
OTHER_COLOUR = (120, 120, 120)


def _known(t: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = np.isfinite(v)
    return t[keep], v[keep]


class MemoryTrackItem(CardTrackItem):
    """Every memory row of one card: the main figure filled, reserved as a line, per pixel min/max."""

    def __init__(self, ctx: ViewContext, card: CardView) -> None:
        super().__init__(ctx, card, font_delta=-1.5)
        self._parts: list[tuple[QtGui.QColor, np.ndarray, np.ndarray, np.ndarray]] = []  # colour, fill, line, reserved
        self._texts: list[tuple[int, int, QtGui.QStaticText]] = []

    def _draw(self, p: QtGui.QPainter) -> None:
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        for colour, fill, line, reserved in self._parts:
            soft = QtGui.QColor(colour)
            soft.setAlpha(70)
            p.setBrush(soft)
            draw_rects(p, fill)
            p.setBrush(colour)
            draw_rects(p, line)
            p.setBrush(colour.lighter(140))
            draw_rects(p, reserved)
        if self._texts:
            p.setFont(self.labels.font)
            p.setPen(self.ctx.theme.muted)
            for x, y, st in self._texts:
                p.drawStaticText(x, y, st)

    def _prepare(self) -> None:
        ctx, card = self.ctx, self.card
        self._parts, self._texts = [], []
        memory = card_memory(card)
        width = ctx.area.width
        if memory is None or width <= 0:
            return
        t0, t1 = ctx.abs_window(card)
        left = ctx.area.left
        for row in ctx.visible_rows(card.number):
            if row.kind != MEMORY or not 0 <= row.series < len(memory.curves):
                continue
            curve = memory.curves[row.series]
            _, main = shown_values(curve)
            ts, values = _known(curve.time_ns, main)
            rt, rv = _known(curve.time_ns, curve.reserved_mb)
            hi = max(float(values.max()) if len(values) else 0.0, float(rv.max()) if len(rv) else 0.0, 1e-9)
            top = int(ctx.scene_y(row.y)) + 3
            h = row.height - 6
            base = top + h
            has, low, high = counter_columns(ts, values, t0, t1, width)
            x = np.flatnonzero(has)
            y_hi, y_lo = value_y(high[x], base, 0.0, hi, h), value_y(low[x], base, 0.0, hi, h)
            fill = merged_columns(x + left, y_hi, np.full(len(x), base + 1))
            line = merged_columns(x + left, y_hi - 1, y_lo + 1)
            r_has, _, r_high = counter_columns(rt, rv, t0, t1, width)
            rx = np.flatnonzero(r_has)
            ry = value_y(r_high[rx], base, 0.0, hi, h)
            reserved = merged_columns(rx + left, ry - 1, ry + 1)
            colour = QtGui.QColor(*COLOURS.get(curve.name, OTHER_COLOUR)).darker(110 if not ctx.theme.dark else 90)
            self._parts.append((colour, fill, line, reserved))
            peak = float(values.max()) if len(values) else 0.0
            text = f"peak {format_number(peak)} MB" + (f" · reserved {format_number(float(rv.max()))} MB"
                                                       if len(rv) else "")
            st = self.labels.get(text, 260)
            if st is not None:
                self._texts.append((left + 4, top - 2, st))
