"""AnalysisSession: every per-card analysis once, card by card, the same document as the pieces."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

import timelineview.analysis.session  # noqa: F401  (loaded before counting: it binds the analysis functions)
from timelineview.analysis.card_analysis import CARD_STAGES, CardStage, analyse_card
from timelineview.analysis.classify import classify
from timelineview.analysis.cluster.clock_offsets import clock_offsets
from timelineview.analysis.cluster.slow_cards import slow_cards
from timelineview.analysis.communication import analyse_card as analyse_communication
from timelineview.analysis.communication import analyse_cluster
from timelineview.analysis.communication.document import card_json as communication_json
from timelineview.analysis.communication.document import cluster_json
from timelineview.analysis.critical_path.cluster_graph import session_graph
from timelineview.analysis.critical_path.document import analyse_critical_path, session_anomalies
from timelineview.analysis.critical_path.finding_gain import priced_findings
from timelineview.analysis.derived import derive
from timelineview.analysis.file_overlap import file_overlap
from timelineview.analysis.findings import evaluate_findings
from timelineview.analysis.kernels import card_kernels
from timelineview.analysis.kernels.card_object import kernels_document
from timelineview.analysis.kernels.slow_card_excess import with_op_type_excess
from timelineview.analysis.kernels.stage_flops import pipeline_stages
from timelineview.analysis.memory.findings import MemoryCard, cards_imbalance
from timelineview.analysis.memory.stage import card_memory
from timelineview.analysis.operators import card_operators, operators_across_cards
from timelineview.analysis.session import VIEW_FIELDS, AnalysisSession
from timelineview.analysis.steps import find_steps, step_metrics
from timelineview.analysis.summary import stats_document
from timelineview.analysis.window import card_metrics
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

from .call_count import count_calls
from .cluster.cluster_factory import make_cluster


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """A generated 4-card cluster with pipeline parallelism, producer overlap lanes (msprof writes
    them always) and one slow card."""
    out = tmp_path_factory.mktemp("session") / "cluster"
    generate_cluster(out, cluster_specs(4, seed=5, steps=3, tasks_per_step=80, slow_card=2, pipeline=True))
    return load(out)


def reference_document(stores, min_gap_ns=1000) -> dict:
    """The §5 document from the analysis functions themselves, one card after another."""
    ordered = sorted(stores, key=lambda s: (s.rank is None, s.rank or 0, s.card))
    cards, classes, comms, ops, memory = [], [], [], [], []
    for s in ordered:
        d = derive(s, min_gap_ns)
        classes.append(d.classification)
        lanes = int(np.count_nonzero(np.bincount(s.slices.lane, minlength=len(s.lanes))))
        windows = find_steps(s, d)
        comms.append(analyse_communication(s, d.classification, windows))
        doc = {"card": s.card, "rank": s.rank, "path": str(s.paths[0]), "events": len(s.slices),
               "start_ns": s.t_origin, "lanes": lanes,
               **card_metrics(d, min_gap_ns), "clock_offset_us": 0.0,
               "steps": [step_metrics(s, d, w) for w in windows],
               "file_overlap": file_overlap(s, d.classification), "load": s.report.to_json(),
               "communication": communication_json(comms[-1])}
        ops.append((s.card, card_operators(s, d.classification)))
        doc["operators"] = ops[-1][1].document()
        doc["kernels"] = kernels_document(s, card_kernels(s, d.classification), windows)
        mem = card_memory(s, windows)
        memory.append(MemoryCard(s.card, mem, s.t_origin, s.t_end, tuple((w.start, w.end) for w in windows)))
        doc["memory"] = mem.document() if mem is not None else None
        cards.append(doc)
    for doc, off in zip(cards, clock_offsets(ordered, classes), strict=True):
        doc["clock_offset_us"] = float(off) / 1000.0
    # so is the critical path (tests/analysis/critical_path)
    fresh = AnalysisSession(stores, min_gap_ns)
    result = analyse_critical_path(session_graph(fresh), session_anomalies(fresh))
    critical = result.document()
    # findings are tested on their own (tests/analysis/findings, their price tests/analysis/critical_path); here:
    # the document carries them, priced by the critical path
    findings = [f.document() for f in priced_findings(evaluate_findings(AnalysisSession(stores, min_gap_ns)), result,
                                                       {s.card: s.rank for s in stores})]
    slow = with_op_type_excess([f.document() for f in slow_cards(cards)], cards)
    return {"schema": "timelineview.stats/3", "cards": cards, "slow_cards": slow,
            **cluster_json(analyse_cluster(comms)),
            "operators_across_cards": [o.document() for o in operators_across_cards(ops)],
            # the FLOPs per pipeline stage are tested on their own (tests/analysis/kernels/test_stage_flops.py)
            "pipeline_stages": pipeline_stages(fresh.comparison),
            "memory_imbalance": cards_imbalance(memory), "findings": findings, **critical}


def dumps(doc: dict) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)


def test_stats_document_is_byte_for_byte_the_reference(stores):
    for min_gap_ns in (1000, 5000):
        expected = dumps(reference_document(stores, min_gap_ns))
        assert dumps(stats_document(list(reversed(stores)), min_gap_ns)) == expected
    doc = stats_document(stores)
    assert any(c["file_overlap"] for c in doc["cards"]) and len(doc["cards"]) == 4  # the fixture covers them


def test_stats_document_classifies_each_card_once(monkeypatch, stores):
    calls = count_calls(monkeypatch, classify, key=lambda store: store.card)
    doc = stats_document(stores)
    assert dict(calls) == {s.card: 1 for s in stores}
    assert [c["card"] for c in doc["cards"]] == ["rank 0", "rank 1", "rank 2", "rank 3"]


def test_views_and_stats_of_one_session_compute_each_analysis_once(monkeypatch, stores):
    counted = {f: count_calls(monkeypatch, f, key=lambda store, *_a, **_k: store.card)
               for f in (classify, derive, find_steps)}
    session = AnalysisSession(stores, tolerant=True)
    for i in range(len(stores)):
        session.analyse(i)
        session.analyse(i)
    rows = session.comparison.rows()
    doc = session.stats_document()
    offsets = session.clock_offsets_ns
    for f, calls in counted.items():
        assert dict(calls) == {s.card: 1 for s in stores}, f.__name__
    assert [r["clock_offset_us"] for r in rows] == [c["clock_offset_us"] for c in doc["cards"]]
    assert offsets.tolist() == [round(c["clock_offset_us"] * 1000) for c in doc["cards"]]  # loaded by rank
    assert session.comparison.pipeline


def test_a_card_alone_gives_what_the_session_gives(stores):
    """Per-card work needs only that card's store (cards can be analysed on separate workers)."""
    session = AnalysisSession(stores)
    for i, store in enumerate(stores):
        alone = analyse_card(store, ("document", *VIEW_FIELDS), number=i)
        mine = session.analyse(i, ("document", *VIEW_FIELDS))
        assert dumps(alone.document) == dumps(mine.document)
        assert alone.steps == mine.steps
        assert dumps(alone.comparison_steps) == dumps(mine.comparison_steps)
        assert alone.done == mine.done and not alone.error


def test_clock_reference_is_the_first_card_by_rank_in_any_load_order():
    planted = [5_000_000, 5_250_000, 4_000_000]
    stores = make_cluster(3, offsets_ns=planted)
    session = AnalysisSession(list(reversed(stores)))  # loaded as rank 2, 1, 0
    assert session.clock_offsets_ns.tolist() == [-1_000_000, 250_000, 0]
    assert [c.card for c in session.comparison.cards] == ["rank 0", "rank 1", "rank 2"]
    assert [c.number for c in session.comparison.cards] == [2, 1, 0]  # numbers stay load positions


def test_a_failing_analysis_stops_its_card_only_when_tolerant(monkeypatch):
    stores = make_cluster(3)

    def broken(store, analysis):
        if store.card == "rank 1":
            raise ValueError("boom")
        return find_steps(store, analysis.derived)

    monkeypatch.setitem(CARD_STAGES, "steps", CardStage(broken, ("derived",)))
    session = AnalysisSession(stores, tolerant=True)
    bad = session.analyse(1)
    assert bad.error == "steps unavailable: boom"
    assert bad.derived is not None and bad.steps is None and bad.comparison_steps is None  # what came before stays
    assert all(not session.analyse(i).error for i in (0, 2))
    rows = {c.card: c for c in session.comparison.cards}
    assert rows["rank 1"].error == "steps unavailable: boom" and not rows["rank 1"].steps
    assert rows["rank 0"].usable and rows["rank 2"].usable
    with pytest.raises(ValueError, match="boom"):
        AnalysisSession(stores).stats_document()


def test_a_new_per_card_analysis_is_one_stage(monkeypatch):
    """A stage names its inputs; asking for it computes them first, once."""
    stores = make_cluster(3)
    monkeypatch.setitem(CARD_STAGES, "compute_tasks",
                        CardStage(lambda store, a: int(a.classification.compute.sum()), ("classification",)))
    session = AnalysisSession(stores)
    got = session.analyse(0, ("compute_tasks",))
    assert got.compute_tasks == int(classify(stores[0]).compute.sum()) == 4 * 4  # 4 steps of 4 ops
    assert got.done == {"classification", "compute_tasks"}
