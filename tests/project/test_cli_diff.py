"""``timelineview diff BASE NEW``: a planted change, measured against the generator's ground truth."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from timelineview.synthetic import cluster_specs, generate_cluster

ROOT = Path(__file__).resolve().parents[2]


def run_diff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "timelineview", "diff", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("diff")
    base = generate_cluster(root / "base", cluster_specs(3, seed=4, steps=3, tasks_per_step=80), "msprof")
    new = generate_cluster(root / "new", cluster_specs(3, seed=4, steps=3, tasks_per_step=80, slow_data_card=1,
                                                       slow_data_us=7000.0), "msprof")
    return root, base, new


def mean_interval_us(truth) -> float:
    return float(np.mean(truth.step_fp_ns - truth.step_start_ns)) / 1000.0


def test_diff_reports_the_longer_step_interval_and_nothing_else(runs):
    root, base, new = runs
    out = run_diff(str(root / "base"), str(root / "new"), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [c["card"] for c in doc["cards"]] == ["rank 0", "rank 1", "rank 2"]
    for card, tb, tn in zip(doc["cards"], base, new, strict=True):
        expected = mean_interval_us(tn) - mean_interval_us(tb)
        assert card["delta"]["step_interval_us"] == pytest.approx(expected, abs=1e-3)
        assert card["delta"]["fp_bp_us"] == pytest.approx(0.0, abs=1e-3)
    assert doc["cards"][1]["delta"]["step_interval_us"] > 4000
    assert all(abs(o["delta_us"]) < 1e-6 for o in doc["operators"])  # no compute task changed
    assert doc["notes"] == []


def test_diff_text_shows_phases_then_operators(runs):
    root, _, _ = runs
    out = run_diff(str(root / "base"), str(root / "new"))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.index("Step phases") < text.index("Whole card") < text.index("Operators")
    assert "Operators: no change." in text


def test_diff_of_nothing_readable_says_why(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("]")
    out = run_diff(str(empty), str(empty))
    assert out.returncode == 1
    assert "nothing readable in the base run" in out.stderr
