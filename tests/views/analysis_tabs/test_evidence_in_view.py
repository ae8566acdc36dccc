"""A finding's evidence on a card far down a cluster's timeline: the click moves time to the span and
scrolls the card into view, the span's lane (the card's Steps row) selected."""

from __future__ import annotations

import pytest

from tests.views.generated import generated_cluster

CARDS = 16
SLOW_DATA_CARD = 13  # pages below the first card on a 16-card timeline


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory):
    return generated_cluster(tmp_path_factory, "far", CARDS, seed=3, steps=4, tasks_per_step=60,
                             slow_data_card=SLOW_DATA_CARD)


def test_steps_evidence_scrolls_its_card_into_view(open_tab, window, cluster_dir, qtbot):
    view = open_tab(cluster_dir, "diagnosis", lambda tab: bool(tab.findings))
    k = next(i for i, f in enumerate(view.findings) if f.rule == "slow_data")
    finding = view.findings[k]
    assert finding.cards == [f"rank {SLOW_DATA_CARD}"] and finding.evidence[0].lane == "Steps"
    timeline = window.timeline
    assert len(timeline.cards) == CARDS
    with qtbot.waitSignal(view.jumpRequested) as sent:
        view.open_evidence(k, 0)
    number = sent.args[0].card
    ctx = timeline.ctx
    steps_row = next(r for r in ctx.layout.rows_of_card(number) if r.title == "Steps")
    header = ctx.layout.rows_of_card(number)[0]
    assert header.y > ctx.area.height  # the card starts below the first page: only a scroll shows it
    top, bottom = ctx.scroll_y, ctx.scroll_y + ctx.area.height
    assert top <= header.y and steps_row.bottom <= bottom  # its name and its Steps row are on screen
    sel = ctx.area_selection
    assert sel is not None and sel.cards == [number] and (sel.y0, sel.y1) == (steps_row.y, steps_row.bottom)
