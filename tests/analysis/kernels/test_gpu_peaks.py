"""The GPU peak for MFU: the part a Kineto trace's ``deviceProperties`` names, read from the datasheets'
table; ``--peak-tflops`` still wins."""

from __future__ import annotations

import json

import pytest

from tests.producers.test_kineto_trace import kineto_trace
from timelineview.analysis.kernels.peaks.chip_peaks import chip_peak
from timelineview.cli import stats_main


@pytest.mark.parametrize(("name", "tflops"), [
    ("NVIDIA H100 80GB HBM3", 989.5),  # the SXM part as torch.cuda names it
    ("NVIDIA H100 PCIe", 756.5),
    ("NVIDIA H100 NVL", 835.5),
    ("NVIDIA A100-SXM4-80GB", 312.0),
    ("NVIDIA A100 80GB PCIe", 312.0),
    ("NVIDIA A10", 125.0),
    ("Tesla V100-SXM2-32GB", 125.0),
    ("Tesla V100-PCIE-16GB", 112.0),
    ("Tesla V100S-PCIE-32GB", 130.0),
    ("NVIDIA L40S", 362.05),
    ("NVIDIA L40", 181.05),
    ("NVIDIA L4", 121.0),
    ("Tesla T4", 65.0),
])
def test_parts_by_name(name, tflops):
    peak = chip_peak(name)
    assert peak.tflops == tflops
    assert peak.source.startswith(f"{name}: NVIDIA ")


@pytest.mark.parametrize("name", ["NVIDIA A10G", "NVIDIA GeForce RTX 3090", "AMD Instinct MI250X", ""])
def test_parts_not_in_the_table_have_no_peak(name):
    assert chip_peak(name) is None


def test_an_ascend_chip_keeps_its_figure():
    assert chip_peak("Ascend910B3").tflops == 313.0


def _stats(tmp_path, capsys, *extra: str) -> dict:
    path = tmp_path / "host_1.1700000000.pt.trace.json"
    path.write_text(json.dumps(kineto_trace()))  # deviceProperties: GPU 3, "NVIDIA H100 80GB HBM3"
    assert stats_main([str(path), "--json", "--quiet", "--no-cache", *extra]) == 0
    [card] = json.loads(capsys.readouterr().out)["cards"]
    return card["kernels"]


def test_a_kineto_card_takes_its_gpus_peak(tmp_path, capsys):
    kernels = _stats(tmp_path, capsys)
    assert kernels["device"] == "NVIDIA H100 80GB HBM3"
    assert kernels["peak_tflops"] == 989.5
    assert "H100 datasheet" in kernels["peak_source"]


def test_the_peak_option_still_wins(tmp_path, capsys):
    kernels = _stats(tmp_path, capsys, "--peak-tflops", "100")
    assert (kernels["peak_tflops"], kernels["peak_source"]) == (100.0, "--peak-tflops")
