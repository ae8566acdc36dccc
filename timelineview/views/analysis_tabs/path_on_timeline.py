"""A step's critical path drawn on the window's timeline: its slices outlined, the window on the step."""

from __future__ import annotations

from timelineview.viewstate.timeline.critical_path.path_slices import PathOnTimeline, path_on_timeline

STEP_MARGIN = 0.03  # of the step, either side, when the timeline zooms to it


def show_path(cluster_tab, step: dict | None, zoom: bool = False) -> PathOnTimeline | None:
    """Outline ``step``'s path (a ``critical_path`` item; None: none) on the loaded cards of ``cluster_tab``;
    ``zoom``: the Timeline tab shows the step, on every card of the path. Returns what is outlined."""
    timeline = cluster_tab.timeline
    cards = cluster_tab.all_cards or list(timeline.cards)
    if step is None or not cards:
        timeline.show_path({})
        return None
    path = path_on_timeline(step, cards)
    timeline.show_path(path.slices)
    if zoom and path.first_card >= 0:
        on_path = sorted(set(path.slices) | {path.first_card})
        if any(timeline.ctx.card_by_number(n) is None for n in on_path):
            cluster_tab.drill(on_path)
        for number, idx in path.slices.items():  # the lanes of the path open, so that its outlines show
            card = timeline.ctx.card_by_number(number)
            if card is not None:
                for lane in sorted(set(card.store.slices.lane[idx].tolist())):
                    timeline.expand_to_lane(number, lane)
        card = timeline.ctx.card_by_number(path.first_card)
        if card is not None:
            margin = int((path.end_ns - path.start_ns) * STEP_MARGIN)
            cluster_tab.tabs.setCurrentIndex(0)
            timeline.set_range(timeline.ctx.rel(card, path.start_ns) - margin,
                               timeline.ctx.rel(card, path.end_ns) + margin)
            most = max(path.slices, key=lambda n: len(path.slices[n]), default=path.first_card)
            rows = timeline.ctx.layout.rows_of_card(most)
            if rows:  # the card holding most of the path at the top of the timeline
                timeline.set_scroll(int(rows[0].y))
    return path
