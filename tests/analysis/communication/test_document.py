"""The §6 fields of ``stats`` (JSON and text) on a generated cluster with a planted slow link."""

from __future__ import annotations

import json

import pytest

from tests.analysis.factory import HW, Sl, build_store
from timelineview.analysis.summary import format_text, stats_document
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

LINK_KEYS = ["link", "src", "dst", "transport", "link_type", "bytes", "transit_us", "count", "bandwidth_gbps"]
OP_KEYS = ["name", "start_ns", "elapse_us", "plane", "transit_us", "wait_us", "synchronization_us", "idle_us",
           "wait_ratio", "all_planes", "bandwidth"]
CARD_KEYS = ["comm_ops", "links", "local_links", "measured_operators", "transit_us", "wait_us", "synchronization_us",
             "idle_us", "wait_ratio", "all_planes"]


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    out = tmp_path_factory.mktemp("doc") / "cluster"
    truths = generate_cluster(out, cluster_specs(4, seed=3, steps=2, tasks_per_step=60, slow_link=(2, 3),
                                                 slow_link_factor=3.0))
    return stats_document(load(out)), truths


def test_cards_carry_their_communication(doc) -> None:
    d, truths = doc
    assert {"cards", "slow_cards", "links", "slow_links"} <= set(d)
    for card, truth in zip(d["cards"], truths, strict=True):
        comm = card["communication"]
        assert list(comm) == CARD_KEYS
        assert [list(op) for op in comm["comm_ops"][:1]] == [OP_KEYS]
        assert [op["name"] for op in comm["comm_ops"]] == [op["name"] for op in truth.comm_ops]
        # the generator's truth is the union over every plane: the all_planes figures (the headline is
        # the producer's main-plane rule, checked in test_producer_figures_generated)
        union = comm["all_planes"]
        assert union["transit_us"] == pytest.approx(sum(op["transit_ns"] for op in truth.comm_ops) / 1000)
        assert union["wait_us"] == pytest.approx(sum(op["wait_ns"] for op in truth.comm_ops) / 1000)
        assert [list(x) for x in comm["links"][:1]] == [LINK_KEYS]
        assert {(x["src"], x["dst"]): x["bytes"] for x in comm["links"]} == \
            {(x["src"], x["dst"]): x["bytes"] for x in truth.links}
    json.dumps(d)


def test_cluster_links_and_the_slow_one(doc) -> None:
    d, truths = doc
    assert d["slow_links"] == ["2-3"]
    links = {x["link"]: x for x in d["links"]}
    assert len(links) == sum(len(t.links) for t in truths) == 4 * 3  # a mesh of 4 ranks, each sender once
    assert [k for k, x in links.items() if x["slow"]] == ["2-3"]
    x = links["2-3"]
    assert x["bandwidth_gbps"] == pytest.approx(x["bytes"] / (x["transit_us"] * 1000))
    assert x["bandwidth_gbps"] < 0.5 * links["2-1"]["bandwidth_gbps"]


def test_text_lists_links_and_slow_links_after_the_cards(doc) -> None:
    text = format_text(doc[0])
    # the sections, by their headings (the card table has a row "Communication (µs)" too: the quantity's label)
    assert text.index("\n\nSlow cards") < text.index("\n\nCommunication (µs)\n") < text.index("\n\nLinks\n") < \
        text.index("Slow links: 2-3")
    assert "0-1" in text.split("Links")[1]


def test_a_trace_without_plane_tasks_has_null_communication() -> None:
    d = stats_document([build_store([Sl(HW, "a", 0, 5, "AI_CORE")])])
    assert d["cards"][0]["communication"] is None
    assert d["links"] == [] and d["slow_links"] == []
    assert "Links" not in format_text(d)
