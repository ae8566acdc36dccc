"""Findings ordered by what fixing them gains (metrics.md §12): on generated clusters holding a 1.15× card and
a 3× link at once, the finding whose fix truly gains more — measured on the same seed generated without
the other problem — comes first, each priced, each saying how often it is on the critical path."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.findings.text import findings_text
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster

SLOW_CARD = {"slow_card": 5, "slow_factor": 1.15}
SLOW_LINK = {"slow_link": (2, 3), "slow_link_factor": 3.0, "slow_link_delays": True}
# Few tasks a step: the link's transfers outweigh the card's extra compute; many: the other way round.
SIZES = {"link_costs_more": 160, "card_costs_more": 3200}


def measured_step_us(session) -> float:
    """The mean step, each the median over the cards of their step windows (independent of the graph)."""
    return float(np.median([[s["dur_us"] for s in c["steps"]] for c in session.card_documents], axis=0).mean())


@pytest.fixture(scope="module", params=list(SIZES))
def clusters(request, tmp_path_factory):
    """The cluster with both problems, and the same seed with only the card or only the link."""
    base = {"seed": 7, "steps": 3, "tasks_per_step": SIZES[request.param]}
    out = {}
    for name, extra in {"both": {**SLOW_CARD, **SLOW_LINK}, "card_only": SLOW_CARD, "link_only": SLOW_LINK}.items():
        folder = tmp_path_factory.mktemp(f"{request.param}_{name}")
        generate_cluster(folder, cluster_specs(8, **base, **extra), "msprof", options=WriteOptions(step_trace=True))
        out[name] = AnalysisSession(load(folder))
    return out


def test_the_finding_whose_fix_gains_more_comes_first(clusters):
    both = clusters["both"]
    now = measured_step_us(both)
    true_gain = {"slow_compute": now - measured_step_us(clusters["link_only"]),
                 "slow_link": now - measured_step_us(clusters["card_only"])}
    assert min(true_gain.values()) > 0.005 * now  # both problems cost time, else the order says nothing
    doc = both.stats_document()
    rules = [f["rule"] for f in doc["findings"]]
    assert {"slow_compute", "slow_link"} <= set(rules)
    first = min(true_gain, key=lambda r: -true_gain[r])
    second = "slow_link" if first == "slow_compute" else "slow_compute"
    assert rules.index(first) < rules.index(second)
    priced = {f["rule"]: f for f in doc["findings"] if f["rule"] in true_gain}
    assert priced["slow_compute"]["cards"] == ["rank 5"] and "rank 5 computes" in priced["slow_compute"]["what_if"]
    assert "link 2-3" in priced["slow_link"]["what_if"]
    for rule, f in priced.items():
        assert f["gain_us"] > 0
        w = next(w for w in doc["what_if"] if w["change"] == f["what_if"])
        assert w["finding"] == rule and f["gain_us"] == w["gain_us"]
    assert priced[first]["gain_us"] > priced[second]["gain_us"]


def test_each_finding_says_how_often_it_is_on_the_critical_path(clusters):
    doc = clusters["both"].stats_document()
    steps = doc["critical_path"]
    card = next(f for f in doc["findings"] if f["rule"] == "slow_compute")
    on_path = sum("rank 5" in s["cards"] for s in steps)
    assert (card["steps_on_critical_path"], card["steps_priced"]) == (on_path, len(steps))
    # the slow link is on the path when a collective on it moved data over the link (a plain walk of the path)
    link = next(f for f in doc["findings"] if f["rule"] == "slow_link")
    g = clusters["both"].critical_path.graph
    on_link = 0
    for k, s in enumerate(steps):
        names = {seg["name"] for seg in s["segments"] if seg["kind"] == "collective"}
        ops = {j for j, name in enumerate(g.op_names[k]) if name in names}
        on_link += any(g.links.link[r] == "2-3" and int(g.links.step[r]) == k and int(g.links.op[r]) in ops
                       for r in range(len(g.links.link)))
    assert (link["steps_on_critical_path"], link["steps_priced"]) == (on_link, len(steps)) and on_link > 0
    text = findings_text(doc["findings"])
    assert f"on the critical path in {on_path} of {len(steps)} steps" in text
    assert text.index("slow_compute") != text.index("slow_link")
    order = [f["rule"] for f in doc["findings"]]
    assert (text.index("slow_compute") < text.index("slow_link")) == (order.index("slow_compute") <
                                                                      order.index("slow_link"))
