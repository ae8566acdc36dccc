"""Turn a :class:`JumpTarget` into what the timeline shows: the card, the span, the lane or operator."""

from __future__ import annotations

from timelineview.viewstate.jump_target import JumpTarget, lane_index, step_holding
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
    # the strip names the step the jump shows (a drill-down above named the card's worst step)
    cluster_tab.show_step(step_holding(cluster_tab.steps_of(target.card), target.start_ns, end_ns))
    store = card.store
    lane = None
    if target.lane:
        lane = lane_index(store.processes.name, [int(p) for p in store.lanes.process], list(store.lanes.name),
                          target.lane)
    if target.slices is not None:
        timeline.highlight_slices(target.card, target.slices, target.name or "")
    elif target.name:
        timeline.highlight_name(target.card, target.name, target.start_ns, target.end_ns,
                                [lane] if lane is not None else None)
    elif lane is not None:
        timeline.expand_to_lane(target.card, lane)
        row = timeline.ctx.layout.find(LANE, target.card, lane)
        if row is not None:
            timeline.select_area(t0, t1, row.y, row.y + row.height)
    else:
        timeline.select_area(t0, t1, rows_of_card=target.card)
    timeline.setFocus()
    return True
