"""Generated memory files and NPU MEM counters: the analysis reads back what was written, names a planted
imbalance (in the files or in the counters), and finds nothing on a healthy cluster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from timelineview.analysis.cluster.memory_peaks import peaks_imbalance, peaks_of_document
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster
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


# ---------------------------------------------------------------------------- the trace's memory counters

def counter_session(tmp_path, seed: int, scaled: int | None = None, factor: float = 1.3, counters: bool = True,
                    records: MemorySpec | None = None):
    """A generated msprof cluster whose cards' memory is known from their NPU MEM counters (``counters``;
    rank ``scaled``'s multiplied by ``factor``), with memory files too when ``records`` is given."""
    specs = [s.with_(memory_scale=factor if s.rank == scaled else 1.0)
             for s in cluster_specs(CARDS, seed=seed, steps=3, tasks_per_step=40)]
    truths = generate_cluster(tmp_path, specs, "msprof", options=WriteOptions(memory_counters=counters))
    if records is not None:
        write_cluster_memory(truths, records)
    return AnalysisSession(load(tmp_path)), truths


def written_kb(truth, name: str = "APP/HBM") -> list[float]:
    """The values of one NPU MEM counter in a generated card's trace, read here with ``json``."""
    events = json.loads(Path(truth.paths[0]).read_text(encoding="utf-8"))
    events = events["traceEvents"] if isinstance(events, dict) else events
    return [float(e["args"]["KB"]) for e in events if e.get("ph") == "C" and e["name"] == name]


@pytest.mark.parametrize("seed", [1, 2])
def test_counter_only_cards_have_reserved_curves_and_no_finding(tmp_path, seed):
    s, truths = counter_session(tmp_path, seed)
    assert s.memory_imbalance == []
    assert not {f.rule for f in s.findings} & MEMORY_RULES
    for doc, truth in zip(s.card_documents, truths, strict=True):
        m = doc["memory"]
        peak_mb = max(written_kb(truth)) / 1024
        assert set(m["components"]) == {"APP", "DEVICE"}
        assert m["components"]["DEVICE"]["peak_reserved_mb"] == max(written_kb(truth, "Device/HBM")) / 1024
        assert m["components"]["APP"]["peak_reserved_mb"] == peak_mb
        for c in m["components"].values():  # a counter gives reserved memory only
            assert c["peak_allocated_mb"] is None and c["peak_active_mb"] is None
        assert m["peak_reserved_component"] == "APP" and m["peak_reserved_mb"] == peak_mb
        assert m["allocations"] == 0 and m["largest_allocations"] is None and m["live_at_peak"] is None
        assert m["live_at_peak_component"] is None and m["live_at_peak_count"] is None
        assert m["sources"] == ["trace counters (NPU MEM)"]
        for step in m["per_step"]:  # each step's own samples (and the one in force at its start)
            got = step["components"]["APP"]["peak_reserved_mb"]
            assert got is not None and max(written_kb(truth)) / 1024 >= got >= min(written_kb(truth)) / 1024


@pytest.mark.parametrize("planted", [0, 4])
def test_counter_imbalance_is_named(tmp_path, planted):
    s, truths = counter_session(tmp_path, 3, scaled=planted, factor=1.3)
    assert [f["card"] for f in s.memory_imbalance] == [f"rank {planted}"]
    # (a scaled counter holds fractions of a KB: the reader keeps whole bytes)
    assert s.memory_imbalance[0]["value"] == pytest.approx(max(written_kb(truths[planted])) / 1024, abs=1e-6)
    assert s.memory_imbalance[0]["value"] > 1.25 * s.memory_imbalance[0]["median"]
    from_documents = [peaks_of_document(d["memory"]) for d in s.card_documents]  # what a summary keeps
    assert peaks_imbalance([d["card"] for d in s.card_documents], from_documents) == s.memory_imbalance
    [finding] = [f for f in s.findings if f.rule == "memory_imbalance"]
    assert finding.cards == [f"rank {planted}"]


def test_records_win_over_the_counters(tmp_path):
    # the counters of rank 4 say it holds more; the memory files (healthy) are what the card's peak is
    s, truths = counter_session(tmp_path, 3, scaled=4, factor=1.5, records=MemorySpec(seed=3))
    assert s.memory_imbalance == []
    for doc, truth in zip(s.card_documents, truths, strict=True):
        m = doc["memory"]
        assert m["peak_reserved_component"] == "PTA+GE"
        assert set(m["components"]) == {"APP", "PTA", "GE", "PTA+GE", "DEVICE"}  # APP, DEVICE: the counters'
        assert m["components"]["APP"]["peak_reserved_mb"] == max(written_kb(truth)) / 1024
        assert m["sources"][-1] == "trace counters (NPU MEM)"
    app = [d["memory"]["components"]["APP"]["peak_reserved_mb"] for d in s.card_documents]
    assert app[4] > 1.45 * app[0]  # the counters planted there are shown, yet not what the card is judged on


def test_neither_records_nor_counters_is_no_memory(tmp_path):
    s, _ = counter_session(tmp_path, 1, counters=False)
    assert all(doc["memory"] is None for doc in s.card_documents)
    assert s.memory_imbalance == [] and not {f.rule for f in s.findings} & MEMORY_RULES
