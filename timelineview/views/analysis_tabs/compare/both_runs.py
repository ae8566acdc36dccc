"""Both runs on the window's timeline: each base card with the new run's matched card right under it,
aligned at the start of a chosen step. One viewport holds them, so zoom and pan (W/A/S/D,
wheel, drag) move both runs together."""

from __future__ import annotations

from timelineview.views.timeline.tracks import registry
from timelineview.viewstate.tabs.run_alignment import (
    CardPair,
    RunCardView,
    aligned_offsets,
    interleaved,
    step_end,
    step_label,
    step_start,
    step_window_rel,
)
from timelineview.viewstate.tabs.run_layout import pairs_builder

STEP_MARGIN = 0.02  # of the window, either side of the chosen step


def show_both_runs(cluster_tab, pairs: list[CardPair], unmatched: list[RunCardView], position: int,
                   lane_by_lane: bool = True) -> bool:
    """Put ``pairs`` (base, new) and the new run's ``unmatched`` cards on the timeline of ``cluster_tab``
    with the ``position``-th step of both runs starting at the same x, zoomed to that step; False when
    there is nothing to show. ``lane_by_lane``: each base lane is followed by the new run's same lane
    (else each base card by its new card)."""
    if not pairs and not unmatched:
        return False
    timeline = cluster_tab.timeline
    timeline.set_layout_builder(pairs_builder(pairs, unmatched, registry.TRACK_KINDS) if lane_by_lane else None)
    offsets = aligned_offsets(pairs, unmatched, position)
    for _, new in pairs:
        new.offset_ns = new.estimated_offset_ns = offsets.get(new.number, new.offset_ns)
    for new in unmatched:
        new.offset_ns = new.estimated_offset_ns = offsets.get(new.number, new.offset_ns)
    cards = interleaved(pairs, unmatched)
    timeline.set_cards(cards)
    window = step_window_rel(pairs, position, offsets, timeline.ctx.origin)
    if window is not None:
        t0, t1 = window
        margin = int((t1 - t0) * STEP_MARGIN)
        timeline.set_range(t0 - margin, t1 + margin)
    bar = cluster_tab.bar  # the strip above the timeline: what is shown, Show all cards (the base run), lanes
    aligned = f", aligned at {step_label(pairs, position)}" if window is not None else ""
    bar.show_runs(f"Base and new run: {len(pairs)} card pair(s){aligned}"
                  + (f", {len(unmatched)} card(s) only in the new run" if unmatched else "")
                  + "; the new run's lane under each base lane")
    cluster_tab.update_bar()
    bar.show()
    cluster_tab.tabs.setCurrentIndex(0)
    timeline.setFocus()
    return True


def highlight_in_both(timeline, name: str, position: int) -> int:
    """Highlight the slices named ``name`` inside the ``position``-th step of every card shown (both
    runs); the first base card's first one is selected, Enter steps through all. Returns how many."""
    spans = {}
    for card in timeline.cards:
        s, e = step_start(card, position), step_end(card, position)
        if s is None or e is None:
            s, e = card.store.t_origin, max(card.store.t_end, card.store.t_origin + 1)
        spans[card.number] = (s, e)
    return timeline.highlight_in_cards(name, spans)
