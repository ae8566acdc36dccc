"""The derived lanes under a card speak its producer's words: a Kineto card's compute is its GPU kernels
and its gaps are idle GPU gaps; an Ascend card keeps the AI Core words."""

from __future__ import annotations

import json

from tests.producers.test_kineto_trace import kineto_trace
from timelineview.model import load
from timelineview.synthetic import CardSpec, generate_card
from timelineview.viewstate.card_view import prepare_card


def _titles_and_tips(store) -> dict[str, tuple[str, str]]:
    card = prepare_card(store, 0)
    return {lane.key: (lane.title, lane.tooltip) for lane in card.derived_lanes}


def test_a_kineto_card_says_gpu(tmp_path):
    path = tmp_path / "host_1.1700000000.pt.trace.json"
    path.write_text(json.dumps(kineto_trace()))
    (store,) = load(path)
    lanes = _titles_and_tips(store)
    assert lanes["idle_gaps"][0] == "Idle GPU gaps"
    assert lanes["compute"] == ("Computing", "GPU kernels other than NCCL's (union)")
    assert not any("AI Core" in title or "AI Core" in tip for title, tip in lanes.values())


def test_an_ascend_card_keeps_the_ai_core_words(tmp_path):
    path = tmp_path / "msprof_1.json"
    generate_card(path, CardSpec(), "msprof")
    (store,) = load(path)
    lanes = _titles_and_tips(store)
    assert lanes["idle_gaps"][0] == "Idle AI Core gaps"
    assert lanes["compute"] == ("Computing", "AI Core / Vector / CPU tasks (union)")
