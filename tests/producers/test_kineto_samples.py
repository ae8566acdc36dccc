"""Every Kineto sample in ../shared/samples/kineto (skipped when absent) read with its compute,
communication and steps as its own categories say (answer key: plain json and an interval union)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.producers.kineto_reference import answer_key, clipped
from timelineview.analysis.card_analysis import analyse_card
from timelineview.analysis.summary import stats_document
from timelineview.model import load

KINETO = Path(__file__).resolve().parents[3] / "shared" / "samples" / "kineto"
SAMPLES = sorted(KINETO.glob("*.pt.trace.json.gz")) if KINETO.is_dir() else []
pytestmark = [pytest.mark.samples, pytest.mark.skipif(not SAMPLES, reason="../shared/samples/kineto is absent")]


def tolerance_us(key) -> float:
    """How far the totals may be from the key: the loader takes a numeric ``ts`` through a float64 (the
    load report says so for times of 2^42 µs or more), so each interval edge may move by half a float64
    step at the trace's epoch times (128 ns near 1.7e18 ns), plus one ns of rounding."""
    latest = max([e for _, e in key.compute + key.communication] or [0])
    edge_ns = float(np.spacing(float(latest))) / 2 + 1
    return edge_ns * 2 * (len(key.compute) + len(key.communication) + 1) / 1000


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_sample_reads_as_its_categories_say(path):
    key = answer_key(path)
    (store,) = load(path)
    doc = stats_document([store])["cards"][0]
    tol = tolerance_us(key)
    assert doc["compute_us"] == pytest.approx(key.compute_us, abs=tol)
    assert doc["communication_us"] == pytest.approx(key.communication_us, abs=tol)
    assert store.rank == key.rank
    if key.steps:
        assert [s["step"] for s in doc["steps"]] == sorted(key.steps)
        for step in doc["steps"]:
            lo, hi = key.steps[step["step"]]
            assert step["compute_us"] == pytest.approx(clipped(key.compute, lo, hi) / 1000, abs=tol)
            assert step["communication_us"] == pytest.approx(clipped(key.communication, lo, hi) / 1000, abs=tol)
    cls = analyse_card(store, ["classification"]).classification
    assert cls.mode == "kineto"
    assert int(np.count_nonzero(cls.compute | cls.communication)) == key.kernels
    assert int(np.count_nonzero(cls.communication)) == key.nccl_kernels
    assert int(np.count_nonzero(cls.copies)) == key.copies
    assert not np.any(cls.copies & (cls.compute | cls.communication))
    note = [w for w in doc["load"]["warnings"] if "Kineto" in w]
    assert len(note) == 1 and "GPU kernels" in note[0] and "AI Core" not in note[0]


def test_a_folder_of_ranks_is_a_cluster(tmp_path):
    ranks = [p for p in SAMPLES if p.name.startswith("sampled_rank-")]
    assert len(ranks) == 2
    for p in ranks:
        shutil.copy(p, tmp_path / p.name)
    stores = load(tmp_path)
    assert [s.rank for s in stores] == [answer_key(p).rank for p in ranks] == [0, 1]
    doc = stats_document(stores)
    for card, path in zip(doc["cards"], ranks, strict=True):
        key = answer_key(path)
        assert key.nccl_kernels > 0  # the job's NCCL traffic: the communication is not empty
        assert card["communication_us"] == pytest.approx(key.communication_us, abs=tolerance_us(key))
        assert card["compute_us"] == pytest.approx(key.compute_us, abs=tolerance_us(key))
