"""Generated memory files: the analysis reads back what was written, names a planted imbalance, and
finds nothing on a healthy cluster."""

from __future__ import annotations

import pytest

from timelineview.analysis.cluster.memory_peaks import peaks_imbalance, peaks_of_document
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory

MEMORY_RULES = {"memory_imbalance", "large_allocation", "fragmentation"}
CARDS = 6


def session(tmp_path, spec: MemorySpec, seed: int):
    truths = generate_cluster(tmp_path, cluster_specs(CARDS, seed=seed, steps=3, tasks_per_step=40), "msprof")
    memory = write_cluster_memory(truths, spec)
    return AnalysisSession(load(tmp_path)), memory


@pytest.mark.parametrize("seed", [1, 2])
def test_healthy_cluster_has_no_memory_finding(tmp_path, seed):
    s, truths = session(tmp_path, MemorySpec(seed=seed), seed)
    assert s.memory_imbalance == []
    assert not {f.rule for f in s.findings} & MEMORY_RULES
    for doc, truth in zip(s.card_documents, truths, strict=True):  # the figures written are read back
        m = doc["memory"]
        assert m["components"]["PTA"]["peak_allocated_mb"] * (1 << 20) == truth.peak_allocated
        assert m["components"]["PTA"]["peak_reserved_mb"] * (1 << 20) == truth.peak_reserved
        assert m["largest_allocations"][0]["size_mb"] * (1 << 20) == truth.largest
        assert m["allocations"] == truth.blocks and m["load"]["dropped_rows"] == 0


@pytest.mark.parametrize("planted", [0, 4])
def test_planted_imbalance_is_named(tmp_path, planted):
    s, _ = session(tmp_path, MemorySpec(imbalance_card=planted, seed=3), 3)
    assert [f["card"] for f in s.memory_imbalance] == [f"rank {planted}"]
    from_documents = [peaks_of_document(d["memory"]) for d in s.card_documents]  # what a summary keeps
    assert peaks_imbalance([d["card"] for d in s.card_documents], from_documents) == s.memory_imbalance
    [finding] = [f for f in s.findings if f.rule == "memory_imbalance"]
    assert finding.cards == [f"rank {planted}"] and finding.value > 1.25 * finding.reference
    assert [e.card for e in finding.evidence] == [f"rank {planted}"]
    assert not {f.rule for f in s.findings} & {"large_allocation", "fragmentation"}
