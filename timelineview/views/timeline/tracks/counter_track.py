"""CounterTrackItem: the counter series of one card as step line plots with a light fill."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from timelineview.views.painting import draw_rects
from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.tracks.column_plot import merged_columns, value_y
from timelineview.views.timeline.view_context import ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.counter_units import counter_unit, format_counter
from timelineview.viewstate.palette import SLICE_COLOURS, name_colour
from timelineview.viewstate.timeline.lane_layout import COUNTER
from timelineview.viewstate.timeline.lod import counter_columns


class CounterTrackItem(CardTrackItem):
    """All counter rows of one card; per pixel the min/max of the samples keeps spikes visible."""

    def __init__(self, ctx: ViewContext, card: CardView) -> None:
        super().__init__(ctx, card, font_delta=-1.5)
        self._ranges: dict[int, tuple[float, float]] = {}
        self._parts: list[tuple[QtGui.QColor, np.ndarray, np.ndarray]] = []  # colour, fill, line
        self._texts: list[tuple[int, int, QtGui.QStaticText]] = []

    def value_range(self, series: int) -> tuple[float, float]:
        """Scale of a series: its min/max over the whole trace, including 0 for positive data."""
        if series not in self._ranges:
            _, v = self.card.store.counters.series(series)
            finite = v[np.isfinite(v)]
            lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
            lo = min(lo, 0.0)
            self._ranges[series] = (lo, hi if hi > lo else lo + 1.0)
        return self._ranges[series]

    def _draw(self, p: QtGui.QPainter) -> None:
        ctx = self.ctx
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        for colour, fill, line in self._parts:
            soft = QtGui.QColor(colour)
            soft.setAlpha(70)
            p.setBrush(soft)
            draw_rects(p, fill)
            p.setBrush(colour)
            draw_rects(p, line)
        if self._texts:
            p.setFont(self.labels.font)
            p.setPen(ctx.theme.muted)
            for x, y, st in self._texts:
                p.drawStaticText(x, y, st)

    def _prepare(self) -> None:
        ctx, card = self.ctx, self.card
        self._parts, self._texts = [], []
        width = ctx.area.width
        if width <= 0:
            return
        t0, t1 = ctx.abs_window(card)
        left = ctx.area.left
        counters = card.store.counters
        for row in ctx.visible_rows(card.number):
            if row.kind != COUNTER:
                continue
            ts, values = counters.series(row.series)
            has, low, high = counter_columns(ts, values, t0, t1, width)
            lo, hi = self.value_range(row.series)
            top = int(ctx.scene_y(row.y)) + 3
            h = row.height - 6
            base = top + h
            x = np.flatnonzero(has)
            y_hi = value_y(high[x], base, lo, hi, h)
            y_lo = value_y(low[x], base, lo, hi, h)
            y_zero = int(value_y(np.array([max(lo, 0.0)]), base, lo, hi, h)[0])
            fill = merged_columns(x + left, np.minimum(y_hi, y_zero), np.maximum(y_hi, y_zero) + 1)
            line = merged_columns(x + left, y_hi - 1, y_lo + 1)
            rgb = SLICE_COLOURS[name_colour(counters.series_name[row.series])]
            colour = QtGui.QColor(*rgb).darker(115 if not ctx.theme.dark else 90)
            self._parts.append((colour, fill, line))
            unit = counter_unit(counters.series_name[row.series], counters.series_key[row.series])
            st = self.labels.get(f"max {format_counter(hi, unit)}", 160)
            if st is not None:
                self._texts.append((left + 4, top - 2, st))
