"""SliceTrackItem: every slice lane of one card in one graphics item, painted in device pixels.

A frame asks the per-pixel LOD (``model.lod``) for the visible index rows, turns the result into
int32 QRect arrays, fills them grouped by colour with one native ``drawRects`` per colour, and adds
cached labels where a slice is wide enough. The prepared frame is cached until the window, layout,
theme or search changes, so cursor moves and hover repaints only redraw.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from timelineview.views.painting import LABEL_MIN_PX, draw_rects, fill_grouped, rect_array
from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.view_context import ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.lane_layout import LANE, LANE_PAD, SLICE_ROW_H, summarised_lanes
from timelineview.viewstate.timeline.lod import coverage, level_runs, lod_rects
from timelineview.viewstate.timeline.plane_colours import override_colours

MAX_LABELS = 1500
FOLD_LABEL_MIN_PX = 70
SUMMARY_LEVELS = 4
SUMMARY_ALPHA = (0, 70, 120, 175, 235)


class _Frame:
    """Everything needed to paint one window, prepared once."""

    def __init__(self) -> None:
        self.rects = np.zeros((0, 4), np.int32)
        self.colour_ids = np.zeros(0, np.int32)
        self.labels: list[tuple[QtGui.QColor, list[tuple[int, int, QtGui.QStaticText]]]] = []
        self.summary: list[tuple[int, np.ndarray]] = []  # (alpha level, rects)
        self.matched = np.zeros((0, 4), np.int32)


class SliceTrackItem(CardTrackItem):
    """Slices of one card (all its lanes), plus busy strips of its collapsed groups."""

    def __init__(self, ctx: ViewContext, card: CardView) -> None:
        super().__init__(ctx, card)
        self._label_ids: dict[tuple[int, int], QtGui.QStaticText | None] = {}
        self._frame = _Frame()
        self.setFlag(self.GraphicsItemFlag.ItemUsesExtendedStyleOption, False)

    def frame_key(self) -> tuple:
        return (self.ctx.view_key(), self.ctx.search_generation)

    # ------------------------------------------------------------------ paint
    def _draw(self, p: QtGui.QPainter) -> None:
        ctx = self.ctx
        f = self._frame
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        theme = ctx.theme
        for level, rects in f.summary:
            c = QtGui.QColor(theme.summary)
            c.setAlpha(SUMMARY_ALPHA[level])
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(c)
            draw_rects(p, rects)
        fill_grouped(p, f.rects, f.colour_ids, theme.fills + [theme.busy])
        if len(f.matched):
            p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            p.setPen(QtGui.QPen(theme.match, 2))
            draw_rects(p, f.matched)
        if f.labels:
            p.setFont(self.labels.font)
            for colour, items in f.labels:
                p.setPen(colour)
                for x, y, st in items:
                    p.drawStaticText(x, y, st)

    # ------------------------------------------------------------------ prepare
    def _prepare(self) -> None:
        self._frame = self._build_frame()

    def _build_frame(self) -> _Frame:
        ctx, card = self.ctx, self.card
        index = card.store.index
        frame = _Frame()
        if index is None or ctx.area.width <= 0:
            return frame
        area = ctx.area
        width = area.width
        t0, t1 = ctx.abs_window(card)
        view_top, view_bottom = area.top, area.bottom + 1
        bounds: list[tuple[int, int]] = []
        rows: list[int] = []
        ys: list[int] = []
        groups: list[tuple[int, int, list[int]]] = []
        for row in ctx.visible_rows(card.number):
            y = int(ctx.scene_y(row.y))
            if row.kind == LANE:
                first = int(index.lane_first_row[row.lane])
                for level in range(row.levels):
                    ly = y + LANE_PAD + level * SLICE_ROW_H
                    if ly + SLICE_ROW_H < view_top or ly > view_bottom:
                        continue
                    r = first + level
                    bounds.append((int(index.row_ptr[r]), int(index.row_ptr[r + 1])))
                    rows.append(r)
                    ys.append(ly)
            else:
                lanes = summarised_lanes(card, row)
                if lanes is not None:
                    groups.append((y + 4, row.height - 8, self._top_rows(lanes)))
        if bounds:
            self._prepare_slices(frame, bounds, rows, np.asarray(ys, np.int32), t0, t1, width)
        if groups:
            self._prepare_summary(frame, groups, t0, t1, width)
        return frame

    def _top_rows(self, lanes: np.ndarray) -> list[int]:
        """Index rows at nesting level 0 of a collapsed group: their union is the group's busy time."""
        index = self.card.store.index
        return [int(index.lane_first_row[ln]) for ln in lanes.tolist() if index.lane_row_count[ln] > 0]

    def _prepare_slices(self, frame: _Frame, bounds: list[tuple[int, int]], rows: list[int],
                        ys: np.ndarray, t0: int, t1: int, width: int) -> None:
        ctx, card = self.ctx, self.card
        store, index = card.store, card.store.index
        lr = lod_rects(index.starts, index.ends, bounds, t0, t1, width, rows=rows, summary=card.row_summary)
        if len(lr) == 0:
            return
        left = ctx.area.left
        y0 = ys[lr.row] + 1
        frame.rects = rect_array(lr.x0 + left, y0, lr.x1 + left, y0 + SLICE_ROW_H - 2)
        busy_id = len(ctx.theme.fills)
        detail = lr.pos >= 0
        slice_idx = np.where(detail, index.order[np.maximum(lr.pos, 0)], -1)
        names = np.where(detail, store.slices.name[np.maximum(slice_idx, 0)], -1)
        cid = np.where(detail, card.colours[names].astype(np.int32), busy_id)
        if ctx.plane_colours:
            cid = override_colours(card, slice_idx, cid)
        frame.colour_ids = cid
        # search matches: detail rects by slice, folded runs by a prefix count over index order
        cum = ctx.match_cum.get(card.number)
        mask = ctx.matches.get(card.number)
        if cum is not None and mask is not None:
            hit = np.where(detail, mask.mask[np.maximum(slice_idx, 0)],
                           cum[lr.first + lr.count] - cum[lr.first] > 0)
            if hit.any():
                m = frame.rects[hit].copy()
                m[:, 0] -= 1
                m[:, 2] += 1
                frame.matched = m
        self._prepare_labels(frame, lr, names, cid, y0)

    def _prepare_labels(self, frame: _Frame, lr, names: np.ndarray, cid: np.ndarray, y0: np.ndarray) -> None:
        widths = lr.x1 - lr.x0
        detail = lr.pos >= 0
        want = np.flatnonzero((detail & (widths >= LABEL_MIN_PX))
                              | (~detail & (lr.count > 1) & (widths >= FOLD_LABEL_MIN_PX)))
        if len(want) > MAX_LABELS:
            want = want[np.argsort(-widths[want], kind="stable")[:MAX_LABELS]]
        if len(want) == 0:
            return
        theme = self.ctx.theme
        pad_y = max((SLICE_ROW_H - 2 - self.labels.height) // 2, 0)
        # text colour class per rect: palette text colour, or the muted one on folded runs
        n_fill = len(theme.fills)
        text_class = np.where(detail[want], cid[want], n_fill)
        order = np.argsort(text_class, kind="stable")
        want, text_class = want[order], text_class[order]
        xs = (lr.x0[want] + self.ctx.area.left + 3).tolist()
        ys = (y0[want] + pad_y).tolist()
        buckets = ((widths[want] - 6) // 16).tolist()
        # key: name id for slices, -(count) - 2 for folded runs (never collides with ids >= -1)
        keys = np.where(detail[want], names[want], -lr.count[want] - 2).tolist()
        strings = self.card.store.strings
        cache = self._label_ids
        if len(cache) > 50_000:
            cache.clear()
        colours = theme.label_colours + [theme.busy_label]
        groups: dict[int, list] = {}
        for x, y, bucket, key, cls in zip(xs, ys, buckets, keys, text_class.tolist()):
            st = cache.get((key, bucket), False)
            if st is False:
                if key >= 0:
                    text = strings[key]
                elif key == -1:
                    text = "(unnamed)"
                else:
                    text = f"{-key - 2:,} slices".replace(",", " ")
                st = self.labels.get(text, bucket * 16)
                cache[(key, bucket)] = st
            if st is not None:
                groups.setdefault(cls, []).append((x, y, st))
        frame.labels = [(colours[cls], items) for cls, items in groups.items()]

    def _prepare_summary(self, frame: _Frame, groups: list[tuple[int, int, list[int]]],
                         t0: int, t1: int, width: int) -> None:
        index = self.card.store.index
        all_rows = [r for _, _, rows in groups for r in rows]
        all_bounds = [(int(index.row_ptr[r]), int(index.row_ptr[r + 1])) for r in all_rows]
        cov = coverage(index.starts, index.ends, all_bounds, t0, t1, width, rows=all_rows,
                       summary=self.card.row_summary)
        left = self.ctx.area.left
        k = 0
        per_level: dict[int, list[np.ndarray]] = {}
        for y, row_h, rows in groups:
            n = len(rows)
            if n == 0:
                continue
            frac = cov[k:k + n].sum(axis=0) / n
            k += n
            levels = np.ceil(frac * SUMMARY_LEVELS).astype(np.int8)[None, :]
            _, x0, x1, lv = level_runs(levels)
            for level in np.unique(lv):
                sel = lv == level
                rects = rect_array(x0[sel] + left, np.full(sel.sum(), y), x1[sel] + left,
                                   np.full(sel.sum(), y + max(row_h, 6)))
                per_level.setdefault(int(level), []).append(rects)
        frame.summary = [(lv, np.concatenate(r)) for lv, r in sorted(per_level.items())]
