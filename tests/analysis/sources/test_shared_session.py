"""One AnalysisSession over card sources: a card's trace and its summary give the same cross-card results
by the same code, and the summary reader computes none of them itself."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import orjson
import pytest

from timelineview.analysis.card_analysis import analyse_card
from timelineview.analysis.cluster.comparison import comparison_error
from timelineview.analysis.communication.document import cluster_json
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.sources import CardSource, SummarySource, TraceSource
from timelineview.analysis.summaries import summary_session
from timelineview.analysis.summaries.card_summary import read_card_summary, write_card_summary
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory

CARDS = 6
SLOW_CARD, SLOW_LINK, IMBALANCED = 2, (4, 5), 4
SUMMARY_FIELDS = ("document", "comparison_steps", "operators", "communication")  # what summarize computes
# The rules that read a card's memory records (a summary keeps its memory figures, not the records).
RECORD_RULES = {"memory_imbalance", "large_allocation", "fragmentation"}
CROSS_CARD = {"clock_offsets_ns", "card_documents", "slow_cards", "communication", "operators_across_cards",
              "operators_across_all_cards", "memory_imbalance", "memory_cards", "comparison", "findings",
              "stats_document"}
CROSS_CARD_FUNCTIONS = {"offsets_from_ends", "clock_offsets", "slow_cards", "analyse_cluster",
                        "operators_across_cards", "evaluate_findings", "memory_findings", "documents_imbalance",
                        "cards_imbalance", "peaks_imbalance", "stats_document", "order_findings"}


def _json(value) -> object:
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY))


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> tuple[AnalysisSession, AnalysisSession]:
    """The session over a generated cluster's traces, and the one over the same cards' summaries (written
    as ``summarize`` writes each card, read back as a summary folder reads it)."""
    root = tmp_path_factory.mktemp("sources")
    specs = cluster_specs(CARDS, seed=5, steps=4, tasks_per_step=60, slow_card=SLOW_CARD, slow_link=SLOW_LINK,
                          slow_link_factor=6.0)
    truths = generate_cluster(root / "job", specs, "msprof")
    write_cluster_memory(truths, MemorySpec(imbalance_card=IMBALANCED, seed=5))
    stores = load(root / "job", cache=False)
    summaries = []
    for i, store in enumerate(stores):
        a = analyse_card(store, SUMMARY_FIELDS, number=i)
        folder = root / "summary" / f"card{i}"
        extra = {"run": "r", "dir": folder.name, "key": None, "worker": "w", "sources": []}
        write_card_summary(folder, store, a, comparison_error(store, a.derived), extra)
        summaries.append(SummarySource(read_card_summary(folder), i))
    return AnalysisSession(stores), AnalysisSession(sources=summaries)


def test_sources_are_card_sources(both):
    traced, summarised = both
    assert all(isinstance(s, TraceSource) and isinstance(s, CardSource) for s in traced.sources)
    assert all(isinstance(s, SummarySource) and isinstance(s, CardSource) for s in summarised.sources)
    assert summarised.stores == [] and len(traced.stores) == CARDS


def test_trace_and_summary_give_the_same_cross_card_results(both):
    traced, summarised = both
    assert np.array_equal(traced.clock_offsets_ns, summarised.clock_offsets_ns)
    assert traced.clock_offsets_ns.any()  # the generated clocks are skewed: the offsets are measured
    with_worker = _json(summarised.card_documents)
    assert [d.pop("worker") for d in with_worker] == ["w"] * CARDS
    assert with_worker == _json(traced.card_documents)
    assert traced.slow_cards == summarised.slow_cards
    assert f"rank {SLOW_CARD}" in {f.card for f in traced.slow_cards}
    assert _json(cluster_json(traced.communication)) == _json(cluster_json(summarised.communication))
    assert traced.communication.slow.any()
    assert traced.operators_across_all_cards == summarised.operators_across_all_cards
    assert traced.memory_imbalance == summarised.memory_imbalance
    assert [f["card"] for f in traced.memory_imbalance] == [f"rank {IMBALANCED}"]
    for t, s in zip(traced.comparison.cards, summarised.comparison.cards, strict=True):
        assert (t.card, t.clock_offset_us, t.error, t.memory) == (s.card, s.clock_offset_us, s.error, s.memory)
        assert _json(t.steps) == _json(s.steps)


def test_trace_and_summary_give_the_same_findings(both):
    traced, summarised = both
    on_traces = [f.document() for f in traced.findings if f.rule not in RECORD_RULES]
    assert {"slow_compute", "slow_link"} <= {f["rule"] for f in on_traces}
    assert "memory_imbalance" in {f.rule for f in traced.findings}
    assert [f.document() for f in summarised.findings] == on_traces  # no rule reading records fires on a summary


def test_summary_session_only_reads_the_folder():
    """``SummarySession`` is an ``AnalysisSession`` over summary sources: it defines no cross-card result and
    calls no function that computes one."""
    tree = ast.parse(Path(inspect.getfile(summary_session)).read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SummarySession")
    defined = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    assert defined and not defined & CROSS_CARD
    called = {n.func.id if isinstance(n.func, ast.Name) else n.func.attr
              for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)}
    assert not called & CROSS_CARD_FUNCTIONS
    assert [b.id for b in cls.bases if isinstance(b, ast.Name)] == ["AnalysisSession"]


def test_one_findings_evaluator():
    """The summaries' signals are inputs of the one evaluator, not a second one."""
    from timelineview.analysis.sources import summary_signals

    assert not hasattr(summary_signals, "evaluate_findings")
    assert not [n for n in vars(summary_signals) if n.startswith("evaluate")]
    with pytest.raises(ImportError):
        __import__("timelineview.analysis.summaries.summary_findings")
