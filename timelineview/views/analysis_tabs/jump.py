"""Turn a :class:`JumpTarget` into what the timeline shows: the card, the span, the lane or operator."""

from __future__ import annotations

from timelineview.viewstate.jump_target import JumpTarget, lane_index
from timelineview.viewstate.timeline.lane_layout import LANE

SPAN_MARGIN = 0.1  # of the span, either side
MIN_SPAN_NS = 2_000


def jump_to(cluster_tab, target: JumpTarget) -> bool:
    """Show ``target`` in the timeline tab of the window ``cluster_tab`` belongs to; False when its
    card is not loaded. The card is shown alone when it is not on screen; the window zooms to the
    span; an operator's slices in the span are highlighted (Enter steps through them), a lane's span
    is selected as an area (its statistics in the Details panel). With a summary folder open there is no
    trace: the card's drill-down shows it from its summary."""
    end_ns = max(target.end_ns, target.start_ns + 1)
    margin = max(int((end_ns - target.start_ns) * SPAN_MARGIN), MIN_SPAN_NS)  # (the same on either clock)
    shown = getattr(cluster_tab, "shown", None)
    if shown is not None and not shown.has_slices:  # the card from its summary: a drill-down shows it
        if not any(c.number == target.card for c in shown.cards):
            return False
        cluster_tab.drill([target.card])
        t0, t1 = target.start_ns, end_ns
        # from its pyramid, or its trace once loaded; the target span marked on either
        cluster_tab.overview.show_span(t0 - margin, t1 + margin, mark=(t0, t1))
        return True
    timeline = cluster_tab.timeline
    cards = cluster_tab.all_cards or list(timeline.cards)
    card = next((c for c in cards if c.number == target.card), None)
    if card is None:
        return False
    if timeline.ctx.card_by_number(target.card) is None:
        cluster_tab.drill([target.card])
    ctx = timeline.ctx
    t0, t1 = ctx.rel(card, target.start_ns), ctx.rel(card, end_ns)
    cluster_tab.tabs.setCurrentIndex(0)
    timeline.set_range(t0 - margin, t1 + margin)
    store = card.store
    lane = None
    if target.lane:
        lane = lane_index(store.processes.name, [int(p) for p in store.lanes.process], list(store.lanes.name),
                          target.lane)
    if target.slices is not None:
        timeline.highlight_slices(target.card, target.slices, target.name or "")
        _reveal_card(timeline, target.card)
    elif target.name:  # its first slice is selected and scrolled into view; none: the card is
        if timeline.highlight_name(target.card, target.name, target.start_ns, target.end_ns,
                                   [lane] if lane is not None else None) is None:
            _reveal_card(timeline, target.card)
    else:
        row = None
        if lane is not None:
            timeline.expand_to_lane(target.card, lane)
            row = timeline.ctx.layout.find(LANE, target.card, lane)
        elif target.lane:  # a derived lane of the card (Steps, Computing, ...), by its title
            row = next((r for r in timeline.ctx.layout.rows_of_card(target.card)
                        if not r.is_group and r.title == target.lane), None)
        if row is not None:
            timeline.select_area(t0, t1, row.y, row.bottom - 1)  # (a band holds the rows it meets)
        else:
            timeline.select_area(t0, t1, rows_of_card=target.card)
        _reveal_card(timeline, target.card)
    timeline.setFocus()
    return True


def _reveal_card(timeline, card: int) -> None:
    """Scroll the selected rows of ``card`` into view (its header with them): with many cards on the
    timeline, the span's card may sit pages below the one on screen."""
    rows = timeline.ctx.layout.rows_of_card(card)
    if not rows:
        return
    sel = timeline.ctx.area_selection
    y0, y1 = (sel.y0, sel.y1) if sel is not None and card in sel.cards else (rows[0].y, rows[-1].bottom)
    header = rows[0].y
    if y1 - header <= timeline.ctx.area.height:  # the card's name in view above the band when it fits
        y0 = header
    timeline.reveal_rows(y0, y1)
