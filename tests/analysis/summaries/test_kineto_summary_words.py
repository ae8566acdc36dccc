"""A Kineto (GPU) card read from its summary, no trace loaded, is worded as the GPU card it is (metrics.md §13):
its summary keeps the card's producer, and the summary-backed CLI and views take their words from it, never the
Ascend ones ("AI Core")."""

from __future__ import annotations

import json

import orjson
import pytest

from tests.api.conftest import run_cli
from tests.producers.test_kineto_trace import COMPUTE_STREAM, KERNELS, NCCL_STREAM, kineto_trace
from timelineview.analysis.summaries.summary_session import SummarySession, read_checked_index
from timelineview.producers import kineto
from timelineview.producers.wording import ASCEND_WORDING
from timelineview.viewstate.card_view import derived_lanes_of, summary_card, wording_of_derived
from timelineview.viewstate.timeline.lane_filter import lane_filters

pytest.importorskip("distributed")

ASCEND_WORDS = (ASCEND_WORDING.unit, "AICore", "AI_CORE")
GEMM, NCCL = KERNELS[0][0], KERNELS[2][0]
# Per 1000 µs step: two kernels 400 µs apart with nothing running between them, then an all-reduce, so that the
# host-bound finding (worded in the device's units) fires on the card
IDLE_KERNELS = [k for step in (0, 1000) for k in (
    (GEMM, COMPUTE_STREAM, step + 100, 100), (GEMM, COMPUTE_STREAM, step + 600, 100),
    (NCCL, NCCL_STREAM, step + 720, 80))]


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    """One hand-built Kineto card, idle between its kernels, summarised on an in-process Dask cluster."""
    from distributed import Client

    from timelineview.distributed.summarize import summarize

    base = tmp_path_factory.mktemp("kineto_summary")
    (base / "job").mkdir()
    (base / "job" / "host_123.1700000000.pt.trace.json").write_text(json.dumps(kineto_trace(IDLE_KERNELS)))
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as client:
        summarize(base / "job", base / "s", client=client, progress=None)
    return base / "s"


def _ascend_words_in(text: str) -> list[str]:
    return [w for w in ASCEND_WORDS if w.lower() in text.lower()]


def test_the_summary_keeps_the_producer(summary):
    session = SummarySession(summary, read_checked_index(summary), tolerant=True, whole=True)
    (card,) = [s.analysis for s in session.sources]
    assert card.producer == kineto.KIND
    assert card.derived.mode == kineto.KIND
    # the views' words for the card: its lanes, the lane filters, the coverage rows its summary draws
    assert wording_of_derived(card.derived) == kineto.WORDING
    # the card drawn from its pyramid (the summary's timeline): no analysis, its producer from the summary
    assert summary_card(0, card.pyramid(), card.card, card.producer).wording == kineto.WORDING
    titles = [lane.title for lane in derived_lanes_of(card.derived)] + [t for _, t in lane_filters(
        wording_of_derived(card.derived))] + card.manifest["pyramid"]["rows"]
    assert "Idle GPU gaps" in titles
    assert [t for t in titles if _ascend_words_in(t)] == []


def test_stats_of_the_summary_never_says_ai_core(summary):
    text = run_cli("stats", str(summary))
    assert text.returncode == 0, text.stderr
    as_json = run_cli("stats", str(summary), "--json")
    assert as_json.returncode == 0, as_json.stderr
    doc = orjson.loads(as_json.stdout)
    # the findings the card fires are worded, so the check below reads sentences that could say "AI Core"
    assert doc["findings"], "the hand-built card fires no finding: nothing worded to check"
    host_bound = [f for f in doc["findings"] if f["rule"] == "host_bound"]
    assert len(host_bound) == 1 and kineto.WORDING.units in host_bound[0]["advice"]
    assert {e["lane"] for e in host_bound[0]["evidence"]} == {"Idle GPU gaps"}
    for out in (text.stdout, text.stderr, as_json.stdout, as_json.stderr):
        assert _ascend_words_in(out) == []
