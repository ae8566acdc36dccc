"""``stats --peak-tflops X``: every card's MFU is its achieved TFLOPS over X."""

import json

import pytest

from timelineview.cli import stats_main
from timelineview.views.resources import sample_cluster_path


def test_peak_option_sets_every_mfu(capsys):
    assert stats_main([str(sample_cluster_path()), "--json", "--quiet", "--no-cache", "--peak-tflops", "50"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cards"]
    for card in doc["cards"]:
        kernels = card["kernels"]
        assert kernels["peak_tflops"] == 50.0 and kernels["peak_source"] == "--peak-tflops"
        assert kernels["tasks"] == sum(r["count"] for r in kernels["by_op_type"])
        for row in kernels["steps"] + kernels["by_op_type"]:
            assert row["mfu"] == (None if row["tflops"] is None else pytest.approx(row["tflops"] / 50.0))
